"""Seconds per serving step, from a pluggable source over the same mixed-step rows.

- "floor": the roofline of `inferledger.ledger.roofline` — each row max(FLOPs / peak, bytes / bandwidth) plus its
  dequantization — evaluated for many steps at once (the rows of a step are linear in its features, see
  step_model), with stated efficiency assumptions: the fraction of peak FLOP/s and of bandwidth a kernel reaches
  (1.0: the ideal floor) and a fixed overhead per step (launches, scheduling, sampling).
- "realistic": `inferledger.ledger.realistic.realistic_step(rows, accelerator, calibration)` on the same rows, when
  that module is installed. It is called once per distinct step shape (features rounded to 0.5%), cached.
- "auto" (default): realistic when it is importable, else the floor; the result says which was used.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np

from inferledger.errors import BadWorkload
from inferledger.ledger.roofline import peak_for, runs_at, time_step
from inferledger.simulate.step_model import FIELDS, StepModel

SOURCES = ("auto", "floor", "realistic")
_BUCKET = math.log(1.005)
BYTE_FIELDS = ("weight_bytes", "activation_bytes", "kv_read_bytes", "kv_write_bytes")  # realistic steps are cached per 0.5% of each feature


@dataclass
class StepCost:
    """seconds(x) → the time of each step whose features are the rows of x; `describe()` says how."""

    model: StepModel
    accelerator: object
    source: str  # "floor" | "realistic"
    compute_efficiency: float = 1.0
    bandwidth_efficiency: float = 1.0
    overhead_seconds: float = 0.0
    notes: list = field(default_factory=list)
    _realistic: tuple | None = None  # (realistic_step, calibration)
    _cache: dict = field(default_factory=dict)
    _pieces: dict = field(default_factory=dict)

    def __post_init__(self):
        template = self.model.template
        self._counts = np.array([r.count for r in template], dtype=np.float64)
        inverse_peak = np.array([1.0 / (peak_for(self.accelerator, r.compute_dtype) * self.compute_efficiency)
                                 for r in template])
        inverse_bandwidth = 1.0 / (self.accelerator.memory_bandwidth_bytes_per_second * self.bandwidth_efficiency)
        inverse_vector_peak = 1.0 / (peak_for(self.accelerator, "fp32") * self.compute_efficiency)
        # Per row: compute seconds, memory seconds and dequantization seconds as linear maps of the features.
        c = self.model.coefficients
        moved = sum(c[FIELDS.index(f)] for f in BYTE_FIELDS)
        self._compute = c[FIELDS.index("flops")] * inverse_peak
        self._memory = moved * inverse_bandwidth
        self._dequant = (c[FIELDS.index("dequant_ops")] * inverse_vector_peak) @ self._counts
        g = len(self.model.layouts)
        self._all_linear = all(layout.linear for layout in self.model.layouts)
        self._decode_column = 3 + 2 * g
        self._key_columns = [4 + 2 * g + k for k in range(2 * g)]
        self._compute_per_key = self._compute[self._key_columns].sum(axis=0)
        self._memory_per_key = self._memory[self._key_columns].sum(axis=0)
        self._dequant_per_key = self._dequant[self._key_columns].sum()
        t = self.model.table  # (fields, grid, expert rows)
        experts = self.model.expert_rows
        if experts.size:
            self._table_compute = t[FIELDS.index("flops")] * inverse_peak[experts]
            self._table_memory = sum(t[FIELDS.index(f)] for f in BYTE_FIELDS) * inverse_bandwidth
            self._table_dequant = (t[FIELDS.index("dequant_ops")] * inverse_vector_peak) @ self._counts[experts]

    def decode_seconds(self, sequences: int, keys: np.ndarray) -> np.ndarray:
        """Steps where `sequences` sequences decode and nothing else runs, for a model whose attention is all full
        (no window): keys[j] = Σ (context + 1) over the sequences in step j. The same sum as floor_seconds, without
        building the feature rows (the hot path of a decode stretch)."""
        if self.source == "realistic" or not self._all_linear:
            x = np.zeros((keys.size, self.model.feature_count))
            x[:, 0], x[:, self._decode_column] = 1.0, sequences
            x[:, self._key_columns] = keys[:, None]
            return self.seconds(x)
        d = self._decode_column
        compute = self._compute[0] + sequences * self._compute[d] + keys[:, None] * self._compute_per_key
        memory = self._memory[0] + sequences * self._memory[d] + keys[:, None] * self._memory_per_key
        seconds = np.maximum(compute, memory) @ self._counts + \
            (self._dequant[0] + sequences * self._dequant[d] + keys * self._dequant_per_key)
        if self.model.expert_rows.size:
            x = np.zeros(self.model.feature_count)
            x[0], x[d] = 1.0, sequences
            seconds += self.floor_seconds(x[None, :])[0] - self.overhead_seconds - \
                (np.maximum(x @ self._compute, x @ self._memory) @ self._counts + x @ self._dequant)
        return seconds + self.overhead_seconds

    def decode_pieces(self, sequences: int):
        """decode_seconds(sequences, keys) as a piecewise-linear function of keys, or None when it is not one
        (the realistic source, windowed attention). Each row's time is the max of two lines in keys, so the sum
        is linear between the keys where a row turns from memory to compute bound: (breaks, intercepts, slopes)
        with piece p covering breaks[p-1] ≤ keys ≤ breaks[p]. Cached per batch size."""
        if self.source == "realistic" or not self._all_linear:
            return None
        pieces = self._pieces.get(sequences)
        if pieces is None:
            d = self._decode_column
            compute0 = self._compute[0] + sequences * self._compute[d]
            memory0 = self._memory[0] + sequences * self._memory[d]
            slope_c, slope_m = self._compute_per_key, self._memory_per_key
            with np.errstate(divide="ignore", invalid="ignore"):
                crossing = (memory0 - compute0) / (slope_c - slope_m)
            breaks = sorted({float(k) for k in crossing[np.isfinite(crossing) & (crossing > 0)]})
            constant = self.decode_seconds(sequences, np.zeros(1))[0] - \
                np.maximum(compute0, memory0) @ self._counts  # dequantization, experts, overhead at keys = 0
            intercepts, slopes = [], []
            edges = [0.0, *breaks, (breaks[-1] if breaks else 0.0) * 2 + 1.0]
            for low, high in zip(edges[:-1], edges[1:], strict=True):
                middle = (low + high) / 2
                on_compute = compute0 + middle * slope_c >= memory0 + middle * slope_m
                intercepts.append(float(np.where(on_compute, compute0, memory0) @ self._counts + constant))
                slopes.append(float(np.where(on_compute, slope_c, slope_m) @ self._counts + self._dequant_per_key))
            pieces = self._pieces[sequences] = (breaks, intercepts, slopes)
        return pieces

    def seconds(self, x: np.ndarray) -> np.ndarray:
        """The time of each step whose features are the rows of x (one step: a 1-D x gives a 0-d array)."""
        if self.source == "realistic":
            return np.array([self._realistic_seconds(row) for row in np.atleast_2d(x)]).reshape(x.shape[:-1])
        return self.floor_seconds(x)

    def floor_seconds(self, x: np.ndarray) -> np.ndarray:
        """Σ over rows of count × (max(FLOPs / peak, bytes / bandwidth) + dequant / vector peak) + overhead."""
        seconds = np.maximum(x @ self._compute, x @ self._memory) @ self._counts + x @ self._dequant
        experts = self.model.expert_rows
        if experts.size:
            tokens, grid = self.model.tokens(x), self.model.table_tokens
            compute = np.stack([np.interp(tokens, grid, self._table_compute[:, j]) for j in range(experts.size)], -1)
            memory = np.stack([np.interp(tokens, grid, self._table_memory[:, j]) for j in range(experts.size)], -1)
            seconds = seconds + np.maximum(compute, memory) @ self._counts[experts] + \
                np.interp(tokens, grid, self._table_dequant)
        return seconds + self.overhead_seconds

    def _realistic_seconds(self, x: np.ndarray) -> float:
        key = tuple(np.rint(np.log1p(x) / _BUCKET).astype(np.int64))
        seconds = self._cache.get(key)
        if seconds is None:
            realistic_step, calibration = self._realistic
            seconds = float(realistic_step(self.model.rows_of(x), self.accelerator, calibration).seconds)
            self._cache[key] = seconds
        return seconds

    def describe(self) -> dict:
        """The source and the assumptions used, for the result's `step_cost` block."""
        if self.source == "realistic":
            return {"source": "realistic", "description": "inferledger.ledger.realistic (calibrated kernel "
                    "latencies) on the mixed step's operator rows", "notes": list(self.notes)}
        return {"source": "floor", "description": "roofline floor over the mixed step's operator rows: each row "
                "max(FLOPs / (peak × compute efficiency), bytes / (bandwidth × bandwidth efficiency)) + "
                "dequantization, plus a fixed overhead per step",
                "compute_efficiency": self.compute_efficiency, "bandwidth_efficiency": self.bandwidth_efficiency,
                "overhead_seconds_per_step": self.overhead_seconds, "notes": list(self.notes)}


def _import_realistic():
    try:
        from inferledger.ledger.realistic import load_calibration, realistic_step
    except ImportError:
        return None
    return load_calibration, realistic_step


def step_cost(model: StepModel, accelerator, *, source: str = "auto", compute_efficiency: float = 1.0,
              bandwidth_efficiency: float = 1.0, overhead_seconds: float = 0.0,
              calibration_path: str | None = None) -> StepCost:
    """The step-time source for `model` on `accelerator` (see the module docstring)."""
    if source not in SOURCES:
        raise BadWorkload(f"--step-cost must be one of {', '.join(SOURCES)}, got {source!r}")
    for name, value in (("--compute-efficiency", compute_efficiency), ("--bandwidth-efficiency",
                                                                         bandwidth_efficiency)):
        if isinstance(value, bool) or not isinstance(value, (int, float)) or not 0 < value <= 1:
            raise BadWorkload(f"{name} must be a fraction in (0, 1], got {value!r}")
    if isinstance(overhead_seconds, bool) or not isinstance(overhead_seconds, (int, float)) or \
            not math.isfinite(overhead_seconds) or overhead_seconds < 0:
        raise BadWorkload(f"the overhead per step must be ≥ 0 seconds, got {overhead_seconds!r}")
    notes = []
    realistic = _import_realistic() if source in ("auto", "realistic") else None
    if source == "realistic" and realistic is None:
        raise BadWorkload("the realistic estimate (inferledger.ledger.realistic) is not installed; use "
                          "--step-cost floor")
    if realistic is not None:
        load_calibration, realistic_step = realistic
        if compute_efficiency != 1.0 or bandwidth_efficiency != 1.0 or overhead_seconds:
            notes.append("efficiency and overhead options apply to the floor only; the realistic estimate "
                         "carries its own")
        return StepCost(model, accelerator, "realistic", notes=notes,
                        _realistic=(realistic_step, load_calibration(calibration_path)))
    if source == "auto":
        notes.append("the realistic estimate is not installed: step times are the roofline floor")
    return StepCost(model, accelerator, "floor", float(compute_efficiency), float(bandwidth_efficiency),
                    float(overhead_seconds), notes)


def floor_reference_seconds(spec, accelerator, formats, step) -> float:
    """The ledger's own floor for one uniform step (what step_cost must reproduce): roofline.time_step."""
    from inferledger.operators import rows

    main = runs_at(accelerator, formats.weights.compute_dtype)[0]
    return time_step(rows(spec, step, formats), accelerator, 0.0, main).seconds
