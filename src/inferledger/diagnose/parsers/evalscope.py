"""evalscope perf's "Benchmarking summary": `Key: value` lines (2024), a `| Key | Value |` grid (2025) or a JSON-like
dict printed after a log prefix (`... - evalscope - INFO - {`), often pasted cut. One summary Record per summary.

Units as printed: seconds for every time (a "(s)" in newer labels, none in the 2024 lines), tokens/s and requests/s
for rates. "Average time per output token" is not read as a TPOT: until early 2025 evalscope computed it as
1 / throughput over all requests (evalscope#320), which is not a per-stream time; the per-stream decode time is
left to (latency − TTFT) / (output tokens − 1), which the summary rules derive.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from inferledger.diagnose.parsers.bench_common import to_number
from inferledger.diagnose.records import Record

NAME = "evalscope"

_TITLE = "Benchmarking summary"
_JSON_KEY = '"Time taken for tests'
# One row in any of the three layouts: `Key: value`, `| Key | value |`, `"Key": value,`.
_ROW = re.compile(r'^[\s|]*"?([A-Za-z][^"|:]*?)\s*"?\s*[:|]\s*([-+\d.,eE]+)\s*[,|]?\s*$')
# Label (lower case, "(s)" dropped) -> (metric, factor to base units).
_ROWS = {
    "time taken for tests": ("duration_seconds", 1.0),
    "number of concurrency": ("max_concurrency", 1.0),
    "succeed requests": ("completed_requests", 1.0),
    "failed requests": ("failed_requests", 1.0),
    "average qps": ("request_throughput_per_second", 1.0),
    "request throughput (req/s)": ("request_throughput_per_second", 1.0),
    "average latency": ("e2e_seconds_mean", 1.0),
    "throughput(average output tokens per second)": ("output_tokens_per_second", 1.0),
    "throughput(average tokens/s)": ("output_tokens_per_second", 1.0),
    "output token throughput (tok/s)": ("output_tokens_per_second", 1.0),
    "total token throughput (tok/s)": ("total_tokens_per_second", 1.0),
    "average time to first token": ("ttft_seconds_mean", 1.0),
    "average input tokens per request": ("mean_input_tokens", 1.0),
    "average output tokens per request": ("mean_output_tokens", 1.0),
}


def sniff(head: str) -> float:
    if _TITLE in head or _JSON_KEY in head:
        return 0.9 if ("concurrency" in head or "Average" in head) else 0.5
    # the grid pasted without its title (under the user's own heading, "20并发："): its keys are evalscope's own
    if "Time taken for tests" in head and ("Number of concurrency" in head or "Succeed requests" in head):
        return 0.8
    return 0.0


def _key(label: str) -> str:
    key = " ".join(label.lower().replace("(s)", "").split())
    return key


def parse(lines) -> Iterator:
    metrics: dict = {}
    start = 0
    for line_number, line in lines:
        if _TITLE in line or _JSON_KEY in line or line.rstrip().endswith("{"):
            if metrics and _TITLE in line:
                yield Record("summary", "bench.evalscope", start, metrics, labels={"tool": "evalscope"})
                metrics = {}
            start = start if metrics else line_number
            if _JSON_KEY not in line:
                continue
        if ":" not in line and "|" not in line:
            continue
        match = _ROW.match(line)
        if match is None:
            continue
        entry = _ROWS.get(_key(match.group(1)))
        number = to_number(match.group(2))
        if entry is None or number is None:
            continue
        metric, factor = entry
        if metric in metrics:  # the next summary, pasted without its title
            yield Record("summary", "bench.evalscope", start, metrics, labels={"tool": "evalscope"})
            metrics, start = {}, line_number
        if not metrics:
            start = start or line_number
        metrics[metric] = number * factor
    if metrics:
        yield Record("summary", "bench.evalscope", start, metrics, labels={"tool": "evalscope"})
