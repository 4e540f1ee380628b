"""SGLang's bench_one_batch (python -m sglang.bench_one_batch): one static batch run without the server, printed as

    Warmup ...
    Prefill. latency: 0.02265 s, throughput:   2648.96 token/s
    Decode 0. Batch size: 1, latency: 0.00637 s, throughput:    157.09 token/s
    Decode.  median latency: 0.00585 s, median throughput:    170.84 token/s
    Total. latency:  0.076 s, throughput:    923.17 token/s
    Benchmark ...

one block per run (the warm-up first). The prefill line times the whole batch's prompts, so its latency is every
request's first-token time and throughput × latency is the batch's prompt tokens; a decode step gives each of the
batch's streams one token, so the median step is the time per output token. One summary Record per block, the
warm-up's only when no measured block follows it.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from inferledger.diagnose.records import Record, Skipped

NAME = "sglang-one-batch"

_PHASE = re.compile(r"^\s*(Prefill|Decode|Total)\.\s+(median )?latency:\s*([\d.]+)\s*s,\s*(?:median )?throughput:"
                    r"\s*([\d.]+)\s*token/s")
_STEP = re.compile(r"^\s*Decode \d+\.\s+Batch size:\s*(\d+),\s*latency:\s*([\d.]+)\s*s")


def sniff(head: str) -> float:
    return 0.9 if "Prefill. latency:" in head and ("Decode." in head or "Decode 0." in head) else 0.0


class _Block:
    def __init__(self, line_number: int, warmup: bool):
        self.line_number = line_number
        self.warmup = warmup
        self.metrics: dict = {}
        self.batch: int | None = None
        self.steps: list = []

    def record(self) -> Record | None:
        metrics = self.metrics
        if "ttft_seconds_mean" not in metrics and "tpot_seconds_median" not in metrics:
            return None
        if "tpot_seconds_median" not in metrics and self.steps:
            ordered = sorted(self.steps)
            metrics["tpot_seconds_median"] = ordered[len(ordered) // 2]
        if self.batch:
            metrics["max_concurrency"] = float(self.batch)
            metrics["completed_requests"] = float(self.batch)
            if "total_input_tokens" in metrics:
                metrics["mean_input_tokens"] = metrics["total_input_tokens"] / self.batch
        labels = {"tool": "sglang.bench_one_batch", "engine": "sglang", "static_batch": "1"}
        if self.warmup:
            labels["warmup"] = "1"
        return Record("summary", "bench.sglang_one_batch", self.line_number, metrics, labels=labels)


def parse(lines) -> Iterator:
    block: _Block | None = None
    for line_number, line in lines:
        stripped = line.strip()
        if stripped.startswith(("Warmup ...", "Benchmark ...")):
            if block is not None and not (block.warmup and stripped.startswith("Benchmark")):
                record = block.record()
                if record is not None:
                    yield record
            block = _Block(line_number, warmup=stripped.startswith("Warmup"))
            continue
        if "latency:" not in line:
            continue
        step = _STEP.match(line)
        if step is not None:
            if block is None:
                block = _Block(line_number, warmup=False)
            block.batch = int(step.group(1))
            block.steps.append(float(step.group(2)))
            continue
        phase = _PHASE.match(line)
        if phase is None:
            if stripped.startswith(("Prefill.", "Decode", "Total.")):
                yield Skipped(line_number, "bench_one_batch line without 'latency: X s, throughput: Y token/s'", NAME)
            continue
        if block is None:
            block = _Block(line_number, warmup=False)
        name, _median, latency, rate = phase.groups()
        seconds, per_second = float(latency), float(rate)
        if name == "Prefill":
            block.metrics["ttft_seconds_mean"] = seconds
            block.metrics["total_input_tokens"] = seconds * per_second
            block.metrics["input_tokens_per_second"] = per_second
        elif name == "Decode":
            block.metrics["tpot_seconds_median"] = seconds
            block.metrics["output_tokens_per_second"] = per_second
        else:
            block.metrics["e2e_seconds_mean"] = seconds
    if block is not None:
        record = block.record()
        if record is not None:
            yield record
