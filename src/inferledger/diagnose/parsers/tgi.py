"""TGI router request lines: one `Success` span per request with total/validation/queue/inference time and
time_per_token, in plain text or `--json-output` JSON.

Durations are Rust `Duration` debug strings with unit suffixes ns/µs/ms/s. time_per_token is
inference_time ÷ generated tokens and inference_time spans prefill + decode, so it is kept as TPOT with
a label saying it includes prefill.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from inferledger.diagnose.parsers._common import LineByLine, duration_seconds, lines_of_blocks
from inferledger.diagnose.records import Record, Skipped

NAME = "tgi"

# A span duration, quoted as the router prints it (`queue_time="1.2ms"`, or `"queue_time":"1.2ms"` in JSON) or bare as
# the vLLM TGIS adapter (IBM's gRPC front end) prints it (`time_per_token=5.48ms ... input_toks=16}: ... generated 200
# tokens`): (key, quoted value, bare value).
# Each key is found by str.find and its value matched right after it: a router line is a kilobyte of span fields,
# and one regex over the whole line for five keys tries every position (five times slower, benchmarks/).
_SPAN_VALUE = re.compile(r'"?[=:] ?(?:"([^"]+)"|(\d+(?:\.\d+)?(?:ns|µs|us|ms|s))\b)')
_COUNTS = (("input_tokens", "input_toks=", re.compile(r"\binput_toks=(\d+)")),
           ("output_tokens", "generated ", re.compile(r"\bgenerated (\d+) tokens")))
_MAX_NEW = re.compile(r"max_new_tokens: (?:Some\()?(\d+)")
_ROUTE = re.compile(r"\}:(\w+)\{")

_FIELDS = {
    "total_time": "e2e_seconds",
    "validation_time": "validation_seconds",
    "queue_time": "queue_seconds",
    "inference_time": "inference_seconds",
    "time_per_token": "tpot_seconds",
}


# The router's five fields in its order, quoted (what _spans finds one at a time): one match from `total_time`.
_ROUTER_SPANS = re.compile(" ".join(f'{key}="([^"]+)"' for key in _FIELDS))


# The shard's warm-up and errors (text_generation_launcher): the KV pool it sized, in tokens over every batch (tgi#2744),
# and a request that ran the card out of memory (tgi#1374). Free memory lines are the warm-up's own account.
_MAX_BATCH_TOTAL = re.compile(r"Setting max batch total tokens to (\d+)")
_FREE_AFTER_CACHE = re.compile(r"Free memory after allocating the cache: ([\d.]+) MB")
_OOM = re.compile(r"(?:Request failed during generation|Server error|OutOfMemoryError).*?(?:CUDA|HIP) out of memory"
                  r"|torch\.(?:cuda\.)?OutOfMemoryError")
# The warm-up's refusal: the batch budget asked does not fit the memory left after the weights (tgi#1030), or the
# warm-up batch itself ran the card out (`Unable to warmup model: … Allocation on device 0 would exceed allowed
# memory. (out of memory)`, tgi#563).
_NOT_ENOUGH = re.compile(r"Not enough memory to handle \d+ total tokens|Unable to warmup model\b.*\bout of memory")
_LAUNCHER = ("Setting max batch total tokens", "Free memory after allocating the cache", "Request failed during "
             "generation", "text_generation_client", "text-generation-launcher", "Not enough memory to handle",
             "Unable to warmup model")


def _launcher(line_number: int, line: str) -> Record | None:
    """A warm-up capacity line, its refusal or an out-of-memory error of a TGI shard, or None."""
    if ("Not enough memory" in line or "Unable to warmup" in line) and _NOT_ENOUGH.search(line):
        return Record("event", "tgi.warmup", line_number, {"kv_start_refusals": 1.0}, None, {"engine": "tgi"})
    if "out of memory" in line or "OutOfMemoryError" in line:
        if _OOM.search(line):
            return Record("event", "tgi.oom", line_number, {"oom": 1.0}, None, {"engine": "tgi"})
        return None
    match = _MAX_BATCH_TOTAL.search(line)
    if match is not None:
        return Record("capacity", "tgi.warmup", line_number, {"kv_cache_tokens": float(match.group(1))}, None,
                      {"engine": "tgi"})
    match = _FREE_AFTER_CACHE.search(line)
    if match is not None:
        return Record("capacity", "tgi.warmup", line_number,
                      {"available_memory_bytes": float(match.group(1)) * 1e6}, None, {"engine": "tgi"})
    return None


def sniff(head: str) -> float:
    if "text_generation_router" in head and "time_per_token" in head:
        return 0.95
    if any(text in head for text in _LAUNCHER):
        return 0.7
    fields = sum(1 for key in _FIELDS if f'{key}="' in head or f'"{key}":' in head)
    if fields >= 2:
        return 0.8  # a fragment of the span: some of its fields, the rest cut or not logged
    if "time_per_token=" in head and "total_time=" in head:
        return 0.8  # the TGIS adapter's unquoted spans
    return 0.0


# A span field alone on its line (`total_time="10.779314795s"`): a request's span pasted a field a line, gathered
# into one line as the router printed it (_folded).
_LONE_FIELD = re.compile(r'\s*"?(?:' + "|".join(_FIELDS) + r')"?\s*[=:]\s*"?[\d.]+(?:ns|µs|us|ms|s)"?,?\s*\}?\s*$')


def _lone_field(line: str) -> bool:
    return "_t" in line and _LONE_FIELD.match(line) is not None


def _folded(lines) -> Iterator[tuple[int, str]]:
    """The lines, each run of lone span fields (_LONE_FIELD) joined into one line at its first."""
    run: list = []
    for line_number, line in lines:
        if _lone_field(line):
            run.append((line_number, line.strip()))
            continue
        if run:
            yield run[0][0], " ".join(text for _number, text in run)
            run = []
        yield line_number, line
    if run:
        yield run[0][0], " ".join(text for _number, text in run)


def parse(lines) -> Iterator[Record | Skipped]:
    for line_number, line in _folded(lines):
        if "_time" not in line or ("queue_time" not in line and "inference_time" not in line):
            if "emory" in line or "max batch total" in line:  # memory, Memory, OutOfMemoryError
                record = _launcher(line_number, line)
                if record is not None:
                    yield record
            continue
        metrics = {}
        at = line.find('total_time="')
        usual = _ROUTER_SPANS.match(line, at) if at >= 0 else None
        for key, value in zip(_FIELDS, usual.groups(), strict=True) if usual else (
                (key, quoted or bare) for _at, key, quoted, bare in _spans(line)):
            seconds = duration_seconds(value)
            if seconds is not None:
                metrics[_FIELDS[key]] = seconds
        if metrics:
            for name, literal, pattern in _COUNTS:
                match = pattern.search(line) if literal in line else None
                if match:
                    metrics[name] = float(match.group(1))
        if len(metrics) < 2:
            if "time_per_token" in line or "inference_time" in line:
                yield Skipped(line_number, "TGI request line without two readable span durations", "tgi")
            continue
        labels = {"engine": "tgi", "tpot_includes_prefill": True}
        if "inference_seconds" not in metrics or "tpot_seconds" not in metrics:
            labels["fragment"] = "only " + ", ".join(key for key, metric in _FIELDS.items() if metric in metrics)
        elif metrics["tpot_seconds"] > 0 and "output_tokens" not in metrics:
            # Generated tokens are not printed; time_per_token = inference_time / tokens gives them back.
            metrics["output_tokens"] = float(round(metrics["inference_seconds"] / metrics["tpot_seconds"]))
            labels["output_tokens_derived"] = True
        match = _MAX_NEW.search(line) if "max_new_tokens: " in line else None
        if match:
            labels["max_new_tokens"] = int(match.group(1))
        match = _ROUTE.search(line) if "}:" in line else None
        if match:
            labels["route"] = match.group(1)
        yield Record("request", "tgi.request", line_number, metrics, None, labels)


# No state from one line to the next but a span pasted a field a line: a big log is read by two processes, cut
# after any line but those (read.py).
def new_reader() -> LineByLine:
    return LineByLine()


def read_blocks(_reader: LineByLine, blocks) -> Iterator:
    return lines_of_blocks(parse, blocks)


def split_after(line: str) -> bool:
    return not _lone_field(line)  # (a span a field a line is read whole)


def _spans(line: str) -> list:
    """[(place, key, quoted value, bare value)] of each span field in the line, in the line's order: the key as the
    router prints it (`queue_time="1.2ms"`, `"queue_time":"1.2ms"` in JSON) or bare as the vLLM TGIS adapter (IBM's
    gRPC front end) prints it (`time_per_token=5.48ms ... input_toks=16}: ... generated 200 tokens`)."""
    found = []
    for key in _FIELDS:
        at = line.find(key)
        while at >= 0:
            match = _SPAN_VALUE.match(line, at + len(key))
            if match is not None:
                found.append((at, key, match.group(1) or "", match.group(2) or ""))
                at = line.find(key, match.end())
            else:
                at = line.find(key, at + len(key))
    found.sort()
    return found
