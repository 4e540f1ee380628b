"""Invariants of the request ledger, checked by hypothesis over models, lengths, batches and precisions:
more context never costs less; batch raises decode throughput while the step stays memory bound; lower
precision never reads more bytes. These follow from the roofline (every row's time is non-decreasing in its
FLOPs and bytes), so a counter-example is a bug in the rows."""

from functools import cache

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from inferledger.hardware import find_accelerator
from inferledger.ledger.request import request_account
from inferledger.model import load_model

MODELS = ["meta-llama/Llama-3.1-8B", "mistralai/Mixtral-8x7B-v0.1", "deepseek-ai/DeepSeek-V3",
          "openai/gpt-oss-20b", "Qwen/Qwen3-30B-A3B", "openai-community/gpt2"]
pytestmark = pytest.mark.filterwarnings("ignore:context .* exceeds")

GPUS = ["h100-sxm", "a100-sxm-80gb", "l40s"]


@cache
def spec(name):
    return load_model(name)


@settings(max_examples=40, deadline=None)
@given(st.sampled_from(MODELS), st.sampled_from(GPUS), st.integers(1, 20000), st.integers(1, 5000),
       st.integers(1, 2000), st.integers(1, 64))
def test_more_context_never_costs_less(model, gpu, isl, more, osl, batch):
    card = find_accelerator(gpu)
    short = request_account(spec(model), card, isl=isl, osl=osl, batch=batch)
    long = request_account(spec(model), card, isl=isl + more, osl=osl, batch=batch)
    assert long.prefill.seconds >= short.prefill.seconds
    assert long.decode.seconds_per_token >= short.decode.seconds_per_token * (1 - 1e-12)
    assert long.memory.kv_bytes_per_request >= short.memory.kv_bytes_per_request


@settings(max_examples=40, deadline=None)
@given(st.sampled_from(MODELS), st.sampled_from(GPUS), st.integers(1, 8192), st.integers(1, 255))
def test_batch_raises_decode_throughput_while_memory_bound(model, gpu, context, batch):
    card = find_accelerator(gpu)
    one = request_account(spec(model), card, isl=context, osl=1, batch=batch)
    two = request_account(spec(model), card, isl=context, osl=1, batch=batch + 1)
    if two.decode.bound == "memory":
        assert two.decode.tokens_per_second >= one.decode.tokens_per_second


@settings(max_examples=30, deadline=None)
@given(st.sampled_from(MODELS), st.integers(1, 16384), st.integers(1, 32))
def test_lower_precision_never_reads_more_bytes(model, context, batch):
    card = find_accelerator("h100-sxm")
    reads = [request_account(spec(model), card, isl=context, osl=1, batch=batch, precision=p).decode.bytes_per_step
             for p in ("fp32", "bf16", "fp8", "int4")]
    assert reads == sorted(reads, reverse=True)
