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

    def to_dict(self) -> dict:
        document = asdict(self)
        document["warnings"] = list(self.warnings)
        return document


def activation_workspace_bytes(spec: ModelSpec, formats: Formats,
                               max_batched_tokens: int = defaults.MAX_BATCHED_TOKENS) -> float:
    """Peak activations of one step over max_batched_tokens (what vLLM's profile run measures), from the rows of
    that step: the largest operator's inputs and outputs held at once, the residual stream beside it, and the
    logits of one sampled position per sequence upcast to fp32 (sequences of 64 tokens assumed)."""
    sequences = max(1, max_batched_tokens // 64)
    step_rows = rows(spec, Step.prefill(max(1, max_batched_tokens // sequences), batch=sequences), formats)
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
) -> MemoryAccount:
    """The memory account of `spec` in `formats` (Formats.resolve(spec, ...)) on `num_gpus` of `accelerator`,
    each request holding `context_tokens` of cache."""
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


def longest_context(spec: ModelSpec, account: MemoryAccount, formats: Formats, concurrency: int) -> int:
    """The longest context (tokens) at which `concurrency` requests still fit in the KV budget (0 if none).
    Per-request KV is non-decreasing in context, so a bisection finds it."""
    if not isinstance(concurrency, int) or concurrency < 1:
        raise BadWorkload(f"concurrency must be a whole number of at least 1, got {concurrency!r}")
    if spec.is_bare:
        return 0
    budget = account.kv_budget_bytes / concurrency
    if budget <= 0 or kv_bytes_per_sequence(spec, formats, 1) > budget:
        return 0
    low, high = 1, max(spec.max_context_tokens or 0, 1 << 20)
    if kv_bytes_per_sequence(spec, formats, high) <= budget:
        return high  # only capped layers: memory never runs out before the model's maximum
    while low < high:
        mid = (low + high + 1) // 2
        if kv_bytes_per_sequence(spec, formats, mid) <= budget:
            low = mid
        else:
            high = mid - 1
    return low
