"""Number formats and what they really cost in bytes, scales and zero points included.

A format stores `bits` per element plus, per group of `group_size` elements, a scale (and for asymmetric integer
schemes a zero point). So "int4" with group 128 and fp16 scale + fp16 zero is 0.5 + 4/128 = 0.53125 bytes per
weight, not 0.5 (gpt-fast's quantize.py stores exactly that pair per group). `compute_dtype` is the arithmetic the
matmul runs in: weight-only formats (int4, and fp4 on parts without fp4 tensor cores) dequantize to bf16 first,
which costs `dequant_ops_per_element` vector operations per weight (unpack, convert, subtract zero, scale).
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from inferledger.errors import UnknownPrecision


@dataclass(frozen=True)
class Precision:
    name: str
    bits: float  # payload bits per element
    group_size: int | None = None  # elements that share one scale (None: per-tensor/per-channel, negligible)
    scale_bytes: float = 0.0  # bytes per scale
    zero_bytes: float = 0.0  # bytes per zero point (asymmetric integer schemes)
    compute_dtype: str = "bf16"  # the dtype whose tensor-core peak the matmul runs at
    weight_only: bool = False  # dequantized to compute_dtype before the matmul
    dequant_ops_per_element: int = 0

    @property
    def bytes_per_element(self) -> float:
        overhead = (self.scale_bytes + self.zero_bytes) / self.group_size if self.group_size else 0.0
        return self.bits / 8 + overhead

    def to_dict(self) -> dict:
        return {
            "name": self.name,
            "bits": self.bits,
            "group_size": self.group_size,
            "scale_bytes": self.scale_bytes,
            "zero_bytes": self.zero_bytes,
            "bytes_per_element": self.bytes_per_element,
            "compute_dtype": self.compute_dtype,
            "weight_only": self.weight_only,
        }


# Unpack a nibble (shift, mask), convert to float, subtract the zero, multiply by the scale: about four vector
# operations per weight. An assumption, stated so it can be changed; it is what makes int4 2-3x, not 4x.
_DEQUANT_OPS = 4

PRECISIONS: dict[str, Precision] = {
    "fp32": Precision("fp32", 32, compute_dtype="fp32"),
    "fp16": Precision("fp16", 16, compute_dtype="fp16"),
    "bf16": Precision("bf16", 16, compute_dtype="bf16"),
    # fp8 with a per-tensor scale (the usual KV-cache and W8A8 case).
    "fp8": Precision("fp8", 8, compute_dtype="fp8"),
    "fp8_e5m2": Precision("fp8_e5m2", 8, compute_dtype="fp8"),
    # DeepSeek-V3 / Qwen3-FP8 checkpoints: one fp32 scale per 128x128 weight block.
    "fp8_block128": Precision("fp8_block128", 8, group_size=128 * 128, scale_bytes=4, compute_dtype="fp8"),
    # W8A8 with per-channel scales (negligible per element).
    "int8": Precision("int8", 8, compute_dtype="int8"),
    # Weight-only, group 128, fp16 scale and fp16 zero per group (GPTQ/AWQ layout).
    "int4": Precision("int4", 4, group_size=128, scale_bytes=2, zero_bytes=2, compute_dtype="bf16",
                      weight_only=True, dequant_ops_per_element=_DEQUANT_OPS),
    # NVIDIA NVFP4: e2m1 values, one fp8 (e4m3) scale per 16 elements (plus a per-tensor fp32, negligible).
    "nvfp4": Precision("nvfp4", 4, group_size=16, scale_bytes=1, compute_dtype="fp4"),
    # OCP MXFP4: e2m1 values, one e8m0 scale per 32 elements.
    "mxfp4": Precision("mxfp4", 4, group_size=32, scale_bytes=1, compute_dtype="fp4"),
    # bitsandbytes NF4: 4-bit values, one fp32 absmax per 64 weights, dequantized to bf16 before the matmul.
    "nf4": Precision("nf4", 4, group_size=64, scale_bytes=4, compute_dtype="bf16", weight_only=True,
                     dequant_ops_per_element=_DEQUANT_OPS),
}

_ALIASES = {
    "float32": "fp32", "f32": "fp32",
    "float16": "fp16", "half": "fp16", "f16": "fp16",
    "bfloat16": "bf16",
    "fp8_e4m3": "fp8", "e4m3": "fp8", "float8_e4m3fn": "fp8", "float8": "fp8",
    "e5m2": "fp8_e5m2", "float8_e5m2": "fp8_e5m2",
    "w8a8": "int8",
    "w4a16": "int4", "gptq": "int4", "awq": "int4", "int4_g128": "int4",
}

# The formats users pick on the command line (the table of weight bytes per precision shows these).
COMMON = ("fp32", "bf16", "fp8", "int8", "int4", "nvfp4", "mxfp4")


def get_precision(name: str) -> Precision:
    """A precision by name ("bf16", "fp8", "int4", "int4-g64" for another group size)."""
    if isinstance(name, Precision):
        return name
    if not isinstance(name, str):
        raise UnknownPrecision(f"a precision is a name such as 'bf16' or 'int4', got {type(name).__name__} {name!r}")
    key = name.strip().lower().replace("-", "_")
    group = None
    if key.startswith("int4_g") and key[6:].isdigit():
        key, group = "int4", int(key[6:])
    key = _ALIASES.get(key, key)
    if key not in PRECISIONS:
        raise UnknownPrecision(f"unknown precision {name!r}; known: {', '.join(PRECISIONS)} (and int4-gN)")
    precision = PRECISIONS[key]
    if group:
        precision = replace(precision, name=f"int4-g{group}", group_size=group)
    return precision


def _integer(bits: int, group: int | None, symmetric: bool, weight_only: bool = True) -> Precision:
    """A GPTQ/AWQ-style integer format: `bits` per weight, an fp16 scale (and zero unless symmetric) per group."""
    group = group if group and group > 0 else None
    name = f"int{bits}" + (f"-g{group}" if group else "")
    return Precision(name, bits, group_size=group, scale_bytes=2 if group else 0,
                     zero_bytes=0 if symmetric or not group else 2, compute_dtype="bf16" if weight_only else "int8", weight_only=weight_only,
                     dequant_ops_per_element=_DEQUANT_OPS if weight_only else 0)


def ggml_format(name: str, bits: float) -> Precision:
    """A llama.cpp (GGML) storage type, or a mix of them: `bits` per weight with the block scales folded in (Q4_K
    stores 256 weights in 144 bytes: 4.5 bits; Q6_K in 210: 6.5625). Quantized blocks are dequantized to fp16 for
    the matmul (weight-only); F32, F16 and BF16 tensors compute in their own type."""
    float_types = {"F32": "fp32", "F16": "fp16", "BF16": "bf16"}
    if name.upper() in float_types:
        return Precision(name.upper(), bits, compute_dtype=float_types[name.upper()])
    return Precision(name, bits, compute_dtype="fp16", weight_only=True, dequant_ops_per_element=_DEQUANT_OPS)


def _compressed_tensors(quantization: dict) -> Precision | None:
    """llm-compressor's config_groups: the first group's weight scheme (num_bits, type, strategy)."""
    groups = quantization.get("config_groups")
    if not isinstance(groups, dict) or not groups:
        return None
    group = next(iter(groups.values()))
    weights = group.get("weights") if isinstance(group, dict) else None
    if not isinstance(weights, dict):
        return None
    bits, kind = weights.get("num_bits"), weights.get("type")
    activations = isinstance(group.get("input_activations"), dict)
    if kind == "float" and bits == 8:
        block = weights.get("block_structure")
        if weights.get("strategy") == "block" and isinstance(block, list) and len(block) == 2:
            return replace(PRECISIONS["fp8_block128"], name=f"fp8 (block {block[0]}x{block[1]})",
                           group_size=block[0] * block[1])
        return PRECISIONS["fp8"]
    if kind == "float" and bits == 4:
        return PRECISIONS["nvfp4"]
    if kind == "int" and bits in (2, 3, 4, 8):
        if bits == 8 and activations:
            return PRECISIONS["int8"]  # W8A8
        return _integer(bits, weights.get("group_size"), bool(weights.get("symmetric", True)))
    return None


def precision_from_quantization_config(quantization: dict | None, default: str) -> Precision:
    """The weight format a checkpoint declares in config.json's quantization_config, else `default`.
    A method or scheme this table does not know is an error (never a silent 16-bit guess): the caller can pass the
    format explicitly instead."""
    from inferledger.errors import ConfigError

    if not quantization:
        return get_precision(default)
    if not isinstance(quantization, dict):
        raise ConfigError(f"quantization_config must be a JSON object, got {type(quantization).__name__}")
    method = str(quantization.get("quant_method", "")).lower().replace("_", "-")
    found: Precision | None = None
    if method in ("fp8", "fbgemm-fp8"):
        block = quantization.get("weight_block_size")
        if isinstance(block, list) and len(block) == 2 and all(isinstance(b, int) and b > 0 for b in block):
            found = replace(PRECISIONS["fp8_block128"], name=f"fp8 (block {block[0]}x{block[1]})",
                            group_size=block[0] * block[1])
        else:
            found = PRECISIONS["fp8"]
    elif method == "mxfp4":
        found = PRECISIONS["mxfp4"]
    elif method in ("gptq", "awq"):
        bits = quantization.get("bits", quantization.get("w_bit", 4))
        group = quantization.get("group_size", quantization.get("q_group_size", 128))
        if bits in (2, 3, 4, 8) and isinstance(group, int):
            # GPTQ and AWQ store a zero point per group even when symmetric (packed); counted as fp16, as gpt-fast.
            found = _integer(bits, group, symmetric=False)
    elif method == "modelopt":
        algo = str(quantization.get("quant_algo", "")).upper()
        found = {"FP8": PRECISIONS["fp8"], "NVFP4": PRECISIONS["nvfp4"],
                 "W4A16-AWQ": _integer(4, 128, symmetric=False)}.get(algo.replace("_", "-"))
    elif method == "nvfp4":
        found = PRECISIONS["nvfp4"]
    elif method == "compressed-tensors":
        found = _compressed_tensors(quantization)
    elif method == "gguf":  # set by model/gguf.py: the file's type and its mean bits over all tensors
        bits = quantization.get("bits_per_weight")
        if isinstance(bits, (int, float)) and not isinstance(bits, bool) and 0 < bits <= 64:
            found = ggml_format(str(quantization.get("file_type", "gguf")), float(bits))
    elif method == "bitsandbytes":
        if quantization.get("load_in_4bit"):
            found = PRECISIONS["nf4"]
        elif quantization.get("load_in_8bit"):
            found = PRECISIONS["int8"]
    if found is None:
        raise ConfigError(
            f"quantization_config {quantization.get('quant_method')!r} "
            f"({', '.join(f'{k}={v}' for k, v in quantization.items() if k in ('bits', 'quant_algo', 'format'))}) "
            "is not a weight format inferledger knows; pass --precision (e.g. int4, fp8) to state it")
    return found


def checkpoint_precision(config_dtype: str | None, quantization: dict | None) -> Precision:
    """What a checkpoint ships in: its quantization_config, else its torch_dtype, else bf16 (the config states
    none). A dtype or quantization method this table does not know is an error, never a silent bf16."""
    from inferledger.defaults import HIGH_PRECISION
    from inferledger.errors import ConfigError

    try:
        base = get_precision(config_dtype) if config_dtype else get_precision(HIGH_PRECISION)
    except UnknownPrecision:
        raise ConfigError(f"torch_dtype {config_dtype!r} is not a dtype inferledger knows "
                          f"(float32, float16, bfloat16, float8_e4m3fn, ...); pass --precision to state the "
                          "weight format") from None
    return precision_from_quantization_config(quantization, base.name)
