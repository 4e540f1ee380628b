"""The general fix of blind round 39 (tests/fixtures/blind39_logs): evalscope's summary grid pasted without its
"Benchmarking summary" title (under a heading of the user's own) is still evalscope's, by its own key names; a key
seen again opens the next summary. Expected figures are the excerpt's numbers."""

from __future__ import annotations

from pathlib import Path

from inferledger.diagnose import diagnose_files
from inferledger.diagnose.read import read_records

ROUND = Path(__file__).resolve().parent.parent / "fixtures" / "blind39_logs"
GRID = ROUND / "evalscope__ollama-20-concurrency-50-requests-212s.txt"


def test_the_grid_without_its_title():
    (record,) = read_records(GRID)
    assert record.source == "bench.evalscope"
    assert record.metrics == {"duration_seconds": 212.142, "max_concurrency": 20, "completed_requests": 50,
                              "failed_requests": 0, "output_tokens_per_second": 155.782}
    assert diagnose_files([GRID]).verdict == "insufficient-data"  # a throughput, no latency


def test_two_summaries_without_titles(tmp_path):
    path = tmp_path / "two.txt"
    path.write_text("Time taken for tests (s): 10.0\nNumber of concurrency: 1\nSucceed requests: 5\n"
                    "Time taken for tests (s): 20.0\nNumber of concurrency: 4\nSucceed requests: 20\n", encoding="utf-8")
    records = read_records(path)
    assert [record.metrics["duration_seconds"] for record in records] == [10.0, 20.0]
    assert [record.metrics["max_concurrency"] for record in records] == [1, 4]
