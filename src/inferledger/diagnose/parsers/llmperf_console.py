"""Ray LLMPerf's console summary (`token_benchmark_ray.py`), one summary Record a run:

    \\Results for token benchmark for NousResearch/Meta-Llama-3-8B-Instruct queried with the openai api.

    inter_token_latency_s
        p25 = 0.0519
        …
        mean = 0.0535
    ttft_s
        …
    Number Of Errored Requests: 0
    Overall Output Throughput: 35.83
    Number Of Completed Requests: 16
    Completed Requests Per Minute: 7.91

Each metric's name on a line of its own, then its statistics (`p50 = …`, `mean = …`), seconds and token counts as
llmperf writes them (bench_json reads the same names from its summary JSON). llmperf's `inter_token_latency_s` is a
request's whole time over its output tokens, its first token's wait included: a latency per output token, not the
gap between tokens. The run's concurrency is its command's `--num-concurrent-requests` when the paste shows it.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from inferledger.diagnose.parsers.bench_common import canonical_stat, to_number
from inferledger.diagnose.parsers.bench_json import LLMPERF_LABEL, LLMPERF_METRICS
from inferledger.diagnose.records import Record

NAME = "llmperf"

_TITLE = "Results for token benchmark for"
_STAT = re.compile(r"^\s*(p\d+(?:\.\d+)?|mean|min|max|stddev)\s*=\s*(\S+)\s*$")
_SCALARS = {"number of errored requests": ("failed_requests", 1.0),
            "overall output throughput": ("output_tokens_per_second", 1.0),
            "number of completed requests": ("completed_requests", 1.0),
            "completed requests per minute": ("request_throughput_per_second", 1 / 60.0)}
_CONCURRENT = re.compile(r"--num-concurrent-requests[ =]+(\d+)\b")
_MODEL = re.compile(r"Results for token benchmark for (\S+) queried")


def sniff(head: str) -> float:
    return 0.9 if _TITLE in head or ("inter_token_latency_s\n" in head and "ttft_s\n" in head) else 0.0


def _metric(name: str, stat: str) -> str | None:
    """The record's metric for llmperf's `name` and statistic, or None (a spread, a percentile not kept)."""
    metric = LLMPERF_METRICS.get(name)
    stat = canonical_stat(stat)
    if metric is None or stat is None:
        return None
    if metric in ("input_tokens", "output_tokens"):
        return f"mean_{metric}" if stat == "mean" else None  # a run's mean lengths, as the other clients state them
    return f"{metric}_{stat}"


def parse(lines) -> Iterator:
    run: tuple | None = None  # (line number, metrics, labels, the metric names read)
    name = None  # the metric whose statistics follow
    concurrency = None  # the last --num-concurrent-requests seen
    for line_number, line in lines:
        if "--num-concurrent-requests" in line and (match := _CONCURRENT.search(line)):
            concurrency = float(match.group(1))
            continue
        stripped = line.strip()
        # a run opens at its title, or (a paste without it) at a metric's name; a name read twice opens the next
        titled = _TITLE in line
        if titled or (stripped in LLMPERF_METRICS and (run is None or stripped in run[3])):
            if run is not None and run[1]:
                yield Record("summary", "bench.llmperf", run[0], run[1], labels=run[2])
            labels = dict(LLMPERF_LABEL)
            if titled and (model := _MODEL.search(line)) is not None:
                labels["model"] = model.group(1)
            run = (line_number, {"max_concurrency": concurrency} if concurrency else {}, labels, set())
        if run is None:
            continue
        if stripped in LLMPERF_METRICS:
            name = stripped
            run[3].add(name)
            continue
        stat = _STAT.match(line) if name else None
        if stat is not None:
            metric, number = _metric(name, stat.group(1)), to_number(stat.group(2))
            if metric is not None and number is not None:
                run[1][metric] = number
            continue
        label, colon, value = stripped.partition(":")
        scalar = _SCALARS.get(label.strip().lower()) if colon else None
        if scalar is not None and (number := to_number(value)) is not None:
            run[1][scalar[0]] = number * scalar[1]
            name = None
    if run is not None and run[1]:
        yield Record("summary", "bench.llmperf", run[0], run[1], labels=run[2])
