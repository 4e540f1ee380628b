"""wrk's (and wrk2's) text report, the HTTP load generator people point at an OpenAI-style endpoint with a Lua
script that POSTs one prompt: one summary Record a run.

    Running 1m test @ http://10.1.2.100:8080/v1/chat/completions
      10 threads and 20 connections
      Thread Stats   Avg      Stdev     Max   +/- Stdev
        Latency     3.07s    38.32ms   3.20s   66.93%
        Req/Sec     1.45      3.05    10.00     87.92%
      Latency Distribution
         50%    3.07s
         99%    3.18s
      381 requests in 1.00m, 285.10KB read
      Socket errors: connect 0, read 0, write 0, timeout 2
    Requests/sec:      6.34

wrk is a closed loop: each connection sends its next request when the last one is answered, so the connections are
the requests in flight (max_concurrency) and no rate is offered. A latency is a request's whole time, sent to the
last byte back: a non-streamed completion's, or a stream's end. wrk2 (`-R`, an offered rate) prints the same block
with an HdrHistogram distribution (`50.000%  3.07s`); its rate is not in the report, so its runs are read as wrk's.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from inferledger.diagnose.parsers.bench_common import canonical_stat
from inferledger.diagnose.parsers.ollama import go_duration_seconds
from inferledger.diagnose.records import Record

NAME = "wrk"

_RUNNING = re.compile(r"^\s*Running \S+ test @ \S+", re.MULTILINE)
_CONNECTIONS = re.compile(r"^\s*(\d+) threads and (\d+) connections")
# wrk prints its times as Go does (`3.07s`, `38.32ms`, `812.45us`, `1.00m`): ollama.go_duration_seconds reads them.
_LATENCY = re.compile(r"^\s*Latency\s+([\d.]+[a-z]+)\s+[\d.]+\w+\s+([\d.]+[a-z]+)\b")
_PERCENTILE = re.compile(r"^\s*(\d+)(?:\.0+)?%\s+([\d.]+[a-z]+)\s*$")
_REQUESTS = re.compile(r"^\s*(\d+) requests in ([\d.]+[a-z]+),")
_SOCKET = re.compile(r"Socket errors: connect (\d+), read (\d+), write (\d+), timeout (\d+)")
_NON_2XX = re.compile(r"Non-2xx or 3xx responses: (\d+)")
_RATE = re.compile(r"^\s*Requests/sec:\s+([\d.]+)\s*$")
_LABELS = {"tool": "wrk", "e2e_definition": "wrk's latency: request sent to the last byte back (a closed loop, one "
                                            "request in flight a connection)"}


def sniff(head: str) -> float:
    return 0.9 if "Requests/sec:" in head and _RUNNING.search(head) else 0.0


def parse(lines) -> Iterator:
    metrics: dict = {}
    first = None
    for line_number, line in lines:
        if "Running " in line and _RUNNING.match(line):
            if metrics:
                yield from _run(metrics, first)
            metrics, first = {}, line_number
            continue
        if first is None:
            continue
        match = _CONNECTIONS.match(line)
        if match:
            metrics["max_concurrency"] = float(match.group(2))
            continue
        match = _LATENCY.match(line)
        if match:
            mean, longest = go_duration_seconds(match.group(1)), go_duration_seconds(match.group(2))
            if mean is not None:
                metrics["e2e_seconds_mean"] = mean
            if longest is not None:
                metrics["e2e_seconds_max"] = longest
            continue
        match = _PERCENTILE.match(line)
        if match:
            stat, seconds = canonical_stat(f"p{match.group(1)}"), go_duration_seconds(match.group(2))
            if stat is not None and seconds is not None:  # p75 is no statistic the diagnosis keeps
                metrics[f"e2e_seconds_{stat}"] = seconds
            continue
        match = _REQUESTS.match(line)
        if match:
            metrics["completed_requests"] = float(match.group(1))
            seconds = go_duration_seconds(match.group(2))
            if seconds is not None:
                metrics["duration_seconds"] = seconds
            continue
        match = _SOCKET.search(line) or _NON_2XX.search(line)
        if match:
            metrics["failed_requests"] = metrics.get("failed_requests", 0.0) + sum(map(float, match.groups()))
            continue
        match = _RATE.match(line)
        if match:
            metrics["request_throughput_per_second"] = float(match.group(1))
            yield from _run(metrics, first)
            metrics, first = {}, None
    if metrics:
        yield from _run(metrics, first)


def _run(metrics: dict, first: int) -> Iterator[Record]:
    """A run's Record once it has a latency: a block cut before its Latency row is no run."""
    if "e2e_seconds_mean" in metrics:
        yield Record("summary", "wrk", first, dict(metrics), labels=dict(_LABELS))
