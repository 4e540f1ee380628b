"""The operator rows of one forward step: the single source of truth for every count the tool prints.

rows(spec, step, weights, kv) lists, for each module of each distinct layer, the FLOPs it does, the bytes it moves
(weights, activations, KV cache read and written) and the parameters it holds, for the tokens of one step:
a prefill of `new_tokens` per sequence or a decode step of one token per sequence at a given cached context.
Prefill and decode are two calls to the same functions. Parameters, weight bytes, decode bytes per step and
prefill FLOPs are all sums over these rows, so they cannot disagree.

Conventions: a matmul of [m, k]·[k, n] costs 2·m·k·n FLOP. Activations move in 2 bytes (bf16/fp16) unless the
weights are fp32. Each weight is read once per step (no reuse across steps is assumed: it does not fit in cache).
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from functools import cached_property

from inferledger.defaults import HIGH_PRECISION
from inferledger.errors import require
from inferledger.model.spec import (
    AttentionCore,
    Conv1d,
    Embedding,
    Experts,
    Linear,
    ModelSpec,
    StateCore,
    Weights,
)
from inferledger.parallelism import Parallelism
from inferledger.precision import PRECISIONS, Precision, checkpoint_precision, get_precision


@dataclass(frozen=True)
class Step:
    """One forward step: `batch` sequences, each adding `new_tokens` to `context_tokens` already cached."""

    phase: str  # "prefill" | "decode"
    batch: int
    new_tokens: int
    context_tokens: int = 0

    @property
    def tokens(self) -> int:
        return self.batch * self.new_tokens

    @staticmethod
    def prefill(input_tokens: int, batch: int = 1, cached_tokens: int = 0) -> Step:
        return Step("prefill", batch, input_tokens, cached_tokens)

    @staticmethod
    def decode(context_tokens: int, batch: int = 1) -> Step:
        return Step("decode", batch, 1, context_tokens)


@dataclass(slots=True)  # not frozen: rows are built by the hundred per account, and a frozen init costs twice
class Row:
    """One operator of one distinct layer, `count` times in the model. Figures are per instance."""

    block: str
    name: str
    component: str
    count: int
    kind: str  # linear | experts | attention | state | norm | conv | embedding
    flops: float
    weight_bytes: float
    activation_bytes: float
    kv_read_bytes: float
    kv_write_bytes: float
    weight_elements: int  # parameters held
    active_weight_elements: float  # parameters one token uses (routed experts: top_k of E)
    stored_weight_bytes: float = 0.0  # bytes the held parameters occupy in their format (scales included)
    dequant_ops: float = 0.0  # vector ops to dequantize weight-only formats before the matmul
    compute_dtype: str = "bf16"
    output_elements: float = 0.0  # activation elements the operator writes in this step (logits, projections)
    phase: str = ""  # attention rows: the step's phase ("prefill" | "decode"), which decides how kernels run them
    # Communication rows only (kind "communication", see sharding.py): a collective over `group_cards` cards that
    # span `span_cards` consecutive cards, about a tensor of `message_bytes`, sending `link_bytes` per card (ring).
    collective: str = ""
    group_cards: int = 1
    span_cards: int = 1
    message_bytes: float = 0.0
    link_bytes: float = 0.0

    @property
    def bytes(self) -> float:
        return self.weight_bytes + self.activation_bytes + self.kv_read_bytes + self.kv_write_bytes

    @property
    def intensity(self) -> float:
        """FLOP per byte moved: below the accelerator's FLOPs:byte ratio the row is memory bound."""
        return self.flops / self.bytes if self.bytes else float("inf")


@dataclass(frozen=True)
class Formats:
    """Bytes per element for weights, the KV cache and activations."""

    weights: Precision
    kv: Precision
    high: Precision  # what unquantized tensors (embeddings, norms, routers, modules_to_not_convert) are kept in
    # ((block index, module name), Precision): what a checkpoint file states for its own tensors (a GGUF's
    # per-tensor quant types, mixed ones averaged over the block's layers). Such a module is stored and read in
    # that format, whatever `weights` and `high` say; empty for every format asked for by name.
    modules: tuple = ()

    @cached_property
    def _by_module(self) -> dict:
        return {key: replace(self, weights=p, high=p, modules=()) for key, p in self.modules}

    def for_module(self, block_index: int, name: str) -> Formats:
        """The formats one module's row uses: its checkpoint's own format when the file stated one."""
        return self._by_module.get((block_index, name), self)

    @property
    def activation_bytes(self) -> float:
        return 4.0 if self.weights.name == "fp32" else 2.0

    @staticmethod
    def of(weights: Precision, kv: Precision | None = None) -> Formats:
        """The KV cache defaults to the weights' format when they are 16 bits or more (an fp32 model caches fp32),
        else to bf16: a quantized checkpoint still computes and caches in 16 bits unless told otherwise."""
        high = PRECISIONS["fp32"] if weights.name == "fp32" else PRECISIONS[HIGH_PRECISION]
        if weights.bits >= 16:
            high = weights
        return Formats(weights, kv or (weights if weights.bits >= 16 else PRECISIONS[HIGH_PRECISION]), high)

    @staticmethod
    def resolve(spec: ModelSpec | None, precision: str | Precision | None = None,
                kv_precision: str | Precision | None = None) -> Formats:
        """The formats every verb runs at: the ones asked for, else the checkpoint's own weight format (its
        quantization_config, else its torch_dtype) and the KV rule of `of`."""
        if precision is not None:
            weights = get_precision(precision)
        elif spec is not None:
            weights = checkpoint_precision(spec.config_dtype, spec.quantization)
        else:
            weights = PRECISIONS[HIGH_PRECISION]
        formats = Formats.of(weights, get_precision(kv_precision) if kv_precision is not None else None)
        if precision is None and spec is not None and spec.module_formats:
            formats = replace(formats, modules=spec.module_formats)
        return formats


def expected_distinct_experts(num_experts: int, top_k: int, tokens: int) -> float:
    """Experts a step touches when `tokens` tokens each pick top_k of num_experts uniformly:
    E·(1 − (1 − k/E)^t). One token reads k experts; a large batch reads nearly all E (why MoE is cheap per
    request and dear in a batch). Real routers are skewed, which touches fewer."""
    if top_k >= num_experts:
        return float(num_experts)
    return num_experts * (1.0 - (1.0 - top_k / num_experts) ** tokens)


def attended_keys(kind: str, window: int | None, context: int, new_tokens: int) -> int:
    """Σ over the new tokens of how many keys each attends to (causal: itself and all before it).
    full: position p sees p+1 keys; sliding: min(p+1, window); chunked: (p mod window)+1."""
    first, last = context + 1, context + new_tokens  # keys seen by the first and last new token (full attention)
    if kind == "full" or not window:
        return (first + last) * new_tokens // 2
    if kind == "sliding":
        below = max(0, min(last, window) - first + 1)  # tokens that still see fewer than `window` keys
        low_sum = (first + first + below - 1) * below // 2 if below else 0
        return low_sum + (new_tokens - below) * window
    # chunked: positions restart their key count at each chunk boundary
    total, position = 0, context
    while position < context + new_tokens:
        in_chunk = position % window
        run = min(window - in_chunk, context + new_tokens - position)
        total += (in_chunk + 1 + in_chunk + run) * run // 2
        position += run
    return total


def cached_keys(core: AttentionCore, context_tokens: int) -> int:
    """Tokens this layer must keep in cache for one sequence at a given context (sliding/chunked layers cap)."""
    if core.window_tokens and core.kind in ("sliding", "chunked"):
        return min(context_tokens, core.window_tokens)
    return context_tokens


def _linear(block, m: Linear, count, step: Step, f: Formats, lm_head_last_only: bool) -> Row:
    tokens = step.tokens
    if lm_head_last_only and m.component == "lm_head" and step.phase == "prefill":
        tokens = step.batch  # prefill needs logits for the last position only
    fmt = f.weights if m.quantizable else f.high
    dequant = m.weight_elements * fmt.dequant_ops_per_element if fmt.weight_only else 0.0
    return Row(block, m.name, m.component, count, "linear",
               flops=2.0 * tokens * m.in_features * m.out_features,
               weight_bytes=m.weight_elements * fmt.bytes_per_element,
               activation_bytes=tokens * (m.in_features + m.out_features) * f.activation_bytes,
               kv_read_bytes=0.0, kv_write_bytes=0.0,
               weight_elements=m.weight_elements, active_weight_elements=m.weight_elements,
               stored_weight_bytes=m.weight_elements * fmt.bytes_per_element,
               dequant_ops=dequant, compute_dtype=fmt.compute_dtype, output_elements=tokens * m.out_features)


def _experts(block, m: Experts, count, step: Step, f: Formats) -> Row:
    touched = expected_distinct_experts(m.num_experts, m.top_k, step.tokens)
    return experts_row(block, m, count, step.tokens * m.top_k, touched, f)


def experts_row(block, m: Experts, count, routed: float, touched: float, f: Formats) -> Row:
    """The experts' row for `routed` token-expert pairs spread over `touched` distinct experts (a measured kernel
    states both; a model step derives them from its tokens under uniform routing)."""
    fmt = f.weights if m.quantizable else f.high
    per_expert_matmul = m.matrices * m.hidden * m.intermediate
    dequant = touched * per_expert_matmul * fmt.dequant_ops_per_element if fmt.weight_only else 0.0
    # Quantized formats cover the matrices; expert biases stay 16-bit (gpt-oss keeps them bf16 beside mxfp4).
    expert_bytes = per_expert_matmul * fmt.bytes_per_element + m.bias_elements_per_expert * f.high.bytes_per_element
    return Row(block, m.name, m.component, count, "experts",
               flops=2.0 * routed * per_expert_matmul,
               weight_bytes=touched * expert_bytes,
               activation_bytes=routed * (2 * m.hidden + m.matrices * m.intermediate) * f.activation_bytes,
               kv_read_bytes=0.0, kv_write_bytes=0.0,
               weight_elements=m.weight_elements, active_weight_elements=m.top_k * m.elements_per_expert,
               stored_weight_bytes=m.num_experts * expert_bytes, dequant_ops=dequant, compute_dtype=fmt.compute_dtype,
               output_elements=routed * m.hidden)


def _attention(block, m: AttentionCore, count, step: Step, f: Formats) -> Row:
    visits = step.batch * attended_keys(m.kind, m.window_tokens, step.context_tokens, step.new_tokens)
    if m.kind == "mla" and step.phase == "decode":
        # Absorbed MLA: scores over the latent + rope key, values over the latent, for every head.
        score_dim, value_dim = m.kv_lora_rank + m.qk_rope_head_dim, m.kv_lora_rank
    else:
        score_dim, value_dim = m.qk_head_dim, m.v_head_dim
    cache_bytes_per_token = m.cache_elements_per_token * f.kv.bytes_per_element
    # Decode reads every cached key it attends to; prefill (flash attention) streams the context once.
    read_tokens = step.batch * (cached_keys(m, step.context_tokens + step.new_tokens))
    return Row(block, m.name, m.component, count, "attention",
               flops=2.0 * visits * m.num_heads * (score_dim + value_dim),
               weight_bytes=0.0,
               activation_bytes=step.tokens * m.num_heads * (score_dim + value_dim) * f.activation_bytes,
               kv_read_bytes=read_tokens * cache_bytes_per_token,
               kv_write_bytes=step.tokens * cache_bytes_per_token,
               weight_elements=0, active_weight_elements=0,
               compute_dtype=f.kv.compute_dtype if f.kv.bits < 16 else "bf16",
               output_elements=step.tokens * m.num_heads * value_dim, phase=step.phase)


def _state(block, m: StateCore, count, step: Step, f: Formats) -> Row:
    # A recurrent update touches every state element a few times per token (decay, rank-1 update, readout).
    state_bytes = state_bytes_per_sequence(m, f.kv)
    return Row(block, m.name, m.component, count, "state",
               flops=8.0 * step.tokens * m.state_elements,
               weight_bytes=0.0, activation_bytes=0.0,
               kv_read_bytes=step.batch * state_bytes, kv_write_bytes=step.batch * state_bytes,
               weight_elements=0, active_weight_elements=0, compute_dtype="fp32")


def _weights(block, m: Weights, count, step: Step, f: Formats) -> Row:
    # A bare parameter count: every weight takes part in one matmul per token (2 FLOP each) and is read once per
    # step; with no architecture there is no attention, no cache and no activation shape to count.
    fmt = f.weights
    return Row(block, m.name, m.component, count, "linear",
               flops=2.0 * step.tokens * m.elements, weight_bytes=m.elements * fmt.bytes_per_element,
               activation_bytes=0.0, kv_read_bytes=0.0, kv_write_bytes=0.0,
               weight_elements=m.weight_elements, active_weight_elements=m.elements,
               stored_weight_bytes=m.elements * fmt.bytes_per_element,
               dequant_ops=m.elements * fmt.dequant_ops_per_element if fmt.weight_only else 0.0,
               compute_dtype=fmt.compute_dtype)


def _small(block, m, count, step: Step, f: Formats) -> Row:
    tokens = step.tokens
    if isinstance(m, Embedding):
        # A lookup reads one row per token, never the whole table (gpt-fast leaves it out of decode bytes too).
        # Active parameters count the whole table, as model cards do (Mixtral "12.9B active").
        rows_read = min(tokens, m.rows)
        return Row(block, m.name, m.component, count, "embedding", 0.0, rows_read * m.dim * f.high.bytes_per_element,
                   tokens * m.dim * f.activation_bytes, 0.0, 0.0, m.weight_elements, m.weight_elements,
                   m.weight_elements * f.high.bytes_per_element)
    if isinstance(m, Conv1d):
        return Row(block, m.name, m.component, count, "conv", 2.0 * tokens * m.channels * m.kernel,
                   m.weight_elements * f.high.bytes_per_element, 2 * tokens * m.channels * f.activation_bytes,
                   0.0, 0.0, m.weight_elements, m.weight_elements, m.weight_elements * f.high.bytes_per_element,
                   compute_dtype="fp32")
    # Vector: norms, biases, sinks, SSM scalars.
    return Row(block, m.name, m.component, count, "norm", float(m.flops_per_element * tokens * m.width),
               m.elements * f.high.bytes_per_element, 2 * tokens * m.width * f.activation_bytes, 0.0, 0.0,
               m.elements, m.elements, m.elements * f.high.bytes_per_element, compute_dtype="fp32")


def rows(spec: ModelSpec, step: Step, formats: Formats, lm_head_last_only: bool = True, *,
         parallel: Parallelism | None = None, stage: int | None = None) -> list[Row]:
    """The operator rows of one step, one per module of each distinct layer (its `count` says how many).
    With `parallel` (more than one card per replica): the rows of one card of pipeline stage `stage` (default: the
    stage holding the most weight bytes), modules sharded and communication rows added (sharding.py)."""
    require(spec, ModelSpec, "spec", "build one with inferledger.model.load_model(name)")
    require(step, Step, "step", "build one with Step.prefill(tokens) or Step.decode(context)")
    require(formats, Formats, "formats", "build one with Formats.resolve(spec, 'bf16')")
    if parallel is not None:
        require(parallel, Parallelism, "parallel", "build one with inferledger.parallelism.Parallelism(tp=8)")
    if parallel is not None and not parallel.is_single_card:
        from inferledger.sharding import card_rows

        return card_rows(spec, step, formats, parallel, stage=stage, lm_head_last_only=lm_head_last_only)
    # A GGUF's tensors carry their own formats (formats.modules); elsewhere every module has the same.
    return [module_row(block.kind, m, block.count, step,
                       formats.for_module(index, m.name) if formats.modules else formats,
                       lm_head_last_only, spec.tied_embeddings)
            for index, block in enumerate(spec.blocks) for m in block.modules]


def module_row(block: str, m, count: int, step: Step, formats: Formats, lm_head_last_only: bool = True,
               tied_embeddings: bool = False) -> Row:
    """The row of one module (of one layer, `count` such layers) in one step."""
    if isinstance(m, Linear):
        row = _linear(block, m, count, step, formats, lm_head_last_only)
        if m.component == "lm_head" and tied_embeddings:
            # Tied head: its weights are the embedding's (counted there), but the matmul reads them again.
            row = replace(row, weight_elements=0, active_weight_elements=0, stored_weight_bytes=0.0)
        return row
    if isinstance(m, Experts):
        return _experts(block, m, count, step, formats)
    if isinstance(m, AttentionCore):
        return _attention(block, m, count, step, formats)
    if isinstance(m, StateCore):
        return _state(block, m, count, step, formats)
    if isinstance(m, Weights):
        return _weights(block, m, count, step, formats)
    return _small(block, m, count, step, formats)


def total(rows_: list[Row], field: str) -> float:
    """Σ field × count over the rows."""
    return sum(getattr(r, field) * r.count for r in rows_)


def _kv_formats(kv: Precision | Formats) -> Formats:
    return kv if isinstance(kv, Formats) else Formats.of(PRECISIONS[HIGH_PRECISION], kv)


def kv_bytes_per_token(spec: ModelSpec, kv: Precision | Formats) -> float:
    """Cache bytes one more token of context costs (before any sliding-window cap): what a decode step writes
    into the attention layers' cache. Recurrent layers rewrite a constant state instead and do not count here."""
    return cache_bytes_written(rows(spec, Step.decode(context_tokens=0), _kv_formats(kv)))


def cache_bytes_written(decode_rows: list[Row]) -> float:
    """KV bytes one decode step of one sequence writes: the cost of one more token of context."""
    return sum(r.kv_write_bytes * r.count for r in decode_rows if r.kind == "attention")


def kv_bytes_per_sequence(spec: ModelSpec, kv: Precision | Formats, context_tokens: int) -> float:
    """Cache bytes one sequence holds at a context: exactly what the decode step that brings it to that context
    reads (attention layers: every cached key, sliding layers capped at their window; recurrent layers: the
    constant state)."""
    if context_tokens < 1:
        return 0.0
    return total(rows(spec, Step.decode(context_tokens=context_tokens - 1), _kv_formats(kv)), "kv_read_bytes")


def state_bytes_per_sequence(m: StateCore, kv: Precision) -> float:
    """A recurrent layer's constant per-sequence state: SSM/delta-rule state (in the dtype the config pins, e.g.
    Nemotron-3's float32 mamba_ssm_cache_dtype) plus the conv tail (in the cache format)."""
    return m.state_elements * (m.state_bytes_per_element or kv.bytes_per_element) + \
        m.conv_elements * kv.bytes_per_element
