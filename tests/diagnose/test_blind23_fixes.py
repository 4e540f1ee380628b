"""The general fixes of blind round 23 (tests/fixtures/blind23_logs): the text-generation examples' `Throughput
(including tokenization)` block, the phase that holds most of the requests' time leading when both phases read as
slow, and a client whose received text re-counts to a fraction of the generated tokens. Expected figures are the
excerpts' numbers worked by hand."""

from __future__ import annotations

from pathlib import Path

import pytest

from inferledger.diagnose import diagnose_files
from inferledger.diagnose.read import read_records

ROUND = Path(__file__).resolve().parent.parent / "fixtures" / "blind23_logs"


def test_text_generation_example_stats_block():
    (record,) = read_records(ROUND / "optimumhabana__gemma7b-gaudi2-hpu-graphs-109.7-tok-s.txt")
    assert record.metrics["output_tokens_per_second"] == pytest.approx(109.70751574382221)
    assert record.metrics["mean_concurrency"] == 1  # one `input 1:` line: a batch of one
    assert record.metrics["output_tokens_per_second_per_user_mean"] == pytest.approx(109.70751574382221)
    assert record.labels["memory_allocated_gb"] == 17.56 and record.labels["graph_compilation_seconds"] == \
        pytest.approx(8.35347754508257)
    diagnosis = diagnose_files([ROUND / "optimumhabana__gemma7b-gaudi2-hpu-graphs-109.7-tok-s.txt"])
    assert diagnosis.verdict == "healthy"  # 1 / 109.7 = 9.1 ms a token for the one stream


def test_text_generation_example_batch_after_the_stats_and_bloom_style(tmp_path):
    path = tmp_path / "stats-first.txt"
    path.write_text("Stats:\n------\nThroughput (including tokenization) = 400.0 tokens/second\n------\n"
                    "Input/outputs:\ninput 1: ('a',)\noutput 1: ('b',)\ninput 2: ('c',)\noutput 2: ('d',)\n"
                    "input 3: ('e',)\noutput 3: ('f',)\ninput 4: ('g',)\noutput 4: ('h',)\n", encoding="utf-8")
    (record,) = read_records(path)
    assert record.metrics["output_tokens_per_second_per_user_mean"] == 100.0  # 400 tok/s over a batch of 4
    path = tmp_path / "bloom.txt"
    path.write_text("*** Performance stats:\nThroughput (including tokenization) = 96.00 tokens/sec\n"
                    "Throughput (including tokenization) = 10.42 msecs/token\nModel loading time = 92.25 secs\n"
                    "Total tokens generated = 1600 with batch size = 8\nLatency = 16.67 secs\n", encoding="utf-8")
    (record,) = read_records(path)
    assert record.metrics["output_tokens_per_second"] == 96.0
    assert record.metrics["output_tokens_per_second_per_user_mean"] == 12.0  # 96 ÷ 8


def test_the_phase_holding_most_of_the_time_leads():
    diagnosis = diagnose_files([ROUND / "privategpt__llama-cpp-python-prompt-eval-193s-1520-tokens.txt"])
    # prompt: 193.1 + 35.2 s; generation: 8.9 + 7.1 s: 93 % of the time reading prompts
    assert diagnosis.verdict == "prefill-bound"
    assert {"verdict": "decode-bound", "confidence": 0.7} in diagnosis.alternatives  # still listed, held below


def test_a_decode_holding_most_of_the_time_still_leads(tmp_path):
    # 200 prompt tokens in 30 s (150 ms each, a third of the time) and 100 tokens at 600 ms: decode is 2/3 of it.
    path = tmp_path / "timings.txt"
    path.write_text("llama_print_timings: prompt eval time = 30000.00 ms / 200 tokens ( 150.00 ms per token)\n"
                    "llama_print_timings: eval time = 60000.00 ms / 100 runs ( 600.00 ms per token)\n"
                    "llama_print_timings: total time = 90000.00 ms\n", encoding="utf-8")
    assert diagnose_files([path]).verdict == "decode-bound"


def test_retokenized_short_is_a_measurement_artefact(tmp_path):
    diagnosis = diagnose_files([ROUND / "sglang__bench-serving-tool-calls-concurrency-8-ttft-1386ms.txt"])
    assert diagnosis.verdict == "measurement-artifact"
    (item,) = [item for item in diagnosis.evidence if item.rule == "summary-retokenized-short"]
    assert item.numbers == {"total_output_tokens_retokenized": 32, "total_output_tokens": 6400}
    text = (ROUND / "sglang__bench-serving-tool-calls-concurrency-8-ttft-1386ms.txt").read_text(encoding="utf-8")
    path = tmp_path / "normal.txt"  # a retokenized count within a few percent of the generated one is normal
    path.write_text(text.replace("(retokenized):    32", "(retokenized):    6391"), encoding="utf-8")
    assert not any(item.rule == "summary-retokenized-short" for item in diagnose_files([path]).evidence)


def test_forced_length_output_recounting_near_half_is_not_an_artefact():
    # Round 8's NGRAM run: 231,736 of 512,000 re-counted (45 %): ignore_eos repetitions merge, the text was received.
    path = ROUND.parent / "blind8_logs" / "sglang__bench-serving-ngram-spec-256-conc-retokenized-half.txt"
    assert not any(item.rule == "summary-retokenized-short" for item in diagnose_files([path]).evidence)
