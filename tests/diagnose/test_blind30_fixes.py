"""The general fixes of blind round 30 (tests/fixtures/blind30_logs). Expected figures are the excerpts' own numbers,
derived ones written out."""

from __future__ import annotations

from pathlib import Path

import pytest

from inferledger.diagnose import diagnose_files
from inferledger.diagnose.parsers import generic_phrases
from inferledger.diagnose.read import read_records

ROUND = Path(__file__).resolve().parent.parent / "fixtures" / "blind30_logs"


def test_a_rate_printed_as_zero_is_worked_out_and_an_echoed_count_is_the_same_request():
    # picolm prints "Prompt: 6 tokens, …" then "Prefill: 6 tokens in 166.62s (0.0 tok/s)": one request, its rates
    # too slow for one decimal
    (record,) = read_records(ROUND / "picolm__rpi3-tinyllama-prefill-6-tokens-166s.txt")
    assert record.metrics == pytest.approx({
        "input_tokens": 6, "prefill_seconds": 166.62, "prompt_tokens_per_second": 6 / 166.62,
        "output_tokens": 11, "decode_seconds": 278.45, "generation_tokens_per_second": 11 / 278.45,
        "tpot_seconds": 278.45 / 11, "e2e_seconds": 445.07})
    assert diagnose_files([ROUND / "picolm__rpi3-tinyllama-prefill-6-tokens-166s.txt"]).verdict == "decode-bound"


def test_first_and_after_first_token_latencies_as_ipex_llm_names_them():
    assert generic_phrases.line_metrics("1st token average latency(ms): 617.64") == {"ttft_seconds": 0.61764}
    assert generic_phrases.line_metrics("2+ avg latency(ms/token): 340.45") == pytest.approx({"tpot_seconds": 0.34045})
    path = ROUND / "ipexllm__npu-qwen2-7b-32-32-first-618ms-next-340ms.txt"
    assert diagnose_files([path]).verdict == "decode-bound"  # 340 ms a token, past the fixed 10 tok/s cutoff


def test_the_same_names_as_table_columns(tmp_path):
    path = tmp_path / "allinone.csv"
    path.write_text("| model | 1st token avg latency (ms) | 2+ avg latency (ms/token) | input/output tokens |\n"
                    "|---|---|---|---|\n| Qwen2-7B | 617.64 | 340.45 | 32-32 |\n", encoding="utf-8")
    (record,) = read_records(path)
    assert record.metrics["ttft_seconds_mean"] == pytest.approx(0.61764)
    assert record.metrics["tpot_seconds_mean"] == pytest.approx(0.34045)


def test_a_sweep_of_one_stream_rates_reads_as_runs():
    records = read_records(ROUND / "ds4bench__m1-ultra-ctx-sweep-prefill-225-to-150-gen-23.5-to-18.5.txt")
    assert [record.metrics["mean_input_tokens"] for record in records] == [2048, 16384, 32768, 65536]
    assert [record.metrics["input_tokens_per_second"] for record in records] == [225.23, 206.46, 184.11, 150.06]
    assert [record.metrics["output_tokens_per_second_per_user_mean"] for record in records] == \
        [23.54, 21.46, 20.23, 18.53]
    diagnosis = diagnose_files([ROUND / "ds4bench__m1-ultra-ctx-sweep-prefill-225-to-150-gen-23.5-to-18.5.txt"])
    assert diagnosis.verdict == "healthy"  # 1 / 18.53 = 54 ms a token at 64k of context


def test_only_the_fastest_and_slowest_first_token_still_show_a_queue():
    path = ROUND / "llmapibenchmark__npu-deepseek-7b-concurrency-1-2-4-max-ttft-292s.txt"
    diagnosis = diagnose_files([path])
    assert diagnosis.verdict == "queueing"
    spreads = sorted(evidence.numbers["ttft_spread"] for evidence in diagnosis.evidence
                     if evidence.rule == "summary-ttft-spread")
    assert spreads == pytest.approx([103.07 / 8.78, 291.79 / 8.78])  # concurrency 1 spreads 1.0x: no finding


def test_a_label_that_starts_with_a_measurement_is_not_a_label():
    # Ray Serve's print (round 17): "… N_REQUESTS=2000 422.71s elapsed = 4.73 reqs/s/replica" is 2,000 requests' time
    line = "MODEL='Qwen2.5-0.5B-Instruct' IGNORE_EOS=True  N_REPLICAS=1 N_REQUESTS=2000 422.71s elapsed =  4.73 reqs/s"
    assert generic_phrases.line_metrics(line) == {}
