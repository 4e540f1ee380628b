"""Blind round 137's general fix: a load generator's whitespace table with snake_case columns and no units (`conc
reqs err gen ttft_p50 tpot_p50 e2e_p95 tok/s`), its latencies' unit settled per row by Little's law: `conc` requests
in flight at `tok/s ÷ gen` requests a second take conc ÷ that each. Expected figures are worked out here."""

from __future__ import annotations

import pytest

from inferledger.diagnose import diagnose_files
from inferledger.diagnose.parsers import generic_summary

SWEEP = """\
Baseline sweep

 conc  reqs  err  gen  ttft_p50  ttft_p95  tpot_p50  e2e_p95  e2e_p99   tok/s  goodput%
    8    12    0   51     {ttft8}     0.177    {tpot8}    {e2e8}    1.381   240.4    100.0
  128   512    0   52     0.126     0.325    0.0360    2.291    2.421   3138.1    100.0
  512   512    0   52     1.043     3.564    0.0564    5.828    5.946   3896.1     50.0
"""


def _records(text):
    return [item for item in generic_summary.parse(enumerate(text.split("\n"), 1)) if hasattr(item, "metrics")]


def test_unitless_latencies_are_seconds_when_littles_law_says_so():
    eight = _records(SWEEP.format(ttft8="0.171", tpot8="0.0223", e2e8="1.357"))[0]
    # conc 8 at 240.4 / 51 = 4.71 req/s: a request takes ~1.70 s, and e2e_p95 reads 1.357: seconds (not 1.357 ms)
    assert 8 / (240.4 / 51) == pytest.approx(1.697, rel=1e-3)
    assert eight.metrics["ttft_seconds_median"] == pytest.approx(0.171)
    assert eight.metrics["tpot_seconds_median"] == pytest.approx(0.0223)
    assert eight.metrics["max_concurrency"] == 8 and eight.metrics["mean_output_tokens"] == 51
    assert "benchmark" not in eight.labels  # a row named by its load: one level of the sweep


def test_the_same_row_in_milliseconds_is_read_as_milliseconds():
    eight = _records(SWEEP.format(ttft8="171.0", tpot8="22.30", e2e8="1357.0"))[0]
    assert eight.metrics["ttft_seconds_median"] == pytest.approx(0.171)
    assert eight.metrics["e2e_seconds_p95"] == pytest.approx(1.357)


def test_with_no_rate_to_settle_them_the_latencies_stay_unread():
    header, row = " conc  reqs  ttft_p50  e2e_p95  err", "    8    12     0.171    1.357    0"
    [record] = _records(f"{header}\n{row}\n")
    assert not any(name.startswith(("ttft", "e2e")) for name in record.metrics)


def test_a_first_token_growing_faster_than_the_load_reads_as_queueing(tmp_path):
    path = tmp_path / "sweep.txt"
    path.write_text(SWEEP.format(ttft8="0.171", tpot8="0.0223", e2e8="1.357"), encoding="utf-8")
    diagnosis = diagnose_files([path])
    # median TTFT 0.126 s at 128 in flight, 1.043 s at 512: 8.3x for 4x the requests
    assert diagnosis.verdict == "queueing"
    item = next(item for item in diagnosis.evidence if item.rule == "summary-ttft-grows-with-concurrency")
    assert item.numbers["ttft_seconds_high"] / item.numbers["ttft_seconds_low"] == pytest.approx(1.043 / 0.126)
