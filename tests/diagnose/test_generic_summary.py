"""The fallback reader for clients no reader knows: `label: value unit` lines named in the field's usual words.
Expected values are the numbers in the text, in seconds."""

from __future__ import annotations

import pytest

from inferledger.diagnose import diagnose_files
from inferledger.diagnose.parsers import detect, generic_summary
from inferledger.diagnose.records import Record

REPORT = ("=== load test report ===\n"
          "completed requests = 200\n"
          "mean time to first token = 420 ms\n"
          "p99 time to first token = 1900 ms\n"
          "mean inter token latency = 21.5 ms\n"
          "output throughput = 712.3 tokens/s\n"
          "requests per second: 1.66 req/s\n"
          "elapsed: 120.5 s\n")


def _write(tmp_path, text: str):
    path = tmp_path / "report.txt"
    path.write_text(text)
    return path


def _records(text: str) -> list:
    items = generic_summary.parse(enumerate(text.splitlines(), 1))
    return [item for item in items if isinstance(item, Record)]


def test_a_report_in_plain_words():
    (record,) = _records(REPORT)
    assert record.metrics == pytest.approx({
        "completed_requests": 200, "ttft_seconds_mean": 0.420, "ttft_seconds_p99": 1.900, "itl_seconds_mean": 0.0215,
        "output_tokens_per_second": 712.3, "request_throughput_per_second": 1.66, "duration_seconds": 120.5})


def test_a_file_whose_known_marker_reads_nothing_falls_back(tmp_path):
    # "time to first token" is also a benchmark client's marker; when that reader finds none of its lines, the
    # fallback reads the report, and the user is told it was read by keywords.
    diagnosis = diagnose_files([_write(tmp_path, REPORT)])
    assert diagnosis.files[0]["formats"] == ["generic-summary"]
    assert diagnosis.verdict == "healthy"
    assert any("read by metric words" in warning for warning in diagnosis.warnings)


def test_a_latency_without_a_unit_is_not_guessed(tmp_path):
    # No time per token to settle the unit (an ITL of 21 would: test_blind99_on_fixes.py), no rate for Little's law.
    text = "mean ttft = 420\nmean e2e = 980\nrequest count = 5\n"
    assert not any("ttft_seconds_mean" in record.metrics for record in _records(text))
    diagnosis = diagnose_files([_write(tmp_path, text)])
    # nothing judged; the TTFT line (a metric word that names serving, a digit) is listed as not read
    assert diagnosis.verdict == "insufficient-data"
    assert [item["line_number"] for item in diagnosis.files[0]["unread_examples"]] == [1]


def test_a_label_seen_again_starts_the_next_run():
    records = _records("Average TTFT: 0.5 s\nAverage TPOT: 20 ms\n\nAverage TTFT: 0.9 s\nAverage TPOT: 35 ms\n")
    assert [record.metrics["ttft_seconds_mean"] for record in records] == [0.5, 0.9]
    assert [record.metrics["tpot_seconds_mean"] for record in records] == pytest.approx([0.020, 0.035])


def test_known_formats_never_reach_the_fallback():
    head = ("============ Serving Benchmark Result ============\nSuccessful requests:                     10\n"
            "Mean TTFT (ms):                          50.0\nMean TPOT (ms):                          10.0\n")
    assert generic_summary not in detect(head)
