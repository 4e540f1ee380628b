"""A workload: the requests a server receives, as arrays (one entry per request).

Lengths are whole tokens: input (ISL) and output (OSL, the length the answer would have if nothing stopped it).
Arrivals are seconds from the start, non-decreasing; a workload without arrival times is a saturating load (all
requests at t = 0, as throughput benchmarks run) unless it is a closed loop of N users, where each user sends its
next request when the previous answer ends (plus a think time). `cached_tokens` are prompt tokens a prefix cache
already holds (the first tokens of a shared system prompt): the server does not prefill them again.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from inferledger.errors import BadWorkload


@dataclass(frozen=True, eq=False)
class Trace:
    input_tokens: np.ndarray  # int64, ≥ 1
    output_tokens: np.ndarray  # int64, ≥ 1
    arrival_seconds: np.ndarray  # float64, non-decreasing (all zeros: saturating load)
    cached_tokens: np.ndarray  # int64, 0 ≤ cached < input
    source: str  # where it came from: a file name or the synthetic recipe
    closed_loop_users: int | None = None  # N users each with one request in flight; arrivals then come from the run
    think_seconds: float = 0.0  # closed loop: pause between an answer and the user's next request

    @property
    def requests(self) -> int:
        return int(self.input_tokens.size)

    @property
    def saturating(self) -> bool:
        return self.closed_loop_users is None and bool(np.all(self.arrival_seconds == 0))


def make_trace(input_tokens, output_tokens, arrival_seconds=None, cached_tokens=None, *, source: str = "<arrays>",
               closed_loop_users: int | None = None, think_seconds: float = 0.0) -> Trace:
    """A checked Trace from sequences: lengths whole and ≥ 1, arrivals finite and non-decreasing, cached < input."""
    isl = _whole(input_tokens, "input length", source)
    osl = _whole(output_tokens, "output length", source)
    if isl.size != osl.size:
        raise BadWorkload(f"{source}: {isl.size} input lengths but {osl.size} output lengths")
    if isl.size == 0:
        raise BadWorkload(f"{source}: no requests")
    _at_least(isl, 1, "input length", source)
    _at_least(osl, 1, "output length", source)
    if arrival_seconds is None:
        arrivals = np.zeros(isl.size)
    else:
        arrivals = np.asarray(arrival_seconds, dtype=np.float64)
        if arrivals.shape != isl.shape:
            raise BadWorkload(f"{source}: {arrivals.size} arrival times for {isl.size} requests")
        bad = np.flatnonzero(~np.isfinite(arrivals) | (arrivals < 0))
        if bad.size:
            raise BadWorkload(f"{source}: request {bad[0] + 1} arrives at {arrivals[bad[0]]!r}; arrival times must "
                              "be finite seconds ≥ 0")
        back = np.flatnonzero(np.diff(arrivals) < 0)
        if back.size:
            i = int(back[0]) + 1
            raise BadWorkload(f"{source}: arrivals are not sorted: request {i + 1} arrives at {arrivals[i]:g} s, "
                              f"before request {i} at {arrivals[i - 1]:g} s; sort the trace by arrival time")
    cached = np.zeros(isl.size, dtype=np.int64) if cached_tokens is None else \
        _whole(cached_tokens, "cached prefix length", source)
    _at_least(cached, 0, "cached prefix length", source)
    over = np.flatnonzero(cached >= isl)
    if over.size:
        raise BadWorkload(f"{source}: request {over[0] + 1} has {cached[over[0]]} cached tokens of an input of "
                          f"{isl[over[0]]}; at least the last input token must be computed")
    if closed_loop_users is not None and (not isinstance(closed_loop_users, int) or closed_loop_users < 1):
        raise BadWorkload(f"closed-loop users must be a whole number ≥ 1, got {closed_loop_users!r}")
    return Trace(isl, osl, arrivals, cached, source, closed_loop_users, float(think_seconds))


def _whole(values, what: str, source: str) -> np.ndarray:
    array = np.asarray(values)
    if array.dtype.kind in "iu":
        return array.astype(np.int64)
    as_float = array.astype(np.float64)
    bad = np.flatnonzero(~np.isfinite(as_float) | (as_float != np.round(as_float)))
    if bad.size:
        raise BadWorkload(f"{source}: request {bad[0] + 1} has {what} {values[bad[0]]!r}; give whole tokens")
    return as_float.astype(np.int64)


def _at_least(values: np.ndarray, low: int, what: str, source: str) -> None:
    bad = np.flatnonzero(values < low)
    if bad.size:
        raise BadWorkload(f"{source}: request {bad[0] + 1} has {what} {values[bad[0]]}; it must be at least {low}")
