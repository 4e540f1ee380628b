"""vLLM server logs: the periodic stats line (V0 0.2–0.9, V1 with `Engine NNN:`), the spec-decoding line,
V0 preemption warnings and the startup capacity lines.

Fields are read by label, not by position, so the variants (Pending/Waiting, Swapped, trailing `.`,
`MM cache hit rate`, engine prefixes) need no template each. Line numbers inside `[file.py:N]` change every
release and are never matched.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from itertools import repeat
from operator import is_, mul

from inferledger.diagnose.failures import VLLM_NO_CACHE_MEMORY
from inferledger.diagnose.parsers._common import (
    BINARY_MEMORY,
    _fast_parts,
    feed_all,
    find_timestamp,
    minute_epoch,
    number,
    row_stamps,
)
from inferledger.diagnose.records import Record, Skipped, Unread, looks_like_metric, new_record, unread

NAME = "vllm"
_group = re.Match.group

_STATS = "Avg prompt throughput:"
_HANG = "No available shared memory broadcast block"
_START_FAILED = ("EngineCore failed to start", "Engine core initialization failed")  # V1's words, older and newer
_FIELD = re.compile(r"([A-Za-z][A-Za-z ]*): (-?\d+(?:\.\d+)?)")
_ENGINE = re.compile(r"Engine (\d+): *$")
_PROC = re.compile(r"\((\w+?)(?: pid=\d+)?\)")

# label as printed (lower case) -> (metric, scale). Percentages become fractions (the log line prints %).
_STATS_FIELDS = {
    "avg prompt throughput": ("prompt_tokens_per_second", 1.0),
    "avg generation throughput": ("generation_tokens_per_second", 1.0),
    "running": ("running_requests", 1.0),
    "swapped": ("swapped_requests", 1.0),
    # V0 `Pending` is the waiting queue, not swapped; V1 calls it `Waiting`.
    "pending": ("waiting_requests", 1.0),
    "waiting": ("waiting_requests", 1.0),
    "gpu kv cache usage": ("kv_cache_usage_fraction", 0.01),
    "cpu kv cache usage": ("cpu_kv_cache_usage_fraction", 0.01),
    "prefix cache hit rate": ("prefix_cache_hit_fraction", 0.01),
    "mm cache hit rate": ("mm_cache_hit_fraction", 0.01),
}
_SPEC_FIELDS = {
    "mean acceptance length": ("spec_mean_acceptance_length", 1.0),
    "accepted throughput": ("spec_accepted_tokens_per_second", 1.0),
    "drafted throughput": ("spec_drafted_tokens_per_second", 1.0),
    "accepted": ("spec_accepted_tokens", 1.0),
    "drafted": ("spec_drafted_tokens", 1.0),
    # V0's `Speculative metrics` (`System efficiency: 0.059, Number of speculative tokens: 16, …, Number of draft
    # tokens tokens: 42272`): read into the tokens a step (_spec_record)
    "system efficiency": ("spec_system_efficiency", 1.0),
    "number of speculative tokens": ("spec_tokens_a_step", 1.0),
    "number of draft tokens tokens": ("spec_drafted_tokens", 1.0),
}

_PREEMPT = re.compile(r"preempted by PreemptionMode\.(\w+).*?(?:total_num_cumulative_preemption=(\d+))?$")
# V0's memory profile says both on one line: `model weights take 34.43GiB; … the rest of the memory reserved for KV
# Cache is 0.13GiB.`
_WEIGHTS = re.compile(r"(?:Loading model weights took|Model loading took|model weights take) ([\d.]+) ?(MB|GB|GiB|MiB)"
                      r"(?: memory)?(?: and ([\d.]+) seconds)?")
# The start-up's load time where no size is printed with it (the download before it: launch.py, from the head).
_LOAD_SECONDS = re.compile(r"Loading weights took ([\d.]+) seconds")
# `# GPU blocks` (CUDA), or the device's name where a platform prints its own (`# cuda blocks`, `# npu blocks`).
_BLOCKS = re.compile(r"# (?:GPU|cuda|npu|xpu|hpu|tpu|neuron) blocks: ([\d,]*\d)(?:, # CPU blocks: ([\d,]*\d))?")
_NUM_BLOCKS = re.compile(r"num_gpu_blocks is: ([\d,]*\d)")
# Negative when the weights and the profiled activations already take more than the memory fraction allows.
_KV_MEMORY = re.compile(r"(?:Available KV cache memory:|reserved for KV Cache is) (-?[\d.]+) ?(GiB|GB|MiB|MB)")
_KV_TOKENS = re.compile(r"GPU KV cache size: ([\d,]*\d) tokens")
_MAX_CONC = re.compile(r"Maximum concurrency for ([\d,]*\d) tokens per request: ([\d.]+)x")
_PROFILE_KV = re.compile(r"kv_cache_size=([\d.]+)(GiB|GB)")
_SEQ_ERROR = re.compile(r"max seq len \((\d+)\) is larger than the maximum number of tokens that can be stored "
                        r"in KV cache \((\d+)\)")
_BLOCK_SIZE = re.compile(r"[Ss]etting attention block size to (\d+) tokens")
_TP = re.compile(r"tensor_parallel_size=(\d+)")
# `Chunked prefill is enabled with max_num_batched_tokens=2048.`: the tokens a step takes, a long prompt's chunk
_CHUNK = re.compile(r"Chunked prefill is enabled with max_num_batched_tokens=(\d+)")
# vLLM on Gaudi (vllm-fork's hpu_model_runner) builds a graph the first time it meets a batch shape it did not warm
# up: `Configuration: (decode, 1, 128) was not warmed-up!`, and the step that met it paid the compilation.
_UNWARMED = re.compile(r"Configuration: \((prompt|decode), (\d+), (\d+)\) was not warmed-up")


def unwarmed_event(line_number: int, line: str) -> Record | None:
    """An event Record for a shape that ran without its warm-up (vLLM on HPU), or None."""
    match = _UNWARMED.search(line)
    if match is None:
        return None
    return Record("event", "vllm.unwarmed", line_number, {"unwarmed_shapes": 1.0},
                  labels={"shape": f"{match.group(1)}, batch {match.group(2)}, length {match.group(3)}"})

_SNIFF_MARKERS = ("Avg prompt throughput", "Avg generation throughput", "is preempted by PreemptionMode",
                  "# GPU blocks:", "# cuda blocks:", "Maximum concurrency for", "SpecDecoding metrics", "Speculative metrics:",
                  "Model loading took", "Loading model weights took", "num_gpu_blocks is:", "GPU KV cache size:",
                  "Available KV cache memory:", "is larger than the maximum number of tokens that can be stored in KV",
                  "is too long and exceeds limit of", "which is larger than the available KV cache memory",
                  "No available memory for the cache blocks", "the rest of the memory reserved for KV Cache",
                  "exceeds available Mamba cache blocks", "while processing method determine_num_available_blocks",
                  "tokens/s, Running: ", "Loading weights took", "Time spent downloading weights for")


def sniff(head: str) -> float:
    hits = sum(1 for marker in _SNIFF_MARKERS if marker in head)
    if not hits:
        return 0.0
    return min(0.6 + 0.15 * hits, 0.95)


def _labels(prefix: str, year_assumed: bool, extra: dict | None = None) -> dict:
    labels = {"engine": "vllm"}
    if year_assumed:
        labels["timestamp_year_assumed"] = True
    proc = _PROC.search(prefix)
    if proc:
        labels["process"] = proc.group(1)
    if extra:
        labels.update(extra)
    return labels


# The shapes every release since 0.2 prints, read by one match; anything else goes the generic way.
_FAST = re.compile(
    r"Avg prompt throughput: (\d+(?:\.\d+)?) tokens/s, Avg generation throughput: (\d+(?:\.\d+)?) tokens/s, "
    r"Running: (\d+) reqs, (?:Swapped: (\d+) reqs, Pending|Waiting): (\d+) reqs, "
    r"GPU KV cache usage: (\d+(?:\.\d+)?)%(?:, CPU KV cache usage: (\d+(?:\.\d+)?)%"
    r"|, Prefix cache hit rate: (\d+(?:\.\d+)?)%(?:, MM cache hit rate: (\d+(?:\.\d+)?)%)?)?"
)
_LABEL_CACHE: dict = {}
# vLLM 0.1.0-0.1.1's scheduler printed one rate: the tokens its steps took in over the window, a prompt's tokens in a
# prompt step and one a sequence in a decode step (0.1.2 split it into the prompt and generation rates above). In a
# window of decode steps it is the generation rate; a window with a prompt step counts that prompt too.
_V01 = re.compile(
    r"\] Throughput: (\d+(?:\.\d+)?) tokens/s, Running: (\d+) reqs, Swapped: (\d+) reqs, Pending: (\d+) reqs, "
    r"GPU KV cache usage: (\d+(?:\.\d+)?)%(?:, CPU KV cache usage: (\d+(?:\.\d+)?)%)?")


def _stats_labels(prefix: str, year_assumed: bool, version: str) -> dict:
    proc = _PROC.search(prefix) if "(" in prefix else None
    engine = _ENGINE.search(prefix) if "Engine" in prefix else None
    return _labels_of(proc.group(1) if proc else None, engine.group(1) if engine else None, year_assumed, version)


def _labels_of(process: str | None, engine: str | None, year_assumed: bool, version: str) -> dict:
    # Labels repeat line after line: build each distinct set once and share it (records never mutate labels).
    key = (process, engine, year_assumed, version)
    labels = _LABEL_CACHE.get(key)
    if labels is None:
        labels = {"engine": "vllm", "version": version}
        if year_assumed:
            labels["timestamp_year_assumed"] = True
        if process:
            labels["process"] = process
        if engine is not None:
            labels["engine_index"] = int(engine)
        if len(_LABEL_CACHE) < 4096:
            _LABEL_CACHE[key] = labels
    return labels


_STAMP_LABELS: dict = {}  # (prefix without its seconds, version) -> (epoch of the minute, labels)
_OUTER_LABELS: dict = {}  # (prefix without its stamp's month..seconds, year_assumed, version) -> labels


def _stamp_and_labels(prefix: str, version: str):
    """find_timestamp(prefix) and _stats_labels(...) for a stats line's prefix. Consecutive prefixes differ only in
    the two digits of the seconds (`INFO 03-14 02:00:01 metrics.py:449] `): those are cut out for a cache key, the
    rest (minute, process, engine) is read once. Neither regex can match across `:SS`, so the key decides both."""
    colon = prefix.find(":")
    second = prefix[colon + 4: colon + 6]
    if colon >= 8 and prefix[colon + 3: colon + 4] == ":" and second.isdigit() and second.isascii() \
            and prefix[colon + 6: colon + 7] not in (".", ","):
        key = (prefix[:colon + 3], prefix[colon + 6:], version)
        hit = _STAMP_LABELS.get(key)
        if hit is not None:
            return hit[0] + int(second), hit[1]
        parts = _fast_parts(prefix)
        if parts is not None:  # the stamp is the one at `colon` (not one found further on)
            return _new_minute(prefix, colon, parts, key, version)
    timestamp, year_assumed = find_timestamp(prefix)
    return timestamp, _stats_labels(prefix, year_assumed, version)


def _new_minute(prefix: str, colon: int, parts, key: tuple, version: str):
    """_stamp_and_labels for the first line of a minute (1 stats line in 4 in a busy log): the minute's epoch from
    its digits and the labels from the text around the stamp, each cached on its own. The labels' regexes cannot
    match inside `MM-DD HH:MM:SS` (no parenthesis, no `Engine `), so the text around it decides them."""
    year, month, day, hour, minute, second, _fraction = parts  # no fraction: the caller saw none after `:SS`
    base = minute_epoch(year, month, day, hour, minute)
    year_assumed = base is not None and year is None
    outer = (prefix[:colon - 8], prefix[colon + 6:], year_assumed, version)
    labels = _OUTER_LABELS.get(outer)
    if labels is None:
        labels = _stats_labels(prefix, year_assumed, version)
        if len(_OUTER_LABELS) > 4096:  # bounded: constant memory on any log length
            _OUTER_LABELS.clear()
        _OUTER_LABELS[outer] = labels
    if base is None:
        return None, labels
    if len(_STAMP_LABELS) > 4096:
        _STAMP_LABELS.clear()
    _STAMP_LABELS[key] = (base, labels)
    return base + int(second), labels


def _window(groups, prefix: str, line_number: int) -> Record:
    """The Record of a stats line in a _FAST shape, from its groups (str, or bytes: float() reads both)."""
    prompt, generation, running, swapped, waiting, kv, cpu_kv, prefix_hit, mm_hit = groups
    metrics = {"prompt_tokens_per_second": float(prompt), "generation_tokens_per_second": float(generation),
               "running_requests": float(running), "waiting_requests": float(waiting),
               "kv_cache_usage_fraction": float(kv) * 0.01}
    if swapped is not None:
        metrics["swapped_requests"] = float(swapped)
    if cpu_kv is not None:
        metrics["cpu_kv_cache_usage_fraction"] = float(cpu_kv) * 0.01
    if prefix_hit is not None:
        metrics["prefix_cache_hit_fraction"] = float(prefix_hit) * 0.01
    if mm_hit is not None:
        metrics["mm_cache_hit_fraction"] = float(mm_hit) * 0.01
    timestamp, labels = _stamp_and_labels(prefix, "v0" if swapped is not None else "v1")
    return new_record("interval", "vllm.stats", line_number, metrics, timestamp, labels)


def _v01_window(match: re.Match, prefix: str, line_number: int) -> Record:
    """The Record of a vLLM 0.1 scheduler line (_V01): its one rate as the generation rate, marked so."""
    throughput, running, swapped, waiting, kv, cpu_kv = match.groups()
    metrics = {"generation_tokens_per_second": float(throughput), "running_requests": float(running),
               "swapped_requests": float(swapped), "waiting_requests": float(waiting),
               "kv_cache_usage_fraction": float(kv) * 0.01}
    if cpu_kv is not None:
        metrics["cpu_kv_cache_usage_fraction"] = float(cpu_kv) * 0.01
    timestamp, year_assumed = find_timestamp(prefix)
    labels = dict(_stats_labels(prefix, year_assumed, "v0.1"), rate="prompt and generation tokens together")
    return Record("interval", "vllm.stats", line_number, metrics, timestamp, labels)


def _optional(column, scale: float | None) -> list:
    if None not in column:
        return list(map(float, column)) if scale is None else list(map(mul, map(float, column), repeat(scale)))
    return [None if value is None else float(value) if scale is None else float(value) * scale for value in column]


def _window_columns(fields: list, prefixes: list):
    """_window for many stats lines at once (read.py's Windows) from their groups as columns (one tuple a group) and
    their prefixes' matches: (stamps, sources, labels, metric columns), each number made as _window makes it, by
    maps (no Python step a line); a field some lines lack is None there."""
    prompt, generation, running, swapped, waiting, kv, cpu_kv, prefix_hit, mm_hit = fields
    metrics = {"prompt_tokens_per_second": list(map(float, prompt)),
               "generation_tokens_per_second": list(map(float, generation)),
               "running_requests": list(map(float, running)), "waiting_requests": list(map(float, waiting)),
               "kv_cache_usage_fraction": _optional(kv, 0.01)}
    for name, column, scale in (("swapped_requests", swapped, None), ("cpu_kv_cache_usage_fraction", cpu_kv, 0.01),
                                ("prefix_cache_hit_fraction", prefix_hit, 0.01),
                                ("mm_cache_hit_fraction", mm_hit, 0.01)):
        if column.count(None) != len(column):
            metrics[name] = _optional(column, scale)
    stamps, labels = _prefix_stamps(prefixes, swapped)
    return stamps, ["vllm.stats"] * len(stamps), labels, metrics


_ROW_HOURS: dict = {}  # (_LINE_PREFIX's groups to the hour and the engine, V1 or not) -> (epoch of the hour, labels)


def _hour_of(key: tuple) -> tuple:
    """(epoch of the hour or None when it is not a date, labels) for _ROW_HOURS' key (bytes groups; V1 or not)."""
    (process, year, month, day, hour, engine), is_v1 = key
    base = minute_epoch(year.decode() if year else None, month.decode(), day.decode(), hour.decode(), "00")
    return base, _labels_of(process.decode() if process else None, engine.decode() if engine else None,
                            base is not None and year is None, "v1" if is_v1 else "v0")


def _prefix_stamps(prefixes: list, swapped) -> tuple[list, list]:
    """(stamps, labels) of stats lines from their prefixes' _LINE_PREFIX matches (bytes groups) and their Swapped
    fields (None in V1): what _stamp_and_labels reads from the prefix text, the hour's epoch and the labels looked
    up once an hour (hour_stamps), by maps over the columns. The prefix names one stamp (the first): its groups are
    the one find_timestamp finds."""
    hour_keys = map(_group, prefixes, repeat(1), repeat(2), repeat(3), repeat(4), repeat(5), repeat(9))
    keys = list(zip(hour_keys, map(is_, swapped, repeat(None)), strict=True))
    return row_stamps(keys, _ROW_HOURS, _hour_of, prefixes, 6)


_window.columns = _window_columns


# A terminal's wrap kept in a paste as padding inside a word (`Avg generation thr                        oughput`): a
# stats line has no run of spaces of its own, so such a run between letters is taken out.
_WRAP_PADDING = re.compile(r"(?<=[A-Za-z]) {8,}(?=[a-z])")


def _stats_record(segment: str, prefix: str, line_number: int) -> Record | None:
    match = _FAST.match(segment)
    if match is None and "        " in segment:
        segment = _WRAP_PADDING.sub("", segment)
        match = _FAST.match(segment)
    if match is not None:
        return _window(match.groups(), prefix, line_number)
    metrics = {}
    for label, value in _FIELD.findall(segment):
        known = _STATS_FIELDS.get(label.strip().lower())
        if known:
            metrics[known[0]] = float(value) * known[1]
    # A stats line always ends with the GPU KV usage (V0: then CPU usage, V1: then prefix hit rate); without it
    # the line was cut or wrapped.
    if "kv_cache_usage_fraction" not in metrics or "generation_tokens_per_second" not in metrics:
        return None
    timestamp, year_assumed = find_timestamp(prefix)
    labels = _stats_labels(prefix, year_assumed, "v0" if ("Swapped" in segment or "Pending" in segment) else "v1")
    return Record("interval", "vllm.stats", line_number, metrics, timestamp, labels)


def _spec_record(line: str, line_number: int) -> Record | None:
    start = line.find("metrics:")
    prefix, body = line[:start], line[start:]
    metrics = {}
    for label, value in _FIELD.findall(body):
        label = label.strip().lower()
        if label.endswith("draft acceptance rate"):
            # V1 prints a percentage; V0 `Speculative metrics` prints a ratio 0..1.
            metrics["spec_acceptance_fraction"] = float(value) / 100 if "SpecDecoding" in line else float(value)
        elif label in _SPEC_FIELDS:
            name, scale = _SPEC_FIELDS[label]
            metrics[name] = float(value) * scale
    efficiency, drafts = metrics.pop("spec_system_efficiency", None), metrics.pop("spec_tokens_a_step", None)
    if efficiency is not None and drafts and "spec_mean_acceptance_length" not in metrics:
        # V0's `System efficiency` is the tokens a step emits over the k + 1 it could: × (k + 1), the tokens a step
        # (the mean acceptance length V1 prints)
        metrics["spec_mean_acceptance_length"] = efficiency * (drafts + 1)
    if not metrics:
        return None
    timestamp, year_assumed = find_timestamp(prefix)
    return Record("interval", "vllm.spec", line_number, metrics, timestamp, _labels(prefix, year_assumed))


def _capacity(line: str, line_number: int) -> Iterator[Record]:
    metrics = {}
    match = _WEIGHTS.search(line)
    if match:
        metrics["weights_bytes"] = float(match.group(1)) * BINARY_MEMORY[match.group(2)]
        if match.group(3):
            metrics["weights_load_seconds"] = float(match.group(3))
    elif match := _LOAD_SECONDS.search(line):
        metrics["weights_load_seconds"] = float(match.group(1))
    match = _BLOCKS.search(line)
    if match:
        metrics["gpu_blocks"] = number(match.group(1))
        if match.group(2):
            metrics["cpu_blocks"] = number(match.group(2))
    match = _NUM_BLOCKS.search(line)
    if match:
        metrics["gpu_blocks"] = number(match.group(1))
    match = _KV_MEMORY.search(line) or _PROFILE_KV.search(line)
    if match:
        metrics["kv_cache_bytes"] = float(match.group(1)) * BINARY_MEMORY[match.group(2)]
    match = _KV_TOKENS.search(line)
    if match:
        metrics["kv_cache_tokens"] = number(match.group(1))
    match = _MAX_CONC.search(line)
    if match:
        metrics["max_model_len_tokens"] = number(match.group(1))
        metrics["max_concurrency_at_length"] = float(match.group(2))
    match = _BLOCK_SIZE.search(line)
    if match:
        metrics["block_size_tokens"] = float(match.group(1))
    match = _CHUNK.search(line)
    if match:
        metrics["chunked_prefill_tokens"] = float(match.group(1))
    match = _TP.search(line)
    if match:
        metrics["tensor_parallel_size"] = float(match.group(1))
    match = _INIT.search(line)
    if match:
        metrics["engine_start_seconds"] = float(match.group(1))
    match = _SEQ_ERROR.search(line)
    if match:
        metrics["max_model_len_tokens"] = float(match.group(1))
        metrics["kv_cache_tokens"] = float(match.group(2))
    if not metrics:
        return
    timestamp, year_assumed = find_timestamp(line[:80])
    labels = _labels(line[:80], year_assumed)
    yield Record("capacity", "vllm.startup", line_number, metrics, timestamp, labels)
    if metrics.get("kv_cache_bytes", 1.0) <= 0:  # no memory at all left for the cache: the engine cannot start
        yield Record("event", "vllm.startup", line_number, {"kv_start_refusals": 1.0}, timestamp, labels)
    if match:  # the max-seq-len error: the engine refused to start
        yield Record("event", "vllm.startup", line_number, {"errors": 1.0}, timestamp,
                     dict(labels, error="max_model_len larger than KV cache"))


_PREFIX_V0 = re.compile(r"Prefix cache hit rate: GPU: (\d+(?:\.\d+)?)%, CPU: (\d+(?:\.\d+)?)%")
_CONFIG_MODEL = re.compile(r"\bmodel='([^']+)'")
_PREFIX_FLAG = re.compile(r"enable_prefix_caching=(True|False)")
_CONFIG_MAX_LEN = re.compile(r"\bmax_seq_len=(\d+)")
_PROMPT_TOO_LONG = re.compile(r"Input prompt \((\d+) tokens\) is too long and exceeds limit of (\d+)")
_INIT = re.compile(r"init engine \(.*?\) took ([\d.]+) seconds")


def _prefix_cache_record(line: str, line_number: int) -> Record | Unread:
    """V0 (0.6-0.9) prints the prefix cache hit rates on a line of their own after the stats line."""
    match = _PREFIX_V0.search(line)
    if match is None:
        return unread(line_number, line, "vllm")
    timestamp, year_assumed = find_timestamp(line[:80])
    labels = _labels(line[:80], year_assumed, {"prefix_caching": "on"})
    return Record("interval", "vllm.prefix-cache", line_number,
                  {"prefix_cache_hit_fraction": float(match.group(1)) * 0.01,
                   "cpu_prefix_cache_hit_fraction": float(match.group(2)) * 0.01}, timestamp, labels)


def _engine_config(line: str, line_number: int) -> Iterator[Record]:
    """`Initializing a V1 LLM engine (v0.x) with config: model='…', …`: the model the log names, its parallelism and
    whether prefix caching is on (the hardware comparison and the advice read them)."""
    metrics = {}
    match = _TP.search(line)
    if match:
        metrics["tensor_parallel_size"] = float(match.group(1))
    match = _CONFIG_MAX_LEN.search(line)
    if match:
        metrics["max_model_len_tokens"] = float(match.group(1))  # the longest request the engine must hold
    labels = _labels(line[:80], False)
    labels.pop("timestamp_year_assumed", None)
    match = _CONFIG_MODEL.search(line)
    if match:
        labels["model"] = match.group(1)
    match = _PREFIX_FLAG.search(line)
    if match:
        labels["prefix_caching"] = "on" if match.group(1) == "True" else "off"
    yield Record("capacity", "vllm.config", line_number, metrics, None, labels)


def _stats(line: str, line_number: int) -> Iterator[Record | Skipped]:
    # Two records glued on one line split at each stats start; the text before each start is its prefix.
    parts = line.split(_STATS)
    prefix = parts[0]
    for body in parts[1:]:
        record = _stats_record(_STATS + body, prefix, line_number)
        if record is None:
            yield Skipped(line_number, "vLLM stats line without the GPU KV cache usage field (cut or wrapped?)",
                          "vllm.stats")
        else:
            yield record
        # The tail of this segment may be the next glued line's prefix (`INFO 01-22 18:27:25 metrics.py:449]`).
        prefix = body


class LineParser:
    """Push-style parser: the reader feeds it only the lines holding one of MARKERS (plus the line after one
    that wants_next), so a multi-GB log costs one C-speed scan, not a Python loop per line."""

    def __init__(self):
        # (line_number, text, last line number, pieces) of a stats line that looked cut: try it joined with the next
        self.pending = None

    def feed(self, line_number: int, line: str) -> list:
        start = line.find(_STATS)
        if start >= 0 and self.pending is None and line.find(_STATS, start + 1) < 0 \
                and ((line[-1:] == "%" and "KV cache usage" in line) or not wants_next(line)):
            # The usual case, first: one complete stats line, nothing pending (the same as the branch below).
            record = _stats_record(line[start:], line[:start], line_number)
            return [record if record is not None else Skipped(
                line_number, "vLLM stats line without the GPU KV cache usage field (cut or wrapped?)", "vllm.stats")]
        out = []
        if self.pending is not None:
            first_number, first_text, last_number, pieces = self.pending
            self.pending = None
            if line_number == last_number + 1 and _STATS not in line:
                # Terminal hard-wraps split words (`throug\nhput`, `r\neqs`): join without a separator.
                if pieces == 1 and "%" in line:
                    joined = list(_stats(first_text + line, first_number))
                    if joined and all(type(item) is Record for item in joined):
                        return joined
                # A page or mail wrapped at words, over several lines, perhaps with blank lines between.
                if pieces < _MOST_PIECES and (not line.strip() or _PIECE.match(line)):
                    text = _joined(first_text, line)
                    if not line.strip() or wants_next(text) or text.endswith(","):
                        self.pending = (first_number, text, line_number, pieces + 1)
                        return out
                    joined = list(_stats(text, first_number))
                    if joined and all(type(item) is Record for item in joined):
                        return joined
            out.append(_cut_line(first_number, first_text))
        if start >= 0:
            if not (line[-1:] == "%" and "KV cache usage" in line) and wants_next(line):
                self.pending = (line_number, line, line_number, 1)
                return out
            if line.count(_STATS) == 1:  # the usual case: no glued records, no generator
                start = line.find(_STATS)
                record = _stats_record(line[start:], line[:start], line_number)
                out.append(record if record is not None else Skipped(
                    line_number, "vLLM stats line without the GPU KV cache usage field (cut or wrapped?)",
                    "vllm.stats"))
            else:
                out.extend(_stats(line, line_number))
        elif "tokens/s, Running: " in line and (match := _V01.search(line)):
            out.append(_v01_window(match, line[:match.start() + 1], line_number))
        elif "metrics:" in line and ("SpecDecoding metrics" in line or "Speculative metrics" in line):
            record = _spec_record(line, line_number)
            out.append(record if record is not None else
                       Skipped(line_number, "vLLM spec-decoding line without numbers", "vllm.spec"))
        elif "was not warmed-up" in line and (record := unwarmed_event(line_number, line)) is not None:
            out.append(record)
        elif "PreemptionMode" in line and ("preempted" in line or line.lstrip().startswith("PreemptionMode.")):
            # (the warning wrapped before its `PreemptionMode.RECOMPUTE mode because there is not enough KV cache`)
            match = _PREEMPT.search(line)
            timestamp, year_assumed = find_timestamp(line[:80])
            metrics = {"preemptions": 1.0}
            labels = _labels(line[:80], year_assumed)
            if match:
                labels["mode"] = match.group(1).lower()
                if match.group(2):
                    metrics["preemptions_total"] = float(match.group(2))
            out.append(Record("event", "vllm.preemption", line_number, metrics, timestamp, labels))
        elif "is too long and exceeds limit of" in line and (match := _PROMPT_TOO_LONG.search(line)):
            # V0's scheduler ignores a prompt over its limit (max_num_batched_tokens or the model length): the
            # request finishes at once with no output.
            timestamp, year_assumed = find_timestamp(line[:80])
            out.append(Record("event", "vllm.scheduler", line_number, {"prompts_over_limit": 1.0}, timestamp,
                              _labels(line[:80], year_assumed, {"limit_tokens": match.group(2)})))
        elif (any(words in line for words in VLLM_NO_CACHE_MEMORY)
              or "exceeds available Mamba cache blocks" in line
              or "while processing method determine_num_available_blocks" in line):
            # The engine refuses to start. V0: after the weights and the profiled activations no memory is left for
            # one cache block (gpu_memory_utilization too low for the model, or another process holding the card);
            # V1: one request of the configured max length needs more cache than the memory left. (Its words from
            # `is needed` on: a terminal's wrap may cut `KV cach` / `e is needed` off the line before.) A hybrid
            # model's `max_num_seqs (1024) exceeds available Mamba cache blocks (939)`: one state block a sequence,
            # and the memory left holds fewer than the configured sequences. V0's worker raising in
            # determine_num_available_blocks died in the profile run that measures the memory left for the cache
            # (a worst-case batch's activations, a multimodal model's maximum images, not fitting beside the weights).
            timestamp, year_assumed = find_timestamp(line[:80])
            out.append(Record("event", "vllm.startup", line_number, {"kv_start_refusals": 1.0}, timestamp,
                              _labels(line[:80], year_assumed)))
        elif any(words in line for words in _START_FAILED):
            # The engine died while starting; which step it died at is told by the capacity lines around it
            # (rules_state: between measuring the KV memory and sizing the cache, the cache did not fit).
            timestamp, year_assumed = find_timestamp(line[:80])
            out.append(Record("event", "vllm.startup", line_number, {"engine_start_failures": 1.0}, timestamp,
                              _labels(line[:80], year_assumed)))
        elif _HANG in line:
            # The engine core found no free broadcast block for a minute: its workers stopped taking steps (a hang,
            # a crash, or a long compilation), the engine's own words for a stall.
            timestamp, year_assumed = find_timestamp(line[:80])
            out.append(Record("event", "vllm.hang", line_number, {"worker_waits": 1.0}, timestamp,
                              _labels(line[:80], year_assumed)))
        elif "Prefix cache hit rate: GPU" in line:
            out.append(_prefix_cache_record(line, line_number))
        elif "with config:" in line and "model=" in line:
            out.extend(_engine_config(line, line_number))
        elif ("took" in line or "blocks" in line or "KV cache" in line or "KV Cache is" in line or "concurrency" in line
              or "kv_cache_size=" in line or "max seq len" in line or "block size" in line
              or "tensor_parallel_size=" in line or "max_num_batched_tokens=" in line):
            out.extend(_capacity(line, line_number))
            if not out and looks_like_metric(line) and any(marker in line for marker in _MARKER_TEXT):
                out.append(unread(line_number, line, "vllm"))  # one of ours, with numbers no reader took
        return out

    def finish(self) -> list:
        if self.pending is not None:
            number, text, _last, _pieces = self.pending
            self.pending = None
            return [_cut_line(number, text)]
        return []


_KV_COMPLETE = re.compile(r"GPU KV cache usage: \d+(?:\.\d+)?%")
# A field of a cut line proven whole by the unit after its number (`273.8 tokens/s`, `1 reqs`, `57.9%`).
_WHOLE_FIELD = re.compile(r"([A-Za-z][A-Za-z ]*): (-?\d+(?:\.\d+)?)(?: tokens/s| reqs|%)")


def _cut_line(line_number: int, text: str) -> Record | Skipped:
    """A stats line cut and not continued (a paste that ends mid-line): its record when every field up to the GPU KV
    usage is whole (the `%` after it proves that number complete); else the fields before the cut that their unit
    proves whole, when they hold the generation rate (a window marked cut: no KV field, perhaps no batch); a Skipped
    otherwise."""
    start = text.find(_STATS)
    if start < 0 or text.count(_STATS) != 1:
        return Skipped(line_number, "vLLM stats line cut before the GPU KV cache usage field", "vllm.stats")
    if _KV_COMPLETE.search(text, start):
        record = _stats_record(text[start:], text[:start], line_number)
        if record is not None:
            return record
    metrics = {}
    for label, value in _WHOLE_FIELD.findall(text, start):
        known = _STATS_FIELDS.get(label.strip().lower())
        if known:
            metrics[known[0]] = float(value) * known[1]
    if "generation_tokens_per_second" in metrics:
        timestamp, year_assumed = find_timestamp(text[:start])
        version = "v0" if "Swapped" in text or "Pending" in text else "v1"
        labels = dict(_stats_labels(text[:start], year_assumed, version), truncated="cut before the GPU KV cache usage")
        return Record("interval", "vllm.stats", line_number, metrics, timestamp, labels)
    return Skipped(line_number, "vLLM stats line cut before the GPU KV cache usage field", "vllm.stats")


_MOST_PIECES = 12  # a stats line wrapped at words on a page: ten fields, a blank line or two between
# A piece of a stats line wrapped at words (`tokens/s, Avg generation throughput: 151.9 tokens/s,`, `usage: 99.4%,
# CPU KV cache usage: 0.0%.`): it starts with a field's words or unit.
_PIECE = re.compile(r"\s*(?:tokens/s|reqs|usage:|Avg generation throughput|Running:|Swapped:|Pending:|Waiting:"
                    r"|GPU KV cache|CPU KV cache|Prefix cache hit rate|MM cache hit rate)")
# Words of the stats line a terminal's hard wrap may split (`throug` + `hput`): joined without a space.
_STATS_WORDS = frozenset(word for label in (*_STATS_FIELDS, "tokens/s", "reqs") for word in label.split()) | {"tokens"}


def _joined(text: str, line: str) -> str:
    """A wrapped stats line's text with its next piece: a space where the wrap fell between words (after `,` or a
    number, or before a capital), none where it split one of the line's words."""
    piece = line.strip()
    if not piece:
        return text
    head = text.rstrip()
    tail = head[len(head.rstrip("abcdefghijklmnopqrstuvwxyz")):]
    lead = piece[:len(piece) - len(piece.lstrip("abcdefghijklmnopqrstuvwxyz"))]
    if tail and lead and (tail + lead).lower() in _STATS_WORDS:
        return head + piece
    return head + " " + piece


def wants_next(line: str) -> bool:
    """A stats line that stops before its last field was probably wrapped: the reader also sends the next line (and
    after a piece of such a line, or a blank line, the one after it)."""
    if _STATS not in line:
        if not line.strip():
            return True
        return _PIECE.match(line) is not None and not line.rstrip().endswith(("%", "%."))
    if line[-1:] == "%" and "KV cache usage" in line:
        return False
    # "KV cache usage" after the last stats start, and the line ends with `%` before any `.`/` ` (V0 ends `%.`).
    if line.find("KV cache usage", line.rfind(_STATS) + len(_STATS)) < 0:
        return True
    if line[-2:] == "%.":
        return False
    return not line.rstrip(". ").endswith("%")


# Every line this parser reads in a streamed scan holds one of these (bytes, matched before decoding); the
# reader's single compiled pattern skips everything else at C speed. Lines outside them (e.g. the engine config
# line with tensor_parallel_size) are read only when a pull-style pass gives every line.
MARKERS = (b"Avg prompt throughput:", b"KV cache usage:", b"SpecDecoding metrics", b"No available shared memory broadcast block", b"Speculative metrics", b"PreemptionMode",
           b"# GPU blocks", b"# cuda blocks", b"# npu blocks", b"_gpu_blocks", b"KV cache size", b"KV cache memory", b"KV cache (",
           b"Maximum concurrency", b"KV Cache is", b"Model loading took", b"Loading model weights took", b"Memory profiling",
           b"Loading weights took",
           b"Setting attention block size", b"Prefix cache hit rate: GPU", b"LLM engine (v", b"LLM engine with config",
           b"Configuration: (", b"Input prompt (", b"KV cache is needed", b"No available memory for the cache",
           b"Mamba cache blocks", b"Exception in worker", b"Chunked prefill is enabled with",
           *(words.encode() for words in _START_FAILED))
# Markers start with an upper-case letter or a sign where they can: the scan's regex first tests a character set of
# the markers' first bytes, and common lower-case letters would stop it at nearly every byte of a noise line.


_MARKER_TEXT = tuple(marker.decode() for marker in MARKERS)
# A LineParser carries no state across a line that does not ask for its next one (wants_next), so a big plain file
# may be read in two parts by two processes (read.py, _parallel_items) with the same result.
SPLITTABLE = True

# The usual stats line, read by the reader straight from its block with no per-line Python (read.py,
# candidate_lines): (line prefix, rest of the line, builder), bytes patterns. A line matching both is exactly one
# that feed() reads with _FAST: one stats start, ending in `%` or `%.` (so it never asks for the next line), a
# stamped engine prefix that clean_line leaves as it is and that sglang.LineParser reads nothing from
# (tests/diagnose/test_fast_paths.py checks these).
# Its groups (process, year, month, day, hour, minute, second, fraction, engine) are what _prefix_stamps reads.
_LINE_PREFIX = rb"(?:\((\w+)(?: pid=\d+)?\) )?[A-Z]+ (?:(\d{4})-)?(\d\d)-(\d\d) (\d\d):(\d\d):(\d\d)(?:[.,](\d+))? " \
               rb"\[?[\w.]+:\d+\] (?:Engine (\d+): )?"
LINE_SHAPES = ((_LINE_PREFIX, _FAST.pattern.encode() + rb"\.?", _window),)


def parse(lines) -> Iterator[Record | Skipped]:
    return feed_all(LineParser(), lines)
