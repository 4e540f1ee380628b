"""Benchmark results pasted as a Markdown table: one row per run, the columns named by the metric
(`| ISL | OSL | Concurrency | TTFT (ms) | TPOT (ms) | E2EL (ms) | Req Tput (RPS) |`, as report generators and
README sweeps print them). Each row with a latency becomes one summary Record; the header says what each column
holds, so any tool's table reads the same way.

A time column needs its unit in the header (`(ms)`, `(s)`, `_ms`): a bare "TTFT" could be either.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from inferledger.diagnose.parsers.bench_common import TIME_UNITS, canonical_stat, to_number
from inferledger.diagnose.records import Record

NAME = "markdown-table"

# (pattern on the lower-case header without its unit, metric, kind): kind "time" needs a unit and takes a stat
# suffix (mean when the header names none); "count"/"rate" are per-run numbers. Order matters: first match wins.
_COLUMNS = (
    (r"\bttft\b|time to first token", "ttft_seconds", "time"),
    (r"\btpot\b|time per output token", "tpot_seconds", "time"),
    (r"\bitl\b|inter[- ]token", "itl_seconds", "time"),
    (r"\be2el?\b|e2e latency|end[- ]to[- ]end|request latency", "e2e_seconds", "time"),
    (r"\bisl\b|input (?:seq(?:uence)? )?len|input tokens|prompt len", "mean_input_tokens", "count"),
    (r"\bosl\b|output (?:seq(?:uence)? )?len|output tokens", "mean_output_tokens", "count"),
    (r"concurrency", "max_concurrency", "count"),
    (r"^n req|num(?:ber of)? req|^requests$|^# ?req", "completed_requests", "count"),
    (r"req(?:uest)?s? t(?:hrough)?put|req/s|\brps\b|\bqps\b", "request_throughput_per_second", "rate"),
    (r"tput user|per user|/user", "output_tokens_per_second_per_user_mean", "rate"),
    (r"total tok(?:en)?s? t(?:hrough)?put", "total_tokens_per_second", "rate"),
    (r"output t(?:hrough)?put|output tok(?:en)?s?/s|tput decode|gen(?:eration)? t(?:hrough)?put",
     "output_tokens_per_second", "rate"),
)
_UNIT = re.compile(r"\s*\((ms|s|sec|us|µs)\)|[_ ](ms|s|sec|us)$")
_TOOL_COLUMNS = ("source", "tool", "backend", "engine", "framework")
_SEPARATOR = re.compile(r"^\|?\s*:?-{3,}:?\s*(\|\s*:?-{3,}:?\s*)+\|?\s*$")


def _cells(line: str) -> list:
    return [cell.strip() for cell in line.strip().strip("|").split("|")]


def _column(header: str):
    """(metric name with its stat, seconds per unit or None, kind) for one header cell, or None."""
    lowered = header.lower().strip()
    unit_match = _UNIT.search(lowered)
    unit = None
    if unit_match:
        unit = TIME_UNITS.get(unit_match.group(1) or unit_match.group(2))
        lowered = lowered[: unit_match.start()].strip()
    found = next(((metric, kind) for pattern, metric, kind in _COLUMNS if re.search(pattern, lowered)), None)
    if found is None:
        return None
    metric, kind = found
    if kind != "time":
        return metric, 1.0, kind
    if unit is None:
        return None
    stat = next((canonical_stat(word) for word in re.split(r"[\s_]+", lowered) if canonical_stat(word)), "mean")
    return f"{metric}_{stat}", unit, kind


def _header(line: str) -> list | None:
    """The columns of a header row naming at least one latency and one other metric, else None."""
    columns = [_column(cell) for cell in _cells(line)]
    named = [column for column in columns if column is not None]
    if not any(column[2] == "time" for column in named) or len(named) < 2:
        return None
    return columns


def sniff(head: str) -> float:
    if "|" not in head or "---" not in head:
        return 0.0
    previous = ""
    for line in head.split("\n"):
        if _SEPARATOR.match(line) and previous.lstrip().startswith("|") and _header(previous):
            return 0.6
        previous = line
    return 0.0


def _row(line_number: int, headers: list, columns: list, line: str) -> Record | None:
    cells = _cells(line)
    if len(cells) != len(columns):
        return None  # a cut or merged row: its cells cannot be matched to the header
    metrics = {}
    tool = "markdown table"
    for header, column, cell in zip(headers, columns, cells, strict=True):
        if header.lower() in _TOOL_COLUMNS and cell:
            tool = cell
        if column is None:
            continue
        number = to_number(cell)
        if number is not None:
            metrics[column[0]] = number * column[1]
    if not any(column is not None and column[2] == "time" and column[0] in metrics for column in columns):
        return None
    return Record("summary", "bench.markdown", line_number, metrics, labels={"tool": tool})


def parse(lines) -> Iterator:
    previous: tuple[int, str] = (0, "")
    table: tuple[list, list] | None = None
    for line_number, line in lines:
        stripped = line.strip()
        if table is not None:
            if not stripped.startswith("|"):
                table = None
            else:
                record = _row(line_number, *table, stripped)
                if record is not None:
                    yield record
        elif _SEPARATOR.match(stripped) and previous[1].startswith("|"):
            columns = _header(previous[1])
            if columns is not None:
                table = (_cells(previous[1]), columns)
        previous = (line_number, stripped)
