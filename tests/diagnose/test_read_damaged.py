"""Reading damaged and bad input (FORMATS.md §1.13): cleaning, detection, line-by-line reports, never a crash.

Each damaged variant is built in the test from a real sample line (tests/fixtures/logs) with the damage the
section lists: ANSI colour codes (raw and rendered `#033[..m`), Docker RFC3339 / compose / journald prefixes,
CR line ends, terminal hard-wraps inside a word, two records glued on one line, a `$`-truncated line, gzip.
Bad input (binary, empty, unknown format, truncated JSON) raises LogFormatError with one line.
"""

from __future__ import annotations

import gzip
from pathlib import Path

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from inferledger.diagnose import diagnose_files
from inferledger.diagnose.parsers import prometheus, sglang, trtllm_metrics, vllm
from inferledger.diagnose.read import LogFile, clean_line, detect_formats, iter_records
from inferledger.diagnose.records import Record, Skipped
from inferledger.errors import LogFormatError

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures" / "logs"


def sample_lines(name: str) -> list[str]:
    # Line 1 of every sample is its `# source:` note; the log starts on line 2.
    return (FIXTURES / name).read_text(encoding="utf-8").split("\n")[1:]


V0_LINE = sample_lines("vllm__v06-single-request-decode.txt")[0]
V1_LINE = sample_lines("vllm__v1-single-line-prefill-heavy.txt")[0]
SGLANG_LINE = sample_lines("sglang__2026-decode-cuda-graph-small-batch.txt")[0]


def parse(module, lines):
    items = list(module.parse(enumerate(lines, 1)))
    return ([item for item in items if isinstance(item, Record)], [item for item in items if isinstance(item, Skipped)])


def read(path):
    log = LogFile.open(path)
    records = list(iter_records(log, detect_formats(log)))
    return log, records


# -- cleaning ------------------------------------------------------------------------------------------------------
@pytest.mark.parametrize("damaged", [
    "\x1b[32mINFO\x1b[0m " + V0_LINE[5:],  # raw ANSI colour
    "#033[2m" + V0_LINE + "#033[0m",  # ANSI rendered by a log shipper (TGI via CloudWatch)
    "2026-05-12T08:01:39.331095044Z " + V0_LINE,  # docker --timestamps
    "vllm-1  | " + V0_LINE,  # docker compose
    "May 12 08:01:39 gpu-host vllm[1234]: " + V0_LINE,  # journald
    "[pod/vllm-0/vllm] " + V0_LINE,  # kubectl logs --prefix
    V0_LINE + "\r",  # CRLF
    "> " + V0_LINE,  # quoted in a reply (Markdown, e-mail)
    ">> " + V0_LINE,  # a quote of a quote
    "> 2026-05-12T08:01:39.331095044Z " + V0_LINE,  # a quoted docker log
    "vllm-1  | 2026-05-12T08:01:39.331095044Z " + V0_LINE,  # compose over docker --timestamps
    "2026-05-12T08:01:39+0000 gpu-host vllm[1234]: " + V0_LINE,  # journalctl -o short-iso
    "May 12 08:01:39.123456 gpu-host vllm[1234]: " + V0_LINE,  # journalctl -o short-precise
])
def test_prefixes_and_colour_are_cleaned(damaged):
    assert clean_line(damaged) == V0_LINE


def test_sglang_timestamp_is_not_mistaken_for_a_prefix():
    assert clean_line(SGLANG_LINE) == SGLANG_LINE
    assert clean_line("| model | size | params |") == "| model | size | params |"


def test_damaged_vllm_file_reads_like_the_clean_one(tmp_path):
    path = tmp_path / "damaged.log"
    path.write_bytes(("\x1b[32m2026-05-12T08:01:39Z " + V0_LINE + "\x1b[0m\r\n" + "garbage line\r\n"
                      + "2026-05-12T08:01:44Z " + V0_LINE + "\r\n").encode())
    log, records = read(path)
    assert [record.metrics["generation_tokens_per_second"] for record in records] == [41.7, 41.7]
    assert log.skipped == 0


# -- line damage ------------------------------------------------------------------------------------------------------
def test_hard_wrapped_stats_line_is_joined():
    cut = V1_LINE.index("Waiting") + 3  # `Wai\nting: 4 reqs` : a terminal wrap inside a word
    records, skipped = parse(vllm, [V1_LINE[:cut], V1_LINE[cut:]])
    assert not skipped
    (record,) = records
    assert record.metrics["waiting_requests"] == 4
    assert record.metrics["kv_cache_usage_fraction"] == pytest.approx(0.579)


def test_glued_stats_lines_give_two_records():
    second = V0_LINE.replace("41.7 tokens/s", "12.5 tokens/s")
    records, skipped = parse(vllm, [V0_LINE + second])
    assert [record.metrics["generation_tokens_per_second"] for record in records] == [41.7, 12.5]
    assert not skipped


def test_truncated_stats_line_keeps_its_whole_fields_and_a_cut_rate_is_reported():
    # Cut before its KV usage: 41.7 tokens/s, 1 running and 0 pending are each closed by their unit, so whole.
    cut = V0_LINE[: V0_LINE.index("GPU KV cache")] + "GPU KV ca$"
    records, skipped = parse(vllm, [cut, V0_LINE])
    assert not skipped
    first = records[0]
    assert (first.metrics["generation_tokens_per_second"], first.metrics["running_requests"],
            first.metrics["waiting_requests"]) == (41.7, 1, 0)
    assert "kv_cache_usage_fraction" not in first.metrics and "cut" in first.labels["truncated"]
    # Cut inside its first rate's unit: no field is proven whole, the line is reported.
    broken = V0_LINE[: V0_LINE.index("tokens/s")]
    records, skipped = parse(vllm, [broken, V0_LINE])
    assert len(records) == 1
    assert [item.line_number for item in skipped] == [1]
    assert "KV cache" in skipped[0].reason


def test_truncated_sglang_line_is_reported():
    records, skipped = parse(sglang, ["[2026-04-08 14:05:21 TP0] Decode batch, #running-req: $", SGLANG_LINE])
    assert len(records) == 1 and len(skipped) == 1


def test_per_rank_duplicate_events_count_once(tmp_path):
    # §1.10: the same OOM printed by every TP rank is one event.
    lines = [f"[2025-03-14 02:16:14 TP{rank}] Decode out of memory happened. #retracted_reqs: 3, "
             "#new_token_ratio: 0.5 -> 0.8" for rank in range(8)]
    path = tmp_path / "oom.log"
    path.write_text("\n".join(lines) + "\n" + SGLANG_LINE + "\n")
    diagnosis = diagnose_files([path])
    assert diagnosis.verdict == "kv-capacity"
    assert diagnosis.events["retractions"] == 3
    assert diagnosis.events["oom"] == 1


def test_vllm_timestamps_without_year_and_custom_format():
    records, _ = parse(vllm, [V0_LINE, "INFO 2025-11-07 17:18:00.203 metrics.py:278] " + V0_LINE.split("] ", 1)[1]])
    assert records[0].labels["timestamp_year_assumed"] is True
    assert "timestamp_year_assumed" not in records[1].labels
    # 2025-11-07 17:18:00.203 UTC
    assert records[1].timestamp_seconds == pytest.approx(1762535880.203)


def test_gzip_log_is_read(tmp_path):
    path = tmp_path / "server.log.gz"
    with gzip.open(path, "wt") as handle:
        handle.write("\n".join(sample_lines("vllm__v06-single-request-decode.txt")))
    _, records = read(path)
    assert len(records) == 6


# -- bad input ------------------------------------------------------------------------------------------------------
def one_line_error(path) -> str:
    with pytest.raises(LogFormatError) as caught:
        diagnose_files([path])
    message = str(caught.value)
    assert "\n" not in message
    return message


def test_empty_file(tmp_path):
    path = tmp_path / "empty.log"
    path.write_text("\n\n  \n")
    assert "empty" in one_line_error(path)


def test_binary_file(tmp_path):
    path = tmp_path / "model.bin"
    path.write_bytes(bytes(range(256)) * 64)
    assert "binary" in one_line_error(path)


def test_unknown_format_lists_what_was_expected(tmp_path):
    path = tmp_path / "app.log"
    path.write_text("hello world\nGET /health 200\n" * 10)
    message = one_line_error(path)
    assert "no known log format" in message and "vllm" in message and "sglang" in message


def test_missing_file_and_folder(tmp_path):
    assert "no such file" in one_line_error(tmp_path / "nope.log")
    assert "folder" in one_line_error(tmp_path)


def test_truncated_trtllm_json(tmp_path):
    text = (FIXTURES / "trtllm__serve-metrics-endpoint-trt-backend-json.txt").read_text().split("\n")[1]
    path = tmp_path / "metrics.json"
    path.write_text(text[: len(text) // 2])
    message = one_line_error(path)
    assert "no line could be read" in message and "JSON" in message


def test_trtllm_json_array_over_several_lines():
    text = (FIXTURES / "trtllm__serve-metrics-endpoint-trt-backend-json.txt").read_text().split("\n")[1]
    obj = text.rstrip(",")
    records, skipped = parse(trtllm_metrics, ["[", obj + ",", obj.replace('"iter":60', '"iter":61'), "]"])
    assert [record.labels["iteration"] for record in records if record.kind == "interval"] == [60, 61]
    assert not skipped


def test_some_files_unreadable_others_fine(tmp_path):
    empty = tmp_path / "empty.log"
    empty.write_text("")
    diagnosis = diagnose_files([empty, FIXTURES / "vllm__v06-single-request-decode.txt"])
    assert diagnosis.verdict == "healthy"
    assert any("empty" in note for note in diagnosis.notes)


def test_prometheus_bad_value_is_skipped():
    records, skipped = parse(prometheus, ["vllm:num_requests_running{model_name=\"m\"} 3",
                                          "vllm:num_requests_waiting{model_name=\"m\"} abc"])
    assert records[0].metrics["running_requests"] == 3
    assert len(skipped) == 1


def test_prometheus_histogram_quantiles_and_mean():
    lines = ['vllm:time_to_first_token_seconds_bucket{le="0.1"} 50',
             'vllm:time_to_first_token_seconds_bucket{le="1.0"} 90',
             'vllm:time_to_first_token_seconds_bucket{le="+Inf"} 100',
             "vllm:time_to_first_token_seconds_sum 30.0", "vllm:time_to_first_token_seconds_count 100",
             'vllm:num_requests_waiting{engine="0"} 2', 'vllm:num_requests_waiting{engine="1"} 3']
    records, _ = parse(prometheus, lines)
    summary = next(record for record in records if record.kind == "summary")
    assert summary.metrics["ttft_seconds_mean"] == pytest.approx(0.3)  # 30 s / 100 requests
    assert summary.metrics["ttft_seconds_median"] == pytest.approx(0.1)  # rank 50 is the top of the first bucket
    # rank 90 is the top of the 1.0 bucket
    assert summary.metrics["ttft_seconds_p90"] == pytest.approx(1.0)
    gauges = next(record for record in records if record.kind == "interval")
    assert gauges.metrics["waiting_requests"] == 5  # two data-parallel engines add up


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture],
          derandomize=True)  # the same examples each CI run, as below
@given(st.lists(st.text(max_size=200), max_size=20))
def test_parsers_never_raise_on_arbitrary_lines(lines):
    mutated = lines + [V0_LINE[: len(V0_LINE) // 2], SGLANG_LINE[:40], '{"iterLatencyMS": ', "vllm:x{le=\"a\"} 1"]
    for module in (vllm, sglang, prometheus, trtllm_metrics):
        list(module.parse(enumerate(mutated, 1)))
    for line in mutated:
        clean_line(line)


def test_streamed_scan_matches_the_line_by_line_reading(tmp_path):
    # The reader scans blocks for the parsers' markers instead of looping over every line; line numbers and
    # records must be the same as reading every line, across block boundaries and with a wrapped line.
    noise = 'INFO:     10.0.0.1:5555 - "POST /v1/completions HTTP/1.1" 200 OK'
    cut = V1_LINE.index("Waiting") + 3
    lines = []
    for index in range(300):
        lines.append(noise)
        lines.append(V0_LINE if index % 3 else SGLANG_LINE)
    lines[101:101] = [V1_LINE[:cut], V1_LINE[cut:]]
    path = tmp_path / "mixed.log"
    path.write_text("\n".join(lines))  # no newline at the end: the last line still counts
    log = LogFile.open(path)
    markers = vllm.MARKERS + sglang.MARKERS
    streamed = list(log.candidate_lines(markers, vllm.wants_next, block_bytes=4096))
    expected = [(number, text) for number, text in enumerate(lines, 1)
                if "Avg prompt throughput:" in text or "#running-req" in text or text == V1_LINE[cut:]]
    assert streamed == expected
    records = list(iter_records(log, [vllm, sglang]))
    pulled = [record for module in (vllm, sglang) for record in module.parse(enumerate(lines, 1))]
    key = lambda record: (record.line_number, record.source)  # noqa: E731
    assert sorted(records, key=key) == sorted(pulled, key=key)
    assert len(records) == 301  # 300 stats lines + the wrapped one joined


def test_sglang_line_variants_of_section_2_5():
    lines = [
        # 2024 prefill with `cache hit rate` as a percentage and the `.` separator
        "[2024-11-03 10:00:00 TP0] Prefill batch. #new-seq: 1, #new-token: 32, #cached-token: 0, "
        "cache hit rate: 12.50%, token usage: 0.05, #running-req: 3, #queue-req: 7",
        # hybrid SWA model: the full-attention pool's usage is the KV usage
        "[2026-01-01 00:00:01 TP0] Decode batch, #running-req: 4, #full token: 900, full token usage: 0.81, "
        "#swa token: 100, swa token usage: 0.10, accept len: 2.50, accept rate: 0.75, cuda graph: False, "
        "gen throughput (token/s): 210.5, #queue-req: 0, ",
    ]
    records, skipped = parse(sglang, lines)
    assert not skipped
    prefill, decode = records
    assert prefill.source == "sglang.prefill"
    assert prefill.metrics["prefix_cache_hit_fraction"] == pytest.approx(12.50 / 100)
    assert prefill.metrics["waiting_requests"] == 7 and prefill.metrics["batch_tokens"] == 32
    assert decode.metrics["kv_cache_usage_fraction"] == 0.81
    assert decode.metrics["spec_mean_acceptance_length"] == 2.5 and decode.metrics["cuda_graph"] == 0.0
    assert decode.metrics["generation_tokens_per_second"] == 210.5


# Numbers that are not numbers, and zeros: found by mutating every fixture (a digit run turned into nan, inf,
# 1e309, 0 or -1). Each case once crashed the reading; each now reads what is left.


def test_batched_bench_row_with_nan_and_inf_cells_is_read(tmp_path):
    lines = sample_lines("llamacpp__batched-bench-table-metal.txt")
    header, rule, first = lines[2], lines[3], lines[4]
    cells = first.split("|")
    cells[3] = " nan "  # B
    cells[4] = " 1e309 "  # N_KV, beyond a float: inf
    path = tmp_path / "bench.txt"
    path.write_text("\n".join((header, rule, "|".join(cells))) + "\n")
    records = [record for record in iter_records(LogFile.open(path), detect_formats(LogFile.open(path)))
               if isinstance(record, Record)]
    assert records[0].metrics["generation_tokens_per_second"] == 79.04  # the row's S_TG cell, as printed
    assert "b" not in records[0].labels and "n_kv" not in records[0].labels


def test_a_summary_figure_that_is_nan_is_no_measurement(tmp_path):
    # sglang.bench_latency prints `median latency: nan s` when a run has no step: the figure is left out.
    from inferledger.diagnose.accumulate import Accumulator

    acc = Accumulator()
    acc.add(Record("summary", "bench.test", 1, {"ttft_seconds_median": float("nan"), "ttft_seconds_mean": 0.2,
                                                 "e2e_seconds_mean": float("inf")}))
    [(record, _file)] = acc.summaries
    assert record.metrics == {"ttft_seconds_mean": 0.2}


def test_a_model_named_zero_billion_has_no_size():
    from inferledger.diagnose.named_model import from_name

    assert from_name("llama 0B Q4_0") is None
    assert from_name("llama 7B Q4_0").total_params == 7e9


def test_a_reader_error_keeps_what_was_read_and_says_so(tmp_path, monkeypatch):
    # A reader's bug on a line it did not expect: the records before it stand, a warning names the error, and a file
    # with none read is one LogFormatError line (the command's one clear line), never a traceback.
    import inferledger.diagnose.read as read

    path = tmp_path / "vllm.log"
    path.write_text("\n".join(sample_lines("vllm__v06-single-request-decode.txt")) + "\n")
    real = read.iter_records

    def failing(log, parsers, *args, **kwargs):
        yield next(iter(real(log, parsers, *args, **kwargs)))
        raise ValueError("could not convert string to float: '0.0.27'")

    monkeypatch.setattr(read, "iter_records", failing)
    diagnosis = diagnose_files([path])
    [warning] = [text for text in diagnosis.warnings if "internal error" in text]
    assert "ValueError: could not convert string to float: '0.0.27'" in warning
    read_before = diagnosis.files[0]["records"]  # the first item: the file's stats lines, as one block of windows
    assert read_before >= 1 and f"after {read_before} record(s)" in warning

    def failing_at_once(log, parsers, *args, **kwargs):
        raise ZeroDivisionError("float division by zero")
        yield

    monkeypatch.setattr(read, "iter_records", failing_at_once)
    with pytest.raises(LogFormatError, match="ZeroDivisionError"):
        diagnose_files([path])


def test_the_command_reports_an_internal_error_in_one_line(monkeypatch, capsys):
    import inferledger.diagnose as diagnose
    from inferledger.cli import main

    def broken(*args, **kwargs):
        raise RuntimeError("an unexpected state")

    monkeypatch.setattr(diagnose, "diagnose_files", broken)
    monkeypatch.delenv("INFERLEDGER_TRACEBACK", raising=False)
    assert main(["diagnose", "any.log"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "internal error: RuntimeError: an unexpected state" in err
    monkeypatch.setenv("INFERLEDGER_TRACEBACK", "1")
    with pytest.raises(RuntimeError):
        main(["diagnose", "any.log"])


# Triton's TensorRT-LLM backend (2024 on) logs its in-flight batching stats as a quoted JSON string; the sample is
# triton-inference-server/server#7676's line, cut by the paste inside a key.
TRITON_QUOTED = (FIXTURES.parent / "blind62_logs" / "trtllm__triton-backend-ifb-stats-one-line-active-8-of-max-8.txt")


def test_triton_quoted_stats_line_cut_keeps_its_whole_pairs():
    line = [text for text in TRITON_QUOTED.read_text().splitlines() if not text.startswith("# ")][0]
    records, skipped = parse(trtllm_metrics, [line])
    interval = next(record for record in records if record.kind == "interval")
    capacity = next(record for record in records if record.kind == "capacity")
    assert interval.metrics["running_requests"] == 8  # "Active Request Count":8
    assert capacity.metrics["max_running_requests"] == 8  # "Max Request Count":8
    assert interval.labels["iteration"] == 6189
    assert len(skipped) == 1 and "cut" in skipped[0].reason


def test_triton_quoted_stats_line_whole():
    # the same line's pairs, closed as the backend writes it (the KV pairs as tensorrtllm_backend#217's object names them)
    line = ('I1002 23:45:42.282246 136 model_instance_state.cc:1115] "{\\"Active Request Count\\":8,\\"Iteration Counter'
            '\\":6189,\\"Max Request Count\\":8,\\"Max KV cache blocks\\":513,\\"Used KV cache blocks\\":500,'
            '\\"Tokens per KV cache block\\":64,\\"Timestamp\\":\\"10-02-2024 23:45:42.275675\\"}"')
    records, skipped = parse(trtllm_metrics, [line])
    interval = next(record for record in records if record.kind == "interval")
    assert not skipped
    assert interval.metrics["kv_cache_usage_fraction"] == pytest.approx(500 / 513)
    assert next(record for record in records if record.kind == "capacity").metrics["kv_cache_tokens"] == 513 * 64


# A log's numbers changed to what damage or a hand edit prints (zero, negative, past a float's range, not a number),
# in files of several formats: the reader gets a verdict or a one-line refusal, never an internal error. These files
# each reached a division by zero or an infinity made whole before (mutated so by a fuzzing run).
_MUTATED = ["blind315_logs/sglang__bench-serving-moe-tp-allreduce-symm-mem-before-conc1-50-req.txt",
            "blind591_logs/sglang__dsv4-flash-sm89-marlin-fallback-c16-3500in-1500out-ttft-19s-tpot-172ms.txt",
            "blind420_logs/evalscope__perf-vs-vllm-bench-qwen25-05b-concurrency-50-500-requests-both-outputs.txt",
            "blind2_logs/aiperf__tt-concurrency-1-vs-32.txt", "blind2_logs/llamabench__qwen3-0.6b-f16-metal.txt",
            "blind2_logs/llamacpp__batched-bench-pr-3545.txt", "blind2_logs/llamacpp__print-timings-16-tok-s.txt",
            "blind888_logs/ktransformers__v03-qwen3-235b-a22b-balance-serve-prefill-step-7-7s-0-13-tokens-s.txt"]
_EDGES = ["0", "0.0", "-1", "1e308", "1e-320", "nan", "inf", "999999999999"]


# Derandomized, so that CI runs the same examples each time (a search that may turn red on any run is no gate); the
# search for new crashes is a wider run of it by hand (max_examples in the hundreds, derandomize off), whose finds
# stay below as examples.
@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture],
          derandomize=True)
@given(st.sampled_from(_MUTATED), st.lists(st.sampled_from(_EDGES + [None] * 4), min_size=1, max_size=48))
# a concurrency of 1e-320 under 1e308 requests: the client's rounds were infinite (math.ceil raised)
@example(name="blind591_logs/sglang__dsv4-flash-sm89-marlin-fallback-c16-3500in-1500out-ttft-19s-tpot-172ms.txt",
         edges=["0", "0", "0", "0", "1e308", "0", "1e-320", "1e308", "0", "0", "0"])
# a TPOT of 0 with no output length set aside (step None) beside a rate bounding the step over few tokens
@example(name="blind315_logs/sglang__bench-serving-moe-tp-allreduce-symm-mem-before-conc1-50-req.txt",
         edges=["-1", "-1", "0"])
def test_diagnose_never_fails_inside_on_damaged_numbers(tmp_path, name, edges):
    import re

    text = (Path(__file__).resolve().parent.parent / "fixtures" / name).read_text()
    count = iter(range(10**9))
    mutated = re.sub(r"\d+(?:\.\d+)?", lambda number: edges[next(count) % len(edges)] or number.group(0), text)
    path = tmp_path / "damaged.txt"
    path.write_text(mutated)
    try:
        diagnose_files([path])
    except LogFormatError:
        pass  # nothing left to read: the one-line refusal, a user's error
