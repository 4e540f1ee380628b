"""The memory account (`fit`): what is left for KV after weights and reserves, and how many requests fit.

Every expected figure is written out from the config's shapes and the card's datasheet memory, not read back from
the account. The seed's next-chapter claim — one 7B model fits several requests on a 24 GB card and another only
one — is GQA vs MHA: at 8K context Llama-2-7B (MHA, 512 KiB/token) needs 4 GiB per request; Qwen2.5-7B (GQA,
4 KV heads x 128 x 28 layers x 2 x 2 bytes = 56 KiB/token) needs 448 MiB.
"""

import pytest

from inferledger.hardware import find_accelerator
from inferledger.ledger.memory import activation_workspace_bytes, longest_context, memory_account
from inferledger.model import load_model
from inferledger.model.spec import ModelSpec
from inferledger.operators import Formats
from inferledger.precision import get_precision

GIB = 2**30
RTX_4090_BYTES = 24 * GIB  # datasheet: 24 GB GDDR6X, a binary 24 GiB


def formats(weights: str, kv: str = "bf16") -> Formats:
    return Formats.of(get_precision(weights), get_precision(kv))


def test_llama2_7b_on_a_24gb_card_line_by_line():
    """Llama-2-7B fp16 (hidden 4096, FFN 11008, 32 layers of 32 heads of 128, vocab 32000) at 8K context."""
    account = memory_account(load_model("meta-llama/Llama-2-7b-hf"), find_accelerator("rtx-4090"),
                             formats("fp16"), 8192)
    usable = RTX_4090_BYTES * 0.9
    weights = 6_738_415_616 * 2  # published parameter count x 2 bytes
    # Activation peak of an 8192-token step (128 sequences of 64 tokens): the widest operator (gate/up projection,
    # 4096 in + 11008 out) + the residual stream (4096) in fp16, plus fp32 logits of the 128 sampled positions.
    workspace = 8192 * (4096 + 11008) * 2 + 8192 * 4096 * 2 + 128 * 32000 * 4
    assert workspace == 330_956_800
    reserve = 1 * GIB
    per_request = 8192 * (2 * 32 * 32 * 128 * 2)  # K and V, 32 layers x 32 heads x 128, 2 bytes: 4 GiB
    budget = usable - weights - workspace - reserve  # 8.31 GB
    assert account.usable_bytes == usable
    assert account.weight_bytes == weights
    assert account.activation_workspace_bytes == workspace
    assert account.runtime_overhead_bytes == reserve
    assert account.kv_budget_bytes == pytest.approx(budget)
    assert account.kv_bytes_per_request == per_request == 4 * GIB
    assert account.max_concurrency == 1  # 8.31 GB / 4.29 GB
    assert account.kv_tokens_capacity == 15_852  # floor(8,311,293,542 / 524,288)


def test_two_7b_models_on_a_24gb_card():
    """Qwen2.5-7B bf16 (hidden 3584, FFN 18944, 28 heads, vocab 152064, 7,615,616,512 parameters)."""
    card = find_accelerator("rtx-4090")
    mha = memory_account(load_model("meta-llama/Llama-2-7b-hf"), card, formats("fp16"), 8192)
    gqa = memory_account(load_model("Qwen/Qwen2.5-7B"), card, formats("bf16"), 8192)
    workspace = 8192 * (3584 + 18944) * 2 + 8192 * 3584 * 2 + 128 * 152064 * 4
    budget = RTX_4090_BYTES * 0.9 - 7_615_616_512 * 2 - workspace - GIB  # 6.38 GB
    per_request = 8192 * 2 * 28 * 4 * 128 * 2  # 448 MiB
    assert gqa.activation_workspace_bytes == workspace
    assert gqa.kv_bytes_per_request == per_request
    assert gqa.max_concurrency == int(budget // per_request) == 13
    assert mha.max_concurrency == 1


def test_weights_that_do_not_fit_say_by_how_much():
    """Llama-3.1-70B in bf16 is 141 GB: on a 24 GiB card the budget is negative and nothing fits."""
    account = memory_account(load_model("meta-llama/Llama-3.1-70B"), find_accelerator("rtx-4090"),
                             formats("bf16"), 8192)
    assert account.weight_bytes == 70_553_706_496 * 2
    assert not account.weights_fit and not account.fits and account.max_concurrency == 0
    assert account.kv_budget_bytes < -100e9
    assert account.shortfall_bytes == pytest.approx(8192 * 327_680 - account.kv_budget_bytes)
    assert "does not fit" in account.warnings[0]


def test_several_cards_add_memory_and_reserves():
    """Two H100s (80 GiB each): usable 2 x 80 GiB x 0.9; one 1 GiB reserve per card, reported as subtracted."""
    spec = load_model("meta-llama/Llama-3.1-70B")
    account = memory_account(spec, find_accelerator("h100-sxm"), formats("bf16"), 8192, num_gpus=2)
    assert account.memory_bytes == 2 * 80 * GIB
    assert account.runtime_overhead_bytes == 2 * GIB
    assert account.kv_budget_bytes == pytest.approx(
        2 * 80 * GIB * 0.9 - 70_553_706_496 * 2 - account.activation_workspace_bytes - 2 * GIB)


def test_longest_context_for_a_concurrency():
    """16 requests share the budget of Llama-3.1-8B on an H100; each token costs 32 x 2 x 8 x 128 x 2 bytes."""
    spec = load_model("meta-llama/Llama-3.1-8B")
    account = memory_account(spec, find_accelerator("h100-sxm"), formats("bf16"), 8192)
    workspace = 8192 * (4096 + 14336) * 2 + 8192 * 4096 * 2 + 128 * 128_256 * 4
    budget = 80 * GIB * 0.9 - 8_030_261_248 * 2 - workspace - GIB
    assert longest_context(spec, account, formats("bf16"), 16) == int(budget / 16 // 131_072)


def test_the_workspace_of_a_moe_step_holds_every_routed_copy():
    """A fused MoE keeps each token's top-k expert activations at once: Qwen3-30B-A3B (hidden 2048, 128 experts
    of 768, top 8) routes 8192 x 8 token-expert pairs, each holding 2 x 2048 + 3 x 768 values."""
    spec = load_model("Qwen/Qwen3-30B-A3B")
    workspace = activation_workspace_bytes(spec, formats("bf16"), 8192)
    routed = 8192 * 8 * (2 * 2048 + 3 * 768) * 2
    assert workspace == routed + 8192 * 2048 * 2 + 128 * 151_936 * 4


def test_a_bare_parameter_count_fits_weights_only():
    """`fit --params 7e9`: the weights are known (14 GB in bf16), the cache and the workspace are not."""
    account = memory_account(ModelSpec.bare(7e9), find_accelerator("rtx-4090"), formats("bf16"), 8192, num_gpus=2)
    assert account.weight_bytes == 14e9
    assert account.activation_workspace_bytes == 0
    assert account.runtime_overhead_bytes == 2 * GIB
    assert account.kv_budget_bytes == pytest.approx(2 * RTX_4090_BYTES * 0.9 - 14e9 - 2 * GIB)
    assert account.max_concurrency is None and account.kv_bytes_per_token is None
    assert account.fits
    assert any("unknown" in warning for warning in account.warnings)
