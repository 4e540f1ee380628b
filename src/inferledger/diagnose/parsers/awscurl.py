"""awscurl (DJL Serving's load tester, `awscurl -c clients -N requests -P -t`) as people paste it: its console summary

    Total time: 2511.73 ms.
    Non 200 responses: 0, error rate: 0.00
    Concurrent clients: 1
    Total requests: 2
    TPS: 0.86/s
    Average Token Latency: Infinity ms.
    Average Latency: 1166.49 ms.
    P50: 1715.55 ms.
    Time to first byte: 867.82 ms.

and its raw metrics as Python prints a dict (`raw metrics: {'tokenizer': …, 'totalTimeMills': 141682.67, …}`, or a
`name = {` block of `'key': value,` lines), read as the JSON summary is (bench_json.awscurl_summary). TPS is requests a
second (clients ÷ mean latency); an `Infinity` token latency is a run whose tokens were counted as none (no tokenizer
for the reply), so its token throughput is 0: no measurement of tokens.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Iterator

from inferledger.diagnose.parsers.bench_json import awscurl_summary
from inferledger.diagnose.records import Record

NAME = "awscurl"

_TEXT = {  # console label (lower case) -> (metric, factor to seconds or 1)
    "total time": ("duration_seconds", 1e-3), "concurrent clients": ("max_concurrency", 1.0),
    "total requests": ("requests_sent", 1.0), "tps": ("request_throughput_per_second", 1.0),
    "average token latency": ("tpot_seconds_mean", 1e-3), "average latency": ("e2e_seconds_mean", 1e-3),
    "p50": ("e2e_seconds_median", 1e-3), "p90": ("e2e_seconds_p90", 1e-3), "p99": ("e2e_seconds_p99", 1e-3),
    "time to first byte": ("ttft_seconds_mean", 1e-3), "ttfb_p50": ("ttft_seconds_median", 1e-3),
    "ttfb_p90": ("ttft_seconds_p90", 1e-3), "ttfb_p99": ("ttft_seconds_p99", 1e-3),
    "total token": ("total_output_tokens", 1.0), "token/s": ("output_tokens_per_second", 1.0),
    "token/req": ("mean_output_tokens", 1.0),
}
_PAIR = re.compile(r"^\s*([A-Za-z][A-Za-z0-9_/ ]*?)\s*:\s*(-?[\d.]+|Infinity|NaN)\s*(?:ms|/s)?\.?\s*$")
_ERRORS = re.compile(r"Non 200 responses:\s*(\d+)")
_DICT_START = re.compile(r"(?:raw metrics:\s*|=\s*)(\{.*)$")


def sniff(head: str) -> float:
    if "'totalTimeMills'" in head:
        return 0.85
    if "Total time:" in head and "TPS:" in head and ("Time to first byte" in head or "Average Latency" in head):
        return 0.85
    return 0.0


def _literal(text: str) -> dict | None:
    """A Python dict literal (ast.literal_eval: literals only, nothing runs), or None."""
    try:
        value = ast.literal_eval(text)
    except (ValueError, SyntaxError, MemoryError, RecursionError):
        return None
    return value if isinstance(value, dict) else None


def parse(lines) -> Iterator:
    text: tuple[int, dict] | None = None  # (first line, metrics) of a console summary being read
    block: tuple[int, list] | None = None  # (first line, lines) of a dict printed over several lines
    for line_number, line in lines:
        if block is not None:
            block[1].append(line)
            if line.strip().startswith("}"):
                value = _literal(" ".join(block[1]))
                if value is not None:
                    yield from awscurl_summary(block[0], value, {})
                block = None
            continue
        if "{" in line and "'" in line or line.rstrip().endswith("{"):
            start = _DICT_START.search(line)
            if start is not None:
                opened = start.group(1)
                if opened.rstrip().endswith("}"):
                    value = _literal(opened)
                    if value is not None:
                        yield from awscurl_summary(line_number, value, {})
                else:
                    block = (line_number, [opened])
                continue
        if "Non 200 responses" in line and (errors := _ERRORS.search(line)) is not None:
            if text is not None:
                text[1]["failed_requests"] = float(errors.group(1))
            continue
        pair = _PAIR.match(line)
        if pair is None:
            continue
        label, value = pair.group(1).lower(), pair.group(2)
        if label == "total time":
            if text is not None and text[1]:
                yield _text_record(*text)
            text = (line_number, {})
        if text is None or label not in _TEXT:
            continue
        metric, factor = _TEXT[label]
        if value == "Infinity" and metric == "tpot_seconds_mean":
            text[1]["output_tokens_per_second"] = 0.0  # no token counted in any reply
            continue
        if value not in ("Infinity", "NaN"):
            text[1][metric] = float(value) * factor
    if text is not None and text[1]:
        yield _text_record(*text)


def _text_record(line_number: int, metrics: dict) -> Record:
    sent, failed = metrics.get("requests_sent"), metrics.get("failed_requests", 0.0)
    if sent is not None:
        metrics["completed_requests"] = sent - failed
    return Record("summary", "bench.awscurl", line_number, metrics, labels={"tool": "awscurl"})
