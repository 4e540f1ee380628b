"""FlexGen (python -m flexgen.flex_opt, and the research tools built on it): one offloaded static batch, printed as

    model size: 23.921 GB   cache size: 14.941 GB   hidden size (p): 0.187 GB
    peak gpu mem: 15.024 GB projected: True
    prefill latency: 7.099 s        prefill throughput: 2307.857 token/s
    decode latency: 161.668 s       decode throughput: 19.596 token/s
    total latency: 168.767 s        total throughput: 18.961 token/s

flex_opt.py computes the three rates over the whole batch of B = gpu_batch_size × num_gpu_batches prompts:
prefill = B × prompt_len / prefill latency, decode = B × (gen_len − 1) / decode latency (the first token comes out
of the prefill), total = B × gen_len / total latency. So total × its latency less decode × its latency is B, and
a decode step, which gives every prompt of the batch one token, takes decode latency ÷ (gen_len − 1). The command
line (`--gpu-batch-size 32 --num-gpu-batches 1 --gen-len 100`) states B and gen_len where it is in the excerpt; a
block with neither, whose figures solve to no whole batch (a poster's hand-edited figures), keeps only what a rate says
alone: every prompt was in from the start, so no stream decodes faster than the whole batch (an offline batch).
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from inferledger.diagnose.records import Record, Skipped

NAME = "flexgen"

_PHASE = re.compile(r"^\s*(prefill|decode|total) latency:\s*([\d.]+)\s*s,?\s+\1 throughput:\s*([\d.]+)\s*token/s")
_OPTION = re.compile(r"--(gpu-batch-size|num-gpu-batches|gen-len|prompt-len)[ =](\d+)")
# The solved batch (and generated length) must come out whole to this much: the figures are printed to three decimals,
# so a product of latency and rate is off by up to (latency + rate) × 0.0005, about 0.1 for a 170 s run at 20 tok/s,
# and the batch, a difference of two such products, by twice that.
WHOLE_TOLERANCE = 0.25


def sniff(head: str) -> float:
    return 0.9 if "prefill latency:" in head and "decode throughput:" in head else 0.0


def _whole(value: float, tolerance: float = WHOLE_TOLERANCE) -> int | None:
    nearest = round(value)
    return nearest if nearest >= 1 and abs(value - nearest) <= tolerance else None


def _record(line_number: int, phases: dict, options: dict) -> Record:
    metrics: dict = {}
    batch = options.get("gpu-batch-size", 0) * options.get("num-gpu-batches", 1) or None
    gen_len = options.get("gen-len")
    if "total" in phases and "decode" in phases:
        generated = phases["total"][0] * phases["total"][1]  # batch × gen_len
        solved = _whole(generated - phases["decode"][0] * phases["decode"][1])
        # ... and the generated length it gives whole too, to the product's error shared over the batch.
        if batch is None and solved is not None and _whole(generated / solved, WHOLE_TOLERANCE / solved):
            batch = solved
        if gen_len is None and batch:
            gen_len = _whole(generated / batch, WHOLE_TOLERANCE / batch)
    if "prefill" in phases:
        latency, rate = phases["prefill"]
        metrics["ttft_seconds_mean"] = latency  # the batch's prompts are read together: every first token waits
        metrics["input_tokens_per_second"] = rate
        if batch:
            metrics["mean_input_tokens"] = options.get("prompt-len") or round(latency * rate / batch)
    if "decode" in phases:
        latency, rate = phases["decode"]
        metrics["output_tokens_per_second"] = rate
        if gen_len and gen_len > 1:
            metrics["tpot_seconds_median"] = latency / (gen_len - 1)
    if "total" in phases:
        metrics["e2e_seconds_mean"] = phases["total"][0]
    if batch:
        metrics["max_concurrency"] = float(batch)
        metrics["completed_requests"] = float(batch)
    if gen_len:
        metrics["mean_output_tokens"] = float(gen_len)
    labels = {"tool": "flexgen", "engine": "flexgen", "static_batch": "1"}
    if batch is None:  # every prompt in at the start: the whole batch's decode rate bounds a stream's from above
        labels["offline_batch"] = "1"
    return Record("summary", "bench.flexgen", line_number, metrics, labels=labels)


def parse(lines) -> Iterator:
    options: dict = {}
    phases: dict = {}
    first = 0
    for line_number, line in lines:
        if "--" in line and ("-batch" in line or "-len" in line):
            options.update((name, int(value)) for name, value in _OPTION.findall(line))
        if "latency:" not in line:
            continue
        match = _PHASE.match(line)
        if match is None:
            if line.lstrip().startswith(("prefill latency", "decode latency", "total latency")):
                yield Skipped(line_number, "FlexGen line without 'X latency: N s  X throughput: N token/s'", NAME)
            continue
        phase, latency, rate = match.group(1), float(match.group(2)), float(match.group(3))
        if phase in phases:  # the next run's block
            yield _record(first, phases, options)
            phases = {}
        if not phases:
            first = line_number
        phases[phase] = (latency, rate)
        if phase == "total":
            yield _record(first, phases, options)
            phases = {}
    if phases:
        yield _record(first, phases, options)
