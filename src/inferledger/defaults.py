"""One default per concept. Every verb, every library function and every help text reads its default here, so
the same flag means the same thing everywhere.

Workload lengths follow the usual chat-shaped benchmark (1K in, 256 out); a memory account with no lengths given
sizes the cache for 8K tokens of context, the common serving limit. Engine figures are vLLM's defaults."""

from __future__ import annotations

ISL_TOKENS = 1024  # input tokens per request
OSL_TOKENS = 256  # output tokens per request
BATCH = 1  # requests running together
CONTEXT_TOKENS = 8192  # context per request for a memory account when neither ISL nor OSL is given
GPU_MEMORY_UTILIZATION = 0.9  # vLLM --gpu-memory-utilization
KV_BLOCK_TOKENS = 16  # vLLM --block-size: tokens per KV-cache block
MAX_BATCHED_TOKENS = 8192  # vLLM's chunked-prefill token budget per step on a large GPU: sizes the activation peak
MAX_NUM_SEQS = 256  # vLLM --max-num-seqs: sequences running at once (its long-standing server default)
SLO_TTFT_SECONDS = 1.0  # goodput: a request counts when its time to first token is at most this …
SLO_TPOT_SECONDS = 0.05  # … and its mean time per output token after the first at most this
RUNTIME_OVERHEAD_BYTES = 2**30  # per card: CUDA context, cuBLAS/NCCL workspaces (1 GiB, typical on a recent driver)
HIGH_PRECISION = "bf16"  # what a checkpoint that states no dtype is in, and the KV cache of a quantized checkpoint


def context_tokens(isl: int | None = None, osl: int | None = None, context: int | None = None) -> int:
    """The context a memory account sizes for: --context if given, else ISL + OSL (each defaulted when only the
    other is given), else CONTEXT_TOKENS."""
    if context is not None:
        return context
    if isl is None and osl is None:
        return CONTEXT_TOKENS
    return (ISL_TOKENS if isl is None else isl) + (OSL_TOKENS if osl is None else osl)
