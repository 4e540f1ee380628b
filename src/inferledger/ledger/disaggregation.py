"""Prefill and decode on separate cards (DistServe, Splitwise, Mooncake, NVIDIA Dynamo): how many prefill cards
one decode card needs for a workload, and what handing the KV cache over costs.

A decode instance running `batch` requests of OSL output tokens at TPOT(batch) per step finishes
batch / (OSL · TPOT) requests per second. A prefill instance, running prompts one after another, finishes
1 / TTFT per second (a long prompt is compute bound already, so batching prompts barely raises that rate). To keep the
decode instance full, prefill instances per decode instance = batch · TTFT / (OSL · TPOT); times the two instances'
card counts, prefill cards per decode card.

The handover: each prefill card sends its share of the prompt's cache (the ISL tokens of every layer) to the decode
card that holds the same share, all cards at once, over the link between the two instances — inside a node when
both fit in one, else the inter-node link. The floor below sends it after the prefill ends; engines that send layer
by layer hide most of it behind the prefill.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass

from inferledger.errors import BadWorkload
from inferledger.ledger.collectives import floor_seconds
from inferledger.ledger.memory import card_kv_bytes_per_sequence
from inferledger.operators import Formats, kv_bytes_per_sequence
from inferledger.parallelism import Parallelism


@dataclass(frozen=True)
class Disaggregation:
    prefill_layout: dict
    decode_layout: dict
    decode_batch: int
    ttft_seconds: float  # prefill on a prefill instance, before the handover
    tpot_seconds: float  # decode per step at decode_batch
    kv_bytes_per_request: float  # the prompt's cache, all cards of a prefill instance together
    kv_bytes_per_card: float  # what one prefill card sends
    kv_transfer_seconds: float
    link: str
    prefill_instances_per_decode_instance: float
    prefill_cards_per_decode_card: float

    to_dict = asdict


def disaggregation(spec, accelerator, formats: Formats, *, isl: int, osl: int, decode_batch: int,
                   prefill_parallel: Parallelism | None = None, decode_parallel: Parallelism | None = None,
                   topology=None, overhead_seconds: float = 0.0) -> Disaggregation:
    """The split for ISL/OSL requests, decode instances running `decode_batch` at once."""
    from inferledger.hardware.topology import topology_for
    from inferledger.ledger.request import request_account

    prefill_parallel = prefill_parallel or Parallelism()
    decode_parallel = decode_parallel or Parallelism()
    if spec.is_bare:
        raise BadWorkload("a bare parameter count has no KV cache to hand over; give --model")
    topology = topology or topology_for(accelerator)
    common = dict(precision=formats.weights, kv_precision=formats.kv, overhead_seconds_per_step=overhead_seconds,
                  topology=topology)
    prefill = request_account(spec, accelerator, isl=isl, osl=1, batch=1, parallel=prefill_parallel, **common)
    decode = request_account(spec, accelerator, isl=isl, osl=osl, batch=decode_batch, parallel=decode_parallel,
                             **common)
    kv_request = kv_bytes_per_sequence(spec, formats, isl)
    if prefill_parallel.is_single_card:
        kv_card = kv_request
    else:
        kv_card = max(card_kv_bytes_per_sequence(spec, formats, isl, prefill_parallel, stage)
                      for stage in range(prefill_parallel.pp))
    both = prefill_parallel.cards_per_replica + decode_parallel.cards_per_replica
    if both > topology.gpus_per_node and topology.inter_node is None:
        raise BadWorkload(f"a prefill instance and a decode instance ({prefill_parallel.cards_per_replica} + "
                          f"{decode_parallel.cards_per_replica} cards) do not fit in one node of "
                          f"{topology.gpus_per_node}: name the link between them (--inter-node ib-ndr, roce-400, ...)")
    link = topology.link_for(both)
    transfer = floor_seconds("send", kv_card, 2, link).seconds
    ttft, tpot = prefill.prefill.seconds, decode.decode.seconds_per_token
    instances = decode_batch * ttft / (osl * tpot)
    return Disaggregation(
        prefill_parallel.to_dict(), decode_parallel.to_dict(), decode_batch, ttft, tpot, kv_request, kv_card,
        transfer, link.name, instances,
        instances * prefill_parallel.cards_per_replica / decode_parallel.cards_per_replica)
