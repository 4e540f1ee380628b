"""TensorRT-LLM benchmark reports: the `trtllm-bench throughput|latency` report (sections
`= PYTORCH BACKEND` / `= ENGINE DETAILS`, `= REQUEST DETAILS`, `= WORLD + RUNTIME INFORMATION`,
`= PERFORMANCE OVERVIEW`, `-- Request Latency Breakdown (ms)` …), the legacy `benchmarks/python/benchmark.py`
`[BENCHMARK] key value key value …` line, and the C++ gptManagerBenchmark's report: one `[BENCHMARK] key(unit) value`
pair a line (`num_samples`, `total_latency(ms)`, `avg_time_to_first_token(ms)`, …), folded into one summary.

trtllm-bench prints latencies in ms ("(ms)" in the label) and Total Latency in ms; they become seconds here.
`Issue Rate (req/sec)` around 1E+15 or more means every request was issued at once: labelled, since the
report is then a throughput test, not latency evidence.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from inferledger.diagnose.records import Record, Skipped

NAME = "trtllm-bench"

_ROW = re.compile(r"^\s*([A-Za-z][^:]*?)\s*:\s*(\S.*?)\s*$")
# "[Latency] P50     : 1234.5" / "[TTFT] AVERAGE : 12.3"
_BREAKDOWN = re.compile(r"^\s*\[(\w+)\]\s*(P\d+|MINIMUM|MAXIMUM|AVERAGE|MEAN|MEDIAN)\s*:\s*([-\d.eE+]+)")
_BREAKDOWN_METRIC = {"latency": "e2e_seconds", "ttft": "ttft_seconds", "tpot": "tpot_seconds",
                     "itl": "itl_seconds"}
_BREAKDOWN_STAT = {"p50": "median", "p90": "p90", "p95": "p95", "p99": "p99", "minimum": "min",
                   "maximum": "max", "average": "mean", "mean": "mean", "median": "median"}
ALL_AT_ONCE_RATE = 1e15  # req/s: the issue rate trtllm-bench prints when nothing paces the requests

# Row label (lower case, unit suffix kept) -> (metric, divisor to base units: 1000 for ms, 100 for %)
_ROWS = {
    "number of requests": ("completed_requests", 1.0),
    "number of concurrent requests": ("mean_concurrency", 1.0),  # average in flight, fractional
    "average input length (tokens)": ("mean_input_tokens", 1.0),
    "average output length (tokens)": ("mean_output_tokens", 1.0),
    "max runtime batch size": ("max_running_requests", 1.0),
    "max runtime tokens": ("max_batch_tokens", 1.0),
    "kv memory percentage": ("kv_memory_fraction", 100.0),  # printed as "70.00%"
    "issue rate (req/sec)": ("request_rate_per_second", 1.0),
    "request throughput (req/sec)": ("request_throughput_per_second", 1.0),
    "total output throughput (tokens/sec)": ("output_tokens_per_second", 1.0),
    "total token throughput (tokens/sec)": ("total_tokens_per_second", 1.0),
    "total latency (ms)": ("duration_seconds", 1000.0),
    "average request latency (ms)": ("e2e_seconds_mean", 1000.0),
    "per user output throughput [w/ ctx] (tps/user)": ("output_tokens_per_second_per_user_mean", 1.0),
    "per user output speed (tps/user)": ("output_tokens_per_second_per_user_mean", 1.0),
    "per gpu output throughput (tps/gpu)": ("output_tokens_per_second_per_gpu", 1.0),
    "average time-to-first-token [ttft] (ms)": ("ttft_seconds_mean", 1000.0),
    "average time-per-output-token [tpot] (ms)": ("tpot_seconds_mean", 1000.0),
}
_LABEL_ROWS = {"model": "model", "tensorrt-llm version": "version", "dtype": "dtype",
               "kv cache dtype": "kv_cache_dtype", "quantization": "quantization", "tp size": "tp",
               "pp size": "pp", "ep size": "ep", "scheduling policy": "scheduling_policy", "backend": "backend"}
# Legacy benchmark.py keys -> (metric, factor): latency of one batch in ms, memory in GB (1e9).
_LEGACY = {"latency(ms)": ("e2e_seconds_mean", 1e-3), "percentile95(ms)": ("e2e_seconds_p95", 1e-3),
           "percentile99(ms)": ("e2e_seconds_p99", 1e-3), "tokens_per_sec": ("output_tokens_per_second", 1.0),
           "generation_time(ms)": ("decode_seconds_mean", 1e-3),
           "generation_tokens_per_second": ("generation_tokens_per_second", 1.0),
           "gpu_peak_mem(gb)": ("peak_memory_bytes", 1e9), "batch_size": ("max_concurrency", 1.0),
           "input_length": ("mean_input_tokens", 1.0), "output_length": ("mean_output_tokens", 1.0)}


# gptManagerBenchmark keys (one a line) -> (metric, factor). Its token_throughput is output tokens over the run's wall
# time, seq_throughput finished requests over it; inter_token_latency is each request's mean gap after its first
# token (a TPOT, streaming runs only), and each latency family comes as avg/min/max/p50/p90/p99.
_MANAGER = {"num_samples": ("completed_requests", 1.0), "num_error_samples": ("failed_requests", 1.0),
            "total_latency(ms)": ("duration_seconds", 1e-3),
            "seq_throughput(seq/sec)": ("request_throughput_per_second", 1.0),
            "token_throughput(token/sec)": ("output_tokens_per_second", 1.0),
            "avg_acceptance_rate(tokens/decoding steps)": ("spec_mean_acceptance_length", 1.0)}
_MANAGER_FAMILIES = {"sequence_latency(ms)": ("e2e_seconds", 1e-3), "time_to_first_token(ms)": ("ttft_seconds", 1e-3),
                     "inter_token_latency(ms)": ("tpot_seconds", 1e-3),
                     "request_queueing_latency(ms)": ("queue_seconds", 1e-3),
                     "user_tokens_per_second(tokens/sec/user)": ("output_tokens_per_second_per_user", 1.0)}
_MANAGER_STATS = {"avg": "mean", "min": "min", "max": "max", "p50": "median", "p90": "p90", "p99": "p99"}
_MANAGER_LINE = re.compile(r"\[BENCHMARK\]\s+(\w+(?:\([^)]*\))?)\s+([-+\d.eE]+|nan|-?inf)\s*$")


def _manager_metric(key: str) -> tuple[str, float] | None:
    """The metric and factor of one gptManagerBenchmark key, or None for a key it does not print."""
    if key in _MANAGER:
        return _MANAGER[key]
    stat, _, family = key.partition("_")
    if stat in _MANAGER_STATS and family in _MANAGER_FAMILIES:
        metric, factor = _MANAGER_FAMILIES[family]
        return f"{metric}_{_MANAGER_STATS[stat]}", factor
    return None


def _manager_record(report: _Report) -> Record | None:
    """A gptManagerBenchmark summary; its token throughput is output tokens / wall time, so the run's output tokens
    (and their mean per request) follow from it exactly, up to the two decimals printed."""
    metrics = report.metrics
    if {"output_tokens_per_second", "duration_seconds"} <= metrics.keys():
        metrics["total_output_tokens"] = round(metrics["output_tokens_per_second"] * metrics["duration_seconds"])
        if metrics.get("completed_requests"):
            metrics["mean_output_tokens"] = metrics["total_output_tokens"] / metrics["completed_requests"]
    return report.record()


def _number(text: str) -> float | None:
    match = re.match(r"\s*([-+]?[\d,]*\.?\d+(?:[eE][-+]?\d+)?)", text)
    if match is None:
        return None
    try:
        return float(match.group(1).replace(",", ""))
    except ValueError:
        return None


class _Report:
    def __init__(self, line_number: int):
        self.line_number = line_number
        self.metrics: dict = {}
        self.labels: dict = {"engine": "tensorrt-llm", "tool": "trtllm-bench"}

    def record(self) -> Record | None:
        if not self.metrics:
            return None
        rate = self.metrics.get("request_rate_per_second")
        if rate is not None and rate >= ALL_AT_ONCE_RATE:
            del self.metrics["request_rate_per_second"]
            self.labels["request_rate"] = "inf"  # all requests issued at once: a throughput test
        return Record("summary", "trtllm.bench", self.line_number, self.metrics, labels=self.labels)


def _legacy(line_number: int, line: str) -> Record | Skipped:
    # each key before its value; found by name, so a record whose head was cut (`float16 batch_size 56 …`, the value
    # of `precision` first) still pairs them
    pairs = dict(re.findall(r"(?:^|\s)([a-z_]+(?:\([a-z]+\))?)\s+(\S+)", line.split("[BENCHMARK]", 1)[-1]))
    metrics = {}
    for key, (metric, factor) in _LEGACY.items():
        number = _number(pairs.get(key, ""))
        if number is not None:
            metrics[metric] = number * factor
    if not metrics:
        return Skipped(line_number, "[BENCHMARK] line without latency(ms) / tokens_per_sec values", "trtllm-bench")
    labels = {"engine": "tensorrt-llm", "tool": "benchmark.py"}
    for key in ("model_name", "precision", "world_size", "compute_cap"):
        if key in pairs:
            labels[key.replace("model_name", "model")] = pairs[key]
    return Record("summary", "trtllm.benchmark-py", line_number, metrics, labels=labels)


# Section titles pasted without their "= " prefix (a Markdown renderer eats it): the title alone on the line after a
# rule of "=" signs.
_BARE_TITLE = re.compile(r"^=+\n(PERFORMANCE OVERVIEW|REQUEST DETAILS|WORLD \+ RUNTIME INFORMATION|PYTORCH BACKEND|"
                         r"ENGINE DETAILS)", re.MULTILINE)


def sniff(head: str) -> float:
    if "= PERFORMANCE OVERVIEW" in head or "= REQUEST DETAILS" in head or "= WORLD + RUNTIME INFORMATION" in head:
        return 0.95
    if "=====" in head and _BARE_TITLE.search(head):
        return 0.9
    if "= PYTORCH BACKEND" in head or "= ENGINE DETAILS" in head:
        return 0.9
    if "[BENCHMARK]" in head and ("latency(ms)" in head or "throughput(" in head or "num_samples" in head):
        return 0.9
    return 0.0


# A legacy record's key in a line with no `[BENCHMARK]` of its own: the rest of a record the terminal wrapped
_LEGACY_KEY = re.compile(r"(?:^|\s)(?:tokens_per_sec|latency\(ms\)|batch_size|input_length)\s+\d")


def _unwrapped(lines) -> Iterator:
    """The lines with each legacy `[BENCHMARK] key value …` record whole: a terminal wraps one at its width,
    mid-word (`percen` / `tile95(ms)`), so its next lines are joined on as they stand, up to a blank line or the next
    record. Lines of legacy keys before the first record are a record whose head the excerpt cut."""
    pending = None
    for line_number, line in lines:
        legacy = "[BENCHMARK]" in line and _MANAGER_LINE.search(line) is None
        if pending is not None and line.strip() and "[BENCHMARK]" not in line:
            pending = (pending[0], pending[1] + line)
            continue
        if pending is not None:
            yield pending
            pending = None
        if legacy or ("[BENCHMARK]" not in line and _LEGACY_KEY.search(line) and not line.lstrip().startswith("=")):
            pending = (line_number, line if legacy else "[BENCHMARK]" + line)
            continue
        yield line_number, line
    if pending is not None:
        yield pending


def parse(lines) -> Iterator:
    report: _Report | None = None
    manager: _Report | None = None  # gptManagerBenchmark's one-pair lines
    section = ""
    after_rule = False  # the previous line was a rule of "=" signs
    for line_number, line in _unwrapped(lines):
        bare_title = after_rule and line.strip() and line.strip() == line.strip().upper() and ":" not in line
        after_rule = bool(line.strip()) and not line.strip().strip("=")
        if line.startswith("= ") or line.startswith("-- ") or bare_title:
            title = line.strip("=- \t").upper()
            if ("BACKEND" in title or "ENGINE DETAILS" in title) and report is not None and report.metrics:
                record = report.record()  # a second report in the same file
                if record is not None:
                    yield record
                report = None
            if report is None:
                report = _Report(line_number)
            section = title
            if "BACKEND" in title:
                report.labels["backend"] = title.replace("BACKEND", "").strip().lower()
            continue
        if "[BENCHMARK]" in line:
            pair = _MANAGER_LINE.search(line)
            found = _manager_metric(pair.group(1)) if pair is not None else None
            if found is None:
                yield _legacy(line_number, line)
                continue
            if manager is None or (pair.group(1) == "num_samples" and "duration_seconds" in manager.metrics):
                if manager is not None:  # a second run's report in the same file
                    yield _manager_record(manager)
                manager = _Report(line_number)
                manager.labels["tool"] = "gptManagerBenchmark"
            value = float(pair.group(2))
            if value == value:  # a family with no samples prints nan
                manager.metrics[found[0]] = value * found[1]
            continue
        if ":" not in line:
            continue
        if report is None:
            # Rows pasted before the first section title (a cut excerpt) still belong to a report.
            match = _ROW.match(line)
            if match is None or " ".join(match.group(1).lower().split()) not in _ROWS:
                continue
            report = _Report(line_number)
        if "[" in line[:8]:
            match = _BREAKDOWN.match(line)
            if match is not None:
                metric = _BREAKDOWN_METRIC.get(match.group(1).lower())
                stat = _BREAKDOWN_STAT.get(match.group(2).lower())
                if metric and stat:
                    report.metrics[f"{metric}_{stat}"] = float(match.group(3)) / 1000.0  # breakdown is in ms
                continue
        if section.startswith("DATASET"):
            continue  # dataset percentile table: the requested lengths, already in REQUEST DETAILS
        match = _ROW.match(line)
        if match is None:
            continue
        key = " ".join(match.group(1).lower().split())
        value = match.group(2)
        if value.startswith("|"):
            # Reports pasted side by side as a table row `Label: | main | branch`: the first column is read.
            cells = [cell.strip() for cell in value.strip("| ").split("|")]
            value = cells[0]
            if len(cells) > 1:
                report.labels["columns"] = f"{len(cells)} reports side by side; the first column is read"
        if key in _LABEL_ROWS:
            report.labels[_LABEL_ROWS[key]] = value.strip()
            continue
        found = _ROWS.get(key)
        if found is None:
            continue
        number = _number(value)
        if number is None:
            yield Skipped(line_number, f"trtllm-bench row {match.group(1)!r} without a number", "trtllm-bench")
            continue
        report.metrics[found[0]] = number / found[1]
    for last in (report, manager):
        record = None if last is None else _manager_record(last) if last is manager else last.record()
        if record is not None:
            yield record
