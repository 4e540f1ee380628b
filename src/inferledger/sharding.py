"""The rows of one card when a model is spread over several (parallelism.py says how): each module shrunk to the
share a card holds, the tokens a card sees, and the collectives between cards as rows of kind "communication".
Every per-card figure (weights, KV, FLOPs, bytes, bytes sent over links) stays a sum over these rows.

Tensor parallel follows Megatron as vLLM and SGLang run it: q/k/v, gate/up, in-projections, MLA's q_b/kv_b and the
head are split by output columns; o_proj, down_proj and out-projections by input rows, so each mixer and each FFN
ends in one all-reduce of the hidden state. Kept whole on every card: norms, the router, MLA's low-rank q_a/kv_a
projections (vLLM's ReplicatedLinear) and LatentMoE's latent projections. The embedding is split by vocabulary
(an all-reduce after the lookup) and the head's logits are gathered (an all-gather).

With attention data parallel, everything but the routed experts runs in attention_dp groups on each group's own
sequences; the routed experts span the tp cards: an all-to-all dispatch and combine when experts are split (ep > 1),
else an all-gather before and a reduce-scatter after. Without it, activations are whole on every tp card, so a card
runs its own experts on the tokens it has and the FFN's all-reduce combines them (no all-to-all).
"""

from __future__ import annotations

import math
from dataclasses import replace

from inferledger.errors import BadWorkload
from inferledger.ledger.collectives import bytes_sent
from inferledger.model.spec import (
    AttentionCore,
    Conv1d,
    Embedding,
    Experts,
    Linear,
    ModelSpec,
    StateCore,
)
from inferledger.operators import Formats, Row, Step, module_row, total
from inferledger.parallelism import Parallelism

# Linears every card keeps whole (small, or their output feeds every head).
REPLICATED = ("router", "shared.gate", "q_a_proj", "kv_a_proj_with_mqa", "indexer.wk", "indexer.weights_proj",
              "fc1_latent_proj", "fc2_latent_proj")
# Linears split by input rows: the last matmul of a mixer or an FFN (its partial sums are all-reduced).
ROW_PARALLEL = ("o_proj", "down_proj", "out_proj", "linear_attn", "linear_mlp")
ROUTED = ("experts", "fc1_latent_proj", "fc2_latent_proj")  # what spans the tp cards under attention data parallel


def stage_layers(num_layers: int, pp: int) -> list[range]:
    """Consecutive layers per pipeline stage; the first num_layers mod pp stages hold one more."""
    base, extra = divmod(num_layers, pp)
    out, start = [], 0
    for stage in range(pp):
        size = base + (1 if stage < extra else 0)
        out.append(range(start, start + size))
        start += size
    return out


def check(spec: ModelSpec, parallel: Parallelism) -> list[str]:
    """Raise BadWorkload naming the first constraint the layout breaks; return notes on what it replicates."""
    if spec.is_bare:
        raise BadWorkload("a bare parameter count has no heads or layers to split over cards; give --model")
    notes = []
    if parallel.pp > spec.num_layers:
        raise BadWorkload(f"--pp {parallel.pp} exceeds the model's {spec.num_layers} layers: each pipeline stage "
                          "needs at least one layer")
    attention_tp, tp = parallel.attention_tp, parallel.tp
    split = f"--tp {tp}" + (f" / --attention-dp {parallel.attention_dp} = {attention_tp}"
                            if parallel.attention_dp > 1 else "")
    has_experts = False
    for block, m in spec.modules():
        if isinstance(m, AttentionCore):
            if m.num_heads % attention_tp:
                raise BadWorkload(f"{split} does not divide the {m.num_heads} attention heads of {block.kind} "
                                  "layers: tensor parallel splits whole heads")
            kv = m.num_kv_heads
            if m.kind != "mla" and kv % attention_tp and attention_tp % kv:
                raise BadWorkload(f"{split} and the {kv} KV heads of {block.kind} layers: one must divide the "
                                  "other (KV heads are split, or each card keeps whole copies)")
            if m.kind != "mla" and kv < attention_tp:
                notes.append(f"{kv} KV heads over {attention_tp} cards: each card keeps one whole KV head "
                             f"(each head on {attention_tp // kv} cards), so the cache per card stops shrinking at "
                             f"tp {kv}")
            if m.kind == "mla" and attention_tp > 1:
                notes.append(f"MLA caches one latent shared by all heads: each of the {attention_tp} cards of a "
                             "tensor-parallel group keeps the whole cache of its sequences (attention data "
                             "parallel, --attention-dp, splits sequences instead)")
        elif isinstance(m, (StateCore, Conv1d)):
            size = m.state_elements if isinstance(m, StateCore) else m.channels
            if size % attention_tp:
                raise BadWorkload(f"{split} does not divide the {size:,} {m.name} elements of {block.kind} "
                                  "layers: tensor parallel splits a recurrent mixer by heads")
        elif isinstance(m, Experts):
            has_experts = True
            if m.num_experts % parallel.ep:
                raise BadWorkload(f"--ep {parallel.ep} does not divide the {m.num_experts} experts of "
                                  f"{block.kind} layers: expert parallel gives each card whole experts")
            if m.intermediate % parallel.expert_tp:
                raise BadWorkload(f"--tp {tp} / --ep {parallel.ep} = {parallel.expert_tp} does not divide the "
                                  f"experts' intermediate size {m.intermediate}")
        elif isinstance(m, Linear) and m.name.endswith(("gate_proj", "up_proj", "gate_up_proj")):
            cards = attention_tp  # dense FFNs and shared experts split like attention
            if m.out_features % cards:
                raise BadWorkload(f"--tp {cards} does not divide the FFN intermediate size {m.out_features} of "
                                  f"{block.kind} layers")
    if parallel.ep > 1 and not has_experts:
        raise BadWorkload(f"--ep {parallel.ep} needs a mixture-of-experts model; {spec.name} has no experts")
    return list(dict.fromkeys(notes))


def card_rows(spec: ModelSpec, step: Step, formats: Formats, parallel: Parallelism, *, stage: int | None = None,
              lm_head_last_only: bool = True) -> list[Row]:
    """The rows of one card of pipeline stage `stage` (default: the stage holding the most weight bytes)."""
    check(spec, parallel)
    stages = stage_layers(spec.num_layers, parallel.pp)
    if stage is None:
        if parallel.pp == 1:
            stage = 0
        else:
            weights = [total(_stage_rows(spec, step, formats, parallel, s, stages, lm_head_last_only),
                             "stored_weight_bytes") for s in range(parallel.pp)]
            stage = weights.index(max(weights))
    if isinstance(stage, bool) or not isinstance(stage, int) or not 0 <= stage < parallel.pp:
        raise BadWorkload(f"stage must be a whole number from 0 to {parallel.pp - 1}, got {stage!r}")
    return _stage_rows(spec, step, formats, parallel, stage, stages, lm_head_last_only)


def _stage_rows(spec, step, formats, parallel, stage, stages, lm_head_last_only) -> list[Row]:
    layers = set(stages[stage])
    first_layered = next(i for i, b in enumerate(spec.blocks) if b.layers)
    group_step = replace(step, batch=math.ceil(step.batch / parallel.attention_dp))
    out = []
    for index, block in enumerate(spec.blocks):
        if block.layers:
            count = sum(1 for layer in block.layers if layer in layers)
        else:  # the embedding (before the layers) on the first stage, final norm and head on the last
            count = int(stage == (0 if index < first_layered else parallel.pp - 1))
        if not count:
            continue
        attention = next((m for m in block.modules if isinstance(m, AttentionCore)), None)
        for m in block.modules:
            routed = m.name in ROUTED
            cards = parallel.tp if routed or parallel.attention_dp == 1 else parallel.attention_tp
            module = _shard(m, parallel, cards, attention)
            row = module_row(block.kind, module, count, step if routed else group_step,
                             formats.for_module(index, m.name) if formats.modules else formats, lm_head_last_only,
                             spec.tied_embeddings)
            out.append(row)
        out += _communication(spec, block, count, step, group_step, formats, parallel)
    if stage < parallel.pp - 1:
        # The hidden state of every token goes to the next stage: one send per boundary.
        message = step.tokens * spec.hidden_size * formats.activation_bytes
        out.append(_comm_row("pipeline", "send.next_stage", "send", 2, parallel.tp * parallel.pp, message, 1))
    return out


def _shard(m, parallel: Parallelism, cards: int, attention: AttentionCore | None):
    """The part of module `m` one card holds when split over `cards` cards."""
    if isinstance(m, Experts):
        # E/ep experts per card, each split over tp/ep cards; a token routes to top_k/ep of this card's experts on
        # average, and the expected distinct experts touched, E/ep·(1−(1−k/E)^t), keeps its form.
        return replace(m, num_experts=m.num_experts // parallel.ep, top_k=m.top_k / parallel.ep,
                       intermediate=m.intermediate // parallel.expert_tp)
    if cards == 1:
        return m
    if isinstance(m, AttentionCore):
        if m.kind == "mla":
            return replace(m, num_heads=m.num_heads // cards)  # the latent cache is whole on every card
        return replace(m, num_heads=m.num_heads // cards, num_kv_heads=max(1, m.num_kv_heads // cards))
    if isinstance(m, StateCore):
        return replace(m, state_elements=m.state_elements // cards, conv_elements=m.conv_elements // cards)
    if isinstance(m, Conv1d):
        return replace(m, channels=m.channels // cards)
    if isinstance(m, Embedding):
        if m.name == "embed_positions":
            return m
        return replace(m, rows=math.ceil(m.rows / cards))  # vocabulary-parallel
    if not isinstance(m, Linear) or m.name in REPLICATED:
        return m
    if m.name.endswith(ROW_PARALLEL):
        return replace(m, in_features=m.in_features // cards)
    if attention is not None and m.name in ("k_proj", "v_proj", "qkv_proj"):
        kv, per_card = attention.num_kv_heads, max(1, attention.num_kv_heads // cards)
        if m.name != "qkv_proj":
            return replace(m, out_features=m.out_features // kv * per_card)
        k_out = kv * attention.qk_head_dim
        v_out = 0 if attention.k_equals_v else kv * attention.v_head_dim
        q_out = m.out_features - k_out - v_out
        return replace(m, out_features=q_out // cards + (k_out + v_out) // kv * per_card)
    return replace(m, out_features=math.ceil(m.out_features / cards))


def _communication(spec, block, count, step, group_step, formats, parallel) -> list[Row]:
    """The collectives of one card in `count` layers of `block`."""
    hidden_bytes = spec.hidden_size * formats.activation_bytes
    tp, group_tp = parallel.tp, parallel.attention_tp
    components = {m.component for m in block.modules}
    experts = next((m for m in block.modules if isinstance(m, Experts)), None)
    out = []
    if "embedding" in components and group_tp > 1:
        out.append(_comm_row(block.kind, "all_reduce.embedding", "all_reduce", group_tp, group_tp,
                             group_step.tokens * hidden_bytes, count))
    if "lm_head" in components and group_tp > 1:
        head = next(m for m in block.modules if m.component == "lm_head")
        tokens = group_step.batch if group_step.phase == "prefill" else group_step.tokens
        out.append(_comm_row(block.kind, "all_gather.logits", "all_gather", group_tp, group_tp,
                             tokens * head.out_features * formats.activation_bytes, count))
    if any(c.startswith("attention.") for c in components) and group_tp > 1:
        out.append(_comm_row(block.kind, "all_reduce.mixer", "all_reduce", group_tp, group_tp,
                             group_step.tokens * hidden_bytes, count))
    has_ffn = any(c in ("ffn.dense", "ffn.shared_experts") for c in components)
    if experts is None:
        if has_ffn and group_tp > 1:
            out.append(_comm_row(block.kind, "all_reduce.ffn", "all_reduce", group_tp, group_tp,
                                 group_step.tokens * hidden_bytes, count))
        return out
    if parallel.attention_dp == 1:
        if tp > 1:  # routed and shared experts' partial sums together
            out.append(_comm_row(block.kind, "all_reduce.ffn", "all_reduce", tp, tp, step.tokens * hidden_bytes,
                                 count))
        return out
    if has_ffn and group_tp > 1:
        out.append(_comm_row(block.kind, "all_reduce.shared", "all_reduce", group_tp, group_tp,
                             group_step.tokens * hidden_bytes, count))
    if parallel.ep > 1:
        # Each card's share of the tokens goes to its top_k experts (each split over tp/ep cards), and back.
        message = step.tokens / tp * experts.top_k * parallel.expert_tp * hidden_bytes
        out.append(_comm_row(block.kind, "all_to_all.dispatch", "all_to_all", tp, tp, message, count))
        out.append(_comm_row(block.kind, "all_to_all.combine", "all_to_all", tp, tp, message, count))
    else:
        message = step.tokens * hidden_bytes
        out.append(_comm_row(block.kind, "all_gather.tokens", "all_gather", parallel.attention_dp, tp, message,
                             count))
        out.append(_comm_row(block.kind, "reduce_scatter.tokens", "reduce_scatter", parallel.attention_dp, tp,
                             message, count))
    return out


def _comm_row(block: str, name: str, collective: str, cards: int, span: int, message_bytes: float,
              count: int) -> Row:
    return Row(block, name, "communication", count, "communication", flops=0.0, weight_bytes=0.0,
               activation_bytes=0.0, kv_read_bytes=0.0, kv_write_bytes=0.0, weight_elements=0,
               active_weight_elements=0, compute_dtype="bf16", collective=collective, group_cards=cards,
               span_cards=span, message_bytes=float(message_bytes),
               link_bytes=bytes_sent(collective, message_bytes, cards))
