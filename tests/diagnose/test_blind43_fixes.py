"""The general fix of blind round 43 (tests/fixtures/blind43_logs): a benchmark's results tabulated a metric a row,
cut before any latency row, are a run's account (requests done, duration, token totals), read to insufficient-data
instead of refused; a run's `Total input tokens` is a total, not a prompt's length. Expected figures are the
excerpt's numbers or lines written here."""

from __future__ import annotations

from pathlib import Path

from inferledger.diagnose import diagnose_files
from inferledger.diagnose.parsers import bench_markdown
from inferledger.diagnose.read import read_records

ROUND = Path(__file__).resolve().parent.parent / "fixtures" / "blind43_logs"


def test_a_metric_per_row_table_cut_before_its_latencies():
    path = ROUND / "vllm__rocm-aiter-w8a8-ab-table-50-requests-no-latencies.txt"
    records = read_records(path)
    assert [record.metrics["completed_requests"] for record in records] == [50, 50, 50, 50]
    assert [record.metrics["duration_seconds"] for record in records] == [41.88, 42.56, 82.05, 80.75]
    assert all(record.metrics["total_input_tokens"] == 50392 for record in records)
    assert all("mean_input_tokens" not in record.metrics for record in records)
    assert diagnose_files([path]).verdict == "insufficient-data"


def test_a_table_of_other_numbers_is_still_no_run():
    # requests and a duration without its unit: nothing says these are a run's
    lines = ["| Metric | A | B |", "|---|---|---|", "| Successful requests | 50 | 50 |", "| Duration | 41 | 42 |"]
    assert list(bench_markdown.parse(enumerate(lines, 1))) == []


def test_a_total_column_in_a_run_per_row_table(tmp_path):
    table = tmp_path / "runs.txt"
    table.write_text("| Concurrency | Total input tokens | TTFT (ms) | TPOT (ms) |\n|---|---|---|---|\n"
                     "| 1 | 51200 | 120 | 20 |\n")
    (record,) = read_records(table)
    assert record.metrics["total_input_tokens"] == 51200
    assert "mean_input_tokens" not in record.metrics
