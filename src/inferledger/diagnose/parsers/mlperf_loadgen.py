"""MLPerf Inference LoadGen's text summary (mlperf_log_summary.txt) of an LLM benchmark: one run a summary.

    ================================================
    MLPerf Results Summary
    ================================================
    SUT name : PySUT
    Scenario : Server
    Completed samples per second    : 0.11
    Completed tokens per second: 43.45
    Result is : INVALID
    ...
    Mean First Token latency (ns)               : 0
    50.00 percentile latency (ns)               : 8912461225
    Mean Time to Output Token (ns)              : 24566121

Offline runs print `Samples per second:` and `Tokens per second:`; latencies are in nanoseconds; `N ERRORS encountered`
after the summary counts the SUT's errors (mlcommons/inference#1546: a SUT that never reported its first tokens).
`Result is : VALID` with the scenario is what summary-mlperf-valid reads, as for the results site's JSON (bench_json).
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from inferledger.diagnose.records import Record

NAME = "mlperf-loadgen"

_BANNER = "MLPerf Results Summary"
_PAIR = re.compile(r"^\s*([A-Za-z0-9][^:]*?)\s*:\s*(\S.*?)\s*$")
_RATES = {"samples per second": "request_throughput_per_second",
          "completed samples per second": "request_throughput_per_second",
          "tokens per second": "output_tokens_per_second",
          "completed tokens per second": "output_tokens_per_second",
          "scheduled samples per second": "request_rate_per_second"}
# `Mean latency (ns)`, `Max First Token latency (ns)`, `99.00 percentile time to output token (ns)`…
_LATENCY = re.compile(r"^(min|max|mean|(\d+(?:\.\d+)?) percentile)\s+(first token latency|latency|time to output token)"
                      r" \(ns\)$", re.IGNORECASE)
_METRIC = {"first token latency": "ttft_seconds", "latency": "e2e_seconds", "time to output token": "tpot_seconds"}
_PERCENTILE = {"50.00": "median", "90.00": "p90", "95.00": "p95", "99.00": "p99"}
_ERRORS = re.compile(r"^\s*(\d+) ERRORS encountered")


def sniff(head: str) -> float:
    return 0.95 if _BANNER in head else 0.0


def _number(text: str) -> float | None:
    try:
        return float(text)
    except ValueError:
        return None


def parse(lines) -> Iterator:
    run: tuple[int, dict, dict] | None = None  # (line number, metrics, labels) of the summary being read
    for line_number, line in lines:
        if _BANNER in line:
            if run is not None and run[1]:
                yield Record("summary", "bench.mlperf-loadgen", *run[:2], labels=run[2])
            run = (line_number, {}, {"tool": "MLPerf LoadGen"})
            continue
        if run is None:
            continue
        errors = _ERRORS.match(line) if "ERRORS" in line else None
        if errors is not None:
            run[1]["failed_requests"] = float(errors.group(1))
            continue
        pair = _PAIR.match(line)
        if pair is None:
            continue
        key, value = pair.group(1).strip(), pair.group(2)
        lowered = key.lower()
        if lowered == "scenario":
            run[2].update(mlperf_scenario=value, tool=f"MLPerf LoadGen {value}")
        elif lowered == "result is":
            run[2]["mlperf_valid"] = value.upper() == "VALID"
        elif lowered == "performance constraints satisfied":
            run[2]["mlperf_latency_bounds_met"] = value.strip().upper() == "YES"  # the scenario's latency bounds
        elif lowered in _RATES:
            number = _number(value)
            if number is not None:
                run[1].setdefault(_RATES[lowered], number)  # the headline's, not the repeat further down
        elif (latency := _LATENCY.match(key)) is not None:
            number = _number(value)
            stat = latency.group(1).lower()
            stat = _PERCENTILE.get(latency.group(2)) if latency.group(2) else stat
            if number is not None and stat is not None:
                run[1][f"{_METRIC[latency.group(3).lower()]}_{stat}"] = number * 1e-9
    if run is not None and run[1]:
        yield Record("summary", "bench.mlperf-loadgen", *run[:2], labels=run[2])
