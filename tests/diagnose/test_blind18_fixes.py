"""The general fixes of blind round 18 (tests/fixtures/blind18_logs): a table of runs stating only a per-stream
generation rate (ollama's eval rate) and tinygrad's per-token timing lines; expected figures from the excerpts."""

from __future__ import annotations

from pathlib import Path

import pytest

from inferledger.diagnose import diagnose_files
from inferledger.diagnose.read import read_records

ROUND = Path(__file__).resolve().parent.parent / "fixtures" / "blind18_logs"


def test_a_table_of_eval_rates_is_a_per_stream_speed():
    path = ROUND / "ollama__obench-radxa-o6-3b-9.3-to-16.5-tok-s.txt"
    rates = [record.metrics["output_tokens_per_second_per_user_mean"] for record in read_records(path)]
    # Four tables of three runs and their average rows: 9.27, 9.37, 9.35, 9.33, 16.47, ... 4.17.
    assert rates[:4] == [9.27, 9.37, 9.35, 9.33] and rates[-1] == 4.17 and len(rates) == 16
    diagnosis = diagnose_files([path])
    assert diagnosis.verdict == "decode-bound"  # 1 / 9.27 tok/s = 108 ms a token, over the 100 ms cutoff
    assert diagnosis.evidence[0].numbers["tpot_seconds_mean"] == pytest.approx(1 / 9.27)


def test_a_table_of_fast_eval_rates_is_healthy(tmp_path):
    path = tmp_path / "obench.md"
    path.write_text("| Run | Eval Rate (Tokens/Second) |\n|-----|------|\n| 1 | 41.20 tokens/s |\n"
                    "| 2 | 40.90 tokens/s |\n", encoding="utf-8")
    assert diagnose_files([path]).verdict == "healthy"


def test_tinygrad_timing_lines_are_one_request():
    (record,) = read_records(ROUND / "tinygrad__llama7b-cpu-15s-per-token.txt")
    totals = [17726.15, 16049.51, 14949.35, 15054.49, 14927.12, 15017.35, 13707.40, 14475.29, 15013.69, 14981.18]
    assert record.metrics["output_tokens"] == len(totals)
    assert record.metrics["tpot_seconds"] == pytest.approx(sum(totals) / len(totals) / 1000)
    assert record.labels["engine"] == "tinygrad"
