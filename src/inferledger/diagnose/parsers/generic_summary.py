"""The last resort for a benchmark client no reader knows: `label: value unit` lines whose label names a serving
metric in the field's usual words ("Average TTFT: 0.51 s", "p99 end-to-end latency = 2.3s", "mean_tpot_ms: 12.1",
"Output throughput (tokens/s): 456.3", "Successful requests: 120"). Used only when no other format is detected in a
file (parsers.detect), so it never reads a line twice.

A run of such lines is one summary Record; a label seen again starts the next run. Latencies need a unit (after
the value, in the label's parentheses, or as a `_ms`/`_s` suffix): a bare number could be seconds or ms, so it is
reported unread rather than guessed. Every record says it was read by keywords (labels `reader`).
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from inferledger.diagnose.parsers.bench_common import STAT_NAMES, TIME_UNITS
from inferledger.diagnose.records import Record, looks_like_metric, unread

NAME = "generic-summary"

# `label` [:=|] `number` [`unit`]: the label starts with a letter, quotes and list marks around it are dropped.
_LINE = re.compile(r"^[\s\-*•|>#]*[\"']?(?P<label>[A-Za-z][\w ./()%,-]{0,80}?)[\"']?\s*[:=|]\s*[\"']?"
                   r"(?P<value>[-+]?\d[\d,]*(?:\.\d+)?(?:[eE][-+]?\d+)?)\s*(?P<unit>[A-Za-zµμ/%]+(?:/[A-Za-z]+)?)?")
# Metric names by the words the clients use, first match wins (specific before generic).
_LATENCIES = (
    ("ttft", "ttft_seconds"), ("time to first token", "ttft_seconds"), ("first token latency", "ttft_seconds"),
    ("first token time", "ttft_seconds"), ("ttst", "ttst_seconds"), ("tpot", "tpot_seconds"),
    ("time per output token", "tpot_seconds"), ("inter token latency", "itl_seconds"), ("itl", "itl_seconds"),
    ("per token latency", "tpot_seconds"), ("e2el", "e2e_seconds"), ("e2e", "e2e_seconds"),
    ("end to end latency", "e2e_seconds"), ("request latency", "e2e_seconds"), ("latency", "e2e_seconds"),
)
_COUNTS = (
    ("successful requests", "completed_requests"), ("completed requests", "completed_requests"),
    ("failed requests", "failed_requests"), ("total requests", "completed_requests"),
    ("concurrency", "max_concurrency"), ("input length", "mean_input_tokens"), ("prompt length", "mean_input_tokens"),
    ("output length", "mean_output_tokens"), ("total input tokens", "total_input_tokens"),
    ("total output tokens", "total_output_tokens"), ("total generated tokens", "total_output_tokens"),
)
_DURATIONS = ("benchmark duration", "total time", "elapsed", "duration", "wall time")
_TOKEN_RATE = re.compile(r"\b(?:tok(?:en)?s?|t)\s*/\s*(?:s|sec|second)\b")
_REQUEST_RATE = re.compile(r"\b(?:req(?:uest)?s?\s*/\s*(?:s|sec|second)|qps|rps)\b")
_LABEL_UNIT = re.compile(r"\((ns|us|µs|μs|ms|s|sec|secs|seconds)\)|[ _](ns|us|ms|s|sec|secs|seconds)$")
_STAT_WORD = re.compile(r"\b(mean|avg|average|median|p50|p90|p95|p99|min|minimum|max|maximum|std|stddev)\b")


def _words(label: str) -> str:
    return " ".join(re.sub(r"[_\-]+", " ", label.lower()).replace("end-to-end", "end to end").split())


def _metric(label: str, value: float, unit: str) -> tuple[str, float] | None:
    """(metric name, value in its unit) for one line, or None when the words or the unit do not say enough."""
    words = _words(label)
    both = f"{words} {unit.lower()}"
    stat_word = _STAT_WORD.search(words)
    stat = STAT_NAMES[stat_word.group(1)] if stat_word else "mean"
    if _REQUEST_RATE.search(both):
        return "request_throughput_per_second", value
    if _TOKEN_RATE.search(both) or ("throughput" in words and "token" in both):
        if any(word in words for word in ("input", "prompt", "prefill")):
            return "input_tokens_per_second", value
        if "total" in words:
            return "total_tokens_per_second", value
        return "output_tokens_per_second", value
    if "concurrency" in words and stat == "mean" and stat_word is not None:
        return "mean_concurrency", value  # measured requests in flight, not a cap
    for words_of, metric in _COUNTS:
        if words_of in words:
            return metric, value
    time_unit = unit.lower() if unit.lower() in TIME_UNITS else None
    if time_unit is None:
        match = _LABEL_UNIT.search(words)
        time_unit = (match.group(1) or match.group(2)) if match else None
    if time_unit is None:
        return None
    seconds = value * TIME_UNITS[time_unit]
    if any(word in words for word in _DURATIONS) and stat_word is None:
        return "duration_seconds", seconds
    for words_of, metric in _LATENCIES:
        if re.search(rf"\b{words_of}\b", words):
            return f"{metric}_{stat}", seconds
    return None


def _line_metric(line: str) -> tuple[str, float] | None:
    match = _LINE.match(line)
    if match is None:
        return None
    value = float(match.group("value").replace(",", ""))
    return _metric(match.group("label"), value, match.group("unit") or "")


def sniff(head: str) -> float:
    """Three lines or more that name a metric with a number and a unit: enough to read a summary from."""
    found = 0
    for line in head.splitlines():
        if looks_like_metric(line) and _line_metric(line) is not None:
            found += 1
            if found >= 3:
                return 0.5
    return 0.0


def parse(lines) -> Iterator:
    metrics: dict = {}
    start = 0
    for line_number, line in lines:
        reading = _line_metric(line) if any(char.isdigit() for char in line) else None
        if reading is None:
            if looks_like_metric(line):
                yield unread(line_number, line, NAME)
            continue
        name, value = reading
        if name in metrics:  # the same label again: the next run's summary
            yield _record(start, metrics)
            metrics = {}
        if not metrics:
            start = line_number
        metrics[name] = value
    if metrics:
        yield _record(start, metrics)


def _record(line_number: int, metrics: dict) -> Record:
    labels = {"tool": "unknown client", "reader": "generic: metric names matched by their usual words"}
    return Record("summary", "bench.generic", line_number, dict(metrics), labels=labels)
