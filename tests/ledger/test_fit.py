"""The memory account (`fit`): what is left for KV after weights and reserves, and how many requests fit.

The seed's next-chapter claim — one 7B model fits several requests on a 24 GB card and another only one — is GQA vs
MHA: at 8K context Llama-2-7B (MHA, 512 KiB/token) needs 4 GiB per request; Qwen2.5-7B (GQA, 4 KV heads x 128 x 28
layers x 2 x 2 bytes = 56 KiB/token) needs 448 MiB.
"""

import pytest

from inferledger.hardware import find_accelerator
from inferledger.ledger.memory import longest_context, memory_account
from inferledger.model import load_model
from inferledger.precision import get_precision

BF16 = get_precision("bf16")
GIB = 2**30


def budget(account):
    return account.usable_bytes - account.weight_bytes - account.activation_workspace_bytes \
        - account.runtime_overhead_bytes


def test_budget_arithmetic():
    card = find_accelerator("rtx-4090")
    account = memory_account(load_model("meta-llama/Llama-2-7b-hf"), card, get_precision("fp16"), BF16, 8192)
    assert account.usable_bytes == card.memory_bytes * 0.9
    assert account.weight_bytes == 6_738_415_616 * 2
    assert account.kv_budget_bytes == pytest.approx(budget(account))
    assert account.kv_bytes_per_request == 8192 * 2 * 32 * 32 * 128 * 2
    assert account.max_concurrency == int(budget(account) // account.kv_bytes_per_request)


def test_two_7b_models_on_a_24gb_card():
    card = find_accelerator("rtx-4090")
    mha = memory_account(load_model("meta-llama/Llama-2-7b-hf"), card, get_precision("fp16"), BF16, 8192)
    gqa = memory_account(load_model("Qwen/Qwen2.5-7B"), card, BF16, BF16, 8192)
    assert gqa.kv_bytes_per_request == 8192 * 2 * 28 * 4 * 128 * 2
    # Llama-2-7B: ~8.3 GB of budget / 4.29 GB per request -> 1; Qwen2.5-7B: ~6.4 GB / 0.47 GB -> 13
    assert mha.max_concurrency == 1
    assert gqa.max_concurrency >= 6 * mha.max_concurrency


def test_what_does_not_fit_says_by_how_much():
    card = find_accelerator("rtx-4090")
    account = memory_account(load_model("meta-llama/Llama-3.1-70B"), card, BF16, BF16, 8192)
    assert not account.fits
    assert account.kv_budget_bytes < 0
    assert account.shortfall_bytes == pytest.approx(account.kv_bytes_per_request - account.kv_budget_bytes)


def test_longest_context_for_a_concurrency():
    spec, card = load_model("meta-llama/Llama-3.1-8B"), find_accelerator("h100-sxm")
    account = memory_account(spec, card, BF16, BF16, 8192)
    tokens = longest_context(spec, account, BF16, 16)
    # 16 requests share the budget; each token costs 131,072 bytes
    assert tokens == int(account.kv_budget_bytes / 16 // 131072)
