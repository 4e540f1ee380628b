"""TensorRT-LLM benchmark parser (diagnose/parsers/trtllm_bench.py) against the sample in tests/fixtures/logs and
hand-written report variants (latency breakdown, legacy `[BENCHMARK]` line, damage).

Expected figures are those printed in the sample / FORMATS.md §5 #81; trtllm-bench prints latencies in ms (÷ 1000)
and KV memory as a percentage (÷ 100). An `Issue Rate` of 1.1684E+17 req/s means all requests were issued at once
(§1.3): it becomes the label request_rate=inf instead of a number.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from inferledger.diagnose.parsers import detect, trtllm_bench
from inferledger.diagnose.read import LogFile
from inferledger.diagnose.records import Record, Skipped

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures" / "logs"


def parse_text(text: str) -> tuple[list, list]:
    items = list(trtllm_bench.parse(enumerate(text.split("\n"), 1)))
    return [i for i in items if isinstance(i, Record)], [i for i in items if isinstance(i, Skipped)]


def test_deepseek_r1_header_and_overview():
    # §5 #81: 6144 req, ~1018.8 concurrent, ISL=OSL=1024, 7.3411 req/s, out 7517.2584 tok/s, KV mem 70%,
    # GUARANTEED_NO_EVICT, TP4/EP4, NVFP4, TRT-LLM 1.1.0rc1.
    log = LogFile.open(FIXTURES / "trtllm__bench-deepseek-r1-header-and-overview.txt")
    assert detect(log.head)[0] is trtllm_bench
    [record] = [item for item in trtllm_bench.parse(log.lines()) if isinstance(item, Record)]
    m = record.metrics
    assert record.kind == "summary" and record.source == "trtllm.bench"
    assert m["completed_requests"] == 6144
    assert m["mean_concurrency"] == pytest.approx(1018.8281)
    assert m["mean_input_tokens"] == 1024 and m["mean_output_tokens"] == 1024
    assert m["request_throughput_per_second"] == 7.3411
    assert m["output_tokens_per_second"] == 7517.2584
    assert m["kv_memory_fraction"] == pytest.approx(70.00 / 100)
    assert m["max_running_requests"] == 1024 and m["max_batch_tokens"] == 2176
    assert "request_rate_per_second" not in m and record.labels["request_rate"] == "inf"
    labels = record.labels
    assert labels["model"] == "deepseek-ai/DeepSeek-R1" and labels["version"] == "1.1.0rc1"
    assert labels["quantization"] == "NVFP4" and labels["kv_cache_dtype"] == "FP8"
    assert labels["tp"] == "4" and labels["ep"] == "4" and labels["scheduling_policy"] == "GUARANTEED_NO_EVICT"
    assert labels["backend"] == "pytorch"


REPORT = """===========================================================
= ENGINE DETAILS
===========================================================
Model:                  meta-llama/Llama-3.1-8B
===========================================================
= WORLD + RUNTIME INFORMATION
===========================================================
Issue Rate (req/sec):   2.0000E+00
===========================================================
= PERFORMANCE OVERVIEW
===========================================================
Request Throughput (req/sec):                     1.9500
Total Output Throughput (tokens/sec):             250.5
Total Latency (ms):                               51282.0
Average request latency (ms):                     3000.0
Average time-to-first-token [TTFT] (ms):          120.0
Average time-per-output-token [TPOT] (ms):        22.5
Per User Output Throughput [w/ ctx] (tps/user):   42.1
Per GPU Output Throughput (tps/gpu):              not-a-number

-- Request Latency Breakdown (ms) -----------------------

[Latency] P50     : 2900.0000
[Latency] P99     : 4100.0000
[Latency] MINIMUM : 2000.0000
[Latency] MAXIMUM : 4500.0000
[Latency] AVERAGE : 3000.0000

===========================================================
= DATASET DETAILS
===========================================================
Number of requests:     100
"""


def test_streaming_report_with_breakdown():
    records, skipped = parse_text(REPORT)
    [record] = records
    m = record.metrics
    assert m["request_rate_per_second"] == 2.0  # a paced run keeps its rate
    assert m["duration_seconds"] == pytest.approx(51.282)
    assert m["e2e_seconds_mean"] == pytest.approx(3.0)
    assert m["ttft_seconds_mean"] == pytest.approx(0.120) and m["tpot_seconds_mean"] == pytest.approx(0.0225)
    assert m["e2e_seconds_median"] == pytest.approx(2.9) and m["e2e_seconds_p99"] == pytest.approx(4.1)
    assert m["e2e_seconds_min"] == pytest.approx(2.0) and m["e2e_seconds_max"] == pytest.approx(4.5)
    assert m["output_tokens_per_second_per_user_mean"] == 42.1
    assert "completed_requests" not in m  # the DATASET DETAILS section describes the dataset, not the run
    assert [s.line_number for s in skipped] == [19]  # 'Per GPU Output Throughput: not-a-number'


def test_two_reports_in_one_file_give_two_records():
    records, _ = parse_text(REPORT + "\n" + REPORT.replace("1.9500", "3.9000"))
    assert [r.metrics["request_throughput_per_second"] for r in records] == [1.95, 3.9]


def test_legacy_benchmark_py_line():
    # benchmarks/python/benchmark.py (§2.10): one batch, latency in ms, memory in GB.
    line = ("[BENCHMARK] model_name chatglm3_6b world_size 1 num_heads 32 num_kv_heads 2 num_layers 28 "
            "hidden_size 4096 vocab_size 65024 precision float16 batch_size 1 input_length 128 output_length 512 "
            "gpu_peak_mem(gb) 13.76 build_time(s) 0 tokens_per_sec 63.5 percentile95(ms) 8070.1 "
            "percentile99(ms) 8075.2 latency(ms) 8062.8 compute_cap sm86")
    records, _ = parse_text(line)
    [record] = records
    m = record.metrics
    assert m["e2e_seconds_mean"] == pytest.approx(8.0628)
    assert m["output_tokens_per_second"] == 63.5
    assert m["peak_memory_bytes"] == pytest.approx(13.76e9)
    assert m["mean_output_tokens"] == 512 and m["max_concurrency"] == 1
    assert record.labels["model"] == "chatglm3_6b"


def test_damaged_report_with_docker_prefix_and_ansi(tmp_path):
    lines = (FIXTURES / "trtllm__bench-deepseek-r1-header-and-overview.txt").read_text().splitlines()
    damaged = [f"2025-08-20T10:00:00.000Z \x1b[1m{line}\x1b[0m" for line in lines[1:]]
    damaged[-1] = damaged[-1][:-20]  # the last line cut mid-number
    path = tmp_path / "damaged.log"
    path.write_text("\n".join(damaged) + "\n")
    log = LogFile.open(path)
    assert trtllm_bench in detect(log.head)
    [record] = [item for item in trtllm_bench.parse(log.lines()) if isinstance(item, Record)]
    assert record.metrics["request_throughput_per_second"] == 7.3411
    assert record.metrics["completed_requests"] == 6144


@pytest.mark.parametrize("text", ["", "= ", "-- ", "[BENCHMARK]", "[BENCHMARK] latency(ms) x", "= X\nA: b\n[Latency] P50 : ",
                                  "\x00"])
def test_never_raises(text):
    parse_text(text)


# gptManagerBenchmark's report as its Recorder::report() prints it (TensorRT-LLM benchmarks/cpp/gptManagerBenchmark.cpp:
# one `[BENCHMARK] key value` a line, num_samples twice, a blank line between families), a streaming run of 50
# requests; numbers chosen for the arithmetic below.
MANAGER = """[BENCHMARK] num_samples 50
[BENCHMARK] num_error_samples 0

[BENCHMARK] num_samples 50
[BENCHMARK] total_latency(ms) 15316.38
[BENCHMARK] seq_throughput(seq/sec) 3.26
[BENCHMARK] token_throughput(token/sec) 1671.35
[BENCHMARK] avg_acceptance_rate(tokens/decoding steps) 1.00

[BENCHMARK] avg_sequence_latency(ms) 9432.04
[BENCHMARK] max_sequence_latency(ms) 15100.00
[BENCHMARK] p99_sequence_latency(ms) 15000.10
[BENCHMARK] p50_sequence_latency(ms) 9400.00

[BENCHMARK] avg_time_to_first_token(ms) 4310.70
[BENCHMARK] p99_time_to_first_token(ms) 9000.55

[BENCHMARK] avg_inter_token_latency(ms) 10.02
[BENCHMARK] p50_inter_token_latency(ms) 9.98

[BENCHMARK] avg_user_tokens_per_second(tokens/sec/user) 99.80
[BENCHMARK] avg_request_queueing_latency(ms) nan
"""


def test_gpt_manager_benchmark_report_is_one_summary():
    assert detect(MANAGER)[0] is trtllm_bench
    records, skipped = parse_text(MANAGER)
    assert skipped == []
    [record] = records
    m = record.metrics
    assert record.labels["tool"] == "gptManagerBenchmark"
    assert m["completed_requests"] == 50 and m["failed_requests"] == 0
    assert m["duration_seconds"] == pytest.approx(15.31638)
    assert m["request_throughput_per_second"] == 3.26 and m["output_tokens_per_second"] == 1671.35
    assert m["e2e_seconds_mean"] == pytest.approx(9.43204) and m["e2e_seconds_p99"] == pytest.approx(15.0001)
    assert m["e2e_seconds_median"] == pytest.approx(9.4) and m["e2e_seconds_max"] == pytest.approx(15.1)
    assert m["ttft_seconds_mean"] == pytest.approx(4.3107) and m["ttft_seconds_p99"] == pytest.approx(9.00055)
    assert m["tpot_seconds_mean"] == pytest.approx(0.01002) and m["tpot_seconds_median"] == pytest.approx(0.00998)
    assert m["output_tokens_per_second_per_user_mean"] == 99.8
    assert "queue_seconds_mean" not in m  # printed as nan: no samples
    # token_throughput = output tokens / wall time: 1671.35 × 15.31638 s = 25,599 tokens, 512 per request.
    assert m["total_output_tokens"] == 25599
    assert m["mean_output_tokens"] == pytest.approx(25599 / 50)


def test_gpt_manager_benchmark_two_runs_give_two_summaries():
    records, _ = parse_text(MANAGER + "\n" + MANAGER.replace("15316.38", "7000.00"))
    assert [r.metrics["duration_seconds"] for r in records] == [pytest.approx(15.31638), pytest.approx(7.0)]


def test_gpt_manager_lines_beside_a_legacy_line_keep_both():
    legacy = "[BENCHMARK] batch_size 1 input_length 20 output_length 20 latency(ms) 432.51"
    records, _ = parse_text(legacy + "\n" + MANAGER)
    assert [r.source for r in records] == ["trtllm.benchmark-py", "trtllm.bench"]
