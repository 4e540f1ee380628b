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

from inferledger.diagnose.records import Record

NAME = "wrk"

_RUNNING = re.compile(r"^\s*Running (\S+) test @ (\S+)")
_CONNECTIONS = re.compile(r"^\s*(\d+) threads and (\d+) connections")
_LATENCY = re.compile(r"^\s*Latency\s+([\d.]+)(us|ms|s|m|h)\s+[\d.]+\w+\s+([\d.]+)(us|ms|s|m|h)\b")
_PERCENTILE = re.compile(r"^\s*(50|75|90|99)(?:\.0+)?%\s+([\d.]+)(us|ms|s|m|h)\s*$")
_REQUESTS = re.compile(r"^\s*(\d+) requests in ([\d.]+)(us|ms|s|m|h),")
_SOCKET = re.compile(r"Socket errors: connect (\d+), read (\d+), write (\d+), timeout (\d+)")
_NON_2XX = re.compile(r"Non-2xx or 3xx responses: (\d+)")
_RATE = re.compile(r"^\s*Requests/sec:\s+([\d.]+)\s*$")
_SECONDS = {"us": 1e-6, "ms": 1e-3, "s": 1.0, "m": 60.0, "h": 3600.0}
_PERCENTILE_NAMES = {"50": "median", "75": "p75", "90": "p90", "99": "p99"}
_LABELS = {"tool": "wrk", "e2e_definition": "wrk's latency: request sent to the last byte back (a closed loop, one "
                                            "request in flight a connection)"}


def sniff(head: str) -> float:
    return 0.9 if "Requests/sec:" in head and re.search(r"^\s*Running \S+ test @", head, re.MULTILINE) else 0.0


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
            metrics["e2e_seconds_mean"] = float(match.group(1)) * _SECONDS[match.group(2)]
            metrics["e2e_seconds_max"] = float(match.group(3)) * _SECONDS[match.group(4)]
            continue
        match = _PERCENTILE.match(line)
        if match:
            metrics[f"e2e_seconds_{_PERCENTILE_NAMES[match.group(1)]}"] = float(match.group(2)) * _SECONDS[match.group(3)]
            continue
        match = _REQUESTS.match(line)
        if match:
            metrics["completed_requests"] = float(match.group(1))
            metrics["duration_seconds"] = float(match.group(2)) * _SECONDS[match.group(3)]
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
