"""The NumPy decode loop is a real transformer of the architecture the ledger describes.

Three independent checks:
- KV-cached generation (prefill, then one token at a time) gives the same logits as recomputing the whole sequence
  with no cache: the cache, the positions of RoPE and the causal mask all agree.
- A second, deliberately different implementation written here (a loop over heads, RoPE as a complex rotation,
  K and V repeated per query head, softmax by hand) gives the same logits as the model's full forward.
- The arrays the model holds sum to the ledger's parameter count for the scaled spec (spec_from_config).
Float64 throughout the equality checks, so a disagreement is a bug, not rounding.
"""

import numpy as np
import pytest

from inferledger.ledger.params import count_parameters
from inferledger.measure.decode import (
    KVCache,
    Shape,
    Transformer,
    parameters_of,
    random_weights,
    scale_config,
)
from inferledger.model import spec_from_config
from inferledger.model.config import resolve_config

MODELS = ["meta-llama/Llama-3.2-1B", "Qwen/Qwen3-0.6B", "Qwen/Qwen2.5-7B", "meta-llama/Llama-3.1-8B"]


def tiny(name: str) -> dict:
    """The model's architecture at a size a test runs in milliseconds (2 layers, 2 KV heads, vocab 96)."""
    config, _ = resolve_config(name)
    config = scale_config(config, 8 * 2**20)
    group = config["num_attention_heads"] // config["num_key_value_heads"]
    return {**config, "hidden_size": 48, "intermediate_size": 80, "num_hidden_layers": 2, "vocab_size": 96,
            "num_key_value_heads": 2, "num_attention_heads": 2 * group, "head_dim": 16}


def model64(config: dict) -> Transformer:
    shape = Shape.of(config)
    weights = random_weights(shape, seed=3, dtype=np.float64)
    # Norm weights of 1 would hide a norm applied to the wrong axis: make them vary.
    rng = np.random.default_rng(4)
    for key, value in weights.items():
        if value.ndim == 1 and "bias" not in key:
            weights[key] = 1.0 + 0.1 * rng.standard_normal(value.shape)
    weights = {k: v * 20 if v.ndim == 2 else v for k, v in weights.items()}  # std 0.4: logits far from uniform
    return Transformer(shape, weights, max_tokens=64)


@pytest.mark.parametrize("name", MODELS)
def test_cached_decode_equals_full_recompute(name):
    model = model64(tiny(name))
    tokens = [5, 17, 2, 40, 33, 8, 91, 60, 1, 12]
    prompt = tokens[:6]
    full = model.forward(tokens, cache=None, all_logits=True)  # [10, vocab], no cache
    cache = KVCache.empty(model.shape, len(tokens), np.float64)
    cached = [model.forward(prompt, cache, all_logits=True)]
    cached += [model.forward([t], cache) for t in tokens[6:]]
    np.testing.assert_allclose(np.concatenate(cached), full, rtol=1e-10, atol=1e-10)


def reference_logits(shape: Shape, w: dict, tokens) -> np.ndarray:
    """An independent forward pass, written for clarity and nothing else."""
    def norm(x, weight):
        return x / np.sqrt((x**2).mean(-1, keepdims=True) + shape.rms_eps) * weight

    def rotate(vector, position):  # RoPE as complex multiplication of the pairs (i, i + d/2)
        half = shape.head_dim // 2
        freq = shape.rope_theta ** (-2.0 * np.arange(half) / shape.head_dim)
        z = (vector[:half] + 1j * vector[half:]) * np.exp(1j * position * freq)
        return np.concatenate([z.real, z.imag])

    x = np.stack([w["embed_tokens"][t] for t in tokens])
    n, d, group = len(tokens), shape.head_dim, shape.heads // shape.kv_heads
    for i in range(shape.layers):
        p = f"layers.{i}."
        h = norm(x, w[p + "input_layernorm"])
        q, k, v = (h @ w[p + m].T + (w[p + b] if shape.qkv_bias else 0)
                   for m, b in (("q_proj", "q_bias"), ("k_proj", "k_bias"), ("v_proj", "v_bias")))
        heads_out = []
        for head in range(shape.heads):
            kv = head // group  # query head `head` reads KV head head // group
            qh, kh, vh = q[:, head * d:(head + 1) * d], k[:, kv * d:(kv + 1) * d], v[:, kv * d:(kv + 1) * d]
            if shape.qk_norm:
                qh, kh = norm(qh, w[p + "q_norm"]), norm(kh, w[p + "k_norm"])
            qh = np.stack([rotate(qh[t], t) for t in range(n)])
            kh = np.stack([rotate(kh[t], t) for t in range(n)])
            out = np.zeros((n, d))
            for t in range(n):
                scores = np.array([qh[t] @ kh[s] / np.sqrt(d) for s in range(t + 1)])
                weights = np.exp(scores - scores.max())
                out[t] = (weights / weights.sum()) @ vh[:t + 1]
            heads_out.append(out)
        x = x + np.concatenate(heads_out, axis=1) @ w[p + "o_proj"].T
        h = norm(x, w[p + "post_attention_layernorm"])
        gate = h @ w[p + "gate_proj"].T
        x = x + (gate / (1 + np.exp(-gate)) * (h @ w[p + "up_proj"].T)) @ w[p + "down_proj"].T
    head = w["embed_tokens"] if shape.tied else w["lm_head"]
    return norm(x, w["final_norm"]) @ head.T


@pytest.mark.parametrize("name", MODELS)
def test_forward_matches_an_independent_reference(name):
    model = model64(tiny(name))
    tokens = [3, 70, 11, 11, 45, 0, 88]
    ours = model.forward(tokens, all_logits=True)
    np.testing.assert_allclose(ours, reference_logits(model.shape, model.w, tokens), rtol=1e-10, atol=1e-10)


@pytest.mark.parametrize("name", MODELS)
def test_array_parameters_equal_the_ledger_count(name):
    config, source = resolve_config(name)
    scaled = scale_config(config, 8 * 2**20, source=source)
    shape = Shape.of(scaled)
    held = sum(a.size for a in random_weights(shape).values())
    assert held == parameters_of(shape) == count_parameters(spec_from_config(scaled)).total


@pytest.mark.parametrize("name", ["meta-llama/Llama-3.2-1B", "Qwen/Qwen3-0.6B", "meta-llama/Llama-3.1-8B"])
def test_scaling_keeps_the_architecture_and_fits_the_budget(name):
    config, _ = resolve_config(name)
    budget = 128 * 2**20
    scaled = scale_config(config, budget)
    base, small = Shape.of(config), Shape.of(scaled)
    assert small.head_dim == base.head_dim
    assert small.heads // small.kv_heads == base.heads // base.kv_heads  # the GQA ratio
    assert small.intermediate * base.hidden == base.intermediate * small.hidden  # the FFN ratio
    assert (small.tied, small.qk_norm, small.qkv_bias) == (base.tied, base.qk_norm, base.qkv_bias)
    assert budget / 2 < parameters_of(small) * 4 <= budget
    assert small.layers >= 4


def test_float32_stays_float32():
    # A NumPy float64 scalar (np.sqrt of an int) once promoted the whole step to float64: 5x slower, silently.
    shape = Shape.of(tiny("meta-llama/Llama-3.2-1B"))
    model = Transformer(shape, random_weights(shape), max_tokens=16)
    cache = KVCache.empty(shape, 16, np.float32)
    assert model.forward([1, 2, 3], cache).dtype == np.float32
    assert model.forward([4], cache).dtype == np.float32
