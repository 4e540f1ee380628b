"""LMCache beside vLLM or SGLang: its store and retrieve lines (`LMCache INFO: Stored 31 out of total 31 tokens. size:
0.0040 gb, cost 1.95 ms, throughput: 1.98 GB/s`, `Retrieved 8 out of 24 required tokens (from 32 total tokens)`, the
multiprocess server's `Stored 1024 tokens in 3.909 seconds`, the 2024-25 releases' `INFO LMCache: Retrieved 3 chunks (767
tokens in total) --hit rate 25.03% -- elapsed time 0.0237`) and the adapter's hit line (`Total tokens 32, LMCache hit
tokens: 24, need to load: 8`). They are KV-cache transfers, not serving speed: each becomes an event (tokens moved,
seconds taken), and a hit line says a prefix cache is on, so the advice never asks to enable one.
"""

from __future__ import annotations

import re

from inferledger.diagnose.parsers._common import find_timestamp
from inferledger.diagnose.records import Record

NAME = "lmcache"

_STORED = re.compile(r"Stored (\d+) (?:out of total \d+ )?tokens(?:\. size: [\d.]+ gb, cost ([\d.]+) ms| in ([\d.]+) "
                     r"seconds)?")
_RETRIEVED = re.compile(r"Retrieved (\d+) (?:out of (?:total )?\d+ (?:required )?tokens|tokens)(?:.*?cost ([\d.]+) ms| in "
                        r"([\d.]+) seconds)?")
_HIT = re.compile(r"Total tokens (\d+), LMCache hit tokens: (\d+)")
_CHUNKS = re.compile(r"Retrieved \d+ chunks \((\d+) tokens in total\) --hit rate [\d.]+% -- elapsed time ([\d.]+)")


def sniff(head: str) -> float:
    return 0.8 if "LMCache INFO:" in head or "LMCache hit tokens:" in head or "LMCache: Retrieved" in head \
        or "LMCache: Stored" in head else 0.0


def _event(line_number: int, line: str, metrics: dict, labels: dict) -> Record:
    timestamp, _assumed = find_timestamp(line[:80])
    return Record("event", "lmcache", line_number, metrics, timestamp, {"engine": "lmcache", **labels})


def _moved(match, tokens_metric: str, seconds_metric: str) -> dict:
    metrics = {tokens_metric: float(match.group(1))}
    if match.group(2) is not None:
        metrics[seconds_metric] = float(match.group(2)) / 1000
    elif match.group(3) is not None:
        metrics[seconds_metric] = float(match.group(3))
    return metrics


class LineParser:
    """Push-style parser fed only the lines that hold one of MARKERS (see read.py)."""

    def feed(self, line_number: int, line: str) -> list:
        if "LMCache hit tokens:" in line:
            match = _HIT.search(line)
            if match is not None:
                return [_event(line_number, line, {"prefix_hit_tokens": float(match.group(2))},
                               {"prefix_caching": "on"})]
        elif "Stored " in line:
            match = _STORED.search(line)
            if match is not None:
                return [_event(line_number, line, _moved(match, "kv_offloaded_tokens", "kv_offload_seconds"), {})]
        elif "chunks (" in line:
            match = _CHUNKS.search(line)
            if match is not None:  # a hit rate: the prefix cache is on
                return [_event(line_number, line, {"kv_loaded_tokens": float(match.group(1)),
                                                   "kv_load_seconds": float(match.group(2))},
                               {"prefix_caching": "on"})]
        elif "Retrieved " in line:
            match = _RETRIEVED.search(line)
            if match is not None:
                return [_event(line_number, line, _moved(match, "kv_loaded_tokens", "kv_load_seconds"), {})]
        return []

    def finish(self) -> list:
        return []


MARKERS = (b"LMCache INFO: Stored", b"LMCache INFO: Retrieved", b"LMCache hit tokens:", b"LMCache: Retrieved",
           b"LMCache: Stored")
# No state between lines: a big file may be read by two processes (read.py).
SPLITTABLE = True
