"""`inferledger bench`: measure this machine, run a real decode loop on it, and set the ledger beside it.

1. Ceilings: peak FLOP/s per dtype, memory bandwidth, the time of one tiny call (ceilings.py).
2. A catalog model scaled down to a few times the last-level cache, run in NumPy (decode.py): prefill and decode
   timed after a burn-in run: the median prefill, and the median decode step (a median, not a mean, because
   a shared machine's spikes land on a few steps, and decode steps at nearby contexts cost the same).
3. The same model's rows (spec_from_config on the scaled config) timed by the roofline on an Accelerator built
   from the measured ceilings (the floor), and by the realistic estimate (realistic_cpu.py).

The floor must never exceed the measurement: it is what the machine's own ceilings allow.
"""

from __future__ import annotations

import os
import statistics
from dataclasses import dataclass, field

from inferledger.errors import BenchError
from inferledger.hardware.catalog import Accelerator
from inferledger.measure.ceilings import Ceilings, measure_ceilings
from inferledger.operators import Formats, Step, rows
from inferledger.precision import PRECISIONS

DEFAULT_MODEL = "meta-llama/Llama-3.2-1B"
FORMATS = Formats.of(PRECISIONS["fp32"])  # the NumPy loop runs float32: weights, KV and activations in 4 bytes


@dataclass(frozen=True)
class Size:
    cache_multiple: int  # weights ≈ this × the last-level cache: past it, decode streams from DRAM
    prompt_tokens: int
    new_tokens: int
    repeats: int


# The budget is a little over the multiple so that rounding the vocabulary and the layers down still leaves the
# weights past it.
SIZES = {"small": Size(4, 32, 12, 3), "medium": Size(8, 128, 32, 5)}


@dataclass(frozen=True)
class Phase:
    measured_seconds: float
    floor_seconds: float
    realistic_seconds: float


@dataclass(frozen=True)
class BenchResult:
    ceilings: Ceilings
    model: dict  # what ran: source model, scaled shape, parameters, weight bytes, tokens
    prefill: Phase | None  # None when only the ceilings were measured (non-NumPy backends)
    decode: Phase | None  # per token
    calibration: dict = field(default_factory=dict)
    notes: tuple = ()

    def to_dict(self) -> dict:
        ceilings = self.ceilings.to_dict()
        ceilings["call_latency_seconds"] = self.calibration.get("call_latency_seconds", self.ceilings.tiny_call_seconds)
        doc = {"ceilings": ceilings, "model": self.model, "calibration": self.calibration, "notes": list(self.notes)}
        if self.prefill:
            doc["prefill"] = {"measured_seconds": self.prefill.measured_seconds,
                              "floor_seconds": self.prefill.floor_seconds,
                              "realistic_seconds": self.prefill.realistic_seconds}
            doc["decode"] = {"measured_seconds_per_token": self.decode.measured_seconds,
                             "floor_seconds_per_token": self.decode.floor_seconds,
                             "realistic_seconds_per_token": self.decode.realistic_seconds}
        return doc


def machine_accelerator(ceilings: Ceilings) -> Accelerator:
    """This machine as the ledger sees a part: its measured ceilings (fp64 has no key in the table: left out)."""
    peaks = {k: v for k, v in ceilings.flops_per_second_by_dtype.items() if k != "fp64"}
    try:
        memory = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
    except (ValueError, OSError, AttributeError):
        memory = 0
    return Accelerator(name="this-machine", display_name=f"{ceilings.device_name} (measured)",
                       vendor="measured", memory_bytes=memory,
                       memory_bandwidth_bytes_per_second=ceilings.memory_bandwidth_bytes_per_second,
                       peak_flops_per_second_by_dtype=peaks, origin="measured by inferledger bench")


def _tiny(config: dict) -> dict:
    # The same architecture at a size where the arithmetic is nothing: what is left is the cost of the calls.
    return {**config, "hidden_size": 64, "intermediate_size": 64, "num_hidden_layers": 2, "vocab_size": 256,
            "num_attention_heads": config["num_attention_heads"] // config["num_key_value_heads"],
            "num_key_value_heads": 1}


def run_bench(model: str = DEFAULT_MODEL, size: str = "small", backend: str = "numpy", device: str = "cpu",
              progress=lambda message: None, seed: int = 0) -> BenchResult:
    import numpy as np

    from inferledger.ledger.params import count_parameters
    from inferledger.ledger.roofline import time_step
    from inferledger.measure import decode, realistic_cpu
    from inferledger.measure.ceilings import last_level_cache_bytes
    from inferledger.model import spec_from_config
    from inferledger.model.config import resolve_config

    if size not in SIZES:
        raise BenchError(f"unknown size {size!r}; use {' or '.join(SIZES)}")
    plan = SIZES[size]
    budget = (plan.cache_multiple + 0.5) * last_level_cache_bytes()
    config, source = resolve_config(model)  # a bad model name fails here, before any measuring
    scaled = decode.scale_config(config, budget, source=source)

    progress("measuring ceilings (matmul, copy, read, tiny call)")
    ceilings = measure_ceilings(backend, device, array_bytes=int(budget), repeats=plan.repeats)
    if backend != "numpy":
        return BenchResult(ceilings, {"source": source}, None, None, notes=(
            "the decode loop runs in NumPy on the CPU: it is compared against the numpy backend's ceilings only",))

    shape = decode.Shape.of(scaled)
    spec = spec_from_config(scaled, name=f"{source} (scaled)", source=source)
    progress(f"building the scaled model ({shape.layers} layers × {shape.hidden} wide, seeded weights)")
    model_ = decode.Transformer(shape, decode.random_weights(shape, seed), plan.prompt_tokens + plan.new_tokens)
    prompt = list(np.random.default_rng(seed).integers(0, shape.vocab, plan.prompt_tokens))
    # The calibration's matrix products run between the model's runs, so that a shared machine's slow spells
    # fall on both alike (measured minutes apart, the two can differ by 2x on a busy host).
    probe = realistic_cpu.linear_probe(_linear_shapes(spec), plan.prompt_tokens, budget)
    prefill_runs, decode_runs, memory_runs, compute_runs = [], [], [], []
    for run in range(plan.repeats + 1):  # run 0 is the burn-in
        progress(f"decode loop and calibration, run {run}/{plan.repeats}")
        _, prefill_seconds, steps = model_.generate(prompt, plan.new_tokens)
        memory, compute = probe(1), probe(plan.prompt_tokens)
        if run:
            prefill_runs.append(prefill_seconds)
            decode_runs += steps
            memory_runs.append(memory)
            compute_runs.append(compute)
    del model_, probe
    # Measured again after the runs: a busy spell during the first measurement would set the floor above what the
    # runs then did (the floor is the machine's best, so the better of the two measurements is kept).
    progress("measuring ceilings again")
    ceilings = ceilings.best_of(measure_ceilings(backend, device, array_bytes=int(budget), repeats=plan.repeats))
    compute_eff, memory_eff = realistic_cpu.efficiencies(memory_runs, compute_runs, ceilings)

    progress("calibrating the call latency (the same loop at a size where the arithmetic is nothing)")
    tiny_config = _tiny(scaled)
    tiny_shape = decode.Shape.of(tiny_config)
    tiny_rows = rows(spec_from_config(tiny_config), Step.decode(8), FORMATS)
    latency = realistic_cpu.call_latency(decode.Transformer(tiny_shape, decode.random_weights(tiny_shape), 64),
                                         tiny_rows, lambda r: decode.numpy_calls(r, tiny_shape))
    calibration = realistic_cpu.CpuCalibration(latency, {"linear": compute_eff}, {"linear": memory_eff})

    accelerator = machine_accelerator(ceilings)
    calls_of = lambda row: decode.numpy_calls(row, shape)  # noqa: E731
    prefill_rows = rows(spec, Step.prefill(plan.prompt_tokens), FORMATS)
    # Decode step j attends over prompt + j cached tokens; average the floor over the steps that were timed.
    decode_rows = [rows(spec, Step.decode(plan.prompt_tokens + j), FORMATS) for j in range(plan.new_tokens - 1)]
    prefill = Phase(statistics.median(prefill_runs),
                    time_step(prefill_rows, accelerator, main_dtype="fp32").seconds,
                    realistic_cpu.realistic_step(prefill_rows, accelerator, calibration, calls_of).seconds)
    decode_phase = Phase(
        statistics.median(decode_runs),
        statistics.fmean(time_step(r, accelerator, main_dtype="fp32").seconds for r in decode_rows),
        statistics.fmean(realistic_cpu.realistic_step(r, accelerator, calibration, calls_of).seconds
                         for r in decode_rows))
    parameters = count_parameters(spec).total
    described = {
        "source": source, "model_type": scaled["model_type"], "layers": shape.layers, "hidden_size": shape.hidden,
        "num_attention_heads": shape.heads, "num_key_value_heads": shape.kv_heads, "head_dim": shape.head_dim,
        "intermediate_size": shape.intermediate, "vocab_size": shape.vocab, "tied_embeddings": shape.tied,
        "parameters": parameters, "weight_bytes": parameters * 4, "dtype": "float32",
        "prompt_tokens": plan.prompt_tokens, "new_tokens": plan.new_tokens, "repeats": plan.repeats,
        "weight_bytes_over_last_level_cache": parameters * 4 / ceilings.last_level_cache_bytes,
    }
    notes = ceilings.notes + (
        "floor: the roofline over the model's operator rows on this machine's measured ceilings",
        "realistic: the same rows at the efficiencies a matrix product of the model's shapes reaches here, plus "
        "one dispatch per NumPy call",
    )
    return BenchResult(ceilings, described, prefill, decode_phase, calibration.to_dict(), notes)


def _linear_shapes(spec) -> list:
    """[out, in] of each linear of one layer of each distinct block, and the head: the matrices a step streams."""
    from inferledger.model.spec import Linear

    shapes = []
    for block in spec.blocks:
        for module in block.modules:
            if isinstance(module, Linear):
                shapes += [(module.out_features, module.in_features)] * (1 if block.kind == "head" else block.count)
    return shapes


__all__ = ["run_bench", "BenchResult", "SIZES", "DEFAULT_MODEL", "machine_accelerator"]
