"""The per-step overhead from a serving log or a benchmark client's output: what the engine adds on top of kernels.

Kernel tables time kernels alone; a served request also pays the scheduler, sampling and the gaps between steps. A
log that `diagnose` reads gives the observed time per decode step at its workload (ISL, OSL, concurrency); the
realistic estimate gives the kernels' time at that workload. Every decode step produces one token per running
request, so the difference is the overhead per step:

    step_overhead = observed seconds per output token − realistic kernels' seconds per token   (never below 0)

It is one number for one engine, model and card: the log must be of the model and card given.
"""

from __future__ import annotations

from dataclasses import replace

from inferledger.calibration import Calibration
from inferledger.errors import CalibrationError


def overhead_from_logs(paths, model: str, gpu: str, base: Calibration, precision: str | None = None,
                       kv_precision: str | None = None) -> tuple[Calibration, dict]:
    """(base with its step overhead fitted to the logs, a report of what was compared)."""
    from inferledger.diagnose import diagnose_files
    from inferledger.hardware import find_accelerator
    from inferledger.ledger.request import request_account
    from inferledger.model import load_model

    if not model or not gpu:
        raise CalibrationError("a serving log calibrates only with the model and card it ran: give --model and --gpu")
    diagnosis = diagnose_files(list(paths), model=model, gpu=gpu, precision=precision, kv_precision=kv_precision)
    section = diagnosis.roofline or {}
    observed = section.get("observed_decode_seconds_per_token")
    if not observed:
        raise CalibrationError(f"{', '.join(map(str, paths))}: no time per output token could be read (a TPOT, or "
                               "generation tokens/s with the running requests); nothing to calibrate the overhead on")
    isl, osl, batch = (max(1, int(round(section[key]))) for key in ("isl", "osl", "batch"))
    without = replace(base, step_overhead_seconds=0.0)
    account = request_account(load_model(model), find_accelerator(gpu), isl=isl, osl=osl, batch=batch,
                              precision=precision, kv_precision=kv_precision, calibration=without)
    kernels = account.realistic.decode_seconds_per_token
    overhead = max(0.0, observed - kernels)
    report = {
        "logs": [str(p) for p in paths], "model": account.model, "accelerator": account.accelerator,
        "precision": account.weights, "kv_precision": account.kv, "isl": isl, "osl": osl, "batch": batch,
        "observed_seconds_per_token": observed, "observed_source": section.get("decode_source"),
        "kernels_seconds_per_token": kernels, "floor_seconds_per_token": account.decode.seconds_per_token,
        "step_overhead_seconds": overhead,
        "note": "" if observed >= kernels else "the log is faster than the kernels' realistic estimate: no "
                                               "overhead to add (the kernel fit is pessimistic for this engine)",
    }
    provenance = dict(base.provenance)
    provenance["step_overhead"] = {key: report[key] for key in (
        "logs", "model", "accelerator", "precision", "kv_precision", "isl", "osl", "batch",
        "observed_seconds_per_token", "observed_source", "kernels_seconds_per_token")}
    return replace(base, step_overhead_seconds=overhead, provenance=provenance, source="fit"), report
