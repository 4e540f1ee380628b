"""Logits → next token, and output length → decode cost.

The vocabulary size is the width of the output layer: every decode step ends in a logits vector of vocab_size
scores, which softmax with temperature turns into probabilities, and top-k / top-p cut to a candidate set
before one token is drawn. The seed chapter's point is that these are cost knobs as well as quality knobs: the
output length they produce is random, so a server needs two gates, a max_tokens cap and a timeout, and the
expected and p99 decode cost depend on both (output_length_cost).

Order of the warpers follows Hugging Face transformers' generate (temperature, then top-k, then top-p), which
vLLM also uses. top-p is the nucleus of Holtzman et al. 2019, "The Curious Case of Neural Text Degeneration":
the smallest set of most likely tokens whose probabilities sum to at least p.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from inferledger.errors import BadWorkload


def softmax(logits, temperature: float = 1.0) -> np.ndarray:
    """Probabilities exp(z_i / T) / Σ exp(z_j / T), computed with the max subtracted so large logits do not
    overflow. temperature 0 is greedy decoding: all mass on the first largest logit."""
    z = np.asarray(logits, dtype=np.float64)
    if z.ndim != 1 or z.size == 0:
        raise BadWorkload("logits must be a non-empty 1-D vector (one score per vocabulary entry)")
    if not np.all(np.isfinite(z) | (z == -np.inf)) or np.all(z == -np.inf):
        raise BadWorkload("logits must be finite numbers (-inf allowed for masked entries, not all of them)")
    if temperature < 0 or not math.isfinite(temperature):
        raise BadWorkload(f"temperature must be 0 (greedy) or positive, not {temperature}")
    if temperature == 0:
        probabilities = np.zeros_like(z)
        probabilities[int(np.argmax(z))] = 1.0
        return probabilities
    scaled = z / temperature
    scaled -= scaled.max()
    weights = np.exp(scaled)
    return weights / weights.sum()


def _descending(probabilities: np.ndarray) -> np.ndarray:
    # Stable sort so that ties keep vocabulary order: the kept set is deterministic.
    return np.argsort(-probabilities, kind="stable")


def top_k_filter(probabilities, k: int) -> np.ndarray:
    """Keep the k most likely tokens (ties broken by vocabulary order), renormalised to sum to 1."""
    p = np.asarray(probabilities, dtype=np.float64)
    if not isinstance(k, (int, np.integer)) or k < 1:
        raise BadWorkload(f"top_k must be a whole number ≥ 1, not {k}")
    if k >= p.size:
        return p / p.sum()
    kept = np.zeros_like(p)
    order = _descending(p)[:k]
    kept[order] = p[order]
    return kept / kept.sum()


def top_p_filter(probabilities, top_p: float) -> np.ndarray:
    """Keep the smallest set of most likely tokens whose probabilities sum to at least top_p, renormalised.
    The most likely token is always kept, so top_p → 0 is greedy."""
    p = np.asarray(probabilities, dtype=np.float64)
    if not 0 < top_p <= 1:
        raise BadWorkload(f"top_p must be in (0, 1], not {top_p}")
    order = _descending(p)
    cumulative = np.cumsum(p[order])
    # First index where the running sum reaches top_p; a tiny tolerance so 0.1 + 0.2 counts as reaching 0.3.
    count = int(np.searchsorted(cumulative, top_p - 1e-12, side="left")) + 1
    kept = np.zeros_like(p)
    chosen = order[:min(count, p.size)]
    kept[chosen] = p[chosen]
    return kept / kept.sum()


def sampling_distribution(logits, temperature: float = 1.0, top_k: int | None = None,
                          top_p: float | None = None) -> np.ndarray:
    """The distribution the next token is drawn from: softmax(logits / T), then top-k, then top-p."""
    probabilities = softmax(logits, temperature)
    if top_k is not None:
        probabilities = top_k_filter(probabilities, top_k)
    if top_p is not None:
        probabilities = top_p_filter(probabilities, top_p)
    return probabilities


def sample(logits, temperature: float = 1.0, top_k: int | None = None, top_p: float | None = None,
           rng: np.random.Generator | None = None) -> int:
    """One token id drawn from sampling_distribution."""
    probabilities = sampling_distribution(logits, temperature, top_k, top_p)
    rng = rng if rng is not None else np.random.default_rng()
    return int(rng.choice(probabilities.size, p=probabilities))


# --- output length → decode cost ---------------------------------------------------------------------------

P99 = 0.99


@dataclass
class LengthSummary:
    """Output tokens per request under one policy, and what they cost in decode time (and KV bytes)."""

    expected_tokens: float
    p99_tokens: float
    truncated_fraction: float  # share of requests the cap cuts off before their natural end (0 without a cap)
    expected_decode_seconds: float
    p99_decode_seconds: float
    expected_kv_bytes: float | None = None  # KV cache of the output tokens when the request ends
    p99_kv_bytes: float | None = None

    def to_dict(self) -> dict:
        return dict(self.__dict__)


@dataclass
class OutputLengthCost:
    """Decode cost of a random output length without gates and with max_tokens and a timeout."""

    seconds_per_token: float
    max_tokens: int | None
    timeout_seconds: float | None
    prefill_seconds: float
    cap_tokens: int | None  # the binding cap: min(max_tokens, tokens that fit in the timeout after prefill)
    cap_from: str | None  # "max_tokens" or "timeout": which gate binds
    uncapped: LengthSummary
    capped: LengthSummary

    def to_dict(self) -> dict:
        document = {k: v for k, v in self.__dict__.items() if k not in ("uncapped", "capped")}
        document["uncapped"] = self.uncapped.to_dict()
        document["capped"] = self.capped.to_dict()
        return document


def _pmf_summary(pmf: np.ndarray, cap: int | None) -> tuple[float, float, float]:
    """(expected, p99, truncated share) of L, or of min(L, cap), where pmf[n] = P(L = n)."""
    lengths = np.arange(pmf.size, dtype=np.float64)
    if cap is not None and cap < pmf.size - 1:
        truncated = float(pmf[cap + 1:].sum())
        clipped = pmf[:cap + 1].copy()
        clipped[cap] += truncated
        pmf, lengths = clipped, lengths[:cap + 1]
    else:
        truncated = 0.0
    cdf = np.cumsum(pmf)
    p99 = float(np.searchsorted(cdf, P99 - 1e-12, side="left"))
    return float((pmf * lengths).sum()), p99, truncated


def _geometric_summary(eos_probability: float, cap: int | None) -> tuple[float, float, float]:
    """Each step emits EOS with probability q (the EOS token counted as generated): L ~ Geometric(q) on 1, 2, …
    P(L > n) = (1 − q)^n, E[L] = 1/q, p99 = ⌈ln 0.01 / ln(1 − q)⌉; capped at m: E[min(L, m)] =
    Σ_{n<m} (1 − q)^n = (1 − (1 − q)^m) / q and the cap truncates a share (1 − q)^m."""
    q = eos_probability
    if q >= 1:
        return 1.0, 1.0, 0.0
    survive = 1.0 - q
    if q == 0:
        if cap is None:
            return math.inf, math.inf, 0.0
        return float(cap), float(cap), 1.0
    p99 = math.ceil(math.log(1 - P99) / math.log(survive) - 1e-9)
    if cap is None:
        return 1.0 / q, float(p99), 0.0
    return (1.0 - survive ** cap) / q, float(min(p99, cap)), survive ** cap


def output_length_cost(seconds_per_token: float, *, eos_probability: float | None = None,
                       length_pmf: Sequence[float] | None = None, max_tokens: int | None = None,
                       timeout_seconds: float | None = None, prefill_seconds: float = 0.0,
                       kv_bytes_per_token: float | None = None) -> OutputLengthCost:
    """Expected and p99 output tokens and decode seconds, without gates and with max_tokens / a timeout.

    Give the output length either as eos_probability (the chance each step ends the answer) or as length_pmf
    (length_pmf[n] = probability of exactly n output tokens). The timeout counts from the request's start, so
    it leaves (timeout − prefill) / seconds_per_token decode steps.
    """
    if (eos_probability is None) == (length_pmf is None):
        raise BadWorkload("give the output length as exactly one of eos_probability or length_pmf")
    if not seconds_per_token > 0:
        raise BadWorkload(f"seconds_per_token must be positive, not {seconds_per_token}")
    if max_tokens is not None and max_tokens < 1:
        raise BadWorkload(f"max_tokens must be ≥ 1, not {max_tokens}")
    if timeout_seconds is not None and not timeout_seconds > 0:
        raise BadWorkload(f"timeout must be positive, not {timeout_seconds}")
    caps = {}
    if max_tokens is not None:
        caps["max_tokens"] = int(max_tokens)
    if timeout_seconds is not None:
        caps["timeout"] = max(0, math.floor((timeout_seconds - prefill_seconds) / seconds_per_token + 1e-9))
    cap_from = min(caps, key=caps.get) if caps else None
    cap = caps[cap_from] if cap_from else None

    if eos_probability is not None:
        if not 0 <= eos_probability <= 1:
            raise BadWorkload(f"eos_probability must be in [0, 1], not {eos_probability}")
        # eos_probability 0 with no gate: infinite expected cost, the seed's point; JSON prints it as null.
        summarise = lambda c: _geometric_summary(eos_probability, c)  # noqa: E731
    else:
        pmf = np.asarray(length_pmf, dtype=np.float64)
        if pmf.ndim != 1 or pmf.size == 0 or np.any(pmf < 0) or not math.isclose(pmf.sum(), 1.0, abs_tol=1e-6):
            raise BadWorkload("length_pmf must be non-negative probabilities of lengths 0, 1, 2, … summing to 1")
        summarise = lambda c: _pmf_summary(pmf / pmf.sum(), c)  # noqa: E731

    def summary(c):
        expected, p99, truncated = summarise(c)
        kv = kv_bytes_per_token
        return LengthSummary(expected, p99, truncated, expected * seconds_per_token, p99 * seconds_per_token,
                             None if kv is None else expected * kv, None if kv is None else p99 * kv)

    return OutputLengthCost(seconds_per_token, max_tokens, timeout_seconds, prefill_seconds, cap, cap_from,
                            summary(None), summary(cap))
