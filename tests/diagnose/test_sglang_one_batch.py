"""SGLang's bench_one_batch output (tests/fixtures/logs/sglang__bench-one-batch-warmup-and-benchmark-mlx.txt, a real
run from sglang#30147): the measured block after the warm-up, read as a static batch."""

from __future__ import annotations

from pathlib import Path

import pytest

from inferledger.diagnose.parsers import sglang_one_batch
from inferledger.diagnose.read import LogFile, detect_formats, iter_records

FIXTURE = Path(__file__).parents[1] / "fixtures" / "logs" / "sglang__bench-one-batch-warmup-and-benchmark-mlx.txt"


def test_the_measured_block_not_the_warmup():
    log = LogFile.open(FIXTURE)
    assert sglang_one_batch in detect_formats(log)
    (record,) = list(iter_records(log, [sglang_one_batch]))
    # The "Benchmark ..." block: prefill 0.01014 s at 5916.43 token/s = 60.0 prompt tokens for the batch of 1;
    # the median decode step 0.00572 s; the whole run 0.062 s.
    assert record.metrics["ttft_seconds_mean"] == pytest.approx(0.01014)
    assert record.metrics["total_input_tokens"] == pytest.approx(0.01014 * 5916.43)
    assert record.metrics["mean_input_tokens"] == pytest.approx(0.01014 * 5916.43)
    assert record.metrics["tpot_seconds_median"] == pytest.approx(0.00572)
    assert record.metrics["output_tokens_per_second"] == pytest.approx(174.85)
    assert record.metrics["e2e_seconds_mean"] == pytest.approx(0.062)
    assert record.metrics["max_concurrency"] == 1
    assert "warmup" not in record.labels


def test_a_warmup_alone_is_kept_and_said(tmp_path):
    text = FIXTURE.read_text().split("Benchmark ...")[0]
    path = tmp_path / "warmup.txt"
    path.write_text(text)
    log = LogFile.open(path)
    (record,) = list(iter_records(log, [sglang_one_batch]))
    assert record.labels["warmup"] == "1"
    assert record.metrics["ttft_seconds_mean"] == pytest.approx(0.02265)

