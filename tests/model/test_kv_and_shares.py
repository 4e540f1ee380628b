"""The issue's KV-per-token figures and the seed's "FFN holds about two-thirds" claim, on bundled real configs.

KV per token (16-bit cache) = 2 (K and V) x layers x KV heads x head_dim x 2 bytes for full attention; MLA caches
its latent plus the decoupled RoPE key once per layer, shared by all heads.
"""

import pytest

from inferledger.ledger.params import count_parameters
from inferledger.model import load_model
from inferledger.operators import kv_bytes_per_sequence, kv_bytes_per_token
from inferledger.precision import get_precision

BF16 = get_precision("bf16")


def test_llama2_7b_mha_512_kib():
    # 2 x 32 layers x 32 heads x 128 x 2 bytes = 524,288 = 512 KiB
    assert kv_bytes_per_token(load_model("meta-llama/Llama-2-7b-hf"), BF16) == 2 * 32 * 32 * 128 * 2 == 512 * 1024


def test_llama31_8b_gqa_128_kib():
    # 2 x 32 layers x 8 KV heads x 128 x 2 bytes = 131,072 = 128 KiB: GQA's 4x saving over MHA
    assert kv_bytes_per_token(load_model("meta-llama/Llama-3.1-8B"), BF16) == 2 * 32 * 8 * 128 * 2 == 128 * 1024


def test_deepseek_v3_mla_latent():
    # 61 layers x (kv_lora_rank 512 + qk_rope_head_dim 64) x 2 bytes = 70,272 bytes
    assert kv_bytes_per_token(load_model("deepseek-ai/DeepSeek-V3"), BF16) == 61 * (512 + 64) * 2


def test_fp8_cache_halves_kv():
    spec = load_model("meta-llama/Llama-3.1-8B")
    assert kv_bytes_per_token(spec, get_precision("fp8")) == 2 * 32 * 8 * 128 * 1


def test_gpt_oss_sliding_layers_cap_at_window():
    """gpt-oss-20b: 24 layers alternate sliding (window 128) and full; 8 KV heads of 64.
    Per layer per token: 2 x 8 x 64 x 2 = 2,048 bytes. At 8,192 tokens: 12 full layers hold 8,192 tokens,
    12 sliding layers hold 128."""
    spec = load_model("openai/gpt-oss-20b")
    per_layer = 2 * 8 * 64 * 2
    assert kv_bytes_per_sequence(spec, BF16, 8192) == 12 * per_layer * 8192 + 12 * per_layer * 128


@pytest.mark.parametrize("name", ["meta-llama/Llama-2-7b-hf", "meta-llama/Llama-3.1-8B"])
def test_dense_ffn_holds_about_two_thirds(name):
    """Llama-2-7B: FFN = 32 x 3 x 4096 x 11008 = 4,328,521,728 of 6,738,415,616 = 64.2%.
    Llama-3.1-8B: FFN = 32 x 3 x 4096 x 14336 = 5,637,144,576 of 8,030,261,248 = 70.2%."""
    expected = {"meta-llama/Llama-2-7b-hf": (32 * 3 * 4096 * 11008, 6_738_415_616),
                "meta-llama/Llama-3.1-8B": (32 * 3 * 4096 * 14336, 8_030_261_248)}[name]
    p = count_parameters(load_model(name))
    assert p.by_component["ffn.dense"] == expected[0]
    assert p.total == expected[1]
    assert 0.6 < p.share("ffn.dense") < 0.72


def test_moe_counter_example():
    """DeepSeek-V3: routed experts hold almost everything (58 MoE layers x 256 x 3 x 7168 x 2048 =
    653,908,770,816 of 671,026,419,200 = 97.4%) but one token uses 8 of 256 of them."""
    p = count_parameters(load_model("deepseek-ai/DeepSeek-V3"))
    assert p.by_component["ffn.routed_experts"] == 58 * 256 * 3 * 7168 * 2048
    assert p.active_by_component["ffn.routed_experts"] == 58 * 8 * 3 * 7168 * 2048
    assert p.share("attention.mla") < 0.02
