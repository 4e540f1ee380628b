"""The general fixes of blind round 33 (tests/fixtures/blind33_logs): a table header with its unit in parentheses
glued to the name (`prefill(tok/s)`), and runs of the same size told one after the other in phrases. Expected figures
are the excerpts' numbers, derived ones written out."""

from __future__ import annotations

from pathlib import Path

import pytest

from inferledger.diagnose import diagnose_files
from inferledger.diagnose.read import read_records

ROUND = Path(__file__).resolve().parent.parent / "fixtures" / "blind33_logs"


def test_a_unit_glued_to_the_column_name():
    path = ROUND / "litertlm__sm8850-gemma-4-e4b-vs-3n-prefill-decode-tables.txt"
    records = read_records(path)
    assert [record.metrics["input_tokens_per_second"] for record in records] == \
        [69.62, 32.34, 19.52, 243.05, 360.16, 248.10]
    assert [record.metrics["output_tokens_per_second_per_user_mean"] for record in records] == \
        [17.15, 12.30, 5.22, 17.14, 11.38, 11.52]
    assert diagnose_files([path]).verdict in ("decode-bound", "healthy")  # the reading accepts both


def test_runs_of_the_same_size_are_each_their_own_request():
    # Box's three runs all state prefill_tokens: 256 and decode_tokens: 256: the same count after a run's speeds
    # opens the next run, the same count on the line that times its phase is an echo
    records = read_records(ROUND / "box__pixel6pro-gemma-4-e2b-gpu-cpu-prefill-decode-speeds.txt")
    assert [record.metrics["input_tokens"] for record in records] == [256, 256, 256]
    assert [record.metrics["generation_tokens_per_second"] for record in records] == \
        pytest.approx([8.913953803546868, 8.805468740866658, 6.750120125779875])
    assert records[0].metrics["decode_seconds"] == pytest.approx(256 / 8.913953803546868)
    assert [record.metrics.get("ttft_seconds") for record in records] == \
        pytest.approx([1.3654566986666667, 1.3006866548333333, None])
