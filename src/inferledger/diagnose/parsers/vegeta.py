"""vegeta's text report (`vegeta attack … | vegeta report`), the HTTP load tester people point at an OpenAI-style
endpoint: one block per attack, each a summary Record.

    Requests      [total, rate, throughput]         600, 10.02, 3.43
    Duration      [total, attack, wait]             2m51s, 59.9s, 1m51s
    Latencies     [min, mean, 50, 90, 95, 99, max]  69.935ms, 2.731s, 112.643ms, 181.423ms, 396.757ms, 2m0s, 2m0s
    Success       [ratio]                           97.83%
    Status Codes  [code:count]                      0:13  200:587

`rate` is the rate requests were sent at (the offered load), `throughput` the successful ones over the whole time
(attack + wait); a latency is a request's whole time, sent to the last byte back (a non-streamed reply's, or a
stream's end), timeouts included at the client's limit; status 0 is a request that got no response (a timeout, a
reset). A script's `Rate: N` / `Timeout: 10s` lines before a block are its settings, and say nothing new.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from inferledger.diagnose.parsers.ollama import go_duration_seconds
from inferledger.diagnose.records import Record, Skipped

NAME = "vegeta"

_ROW = re.compile(r"^\s*(Requests|Duration|Latencies|Success|Status Codes)\s+\[([^\]]*)\]\s+(.*?)\s*$")
_LATENCY_STATS = {"min": "min", "mean": "mean", "50": "median", "90": "p90", "95": "p95", "99": "p99", "max": "max"}
_LABELS = {"tool": "vegeta", "e2e_definition": "vegeta's latency: request sent to the last byte back, timeouts at the "
                                               "client's limit"}


def sniff(head: str) -> float:
    return 0.9 if "Latencies" in head and "[total, rate, throughput]" in head else 0.0


def _block_metrics(rows: dict) -> dict | None:
    """The metrics of one report's rows {row name: (field names, values text)}; None when a row cannot be read."""
    metrics = {}
    names, text = rows.get("Requests", ((), ""))
    values = [value.strip() for value in text.split(",")]
    if tuple(names) == ("total", "rate", "throughput") and len(values) == 3:
        try:
            total, rate, throughput = (float(value) for value in values)
        except ValueError:
            return None
        metrics.update(requests_sent=total, request_rate_per_second=rate, request_throughput_per_second=throughput)
    names, text = rows.get("Duration", ((), ""))
    if names[:1] == ("total",):
        seconds = go_duration_seconds(text.split(",")[0])
        if seconds is None:
            return None
        metrics["duration_seconds"] = seconds
    names, text = rows.get("Latencies", ((), ""))
    for name, value in zip(names, text.split(","), strict=False):
        stat = _LATENCY_STATS.get(name)
        seconds = go_duration_seconds(value)
        if stat is not None and seconds is not None:
            metrics[f"e2e_seconds_{stat}"] = seconds
    names, text = rows.get("Status Codes", ((), ""))
    if names == ("code:count",) and text:
        counts = dict(pair.split(":", 1) for pair in text.split() if ":" in pair)
        try:
            answered = sum(int(count) for code, count in counts.items() if code.startswith("2"))
            failed = sum(int(count) for code, count in counts.items() if not code.startswith("2"))
        except ValueError:
            return None
        metrics.update(completed_requests=float(answered), failed_requests=float(failed))
    return metrics if "requests_sent" in metrics and any(name.startswith("e2e_") for name in metrics) else None


def parse(lines) -> Iterator:
    rows: dict = {}
    first = None

    def flush():
        if not rows:
            return None
        metrics = _block_metrics(rows)
        if metrics is None:
            return Skipped(first, "a vegeta report block without readable requests and latencies", "vegeta")
        return Record("summary", "vegeta", first, metrics, labels=dict(_LABELS))

    for line_number, line in lines:
        if "[" not in line:
            continue
        match = _ROW.match(line)
        if match is None:
            continue
        name = match.group(1)
        if name == "Requests" and rows:
            item = flush()
            if item is not None:
                yield item
            rows = {}
        if name == "Requests":
            first = line_number
        rows[name] = (tuple(field.strip() for field in match.group(2).split(",")), match.group(3))
    item = flush()
    if item is not None:
        yield item
