"""Blind round 136's general fixes: tinygrad's timing lines that print the host's enqueue time (a step whose host side
is most of it is launch-bound), and a TTFT tail of seconds behind a sub-second mean (a queue). Expected figures are
worked out from the excerpts written here."""

from __future__ import annotations

import pytest

from inferledger.diagnose import diagnose_files
from inferledger.diagnose.parsers import detect, local_runners

TINYGRAD = """\
enqueue in  17.80 ms
total  24.38 ms, 41.02 tok/sec
 year
enqueue in  17.80 ms
total  24.35 ms, 41.06 tok/sec
 old
"""


def test_tinygrad_enqueue_lines_are_the_host_share_of_each_step(tmp_path):
    assert detect(TINYGRAD)[0] is local_runners
    [record] = [item for item in local_runners.parse(enumerate(TINYGRAD.split("\n"), 1)) if hasattr(item, "metrics")]
    assert record.metrics["tpot_seconds"] == pytest.approx((24.38 + 24.35) / 2 / 1000)
    assert record.metrics["host_seconds_per_token"] == pytest.approx(17.80 / 1000)
    path = tmp_path / "tinygrad.txt"
    path.write_text(TINYGRAD, encoding="utf-8")
    diagnosis = diagnose_files([path])
    # 17.80 of ~24.37 ms a token (73 %) is the host: past the rule's half, launch-bound, and its own advice
    assert diagnosis.verdict == "decode-bound"
    assert diagnosis.evidence[0].rule == "requests-host-bound-steps"
    assert diagnosis.evidence[0].numbers["host_seconds_per_token"] / diagnosis.evidence[0].numbers[
        "tpot_seconds_mean"] == pytest.approx(17.80 / 24.365, rel=1e-3)
    assert "replay" in diagnosis.advice[0]


def test_a_host_share_under_half_the_step_is_not_launch_bound(tmp_path):
    path = tmp_path / "tinygrad.txt"
    path.write_text(TINYGRAD.replace("enqueue in  17.80 ms", "enqueue in  9.00 ms"), encoding="utf-8")
    assert all(item.rule != "requests-host-bound-steps" for item in diagnose_files([path]).evidence)


AIPERF_TTFT_ROW = """\
                                              NVIDIA AIPerf | LLM Metrics
┏━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━┳━━━━━━━━━━┳━━━━━━━━━━┳━━━━━━━━━━━┳━━━━━━━━━━━┳━━━━━━━━━━━┳━━━━━━━━━━┳━━━━━━━━━━┓
┃                               Metric ┃      avg ┃      min ┃       max ┃       p99 ┃       p90 ┃      p50 ┃      std ┃
┡━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━╇━━━━━━━━━━╇━━━━━━━━━━╇━━━━━━━━━━━╇━━━━━━━━━━━╇━━━━━━━━━━━╇━━━━━━━━━━╇━━━━━━━━━━┩
│             Time to First Token (ms) │   {avg} │   169.58 │  {max} │  {p99} │    898.82 │   461.01 │ 1,171.80 │
"""


def test_a_ttft_tail_of_seconds_behind_a_sub_second_mean_is_a_queue(tmp_path):
    path = tmp_path / "aiperf.txt"
    path.write_text(AIPERF_TTFT_ROW.format(avg="676.49", max="8,816.90", p99="8,726.08"), encoding="utf-8")
    diagnosis = diagnose_files([path])
    # p99 8,726.08 ms over the fastest 169.58 ms: 51x, a tail of seconds though the mean is 0.68 s
    assert diagnosis.verdict == "queueing"
    assert diagnosis.evidence[0].numbers["ttft_spread"] == pytest.approx(8726.08 / 169.58)


def test_a_sub_second_tail_is_no_queue_evidence(tmp_path):
    path = tmp_path / "aiperf.txt"
    path.write_text(AIPERF_TTFT_ROW.format(avg="476.49", max="  916.90", p99="  926.08"), encoding="utf-8")
    assert all(item.rule != "summary-ttft-spread" for item in diagnose_files([path]).evidence)
