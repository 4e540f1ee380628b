"""The general fixes of blind round 36 (tests/fixtures/blind36_logs): a markdown table with no outer bars, rate cells
under a phase's name, two columns of one metric as two variants of a run, and a first token that grows in step with
the concurrency across a file's runs. Expected figures are the excerpts' numbers, derived ones written out."""

from __future__ import annotations

from pathlib import Path

import pytest

from inferledger.diagnose import diagnose_files
from inferledger.diagnose.read import read_records

ROUND = Path(__file__).resolve().parent.parent / "fixtures" / "blind36_logs"
SWEEP = ROUND / "imp__qwen3-14b-q6k-prefill-sweep-8k-64k-ttft-0.7-11.3s.txt"
CPU = ROUND / "sglang__cpu-backend-llama-3.2-3b-int8-ttft-before-after-by-concurrency.txt"


def test_rate_cells_under_a_phase_and_time_cells_under_ttft():
    records = read_records(SWEEP)
    assert [record.metrics["input_tokens_per_second"] for record in records] == [11421, 10040, 8054, 5790]
    assert [record.metrics["ttft_seconds_mean"] for record in records] == pytest.approx([0.72, 1.63, 4.07, 11.32])
    assert diagnose_files([SWEEP]).verdict == "healthy"


def test_a_table_with_no_outer_bars_and_two_variants_a_row():
    records = read_records(CPU)
    # 15 rows, each with a Before and an After TTFT column: 30 runs, the shared concurrency in both
    assert len(records) == 30
    before, after = records[0], records[1]
    assert before.metrics == pytest.approx({"max_concurrency": 1, "ttft_seconds_mean": 0.22068})
    assert after.metrics == pytest.approx({"max_concurrency": 1, "ttft_seconds_mean": 0.57074})
    assert before.labels["benchmark"] == "column 'TTFT (ms) Before'"


def test_a_first_token_that_grows_with_the_concurrency_is_a_wait():
    diagnosis = diagnose_files([CPU])
    assert diagnosis.verdict == "queueing"
    grown = [item for item in diagnosis.evidence if item.rule == "summary-ttft-grows-with-concurrency"]
    # Before column: medians over TP 1-3 of 220.68/141.46/127.02 ms at concurrency 1 and 1893.37/1239.61/947.82 ms
    # at 16: 1239.61 / 141.46 = 8.8x for 16x, at least half of 16
    first = next(item for item in grown if "Before" in item.text)
    assert first.numbers["ttft_seconds_low"] == pytest.approx(0.14146)
    assert first.numbers["ttft_seconds_high"] == pytest.approx(1.23961)


def test_a_first_token_that_stays_flat_is_not(tmp_path):
    path = tmp_path / "flat.md"
    path.write_text("| Concurrency | TTFT (ms) |\n|---|---|\n| 1 | 900 |\n| 16 | 1200 |\n", encoding="utf-8")
    assert not any(item.rule == "summary-ttft-grows-with-concurrency" for item in diagnose_files([path]).evidence)
