"""Blind round 135's general fixes: LMDeploy's stats line (a reader), an SGLang batch line quoted in prose (its last
value followed by a backtick and a sentence), and queueing advice that names the batch cap when the KV pool had room.
Expected figures are read off the lines written here."""

from __future__ import annotations

import pytest

from inferledger.diagnose import diagnose_files
from inferledger.diagnose.parsers import detect, lmdeploy

# The released LoggingStatLogger line (lmdeploy/metrics/loggers.py: `[time Engine 000] Avg thr (in/out): …, Server
# (succeeded/failed/routed/waiting): …, Engine (running/waiting): …, KV cache: …%, ` and the prefix hit rate when not 0),
# and the pull request's first wording (round 135's sample, InternLM/lmdeploy#4297).
RELEASED = ("[2026-03-01 10:00:05 Engine 000] Avg thr (in/out): 1200.0 / 800.5 tokens/s, Server "
            "(succeeded/failed/routed/waiting): 10 / 0 / 64 / 0, Engine (running/waiting): 64 / 0, KV cache: 91.5%, "
            "Prefix cache hit rate: 40.0%, \n")
PR_WORDING = ("[2026-02-05 17:05:17 DP0] Avg thr (in/out): 4618.5 / 2756.3 tokens/s, API server "
              "(completed/routed/waiting): 1 / 50 / 50, Engine (running/waiting): 45 / 5, KV cache: 21.6%, \n")


def test_lmdeploy_stats_lines_are_windows():
    assert detect(RELEASED)[0] is lmdeploy
    released, pr = (list(lmdeploy.parse([(1, text.rstrip("\n"))]))[0] for text in (RELEASED, PR_WORDING))
    assert released.metrics == pytest.approx({
        "prompt_tokens_per_second": 1200.0, "generation_tokens_per_second": 800.5, "running_requests": 64,
        "waiting_requests": 0 + 0, "api_waiting_requests": 0, "kv_cache_usage_fraction": 0.915,
        "prefix_cache_hit_fraction": 0.40})
    # the engine's 5 waiting and the API server's 50 waiting for a request handle: 55 wait in all
    assert pr.metrics["waiting_requests"] == 5 + 50
    assert pr.metrics["running_requests"] == 45
    assert pr.metrics["kv_cache_usage_fraction"] == pytest.approx(0.216)


def test_a_queue_with_most_of_the_kv_pool_free_is_told_to_raise_the_batch_cap(tmp_path):
    path = tmp_path / "lmdeploy.log"
    path.write_text(PR_WORDING, encoding="utf-8")
    diagnosis = diagnose_files([path])
    assert diagnosis.verdict == "queueing"
    assert "never passed 22%" in diagnosis.advice[0] and "--max-batch-size" in diagnosis.advice[0]
    # a full pool is another matter: the usual advice alone
    path.write_text(PR_WORDING.replace("KV cache: 21.6%", "KV cache: 97.0%"), encoding="utf-8")
    assert not any("batch cap" in tip for tip in diagnose_files([path]).advice)


def test_an_sglang_line_quoted_in_prose_keeps_its_last_value(tmp_path):
    path = tmp_path / "quote.txt"
    path.write_text("1. Do not look at `[gpu=0] Decode batch. #running-req: 381, #token: 344397, token usage: 0.96, "
                    "gen throughput (token/s): 93.97, #queue-req: 1549`. This is temporary throughput\n",
                    encoding="utf-8")
    diagnosis = diagnose_files([path])
    # 1,549 queued beside a pool 96 % full: the KV cache holds the batch back
    assert diagnosis.verdict == "kv-capacity"
    assert diagnosis.metrics["interval"]["waiting_requests"]["max"] == 1549
