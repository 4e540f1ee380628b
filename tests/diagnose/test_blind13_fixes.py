"""The general fixes of blind round 13 (tests/fixtures/blind13_logs): a tokens/s that contradicts its own line, MLC's
decode-step lines, a `Load time` beside two rates, and benchmark runs exported as CSV; expected figures worked out
here from the numbers in the excerpts."""

from __future__ import annotations

from pathlib import Path

import pytest

from inferledger.diagnose import diagnose_files
from inferledger.diagnose.read import read_records

ROUND = Path(__file__).resolve().parent.parent / "fixtures" / "blind13_logs"


def test_a_rate_that_contradicts_its_own_time_is_an_artifact():
    path = ROUND / "llamacpp__python-eval-2-runs-rates-contradict-times.txt"
    diagnosis = diagnose_files([path])
    assert diagnosis.verdict == "measurement-artifact"
    (finding,) = [item for item in diagnosis.evidence if item.rule == "requests-rate-contradicts-time"]
    # 2 runs in 81.91 ms is 24.4 tok/s; the lines print 1.02 and 30.01 (96 % and 23 % away).
    assert finding.numbers == {"requests": 2}


def test_consistent_timings_are_not_flagged(tmp_path):
    path = tmp_path / "timings.txt"
    path.write_text("llama_print_timings:        eval time =    8627.28 ms /    25 runs   (  345.09 ms per token,"
                    "     2.90 tokens per second)\n", encoding="utf-8")
    assert "requests-rate-contradicts-time" not in [item.rule for item in diagnose_files([path]).evidence]


def test_mlc_decode_steps_make_one_request():
    (record,) = read_records(ROUND / "mlcllm__chat-decoding-time-per-step-8.7ms-117-tok-s.txt")
    steps = [8.72583, 8.72855, 8.74532, 8.73997, 8.74851, 8.73441, 8.75298, 8.76139, 8.76136, 8.74773, 8.74726,
             8.75704, 8.76133]
    assert record.metrics["output_tokens"] == len(steps)
    assert record.metrics["tpot_seconds"] == pytest.approx(sum(steps) / len(steps) * 1e-3)


def test_load_time_and_two_rates_are_a_summary():
    (record,) = read_records(ROUND / "mllm__profiling-tinyllama-prefill-5.8-decode-5.2-tok-s.txt")
    assert record.metrics == {"load_seconds": 0.461832, "input_tokens_per_second": 5.78816,
                              "output_tokens_per_second": 5.23941}


def test_csv_runs_are_read_by_their_column_names():
    records = read_records(ROUND / "mlxnode__csv-llama-runs-prefill-7k-and-60k-tokens.txt")
    assert len(records) == 6
    first = records[0].metrics  # promptTokens 7254, generatedTokens 96, prefillMs 12940.922, wallMs 16878.45
    assert first["mean_input_tokens"] == 7254 and first["mean_output_tokens"] == 96
    assert first["ttft_seconds_mean"] == pytest.approx(12.940922)
    assert first["e2e_seconds_mean"] == pytest.approx(16.878451583)
    assert first["input_tokens_per_second"] == pytest.approx(560.5473860363272)
    assert records[0].labels["tool"] == "csv table"
    assert diagnose_files([ROUND / "mlxnode__csv-llama-runs-prefill-7k-and-60k-tokens.txt"]).verdict == \
        "prefill-bound"
