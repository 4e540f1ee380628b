"""AWS Neuron's NxD Inference benchmark report (`inference_demo --benchmark`, benchmark_sampling; saved as
benchmark_report.json), a JSON object per run printed as

    {
        "e2e_model": {"latency_ms_p50": 28890.2, …, "latency_ms_p100": 29044.5, "latency_ms_avg": 28879.5,
                      "throughput": 283.66},
        "context_encoding_model": {"latency_ms_p50": 705.0, …},
        "token_generation_model": {"latency_ms_p50": 27.2, …}
    }

(one key a line as pasted). The context-encoding model reads the batch's prompts in one call, so its latency is every
request's first token; a token-generation call is one decode step, a token for every sequence of the batch; the
end-to-end figure is a whole generate call. Their `throughput` figures count tokens over the batch and, for the whole
call, prompts included: the latencies say what a request sees, so they are what is read. A report's sections may come
in any order; a section seen twice starts the next run (a before/after pair in one paste).
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from inferledger.diagnose.parsers.bench_common import canonical_stat
from inferledger.diagnose.records import Record

NAME = "nxd-inference"

_SECTIONS = {"e2e_model": "e2e_seconds", "context_encoding_model": "ttft_seconds",
             "token_generation_model": "tpot_seconds"}
_SECTION = re.compile(r'"(e2e_model|context_encoding_model|token_generation_model)"\s*:\s*\{')
_LATENCY = re.compile(r'"latency_ms_(p50|p90|p95|p99|p100|avg)"\s*:\s*(\d+(?:\.\d+)?(?:[eE][-+]?\d+)?)')


def sniff(head: str) -> float:
    return 0.9 if '"token_generation_model"' in head or '"context_encoding_model"' in head else 0.0


def parse(lines) -> Iterator:
    metrics: dict = {}
    seen: set = set()
    first = section = None
    for line_number, line in lines:
        if "_model" in line and (opened := _SECTION.search(line)) is not None:
            if opened.group(1) in seen:  # the next report
                yield Record("summary", "bench.nxd-inference", first, metrics, labels={"tool": "nxd-inference"})
                metrics, seen = {}, set()
            if not seen:
                first = line_number
            section = opened.group(1)
            seen.add(section)
            continue
        if section is not None and "latency_ms_" in line:
            for stat, value in _LATENCY.findall(line):
                metrics[f"{_SECTIONS[section]}_{canonical_stat(stat)}"] = float(value) * 1e-3
    if metrics:
        yield Record("summary", "bench.nxd-inference", first, metrics, labels={"tool": "nxd-inference"})
