"""Benchmark-client parsers (diagnose/parsers/bench_clients.py) against the samples in tests/fixtures/logs.

Expected numbers are the figures printed in each sample (and in FORMATS.md §5's Numbers column), with the unit
conversion written out: the vLLM/SGLang consoles, genai-perf and AIPerf print ms (÷ 1000 to seconds), llmperf
prints seconds, guidellm states the unit per column group. Damaged variants (ANSI colour, Docker prefixes,
truncated JSON, a terminal-wrapped table, binary noise) must yield what can be read and never raise.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from inferledger.diagnose.parsers import bench_clients, detect
from inferledger.diagnose.read import LogFile
from inferledger.diagnose.records import Record, Skipped

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures" / "logs"


def read(path) -> tuple[list, list]:
    """(records, skipped) as the reader would produce them for a file: detection, cleaning, parsing."""
    log = LogFile.open(path)
    modules = detect(log.head)
    assert bench_clients in modules, [module.NAME for module in modules]
    items = list(bench_clients.parse(log.lines()))
    return [item for item in items if isinstance(item, Record)], [item for item in items if isinstance(item, Skipped)]


def only_summary(path) -> Record:
    records, _ = read(path)
    summaries = [record for record in records if record.kind == "summary"]
    assert len(summaries) == 1, summaries
    return summaries[0]


def test_vllm_bench_serve_console_goodput_poisson():
    # §5 #34: 100 req, Poisson 15 RPS, max conc 100, dur 26.67 s, 3.75 req/s (goodput 3.75), out 5624.71 tok/s,
    # TTFT mean 154.82 / P99 360.23 ms, TPOT mean 14.60 ms. The rate and concurrency come from the pre-amble.
    record = only_summary(FIXTURES / "vllm__bench-serve-goodput-poisson-15rps.txt")
    m = record.metrics
    assert record.source == "bench.vllm" and record.labels["tool"] == "vllm-bench"
    assert m["completed_requests"] == 100
    assert m["request_rate_per_second"] == 15.0
    assert m["max_concurrency"] == 100
    assert m["duration_seconds"] == 26.67
    assert m["total_input_tokens"] == 349601 and m["total_output_tokens"] == 150000
    assert m["request_throughput_per_second"] == 3.75
    assert m["goodput_requests_per_second"] == 3.75
    assert m["output_tokens_per_second"] == 5624.71
    assert m["total_tokens_per_second"] == 18734.08
    assert m["ttft_seconds_mean"] == pytest.approx(154.82 / 1000)
    assert m["ttft_seconds_median"] == pytest.approx(136.70 / 1000)
    assert m["ttft_seconds_p99"] == pytest.approx(360.23 / 1000)
    assert m["tpot_seconds_mean"] == pytest.approx(14.60 / 1000)
    assert record.labels["burstiness"] == "1.0"
    # The excerpt ends inside the TPOT section (no closing rule): what was printed is still read.
    assert "itl_seconds_mean" not in m


def test_sglang_bench_serving_console():
    # §5 #55: 10 req, conc 1, TTFT mean 21.59 ms, TPOT mean 1.47 ms, ITL P99 1.93 / max 8.28 ms, out 625.26 tok/s.
    record = only_summary(FIXTURES / "sglang__bench-serving-2026-cookbook-deepseek-ocr.txt")
    m = record.metrics
    assert record.source == "bench.sglang" and record.labels["backend"] == "sglang"
    assert record.labels["request_rate"] == "inf"  # 'Traffic request rate: inf' -> a label, not a number
    assert m["completed_requests"] == 10
    assert m["max_concurrency"] == 1
    assert m["output_tokens_per_second"] == 625.26
    assert m["input_tokens_per_second"] == 442.89
    assert m["peak_concurrent_requests"] == 4
    assert m["mean_concurrency"] == 1.0
    assert m["ttft_seconds_mean"] == pytest.approx(21.59 / 1000)
    assert m["tpot_seconds_mean"] == pytest.approx(1.47 / 1000)
    assert m["itl_seconds_p99"] == pytest.approx(1.93 / 1000)
    assert m["itl_seconds_max"] == pytest.approx(8.28 / 1000)
    assert m["e2e_seconds_mean"] == pytest.approx(443.32 / 1000)


def test_genai_perf_table_ms_with_reasoning_ttft():
    # §5 #88: TTFT avg 1764.61 ms (the cell carries the poster's '--->' annotation and a thousands separator),
    # TTST 0.00 ms, request latency avg 13,060.68 ms, ITL avg 22.17 ms, per-user 45.11 tok/s (label wrapped).
    record = only_summary(FIXTURES / "genaiperf__table-ms-reasoning-ttft.txt")
    m = record.metrics
    assert record.source == "bench.genai-perf"
    assert m["ttft_seconds_mean"] == pytest.approx(1764.61 / 1000)
    assert m["ttft_seconds_p99"] == pytest.approx(1874.74 / 1000)
    assert m["ttst_seconds_mean"] == 0.0
    assert m["e2e_seconds_mean"] == pytest.approx(13060.68 / 1000)
    assert m["itl_seconds_mean"] == pytest.approx(22.17 / 1000)
    assert m["output_tokens_per_second_per_user_mean"] == 45.11
    assert "reasoning" in record.labels["ttft_definition"]


OLD_GENAI_PERF = """                                  LLM Metrics
┏━━━━━━━━━━━━━━━━━━━━━━━━━━━━┳━━━━━━━━━━━━━━━┳━━━━━━━━━━━━━━━┳━━━━━━━━━━━━━━━┳━━━━━━━━━━━━━━━┓
┃                  Statistic ┃           avg ┃           min ┃           max ┃           p99 ┃
┡━━━━━━━━━━━━━━━━━━━━━━━━━━━━╇━━━━━━━━━━━━━━━╇━━━━━━━━━━━━━━━╇━━━━━━━━━━━━━━━╇━━━━━━━━━━━━━━━┩
│   Time to first token (ns) │    46,102,583 │    23,409,473 │   186,339,530 │   172,574,108 │
│   Inter token latency (ns) │    18,581,818 │     3,976,880 │    44,118,584 │    31,577,232 │
│       Request latency (ns) │ 4,110,623,430 │ 1,398,906,089 │ 5,011,434,118 │ 4,988,426,453 │
│           Num output token │           231 │            74 │           270 │           266 │
└────────────────────────────┴───────────────┴───────────────┴───────────────┴───────────────┘
Output token throughput (per sec): 2023.92
Request throughput (per sec): 8.76
"""


def test_old_genai_perf_table_in_nanoseconds(tmp_path):
    # Old genai-perf (§1.7, §2.11): ns with thousands separators, lower-case labels, aggregates under the table.
    path = tmp_path / "genai-perf-old.txt"
    path.write_text(OLD_GENAI_PERF)
    records, _ = read(path)
    table, output_rate, request_rate = records
    assert table.metrics["ttft_seconds_mean"] == pytest.approx(46_102_583 / 1e9)
    assert table.metrics["e2e_seconds_p99"] == pytest.approx(4_988_426_453 / 1e9)
    assert table.metrics["itl_seconds_min"] == pytest.approx(3_976_880 / 1e9)
    assert table.metrics["output_tokens_mean"] == 231  # a count: no unit conversion
    assert output_rate.metrics == {"output_tokens_per_second": 2023.92}
    assert request_rate.metrics == {"request_throughput_per_second": 8.76}


def test_aiperf_console_table(tmp_path):
    text = OLD_GENAI_PERF.replace("LLM Metrics", "NVIDIA AIPerf | LLM Metrics").replace("Statistic", "   Metric")
    text = text.replace("(ns)", "(ms)")
    path = tmp_path / "aiperf.txt"
    path.write_text(text)
    records, _ = read(path)
    assert records[0].source == "bench.aiperf"
    assert records[0].metrics["ttft_seconds_mean"] == pytest.approx(46_102_583 / 1e3)


def test_aiperf_profile_export_truncated():
    # §5 #89: request_throughput 0.1497 req/s, request_latency avg 6655.52 ms, request_count 80,
    # TTFT avg 44.17 ms (p99 48.17), time_to_second_token avg 0.251 ms. The excerpt is cut inside
    # time_to_second_token: the repaired document still gives its avg.
    record = only_summary(FIXTURES / "aiperf__profile-export-json-excerpt.txt")
    m = record.metrics
    assert record.source == "bench.aiperf" and record.labels["truncated"] == "true"
    assert m["request_throughput_per_second"] == pytest.approx(0.1497, abs=1e-4)
    assert m["e2e_seconds_mean"] == pytest.approx(6655.52 / 1000, abs=1e-5)
    assert m["completed_requests"] == 80
    assert m["ttft_seconds_mean"] == pytest.approx(44.17 / 1000, abs=1e-5)
    assert m["ttft_seconds_p99"] == pytest.approx(48.17 / 1000, abs=1e-5)
    assert m["ttst_seconds_mean"] == pytest.approx(0.251 / 1000, abs=1e-6)


def test_llmperf_individual_responses():
    # §5 #90: per request ttft_s 0.31-0.40, inter_token_latency_s 0.0134-0.0206, end_to_end_latency_s 2.11-3.19,
    # 151 output tokens (550 input). Seconds already.
    records, skipped = read(FIXTURES / "llmperf__individual-responses-json-excerpt.txt")
    assert not skipped
    requests = [record for record in records if record.kind == "request"]
    assert len(requests) == 3
    assert [round(r.metrics["ttft_seconds"], 2) for r in requests] == [0.31, 0.40, 0.33]
    # llmperf's inter_token_latency_s sums every gap, the first token's wait too, over the output tokens: 0.0163 ×
    # 151 = 2.46 s of the first request's 2.53 s (its TTFT 0.31 s inside), so it is a latency per output token
    latency = [r.metrics["e2e_per_output_token_seconds"] for r in requests]
    assert min(latency) == pytest.approx(0.0134, abs=1e-4) and max(latency) == pytest.approx(0.0206, abs=1e-4)
    assert all("itl_seconds" not in r.metrics for r in requests)
    assert min(r.metrics["e2e_seconds"] for r in requests) == pytest.approx(2.11, abs=0.01)
    assert max(r.metrics["e2e_seconds"] for r in requests) == pytest.approx(3.19, abs=0.01)
    assert all(r.metrics["output_tokens"] == 151 and r.metrics["input_tokens"] == 550 for r in requests)
    assert "tool-defined" in requests[0].labels["throughput_definition"]


def test_guidellm_wrapped_table():
    # §5 #93: synchronous: 231 completed in 300 s; throughput: 62,308 completed, 3155 incomplete, 2 errors in
    # 305 s; prompt ~947-957 tok/req, output ~163-164 tok/req. The table is hard-wrapped at 80 columns.
    records, _ = read(FIXTURES / "guidellm__v02-sweep-wrapped-text-table.txt")
    by_name = {record.labels["benchmark"]: record.metrics for record in records}
    assert set(by_name) == {"synchronous", "throughput"}
    sync, through = by_name["synchronous"], by_name["throughput"]
    assert sync["completed_requests"] == 231 and sync["duration_seconds"] == 300.0
    assert through["completed_requests"] == 62308
    assert through["incomplete_requests"] == 3155
    assert through["failed_requests"] == 2
    assert through["duration_seconds"] == 305.0
    assert sync["mean_input_tokens"] == 956.8 and through["mean_input_tokens"] == 946.8
    assert sync["mean_output_tokens"] == 162.7 and through["mean_output_tokens"] == 163.8
    assert through["total_input_tokens"] == 58991835 and through["total_output_tokens"] == 10207316


def test_guidellm_unwrapped_table_reads_the_same(tmp_path):
    # The same table as a wide terminal prints it (each logical row on one line) must give the same rows.
    # The rows are those of the wrapped sample, re-joined by hand; rows end after the last 'Err' cell.
    text = "Benchmarks Info:\n" + "=" * 159 + "\n"
    text += ("Metadata                                        |||| Requests Made ||| Prompt Tok/Req   ||| "
             "Output Tok/Req   ||| Prompt Tok Total     ||| Output Tok Total    ||\n")
    text += ("      Benchmark| Start Time| End Time| Duration (s)|  Comp|  Inc| Err|  Comp|   Inc|   Err|  Comp|"
             "   Inc|   Err|     Comp|     Inc|  Err|     Comp|    Inc| Err\n")
    text += "---------------|" + "-----------|" * 17 + "----\n"
    text += ("    synchronous|   20:46:40| 20:51:40|        300.0|   231|    1|   0| 956.8|   979.0|   0.0| 162.7|"
             "  65.0|   0.0|   221015|     979|    0|    37586|     65|   0\n")
    text += ("     throughput|   20:51:40| 20:56:45|        305.0| 62308| 3155|   2| 946.8|   945.7| 984.5| 163.8|"
             " 150.3| 127.5| 58991835| 2983729| 1969| 10207316| 474351| 255\n")
    path = tmp_path / "guidellm-wide.txt"
    path.write_text(text)
    records, _ = read(path)
    by_name = {record.labels["benchmark"]: record.metrics for record in records}
    assert by_name["throughput"]["completed_requests"] == 62308
    assert by_name["synchronous"]["mean_output_tokens"] == 162.7


GUIDELLM_STATS = """Benchmarks Stats:
=======================================================================================================================================================
Metadata   | Request Stats         || Out Tok/sec| Tot Tok/sec| Req Latency (sec)   ||| TTFT (ms)              ||| ITL (ms)          ||| TPOT (ms)          ||
  Benchmark| Per Second| Concurrency|        mean|        mean|  mean| median|    p99|   mean| median|     p99|  mean| median|   p99|  mean| median|   p99
-----------|-----------|------------|------------|------------|------|-------|-------|-------|-------|--------|------|-------|------|------|-------|------
synchronous|       0.77|        1.00|       125.5|       865.9|  1.30|   1.30|   1.40|   52.6|   48.1|   108.3|  7.74|   7.74|  7.95|  7.70|   7.69|  7.91
 throughput|     204.40|      189.71|     33477.2|    227153.1|  0.93|   0.92|   1.60|  401.2|  388.0|   890.1|  3.31|   3.20|  6.02|  3.29|   3.18|  5.98
"""


def terminal_wrap(text: str, width: int = 80) -> str:
    """Hard-wrap every line at `width` and pad the last piece with spaces, as a narrow terminal pastes it."""
    out = []
    for line in text.splitlines():
        pieces = [line[i:i + width] for i in range(0, max(len(line), 1), width)]
        pieces[-1] = pieces[-1].ljust(width)
        out.extend(pieces)
    return "\n".join(out) + "\n"


@pytest.mark.parametrize("wrapped", [False, True])
def test_guidellm_stats_table_groups_and_units(tmp_path, wrapped):
    # Column groups: a title followed by k pipes spans k columns (the last group takes the rest). Request latency
    # is in sec, TTFT/ITL/TPOT in ms in the same table (§1.7).
    path = tmp_path / "stats.txt"
    path.write_text(terminal_wrap(GUIDELLM_STATS) if wrapped else GUIDELLM_STATS)
    records, _ = read(path)
    by_name = {record.labels["benchmark"]: record.metrics for record in records}
    assert set(by_name) == {"synchronous", "throughput"}
    through = by_name["throughput"]
    assert through["request_throughput_per_second"] == 204.40 and through["mean_concurrency"] == 189.71
    assert through["output_tokens_per_second"] == 33477.2 and through["total_tokens_per_second"] == 227153.1
    assert through["e2e_seconds_mean"] == 0.93 and through["e2e_seconds_p99"] == 1.60  # sec: no conversion
    assert through["ttft_seconds_mean"] == pytest.approx(401.2 / 1000)
    assert through["itl_seconds_p99"] == pytest.approx(6.02 / 1000)
    assert by_name["synchronous"]["tpot_seconds_median"] == pytest.approx(7.69 / 1000)


def test_vllm_save_result_json(tmp_path):
    # A --save-result document (§2.4): ms keys end in _ms, duration in s, request_rate may be the string "inf",
    # detailed arrays (ttfts, latencies) are seconds. Values chosen so the conversions are visible.
    document = {"date": "20250101-000000", "backend": "vllm", "model_id": "m", "num_prompts": 2,
                "request_rate": "inf", "max_concurrency": None, "duration": 12.5, "completed": 2, "failed": 0,
                "total_input_tokens": 200, "total_output_tokens": 50, "request_throughput": 0.16,
                "request_goodput": None, "output_throughput": 4.0, "total_token_throughput": 20.0,
                "mean_ttft_ms": 250.0, "median_ttft_ms": 240.0, "p99_ttft_ms": 400.0, "mean_tpot_ms": 20.0,
                "p99.9_itl_ms": 90.0, "mean_e2el_ms": 730.0,
                "ttfts": [0.2, 0.3], "latencies": [0.7, 0.76], "input_lens": [100, 100], "output_lens": [25, 25],
                "errors": ["", ""]}
    path = tmp_path / "result.json"
    path.write_text(json.dumps(document, indent=2))
    records, skipped = read(path)
    assert not skipped
    summary = [record for record in records if record.kind == "summary"][0]
    m = summary.metrics
    assert summary.labels["request_rate"] == "inf" and "request_rate_per_second" not in m
    assert m["duration_seconds"] == 12.5 and m["completed_requests"] == 2
    assert m["ttft_seconds_mean"] == pytest.approx(0.250)
    assert m["ttft_seconds_p99"] == pytest.approx(0.400)
    assert m["tpot_seconds_mean"] == pytest.approx(0.020)
    assert m["itl_seconds_p99_9"] == pytest.approx(0.090)
    assert m["e2e_seconds_mean"] == pytest.approx(0.730)
    assert "max_concurrency" not in m and "goodput_requests_per_second" not in m  # nulls stay absent
    requests = [record for record in records if record.kind == "request"]
    assert [r.metrics["ttft_seconds"] for r in requests] == [0.2, 0.3]
    assert requests[1].metrics["e2e_seconds"] == 0.76 and requests[0].metrics["output_tokens"] == 25


def test_sglang_jsonl_with_infinity(tmp_path):
    # sglang.bench_serving --output-file appends one object per line; request_rate is the bare Infinity token.
    lines = [
        '{"backend": "sglang", "request_rate": Infinity, "max_concurrency": 8, "duration": 10.0, "completed": 80, '
        '"request_throughput": 8.0, "output_throughput": 1600.0, "mean_e2e_latency_ms": 1000.0, '
        '"mean_ttft_ms": 100.0, "p99_itl_ms": 30.0, "concurrency": 7.9}',
        '{"backend": "sglang", "dataset_name": "random", "random_input_len": 1024, "request_rate": 4.0, '
        '"duration": 20.0, "completed": 80, "mean_ttft_ms": 50.0}',
    ]
    path = tmp_path / "bench.jsonl"
    path.write_text("\n".join(lines) + "\n")
    records, _ = read(path)
    assert [r.source for r in records] == ["bench.sglang", "bench.sglang"]
    first, second = records
    assert first.labels["request_rate"] == "inf"
    assert first.metrics["e2e_seconds_mean"] == 1.0 and first.metrics["itl_seconds_p99"] == pytest.approx(0.030)
    assert first.metrics["mean_concurrency"] == 7.9
    assert second.metrics["request_rate_per_second"] == 4.0


def test_llmperf_summary_json(tmp_path):
    document = {"version": "2023-08-31", "model": "m", "mean_input_tokens": 550, "mean_output_tokens": 150,
                "num_concurrent_requests": 4, "results_ttft_s_mean": 0.35, "results_ttft_s_quantiles_p99": 0.6,
                "results_inter_token_latency_s_mean": 0.017, "results_end_to_end_latency_s_max": 3.2,
                "results_number_output_tokens_min": "140", "results_num_completed_requests": 100,
                "results_num_completed_requests_per_min": 120.0, "results_number_errors": 1,
                "results_mean_output_throughput_token_per_s": 90.0}
    path = tmp_path / "m_550_150_summary.json"
    path.write_text(json.dumps(document, indent=4))
    record = only_summary(path)
    m = record.metrics
    assert m["ttft_seconds_mean"] == 0.35 and m["ttft_seconds_p99"] == 0.6
    assert m["e2e_per_output_token_seconds_mean"] == 0.017 and m["e2e_seconds_max"] == 3.2  # llmperf's "ITL"
    assert m["output_tokens_min"] == 140  # a JSON string in llmperf
    assert m["request_throughput_per_second"] == pytest.approx(120.0 / 60)
    assert m["failed_requests"] == 1 and m["max_concurrency"] == 4


# ----------------------------------------------------------------------------------------------------------------
# Damaged input


def test_ansi_and_docker_prefix_console(tmp_path):
    # The vLLM console as `docker logs --timestamps` ships it, with colour codes around some rows.
    text = (FIXTURES / "vllm__bench-serve-goodput-poisson-15rps.txt").read_text().splitlines()
    damaged = []
    for index, line in enumerate(text[1:]):
        line = f"\x1b[32m{line}\x1b[0m" if index % 2 else line
        damaged.append(f"2025-06-01T10:00:{index % 60:02d}.123456789Z {line}")
    path = tmp_path / "docker.log"
    path.write_text("\n".join(damaged) + "\n")
    record = only_summary(path)
    assert record.metrics["output_tokens_per_second"] == 5624.71
    assert record.metrics["ttft_seconds_p99"] == pytest.approx(0.36023)
    assert record.metrics["request_rate_per_second"] == 15.0


def test_truncated_llmperf_array_keeps_complete_requests(tmp_path):
    # Cut inside the third record: the two complete ones are read, nothing raises.
    lines = (FIXTURES / "llmperf__individual-responses-json-excerpt.txt").read_text().splitlines()
    cut = lines[: lines.index('        "ttft_s": 0.32911386800003584,')]
    path = tmp_path / "cut.json"
    path.write_text("\n".join(cut) + "\n")
    records, _ = read(path)
    requests = [record for record in records if record.kind == "request"]
    assert len(requests) >= 2
    assert requests[0].metrics["ttft_seconds"] == pytest.approx(0.3149, abs=1e-4)
    assert requests[0].labels["truncated"] == "true"


def test_json_cut_inside_a_number_drops_that_number(tmp_path):
    # '14.60' cut to '1': the cut line is dropped, the complete rows before it are kept.
    path = tmp_path / "cut.json"
    path.write_text('{\n  "completed": 100,\n  "mean_ttft_ms": 154.82,\n  "mean_tpot_ms": 1')
    record = only_summary(path)
    assert record.metrics["ttft_seconds_mean"] == pytest.approx(0.15482)
    assert "tpot_seconds_mean" not in record.metrics and record.labels["truncated"] == "true"


def test_json_cut_before_any_value_is_skipped_not_raised(tmp_path):
    path = tmp_path / "cut.json"
    path.write_text('{\n  "mean_ttft_ms": 1')  # 'mean_ttft_ms' makes it a vLLM result; the value is cut
    log = LogFile.open(path)
    items = list(bench_clients.parse(log.lines()))
    assert [type(item) for item in items] == [Skipped] and items[0].line_number == 1


def test_console_with_wrapped_row_and_noise(tmp_path):
    # A row hard-wrapped inside its label and unrelated log lines around the block: the readable rows survive.
    text = ("INFO 06-01 10:00:00 api_server.py:1] some server line\n"
            "============ Serving Benchmark Result ============\n"
            "Successful requests:                     50\n"
            "Request throug\n"
            "hput (req/s):              2.50\n"
            "Output token throughput (tok/s):         400.0\n"
            "Mean TTFT (ms):                          abc\n"
            "Mean TPOT (ms):                          12.5\n"
            "==================================================\n"
            "random trailing text: 7\n")
    path = tmp_path / "wrapped.txt"
    path.write_text(text)
    records, skipped = read(path)
    [record] = records
    assert record.metrics["completed_requests"] == 50
    assert record.metrics["output_tokens_per_second"] == 400.0
    assert record.metrics["tpot_seconds_mean"] == pytest.approx(0.0125)
    assert [item.line_number for item in skipped] == [7]  # 'Mean TTFT (ms): abc' is reported, line by line


@pytest.mark.parametrize("text", [
    "", "{", "[", "}\n]\n", "{\"unit\": }", "\x00\x01\x02", "Serving Benchmark Result\n=====\n",
    "Benchmarks Info:\n===\nBenchmark|\n", "┃ Statistic ┃ avg ┃\n│ Time To First Token (ms) │ x │\n",
    "[\n" * 50, '{"results_ttft_s_mean": "nan?"}',
])
def test_parse_never_raises_on_odd_text(text):
    lines = enumerate(text.split("\n"), 1)
    items = list(bench_clients.parse(lines))
    assert all(isinstance(item, (Record, Skipped)) for item in items)
