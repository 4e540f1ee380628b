"""A real Llama-shaped transformer in NumPy, to time a prefill and decode steps against the ledger.

It is the architecture the ledger describes for llama / qwen2 / qwen3 dense configs: RMSNorm before attention and
FFN, rotary position embeddings (the half-split convention of Hugging Face's Llama), grouped-query attention with a
KV cache, a SwiGLU FFN, a final RMSNorm and a tied or untied head. Weights are random (seeded): speed does not
depend on their values, and the numbers the ledger predicts depend only on shapes.

The model is a catalog config scaled down to a byte budget (`scale_config`); the scaled config goes through the
same `spec_from_config` as any real one, so the ledger's rows describe exactly the arrays held here.
Linear weights are kept as Hugging Face stores them, [out_features, in_features], and applied as x @ W.T.
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass

import numpy as np

from inferledger.errors import UnsupportedModelType

# model_type -> (q/k/v bias, per-head q/k RMSNorm). Only dense, full-attention, bias-free-output families.
SUPPORTED = {"llama": (False, False), "qwen2": (True, False), "qwen3": (False, True)}


# ---------------------------------------------------------------- the shape, and scaling a config down

@dataclass(frozen=True)
class Shape:
    """The few numbers that fix every array of the model."""

    hidden: int
    heads: int
    kv_heads: int
    head_dim: int
    intermediate: int
    layers: int
    vocab: int
    tied: bool
    qkv_bias: bool
    qk_norm: bool
    rms_eps: float
    rope_theta: float

    @staticmethod
    def of(config: dict) -> Shape:
        qkv_bias, qk_norm = SUPPORTED[config["model_type"]]
        heads = config["num_attention_heads"]
        return Shape(
            hidden=config["hidden_size"], heads=heads, kv_heads=config.get("num_key_value_heads") or heads,
            head_dim=config.get("head_dim") or config["hidden_size"] // heads,
            intermediate=config["intermediate_size"], layers=config["num_hidden_layers"],
            vocab=config["vocab_size"], tied=bool(config.get("tie_word_embeddings", False)),
            qkv_bias=qkv_bias, qk_norm=qk_norm, rms_eps=float(config.get("rms_norm_eps", 1e-6)),
            rope_theta=float(config.get("rope_theta", 10000.0)))


def _check_supported(config: dict, source: str) -> None:
    model_type = config.get("model_type")
    if model_type not in SUPPORTED:
        raise UnsupportedModelType(
            f"{source}: bench runs dense {', '.join(sorted(SUPPORTED))} models; {model_type!r} is not one "
            "(try meta-llama/Llama-3.2-1B or Qwen/Qwen3-0.6B)")
    moe_keys = ("num_experts", "num_local_experts", "n_routed_experts")
    if any(config.get(k) for k in moe_keys) or config.get("use_sliding_window") or config.get("layer_types"):
        raise UnsupportedModelType(f"{source}: bench runs dense full-attention models; this one has experts or "
                                   "sliding layers (try meta-llama/Llama-3.2-1B or Qwen/Qwen3-0.6B)")
    if config.get("hidden_act", "silu") != "silu" or config.get("attention_bias") or config.get("mlp_bias"):
        raise UnsupportedModelType(f"{source}: bench runs SwiGLU models without output biases; this one differs")


def parameters_of(shape: Shape) -> int:
    """Parameters of the arrays `random_weights` makes: the ledger's count must agree (tests check it)."""
    h, q_out, kv_out = shape.hidden, shape.heads * shape.head_dim, shape.kv_heads * shape.head_dim
    attention = h * (q_out + 2 * kv_out) + q_out * h
    attention += (q_out + 2 * kv_out) if shape.qkv_bias else 0
    attention += 2 * shape.head_dim if shape.qk_norm else 0
    layer = attention + 3 * h * shape.intermediate + 2 * h  # + input and post-attention norms
    head = 0 if shape.tied else shape.vocab * h
    return shape.vocab * h + shape.layers * layer + h + head


def scale_config(config: dict, budget_bytes: float, bytes_per_parameter: int = 4, min_layers: int = 4,
                 source: str = "config.json") -> dict:
    """The config narrowed and shortened so its weights take about `budget_bytes`.

    Heads, KV heads, hidden and intermediate are divided by the same power of two, so head_dim, the GQA ratio and
    the FFN ratio stay the model's own; the widest such model with at least `min_layers` layers (or all of them)
    wins, because wide matrices are what make a real decode step memory bound. The vocabulary is cut so the
    embedding (and an untied head) take at most a quarter of the budget: a 128k-row table alone would fill it.
    RoPE scaling (Llama 3's rope_scaling) is dropped: it changes the frequencies, not the cost.
    """
    _check_supported(config, source)
    base = Shape.of(config)
    budget = budget_bytes / bytes_per_parameter  # parameters
    want_layers = min(min_layers, base.layers)
    divisor = 1
    while True:
        heads, kv_heads = base.heads // divisor, base.kv_heads // divisor
        hidden, intermediate = base.hidden // divisor, base.intermediate // divisor
        tables = 1 if base.tied else 2
        vocab = min(base.vocab, max(256, int(budget / 4 / (tables * hidden)) // 256 * 256))
        trial = Shape(hidden, heads, kv_heads, base.head_dim, intermediate, 1, vocab, base.tied,
                      base.qkv_bias, base.qk_norm, base.rms_eps, base.rope_theta)
        per_layer = parameters_of(trial) - parameters_of(Shape(**{**trial.__dict__, "layers": 0}))
        fixed = parameters_of(trial) - per_layer
        layers = min(base.layers, int((budget - fixed) // per_layer))
        if layers >= want_layers or kv_heads == 1 or hidden % 2:
            break
        divisor *= 2
    scaled = {k: v for k, v in config.items() if k not in ("rope_scaling", "quantization_config")}
    scaled.update(hidden_size=hidden, num_attention_heads=heads, num_key_value_heads=kv_heads,
                  head_dim=base.head_dim, intermediate_size=intermediate, num_hidden_layers=max(1, layers),
                  vocab_size=vocab, torch_dtype="float32")
    return scaled


# ---------------------------------------------------------------- weights

def random_weights(shape: Shape, seed: int = 0, dtype=np.float32) -> dict:
    """Seeded normal weights (std 0.02, as GPT-2 initialises), norms at 1. Names follow Hugging Face's."""
    rng = np.random.default_rng(seed)

    def normal(*dims):
        return (rng.standard_normal(dims, dtype=np.float32) * 0.02).astype(dtype, copy=False)

    h, q_out, kv_out = shape.hidden, shape.heads * shape.head_dim, shape.kv_heads * shape.head_dim
    w = {"embed_tokens": normal(shape.vocab, h), "final_norm": np.ones(h, dtype)}
    if not shape.tied:
        w["lm_head"] = normal(shape.vocab, h)
    for i in range(shape.layers):
        p = f"layers.{i}."
        w[p + "input_layernorm"] = np.ones(h, dtype)
        w[p + "q_proj"], w[p + "k_proj"], w[p + "v_proj"] = normal(q_out, h), normal(kv_out, h), normal(kv_out, h)
        if shape.qkv_bias:
            w[p + "q_bias"], w[p + "k_bias"], w[p + "v_bias"] = normal(q_out), normal(kv_out), normal(kv_out)
        if shape.qk_norm:
            w[p + "q_norm"], w[p + "k_norm"] = np.ones(shape.head_dim, dtype), np.ones(shape.head_dim, dtype)
        w[p + "o_proj"] = normal(h, q_out)
        w[p + "post_attention_layernorm"] = np.ones(h, dtype)
        w[p + "gate_proj"], w[p + "up_proj"] = normal(shape.intermediate, h), normal(shape.intermediate, h)
        w[p + "down_proj"] = normal(h, shape.intermediate)
    return w


# ---------------------------------------------------------------- the forward pass

def rms_norm(x, weight, eps):
    # x / sqrt(mean(x²) + eps) · weight  (RMSNorm, Zhang & Sennrich 2019): no mean subtraction, no bias.
    return x * (1.0 / np.sqrt(np.mean(x * x, axis=-1, keepdims=True) + eps)) * weight


def rope(x, cos, sin):
    # x: [heads, T, head_dim]. Rotate the pair (x[i], x[i + d/2]) by the position's angle (RoFormer, Su et al.
    # 2021, in the half-split layout Hugging Face's Llama uses, not the interleaved one of the paper).
    half = x.shape[-1] // 2
    x1, x2 = x[..., :half], x[..., half:]
    return np.concatenate((x1 * cos - x2 * sin, x2 * cos + x1 * sin), axis=-1)


def silu(x):
    return x / (1.0 + np.exp(-x))


@dataclass
class KVCache:
    """Keys and values of every layer, [kv_heads, max_tokens, head_dim] each, filled up to `length`."""

    keys: list
    values: list
    length: int = 0

    @staticmethod
    def empty(shape: Shape, max_tokens: int, dtype) -> KVCache:
        dims = (shape.kv_heads, max_tokens, shape.head_dim)
        return KVCache([np.zeros(dims, dtype) for _ in range(shape.layers)],
                       [np.zeros(dims, dtype) for _ in range(shape.layers)])


class Transformer:
    def __init__(self, shape: Shape, weights: dict, max_tokens: int = 4096):
        self.shape, self.w = shape, weights
        self.dtype = weights["embed_tokens"].dtype
        # RoPE angles for every position once: θ_i = base^(−2i/d), angle = position · θ_i.
        inv_freq = shape.rope_theta ** (-np.arange(0, shape.head_dim, 2, dtype=np.float64) / shape.head_dim)
        angles = np.arange(max_tokens, dtype=np.float64)[:, None] * inv_freq[None, :]  # [max_tokens, d/2]
        self.cos, self.sin = np.cos(angles).astype(self.dtype), np.sin(angles).astype(self.dtype)

    def attention(self, i: int, x, cache: KVCache | None, start: int):
        s, w, p = self.shape, self.w, f"layers.{i}."
        tokens, group = x.shape[0], s.heads // s.kv_heads
        q, k, v = x @ w[p + "q_proj"].T, x @ w[p + "k_proj"].T, x @ w[p + "v_proj"].T
        if s.qkv_bias:
            q, k, v = q + w[p + "q_bias"], k + w[p + "k_bias"], v + w[p + "v_bias"]
        q = q.reshape(tokens, s.heads, s.head_dim).transpose(1, 0, 2)  # [heads, T, d]
        k = k.reshape(tokens, s.kv_heads, s.head_dim).transpose(1, 0, 2)  # [kv_heads, T, d]
        v = v.reshape(tokens, s.kv_heads, s.head_dim).transpose(1, 0, 2)
        if s.qk_norm:  # Qwen3: RMSNorm each head's q and k before the rotation
            q, k = rms_norm(q, w[p + "q_norm"], s.rms_eps), rms_norm(k, w[p + "k_norm"], s.rms_eps)
        cos, sin = self.cos[start:start + tokens], self.sin[start:start + tokens]
        q, k = rope(q, cos, sin), rope(k, cos, sin)
        if cache is not None:  # write this step's keys and values, attend over everything cached so far
            cache.keys[i][:, start:start + tokens], cache.values[i][:, start:start + tokens] = k, v
            k, v = cache.keys[i][:, :start + tokens], cache.values[i][:, :start + tokens]
        # GQA: each KV head serves `group` query heads; broadcasting over the group axis avoids copying K and V.
        q = q.reshape(s.kv_heads, group, tokens, s.head_dim)
        # A Python float, not np.sqrt(d): a NumPy float64 scalar would promote the whole step to float64.
        scores = (q @ k[:, None].transpose(0, 1, 3, 2)) * (1.0 / math.sqrt(s.head_dim))  # [kv, group, T, S]
        if tokens > 1:  # causal: new token t (at position start + t) sees keys 0 .. start + t
            keys = np.arange(start + tokens)
            scores = np.where(keys[None, :] <= start + np.arange(tokens)[:, None], scores, -np.inf)
        scores = np.exp(scores - scores.max(axis=-1, keepdims=True))
        out = (scores / scores.sum(axis=-1, keepdims=True)) @ v[:, None]  # [kv, group, T, d]
        out = out.reshape(s.heads, tokens, s.head_dim).transpose(1, 0, 2).reshape(tokens, s.heads * s.head_dim)
        return out @ w[p + "o_proj"].T

    def mlp(self, i: int, x):
        p = f"layers.{i}."
        return (silu(x @ self.w[p + "gate_proj"].T) * (x @ self.w[p + "up_proj"].T)) @ self.w[p + "down_proj"].T

    def forward(self, tokens, cache: KVCache | None = None, all_logits: bool = False):
        """Logits [T, vocab] for every new token (all_logits) or [1, vocab] for the last one, which is all
        generation needs (the ledger counts the prefill head for the last position only, too)."""
        s, w = self.shape, self.w
        start = cache.length if cache is not None else 0
        x = w["embed_tokens"][np.asarray(tokens)]  # [T, hidden]: a lookup reads T rows of the table
        for i in range(s.layers):
            p = f"layers.{i}."
            x = x + self.attention(i, rms_norm(x, w[p + "input_layernorm"], s.rms_eps), cache, start)
            x = x + self.mlp(i, rms_norm(x, w[p + "post_attention_layernorm"], s.rms_eps))
        if cache is not None:
            cache.length = start + len(tokens)
        x = rms_norm(x if all_logits else x[-1:], w["final_norm"], s.rms_eps)
        return x @ (w["embed_tokens"] if s.tied else w["lm_head"]).T

    def generate(self, prompt, new_tokens: int, clock=time.perf_counter):
        """Greedy decoding with a KV cache. Returns (tokens, prefill seconds, [seconds of each decode step])."""
        cache = KVCache.empty(self.shape, len(prompt) + new_tokens, self.dtype)
        begin = clock()
        token = int(np.argmax(self.forward(prompt, cache)[-1]))
        prefill_seconds = clock() - begin
        out, step_seconds = [token], []
        for _ in range(new_tokens - 1):
            begin = clock()
            token = int(np.argmax(self.forward([token], cache)[-1]))
            step_seconds.append(clock() - begin)
            out.append(token)
        return out, prefill_seconds, step_seconds


# NumPy calls each ledger row stands for in the code above: what the realistic estimate charges one dispatch
# (Python + NumPy overhead per call) for. Counted from the code; views (slices, reshapes of contiguous data) are
# cheap but still calls, so they count.
def numpy_calls(row, shape: Shape) -> int:
    if row.kind == "linear":
        bias = 1 if (shape.qkv_bias and row.name in ("q_proj", "k_proj", "v_proj")) else 0
        extra = {"mlp.down_proj": 5,  # silu (neg, exp, add, divide) and the gate × up product
                 "o_proj": 1, "lm_head": 1}.get(row.name, 0)  # the residual add; the argmax
        return 2 + bias + extra  # the transpose view and the matmul
    if row.kind == "norm":
        return 7  # square, mean, add eps, sqrt, reciprocal, two multiplies
    if row.kind == "attention":
        # 3 reshape+transpose, 2 rope (slices, 4 multiplies, add, subtract, concatenate), 2 cache writes,
        # 2 cache views, the score matmul and its scale, max, subtract, exp, sum, divide, value matmul, 3 reshapes
        return 6 + 2 * 9 + 4 + 11
    if row.kind == "embedding":
        return 2
    return 1
