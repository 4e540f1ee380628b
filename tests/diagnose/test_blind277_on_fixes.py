"""Blind rounds 277 on: the general fixes of the seventeenth session. Expected figures are worked out here."""

from __future__ import annotations

from pathlib import Path

import pytest
from blind_helpers import rules

from inferledger.diagnose import diagnose_files
from inferledger.diagnose.parsers import bench_clients
from inferledger.diagnose.read import LogFile
from inferledger.diagnose.records import Record

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures"


def _records(path, parser) -> list:
    return [item for item in parser.parse(LogFile.open(path).lines()) if isinstance(item, Record)]


def test_inference_benchmark_averages_include_the_wait_and_the_command_states_the_offered_rate():
    # AI-Hypercomputer/inference-benchmark#24: `--request-rate=10` on the command line above the block, averages
    # per request and per output token in milliseconds, "(includes waiting time on server)"; "weighted" names the
    # aggregate over the served models, no model.
    path = FIXTURES / "blind282_logs" / "inferencebenchmark__vllm-llama2-7b-sharegpt-rate-10-ignore-eos-result.txt"
    (record,) = _records(path, bench_clients)
    metrics = record.metrics
    assert metrics["request_rate_per_second"] == 10
    assert metrics["e2e_seconds_mean"] == pytest.approx(39549.75 / 1000)
    assert metrics["e2e_per_output_token_seconds_mean"] == pytest.approx(443.50 / 1000)
    assert metrics["e2e_per_token_seconds_mean"] == pytest.approx(0.08)
    assert metrics["request_throughput_per_second"] == pytest.approx(48.09 / 60)
    assert "model" not in record.labels
    # 48.09 / 60 = 0.80 req/s served of 10 offered: the rest waited.
    diagnosis = diagnose_files([path])
    assert diagnosis.verdict == "queueing"
