"""General changes made after the second blind round's misses (tests/fixtures/blind2_logs/EXPECTED.md): a llama.cpp
timing line cut after "ms per token", llama-server's prompt-progress lines, a TGI span fragment with a long queue and
no compute time, evalscope's summary in its three layouts, and summary numbers derived from per-request means. The
inputs are small lines written here; the numbers are worked out in each test."""

from __future__ import annotations

import pytest

from inferledger.diagnose import diagnose_files


def _diagnose(tmp_path, text: str, name: str = "log.txt"):
    path = tmp_path / name
    path.write_text(text)
    return diagnose_files([path])


def test_llamacpp_eval_line_cut_after_ms_per_token(tmp_path):
    text = ("llama_print_timings: prompt eval time =    1000.00 ms /    40 tokens (   25.00 ms per token,    40.00 "
            "tokens per second)\n"
            "llama_print_timings:        eval time =   30000.00 ms /    20 runs   ( 1500.00 ms per token,     0.6\n")
    diagnosis = _diagnose(tmp_path, text)
    # 1500 ms per token = 1.5 s ≥ the fixed 0.1 s cutoff: decode-bound; the cut rate "0.6" is not read.
    assert diagnosis.verdict == "decode-bound"
    item = next(item for item in diagnosis.evidence if item.rule == "requests-slow-tpot-no-hardware")
    assert item.numbers["tpot_seconds_mean"] == pytest.approx(1.5)


def test_llamacpp_prompt_progress_lines_are_prefill_windows(tmp_path):
    lines = [f"1.{second:02d}.000.000 I slot print_timing: id  0 | task 0 | prompt processing, n_tokens =  "
             f"{1000 + 100 * second}, progress = 0.{second:02d}, t = {20.0 + second:.2f} s / 50.00 tokens per second"
             for second in range(1, 6)]
    diagnosis = _diagnose(tmp_path, "\n".join(lines) + "\n")
    assert diagnosis.verdict == "prefill-bound"
    item = next(item for item in diagnosis.evidence if item.rule == "windows-prefill-heavy")
    assert "5 of 5" in item.text


def test_tgi_fragment_with_a_long_queue_is_queueing(tmp_path):
    diagnosis = _diagnose(tmp_path, 'validation_time="2.1ms" queue_time="45.5s"\n')
    assert diagnosis.verdict == "queueing"
    item = next(item for item in diagnosis.evidence if item.rule == "requests-queue-long")
    assert item.numbers["queue_seconds_max"] == pytest.approx(45.5)


def test_tgi_fragment_with_a_short_queue_is_not_queueing(tmp_path):
    diagnosis = _diagnose(tmp_path, 'validation_time="2.1ms" queue_time="1.5s"\n')
    assert all(item.rule != "requests-queue-long" for item in diagnosis.evidence)


EVALSCOPE_TEXT = """Benchmarking summary:
 Time taken for tests: 20.000 seconds
 Number of concurrency: 64
 Total requests: 80
 Succeed requests: 80
 Failed requests: 0
 Average QPS: 4.000
 Average latency: 12.000
 Throughput(average output tokens per second): 800.000
 Average time to first token: 3.000
 Average input tokens per request: 50.000
 Average output tokens per request: 201.000
"""


def test_evalscope_text_summary_and_derived_numbers(tmp_path):
    diagnosis = _diagnose(tmp_path, EVALSCOPE_TEXT)
    # Input rate 50 tokens × 4 req/s = 200 tok/s, so the prompt's own work is 50 / 200 = 0.25 s; TTFT 3 s is 12×.
    assert diagnosis.verdict == "queueing"
    item = next(item for item in diagnosis.evidence if item.rule == "summary-ttft-over-prompt-work")
    assert item.numbers["prompt_work_seconds"] == pytest.approx(50 / (50 * 4.0))
    assert item.numbers["ttft_seconds_mean"] == pytest.approx(3.0)


def test_evalscope_json_and_grid_layouts(tmp_path):
    as_json = ('2025-01-01 00:00:00,000 - evalscope - INFO - {\n  "Time taken for tests (s)": 100.0,\n'
               '  "Number of concurrency": 4,\n  "Succeed requests": 100,\n  "Average QPS": 1.0,\n'
               '  "Average latency (s)": 4.05,\n  "Average time to first token (s)": 0.05,\n'
               '  "Average input tokens per request": 20.0,\n  "Average output tokens per request": 401.0,\n')
    grid = ("Benchmarking summary:\n| Key | Value |\n| Time taken for tests (s) | 100.0 |\n"
            "| Number of concurrency | 4 |\n| Average QPS | 1.0 |\n| Average latency (s) | 4.05 |\n"
            "| Average time to first token (s) | 0.05 |\n| Average output tokens per request | 401.0 |\n")
    for name, text in (("json.txt", as_json), ("grid.txt", grid)):
        diagnosis = _diagnose(tmp_path, text, name)
        assert diagnosis.verdict == "healthy", name
        item = next(item for item in diagnosis.evidence if item.rule == "summary-healthy")
        # No per-token row: (4.05 − 0.05) s / (401 − 1) tokens = 10 ms per token.
        assert item.numbers["seconds_per_token"] == pytest.approx(0.010)
