"""Seconds per serving step, from a pluggable source over the same mixed-step rows.

- "floor": the roofline of `inferledger.ledger.roofline` — each row max(FLOPs / peak, bytes / bandwidth, its
  dequantization) — evaluated for many steps at once (the rows of a step are linear in its features, see
  step_model), with stated efficiency assumptions: the fraction of peak FLOP/s and of bandwidth a kernel reaches
  (1.0: the ideal floor) and a fixed overhead per step (launches, scheduling, sampling).
- "realistic": `inferledger.ledger.realistic` (calibrated kernel latencies) on the same rows, when that module is
  installed: what realistic_step(rows, accelerator, calibration) gives, evaluated on arrays (realistic_cost.py).
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
    topology: object = None  # the node and links a sharded model's collectives cross (None: the card's own node)
    _realistic: object = None  # RealisticArrays, for the realistic source
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
        self._dequant = c[FIELDS.index("dequant_ops")] * inverse_vector_peak
        g = len(self.model.layouts)
        self._all_linear = all(layout.linear for layout in self.model.layouts)
        self._decode_column = 3 + 2 * g
        self._key_columns = [4 + 2 * g + k for k in range(2 * g)]
        self._compute_per_key = self._compute[self._key_columns].sum(axis=0)
        self._memory_per_key = self._memory[self._key_columns].sum(axis=0)
        self._dequant_per_key = self._dequant[self._key_columns].sum(axis=0)
        t = self.model.table  # (fields, grid, expert rows)
        experts = self.model.expert_rows
        if experts.size:
            self._table_compute = t[FIELDS.index("flops")] * inverse_peak[experts]
            self._table_memory = sum(t[FIELDS.index(f)] for f in BYTE_FIELDS) * inverse_bandwidth
            self._table_dequant = t[FIELDS.index("dequant_ops")] * inverse_vector_peak
        self._communication_lines()

    def _communication_lines(self) -> None:
        """A sharded model's collectives: each row's time is the least of lines in its message bytes (one per
        algorithm for the floor, per measured implementation for the realistic cost: collectives.floor_lines and
        realistic_lines, the functions the ledger's own step times use), and its message bytes are linear in the
        step's features — so every step's collectives are priced at once, exactly."""
        from inferledger.ledger.collectives import floor_lines, realistic_lines

        self._comm = self.model.communication_rows
        if not self._comm.size:
            return
        if self.topology is None:
            from inferledger.hardware.topology import topology_for

            self.topology = topology_for(self.accelerator)
        template = [self.model.template[r] for r in self._comm]
        links = [self.topology.link_for(r.span_cards) for r in template]
        self._message = self.model.coefficients[FIELDS.index("message_bytes")][:, self._comm]  # (features, rows)
        self._comm_counts = self._counts[self._comm]

        def padded(lines_per_row):
            width = max(len(lines) for lines in lines_per_row)
            full = [list(lines) + [(np.inf, 0.0)] * (width - len(lines)) for lines in lines_per_row]
            return np.array([[a for a, _ in lines] for lines in full]), np.array([[b for _, b in lines]
                                                                                 for lines in full])

        self._floor_lines = padded([floor_lines(r.collective, r.group_cards, link)
                                    for r, link in zip(template, links, strict=True)])
        fitted = [realistic_lines(r.collective, r.group_cards, link, self.accelerator.name,
                                  self.topology.within_node(r.span_cards))
                  for r, link in zip(template, links, strict=True)]
        for r, lines in zip(template, fitted, strict=True):
            note = f"{r.collective}: no collective measurements stand in: the floor is used"
            if lines is None and self.source == "realistic" and note not in self.notes:
                self.notes.append(note)
        # A row without measurements is priced at its floor (a line at −∞ never wins the max below).
        self._realistic_lines = padded([lines or ((-np.inf, 0.0),) for lines in fitted])

    def communication_seconds(self, x: np.ndarray, realistic: bool = False) -> np.ndarray:
        """Σ over the communication rows × count of each step's collective time (0 for one card); realistic: the
        fitted cost, never under the floor (realistic.communication_estimate)."""
        if not self._comm.size:
            return np.zeros(x.shape[:-1]) if x.ndim > 1 else 0.0
        message = (x @ self._message)[..., None]  # (…, rows, 1)
        a, b = self._floor_lines
        seconds = (a + message * b).min(axis=-1)
        if realistic:
            a, b = self._realistic_lines
            seconds = np.maximum((a + message * b).min(axis=-1), seconds)
        return seconds @ self._comm_counts

    def decode_seconds(self, sequences: int, keys: np.ndarray) -> np.ndarray:
        """Steps where `sequences` sequences decode and nothing else runs, for a model whose attention is all full
        (no window): keys[j] = Σ (context + 1) over the sequences in step j. The same sum as floor_seconds, without
        building the feature rows (the hot path of a decode stretch)."""
        if self.source == "realistic" or not self._all_linear or self._comm.size:
            x = np.zeros((keys.size, self.model.feature_count))
            x[:, 0], x[:, self._decode_column] = 1.0, sequences
            x[:, self._key_columns] = keys[:, None]
            return self.seconds(x)
        d = self._decode_column
        lines = self._decode_lines(sequences)  # (3, 2, rows): compute/memory/dequant × intercept/slope
        per_row = lines[:, 0, None, :] + keys[None, :, None] * lines[:, 1, None, :]  # (3, steps, rows)
        seconds = per_row.max(axis=0) @ self._counts
        if self.model.expert_rows.size:
            x = np.zeros(self.model.feature_count)
            x[0], x[d] = 1.0, sequences
            seconds += self._expert_seconds(x[None, :])[0]
        return seconds + self.overhead_seconds

    def _decode_lines(self, sequences: int) -> np.ndarray:
        """Each row's compute, memory and dequantization seconds in a decode-only step, as lines in the keys."""
        d = self._decode_column
        return np.array([[m[0] + sequences * m[d], per_key] for m, per_key in (
            (self._compute, self._compute_per_key), (self._memory, self._memory_per_key),
            (self._dequant, self._dequant_per_key))])

    def decode_pieces(self, sequences: int):
        """decode_seconds(sequences, keys) as a piecewise-linear function of keys, or None for windowed attention.
        Floor: each row's time is the max of three lines in keys (compute, memory, dequantization), so the sum is
        linear between the keys where two of them cross — exact. Realistic: the estimate tabulated on keys 2%
        apart (per-sequence context 0 … 2²⁰) and linear between, within ~1e-4 of it. (breaks, intercepts,
        slopes), piece p covering breaks[p-1] ≤ keys ≤ breaks[p]. Cached per batch size."""
        if not self._all_linear:
            return None
        if self.source == "realistic":
            pieces = self._pieces.get(sequences)
            if pieces is None:
                keys = sequences * np.unique(np.rint(1.02 ** np.arange(0, 702)))  # Σ (context + 1): 1 … ~2²⁰
                seconds = self.decode_seconds(sequences, keys)
                slopes = np.diff(seconds) / np.diff(keys)
                intercepts = seconds[:-1] - slopes * keys[:-1]
                pieces = self._pieces[sequences] = (keys[1:-1].tolist(), intercepts.tolist(), slopes.tolist())
            return pieces
        pieces = self._pieces.get(sequences)
        if pieces is None:
            lines = self._decode_lines(sequences)
            intercepts, slopes = lines[:, 0, :], lines[:, 1, :]  # (3, rows)
            with np.errstate(divide="ignore", invalid="ignore"):
                crossings = [(intercepts[b] - intercepts[a]) / (slopes[a] - slopes[b]) for a, b in ((0, 1), (0, 2),
                                                                                                     (1, 2))]
            found = np.concatenate(crossings)
            breaks = sorted({float(k) for k in found[np.isfinite(found) & (found > 0)]})
            constant = self.decode_seconds(sequences, np.zeros(1))[0] - intercepts.max(axis=0) @ self._counts
            piece_intercepts, piece_slopes = [], []
            edges = [0.0, *breaks, (breaks[-1] if breaks else 0.0) * 2 + 1.0]
            for low, high in zip(edges[:-1], edges[1:], strict=True):
                line = np.argmax(intercepts + (low + high) / 2 * slopes, axis=0)  # which term binds each row
                columns = np.arange(line.size)
                piece_intercepts.append(float(intercepts[line, columns] @ self._counts + constant))
                piece_slopes.append(float(slopes[line, columns] @ self._counts))
            pieces = self._pieces[sequences] = (breaks, piece_intercepts, piece_slopes)
        return pieces

    def seconds(self, x: np.ndarray) -> np.ndarray:
        """The time of each step whose features are the rows of x (one step: a 1-D x gives a 0-d array)."""
        if self.source == "realistic":
            seconds = self._realistic.seconds(x)
            return seconds + self.communication_seconds(x, realistic=True) if self._comm.size else seconds
        return self.floor_seconds(x)

    def floor_seconds(self, x: np.ndarray) -> np.ndarray:
        """Σ over rows of count × max(FLOPs / peak, bytes / bandwidth, dequant / vector peak) + overhead
        (roofline.TimedRow.seconds: the three overlap)."""
        seconds = np.maximum(np.maximum(x @ self._compute, x @ self._memory), x @ self._dequant) @ self._counts
        if self.model.expert_rows.size:
            seconds = seconds + self._expert_seconds(x)
        if self._comm.size:
            seconds = seconds + self.communication_seconds(x)
        return seconds + self.overhead_seconds

    def _expert_seconds(self, x: np.ndarray) -> np.ndarray:
        """The routed-expert rows, from their table over the step's tokens."""
        experts = self.model.expert_rows
        tokens, grid = self.model.tokens(x), self.model.table_tokens
        terms = [np.stack([np.interp(tokens, grid, table[:, j]) for j in range(experts.size)], -1)
                 for table in (self._table_compute, self._table_memory, self._table_dequant)]
        return np.maximum(np.maximum(terms[0], terms[1]), terms[2]) @ self._counts[experts]

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
        from inferledger.ledger.realistic import load_calibration
    except ImportError:
        return None
    return load_calibration


def step_cost(model: StepModel, accelerator, *, source: str = "auto", compute_efficiency: float = 1.0,
              bandwidth_efficiency: float = 1.0, overhead_seconds: float = 0.0,
              calibration_path: str | None = None, topology=None) -> StepCost:
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
        load_calibration = realistic
        if compute_efficiency != 1.0 or bandwidth_efficiency != 1.0 or overhead_seconds:
            notes.append("efficiency and overhead options apply to the floor only; the realistic estimate "
                         "carries its own")
        from inferledger.simulate.realistic_cost import RealisticArrays

        arrays = RealisticArrays(model, accelerator, load_calibration(calibration_path))
        return StepCost(model, accelerator, "realistic", notes=notes + arrays.notes, topology=topology,
                        _realistic=arrays)
    if source == "auto":
        notes.append("the realistic estimate is not installed: step times are the roofline floor")
    return StepCost(model, accelerator, "floor", float(compute_efficiency), float(bandwidth_efficiency),
                    float(overhead_seconds), notes, topology)


def floor_reference_seconds(spec, accelerator, formats, step) -> float:
    """The ledger's own floor for one uniform step (what step_cost must reproduce): roofline.time_step."""
    from inferledger.operators import rows

    main = runs_at(accelerator, formats.weights.compute_dtype)[0]
    return time_step(rows(spec, step, formats), accelerator, 0.0, main).seconds
