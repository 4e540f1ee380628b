"""The general fix of blind round 25 (tests/fixtures/blind25_logs): the keyword reader takes a script's two-line
summary when its lines are a first-token time and a token rate. Expected figures are the excerpt's numbers."""

from __future__ import annotations

from pathlib import Path

from inferledger.diagnose import diagnose_files
from inferledger.diagnose.read import read_records

ROUND = Path(__file__).resolve().parent.parent / "fixtures" / "blind25_logs"


def test_a_first_token_time_and_a_rate_are_a_summary():
    (record,) = read_records(ROUND / "glm4voice__a800-first-token-0.09s-decode-22.8-tok-s.txt")
    # `Average Decode Time per Token …: 22.7574 tokens/second` is one stream's rate (a per-token time printed as its
    # inverse), read as the request's generation rate since the twenty-ninth session (it was the run's output rate)
    assert record.kind == "request"
    assert record.metrics["ttft_seconds"] == 0.0907 and record.metrics["generation_tokens_per_second"] == 22.7574
    assert diagnose_files([ROUND / "glm4voice__a800-first-token-0.09s-decode-22.8-tok-s.txt"]).verdict == "healthy"


def test_two_other_metric_lines_are_still_not_enough(tmp_path):
    # No reader takes a count and a latency alone; the latency line is serving output, listed as not read.
    path = tmp_path / "two.txt"
    path.write_text("Total requests: 12\nMean latency: 3.2 s\n", encoding="utf-8")
    diagnosis = diagnose_files([path])
    assert diagnosis.verdict == "insufficient-data"
    assert diagnosis.files[0]["formats"] == ["unrecognised"]
    assert [item["line_number"] for item in diagnosis.files[0]["unread_examples"]] == [2]
