"""TGI's `text-generation-benchmark` summary tables: latency (`| Step | Batch Size | Average | Lowest | Highest |
p50 | p90 | p99 |` with rows Prefill, Decode (token), Decode (total) in ms) and throughput (the same steps in
tokens/secs). One summary Record per batch size.

The benchmark talks to the model shard directly (no router, so no queue): a batch of `Batch Size` sequences is
prefilled in one call, then decoded step by step. Its "throughput" is batch size ÷ latency for both steps
(benchmark/src/generation.rs; huggingface/text-generation-inference#1417), so a prefill "tokens/secs" counts
sequences, not prompt tokens: here it becomes the prefill latency again (batch ÷ rate), the first-token time of
every sequence in the batch.
"""

from __future__ import annotations

import math
from collections.abc import Iterator

from inferledger.diagnose.parsers.bench_common import TIME_UNITS, to_number
from inferledger.diagnose.parsers.bench_markdown import tables
from inferledger.diagnose.records import Record

NAME = "tgi-benchmark"

_STATS = {"average": "mean", "lowest": "min", "highest": "max", "p50": "median", "p90": "p90", "p99": "p99"}
# A rate's statistics as the latency's: the lowest rate is the longest time; a rate's p90 is a time's p10 (not kept).
_RATE_STATS = {"average": "mean", "lowest": "max", "highest": "min", "p50": "median"}
# Step -> metric of one sequence; "Decode (total)" (all decode steps of the batch) adds nothing per token.
_STEPS = {"prefill": "ttft_seconds", "decode (token)": "tpot_seconds", "decode": "tpot_seconds"}


def sniff(head: str) -> float:
    return 0.9 if "| Step" in head and "Batch Size" in head and ("Prefill" in head or "Decode" in head) else 0.0


def _seconds(cell: str, column: str, batch: float) -> tuple[str, float] | None:
    """(stat, seconds per sequence) of a cell: '370.77 ms' as it is, '23.88 tokens/secs' as batch ÷ rate."""
    number = to_number(cell)
    if number is None or not math.isfinite(number) or number <= 0:
        return None  # empty, NaN or zero cells: the step did not run
    unit = cell.split()[-1].lower() if len(cell.split()) > 1 else ""
    if unit in TIME_UNITS and column in _STATS:
        return _STATS[column], number * TIME_UNITS[unit]
    if unit.startswith("tokens/s") and column in _RATE_STATS:
        return _RATE_STATS[column], batch / number
    return None


def _runs(table: list) -> list:
    (_, header), rows = table[0], table[1:]
    names = [cell.lower() for cell in header]
    if names[:2] != ["step", "batch size"]:
        return []
    runs: dict = {}
    step = ""
    for line_number, cells in rows:
        if len(cells) < 3:
            continue
        step = cells[0].lower() or step  # a blank Step cell continues the step above
        metric = _STEPS.get(step)
        batch = to_number(cells[1])
        if metric is None or not batch:
            continue
        run = runs.setdefault(batch, [line_number, {"max_concurrency": batch}])
        for name, cell in zip(names[2:], cells[2:], strict=False):
            found = _seconds(cell, name, batch)
            if found is not None:
                run[1].setdefault(f"{metric}_{found[0]}", found[1])
    records = []
    for batch, (line_number, metrics) in sorted(runs.items()):
        if "tpot_seconds_mean" in metrics:
            metrics["output_tokens_per_second"] = batch / metrics["tpot_seconds_mean"]
        if len(metrics) > 1:
            records.append(Record("summary", "bench.tgi-benchmark", line_number, metrics,
                                  labels={"tool": f"text-generation-benchmark batch {batch:g}",
                                          "ttft_definition": "prefill latency of one batch, no router or queue",
                                          "static_batch": "1"}))
    return records


def parse(lines) -> Iterator:
    for table in tables(lines):
        yield from _runs(table)
