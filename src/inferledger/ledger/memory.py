"""The memory account: weights + KV cache + activation workspace + runtime overhead → how many requests fit.

Like vLLM, the engine may use `gpu_memory_utilization` of the card; from that it subtracts the weights, the
activation peak of one step of `max_batched_tokens` and a runtime reserve per card (CUDA context, library
workspaces, graphs), and what is left holds KV cache. Every byte figure is a sum over operator rows; the two
reserves are assumptions, stated in defaults.py.
"""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass

from inferledger import defaults
from inferledger.errors import BadWorkload, require
from inferledger.model.spec import ModelSpec
from inferledger.operators import Formats, Step, cache_bytes_written, kv_bytes_per_sequence, rows, total
from inferledger.parallelism import Parallelism

GIB = 2**30
UNLIMITED = 2**31 - 1  # requests that fit when a model keeps no cache at all


@dataclass(frozen=True)
class MemoryAccount:
    accelerator: str
    num_gpus: int
    memory_bytes: float  # all cards together
    gpu_memory_utilization: float
    usable_bytes: float
    weight_bytes: float
    activation_workspace_bytes: float
    runtime_overhead_bytes: float  # all cards together: exactly what is subtracted
    kv_budget_bytes: float  # what is left for KV cache (negative: the weights alone do not fit)
    context_tokens: int
    kv_bytes_per_token: float | None  # None: a bare parameter count has no cache shape
    kv_bytes_per_request: float | None  # at context_tokens (sliding layers capped, recurrent state constant)
    max_concurrency: int | None  # requests of context_tokens that fit at once
    kv_tokens_capacity: int | None  # total cached tokens the budget holds (at kv_bytes_per_token)
    weights_fit: bool  # weights + workspace + reserve fit in the usable memory
    fits: bool  # at least one request of context_tokens fits (bare count: the weights fit)
    shortfall_bytes: float  # how much is missing for one request (0 when it fits)
    warnings: tuple = ()
    parallel: dict | None = None  # the layout, when the model spans cards (Parallelism.to_dict)
    per_card: dict | None = None  # the card that limits concurrency: its weights, workspace, reserve, KV budget

    @property
    def limiting_kv(self) -> tuple[float, float | None]:
        """(KV budget bytes, KV bytes per token) of the card that limits concurrency: per_card's for a layout, the
        one card's otherwise."""
        if self.per_card is not None:
            return self.per_card["kv_budget_bytes"], self.per_card["kv_bytes_per_token"]
        return self.kv_budget_bytes, self.kv_bytes_per_token

    def to_dict(self) -> dict:
        document = asdict(self)
        document["warnings"] = list(self.warnings)
        return document


def activation_workspace_bytes(spec: ModelSpec, formats: Formats,
                               max_batched_tokens: int = defaults.MAX_BATCHED_TOKENS, *,
                               parallel: Parallelism | None = None) -> float:
    """Peak activations of one step over max_batched_tokens (what vLLM's profile run measures), from the rows of
    that step: the largest operator's inputs and outputs held at once, the residual stream beside it, and the
    logits of one sampled position per sequence upcast to fp32 (sequences of 64 tokens assumed). With `parallel`,
    on one card (the rows of the stage holding the most weights)."""
    sequences = max(1, max_batched_tokens // 64)
    step_rows = rows(spec, Step.prefill(max(1, max_batched_tokens // sequences), batch=sequences), formats,
                     parallel=parallel)
    if not step_rows:
        return 0.0
    tokens = sequences * max(1, max_batched_tokens // sequences)
    largest = max(r.activation_bytes for r in step_rows)
    residual = tokens * spec.hidden_size * formats.activation_bytes
    logits = sum(r.output_elements * r.count for r in step_rows if r.component == "lm_head") * 4
    return largest + residual + logits


def memory_account(
    spec: ModelSpec,
    accelerator,
    formats: Formats,
    context_tokens: int = defaults.CONTEXT_TOKENS,
    *,
    gpu_memory_utilization: float = defaults.GPU_MEMORY_UTILIZATION,
    runtime_overhead_bytes: float = defaults.RUNTIME_OVERHEAD_BYTES,
    max_batched_tokens: int = defaults.MAX_BATCHED_TOKENS,
    num_gpus: int = 1,
    parallel: Parallelism | None = None,
) -> MemoryAccount:
    """The memory account of `spec` in `formats` (Formats.resolve(spec, ...)) on `num_gpus` of `accelerator`,
    each request holding `context_tokens` of cache. With `parallel` the account is kept per card (parallel_account);
    num_gpus is then its card count."""
    from inferledger.hardware.catalog import Accelerator

    require(spec, ModelSpec, "spec", "build one with inferledger.model.load_model(name)")
    require(accelerator, Accelerator, "accelerator", "build one with inferledger.hardware.find_accelerator(name)")
    require(formats, Formats, "formats", "build one with inferledger.operators.Formats.resolve(spec, 'bf16')")
    if not isinstance(gpu_memory_utilization, (int, float)) or not 0 < gpu_memory_utilization <= 1:
        raise BadWorkload(f"gpu_memory_utilization must be in (0, 1], got {gpu_memory_utilization}")
    if not isinstance(context_tokens, int) or context_tokens < 1:
        raise BadWorkload(f"context must be a whole number of at least 1 token, got {context_tokens!r}")
    if not isinstance(num_gpus, int) or num_gpus < 1:
        raise BadWorkload(f"the number of GPUs must be a whole number of at least 1, got {num_gpus!r}")
    if parallel is not None:
        require(parallel, Parallelism, "parallel", "build one with inferledger.parallelism.Parallelism(tp=8)")
        if num_gpus not in (1, parallel.cards):
            raise BadWorkload(f"num_gpus {num_gpus} differs from the layout's tp × pp × dp = {parallel.cards}")
        return parallel_account(spec, accelerator, formats, context_tokens, parallel,
                                gpu_memory_utilization=gpu_memory_utilization,
                                runtime_overhead_bytes=runtime_overhead_bytes, max_batched_tokens=max_batched_tokens)
    memory = accelerator.memory_bytes * num_gpus
    usable = memory * gpu_memory_utilization
    one_token = rows(spec, Step.decode(context_tokens=0), formats)  # holds every weight; writes one token of KV
    weights_total = total(one_token, "stored_weight_bytes")
    activation = activation_workspace_bytes(spec, formats, max_batched_tokens)
    reserve = runtime_overhead_bytes * num_gpus
    budget = usable - weights_total - activation - reserve
    notes = []
    if budget <= 0:
        notes.append(f"the weights ({weights_total / 1e9:,.2f} GB) with workspace and reserve need "
                     f"{(weights_total + activation + reserve) / 1e9:,.2f} GB but {num_gpus} × {accelerator.name} "
                     f"leaves {usable / 1e9:,.2f} GB usable: the model does not fit; use a lower precision or "
                     "more cards")
    if spec.is_bare:
        return MemoryAccount(
            accelerator.name, num_gpus, memory, gpu_memory_utilization, usable, weights_total, activation, reserve,
            budget, context_tokens, None, None, None, None, weights_fit=budget > 0, fits=budget > 0,
            shortfall_bytes=max(0.0, -budget),
            warnings=tuple(notes) + ("a bare parameter count has no cache or activation shape: the workspace is "
                                     "not counted and how many requests fit is unknown",))
    per_token = cache_bytes_written(one_token)
    per_request = kv_bytes_per_sequence(spec, formats, context_tokens)
    if per_request > 0:
        concurrency = max(0, math.floor(budget / per_request))
    else:
        concurrency = UNLIMITED if budget > 0 else 0  # no cache at all: memory does not limit concurrency
    if budget > 0 and concurrency < 1:
        notes.append(f"the weights fit but not one request of {context_tokens:,} tokens: its cache needs "
                     f"{per_request / 1e9:,.2f} GB and {budget / 1e9:,.2f} GB is left")
    return MemoryAccount(
        accelerator.name, num_gpus, memory, gpu_memory_utilization, usable, weights_total, activation, reserve,
        budget, context_tokens, per_token, per_request, concurrency,
        max(0, math.floor(budget / per_token)) if per_token else 0,
        weights_fit=budget > 0, fits=concurrency >= 1, shortfall_bytes=max(0.0, per_request - budget),
        warnings=tuple(notes))


def longest_context(spec: ModelSpec, account: MemoryAccount, formats: Formats, concurrency: int, *,
                    parallel: Parallelism | None = None) -> int:
    """The longest context (tokens) at which `concurrency` requests still fit in the KV budget (0 if none).
    Per-request KV is non-decreasing in context, so a bisection finds it. With `parallel` (the layout the account
    was made for) every stage's card must hold its share of the requests its attention group serves."""
    if not isinstance(concurrency, int) or concurrency < 1:
        raise BadWorkload(f"concurrency must be a whole number of at least 1, got {concurrency!r}")
    if spec.is_bare:
        return 0
    if parallel is None or account.per_card is None:
        budget = account.kv_budget_bytes / concurrency

        def fits(context: int) -> bool:
            return kv_bytes_per_sequence(spec, formats, context) <= budget
    else:
        groups = parallel.attention_dp * parallel.dp
        per_group = -(-concurrency // groups)
        budgets = account.per_card["kv_budget_bytes_by_stage"]

        def fits(context: int) -> bool:
            return all(card_kv_bytes_per_sequence(spec, formats, context, parallel, stage) * per_group <= budget
                       for stage, budget in enumerate(budgets))
    if not fits(1):
        return 0
    low, high = 1, max(spec.max_context_tokens or 0, 1 << 20)
    if fits(high):
        return high  # only capped layers: memory never runs out before the model's maximum
    while low < high:
        mid = (low + high + 1) // 2
        if fits(mid):
            low = mid
        else:
            high = mid - 1
    return low


def card_kv_bytes_per_sequence(spec: ModelSpec, formats: Formats, context_tokens: int, parallel: Parallelism,
                          stage: int) -> float:
    """Cache bytes one sequence holds on one card of `stage` (its attention group's share)."""
    step = Step.decode(context_tokens=context_tokens - 1)
    return total(rows(spec, step, formats, parallel=parallel, stage=stage), "kv_read_bytes")


def parallel_account(spec: ModelSpec, accelerator, formats: Formats, context_tokens: int, parallel: Parallelism, *,
                     gpu_memory_utilization: float, runtime_overhead_bytes: float,
                     max_batched_tokens: int) -> MemoryAccount:
    """The memory account card by card. Each card of a stage holds that stage's share of the weights, its own
    workspace and reserve, and the cache its attention group's sequences need on it; requests fit while every
    stage's card has room: min over stages of ⌊KV budget / KV per sequence⌋ sequences per attention group, times
    the attention-dp groups and the dp replicas. The account's whole-deployment figures sum the cards."""
    from inferledger.sharding import check

    notes = check(spec, parallel)
    usable_card = accelerator.memory_bytes * gpu_memory_utilization
    activation = activation_workspace_bytes(spec, formats, max_batched_tokens, parallel=parallel)
    one_token = [rows(spec, Step.decode(context_tokens=0), formats, parallel=parallel, stage=s)
                 for s in range(parallel.pp)]
    weights = [total(r, "stored_weight_bytes") for r in one_token]
    budgets = [usable_card - w - activation - runtime_overhead_bytes for w in weights]
    per_token = [cache_bytes_written(r) for r in one_token]
    per_sequence = [card_kv_bytes_per_sequence(spec, formats, context_tokens, parallel, s) for s in range(parallel.pp)]
    groups = parallel.attention_dp * parallel.dp

    def sequences(budget: float, size: float) -> int:
        if size <= 0:
            return UNLIMITED if budget > 0 else 0
        return max(0, math.floor(budget / size))

    per_stage = [sequences(b, q) for b, q in zip(budgets, per_sequence, strict=True)]
    limiting = per_stage.index(min(per_stage))
    concurrency = min(UNLIMITED, min(per_stage) * groups)
    tokens = min(sequences(b, t) for b, t in zip(budgets, per_token, strict=True)) * groups
    cards_per_stage = parallel.tp * parallel.dp
    holders = parallel.attention_tp  # cards that hold one sequence's cache, per stage
    if min(budgets) <= 0:
        stage = budgets.index(min(budgets))
        notes.insert(0, f"stage {stage}'s card needs {(weights[stage] + activation + runtime_overhead_bytes) / 1e9:,.2f}"
                        f" GB for weights, workspace and reserve but one {accelerator.name} leaves "
                        f"{usable_card / 1e9:,.2f} GB usable: the model does not fit; use more cards or a lower "
                        "precision")
    elif concurrency < 1:
        notes.insert(0, f"the weights fit but not one request of {context_tokens:,} tokens: its cache needs "
                        f"{per_sequence[limiting] / 1e9:,.2f} GB on a card of stage {limiting} and "
                        f"{budgets[limiting] / 1e9:,.2f} GB is left")
    per_card = {
        "stage": limiting, "memory_bytes": accelerator.memory_bytes, "usable_bytes": usable_card,
        "weight_bytes": weights[limiting], "activation_workspace_bytes": activation,
        "runtime_overhead_bytes": runtime_overhead_bytes, "kv_budget_bytes": budgets[limiting],
        "kv_bytes_per_token": per_token[limiting], "kv_bytes_per_request": per_sequence[limiting],
        "weight_bytes_by_stage": weights, "kv_budget_bytes_by_stage": budgets,
    }
    return MemoryAccount(
        accelerator.name, parallel.cards, accelerator.memory_bytes * parallel.cards, gpu_memory_utilization,
        usable_card * parallel.cards, sum(weights) * cards_per_stage, activation * parallel.cards,
        runtime_overhead_bytes * parallel.cards, sum(budgets) * cards_per_stage, context_tokens,
        sum(per_token) * holders, sum(per_sequence) * holders, concurrency, tokens,
        weights_fit=min(budgets) > 0, fits=concurrency >= 1,
        shortfall_bytes=max(0.0, per_sequence[limiting] - budgets[limiting]) if concurrency < 1 else 0.0,
        warnings=tuple(notes), parallel=parallel.to_dict(), per_card=per_card)
