"""SGLang scheduler logs: Prefill/Decode batch lines, retraction and out-of-memory lines, startup capacity lines
.

Every line is printed once per TP rank; records carry the rank so the diagnosis can keep one rank's
view (TP0, or the first rank seen) and count an event once per timestamp, not once per rank.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from itertools import repeat
from operator import sub

from inferledger.diagnose.parsers._common import (
    BINARY_MEMORY,
    epoch_seconds,
    feed_all,
    row_stamps,
)
from inferledger.diagnose.records import Record, Skipped, new_record

NAME = "sglang"
_group, _start, _end = re.Match.group, re.Match.start, re.Match.end

_PREFIX = re.compile(r"\[(\d{4})-(\d\d)-(\d\d) (\d\d):(\d\d):(\d\d)(?:[.,](\d+))?(?: ([A-Z]{2}\d+(?: [A-Z]{2}\d+)*))?\]")

# label as printed -> metric. `token usage` is already a fraction 0..1 in the log.
_BATCH_FIELDS = {
    "#running-req": "running_requests",
    "#queue-req": "waiting_requests",
    "token usage": "kv_cache_usage_fraction",
    "full token usage": "kv_cache_usage_fraction",  # hybrid SWA/mamba models: the full-attention pool
    "#token": "kv_cache_used_tokens",  # KV tokens in use, not tokens generated
    "#full token": "kv_cache_used_tokens",
    "gen throughput (token/s)": "generation_tokens_per_second",
    "input throughput (token/s)": "prompt_tokens_per_second",
    "#new-seq": "new_requests",
    "#new-token": "batch_tokens",
    "#cached-token": "cached_tokens",
    "cuda graph": "cuda_graph",
    "cpu graph": "cuda_graph",
    "npu graph": "cuda_graph",
    "accept len": "spec_mean_acceptance_length",
    "accept rate": "spec_acceptance_fraction",
    "#retracted-req": "retracted_requests",
    "#prealloc-req": "prealloc_requests",
    "#transfer-req": "transfer_requests",
    # a disaggregated deployment's prefill server: requests waiting for the decode side's handshake, and requests
    # whose KV cache is being sent to it
    "#unbootstrapped-req": "unbootstrapped_requests",
    "#transferring-req": "transferring_requests",
    "#inflight-req": "inflight_requests",
    "#pending-token": "pending_tokens",
    "cache hit rate": "prefix_cache_hit_fraction",  # 2024 prefill lines print it as a percentage
}

_RETRACT = re.compile(r"#retracted_reqs: (\d+)")
_FUSED_RUNNING = re.compile(r"unning-req: (\d+)")
# The engine's own out-of-memory phrases; a line that only quotes "out of memory" (an issue title, a prompt) is not one.
_OOM = re.compile(r"(?:Decode|Prefill|CUDA) out of memory|KV cache pool is full")
_TOO_LONG = re.compile(r"Input length \((\d+) tokens\) exceeds the maximum allowed length \((\d+) tokens\)")
_KV_ALLOC = re.compile(r"KV Cache is allocated\. #tokens: (\d+), K size: ([\d.]+) GB, V size: ([\d.]+) GB")
_MAX_TOTAL = re.compile(r"max_total_num_tokens=(\d+)")
_KEY_VALUES = re.compile(r"(chunked_prefill_size|max_prefill_tokens|max_running_requests|context_len)=(-?\d+)")
_AVAIL = re.compile(r"(?:available_gpu_mem|avail mem)=([\d.]+) ?GB")
_WEIGHTS = re.compile(r"Load weight end\..*?mem usage=([\d.]+) ?GB")

_KV_KEYS = {
    "chunked_prefill_size": "chunked_prefill_tokens",
    "max_prefill_tokens": "max_prefill_tokens",
    "max_running_requests": "max_running_requests",
    "context_len": "max_model_len_tokens",
}

_SNIFF_MARKERS = ("Decode batch", "Prefill batch", "#running-req", "new fill batch", "#remaining_req",
                  "max_total_num_tokens=", "KV Cache is allocated", "Decode out of memory", "#queue-req",
                  "Load weight end.", "Memory pool end.", "exceeds the maximum allowed length")


def sniff(head: str) -> float:
    hits = sum(1 for marker in _SNIFF_MARKERS if marker in head)
    if not hits:
        return 0.0
    return min(0.6 + 0.15 * hits, 0.95)


_MINUTE_BASE: dict = {}  # (year, month, day, hour, minute) -> epoch of that minute; bounded below
# rank (None: no rank printed) -> the labels dict, shared by the records of that rank (records never mutate labels)
_RANK_LABELS: dict = {None: {"engine": "sglang"}}


_MINUTE_TEXT: dict = {}  # "YYYY-MM-DD HH:MM" of a `[stamp` that _PREFIX matched at the line start -> its epoch


def _rank_labels(rank: str | None) -> dict:
    labels = _RANK_LABELS.get(rank)
    if labels is None:
        labels = {"engine": "sglang"}
        if rank:
            labels["rank"] = rank
        if len(_RANK_LABELS) < 256 and rank.isascii():
            _RANK_LABELS[rank] = labels
    return labels


def _prefix(line: str):
    # The usual line starts `[YYYY-MM-DD HH:MM:SS TP0] ` or `[... SS] `: once _PREFIX has matched a line starting
    # with this minute and (validated) rank, the same text needs no regex, only the seconds checked.
    if line[:1] == "[" and line[17:18] == ":":
        base = _MINUTE_TEXT.get(line[1:17])
        second = line[18:20]
        if base is not None and second.isdigit() and second.isascii():
            after = line[20:21]
            if after == "]":
                return base + int(second), _RANK_LABELS[None]
            if after == " ":
                close = line.find("]", 21, 64)
                labels = _RANK_LABELS.get(line[21:close]) if close > 21 else None
                if labels is not None:
                    return base + int(second), labels
    match = _PREFIX.search(line, 0, 64) if "[" in line[:40] else None
    if not match:
        return None, {"engine": "sglang"}
    year, month, day, hour, minute, second, fraction, rank = match.groups()
    labels = _rank_labels(rank)
    # Consecutive lines share their minute: its epoch is computed once (timegm is linear in the seconds, so
    # minute + seconds is exactly what epoch_seconds returns for the whole stamp).
    key = (year, month, day, hour, minute)
    base = _MINUTE_BASE.get(key)
    if base is None:
        try:
            base = epoch_seconds(int(year), int(month), int(day), int(hour), int(minute), 0, None)
        except (ValueError, OverflowError):
            return None, labels
        if len(_MINUTE_BASE) > 4096:
            _MINUTE_BASE.clear()
            _MINUTE_TEXT.clear()
        _MINUTE_BASE[key] = base
    if match.start() == 0 and line[17:18] == ":" and (year + month + day + hour + minute).isascii():
        _MINUTE_TEXT[line[1:17]] = base
    timestamp = base + int(second)
    if fraction:
        timestamp += float("0." + fraction)
    return timestamp, labels


_ROW_HOURS: dict = {}  # _PREFIX's groups to the hour, and the rank (bytes) -> (epoch of the hour, labels)


def _prefix_stamps(prefixes: list) -> tuple[list, list]:
    """(stamps, labels) of batch lines from their prefixes' _LINE_PREFIX matches (bytes groups): what _prefix reads
    from the prefix text, the hour's epoch and the labels looked up once an hour (hour_stamps), by maps over the
    columns."""
    if max(map(sub, map(_end, prefixes), map(_start, prefixes))) <= 64:
        return _short_prefix_stamps(prefixes)
    stamps, labels = [], []
    for match in prefixes:
        if match.end() - match.start() > 64:  # past where _prefix looks for its stamp: read as it reads it
            stamp, label = _prefix(match.group().decode())
        else:
            (stamp,), (label,) = _short_prefix_stamps([match])
        stamps.append(stamp)
        labels.append(label)
    return stamps, labels


def _hour_of(key: tuple) -> tuple:
    """(epoch of the hour or None when it is not a date, labels) for _ROW_HOURS' key (bytes groups)."""
    year, month, day, hour, rank = key
    try:
        base = epoch_seconds(int(year), int(month), int(day), int(hour), 0, 0, None)
    except (ValueError, OverflowError):
        base = None
    return base, _rank_labels(rank.decode() if rank else None)


def _short_prefix_stamps(prefixes: list) -> tuple[list, list]:
    keys = list(map(_group, prefixes, repeat(1), repeat(2), repeat(3), repeat(4), repeat(8)))  # to the hour, rank
    return row_stamps(keys, _ROW_HOURS, _hour_of, prefixes, 5)


# The layouts SGLang prints (the samples), each read by one match of the whole rest of the line;
# any other layout goes through the generic `label: value` loop below, which gives the same numbers for these.
_NUM = r"(\d+(?:\.\d+)?)"
_END = r"[, ]{0,2}"
_DECODE_GRAPH = re.compile(
    r"Decode batch[.,] #running-req: (\d+), #token: (\d+), token usage: " + _NUM + r", cuda graph: (True|False), "
    r"gen throughput \(token/s\): " + _NUM + r", #queue-req: (\d+)" + _END)
_DECODE_LARGEST = re.compile(
    r"Decode batch[.,] #running-req: (\d+), #token: (\d+), token usage: " + _NUM + r", gen throughput "
    r"\(token/s\): " + _NUM + r", largest-len: \d+, #queue-req: (\d+)" + _END)
_PREFILL = re.compile(
    r"Prefill batch[.,] #new-seq: (\d+), #new-token: (\d+), #cached-token: (\d+), token usage: " + _NUM
    + r", #running-req: (\d+), #queue-req: (\d+)" + _END)


# A layout's `cuda graph` group: str when read from a decoded line, bytes when read from a block (LINE_SHAPES).
_TRUE = ("True", b"True")


def _decode_graph_metrics(groups) -> dict:
    running, tokens, usage, graph, generation, waiting = groups
    return {"running_requests": float(running), "kv_cache_used_tokens": float(tokens),
            "kv_cache_usage_fraction": float(usage), "cuda_graph": 1.0 if graph in _TRUE else 0.0,
            "generation_tokens_per_second": float(generation), "waiting_requests": float(waiting)}


def _decode_largest_metrics(groups) -> dict:
    running, tokens, usage, generation, waiting = groups
    return {"running_requests": float(running), "kv_cache_used_tokens": float(tokens),
            "kv_cache_usage_fraction": float(usage), "generation_tokens_per_second": float(generation),
            "waiting_requests": float(waiting)}


def _prefill_metrics(groups) -> dict:
    new, new_tokens, cached, usage, running, waiting = groups
    return {"new_requests": float(new), "batch_tokens": float(new_tokens), "cached_tokens": float(cached),
            "kv_cache_usage_fraction": float(usage), "running_requests": float(running),
            "waiting_requests": float(waiting)}


# kind -> (layout, its metrics from the match groups), tried in order; float() reads str and bytes alike.
_LAYOUTS = {"Decode batch": ((_DECODE_GRAPH, _decode_graph_metrics), (_DECODE_LARGEST, _decode_largest_metrics)),
            "Prefill batch": ((_PREFILL, _prefill_metrics),)}


def _fast_metrics(line: str, start: int, kind: str) -> dict | None:
    for layout, metrics in _LAYOUTS[kind]:
        match = layout.fullmatch(line, start)
        if match is not None:
            return metrics(match.groups())
    return None


_LEADING_NUMBER = re.compile(r"\d+(?:\.\d+)?(?=[`'\"\s]|$)")


def _generic_metrics(line: str, start: int, kind: str) -> dict:
    metrics = {}
    # `label: value` pairs separated by ", " (a `.` after `batch` in 2024-early 2025 builds).
    for part in line[start + len(kind) + 1:].split(", "):
        label, _sep, value = part.partition(": ")
        name = _BATCH_FIELDS.get(label.strip(" .,"))
        if name is None or name in metrics:  # `token usage` before `swa token usage`: keep the first (full pool)
            continue
        value = value.strip(" ,.%") if value[-1:] in " ,.%" else value
        if value == "True" or value == "False":
            metrics[name] = 1.0 if value == "True" else 0.0
            continue
        try:
            number = float(value)
        except ValueError:
            # a line quoted in prose ends in a backtick and the sentence after it (`#queue-req: 1549\`. This is`)
            leading = _LEADING_NUMBER.match(value)
            if leading is None:
                continue
            number = float(leading.group())
        metrics[name] = number / 100 if name == "prefix_cache_hit_fraction" else number
    return metrics


def _batch(line: str, line_number: int, kind: str) -> Record | Skipped:
    start = line.find(kind)
    metrics = _fast_metrics(line, start, kind) if start >= 0 else None
    if metrics is None:
        if start < 0:  # the oldest builds print `#running-req: …, #token: …` with no "Decode batch" before it
            start, kind = line.find("#running-req") - 1, ""
        metrics = _generic_metrics(line, start, kind)
        if "running_requests" not in metrics and kind == "Prefill batch" and "new_requests" in metrics \
                and ("transferring_requests" in metrics or "unbootstrapped_requests" in metrics):
            # A prefill server of a disaggregated deployment (`#unbootstrapped-req`, `#transferring-req`) decodes
            # nothing and prints no #running-req: the batch's new sequences are all it runs.
            metrics["running_requests"] = metrics["new_requests"]
        if "running_requests" not in metrics:
            fused = _FUSED_RUNNING.search(line)
            if fused is None:
                return Skipped(line_number, f"SGLang {kind or 'batch'} line without #running-req (cut?)", "sglang")
            # Two fields glued by a paste (`#cached-tounning-req: 47`): the count is still #running-req's.
            metrics["running_requests"] = float(fused.group(1))
    timestamp, labels = _prefix(line)
    return new_record("interval", _SOURCES[kind], line_number, metrics, timestamp, labels)


_SOURCES = {"Decode batch": "sglang.decode", "Prefill batch": "sglang.prefill", "": "sglang.prefill"}


def _capacity(line: str, line_number: int) -> Record | None:
    metrics = {}
    match = _KV_ALLOC.search(line)
    if match:
        metrics["kv_cache_tokens"] = float(match.group(1))
        metrics["kv_cache_bytes"] = (float(match.group(2)) + float(match.group(3))) * BINARY_MEMORY["GB"]
    match = _MAX_TOTAL.search(line)
    if match:
        # max_total_num_tokens is the KV pool size in tokens (sglang#29575).
        metrics["kv_cache_tokens"] = float(match.group(1))
        for key, value in _KEY_VALUES.findall(line):
            metrics[_KV_KEYS[key]] = float(value)
    match = _WEIGHTS.search(line)
    if match:
        metrics["weights_bytes"] = float(match.group(1)) * BINARY_MEMORY["GB"]
    elif "Memory pool end" in line or "available_gpu_mem" in line:
        match = _AVAIL.search(line)
        if match:
            metrics["available_memory_bytes"] = float(match.group(1)) * BINARY_MEMORY["GB"]
    if not metrics:
        return None
    timestamp, labels = _prefix(line)
    return Record("capacity", "sglang.startup", line_number, metrics, timestamp, labels)


# The first SGLang (early 2024) printed its prefill batches `new fill batch. #seq: 1. #cached_token: 330. #new_token:
# 2172. #remaining_req: 57. #running_req: 9. tree_cache_hit_rate: 69.16%`: fields a `. ` apart. The requests left
# for the next fills are a queue only when they outnumber the running batch: one or two left beside more running are a
# burst's tail that the next fill admits (a fill takes as many as its token budget holds), not requests held back.
_FILL_FIELDS = {"#seq": "new_requests", "#cached_token": "cached_tokens", "#new_token": "batch_tokens",
                "#remaining_req": "remaining_requests", "#running_req": "running_requests",
                "tree_cache_hit_rate": "prefix_cache_hit_fraction"}
_FILL_FIELD = re.compile(r"(#\w+|tree_cache_hit_rate): (\d+(?:\.\d+)?)(%?)")


def _fill_batch(line: str, line_number: int) -> Record | Skipped:
    metrics = {}
    for label, value, percent in _FILL_FIELD.findall(line):
        if label in _FILL_FIELDS:
            metrics[_FILL_FIELDS[label]] = float(value) / (100 if percent else 1)
    if "running_requests" not in metrics:
        return Skipped(line_number, "SGLang fill-batch line without #running_req (cut?)", "sglang")
    left = metrics.get("remaining_requests", 0.0)
    metrics["waiting_requests"] = left if left > metrics["running_requests"] else 0.0
    timestamp, labels = _prefix(line)
    return new_record("interval", "sglang.prefill", line_number, metrics, timestamp, labels)


def wants_next(line: str) -> bool:
    """A batch line that stops after a comma was wrapped (a docs page, a narrow terminal): the reader also sends the
    next line, which holds its rest."""
    return "batch" in line and "#queue-req" not in line and line.rstrip()[-1:] == ","


class LineParser:
    """Push-style parser fed only the lines that hold one of MARKERS (see read.py)."""

    def __init__(self):
        self.pending = None  # (line number, text) of a wrapped batch line, joined with the next

    def feed(self, line_number: int, line: str) -> list:
        if self.pending is not None:
            first_number, first = self.pending
            self.pending = None
            return self.feed(first_number, first.rstrip() + " " + line.strip())
        if wants_next(line):
            self.pending = (line_number, line)
            return []
        if "#remaining_req" in line or "#running_req" in line:
            return [_fill_batch(line, line_number)]
        if "batch" in line and ("#running-req" in line or "#queue-req" in line):
            if "Decode batch" in line:
                return [_batch(line, line_number, "Decode batch")]
            if "Prefill batch" in line:
                return [_batch(line, line_number, "Prefill batch")]
        if "#running-req" in line and "token usage" in line and "batch" not in line.lower():
            return [_batch(line, line_number, "Decode batch")]
        if "retracted_reqs" in line or "Retract" in line or ("emory" in line and "out of memory" in line.lower()):
            match = _RETRACT.search(line)
            metrics = {}
            if match:
                metrics["retractions"] = float(match.group(1))
            if _OOM.search(line) and (line.lstrip()[:1] == "[" or "Error" in line):
                metrics["oom"] = 1.0  # the scheduler's line (`[stamp TPn] …`) or the raised error, not a quote
            if metrics:
                timestamp, labels = _prefix(line)
                return [Record("event", "sglang.retract", line_number, metrics, timestamp, labels)]
            return []
        if "exceeds the maximum allowed length" in line and _TOO_LONG.search(line):
            # A prompt refused for holding more tokens than the engine allows: SGLang's allowed length is what its
            # KV pool holds (max_total_num_tokens) when that is below the context length.
            timestamp, labels = _prefix(line)
            return [Record("event", "sglang.reject", line_number, {"too_long_rejections": 1.0}, timestamp, labels)]
        if ("KV Cache is allocated" in line or "max_total_num_tokens=" in line or "Load weight end" in line
                or "Memory pool end" in line):
            record = _capacity(line, line_number)
            if record is not None:
                return [record]
        return []

    def finish(self) -> list:
        if self.pending is None:
            return []
        line_number, line = self.pending
        self.pending = None
        return self.feed(line_number, line.rstrip().rstrip(",") + " ")  # the wrap's rest never came: the line alone


# Every line this parser reads in a streamed scan holds one of these (see read.py). `#retracted` covers both
# "Decode out of memory happened. #retracted_reqs" and "KV cache pool is full. Retract requests.
# #retracted_reqs".
MARKERS = (b"#running-req", b"#queue-req", b"#running_req", b"#remaining_req", b"#retracted", b"CUDA out of memory",
           b"Decode out of memory", b"Prefill out of memory", b"KV Cache is allocated", b"_total_num_tokens=",
           b"Memory pool end", b"Load weight end", b"Input length (")


# A LineParser carries no state across a line that does not ask for its next one (wants_next), so a big plain file
# may be read in two parts by two processes (read.py, _parallel_items) with the same result.
SPLITTABLE = True


class _GraphFlags(dict):
    """`cuda graph`'s value -> 1.0 when True (_TRUE), else 0.0: a dict lookup a row (C speed), not a function call."""

    def __missing__(self, value) -> float:
        return 1.0 if value in _TRUE else 0.0


_graph = _GraphFlags({"True": 1.0, b"True": 1.0, "False": 0.0, b"False": 0.0}).__getitem__


# Each layout's metrics as (name, group index, conversion): the same numbers as its metrics function, a column at a
# time (read.py's Windows).
_LAYOUT_COLUMNS = {
    _decode_graph_metrics: (("running_requests", 0, float), ("kv_cache_used_tokens", 1, float),
                            ("kv_cache_usage_fraction", 2, float), ("cuda_graph", 3, _graph),
                            ("generation_tokens_per_second", 4, float), ("waiting_requests", 5, float)),
    _decode_largest_metrics: (("running_requests", 0, float), ("kv_cache_used_tokens", 1, float),
                              ("kv_cache_usage_fraction", 2, float), ("generation_tokens_per_second", 3, float),
                              ("waiting_requests", 4, float)),
    _prefill_metrics: (("new_requests", 0, float), ("batch_tokens", 1, float), ("cached_tokens", 2, float),
                       ("kv_cache_usage_fraction", 3, float), ("running_requests", 4, float),
                       ("waiting_requests", 5, float)),
}


def _shape_builder(metrics, source: str):
    """The Record _batch makes of a batch line in this layout, from the layout's groups and the line's prefix; its
    `columns` makes many lines' at once from their groups as columns (a tuple a group) and their prefixes' matches:
    (stamps, sources, labels, metric columns)."""
    def build(groups, prefix: str, line_number: int) -> Record:
        timestamp, labels = _prefix(prefix)
        return new_record("interval", source, line_number, metrics(groups), timestamp, labels)

    def columns(fields: list, prefixes: list):
        stamps, labels = _prefix_stamps(prefixes)
        return stamps, [source] * len(stamps), labels, \
            {name: list(map(convert, fields[index])) for name, index, convert in _LAYOUT_COLUMNS[metrics]}

    build.columns = columns
    return build


# The usual batch lines, read by the reader straight from its block with no per-line Python (read.py,
# candidate_lines): (line prefix, rest of the line, builder), bytes patterns. A line matching both is exactly one
# that feed() reads with _LAYOUTS (the prefix, `[stamp TPn] `, holds no "batch"), that clean_line leaves as it is
# and that vllm.LineParser reads nothing from (tests/diagnose/test_fast_paths.py checks both).
_LINE_PREFIX = (_PREFIX.pattern + " ").encode()
LINE_SHAPES = tuple((_LINE_PREFIX, layout.pattern.encode(), _shape_builder(metrics, _SOURCES[kind]))
                    for kind, layouts in _LAYOUTS.items() for layout, metrics in layouts)


def parse(lines) -> Iterator[Record | Skipped]:
    return feed_all(LineParser(), lines)
