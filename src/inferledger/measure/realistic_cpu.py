"""A realistic step time for the NumPy decode loop: the realistic formula of ledger/realistic.py, calibrated here.

Each operator row costs, as on an accelerator,

    call_seconds + max(FLOPs / (peak · compute efficiency), bytes / (bandwidth · memory efficiency))

with the one formula `ledger.realistic.entry_seconds`; only the parameters differ. call_seconds is `calls` NumPy calls
(how many the row stands for in decode.py) at the time one such call takes when its arithmetic is nothing; the
efficiencies are what a matrix product of the model's own shapes reaches against the measured ceilings on this
machine (Vidur and similar simulators profile each operator at its shape the same way). Rows other than linear
ones (norms, attention at bench contexts, the embedding lookup) are a few small arrays each: their cost is the
dispatch, so they run at the ceilings. The accelerators' parameters are fitted to published kernels instead
(calibration/fit.py); these are measured here and now.
"""

from __future__ import annotations

import statistics
import time
from dataclasses import dataclass

import numpy as np

from inferledger.calibration import Entry
from inferledger.ledger.realistic import RealisticStep, entry_seconds
from inferledger.ledger.roofline import peak_for


@dataclass(frozen=True)
class CpuCalibration:
    call_latency_seconds: float  # one NumPy call of the decode loop, at a size where its arithmetic is nothing
    compute_efficiency_by_kind: dict  # kind -> fraction of peak FLOP/s reached
    memory_efficiency_by_kind: dict  # kind -> fraction of memory bandwidth reached

    def to_dict(self) -> dict:
        return {"call_latency_seconds": self.call_latency_seconds,
                "compute_efficiency_by_kind": dict(self.compute_efficiency_by_kind),
                "memory_efficiency_by_kind": dict(self.memory_efficiency_by_kind)}


def realistic_row_seconds(row, accelerator, calibration: CpuCalibration, calls: int) -> float:
    """One instance of the row (multiply by row.count for the step): the accelerators' formula, with this machine's
    call latency and efficiencies as the entry."""
    entry = Entry(row.kind, "cpu", row.compute_dtype, call_seconds=calls * calibration.call_latency_seconds,
                  compute_efficiency=calibration.compute_efficiency_by_kind.get(row.kind, 1.0),
                  memory_efficiency=calibration.memory_efficiency_by_kind.get(row.kind, 1.0))
    return entry_seconds(entry, row.flops / peak_for(accelerator, row.compute_dtype),
                         row.bytes / accelerator.memory_bandwidth_bytes_per_second, 0.0)


def realistic_step(rows, accelerator, calibration: CpuCalibration, calls_of) -> RealisticStep:
    """Σ over rows × their count; `calls_of(row)` says how many calls a row stands for. The dispatch is part of
    each row's time (its call latency), so the step has no separate overhead."""
    by_component: dict = {}
    dispatch = 0.0
    for row in rows:
        calls = calls_of(row)
        seconds = realistic_row_seconds(row, accelerator, calibration, calls) * row.count
        by_component[row.component] = by_component.get(row.component, 0.0) + seconds
        dispatch += calls * calibration.call_latency_seconds * row.count
    notes = (f"dispatch: {dispatch * 1e3:.3f} ms of the step "
             f"({calibration.call_latency_seconds * 1e6:.2f} µs per NumPy call)",)
    return RealisticStep(sum(by_component.values()), by_component, overhead_seconds=0.0, extrapolated=False,
                         notes=notes)


# ---------------------------------------------------------------- measuring the calibration

def linear_probe(shapes, tokens: int, stream_bytes: int):
    """A function timing x @ W.T over matrices of the given [out, in] shapes, repeated in turn until they fill
    `stream_bytes` (past the cache, as in the model): probe(rows) -> (seconds, bytes, FLOPs) of one pass."""
    rng = np.random.default_rng(1)
    one = sum(out * inp * 4 for out, inp in shapes)
    matrices = [rng.standard_normal(s, dtype=np.float32) for _ in range(max(1, int(stream_bytes // one)))
                for s in shapes]
    inputs = {inp: rng.standard_normal((tokens, inp), dtype=np.float32) for _, inp in shapes}

    def probe(rows: int) -> tuple[float, float, float]:
        begin = time.perf_counter()
        for w in matrices:
            inputs[w.shape[1]][:rows] @ w.T
        seconds = time.perf_counter() - begin
        return seconds, sum(w.nbytes for w in matrices), sum(2.0 * rows * w.size for w in matrices)

    return probe


def efficiencies(memory_runs, compute_runs, ceilings) -> tuple[float, float]:
    """(compute, memory) efficiency of the linear rows: the median probe run against the ceilings."""
    seconds, _, flops = sorted(compute_runs)[len(compute_runs) // 2]
    compute = flops / seconds / ceilings.flops_per_second_by_dtype["fp32"]
    seconds, nbytes, _ = sorted(memory_runs)[len(memory_runs) // 2]
    memory = nbytes / seconds / ceilings.memory_bandwidth_bytes_per_second
    return min(1.0, compute), min(1.0, memory)


def call_latency(model, tiny_spec_rows, calls_of, steps: int = 8, repeats: int = 3) -> float:
    """Seconds per NumPy call of `model` (a tiny one: its arithmetic is nothing) over decode steps."""
    calls = sum(calls_of(row) * row.count for row in tiny_spec_rows)
    per_step = []
    for _ in range(repeats + 1):
        _, _, step_seconds = model.generate([1, 2, 3, 4], steps + 1)
        per_step.append(statistics.median(step_seconds))
    return statistics.median(per_step[1:]) / calls
