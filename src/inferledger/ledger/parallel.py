"""One step of a model spread over cards: each pipeline stage's card timed on its rows (communication included),
then the pipeline schedule.

With pp stages and a batch of B sequences, the engine cuts the batch into m = min(B, pp) microbatches of ⌈B/m⌉.
A microbatch passes every stage in turn (Σ_s t_s, the sends included in the stages' rows); stages work on
different microbatches at once, so a decode step of the whole batch takes max(Σ_s t_s, m · max_s t_s) and a
prefill Σ_s t_s + (m − 1) · max_s t_s (fill, then one more stage time per microbatch). With m < pp the stages
wait: the bubble, 1 − m · Σ_s t_s / (pp · step), is (pp − 1)/pp at batch 1 — pipeline parallel buys memory, not
speed, for a single request.

`sharded_step` is what a simulator needs for a per-step time of a sharded deployment.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace

from inferledger.ledger.roofline import StepTime, time_step
from inferledger.operators import Formats, Step, rows
from inferledger.parallelism import Parallelism


@dataclass(frozen=True)
class ShardedStep:
    seconds: float  # the whole batch's step through every stage, pipeline schedule applied
    stages: tuple  # StepTime of one card of each stage, at the microbatch size
    microbatches: int
    bubble_fraction: float  # share of stage-time the stages stand idle
    communication_seconds: float  # Σ over stages of one microbatch's collectives and sends
    realistic_communication_seconds: float | None  # the same with fitted collective costs (None: nothing measured)

    @property
    def communication_share(self) -> float:
        """Share of a microbatch's pass through the stages spent in collectives and sends."""
        busy = sum(s.seconds for s in self.stages)
        return self.communication_seconds / busy if busy else 0.0

    def as_step_time(self) -> StepTime:
        """The busiest stage's card (its rows, FLOPs and bytes) with the pipeline's step time."""
        busiest = max(self.stages, key=lambda s: s.seconds)
        return replace(busiest, seconds=self.seconds)

    def to_dict(self) -> dict:
        return {"seconds": self.seconds, "microbatches": self.microbatches, "bubble_fraction": self.bubble_fraction,
                "stage_seconds": [s.seconds for s in self.stages],
                "communication_seconds": self.communication_seconds,
                "communication_share": self.communication_share,
                "realistic_communication_seconds": self.realistic_communication_seconds,
                "link_bytes_per_card": max(s.link_bytes for s in self.stages)}


def check_layout(spec, accelerator, parallel: Parallelism, topology=None):
    """The topology the layout runs on, once the layout is known to be possible: the model's shapes allow it
    (sharding.check) and the cards of a replica, which talk to one another, are joined by links
    (more than a node needs an inter-node link). Raises BadWorkload naming the constraint."""
    from inferledger.hardware.topology import topology_for
    from inferledger.sharding import check

    check(spec, parallel)
    topology = topology or topology_for(accelerator)
    topology.link_for(parallel.cards_per_replica)
    return topology


def sharded_step(spec, step: Step, formats: Formats, accelerator, parallel: Parallelism, *, topology=None,
                 overhead_seconds: float = 0.0, main_dtype: str = "bf16") -> ShardedStep:
    """The time of `step` (the whole batch of one replica) on `parallel`; `topology` defaults to the accelerator's
    node (hardware.topology.topology_for)."""
    from inferledger.hardware.topology import topology_for

    topology = topology or topology_for(accelerator)
    microbatches = min(step.batch, parallel.pp)
    micro = replace(step, batch=math.ceil(step.batch / microbatches))
    stages = tuple(time_step(rows(spec, micro, formats, parallel=parallel, stage=s), accelerator, overhead_seconds,
                             main_dtype, topology) for s in range(parallel.pp))
    through = sum(s.seconds for s in stages)
    slowest = max(s.seconds for s in stages)
    if step.phase == "decode":
        seconds = max(through, microbatches * slowest)
    else:
        seconds = through + (microbatches - 1) * slowest
    bubble = 1.0 - microbatches * through / (parallel.pp * seconds) if seconds else 0.0
    realistic = [realistic_communication_seconds(s, accelerator, topology) for s in stages]
    return ShardedStep(seconds, stages, microbatches, max(0.0, bubble), sum(s.communication_seconds for s in stages),
                       None if None in realistic else sum(realistic))


def realistic_communication_seconds(step_time: StepTime, accelerator, topology) -> float | None:
    """The step's collectives at their fitted cost (collectives.realistic_seconds), each at least its floor (as in
    the realistic step, realistic.communication_estimate); None if one has no fit."""
    from inferledger.ledger.collectives import realistic_seconds

    total_seconds = 0.0
    for timed in step_time.rows:
        row = timed.row
        if not row.collective:
            continue
        seconds = realistic_seconds(row.collective, row.message_bytes, row.group_cards,
                                    topology.link_for(row.span_cards), accelerator.name,
                                    topology.within_node(row.span_cards))
        if seconds is None:
            return None
        total_seconds += max(seconds, timed.seconds) * row.count
    return total_seconds
