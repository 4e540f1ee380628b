"""LightLLM's router: the batch it runs and the share of its token pool (the KV cache) in use, printed as
`current batch size: 1 token used ratio: 0.3198` (2023) or over two lines, `current batch size: 4` then
`token used ratio: 0.52` (later releases, with `paused req num: 0` between them). One stats window per pair: the running
requests and the KV usage; no rates, so speed is never judged from these lines alone.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from inferledger.diagnose.parsers._common import find_timestamp
from inferledger.diagnose.records import Record

NAME = "lightllm"

_BATCH = re.compile(r"current batch size:\s*(\d+)")
_RATIO = re.compile(r"token used ratio:\s*([\d.]+)")
_PAUSED = re.compile(r"paused req num:\s*(\d+)")


def sniff(head: str) -> float:
    return 0.8 if "current batch size:" in head and "token used ratio:" in head else 0.0


def _window(line_number: int, prefix: str, running: str, ratio: str, paused: str | None) -> Record:
    metrics = {"running_requests": float(running), "kv_cache_usage_fraction": float(ratio)}
    if paused is not None:
        metrics["swapped_requests"] = float(paused)  # paused: taken off the batch for want of tokens, as a swap
    timestamp, _assumed = find_timestamp(prefix)
    return Record("interval", "lightllm.router", line_number, metrics, timestamp, {"engine": "lightllm"})


def parse(lines) -> Iterator:
    held = None  # (line number, prefix, batch size, paused) of a batch line whose ratio comes on a later line
    for line_number, line in lines:
        if "current batch size:" in line:
            batch = _BATCH.search(line)
            ratio = _RATIO.search(line)
            if batch is None:
                continue
            if ratio is not None:
                yield _window(line_number, line[:batch.start()], batch.group(1), ratio.group(1), None)
                held = None
            else:
                held = (line_number, line[:batch.start()], batch.group(1), None)
        elif held is not None and "paused req num:" in line:
            paused = _PAUSED.search(line)
            held = held[:3] + ((paused.group(1) if paused else None),)
        elif held is not None and "token used ratio:" in line:
            ratio = _RATIO.search(line)
            if ratio is not None:
                yield _window(held[0], held[1], held[2], ratio.group(1), held[3])
            held = None
