"""Benchmark client outputs: `vllm bench serve` / benchmark_serving.py console
and --save-result JSON, `sglang.bench_serving` console and JSONL, genai-perf console table and CSV export, AIPerf /
genai-perf profile-export JSON, guidellm ~0.2 text tables (terminal-wrapped), ray llmperf summary and
individual-responses JSON.

Every aggregate becomes one "summary" Record, every llmperf / --save-detailed request one "request" Record. Units are
converted here: the vLLM/SGLang consoles and `_ms` JSON keys are ms, their detailed arrays seconds, AIPerf and
genai-perf carry a "unit" per metric (ms, or ns in old releases), llmperf is seconds, guidellm states the unit in
the column-group title.
"""

from __future__ import annotations

import csv
import math
import re
from collections.abc import Iterator

from inferledger.diagnose.parsers.bench_common import (
    LATENCY_METRIC,
    TIME_UNITS,
    canonical_stat,
    to_number,
)
from inferledger.diagnose.parsers.bench_json import json_records, wanted_json
from inferledger.diagnose.parsers.json_stream import JsonCollector
from inferledger.diagnose.records import Record, Skipped

NAME = "bench"

# ---------------------------------------------------------------------------------------------------------------
# vLLM / SGLang console summary

_BANNER = "Serving Benchmark Result"
# SGLang's bench_offline_throughput: the same rows over prompts all handed to the engine at once (an offline batch).
_OFFLINE_BANNER = "Offline Throughput Benchmark Result"
_ROW = re.compile(r"^\s*([A-Za-z][^:]*?)\s*:\s*(\S.*?)\s*$")
# "Mean TTFT (ms)", "P99 ITL (ms)", "Median E2E Latency (ms)", "P99.9 E2EL (ms)"
# JetStream's benchmark_serving.py (derived from vLLM's) prints the same rows without the "(ms)" in the label and
# with the unit after the value ("Mean TTFT: 114960.78 ms", "TTST p50: 578.94 ms").
_LATENCY_ROW = re.compile(r"^(?:(Mean|Median|Std|Max|Min|P\d+(?:\.\d+)?)\s+(TTFT|TPOT|ITL|TTST|E2EL|E2E Latency)"
                          r"|(TTFT|TPOT|ITL|TTST|E2EL)\s+(mean|median|std|max|min|p\d+(?:\.\d+)?))\s*"
                          r"(?:\((ms|s)\))?$", re.IGNORECASE)
_VALUE_UNIT = re.compile(r"\d\s*(ms|msec|seconds|secs|sec|s)\b")  # `0.59 seconds` as well as `590ms`
# Clients that copy vLLM's banner with their own wording: "Benchmark Duration (sec)", "Request throughput
# (req/sec)", "Prompt throughput (tokens/second) avg", "End to End Latency (ms) p90", "Number of total requests".
# Their labels are reduced to vLLM's before the lookup: units spelled out, the stat after the unit, synonyms.
_UNIT_SPELLINGS = (("(sec)", "(s)"), ("(seconds)", "(s)"), ("(req/sec)", "(req/s)"), ("(requests/s)", "(req/s)"),
                   ("(requests/second)", "(req/s)"), ("(tokens/second)", "(tok/s)"), ("(tokens/s)", "(tok/s)"),
                   ("(token/s)", "(tok/s)"), ("(tok/sec)", "(tok/s)"), ("(milliseconds)", "(ms)"))
_SYNONYMS = (("prompt throughput", "input token throughput"), ("generation throughput", "output token throughput"),
             ("end to end latency", "e2el"), ("end-to-end latency", "e2el"), ("time to first token", "ttft"),
             ("time per output token", "tpot"), ("inter-token latency", "itl"), ("inter token latency", "itl"))
_TOTAL_REQUESTS = ("number of total requests", "total requests", "number of requests", "successful/total requests")
# AI-Hypercomputer inference-benchmark (GKE's benchmark_serving.py fork) opens its block with `====Result for Model:
# deepseek-ai/DeepSeek-R1====` and states averages in the label's unit ("Average Time to First Token (s): 0.51") and
# rates per minute ("Requests/min: 62.30").
_MODEL_BANNER = re.compile(r"^=+\s*Result for Model:\s*(\S+?)\s*=+\s*$")
_PER_MINUTE = {"requests/min": "request_throughput_per_second", "output_tokens/min": "output_tokens_per_second",
               "input_tokens/min": "input_tokens_per_second", "tokens/min": "total_tokens_per_second"}
# Its latencies are averages per request and per token, each "(includes waiting time on server)": the whole call's
# time, queue included ("Average milliseconds/output_token (includes waiting time on server): 443.50").
_WAIT_INCLUDED = " (includes waiting time on server)"
_AVERAGE_LATENCY = {"average milliseconds/request": ("e2e_seconds_mean", 1e-3),
                    "average milliseconds/output_token": ("e2e_per_output_token_seconds_mean", 1e-3),
                    "average seconds/token": ("e2e_per_token_seconds_mean", 1.0)}
_TRAILING_STAT = re.compile(r"^(.*?\S)\s*(\([^)]*\))\s+(avg|mean|median|min|max|std|p\d+(?:\.\d+)?)$")


def _vllm_label(label: str) -> str:
    """A copied banner's row label in vLLM's own words ("End to End Latency (ms) avg" -> "Mean E2EL (ms)")."""
    key = " ".join(label.lower().split())
    for spelled, short in _UNIT_SPELLINGS:
        key = key.replace(spelled, short)
    lead = ""
    if key.startswith("average "):  # "Average Time to First Token (s)": the stat before the name
        lead, key = "mean ", key[len("average "):]
    for words, short in _SYNONYMS:
        if key.startswith(words):
            key = short + key[len(words):]
    key = lead + key
    stat = _TRAILING_STAT.match(key)
    if stat is not None:
        name, unit, which = stat.groups()
        if name in LATENCY_METRIC:
            return f"{'mean' if which == 'avg' else which} {name} {unit}"
        return f"{name} {unit}" if which in ("avg", "mean") else key
    if key in _TOTAL_REQUESTS:
        return "successful requests"
    return key
# Row label (lower case, as printed by either client) -> metric. Both clients print ms for latencies, s for duration.
_CONSOLE_ROWS = {
    "successful requests": "completed_requests",
    "failed requests": "failed_requests",
    "maximum request concurrency": "max_concurrency",
    "max request concurrency": "max_concurrency",
    "max reqeuest concurrency": "max_concurrency",  # SGLang's own spelling in 2025 releases
    "request rate configured (rps)": "request_rate_per_second",
    "traffic request rate": "request_rate_per_second",
    "benchmark duration (s)": "duration_seconds",
    "total input tokens": "total_input_tokens",
    "total generated tokens": "total_output_tokens",
    "total generated tokens (retokenized)": "total_output_tokens_retokenized",  # SGLang: the client's text, re-counted
    "request throughput (req/s)": "request_throughput_per_second",
    "request goodput (req/s)": "goodput_requests_per_second",
    "input token throughput (tok/s)": "input_tokens_per_second",
    "output token throughput (tok/s)": "output_tokens_per_second",
    "peak output token throughput (tok/s)": "peak_output_tokens_per_second",
    "peak concurrent requests": "peak_concurrent_requests",
    "total token throughput (tok/s)": "total_tokens_per_second",
    "concurrency": "mean_concurrency",  # SGLang: sum of latencies / duration = mean requests in flight
    "total time": "duration_seconds",  # inference-benchmark: "Total time: 115.56 s"
    "mean input length": "mean_input_tokens",
    "mean output length": "mean_output_tokens",
    # JetStream: the same rows with the unit after the value (s, requests/s, tokens/s)
    "benchmark duration": "duration_seconds",
    "request throughput": "request_throughput_per_second",
    "input token throughput": "input_tokens_per_second",
    "output token throughput": "output_tokens_per_second",
    "acceptance length": "spec_mean_acceptance_length",
    "accept length": "spec_mean_acceptance_length",  # SGLang with speculative decoding
}
# Rows that are printed before the result block too (the pre-amble): they do not start a cut block.
_PREAMBLE_ROWS = ("traffic request rate", "maximum request concurrency", "max request concurrency",
                  "max reqeuest concurrency")


def _starts_result_rows(line: str) -> bool:
    match = _ROW.match(line)
    if match is None:
        return False
    label = match.group(1).strip()
    key = " ".join(label.lower().split())
    if key not in _CONSOLE_ROWS and _LATENCY_ROW.match(label) is None:
        key = label = _vllm_label(label)
    if key in _PREAMBLE_ROWS:
        return False
    return (key in _CONSOLE_ROWS and key != "concurrency") or _LATENCY_ROW.match(label) is not None


# Rows that only say which client printed the block (SGLang-only labels).
_SGLANG_ROWS = ("backend", "max request concurrency", "max reqeuest concurrency", "concurrency",
                "total generated tokens (retokenized)",
                "total input text tokens")


class _ConsoleBlock:
    """One '=== Serving Benchmark Result ===' block, plus the pre-amble lines printed before it."""

    def __init__(self, line_number: int, preamble_metrics: dict, preamble_labels: dict):
        self.line_number = line_number
        self.metrics = dict(preamble_metrics)
        self.labels = dict(preamble_labels)
        self.sglang = False
        self.unrecognised_run = 0
        self.seen: set = set()
        self.headless = "truncated" in self.labels  # rows with no banner above them
        self.restart = False
        self.unitless = False  # latency labels without "(ms)": JetStream's layout

    def feed(self, line_number: int, line: str) -> Skipped | None:
        """Read one row; returns a Skipped when a known row has no number."""
        match = _ROW.match(line)
        if match is None:
            self.unrecognised_run += 1
            return None
        label, value = match.group(1).strip(), match.group(2)
        key = " ".join(label.lower().split())
        average = _AVERAGE_LATENCY.get(key.removesuffix(_WAIT_INCLUDED))
        if average is not None:
            self.unrecognised_run = 0
            number = to_number(value)
            if number is not None:
                self.metrics[average[0]] = number * average[1]
            return None
        if key not in _CONSOLE_ROWS and _LATENCY_ROW.match(label) is None:
            key = _vllm_label(label)
            label = key
        self.unrecognised_run = 0
        if key == "concurrency" and re.fullmatch(r"\s*\d+\s*", value):
            # SGLang prints its measured mean with two decimals ("63.76"); a whole number is a client's cap.
            key = "maximum request concurrency"
        elif key in _SGLANG_ROWS:
            self.sglang = True
        if key == "backend":
            self.labels["backend"] = value.strip()
            return None
        if key in self.seen and self.headless:
            self.restart = True  # a second run's rows, pasted after the first without a banner
            return None
        self.seen.add(key)
        latency = _LATENCY_ROW.match(label)
        if latency is not None:
            number = to_number(value)
            stat = canonical_stat(latency.group(1) or latency.group(4))
            if number is None or stat is None:
                return Skipped(line_number, f"benchmark latency row without a number: {label!r}", "bench")
            unit_text = latency.group(5)
            if unit_text is None:
                self.unitless = True
                suffix = _VALUE_UNIT.search(value)
                unit_text = suffix.group(1) if suffix else "ms"
                if suffix is None:
                    self.labels["latency_unit_assumed"] = "ms"  # JetStream's bare figures; another tool's may be s
            unit = TIME_UNITS[unit_text.lower()]
            name = (latency.group(2) or latency.group(3)).lower()
            self.metrics[f"{LATENCY_METRIC[name]}_{stat}"] = number * unit
            return None
        if key == "acceptance rate (%)":
            number = to_number(value)
            if number is not None:
                self.metrics["spec_acceptance_fraction"] = number / 100.0
            return None
        if key in _PER_MINUTE:
            number = to_number(value)
            if number is not None:
                self.metrics[_PER_MINUTE[key]] = number / 60.0
            return None
        metric = _CONSOLE_ROWS.get(key)
        if metric is None:
            return None
        _store_rate_or_count(self.metrics, self.labels, metric, value)
        return None


_BENCH_COMMAND = re.compile(r"benchmark_serving|bench[ _]serv")
_COMMAND_FLAGS = re.compile(r"--(request-rate|max-concurrency)[= ]+['\"]?([\w.]+)")
_COMMAND_METRICS = {"request-rate": "request_rate_per_second", "max-concurrency": "max_concurrency"}


def _store_rate_or_count(metrics: dict, labels: dict, metric: str, value: str) -> None:
    """Store one console value; 'inf' request rates and 'None'/'not set' concurrency become labels."""
    text = value.strip()
    lowered = text.lower()
    if metric == "request_rate_per_second" and lowered.startswith("inf"):
        labels["request_rate"] = "inf"  # every request sent at t=0: a throughput test, not latency evidence
        return
    if metric == "max_concurrency" and (lowered.startswith("none") or lowered.startswith("not set")):
        return
    number = to_number(text)
    if number is not None and math.isfinite(number):
        metrics[metric] = number


# ---------------------------------------------------------------------------------------------------------------
# genai-perf console table

_GENAI_ROWS = (  # label prefix (lower case, longest first) -> metric; the unit comes from the "(unit)" suffix
    ("output token throughput per user", "output_tokens_per_second_per_user"),
    ("output token throughput", "output_tokens_per_second"),
    ("time to first token", "ttft_seconds"),
    ("time to second token", "ttst_seconds"),
    ("request latency", "e2e_seconds"),
    ("inter token latency", "itl_seconds"),
    ("output sequence length", "output_tokens"),
    ("input sequence length", "input_tokens"),
    ("num output token", "output_tokens"),  # old releases (ns units)
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
            factor = TIME_UNITS.get(unit.strip().lower(), 1.0)
            for column, cell in zip(self.columns, values, strict=False):
                number = to_number(cell)
                if number is None:
                    continue
                if metric in _GENAI_SCALARS:
                    if column.lower() == "avg":
                        metrics[metric] = number * factor
                    continue
                stat = canonical_stat(column)
                if stat is not None:
                    metrics[f"{metric}_{stat}"] = number * factor
        if not metrics:
            return None
        labels = {"tool": self.tool,
                  # genai-perf changed whether reasoning tokens count as the first token (perf_analyzer#433):
                  # the TTFT here may include the whole reasoning phase.
                  "ttft_definition": "first token may be a reasoning token or the first answer token, "
                                     "depending on the genai-perf release"}
        return Record("summary", f"bench.{self.tool}", self.line_number, metrics, labels=labels)


class _GenaiCsv(_GenaiTable):
    """genai-perf's CSV export (profile_export_genai_perf.csv): `Metric,avg,min,max,p99,…` rows with thousands in
    quoted cells (`"1,146.31"`), a blank line, then `Metric,Value` rows of the run's aggregates; one run a file."""

    value_rows = False  # inside the `Metric,Value` table

    def feed(self, line_number: int, line: str) -> bool:
        stripped = line.strip()
        if not stripped:
            return True  # the blank line between its two tables
        try:
            cells = next(csv.reader([stripped]))
        except csv.Error:
            return False  # not a row of the export (a parser never raises on the input text)
        if cells[:2] == ["Metric", "Value"]:
            self.value_rows = True
            return True
        if len(cells) < 2 or to_number(cells[1]) is None:
            return False
        values = cells[1:]
        if self.value_rows:  # an aggregate's one value stands where the table's avg does
            values = [values[0] if column.lower() == "avg" else "" for column in self.columns]
        self.rows.append([cells[0], values, line_number])
        return True


# ---------------------------------------------------------------------------------------------------------------
# guidellm ~0.2 text tables, hard-wrapped by the terminal (guidellm#136)

_GUIDELLM_TITLE = re.compile(r"^\s*Benchmarks? [A-Z][\w ]*:\s*$")
# The cell a row's last value shares with the next row's name (_guidellm_records): the leading figure, then the rest.
_LAST_AND_NEXT = re.compile(r"^([-+]?\d[\d,]*(?:\.\d+)?)\s*(.*)$")


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
    # that shared piece is "<last value> <next benchmark name>", with no space between them where the table is as
    # wide as the terminal (`38.6constant@0.50`): the value is the leading figure, the name (a word) the rest.
    row: list = []
    for cell in cells:
        if len(row) == count - 1:
            shared = _LAST_AND_NEXT.match(cell.strip())
            head, tail = (shared.group(1), shared.group(2)) if shared else cell.strip().partition(" ")[::2]
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
    unit = 1e-3 if "(ms)" in group else 1.0  # guidellm states ms or sec in the group title
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
    stat = canonical_stat(column)
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
        number = to_number(cell)
        if found is None or number is None:
            continue
        metrics[found[0]] = number * found[1]
    if not metrics or not row[0]:
        return None
    e2e_keys = [key for key in metrics if key.startswith("e2e_seconds_")]
    ttft = metrics.get("ttft_seconds_mean")
    if e2e_keys and ttft and metrics.get("e2e_seconds_mean", ttft) < ttft <= 1000 * metrics["e2e_seconds_mean"]:
        # guidellm releases that title the request latency `(ms)` still print it in seconds (1.59 for a 0.10 s TTFT
        # and 127 tokens at 11.7 ms): a request ending before its first token is impossible, so the cells are seconds.
        for key in e2e_keys:
            metrics[key] *= 1000
        labels["e2e_unit"] = "seconds under an (ms) title"
    return Record("summary", "bench.guidellm", line_number, metrics, labels=labels)


# ---------------------------------------------------------------------------------------------------------------
# Detection and the line loop

def _banner(line: str) -> bool:
    """A result block's banner: the serving benchmark's or SGLang's offline one."""
    return _BANNER in line or _OFFLINE_BANNER in line


# A sweep's title line naming the level its rows were run at: `Concurrency 4:`, `concurrency=8` (the number before any
# colon: the `Concurrency: 3.97` row inside SGLang's block is the run's measured mean, not a title).
_CONCURRENCY_TITLE = re.compile(r"^\s*[#*=-]*\s*concurrency\s*[= ]\s*(\d+)\s*:?\s*[#*=-]*\s*$", re.IGNORECASE)
# A rate sweep's section title (`qps inf:`, `QPS=4`, `## rps 16`): the rate the next result block was offered.
_RATE_TITLE = re.compile(r"^\s*[#*=-]*\s*(?:qps|rps)\s*[=: ]\s*(inf|\d+(?:\.\d+)?)\s*:?\s*[#*=-]*\s*$",
                         re.IGNORECASE)

_SNIFF_MARKERS = (
    (_BANNER, 0.95),
    (_OFFLINE_BANNER, 0.95),
    ("Result for Model:", 0.9),
    ('"totalTimeMills"', 0.9),
    ('"avg_ts"', 0.9),  # llama-bench -o json / jsonl (bench_json._llama_bench)
    ('"tg128"', 0.6),  # llama-bench's tests as a result file's keys (bench_json._bench_tests)
    ('"Performance_Result"', 0.9),  # MLPerf Inference's published summary records
    ('"per_token"', 0.6),  # optimum-benchmark's report (bench_json._optimum_report)
    ("GenAI-Perf", 0.95),
    ("Metric,avg,min,max,p99", 0.9),  # genai-perf's CSV export
    ("AIPerf | LLM Metrics", 0.95),
    ('"results_ttft_s_mean"', 0.95),
    ('"ttft_s"', 0.9),
    ('"decode_tok_s"', 0.9),  # a benchmark app's runs (bench_json._app_runs), some without ttft_s
    ('"mean_ttft_ms"', 0.95),
    ('"mean_e2e_latency_ms"', 0.95),
    ('"median_ttft"', 0.9),  # SGLang's early-2024 --output-file (bench_json._SGLANG_2024_MS)
    ('"time_to_first_token"', 0.9),
    ('"request_latency"', 0.85),
    ("Benchmarks Info:", 0.9),
    ("Benchmarks Stats:", 0.9),
    ("Time To First Token", 0.8),
    ("Mean TTFT (ms)", 0.8),
    ("Request throughput (req/s)", 0.7),
    ("Successful requests:", 0.5),
)


def sniff(head: str) -> float:
    if '"load_summary"' in head:
        return 0.9  # inference-perf's lifecycle report (bench_json._inference_perf)
    if '"normalized_time_per_output_token"' in head:
        return 0.0  # inference-perf's latency block without its load: the keyword reader reads it (generic_summary)
    from inferledger.diagnose.parsers import evalscope

    if evalscope.sniff(head) > 0 and _BANNER not in head:
        # evalscope's summary (`Average time to first token: 0.200`, in seconds) is its own reader's: read here too,
        # its rows would start a headless JetStream block whose unitless times are taken for ms
        return 0.0
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
    collector = JsonCollector(wanted_json)
    table_tool = "genai-perf"
    continued = False  # the line before ended a client's command line with `\`: this one goes on with it

    def close_block():
        nonlocal block
        finished, block = block, None
        if finished is None or not finished.metrics:
            return None
        tool = finished.labels.get("tool") or ("sglang-bench" if finished.sglang else "vllm-bench")
        if finished.unitless and finished.headless:
            tool = "jetstream-bench"
            finished.labels.pop("truncated", None)  # JetStream prints no banner: nothing was cut
        labels = dict(finished.labels, tool=tool)
        source = "bench." + tool.split("-")[0]
        return Record("summary", source, finished.line_number, finished.metrics, labels=labels)

    for line_number, line in lines:
        # JSON documents first: a pretty-printed block swallows its own lines.
        if collector.buffer or (line and line.lstrip()[:1] in ("{", "[")):
            for start, value, truncated in collector.feed(line_number, line):
                yield from json_records(start, value, truncated)
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
        title = _CONCURRENCY_TITLE.match(line) if "oncurrency" in line else None
        if title is not None:
            # A sweep's section title (`Concurrency 4:`) over the result rows of that level: it ends the block above
            # and states the next one's concurrency, as vLLM's preamble does.
            record = close_block()
            if record is not None:
                yield record
            preamble_metrics = dict(preamble_metrics, max_concurrency=float(title.group(1)))
            continue
        rate = _RATE_TITLE.match(line) if "ps" in line or "PS" in line else None
        if rate is not None:
            record = close_block()  # (as a concurrency title: it ends the block above, states the next one's load)
            if record is not None:
                yield record
            preamble_metrics.pop("request_rate_per_second", None)
            preamble_labels.pop("request_rate", None)
            _store_rate_or_count(preamble_metrics, preamble_labels, "request_rate_per_second", rate.group(1))
            continue
        if block is not None:
            if line.startswith("=====") and line.strip("= \t") and not _banner(line) \
                    and "Result for Model" not in line:
                continue  # a titled section of the same summary (vLLM-Omni's `=== Text Result ===`): the block goes on
            if line.startswith("=====") and not _banner(line):
                record = close_block()
                if record is not None:
                    yield record
                continue
            if not _banner(line):
                skipped = block.feed(line_number, line)
                if skipped is not None:
                    yield skipped
                if block.restart:
                    record = close_block()
                    if record is not None:
                        yield record
                    block = _ConsoleBlock(line_number, {}, {"truncated": "rows before the first banner"})
                    block.feed(line_number, line)
                    continue
                if block.unrecognised_run > 40:  # a cut block followed by an unrelated log
                    record = close_block()
                    if record is not None:
                        yield record
                continue
        named = _MODEL_BANNER.match(line) if "Result for Model" in line else None
        if named is not None:
            record = close_block()
            if record is not None:
                yield record
            # "weighted" is its aggregate over the models served, no model's name. The command line above it states
            # the load it offered (`--request-rate=10`), as for vLLM's client.
            labels = {"tool": "inference-benchmark"} | ({} if named.group(1) == "weighted" else {"model": named.group(1)})
            block = _ConsoleBlock(line_number, preamble_metrics, preamble_labels | labels)
            preamble_metrics, preamble_labels = {}, {}
            continue
        if _banner(line):
            record = close_block()
            if record is not None:
                yield record
            if _OFFLINE_BANNER in line:
                preamble_labels = dict(preamble_labels, tool="sglang-offline", offline_batch=True)
            block = _ConsoleBlock(line_number, preamble_metrics, preamble_labels)
            preamble_metrics, preamble_labels = {}, {}
            continue
        if "GenAI-Perf" in line or "AIPerf" in line:
            table_tool = "aiperf" if "AIPerf" in line else "genai-perf"  # the title above the rich table
        if line.startswith("Metric,avg,"):
            genai = _GenaiCsv(line_number, line.strip().split(",")[1:], "genai-perf")
            continue
        if ("Statistic" in line or "Metric" in line) and any(bar in line for bar in _BOX_BARS):
            cells = [cell.strip() for cell in re.split(r"[│┃|]", line) if cell.strip()]
            if len(cells) > 1 and cells[0] in ("Statistic", "Metric") and canonical_stat(cells[1]) is not None:
                genai = _GenaiTable(line_number, cells[1:], table_tool)
            continue
        # Old genai-perf prints the run's aggregates as plain lines under the table.
        if "throughput (per sec):" in line:
            match = _ROW.match(line)
            number = to_number(match.group(2)) if match else None
            if number is not None:
                metric = ("output_tokens_per_second" if match.group(1).lower().startswith("output token")
                          else "request_throughput_per_second")
                yield Record("summary", f"bench.{table_tool}", line_number, {metric: number},
                             labels={"tool": table_tool})
            continue
        if "Benchmarks" in line and _GUIDELLM_TITLE.match(line):
            guidellm_title = line_number
            continue
        # The client's command line above its result (`python benchmarks/benchmark_serving.py … --request-rate 128`):
        # the load it offered, as the pre-amble below states it.
        # Its flags may sit on the command's continuation lines (`python -m sglang.bench_serving \` then
        # `--request-rate 1 \`).
        in_command = continued or ("bench" in line and _BENCH_COMMAND.search(line) is not None)
        continued = in_command and line.rstrip().endswith("\\")
        if in_command and ("--request-rate" in line or "--max-concurrency" in line):
            for flag, value in _COMMAND_FLAGS.findall(line):
                _store_rate_or_count(preamble_metrics, preamble_labels, _COMMAND_METRICS[flag], value)
            continue
        # Pre-amble of `vllm bench serve`, printed before the result block.
        if "request rate:" in line or "request concurrency:" in line or "Burstiness factor:" in line:
            match = _ROW.match(line)
            if match is not None:
                key = " ".join(match.group(1).lower().split())
                if key == "burstiness factor":
                    preamble_labels["burstiness"] = match.group(2).split()[0]
                elif key in _CONSOLE_ROWS:
                    _store_rate_or_count(preamble_metrics, preamble_labels, _CONSOLE_ROWS[key], match.group(2))
            continue
        # A pasted excerpt that starts inside the result block: its rows come before any banner. Keep them as a
        # block of their own, marked cut, rather than drop them.
        if ":" in line and _starts_result_rows(line):
            block = _ConsoleBlock(line_number, preamble_metrics, dict(preamble_labels, truncated="rows before the "
                                                                                               "first banner"))
            preamble_metrics, preamble_labels = {}, {}
            skipped = block.feed(line_number, line)
            if skipped is not None:
                yield skipped
    for start, value, truncated in collector.finish():
        yield from json_records(start, value, truncated)
    if guidellm_title:
        yield from _guidellm_records(guidellm_title, guidellm_lines)
    if genai is not None:
        record = genai.record()
        if record is not None:
            yield record
    record = close_block()
    if record is not None:
        yield record
