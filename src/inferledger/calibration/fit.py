"""Fit the realistic estimate's parameters to measured kernel latencies, and say how well they hold on rows left out.

Rows are read and priced by calibration/kernels.py. The fit uses the clean rows (not cache-resident, not suspect) and
the small cache-resident ones, whose floor is under a tenth of their time: their time is the call latency (and the
serial walk of a context), which no cache changes, and the clean rows are mostly too large to show it. Rows are
grouped by (kind, generation, dtype) and each group's parameters minimise the mean |log(predicted / measured)|
over its training rows (a relative error: a 10 µs call and a 10 ms call count alike), by Nelder-Mead from a few
starts, for each way of blending the terms (their max, or a p-norm with p = 1, 2, 4); the best on the training rows
wins. A group whose training rows include no small calls cannot see its call latency (microseconds under
milliseconds): it takes the median call latency fitted for its kind on the same generation. Rows whose CRC-32 is
divisible by 5 (about a fifth, fixed by their text) are held out: the errors reported
are measured on them. A generation without measurements gets, per (kind, dtype), the median of the measured
generations' parameters; `cross_generation` says how well that works by predicting each measured generation from
the others.

Run it to regenerate the bundled file:  python -m inferledger.calibration.fit CSV... [-o params.json]
"""

from __future__ import annotations

import argparse
import datetime
import hashlib
import json
import math
import os
import statistics
import sys

import numpy as np

from inferledger.calibration import (
    BUNDLED,
    DEFAULT_GENERATION,
    SCHEMA,
    Calibration,
    Entry,
    calibration_from_dict,
)
from inferledger.errors import CalibrationError
from inferledger.ledger.realistic import entry_seconds, generation_of, math_dtype
from inferledger.ledger.roofline import runs_at, time_rows

MIN_FIT_ROWS = 6  # fewer clean training rows than this: the group takes the defaults instead
SMALL_CALL = 0.1  # a cache-resident row whose floor is under this fraction of its time shows the call latency
MIN_SMALL_CALLS = 3  # fewer small calls than this among a group's training rows: it borrows its call latency
BLEND_POWERS = (None, 1.0, 2.0, 4.0)
SERIAL_KINDS = ("attention_decode", "mla_decode")  # kernels that may walk the context serially
# Per forward step, on top of the kernels: the scheduler, sampling and the gaps between CUDA graphs. No kernel table
# measures it, and the kernels alone already come out slower than TensorRT-LLM's published end-to-end runs
# (docs/accuracy.md): any overhead here would move every estimate further from them. A user's file may set one.
STEP_OVERHEAD_SECONDS = 0.0
# Unmeasured generations and the measured one whose kernels they resemble most: datacenter Blackwell runs the
# Hopper-style kernels (split-KV MLA, FA3-class attention) with HBM; the GDDR7 workstation Blackwell (GB202) is built
# like Ada's AD102. An assumption, stated so a user's calibration file can change it.
STAND_INS = {"blackwell": "hopper", "blackwell-gb202": "ada", "cdna3": "hopper"}


class Group:
    """The arrays of one (kind, generation, dtype): floor terms, keys and measured seconds, per clean row."""

    def __init__(self, kernels):
        self.kernels = kernels
        compute, memory, keys, floor, measured = [], [], [], [], []
        for k in kernels:
            a = k.accelerator
            peak = a.peak_flops_per_second(runs_at(a, math_dtype(k.shape.dtype))[0])
            compute.append(k.row.flops / peak)
            memory.append(k.row.bytes / a.memory_bandwidth_bytes_per_second)
            keys.append(k.shape.keys_per_sequence)
            floor.append(time_rows([k.row], a)[0].seconds)
            measured.append(k.measured_seconds)
        self.compute, self.memory, self.keys = np.array(compute), np.array(memory), np.array(keys)
        self.floor, self.measured = np.array(floor), np.array(measured)

    def predict(self, entry: Entry, mask=slice(None)):
        seconds = entry_seconds(entry, self.compute[mask], self.memory[mask], self.keys[mask])
        return np.maximum(seconds, self.floor[mask])  # as estimate_row: never below the floor


def _entry(x, power, kind, generation, dtype, serial: bool, fixed_call: float | None = None) -> Entry:
    def unit(v):  # (0, 1]: an efficiency
        return float(1.0 / (1.0 + math.exp(-max(-40.0, min(40.0, v)))))

    call = fixed_call if fixed_call is not None else float(math.exp(min(0.0, x[0])))
    return Entry(kind, generation, dtype, call_seconds=call, compute_efficiency=unit(x[1]),
                 memory_efficiency=unit(x[2]), seconds_per_key=float(math.exp(min(0.0, x[3]))) if serial else 0.0,
                 blend_power=power)


def _nelder_mead(loss, start, steps: int = 500):
    """Minimise loss(x) from `start`: the textbook simplex method (reflect, expand, contract, shrink)."""
    dims = len(start)
    simplex = [np.array(start, float)] + [np.array(start, float) + np.eye(dims)[i] * 0.8 for i in range(dims)]
    values = [loss(x) for x in simplex]
    for _ in range(steps):
        order = np.argsort(values)
        simplex, values = [simplex[i] for i in order], [values[i] for i in order]
        centroid = np.mean(simplex[:-1], axis=0)
        reflected = centroid + (centroid - simplex[-1])
        r = loss(reflected)
        if r < values[0]:
            expanded = centroid + 2.0 * (centroid - simplex[-1])
            e = loss(expanded)
            simplex[-1], values[-1] = (expanded, e) if e < r else (reflected, r)
        elif r < values[-2]:
            simplex[-1], values[-1] = reflected, r
        else:
            contracted = centroid + 0.5 * (simplex[-1] - centroid)
            c = loss(contracted)
            if c < values[-1]:
                simplex[-1], values[-1] = contracted, c
            else:
                simplex = [simplex[0] + 0.5 * (x - simplex[0]) for x in simplex]
                values = [loss(x) for x in simplex]
        if max(values) - min(values) < 1e-7:
            break
    best = int(np.argmin(values))
    return simplex[best], values[best]


def fit_group(group: Group, train, kind: str, generation: str, dtype: str, fixed_call: float | None = None) -> Entry:
    """The entry minimising the training loss; `fixed_call` pins the call latency when no row shows it."""
    serial = kind in SERIAL_KINDS
    measured = group.measured[train]
    log_measured = np.log(measured)
    best = None
    for power in BLEND_POWERS:
        def loss(x, power=power):
            entry = _entry(x, power, kind, generation, dtype, serial, fixed_call)
            return float(np.mean(np.abs(np.log(group.predict(entry, train)) - log_measured)))

        for start in ([math.log(float(measured.min()) * 0.5), 0.0, 1.0, -20.0],
                      [math.log(5e-6), 1.5, 2.0, -16.0], [math.log(20e-6), -1.0, 0.0, -18.0]):
            x, value = _nelder_mead(loss, start)
            if best is None or value < best[1]:
                best = (_entry(x, power, kind, generation, dtype, serial, fixed_call), value)
    return best[0]


def relative_errors(group: Group, entry: Entry, mask) -> np.ndarray:
    return np.abs(group.predict(entry, mask) / group.measured[mask] - 1.0)


def _errors(errors) -> dict:
    if not len(errors):
        return {"median": None, "p90": None}
    return {"median": round(float(np.median(errors)), 4), "p90": round(float(np.quantile(errors, 0.9)), 4)}


def _median_entry(entries: list, kind: str, dtype: str) -> Entry:
    powers = [e.blend_power for e in entries]
    power = max(set(powers), key=lambda p: (powers.count(p), -1 if p is None else p))
    return Entry(kind, DEFAULT_GENERATION, dtype,
                 call_seconds=statistics.median(e.call_seconds for e in entries),
                 compute_efficiency=statistics.median(e.compute_efficiency for e in entries),
                 memory_efficiency=statistics.median(e.memory_efficiency for e in entries),
                 seconds_per_key=statistics.median(e.seconds_per_key for e in entries), blend_power=power,
                 fit_rows=sum(e.fit_rows for e in entries), cards=tuple(sorted({c for e in entries for c in e.cards})))


def _rounded(entry: Entry, **more) -> Entry:
    values = {k: (float(f"{v:.4g}") if isinstance(v, float) else v) for k, v in entry.__dict__.items()}
    values.update(more)
    return Entry(**values)


def small_call(kernel) -> bool:
    """A cache-resident (not suspect) row so small that its time is the call latency, not its bytes."""
    return kernel.priced and not kernel.clean and kernel.excluded != "flagged suspect" and \
        time_rows([kernel.row], kernel.accelerator)[0].seconds < SMALL_CALL * kernel.measured_seconds


def _borrowed_call(entries: dict, kind: str, generation: str) -> float | None:
    """The median call latency fitted for `kind` on `generation` (else on any generation); None if there is none."""
    for same in ((e for (k, g, _), e in entries.items() if k == kind and g == generation),
                 (e for (k, _, _), e in entries.items() if k == kind)):
        calls = [e.call_seconds for e in same]
        if calls:
            return statistics.median(calls)
    return None


def groups_of(kernels) -> dict:
    out: dict = {}
    for k in kernels:
        if k.priced and (k.clean or small_call(k)):
            out.setdefault((k.shape.kind, generation_of(k.accelerator), k.shape.dtype), []).append(k)
    return out


def fit(kernels, sources: list, date: str | None = None) -> Calibration:
    """Fit every (kind, generation, dtype) with enough clean rows; defaults for the rest; errors on held-out rows."""
    entries, fitted_groups = {}, {}
    # Groups with small calls among their training rows pin their own call latency; the others (only large rows,
    # where a few microseconds are invisible) borrow the median call latency of their kind on the same generation.
    pending, borrowed = [], []
    for key, members in sorted(groups_of(kernels).items()):
        shows_calls = sum(not k.clean and not k.held_out for k in members) >= MIN_SMALL_CALLS
        pending.append((not shows_calls, key, members))
    for borrows, (kind, generation, dtype), members in sorted(pending, key=lambda p: (p[0], p[1])):
        group = Group(members)
        clean = np.array([k.clean for k in members])
        held = np.array([k.held_out for k in members]) & clean  # judged on clean rows only
        train = np.array([not k.held_out for k in members])
        if (train & clean).sum() < MIN_FIT_ROWS:
            continue
        fixed_call = _borrowed_call(entries, kind, generation) if borrows else None
        if fixed_call is not None:
            borrowed.append(f"{kind}/{generation}/{dtype}")
        entry = fit_group(group, train, kind, generation, dtype, fixed_call)
        errors = _errors(relative_errors(group, entry, held))
        entries[(kind, generation, dtype)] = _rounded(
            entry, fit_rows=int(train.sum()), held_out_rows=int(held.sum()),
            held_out_median_error=errors["median"], held_out_p90_error=errors["p90"],
            cards=tuple(sorted({k.gpu for k in members})))
        fitted_groups[(kind, generation, dtype)] = (group, held)
    by_kind_dtype: dict = {}
    for (kind, _, dtype), entry in entries.items():
        by_kind_dtype.setdefault((kind, dtype), []).append(entry)
    cross = {}
    for (kind, dtype), same in by_kind_dtype.items():
        entries[(kind, DEFAULT_GENERATION, dtype)] = _rounded(_median_entry(same, kind, dtype))
        for entry in same:  # predict this generation's held-out rows from the others' median
            others = [e for e in same if e is not entry]
            if not others:
                continue
            group, held = fitted_groups[(kind, entry.generation, dtype)]
            errors = _errors(relative_errors(group, _median_entry(others, kind, dtype), held))
            cross[f"{kind}/{dtype}/{entry.generation}"] = errors["median"]
    if not entries:
        raise CalibrationError("no (kind, generation, dtype) has enough clean, priced rows to fit "
                               f"(at least {MIN_FIT_ROWS} outside the held-out fifth)")
    clean = [k for k in kernels if k.priced and k.clean]
    provenance = {
        "sources": sources,
        "rows": len(kernels), "priced_rows": sum(k.priced for k in kernels), "clean_rows": len(clean),
        "small_call_rows": sum(small_call(k) for k in kernels),
        "fit_rows": sum(not k.held_out for k in clean), "held_out_rows": sum(k.held_out for k in clean),
        "split": "held out: CRC-32 of the CSV line divisible by 5; clean: not flagged l2_fit or suspect, and "
                 "bytes above twice the card's L2; small calls (cache-resident, floor under a tenth of the time) "
                 "join the fit, never the held-out errors",
        "objective": "mean |log(predicted / measured)| over the training rows, Nelder-Mead",
        "fitted_on": date or datetime.date.today().isoformat(),
        "fit_error": "held-out median and p90 of |predicted / measured - 1| per entry",
        "cross_generation_median_error": cross,
        "call_latency_borrowed": borrowed,
        "step_overhead": "0: the kernels alone already account for published end-to-end step times "
                         "(docs/accuracy.md); no kernel table measures an overhead",
    }
    measured = {g for _, g, _ in entries}
    stand_ins = {g: s for g, s in STAND_INS.items() if s in measured and g not in measured}
    return Calibration(entries, STEP_OVERHEAD_SECONDS, provenance, source="fit", stand_ins=stand_ins)


def describe_source(path: str, kernels) -> dict:
    with open(path, "rb") as handle:
        digest = hashlib.sha256(handle.read()).hexdigest()
    return {"file": os.path.basename(path), "sha256": digest, "rows": len(kernels),
            "clean_rows": sum(k.priced and k.clean for k in kernels)}


def fit_files(paths, date: str | None = None) -> tuple[Calibration, list]:
    from inferledger.calibration.kernels import read_kernels

    kernels, sources = [], []
    for path in paths:
        rows = read_kernels(path)
        kernels.extend(rows)
        sources.append(describe_source(path, rows))
    return fit(kernels, sources, date), kernels


def write(calibration: Calibration, path: str) -> None:
    document = calibration.to_dict()
    calibration_from_dict(json.loads(json.dumps(document)), path)  # what we write must load
    with open(path, "w", encoding="utf-8") as handle:
        json.dump(document, handle, indent=1)
        handle.write("\n")


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description="Fit the realistic estimate to kernel-latency CSVs.")
    parser.add_argument("csv", nargs="+", help="kernel-latency CSV files (aiconfigurator collector schema)")
    parser.add_argument("-o", "--output", default=BUNDLED, help="where to write the parameters (default: bundled)")
    parser.add_argument("--date", help="the fit date to record (default: today)")
    args = parser.parse_args(argv)
    calibration, _ = fit_files(args.csv, args.date)
    write(calibration, args.output)
    print(f"wrote {len(calibration.entries)} entries to {args.output}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

__all__ = ["SCHEMA", "fit", "fit_files", "write"]
