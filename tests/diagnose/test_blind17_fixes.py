"""The general fix of blind round 17 (tests/fixtures/blind17_logs): LMCache's store, retrieve and hit lines are read
as KV-cache transfers (events), never as serving speed, and a hit line tells the advice a prefix cache is on; expected
figures from the excerpts."""

from __future__ import annotations

from pathlib import Path

import pytest

from inferledger.diagnose import diagnose_files
from inferledger.diagnose.read import read_records

ROUND = Path(__file__).resolve().parent.parent / "fixtures" / "blind17_logs"


def test_lmcache_lines_are_transfers():
    stored, hit, retrieved = read_records(ROUND / "lmcache__docs-stored-31-retrieved-8-tokens.txt")
    assert stored.metrics == {"kv_offloaded_tokens": 31.0, "kv_offload_seconds": pytest.approx(1.95e-3)}
    assert hit.metrics == {"prefix_hit_tokens": 24.0} and hit.labels["prefix_caching"] == "on"
    assert retrieved.metrics == {"kv_loaded_tokens": 8.0, "kv_load_seconds": pytest.approx(0.55e-3)}
    records = read_records(ROUND / "lmcache__stored-1024-tokens-3.9s-to-0.14s.txt")
    assert [record.metrics["kv_offload_seconds"] for record in records] == [3.909, 3.148, 1.931, 0.810, 0.148,
                                                                            0.158, 0.144]
    assert diagnose_files([ROUND / "lmcache__stored-1024-tokens-3.9s-to-0.14s.txt"]).verdict == "insufficient-data"


def test_lmcache_beside_vllm_keeps_the_vllm_reading_and_silences_the_prefix_cache_advice(tmp_path):
    # Prompt-heavy vLLM V1 windows with a long queue read prefill-bound; V1 prints a 0.0 % hit rate with its own
    # cache off too, so only the LMCache hit line says a prefix cache is on, and no advice asks to enable one.
    stats = ("(APIServer pid=1) INFO 12-10 02:06:{second:02d} [loggers.py:236] Engine 000: Avg prompt throughput: "
             "30000.0 tokens/s, Avg generation throughput: 4.0 tokens/s, Running: 40 reqs, Waiting: 900 reqs, "
             "GPU KV cache usage: 20.0%, Prefix cache hit rate: 0.0%")
    hit = ("(EngineCore_DP0 pid=2) [2025-12-10 02:06:38,556] LMCache INFO: Reqid: chatcmpl-1, Total tokens 8210, "
           "LMCache hit tokens: 8210, need to load: 8209 (vllm_v1_adapter.py:1520:lmcache.integration.vllm.vllm_v1_adapter)")
    path = tmp_path / "vllm.log"
    path.write_text("\n".join([hit] + [stats.format(second=10 * index) for index in range(5)]) + "\n",
                    encoding="utf-8")
    diagnosis = diagnose_files([path])
    assert diagnosis.verdict == "prefill-bound"  # as without the LMCache line
    assert not any("enable prefix caching" in tip for tip in diagnosis.advice)  # which the same log gets without it
    assert any("prefix caching is already on" in tip for tip in diagnosis.advice)
