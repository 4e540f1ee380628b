"""Fitted parameters of the realistic estimate: what real kernels reach, per operator kind, generation and dtype.

A Calibration holds one Entry per (kind, generation, dtype) fitted on measured kernel latencies (calibration/fit.py
writes them), the defaults for generations without measurements (the median over the measured generations), a
per-step overhead and the provenance of it all. `load_calibration()` reads the bundled params.json; a user's own
file (`inferledger calibrate … -o params.json`) loads the same way.
"""

from __future__ import annotations

import json
import math
import os
from dataclasses import dataclass, field
from functools import lru_cache

from inferledger.errors import CalibrationError

SCHEMA = "inferledger.calibration/1"
DEFAULT_GENERATION = "*"  # entries that stand for every generation without measurements of its own
BUNDLED = os.path.join(os.path.dirname(__file__), "params.json")


@dataclass(frozen=True)
class Entry:
    """The fitted parameters of one (kind, generation, dtype), and how well they did on rows held out of the fit."""

    kind: str
    generation: str
    dtype: str
    call_seconds: float  # fixed time of one kernel call
    compute_efficiency: float  # fraction of the peak FLOP/s reached (0, 1]
    memory_efficiency: float  # fraction of the peak bandwidth reached (0, 1]
    seconds_per_key: float = 0.0  # per cached key of one sequence, for kernels that walk the context serially
    blend_power: float | None = None  # None: max of the terms (full overlap); p: their p-norm
    fit_rows: int = 0
    held_out_rows: int = 0
    held_out_median_error: float | None = None
    held_out_p90_error: float | None = None
    cards: tuple = ()  # calibration gpu names the entry was fitted on

    def to_dict(self) -> dict:
        out = dict(self.__dict__)
        out["cards"] = list(self.cards)
        return out


@dataclass(frozen=True)
class Calibration:
    entries: dict  # (kind, generation, dtype) -> Entry
    step_overhead_seconds: float  # per forward step: scheduling, sampling, gaps between kernels
    provenance: dict
    source: str = "bundled"  # "bundled" or the file's path
    # A generation without measurements of its own borrows the nearest measured one's parameters (else "*").
    stand_ins: dict = field(default_factory=dict)

    def lookup(self, kind: str, generation: str, dtype: str) -> tuple[Entry | None, bool, str]:
        """(entry, extrapolated, note): the fitted entry for these keys, else the nearest stand-in and why."""
        generations = [generation]
        if generation in self.stand_ins:
            generations.append(self.stand_ins[generation])
        generations.append(DEFAULT_GENERATION)
        for gen in generations:
            for dt in dict.fromkeys((dtype, "bf16")):
                entry = self.entries.get((kind, gen, dt))
                if entry is None:
                    continue
                if (gen, dt) == (generation, dtype):
                    return entry, False, ""
                why = []
                if gen == DEFAULT_GENERATION:
                    why.append(f"no {kind} measurements on {generation or 'this'} cards: the median of the measured "
                               "generations is used")
                elif gen != generation:
                    why.append(f"no {kind} measurements on {generation} cards: {gen}'s fitted parameters stand in")
                if dt != dtype:
                    why.append(f"no {dtype} {kind} measurements: the bf16 entry's parameters stand in")
                return entry, True, "; ".join(why)
        return None, True, f"no {kind} calibration at all"

    def generations(self) -> tuple:
        return tuple(sorted({g for _, g, _ in self.entries if g != DEFAULT_GENERATION}))

    def to_dict(self) -> dict:
        return {"schema": SCHEMA, "step_overhead_seconds": self.step_overhead_seconds,
                "stand_ins": dict(self.stand_ins), "provenance": self.provenance,
                "entries": [e.to_dict() for e in sorted(self.entries.values(),
                                                        key=lambda e: (e.kind, e.generation, e.dtype))]}


def _number(value, what: str, *, low: float = 0.0, high: float = math.inf, allow_low: bool = False) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
        raise CalibrationError(f"{what} must be a number, got {value!r}")
    if value < low or (value == low and not allow_low) or value > high:
        raise CalibrationError(f"{what} must be in ({low}, {high}], got {value!r}")
    return float(value)


def _entry(raw, where: str) -> Entry:
    if not isinstance(raw, dict):
        raise CalibrationError(f"{where}: an entry must be a mapping, got {type(raw).__name__}")
    for key in ("kind", "generation", "dtype"):
        if not isinstance(raw.get(key), str) or not raw[key]:
            raise CalibrationError(f"{where}: missing field {key!r} (a name such as 'gemm', 'hopper', 'bf16')")
    name = f"{where} ({raw['kind']}, {raw['generation']}, {raw['dtype']})"
    power = raw.get("blend_power")
    return Entry(
        kind=raw["kind"], generation=raw["generation"], dtype=raw["dtype"],
        call_seconds=_number(raw.get("call_seconds"), f"{name}: call_seconds", high=1.0, allow_low=True),
        compute_efficiency=_number(raw.get("compute_efficiency"), f"{name}: compute_efficiency", high=1.0),
        memory_efficiency=_number(raw.get("memory_efficiency"), f"{name}: memory_efficiency", high=1.0),
        seconds_per_key=_number(raw.get("seconds_per_key", 0.0), f"{name}: seconds_per_key", high=1.0,
                                allow_low=True),
        blend_power=None if power is None else _number(power, f"{name}: blend_power", low=1.0, high=64.0,
                                                       allow_low=True),
        fit_rows=int(raw.get("fit_rows") or 0), held_out_rows=int(raw.get("held_out_rows") or 0),
        held_out_median_error=raw.get("held_out_median_error"), held_out_p90_error=raw.get("held_out_p90_error"),
        cards=tuple(raw.get("cards") or ()),
    )


def calibration_from_dict(document, source: str) -> Calibration:
    """Validate a parsed params document; every error names the file and the field."""
    if not isinstance(document, dict) or document.get("schema") != SCHEMA:
        raise CalibrationError(f"{source}: not a calibration file (expected \"schema\": \"{SCHEMA}\"); "
                               "write one with `inferledger calibrate FILE.csv -o params.json`")
    raw_entries = document.get("entries")
    if not isinstance(raw_entries, list) or not raw_entries:
        raise CalibrationError(f"{source}: 'entries' must be a non-empty list of fitted parameters")
    entries = {}
    for index, raw in enumerate(raw_entries):
        entry = _entry(raw, f"{source}: entries[{index}]")
        entries[(entry.kind, entry.generation, entry.dtype)] = entry
    overhead = _number(document.get("step_overhead_seconds", 0.0), f"{source}: step_overhead_seconds", high=10.0,
                       allow_low=True)
    provenance = document.get("provenance") or {}
    stand_ins = document.get("stand_ins") or {}
    if not isinstance(stand_ins, dict) or not all(isinstance(v, str) for v in stand_ins.values()):
        raise CalibrationError(f"{source}: 'stand_ins' must map a generation to a measured one, e.g. "
                               "{\"blackwell\": \"hopper\"}")
    return Calibration(entries, overhead, provenance if isinstance(provenance, dict) else {}, source, stand_ins)


@lru_cache(maxsize=1)
def _bundled() -> Calibration:
    with open(BUNDLED, encoding="utf-8") as handle:
        return calibration_from_dict(json.load(handle), "bundled")


def load_calibration(path: str | None = None) -> Calibration:
    """The bundled calibration (path None), or a params file written by `inferledger calibrate`."""
    if path is None:
        return _bundled()
    path = os.fspath(path)
    if not os.path.isfile(path):
        raise CalibrationError(f"calibration file {path!r} not found; give a params.json written by "
                               "`inferledger calibrate`")
    try:
        with open(path, encoding="utf-8") as handle:
            document = json.load(handle)
    except (OSError, UnicodeDecodeError) as error:
        raise CalibrationError(f"cannot read calibration file {path!r}: {error}") from None
    except json.JSONDecodeError as error:
        raise CalibrationError(f"calibration file {path!r} is not valid JSON (line {error.lineno}, column "
                               f"{error.colno}: {error.msg})") from None
    return calibration_from_dict(document, path)


__all__ = ["BUNDLED", "Calibration", "DEFAULT_GENERATION", "Entry", "load_calibration", "calibration_from_dict"]
