"""ollama output: the `ollama run --verbose` block, API JSON responses, and the server log
(Go slog `key=value` lines with the scheduler's memory and offload figures, GIN access lines).

Units differ by surface: `--verbose` prints Go duration strings (`891.933µs`, `847ms`, `2m7.682s`), the API
gives integer nanoseconds, GIN access lines Go durations truncated to whole seconds above a minute, and memory
figures are binary units (`42.2 GiB`, `974.6 MiB`) or plain bytes (`available=84100120576`).
"""

from __future__ import annotations

import calendar
import re
from collections.abc import Iterator
from datetime import datetime
from typing import NamedTuple

from inferledger.diagnose.parsers._common import minute_epoch
from inferledger.diagnose.parsers.bench_common import json_number
from inferledger.diagnose.parsers.json_stream import DAMAGED_ELEMENTS, JsonCollector
from inferledger.diagnose.records import Record, Skipped, looks_like_metric, unread

NAME = "ollama"

_GO_PART = re.compile(r"(\d+(?:\.\d+)?)(ns|us|µs|μs|ms|h|m|s)")
_GO_SECONDS = {"ns": 1e-9, "us": 1e-6, "µs": 1e-6, "μs": 1e-6, "ms": 1e-3, "s": 1.0, "m": 60.0, "h": 3600.0}
# The value may come wrapped in Markdown emphasis when pasted into an issue (`eval rate: **13.08 tokens/s**`).
# Front-ends that show ollama's numbers title-case the labels and spell durations out (`Prompt Eval Duration: 0h, 0m,
# 3s`, ollama-grid-search): the same fields, the parts of the duration joined back into a Go duration.
_VERBOSE = re.compile(r"^\s*(total duration|load duration|prompt eval count|prompt eval duration|prompt eval rate|"
                      r"eval count|eval duration|eval rate):\s*[*_]*((?:\d+(?:\.\d+)?[hms], )*[^\s*_]+)",
                      re.IGNORECASE)
_SIZE = re.compile(r"([\d.]+)\s*(B|KiB|MiB|GiB|TiB|KB|MB|GB|TB)\b")
_SIZE_FACTOR = {"B": 1, "KiB": 2**10, "MiB": 2**20, "GiB": 2**30, "TiB": 2**40, "KB": 1e3, "MB": 1e6, "GB": 1e9,
                "TB": 1e12}
_PAIR = re.compile(r'([\w.]+)=("(?:[^"\\]|\\.)*"|\S+)')
# The client's address may be blank or replaced by words (scrubbed before pasting): its cell is whatever it holds.
_GIN = re.compile(r"\[GIN\]\s*(\d{4}/\d\d/\d\d - \d\d:\d\d:\d\d)\s*\|\s*(\d{3})\s*\|\s*(\S+)\s*\|([^|]*)\|"
                  r"\s*(\w+)\s+\"?([^\"\s]+)")
_FLAG = re.compile(r"--(ctx-size|parallel|n-gpu-layers)\s+(\d+)")


def go_duration_seconds(text: str) -> float | None:
    """A Go duration string in seconds: '2m7.682s' -> 127.682, '891.933µs' -> 0.000891933; None if unreadable."""
    text = text.strip()
    parts = _GO_PART.findall(text)
    if not parts or "".join(number + unit for number, unit in parts) != text:
        return None
    return sum(float(number) * _GO_SECONDS[unit] for number, unit in parts)


def _size_bytes(text: str) -> float | None:
    match = _SIZE.search(text)
    if match is None:
        return None
    return float(match.group(1)) * _SIZE_FACTOR[match.group(2)]


_NANOS = re.compile(r"(\.\d{6})\d+")


def _timestamp(value: str) -> float | None:
    """slog `time=2024-09-03T06:16:48.144Z` (RFC 3339 with offset) as Unix seconds; nanosecond fractions (the API's
    created_at) are cut to microseconds."""
    try:
        return datetime.fromisoformat(_NANOS.sub(r"\1", value).replace("Z", "+00:00")).timestamp()
    except ValueError:
        return None


# One streamed chunk of /api/chat or /api/generate per line: ollama sends one token per chunk, stamped created_at.
_CHUNK = re.compile(r'"created_at"\s*:\s*"([^"]+)".*"done"\s*:\s*false')
MIN_STREAM_CHUNKS = 3  # two gaps at least: one gap alone may hold the prompt's time


class _Stream:
    """The chunks of one streamed response: their stamps give the time per output token of the stream."""

    def __init__(self, line_number: int, model: str | None):
        self.line_number = line_number
        self.model = model
        self.stamps: list[float] = []

    def record(self) -> Record | None:
        stamps = self.stamps
        if len(stamps) < MIN_STREAM_CHUNKS or stamps[-1] <= stamps[0]:
            return None
        span = stamps[-1] - stamps[0]
        labels = dict(_LABELS, surface="api-stream", tpot_definition="gap between streamed chunks (one token each)")
        if self.model:
            labels["model"] = self.model
        return Record("request", "ollama.stream", self.line_number,
                      {"tpot_seconds": span / (len(stamps) - 1), "decode_seconds": span,
                       "output_tokens": float(len(stamps))}, stamps[0], labels)


class _Verbose:
    """The `--verbose` block: eight `label: value` lines, emitted when the block ends."""

    def __init__(self, line_number: int):
        self.line_number = line_number
        self.metrics: dict = {}
        self.seen: set = set()


# `--verbose` label -> (metric, kind of value)
_VERBOSE_FIELDS = {
    "total duration": ("e2e_seconds", "duration"),  # includes load_duration (ollama's total)
    "load duration": ("load_seconds", "duration"),
    "prompt eval count": ("input_tokens", "count"),
    "prompt eval duration": ("prefill_seconds", "duration"),
    "prompt eval rate": ("prompt_tokens_per_second", "count"),
    "eval count": ("output_tokens", "count"),
    "eval duration": ("decode_seconds", "duration"),
    "eval rate": ("generation_tokens_per_second", "count"),
}
# Benchmark scripts that average ollama's --verbose fields over their prompts (MinhNgyuen/llm-benchmark's `Average
# stats:` block, `Prompt eval: 690.15 t/s` … `Response time: 14.76s`; LarHope's ollama-benchmark names them `Prompt
# Processing`, `Generation Speed`, `Generated Tokens`, `Generation Time`): a label of theirs -> the --verbose label.
# The rates come first there, the counts and times after, so a block ends only where its next one starts.
_AVERAGE = re.compile(r"^\s*(prompt eval|response|prompt processing|generation speed|prompt tokens|input tokens|"
                      r"response tokens|generated tokens|model load time|prompt eval time|processing time|"
                      r"response time|generation time|total time):\s*(\d+(?:\.\d+)?)\s*(t/s|tokens/sec|s)?\s*$",
                      re.IGNORECASE)
_AVERAGE_FIELDS = {"prompt eval": "prompt eval rate", "prompt processing": "prompt eval rate",
                   "response": "eval rate", "generation speed": "eval rate",
                   "prompt tokens": "prompt eval count", "input tokens": "prompt eval count",
                   "response tokens": "eval count", "generated tokens": "eval count",
                   "model load time": "load duration", "prompt eval time": "prompt eval duration",
                   "processing time": "prompt eval duration", "response time": "eval duration",
                   "generation time": "eval duration", "total time": "total duration"}
_LABELS = {"engine": "ollama",
           "e2e_definition": "total duration includes model load",
           "input_tokens_definition": "prompt tokens evaluated; cached prompt tokens are not counted"}
# API JSON keys (integer nanoseconds for durations).
_API_FIELDS = {"total_duration": ("e2e_seconds", 1e-9), "load_duration": ("load_seconds", 1e-9),
               "prompt_eval_count": ("input_tokens", 1.0), "prompt_eval_duration": ("prefill_seconds", 1e-9),
               "eval_count": ("output_tokens", 1.0), "eval_duration": ("decode_seconds", 1e-9),
               "prompt_eval_cached_count": ("cached_tokens", 1.0)}


# A field of the final chunk whose value the text proves whole: a `,` or the object's `}` after its digits.
_API_FIELD = re.compile(r'"(' + "|".join(_API_FIELDS) + r')"\s*:\s*(\d+(?:\.\d+)?)\s*[,}]')


def _api_fragment(line_number: int, text: str) -> Record | None:
    """The final chunk's timings from a fragment no JSON reader takes (a paste that starts inside the object, or
    ends inside it): each field whose number is whole, when they hold the generated tokens or the total."""
    item = {key: float(value) for key, value in _API_FIELD.findall(text)}
    if "eval_count" not in item and "total_duration" not in item:
        return None
    return next(_api_record(line_number, item, True), None)


def _api_record(line_number: int, value, truncated: int, text: str = "") -> Iterator:
    if value is None:
        record = _api_fragment(line_number, text)
        yield record if record is not None else Skipped(line_number, "ollama API JSON that could not be read",
                                                        "ollama")
        return
    if truncated == DAMAGED_ELEMENTS:
        yield Skipped(line_number, "ollama API JSON array element damaged inside: dropped, the others read", "ollama")
    items = value if isinstance(value, list) else [value]
    for item in items:
        if not isinstance(item, dict) or "eval_count" not in item and "total_duration" not in item:
            continue  # a streamed chunk before the final one (done=false) carries no timings
        metrics = {}
        for key, (metric, factor) in _API_FIELDS.items():
            number = json_number(item.get(key))
            if number is not None:
                metrics[metric] = number * factor
        _add_rates(metrics)
        if not metrics:
            continue
        labels = dict(_LABELS, surface="api-json", rates="derived here: count ÷ duration")
        if isinstance(item.get("model"), str):
            labels["model"] = item["model"]
        if truncated:
            labels["truncated"] = "true"
        timestamp = _timestamp(item["created_at"]) if isinstance(item.get("created_at"), str) else None
        yield Record("request", "ollama.api", line_number, metrics, timestamp, labels)


def _add_rates(metrics: dict) -> None:
    """Rates as `ollama run --verbose` prints them (count ÷ duration), for the API, which gives only the parts; and
    the time per output token, eval duration ÷ eval count (ollama prints no TPOT; its eval count excludes the
    first token's prompt eval, so this is decode time per generated token). A block pasted without its eval duration
    gives it as count ÷ rate, so the parts still add up (or do not) against the total."""
    if "decode_seconds" not in metrics and metrics.get("output_tokens") and metrics.get("generation_tokens_per_second"):
        metrics["decode_seconds"] = metrics["output_tokens"] / metrics["generation_tokens_per_second"]
    if metrics.get("decode_seconds") and metrics.get("output_tokens") and "tpot_seconds" not in metrics:
        metrics["tpot_seconds"] = metrics["decode_seconds"] / metrics["output_tokens"]
    if metrics.get("prefill_seconds") and "input_tokens" in metrics and "prompt_tokens_per_second" not in metrics:
        metrics["prompt_tokens_per_second"] = metrics["input_tokens"] / metrics["prefill_seconds"]
    if metrics.get("decode_seconds") and "output_tokens" in metrics and "generation_tokens_per_second" not in metrics:
        metrics["generation_tokens_per_second"] = metrics["output_tokens"] / metrics["decode_seconds"]


def _slog(line_number: int, line: str) -> Record | None:
    """A scheduler / memory slog line as a capacity Record (only the keys the diagnosis can use)."""
    pairs = {key: value.strip('"') for key, value in _PAIR.findall(line)}
    metrics = {}
    for key, metric in (("memory.weights.total", "weights_bytes"), ("memory.required.kv", "kv_cache_bytes"),
                        ("memory.required.full", "required_memory_bytes"),
                        ("memory.graph.full", "graph_memory_bytes"), ("memory.available", "available_memory_bytes")):
        if key in pairs:
            size = _size_bytes(pairs[key])
            if size is not None:
                metrics[metric] = size
    for key, metric in (("layers.model", "model_layers"), ("layers.offload", "offloaded_layers"),
                        ("parallel", "parallel_slots")):
        if pairs.get(key, "").isdigit():
            metrics[metric] = float(pairs[key])
    if pairs.get("available", "").isdigit() and "available_memory_bytes" not in metrics:
        metrics["available_memory_bytes"] = float(pairs["available"])  # plain bytes on the scheduler line
    # 2025 engine: one line per device and buffer, `msg="model weights" device=CUDA0 size="7.6 GiB"`.
    per_device = {"model weights": "weights_bytes", "kv cache": "kv_cache_bytes", "compute graph": "graph_memory_bytes"}
    if pairs.get("msg") in per_device and "size" in pairs:
        size = _size_bytes(pairs["size"])
        if size is not None:
            metrics[per_device[pairs["msg"]]] = size
    # 2025 `msg=load request="{… Parallel:1 … KvSize:4096 …}"`: context for all slots and the slot count.
    if "KvSize:" in line:
        for key, metric in (("KvSize", "context_tokens"), ("Parallel", "parallel_slots")):
            match = re.search(key + r":(\d+)", line)
            if match:
                metrics[metric] = float(match.group(1))
    if "cmd" in pairs:
        for flag, value in _FLAG.findall(pairs["cmd"]):
            metric = {"ctx-size": "context_tokens", "parallel": "parallel_slots",
                      "n-gpu-layers": "offloaded_layers"}[flag]
            metrics.setdefault(metric, float(value))
    if not metrics:
        return None
    labels = {"engine": "ollama"}
    if "msg" in pairs:
        labels["msg"] = pairs["msg"]
    for key in ("library", "device"):
        if key in pairs:
            labels[key] = pairs[key]
    timestamp = _timestamp(pairs["time"]) if "time" in pairs else None
    return Record("capacity", "ollama.server", line_number, metrics, timestamp, labels)


_STARTED = re.compile(r"runner started in ([\d.]+) seconds")


def _runner(line_number: int, line: str) -> Record | None:
    """`msg="llama runner started in 3.52 seconds"` (start-up time) and `msg="inference compute" library=cuda …
    name="NVIDIA GeForce RTX 4090"` (the device the log names; library=cpu is a CPU backend)."""
    pairs = {key: value.strip('"') for key, value in _PAIR.findall(line)}
    timestamp = _timestamp(pairs["time"]) if "time" in pairs else None
    match = _STARTED.search(line)
    if match:
        return Record("capacity", "ollama.server", line_number, {"runner_start_seconds": float(match.group(1))},
                      timestamp, {"engine": "ollama"})
    library = pairs.get("library", "")
    if not library:
        return None
    labels = {"engine": "ollama", "backend": library}
    if pairs.get("name") and library != "cpu":
        labels["gpu"] = pairs["name"]
    return Record("capacity", "ollama.server", line_number, {}, timestamp, labels)


# The GIN paths that run the model (the native API and the OpenAI-compatible one).
_INFERENCE_PATHS = ("/api/generate", "/api/chat", "/api/embed", "/v1/chat/completions", "/v1/completions",
                    "/v1/embeddings", "/v1/responses", "/v1/messages")


def _gin(line_number: int, line: str) -> Record | Skipped | None:
    """`[GIN] 2024/09/03 - 06:17:01 | 200 | 1m16s | 172.17.0.1 | POST "/api/chat"`: latency only."""
    match = _GIN.search(line)
    if match is None:
        return Skipped(line_number, "GIN access line without date | status | latency | client | method path",
                       "ollama")
    if not match.group(6).startswith(_INFERENCE_PATHS):
        return None  # `/`, `/api/ps`, `/api/show`, `/api/tags`: health checks and management, no request served
    if match.group(2) in ("503", "429"):
        # Refused, not served: ollama's `server busy, please try again.  maximum pending requests exceeded` (its
        # OLLAMA_MAX_QUEUE full). Its milliseconds are the refusal's, no request's latency.
        return Record("event", "ollama.gin", line_number, {"busy_rejections": 1.0}, None,
                      {"engine": "ollama", "status": match.group(2)})
    seconds = go_duration_seconds(match.group(3))
    if seconds is None:
        return Skipped(line_number, f"GIN latency {match.group(3)!r} is not a Go duration", "ollama")
    labels = {"engine": "ollama", "surface": "gin", "status": match.group(2), "path": match.group(6)}
    if seconds >= 60:
        labels["e2e_resolution"] = "whole seconds (GIN truncates above one minute)"
    # Server local time without a zone: read as UTC, like the engines' zone-less stamps (the diagnosis only uses
    # differences), and said so in the labels.
    timestamp = _gin_seconds(match.group(1))
    if timestamp is not None:
        labels["timestamp_zone_assumed"] = "UTC"
    return Record("request", "ollama.gin", line_number, {"e2e_seconds": seconds}, timestamp, labels)


def _gin_seconds(stamp: str) -> float | None:
    """`2024/09/03 - 06:17:01` (the regex's shape) as Unix seconds, None for an impossible date or clock; the minute's
    epoch is shared with the lines around it (_common.minute_epoch), not computed a line."""
    year, month, day = int(stamp[:4]), int(stamp[5:7]), int(stamp[8:10])
    hours, minutes, seconds = int(stamp[13:15]), int(stamp[16:18]), int(stamp[19:21])
    if not 1 <= month <= 12 or not 1 <= day <= calendar.monthrange(year, month)[1] or hours > 23 or minutes > 59 \
            or seconds > 61:
        return None
    base = minute_epoch(stamp[:4], stamp[5:7], stamp[8:10], stamp[13:15], stamp[16:18])
    return None if base is None else base + seconds


# Go source files of the ollama server that log the scheduler, memory and runner lines (2024-2025 builds).
_SLOG_MARKERS = ("source=sched.go", "source=memory.go", "source=ggml.go", "source=routes.go", "source=server.go",
                 "source=runner.go", "ollama")


# The --verbose block's first line, a Go duration (`total duration:       23m5.891375436s`), alone on its line.
_TOTAL_ONLY = re.compile(r"(?m)^\s*total duration:\s+(?:\d+h)?(?:\d+m)?\d+(?:\.\d+)?(?:s|ms|µs)\s*$")


def sniff(head: str) -> float:
    if "prompt eval rate:" in head or "eval rate:" in head and "eval count:" in head:
        return 0.95
    if ("Average stats:" in head or "Performance Metrics:" in head) and re.search(
            r"(?im)^\s*(?:response|generation speed):\s*[\d.]+\s*(?:t/s|tokens/sec)", head):
        return 0.8  # a benchmark script's averages of the same fields (_AVERAGE)
    if "Prompt Eval Count:" in head and "Eval Duration:" in head:
        return 0.8  # a front-end's title-cased copy of the same numbers
    if re.search(r"(?m)^\s*eval rate:\s+[\d.]+ tokens/s", head):
        return 0.8  # only the --verbose block's last line, pasted once per run (a comparison across builds)
    if _TOTAL_ONLY.search(head):
        return 0.6  # only the --verbose block's first line (an excerpt cut after it): read, if only to say so
    if any(f"{quote}{key}{quote}" in head for quote in "\"'" for key in ("eval_count", "prompt_eval_duration",
                                                                          "total_duration")):
        return 0.9  # the API's JSON, or the dict a Python client printed
    if "msg=" in head and "level=" in head and any(marker in head for marker in _SLOG_MARKERS):
        return 0.85
    if "[GIN]" in head:
        return 0.7
    if "PROCESSOR" in head and "UNTIL" in head and ("GPU" in head or "CPU" in head):
        return 0.7  # `ollama ps`
    if sum(1 for line in head.splitlines() if _CHUNK.search(line)) >= MIN_STREAM_CHUNKS:
        return 0.8  # streamed API chunks
    return 0.0


# `ollama ps`: NAME ID SIZE PROCESSOR UNTIL, the processor column "100% GPU", "100% CPU" or "42%/58% CPU/GPU", and
# since 2025 a CONTEXT column after it; also pasted as a Markdown table (`| codestral:22b | 0e1127d332ef | 19 GB |
# 43%/57% CPU/GPU | Stopping... |`).
_PS_ROW = re.compile(r"^(\S+)\s+([0-9a-f]{12})\s+([\d.]+ [KMGT]?B)\s+(?:(\d+)%/(\d+)% CPU/GPU|(\d+)% (GPU|CPU))\b"
                     r"(?:\s+(\d{3,7})\b)?")


class _Loaded(NamedTuple):
    """An `ollama ps` row as first seen: its size, share on the GPU, name before its tag, and context (None where the
    row has no CONTEXT column)."""

    size: float | None
    gpu: float
    name: str
    context: float | None


def _ps_row(line_number: int, match: re.Match, seen: dict) -> Record:
    """A loaded model's share on the GPU; and, where an earlier row showed the same model (its ID: the same weights, or
    a model named after it with a longer CONTEXT: a Modelfile's copy with a larger num_ctx, a new ID over the same
    weights) smaller and more on the GPU, the reload that grew it: ollama reloads a model when a client asks for another
    context (num_ctx) or more parallel slots, and only the KV cache grows with those, so the growth is cache."""
    if match.group(4) is not None:
        gpu = float(match.group(5)) / 100
    else:
        gpu = float(match.group(6)) / 100 if match.group(7) == "GPU" else 1 - float(match.group(6)) / 100
    size = _size_bytes(match.group(3))
    metrics = {"gpu_share_fraction": gpu}
    name, context = match.group(1).split(":")[0], float(match.group(8)) if match.group(8) else None
    copied = next((row for identity, row in seen.items() if identity != match.group(2) and context and row.context
                   and row.context < context and name.startswith(row.name)), None)
    before = copied or seen.setdefault(match.group(2), _Loaded(size, gpu, name, context))
    if size is not None and before.size is not None and size > before.size and gpu < before.gpu:
        metrics.update(reloaded_bytes=size, reloaded_from_bytes=before.size, reloaded_gpu_share_fraction=gpu,
                       reloaded_from_gpu_share_fraction=before.gpu)
        if copied:
            metrics.update(reloaded_context_tokens=context, reloaded_from_context_tokens=copied.context)
    return Record("capacity", "ollama.ps", line_number, metrics, labels={"engine": "ollama", "model": match.group(1)})


def _joined(lines) -> Iterator:
    """The lines with a slog record wrapped over several lines joined back: a record's first line ends after its
    `source=` and the indented lines below carry its `msg=` and keys (journald's width, or a quote wrapped by hand)."""
    held = None  # (line number, text) of a record's first line still taking continuations
    for line_number, line in lines:
        if held is not None:
            if line[:1] in (" ", "\t") and "=" in line:
                held = (held[0], f"{held[1].rstrip()} {line.strip()}")
                continue
            yield held
            held = None
        if "level=" in line and "source=" in line and "msg=" not in line:
            held = (line_number, line)
            continue
        yield line_number, line
    if held is not None:
        yield held


# The model the `--verbose` blocks after it ran, as pastes and benchmark scripts name it: `ollama run MODEL`, a
# script's `model_name = MODEL` (llm_benchmark), a heading `### Model: MODEL`.
_MODEL_LINE = re.compile(r"ollama run\s+[\"']?([\w.:/-]+)|^\s*(?:#+\s*)?(?:model_name\s*=|model:)\s*([\w.:/-]+)", re.IGNORECASE)


def parse(lines) -> Iterator:
    lines = _joined(lines)
    verbose: _Verbose | None = None
    collector = JsonCollector(lambda text: "eval_count" in text or "total_duration" in text)
    model = None  # the model the blocks ran, where the paste names it
    # The models named since a block was last read: several named before their blocks (a script's commands, then its
    # results) leave each block one of them, not the last named.
    named_since: list = []
    block_since = False
    loaded: dict = {}  # `ollama ps` rows by the model's ID (_Loaded)

    def flush():
        nonlocal verbose, block_since
        finished, verbose = verbose, None
        if finished is None or not finished.metrics:
            return None
        _add_rates(finished.metrics)
        labels = dict(_LABELS, surface="run --verbose")
        if len(set(named_since)) > 1:
            labels["models_named"] = ", ".join(dict.fromkeys(named_since))
        elif model:
            labels["model"] = model
        block_since = True
        return Record("request", "ollama.verbose", finished.line_number, finished.metrics, labels=labels)

    def open_field(label: str, line_number: int) -> Record | None:
        """Make ready the block a --verbose field (or a script's average of one) goes into; a label the block already
        holds starts the next block: the one it ended, or None."""
        nonlocal verbose
        ended = flush() if verbose is not None and label in verbose.seen else None
        if verbose is None:
            verbose = _Verbose(line_number)
        verbose.seen.add(label)
        return ended

    stream: _Stream | None = None
    for line_number, line in lines:
        if line.startswith("[GIN]") and not collector.buffer:
            # An access line, the bulk of a server's log: no test below but the last reads it.
            record = _gin(line_number, line)
            if record is not None:
                yield record
            continue
        if "odel" in line or "ollama run" in line:
            named = _MODEL_LINE.search(line)
            if named is not None:
                model = named.group(1) or named.group(2)
                if block_since:
                    named_since, block_since = [], False
                named_since.append(model)
        if '"done"' in line and '"created_at"' in line and not collector.buffer:
            chunk = _CHUNK.search(line)
            if chunk is not None:
                stamp = _timestamp(chunk.group(1))
                if stamp is not None:
                    if stream is None:
                        model = re.search(r'"model"\s*:\s*"([^"]+)"', line)
                        stream = _Stream(line_number, model.group(1) if model else None)
                    stream.stamps.append(stamp)
                continue
            if stream is not None:  # the final chunk (done: true) ends the stream; its timings are read below
                record = stream.record()
                stream = None
                if record is not None and "eval_count" not in line:
                    yield record
        if collector.buffer or (line and line.lstrip()[:1] in ("{", "[")):
            for start, value, truncated in collector.feed(line_number, line):
                yield from _api_record(start, value, truncated, collector.unread)
            if collector.buffer:
                continue
        if "duration:" in line or "count:" in line or "rate:" in line or "Duration:" in line or "Count:" in line:
            match = _VERBOSE.match(line)
            if match is not None:
                label, text = match.group(1).lower(), match.group(2).replace(", ", "")
                record = open_field(label, line_number)
                if record is not None:
                    yield record
                metric, kind = _VERBOSE_FIELDS[label]
                value = go_duration_seconds(text) if kind == "duration" else _count(text)
                if value is None:
                    yield Skipped(line_number, f"ollama --verbose {label!r} without a readable value", "ollama")
                else:
                    verbose.metrics[metric] = value
                if label == "eval rate":
                    record = flush()
                    if record is not None:
                        yield record
                continue
        if ":" in line and (average := _AVERAGE.match(line)) is not None:
            label = _AVERAGE_FIELDS[average.group(1).lower()]
            rate = label.endswith("rate")
            if (average.group(3) or "").lower() in (("t/s", "tokens/sec") if rate else ("", "s")):
                record = open_field(label, line_number)
                if record is not None:
                    yield record
                metric, _kind = _VERBOSE_FIELDS[label]
                verbose.metrics[metric] = float(average.group(2))
                continue
        if "CPU-only mode" in line or "no compatible GPUs were discovered" in line:
            # the installer's `WARNING: No NVIDIA/AMD GPU detected. Ollama will run in CPU-only mode.`, the server's
            # `msg="no compatible GPUs were discovered"`: a CPU runs the model
            yield Record("capacity", "ollama.server", line_number, {}, labels={"engine": "ollama", "backend": "cpu"})
            continue
        if "msg=" in line and "level=" in line:
            if ("memory." in line or "parallel=" in line or "layers." in line or "--ctx-size" in line
                    or "size=" in line or "KvSize:" in line):
                record = _slog(line_number, line)
                if record is not None:
                    yield record
                    continue
            elif "out of memory" in line:
                yield Record("event", "ollama.server", line_number, {"oom": 1.0}, labels={"engine": "ollama"})
                continue
            elif "truncating input prompt" in line:
                # The runner cut a prompt to the context (`limit=1274 prompt=7386`): as llama-server's truncated = 1.
                yield Record("event", "ollama.server", line_number, {"truncated_prompts": 1.0},
                             labels={"engine": "ollama"})
                continue
            elif "runner started in" in line or "inference compute" in line:
                record = _runner(line_number, line)
                if record is not None:
                    yield record
                    continue
            if looks_like_metric(line):
                yield unread(line_number, line, "ollama")
            continue
        if "% GPU" in line or "CPU/GPU" in line or "% CPU" in line:
            match = _PS_ROW.match(line.replace("|", " ").lstrip() if line[:1] == "|" else line)
            if match is not None:
                yield _ps_row(line_number, match, loaded)
                continue
        if "[GIN]" in line:
            record = _gin(line_number, line)
            if record is not None:
                yield record
    for start, value, truncated in collector.finish():
        yield from _api_record(start, value, truncated, collector.unread)
    if stream is not None:
        record = stream.record()
        if record is not None:
            yield record
    record = flush()
    if record is not None:
        yield record


def _count(text: str) -> float | None:
    try:
        return float(text.replace(",", ""))
    except ValueError:
        return None
