"""The fast paths of `diagnose` give what the plain paths give (benchmarks/bench_diagnose.py measures the speed).

- a big plain file read by two processes (read._parallel_items) versus one pass: same records in the same order,
  same damaged-line reports, line and byte counts and verdict, wherever and however often the file is cut;
- SGLang batch lines read by one match of a known layout versus the generic `label: value` loop;
- the cached SGLang prefix and vLLM stamp/labels versus the regex and strptime-free reading they shortcut.
"""

from __future__ import annotations

import math
import os
import random
from pathlib import Path

import pytest

from inferledger.diagnose import diagnose_files, read
from inferledger.diagnose.parsers import sglang, vllm
from inferledger.diagnose.parsers._common import epoch_seconds, find_timestamp
from inferledger.diagnose.read import LogFile, detect_formats, iter_records

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures" / "logs"
NOISE = 'INFO:     10.0.0.1:5555 - "POST /v1/completions HTTP/1.1" 200 OK'


def _sample_lines(prefix: str) -> list[str]:
    lines = []
    for path in sorted(FIXTURES.glob(prefix + "*.txt")):
        if "prometheus" in path.name or "bench" in path.name:
            continue
        lines.extend(line for line in path.read_text(encoding="utf-8").split("\n")[1:] if line.strip())
    return lines


def _mixed_log(path: Path, repeats: int = 40, end: str = "\n") -> None:
    """Every vLLM and SGLang sample line, noise between them, and damage: wrapped, glued and coloured lines."""
    vllm_lines, sglang_lines = _sample_lines("vllm__"), _sample_lines("sglang__")
    stats = next(line for line in vllm_lines if "Avg prompt throughput:" in line and line.endswith("%"))
    cut = stats.index("Waiting") + 3 if "Waiting" in stats else len(stats) // 2
    rng = random.Random(5)
    lines = []
    for index in range(repeats):
        for line in vllm_lines + sglang_lines:
            lines.append(line)
            lines.extend([NOISE] * rng.randint(0, 3))
        lines.extend([stats[:cut], stats[cut:]])  # a hard-wrapped stats line (joined in a single pass)
        lines.append(stats[:cut])  # a cut one with nothing after it: its two rates read
        lines.append(stats[: stats.index("tokens/s")])  # one cut before its first rate is whole: damaged
        lines.append(stats + " " + stats)  # two glued on one line
        lines.append("\x1b[32m" + sglang_lines[index % len(sglang_lines)] + "\x1b[0m")
        lines.append("2026-05-12T08:01:39.331095044Z " + vllm_lines[index % len(vllm_lines)])
    path.write_text("\n".join(lines) + end, encoding="utf-8")


def _read(path: Path):
    log = LogFile.open(path)
    records = list(iter_records(log, detect_formats(log)))
    return records, log.skipped, [item.to_dict() for item in log.skipped_examples], log.lines_read, log.bytes_read


@pytest.mark.parametrize(("share", "pair", "end"), [(0.05, 10**9, "\n"), (0.35, 10**9, ""), (0.8, 10**9, "\n"),
                                                    (0.35, 20_000, "\n"), (0.5, 4096, "")])
def test_two_processes_read_what_one_reads(tmp_path, monkeypatch, share, pair, end):
    path = tmp_path / "mixed.log"
    _mixed_log(path, end=end)
    monkeypatch.setenv("INFERLEDGER_DIAGNOSE_PROCESSES", "1")
    one = _read(path)
    verdict_one = diagnose_files([path]).to_dict()
    monkeypatch.setenv("INFERLEDGER_DIAGNOSE_PROCESSES", "2")
    monkeypatch.setattr(read, "PARALLEL_MIN_BYTES", 0)
    monkeypatch.setattr(read, "PARALLEL_PARENT_SHARE", share)
    monkeypatch.setattr(read, "PARALLEL_PAIR_BYTES", min(pair, path.stat().st_size))
    log = LogFile.open(path)
    assert read._parallel_items(log, detect_formats(log)) is not None, "the two-process path was not taken"
    two = _read(path)
    assert len(one[0]) > 1000 and one[1] > 0  # records and damaged lines on both sides of the cut
    assert two == one
    verdict_two = diagnose_files([path]).to_dict()
    assert verdict_two == verdict_one


def test_a_failed_child_falls_back_to_one_process(tmp_path, monkeypatch):
    path = tmp_path / "mixed.log"
    _mixed_log(path, repeats=10)
    monkeypatch.setenv("INFERLEDGER_DIAGNOSE_PROCESSES", "1")
    one = _read(path)
    monkeypatch.setenv("INFERLEDGER_DIAGNOSE_PROCESSES", "2")
    monkeypatch.setattr(read, "PARALLEL_MIN_BYTES", 0)
    monkeypatch.setattr(read, "PARALLEL_PAIR_BYTES", 30_000)
    monkeypatch.setattr(read, "_child", lambda *args: os._exit(3))
    assert _read(path) == one


def _child_dying_after_one_batch(log, push, chunks, connection):
    import pickle

    from inferledger.diagnose.records import Record

    start, stop = chunks[1]
    part = LogFile(path=log.path, encoding=log.encoding, size_bytes=log.size_bytes)
    items = []
    for item in read._push_items(part, push, start=start, stop=stop):
        items.append((item.line_number, item.kind, item.source, item.metrics, item.timestamp_seconds, item.labels)
                     if type(item) is Record else (item.line_number, item.reason, item.source))
        if len(items) == 7:
            break
    connection.send_bytes(pickle.dumps(3))  # three batches announced, one sent
    connection.send_bytes(pickle.dumps(items))
    os._exit(3)


def test_a_child_dying_part_way_loses_nothing(tmp_path, monkeypatch):
    path = tmp_path / "mixed.log"
    _mixed_log(path, repeats=10)
    monkeypatch.setenv("INFERLEDGER_DIAGNOSE_PROCESSES", "1")
    one = _read(path)
    monkeypatch.setenv("INFERLEDGER_DIAGNOSE_PROCESSES", "2")
    monkeypatch.setattr(read, "PARALLEL_MIN_BYTES", 0)
    monkeypatch.setattr(read, "PARALLEL_PAIR_BYTES", 30_000)
    monkeypatch.setattr(read, "_child", _child_dying_after_one_batch)
    assert _read(path) == one


def test_gzip_and_small_files_stay_in_one_process(tmp_path, monkeypatch):
    path = tmp_path / "mixed.log"
    _mixed_log(path, repeats=2)
    log = LogFile.open(path)
    assert read._parallel_items(log, detect_formats(log)) is None  # below PARALLEL_MIN_BYTES
    monkeypatch.setattr(read, "PARALLEL_MIN_BYTES", 0)
    monkeypatch.setenv("INFERLEDGER_DIAGNOSE_PROCESSES", "1")
    assert read._parallel_items(log, detect_formats(log)) is None


def _sglang_layout_lines() -> list[str]:
    rng = random.Random(11)
    lines = [line for line in _sample_lines("sglang__") if " batch" in line]
    for _ in range(300):
        stamp = f"[2025-0{rng.randint(1, 9)}-{rng.randint(10, 28)} {rng.randint(10, 23)}:{rng.randint(10, 59)}:" \
                f"{rng.randint(10, 59)}{rng.choice(['', '.5', ',123'])}{rng.choice(['', ' TP0', ' TP3', ' DP1 TP2'])}]"
        sep = rng.choice([",", "."])
        tail = rng.choice(["", ", ", ",", " "])
        decode = (f"{stamp} Decode batch{sep} #running-req: {rng.randint(0, 999)}, #token: {rng.randint(0, 10**6)}, "
                  f"token usage: {rng.random():.2f}, cuda graph: {rng.choice(['True', 'False'])}, gen throughput "
                  f"(token/s): {rng.uniform(0, 9000):.2f}, #queue-req: {rng.randint(0, 99)}{tail}")
        largest = (f"{stamp} Decode batch{sep} #running-req: {rng.randint(0, 999)}, #token: {rng.randint(0, 9999)}, "
                   f"token usage: {rng.random():.2f}, gen throughput (token/s): {rng.uniform(0, 9000):.2f}, "
                   f"largest-len: {rng.randint(0, 9)}, #queue-req: {rng.randint(0, 99)}{tail}")
        prefill = (f"{stamp} Prefill batch{sep} #new-seq: {rng.randint(1, 9)}, #new-token: {rng.randint(1, 8192)}, "
                   f"#cached-token: {rng.randint(0, 8192)}, token usage: {rng.random():.2f}, #running-req: "
                   f"{rng.randint(0, 999)}, #queue-req: {rng.randint(0, 99)}{tail}")
        # Variants the layouts must not take: an extra field, a negative number, a missing field.
        odd = decode.replace("#queue-req", "#prealloc-req: 2, #queue-req")
        lines += [decode, largest, prefill, odd, decode.replace("#token: ", "#token: -"),
                  prefill.replace(", #queue-req: ", ", #queue-reqs: ")]
    return lines


def test_sglang_layouts_read_what_the_generic_loop_reads():
    taken = 0
    for line in _sglang_layout_lines():
        kind = "Decode batch" if "Decode batch" in line else "Prefill batch"
        start = line.find(kind)
        fast = sglang._fast_metrics(line, start, kind)
        if fast is None:
            continue
        taken += 1
        generic = sglang._generic_metrics(line, start, kind)
        assert list(fast.items()) == list(generic.items()), line
    assert taken > 600


def _reference_prefix(line: str):
    match = sglang._PREFIX.search(line, 0, 64) if "[" in line[:40] else None
    if not match:
        return None, {"engine": "sglang"}
    year, month, day, hour, minute, second, fraction, rank = match.groups()
    labels = {"engine": "sglang"}
    if rank:
        labels["rank"] = rank
    try:
        timestamp = epoch_seconds(int(year), int(month), int(day), int(hour), int(minute), int(second), fraction)
    except (ValueError, OverflowError):
        timestamp = None
    return timestamp, labels


def test_sglang_cached_prefix_matches_the_regex():
    lines = _sglang_layout_lines()
    lines += ["[2025-13-01 10:00:00 TP0] Decode batch, #running-req: 1",  # month 13: no timestamp
              "noise [2025-03-01 10:00:07 TP1] Decode batch, #running-req: 1",
              "[2025-03-01 10:00:7x TP0] Decode batch, #running-req: 1",
              "[2025-03-01 10:00:08 tp0] Decode batch, #running-req: 1"]
    for _ in range(2):  # the second round reads from the caches the first filled
        for line in lines:
            assert sglang._prefix(line) == _reference_prefix(line), line


def test_vllm_cached_stamp_and_labels_match_the_plain_reading():
    prefixes = []
    # New minutes (read from their digits, labels from the text around the stamp) and minutes seen before.
    for minute in ("02:00", "02:01", "23:59", "02:00"):
        for second in ("00", "07", "59", "5x"):
            prefixes += [f"INFO 03-14 {minute}:{second} metrics.py:449] ",
                         f"(APIServer pid=92107) INFO 03-14 {minute}:{second} [loggers.py:271] Engine 000: ",
                         f"(APIServer pid=7) INFO 03-15 {minute}:{second} [loggers.py:271] Engine 001: ",
                         f"(EngineCore_DP0 pid=1) INFO 2026-01-02 {minute}:{second} [loggers.py:271] Engine 003: ",
                         f"(EngineCore_DP0 pid=1) INFO 26-01-02 {minute}:{second} [loggers.py:271] Engine 003: ",
                         f"INFO 2026-02-30 {minute}:{second} metrics.py:449] ",
                         f"INFO 03-14 {minute}:{second}.123 metrics.py:449] ",
                         f"INFO 13-40 {minute}:{second} metrics.py:449] "]
    for _ in range(2):
        for prefix in prefixes:
            for version in ("v0", "v1"):
                timestamp, year_assumed = find_timestamp(prefix)
                expected = (timestamp, vllm._stats_labels(prefix, year_assumed, version))
                assert vllm._stamp_and_labels(prefix, version) == expected, prefix


def test_stats_windows_fold_like_running_add_value_by_value():
    # Accumulator folds window metrics a metric at a time (reduce/min/max); Running.add one value at a time is the
    # reference: same sums bit for bit, same first/last/low/high and line of the high, same metric order, with NaN,
    # infinities, -0.0, metrics missing from some windows and spec-decoding lines in between.
    from inferledger.diagnose.accumulate import Accumulator, Running
    from inferledger.diagnose.records import Record

    rng = random.Random(3)
    odd = [0.0, -0.0, 1.0, 2.5, float("nan"), float("inf"), -float("inf"), 1e300, -1e300]
    records = []
    for index in range(9000):
        if rng.random() < 0.05:
            records.append(Record("interval", "vllm.spec", index + 1,
                                  {"spec_acceptance_fraction": rng.choice(odd), "late_metric": 1.0}, None, {}))
            continue
        metrics = {"running_requests": rng.choice([1.0, 4.0, 0.0])}
        for name in ("generation_tokens_per_second", "waiting_requests", "kv_cache_usage_fraction", "rare"):
            if rng.random() < (0.01 if name == "rare" else 0.9):
                metrics[name] = rng.choice(odd) if rng.random() < 0.2 else rng.uniform(-5, 5)
        records.append(Record("interval", "vllm.stats", index + 1, metrics, float(index), {"engine": "vllm"}))

    def state(stats):
        return [(name, held.count, repr(held.total), repr(held.low), repr(held.high), repr(held.first),
                 repr(held.last), held.high_line) for name, held in stats.items()]

    for cut in (1, 5, 2047, 2048, 4100, 9000):
        acc = Accumulator()
        reference = {}
        for record in records[:cut]:
            acc.add(record)
            for name, value in record.metrics.items():
                reference.setdefault(name, Running()).add(value, record.line_number)
        assert state(acc.interval) == state(reference), cut


def _shape_lines() -> list[str]:
    """Sample lines, their bench_diagnose.py shapes, and near misses the line shapes must leave to the parsers."""
    lines = _sample_lines("vllm__") + _sample_lines("sglang__") + _sglang_layout_lines()
    v0 = ("INFO 03-14 02:00:01 metrics.py:449] Avg prompt throughput: 12.5 tokens/s, Avg generation throughput: 3.0 "
          "tokens/s, Running: 4 reqs, Swapped: 0 reqs, Pending: 1 reqs, GPU KV cache usage: 90.9%, CPU KV cache "
          "usage: 0.0%.")
    v1 = ("(APIServer pid=92107) INFO 03-14 02:00:02 [loggers.py:271] Engine 000: Avg prompt throughput: 1.0 "
          "tokens/s, Avg generation throughput: 2.0 tokens/s, Running: 3 reqs, Waiting: 0 reqs, GPU KV cache usage: "
          "9.2%, Prefix cache hit rate: 75.6%")
    lines += [v0, v1, v1 + ", MM cache hit rate: 5.0%", v0[:-1], v0 + " ", v1 + "%", v1.replace("Engine 000: ", ""),
              "Mar 14 02:00:02 host vllm[7]: " + v1, "2026-05-12T08:01:39Z " + v0, "vllm-1  | " + v0,
              v1.replace("INFO", "batch #running-req"), v1.replace("(APIServer pid=92107)", "(Retract memory)"),
              v1 + " " + v1, v0.replace("12.5", "1٢.5"), "\x1b[32m" + v1,
              # Prefixes the columns converter reads from the prefix's groups: year and fraction, a month that is
              # no date, another process, a V0 line with an engine, and a long SGLang rank list.
              v0.replace("03-14 02:00:01", "2025-03-14 02:00:01,250"), v0.replace("03-14", "13-14"),
              v1.replace("APIServer pid=92107", "EngineCore_DP0 pid=5").replace("02:00:02", "02:00:02.7"),
              v0.replace("metrics.py:449] ", "[metrics.py:449] Engine 003: "),
              "[2025-03-14 02:00:01 TP0 DP1 EP2 PP3 TP4 DP5 EP6 PP7 TP8 DP9 EP10 PP11 TP12] Decode batch, "
              "#running-req: 3, #token: 9, token usage: 0.10, cuda graph: True, gen throughput (token/s): 9.00, "
              "#queue-req: 0"]
    return lines


def test_line_shapes_read_what_the_parsers_read():
    # A line the reader takes whole by a LINE_SHAPE gives the Record its parser's feed gives, needs no cleaning, asks
    # for no next line, and the other push parser reads nothing from it.
    import re

    modules = (vllm, sglang)
    taken = 0
    for line in _shape_lines():
        data = line.encode() + b"\n"
        for owner in modules:
            for prefix, body, build in owner.LINE_SHAPES:
                for start in range(len(data)):
                    match = re.compile(body + rb"(?=\n)").match(data, start)
                    if match is not None and re.compile(prefix).fullmatch(data, 0, start):
                        break
                else:
                    continue
                taken += 1
                record = build(match.groups(), data[:start].decode(), 7)
                # The columns converter (read.py's Windows) reads the same from the prefix's match.
                stamps, sources, labels, columns = build.columns([(group,) for group in match.groups()],
                                                                 [re.compile(prefix).fullmatch(data, 0, start)])
                assert (stamps, sources, labels) == ([record.timestamp_seconds], [record.source], [record.labels]), line
                assert {name: column[0] for name, column in columns.items() if column[0] is not None} \
                    == record.metrics, line
                assert read.clean_line(line) == line, line
                assert not vllm.wants_next(line), line
                assert owner.LineParser().feed(7, line) == [record], line
                for other in modules:
                    if other is not owner:
                        assert other.LineParser().feed(7, line) == [], line
    assert taken > 900


def test_line_shapes_give_what_the_lines_fed_give(tmp_path, monkeypatch):
    # The same file read with the LINE_SHAPES and with every candidate line fed to the parsers as text.
    path = tmp_path / "mixed.log"
    _mixed_log(path, repeats=6)
    with path.open("a", encoding="utf-8") as handle:
        handle.write("\n".join(_shape_lines()) + "\n")
    shaped = _read(path)
    monkeypatch.setattr(vllm, "LINE_SHAPES", ())
    monkeypatch.setattr(sglang, "LINE_SHAPES", ())
    fed = _read(path)
    assert len(fed[0]) > 1000 and fed[1] > 0
    assert shaped == fed


def _reference_window_flags(windows):
    """The per-window reading the accumulator folds a list at a time: flag -> (count, first lines, file), and the
    per-stream Running."""
    from inferledger.diagnose import accumulate as a

    flags = {}
    per_stream = a.Running()

    def add(name, line, file):
        count, lines, first = flags.get(name, (0, [], ""))
        if len(lines) < a.MAX_LINES:
            lines, first = lines + [line], first or file
        flags[name] = (count + 1, lines, first)

    troubled = 0
    previous, previous_file = None, None  # (running, waiting) of the window before, in the same file
    for record, file in windows:
        metrics, line = record.metrics, record.line_number
        running = metrics.get("running_requests", 0.0)
        waiting = metrics.get("waiting_requests", 0.0)
        kv = metrics.get("kv_cache_usage_fraction")
        prompt = metrics.get("prompt_tokens_per_second", 0.0)
        generation = metrics.get("generation_tokens_per_second")
        if file != previous_file:
            previous = None
        arrival = False
        if running > 0 and record.source.startswith(("vllm.", "sglang.")):
            if previous is None:
                arrival = running <= 2 and (prompt > 0 and (generation is None or generation < prompt)
                                            or generation == 0 == prompt)
            else:
                arrival = previous[0] == 0 and previous[1] == 0
        previous, previous_file = (running, waiting), file
        if arrival:
            add("arrival", line, file)
        if running > 0 or waiting > 0:
            add("busy", line, file)
        found = False
        queued = waiting > 0 and (running > 0 or prompt > 0 or waiting > 1)  # one waiting on an idle server: in transit
        if queued:
            add("waiting", line, file)
        found_apart_from_queue = False  # what else the window shows: without it, the window is clean but for a queue
        if kv is not None and kv >= a.KV_FULL_FRACTION:
            found_apart_from_queue = True
            add("kv_full", line, file)
            if queued:
                add("kv_full_waiting", line, file)
            elif running > 0:
                add("kv_full_no_queue", line, file)
        if metrics.get("swapped_requests", 0.0) > 0:
            add("swapped", line, file)
            found_apart_from_queue = True
        batch_rate = record.source == "llamacpp.batched-bench" and running > 1  # B sequences: no stream's speed
        # a bench row timing its phases apart states a generation rate its prompt does not dilute
        apart = "prefill_seconds" in metrics and "decode_seconds" in metrics
        quiet = (generation is not None and prompt < generation) or apart
        if apart:
            add("bench_rows_timed", line, file)
            if a._prefill_dominates(metrics["prefill_seconds"], metrics["decode_seconds"],
                                    metrics.get("prompt_tokens_per_second"), generation):
                add("bench_prefill_share", line, file)
        if running > 0 and generation is not None and not batch_rate and not arrival:
            rate = generation / running
            per_stream.add(rate, line)
            if generation == 0 and prompt == 0:
                add("stalled", line, file)
                found_apart_from_queue = True
            if not apart and prompt >= a.PREFILL_HEAVY_RATIO * max(generation, 1.0) \
                    and rate < a.SLOW_STREAM_TOKENS_PER_SECOND:
                add("prefill_heavy", line, file)
                found_apart_from_queue = True
            elif quiet and rate < a.SLOW_STREAM_TOKENS_PER_SECOND and running <= a.SMALL_BATCH:
                add("slow_small_batch", line, file)
                found_apart_from_queue = True
            elif quiet and rate < a.STARVED_TOKENS_PER_SECOND:
                add("starved", line, file)
                found_apart_from_queue = True
        found = queued or found_apart_from_queue
        troubled += found
        # nothing running, read or generated: a request in transit shows no serving, so no health either
        unserved = running == 0 and prompt == 0 and not (generation is not None and generation > 0)
        if (running > 0 or waiting > 0) and not arrival and not found and not unserved:
            add("clean", line, file)
        if (running > 0 or waiting > 0) and not arrival and queued and not found_apart_from_queue and not unserved:
            add("clean_but_queued", line, file)
    return flags, troubled, per_stream


def test_window_flags_fold_like_one_window_at_a_time():
    from inferledger.diagnose.accumulate import Accumulator
    from inferledger.diagnose.records import Record

    rng = random.Random(8)
    odd = [0.0, -0.0, 1.0, 0.5, 3.0, 9.0, 600.0, float("nan"), float("inf"), -1.0]
    windows = []
    for index in range(7000):
        metrics = {}
        for name in ("running_requests", "waiting_requests", "kv_cache_usage_fraction", "prompt_tokens_per_second",
                     "generation_tokens_per_second", "swapped_requests"):
            if rng.random() < 0.8:
                metrics[name] = rng.choice(odd) if rng.random() < 0.3 else rng.uniform(0, 40)
        if "kv_cache_usage_fraction" in metrics and rng.random() < 0.5:
            metrics["kv_cache_usage_fraction"] = rng.uniform(0.85, 1.0)
        metrics.setdefault("running_requests", rng.choice([0.0, 1.0, 2.0, 64.0]))
        source = rng.choice(["vllm.stats", "sglang.decode", "llamacpp.batched-bench"])
        if source == "llamacpp.batched-bench" and rng.random() < 0.5:  # a row timing its phases apart (T_PP, T_TG)
            metrics.update(prefill_seconds=rng.uniform(0, 9), decode_seconds=rng.uniform(0, 9))
        file = "a.log" if index < 3000 else rng.choice(["b.log", "c.log"])
        windows.append((Record("interval", source, index // 2 + 1, metrics, None, {}), file))
    for cut in (1, 9, 2048, 3001, 7000):
        acc = Accumulator()
        for record, file in windows[:cut]:
            acc.add(record, file)
        flags, troubled, per_stream = _reference_window_flags(windows[:cut])
        assert acc.flags["troubled"].count == troubled
        for name, (count, lines, file) in flags.items():
            assert (acc.flags[name].count, acc.flags[name].lines, acc.flags[name].file) == (count, lines, file), name
        assert sum(held.count for name, held in acc.flags.items() if name != "troubled") == \
            sum(count for count, _, _ in flags.values())
        assert repr(acc.per_stream.to_dict()) == repr(per_stream.to_dict())
        assert acc.per_stream.high_line == per_stream.high_line


def _accumulator_state(value):
    """Everything an Accumulator holds, as plain values (Running, _Lines, Timeline and Records unpacked)."""
    from inferledger.diagnose.accumulate import Running, Timeline, _Lines
    from inferledger.diagnose.records import Record

    if isinstance(value, Running):
        return ("Running", [repr(getattr(value, name)) for name in Running.__slots__])
    if isinstance(value, _Lines):
        return ("Lines", value.count, list(value.lines), value.file)
    if isinstance(value, Timeline):
        return ("Timeline", repr(value.to_list()))
    if isinstance(value, Record):
        return ("Record", repr(value))
    if isinstance(value, dict):
        return {key: _accumulator_state(item) for key, item in value.items()}
    if isinstance(value, list | tuple):
        return [_accumulator_state(item) for item in value]
    if isinstance(value, set):
        return sorted(repr(item) for item in value)
    return repr(value)


def test_add_all_folds_what_add_folds(tmp_path):
    # Accumulator.add_all's short path for the usual stats window against add() record by record: two files, ranks
    # that change, snapshots, weights, spec lines and events among the windows.
    from inferledger.diagnose.accumulate import Accumulator
    from inferledger.diagnose.records import Record

    path = tmp_path / "mixed.log"
    _mixed_log(path)
    log = LogFile.open(path)
    records = list(iter_records(log, detect_formats(log)))
    half = len(records) // 2
    extra = [Record("interval", "sglang.decode", 1, {"running_requests": 2.0}, 5.0, {"engine": "sglang", "rank": r})
             for r in ("TP1", "TP0", None)]
    extra += [Record("interval", "vllm.stats", 2, {"running_requests": 1.0}, None, {"snapshot": True}),
              Record("interval", "vllm.stats", 3, {"running_requests": 1.0}, None, {"snapshot": False}),
              Record("interval", "vllm.stats", 4, {"generation_tokens_per_second": 1.0, "weights_bytes": 2.0}, None,
                     {}),
              Record("interval", "vllm.spec", 5, {"spec_acceptance_fraction": 0.5}, None, {}),
              Record("event", "sglang.retract", 6, {"retractions": 1.0}, 5.0, {"rank": "TP0"})]
    stream = [(record, "a.log") for record in records[:half] + extra]
    stream += [(record, "b.log") for record in extra + records[half:] + extra]
    one, batched = Accumulator(), Accumulator()
    for record, file in stream:
        one.add(record, file)
    for file in ("a.log", "b.log"):
        batched.add_all((record for record, named in stream if named == file), file)
    assert _accumulator_state(vars(one._folded())) == _accumulator_state(vars(batched._folded()))
    assert one.records == len(stream) and one.interval_count > 1000


def test_scan_by_first_byte_sends_every_marked_line_once_in_order(tmp_path):
    # The block scan runs one pattern per first byte and merges their matches: every line holding any marker comes
    # once, in file order, whatever other markers (of other first bytes) share the line or its neighbours; a line
    # holding none never comes. The reference is the plain substring test, line by line.
    markers = list(vllm.MARKERS) + list(sglang.MARKERS)
    samples = [line for line in _sample_lines("vllm__") + _sample_lines("sglang__") if not vllm.wants_next(line)]
    rng = random.Random(11)
    lines = []
    for _ in range(300):
        kind = rng.random()
        if kind < 0.4:
            lines.append(NOISE)
        elif kind < 0.8:
            lines.append(rng.choice(samples))
        else:  # two markers of different first bytes on one line, in either order
            first, second = rng.sample(markers, 2)
            lines.append(f"x {first.decode()} y {second.decode()} z")
    path = tmp_path / "marked.log"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    log = LogFile.open(path)
    shapes = [shape for module in (vllm, sglang) for shape in module.LINE_SHAPES]
    sent = [number for number, _item in log.candidate_lines(markers, shapes=shapes, block_bytes=4096)]
    expected = [number for number, line in enumerate(lines, 1) if any(marker.decode() in line for marker in markers)]
    assert sent == expected
    assert len(read._scan_pattern(markers, shapes)) > 1  # several passes are merged here, not one


def test_merged_marker_pass_finds_every_place_a_marker_starts():
    # The marker-only first bytes share one pass over a translated block (read._MarkerPass): every place where a
    # marker starts comes, overlapping ones and ones right at the block's edges too, and no other place, whatever the
    # translation makes look alike (another merged first byte before a marker's rest, NUL bytes in the file).
    markers = sorted(set(vllm.MARKERS) | set(sglang.MARKERS) | {b"KV cache", b"cache size"})  # overlapping ones
    merged = read._MarkerPass(markers)
    firsts = sorted({marker[:1] for marker in markers})
    rng = random.Random(3)
    pieces = [marker for marker in markers] + [first + marker[1:] for first in firsts for marker in markers] \
        + [marker[1:] for marker in markers] + [b"\x00", b"\n", b" ", b"x", b"#", b"_", NOISE.encode()]
    for _ in range(200):
        block = b"".join(rng.choice(pieces) for _ in range(rng.randint(0, 40)))
        places = [match.start() for match in merged.finditer(block)]
        assert places == [at for at in range(len(block)) if any(block.startswith(marker, at) for marker in markers)]


def test_a_shape_body_must_start_with_a_literal_byte():
    with pytest.raises(ValueError, match="literal byte"):
        read._scan_pattern([b"x"], [(rb"", rb"(?:a|b)c", None)])


def test_windows_blocks_diagnose_what_records_diagnose(tmp_path, monkeypatch):
    # The usual stats lines read as Windows blocks (columns, no Record each) against the same file with every line
    # fed to the parsers as text, one Record each: the same diagnosis, every number in it.
    path = tmp_path / "mixed.log"
    _mixed_log(path, repeats=8)
    with path.open("a", encoding="utf-8") as handle:
        handle.write("\n".join(_shape_lines()) + "\n")
    shaped = diagnose_files([path]).to_dict()
    monkeypatch.setattr(vllm, "LINE_SHAPES", ())
    monkeypatch.setattr(sglang, "LINE_SHAPES", ())
    fed = diagnose_files([path]).to_dict()
    assert shaped["metrics"]["interval"]["running_requests"]["count"] > 1000
    assert shaped == fed


def test_windows_fold_what_their_records_fold():
    # Accumulator.add_windows against the same rows as Records one at a time: blocks of random sizes where sources
    # first appear part way in, ranks change (another rank's view first), the file switches, and values are odd.
    from inferledger.diagnose.accumulate import Accumulator
    from inferledger.diagnose.records import Record, Windows

    rng = random.Random(5)
    odd = [0.0, -0.0, 1.0, 0.5, 3.0, 600.0, float("nan"), float("inf")]
    records = []
    for index in range(6000):
        source = rng.choice(["vllm.stats", "sglang.decode", "sglang.prefill"] if index > 40 else ["vllm.stats"])
        labels = {"engine": source.split(".")[0]}
        if source != "vllm.stats" and rng.random() < 0.2:
            labels = {"engine": "sglang", "rank": rng.choice(["TP0", "TP1"])}
        metrics = {"running_requests": rng.choice([0.0, 1.0, 2.0, 64.0])}
        for name in ("waiting_requests", "kv_cache_usage_fraction", "generation_tokens_per_second",
                     "prompt_tokens_per_second", "batch_tokens"):
            if rng.random() < 0.7:
                metrics[name] = rng.choice(odd) if rng.random() < 0.2 else rng.uniform(0, 300)
        stamp = None if rng.random() < 0.05 else float(index * 3 // 2)  # a gap of 1 or 2 s between rows
        records.append((Record("interval", source, index + 1, metrics, stamp, labels),
                        "a.log" if index < 4000 else "b.log"))
    one, blocks = Accumulator(), Accumulator()
    for record, file in records:
        one.add(record, file)
    done = 0
    while done < len(records):
        size = rng.choice([1, 7, 300, 2500])
        part = [pair for pair in records[done:done + size] if pair[1] == records[done][1]]
        windows = Windows()
        for record, _file in part:
            windows.append(record)
        blocks.add_all([windows], part[0][1])
        done += len(part)
    assert _accumulator_state(vars(one._folded())) == _accumulator_state(vars(blocks._folded()))
    assert one.interval_count > 4000 and one.flags["prefill_gap"].count > 50



def _request_rows(rng, count: int, first_line: int) -> list:
    """(line, metrics) of random llama-server requests as records.Requests rows hold them: every field a 2026 request
    states, its numbers now and then odd (zero times, one or no token, tiny prompts, slow steps, parts that do not
    sum, an infinite rate), graphs reused on some."""
    rows = []
    for index in range(count):
        def value(low, high, odd):
            return rng.choice(odd) if rng.random() < 0.3 else rng.uniform(low, high)

        prefill, decode = value(0, 50, [0.0, 1e-5, 1e3]), value(0, 100, [0.0, 1e-5, 1e3])
        metrics = {"prefill_seconds": prefill, "input_tokens": float(int(value(1, 20000, [0, 1, 2, 5, 128]))),
                   "prompt_tokens_per_second": value(1, 5000, [0.0, 0.5, 1e5, 1e7]), "decode_seconds": decode,
                   "output_tokens": float(int(value(1, 2000, [0, 1, 2, 16]))),
                   "generation_tokens_per_second": value(0.5, 200, [0.0, 0.01, 1e6]),
                   "tpot_seconds": value(0, 0.3, [0.0, 0.1, 0.2, 1.0, 5.0, 86400.0, 1e5]),
                   "e2e_seconds": rng.choice([prefill + decode, (prefill + decode) * 2, (prefill + decode) / 2,
                                              prefill + decode + 0.01, 0.0])}
        if rng.random() < 0.7:
            metrics["graphs_reused"] = float(rng.randint(0, 5000))
        metrics["context_tokens"] = float(rng.randint(0, 30000))
        rows.append((first_line + 3 * index, metrics))
    return rows


def test_requests_fold_what_their_records_fold(monkeypatch):
    # Accumulator.add_requests (the rows' tests a column at a time, records.Requests) against the same requests and
    # their windows as Records one at a time: blocks of random sizes, sources first seen part way in, a metric first
    # seen part way in (one-token requests first: their step time is set aside), two files, odd values.
    from inferledger.diagnose.accumulate import Accumulator
    from inferledger.diagnose.records import Record, Requests, Windows

    rng = random.Random(8)
    labels = {"engine": "llama.cpp", "input_tokens_definition": "processed prompt tokens only", "variant": "server"}
    folded = []  # how many rows each block folded as columns (0: one at a time)
    monkeypatch.setattr(Accumulator, "_request_columns", lambda self, requests, file, real=Accumulator._request_columns:
                        folded.append(len(requests) if real(self, requests, file) else 0) or folded[-1] > 0)
    one, blocks = Accumulator(), Accumulator()
    line = 1
    for file, sizes in (("a.log", [3, 1, 40, 700, 5, 300]), ("b.log", [2, 900, 1])):
        for size in sizes:
            rows = _request_rows(rng, size, line)
            if line == 1:  # one-token requests first: tpot_seconds is not seen until the next block
                for _line, metrics in rows:
                    metrics["output_tokens"] = 1.0
            if size == 5:  # an infinite rate: that block's rows are folded one at a time
                rows[2][1]["generation_tokens_per_second"] = math.inf
            windows = Windows()
            for row_line, _metrics in rows:
                if rng.random() < 0.8 and line > 10:
                    windows.append(Record("interval", "llamacpp.progress", row_line - 1,
                                          {"generation_tokens_per_second": rng.uniform(0, 90), "running_requests": 1.0},
                                          float(row_line), {"engine": "llama.cpp", "task": str(row_line)}))
            names = list(dict.fromkeys(name for _line, metrics in rows for name in metrics))
            block = Requests("llamacpp.server", [row_line for row_line, _metrics in rows], labels,
                             {"task": [str(row_line) for row_line, _metrics in rows]},
                             {name: [metrics.get(name) for _line, metrics in rows] for name in names}, windows)
            for record in block.records():
                one.add(record, file)
            blocks.add_all([block], file)
            line = rows[-1][0] + 3
    assert _accumulator_state(vars(one._folded())) == _accumulator_state(vars(blocks._folded()))
    flags = one.flags
    # Row by row: the first two blocks (tpot_seconds not seen yet) and the one with an infinite rate.
    assert folded.count(0) == 3 and sum(folded) > 1800
    assert one.request_count > 1900 and all(flags[name].count > 0 for name in (
        "one_token", "prefill_zero", "tiny_prompt", "impossible_tpot", "slow_tpot", "slow_tpot_cpu",
        "prompt_slower_than_decode", "prompt_artifact_minor", "slow_prompt", "slow_prompt_short", "prefill_share",
        "rate_contradicts_time", "impossible_prompt_rate", "parts_mismatch", "parts_exceed_total"))


def test_prefill_gaps_fold_like_one_window_at_a_time():
    # The reference reads each window in turn: a decode row right after a prefill of PREFILL_GAP_MIN_TOKENS or more
    # whose stamp is PREFILL_GAP_MIN_SECONDS or more later gives tokens ÷ gap; the last prefill carries across blocks.
    from inferledger.diagnose import accumulate as a
    from inferledger.diagnose.records import Record

    rng = random.Random(9)
    rows = []
    for index in range(5000):
        source = rng.choice(["sglang.prefill", "sglang.decode", "sglang.decode", "vllm.stats"])
        metrics = {"running_requests": 1.0}
        if rng.random() < 0.9:
            metrics["batch_tokens"] = rng.choice([0.0, 64.0, 128.0, 4096.0])
        stamp = None if rng.random() < 0.05 else float(index * 3 // 2)
        rows.append(Record("interval", source, index + 1, metrics, stamp, {}))
    expected, previous = [], None
    for row in rows:
        if previous is not None and row.source == "sglang.decode" and row.timestamp_seconds is not None \
                and row.timestamp_seconds - previous[1] >= a.PREFILL_GAP_MIN_SECONDS:
            expected.append((previous[2], previous[0] / (row.timestamp_seconds - previous[1])))
        tokens = row.metrics.get("batch_tokens")
        previous = (tokens, row.timestamp_seconds, row.line_number) if row.source == "sglang.prefill" and tokens \
            and tokens >= a.PREFILL_GAP_MIN_TOKENS and row.timestamp_seconds is not None else None
    acc = a.Accumulator()
    for row in rows:
        acc.add(row, "x.log")
    acc._folded()
    assert acc.flags["prefill_gap"].count == len(expected) > 100
    assert acc.flags["prefill_gap"].lines == [line for line, _rate in expected[:a.MAX_LINES]]
    assert acc.prefill_gap_rate.total == sum(rate for _line, rate in expected)


def test_timeline_folds_like_one_window_at_a_time():
    # The reference: each window joins the last bucket until it holds `width`; a full timeline merges neighbours
    # pairwise and doubles the width; sums in order, the max never a NaN, start/end the first/last stamp stated.
    from inferledger.diagnose import accumulate as a
    from inferledger.diagnose.records import Record

    rng = random.Random(4)
    odd = [0.0, -0.0, 1.0, float("nan"), float("inf"), -float("inf"), 1e300]
    rows = []
    for index in range(9000):
        metrics = {"running_requests": rng.choice([0.0, 1.0, 3.0])}
        for name in ("prompt_tokens_per_second", "generation_tokens_per_second", "waiting_requests",
                     "kv_cache_usage_fraction"):
            if rng.random() < 0.7:
                metrics[name] = rng.choice(odd) if rng.random() < 0.1 else rng.uniform(-5, 500)
        stamp = None if rng.random() < 0.1 else float(index)
        rows.append(Record("interval", "vllm.stats", index + 1, metrics, stamp, {}))
    names = ("prompt_tokens_per_second", "generation_tokens_per_second", "running_requests", "waiting_requests",
             "kv_cache_usage_fraction")
    for cut in (1, 47, 49, 2100, 9000):
        width, buckets = 1, []
        for row in rows[:cut]:
            if buckets and buckets[-1]["records"] >= width and len(buckets) >= a.TIMELINE_BUCKETS:
                merged = []
                for first, *rest in (buckets[i:i + 2] for i in range(0, len(buckets), 2)):
                    for other in rest:
                        first["records"] += other["records"]
                        first["last_line"] = other["last_line"]
                        first["start_seconds"] = first["start_seconds"] if first["start_seconds"] is not None \
                            else other["start_seconds"]
                        first["end_seconds"] = other["end_seconds"] if other["end_seconds"] is not None \
                            else first["end_seconds"]
                        for name in names:
                            first[name] = [first[name][0] + other[name][0], first[name][1] + other[name][1],
                                           max(first[name][2], other[name][2])]
                    merged.append(first)
                buckets, width = merged, width * 2
            if not buckets or buckets[-1]["records"] >= width:
                buckets.append({"records": 0, "first_line": row.line_number, "start_seconds": None,
                                "end_seconds": None, **{name: [0.0, 0, -math.inf] for name in names}})
            bucket = buckets[-1]
            bucket["records"] += 1
            bucket["last_line"] = row.line_number
            if row.timestamp_seconds is not None:
                if bucket["start_seconds"] is None:
                    bucket["start_seconds"] = row.timestamp_seconds
                bucket["end_seconds"] = row.timestamp_seconds
            for name in names:
                value = row.metrics.get(name)
                if value is not None:
                    held = bucket[name]
                    held[0] += value
                    held[1] += 1
                    if value > held[2]:
                        held[2] = value
        expected = []
        for bucket in buckets:
            out = {key: bucket[key] for key in ("records", "first_line", "last_line", "start_seconds",
                                                 "end_seconds")}
            for name in names:
                if bucket[name][1]:
                    out[f"{name}_mean"] = bucket[name][0] / bucket[name][1]
                    out[f"{name}_max"] = bucket[name][2]
            expected.append(out)
        acc = a.Accumulator()
        for row in rows[:cut]:
            acc.add(row, "x.log")
        assert repr(acc.timeline.to_list()) == repr(expected), cut


@pytest.mark.parametrize("block_bytes", [4096, 257, 1 << 20])
def test_shape_lines_read_as_text_where_a_line_by_line_reading_reads_them(tmp_path, monkeypatch, block_bytes):
    # A shape line is read as text, as the reader's per-line path reads it, when it follows a cut stats line (sent
    # whatever it holds, for wrap joining; also across a block's edge) or when a marker sits in its prefix (a file
    # name holding `_gpu_blocks`); the markers inside a shape line's body (SGLang's `#running-req`) send nothing more.
    # The reference: the same file with no LINE_SHAPES, every line fed to the parsers as text.
    from inferledger.diagnose.records import Windows

    shape = next(line for line in _shape_lines() if line.startswith("INFO 03-14") and "Swapped" in line)
    cut = shape[: shape.index("Running")]
    assert vllm.wants_next(cut) and not vllm.wants_next(shape)
    marked = shape.replace("metrics.py:449]", "x_gpu_blocks.py:449]")
    sglang_line = next(line for line in _shape_lines() if "Decode batch" in line)
    lines = []
    for index in range(60):
        lines += [NOISE * (index % 5), cut, shape, sglang_line, marked, shape, sglang_line]
    path = tmp_path / "text.log"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    log = LogFile.open(path)
    markers = list(vllm.MARKERS) + list(sglang.MARKERS)
    shapes = [shape for module in (vllm, sglang) for shape in module.LINE_SHAPES]
    items = list(log.candidate_lines(markers, vllm.wants_next, shapes=shapes, block_bytes=block_bytes, windows=True))
    texts = [number for number, item in items if type(item) is str]
    windowed = [number for _zero, item in items if type(item) is Windows for number in item.lines]
    expected_texts = [number for number, line in enumerate(lines, 1)
                      if line in (cut, marked) or (line == shape and lines[number - 2] == cut)]
    assert texts == expected_texts
    assert sorted(windowed + texts) == [number for number, line in enumerate(lines, 1)
                                        if line in (cut, shape, sglang_line, marked)]  # each once; noise never
    shaped = diagnose_files([path]).to_dict()
    records = _read(path)
    monkeypatch.setattr(vllm, "LINE_SHAPES", ())
    monkeypatch.setattr(sglang, "LINE_SHAPES", ())
    assert _read(path) == records
    assert diagnose_files([path]).to_dict() == shaped


def test_hour_stamps_read_each_row_as_hour_stamp_does():
    # The column maps against hour_stamp a row at a time: hours that are not dates (None), and fractions all absent,
    # all present, or mixed.
    from inferledger.diagnose.parsers._common import hour_stamp, hour_stamps

    rng = random.Random(3)
    for case in range(40):
        count = rng.randint(1, 30)
        hours = [None if case % 4 == 0 and rng.random() < 0.3 else 3600.0 * rng.randint(0, 500000)
                 for _ in range(count)]
        minutes = [f"{rng.randint(0, 59):02d}".encode() for _ in range(count)]
        seconds = [f"{rng.randint(0, 59):02d}".encode() for _ in range(count)]
        kind = case % 3
        fractions = [None if kind == 0 or (kind == 2 and rng.random() < 0.5)
                     else str(rng.randint(0, 999999)).encode() for _ in range(count)]
        expected = [hour_stamp(*row) for row in zip(hours, minutes, seconds, fractions, strict=True)]
        assert hour_stamps(tuple(hours), tuple(minutes), tuple(seconds), tuple(fractions)) == expected


def test_fewer_collections_while_reading_then_the_thresholds_as_they_were():
    import gc

    before = gc.get_threshold()
    try:
        gc.set_threshold(700, 10, 10)
        with read.fewer_collections():
            assert gc.get_threshold() == (read.READ_GC_THRESHOLD, 10, 10)
        assert gc.get_threshold() == (700, 10, 10)
        with pytest.raises(RuntimeError), read.fewer_collections():
            raise RuntimeError("a read that fails")
        assert gc.get_threshold() == (700, 10, 10)
        gc.set_threshold(0)  # collection switched off by the caller: left off
        with read.fewer_collections():
            assert gc.get_threshold()[0] == 0
    finally:
        gc.set_threshold(*before)


def test_clock_stamps_read_what_hour_stamps_reads():
    # The minute and second read as digits where the prefixes' matches found them (numpy over the block) against
    # hour_stamps' int() of each group: the same floats. Matches on two texts, an hour that is no date or no rows at
    # all are not read this way (None).
    import re

    from inferledger.diagnose.parsers._common import clock_stamps, hour_stamps

    stamp = re.compile(rb"\[x (\d\d):(\d\d)\]")
    rng = random.Random(8)
    for _ in range(30):
        count = rng.randint(1, 40)
        text = b"".join(b"noise %d [x %02d:%02d] tail\n" % (rng.randint(0, 99), rng.randint(0, 59), rng.randint(0, 59))
                        for _ in range(count))
        matches = list(stamp.finditer(text))
        hours = tuple(3600.0 * rng.randint(0, 500000) + rng.choice((0.0, 0.25)) for _ in range(count))
        minutes, seconds = zip(*(match.groups() for match in matches), strict=True)
        expected = hour_stamps(hours, minutes, seconds, (None,) * count)
        assert clock_stamps(hours, matches, 1) == expected
    other = list(stamp.finditer(b"[x 01:02]\n"))
    assert clock_stamps((0.0, 0.0), matches[:1] + other, 1) is None
    assert clock_stamps((None,), matches[:1], 1) is None
    assert clock_stamps((0.0,), list(re.finditer(r"\[x (\d\d):(\d\d)\]", "[x 01:02]\n")), 1) is None  # str
    assert clock_stamps((), [], 1) is None
    # By hand: 07:05 after the hour 3600 s is 3600 + 7 × 60 + 5.
    assert clock_stamps((3600.0,), list(stamp.finditer(b"[x 07:05]\n")), 1) == [4025.0]


def test_a_marker_straddles_a_body_only_where_its_tail_starts_as_the_body_does():
    assert read._literal_head(rb"Decode batch[.,] #running-req: (\d+)") == b"Decode batch"
    assert read._literal_head(rb"ab?c") == b"a"  # the `b` may be absent
    assert read._literal_head(rb"\(x") == b"("
    assert read._may_straddle(b"x Decode", b"Decode batch")  # "Decode" ends where the body's "Decode" would
    assert read._may_straddle(b"x Decode batch, #q", b"Decode batch")  # past the head: unknown, so possible
    assert not read._may_straddle(b"Decode", b"Decode batch")  # starts with the body: inside it, not before
    assert not read._may_straddle(b"SpecDecoding metrics", b"Decode batch")
    shapes = vllm.LINE_SHAPES + sglang.LINE_SHAPES
    heads = [read._literal_head(body) for _prefix, body, _build in shapes]
    assert heads == [b"Avg prompt throughput: ", b"Decode batch", b"Decode batch", b"Prefill batch"]
    markers = vllm.MARKERS + sglang.MARKERS
    assert not any(read._may_straddle(marker, head) for marker in markers for head in heads)
    assert all(shape_of is None for _pattern, shape_of in read._scan_pattern(markers, shapes) if not shape_of)


def test_markers_outside_the_shape_bodies_mark_the_lines_a_whole_block_scan_marks(monkeypatch):
    # read._markers_outside runs the marker-only passes between the shape bodies only. Against the same passes over
    # the whole block (as when a marker could straddle a body), on blocks of shape lines (a marker inside their
    # bodies, before their bodies, after other text), markers alone, glued and at the block's edges: the same shape
    # rows, and text candidates on the same lines (those inside a row's body dropped).
    shapes = vllm.LINE_SHAPES + sglang.LINE_SHAPES
    markers = list(vllm.MARKERS) + list(sglang.MARKERS)
    monkeypatch.setattr(read, "OUTSIDE_MIN_BODY_SHARE", 0.0)  # every block with a body read between its bodies
    outside = read._scan_pattern(markers, shapes, True)
    monkeypatch.setattr(read, "_may_straddle", lambda marker, head: True)
    whole = read._scan_pattern(markers, shapes, True)
    assert [shape_of for _pattern, shape_of in outside if not shape_of] == [None]
    assert [shape_of for _pattern, shape_of in whole if not shape_of] == [{}]
    shape_lines = [line for line in _shape_lines() if "\n" not in line]
    # Shape lines whose prefix, matched whole, holds a marker (in the process name, in the file name): text lines.
    shape_lines += [line.replace("APIServer", "API_gpu_blocks").replace("metrics.py", "x_gpu_blocks.py")
                    for line in shape_lines if "APIServer" in line or "metrics.py" in line]
    rng = random.Random(12)
    for _ in range(150):
        lines = []
        for _ in range(rng.randint(0, 30)):
            kind = rng.random()
            marker = rng.choice(markers).decode()
            if kind < 0.4:
                lines.append(rng.choice(shape_lines))
            elif kind < 0.55:
                lines.append(NOISE)
            elif kind < 0.7:
                lines.append(f"x {marker} y")
            elif kind < 0.85:  # a marker glued before a shape line's body, or before the whole line
                line = rng.choice(shape_lines)
                cut = rng.randint(0, len(line))
                lines.append(line[:cut] + marker + line[cut:])
            else:
                lines.append(marker + rng.choice(("", " ", "%")))
        block = ("\n".join(lines) + "\n").encode() if lines else b""
        got_rows, got = read._shape_rows(block, outside)
        want_rows, want = read._shape_rows(block, whole)
        assert [(row[0], row[1]) for row in got_rows] == [(row[0], row[1]) for row in want_rows]
        assert _lines_of(block, got) == _lines_of(block, want)


def _lines_of(block: bytes, candidates: list) -> list:
    """The starts of the lines the candidate matches fall in."""
    return sorted({block.rfind(b"\n", 0, match.start()) + 1 for match in candidates})


@pytest.mark.parametrize("numpy_from", [0, 10**9])
def test_line_numbers_are_the_newlines_before_each_start(monkeypatch, numpy_from):
    # read._LineNumbers looked up by numpy (many starts) or counted (few) against the newlines before each start,
    # counted here one slice at a time, and the block's newline count against bytes.count.
    monkeypatch.setattr(read, "NUMPY_LINES_MIN", numpy_from)
    rng = random.Random(4)
    for _ in range(60):
        lines = [b"x" * rng.randint(0, 5) for _ in range(rng.randint(0, 40))]
        block = b"".join(line + b"\n" for line in lines)
        line_starts = [0] + [index + 1 for index, byte in enumerate(block[:-1]) if byte == 10]
        picked = [sorted(rng.sample(line_starts, rng.randint(0, len(line_starts)))) if line_starts else []
                  for _ in range(3)]
        first_line = rng.randint(1, 1000)
        numbers = read._LineNumbers(block, first_line, picked)
        for starts in picked:
            assert numbers.of(starts) == [first_line + block[:start].count(b"\n") for start in starts]
        assert numbers.count == block.count(b"\n")
