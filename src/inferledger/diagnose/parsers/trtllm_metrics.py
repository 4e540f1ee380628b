"""TensorRT-LLM executor iteration stats: the JSON objects `trtllm-serve` returns on `/metrics` for the TRT
backend, one per iteration, as a JSON array, one object per line, or pasted with trailing commas; and the older
Triton TensorRT-LLM backend's in-flight batching line (`libtensorrtllm.cc:…] {"Active Request Count":1,…}`, spaced keys,
no iteration latency), often pasted wrapped inside its keys, so a wrapped object's lines are joined without a gap.

Also the backend's start-up lines that size the KV cache (`[TensorRT-LLM][INFO] Allocate 3657433088 bytes for k/v
cache.`, `Using 13952 total tokens in paged KV cache, and 24 blocks per sequence`): capacity, not speed.

Objects are decoded one at a time as their braces close, so a long dump streams in constant memory; a cut
object at the end is reported as a skipped line, never raised.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator

from inferledger.diagnose.parsers._common import epoch_seconds
from inferledger.diagnose.parsers.bench_common import json_number
from inferledger.diagnose.records import Record, Skipped

NAME = "trtllm-iteration-stats"

_MAX_OBJECT_CHARS = 16 * 1024 * 1024
_DECODER = json.JSONDecoder()


# Later backends log the object as a quoted string: `model_instance_state.cc:…] "{\"Active Request Count\":8,…}"`.
_ESCAPED = '{\\"Active Request Count\\"'
_KV_BYTES = re.compile(r"\[TensorRT-LLM\].*\bAllocate (\d+) bytes for k/v cache")
# (`Using 693 tokens in paged KV cache.` in its late-2023 releases, NVIDIA/TensorRT-LLM#494)
_KV_TOKENS = re.compile(r"\[TensorRT-LLM\].*\bUsing (\d+) (?:total )?tokens in paged KV cache")
# Later releases: `Max tokens in paged KV cache: 117760. Allocating 54022635520 bytes.` or `Allocated 0.10 GiB for max
# tokens in paged KV cache (2112).`, then the pool's blocks and the most one sequence may hold: `Number of blocks in KV cache primary pool: 18`, `Max KV cache pages per sequence: 16`.
_KV_ALLOCATED = re.compile(r"\[TensorRT-LLM\].*\bAllocated ([\d.]+) GiB for max tokens in paged KV cache \((\d+)\)")
_KV_MAX_TOKENS = re.compile(r"\[TensorRT-LLM\].*\bMax tokens in paged KV cache: (\d+)\. Allocating (\d+) bytes")
_REFUSAL = "must be large enough to process at least 1 sequence"
_KV_POOL = re.compile(r"\[TensorRT-LLM\].*\bNumber of blocks in KV cache primary pool: (\d+)")
_KV_PAGES = re.compile(r"\[TensorRT-LLM\].*\bMax KV cache pages per sequence: (\d+)")


def sniff(head: str) -> float:
    if '"iterLatencyMS"' in head and ('"kvCacheStats"' in head or '"numActiveRequests"' in head):
        return 0.95
    if '"iterLatencyMS"' in head or '{"Active Request Count"' in head or _ESCAPED in head:
        return 0.7
    if "[TensorRT-LLM]" in head and (_KV_BYTES.search(head) or _KV_TOKENS.search(head) or _KV_ALLOCATED.search(head)
                                     or _KV_MAX_TOKENS.search(head) or _KV_POOL.search(head)):
        return 0.6
    if "maxTokensInPagedKvCache" in head and _REFUSAL in head:
        return 0.6  # the runtime's refusal to start, however its start-up lines were cut
    return 0.0


def _startup(line_number: int, metrics: dict, kind: str = "capacity") -> Record:
    """A start-up line's figures (or event) as the runtime's record."""
    return Record(kind, "trtllm.startup", line_number, metrics, labels={"engine": "tensorrt-llm"})


def _capacity(line_number: int, line: str, pool: dict) -> Record | None:
    """A start-up line sizing the KV cache, as a capacity record; None for any other line. `pool` keeps the primary
    pool's blocks and a sequence's most pages until both are read: their ratio is how many sequences of the most
    length the pool holds at once."""
    for pattern, metric in ((_KV_BYTES, "kv_cache_bytes"), (_KV_TOKENS, "kv_cache_tokens")):
        match = pattern.search(line)
        if match:
            return _startup(line_number, {metric: float(match.group(1))})
    match = _KV_ALLOCATED.search(line)
    if match:
        return _startup(line_number, {"kv_cache_bytes": float(match.group(1)) * 2**30,
                                      "kv_cache_tokens": float(match.group(2))})
    match = _KV_MAX_TOKENS.search(line)
    if match:
        return _startup(line_number, {"kv_cache_tokens": float(match.group(1)),
                                      "kv_cache_bytes": float(match.group(2))})
    for pattern, key in ((_KV_POOL, "blocks"), (_KV_PAGES, "pages")):
        match = pattern.search(line)
        if match:
            pool[key] = float(match.group(1))
            if pool.get("blocks") and pool.get("pages"):
                return _startup(line_number, {"max_concurrency_at_length": pool["blocks"] / pool["pages"]})
            return None
    return None


# The Triton backend's spaced keys -> the executor's (nested where the executor nests them).
_LEGACY = {"Active Request Count": ("numActiveRequests",), "Max Request Count": ("maxNumActiveRequests",),
           "Iteration Counter": ("iter",), "Timestamp": ("timestamp",),
           "Used KV cache blocks": ("kvCacheStats", "usedNumBlocks"), "Max KV cache blocks": ("kvCacheStats", "maxNumBlocks"),
           "Tokens per KV cache block": ("kvCacheStats", "tokensPerBlock"),
           "Total Context Tokens": ("inflightBatchingStats", "numCtxTokens"),
           "Generation Requests": ("inflightBatchingStats", "numGenRequests")}


def _from_legacy(stats: dict) -> dict:
    """A Triton backend stats object in the executor's shape (its other keys dropped)."""
    shaped: dict = {}
    for key, path in _LEGACY.items():
        if key in stats:
            target = shaped
            for part in path[:-1]:
                target = target.setdefault(part, {})
            target[path[-1]] = stats[key]
    return shaped


def _timestamp(text) -> float | None:
    # `MM-DD-YYYY HH:MM:SS.ffffff`, local time of the server taken as UTC.
    if not isinstance(text, str) or len(text) < 19:
        return None
    try:
        month, day, year = int(text[0:2]), int(text[3:5]), int(text[6:10])
        hour, minute, second = int(text[11:13]), int(text[14:16]), int(text[17:19])
        fraction = text[20:] if len(text) > 20 and text[19] == "." else None
        return epoch_seconds(year, month, day, hour, minute, second, fraction)
    except (ValueError, OverflowError):
        return None


def _number(mapping, key) -> float | None:
    return json_number(mapping.get(key)) if isinstance(mapping, dict) else None


def _records(stats: dict, line_number: int) -> Iterator[Record]:
    metrics = {}
    latency_ms = _number(stats, "iterLatencyMS")
    for key, metric in (("numActiveRequests", "running_requests"), ("numQueuedRequests", "waiting_requests")):
        value = _number(stats, key)
        if value is not None:
            metrics[metric] = value
    if latency_ms is not None:
        metrics["iteration_seconds"] = latency_ms / 1000  # TRT-LLM reports milliseconds
    kv = stats.get("kvCacheStats") if isinstance(stats.get("kvCacheStats"), dict) else {}
    used, total = _number(kv, "usedNumBlocks"), _number(kv, "maxNumBlocks")
    if used is not None and total:
        metrics["kv_cache_usage_fraction"] = used / total
    hit = _number(kv, "cacheHitRate")
    if hit is not None:
        metrics["prefix_cache_hit_fraction"] = hit
    batching = stats.get("inflightBatchingStats") if isinstance(stats.get("inflightBatchingStats"), dict) else {}
    context_tokens = _number(batching, "numCtxTokens")
    generating = _number(batching, "numGenRequests")
    per_iteration = _number(batching, "avgNumDecodedTokensPerIter") or 1.0
    if latency_ms:
        # One iteration computes the context tokens of new requests and one (or more, with speculation) token for
        # each generating request; dividing by its latency gives the instantaneous rates.
        if context_tokens is not None:
            metrics["prompt_tokens_per_second"] = context_tokens / (latency_ms / 1000)
        if generating is not None:
            metrics["generation_tokens_per_second"] = generating * per_iteration / (latency_ms / 1000)
    if context_tokens is not None:
        metrics["batch_tokens"] = context_tokens
    labels = {"engine": "tensorrt-llm"}
    if isinstance(stats.get("iter"), int):
        labels["iteration"] = stats["iter"]
    timestamp = _timestamp(stats.get("timestamp"))
    if metrics:
        yield Record("interval", "trtllm.iteration", line_number, metrics, timestamp, labels)
    capacity = {}
    tokens_per_block = _number(kv, "tokensPerBlock")
    if total is not None:
        capacity["gpu_blocks"] = total
        if tokens_per_block:
            capacity["block_size_tokens"] = tokens_per_block
            capacity["kv_cache_tokens"] = total * tokens_per_block
    for key, metric in (("maxNumActiveRequests", "max_running_requests"), ("maxBatchSizeRuntime", "max_batch_size"),
                        ("maxNumTokensRuntime", "max_batch_tokens")):
        value = _number(stats, key)
        if value is not None:
            capacity[metric] = value
    if capacity:
        yield Record("capacity", "trtllm.iteration", line_number, capacity, timestamp, labels)


def _complete_pairs(text: str) -> dict | None:
    """The pairs of an object cut inside its text that were written whole (`{"a":1,"b":2,"c` -> {"a": 1, "b": 2}): a
    paste cut mid-line keeps what it shows. None when no pair before the cut decodes."""
    end = len(text)
    for _ in range(64):  # an object's keys, back from the cut; a pasted stats object has a few dozen
        end = text.rfind(",", 0, end)
        if end <= 0:
            return None
        try:
            value = json.loads(text[:end] + "}")
        except json.JSONDecodeError:
            continue
        return value if isinstance(value, dict) and value else None
    return None


def _decode(text: str, start: int, cut: bool = False) -> Iterator[Record | Skipped]:
    """The records of every complete object in `text` (one object, an array, or objects separated by commas); the
    first object that does not decode ends it with a Skipped, `cut` saying the text ended inside it."""
    position = 0
    length = len(text)
    while position < length:
        while position < length and text[position] in " \t\n,[]":
            position += 1
        if position >= length:
            break
        try:
            value, position = _DECODER.raw_decode(text, position)
        except json.JSONDecodeError:
            # the backend's flat object, cut by a paste: its whole pairs still say something (the executor's nested
            # object, cut, is not pieced together)
            salvaged = _complete_pairs(text[position:]) if cut else None
            kept = salvaged is not None and "Active Request Count" in salvaged
            if kept:
                yield from _records(_from_legacy(salvaged), start)
            yield Skipped(start, "TensorRT-LLM iteration stats: JSON cut before its closing brace" +
                          (" (the pairs before the cut read)" if kept else "") if cut else
                          "TensorRT-LLM iteration stats: JSON object not readable (cut or damaged)", "trtllm.iteration")
            return
        items = value if isinstance(value, list) else [value]
        for item in items:
            if isinstance(item, dict) and "iterLatencyMS" in item:
                yield from _records(item, start)
            elif isinstance(item, dict) and "Active Request Count" in item:
                yield from _records(_from_legacy(item), start)


def parse(lines) -> Iterator[Record | Skipped]:
    buffer: list[str] = []
    size = 0
    depth = 0
    start = 0
    pool: dict = {}  # the KV pool's blocks and a sequence's pages, as the start-up lines give them
    for line_number, line in lines:
        if not buffer:
            if "maxTokensInPagedKvCache" in line and _REFUSAL in line:
                # The runtime refuses to start: the KV pool left after the weights cannot hold one sequence of the
                # engine's most length (Triton's backend: `Failed to create instance: … maxTokensInPagedKvCache
                # (29184) must be large enough to process at least 1 sequence to completion`; in late 2023 it
                # named no figure, the tokens in the line before: `Using 693 tokens in paged KV cache.`).
                yield _startup(line_number, {"kv_start_refusals": 1.0}, kind="event")
                continue
            record = _capacity(line_number, line, pool) if "[TensorRT-LLM]" in line and "cache" in line else None
            if record is not None:
                yield record
                continue
            stripped = line.lstrip(" \t[,")
            if not stripped.startswith("{"):
                brace = line.find('{"Active Request Count"')  # the backend's line: a log prefix before the object
                if brace < 0:
                    brace = line.find(_ESCAPED)
                    if brace < 0:
                        continue
                    # the quoted form: one line; its escapes undone, the closing quote dropped
                    text = line[brace:].rstrip().removesuffix('"').replace('\\"', '"').replace("\\\\", "\\")
                    yield from _decode(text, line_number, cut=text.count("{") > text.count("}"))
                    continue
                stripped = line[brace:]
            start = line_number
            line = stripped
        buffer.append(line)
        size += len(line)
        depth += line.count("{") - line.count("}")
        if depth > 0 and size < _MAX_OBJECT_CHARS:
            continue
        # Joined without a gap: JSON needs none between tokens, and a key wrapped by the terminal joins back whole.
        text = "".join(buffer)
        buffer, size, depth = [], 0, 0
        yield from _decode(text, start)
    if buffer:
        # An excerpt cut inside an object (a pasted array stops mid-way): the complete objects before it still count.
        yield from _decode("".join(buffer), start, cut=True)
