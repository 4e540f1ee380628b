"""The general fixes of blind round 16 (tests/fixtures/blind16_logs): an iteration-stats array cut inside an
object keeps its complete objects, the Triton TensorRT-LLM backend's older stats line, llm_bench's Average lines, and a
time per output token of a day or more as a timer bug; expected figures worked out here from the excerpts."""

from __future__ import annotations

from pathlib import Path

import pytest

from inferledger.diagnose import diagnose_files
from inferledger.diagnose.read import LogFile, detect_formats, iter_records, read_records

ROUND = Path(__file__).resolve().parent.parent / "fixtures" / "blind16_logs"


def test_a_stats_array_cut_inside_its_second_object_keeps_the_first():
    path = ROUND / "trtllm__executor-iteration-stats-1-active-7-queued-kv-76.txt"
    log = LogFile.open(path)
    window, capacity = list(iter_records(log, detect_formats(log)))
    assert window.metrics["running_requests"] == 1 and window.metrics["waiting_requests"] == 7
    assert window.metrics["kv_cache_usage_fraction"] == pytest.approx(5495 / 7240)
    assert capacity.metrics["kv_cache_tokens"] == 7240 * 64
    assert log.skipped == 1  # the second object, cut at `"kvCache`
    assert diagnose_files([path]).verdict == "queueing"


def test_the_triton_backend_stats_line_wrapped_inside_its_keys():
    window, capacity = read_records(ROUND / "trtllm__backend-ifb-stats-iteration-0-one-context-request.txt")
    # "Active Request Count":1, "Used KV cache blocks":1 of "Max KV cache blocks":513, 64 tokens a block.
    assert window.metrics == {"running_requests": 1.0, "kv_cache_usage_fraction": pytest.approx(1 / 513),
                              "batch_tokens": 2048.0}
    assert capacity.metrics["kv_cache_tokens"] == 513 * 64
    assert capacity.metrics["max_running_requests"] == 64


def test_llm_bench_average_lines():
    broken, fixed = read_records(ROUND / "openvino__llm-bench-average-2nd-token-bug-then-fixed.txt")
    assert broken.metrics == {"input_tokens": 128.0, "ttft_seconds": pytest.approx(0.36e-3),
                              "tpot_seconds": pytest.approx(1958228200.33e-3)}
    assert fixed.metrics == {"input_tokens": 128.0, "ttft_seconds": pytest.approx(91.54e-3),
                             "tpot_seconds": pytest.approx(69.81e-3)}
    assert fixed.labels["batch"] == 16


def test_llm_bench_averages_after_iterations_are_not_counted_twice(tmp_path):
    path = tmp_path / "bench.txt"
    path.write_text("[ INFO ] [1][P0] Input token size: 128, Output size: 64, Infer count: 64, Generation Time: 2.00s, "
                    "Latency: 31.25 ms/token\n"
                    "[ INFO ] [1][P0] First token latency: 100.00 ms/token, other tokens latency: 30.00 ms/token, "
                    "len of tokens: 64 * 1\n"
                    "[ INFO ] [Average] P[0] Input token size: 128, 1st token latency: 100.00 ms/token, 2nd token "
                    "latency: 30.00 ms/token, 2nd tokens throughput: 33.33 tokens/s\n", encoding="utf-8")
    assert len(read_records(path)) == 1


def test_a_day_per_token_is_a_timer_bug_not_a_cold_start():
    diagnosis = diagnose_files([ROUND / "openvino__llm-bench-average-2nd-token-bug-then-fixed.txt"])
    assert diagnosis.verdict == "measurement-artifact"
    # the same broken run's first token, 0.36 ms for 16 prompts of 128 tokens, is under one forward pass as well
    assert [item.rule for item in diagnosis.evidence] == ["requests-impossible-tpot", "requests-ttft-under-one-pass"]
    assert not any("cold start" in note for note in diagnosis.notes)


def test_hours_per_token_are_slow_not_impossible(tmp_path):
    # 5 h a token (18,000 s): a huge model streamed from disk can be that slow; under the one-day line it is judged.
    path = tmp_path / "bench.txt"
    path.write_text("[ INFO ] [Average] P[0] Input token size: 16, 1st token latency: 18000000.00 ms/token, 2nd token "
                    "latency: 18000000.00 ms/token, 2nd tokens throughput: 0.00 tokens/s\n", encoding="utf-8")
    diagnosis = diagnose_files([path])
    assert "requests-impossible-tpot" not in [item.rule for item in diagnosis.evidence]
    assert diagnosis.verdict == "decode-bound"
