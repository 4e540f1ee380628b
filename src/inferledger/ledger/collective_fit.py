"""Fit the realistic cost of a collective on measurements: seconds = latency + bytes sent / (fraction × bandwidth).

Input: a CSV of measured calls, one row per (accelerator, implementation, collective, cards, message size), with the
columns aiconfigurator's collector writes (gpu, impl, op_name, num_gpus, message_bytes, latency_us, bus_bytes,
link_bw_Bps). `bus_bytes` is NCCL's per-card traffic, the same formulas as collectives.bytes_sent (checked on every
row), so x = bus_bytes / link bandwidth is the bandwidth floor of the call and the fit is a line t = a + x / f.

The line is fitted per (accelerator, collective, cards) by least squares on the relative error (a 5 µs call and a
5 ms call weigh the same), with a ≥ 0. Its error is measured held out: fit on every other message size, score on the
ones left out. `python -m inferledger.ledger.collective_fit FILE.csv` writes collectives_fit.json beside this module.
"""

from __future__ import annotations

import csv
import json
import os
import statistics
import sys
from datetime import date

from inferledger.ledger.collectives import bytes_sent

# The collector's names → ours. Engine all-reduces: vLLM's custom all-reduce (CUDA graph mode, what serving runs).
OPERATIONS = {("nccl", "all_reduce"): "all_reduce", ("nccl", "all_gather"): "all_gather",
              ("nccl", "reduce_scatter"): "reduce_scatter", ("nccl", "alltoall"): "all_to_all",
              ("vllm:vLLM_custom_graph", "all_reduce"): "custom_all_reduce"}
PARTS = {"a100_sxm": "a100-sxm-80gb", "h100_sxm": "h100-sxm", "l40s": "l40s"}
# Parts with no measurement borrow one with the same link (NVLink generation and switch, or PCIe only).
STAND_INS = {"a100-sxm-40gb": "a100-sxm-80gb", "h200-sxm": "h100-sxm", "l4": "l40s", "a10g": "l40s",
             "rtx-4090": "l40s", "rtx-5090": "l40s", "rtx-6000-ada": "l40s",
             "l40": "l40s", "a10": "l40s", "t4": "l40s"}


def read_measurements(path: str) -> dict:
    """{(part, collective, cards): [(floor seconds, measured seconds), ...]} from the CSV."""
    groups: dict = {}
    with open(path, newline="", encoding="utf-8") as file:
        for row in csv.DictReader(file):
            name = OPERATIONS.get((row["impl"], row["op_name"]))
            if name is None or row["gpu"] not in PARTS:
                continue
            cards, message = int(row["num_gpus"]), float(row["message_bytes"])
            sent = float(row["bus_bytes"])
            ours = bytes_sent("all_reduce" if name == "custom_all_reduce" else name, message, cards)
            assert abs(sent - ours) <= 1e-9 * max(ours, 1.0), (row, ours)  # our formulas are NCCL's bus bytes
            key = (PARTS[row["gpu"]], name, cards)
            groups.setdefault(key, []).append((sent / float(row["link_bw_Bps"]), float(row["latency_us"]) * 1e-6))
    return groups


def fit_line(points: list) -> tuple[float, float]:
    """(latency a ≥ 0, bandwidth fraction f) minimising Σ ((a + x/f − t) / t)²."""
    # Weighted normal equations for t = a + b·x with weights 1/t².
    sw = sum(1 / t**2 for _, t in points)
    sx = sum(x / t**2 for x, t in points)
    sxx = sum(x * x / t**2 for x, t in points)
    sy = sum(1 / t for _, t in points)
    sxy = sum(x / t for x, t in points)
    determinant = sw * sxx - sx * sx
    a = (sy * sxx - sx * sxy) / determinant
    b = (sw * sxy - sx * sy) / determinant
    if a < 0:  # a negative latency is no latency: refit the slope alone
        a, b = 0.0, sxy / sxx
    return a, 1.0 / b


def relative_errors(points: list, a: float, fraction: float) -> list:
    return [abs(a + x / fraction - t) / t for x, t in points]


def held_out(points: list) -> dict:
    """Fit on every other message size, score on the others (both ways round)."""
    ordered = sorted(points)
    errors = []
    for start in (0, 1):
        train, test = ordered[start::2], ordered[1 - start::2]
        errors += relative_errors(test, *fit_line(train))
    return {"median": statistics.median(errors), "max": max(errors)}


def fit_all(path: str) -> dict:
    fits: dict = {}
    errors = []
    for (part, name, cards), points in sorted(read_measurements(path).items()):
        a, fraction = fit_line(points)
        error = held_out(points)
        errors.append(error["median"])
        fits.setdefault(part, {}).setdefault(name, {})[str(cards)] = {
            "latency_seconds": a, "bandwidth_fraction": fraction, "points": len(points),
            "held_out_relative_error": error,
        }
    return {
        "schema": "inferledger.collectives_fit/1",
        "model": "seconds = latency_seconds + bytes sent per card / (bandwidth_fraction x link bandwidth per "
                 "direction); bytes sent per card = NCCL bus bytes (collectives.bytes_sent)",
        "provenance": {
            "measurements": os.path.basename(path),
            "collector": "NVIDIA aiconfigurator-core 0.12.0 collectors (Apache-2.0); NCCL 2.27.3; vLLM custom "
                         "all-reduce in CUDA-graph mode; GPU time per call after warm-up",
            "fitted_by": "inferledger.ledger.collective_fit", "fitted_on": date.today().isoformat(),
            "held_out": "fit on every other message size, scored on the others; median of the groups' median "
                        f"relative errors {statistics.median(errors):.3f}",
        },
        "stand_ins": STAND_INS,
        "fits": fits,
    }


def main(argv: list[str]) -> int:
    if len(argv) != 1:
        print("usage: python -m inferledger.ledger.collective_fit comm_collectives_latency.csv", file=sys.stderr)
        return 2
    document = fit_all(argv[0])
    target = os.path.join(os.path.dirname(__file__), "collectives_fit.json")
    with open(target, "w", encoding="utf-8") as file:
        json.dump(document, file, indent=1)
        file.write("\n")
    print(f"wrote {target}: {document['provenance']['held_out']}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
