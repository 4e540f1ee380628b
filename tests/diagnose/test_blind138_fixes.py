"""Blind round 138's general fixes: a summary's tokens per request from its output rate over its request rate (so a
closed loop at concurrency 1 gives its step), the slow-card floor shared by tensor-parallel cards, and vLLM's notice
that its workers took no step for a minute (a hang, not a speed). Expected figures are worked out here."""

from __future__ import annotations

import pytest

from inferledger.diagnose import diagnose_files
from inferledger.diagnose.rules_requests import LARGE_MODEL_EFFICIENCY, SLOW_COMMON_CARD_BYTES_PER_S

EVALSCOPE = """\
vllm serve /data/Qwen3-30B-A3B -tp=4 --max-num-seqs 128 --dtype bfloat16

+-----------------------------------+----------+
| Key                               |    Value |
+===================================+==========+
| Time taken for tests (s)          | 605.768  |
+-----------------------------------+----------+
| Number of concurrency             |   1      |
+-----------------------------------+----------+
| Total requests                    |  20      |
+-----------------------------------+----------+
| Succeed requests                  |  20      |
+-----------------------------------+----------+
| Output token throughput (tok/s)   |  32.2219 |
+-----------------------------------+----------+
| Request throughput (req/s)        |   0.033  |
+-----------------------------------+----------+
| Average latency (s)               |  30.2874 |
"""


def _evidence(diagnosis, rule):
    return next(item for item in diagnosis.evidence if item.rule == rule)


def test_one_stream_over_four_tensor_parallel_cards_is_judged_against_their_shared_floor(tmp_path):
    path = tmp_path / "evalscope.txt"
    path.write_text(EVALSCOPE, encoding="utf-8")
    diagnosis = diagnose_files([path], model="Qwen/Qwen3-30B-A3B")
    assert diagnosis.verdict == "decode-bound"
    item = _evidence(diagnosis, "summary-slower-than-size-allows")
    # 32.2219 tok/s / 0.033 req/s = 976 tokens a request, 20 requests one at a time (a closed loop): the step is at
    # most 1 / 32.2219 s; four cards each read a quarter of the step's weights
    assert item.numbers["observed_seconds_per_token"] == pytest.approx(1 / 32.2219)
    assert item.numbers["tensor_parallel_size"] == 4
    weights = item.numbers["weights_bytes_per_step"]
    assert item.numbers["slow_card_seconds_per_token"] == pytest.approx(
        weights / (LARGE_MODEL_EFFICIENCY * SLOW_COMMON_CARD_BYTES_PER_S) / 4)


def test_the_same_run_on_one_card_is_within_what_its_size_allows(tmp_path):
    path = tmp_path / "evalscope.txt"
    path.write_text(EVALSCOPE.replace(" -tp=4", ""), encoding="utf-8")
    diagnosis = diagnose_files([path], model="Qwen/Qwen3-30B-A3B")
    assert all(item.rule != "summary-slower-than-size-allows" for item in diagnosis.evidence)


STALL = """\
(APIServer pid=19885) INFO 10-31 03:29:32 [loggers.py:127] Engine 000: Avg prompt throughput: 0.0 tokens/s, Avg generation throughput: 63.6 tokens/s, Running: 16 reqs, Waiting: 0 reqs, GPU KV cache usage: 65.7%, Prefix cache hit rate: 59.2%
(APIServer pid=19885) INFO 10-31 03:29:42 [loggers.py:127] Engine 000: Avg prompt throughput: 0.0 tokens/s, Avg generation throughput: 0.0 tokens/s, Running: 16 reqs, Waiting: 0 reqs, GPU KV cache usage: 65.7%, Prefix cache hit rate: 59.2%
"""
HANG = ("(EngineCore_DP0 pid=20870) INFO 10-31 03:30:23 [shm_broadcast.py:466] No available shared memory broadcast "
        "block found in 60 seconds. This typically happens when some processes are hanging or doing some "
        "time-consuming work (e.g. compilation).\n")


def test_a_stall_the_engine_names_as_its_workers_hanging_is_no_speed_verdict(tmp_path):
    path = tmp_path / "vllm.log"
    path.write_text(STALL + HANG + HANG.replace("03:30:23", "03:31:23"), encoding="utf-8")
    diagnosis = diagnose_files([path])
    assert diagnosis.verdict == "insufficient-data"
    assert _evidence(diagnosis, "state-workers-hung").numbers["worker_waits"] == 2
    assert "hang or a crash" in diagnosis.headline
    # without the engine's notice the same stalled window is read as it was: requests held, nothing produced
    path.write_text(STALL, encoding="utf-8")
    assert diagnose_files([path]).verdict == "decode-bound"


def test_the_same_notice_at_start_up_with_no_stalled_window_is_a_note(tmp_path):
    # round 75's vllm-ascend start-up: the notice before the first request, whose window produced tokens
    path = tmp_path / "vllm.log"
    path.write_text(HANG + STALL.splitlines()[0] + "\n", encoding="utf-8")
    diagnosis = diagnose_files([path])
    assert all(item.rule != "state-workers-hung" for item in diagnosis.evidence)
    assert any("start-up work" in note for note in diagnosis.notes)


def test_a_requests_prompt_from_the_input_rate_over_the_request_rate(tmp_path):
    # production-stack's multi-round QA summary (round 57): no prompt length, but 27,823.58 input tok/s at 1.3203
    # req/s is 21,074 tokens a request, whose own prefill at the run's input rate takes 1 / 1.3203 = 0.757 s; a mean
    # TTFT of 47.6 s is 63x that: waiting
    path = tmp_path / "summary.txt"
    path.write_text("QPS: 4.1000 reqs/s\nProcessing speed: 1.3203 reqs/s\nRequests on-the-fly: 335\n"
                    "Input tokens per second: 27823.5798 tokens/s\nOutput tokens per second: 132.0343 tokens/s\n"
                    "Average TTFT: 47.5952s\n", encoding="utf-8")
    diagnosis = diagnose_files([path])
    assert diagnosis.verdict == "queueing"
    item = _evidence(diagnosis, "summary-ttft-over-prompt-work")
    assert item.numbers["prompt_work_seconds"] == pytest.approx(1 / 1.3203)
