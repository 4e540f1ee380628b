"""The last-resort phrase reader (parsers/generic_phrases.py): a request told in free text, each clause's phase named
by its words and its numbers read by their units. Expected figures are the lines' own numbers, derived ones written
out (a count over a time is a rate; a rate's inverse a time per token)."""

from __future__ import annotations

import pytest

from inferledger.diagnose import diagnose_files
from inferledger.diagnose.parsers import FALLBACKS, detect, generic_phrases, generic_summary, pick
from inferledger.diagnose.read import read_records


def _records(tmp_path, text: str) -> list:
    path = tmp_path / "run.txt"
    path.write_text(text, encoding="utf-8")
    return [record for record in read_records(path) if record.kind == "request"]


def test_each_phase_in_tokens_time_and_rate(tmp_path):
    (record,) = _records(tmp_path, "Prefill: 512 tokens in 0.41s (1248.8 tok/s)\n"
                                   "Generation: 256 tokens in 12.8s (20.0 tok/s)\n")
    assert record.source == "text.phrases"
    assert record.metrics == pytest.approx({
        "input_tokens": 512, "prefill_seconds": 0.41, "prompt_tokens_per_second": 1248.8,
        "output_tokens": 256, "decode_seconds": 12.8, "generation_tokens_per_second": 20.0,
        "tpot_seconds": 1 / 20.0})


def test_a_clause_with_no_phase_word_takes_the_one_before_it(tmp_path):
    (record,) = _records(tmp_path, "prompt processing: 1024 tokens, 850.3 t/s\ntext generation: 128 tokens, 9.7 t/s\n")
    assert record.metrics == pytest.approx({
        "input_tokens": 1024, "prompt_tokens_per_second": 850.3, "prefill_seconds": 1024 / 850.3,
        "output_tokens": 128, "generation_tokens_per_second": 9.7, "decode_seconds": 128 / 9.7,
        "tpot_seconds": 1 / 9.7})


def test_key_value_pairs_each_name_their_own_phase(tmp_path):
    (record,) = _records(tmp_path, "ttft=0.84s tpot=52ms input_len=2000 output_len=300\n")
    assert record.metrics == pytest.approx({"ttft_seconds": 0.84, "tpot_seconds": 0.052, "input_tokens": 2000,
                                            "output_tokens": 300})


def test_a_first_token_after_a_generation_on_one_line(tmp_path):
    (record,) = _records(tmp_path,
                         "[INFO] generated 200 tokens in 25.1 seconds (7.97 tokens/sec), first token after 1.2 s\n")
    assert record.metrics == pytest.approx({"output_tokens": 200, "decode_seconds": 25.1,
                                            "generation_tokens_per_second": 7.97, "ttft_seconds": 1.2,
                                            "tpot_seconds": 1 / 7.97})


def test_settings_token_ids_and_ratios_are_not_counts():
    assert generic_phrases.line_metrics("max_new_tokens = 256") == {}
    assert generic_phrases.line_metrics("INFO - after self.model.generate_next_token:30932") == {}
    assert generic_phrases.line_metrics("schedule: prefill, full_tokens_ratio=0.8, gc_threshold_secs=0.0") == {}


def test_a_phase_seen_again_starts_the_next_request(tmp_path):
    records = _records(tmp_path, "Prefill time: 1.5 s\nDecode time: 10.0 s\nOutput tokens: 200\n"
                                 "Prefill time: 3.0 s\nDecode time: 20.0 s\nOutput tokens: 400\n")
    assert [record.metrics["prefill_seconds"] for record in records] == [1.5, 3.0]
    assert [record.metrics["generation_tokens_per_second"] for record in records] == [200 / 10.0, 400 / 20.0]


def test_a_time_the_rate_contradicts_is_dropped(tmp_path):
    # distributed-llama's summary: 218 ms is the average time per token, not the phase's (128 / 4.59 s = 27.9 s)
    (record,) = _records(tmp_path, "Generated tokens:    128\nAvg tokens / second: 4.59\n"
                                   "Avg generation time: 218.06 ms\n")
    assert record.metrics["decode_seconds"] == pytest.approx(128 / 4.59)
    assert record.metrics["tpot_seconds"] == pytest.approx(1 / 4.59)


def test_a_slow_stream_is_judged_like_any_request(tmp_path):
    path = tmp_path / "run.txt"
    path.write_text("prompt processing: 1024 tokens, 850.3 t/s\ntext generation: 128 tokens, 9.7 t/s\n")
    assert diagnose_files([path]).verdict == "decode-bound"  # 103 ms a token, past the fixed 10 tok/s cutoff


def test_lines_of_bare_rates_are_too_little_to_go_on(tmp_path):
    path = tmp_path / "run.txt"
    path.write_text("engine A: 4.32 token/s.\nengine B: 2.75 token/s.\n")
    diagnosis = diagnose_files([path])
    assert diagnosis.verdict == "insufficient-data"
    assert diagnosis.files[0]["unread_lines"] == 2  # both rates shown to the user as not read


def test_the_fallback_that_reads_more_is_the_one_used():
    # a benchmark summary both fallbacks read: the `label: value` reader keeps it (its statistics, its counts)
    summary = "Average TTFT: 0.51 s\nMean TPOT: 20 ms\nRequest throughput: 3.2 req/s\n"
    assert pick(summary, FALLBACKS)[0] is generic_summary
    phrases = "Input tokens: 2048\nOutput tokens: 512\nPrefill time: 1.93 s\nDecode time: 40.1 s\n"
    assert detect(phrases) == [generic_phrases]
    assert {generic_summary, generic_phrases} <= set(FALLBACKS)


def test_a_token_latency_after_a_first_token_latency_is_per_token():
    assert generic_phrases.line_metrics("First token latency: 0.45 s, average token latency: 0.03 s") == \
        {"ttft_seconds": 0.45, "tpot_seconds": 0.03}
