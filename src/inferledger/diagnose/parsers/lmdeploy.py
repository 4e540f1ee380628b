"""LMDeploy's periodic stats line (its LoggingStatLogger, 2026 releases), one stats window each:

    [2026-02-05 17:05:17 Engine 000] Avg thr (in/out): 4618.5 / 2756.3 tokens/s, Server (succeeded/failed/routed/
    waiting): 1 / 0 / 50 / 50, Engine (running/waiting): 45 / 5, KV cache: 21.6%, Prefix cache hit rate: 12.0%, …

(the pull request that introduced it printed `API server (completed/routed/waiting)` and `DP0`). A group's names and
its values are read pairwise, so a field added or dropped between releases moves nothing. The server's `waiting` are
requests holding no request handle yet (the API server's concurrency cap), the engine's are in its scheduler's queue:
both wait, so waiting_requests is their sum and the server's share is kept apart (api_waiting_requests).
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from inferledger.diagnose.parsers._common import find_timestamp
from inferledger.diagnose.records import Record, Skipped

NAME = "lmdeploy"

_STATS = "Avg thr (in/out):"
_GROUP = re.compile(r"([A-Za-z][A-Za-z ]*?) \(([a-z/]+)\): (\d+(?:\.\d+)?(?: / \d+(?:\.\d+)?)*)")
_PERCENT = re.compile(r"(KV cache|Prefix cache hit rate): (\d+(?:\.\d+)?)%")

MARKERS = (_STATS.encode(),)
SPLITTABLE = True


def sniff(head: str) -> float:
    return 0.9 if _STATS in head else 0.0


def _window(line_number: int, line: str) -> Record | Skipped:
    groups = {name.strip().lower(): dict(zip(fields.split("/"), map(float, values.split(" / ")), strict=False))
              for name, fields, values in _GROUP.findall(line)}
    rates, engine = groups.get("avg thr", {}), groups.get("engine", {})
    server = groups.get("server", groups.get("api server", {}))
    if "out" not in rates or "running" not in engine:
        return Skipped(line_number, "LMDeploy stats line without its rates or running requests (cut?)", NAME)
    metrics = {"prompt_tokens_per_second": rates.get("in", 0.0), "generation_tokens_per_second": rates["out"],
               "running_requests": engine["running"],
               "waiting_requests": engine.get("waiting", 0.0) + server.get("waiting", 0.0)}
    if "waiting" in server:
        metrics["api_waiting_requests"] = server["waiting"]
    for label, value in _PERCENT.findall(line):
        name = "kv_cache_usage_fraction" if label == "KV cache" else "prefix_cache_hit_fraction"
        metrics[name] = float(value) / 100
    timestamp, assumed = find_timestamp(line[: line.find(_STATS)])
    labels = {"engine": "lmdeploy", "waiting_definition": "the engine's queue plus the API server's (requests "
              "waiting for a free request handle)"}
    if assumed:
        labels["timestamp_year_assumed"] = True
    return Record("interval", "lmdeploy.stats", line_number, metrics, timestamp, labels)


def parse(lines) -> Iterator[Record | Skipped]:
    for line_number, line in lines:
        if _STATS in line:
            yield _window(line_number, line)
