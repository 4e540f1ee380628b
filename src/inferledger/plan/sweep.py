"""Which card: a closed-form sweep of cards × precisions × batch limits for one workload and an SLO, ranked by
dollars per million output tokens.

Each configuration is the engine's steady state at saturation, in closed form on the mixed-step model (the same
operator rows and step-time source as the simulator): `d` sequences decode every step, and to keep the batch full
each step also prefills the prompts of the d / OSL requests that replace those that finished, d · ISL / OSL tokens.
So d = min(batch limit, sequences the KV cache holds at the mean context ISL + OSL / 2, budget · OSL / (ISL + OSL))
and one step takes t = step time(d decodes at the mean context + that prefill). Then
    output tokens/s = d / t,   requests/s (the most it sustains) = d / (OSL · t),   TPOT ≈ t,
    TTFT ≈ t × ⌈p95 ISL / (budget − d)⌉ (the steps a prompt's chunks take, before any queueing),
    $ per million output tokens = $/hour ÷ 3600 ÷ (d / t) × 1e6.
Means and p95s of the trace stand for its distribution: confirm a choice with `inferledger simulate`, which sees
queueing, the spread of lengths and the tails.

Layouts: a configuration is a card, a format, a batch limit and a layout (ledger/parallel.py). The step is one card's
sharded rows with their collectives (the simulator's step model), the KV cache one card's budget, and a deployment
of tp × dp cards costs $/card-hour × cards and serves dp replicas' throughput. Searching (`layouts="search"`), each
card takes tp ∈ {1, 2, 4, 8} within its node (with ep = tp as well for a mixture of experts) and dp replicas filling
the node, every layout that check_layout refuses skipped with its reason. dp leaves $ per token unchanged: it adds
throughput and cards alike.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np

from inferledger import defaults
from inferledger.errors import BadWorkload
from inferledger.simulate.step_model import decode_keys, sequence_keys

SEARCHED_TP = (1, 2, 4, 8)
DEFAULT_BATCH_LIMITS = (1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 1024)
DEFAULT_PRECISIONS = ("bf16", "fp8", "int8", "int4")


@dataclass(frozen=True)
class Shape:
    """The workload as the closed form sees it: mean lengths (throughput) and the p95 prompt (TTFT)."""

    isl: float
    osl: float
    cached: float
    isl_p95: float

    @staticmethod
    def of(trace) -> Shape:
        return Shape(float(trace.input_tokens.mean()), float(trace.output_tokens.mean()),
                     float(trace.cached_tokens.mean()), float(np.percentile(trace.input_tokens, 95)))


def steady_state(cost, shape: Shape, batch_limits: np.ndarray, kv_sequences: float,
                 max_batched_tokens: int = defaults.MAX_BATCHED_TOKENS) -> dict:
    """The closed form (module docstring) for one model, format and card (`cost`, a StepCost) at each batch limit:
    arrays keyed decoding, limited_by, step_seconds, ttft_seconds, output_tokens_per_s, requests_per_s."""
    limits = np.asarray(batch_limits, dtype=np.float64)
    new = max(shape.isl - shape.cached, 1.0)
    by_budget = max_batched_tokens * shape.osl / (shape.osl + new)
    decoding = np.minimum(np.minimum(limits, kv_sequences), by_budget)
    limited_by = np.where(decoding == limits, "max-num-seqs", np.where(decoding == kv_sequences, "kv cache",
                                                                        "token budget"))
    model, layouts = cost.model, cost.model.layouts
    g = len(layouts)
    x = np.zeros((limits.size, model.feature_count))
    x[:, 0] = 1.0
    finishing = decoding / shape.osl  # prompts completed per step
    x[:, 1] = finishing * new
    x[:, 2] = finishing
    context = int(round(shape.isl + shape.osl / 2))
    for k, layout in enumerate(layouts):
        attended, read = sequence_keys(layout, int(round(new)), int(round(shape.cached)))
        x[:, 3 + 2 * k], x[:, 4 + 2 * k] = finishing * attended, finishing * read
        attended, read = decode_keys(layout, np.array([context]))
        x[:, 4 + 2 * g + 2 * k], x[:, 5 + 2 * g + 2 * k] = decoding * attended[0], decoding * read[0]
    x[:, 3 + 2 * g] = decoding
    step = cost.seconds(x)
    chunks = np.ceil(max(shape.isl_p95 - shape.cached, 1.0) / np.maximum(max_batched_tokens - decoding, 1.0))
    return {"decoding": decoding, "limited_by": limited_by, "step_seconds": step, "ttft_seconds": chunks * step,
            "output_tokens_per_s": decoding / step, "requests_per_s": decoding / (shape.osl * step)}


@dataclass(frozen=True)
class Plan:
    model: str
    workload: str
    shape: Shape
    slo: object
    step_cost: dict  # the source and assumptions (of the first configuration; all share them)
    configurations: list  # dicts, SLO-meeting ones first, cheapest first
    skipped: list = field(default_factory=list)  # (card, precision, reason); reason names the layout if any

    def to_dict(self) -> dict:
        meeting = [c for c in self.configurations if c["meets_slo"]]
        return {"model": self.model, "workload": self.workload,
                "shape": {"isl_mean": self.shape.isl, "osl_mean": self.shape.osl,
                          "cached_mean": self.shape.cached, "isl_p95": self.shape.isl_p95},
                "slo": {"ttft_seconds": self.slo.ttft_seconds, "tpot_seconds": self.slo.tpot_seconds},
                "step_cost": self.step_cost, "best": meeting[0] if meeting else None,
                "configurations": self.configurations,
                "skipped": [{"accelerator": a, "precision": p, "reason": r} for a, p, r in self.skipped]}


def searched_layouts(spec, formats, gpus_per_node: int) -> list:
    """The layouts `plan` tries on a node of `gpus_per_node` cards (module docstring); validity is checked later."""
    from inferledger.operators import Step, rows
    from inferledger.parallelism import Parallelism

    moe = any(r.kind == "experts" for r in rows(spec, Step.decode(0), formats))
    out = []
    for tp in SEARCHED_TP:
        if tp > gpus_per_node:
            break
        for ep in sorted({1, tp} if moe else {1}):
            out.append(Parallelism(tp=tp, ep=ep, dp=max(1, gpus_per_node // tp)))
    return out


def plan(spec, trace, cards, precisions, prices: dict, slo, *, batch_limits=DEFAULT_BATCH_LIMITS,
         kv_precision=None, max_batched_tokens: int = defaults.MAX_BATCHED_TOKENS,
         gpu_memory_utilization: float = defaults.GPU_MEMORY_UTILIZATION, cost_options: dict | None = None,
         require_slo: bool = True, layouts=None, topology_options: dict | None = None) -> Plan:
    """Sweep `cards` (Accelerators) × `precisions` × `batch_limits` × `layouts` (a list of Parallelism, "search"
    for the module docstring's, None for one card); rank by $ per million output tokens among the configurations
    meeting `slo`. With require_slo, none meeting it is an error naming the closest. `topology_options`: keyword
    arguments of hardware.topology.topology_for (the node's links)."""
    from inferledger.errors import InferledgerError
    from inferledger.hardware.topology import topology_for
    from inferledger.ledger.memory import memory_account
    from inferledger.ledger.parallel import check_layout
    from inferledger.operators import Formats
    from inferledger.parallelism import Parallelism
    from inferledger.simulate import build_step_model, step_cost

    shape = Shape.of(trace)
    limits = np.asarray(sorted(set(int(b) for b in batch_limits)), dtype=np.int64)
    if limits.size == 0 or limits[0] < 1:
        raise BadWorkload("batch limits must be whole numbers ≥ 1")
    rows, skipped, described = [], [], None
    models: dict = {}  # one step model per format and sharding (dp does not change a card's rows)
    for precision in precisions:
        formats = Formats.resolve(spec, precision, kv_precision)
        for card in cards:
            price = prices.get(card.name)
            if price is None:
                skipped.append((card.name, formats.weights.name, "no price: give one with --prices"))
                continue
            topology = topology_for(card, **(topology_options or {}))
            tried = (searched_layouts(spec, formats, topology.gpus_per_node) if layouts == "search"
                     else layouts or [Parallelism()])
            for layout in tried:
                where = "" if layout.cards == 1 else f" on {layout.cards} cards ({layout.label()})"
                try:
                    check_layout(spec, card, layout, topology)
                except InferledgerError as error:
                    skipped.append((card.name, formats.weights.name, f"{layout.label()}: {error}"))
                    continue
                sharded = None if layout.is_single_card else layout
                account = memory_account(spec, card, formats, max(1, int(round(shape.isl + shape.osl))),
                                         gpu_memory_utilization=gpu_memory_utilization,
                                         max_batched_tokens=max_batched_tokens, parallel=sharded)
                if not account.fits:
                    skipped.append((card.name, formats.weights.name, f"does not fit{where} (weights, workspace and "
                                    "one request's KV exceed the card)"))
                    continue
                budget, per_token = account.limiting_kv
                kv_sequences = budget / per_token / (shape.isl + shape.osl / 2) if per_token else math.inf
                key = (formats, layout.tp, layout.ep, layout.attention_dp, layout.pp)
                if key not in models:
                    replica = None if sharded is None else Parallelism(tp=layout.tp, pp=layout.pp, ep=layout.ep,
                                                                       attention_dp=layout.attention_dp)
                    models[key] = build_step_model(spec, formats, max_step_tokens=max_batched_tokens +
                                                   int(limits[-1]), parallel=replica)
                cost = step_cost(models[key], card, topology=topology, **(cost_options or {}))
                described = described or cost.describe()
                state = steady_state(cost, shape, limits, kv_sequences, max_batched_tokens)
                rows.extend(_records(card, formats, layout, price.usd_per_hour, limits, state, slo))
    if not rows:
        raise BadWorkload("no configuration to rank: " + "; ".join(f"{a} {p}: {r}" for a, p, r in skipped[:4]))
    rows.sort(key=lambda r: (not r["meets_slo"], r["usd_per_million_output_tokens"]))
    if require_slo and not rows[0]["meets_slo"]:
        closest = min(rows, key=lambda r: max(r["ttft_seconds"] / slo.ttft_seconds,
                                              r["tpot_seconds"] / slo.tpot_seconds))
        raise BadWorkload(
            f"no configuration meets TTFT ≤ {slo.ttft_seconds * 1e3:g} ms and TPOT ≤ {slo.tpot_seconds * 1e3:g} ms; "
            f"the closest is {closest['accelerator']} {closest['precision']} at {closest['max_num_seqs']} sequences "
            f"(TTFT {closest['ttft_seconds'] * 1e3:,.0f} ms, TPOT {closest['tpot_seconds'] * 1e3:,.1f} ms): relax "
            "the SLO or add faster cards")
    return Plan(spec.name, trace.source, shape, slo, described, rows, skipped)


def _records(card, formats, layout, usd_per_card_hour: float, limits, state: dict, slo) -> list[dict]:
    """One result record per batch limit: dp replicas' throughput, the price of every card of the layout."""
    replicas, cards = layout.dp, layout.cards
    tokens = state["output_tokens_per_s"] * replicas
    dollars = usd_per_card_hour * cards / 3600 / tokens * 1e6
    meets = (state["ttft_seconds"] <= slo.ttft_seconds) & (state["step_seconds"] <= slo.tpot_seconds)
    shared = {"accelerator": card.name, "precision": formats.weights.name, "kv_precision": formats.kv.name,
              "cards": cards, "tp": layout.tp, "ep": layout.ep, "dp": replicas, "layout": layout.label(),
              "usd_per_hour": usd_per_card_hour * cards}
    return [shared | {
        "max_num_seqs": limit, "decoding": float(state["decoding"][i]), "limited_by": str(state["limited_by"][i]),
        "tpot_seconds": float(state["step_seconds"][i]), "ttft_seconds": float(state["ttft_seconds"][i]),
        "output_tokens_per_s": float(tokens[i]), "max_requests_per_s": float(state["requests_per_s"][i] * replicas),
        "usd_per_million_output_tokens": float(dollars[i]), "meets_slo": bool(meets[i])}
        for i, limit in enumerate(limits.tolist())]
