"""The general fixes of blind round 32 (tests/fixtures/blind32_logs): a table row cut before its closing bar keeps
the cells before the cut one, and a bare tok/s beside a first token's time is a request's generation rate. Expected
figures are the excerpts' numbers, derived ones written out."""

from __future__ import annotations

from pathlib import Path

import pytest

from inferledger.diagnose import diagnose_files
from inferledger.diagnose.read import read_records

ROUND = Path(__file__).resolve().parent.parent / "fixtures" / "blind32_logs"


def test_a_cut_row_fills_its_first_columns():
    # `| 1P1D | 407.59 | 7084.46 | 732.54 | 2952.57 | 7.23 | 10.76` (no closing bar): 10.76 may be cut, so not read
    path = ROUND / "sglang__pd-1p1d-a10-8k-prompts-rate-1-ttft-733ms.txt"
    (record,) = [record for record in read_records(path) if record.source == "bench.markdown"]
    assert record.metrics == pytest.approx({
        "output_tokens_per_second": 407.59, "total_tokens_per_second": 7084.46, "ttft_seconds_mean": 0.73254,
        "ttft_seconds_p99": 2.95257, "itl_seconds_mean": 0.00723})
    assert diagnose_files([path]).verdict == "healthy"


def test_a_bare_rate_beside_a_first_token_time():
    path = ROUND / "geniex__snapdragon-x-plus-gemma-4-e4b-13.8-tok-s.txt"
    (record,) = read_records(path)
    assert record.metrics == pytest.approx({
        "ttft_seconds": 0.3, "generation_tokens_per_second": 13.8, "output_tokens": 966,
        "decode_seconds": 966 / 13.8, "tpot_seconds": 1 / 13.8})
    assert diagnose_files([path]).verdict == "healthy"  # 72 ms a token, inside the fixed 10 tok/s cutoff
