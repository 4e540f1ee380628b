"""Hugging Face optimum-benchmark's report of an inference scenario, as Markdown (benchmark_report.md: a section a
phase, a table a measurement)

    # prefill:
    ## latency:
    | metric | value        | unit   |
    | mean   |     0.183376 | s |
    | p50    |      0.183086 | s |
    ## throughput:
    | throughput | 5.45 | samples/s |
    # decode:
    ...
    # per_token:
    ## latency:
    | p50    |      0.034018 | s |

or as JSON (benchmark_report.json: `{"prefill": {"latency": {"unit": "s", "mean": …, "values": […]}, "throughput":
{"unit": "samples/s", "value": …}}, "decode": …, "per_token": …}`, read by bench_json through report_record).

Every phase runs one static batch: the prefill's latency is the batch's first token, a per_token latency one decode
step, which writes a token for each of the batch's sequences (its median, since the first `per_token` sample is the
prefill's own step), and the decode's throughput is the batch's tokens a second, so throughput × step is the batch.
Without its section lines (`# decode:`) a table does not say which phase it measured, and is not read.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from inferledger.diagnose.parsers.bench_common import TIME_UNITS, canonical_stat, json_number, to_number
from inferledger.diagnose.records import Record

NAME = "optimum-benchmark"

_PHASES = ("load_model", "prefill", "decode", "per_token", "forward", "generate")
_SECTION = re.compile(r"^#\s+(" + "|".join(_PHASES) + r"):\s*$")
_MEASUREMENT = re.compile(r"^##\s+(latency|throughput|memory|energy|efficiency):\s*$")
_ROW = re.compile(r"^\|\s*([A-Za-z_][A-Za-z_0-9]*)\s*\|\s*([-\d.eE+]+)\s*\|\s*([^|]*?)\s*\|\s*$")


def sniff(head: str) -> float:
    sections = sum(f"# {phase}:" in head for phase in ("prefill", "decode", "per_token"))
    return 0.85 if sections >= 2 and "## latency:" in head else 0.0


def report_record(line_number: int, report: dict) -> Record | None:
    """The summary Record of a report's phases: {phase: {measurement: {"unit": …, stat or "value": number}}}."""
    metrics = {}
    step = _seconds(report.get("per_token"), "median") or _seconds(report.get("per_token"), "mean")
    if step:
        metrics["tpot_seconds_median"] = step
    prefill = _seconds(report.get("prefill"), "mean")
    if prefill:
        metrics["ttft_seconds_mean"] = prefill
    generate = _seconds(report.get("generate"), "mean")
    if generate:
        metrics["e2e_seconds_mean"] = generate
    rate = _throughput(report.get("decode"), "tokens/s")
    if rate:
        metrics["output_tokens_per_second"] = rate
        if step and rate * step >= 0.5:
            metrics["max_concurrency"] = float(round(rate * step))  # the batch: tokens a step
    if "tpot_seconds_median" not in metrics and "ttft_seconds_mean" not in metrics:
        return None
    return Record("summary", "bench.optimum-benchmark", line_number, metrics,
                  labels={"tool": "optimum-benchmark", "static_batch": "1"})


def _seconds(phase, stat: str) -> float | None:
    latency = phase.get("latency") if isinstance(phase, dict) else None
    if not isinstance(latency, dict):
        return None
    scale = TIME_UNITS.get(str(latency.get("unit", "s")))
    for key, value in latency.items():  # `p50` in the JSON, `median` as the Markdown reader stores it
        number = json_number(value) if canonical_stat(key) == stat else None
        if number and number > 0 and scale:
            return number * scale
    return None


def _throughput(phase, unit: str) -> float | None:
    throughput = phase.get("throughput") if isinstance(phase, dict) else None
    if not isinstance(throughput, dict) or throughput.get("unit") != unit:
        return None
    value = json_number(throughput.get("value", throughput.get("mean")))
    return value if value and value > 0 else None


def parse(lines) -> Iterator:
    report: dict = {}
    phase = measurement = None
    first = None
    for line_number, line in lines:
        stripped = line.strip()
        if stripped.startswith("#"):
            if (section := _SECTION.match(stripped)) is not None:
                phase, measurement = section.group(1), None
                first = first or line_number
            elif (found := _MEASUREMENT.match(stripped)) is not None and phase is not None:
                measurement = found.group(1)
            continue
        if phase is None or measurement is None or not stripped.startswith("|"):
            continue
        row = _ROW.match(stripped)
        if row is None:
            continue
        name, value, unit = row.groups()
        number = to_number(value)
        if number is None:
            continue
        table = report.setdefault(phase, {}).setdefault(measurement, {})
        if measurement == "throughput":
            table.update(unit=unit, value=number)
        elif (stat := canonical_stat(name)) is not None and unit in TIME_UNITS:
            table.setdefault("unit", unit)
            table.setdefault(stat, number)
    if report:
        record = report_record(first, report)
        if record is not None:
            yield record
