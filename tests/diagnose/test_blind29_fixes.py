"""The general fixes of blind round 29 (tests/fixtures/blind29_logs): inference-perf's report fragments read by the
keyword reader: `…_per_sec` rates, nested latencies in seconds, unnamed percentiles left unread. Expected figures are
the excerpts' numbers."""

from __future__ import annotations

from pathlib import Path

import pytest

from inferledger.diagnose.read import read_records

ROUND = Path(__file__).resolve().parent.parent / "fixtures" / "blind29_logs"


def test_per_sec_rates():
    (run,) = read_records(ROUND / "inferenceperf__summary-report-throughput-57-requests.txt")
    assert run.metrics == {"input_tokens_per_second": pytest.approx(991.276762334537),
                           "output_tokens_per_second": pytest.approx(61.6511605483135),
                           "total_tokens_per_second": pytest.approx(1052.92792288285),
                           "request_throughput_per_second": pytest.approx(1.95011995075132)}


def test_inference_perf_latencies_in_seconds_and_unnamed_percentiles_unread():
    (run,) = read_records(ROUND / "inferenceperf__sigint-report-13-requests-latency-1.74s.txt")
    metrics = run.metrics
    assert metrics["e2e_seconds_mean"] == pytest.approx(1.7430407067691145)
    assert metrics["e2e_seconds_p99"] == pytest.approx(6.2777515292798105)  # not p99.9's 6.54
    assert metrics["e2e_seconds_max"] == pytest.approx(6.569889096999759)
    # normalized_time_per_output_token: a request's whole latency over its tokens, no decode step (bench_json)
    assert metrics["e2e_per_output_token_seconds_mean"] == pytest.approx(0.012470926502922166)
    assert "tpot_seconds_mean" not in metrics
    assert not any(name.startswith("schedule") for name in metrics)


def test_latencies_without_a_unit_elsewhere_stay_unread(tmp_path):
    path = tmp_path / "plain.json"  # the same nesting with no inference-perf key: a bare number is not guessed
    path.write_text('{\n  "request_latency": {\n    "mean": 1.5,\n    "p99": 3.0\n  },\n'
                    '  "output_tokens_per_sec": 12.0,\n  "input_tokens_per_sec": 40.0,\n  "requests_per_sec": 2.0\n}\n',
                    encoding="utf-8")
    assert not any(name.startswith("e2e") for run in read_records(path) for name in run.metrics)
