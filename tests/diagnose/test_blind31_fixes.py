"""The general fix of blind round 31 (tests/fixtures/blind31_logs): a table's time column whose header names no unit
is read when every cell carries its own ("1.3s"), and a `1000/tpot` column is one stream's tokens a second. Expected
figures are the excerpt's numbers, derived ones written out."""

from __future__ import annotations

from pathlib import Path

import pytest

from inferledger.diagnose import diagnose_files
from inferledger.diagnose.read import read_records

ROUND = Path(__file__).resolve().parent.parent / "fixtures" / "blind31_logs"
TABLE = ROUND / "vllmascend__vs-mindie-910b4-ttft-and-1000-over-tpot-table.txt"


def test_units_in_the_cells_and_a_rate_from_tpot():
    records = read_records(TABLE)
    assert [record.metrics["ttft_seconds_mean"] for record in records] == \
        [1.3, 2.9, 3.5, 12.0, 22.0, 39.0, 1.8, 4.7, 9.0, 34.0, 29.0, 97.0]
    assert [record.metrics["output_tokens_per_second_per_user_mean"] for record in records] == \
        [14, 20, 12, 19, 8, 9, 15, 21, 9, 15, 7, 25]
    assert diagnose_files([TABLE]).verdict == "decode-bound"  # 1000 / 7 = 143 ms a token, past the 100 ms cutoff


def test_a_column_with_a_bare_number_in_it_is_not_a_time(tmp_path):
    path = tmp_path / "table.md"
    path.write_text("| engine | ttft | 1000/tpot |\n|---|---|---|\n| a | 1.3s | 14tok/s |\n| b | 2.9 | 20tok/s |\n",
                    encoding="utf-8")
    records = read_records(path)
    assert [record.metrics for record in records] == [
        {"output_tokens_per_second_per_user_mean": 14}, {"output_tokens_per_second_per_user_mean": 20}]


def test_cells_in_milliseconds_and_seconds_mix(tmp_path):
    path = tmp_path / "table.md"
    path.write_text("| run | TTFT | TPOT |\n|---|---|---|\n| a | 870ms | 12 ms |\n| b | 1.2 s | 15ms |\n",
                    encoding="utf-8")
    records = read_records(path)
    assert [record.metrics["ttft_seconds_mean"] for record in records] == pytest.approx([0.870, 1.2])
    assert [record.metrics["tpot_seconds_mean"] for record in records] == pytest.approx([0.012, 0.015])
