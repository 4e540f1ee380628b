"""The general fix of blind round 42 (tests/fixtures/blind42_logs): a sweep table whose concurrency column is headed
`c` (SGLang's cookbook) or `bs`. Expected figures are the excerpt's numbers or lines written here."""

from __future__ import annotations

from pathlib import Path

from inferledger.diagnose import diagnose_files
from inferledger.diagnose.read import read_records

ROUND = Path(__file__).resolve().parent.parent / "fixtures" / "blind42_logs"


def test_a_column_headed_c_is_the_concurrency():
    path = ROUND / "sglang__gb10-ling-flash-mxfp4-c1-c16-ttft-2s-to-71s.txt"
    records = read_records(path)
    assert [record.metrics["max_concurrency"] for record in records] == [1, 16, 1, 16]
    diagnosis = diagnose_files([path])
    assert diagnosis.verdict == "queueing"
    grows = [item for item in diagnosis.evidence if item.rule == "summary-ttft-grows-with-concurrency"]
    # medians of the two cells: (2172 + 2069) / 2 = 2120.5 ms at 1, (71292 + 21650) / 2 = 46471 ms at 16
    assert abs(grows[0].numbers["ttft_seconds_low"] - 2.1205) < 1e-9
    assert abs(grows[0].numbers["ttft_seconds_high"] - 46.471) < 1e-9


def test_bs_is_a_batch_and_c_only_alone(tmp_path):
    table = tmp_path / "sweep.txt"
    table.write_text("| bs | TTFT (ms) | TPOT (ms) |\n|---|---|---|\n| 1 | 400 | 20 |\n| 32 | 9000 | 30 |\n")
    assert [record.metrics["max_concurrency"] for record in read_records(table)] == [1, 32]
    other = tmp_path / "cells.txt"  # a `cell` column names the run, it is no concurrency
    other.write_text("| cell | TTFT (ms) | TPOT (ms) |\n|---|---|---|\n| 1 | 400 | 20 |\n| 32 | 9000 | 30 |\n")
    assert all("max_concurrency" not in record.metrics for record in read_records(other))
