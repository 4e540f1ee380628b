"""Triton's perf_analyzer: a block a concurrency level, the client's view and the server's split of a request's time.

    Request concurrency: 20
      Client:
        Request count: 6048
        Throughput: 335.954 infer/sec
        Avg latency: 59469 usec (standard deviation 481 usec)
        p50 latency: 59462 usec
        ...
      Server:
        Avg request latency: 59287 usec (overhead 104 usec + queue 28517 usec + compute input 42 usec + …)

Each block is one summary: the client's request rate and latencies (whole requests, as E2E), the concurrency it held
(none where a paste starts at the client's rows), and the server's mean request time with the part of it spent in
the queue (summary-server-queue rule). The `Pass [n] throughput: …` lines are the stabilisation passes, not the
result: not read. The sweep's closing table (`Concurrency: 4, throughput: 23.773 infer/sec, latency 167879 usec`)
gives a summary a level.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from inferledger.diagnose.records import Record

NAME = "perf-analyzer"

_CONCURRENCY = re.compile(r"Request concurrency:\s*(\d+)")
_CLIENT = {  # the Client section's rows: label -> (metric, scale)
    "Request count": ("completed_requests", 1.0),
    "Throughput": ("request_throughput_per_second", 1.0),
    "Avg latency": ("e2e_seconds_mean", 1e-6),
    "p50 latency": ("e2e_seconds_median", 1e-6),
    "p90 latency": ("e2e_seconds_p90", 1e-6),
    "p95 latency": ("e2e_seconds_p95", 1e-6),
    "p99 latency": ("e2e_seconds_p99", 1e-6),
}
_ROW = re.compile(r"^\s*([A-Za-z0-9 ]+?):\s*([\d.]+)\s*(usec|infer/sec)?")
_SERVER = re.compile(r"Avg request latency:\s*(\d+)\s*usec\s*\((.*?)\)?\s*$")  # a paste may drop the closing bracket
_QUEUE = re.compile(r"\bqueue\s+(\d+)\s*usec")


# The sweep's closing table, a level a line ("Inferences/Second vs. Client Average Batch Latency"):
# `Concurrency: 4, throughput: 23.773 infer/sec, latency 167879 usec` (`Request Rate: 10, …` for a rate sweep).
_SWEEP = re.compile(r"\b(Concurrency|Request Rate):\s*(\d+(?:\.\d+)?),\s*throughput:\s*([\d.]+)\s*infer/sec,\s*"
                    r"latency\s*(\d+)\s*usec")


def sniff(head: str) -> float:
    if _SWEEP.search(head):
        return 0.9
    if "infer/sec" in head and _QUEUE.search(head) and "Avg request latency" in head:
        return 0.9  # a block pasted from its client rows on, the server's split below them
    return 0.9 if _CONCURRENCY.search(head) and ("infer/sec" in head or "Avg request latency" in head) else 0.0


def _record(line_number: int, metrics: dict) -> Record:
    return Record("summary", "triton.perf-analyzer", line_number, metrics,
                  labels={"tool": "perf_analyzer", "engine": "triton"})


def parse(lines) -> Iterator:
    measured: set = set()  # the concurrency levels read from their blocks
    metrics: dict = {}
    start = 0
    section = ""  # "client" or "server" inside a block
    for line_number, line in lines:
        sweep = _SWEEP.search(line) if "infer/sec, latency" in line else None
        if sweep is not None:
            kind, level, throughput, latency = sweep.groups()
            if kind == "Concurrency" and float(level) in measured:
                continue  # the closing table repeats a level its block told in full
            load = "max_concurrency" if kind == "Concurrency" else "request_rate_per_second"
            yield _record(line_number, {load: float(level), "request_throughput_per_second": float(throughput),
                                        "e2e_seconds_mean": int(latency) * 1e-6})
            continue
        level = _CONCURRENCY.search(line)
        if level is not None:
            measured.add(float(level.group(1)))
            if metrics:
                yield _record(start, metrics)
            metrics, start, section = {"max_concurrency": float(level.group(1))}, line_number, ""
            continue
        if not metrics:
            row = _ROW.match(line) if not measured else None
            if row is None or row.group(1) not in _CLIENT:
                continue
            # a block pasted from its client rows on (`Request count: 478`, no `Request concurrency:` above it):
            # one run at a concurrency the paste does not say
            start, section = line_number, "client"
        stripped = line.strip()
        if stripped in ("Client:", "Server:"):
            section = stripped[:-1].lower()
            continue
        if section == "server":
            server = _SERVER.search(line)
            if server is not None:
                metrics["server_request_seconds_mean"] = int(server.group(1)) * 1e-6
                queue = _QUEUE.search(server.group(2))
                if queue is not None:
                    metrics["queue_seconds_mean"] = int(queue.group(1)) * 1e-6
            continue
        row = _ROW.match(line) if section == "client" else None
        if row is not None and row.group(1) in _CLIENT:
            metric, scale = _CLIENT[row.group(1)]
            metrics[metric] = float(row.group(2)) * scale
    if metrics:
        yield _record(start, metrics)
