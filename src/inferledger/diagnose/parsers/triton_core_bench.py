"""The Triton TensorRT-LLM backend's own benchmark scripts (tensorrtllm_backend/tools/inflight_batcher_llm:
benchmark_core_model.py, end_to_end_test.py), one run each:

    [INFO] Start benchmarking on 200 prompts.
    [INFO] Total Latency: 92768.536 ms
    [INFO] Total request latencies: 11858259.309999997 ms
    +----------------------------+----------+
    |            Stat            |  Value   |
    +----------------------------+----------+
    |        Requests/Sec        |   2.16   |
    |       OP tokens/sec        |  804.54  |
    |     Avg. latency (ms)      | 59291.30 |

`Total Latency` is the run's wall time and `Total request latencies` the sum of every request's: over the prompts it
is the mean request's latency (the table's `Avg. latency` where the paste keeps it). The command line above it
(`--num-requests 200 token-norm-dist --input-mean 128 --output-mean 500`) gives the prompts' length.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from inferledger.diagnose.records import Record

NAME = "triton-core-bench"

_START = re.compile(r"Start benchmarking on (\d+) prompts")
_TOTAL = re.compile(r"Total Latency: ([\d.]+) ms")
_SUMMED = re.compile(r"Total request latencies: ([\d.]+) ms")
# The table's rows, `| Requests/Sec | 2.16 |`: the stat -> (metric, factor to base units).
_ROW = re.compile(r"^\|\s*([^|]+?)\s*\|\s*([\d.]+)\s*\|\s*$")
_STATS = {"requests/sec": ("request_throughput_per_second", 1.0), "op tokens/sec": ("output_tokens_per_second", 1.0),
          "avg. latency (ms)": ("e2e_seconds_mean", 1e-3), "p99 latency (ms)": ("e2e_seconds_p99", 1e-3),
          "p90 latency (ms)": ("e2e_seconds_p90", 1e-3), "avg. ifb batch size": ("mean_concurrency", 1.0)}
# The prompts' lengths as asked (`--input-mean 128`); the output's asked length is a cap EOS may cut short, so the
# rates say the tokens a request made.
_LENGTHS = re.compile(r"--(input)-mean[= ](\d+)")


def sniff(head: str) -> float:
    return 0.9 if _START.search(head) and _SUMMED.search(head) else 0.0


def parse(lines) -> Iterator:
    metrics: dict = {}
    lengths: dict = {}
    start = 0
    for line_number, line in lines:
        if "-mean" in line:
            lengths.update((f"mean_{kind}_tokens", float(value)) for kind, value in _LENGTHS.findall(line))
            continue
        match = _START.search(line)
        if match:
            if metrics:
                yield Record("summary", "bench.triton-core", start, metrics, labels={"tool": "triton-core-bench"})
            metrics, start = {"completed_requests": float(match.group(1)), **lengths}, line_number
            continue
        if not start:
            continue
        if (match := _TOTAL.search(line)) is not None:
            metrics["duration_seconds"] = float(match.group(1)) / 1e3
        elif (match := _SUMMED.search(line)) is not None:
            metrics.setdefault("e2e_seconds_mean", float(match.group(1)) / 1e3 / metrics["completed_requests"])
        elif (match := _ROW.match(line.strip())) is not None:
            stat = _STATS.get(" ".join(match.group(1).lower().split()))
            if stat is not None:
                metrics[stat[0]] = float(match.group(2)) * stat[1]
    if metrics:
        yield Record("summary", "bench.triton-core", start, metrics, labels={"tool": "triton-core-bench"})
