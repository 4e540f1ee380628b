"""The general fix of blind round 21 (tests/fixtures/blind21_logs): llama.cpp's /metrics counters, whose seconds
beside the tokens give each phase's rate from one scrape; expected figures from the excerpt."""

from __future__ import annotations

from pathlib import Path

import pytest

from inferledger.diagnose import diagnose_files
from inferledger.diagnose.read import read_records

ROUND = Path(__file__).resolve().parent.parent / "fixtures" / "blind21_logs"


def test_llamacpp_counters_give_each_phase_rate():
    path = ROUND / "iklamacpp__metrics-counters-prompt-2.4-gen-0.98-tok-s.txt"
    (totals,) = [record for record in read_records(path) if record.source == "prometheus.llamacpp-totals"]
    assert totals.metrics["input_tokens_per_second"] == pytest.approx(6886 / 2903.63)
    assert totals.metrics["output_tokens_per_second_per_user_mean"] == pytest.approx(3469 / 3544.27)
    diagnosis = diagnose_files([path])
    assert diagnosis.verdict == "decode-bound"  # 3544.27 s / 3469 tokens = 1.02 s a token


def test_llamacpp_gauges_are_read(tmp_path):
    path = tmp_path / "metrics.txt"
    path.write_text("# TYPE llamacpp:requests_processing gauge\nllamacpp:requests_processing 3\n"
                    "# TYPE llamacpp:requests_deferred gauge\nllamacpp:requests_deferred 5\n", encoding="utf-8")
    (gauges,) = read_records(path)
    assert gauges.metrics == {"running_requests": 3.0, "waiting_requests": 5.0}
