"""SGLang's bench_one_batch (python -m sglang.bench_one_batch): one static batch run without the server, printed as

    Warmup ...
    Prefill. latency: 0.02265 s, throughput:   2648.96 token/s
    Decode 0. Batch size: 1, latency: 0.00637 s, throughput:    157.09 token/s
    Decode.  median latency: 0.00585 s, median throughput:    170.84 token/s
    Total. latency:  0.076 s, throughput:    923.17 token/s
    Benchmark ...

one block per run (the warm-up first). Its first release (sglang.bench_latency, mid-2024) printed one `Decode.` line
per step and a second `Prefill.` line for the measured run after the warm-up, with an "ms" label on values that are
seconds: a decode step gives each stream at least one token, so latency × throughput is the batch, at least 1
(0.009 s × 108 ≈ 1); read as ms it would be a thousandth of a token, so such a block's values are taken as seconds. The prefill line times the whole batch's prompts, so its latency is every
request's first-token time and throughput × latency is the batch's prompt tokens; a decode step gives each of the
batch's streams one token, so the median step is the time per output token. One summary Record per block, the
warm-up's only when no measured block follows it.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from inferledger.diagnose.records import Record, Skipped, unread

NAME = "sglang-one-batch"

# A result may be quoted as a shell comment (`# Decode.  median latency: …` under the command that made it).
_PHASE = re.compile(r"^\s*(?:#\s*)?(Prefill|Decode|Total)\.\s+(median )?latency:\s*([\d.]+)\s*(m?s),\s*(?:median )?"
                    r"throughput:\s*([\d.]+)\s*token/s")
_MEDIAN = re.compile(r"Decode\.\s+median latency:")
# A block whose total latency is within this of its prefill's ran no decode step (below): its one token came from the
# prefill (a decode step is at least a few ms, and a static batch's timer adds no more than that).
ONE_TOKEN_TOTAL_SHARE = 1.01
_STEP = re.compile(r"^\s*Decode \d+\.\s+Batch size:\s*(\d+),\s*latency:\s*([\d.]+)\s*s")


def sniff(head: str) -> float:
    if "Prefill. latency:" in head and ("Decode." in head or "Decode 0." in head or "Warmup ..." in head):
        return 0.9  # (a paste cut after the warm-up's prefill has no decode line: its `Warmup ...` names the tool)
    return 0.6 if _MEDIAN.search(head) else 0.0  # a summary line quoted alone


class _Block:
    def __init__(self, line_number: int, warmup: bool):
        self.line_number = line_number
        self.warmup = warmup
        self.metrics: dict = {}
        self.batch: int | None = None
        self.steps: list = []
        self.phases: list = []  # (name, latency as printed, unit as printed, throughput) of the lines read
        self.median_seen = False  # a `Decode.  median` line read: the run's summary

    def close(self) -> None:
        """Turn the phase lines into metrics, in seconds whatever their label says (the decode steps decide)."""
        tokens_if_ms = [latency * 1e-3 * rate for name, latency, unit, rate in self.phases
                        if name == "Decode" and unit == "ms"]
        seconds_per_unit = {"s": 1.0, "ms": 1e-3}
        if tokens_if_ms and all(tokens < 0.5 for tokens in tokens_if_ms):
            # read as ms a step would yield under half a token, which no step does: the values are seconds
            seconds_per_unit["ms"] = 1.0
        decode = []
        for name, latency, unit, rate in self.phases:
            seconds = latency * seconds_per_unit[unit]
            if name == "Prefill":
                self.metrics["ttft_seconds_mean"] = seconds
                self.metrics["total_input_tokens"] = seconds * rate
                self.metrics["input_tokens_per_second"] = rate
            elif name == "Decode":
                decode.append((seconds, rate))
            else:
                self.metrics["e2e_seconds_mean"] = seconds
        if decode:
            ordered = sorted(decode)
            self.metrics["tpot_seconds_median"], self.metrics["output_tokens_per_second"] = ordered[len(ordered) // 2]
        self.phases = []

    def record(self) -> Record | None:
        self.close()
        metrics = self.metrics
        if "ttft_seconds_mean" not in metrics and "tpot_seconds_median" not in metrics:
            return None
        if "tpot_seconds_median" not in metrics and self.steps:
            ordered = sorted(self.steps)
            metrics["tpot_seconds_median"] = ordered[len(ordered) // 2]
        ttft, total = metrics.get("ttft_seconds_mean"), metrics.get("e2e_seconds_mean")
        if "tpot_seconds_median" not in metrics and ttft and total and total <= ONE_TOKEN_TOTAL_SHARE * ttft:
            # `--output-len 1`: the prefill wrote the one token and no decode step ran, so the total is the prefill
            metrics["mean_output_tokens"] = 1.0
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
    first_run = None  # True while the block being read is the file's first run
    benchmark_seen = False
    measured = False  # a measured run's record was given
    warmup_seen = False
    for line_number, line in lines:
        stripped = line.strip()
        if stripped.startswith(("Warmup ...", "Benchmark ...")):
            # The run before the first `Benchmark ...` is the warm-up, its `Warmup ...` line printed or cut from the
            # paste; a run after one is measured (a paste of several commands' output has one before each run).
            if block is not None and not ((block.warmup or not benchmark_seen) and stripped.startswith("Benchmark")):
                record = block.record()
                if record is not None:
                    measured = measured or not block.warmup
                    yield record
            benchmark_seen = benchmark_seen or stripped.startswith("Benchmark")
            warmup_seen = warmup_seen or stripped.startswith("Warmup")
            block = _Block(line_number, warmup=stripped.startswith("Warmup"))
            first_run = False  # a run its marker names is no unnamed first run
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
            if "latency:    nan" in line or "latency: nan" in line:
                yield unread(line_number, line, NAME)  # nan: the tool had no step to time (one output token)
                continue
            if stripped.startswith(("Prefill.", "Decode", "Total.")):
                yield Skipped(line_number, "bench_one_batch line without 'latency: X s, throughput: Y token/s'", NAME)
            continue
        name, median, latency, unit, rate = phase.groups()
        if block is not None and name == "Prefill" and any(phase[0] == "Prefill" for phase in block.phases):
            # bench_latency's next run with no "Benchmark ..." line between: the first run was its warm-up
            record = block.record()
            if record is not None and not (block.warmup or first_run):
                measured = True
                yield record
            block = None
        if block is None:
            first_run = first_run is None
            # Releases that print no `Warmup ...` print `Benchmark ...` before each batch size's measured run: there,
            # a run that opens without it is the next batch size's warm-up (its first step compiling kernels). Later
            # ones print each marker once, warm-up then every measured run.
            block = _Block(line_number, warmup=benchmark_seen and not warmup_seen)
        if name == "Decode" and median:
            if block.median_seen:  # a second run's summary line with no Prefill line between: its own run
                record = block.record()
                if record is not None:
                    yield record
                block = _Block(line_number, warmup=False)
            block.median_seen = True
            block.phases = [phase for phase in block.phases if phase[0] != "Decode"]  # the median stands for them
        block.phases.append((name, float(latency), unit, float(rate)))
    if block is not None and not (block.warmup and measured):  # a warm-up alone is all there is to read
        record = block.record()
        if record is not None:
            yield record
