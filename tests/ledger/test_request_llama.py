"""Llama-3.1-8B, BF16 weights and cache, on an H100 SXM (989.4 TFLOP/s dense bf16, 3.35 TB/s), ISL 8192 /
OSL 512, batch 1 — the account the README explains, derived here by hand from the architecture:

  linear weights per layer: q 4096x4096 + k,v 2 x 4096x1024 + o 4096x4096 + FFN 3 x 4096x14336 = 218,103,808
  prefill linear FLOP = 2 x 8192 x 32 x 218,103,808; lm_head on the last position only: 2 x 4096 x 128,256
  prefill attention FLOP = 32 layers x 32 heads x (8192 x 8193 / 2 pairs) x (2x128 + 2x128)
  decode weight bytes per step = (32 x 218,103,808 + 4096 x 128,256 + norms 65 x 4096) x 2 + one embedding row
  decode KV read at context c = (c + 1) x 131,072 bytes
"""

import pytest

from inferledger.hardware import find_accelerator
from inferledger.ledger.request import request_account
from inferledger.model import load_model

PER_LAYER = 4096 * 4096 + 2 * 4096 * 1024 + 4096 * 4096 + 3 * 4096 * 14336
NORMS = (2 * 32 + 1) * 4096


@pytest.fixture(scope="module")
def account():
    return request_account(load_model("meta-llama/Llama-3.1-8B"), find_accelerator("h100-sxm"), isl=8192, osl=512)


def test_per_layer_weights():
    assert PER_LAYER == 218_103_808


def test_prefill_flops_and_time(account):
    linear = 2 * 8192 * 32 * PER_LAYER + 2 * 4096 * 128256
    attention = 32 * 32 * (8192 * 8193 // 2) * (2 * 128 + 2 * 128)
    norms = 4 * 8192 * NORMS
    assert account.prefill.flops == pytest.approx(linear + attention + norms)
    # compute bound: at least FLOPs / peak; the memory-bound norm and embedding rows add a little
    floor = (linear + attention) / 989.4e12
    assert floor <= account.prefill.seconds <= floor * 1.05
    assert account.prefill.bound == "compute"


def test_decode_bytes_and_time(account):
    weight_bytes = (32 * PER_LAYER + 4096 * 128256 + NORMS) * 2 + 4096 * 2
    middle_context = 8192 + (512 - 1) / 2
    kv_read = (middle_context + 1) * 131072
    assert account.decode.weight_bytes_per_step == pytest.approx(weight_bytes)
    assert account.decode.kv_read_bytes_per_step == pytest.approx(kv_read)
    floor = (weight_bytes + kv_read) / 3.35e12
    assert floor <= account.decode.seconds_per_token <= floor * 1.02
    assert account.decode.bound == "memory"
    assert account.decode.last_token_seconds > account.decode.first_token_seconds  # grows with context


def test_total_is_prefill_plus_decode(account):
    assert account.total_seconds == pytest.approx(account.prefill.seconds + account.decode.seconds)
    assert account.memory.kv_bytes_per_token == 131072
    assert account.memory.kv_bytes_per_request == (8192 + 512) * 131072


def test_context_8k_to_32k_grows_compute_and_memory_together():
    """At 32K, prefill attention FLOPs grow ~16x (quadratic: (32768 x 32769) / (8192 x 8193)) while the linear
    FLOPs grow 4x; the KV per request grows 4x; decode per token reads 4x the cache."""
    spec, h100 = load_model("meta-llama/Llama-3.1-8B"), find_accelerator("h100-sxm")
    short = request_account(spec, h100, isl=8192, osl=512)
    long = request_account(spec, h100, isl=32768, osl=512)

    assert long.prefill.attention_flops / short.prefill.attention_flops == pytest.approx(
        (32768 * 32769) / (8192 * 8193))
    linear = long.prefill.flops - long.prefill.attention_flops, short.prefill.flops - short.prefill.attention_flops
    assert linear[0] / linear[1] == pytest.approx(4, rel=0.01)
    assert long.memory.kv_bytes_per_request == (32768 + 512) * 131072
    assert long.decode.kv_read_bytes_per_step / short.decode.kv_read_bytes_per_step == pytest.approx(
        (32768 + 255.5 + 1) / (8192 + 255.5 + 1))
    assert long.memory.max_concurrency < short.memory.max_concurrency
