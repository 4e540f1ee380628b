"""The general fix of blind round 19 (tests/fixtures/blind19_logs): a gpt-fast style loop's `Generated N tokens in X
seconds` line and the `Bandwidth achieved` it prints after it; expected figures from the excerpt."""

from __future__ import annotations

from pathlib import Path

import pytest

from inferledger.diagnose import diagnose_files
from inferledger.diagnose.read import read_records

ROUND = Path(__file__).resolve().parent.parent / "fixtures" / "blind19_logs"


def test_a_generate_loop_line_and_its_bandwidth():
    (record,) = read_records(ROUND / "fishspeech__semantic-43-tokens-37.7s-0.56-gb-s.txt")
    assert record.metrics == {"e2e_seconds": 37.66, "output_tokens": 43.0,
                              "weight_read_bytes_per_second": pytest.approx(0.56e9)}
    diagnosis = diagnose_files([ROUND / "fishspeech__semantic-43-tokens-37.7s-0.56-gb-s.txt"])
    # 0.56 GB/s of weight reads: under the 4 GB/s any memory system delivers.
    assert diagnosis.verdict == "decode-bound"
    assert diagnosis.evidence[0].rule == "hardware-low-effective-bandwidth"
    assert diagnosis.evidence[0].numbers["effective_bandwidth_bytes_per_second_max"] == pytest.approx(0.56e9)


def test_a_generate_loop_line_without_a_bandwidth_line(tmp_path):
    path = tmp_path / "gen.txt"
    path.write_text("Generated 200 tokens in 2.50 seconds, 80.00 tokens/sec\nsomething else\n"
                    "Generated 100 tokens in 1.00 seconds, 100.00 tokens/sec\n", encoding="utf-8")
    records = read_records(path)
    assert [record.metrics for record in records] == [{"e2e_seconds": 2.5, "output_tokens": 200.0},
                                                      {"e2e_seconds": 1.0, "output_tokens": 100.0}]
