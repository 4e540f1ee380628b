"""The general fix of blind round 20 (tests/fixtures/blind20_logs): bench_latency's summary lines quoted as shell
comments, one run each; expected figures from the excerpt."""

from __future__ import annotations

from pathlib import Path

import pytest

from inferledger.diagnose import diagnose_files
from inferledger.diagnose.read import read_records

ROUND = Path(__file__).resolve().parent.parent / "fixtures" / "blind20_logs"


def test_quoted_summary_lines_are_runs_of_their_own():
    path = ROUND / "sglang__bench-latency-llama3-8b-decode-7ms-cuda-graph.txt"
    records = read_records(path)
    # Four `# Decode.  median latency: … s` lines, each after its own command: 7.06, 9.28, 7.35 and 8.23 ms.
    assert [record.metrics["tpot_seconds_median"] for record in records] == pytest.approx(
        [0.00706, 0.00928, 0.00735, 0.00823])
    assert records[0].metrics["output_tokens_per_second"] == 141.63
    assert diagnose_files([path]).verdict == "healthy"


def test_a_median_line_after_step_lines_still_stands_for_its_run(tmp_path):
    path = tmp_path / "bench.txt"
    path.write_text("Prefill. latency: 0.02265 s, throughput:   2648.96 token/s\n"
                    "Decode.  latency: 0.00637 s, throughput:    157.09 token/s\n"
                    "Decode.  median latency: 0.00585 s, median throughput:    170.84 token/s\n"
                    "Total. latency:  0.076 s, throughput:    923.17 token/s\n", encoding="utf-8")
    (record,) = read_records(path)
    assert record.metrics["tpot_seconds_median"] == 0.00585
