"""The llama.cpp reader's block path (llamacpp.parse_log: a block at a time, the usual 2026 lines by patterns) gives
what feeding every line to parse() gives, and two processes (read._parallel_pull) give what one gives: the same
items in the same order, line and byte counts, wherever the file is cut and whatever state the reader is in there.
"""

from __future__ import annotations

import random
import re

import pytest

from inferledger.diagnose import read
from inferledger.diagnose.parsers import llamacpp
from inferledger.diagnose.read import LogFile, detect_formats, iter_records

# One request of a 2026 llama-server (the shapes of benchmarks/bench_diagnose.py's LLAMA_SERVER).
REQUEST = (
    "{t} I srv  params_from_: Chat format: Gemma 4",
    "{t} I slot launch_slot_: id  {slot} | task {task} | processing task",
    "{t} I slot update_slots: id  {slot} | task {task} | new prompt, n_ctx_slot = 32768, n_keep = 0, "
    "n_prompt_tokens = 19740",
    "{t} I slot update_slots: id  {slot} | task {task} | kv cache rm [19636, end)",
    "{t} I slot update_slots: id  {slot} | task {task} | prompt done, n_past = 19740, n_tokens = 104",
    "{t} I slot print_timing: id  {slot} | task {task} | n_decoded =    697, tg =  {rate} t/s",
    "{t} I slot print_timing: id  {slot} | task {task} | prompt eval time =     210.02 ms /   104 tokens (    2.02 ms "
    "per token,   495.19 tokens per second)",
    "{t} I slot print_timing: id  {slot} | task {task} |        eval time =   12060.66 ms /   764 tokens (   15.79 ms "
    "per token,    {rate} tokens per second)",
    "{t} I slot print_timing: id  {slot} | task {task} |       total time =   12270.68 ms /   868 tokens",
    "{t} I slot print_timing: id  {slot} | task {task} |    graphs reused =       2590",
    "{t} I slot      release: id  {slot} | task {task} | stop processing: n_tokens = 19740, truncated = 0",
    "{t} I srv  update_slots: all slots are idle",
    "{t} I srv  log_server_r: request: POST /v1/chat/completions 127.0.0.1 200",
)
# Lines that change the reader's state or look like the usual ones without being them.
ODD = (
    "| model | size | params | backend | ngl | test | t/s |",
    "| ----- | ---: | -----: | ------- | --: | ---: | --: |",
    "| llama 7B Q4_0 | 3.56 GiB | 6.74 B | CUDA | 99 | tg128 | 120.5 ± 0.4 |",
    "+-----+-----+",
    "model\tsize\ttest\tt/s",
    "m\t1 GiB\ttg128\t50.0",
    "slot print_timing: id  0 | task 5 |",
    "prompt eval time =     210.02 ms /   104 tokens (    2.02 ms per token,   495.19 tokens per second)",
    "      total time =   12270.68 ms /   868 tokens",
    "{t} I slot print_timing: id  1 | task {task} | prompt eval time =       0.00 ms /     1 tokens (    0.00 ms per "
    "token,      inf tokens per second)",
    "{t} I slot      release: id  2 | task 77 | stop processing: n_tokens = 100, truncated = 0",
    "{t} I slot print_timing: id  3 | task {task} | draft acceptance = 0.55",
    "{t} I slot print_timing: id  3 | task {task} | prompt processing, n_tokens =  17653, progress = 0.69, t = 327.87 "
    "s / 53.84 tokens per second",
    "llama_new_context_with_model: n_ctx      = 4096",
    "llm_load_tensors: offloaded 33/33 layers to GPU",
    '    "predicted_ms": 48.984,',
    '    "prompt_n": 3,',
    "main: predict time =   675.43 ms / 56.29 ms per token",
    "{t} I srv  params_from_: Chat format: 5 tokens per second",
    "some random 12 t/s text",
    "",
)


# Without a reply's timings, whose fields are kept until the next reply's (to the file's end, in these logs).
ODD_NO_REPLY = tuple(line for line in ODD if '"' not in line)


def _log_lines(seed: int, count: int, odd_lines: tuple = ODD) -> list[str]:
    """Whole requests in order, their lines now and then mixed with another task's or an odd line."""
    rng = random.Random(seed)
    lines: list[str] = []
    task = 1
    while len(lines) < count:
        odd = rng.random() < 0.3
        for shape in REQUEST:
            if odd and rng.random() < 0.15:
                lines.append(rng.choice(odd_lines + REQUEST).format(t="00.01.002.003", slot=2, task=task + 1, rate="1.50"))
            stamp = f"{rng.randint(0, 99):02d}.{rng.randint(0, 59):02d}.{rng.randint(0, 999):03d}.{rng.randint(0, 999):03d}"
            lines.append(shape.format(t=stamp, slot=rng.randint(0, 3), task=task, rate=f"{rng.uniform(1, 99):.2f}"))
        task += 1
    return lines


def _items(items) -> list:
    return [item.to_dict() for item in items]


@pytest.mark.parametrize("seed", range(12))
def test_blocks_read_what_every_line_fed_reads(tmp_path, monkeypatch, seed):
    path = tmp_path / "llama-server.log"
    path.write_text("\n".join(_log_lines(seed, 400)) + ("\n" if seed % 3 else ""), encoding="utf-8")
    fed = LogFile.open(path)
    expected = _items(llamacpp.parse(fed.lines()))
    taken = []
    monkeypatch.setattr(llamacpp, "_request_of", lambda *args, real=llamacpp._request_of: taken.append(1) or real(*args))
    blocks = LogFile.open(path)
    assert _items(llamacpp.parse_log(blocks)) == expected
    assert (blocks.lines_read, blocks.bytes_read) == (fed.lines_read, fed.bytes_read)
    assert taken, "no request was read by its pattern"


def test_a_block_that_needs_cleaning_is_fed_line_by_line(tmp_path):
    path = tmp_path / "llama-server.log"
    lines = _log_lines(3, 200)
    lines[7] = "\x1b[32m" + lines[7]  # a colour code: the block is cleaned, every line fed
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    assert _items(llamacpp.parse_log(LogFile.open(path))) == _items(llamacpp.parse(LogFile.open(path).lines()))


def _read(path):
    log = LogFile.open(path)
    records = [item.to_dict() for item in iter_records(log, detect_formats(log))]
    return records, log.skipped, log.unread, [item.to_dict() for item in log.unread_examples], log.lines_read, \
        log.bytes_read


@pytest.mark.parametrize(("seed", "pair", "odd_lines"), [(0, 6000, ODD_NO_REPLY), (0, 6000, ODD),
                                                        (1, 20_000, ODD_NO_REPLY), (2, 3000, ODD), (3, 10**9, ODD)])
def test_two_processes_read_what_one_reads(tmp_path, monkeypatch, seed, pair, odd_lines):
    path = tmp_path / "llama-server.log"
    path.write_text("\n".join(_log_lines(seed, 3000, odd_lines)) + "\n", encoding="utf-8")
    monkeypatch.setenv("INFERLEDGER_DIAGNOSE_PROCESSES", "1")
    one = _read(path)
    monkeypatch.setenv("INFERLEDGER_DIAGNOSE_PROCESSES", "2")
    monkeypatch.setattr(read, "PARALLEL_MIN_BYTES", 0)
    monkeypatch.setattr(read, "PARALLEL_PAIR_BYTES", min(pair, path.stat().st_size))
    states = []
    monkeypatch.setattr(llamacpp._Reader, "fresh",
                        lambda self, real=llamacpp._Reader.fresh: states.append(real(self)) or states[-1])
    log = LogFile.open(path)
    assert read._parallel_pull(log, llamacpp) is not None, "the two-process path was not taken"
    assert _read(path) == one
    if pair < 10**9:
        assert True in states  # a chunk read by the child stood
    if pair < 10**9 and seed in (0, 2):
        assert False in states  # and one began where this process's state was not fresh: read again here


def test_a_failed_pull_child_falls_back_to_one_process(tmp_path, monkeypatch):
    import os

    path = tmp_path / "llama-server.log"
    path.write_text("\n".join(_log_lines(4, 2000)) + "\n", encoding="utf-8")
    monkeypatch.setenv("INFERLEDGER_DIAGNOSE_PROCESSES", "1")
    one = _read(path)
    monkeypatch.setenv("INFERLEDGER_DIAGNOSE_PROCESSES", "2")
    monkeypatch.setattr(read, "PARALLEL_MIN_BYTES", 0)
    monkeypatch.setattr(read, "PARALLEL_PAIR_BYTES", 20_000)
    monkeypatch.setattr(read, "_pull_child", lambda *args: os._exit(3))
    assert _read(path) == one


@pytest.mark.parametrize("text", ["vllm-1  | INFO x\n", "a\nvllm-1  | INFO\n", "a\nvllm-1\n| INFO\n", "x-1 | y\n",
                                  "a b-1 | c\n", "ab-1-2  | c\n", "a\n-1 | x\n", "q | w\n", "--1 | x\n"])
def test_a_compose_prefix_is_found_from_its_tail(text):
    line_start = re.compile(r"\n" + read._COMPOSE.pattern)
    assert read._block_is_clean(text) == (read._COMPOSE.match(text) is None and line_start.search(text) is None)
