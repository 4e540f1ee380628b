"""Hybrid layouts (hybrids.py): parameter totals and per-sequence cache, derived by hand from the bundled configs.

What this checks and why the check is sound
-------------------------------------------
Each expected total is integer arithmetic on literal numbers copied from the model's config.json, following the
tensors the reference modeling code creates (transformers' qwen3_next / qwen3_5 / nemotron_h / gemma4, vLLM's
decilm / mimo_v2_flash / *_mtp). Every tensor family is named in a comment. Nothing here asks the tool for an
expected value, so the tool and the test would have to make the same mistake to agree. Where a model card or the
hub states a figure, the count is also checked against it within that figure's rounding.

The cache checks use bf16 (2 bytes) at 8K and 32K tokens of context: attention layers hold K and V per token
(growing with context), sliding layers cap at their window, and Gated DeltaNet / Mamba-2 layers hold a constant
recurrent state plus the last kernel−1 conv inputs.

Conventions: `total` is the language model only (no MTP, no vision tower, no buffers); MTP and the vision tower
are on their own lines (`extra`); `active` counts top_k of the routed experts and everything else, embedding included.
"""

from __future__ import annotations

import pytest

from inferledger.ledger.params import count_parameters
from inferledger.model import load_model
from inferledger.operators import kv_bytes_per_sequence
from inferledger.precision import PRECISIONS

BF16 = PRECISIONS["bf16"]
K8, K32 = 8192, 32768


def params(name: str):
    return count_parameters(load_model(name))


def cache(name: str, context: int) -> float:
    return kv_bytes_per_sequence(load_model(name), BF16, context)


# ---- Gated DeltaNet and gated attention (Qwen3-Next, Qwen3.5) ----

def deltanet(H, k_heads, v_heads, k_dim=128, v_dim=128, kernel=4):
    key, value = k_heads * k_dim, v_heads * v_dim
    return (H * (2 * key + 2 * value)  # in_proj_qkvz (Qwen3.5: in_proj_qkv + in_proj_z)
            + H * 2 * v_heads  # in_proj_ba (Qwen3.5: in_proj_b + in_proj_a)
            + (2 * key + value) * kernel  # conv1d over q|k|v, no bias
            + 2 * v_heads  # A_log, dt_bias
            + v_dim  # gated RMSNorm, one v_dim weight shared by the heads
            + value * H)  # out_proj


def gated_attention(H, heads, kv, hd=256):
    return (H * heads * hd * 2  # q_proj: query and output gate
            + 2 * H * kv * hd  # k_proj, v_proj
            + 2 * hd  # q_norm, k_norm (per head)
            + heads * hd * H)  # o_proj


def qwen_moe(H, E, inter, shared):
    return (H * E  # router
            + E * 3 * H * inter  # experts: gate, up, down
            + 3 * H * shared  # shared expert
            + H)  # shared_expert_gate (H → 1)


def qwen_total(H, V, n_linear, n_full, deltanet_, attention_, mlp_):
    return (2 * V * H  # embed_tokens, lm_head (untied)
            + n_linear * (deltanet_ + mlp_ + 2 * H)  # + input_layernorm, post_attention_layernorm
            + n_full * (attention_ + mlp_ + 2 * H)
            + H)  # final norm


def qwen_mtp(H, attention_, mlp_):
    return 2 * H * H + 3 * H + attention_ + mlp_ + 2 * H  # fc, pre_fc norms ×2 + norm, one full layer


def qwen_vision(out):
    """Qwen3.5 vision_config: hidden 1152, depth 27, intermediate 4304, patch 16, temporal 2, merge 2, 2304 pos."""
    w, i, m = 1152, 4304, 1152 * 4
    return (3 * 2 * 16 * 16 * w + w  # patch_embed Conv3d + bias
            + 2304 * w  # pos_embed
            + 27 * (4 * w + (3 * w * w + 3 * w) + (w * w + w) + (w * i + i) + (i * w + w))  # norms, qkv, proj, fc1/2
            + 2 * w + (m * m + m) + (m * out + out))  # merger: LayerNorm, linear_fc1, linear_fc2


def test_qwen3_next():
    """H 2048, V 151936, 48 layers (every 4th full), 16 heads / 2 KV of 256, DeltaNet 16 k / 32 v heads of 128,
    512 experts (top 10) of 512, shared expert 512."""
    dn, att, mlp = deltanet(2048, 16, 32), gated_attention(2048, 16, 2), qwen_moe(2048, 512, 512, 512)
    expected = qwen_total(2048, 151936, 36, 12, dn, att, mlp)
    p = params("Qwen/Qwen3-Next-80B-A3B-Thinking")
    assert p.total == expected == 79_674_391_296
    assert p.extra["mtp"] == qwen_mtp(2048, att, mlp)
    # Hub (safetensors): 81.3B params — the main model plus the one MTP layer the checkpoint ships.
    assert round((p.total + p.extra["mtp"]) / 1e8) == 813
    # Card: "80B total, 3B activated" — 10 of 512 experts; active without the two vocab tables is ~3.25B.
    assert round((p.active - 2 * 151936 * 2048) / 1e9) == 3
    # Cache: 12 full layers × ctx × (K+V) 2 × 2 heads × 256 × 2 B; 36 DeltaNet layers hold
    # (32 heads × 128 × 128 state + 8192 conv channels × 3) × 2 B.
    state = 36 * (32 * 128 * 128 + 8192 * 3) * 2
    assert cache("Qwen/Qwen3-Next-80B-A3B-Thinking", K8) == 12 * K8 * 2 * 2 * 256 * 2 + state == 240_844_800
    assert cache("Qwen/Qwen3-Next-80B-A3B-Thinking", K32) == 12 * K32 * 2 * 2 * 256 * 2 + state


def test_qwen3_5_27b_dense():
    """H 5120, V 248320, 64 layers (48 linear, 16 full), 24 heads / 4 KV of 256, DeltaNet 16 k / 48 v heads,
    dense SwiGLU 17408."""
    dn, att, mlp = deltanet(5120, 16, 48), gated_attention(5120, 24, 4), 3 * 5120 * 17408
    p = params("Qwen/Qwen3.5-27B")
    assert p.total == qwen_total(5120, 248320, 48, 16, dn, att, mlp) == 26_895_998_464
    assert p.active == p.total
    assert p.extra == {"mtp": qwen_mtp(5120, att, mlp), "vision": qwen_vision(5120)}
    # Card: 27B — language model + vision tower (MTP not counted) is 27.36B.
    assert round((p.total + p.extra["vision"]) / 1e9) == 27
    state = 48 * (48 * 128 * 128 + (2 * 2048 + 6144) * 3) * 2
    assert cache("Qwen/Qwen3.5-27B", K8) == 16 * K8 * 2 * 4 * 256 * 2 + state == 615_317_504
    assert cache("Qwen/Qwen3.5-27B", K32) == 16 * K32 * 2 * 4 * 256 * 2 + state


@pytest.mark.parametrize("name, H, layers, heads, v_heads, E, top_k, inter, card_total, card_active", [
    ("Qwen/Qwen3.5-35B-A3B", 2048, 40, 16, 32, 256, 8, 512, 35, 3),
    ("Qwen/Qwen3.5-122B-A10B", 3072, 48, 32, 64, 256, 8, 1024, 122, 10),
    ("Qwen/Qwen3.5-397B-A17B", 4096, 60, 32, 64, 512, 10, 1024, 397, 17),
])
def test_qwen3_5_moe(name, H, layers, heads, v_heads, E, top_k, inter, card_total, card_active):
    """Qwen3.5 MoE: every 4th layer full attention (2 KV heads of 256), DeltaNet 16 k heads, shared expert of the
    routed experts' width, V 248320. Card figures (Qwen3.5 model cards: "35B-A3B", "122B-A10B", "397B-A17B")
    match language model + vision within 0.6B, MTP excluded."""
    dn, att, mlp = deltanet(H, 16, v_heads), gated_attention(H, heads, 2), qwen_moe(H, E, inter, inter)
    n_full = layers // 4
    p = params(name)
    assert p.total == qwen_total(H, 248320, layers - n_full, n_full, dn, att, mlp)
    assert p.extra == {"mtp": qwen_mtp(H, att, mlp), "vision": qwen_vision(H)}
    assert p.active == p.total - layers * (E - top_k) * 3 * H * inter
    assert abs(p.total + p.extra["vision"] - card_total * 1e9) < 0.6e9
    assert abs(p.active - card_active * 1e9) < 0.5e9
    state = (layers - n_full) * (v_heads * 128 * 128 + (2 * 2048 + v_heads * 128) * 3) * 2
    for context in (K8, K32):
        assert cache(name, context) == n_full * context * 2 * 2 * 256 * 2 + state


# ---- Mamba-2 hybrids (Nemotron-H, Nemotron-3) ----

def mamba(H, heads, groups, d_state, head_dim=64, kernel=4):
    inner, conv = heads * head_dim, heads * head_dim + 2 * groups * d_state
    return (H * (inner + conv + heads)  # in_proj: z | x | B | C | dt
            + conv * kernel + conv  # conv1d weight + bias (use_conv_bias)
            + 3 * heads  # A_log, D, dt_bias
            + inner  # gated RMSNorm over d_inner
            + inner * H)  # out_proj


def gqa(H, heads, kv, hd=128):
    return H * heads * hd + 2 * H * kv * hd + heads * hd * H  # q, k, v, o; no bias, no q/k norm


def nemotron_moe(H, E, inter, shared, latent=0):
    width = latent or H
    return (H * E + E  # router weight + e_score_correction_bias
            + (2 * H * latent if latent else 0)  # fc1_latent_proj, fc2_latent_proj
            + E * 2 * width * inter  # experts: up, down (relu², not gated)
            + 2 * H * shared)  # shared expert: up, down


def test_nemotron_h_56b():
    """H 8192, V 131072, 118 layers: 54 M, 54 -, 10 *; Mamba 256 heads × 64, 8 groups, state 256; attention
    64 heads / 8 KV of 128; relu² MLP 32768; one RMSNorm per layer."""
    m, a, mlp = mamba(8192, 256, 8, 256), gqa(8192, 64, 8), 2 * 8192 * 32768
    expected = 2 * 131072 * 8192 + 54 * m + 10 * a + 54 * mlp + 118 * 8192 + 8192  # + layer norms, final norm_f
    p = params("nvidia/Nemotron-H-56B-Base-8K")
    assert p.total == expected == 56_324_350_464
    assert round(p.total / 1e9) == 56  # Nemotron-H paper: 56B
    state = 54 * (256 * 64 * 256 + (16384 + 2 * 8 * 256) * 3) * 2
    assert cache("nvidia/Nemotron-H-56B-Base-8K", K8) == 10 * K8 * 2 * 8 * 128 * 2 + state == 795_164_672
    assert cache("nvidia/Nemotron-H-56B-Base-8K", K32) == 10 * K32 * 2 * 8 * 128 * 2 + state


def test_nemotron_3_nano():
    """H 2688, V 131072, 52 layers: 23 M, 23 E, 6 *; Mamba 64 heads × 64 (d_inner 4096, not expand × H = 5376),
    8 groups, state 128; attention 32 heads / 2 KV; 128 experts (top 6) of 1856, shared 3712."""
    m, a, e = mamba(2688, 64, 8, 128), gqa(2688, 32, 2), nemotron_moe(2688, 128, 1856, 3712)
    expected = 2 * 131072 * 2688 + 23 * m + 6 * a + 23 * e + 52 * 2688 + 2688
    p = params("nvidia/NVIDIA-Nemotron-3-Nano-30B-A3B-BF16")
    assert p.total == expected == 31_577_940_288
    # Card: 31.6B total, 3.2B active (3.6B including embeddings).
    assert round(p.total / 1e8) == 316
    assert p.active == p.total - 23 * (128 - 6) * 2 * 2688 * 1856
    assert round(p.active / 1e8) == 36
    # the config pins the SSM state to float32 (mamba_ssm_cache_dtype): 4 bytes; the conv tail stays bf16
    state = 23 * (64 * 64 * 128 * 4 + (4096 + 2 * 8 * 128) * 3 * 2)
    assert cache("nvidia/NVIDIA-Nemotron-3-Nano-30B-A3B-BF16", K8) == 6 * K8 * 2 * 2 * 128 * 2 + state
    assert cache("nvidia/NVIDIA-Nemotron-3-Nano-30B-A3B-BF16", K32) == 6 * K32 * 2 * 2 * 128 * 2 + state


def test_nemotron_3_super_latent_moe():
    """H 4096, 88 layers: 40 M, 40 E, 8 *; Mamba 128 heads × 64, 8 groups, state 128; 512 experts (top 22) of 2688
    in a 1024 latent; shared 5376; MTP pattern "*E"."""
    m, a = mamba(4096, 128, 8, 128), gqa(4096, 32, 2)
    e = nemotron_moe(4096, 512, 2688, 5376, latent=1024)
    expected = 2 * 131072 * 4096 + 40 * m + 8 * a + 40 * e + 88 * 4096 + 4096
    p = params("nvidia/NVIDIA-Nemotron-3-Super-120B-A12B-FP8")
    assert p.total == expected == 120_668_707_840
    # MTP: enorm, hnorm, final_layernorm, eh_proj (2H → H), an attention layer and an MoE layer with their norms.
    assert p.extra["mtp"] == 3 * 4096 + 2 * 4096 * 4096 + (4096 + a) + (4096 + e)
    assert round(p.total / 1e9) == 121  # card: "120B" total (120.67B)
    # Card: A12B. Active without the input embedding table (a lookup reads one row) is 12.23B.
    assert round((p.active - 131072 * 4096) / 1e9) == 12
    state = 40 * (128 * 64 * 128 * 4 + (8192 + 2 * 8 * 128) * 3 * 2)  # float32 SSM state, as the config pins
    assert cache("nvidia/NVIDIA-Nemotron-3-Super-120B-A12B-FP8", K8) == 8 * K8 * 2 * 2 * 128 * 2 + state
    assert cache("nvidia/NVIDIA-Nemotron-3-Super-120B-A12B-FP8", K32) == 8 * K32 * 2 * 2 * 128 * 2 + state


# ---- Nemotron-NAS (DeciLM) ----

def test_nemotron_super_49b():
    """H 8192, V 128256, 80 layers, 64 heads of 128. block_configs: 49 attention layers (n_heads_in_group 8 → 8 KV
    heads), 31 no_op (no weights, no input norm). ffn_mult → int(2·m·8192/3) rounded up to 256:
    5.25 → 28672 (49 layers), 1.3125 → 7168 (10), 1.0 → 5461 → 5632 (8), 2.625 → 14336 (6), 0.5 → 2730 → 2816 (6),
    3.28125 → 17920 (1); every FFN has a post_attention_layernorm."""
    ffn = 3 * 8192 * (49 * 28672 + 10 * 7168 + 8 * 5632 + 6 * 14336 + 6 * 2816 + 17920)
    attention = 49 * (gqa(8192, 64, 8) + 8192)  # + input_layernorm
    expected = 2 * 128256 * 8192 + attention + ffn + 80 * 8192 + 8192
    p = params("nvidia/Llama-3_3-Nemotron-Super-49B-v1")
    assert p.total == expected == 49_867_145_216
    assert round(p.total / 1e8) == 499  # card: 49.9B
    per_token = 49 * 2 * 8 * 128 * 2  # 49 attention layers, K+V, 8 heads × 128, 2 B
    assert cache("nvidia/Llama-3_3-Nemotron-Super-49B-v1", K8) == K8 * per_token == 1_644_167_168
    assert cache("nvidia/Llama-3_3-Nemotron-Super-49B-v1", K32) == K32 * per_token


# ---- MiMo-V2-Flash ----

def test_mimo_v2_flash():
    """H 4096, V 152576, 48 layers: 9 global (64 heads / 4 KV, K 192, V 128), 39 sliding window 128 (64 heads /
    8 KV, K 192, V 128, a per-head sink); layer 0 dense SwiGLU 16384, 47 MoE of 256 experts (top 8) of 2048 with a
    sigmoid router and correction bias, no shared expert."""
    full = 4096 * 64 * 192 + 4096 * 4 * 192 + 4096 * 4 * 128 + 64 * 128 * 4096  # q, k, v, o
    swa = 4096 * 64 * 192 + 4096 * 8 * 192 + 4096 * 8 * 128 + 64 * 128 * 4096 + 64  # q, k, v, o, sinks
    moe = 4096 * 256 + 256 + 256 * 3 * 4096 * 2048  # router, correction bias, experts
    expected = (2 * 152576 * 4096 + 9 * full + 39 * swa + 47 * moe + 3 * 4096 * 16384
                + 48 * 2 * 4096 + 4096)  # + two norms per layer, final norm
    p = params("XiaomiMiMo/MiMo-V2-Flash")
    assert p.total == expected == 308_778_780_864
    assert round(p.total / 1e9) == 309  # card: 309B total
    assert p.active == p.total - 47 * (256 - 8) * 3 * 4096 * 2048
    assert round(p.active / 1e9) == 15  # card: 15B active
    # Global: ctx × 4 heads × (192 + 128) × 2 B; sliding: min(ctx, 128) × 8 heads × 320 × 2 B.
    for context in (K8, K32):
        assert cache("XiaomiMiMo/MiMo-V2-Flash", context) == (9 * context * 4 * 320 * 2
                                                             + 39 * min(context, 128) * 8 * 320 * 2)


# ---- Gemma 4 ----

def test_gemma4_26b_a4b():
    """H 2816, V 262144 (tied), 30 layers: 25 sliding (16 heads / 8 KV of 256, window 1024), 5 full (16 heads /
    2 KV of 512, K = V: no v_proj); per layer a GeGLU MLP of 2112 beside 128 experts (top 8) of 704."""
    sliding = 2816 * 16 * 256 + 2 * 2816 * 8 * 256 + 16 * 256 * 2816 + 2 * 256  # q, k, v, o, q_norm, k_norm
    full = 2816 * 16 * 512 + 2816 * 2 * 512 + 16 * 512 * 2816 + 2 * 512  # q, k (= v), o, q_norm, k_norm
    mlp = 3 * 2816 * 2112  # gate, up, down
    moe = 2816 * 128 + 2816 + 128 + 128 * 3 * 2816 * 704  # router proj, router scale, per_expert_scale, experts
    norms = 7 * 2816  # input, post_attention, pre/post_feedforward, post_feedforward_1/2, pre_feedforward_2
    expected = 262144 * 2816 + 25 * sliding + 5 * full + 30 * (mlp + moe + norms) + 2816
    p = params("google/gemma-4-26B-A4B")
    assert p.total == expected == 25_233_141_760
    assert round(p.total / 1e8) == 252  # card: 25.2B total
    assert p.active == p.total - 30 * (128 - 8) * 3 * 2816 * 704
    assert round(p.active / 1e8) == 38  # card: 3.8B active
    # Sliding: min(ctx, 1024) × 8 heads × (256 + 256) × 2 B; full: ctx × 2 heads × 512 (K serves as V) × 2 B.
    for context in (K8, K32):
        assert cache("google/gemma-4-26B-A4B", context) == (25 * min(context, 1024) * 8 * 512 * 2
                                                           + 5 * context * 2 * 512 * 2)


def test_recurrent_state_is_constant_in_context():
    """A pure-recurrent view: for Qwen3.5-27B, the cache growth from 8K to 32K comes from full layers only."""
    growth = cache("Qwen/Qwen3.5-27B", K32) - cache("Qwen/Qwen3.5-27B", K8)
    assert growth == 16 * (K32 - K8) * 2 * 4 * 256 * 2
