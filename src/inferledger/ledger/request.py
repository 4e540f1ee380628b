"""The full account of one request: prefill (TTFT floor), decode (per token, growing with context), end to end,
memory, and next to it the seed chapter's simplified account with the difference explained.

Prefill is one step over ISL tokens per sequence. Decode is OSL steps of one token each at contexts ISL, ISL+1,
…, ISL+OSL−1; a step's cost is linear in context within each regime, so the sum is integrated with Simpson's
rule over the first, middle and last step (exact for linear rows, close where a row crosses a sliding window).
"""

from __future__ import annotations

import warnings
from dataclasses import asdict, dataclass, field

from inferledger.errors import BadWorkload
from inferledger.ledger.memory import MemoryAccount, memory_account
from inferledger.ledger.roofline import StepTime, peak_for, runs_at, time_step
from inferledger.model.spec import ModelSpec
from inferledger.operators import Formats, Row, Step, rows
from inferledger.precision import Precision, get_precision


@dataclass(frozen=True)
class Workload:
    isl: int  # input tokens per request
    osl: int  # output tokens per request
    batch: int = 1  # requests running together

    def __post_init__(self):
        for name in ("isl", "osl", "batch"):
            value = getattr(self, name)
            if not isinstance(value, int) or value < 1:
                raise BadWorkload(f"--{name} must be a whole number of at least 1, got {value!r}")


@dataclass(frozen=True)
class PrefillAccount:
    flops: float
    bytes: float
    intensity: float
    bound: str
    seconds: float
    tokens: int
    attention_flops: float  # softmax(QK^T)V over the context: quadratic in ISL (the rest is linear)
    seconds_by_component: dict

    to_dict = asdict


@dataclass(frozen=True)
class DecodeAccount:
    bytes_per_step: float  # at the middle step
    flops_per_step: float
    intensity: float
    bound: str
    seconds_per_token: float  # mean over the OSL steps (per sequence; all sequences of the batch advance together)
    first_token_seconds: float  # the step at context ISL
    last_token_seconds: float  # the step at context ISL+OSL−1: it grows with context (KV reads)
    seconds: float
    tokens_per_second: float  # batch × tokens per second of decode
    weight_bytes_per_step: float
    kv_read_bytes_per_step: float
    seconds_by_component: dict

    to_dict = asdict


@dataclass(frozen=True)
class SimplifiedAccount:
    """The seed chapter's back-of-envelope: prefill = 2·P·ISL / peak; decode = weight bytes / bandwidth."""

    parameters: float
    prefill_flops: float
    prefill_seconds: float
    decode_seconds_per_token: float
    decode_seconds: float
    total_seconds: float
    decode_token_over_prefill_token: float  # how many prefill tokens one decode token costs

    to_dict = asdict


@dataclass(frozen=True)
class RequestAccount:
    model: str
    accelerator: str
    weights: str
    kv: str
    workload: Workload
    prefill: PrefillAccount
    decode: DecodeAccount
    total_seconds: float
    memory: MemoryAccount | None
    simplified: SimplifiedAccount
    differences: tuple  # sentences explaining full vs simplified
    warnings: tuple = field(default=())
    operators: dict = field(default_factory=dict)  # {"prefill": [...], "decode": [...]}: the rows, timed

    @property
    def ttft_seconds(self) -> float:
        return self.prefill.seconds

    def to_dict(self) -> dict:
        return {
            "model": self.model, "accelerator": self.accelerator, "precision": self.weights,
            "kv_precision": self.kv,
            "workload": {"isl": self.workload.isl, "osl": self.workload.osl, "batch": self.workload.batch},
            "prefill": self.prefill.to_dict(), "decode": self.decode.to_dict(),
            "ttft_seconds": self.ttft_seconds, "total_seconds": self.total_seconds,
            "tokens_per_second": self.workload.batch * self.workload.osl / self.total_seconds,
            "memory": self.memory.to_dict() if self.memory else None,
            "simplified": self.simplified.to_dict(), "differences": list(self.differences),
            "warnings": list(self.warnings), "operators": self.operators,
        }


def bare_rows(parameters: float, step: Step, formats: Formats) -> list[Row]:
    """Rows for a bare parameter count (no architecture): one matmul over all weights; no attention, no cache."""
    tokens = step.tokens
    return [Row("model", "weights", "weights", 1, "linear", flops=2.0 * tokens * parameters,
                weight_bytes=parameters * formats.weights.bytes_per_element, activation_bytes=0.0,
                kv_read_bytes=0.0, kv_write_bytes=0.0, weight_elements=int(parameters),
                active_weight_elements=parameters, stored_weight_bytes=parameters * formats.weights.bytes_per_element,
                dequant_ops=parameters * formats.weights.dequant_ops_per_element if formats.weights.weight_only else 0,
                compute_dtype=formats.weights.compute_dtype)]


def _phase_rows(spec, parameters, step, formats):
    return rows(spec, step, formats) if spec is not None else bare_rows(parameters, step, formats)


def request_account(
    spec: ModelSpec | None,
    accelerator,
    *,
    isl: int,
    osl: int,
    batch: int = 1,
    precision: str | Precision | None = None,
    kv_precision: str | Precision | None = None,
    parameters: float | None = None,
    overhead_seconds_per_step: float = 0.0,
    gpu_memory_utilization: float = 0.9,
    context_tokens: int | None = None,
) -> RequestAccount:
    """The account of `batch` requests of ISL in / OSL out on one accelerator. Give a ModelSpec, or only a
    parameter count (`parameters=7e9`) for the seed's bare estimate. context_tokens: the per-request context the
    memory account sizes concurrency for (default ISL + OSL)."""
    workload = Workload(isl, osl, batch)
    if spec is None and not parameters:
        raise BadWorkload("give a model (--model) or a parameter count (--params)")
    if parameters is not None and parameters <= 0:
        raise BadWorkload(f"--params must be positive, got {parameters}")
    notes = []
    if spec is not None and spec.max_context_tokens and isl + osl > spec.max_context_tokens:
        notes.append(f"context {isl + osl} exceeds the model's maximum {spec.max_context_tokens}; "
                     "the account is extrapolated")
        warnings.warn(notes[-1], stacklevel=2)
    weights = _resolve_weights(spec, precision)
    kv = get_precision(kv_precision) if isinstance(kv_precision, str) else kv_precision
    formats = Formats.of(weights, kv)
    main_dtype = runs_at(accelerator, weights.compute_dtype)[0]

    def step_time(step: Step) -> StepTime:
        return time_step(_phase_rows(spec, parameters, step, formats), accelerator, overhead_seconds_per_step,
                         main_dtype)

    prefill_step = step_time(Step.prefill(isl, batch))
    attention_flops = sum(t.row.flops * t.row.count for t in prefill_step.rows if t.row.kind == "attention")
    prefill = PrefillAccount(prefill_step.flops, prefill_step.bytes, prefill_step.intensity, prefill_step.bound,
                             prefill_step.seconds, isl * batch, attention_flops, prefill_step.seconds_by("component"))

    first, middle, last = (step_time(Step.decode(c, batch)) for c in (isl, isl + (osl - 1) / 2, isl + osl - 1))
    decode_seconds = osl * (first.seconds + 4 * middle.seconds + last.seconds) / 6
    decode = DecodeAccount(
        bytes_per_step=middle.bytes, flops_per_step=middle.flops, intensity=middle.intensity, bound=middle.bound,
        seconds_per_token=decode_seconds / osl, first_token_seconds=first.seconds, last_token_seconds=last.seconds,
        seconds=decode_seconds, tokens_per_second=batch * osl / decode_seconds,
        weight_bytes_per_step=middle.weight_bytes, kv_read_bytes_per_step=middle.kv_read_bytes,
        seconds_by_component=middle.seconds_by("component"),
    )
    memory = None
    if spec is not None:
        if context_tokens is not None and context_tokens < 1:
            raise BadWorkload(f"--context must be at least 1 token, got {context_tokens}")
        memory = memory_account(spec, accelerator, weights, formats.kv, context_tokens or isl + osl,
                                gpu_memory_utilization=gpu_memory_utilization)
    simplified = simplified_account(spec, parameters, accelerator, weights, workload, main_dtype)
    full_total = prefill.seconds + decode.seconds
    return RequestAccount(
        model=spec.name if spec is not None else f"{parameters:.3g} parameters",
        accelerator=accelerator.name, weights=weights.name, kv=formats.kv.name, workload=workload,
        prefill=prefill, decode=decode, total_seconds=full_total, memory=memory, simplified=simplified,
        differences=tuple(_explain(prefill, decode, simplified, middle, spec is None)),
        warnings=tuple(notes),
        operators={"prefill": prefill_step.operator_table(), "decode": middle.operator_table()},
    )


def _resolve_weights(spec: ModelSpec | None, precision) -> Precision:
    if isinstance(precision, Precision):
        return precision
    if precision:
        return get_precision(precision)
    if spec is None:
        return get_precision("bf16")
    from inferledger.ledger.model_ledger import default_precision

    return default_precision(spec)


def simplified_account(spec, parameters, accelerator, weights: Precision, workload: Workload,
                       main_dtype: str) -> SimplifiedAccount:
    """2·P·ISL FLOP at peak for prefill; P × bytes per parameter at full bandwidth per decode token. P is the
    active parameter count (for MoE, what one token uses), from the same rows as everything else."""
    if spec is not None:
        from inferledger.ledger.params import count_parameters

        parameters = count_parameters(spec).active
    peak = peak_for(accelerator, main_dtype)
    prefill_flops = 2.0 * parameters * workload.isl * workload.batch
    prefill_seconds = prefill_flops / peak
    per_token = parameters * weights.bytes_per_element / accelerator.memory_bandwidth_bytes_per_second
    decode_seconds = per_token * workload.osl
    prefill_per_token = prefill_seconds / (workload.isl * workload.batch)
    return SimplifiedAccount(float(parameters), prefill_flops, prefill_seconds, per_token, decode_seconds,
                             prefill_seconds + decode_seconds, per_token / prefill_per_token)


def _explain(prefill, decode, simplified, middle: StepTime, bare: bool) -> list[str]:
    if bare:
        return ["bare parameter count: no attention FLOPs and no KV-cache reads are known; "
                "give --model for the full account"]
    out = []
    out.append(f"prefill: attention adds {prefill.attention_flops / 1e12:.1f} TFLOP "
               f"({prefill.attention_flops / prefill.flops:.0%} of the prefill) that 2·P·ISL leaves out; "
               f"full {prefill.seconds * 1e3:.1f} ms vs simplified {simplified.prefill_seconds * 1e3:.1f} ms")
    out.append(f"decode: each step also reads {middle.kv_read_bytes / 1e9:.2f} GB of KV cache at the middle "
               f"context (weights {middle.weight_bytes / 1e9:.2f} GB); full {decode.seconds_per_token * 1e3:.2f} ms "
               f"vs simplified {simplified.decode_seconds_per_token * 1e3:.2f} ms per token; the embedding table "
               "is not read per step (a token reads one row), which the simplified count includes")
    return out
