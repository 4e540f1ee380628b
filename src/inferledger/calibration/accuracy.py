"""How far the floor and the realistic estimate are from measured kernels: per row, and summed up by kind and card.

Errors are |predicted / measured − 1|. The held-out figures use only clean rows the fit never saw (the CRC-32 split
of calibration/kernels.py); a floor violation is a clean row measured faster than its floor, which a floor must
never allow. `python -m inferledger.calibration.accuracy CSV...` prints the table docs/accuracy.md shows, from a
fresh fit of the files given.
"""

from __future__ import annotations

import sys
from dataclasses import dataclass

import numpy as np

from inferledger.ledger.realistic import estimate_row
from inferledger.ledger.roofline import time_rows


@dataclass(frozen=True)
class KernelEstimate:
    kernel: object  # calibration.kernels.KernelRow
    floor_seconds: float | None
    realistic_seconds: float | None
    extrapolated: bool = False
    note: str = ""

    @property
    def error(self) -> float | None:
        if self.realistic_seconds is None:
            return None
        return self.realistic_seconds / self.kernel.measured_seconds - 1.0

    @property
    def floor_violation(self) -> bool:
        k = self.kernel
        return bool(k.priced and k.clean and self.floor_seconds > k.measured_seconds)

    def to_dict(self) -> dict:
        k = self.kernel
        return {
            "line": k.line, "gpu": k.gpu, "accelerator": k.accelerator.name if k.accelerator else None,
            "kind": k.shape.kind if k.shape else k.table, "dtype": k.shape.dtype if k.shape else None,
            "shape": k.label, "measured_seconds": k.measured_seconds, "floor_seconds": self.floor_seconds,
            "realistic_seconds": self.realistic_seconds, "error": self.error, "clean": k.clean,
            "excluded": k.excluded or None, "held_out": k.held_out, "extrapolated": self.extrapolated,
            "note": self.note or None, "reason": k.reason or None,
        }


def estimate_kernels(kernels, calibration) -> list[KernelEstimate]:
    """Floor and realistic time of every priced row (None for rows that cannot be priced), in the given order."""
    out = []
    for k in kernels:
        if not k.priced:
            out.append(KernelEstimate(k, None, None))
            continue
        floor = time_rows([k.row], k.accelerator)[0].seconds
        estimate = estimate_row(k.row, k.accelerator, calibration, k.shape, floor_seconds=floor)
        out.append(KernelEstimate(k, floor, estimate.seconds, estimate.extrapolated, estimate.note))
    return out


def _stats(errors: list) -> dict:
    if not errors:
        return {"median_error": None, "p90_error": None}
    values = np.abs(np.array(errors))
    return {"median_error": float(np.median(values)), "p90_error": float(np.quantile(values, 0.9))}


def summarize(estimates, key=lambda e: (e.kernel.shape.kind, e.kernel.gpu)) -> list[dict]:
    """Per group (kind and gpu by default): rows, clean rows, the realistic error on all clean rows and on the
    held-out ones, and floor violations."""
    groups: dict = {}
    for e in estimates:
        if e.kernel.priced:
            groups.setdefault(key(e), []).append(e)
    out = []
    for name, members in sorted(groups.items()):
        clean = [e for e in members if e.kernel.clean]
        held = [e for e in clean if e.kernel.held_out]
        out.append({
            "kind": name[0], "gpu": name[1], "rows": len(members), "clean_rows": len(clean),
            **_stats([e.error for e in clean]),
            "held_out_rows": len(held),
            **{f"held_out_{k}": v for k, v in _stats([e.error for e in held]).items()},
            "held_out_median_measured_over_floor": float(np.median(
                [e.kernel.measured_seconds / e.floor_seconds for e in held])) if held else None,
            "floor_violations": sum(e.floor_violation for e in members),
        })
    return out


def summary_document(estimates) -> dict:
    unpriced: dict = {}
    for e in estimates:
        if not e.kernel.priced:
            unpriced[e.kernel.reason] = unpriced.get(e.kernel.reason, 0) + 1
    return {
        "rows": len(estimates), "priced_rows": sum(e.kernel.priced for e in estimates),
        "clean_rows": sum(e.kernel.priced and e.kernel.clean for e in estimates),
        "floor_violations": sum(e.floor_violation for e in estimates),
        "by_kind_and_gpu": summarize(estimates),
        "by_kind": summarize(estimates, key=lambda e: (e.kernel.shape.kind, "all")),
        "unpriced": [{"reason": r, "rows": n} for r, n in sorted(unpriced.items())],
    }


def _percent(value) -> str:
    return "–" if value is None else f"{value:.0%}"


def _ratio(value) -> str:
    return "–" if value is None else f"{value:.2f}"


def markdown_table(estimates) -> str:
    """The accuracy table of docs/accuracy.md: held-out error per kind and card, then per kind."""
    lines = ["| kind | card | held-out rows | median error | p90 error | measured / floor (median) | clean rows "
             "| floor > measured |", "|---|---|---|---|---|---|---|---|"]
    for rows in (summarize(estimates), summarize(estimates, key=lambda e: (e.kernel.shape.kind, "all cards"))):
        for g in rows:
            lines.append(f"| {g['kind']} | {g['gpu']} | {g['held_out_rows']} | {_percent(g['held_out_median_error'])}"
                         f" | {_percent(g['held_out_p90_error'])} | {_ratio(g['held_out_median_measured_over_floor'])}"
                         f" | {g['clean_rows']} | {g['floor_violations']} |")
    return "\n".join(lines)


def main(argv=None) -> int:
    from inferledger.calibration.fit import fit_files

    paths = list(argv if argv is not None else sys.argv[1:])
    calibration, kernels = fit_files(paths)
    print(markdown_table(estimate_kernels(kernels, calibration)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
