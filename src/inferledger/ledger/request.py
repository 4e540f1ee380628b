"""The full account of one request: prefill (TTFT floor), decode (per token, growing with context), end to end,
memory, and next to it the seed chapter's simplified account with the difference explained.

Prefill is one step over ISL tokens per sequence. Decode is OSL steps of one token each at contexts ISL, ISL+1,
…, ISL+OSL−1. A step's cost is linear in context between the contexts where a sliding window fills or an
attention chunk restarts, so the steps are summed piece by piece between those contexts, each piece exactly
(n steps of a linear cost sum to n × the mean of the first and last).
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field

from inferledger import defaults
from inferledger.errors import BadWorkload, positive_number, require
from inferledger.ledger.memory import MemoryAccount, memory_account
from inferledger.ledger.roofline import StepTime, peak_for, runs_at, time_step
from inferledger.model.spec import ModelSpec
from inferledger.operators import Formats, Step, rows
from inferledger.precision import Precision


@dataclass(frozen=True)
class Workload:
    isl: int  # input tokens per request
    osl: int  # output tokens per request
    batch: int = 1  # requests running together

    def __post_init__(self):
        for name in ("isl", "osl", "batch"):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, int) or value < 1:
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
class RealisticAccount:
    """The same request at the time real kernels take (ledger/realistic.py), beside the floor."""

    prefill_seconds: float
    prefill_seconds_by_component: dict
    decode_seconds_per_token: float  # mean over the OSL steps
    decode_seconds: float
    decode_seconds_by_component: dict  # the middle decode step
    total_seconds: float
    overhead_seconds_per_step: float
    extrapolated: bool
    notes: tuple
    calibration: dict  # where the parameters come from: {"source", "fitted_on"}
    losses: dict  # phase -> [{"operator", "seconds", "floor_seconds"}], most time lost first

    def to_dict(self) -> dict:
        return {
            "prefill": {"seconds": self.prefill_seconds, "seconds_by_component": self.prefill_seconds_by_component},
            "decode": {"seconds_per_token": self.decode_seconds_per_token, "seconds": self.decode_seconds,
                       "seconds_by_component": self.decode_seconds_by_component},
            "total_seconds": self.total_seconds, "overhead_seconds_per_step": self.overhead_seconds_per_step,
            "extrapolated": self.extrapolated, "notes": list(self.notes), "calibration": dict(self.calibration),
            "losses": {phase: list(rows) for phase, rows in self.losses.items()},
        }


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
    memory: MemoryAccount
    simplified: SimplifiedAccount
    differences: tuple  # sentences explaining full vs simplified
    warnings: tuple = field(default=())
    operators: dict = field(default_factory=dict)  # {"prefill": [...], "decode": [...]}: the rows, timed
    realistic: RealisticAccount | None = None

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
            "memory": self.memory.to_dict(),
            "simplified": self.simplified.to_dict(), "differences": list(self.differences),
            "warnings": list(self.warnings), "operators": self.operators,
            **({"realistic": self.realistic.to_dict()} if self.realistic is not None else {}),
        }


def request_account(
    spec: ModelSpec | None,
    accelerator,
    *,
    isl: int = defaults.ISL_TOKENS,
    osl: int = defaults.OSL_TOKENS,
    batch: int = defaults.BATCH,
    precision: str | Precision | None = None,
    kv_precision: str | Precision | None = None,
    parameters: float | None = None,
    overhead_seconds_per_step: float = 0.0,
    gpu_memory_utilization: float = defaults.GPU_MEMORY_UTILIZATION,
    context_tokens: int | None = None,
    realistic: bool = True,
    calibration=None,
) -> RequestAccount:
    """The account of `batch` requests of ISL in / OSL out on one accelerator. Give a ModelSpec, or only a
    parameter count (`parameters=7e9`) for the seed's bare estimate. Formats default to the checkpoint's.
    context_tokens: the per-request context the memory account sizes concurrency for (default ISL + OSL).
    realistic: also estimate the time real kernels take, with `calibration` (default: the bundled one)."""
    from inferledger.hardware.catalog import Accelerator

    workload = Workload(isl, osl, batch)
    require(accelerator, Accelerator, "accelerator", "build one with inferledger.hardware.find_accelerator(name)")
    if spec is None:
        if parameters is None:
            raise BadWorkload("give a model (--model) or a parameter count (--params)")
        spec = ModelSpec.bare(positive_number(parameters, "the parameter count (--params)"))
    elif parameters is not None:
        raise BadWorkload("give a model or a parameter count, not both")
    require(spec, ModelSpec, "spec", "build one with inferledger.model.load_model(name), or pass spec=None "
                                     "and parameters=7e9")
    overhead = positive_number(overhead_seconds_per_step, "the overhead per step (--overhead-ms)", allow_zero=True)
    if context_tokens is not None and (not isinstance(context_tokens, int) or context_tokens < 1):
        raise BadWorkload(f"--context must be a whole number of at least 1 token, got {context_tokens!r}")
    formats = Formats.resolve(spec, precision, kv_precision)
    main_dtype = runs_at(accelerator, formats.weights.compute_dtype)[0]

    floors: dict = {}

    def step_time(step: Step) -> StepTime:
        # Remembered: the realistic account below prices the same steps' rows.
        if step not in floors:
            floors[step] = time_step(rows(spec, step, formats), accelerator, overhead, main_dtype)
        return floors[step]

    prefill_step = step_time(Step.prefill(isl, batch))
    attention_flops = sum(t.row.flops * t.row.count for t in prefill_step.rows if t.row.kind == "attention")
    prefill = PrefillAccount(prefill_step.flops, prefill_step.bytes, prefill_step.intensity, prefill_step.bound,
                             prefill_step.seconds, isl * batch, attention_flops, prefill_step.seconds_by("component"))

    # The middle step (a fractional context) is the mean step: every row is linear in context between cuts.
    first, middle, last = (step_time(Step.decode(c, batch)) for c in (isl, isl + (osl - 1) / 2, isl + osl - 1))
    known = {isl: first.seconds, isl + osl - 1: last.seconds}

    def decode_seconds_at(context: int) -> float:
        if context not in known:
            known[context] = step_time(Step.decode(context, batch)).seconds
        return known[context]

    decode_seconds = sum_decode_steps(spec, decode_seconds_at, isl, osl)
    decode = DecodeAccount(
        bytes_per_step=middle.bytes, flops_per_step=middle.flops, intensity=middle.intensity, bound=middle.bound,
        seconds_per_token=decode_seconds / osl, first_token_seconds=first.seconds, last_token_seconds=last.seconds,
        seconds=decode_seconds, tokens_per_second=batch * osl / decode_seconds,
        weight_bytes_per_step=middle.weight_bytes, kv_read_bytes_per_step=middle.kv_read_bytes,
        seconds_by_component=middle.seconds_by("component"),
    )
    memory = memory_account(spec, accelerator, formats, context_tokens or isl + osl,
                            gpu_memory_utilization=gpu_memory_utilization)
    # Active parameters (what one token uses), from the same rows as everything else.
    active = sum(t.row.active_weight_elements * t.row.count for t in middle.rows)
    simplified = simplified_account(active, accelerator, formats.weights, workload, main_dtype)
    realistic_account = realistic_request(spec, accelerator, formats, workload, calibration, overhead,
                                          step_time) if realistic else None
    return RequestAccount(
        model=spec.name, accelerator=accelerator.name, weights=formats.weights.name, kv=formats.kv.name,
        workload=workload, prefill=prefill, decode=decode, total_seconds=prefill.seconds + decode.seconds,
        memory=memory, simplified=simplified,
        differences=tuple(_explain(prefill, decode, simplified, middle, spec.is_bare)),
        warnings=tuple(request_warnings(spec, accelerator, formats, workload, memory)),
        operators={"prefill": prefill_step.operator_table(), "decode": middle.operator_table()},
        realistic=realistic_account,
    )


def realistic_request(spec: ModelSpec, accelerator, formats: Formats, workload: Workload,
                      calibration=None, extra_overhead_seconds: float = 0.0, step_time=None) -> RealisticAccount:
    """Prefill and the OSL decode steps at the realistic time of each step (summed over the decode pieces as the
    floor is; a step's realistic time is close to linear in context between them). extra_overhead_seconds: the
    caller's own per-step overhead, added to the calibration's as it is added to the floor."""
    from inferledger.ledger.realistic import load_calibration, realistic_timed

    calibration = calibration if calibration is not None else load_calibration()
    isl, osl, batch = workload.isl, workload.osl, workload.batch
    step_time = step_time or (lambda s: time_step(rows(spec, s, formats), accelerator))
    cache: dict = {}

    def step(s: Step):
        return realistic_timed(step_time(s).rows, accelerator, calibration, extra_overhead_seconds, cache)

    prefill = step(Step.prefill(isl, batch))
    known: dict = {}

    def decode_seconds_at(context: int) -> float:
        if context not in known:
            known[context] = step(Step.decode(context, batch))
        return known[context].seconds

    decode_seconds = sum_decode_steps(spec, decode_seconds_at, isl, osl)
    middle = step(Step.decode(isl + (osl - 1) / 2, batch))
    used = [prefill, middle, *known.values()]
    return RealisticAccount(
        prefill_seconds=prefill.seconds, prefill_seconds_by_component=prefill.seconds_by_component,
        decode_seconds_per_token=decode_seconds / osl, decode_seconds=decode_seconds,
        decode_seconds_by_component=middle.seconds_by_component,
        total_seconds=prefill.seconds + decode_seconds, overhead_seconds_per_step=prefill.overhead_seconds,
        extrapolated=any(s.extrapolated for s in used),
        notes=tuple(dict.fromkeys(note for s in used for note in s.notes)),
        calibration={"source": calibration.source, "fitted_on": calibration.provenance.get("fitted_on")},
        losses={phase: [{"operator": name, "seconds": seconds, "floor_seconds": floor, "call_seconds": calls}
                        for name, seconds, floor, calls in s.losses()] for phase, s in (("prefill", prefill),
                                                                                       ("decode", middle))},
    )


def decode_step_times(spec: ModelSpec, accelerator, formats: Formats, context_tokens: int, batch: int,
                      calibration=None) -> dict:
    """One decode step of `batch` requests at a context: the floor beside the realistic time, and tokens/s."""
    from inferledger.ledger.realistic import realistic_step

    step_rows = rows(spec, Step.decode(context_tokens, batch), formats)
    main_dtype = runs_at(accelerator, formats.weights.compute_dtype)[0]
    floor = time_step(step_rows, accelerator, main_dtype=main_dtype).seconds
    real = realistic_step(step_rows, accelerator, calibration)
    return {"batch": batch, "context_tokens": context_tokens, "floor_seconds": floor,
            "realistic_seconds": real.seconds, "floor_tokens_per_second": batch / floor,
            "realistic_tokens_per_second": batch / real.seconds, "extrapolated": real.extrapolated,
            "notes": list(real.notes)}


def decode_pieces(spec: ModelSpec, isl: int, osl: int) -> list[tuple[int, int]]:
    """The decode contexts ISL … ISL+OSL−1 cut into runs over which every row's cost is linear in context:
    a sliding layer stops growing once its window is full; a chunked layer restarts at each chunk boundary."""
    first, last = isl, isl + osl - 1
    cuts = set()  # a piece ends at each of these contexts
    for _, module in spec.modules():
        window = getattr(module, "window_tokens", None)
        if not window or module.kind not in ("sliding", "chunked"):
            continue
        if module.kind == "sliding":
            cuts.add(window - 1)  # contexts ≥ window − 1 read a full window
        else:
            cuts.update(range(first - first % window + window - 1, last, window))
    pieces, start = [], first
    for cut in sorted(c for c in cuts if first <= c < last):
        pieces.append((start, cut))
        start = cut + 1
    pieces.append((start, last))
    return pieces


def sum_decode_steps(spec: ModelSpec, seconds_at, isl: int, osl: int) -> float:
    """Σ over the OSL decode steps of seconds_at(context), exact for costs linear in context on each piece."""
    total_seconds = 0.0
    for start, end in decode_pieces(spec, isl, osl):
        ends = seconds_at(start) + (seconds_at(end) if end != start else seconds_at(start))
        total_seconds += (end - start + 1) * ends / 2
    return total_seconds


def request_warnings(spec: ModelSpec, accelerator, formats: Formats, workload: Workload,
                     memory: MemoryAccount) -> list[str]:
    """What is possible but absurd about this request, each in one line that names the problem."""
    out = list(memory.warnings)
    context = workload.isl + workload.osl
    if spec.max_context_tokens and context > spec.max_context_tokens:
        out.append(f"context {context:,} exceeds the model's maximum {spec.max_context_tokens:,}; "
                   "the account is extrapolated")
    if memory.fits and memory.max_concurrency is not None and workload.batch > memory.max_concurrency:
        out.append(f"batch {workload.batch:,} exceeds the {memory.max_concurrency:,} requests of "
                   f"{memory.context_tokens:,} tokens that fit in the KV cache; the engine would queue or preempt")
    for what, precision in (("weights", formats.weights), ("KV cache", formats.kv)):
        ran = runs_at(accelerator, precision.compute_dtype)[0]
        if ran != precision.compute_dtype and not precision.weight_only:
            out.append(f"{accelerator.name} has no {precision.compute_dtype} tensor cores: {precision.name} "
                       f"{what} are converted and multiplied in {ran} (timed at the {ran} peak)")
    return out


def simplified_account(parameters: float, accelerator, weights: Precision, workload: Workload,
                       main_dtype: str) -> SimplifiedAccount:
    """2·P·ISL FLOP at peak for prefill; P × bytes per parameter at full bandwidth per decode token. P is the
    active parameter count (for MoE, what one token uses)."""
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
