"""Where cards sit and what joins them: cards per node, the accelerator's own fast link (NVLink/NVSwitch, Infinity
Fabric, a bridge) inside its domain, PCIe between the other cards of a node, and an inter-node link (InfiniBand,
Ethernet) only when the user names one. Figures come from topology.json (per direction, with notes); every one can
be overridden.

A group of cards is placed on consecutive cards (the engines put the tp cards of a stage side by side), so the link a
collective crosses follows from how many cards it spans: within the fast domain, the fast link; within a node, PCIe;
beyond, the inter-node link. A ring is as fast as its slowest hop, so that link's bandwidth times the whole ring.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass
from functools import lru_cache

from inferledger.errors import BadWorkload, positive_number


@dataclass(frozen=True)
class Link:
    name: str
    bandwidth_bytes_per_second: float  # per direction, per card
    latency_seconds: float  # per hop of a collective

    def to_dict(self) -> dict:
        return {"name": self.name, "bandwidth_bytes_per_second": self.bandwidth_bytes_per_second,
                "latency_seconds": self.latency_seconds}


@dataclass(frozen=True)
class Topology:
    gpus_per_node: int
    fast_domain: int  # consecutive cards joined by `fast`
    fast: Link
    host: Link  # between cards of a node outside one fast domain
    inter_node: Link | None = None  # None: a deployment must fit in one node

    def link_for(self, span_cards: int) -> Link:
        """The slowest link a group spanning `span_cards` consecutive cards crosses."""
        if span_cards <= self.fast_domain:
            return self.fast
        if span_cards <= self.gpus_per_node:
            return self.host
        if self.inter_node is None:
            raise BadWorkload(f"{span_cards} cards that talk to one another span more than a node of "
                              f"{self.gpus_per_node}: name an inter-node link (--inter-node ib-ndr, roce-400, ...) "
                              "or use fewer cards")
        return self.inter_node

    def within_node(self, span_cards: int) -> bool:
        """Whether a group spanning `span_cards` consecutive cards stays inside one node."""
        return span_cards <= self.gpus_per_node

    def to_dict(self) -> dict:
        return {"gpus_per_node": self.gpus_per_node, "fast_domain": self.fast_domain, "fast": self.fast.to_dict(),
                "host": self.host.to_dict(),
                "inter_node": self.inter_node.to_dict() if self.inter_node else None}


@lru_cache(maxsize=1)
def _table() -> dict:
    with open(os.path.join(os.path.dirname(__file__), "topology.json"), encoding="utf-8") as file:
        return json.load(file)


def link_names() -> tuple:
    return tuple(_table()["links"])


def named_link(name: str) -> Link:
    links = _table()["links"]
    if name not in links:
        raise BadWorkload(f"unknown link {name!r}; use one of {', '.join(links)}")
    entry = links[name]
    return Link(entry["display_name"], float(entry["bandwidth_bytes_per_second"]), float(entry["latency_seconds"]))


def topology_for(accelerator, *, gpus_per_node: int | None = None, link_bandwidth_bytes_per_second: float | None = None,
                 inter_node: str | Link | None = None) -> Topology:
    """The node `accelerator` sits in (topology.json), with any figure overridden: cards per node, the per-direction
    bandwidth that joins them (given, it joins the whole node), and an inter-node link (a name from topology.json's
    links, or a Link)."""
    table = _table()
    node = table["nodes"].get(accelerator.name, table["default_node"])
    per_node = node["gpus_per_node"]
    if gpus_per_node is not None:
        if isinstance(gpus_per_node, bool) or not isinstance(gpus_per_node, int) or gpus_per_node < 1:
            raise BadWorkload(f"--gpus-per-node must be a whole number of at least 1, got {gpus_per_node!r}")
        per_node = gpus_per_node
    bandwidth = accelerator.interconnect_bandwidth_bytes_per_second
    if link_bandwidth_bytes_per_second is not None:
        bandwidth = positive_number(link_bandwidth_bytes_per_second, "the link bandwidth (--link-gb-s)")
    host = named_link(node["host_link"])
    if bandwidth is None:  # a part with no interconnect figure: its cards talk over PCIe
        fast, domain = host, 1
    else:
        fast = Link(accelerator.interconnect_name or "device link", float(bandwidth),
                    float(table["fast_link_latency_seconds"]))
        # A bandwidth the user gives is the one link between all cards of their node.
        domain = node["fast_domain"] if link_bandwidth_bytes_per_second is None else per_node
    if isinstance(inter_node, str):
        inter_node = named_link(inter_node)
    return Topology(per_node, min(domain, per_node), fast, host, inter_node)
