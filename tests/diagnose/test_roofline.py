"""The log against the request ledger (diagnose/roofline.py): achieved decode bandwidth as a fraction of the
card's, prefill FLOP/s against the peak (an impossible prompt rate is a measurement artefact),
KV capacity from the ledger next to what the log says, and advice with the ledger's expected gain.

Expected figures are derived from the configs and datasheets (Llama-2-13B fp16 KV = 2 × 40 layers × 40 KV heads × 128 × 2 bytes
≈ 0.82 MB per token; H100 SXM 3.35 TB/s, ~989 TFLOP/s bf16 dense) and from the sample lines.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from inferledger.diagnose import diagnose_files

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures" / "logs"
V0_LINE = (FIXTURES / "vllm__v06-single-request-decode.txt").read_text().split("\n")[1]


def test_decode_bandwidth_fraction_from_the_stats_windows():
    diagnosis = diagnose_files([FIXTURES / "vllm__v06-single-request-decode.txt"],
                               model="meta-llama/Llama-2-13b-hf", gpu="h100 sxm", precision="fp16")
    roofline = diagnosis.roofline
    assert roofline["card_bandwidth_bytes_per_second"] == pytest.approx(3.35e12)
    # One running request at 41.5-41.8 tok/s: mean 41.7 tok/s -> 1/41.7 s per step.
    step = roofline["observed_decode_seconds_per_token"]
    assert step == pytest.approx(1 / 41.7, rel=2e-3)
    # A step reads the 13,015,864,320 fp16 weights but the embedding table (32,000 x 5,120 is one row per
    # token) plus the KV cache of its context: ISL and OSL are not in this log, so 1024 + 256 / 2 tokens (the
    # defaults, at the middle step) x 819,200 bytes. At 41.7 steps/s that is ~1.1 TB/s, a third of 3.35 TB/s.
    weights = (13_015_864_320 - 32_000 * 5_120) * 2
    kv = (1024 + 255.5 + 1) * 2 * 40 * 40 * 128 * 2
    achieved = (weights + kv) * 41.7
    assert roofline["achieved_decode_bandwidth_bytes_per_second"] == pytest.approx(achieved, rel=0.01)
    assert roofline["decode_bandwidth_fraction"] == pytest.approx(achieved / 3.35e12, rel=0.01)
    # Llama-2-13B fp16 KV ≈ 0.82 MB/token.
    assert roofline["ledger_kv_bytes_per_token"] == pytest.approx(2 * 40 * 40 * 128 * 2, rel=0.01)
    assert any("decode" in line for line in roofline["lines"])


def test_prompt_rate_above_the_compute_roofline_is_an_artifact(tmp_path):
    # 10 million prompt tok/s × 2 × 8e9 FLOP/token = 1.6e17 FLOP/s: ~160× an H100's bf16 peak. Impossible.
    line = V0_LINE.replace("Avg prompt throughput: 0.0 tokens/s", "Avg prompt throughput: 10000000.0 tokens/s")
    path = tmp_path / "server.log"
    path.write_text(line + "\n")
    diagnosis = diagnose_files([path], model="meta-llama/Llama-3.1-8B", gpu="h100 sxm")
    assert diagnosis.roofline["prefill_peak_fraction"] > 100
    assert diagnosis.verdict == "measurement-artifact"


def test_kv_capacity_advice_carries_the_ledger_gain():
    diagnosis = diagnose_files([FIXTURES / "vllm__v05-recompute-preemption-warning.txt"],
                               model="meta-llama/Llama-3.1-8B", gpu="h100 sxm")
    assert diagnosis.verdict == "kv-capacity"
    roofline = diagnosis.roofline
    # fp8 KV halves the bytes per token, so (about) twice the tokens fit in the same budget.
    assert roofline["ledger_kv_tokens_capacity_fp8_kv"] == pytest.approx(2 * roofline["ledger_kv_tokens_capacity"],
                                                                         rel=0.02)
    assert any("fp8 KV" in tip for tip in diagnosis.advice)


def test_log_kv_tokens_next_to_the_ledger():
    # The sample's own KV pool (42,656 tokens on one GPU, Qwen3-14B) beside the ledger's for an H100.
    diagnosis = diagnose_files([FIXTURES / "vllm__v1-startup-kv-cache-tokens-qwen3-14b.txt"],
                               model="Qwen/Qwen3-8B", gpu="h100 sxm")
    assert diagnosis.roofline["log_kv_tokens"] == 42_656
    # Qwen3-8B bf16 on an H100: (80 GiB x 0.9 - 8,190,735,360 x 2 weights - workspace - 1 GiB) / 147,456 bytes
    # per token (36 layers x 8 KV heads x 128 x 2 x 2). Workspace: 8192 x (4096 + 12288) x 2 + 8192 x 4096 x 2
    # + 128 x 151,936 x 4.
    workspace = 8192 * (4096 + 12288) * 2 + 8192 * 4096 * 2 + 128 * 151_936 * 4
    ledger_tokens = (80 * 2**30 * 0.9 - 8_190_735_360 * 2 - workspace - 2**30) // 147_456
    assert diagnosis.roofline["ledger_kv_tokens_capacity"] == ledger_tokens
    assert diagnosis.roofline["log_vs_ledger_kv_ratio"] == pytest.approx(42_656 / ledger_tokens)


def test_model_without_gpu_is_said_not_guessed():
    diagnosis = diagnose_files([FIXTURES / "vllm__v06-single-request-decode.txt"], model="meta-llama/Llama-3.1-8B")
    assert "--gpu" in diagnosis.roofline["error"]
    assert diagnosis.verdict == "healthy"
