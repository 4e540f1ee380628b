"""The general fix of blind round 35 (tests/fixtures/blind35_logs): vLLM's benchmark_guided.py prints pandas'
describe() of each request's first-token and next-token latency after its Throughput line. Expected figures are the
excerpt's numbers in milliseconds, written out in seconds."""

from __future__ import annotations

from pathlib import Path

import pytest

from inferledger.diagnose import diagnose_files
from inferledger.diagnose.read import read_records

ROUND = Path(__file__).resolve().parent.parent / "fixtures" / "blind35_logs"
GUIDED = ROUND / "vllm__benchmark-guided-xgrammar-20-prompts-first-token-7.2s-then-3.3s.txt"


def test_describe_blocks_are_the_runs_latencies():
    before, after = read_records(GUIDED)
    assert before.metrics["completed_requests"] == 20
    assert before.metrics["ttft_seconds_mean"] == pytest.approx(7180.142369e-3)
    assert before.metrics["ttft_seconds_min"] == pytest.approx(4644.173431e-3)
    assert before.metrics["ttft_seconds_median"] == pytest.approx(7578.541221e-3)  # the 50% row
    assert before.metrics["tpot_seconds_mean"] == pytest.approx(12.662371e-3)
    assert "ttft_seconds_std" not in before.metrics  # std, 25% and 75% have no metric name
    assert after.metrics["ttft_seconds_mean"] == pytest.approx(3254.682581e-3)
    assert after.metrics["tpot_seconds_mean"] == pytest.approx(12.054585e-3)  # the excerpt ends after the mean


def test_seconds_to_the_first_token_at_12_ms_a_token_is_a_wait():
    diagnosis = diagnose_files([GUIDED])
    assert diagnosis.verdict == "queueing"  # 7.18 s ÷ 12.7 ms = 567 steps before the first token
