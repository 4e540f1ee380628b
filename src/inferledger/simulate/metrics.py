"""From a run to what a serving benchmark reports: throughput, TTFT / TPOT / ITL / E2E percentiles, goodput under an
SLO, KV usage and queue length over time.

Definitions follow vLLM's `bench serve`: TTFT = first token − arrival; TPOT = (finish − first token) / (tokens − 1)
per request with two or more tokens; ITL = every gap between consecutive tokens of a request; E2E = finish −
arrival. Throughput = tokens (or completed requests) ÷ the time from the first arrival to the last finish.
Goodput (DistServe, Zhong et al. 2024) counts the requests that meet both the TTFT and the TPOT objective.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from inferledger import defaults
from inferledger.errors import positive_number

PERCENTILES = (50, 95, 99)
TIMELINE_POINTS = 60


@dataclass(frozen=True)
class SLO:
    ttft_seconds: float = defaults.SLO_TTFT_SECONDS
    tpot_seconds: float = defaults.SLO_TPOT_SECONDS

    def __post_init__(self):
        positive_number(self.ttft_seconds, "the TTFT objective (--slo-ttft-ms)")
        positive_number(self.tpot_seconds, "the TPOT objective (--slo-tpot-ms)")


def percentiles(values: np.ndarray, weights: np.ndarray | None = None) -> dict:
    """{p50, p95, p99, mean} in seconds (None when there are no values). With weights: the weighted
    percentile (the smallest value with at least q of the weight at or below it)."""
    values = np.asarray(values, dtype=np.float64)
    if values.size == 0:
        return {f"p{q}": None for q in PERCENTILES} | {"mean": None}
    if weights is None:
        out = {f"p{q}": float(np.percentile(values, q)) for q in PERCENTILES}
        return out | {"mean": float(values.mean())}
    weights = np.asarray(weights, dtype=np.float64)
    order = np.argsort(values, kind="stable")
    cumulative = np.cumsum(weights[order])
    out = {}
    for q in PERCENTILES:
        index = int(np.searchsorted(cumulative, q / 100 * cumulative[-1] - 1e-9 * cumulative[-1]))
        out[f"p{q}"] = float(values[order][min(index, values.size - 1)])
    return out | {"mean": float((values * weights).sum() / weights.sum())}


def request_times(run) -> dict:
    """Per-request arrays: ttft, tpot (NaN below two tokens), e2e, queue (arrival → first scheduled)."""
    produced = run.generated >= 1
    ttft = np.where(produced, run.first_token - run.arrival, np.nan)
    tpot = np.where(run.generated >= 2, (run.finish - run.first_token) / np.maximum(run.generated - 1, 1), np.nan)
    return {"ttft": ttft, "tpot": tpot, "e2e": run.finish - run.arrival, "queue": run.admitted - run.arrival}


def _timeline(run) -> dict:
    """The state sampled at TIMELINE_POINTS evenly spaced times (the value in force at each), and its extremes."""
    t = run.timeline
    if t.size == 0:
        return {"seconds": [], "waiting": [], "running": [], "kv_usage": []}
    times = np.linspace(t[0, 0], t[-1, 0], TIMELINE_POINTS)
    index = np.clip(np.searchsorted(t[:, 0], times, side="right") - 1, 0, len(t) - 1)
    return {"seconds": times.round(6).tolist(), "waiting": t[index, 1].astype(int).tolist(),
            "running": t[index, 2].astype(int).tolist(),
            "kv_usage": (t[index, 3] / max(run.kv_blocks, 1)).round(4).tolist()}


def time_average(run, column: int) -> float:
    """∫ value dt / duration over the timeline (each sample holds until the next)."""
    t = run.timeline
    if len(t) < 2 or t[-1, 0] == t[0, 0]:
        return 0.0
    return float((t[:-1, column] * np.diff(t[:, 0])).sum() / (t[-1, 0] - t[0, 0]))


def summarise(run, trace, slo: SLO) -> dict:
    times = request_times(run)
    done = ~run.timed_out
    duration = float(np.nanmax(run.finish) - run.arrival.min())
    output_tokens = int(run.generated.sum())
    input_tokens = int(trace.input_tokens[run.generated >= 1].sum())
    meets = done & (times["ttft"] <= slo.ttft_seconds) & ((run.generated < 2) | (times["tpot"] <= slo.tpot_seconds))

    def per_second(count):
        return count / duration if duration > 0 else None

    t = run.timeline
    return {
        "duration_seconds": duration,
        "steps": run.steps,
        "requests": {"total": int(run.generated.size), "completed": int(done.sum()),
                     "timed_out": int(run.timed_out.sum()),
                     "capped_by_max_tokens": int((trace.output_tokens > run.target).sum()),
                     "preemptions": int(run.preemptions.sum())},
        "throughput": {"output_tokens_per_s": per_second(output_tokens),
                       "requests_per_s": per_second(int(done.sum())),
                       "input_tokens_per_s": per_second(input_tokens)},
        "ttft": percentiles(times["ttft"][~np.isnan(times["ttft"])]),
        "tpot": percentiles(times["tpot"][~np.isnan(times["tpot"])]),
        "itl": percentiles(run.itl_seconds, run.itl_weights),
        "e2e": percentiles(times["e2e"][done]),
        "queue": percentiles(times["queue"][~np.isnan(times["queue"])]),
        "output_tokens": {"total": output_tokens, "per_request": percentiles(run.generated.astype(float))},
        "goodput": {"ttft_seconds": slo.ttft_seconds, "tpot_seconds": slo.tpot_seconds,
                    "fraction": float(meets.mean()), "requests_per_s": per_second(int(meets.sum())),
                    "output_tokens_per_s": per_second(int(run.generated[meets].sum()))},
        "kv": {"blocks": run.kv_blocks, "peak_usage": float(t[:, 3].max() / run.kv_blocks) if len(t) else 0.0,
               "mean_usage": time_average(run, 3) / run.kv_blocks},
        "queue_length": {"mean": time_average(run, 1), "peak": int(t[:, 1].max()) if len(t) else 0},
        "running": {"mean": time_average(run, 2), "peak": int(t[:, 2].max()) if len(t) else 0},
        "timeline": _timeline(run),
    }
