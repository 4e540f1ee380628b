"""The last resort for a benchmark client no reader knows: `label: value unit` lines whose label names a serving
metric in the field's usual words ("Average TTFT: 0.51 s", "p99 end-to-end latency = 2.3s", "mean_tpot_ms: 12.1",
"Output throughput (tokens/s): 456.3", "Successful requests: 120"; or the label and the value two spaces or a tab
apart, as tabulate's plain layout prints a summary: "Time_to_First_Token_AVG (s)    9.957"). Used only when no other
format is detected in a file (parsers.detect), so it never reads a line twice.

A run of such lines is one summary Record; a label seen again starts the next run. Latencies need a unit (after
the value, in the label's parentheses, or as a `_ms`/`_s` suffix): a bare number could be seconds or ms, so it is
reported unread rather than guessed. Every record says it was read by keywords (labels `reader`).
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from statistics import median

from inferledger.diagnose.parsers.bench_common import STAT_NAMES, TIME_UNITS, littles_unit
from inferledger.diagnose.records import Record, looks_like_metric, unread

NAME = "generic-summary"

# `label` [:=|] `number` [`unit`]: the label starts with a letter, quotes and list marks around it are dropped.
_LINE = re.compile(r"^[\s\-*•|>#]*[\"']?(?P<label>[A-Za-z][\w ./()%,-]{0,80}?)[\"']?(?:\s*[:=|]\s*|\s{2,}|\t)[\"']?"
                   r"(?P<value>[-+]?\d[\d,]*(?:\.\d+)?(?:[eE][-+]?\d+)?)\s*(?P<unit>[A-Za-zµμ/%]+(?:/[A-Za-z]+)?)?")
# Metric names by the words the clients use, first match wins (specific before generic).
_LATENCIES = (
    ("ttft", "ttft_seconds"), ("time to first token", "ttft_seconds"), ("first token latency", "ttft_seconds"),
    ("first token time", "ttft_seconds"),
    # Triton's model analyzer: `Avg Token-to-Token latency (ms)` (and its summary's `First Token-to-Token`, the first)
    ("first token to token", "ttft_seconds"), ("token to token", "itl_seconds"),
    # llama.cpp's server-bench: the prompt's processing, before the first token of a one-token-prompt request
    ("prompt latency", "ttft_seconds"), ("ttst", "ttst_seconds"), ("tpot", "tpot_seconds"),
    ("time per output token", "tpot_seconds"), ("inter token latency", "itl_seconds"), ("itl", "itl_seconds"),
    # the tokens after the first, as Xeon / Gaudi / OpenVINO tools name them: a decode step each
    ("next token latency", "tpot_seconds"), ("2nd token latency", "tpot_seconds"),
    ("second token latency", "tpot_seconds"),
    ("per token latency", "tpot_seconds"),
    # the same named by the token alone (IPEX-LLM's vLLM latency script: `first token: 100.47`, `next token: 15.19`)
    ("first token", "ttft_seconds"), ("next token", "tpot_seconds"), ("rest token", "tpot_seconds"),
    # a request's latency divided by its tokens (vLLM's 2023 benchmark_serving): normalised, not a step time
    ("latency per output token", "e2e_per_output_token_seconds"), ("latency per token", "e2e_per_token_seconds"),
    ("e2el", "e2e_seconds"), ("e2e", "e2e_seconds"),
    ("end to end latency", "e2e_seconds"), ("request latency", "e2e_seconds"), ("latency", "e2e_seconds"),
)
_COUNTS = (
    ("total prompt length", "total_input_tokens"), ("total input length", "total_input_tokens"),
    # "number of prompt tokens" counts the run's (LMDeploy's profile_throughput), not one request's
    ("number of prompt tokens", "total_input_tokens"), ("number of input tokens", "total_input_tokens"),
    ("number of completion tokens", "total_output_tokens"), ("number of output tokens", "total_output_tokens"),
    ("number of generated tokens", "total_output_tokens"),
    ("successful requests", "completed_requests"), ("completed requests", "completed_requests"),
    ("failed requests", "failed_requests"), ("total requests", "completed_requests"),
    ("concurrency", "max_concurrency"), ("input length", "mean_input_tokens"), ("prompt length", "mean_input_tokens"),
    ("output length", "mean_output_tokens"), ("total input tokens", "total_input_tokens"),
    # QServe's `Avg_Input_Token_Len` / `Avg_Gen_Token_Len` (its `Request_Gen_Token_Len` is the cap asked for)
    ("input token len", "mean_input_tokens"), ("avg gen token len", "mean_output_tokens"),
    ("total output tokens", "total_output_tokens"), ("total generated tokens", "total_output_tokens"),
    # one run's counts as a one-request client prints them ("Output tokens : 87"): after the totals above
    ("output tokens", "mean_output_tokens"), ("generated tokens", "mean_output_tokens"),
    ("input tokens", "mean_input_tokens"), ("prompt tokens", "mean_input_tokens"),
    ("completion tokens", "mean_output_tokens"), ("total prompt tokens", "total_input_tokens"),
    ("prompt tok", "mean_input_tokens"),  # a table's column (`Prompt tok`): one row's prompt
    ("completion tok", "mean_output_tokens"),  # FMBench's `completion_token_count_mean` beside its prompt's
)
_DURATIONS = ("benchmark duration", "total time", "elapsed", "duration", "wall time")
# A script's own numbered calls, each line one request's whole time: `Call 1: 195.8 sec`, `Request 3: 2.1s`.
_CALL_WORDS = r"(?:call|request|req|run|attempt|try|trial|iteration|query|turn)\s*#?\s*"
_NUMBERED_CALL = re.compile(rf"^{_CALL_WORDS}(\d+)$")  # a label's words
_NUMBERED_LINE = re.compile(rf"(?i)\b{_CALL_WORDS}\d+\s*[:=]")  # a line of the head (sniff)
NUMBERED_CALL = "numbered_call_seconds"
_TOKEN_RATE = re.compile(r"\b(?:tok(?:en)?s?|t)\s*/\s*(?:s|sec|second)\b")
# A token rate per request (`8.57 tokens/req/s`, LMCache's multi-round QA benchmark): one stream's, not the run's.
_PER_REQUEST_TOKEN_RATE = re.compile(r"\btok(?:en)?s?\s*/\s*req(?:uest)?s?\s*/\s*(?:s|sec|second)\b")
# Triton's perf_analyzer counts requests as inferences: `Throughput: 219.6 infer/sec`.
_REQUEST_RATE = re.compile(r"\b(?:(?:req(?:uest)?s?|infer(?:ences?)?)\s*/\s*(?:s|sec|second)|qps|rps)\b")
_LABEL_UNIT = re.compile(r"\((ns|us|usec|µs|μs|ms|msec|s|sec|secs|seconds)\)|[ _](ns|us|usec|ms|msec|s|sec|secs|seconds)$")
_OTHER_PERCENTILE = re.compile(r"\bp\d+(?:\.\d+)?\b")
_STAT_WORD = re.compile(r"\b(mean|avg|average|median|p50|p90|p95|p99|min|minimum|max|maximum|std|stddev)\b")
# Requests completed a minute (FMBench's `transactions_per_minute`): a request rate, sixty times a second's.
_PER_MINUTE = re.compile(r"\b(?:transactions?|requests?|txns?) per minute\b")
_PER_TOKEN_NAME = re.compile(r"\btpot\b|\bitl\b|inter[- ]token|time per (?:output )?token")
_PROMPT_WORD = re.compile(r"input|prompt|prefill|processing|\bpp\b")  # a token rate's words that make it the prompt's


def _words(label: str) -> str:
    # camelCase and CAPS keys of JSON exports ("ttftMs", "generationTPS", "completionTokens") read as words
    label = re.sub(r"(?<=[a-z])(?=[A-Z])", " ", label)
    words = " ".join(re.sub(r"[_\-]+", " ", label.lower()).replace("end-to-end", "end to end").split())
    words = re.sub(r"\btokens per sec(?:ond)?\b", "tok/s", words)
    words = re.sub(r"\brequests per sec(?:ond)?\b", "req/s", words)
    return re.sub(r"\btps\b", "tok/s", words)


def labelled_metric(label: str, value: float, unit: str) -> tuple[str, float] | None:
    """(metric name, value in its unit) for one line's label, figure and unit (or a JSON metric's: bench_json's
    valued metrics), or None when the words or the unit do not say enough."""
    words = _words(label)
    both = f"{words} {unit.lower()}"
    percentile = _OTHER_PERCENTILE.search(words)
    if percentile is not None and percentile.group() not in STAT_NAMES:
        return None  # a percentile with no metric name of its own (p0.1, p25, p99.9): not read as another statistic
    stat_word = _STAT_WORD.search(words)
    stat = STAT_NAMES[stat_word.group(1)] if stat_word else "mean"
    if _PER_MINUTE.search(words) and stat_word is None:
        return "request_throughput_per_second", value / 60  # FMBench's `transactions_per_minute`
    if _PER_REQUEST_TOKEN_RATE.search(both):
        return f"output_tokens_per_second_per_user_{stat}", value
    if _PER_TOKEN_NAME.search(words) and _TOKEN_RATE.search(unit.lower()):
        # a per-token time printed as its inverse (`Avg TPOT: 35.09 tokens/second`): one stream's rate
        return f"output_tokens_per_second_per_user_{stat}", value
    # The unit the line states (after the value, or in the label's parentheses) decides between the two rates:
    # QServe's `Token QPS (token/s)` is tokens, whatever its name says.
    stated = " ".join(re.findall(r"\(([^)]*)\)", label.lower())) + " " + unit.lower()
    tokens_stated = _TOKEN_RATE.search(stated) is not None and _REQUEST_RATE.search(stated) is None
    # (`Throughput: 0.95 requests per second`: the unit read is its first word)
    if (_REQUEST_RATE.search(both) or ("throughput" in words and re.search(r"\breq(?:uest)?s?\b", both))) \
            and not tokens_stated:
        if stat_word is not None and stat not in ("mean", "median") or "peak" in words:
            return None  # a window's peak (`Max QPS (10s window): 1.90`): the summary keeps the run's rate
        return "request_throughput_per_second", value
    if _TOKEN_RATE.search(both) or ("throughput" in words and "token" in both):
        if stat_word is not None and stat not in ("mean", "median"):
            return None  # a rate's max or percentile: the summary keeps its mean
        # The word nearest the rate qualifies it: `Total prompt tok/s` is the prompt's, a case named before its
        # figure (`Short Prompt Total TPS`, GPUStack's table flattened) the total's.
        # (llama.cpp's `PP` a prompt's rate and `TG` a generation's: `- PP: 283.86 tokens/s`)
        prompt_at = max((match.start() for match in _PROMPT_WORD.finditer(words)), default=-1)
        total_at = words.rfind("total")
        if prompt_at > total_at:
            return "input_tokens_per_second", value
        if total_at >= 0:
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
    if _NUMBERED_CALL.match(words):
        return NUMBERED_CALL, seconds  # one call of a script's numbered series (`Call 2: 7.7 sec`)
    if "load time" in words or "load duration" in words:
        return "load_seconds", seconds  # the model's load, before any request (not the run's duration)
    if any(word in words for word in _DURATIONS) and stat_word is None:
        return "duration_seconds", seconds
    # A statistic may sit inside the name ("First token Avg Latency", "Next token P90 Latency"): matched without it.
    bare = " ".join(_STAT_WORD.sub(" ", words).split())
    for words_of, metric in _LATENCIES:
        if re.search(rf"\b{words_of}\b", words) or re.search(rf"\b{words_of}\b", bare):
            return f"{metric}_{stat}", seconds
    return None


# A headline figure, its number first: `2394 Total tok/s (serve bench)`, `479 Output tok/s`.
# The label holds no other number (`3670.42 pp / 82.74 tg tok/s` is two figures, not one).
_VALUE_FIRST = re.compile(r"^[\s\-*•>]*(?P<value>\d[\d,]*(?:\.\d+)?)\s+(?P<label>[A-Za-z][A-Za-z ./()%,_-]{2,60}?)\s*$")


# A script's runs of one setting printed as a Python list under one label: `TTFT (s): [0.2275, 0.2016, 0.2567]`.
_LIST_LINE = re.compile(r"^[\s\-*•>]*(?P<label>[A-Za-z][\w ./()%,-]{0,80}?)\s*[:=]\s*\[(?P<values>\s*[-+]?\d[\d.]*"
                        r"(?:[eE][-+]?\d+)?(?:\s*,\s*[-+]?\d[\d.]*(?:[eE][-+]?\d+)?)*)\s*\]\s*$")


def line_metric(line: str) -> tuple[str, float] | None:
    """(metric name, value in base units) that one `label: value unit` line states, or a headline's `value label`,
    or a list's mean (`label (unit): [v1, v2, …]`, a run's repeats), or None (generic_phrases weighs its own reading
    against this one)."""
    listed = _LIST_LINE.match(line)
    if listed is not None:
        values = [float(value) for value in listed.group("values").split(",")]
        return labelled_metric(listed.group("label"), sum(values) / len(values), "")
    match = _LINE.match(line)
    if match is None:
        first = _VALUE_FIRST.match(line)
        if first is None or not _TOKEN_RATE.search(first.group("label").lower()):
            return None  # a headline is read only when its label names a token rate (`192 GB HBM3` is no metric)
        return labelled_metric(first.group("label"), float(first.group("value").replace(",", "")), "")
    value = float(match.group("value").replace(",", ""))
    return labelled_metric(match.group("label"), value, match.group("unit") or "")


# A table aligned with spaces, one run per row (`Engine  Ctx  TTFT(ms)  Decode(ms)  Total(ms)  Prefill t/s`): the
# header's cells are two or more spaces (or a tab) apart; words a table header uses beyond the `label: value` ones.
_HEADER_SPLIT = re.compile(r"\s{2,}|\t")  # or one tab (a table copied from a spreadsheet)
# The rule a console table draws under its header (`-----  ----------  ---------`): skipped, the rows follow it.
_RULE = re.compile(r"^[\s\-=+|:]*-[\s\-=+|:]*$")
_TABLE_WORDS = {"ctx": "mean_input_tokens", "context": "mean_input_tokens", "total": "e2e_seconds_mean",
                "decode": "decode_seconds_mean", "prefill": "prefill_seconds_mean"}


# A load generator's snake_case columns (`conc  reqs  err  gen  ttft_p50  tpot_p50  e2e_p95  tok/s`): a latency's
# name and statistic, its unit a suffix or none (settled per row by Little's law, _row_unit); the load's words.
_SNAKE_LATENCY = re.compile(r"(ttft|tpot|itl|e2e|latency)_(p\d{1,2}(?:\.\d)?|mean|avg|median)(?:_(ms|s))?")
_SNAKE_LATENCIES = {"ttft": "ttft_seconds", "tpot": "tpot_seconds", "itl": "itl_seconds", "e2e": "e2e_seconds",
                    "latency": "e2e_seconds"}
_SNAKE_WORDS = {"conc": "max_concurrency", "concurrency": "max_concurrency", "reqs": "completed_requests",
                "gen": "mean_output_tokens"}
UNSETTLED = None  # a column's factor while its unit waits for the row's Little's law


def _column(cell: str) -> tuple[str, float | None] | None:
    """(metric, factor to base units, or UNSETTLED for a snake_case latency with no unit) for a table header cell, or
    None."""
    snake = _SNAKE_LATENCY.fullmatch(cell.lower())
    if snake is not None:
        name, stat, unit = snake.groups()
        stat = {"p50": "median", "avg": "mean"}.get(stat, stat)
        return f"{_SNAKE_LATENCIES[name]}_{stat}", TIME_UNITS[unit] if unit else UNSETTLED
    if cell.lower() in _SNAKE_WORDS:
        return _SNAKE_WORDS[cell.lower()], 1.0
    found = labelled_metric(cell, 1.0, "")
    if found is not None:
        return found
    words = _words(re.sub(r"\(([^)]*)\)", r" \1", cell))
    unit = words.split()[-1] if words.split() and words.split()[-1] in TIME_UNITS else None
    key = words.split()[0] if words.split() else ""
    metric = _TABLE_WORDS.get(key)
    if metric is None or (metric.endswith("_mean") and metric != "mean_input_tokens" and unit is None):
        return None
    return metric, TIME_UNITS[unit] if unit else 1.0


def _table_header(line: str) -> list | None:
    """The columns of a space-aligned table header: [(metric, factor) or None per cell], when 2+ cells are metrics."""
    cells = _HEADER_SPLIT.split(line.strip())
    if len(cells) < 3 or any(char.isdigit() for char in line.replace("(", "").split()[0]):
        return None
    columns = [_column(cell) for cell in cells]
    return columns if sum(column is not None for column in columns) >= 2 else None


def _table_row(line: str, columns: list) -> tuple[str, dict] | None:
    cells = line.split()
    if len(cells) != len(columns):
        cells = _HEADER_SPLIT.split(line.strip())  # cells with spaces of their own, the columns apart by runs
        if len(cells) != len(columns):
            return None
    metrics, unitless = {}, {}
    for cell, column in zip(cells, columns, strict=True):
        if column is None:
            continue
        try:
            value = float(cell.replace(",", ""))
        except ValueError:
            if ":" in cell and cell.replace(":", "").isdigit():
                continue  # a setting's range (`1:8:1`, Triton's periodic concurrency start:end:step): no figure
            return None
        if column[1] is UNSETTLED:
            unitless[column[0]] = value
        else:
            metrics[column[0]] = value * column[1]
    if unitless:
        factor = _row_unit(metrics, unitless)
        if factor is not None:  # else the latencies stay unread: a bare number is never guessed
            metrics.update((name, value * factor) for name, value in unitless.items())
    return cells[0], metrics


def _row_unit(metrics: dict, unitless: dict) -> float | None:
    """Seconds per unit of a row's unitless latencies: Little's law with the row's request rate, or its output rate
    over its tokens a request (a closed loop keeps `conc` requests in flight: each takes conc / rate)."""
    rate = metrics.get("request_throughput_per_second")
    if rate is None and metrics.get("output_tokens_per_second") and metrics.get("mean_output_tokens"):
        rate = metrics["output_tokens_per_second"] / metrics["mean_output_tokens"]
    latency = next((unitless[name] for name in ("e2e_seconds_mean", "e2e_seconds_median", "e2e_seconds_p90",
                                                "e2e_seconds_p95") if name in unitless), None)
    return littles_unit(rate, metrics.get("mean_concurrency") or metrics.get("max_concurrency"), latency)


# The keys inside a metric's object that are no value of it and that line_metric would take for its mean (a name
# it does not know as a statistic): counts of samples, sums, a variance. `std` and `stddev` are statistics it keeps.
_NOT_A_VALUE = frozenset(("n", "count", "samples", "num_samples", "sum", "stdev", "variance"))

# inference-perf's JSON report (kubernetes-sigs): latencies in seconds with no unit in their keys, nested as
# "latency": {"request_latency": {"mean": …}, "normalized_time_per_output_token": {…}, …}.
_INFERENCE_PERF_KEYS = ('"normalized_time_per_output_token"', '"load_summary"', '"schedule_delay"')


def sniff(head: str) -> float:
    """Three lines or more that name a metric with a number and a unit, or two that give a first-token time and a
    token rate (a script's two-line summary: both phases of its requests), or an inference-perf report: enough to
    read a summary from."""
    if any(key in head for key in _INFERENCE_PERF_KEYS) and '"successes"' in head:
        return 0.5
    found = []
    lines = head.splitlines()
    if any(_MULTITURN.match(line) for line in lines if "requests per second" in line):
        return 0.5  # SGLang's multi-turn bench: its unitless latencies are seconds (parse)
    rows = [line for line in lines if not _RULE.match(line)]
    for line, following in zip(rows, rows[1:] + [""], strict=True):
        columns = _table_header(line)
        if columns is not None and _table_row(following, columns):
            return 0.5
    unitless = []  # latencies with no unit: counted only beside what settles their unit (_unit_by_littles_law)
    for line in lines:
        # a JSON export's `"generationTPS" : 81.8,` counts too: its key names the metric in camelCase; so does a
        # numbered call's time (`Call 2: 7.7 sec`)
        if looks_like_metric(line) or line.lstrip().startswith('"') or _NUMBERED_LINE.search(line):
            metric = line_metric(line)
            if metric is not None:
                found.append(metric[0])
                if len(found) >= 3:
                    return 0.5
        if ":" in line and unitless_latency(line) is not None:
            unitless.append(line)
    if unitless:
        named = {metric[0] for metric in map(line_metric, lines) if metric is not None}
        if "request_throughput_per_second" in named and named & {"max_concurrency", "mean_concurrency"}:
            return 0.5
        bare = dict(filter(None, map(unitless_latency, unitless)))
        if len(bare) >= 2 and _unit_by_step({name[len(_UNITLESS):]: value for name, value in bare.items()}):
            return 0.5  # two bare latencies, one a time per token that settles their unit
    if len(found) == 2 and any(name.startswith("ttft") for name in found) \
            and any(name.endswith("tokens_per_second") for name in found):
        return 0.5
    if {"input_tokens_per_second", "output_tokens_per_second"} <= set(found) \
            or {"total_tokens_per_second", "output_tokens_per_second"} <= set(found):
        return 0.5  # both phases' rates (mlx_lm's `prompt_tps`, `generation_tps`), or a run's output and total rates
    return 0.0


# SGLang's multi-turn bench (benchmark/hicache/bench_multiturn.py) opens each run's summary with its requests and
# offered rate, then prints TTFT and latency with no unit: time.perf_counter() differences, seconds.
_MULTITURN = re.compile(r"^\s*Total requests:\s*(\d+) at (\d+(?:\.\d+)?|inf) requests per second\s*$")
# A JSON object opened under a key (`"ttft_ms": {`): its members ("mean": 74.6) are that metric's statistics.
_OPEN_KEY = re.compile(r'^\s*"(?P<key>[A-Za-z][\w ./()%-]{0,60})"\s*:\s*\{\s*$')


def parse(lines) -> Iterator:
    metrics: dict = {}
    start = 0
    parents: list = []  # the keys of the JSON objects the line is inside
    columns: list | None = None  # a space-aligned table's header, while its rows follow
    seconds = False  # an inference-perf report: its latencies are in seconds
    offered_first = False  # the last line read was a bare `QPS` (see below)
    calls: list = []  # the numbered calls of the series being read (_calls)
    bare_seconds = False  # in a multi-turn bench summary: its unitless latencies are seconds
    for line_number, line in lines:
        if "requests per second" in line and (multiturn := _MULTITURN.match(line)) is not None:
            if metrics:
                yield from _run(start, metrics)
            metrics, start, bare_seconds = {"completed_requests": float(multiturn.group(1))}, line_number, True
            metrics["request_rate_per_second"] = float(multiturn.group(2))
            continue
        if not seconds and any(key in line for key in _INFERENCE_PERF_KEYS):
            seconds = True
        if columns is not None:
            if _RULE.match(line):
                continue
            row = _table_row(line, columns)
            if row is not None:
                name, values = row
                # a row named by its load (the first column the concurrency) is one level of a sweep, not a variant
                load_named = columns[0] is not None and columns[0][0] == "max_concurrency"
                yield _record(line_number, values, benchmark=None if load_named else name)
                continue
            columns = None
        header = _table_header(line) if not line.lstrip().startswith('"') else None
        if header is not None:
            columns = header
            continue
        if "Namespace(" in line:
            arguments = _arguments(line)
            if arguments:
                if metrics:  # the arguments open the next run
                    yield from _run(start, metrics)
                metrics, start = arguments, line_number
            continue
        opened = _OPEN_KEY.match(line)
        if opened is not None:
            parents.append(opened.group("key"))
            continue
        if parents and line.strip().startswith("}"):
            parents.pop()
            continue
        if parents and any(char.isdigit() for char in line):
            match = _LINE.match(line)
            if match is not None and match.group("label").strip().strip('"').lower() in _NOT_A_VALUE:
                continue  # "n": 3 under "ttft_ms" is how many were timed, not a time; a sum or a variance neither
            if match is not None:  # "mean": 74.6 under "ttft_ms" reads as "mean ttft_ms"
                unit = match.group("unit") or ("s" if seconds and "latency" in parents else "")
                line = f'"{match.group("label")} {parents[-1]}": {match.group("value")} {unit}'
        reading = line_metric(line) if any(char.isdigit() for char in line) else None
        if reading is None:
            reading = unitless_latency(line)
            if reading is None:
                if looks_like_metric(line):
                    yield unread(line_number, line, NAME)
                continue
            if bare_seconds:
                reading = reading[0][len(_UNITLESS):], reading[1]
        name, value = reading
        labelled = _LINE.match(line)
        words = _words(labelled.group("label")) if labelled else ""
        if name == "output_tokens_per_second" and _NUMBERED_CALL.match(words):
            # `Run 3: 83.7 tok/s (200 tokens, 2389ms)`: a script's runs one after another, each one stream's rate
            name = "output_tokens_per_second_per_user_mean"
        if name == NUMBERED_CALL:
            number = int(_NUMBERED_CALL.match(words).group(1))
            if calls and number <= calls[-1][0]:  # numbering starts again: the next series
                yield _calls(calls)
                calls = []
            calls.append((number, value, line_number))
            continue
        if name == "request_throughput_per_second" and offered_first and words == "processing speed":
            # LMCache's multi-round QA benchmark: `QPS` (requests launched ÷ time) comes first, what it offered;
            # `Processing speed` is what finished.
            metrics["request_rate_per_second"] = metrics.pop(name)
        offered_first = name == "request_throughput_per_second" and words == "qps"
        if name in metrics:  # the same label again: the next run's summary
            yield from _run(start, metrics)
            metrics = {}
        if not metrics:
            start = line_number
        metrics[name] = value
    if metrics:
        yield from _run(start, metrics)
    if calls:
        yield _calls(calls)


def _calls(calls: list) -> Record:
    """One series of numbered calls (number, seconds, line) as a summary: the calls' mean and median time, and the
    first call's time beside the median of the later ones (a first call many times the others paid a cold start:
    summary-first-call-cold)."""
    times = [seconds for _number, seconds, _line in calls]
    metrics = {"e2e_seconds_mean": sum(times) / len(times), "e2e_seconds_median": median(times),
               "completed_requests": float(len(times))}
    if len(times) >= 3:
        metrics["first_call_seconds"] = times[0]
        metrics["later_calls_seconds_median"] = median(times[1:])
    record = _record(calls[0][2], metrics, benchmark=f"{len(times)} numbered calls")
    record.labels["tool"] = "a script's numbered calls"
    return record


_UNITLESS = "unitless "  # a latency whose line gives no unit, kept under this prefix until its run is complete
_LATENCY_NAMES = ("ttft_", "ttst_", "tpot_", "itl_", "e2e_")


def unitless_latency(line: str) -> tuple[str, float] | None:
    """(`unitless <metric>`, the number) for a latency line with no unit (`Total Latency : 236.9`), else None."""
    match = _LINE.match(line)
    if match is None or match.group("unit"):
        return None
    found = labelled_metric(match.group("label"), 1.0, "s")
    if found is None or not found[0].startswith(_LATENCY_NAMES):
        return None
    return _UNITLESS + found[0], float(match.group("value").replace(",", ""))


def _run(line_number: int, metrics: dict) -> Iterator:
    """The run's Record, its unitless latencies in seconds where Little's law gives their unit, else each reported
    unread. A client holding C requests at once at R requests a second completes each in C / R seconds (a closed
    loop's Little's law): its mean latency printed as 236.9 beside C = 1 and R = 3.92 (0.255 s) is milliseconds.
    Seconds and milliseconds differ a thousandfold, so a factor of two either way decides without a guess."""
    unitless = {name[len(_UNITLESS):]: value for name, value in metrics.items() if name.startswith(_UNITLESS)}
    metrics = {name: value for name, value in metrics.items() if not name.startswith(_UNITLESS)}
    factor = _unit_by_littles_law(metrics, unitless)
    by_step = None
    if factor is None:
        factor = by_step = _unit_by_step(unitless)
    if factor is not None:
        metrics.update({name: value * factor for name, value in unitless.items() if name not in metrics})
        unitless = {}
    for name, value in unitless.items():
        yield unread(line_number, f"{name.replace('_seconds_', ' ')}: {value:g} (no unit; neither Little's law nor a "
                     "time per token settled seconds or milliseconds)", NAME)
    if metrics:
        record = _record(line_number, metrics)
        if by_step is not None:
            record.labels["latency_unit_assumed"] = "ms" if by_step == 1e-3 else "s"
        yield record


def _unit_by_step(unitless: dict) -> float | None:
    """Seconds per unit from the run's unitless time per output token (or inter-token latency), as a markdown
    table's bare columns are settled (bench_markdown.UNITLESS_MS_MIN): 2 or more is ms, under 0.5 is s."""
    from inferledger.diagnose.parsers.bench_markdown import UNITLESS_MS_MIN, UNITLESS_SECONDS_MAX

    step = next((value for name, value in sorted(unitless.items()) if name.startswith(("tpot_", "itl_"))
                 and value > 0), None)
    if step is None:
        return None
    return 1e-3 if step >= UNITLESS_MS_MIN else 1.0 if step < UNITLESS_SECONDS_MAX else None


def _unit_by_littles_law(metrics: dict, unitless: dict) -> float | None:
    """Seconds per unit of the run's unitless latencies (1 or 0.001), or None when the run cannot say."""
    return littles_unit(metrics.get("request_throughput_per_second"),
                         metrics.get("mean_concurrency") or metrics.get("max_concurrency"),
                         unitless.get("e2e_seconds_mean") or unitless.get("e2e_seconds_median"))


# The client's arguments as argparse prints them (`Namespace(backend='vllm', …, num_prompts=1000, …,
# request_rate=200.0, …)`): what was offered, which the summary lines below it never repeat.
_ARGUMENTS = re.compile(r"\b(request_rate|num_prompts|max_concurrency)=([\w.+-]+)")


def _arguments(line: str) -> dict:
    metrics = {}
    for name, value in _ARGUMENTS.findall(line):
        try:
            number = float(value)  # inf and infinity read as float('inf')
        except ValueError:
            continue  # None: not set
        if name == "request_rate":
            metrics["request_rate_per_second"] = number
        elif name == "num_prompts":
            metrics["requests_sent"] = number
        else:
            metrics["max_concurrency"] = number
    return metrics


def _record(line_number: int, metrics: dict, benchmark: str | None = None) -> Record:
    labels = {"tool": "unknown client", "reader": "generic: metric names matched by their usual words"}
    if benchmark:
        labels["benchmark"] = benchmark  # a table row: what the row measured (an engine, a setting)
    return Record("summary", "bench.generic", line_number, dict(metrics), labels=labels)
