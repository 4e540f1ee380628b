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
from inferledger.diagnose.records import Requests, Windows

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
# The same requests as 2025 builds print them (no prefix, the slot released before a header and three bare timing
# lines; the idle notice after them), and as 2026 builds do without the prefix (released after the timings).
REQUEST_2025 = (
    "srv  log_server_r: request: POST /v1/chat/completions 127.0.0.1 200",
    "srv  params_from_: Chat format: Content-only",
    "slot get_availabl: id  {slot} | task -1 | selected slot by lcs similarity, lcs_len = 185, similarity = 0.438 "
    "(> 0.100 thold)",
    "slot launch_slot_: id  {slot} | task {task} | processing task",
    "slot update_slots: id  {slot} | task {task} | new prompt, n_ctx_slot = 16384, n_keep = 0, n_prompt_tokens = 422",
    "slot update_slots: id  {slot} | task {task} | kv cache rm [185, end)",
    "slot update_slots: id  {slot} | task {task} | prompt processing progress, n_past = 422, n_tokens = 237, "
    "progress = 0.561611",
    "slot update_slots: id  {slot} | task {task} | prompt done, n_past = 422, n_tokens = 237",
    "slot      release: id  {slot} | task {task} | stop processing: n_past = 434, truncated = 0",
    "slot print_timing: id  {slot} | task {task} | ",
    "prompt eval time =     182.78 ms /   237 tokens (    0.77 ms per token,  1296.63 tokens per second)",
    "       eval time =     342.29 ms /    13 tokens (   26.33 ms per token,    {rate} tokens per second)",
    "      total time =     525.07 ms /   250 tokens",
    "srv  update_slots: all slots are idle",
    "request: POST /v1/chat/completions 172.17.0.1 200",
)
REQUEST_2025_SLOTS = tuple(line for line in REQUEST_2025 if "idle" not in line)  # another slot busy: no idle notice
REQUEST_BARE_2026 = (
    "srv  params_from_: Chat format: peg-native",
    "slot launch_slot_: id  {slot} | task {task} | processing task",
    "slot print_timing: id  {slot} | task {task} | ",
    "prompt eval time =     389.09 ms /    21 tokens (   18.53 ms per token,    53.97 tokens per second)",
    "       eval time =   82453.51 ms /  2661 tokens (   30.99 ms per token,    {rate} tokens per second)",
    "      total time =   82842.60 ms /  2682 tokens",
    "slot print_timing: id  {slot} | task {task} |    graphs reused =       2590",
    "slot      release: id  {slot} | task {task} | stop processing: n_tokens = 4103, truncated = 0",
    "srv  update_slots: all slots are idle",
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
    "slot print_timing: id  1 | task {task} |    graphs reused =        7",
    "slot print_timing: id  1 | task {task} | draft acceptance = 0.61",
    "slot      release: id  1 | task {task} | stop processing: n_tokens = 77, truncated = 0",
    "srv  update_slots: all slots are idle",
    "       eval time =     342.29 ms /    13 tokens (   26.33 ms per token,    37.98 tokens per second)",
    "request: POST /v1/chat/completions [ip] 200",
)


# Without a reply's timings, whose fields are kept until the next reply's (to the file's end, in these logs).
ODD_NO_REPLY = tuple(line for line in ODD if '"' not in line)
SHAPES = {"2026": REQUEST, "2025": REQUEST_2025, "2025-slots": REQUEST_2025_SLOTS, "2026-bare": REQUEST_BARE_2026}


def _log_lines(seed: int, count: int, odd_lines: tuple = ODD, request: tuple = REQUEST) -> list[str]:
    """Whole requests in order, their lines now and then mixed with another task's or an odd line."""
    rng = random.Random(seed)
    lines: list[str] = []
    task = 1
    while len(lines) < count:
        odd = rng.random() < 0.3
        for shape in request:
            if odd and rng.random() < 0.15:
                lines.append(rng.choice(odd_lines + request).format(t="00.01.002.003", slot=2, task=task + 1, rate="1.50"))
            stamp = f"{rng.randint(0, 99):02d}.{rng.randint(0, 59):02d}.{rng.randint(0, 999):03d}.{rng.randint(0, 999):03d}"
            lines.append(shape.format(t=stamp, slot=rng.randint(0, 3), task=task, rate=f"{rng.uniform(1, 99):.2f}"))
        task += 1
    return lines


def _items(items) -> list:
    """Each item as a dict; a block of columns (records.Requests, records.Windows) as the Records it stands for."""
    return [record.to_dict() for item in items
            for record in (item.records() if isinstance(item, Requests | Windows) else [item])]


@pytest.mark.parametrize("shape", SHAPES)
@pytest.mark.parametrize("seed", range(12))
def test_blocks_read_what_every_line_fed_reads(tmp_path, monkeypatch, seed, shape):
    path = tmp_path / "llama-server.log"
    path.write_text("\n".join(_log_lines(seed, 400, request=SHAPES[shape])) + ("\n" if seed % 3 else ""),
                    encoding="utf-8")
    fed = LogFile.open(path)
    expected = _items(llamacpp.parse(fed.lines()))
    blocks = LogFile.open(path)
    items = list(llamacpp.parse_log(blocks))
    assert _items(items) == expected
    assert (blocks.lines_read, blocks.bytes_read) == (fed.lines_read, fed.bytes_read)
    assert any(type(item) is Requests for item in items), "no request was read by its pattern"


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


@pytest.mark.parametrize(("seed", "pair", "odd_lines", "shape"), [
    (0, 6000, ODD_NO_REPLY, "2026"), (0, 6000, ODD, "2026"), (1, 20_000, ODD_NO_REPLY, "2026"), (2, 3000, ODD, "2026"),
    (3, 10**9, ODD, "2026"), (5, 6000, ODD_NO_REPLY, "2025"), (6, 6000, ODD_NO_REPLY, "2025-slots"),
    (7, 6000, ODD_NO_REPLY, "2026-bare")])
def test_two_processes_read_what_one_reads(tmp_path, monkeypatch, seed, pair, odd_lines, shape):
    path = tmp_path / "llama-server.log"
    path.write_text("\n".join(_log_lines(seed, 3000, odd_lines, SHAPES[shape])) + "\n", encoding="utf-8")
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
    if pair < 10**9 and shape != "2025-slots":  # several slots of a 2025 build: a request stays open to the next
        assert True in states  # a chunk read by the child stood
    if pair < 10**9 and seed == 2:
        assert False in states  # one began where this process's state was not fresh (a reply's timings): read again


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


def _odd_request(rng, task: int, stamp: str, shape: str = "2026") -> list[str]:
    """One 2026 request whose numbers are now and then odd: no prompt time, one or no token, a tiny prompt, a slow
    step, a total that is not the parts' sum; its progress line and its graphs line now and then missing. `shape`
    "2026-bare": the same lines without the prefix, the timings under a header; "2025": those, the slot released
    before the header, no progress or graphs line."""
    def pick(odd, low, high):
        return rng.choice(odd) if rng.random() < 0.3 else rng.uniform(low, high)

    prompt_ms, eval_ms = pick([0.0, 0.01, 1e6], 0, 1e5), pick([0.0, 0.01, 1e6], 0, 1e5)
    numbers = {"t": stamp, "slot": rng.randint(0, 3), "task": task, "n": int(pick([0, 1, 2, 5, 128], 1, 20000)),
               "out": int(pick([0, 1, 2, 16], 1, 2000)), "rate": pick([0.0, 0.01, 1e6], 0.5, 200),
               "prate": pick([0.0, 0.5, 1e5, 1e7], 1, 5000), "pms": prompt_ms, "ems": eval_ms,
               "per": pick([0.0, 100.0, 1000.0, 1e5], 1, 300), "graphs": rng.randint(0, 5000),
               "total": rng.choice([prompt_ms + eval_ms, (prompt_ms + eval_ms) * 2, 0.0, prompt_ms + eval_ms + 90])}
    shapes = [
        "{t} I slot launch_slot_: id  {slot} | task {task} | processing task",
        "{t} I slot print_timing: id  {slot} | task {task} | n_decoded = {out}, tg = {rate:.2f} t/s",
        "{t} I slot print_timing: id  {slot} | task {task} | prompt eval time = {pms:10.2f} ms / {n:5d} tokens "
        "(    2.02 ms per token, {prate:8.2f} tokens per second)",
        "{t} I slot print_timing: id  {slot} | task {task} |        eval time = {ems:10.2f} ms / {out:5d} tokens "
        "({per:8.2f} ms per token, {rate:8.2f} tokens per second)",
        "{t} I slot print_timing: id  {slot} | task {task} |       total time = {total:10.2f} ms / 9 tokens",
        "{t} I slot print_timing: id  {slot} | task {task} |    graphs reused = {graphs}",
        "{t} I slot      release: id  {slot} | task {task} | stop processing: n_tokens = 9, truncated = 0",
        "{t} I srv  update_slots: all slots are idle",
    ]
    if shape != "2026":  # the header's line, then the three timing lines bare
        timings = ["slot print_timing: id  {slot} | task {task} | ",
                   "prompt eval time = {pms:10.2f} ms / {n:5d} tokens (    2.02 ms per token, {prate:8.2f} tokens per "
                   "second)",
                   "       eval time = {ems:10.2f} ms / {out:5d} tokens ({per:8.2f} ms per token, {rate:8.2f} tokens "
                   "per second)",
                   "      total time = {total:10.2f} ms / 9 tokens"]
        launch, idle = "slot launch_slot_: id  {slot} | task {task} | processing task", "srv  update_slots: all slots are idle"
    if shape == "2026-bare":
        shapes = [launch, *timings, "slot print_timing: id  {slot} | task {task} |    graphs reused = {graphs}",
                  "slot      release: id  {slot} | task {task} | stop processing: n_tokens = 9, truncated = 0", idle]
    elif shape == "2025":  # released before its timings
        shapes = [launch, "slot      release: id  {slot} | task {task} | stop processing: n_past = 9, truncated = 0",
                  *timings, idle]
    return [line.format(**numbers) for line in shapes
            if not (("n_decoded" in line or "graphs" in line) and rng.random() < 0.3)]


@pytest.mark.parametrize("shape", ["2026", "2026-bare", "2025"])
def test_stretches_diagnose_what_every_line_fed_diagnoses(tmp_path, monkeypatch, shape):
    # Requests read as stretches (records.Requests, folded a column at a time) against the same log with every request
    # line fed (no stretch): the same records and the same diagnosis, every number in it, odd numbers and odd lines
    # among the requests.
    from inferledger.diagnose import diagnose_files
    from inferledger.diagnose.read import read_records

    rng = random.Random(6)
    lines = []
    for task in range(1, 3000):
        lines.extend(_odd_request(rng, task, f"{task // 600:02d}.{task // 10 % 60:02d}.{task % 1000:03d}.000", shape))
        if rng.random() < 0.05:
            lines.append(rng.choice(ODD_NO_REPLY).format(t="00.01.002.003", slot=2, task=task + 1, rate="1.50"))
    path = tmp_path / "llama-server.log"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    stretched = diagnose_files([path]).to_dict(), [record.to_dict() for record in read_records(path)]
    assert sum(len(item) for item in llamacpp.parse_log(LogFile.open(path)) if type(item) is Requests) > 1000
    monkeypatch.setattr(llamacpp, "_cycles", lambda *args: [])
    fed = diagnose_files([path]).to_dict(), [record.to_dict() for record in read_records(path)]
    assert stretched == fed
    assert stretched[0]["metrics"]["request"]["tpot_seconds"]["count"] > 1000
