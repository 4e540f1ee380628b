"""What a workload looks like: ISL and OSL percentiles, the ISL:OSL ratio, its arrivals, and (given a model and a
card) how one request's time splits between prefill and decode — the seed's point that prefill-heavy shapes want
FLOP/s and decode-heavy shapes want bandwidth."""

from __future__ import annotations

from dataclasses import asdict, dataclass

import numpy as np

from inferledger import defaults
from inferledger.workload.trace import Trace

QUANTILES = (50, 90, 99)


def length_stats(values: np.ndarray) -> dict:
    values = np.asarray(values, dtype=np.float64)
    out = {"mean": float(values.mean()), "min": int(values.min()), "max": int(values.max())}
    return out | {f"p{q}": float(np.percentile(values, q)) for q in QUANTILES}


@dataclass(frozen=True)
class WorkloadSummary:
    source: str
    requests: int
    isl: dict  # tokens: mean, min, max, p50, p90, p99
    osl: dict
    isl_osl_ratio: float  # mean input ÷ mean output tokens
    input_tokens: int
    output_tokens: int
    cached_fraction: float  # share of input tokens a prefix cache holds
    arrivals: dict
    shape: dict | None = None  # with a model and a card: the time split at batch 1

    to_dict = asdict


def arrival_summary(trace: Trace) -> dict:
    if trace.closed_loop_users is not None:
        return {"kind": "closed loop", "users": trace.closed_loop_users, "think_seconds": trace.think_seconds}
    if trace.saturating:
        return {"kind": "saturating", "description": "all requests at t = 0 (--rate inf)"}
    gaps = np.diff(trace.arrival_seconds)
    duration = float(trace.arrival_seconds[-1] - trace.arrival_seconds[0])
    return {"kind": "timed", "duration_seconds": duration,
            "rate_per_s": (trace.requests - 1) / duration if duration > 0 else None,
            "gap_cv": float(gaps.std() / gaps.mean()) if gaps.size and gaps.mean() > 0 else None}


def summarise_trace(trace: Trace, cost=None, **split_options) -> WorkloadSummary:
    """The summary of `trace`; with `cost` (a simulate StepCost) also its shape on that card (time_split)."""
    isl, osl = trace.input_tokens, trace.output_tokens
    return WorkloadSummary(
        source=trace.source, requests=trace.requests, isl=length_stats(isl), osl=length_stats(osl),
        isl_osl_ratio=float(isl.mean() / osl.mean()), input_tokens=int(isl.sum()), output_tokens=int(osl.sum()),
        cached_fraction=float(trace.cached_tokens.sum() / isl.sum()), arrivals=arrival_summary(trace),
        shape=None if cost is None else time_split(trace, cost, **split_options))


def time_split(trace: Trace, cost, *, max_batched_tokens: int = defaults.MAX_BATCHED_TOKENS,
               max_num_seqs: int = defaults.MAX_NUM_SEQS, sample: int = 20_000) -> dict:
    """How one request's time splits between prefill and decode, summed over the trace (every k-th request when
    there are more than `sample`), two ways:
    - alone (batch 1): its prefill step, then OSL − 1 decode steps (first and last step averaged: exact while a
      single sequence's decode stays memory bound, as it does);
    - under load: its prompt prefilled among others filling the token budget, and each decode step shared by
      max_num_seqs sequences at its mid context — the per-request share of a busy server's time. This is the
      split that says which resource the shape wants."""
    stride = max(1, -(-trace.requests // sample))
    isl, osl, cached = (a[::stride] for a in (trace.input_tokens, trace.output_tokens, trace.cached_tokens))
    model = cost.model
    one = np.array([model.features([(int(i - c), int(c))]) for i, c in zip(isl, cached, strict=True)])
    prefill_alone = cost.seconds(one)
    steps = osl - 1
    first = cost.seconds(np.array([model.features([], [int(i)]) for i in isl]))
    last = cost.seconds(np.array([model.features([], [int(i + max(s - 1, 0))]) for i, s in zip(isl, steps,
                                                                                                  strict=True)]))
    decode_alone = steps * (first + last) / 2
    # A uniform step of b sequences has b times one sequence's features, the once-per-step term once.
    share = np.maximum(1, max_batched_tokens // np.maximum(isl - cached, 1)).astype(np.float64)
    batched = one.copy()
    batched[:, 1:] *= share[:, None]
    prefill_loaded = cost.seconds(batched) / share
    middle = np.array([model.features([], [int(i + s // 2)]) for i, s in zip(isl, steps, strict=True)])
    middle[:, 1:] *= max_num_seqs
    decode_loaded = steps * cost.seconds(middle) / max_num_seqs

    def split(prefill, decode) -> dict:
        p, d = float(prefill.sum()), float(decode.sum())
        return {"prefill_seconds": p * stride, "decode_seconds": d * stride, "prefill_share": p / (p + d)}

    loaded = split(prefill_loaded, decode_loaded)
    return {"step_cost": cost.source, "requests_sampled": int(isl.size),
            "alone": split(prefill_alone, decode_alone) | {
                "ttft_p50_seconds": float(np.percentile(prefill_alone, 50)),
                "e2e_p50_seconds": float(np.percentile(prefill_alone + decode_alone, 50))},
            "loaded": loaded | {"max_batched_tokens": max_batched_tokens, "max_num_seqs": max_num_seqs},
            "verdict": "prefill-heavy: wants FLOP/s" if loaded["prefill_share"] > 0.5 else
            "decode-heavy: wants memory bandwidth"}
