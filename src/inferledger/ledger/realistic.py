"""A realistic time per operator row, beside the floor: the floor's terms at the efficiencies real kernels reach.

One instance of a row costs

    call_seconds + blend( F / (peak · compute_efficiency),  B / (bandwidth · memory_efficiency),
                          keys · seconds_per_key )

F and B are the row's FLOPs and bytes (operators.py), peak and bandwidth the floor's (roofline.py). call_seconds is
the fixed time of one kernel call (small calls sit on it); the efficiencies are the fractions of peak real kernels
reach; seconds_per_key is the time a decode kernel spends per cached key of one sequence when it walks the context
serially instead of splitting it across the chip (MLA decode on Ampere and Ada: time grows with context at batch 1
while bandwidth idles). blend is the max of the terms (full overlap, as in the floor) or their p-norm (partial
overlap), whichever fitted the measurements better. Every parameter is fitted per operator kind, architecture
generation and dtype on measured kernels (calibration/fit.py). A generation without measurements borrows the
parameters of the measured one its calibration names as stand-in (datacenter Blackwell: Hopper), else the median of
the measured generations; a dtype without measurements borrows bf16's; either way the estimate says it is
extrapolating. A step adds a per-step overhead.

Keys: kinds gemm, moe, attention_prefill, attention_decode, mla_prefill, mla_decode. Dtypes: the math the kernel
runs (bf16, fp8, int8, fp4), "wo" for weight-only formats multiplied in bf16, and "bf16_fp8kv" for attention over
an fp8 KV cache: an fp8 cache halves the bytes, but the attention math stays bf16 (it does not run at the fp8 peak).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from inferledger.calibration import Calibration, Entry, load_calibration
from inferledger.errors import require
from inferledger.hardware.catalog import canonical_dtype
from inferledger.ledger.roofline import runs_at, time_rows

# The math dtype each calibration dtype key runs at (keys not listed run at their own name).
_MATH_DTYPE = {"wo": "bf16", "bf16_fp8kv": "bf16", "fp8_block": "fp8"}
# Rows no kernel measurement covers (norms, embedding lookups, convs, recurrent state updates) are priced with the
# GEMM entry of the same card: small memory-bound kernels with a call latency each.
_STAND_IN_KIND = "gemm"


@dataclass(frozen=True)
class Character:
    """What the calibration is keyed on for one row: its kernel kind, its dtype key and, for decode attention, the
    cached keys per sequence it walks."""

    kind: str | None  # None: no kernel measurements cover this row kind
    dtype: str
    keys_per_sequence: float = 0.0


def math_dtype(dtype_key: str) -> str:
    return _MATH_DTYPE.get(dtype_key, dtype_key)


def character(row, accelerator) -> Character:
    """The calibration keys of a model's operator row."""
    if row.kind == "attention":
        mla = row.component.endswith("mla")
        phase = row.phase or "prefill"
        dtype = "bf16_fp8kv" if row.compute_dtype == "fp8" else "bf16"
        # A decode step writes one token per sequence and reads every cached key: their ratio is the keys walked.
        keys = row.kv_read_bytes / row.kv_write_bytes if phase == "decode" and row.kv_write_bytes else 0.0
        return Character(("mla_" if mla else "attention_") + phase, dtype, keys)
    ran = runs_at(accelerator, row.compute_dtype)[0]
    if row.dequant_ops or ran != canonical_dtype(row.compute_dtype):
        dtype = "wo"  # weights converted to bf16 before the matmul (int4, or fp4 on a part without fp4 units)
    else:
        dtype = "bf16" if ran == "fp16" else ran
    kind = {"linear": "gemm", "experts": "moe"}.get(row.kind)
    return Character(kind, dtype)


def generation_of(accelerator) -> str:
    return accelerator.architecture or "unknown"


def blend(compute, memory, serial, power):
    """max of the three terms (power None) or their p-norm; numbers or NumPy arrays alike."""
    if power is None:
        if not hasattr(compute, "shape"):
            return max(compute, memory, serial)
        import numpy as np  # arrays come only from the fit; a request never pays numpy's import

        return np.maximum(np.maximum(compute, memory), serial)
    return (compute ** power + memory ** power + serial ** power) ** (1.0 / power)


def entry_seconds(entry: Entry, compute_seconds, memory_seconds, keys_per_sequence):
    """The formula: one call of a kernel whose floor terms are compute_seconds and memory_seconds."""
    return entry.call_seconds + blend(compute_seconds / entry.compute_efficiency,
                                      memory_seconds / entry.memory_efficiency,
                                      keys_per_sequence * entry.seconds_per_key, entry.blend_power)


@dataclass(frozen=True)
class RowEstimate:
    row: object  # operators.Row
    seconds: float  # one instance
    floor_seconds: float  # one instance
    kind: str | None
    dtype: str
    entry: Entry | None
    extrapolated: bool
    note: str


def _pricing(row, accelerator, calibration: Calibration, shape: Character) -> tuple:
    """(entry, extrapolated, note, peak FLOP/s) for a row of this character: what estimate_row looks up."""
    kind = shape.kind or _STAND_IN_KIND
    entry, extrapolated, note = calibration.lookup(kind, generation_of(accelerator), shape.dtype if shape.kind
                                                   else "bf16")
    if entry is None:
        return None, True, note + ": the floor is used", 0.0
    if shape.kind is None:
        note = f"{row.kind} rows: no kernel measurements, priced with the GEMM's call latency and efficiencies"
    peak = accelerator.peak_flops_per_second(runs_at(accelerator, math_dtype(shape.dtype))[0])
    return entry, extrapolated, note, peak


def estimate_row(row, accelerator, calibration: Calibration, shape: Character | None = None,
                 floor_seconds: float | None = None, _cache: dict | None = None) -> RowEstimate:
    """One instance of `row`. `shape` overrides the keys read off the row (a measured kernel states its own)."""
    if shape is None and _cache is not None:
        # Rows of one step share a handful of characters: look each up once.
        key = (row.kind, row.compute_dtype, row.phase, row.component.endswith("mla"), bool(row.dequant_ops))
        if key not in _cache:
            found = character(row, accelerator)
            _cache[key] = (found, _pricing(row, accelerator, calibration, found))
        shape, (entry, extrapolated, note, peak) = _cache[key]
        if row.phase == "decode" and row.kind == "attention":
            shape = character(row, accelerator)  # the keys walked differ from row to row
    else:
        shape = shape or character(row, accelerator)
        entry, extrapolated, note, peak = _pricing(row, accelerator, calibration, shape)
    if floor_seconds is None:
        floor_seconds = time_rows([row], accelerator)[0].seconds
    if entry is None:
        return RowEstimate(row, floor_seconds, floor_seconds, shape.kind, shape.dtype, None, True, note)
    seconds = entry_seconds(entry, row.flops / peak, row.bytes / accelerator.memory_bandwidth_bytes_per_second,
                            shape.keys_per_sequence)
    # A fitted efficiency can never make a row beat its own floor.
    return RowEstimate(row, max(seconds, floor_seconds), floor_seconds, shape.kind, shape.dtype, entry,
                       extrapolated, note)


def communication_estimate(timed, accelerator, topology) -> RowEstimate:
    """A collective or send at its fitted cost (latency + bytes at a measured share of the link); the floor where
    nothing measured stands in."""
    from inferledger.ledger.collectives import realistic_seconds

    row = timed.row
    seconds = None
    if topology is not None:
        seconds = realistic_seconds(row.collective, row.message_bytes, row.group_cards,
                                    topology.link_for(row.span_cards), accelerator.name,
                                    topology.within_node(row.span_cards))
    note = "" if seconds is not None else f"{row.collective}: no collective measurements stand in: the floor is used"
    return RowEstimate(row, max(seconds or 0.0, timed.seconds), timed.seconds, "communication", "", None,
                       seconds is None, note)


@dataclass(frozen=True)
class RealisticStep:
    seconds: float  # Σ rows × count + the per-step overhead
    seconds_by_component: dict
    overhead_seconds: float
    extrapolated: bool  # some row's parameters come from another generation or dtype than its own
    notes: tuple = ()
    floor_seconds: float = 0.0  # Σ rows' floors × count (no overhead), for the ratio
    rows: tuple = field(default=(), repr=False)  # RowEstimate per row

    def losses(self) -> list[tuple[str, float, float, float]]:
        """(operator, realistic seconds, floor seconds, of which call latency) per operator name × count, most
        time lost first."""
        by_name: dict = {}
        for r in self.rows:
            seconds, floor, calls = by_name.get(r.row.name, (0.0, 0.0, 0.0))
            call = r.entry.call_seconds if r.entry is not None else 0.0
            by_name[r.row.name] = (seconds + r.seconds * r.row.count, floor + r.floor_seconds * r.row.count,
                                   calls + call * r.row.count)
        return sorted(((n, *v) for n, v in by_name.items()), key=lambda t: t[2] - t[1])

    def to_dict(self) -> dict:
        return {"seconds": self.seconds, "seconds_by_component": dict(self.seconds_by_component),
                "overhead_seconds": self.overhead_seconds, "extrapolated": self.extrapolated,
                "notes": list(self.notes)}


def realistic_step(rows, accelerator, calibration: Calibration | None = None,
                   extra_overhead_seconds: float = 0.0) -> RealisticStep:
    """The realistic time of one forward step: Σ over rows (× their count) of estimate_row, plus the calibration's
    per-step overhead (and any the caller adds)."""
    from inferledger.hardware.catalog import Accelerator

    require(accelerator, Accelerator, "accelerator", "build one with inferledger.hardware.find_accelerator(name)")
    calibration = calibration if calibration is not None else load_calibration()
    require(calibration, Calibration, "calibration", "load one with inferledger.calibration.load_calibration()")
    return realistic_timed(time_rows(list(rows), accelerator), accelerator, calibration, extra_overhead_seconds)


def realistic_timed(timed_rows, accelerator, calibration: Calibration, extra_overhead_seconds: float = 0.0,
                    cache: dict | None = None, topology=None) -> RealisticStep:
    """realistic_step over rows whose floor is already timed (roofline.TimedRow): a caller that holds the floor
    of a step does not time it twice. `cache` may be shared by steps of one accelerator and calibration.
    Communication rows (a model spread over cards) take the collectives' own fitted cost on the link `topology`
    gives them (ledger/collectives.py), never less than their floor."""
    cache = {} if cache is None else cache
    estimates = [communication_estimate(t, accelerator, topology) if t.row.collective else
                 estimate_row(t.row, accelerator, calibration, floor_seconds=t.seconds, _cache=cache)
                 for t in timed_rows]
    by_component: dict = {}
    for e in estimates:
        by_component[e.row.component] = by_component.get(e.row.component, 0.0) + e.seconds * e.row.count
    notes = tuple(dict.fromkeys(e.note for e in estimates if e.note))
    overhead = calibration.step_overhead_seconds + extra_overhead_seconds
    return RealisticStep(
        seconds=sum(by_component.values()) + overhead, seconds_by_component=by_component, overhead_seconds=overhead,
        extrapolated=any(e.extrapolated for e in estimates), notes=notes,
        floor_seconds=sum(e.floor_seconds * e.row.count for e in estimates), rows=tuple(estimates))


__all__ = ["Character", "RealisticStep", "RowEstimate", "character", "entry_seconds", "estimate_row",
           "load_calibration", "realistic_step", "realistic_timed"]
