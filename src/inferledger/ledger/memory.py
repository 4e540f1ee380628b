"""The memory account: weights + KV cache + activation workspace + runtime overhead → how many requests fit.

Like vLLM, the engine may use `gpu_memory_utilization` of the card; from that it subtracts the weights, the
activation peak of one batch of `max_batched_tokens` and a runtime reserve (CUDA context, library workspaces,
graphs), and what is left holds KV cache. Both reserves are assumptions, stated as parameters.
"""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass

from inferledger.errors import BadWorkload
from inferledger.ledger.params import weight_bytes as stored_weight_bytes
from inferledger.model.spec import Experts, Linear, ModelSpec
from inferledger.operators import kv_bytes_per_sequence, kv_bytes_per_token
from inferledger.precision import Precision

GIB = 2**30
DEFAULT_RUNTIME_OVERHEAD_BYTES = 1 * GIB  # CUDA context + cuBLAS/NCCL workspaces, typical on a recent driver
DEFAULT_MAX_BATCHED_TOKENS = 8192  # vLLM's default chunked-prefill budget on a large GPU


@dataclass(frozen=True)
class MemoryAccount:
    accelerator: str
    memory_bytes: float
    gpu_memory_utilization: float
    usable_bytes: float
    weight_bytes: float
    activation_workspace_bytes: float
    runtime_overhead_bytes: float
    kv_budget_bytes: float  # what is left for KV cache (negative: the weights alone do not fit)
    context_tokens: int
    kv_bytes_per_token: float
    kv_bytes_per_request: float  # at context_tokens (sliding layers capped, recurrent state constant)
    max_concurrency: int  # requests of context_tokens that fit at once
    kv_tokens_capacity: int  # total cached tokens the budget holds (at kv_bytes_per_token)
    fits: bool
    shortfall_bytes: float  # how much is missing for one request (0 when it fits)

    def to_dict(self) -> dict:
        return asdict(self)


def activation_workspace_bytes(spec: ModelSpec, max_batched_tokens: int, activation_bytes: float = 2.0) -> float:
    """Peak activations of one forward over max_batched_tokens: the widest layer's input and output held at once
    (hidden + the widest projection), plus fp32 logits for one sampled position per sequence (approximated as
    max_batched_tokens / 64 sequences)."""
    widest = spec.hidden_size
    for _, m in spec.modules():
        if isinstance(m, Linear) and m.component != "lm_head":
            widest = max(widest, m.out_features)
        elif isinstance(m, Experts):
            widest = max(widest, m.matrices * m.intermediate)
    sequences = max(1, max_batched_tokens // 64)
    return max_batched_tokens * (2 * spec.hidden_size + widest) * activation_bytes + sequences * spec.vocab_size * 4


def memory_account(
    spec: ModelSpec,
    accelerator,
    weights: Precision,
    kv: Precision,
    context_tokens: int,
    *,
    gpu_memory_utilization: float = 0.9,
    runtime_overhead_bytes: float = DEFAULT_RUNTIME_OVERHEAD_BYTES,
    max_batched_tokens: int = DEFAULT_MAX_BATCHED_TOKENS,
    num_gpus: int = 1,
) -> MemoryAccount:
    if not 0 < gpu_memory_utilization <= 1:
        raise BadWorkload(f"--gpu-memory-utilization must be in (0, 1], got {gpu_memory_utilization}")
    if context_tokens < 1:
        raise BadWorkload(f"context must be at least 1 token, got {context_tokens}")
    memory = accelerator.memory_bytes * num_gpus
    usable = memory * gpu_memory_utilization
    weights_total = stored_weight_bytes(spec, weights)
    activation = activation_workspace_bytes(spec, max_batched_tokens, 4.0 if weights.name == "fp32" else 2.0)
    budget = usable - weights_total - activation - runtime_overhead_bytes * num_gpus
    per_token = kv_bytes_per_token(spec, kv)
    per_request = kv_bytes_per_sequence(spec, kv, context_tokens)
    concurrency = max(0, math.floor(budget / per_request)) if per_request > 0 else 0
    if per_request == 0 and budget > 0:
        concurrency = 2**31 - 1  # no cache at all: memory does not limit concurrency
    return MemoryAccount(
        accelerator=accelerator.name, memory_bytes=memory, gpu_memory_utilization=gpu_memory_utilization,
        usable_bytes=usable, weight_bytes=weights_total, activation_workspace_bytes=activation,
        runtime_overhead_bytes=runtime_overhead_bytes * num_gpus, kv_budget_bytes=budget,
        context_tokens=context_tokens, kv_bytes_per_token=per_token, kv_bytes_per_request=per_request,
        max_concurrency=concurrency, kv_tokens_capacity=max(0, math.floor(budget / per_token)) if per_token else 0,
        fits=concurrency >= 1, shortfall_bytes=max(0.0, per_request - budget),
    )


def longest_context(spec: ModelSpec, account: MemoryAccount, kv: Precision, concurrency: int) -> int:
    """The longest context (tokens) at which `concurrency` requests still fit in the KV budget (0 if none).
    Per-request KV is non-decreasing in context, so a bisection finds it."""
    if concurrency < 1:
        raise BadWorkload(f"concurrency must be at least 1, got {concurrency}")
    budget = account.kv_budget_bytes / concurrency
    if budget <= 0 or kv_bytes_per_sequence(spec, kv, 1) > budget:
        return 0
    low, high = 1, max(spec.max_context_tokens or 0, 1 << 20)
    if kv_bytes_per_sequence(spec, kv, high) <= budget:
        return high  # only capped layers: memory never runs out before the model's maximum
    while low < high:
        mid = (low + high + 1) // 2
        if kv_bytes_per_sequence(spec, kv, mid) <= budget:
            low = mid
        else:
            high = mid - 1
    return low


def weights_only_account(parameters: float, accelerator, weights: Precision, *, gpu_memory_utilization: float = 0.9,
                         runtime_overhead_bytes: float = DEFAULT_RUNTIME_OVERHEAD_BYTES, num_gpus: int = 1) -> dict:
    """For a bare parameter count: do the weights fit, and what is left (no architecture, so no KV per token)."""
    if parameters is None or parameters <= 0:
        raise BadWorkload(f"--params must be positive, got {parameters}")
    usable = accelerator.memory_bytes * num_gpus * gpu_memory_utilization
    weight_total = parameters * weights.bytes_per_element
    left = usable - weight_total - runtime_overhead_bytes * num_gpus
    return {"parameters": parameters, "precision": weights.name, "accelerator": accelerator.name,
            "usable_bytes": usable, "weight_bytes": weight_total, "runtime_overhead_bytes": runtime_overhead_bytes,
            "kv_budget_bytes": left, "fits": left > 0, "max_concurrency": None}
