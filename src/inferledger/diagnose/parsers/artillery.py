"""artillery's console report (`artillery run load.yml`), an HTTP load tester people point at an OpenAI-style endpoint:
each block (a period's metrics every ten seconds, then the summary) one summary Record.

    Summary report @ 15:04:12(+0000)
    http.codes.200: ................................................................ 240
    http.request_rate: ............................................................. 3/sec
    http.requests: ................................................................. 240
    http.response_time:
      min: ......................................................................... 105
      mean: ........................................................................ 6655.3
      p95: ......................................................................... 12968.3

`http.request_rate` is the rate requests were sent at (the arrival phases' load), `http.requests` how many were sent,
`http.codes.N` how many came back with each status; `http.response_time` is a request's whole time in milliseconds,
sent to the last byte back (a non-streamed reply's time). Other counters (bytes, vusers, the session lengths, a
`http.response_time.2xx:` split) repeat what these say or time the scenario, not a request: not read.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from inferledger.diagnose.records import Record

NAME = "artillery"

# `key: ....... value` (the dots pad the key to a column); a key alone (`http.response_time:`) opens its statistics.
_LINE = re.compile(r"^(\s*)([\w.]+):\s*(?:\.+\s*([\d.]+)(/sec)?)?\s*$")
_STATS = {"min": "min", "max": "max", "mean": "mean", "median": "median", "p50": "median", "p90": "p90",
          "p95": "p95", "p99": "p99"}
_COUNTERS = {"http.requests": "requests_sent", "http.request_rate": "request_rate_per_second"}
_LABELS = {"tool": "artillery", "e2e_definition": "artillery's http.response_time: request sent to the last byte back"}


def sniff(head: str) -> float:
    return 0.9 if "http.response_time:" in head and ("http.requests:" in head or "http.codes." in head) else 0.0


def _record(line_number: int, metrics: dict, codes: dict) -> Record | None:
    if codes:
        metrics["completed_requests"] = float(sum(count for code, count in codes.items() if code.startswith("2")))
        metrics["failed_requests"] = float(sum(count for code, count in codes.items() if not code.startswith("2")))
    if not any(name.startswith("e2e_") for name in metrics):
        return None
    return Record("summary", "artillery", line_number, metrics, labels=dict(_LABELS))


def parse(lines) -> Iterator:
    metrics: dict = {}
    codes: dict = {}
    start = 0
    inside = ""  # the key whose statistics the indented lines give
    for line_number, line in lines:
        if "Summary report @" in line or "Metrics for period to:" in line:
            record = _record(start, metrics, codes) if metrics else None
            if record is not None:
                yield record
            metrics, codes, start, inside = {}, {}, line_number, ""
            continue
        if ":" not in line:
            continue
        match = _LINE.match(line)
        if match is None:
            continue
        indent, key, value, per_second = match.groups()
        if value is None:
            inside = key if not indent else inside
            continue
        if indent:
            stat = _STATS.get(key)
            if inside == "http.response_time" and stat is not None:
                metrics[f"e2e_seconds_{stat}"] = float(value) / 1000  # artillery prints milliseconds
            continue
        inside = ""
        name = _COUNTERS.get(key)
        code = key[len("http.codes."):] if key.startswith("http.codes.") else None
        if name in metrics or code in codes:  # the same counter again: the next period's block
            record = _record(start, metrics, codes)
            if record is not None:
                yield record
            metrics, codes = {}, {}
        if not metrics and not codes:
            start = line_number
        if code is not None:
            codes[code] = int(float(value))
        elif name is not None and (per_second or name == "requests_sent"):
            metrics[name] = float(value)
    if metrics:
        record = _record(start, metrics, codes)
        if record is not None:
            yield record
