"""Benchmark client outputs (FORMATS.md §2.4, §2.6, §2.11): `vllm bench serve` / benchmark_serving.py console
and --save-result JSON, `sglang.bench_serving` console and JSONL, genai-perf console table, AIPerf / genai-perf
profile-export JSON, guidellm ~0.2 text tables (terminal-wrapped), ray llmperf summary and individual-responses JSON.

Every aggregate becomes one "summary" Record, every llmperf / --save-detailed request one "request" Record. Units are
converted here: the vLLM/SGLang consoles and `_ms` JSON keys are ms, their detailed arrays seconds (§1.7), AIPerf and
genai-perf carry a "unit" per metric (ms, or ns in old releases), llmperf is seconds, guidellm states the unit in
the column-group title.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Iterator

from inferledger.diagnose.records import Record, Skipped

NAME = "bench"

# ---------------------------------------------------------------------------------------------------------------
# Shared: numbers, units, statistics

_NUMBER = re.compile(r"[-+]?(?:\d[\d,]*(?:\.\d*)?|\.\d+)(?:[eE][-+]?\d+)?|[-+]?inf(?:inity)?", re.IGNORECASE)
# Seconds per unit, for the unit words the tools print.
_TIME_UNITS = {"ns": 1e-9, "us": 1e-6, "µs": 1e-6, "μs": 1e-6, "ms": 1e-3, "s": 1.0, "sec": 1.0, "secs": 1.0,
               "seconds": 1.0}
# The statistic spellings of the tools, mapped onto records.STATS (p50 is the median everywhere).
_STAT_NAMES = {"mean": "mean", "avg": "mean", "average": "mean", "median": "median", "p50": "median",
               "p90": "p90", "p95": "p95", "p99": "p99", "min": "min", "minimum": "min", "max": "max",
               "maximum": "max", "std": "std", "stddev": "std"}


def _number(text: str) -> float | None:
    """The first number in a cell ('1,764.61', '--->  1,764.61', '15.0 RPS.'), or None ('N/A', 'not set')."""
    match = _NUMBER.search(text)
    if match is None:
        return None
    token = match.group().replace(",", "")
    try:
        value = float(token)
    except ValueError:
        return None
    return value if math.isfinite(value) else None  # 'inf' rates are handled as labels before this


def _stat(name: str) -> str | None:
    """A tool's statistic name ('Mean', 'P99', 'quantiles_p95', 'p99.9') as a records.STATS name, or None."""
    name = name.lower().replace("quantiles_", "")
    if name in _STAT_NAMES:
        return _STAT_NAMES[name]
    if re.fullmatch(r"p9\d\.\d+", name):
        return name.replace(".", "_")  # p99.9 -> p99_9: a tail percentile records.STATS does not list
    return None  # p1..p75: not used by the diagnosis, left out to keep the metric names to records.STATS


# ---------------------------------------------------------------------------------------------------------------
# vLLM / SGLang console summary (§2.4, §2.6)

_BANNER = "Serving Benchmark Result"
_ROW = re.compile(r"^\s*([A-Za-z][^:]*?)\s*:\s*(\S.*?)\s*$")
# "Mean TTFT (ms)", "P99 ITL (ms)", "Median E2E Latency (ms)", "P99.9 E2EL (ms)"
_LATENCY_ROW = re.compile(r"^(Mean|Median|Std|Max|Min|P\d+(?:\.\d+)?)\s+(TTFT|TPOT|ITL|E2EL|E2E Latency)\s*"
                          r"\((ms|s)\)$", re.IGNORECASE)
_LATENCY_METRIC = {"ttft": "ttft_seconds", "tpot": "tpot_seconds", "itl": "itl_seconds", "e2el": "e2e_seconds",
                   "e2e latency": "e2e_seconds"}
# Row label (lower case, as printed by either client) -> metric. Both clients print ms for latencies, s for duration.
_CONSOLE_ROWS = {
    "successful requests": "completed_requests",
    "failed requests": "failed_requests",
    "maximum request concurrency": "max_concurrency",
    "max request concurrency": "max_concurrency",
    "request rate configured (rps)": "request_rate_per_second",
    "traffic request rate": "request_rate_per_second",
    "benchmark duration (s)": "duration_seconds",
    "total input tokens": "total_input_tokens",
    "total generated tokens": "total_output_tokens",
    "request throughput (req/s)": "request_throughput_per_second",
    "request goodput (req/s)": "goodput_requests_per_second",
    "input token throughput (tok/s)": "input_tokens_per_second",
    "output token throughput (tok/s)": "output_tokens_per_second",
    "peak output token throughput (tok/s)": "peak_output_tokens_per_second",
    "peak concurrent requests": "peak_concurrent_requests",
    "total token throughput (tok/s)": "total_tokens_per_second",
    "concurrency": "mean_concurrency",  # SGLang: sum of latencies / duration = mean requests in flight
    "acceptance length": "spec_mean_acceptance_length",
    "accept length": "spec_mean_acceptance_length",  # SGLang with speculative decoding
}
# Rows that only say which client printed the block (SGLang-only labels, §2.6).
_SGLANG_ROWS = ("backend", "max request concurrency", "concurrency", "total generated tokens (retokenized)",
                "total input text tokens")


class _ConsoleBlock:
    """One '=== Serving Benchmark Result ===' block, plus the pre-amble lines printed before it (§2.4)."""

    def __init__(self, line_number: int, preamble_metrics: dict, preamble_labels: dict):
        self.line_number = line_number
        self.metrics = dict(preamble_metrics)
        self.labels = dict(preamble_labels)
        self.sglang = False
        self.unrecognised_run = 0

    def feed(self, line_number: int, line: str) -> Skipped | None:
        """Read one row; returns a Skipped when a known row has no number."""
        match = _ROW.match(line)
        if match is None:
            self.unrecognised_run += 1
            return None
        label, value = match.group(1).strip(), match.group(2)
        key = " ".join(label.lower().split())
        self.unrecognised_run = 0
        if key in _SGLANG_ROWS:
            self.sglang = True
        if key == "backend":
            self.labels["backend"] = value.strip()
            return None
        latency = _LATENCY_ROW.match(label)
        if latency is not None:
            number = _number(value)
            stat = _stat(latency.group(1))
            if number is None or stat is None:
                return Skipped(line_number, f"benchmark latency row without a number: {label!r}", "bench")
            unit = _TIME_UNITS[latency.group(3).lower()]
            self.metrics[f"{_LATENCY_METRIC[latency.group(2).lower()]}_{stat}"] = number * unit
            return None
        if key == "acceptance rate (%)":
            number = _number(value)
            if number is not None:
                self.metrics["spec_acceptance_fraction"] = number / 100.0
            return None
        metric = _CONSOLE_ROWS.get(key)
        if metric is None:
            return None
        _store_rate_or_count(self.metrics, self.labels, metric, value)
        return None


def _store_rate_or_count(metrics: dict, labels: dict, metric: str, value: str) -> None:
    """Store one console value; 'inf' request rates and 'None'/'not set' concurrency become labels (§1.3)."""
    text = value.strip()
    lowered = text.lower()
    if metric == "request_rate_per_second" and lowered.startswith("inf"):
        labels["request_rate"] = "inf"  # every request sent at t=0: a throughput test, not latency evidence
        return
    if metric == "max_concurrency" and (lowered.startswith("none") or lowered.startswith("not set")):
        return
    number = _number(text)
    if number is not None and math.isfinite(number):
        metrics[metric] = number


# ---------------------------------------------------------------------------------------------------------------
# genai-perf console table (§2.11)

_GENAI_ROWS = (  # label prefix (lower case, longest first) -> metric; the unit comes from the "(unit)" suffix
    ("output token throughput per user", "output_tokens_per_second_per_user"),
    ("output token throughput", "output_tokens_per_second"),
    ("time to first token", "ttft_seconds"),
    ("time to second token", "ttst_seconds"),
    ("request latency", "e2e_seconds"),
    ("inter token latency", "itl_seconds"),
    ("output sequence length", "output_tokens"),
    ("input sequence length", "input_tokens"),
    ("num output token", "output_tokens"),  # old releases (ns units, §2.11)
    ("num input token", "input_tokens"),
    ("request throughput", "request_throughput_per_second"),
    ("request count", "completed_requests"),
)
# Aggregate rows print one value (avg column) and mean the whole run, not a per-request statistic.
_GENAI_SCALARS = {"output_tokens_per_second", "request_throughput_per_second", "completed_requests"}
_BOX_BARS = ("│", "┃", "|")


class _GenaiTable:
    """A rich table `Statistic ┃ avg ┃ min ┃ …`; a row label may wrap onto the next row with empty cells."""

    def __init__(self, line_number: int, columns: list, tool: str = "genai-perf"):
        self.line_number = line_number
        self.columns = columns  # statistic names after "Statistic" (genai-perf) / "Metric" (AIPerf console)
        self.tool = tool
        self.rows: list = []  # [label, values, line_number]

    def feed(self, line_number: int, line: str) -> bool:
        """Take one table line; False when the line ends the table."""
        stripped = line.strip()
        if stripped[:1] in ("┡", "├", "━", "─", "╞", "╇"):  # rules between header and body rows
            return True
        if not stripped or stripped[0] in "└╰+" or not any(bar in stripped for bar in _BOX_BARS):
            return False
        cells = [cell.strip() for cell in re.split(r"[│┃|]", stripped)]
        if cells and cells[0] == "":
            cells = cells[1:]
        if cells and cells[-1] == "":
            cells = cells[:-1]
        if not cells:
            return True
        label, values = cells[0], cells[1:]
        if self.rows and not any(values):
            self.rows[-1][0] += " " + label  # wrapped label: '(tokens/sec/user)' continues the row above
            return True
        self.rows.append([label, values, line_number])
        return True

    def record(self) -> Record | None:
        metrics: dict = {}
        for label, values, _ in self.rows:
            match = re.match(r"^(.*?)\s*\(([^)]*)\)\s*$", label)
            name, unit = (match.group(1), match.group(2)) if match else (label, "")
            metric = next((m for prefix, m in _GENAI_ROWS if name.lower().startswith(prefix)), None)
            if metric is None:
                continue
            factor = _TIME_UNITS.get(unit.strip().lower(), 1.0)
            for column, cell in zip(self.columns, values, strict=False):
                number = _number(cell)
                if number is None:
                    continue
                if metric in _GENAI_SCALARS:
                    if column.lower() == "avg":
                        metrics[metric] = number * factor
                    continue
                stat = _stat(column)
                if stat is not None:
                    metrics[f"{metric}_{stat}"] = number * factor
        if not metrics:
            return None
        labels = {"tool": self.tool,
                  # genai-perf changed whether reasoning tokens count as the first token (perf_analyzer#433):
                  # the TTFT here may include the whole reasoning phase (FORMATS.md §5 #88).
                  "ttft_definition": "first token may be a reasoning token or the first answer token, "
                                     "depending on the genai-perf release"}
        return Record("summary", f"bench.{self.tool}", self.line_number, metrics, labels=labels)


# ---------------------------------------------------------------------------------------------------------------
# guidellm ~0.2 text tables, hard-wrapped by the terminal (§2.11, guidellm#136)

_GUIDELLM_TITLE = re.compile(r"^\s*Benchmarks? [A-Z][\w ]*:\s*$")


def _guidellm_join(lines: list) -> str:
    """Undo terminal wrapping: a physical line that filled the terminal continues on the next one."""
    width = max((len(line) for line in lines), default=0)
    parts = []
    for line in lines:
        parts.append(line.rstrip())
        # A line shorter than the terminal ended a logical row: keep a space so cells do not fuse.
        parts.append("" if len(line) >= width - 1 else " ")
    return "".join(parts)


def _guidellm_records(title_line: int, lines: list) -> Iterator:
    """Rows of one guidellm table as summary Records (one per benchmark: synchronous, throughput, constant@…)."""
    text = _guidellm_join(lines)
    header_at = re.search(r"Benchmark\s*\|", text)
    rule = re.search(r"-{3,}(?:\|-+)+", text)
    if header_at is None or rule is None or rule.start() < header_at.start():
        yield Skipped(title_line, "guidellm table without a 'Benchmark|' header and a '---|---' rule", "bench")
        return
    groups_text = text[:header_at.start()].lstrip("= ")
    columns = [cell.strip().lower() for cell in text[header_at.start():rule.start()].split("|")]
    # A group title followed by k pipes spans k columns; the last group has no closing pipe (spans k + 1).
    groups = []
    for name, pipes in re.findall(r"([^|]+)(\|*)", groups_text):
        if name.strip():
            groups.append([name.replace(" ", "").lower(), max(len(pipes), 1)])
    if groups:
        groups[-1][1] = max(len(columns) - sum(span for _, span in groups[:-1]), 1)
    column_groups = []
    for name, span in groups:
        column_groups.extend([name] * span)
    column_groups.extend([""] * (len(columns) - len(column_groups)))
    cells = text[rule.end():].split("|")
    count = len(columns)
    # Rows have `count` cells and no pipe between the last cell of a row and the first of the next one:
    # that shared piece is "<last value> <next benchmark name>".
    row: list = []
    for cell in cells:
        if len(row) == count - 1:
            head, _, tail = cell.strip().partition(" ")
            row.append(head)
            record = _guidellm_row(title_line, columns, column_groups, row)
            if record is not None:
                yield record
            row = [tail.strip()] if tail.strip() else []
        else:
            row.append(cell.strip())
    if len(row) == count:
        record = _guidellm_row(title_line, columns, column_groups, row)
        if record is not None:
            yield record


def _guidellm_metric(group: str, column: str) -> tuple[str, float] | None:
    """(metric, factor to base units) for one guidellm column, from its group title and column name."""
    unit = 1e-3 if "(ms)" in group else 1.0  # guidellm states ms or sec in the group title (§1.7)
    if column in ("comp", "inc", "err"):
        kind = {"comp": "completed", "inc": "incomplete", "err": "failed"}[column]
        if group.startswith("requestsmade") or group.startswith("requests"):
            return f"{kind}_requests", 1.0
        if column != "comp":
            return None  # token statistics of incomplete/errored requests: not used by the diagnosis
        return {"prompttok/req": ("mean_input_tokens", 1.0), "outputtok/req": ("mean_output_tokens", 1.0),
                "prompttoktotal": ("total_input_tokens", 1.0),
                "outputtoktotal": ("total_output_tokens", 1.0)}.get(group)
    if column == "duration (s)":
        return "duration_seconds", 1.0
    stat = _stat(column)
    if stat is not None:
        for prefix, metric in (("ttft", "ttft_seconds"), ("itl", "itl_seconds"), ("tpot", "tpot_seconds"),
                               ("reqlatency", "e2e_seconds"), ("outtok/sec", "output_tokens_per_second"),
                               ("tottok/sec", "total_tokens_per_second")):
            if group.startswith(prefix):
                if metric.endswith("_per_second"):
                    return metric if stat == "mean" else f"{metric}_{stat}", 1.0
                return f"{metric}_{stat}", unit
        return None
    if column == "per second":
        return "request_throughput_per_second", 1.0
    if column == "concurrency":
        return "mean_concurrency", 1.0
    return None


def _guidellm_row(line_number: int, columns: list, column_groups: list, row: list) -> Record | None:
    labels = {"tool": "guidellm", "benchmark": row[0]}
    metrics = {}
    for column, group, cell in zip(columns[1:], column_groups[1:], row[1:], strict=False):
        found = _guidellm_metric(group, column)
        number = _number(cell)
        if found is None or number is None:
            continue
        metrics[found[0]] = number * found[1]
    if not metrics or not row[0]:
        return None
    return Record("summary", "bench.guidellm", line_number, metrics, labels=labels)


# ---------------------------------------------------------------------------------------------------------------
# JSON documents: pretty-printed or one per line, possibly truncated (a paste cut short, a killed run)

MAX_JSON_CHARS = 256 * 1024 * 1024  # a bigger document is not a benchmark report; drop it rather than grow


def _scan(text: str, state: tuple) -> tuple:
    """Bracket stack and string state after `text`, continuing from `state` = (stack, in_string, escaped)."""
    stack, in_string, escaped = list(state[0]), state[1], state[2]
    for char in text:
        if in_string:
            if escaped:
                escaped = False
            elif char == "\\":
                escaped = True
            elif char == '"':
                in_string = False
        elif char == '"':
            in_string = True
        elif char in "[{":
            stack.append(char)
        elif char in "]}" and stack:
            stack.pop()
    return stack, in_string, escaped


def repair_truncated_json(lines: list) -> tuple:
    """(value, depth) for a truncated JSON document: drop cut lines from the end and close the brackets.

    The last line is dropped unless it ends at a value boundary (',' or a bracket): a cut line's last number may
    itself be cut ('154.82' -> '1'). depth is how many containers were open at the cut (1 = only the document
    itself, 2 = inside one of its elements); value is None when nothing could be read.
    """
    keep = max(len(lines) - 20, 1)
    state = _scan("\n".join(lines[:keep]) + "\n", ([], False, False))
    states = [state]
    for line in lines[keep:]:
        state = _scan(line + "\n", state)
        states.append(state)
    last = len(lines)
    if last > 1 and not lines[-1].rstrip().endswith((",", "{", "[", "}", "]")):
        last -= 1
    for end in range(last, keep - 1, -1):
        stack, in_string, _ = states[end - keep]
        if in_string:
            continue
        text = "\n".join(lines[:end]).rstrip().rstrip(",")
        if text.endswith(":"):
            continue
        closers = "".join("}" if opener == "{" else "]" for opener in reversed(stack))
        try:
            return json.loads(text + closers), len(stack)
        except ValueError:
            continue
    return None, 1


class JsonCollector:
    """Finds JSON documents in a line stream: one-line objects (JSONL) and pretty-printed blocks that start
    with '{' or '[' and end with the matching bracket at the same indent. A document cut short (EOF, or a log line
    at column 0 inside it) is repaired to what can be read and marked truncated."""

    def __init__(self, wanted=None):
        self.wanted = wanted  # cheap substring test on a one-line document, or None for all
        self.buffer: list = []
        self.start = 0
        self.indent = 0
        self.closer = ""
        self.chars = 0

    def feed(self, line_number: int, line: str) -> list:
        """(line_number, value, truncated) for each document completed by this line (usually none); truncated is
        0 for a whole document, else the depth at the cut (see repair_truncated_json)."""
        out: list = []
        if self.buffer:
            stripped = line.lstrip()
            indent = len(line) - len(stripped)
            if stripped.startswith(self.closer) and indent == self.indent:
                self.buffer.append(line)
                try:
                    out.append((self.start, json.loads("\n".join(self.buffer)), 0))
                except ValueError:
                    value, depth = repair_truncated_json(self.buffer)
                    out.append((self.start, value, depth))
                self._reset()
                return out
            if stripped and indent <= self.indent and stripped[0] not in "\"]}0123456789-tfn":
                out.extend(self.finish())  # the document was cut and the log goes on
            else:
                self.buffer.append(line)
                self.chars += len(line)
                if self.chars > MAX_JSON_CHARS:
                    out.append((self.start, None, 1))
                    self._reset()
                return out
        stripped = line.strip()
        if not stripped or stripped[0] not in "{[":
            return out
        # '[' opens a document only as a bare '[' or before an object/array/string: '[GIN] …', '[2025-01-01 …]'
        # and '[pid 12]' are log prefixes, not JSON.
        if stripped[0] == "[" and len(stripped) > 1 and stripped[1:].lstrip()[:1] not in ("{", "[", '"'):
            return out
        if (stripped[-1] in "}]" and len(stripped) > 1) and (self.wanted is None or self.wanted(stripped)):
            try:
                out.append((line_number, json.loads(stripped), 0))
                return out
            except ValueError:
                if stripped[0] == "{" and stripped.count("{") == stripped.count("}"):
                    out.append((line_number, None, 1))
                    return out
        self.buffer = [line]
        self.start = line_number
        self.indent = len(line) - len(line.lstrip())
        self.closer = "}" if stripped[0] == "{" else "]"
        self.chars = len(line)
        return out

    def finish(self) -> list:
        if not self.buffer:
            return []
        value, depth = repair_truncated_json(self.buffer)
        start = self.start
        self._reset()
        return [(start, value, depth)]

    def _reset(self) -> None:
        self.buffer = []
        self.chars = 0


_MS_KEY = re.compile(r"^(mean|median|std|p\d+(?:\.\d+)?)_(ttft|tpot|itl|e2el|e2e_latency)_ms$")
_JSON_SCALARS = {  # vLLM --save-result / SGLang --output-file keys -> metric (§2.4, §2.6); durations in s
    "completed": "completed_requests",
    "failed": "failed_requests",
    "duration": "duration_seconds",
    "total_input_tokens": "total_input_tokens",
    "total_output_tokens": "total_output_tokens",
    "request_throughput": "request_throughput_per_second",
    "request_goodput": "goodput_requests_per_second",
    "input_throughput": "input_tokens_per_second",
    "output_throughput": "output_tokens_per_second",
    "total_token_throughput": "total_tokens_per_second",
    "max_output_tokens_per_s": "peak_output_tokens_per_second",
    "max_concurrent_requests": "peak_concurrent_requests",
    "max_concurrency": "max_concurrency",
    "request_rate": "request_rate_per_second",
    "concurrency": "mean_concurrency",
    "accept_length": "spec_mean_acceptance_length",
    "spec_decode_acceptance_length": "spec_mean_acceptance_length",
}
_EXPORT_METRICS = {  # AIPerf profile_export_aiperf.json / genai-perf profile_export_genai_perf.json names
    "time_to_first_token": "ttft_seconds",
    "time_to_second_token": "ttst_seconds",
    "inter_token_latency": "itl_seconds",
    "request_latency": "e2e_seconds",
    "output_token_throughput_per_user": "output_tokens_per_second_per_user",
    "output_sequence_length": "output_tokens",
    "input_sequence_length": "input_tokens",
}
_EXPORT_SCALARS = {"request_throughput": "request_throughput_per_second", "request_count": "completed_requests",
                   "output_token_throughput": "output_tokens_per_second", "error_request_count": "failed_requests",
                   "benchmark_duration": "duration_seconds"}
_LLMPERF_METRICS = {"ttft_s": "ttft_seconds", "inter_token_latency_s": "itl_seconds",
                    "end_to_end_latency_s": "e2e_seconds", "number_input_tokens": "input_tokens",
                    "number_output_tokens": "output_tokens",
                    "request_output_throughput_token_per_s": "output_tokens_per_second_per_request"}
# llmperf's per-request throughput cannot be recomputed from its other fields (FORMATS.md §5 #90).
_LLMPERF_LABEL = {"tool": "llmperf", "throughput_definition": "request_output_throughput_token_per_s is "
                                                              "tool-defined (not recomputable)"}


def _float(value) -> float | None:
    """A JSON number, or a number in a string (llmperf writes min/max token counts as strings)."""
    if isinstance(value, bool) or value is None:
        return None
    if isinstance(value, (int, float)):
        return float(value)
    if isinstance(value, str):
        return _number(value) if _NUMBER.fullmatch(value.strip()) else None
    return None


def _json_records(line_number: int, value, truncated: int) -> Iterator:
    produced = False
    for item in _json_items(line_number, value, truncated):
        produced = True
        yield item
    if truncated and not produced:
        yield Skipped(line_number, "JSON document cut before any complete benchmark value", "bench")


def _json_items(line_number: int, value, truncated: int) -> Iterator:
    if value is None:
        yield Skipped(line_number, "JSON document that could not be read (damaged or cut before any value)",
                      "bench")
        return
    base_labels = {"truncated": "true"} if truncated else {}
    if isinstance(value, list):
        if truncated > 1 and value:
            value = value[:-1]  # the element the cut went through: its missing fields would mislead
        if value and any(isinstance(item, dict) and "ttft_s" in item for item in value[:5]):
            yield from _llmperf_requests(line_number, value, base_labels)
        return
    if not isinstance(value, dict):
        return
    if any(key.startswith("results_") for key in value):
        yield from _llmperf_summary(line_number, value, base_labels)
    elif any(isinstance(item, dict) and "unit" in item for item in value.values()):
        yield from _export_summary(line_number, value, base_labels)
    elif "request_throughput" in value or any(_MS_KEY.match(key) for key in value):
        yield from _serving_json(line_number, value, base_labels)


def _serving_json(line_number: int, value: dict, labels: dict) -> Iterator:
    # SGLang names E2E `e2e_latency` and writes its dataset knobs; vLLM writes model_id / endpoint_type (§2.4, §2.6).
    sglang = (any("e2e_latency" in key for key in value) or "total_output_tokens_retokenized" in value
              or "random_input_len" in value)
    labels = dict(labels, tool="sglang-bench" if sglang else "vllm-bench")
    for key in ("backend", "model_id", "date", "dataset_name"):
        if isinstance(value.get(key), str):
            labels[key] = value[key]
    metrics = {}
    for key, item in value.items():
        match = _MS_KEY.match(key)
        if match is not None:
            number, stat = _float(item), _stat(match.group(1))
            if number is not None and stat is not None:
                metrics[f"{_LATENCY_METRIC[match.group(2).replace('_', ' ')]}_{stat}"] = number / 1000.0
            continue
        metric = _JSON_SCALARS.get(key)
        if metric is None:
            continue
        number = _float(item)
        if number is None:
            continue
        if not math.isfinite(number):
            if metric == "request_rate_per_second":
                labels["request_rate"] = "inf"  # all requests at t=0 (§1.3); JSON "inf" / SGLang Infinity
            continue
        metrics[metric] = number
    if isinstance(value.get("request_rate"), str) and value["request_rate"].lower().startswith("inf"):
        labels["request_rate"] = "inf"
    rate = _float(value.get("spec_decode_acceptance_rate"))
    if rate is not None:
        metrics["spec_acceptance_fraction"] = rate / 100.0  # vLLM reports it in % (console "Acceptance rate (%)")
    source = "bench.sglang" if sglang else "bench.vllm"
    if metrics:
        yield Record("summary", source, line_number, metrics, labels=labels)
    # --save-detailed arrays: ttfts and latencies in seconds (§1.7), one entry per request.
    ttfts = value.get("ttfts")
    if isinstance(ttfts, list):
        errors = value.get("errors") or []
        columns = {"ttft_seconds": ttfts, "e2e_seconds": value.get("latencies") or [],
                   "input_tokens": value.get("input_lens") or [], "output_tokens": value.get("output_lens") or []}
        for index in range(len(ttfts)):
            if index < len(errors) and errors[index]:
                continue  # a failed request has ttft 0 by construction
            request = {}
            for metric, column in columns.items():
                number = _float(column[index]) if isinstance(column, list) and index < len(column) else None
                if number is not None:
                    request[metric] = number
            if request:
                yield Record("request", source, line_number, request, labels={"tool": labels["tool"]})


def _export_summary(line_number: int, value: dict, labels: dict) -> Iterator:
    tool = "genai-perf" if "input_config" in value else "aiperf"
    labels = dict(labels, tool=tool)
    metrics = {}
    for key, item in value.items():
        if not isinstance(item, dict):
            continue
        unit = str(item.get("unit", "")).strip().lower()
        factor = _TIME_UNITS.get(unit, 1.0)
        if key in _EXPORT_SCALARS:
            number = _float(item.get("avg"))
            if number is not None:
                metrics[_EXPORT_SCALARS[key]] = number * factor
            continue
        metric = _EXPORT_METRICS.get(key)
        if metric is None:
            continue
        for stat_name, stat_value in item.items():
            stat = _stat(stat_name)
            number = _float(stat_value)
            if stat is not None and number is not None:
                metrics[f"{metric}_{stat}"] = number * factor
    if metrics:
        yield Record("summary", f"bench.{tool}", line_number, metrics, labels=labels)


def _llmperf_summary(line_number: int, value: dict, labels: dict) -> Iterator:
    labels = dict(labels, **_LLMPERF_LABEL)
    if isinstance(value.get("model"), str):
        labels["model"] = value["model"]
    metrics = {}
    for key, item in value.items():
        number = _float(item)
        if number is None or not key.startswith("results_"):
            continue
        rest = key[len("results_"):]
        for prefix, metric in _LLMPERF_METRICS.items():
            if rest.startswith(prefix + "_"):
                stat = _stat(rest[len(prefix) + 1:])
                if stat is not None:
                    metrics[f"{metric}_{stat}"] = number  # llmperf: seconds and token counts already
                break
    scalars = {"results_mean_output_throughput_token_per_s": ("output_tokens_per_second", 1.0),
               "results_num_completed_requests": ("completed_requests", 1.0),
               "results_number_errors": ("failed_requests", 1.0),
               "results_num_completed_requests_per_min": ("request_throughput_per_second", 1 / 60.0),
               "num_concurrent_requests": ("max_concurrency", 1.0),
               "mean_input_tokens": ("mean_input_tokens", 1.0), "mean_output_tokens": ("mean_output_tokens", 1.0)}
    for key, (metric, factor) in scalars.items():
        number = _float(value.get(key))
        if number is not None:
            metrics[metric] = number * factor
    if metrics:
        yield Record("summary", "bench.llmperf", line_number, metrics, labels=labels)


def _llmperf_requests(line_number: int, items: list, labels: dict) -> Iterator:
    labels = dict(labels, **_LLMPERF_LABEL)
    for item in items:
        if not isinstance(item, dict):
            continue
        if item.get("error_code") not in (None, "", 0):
            yield Record("event", "bench.llmperf", line_number, {"errors": 1.0},
                         labels=dict(labels, error=str(item.get("error_msg", ""))[:200]))
            continue
        metrics = {}
        for key, metric in _LLMPERF_METRICS.items():
            number = _float(item.get(key))
            if number is not None:
                metrics[metric] = number  # seconds and token counts as llmperf writes them
        if metrics:
            yield Record("request", "bench.llmperf", line_number, metrics, labels=labels)


def _wanted_json(text: str) -> bool:
    return ("_ms" in text or "request_throughput" in text or "ttft_s" in text or "results_" in text
            or '"unit"' in text)


# ---------------------------------------------------------------------------------------------------------------
# Detection and the line loop

_SNIFF_MARKERS = (
    (_BANNER, 0.95),
    ("GenAI-Perf", 0.95),
    ("AIPerf | LLM Metrics", 0.95),
    ('"results_ttft_s_mean"', 0.95),
    ('"ttft_s"', 0.9),
    ('"mean_ttft_ms"', 0.95),
    ('"mean_e2e_latency_ms"', 0.95),
    ('"time_to_first_token"', 0.9),
    ('"request_latency"', 0.85),
    ("Benchmarks Info:", 0.9),
    ("Benchmarks Stats:", 0.9),
    ("Time To First Token", 0.8),
    ("Mean TTFT (ms)", 0.8),
)


def sniff(head: str) -> float:
    best = 0.0
    lowered = head.lower()  # genai-perf changed 'Time to first token' to 'Time To First Token'
    for marker, score in _SNIFF_MARKERS:
        if score > best and marker.lower() in lowered:
            best = score
    return best


def parse(lines) -> Iterator:
    block: _ConsoleBlock | None = None
    preamble_metrics: dict = {}
    preamble_labels: dict = {}
    genai: _GenaiTable | None = None
    guidellm_title = 0
    guidellm_lines: list = []
    collector = JsonCollector(_wanted_json)
    table_tool = "genai-perf"

    def close_block():
        nonlocal block
        finished, block = block, None
        if finished is None or not finished.metrics:
            return None
        labels = dict(finished.labels, tool="sglang-bench" if finished.sglang else "vllm-bench")
        source = "bench.sglang" if finished.sglang else "bench.vllm"
        return Record("summary", source, finished.line_number, finished.metrics, labels=labels)

    for line_number, line in lines:
        # JSON documents first: a pretty-printed block swallows its own lines.
        if collector.buffer or (line and line.lstrip()[:1] in ("{", "[")):
            for start, value, truncated in collector.feed(line_number, line):
                yield from _json_records(start, value, truncated)
            if collector.buffer:
                continue
        if guidellm_title:
            if line.strip() and not _GUIDELLM_TITLE.match(line) and len(guidellm_lines) < 10_000:
                guidellm_lines.append(line)
                continue
            yield from _guidellm_records(guidellm_title, guidellm_lines)
            guidellm_title, guidellm_lines = 0, []
        if genai is not None:
            if genai.feed(line_number, line):
                continue
            record = genai.record()
            if record is not None:
                yield record
            genai = None
        if block is not None:
            if line.startswith("=====") and _BANNER not in line:
                record = close_block()
                if record is not None:
                    yield record
                continue
            if _BANNER not in line:
                skipped = block.feed(line_number, line)
                if skipped is not None:
                    yield skipped
                if block.unrecognised_run > 40:  # a cut block followed by an unrelated log
                    record = close_block()
                    if record is not None:
                        yield record
                continue
        if _BANNER in line:
            record = close_block()
            if record is not None:
                yield record
            block = _ConsoleBlock(line_number, preamble_metrics, preamble_labels)
            preamble_metrics, preamble_labels = {}, {}
            continue
        if "GenAI-Perf" in line or "AIPerf" in line:
            table_tool = "aiperf" if "AIPerf" in line else "genai-perf"  # the title above the rich table
        if ("Statistic" in line or "Metric" in line) and any(bar in line for bar in _BOX_BARS):
            cells = [cell.strip() for cell in re.split(r"[│┃|]", line) if cell.strip()]
            if len(cells) > 1 and cells[0] in ("Statistic", "Metric") and _stat(cells[1]) is not None:
                genai = _GenaiTable(line_number, cells[1:], table_tool)
            continue
        # Old genai-perf prints the run's aggregates as plain lines under the table (§2.11).
        if "throughput (per sec):" in line:
            match = _ROW.match(line)
            number = _number(match.group(2)) if match else None
            if number is not None:
                metric = ("output_tokens_per_second" if match.group(1).lower().startswith("output token")
                          else "request_throughput_per_second")
                yield Record("summary", f"bench.{table_tool}", line_number, {metric: number},
                             labels={"tool": table_tool})
            continue
        if "Benchmarks" in line and _GUIDELLM_TITLE.match(line):
            guidellm_title = line_number
            continue
        # Pre-amble of `vllm bench serve` (§2.4), printed before the result block.
        if "request rate:" in line or "request concurrency:" in line or "Burstiness factor:" in line:
            match = _ROW.match(line)
            if match is not None:
                key = " ".join(match.group(1).lower().split())
                if key == "burstiness factor":
                    preamble_labels["burstiness"] = match.group(2).split()[0]
                elif key in _CONSOLE_ROWS:
                    _store_rate_or_count(preamble_metrics, preamble_labels, _CONSOLE_ROWS[key], match.group(2))
    for start, value, truncated in collector.finish():
        yield from _json_records(start, value, truncated)
    if guidellm_title:
        yield from _guidellm_records(guidellm_title, guidellm_lines)
    if genai is not None:
        record = genai.record()
        if record is not None:
            yield record
    record = close_block()
    if record is not None:
        yield record
