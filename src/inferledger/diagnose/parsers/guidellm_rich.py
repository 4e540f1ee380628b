"""guidellm 0.1 rich-console report: tables nested inside the report's own borders
(`│ │ ┃ … ┃ │ │`), headers wrapped over several rows, percentile lists (`[1%, 5%, 10%, 50%, 90%, 95%, 99%]`) whose
cells wrap onto continuation rows, request latency in sec and TTFT/ITL in ms in the same table.

The four tables (Requests Data, Tokens Data, Performance Stats, Performance Summary) are merged per benchmark row
(`synchronous`, `throughput`, `constant@26.21`, `asynchronous@2.00 req/sec`, `poisson@…`, `concurrent@…`) into one
summary Record each, emitted at the end of the file.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from inferledger.diagnose.parsers.bench_common import NUMBER, TIME_UNITS
from inferledger.diagnose.records import Record, Skipped

NAME = "guidellm"

_COLUMNS = (  # header name (lower case, before '[' or '(') -> metric; longest first where prefixes overlap
    ("requests per second", "request_throughput_per_second"),
    ("request latency", "e2e_seconds"),
    ("time to first token", "ttft_seconds"),
    ("inter token latency", "itl_seconds"),
    ("time per output token", "tpot_seconds"),
    ("output token throughput", "output_tokens_per_second"),
    ("requests completed", "completed_requests"),
    ("request failed", "failed_requests"),
    ("requests failed", "failed_requests"),
    ("duration", "duration_seconds"),
    ("prompt", "mean_input_tokens"),
    ("output", "mean_output_tokens"),
)
# p1 is kept beside the records.STATS names: the TTFT spread rule compares it with p99.
_PERCENTILE = {"1": "p1", "50": "median", "90": "p90", "95": "p95", "99": "p99"}
_RATE = re.compile(r"@\s*([\d.]+)")


def _metric(header: str) -> tuple[str | None, float, list]:
    """(metric, unit factor, percentiles listed) for one header cell."""
    lowered = " ".join(header.lower().split())
    name = re.split(r"[\[(]", lowered)[0].strip()
    metric = next((metric for prefix, metric in _COLUMNS if name == prefix), None)
    unit = re.search(r"\((sec|s|ms)\)\s*$", lowered)
    factor = TIME_UNITS[unit.group(1)] if unit else 1.0
    listed = re.findall(r"(\d+(?:\.\d+)?)%", lowered[lowered.find("["):] if "[" in lowered else "")
    return metric, factor, listed


def _strip_borders(line: str, depth: int) -> str:
    text = line.strip()
    for _ in range(depth):
        if text[:1] == "│":
            text = text[1:].strip()
        if text[-1:] == "│":
            text = text[:-1].strip()
    return text


class _Table:
    def __init__(self, line_number: int, depth: int):
        self.line_number = line_number
        self.depth = depth
        self.header: list = []
        self.rows: list = []
        self.in_body = False

    def feed(self, line: str) -> bool:
        """Take one line; False when the table has ended."""
        text = _strip_borders(line, self.depth)
        if not text:
            return False
        first = text[0]
        if first in "┏┳":
            return True
        if first in "┡╇━├─":
            self.in_body = True
            return True
        if first in "└╰":
            return False
        if first == "┃" and not self.in_body:
            cells = [cell.strip() for cell in text.strip("┃").split("┃")]
            if not self.header:
                self.header = cells
            else:
                self.header = [f"{old} {new}".strip() for old, new in zip(self.header, cells, strict=False)]
            return True
        if first == "│" and self.in_body:
            cells = [cell.strip() for cell in text.strip("│").split("│")]
            if self.rows and not cells[0]:
                previous = self.rows[-1]
                for index, cell in enumerate(cells[1:], 1):
                    if cell and index < len(previous):
                        previous[index] = f"{previous[index]} {cell}".strip()
            else:
                self.rows.append(cells)
            return True
        return False

    def fold(self, benchmarks: dict) -> None:
        columns = [_metric(cell) for cell in self.header[1:]]
        for row in self.rows:
            name = row[0]
            metrics = benchmarks.setdefault(name, {})
            for (metric, factor, listed), cell in zip(columns, row[1:], strict=False):
                if metric is None:
                    continue
                values = [float(match.group().replace(",", "")) for match in NUMBER.finditer(cell)] \
                    if listed else []
                if listed and len(values) == len(listed):
                    for percentile, value in zip(listed, values, strict=True):
                        stat = _PERCENTILE.get(percentile)
                        if stat is not None:
                            metrics[f"{metric}_{stat}"] = value * factor
                    continue
                match = NUMBER.search(cell)
                if match is None:
                    continue
                unit = cell[match.end():].strip().split(" ")[0].lower()
                value = float(match.group().replace(",", "")) * TIME_UNITS.get(unit, factor)
                key = metric if not metric.endswith("_seconds") else f"{metric}_mean"
                metrics[key] = value


def _labels(name: str) -> tuple[dict, dict]:
    """(labels, metrics) the benchmark's name states: its load pattern."""
    lowered = name.lower()
    labels = {"tool": "guidellm", "benchmark": name}
    metrics = {}
    rate = _RATE.search(lowered)
    if lowered.startswith("throughput"):
        labels["request_rate"] = "inf"
    elif lowered.startswith("synchronous"):
        metrics["max_concurrency"] = 1.0
    elif rate and lowered.startswith("concurrent"):
        metrics["max_concurrency"] = float(rate.group(1))
    elif rate:
        metrics["request_rate_per_second"] = float(rate.group(1))
    return labels, metrics


def sniff(head: str) -> float:
    if "┃" in head and "Benchmark" in head and ("Time to First Token" in head or "by Benchmark" in head
                                                  or "GuideLLM" in head):
        return 0.9
    return 0.0


def parse(lines) -> Iterator:
    benchmarks: dict = {}
    first_line: dict = {}
    table: _Table | None = None
    for line_number, line in lines:
        if table is not None:
            if table.feed(line):
                continue
            table.fold(benchmarks)
            for row in table.rows:
                first_line.setdefault(row[0], table.line_number)
            table = None
        stripped = line.strip()
        start = stripped.find("┏")
        if start < 0:
            start = stripped.find("┃") if "Benchmark" in stripped else -1
        if start >= 0:
            depth = stripped[:start].count("│")
            table = _Table(line_number, depth)
            table.feed(line)
    if table is not None:
        table.fold(benchmarks)
        for row in table.rows:
            first_line.setdefault(row[0], table.line_number)
    for name, metrics in benchmarks.items():
        if not name:
            continue
        labels, stated = _labels(name)
        if not metrics:
            yield Skipped(first_line.get(name, 1), f"guidellm row {name!r} without numbers", NAME)
            continue
        yield Record("summary", "bench.guidellm", first_line.get(name, 1), dict(stated, **metrics), labels=labels)
