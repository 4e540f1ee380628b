"""The general fixes of blind round 26 (tests/fixtures/blind26_logs): club-3090's bench lines, MNN's `modelSize`
column, and keyword names with a statistic inside them ("First token Avg Latency", "Next token P90 Latency").
Expected figures are the excerpts' numbers worked by hand."""

from __future__ import annotations

from pathlib import Path

import pytest

from inferledger.diagnose.read import read_records

ROUND = Path(__file__).resolve().parent.parent / "fixtures" / "blind26_logs"


def test_club_bench_generating_and_prompt_runs():
    records = read_records(ROUND / "club3090__bench-2x5090-iq4xs-decode-18-tps-prefill-600.txt")
    assert len(records) == 15  # 8 generating runs and 7 prompt runs
    first = records[0].metrics
    assert (first["output_tokens"], first["e2e_seconds"], first["ttft_seconds"]) == (359, 20.2, 0.733)
    assert first["decode_seconds"] == pytest.approx(359 / 18.40)
    last = records[-1].metrics
    assert (last["input_tokens"], last["prompt_tokens_per_second"], last["ttft_seconds"]) == (93455, 638.2, 146.425)


def test_mnn_model_size_column_gives_the_weights():
    rows = read_records(ROUND / "mnn__llm-bench-qwen25-0.5b-cpu-pp512-996-tg128-170.txt")
    assert {row.metrics["weights_bytes"] for row in rows} == {265.09 * 2**20}


def test_a_statistic_inside_the_name():
    (first, second) = read_records(ROUND / "xft__benchmark-llama2-7b-hbm-first-100ms-next-25ms.txt")
    assert first.metrics["ttft_seconds_mean"] == pytest.approx(0.10045)
    assert first.metrics["tpot_seconds_mean"] == pytest.approx(0.02501)
    assert first.metrics["tpot_seconds_p90"] == pytest.approx(0.02518)
    assert first.metrics["e2e_seconds_mean"] == pytest.approx(0.88)
    assert second.metrics == {"tpot_seconds_mean": pytest.approx(0.02518)}  # "Next token Latency" again: a new run
