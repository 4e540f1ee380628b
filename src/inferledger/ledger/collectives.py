"""Collectives as arithmetic: how many bytes each card sends, in how many hops, on which link, in how long.

A message of M bytes over a group of n cards (M is what one card holds of the tensor the collective is about):

    all-reduce, ring:   each card sends 2(n−1)/n · M   (reduce-scatter then all-gather, n−1 hops each: 2(n−1) hops)
    all-reduce, tree:   each card sends about 2·M      (a double binary tree: up and down, 2⌈log2 n⌉ hops)
    all-gather:         each card sends (n−1)/n · M    (M = the gathered result; n−1 hops)
    reduce-scatter:     each card sends (n−1)/n · M    (M = the whole input; n−1 hops)
    all-to-all:         each card sends (n−1)/n · M    (M = its whole send buffer, 1/n stays; the n−1 pairs at once)
    point-to-point:     the sender sends M             (one hop)

The per-card bytes are NCCL's "bus bytes" (its busbw is these bytes over the time), so the floor is
    hops × link latency + bytes sent / link bandwidth (per direction),
the faster of ring and tree for an all-reduce, as NCCL's tuner picks. The realistic cost replaces the latency and the
bandwidth with a fitted per-call latency and a fraction of the link's bandwidth (collectives_fit.json, fitted on
NCCL and engine measurements by collective_fit.py).
"""

from __future__ import annotations

import json
import math
import os
from dataclasses import dataclass
from functools import lru_cache

from inferledger.errors import BadWorkload

COLLECTIVES = ("all_reduce", "all_gather", "reduce_scatter", "all_to_all", "send")


def bytes_sent(collective: str, message_bytes: float, cards: int, algorithm: str = "ring") -> float:
    """Bytes one card sends over its link for one call (the formulas of the module docstring)."""
    _check(collective, cards)
    if cards == 1:
        return 0.0
    if collective == "send":
        return float(message_bytes)
    if collective == "all_reduce":
        return 2.0 * message_bytes if algorithm == "tree" else 2.0 * (cards - 1) / cards * message_bytes
    return (cards - 1) / cards * message_bytes


def hops(collective: str, cards: int, algorithm: str = "ring") -> int:
    """Steps in sequence, each paying the link's latency once."""
    _check(collective, cards)
    if cards == 1:
        return 0
    if collective == "all_reduce":
        return 2 * math.ceil(math.log2(cards)) if algorithm == "tree" else 2 * (cards - 1)
    if collective in ("all_gather", "reduce_scatter"):
        return cards - 1
    return 1


def algorithms(collective: str) -> tuple:
    return ("ring", "tree") if collective == "all_reduce" else ("ring",)


@dataclass(frozen=True)
class CollectiveTime:
    seconds: float
    algorithm: str
    bytes_sent: float
    latency_seconds: float  # the hops' share of `seconds`


def floor_seconds(collective: str, message_bytes: float, cards: int, link) -> CollectiveTime:
    """The fastest algorithm's hops × latency + bytes sent / bandwidth on `link` (a topology.Link)."""
    best = None
    for algorithm in algorithms(collective):
        latency = hops(collective, cards, algorithm) * link.latency_seconds
        sent = bytes_sent(collective, message_bytes, cards, algorithm)
        seconds = latency + sent / link.bandwidth_bytes_per_second
        if best is None or seconds < best.seconds:
            best = CollectiveTime(seconds, algorithm, sent, latency)
    return best


# ---------------------------------------------------------------- the realistic cost, from fitted parameters

@lru_cache(maxsize=1)
def fitted_table() -> dict:
    with open(os.path.join(os.path.dirname(__file__), "collectives_fit.json"), encoding="utf-8") as file:
        return json.load(file)


def fitted_parameters(accelerator_name: str, collective: str, cards: int) -> dict | None:
    """{"latency_seconds", "bandwidth_fraction", ...} measured on this part (or the stand-in the table names) for the
    nearest group size measured at or below `cards`; None when nothing measured stands in."""
    table = fitted_table()
    part = table["stand_ins"].get(accelerator_name, accelerator_name)
    fits = table["fits"].get(part, {}).get(collective)
    if not fits:
        return None
    sizes = sorted(int(n) for n in fits)
    size = max([n for n in sizes if n <= cards] or sizes[:1])
    return fits[str(size)]


def realistic_seconds(collective: str, message_bytes: float, cards: int, link, accelerator_name: str,
                      one_node: bool = True) -> float | None:
    """Fitted per-call latency + bytes sent / (fitted fraction × link bandwidth); for an all-reduce inside one node
    the faster of NCCL and the engines' custom all-reduce (vLLM's, for small messages). None when no measurement
    stands in. The measurements are inside one node: on an inter-node link the fitted fraction is applied to that
    link's bandwidth, an extrapolation (the callers keep the result at or above the floor, whose hops pay the
    inter-node link's latency)."""
    lines = realistic_lines(collective, cards, link, accelerator_name, one_node)
    if lines is None:
        return None
    return min(intercept + slope * message_bytes for intercept, slope in lines)


def realistic_lines(collective: str, cards: int, link, accelerator_name: str, one_node: bool = True) -> tuple | None:
    """realistic_seconds as the least of lines in the message bytes: ((seconds at 0 bytes, seconds per byte), …),
    one per implementation measured (a simulator prices many steps at once with them); None when none stands in."""
    if cards == 1:
        return ((0.0, 0.0),)
    per_byte = bytes_sent(collective, 1.0, cards)  # bytes sent are proportional to the message
    lines = []
    # The engines' custom all-reduce (vLLM, SGLang) writes into its peers' memory over NVLink or PCIe peer access:
    # one node only. A group across nodes all-reduces with NCCL.
    custom = collective == "all_reduce" and one_node
    for name in ((collective, "custom_all_reduce") if custom else (collective,)):
        fit = fitted_parameters(accelerator_name, "all_to_all" if name == "send" else name, cards)
        if fit is not None:
            lines.append((fit["latency_seconds"], per_byte / (fit["bandwidth_fraction"] *
                                                              link.bandwidth_bytes_per_second)))
    return tuple(lines) or None


def floor_lines(collective: str, cards: int, link) -> tuple:
    """floor_seconds as the least of lines in the message bytes, one per algorithm (see realistic_lines)."""
    return tuple((hops(collective, cards, a) * link.latency_seconds,
                  bytes_sent(collective, 1.0, cards, a) / link.bandwidth_bytes_per_second)
                 for a in algorithms(collective))


def _check(collective: str, cards: int) -> None:
    if collective not in COLLECTIVES:
        raise BadWorkload(f"unknown collective {collective!r}; use one of {', '.join(COLLECTIVES)}")
    if isinstance(cards, bool) or not isinstance(cards, int) or cards < 1:
        raise BadWorkload(f"a collective needs a whole number of at least 1 card, got {cards!r}")
