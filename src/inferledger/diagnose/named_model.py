"""A model known only by its name: the size and weight format that model ids and runner tags state.

"google/gemma-3-27b-it", "gemma3:27b-it-qat", "qwen2.5:7b-instruct-q4_K_M", "Qwen3-30B-A3B", "Mixtral-8x7B-v0.1":
the name says how many parameters a decode step reads, and often in what format. When the model's config.json is
not at hand (not bundled, no hub offline) that is still enough for the one number a slow-decode judgement needs:
the bytes of weights each step must read, hence the bandwidth floor of a single stream. It is an estimate (the
embedding and vision tower are counted or not as the name's size does), so diagnose says where each figure came from
and uses it only where the weights dominate the step (see roofline.named_floor_findings).
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterator
from dataclasses import dataclass
from functools import cache

from inferledger.diagnose.rules import limit

# `27b`, `0.5B`, `135m`, `e4b` (Gemma 3n's effective size), `8x7b` (experts × size): digits ending in b/m, standing
# alone between separators. `a3b` (Qwen3-30B-A3B) is the active size of a mixture of experts.
_SIZE = re.compile(r"(?<![a-z0-9.])e?(?:(\d+)x)?(\d+(?:\.\d+)?)([bm])(?![a-z0-9])")
_ACTIVE = re.compile(r"(?<![a-z0-9])a(\d+(?:\.\d+)?)b(?![a-z0-9])")

# Bits per weight the name's format tag stores, block scales included where the format fixes them: GGML blocks
# (Q4_0: 32 weights in 18 bytes = 4.5 bits; Q8_0: 34 bytes = 8.5; Q4_K: 256 in 144 bytes = 4.5; Q5_K 176 = 5.5;
# Q6_K 210 = 6.5625; Q3_K 110 = 3.4375; Q2_K 84 = 2.625; the _M mixes keep a few tensors wider, a few % more),
# GPTQ/AWQ int4 with an fp16 scale and zero per 128 (4.25), fp8/int8 (8), bf16/fp16 (16). First match wins:
# specific tags before generic ones.
FORMATS = (
    ("q2_k", 2.625), ("q3_k", 3.4375), ("q4_k", 4.5), ("q4_0", 4.5), ("q4_1", 5.0), ("q5_k", 5.5), ("q5_0", 5.5),
    ("q5_1", 6.0), ("q6_k", 6.5625), ("q8_0", 8.5), ("qat", 4.5), ("mxfp4", 4.25), ("nvfp4", 4.5), ("awq", 4.25),
    ("gptq", 4.25), ("int4", 4.25), ("w4a16", 4.25), ("nf4", 4.5), ("4bit", 4.5),
    ("fp8", 8.0), ("int8", 8.0), ("w8a8", 8.0), ("8bit", 8.0), ("bf16", 16.0), ("fp16", 16.0), ("f16", 16.0),
    ("fp32", 32.0), ("f32", 32.0),
    # torchao's weight-only configs (`int4wo-128`, `int8wo`), dtypes spelled out, a bit width in words (AQLM's `2Bit`)
    ("int4wo", 4.25), ("int8wo", 8.0), ("float8", 8.0), ("bfloat16", 16.0), ("float16", 16.0), ("float32", 32.0),
    ("2bit", 2.0), ("3bit", 3.0),
    # MLC-LLM's `q{bits}f{activation}`: 4-bit weights in groups of 32 with a float16 scale (q4f16_1: 4.5 bits),
    # q0 none (the float checkpoint)
    ("q3f16", 3.5), ("q4f16", 4.5), ("q4f32", 5.0), ("q8f16", 8.5), ("q0f16", 16.0), ("q0f32", 32.0),
    # distributed-llama's `_q40` / `_q80` (its Q4_0 and Q8_0 blocks)
    ("q40", 4.5), ("q80", 8.5),
    # llama.cpp's i-quants and ternary types by their blocks of 256 (IQ1_S 50 bytes = 1.5625 bits, IQ1_M 56, IQ2_XXS
    # 66, IQ2_XS 74, IQ2_S 82, IQ3_XXS 98, IQ3_S 110, IQ4_XS 136, TQ1_0 54, TQ2_0 66; IQ4_NL 18 bytes a 32), the
    # mixes by the average their file type states (`IQ2_M - 2.7 bpw`, `IQ3_XS - 3.3 bpw`, `IQ3_S mix - 3.66 bpw`);
    # ik_llama.cpp's row-interleaved `_r4` variants store the same
    ("iq1_s", 1.5625), ("iq1_m", 1.75), ("iq2_xxs", 2.0625), ("iq2_xs", 2.3125), ("iq2_s", 2.5625), ("iq2_m", 2.7),
    ("iq3_xxs", 3.0625), ("iq3_xs", 3.3), ("iq3_s", 3.4375), ("iq3_m", 3.66), ("iq4_xs", 4.25), ("iq4_nl", 4.5),
    ("tq1_0", 1.6875), ("tq2_0", 2.0625),
    # a ternary model named as such (`Ternary-Bonsai-27B`, BitNet b1.58) in a packing the name does not say: the
    # tightest one llama.cpp has (TQ1_0), the least its decode can read
    ("ternary", 1.6875), ("b1.58", 1.6875),
    # a bare quant level (`_q6`, `-Q4`): the K-quant of that width, the usual one
    ("q2", 2.625), ("q3", 3.4375), ("q4", 4.5), ("q5", 5.5), ("q6", 6.5625), ("q8", 8.5),
)
_BPW = re.compile(r"(?<![a-z0-9.])(\d{1,2}(?:\.\d{1,4})?)[-_ ]?bpw(?![a-z0-9])")  # `IQ1_S - 1.5625 bpw`
# What a runner serves when the tag names no format: ollama's library tags default to Q4_K_M; GGUF files people
# run with llama.cpp are mostly Q4_K_M too; the GPU servers load the checkpoint's bf16.
_DEFAULT_BITS = {"ollama": (4.5, "ollama's default tag (Q4_K_M)"),
                 "llama.cpp": (4.5, "the usual GGUF (Q4_K_M)"), "koboldcpp": (4.5, "the usual GGUF (Q4_K_M)")}
_SERVER_DEFAULT = (16.0, "bf16 (the checkpoint's usual format)")


@dataclass(frozen=True)
class NamedModel:
    name: str
    total_params: float
    active_params: float  # the parameters one token's decode step reads (a mixture of experts: the active ones)
    bits_per_weight: float
    format_source: str  # where bits_per_weight came from, for the report

    @property
    def weights_bytes_per_step(self) -> float:
        return self.active_params * self.bits_per_weight / 8

    @property
    def mixture_of_experts(self) -> bool:
        return self.active_params < self.total_params

    @property
    def format_guessed(self) -> bool:
        """The bits a weight are a GPU server's bf16 default, not stated by the name, the engine or the user."""
        return self.format_source == _SERVER_DEFAULT[1]

    def describe(self) -> str:
        active = "" if self.active_params == self.total_params else f", {self.active_params / 1e9:g}B active"
        return (f"{self.name}: {self.total_params / 1e9:g}B parameters{active} read from the name, "
                f"{self.bits_per_weight:g} bits per weight ({self.format_source}) = "
                f"{self.weights_bytes_per_step / 1e9:.1f} GB per decode step")


def from_name(name: str, engine: str | None = None, precision: str | None = None,
              stated_only: bool = False) -> NamedModel | None:
    """The size and format a model's name states, or None when it states no size. `precision` (the user's
    --precision) wins over the name; `engine` picks the default format when neither says one. `stated_only`: None as
    well when only a GPU server's bf16 default would give the format (the config, when at hand, knows better)."""
    lowered = name.strip().lower()
    base = lowered.rsplit("/", 1)[-1]
    size = _SIZE.search(base)
    if size is None:
        return None
    experts, value, unit = size.groups()
    each = float(value) * (1e9 if unit == "b" else 1e6)
    total = each * int(experts) if experts else each
    if total <= 0:
        return None  # `0B`, `0x7B`: no size after all
    active = _ACTIVE.search(base)
    if active is not None:
        active_params = float(active.group(1)) * 1e9
    elif experts:
        active_params = each * 2  # Mixtral-style names: top-2 of the experts (shared attention counted in each)
    else:
        active_params = total
    bits, source = _bits(base, engine, precision)
    if stated_only and source == _SERVER_DEFAULT[1]:
        return None
    return NamedModel(name, total, min(active_params, total), bits, source)


def _bits(base: str, engine: str | None, precision: str | None) -> tuple[float, str]:
    if precision:
        from inferledger.precision import get_precision

        chosen = get_precision(precision)
        return chosen.bytes_per_element * 8, f"--precision {precision}"
    stated = stated_format(base)
    if stated is not None:
        return stated[1], f"the name's {stated[0]}"
    return _DEFAULT_BITS.get(engine or "", _SERVER_DEFAULT)


def stated_format(text: str) -> tuple[str, float] | None:
    """(tag, bits a weight) of the format a model's file name or a runner's file-type line states (`q8_0`,
    `Q4_K - Medium`), or None."""
    return next(stated_formats(text), None)


def stated_formats(text: str) -> Iterator[tuple[str, float]]:
    """(tag, bits a weight) of every format the text states, the most specific first."""
    lowered = text.strip().lower()
    bpw = _BPW.search(lowered)
    if bpw is not None:  # ExLlama's quantisations state their average bits a weight (`exl2_4.25bpw`, `3.0bpw`)
        yield bpw.group(0), float(bpw.group(1))
    for tag, bits in FORMATS:
        if re.search(r"(?<![a-z0-9])" + re.escape(tag) + r"(?![a-z0-9])", lowered):
            yield tag, bits


# Words that name a variant of a base model, not another architecture: instruction or chat tuning, a re-upload in
# another format, a dated refresh ("Qwen3-30B-A3B-Instruct-2507"), Meta's old "Meta-" prefix.
_VARIANT_WORDS = {"instruct", "chat", "it", "hf", "base", "fp8", "fp16", "bf16", "awq", "gptq", "int4", "int8",
                  "w4a16", "w8a8", "4bit", "8bit", "mlx", "gguf"}
# The format such a word names, for the ledger (--precision wins).
_VARIANT_PRECISION = {"fp8": "fp8", "awq": "int4", "gptq": "int4", "int4": "int4", "w4a16": "int4", "4bit": "int4",
                      "int8": "int8", "w8a8": "int8", "8bit": "int8"}


def _architecture_key(name: str) -> tuple[str, str | None]:
    base = name.strip().lower().rsplit("/", 1)[-1]
    words = re.split(r"[-_\s]+", base)
    if words and words[0] == "meta" and len(words) > 1 and words[1].startswith("llama"):
        words = words[1:]
    kept, precision = [], None
    for word in words:
        if word in _VARIANT_WORDS or re.fullmatch(r"\d{4}", word):
            precision = precision or _VARIANT_PRECISION.get(word)
            continue
        kept.append(word)
    return "-".join(kept), precision


# Releases whose config.json states the same sizes as a later one the catalogue bundles: Meta-Llama-3-8B and
# Llama-3.1-8B both hold 32 layers of hidden 4096, 32 query and 8 KV heads, an MLP of 14336 and a 128256-token
# vocabulary; Meta-Llama-3-70B and Llama-3.1-70B 80 layers of 8192, 64 and 8 heads, 28672 and the same vocabulary.
# 3.1 only widens the context (rope scaling, 131072 positions against 8192), which no weight, FLOP or KV byte counts.
_SAME_SIZES = {"llama-3-8b": "llama-3.1-8b", "llama-3-70b": "llama-3.1-70b"}


def catalog_twin(name: str) -> tuple[str, str | None] | None:
    """(the bundled catalog model sharing `name`'s architecture, the format its name states) when exactly one does:
    "meta-llama/Llama-3.1-8B-Instruct" is "meta-llama/Llama-3.1-8B" tuned, with the same layers, heads and sizes
    (as is a release of the same sizes, _SAME_SIZES). None when there is none, or several."""
    from inferledger.model.config import catalog_names

    key, precision = _architecture_key(name)
    key = _SAME_SIZES.get(key, key)
    if not key:
        return None
    twins = [known for known in catalog_names() if _architecture_key(known)[0] == key]
    if len(twins) > 1:  # "Qwen3-30B-A3B" and "Qwen3-30B-A3B-FP8": the one in the format the name states
        twins = [known for known in twins if _architecture_key(known)[1] == precision]
    if len(twins) != 1 or twins[0].lower() == name.strip().lower():
        return None
    return twins[0], precision


def twin_relation(name: str, twin: str) -> str:
    """How `twin` (catalog_twin's) stands to `name`, for the report."""
    if _architecture_key(name)[0] == _architecture_key(twin)[0]:
        return "the model it was tuned from (same layers, heads and sizes)"
    return "a release of the same layers, heads and sizes (only its context window differs)"


@dataclass(frozen=True)
class ConfiguredModel:
    """A model whose config.json is at hand (bundled, cached, or its catalogued base): the bytes one decode step reads
    come from the ledger's own account (active experts, its native format), not from the name's arithmetic."""

    name: str
    weights_bytes_per_step: float
    weights_format: str
    source: str  # the config that was read, when it is a base model's
    mixture_of_experts: bool = False  # one token's step reads a share of the weights (the active experts)

    def describe(self) -> str:
        via = f" (its base {self.source}'s config)" if self.source != self.name else ""
        return (f"{self.name}: {self.weights_bytes_per_step / 1e9:.2f} GB of {self.weights_format} weights per "
                f"decode step by the ledger{via}")


def from_config(name: str, precision: str | None = None) -> ConfiguredModel | None:
    """The ledger's weights-per-step for `name` from its config.json (or its catalogued base's), or None when neither
    can be had here (a hub model offline): callers then fall back to from_name. A mixture of experts reads only its
    active experts, and a checkpoint's own format (gpt-oss's MXFP4) counts, which the name's size cannot say."""
    from inferledger.errors import InferledgerError
    from inferledger.hardware import find_accelerator
    from inferledger.ledger.request import request_account
    from inferledger.model import load_model
    from inferledger.model.spec import Experts

    candidates = [(name, precision)]
    twin = catalog_twin(name)
    if twin is not None:
        candidates.append((twin[0], precision or twin[1]))
    for source, wanted in candidates:
        try:
            spec = load_model(source)
            # Any card: one step's weight bytes do not depend on it (batch 1, one token of context).
            account = request_account(spec, find_accelerator("h100-sxm"), isl=1, osl=1, batch=1, precision=wanted,
                                      realistic=False)
        except (InferledgerError, OSError, ValueError):
            continue
        # A mixture of experts by its config: routed experts of which each token uses fewer than all.
        moe = any(isinstance(module, Experts) and module.top_k < module.num_experts for _block, module in spec.modules())
        return ConfiguredModel(name, account.decode.bytes_per_step, account.weights, source, moe)
    return None


# llama.cpp's names for a mixture of experts that state no active size: its architectures (`deepseek2 671B Q8_0`,
# `qwen3moe 235B`, `llama4 17Bx16E (Scout)`), its file-type suffix (`gpt-oss 20B MXFP4 MoE`), experts × size
# (`llama 8x7B`).
_MIXTURE_NAME = re.compile(r"moe|deepseek2|gpt-oss|qwen3next|llama4|dbrx|grok|arctic|minimax|\d+x\d+(?:\.\d+)?b|"
                           r"\d+bx\d+e", re.IGNORECASE)
_DENSE_PART_BYTES_PER_PARAM = limit("mixture-dense-part-bits") / 8
_SAME_TOTAL = limit("mixture-same-total")
_SAME_NAMED_TOTAL = limit("mixture-named-total")


@dataclass(frozen=True)
class MixtureRead:
    """The bytes one token's decode step reads of a mixture-of-experts file, from its size and the catalog config
    that has its total parameters: routed experts read top_k of E, everything else whole (the embedding, one row: not
    counted). The file's split of bytes between the two is not stated, so it is a range: `low` when every tensor
    has the file's mean width, `high` when the tensors outside the routed experts are kept at 8.5 bits (Q8_0) and the
    experts hold the rest of the size (the common quant mix: attention and shared experts wider)."""

    source: str  # the catalog config matched
    low_bytes: float
    high_bytes: float
    active_params: float  # the catalogued mixture's parameters one token computes with (a prompt's FLOPs)


def mixture_read(model_cell: str, total_params: float, file_bytes: float, named: bool = False) -> MixtureRead | None:
    """MixtureRead of a llama-bench row whose model cell names a mixture but no active size, or None when the cell
    names no mixture or no catalog mixture has this total (or those that do disagree on the active share). `named`:
    the total is the cell's rounded size (`gpt-oss 20B` holds 20.9B), not the params column's count."""
    if not _MIXTURE_NAME.search(model_cell) or total_params <= 0 or file_bytes <= 0:
        return None
    same = (_SAME_NAMED_TOTAL if named else _SAME_TOTAL) * total_params
    matched = [split for split in _catalog_mixtures() if abs(split[1] - total_params) <= same]
    if not matched or max(split[2] / split[1] for split in matched) > 1.1 * min(split[2] / split[1] for split in matched):
        return None
    source, total, active, routed, routed_active = matched[0]
    low = file_bytes * active / total
    dense, dense_active = total - routed, active - routed_active
    expert_bytes_per_param = max(0.0, file_bytes - dense * _DENSE_PART_BYTES_PER_PARAM) / routed
    high = dense_active * _DENSE_PART_BYTES_PER_PARAM + routed_active * expert_bytes_per_param
    return MixtureRead(source, low, max(low, high), active)


@cache
def _catalog_counts() -> tuple:
    """(name, total, active, routed experts' total, their active, layers) of each catalogued model, by the ledger's
    parameter rows; active leaves out the embedding table (a step reads one row of it)."""
    from inferledger.ledger.params import count_parameters
    from inferledger.model import load_model
    from inferledger.model.config import catalog_names

    counts = []
    for name in catalog_names():
        spec = load_model(name)
        counted = count_parameters(spec)
        routed = counted.by_component.get("ffn.routed_experts", 0)
        active = counted.active - counted.active_by_component.get("embedding", 0)
        routed_active = counted.active_by_component.get("ffn.routed_experts", 0)
        counts.append((name, counted.total, active, routed, routed_active, spec.num_layers))
    return tuple(counts)


@cache
def _catalog_mixtures() -> tuple:
    """(name, total, active, routed experts' total, their active) parameters of each catalogued mixture of experts."""
    return tuple(count[:5] for count in _catalog_counts() if _mixture(count))


def _mixture(count: tuple) -> bool:
    """A catalogued model (_catalog_counts) whose step reads fewer parameters than it holds, among routed experts."""
    return bool(count[3]) and count[2] < count[1]


def catalog_nearest(total_params: float, mixture: bool) -> tuple | None:
    """(name, total parameters, layers, active parameters) of the catalogued model of the same kind (a mixture of
    experts or dense) nearest in total parameters: the likeliest shape of a model known only by its size."""
    if total_params <= 0:
        return None
    same = [count for count in _catalog_counts() if _mixture(count) == mixture]
    if not same:
        return None
    nearest = min(same, key=lambda count: abs(math.log(count[1] / total_params)))
    return nearest[0], nearest[1], nearest[5], nearest[2]


def catalog_layers(total_params: float, mixture: bool) -> int | None:
    """How deep a model known only by its size most likely is (a decode step pays a fixed cost a layer)."""
    nearest = catalog_nearest(total_params, mixture)
    return nearest[2] if nearest else None


def step_fixed_seconds(total_params: float, mixture: bool) -> tuple[float, int | None]:
    """(seconds, layers): the fixed cost of one batch-1 decode step of a model known by its size, its layers (those
    of the catalogued model of its kind nearest in size) × limit layer-step-seconds; (0, None) when none is near."""
    layers = catalog_layers(total_params, mixture)
    return (layers * limit("layer-step-seconds"), layers) if layers else (0.0, None)


# llama.cpp's names for recurrent and hybrid (state-space) architectures: their prompt's cost is a scan, not the
# transformer's matmuls the ledger's catalogue holds.
_RECURRENT_NAME = re.compile(r"mamba|granitehybrid|jamba|nemotron_?h\b|falcon-?h1|rwkv|lfm2|plamo2|hybrid",
                             re.IGNORECASE)


def names_recurrent(model_cell: str) -> bool:
    """A llama.cpp model cell that names a recurrent or hybrid state-space architecture."""
    return _RECURRENT_NAME.search(model_cell) is not None


def names_mixture(model_cell: str) -> bool:
    """A llama.cpp model cell that names a mixture of experts (its architecture, `MoE`, experts × size)."""
    return _MIXTURE_NAME.search(model_cell) is not None
