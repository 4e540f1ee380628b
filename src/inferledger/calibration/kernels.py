"""Measured kernels as operator rows: one row of a kernel-latency CSV, priced exactly as a model's operator.

The CSV schema is that of aiconfigurator's collectors (gemm, attention decode/prefill, MLA, MoE and collectives
latency tables); which table a file is comes from its header. Each data row becomes an `operators.Row` built by the
same functions that build a model's rows (a one-module ModelSpec through `operators.rows`, or `experts_row` for a
MoE layer whose routing the measurement states), so the floor and the realistic estimate of a kernel are the ones a
model's operator of that shape would get. `kernels` and `calibrate` both read rows through here.
"""

from __future__ import annotations

import csv
import math
import zlib
from dataclasses import dataclass, replace

from inferledger.errors import CalibrationError, InferledgerError
from inferledger.ledger.realistic import Character
from inferledger.model.spec import AttentionCore, Block, Experts, Linear, ModelSpec
from inferledger.operators import Formats, Step, experts_row, rows
from inferledger.precision import PRECISIONS, get_precision

# The collectors' gpu names and the catalog parts they measured (a100_sxm: the 80 GB part, 2039 GB/s).
GPU_NAMES = {
    "a100_sxm": "a100-sxm-80gb", "h100_sxm": "h100-sxm", "h200_sxm": "h200-sxm", "b200_sxm": "b200",
    "b300_sxm": "b300", "gb200": "gb200", "gb300": "gb300", "l40s": "l40s",
    "rtx_pro_6000_server": "rtx-pro-6000-server",
}
# L2 sizes of the measured cards (public spec values, as the collectors' gpu_peaks_used.csv lists them). A row whose
# bytes fit in twice the L2 is treated as cache-resident even when the collector did not flag it: its flag assumes
# rotated weight copies, yet L40S rows of 50-168 MB (96 MB L2) ran faster than its DRAM can deliver, and an L2 whose
# replacement is not LRU keeps part of a working set larger than itself across repeated runs. Serving streams
# gigabytes per step with no such reuse, so these rows would only teach the fit a bandwidth no model step sees.
L2_BYTES = {"a100_sxm": 40e6, "h100_sxm": 50e6, "h200_sxm": 50e6, "l40s": 96e6}
L2_MARGIN = 2.0
HELD_OUT_ONE_IN = 5  # a row is held out of the fit when the CRC-32 of its CSV line is divisible by this

# DeepSeek-V3's MLA geometry, which the MLA table measures (its README): 512-wide latent + 64 rope dims cached.
_MLA = {"qk_head_dim": 192, "v_head_dim": 128, "kv_lora_rank": 512, "qk_rope_head_dim": 64}

# Per-channel weight-only formats of TensorRT-LLM's WeightOnlyQuantMatmul (scales per output channel: negligible).
_WEIGHT_ONLY = {
    "int4_wo": replace(PRECISIONS["int4"], name="int4_wo", group_size=None, scale_bytes=0, zero_bytes=0),
    "int8_wo": replace(PRECISIONS["int4"], name="int8_wo", bits=8, group_size=None, scale_bytes=0, zero_bytes=0),
}
_GEMM_DTYPES = {"bfloat16": ("bf16", "bf16"), "float16": ("fp16", "bf16"), "fp8": ("fp8", "fp8"),
                "fp8_block": ("fp8_block128", "fp8_block"), "sq": ("int8", "int8"),
                "int4_wo": ("int4_wo", "wo"), "int8_wo": ("int8_wo", "wo"),
                "w4a16_mxfp4": ("mxfp4", "wo"), "nvfp4": ("nvfp4", "fp4")}
_KV_DTYPES = {"bfloat16": "bf16", "float16": "fp16", "fp8": "fp8"}


@dataclass(frozen=True)
class KernelRow:
    """One data row of a kernel CSV, priced (row is None when it cannot be, and `reason` says why)."""

    line: int  # data row number in the file, from 1
    table: str  # gemm | attention_decode | attention_prefill | mla | moe | collectives
    gpu: str
    accelerator: object  # hardware Accelerator, or None
    shape: Character | None
    row: object  # operators.Row, or None
    measured_seconds: float | None
    clean: bool  # neither cache-resident nor flagged suspect: fit and judge on it
    held_out: bool
    reason: str = ""  # why the row cannot be priced
    excluded: str = ""  # why a priced row is not clean
    label: str = ""  # a short description of the shape

    @property
    def priced(self) -> bool:
        return self.row is not None


def table_of(header: list) -> str:
    columns = set(header)
    if {"m", "n", "k", "dtype"} <= columns:
        return "gemm"
    if "mla_dtype" in columns:
        return "mla"
    if "moe_dtype" in columns:
        return "moe"
    if {"attn_dtype", "isl"} <= columns:
        return "attention_prefill"
    if {"attn_dtype", "kv_len"} <= columns:
        return "attention_decode"
    if {"op_name", "message_elems"} <= columns or {"op_name", "message_size"} <= columns:
        return "collectives"
    raise CalibrationError("the CSV header matches none of the kernel tables (gemm: m,n,k,dtype; attention: "
                           "attn_dtype with isl or kv_len; mla_dtype; moe_dtype; collectives: op_name)")


def _flag(value) -> bool:
    return str(value).strip().lower() == "true"


def _int(raw: dict, key: str) -> int:
    value = float(raw[key])
    if not math.isfinite(value) or value < 0 or value != int(value):
        raise ValueError(f"{key} = {raw[key]!r} is not a whole number")
    return int(value)


def _one_module_row(module, step: Step, formats: Formats):
    spec = ModelSpec(name="kernel", model_type="kernel", hidden_size=0, vocab_size=0, num_layers=1,
                     blocks=(Block("kernel", (module,), (0,)),), max_context_tokens=None)
    return rows(spec, step, formats, lm_head_last_only=False)[0]


def _formats(weights: str, kv: str = "bf16") -> Formats:
    weights_precision = _WEIGHT_ONLY.get(weights) or get_precision(weights)
    return Formats(weights_precision, get_precision(kv), PRECISIONS["bf16"])


def _gemm(raw):
    if raw["dtype"] not in _GEMM_DTYPES:
        raise ValueError(f"gemm dtype {raw['dtype']!r} is not one the tool prices")
    precision, key = _GEMM_DTYPES[raw["dtype"]]
    m, n, k = _int(raw, "m"), _int(raw, "n"), _int(raw, "k")
    row = _one_module_row(Linear("gemm", k, n, "gemm"), Step.prefill(m), _formats(precision))
    return row, Character("gemm", key), f"{raw['dtype']} m={m} n={n} k={k}"


def _attention_dtypes(raw) -> tuple[str, str]:
    """(kv precision, dtype key): an fp8 cache with bf16 attention math is 'bf16_fp8kv', never the fp8 peak."""
    attn, kv = raw["attn_dtype"] if "attn_dtype" in raw else raw["mla_dtype"], raw["kv_cache_dtype"]
    if attn not in _KV_DTYPES or kv not in _KV_DTYPES:
        raise ValueError(f"attention dtypes {attn!r}/{kv!r} are not ones the tool prices")
    if _KV_DTYPES[attn] == "fp8":
        return "fp8", "fp8"
    return _KV_DTYPES[kv], ("bf16_fp8kv" if _KV_DTYPES[kv] == "fp8" else "bf16")


def _attention(raw, table: str):
    kv, key = _attention_dtypes(raw)
    window = _int(raw, "window_size")
    heads, head_dim = _int(raw, "num_heads"), _int(raw, "head_dim")
    core = AttentionCore("attention", "sliding" if window else "full", heads, _int(raw, "num_key_value_heads"),
                         head_dim, head_dim, "attention", window_tokens=window or None)
    batch = _int(raw, "batch_size")
    if table == "attention_decode":
        step = Step.decode(_int(raw, "kv_len") - 1, batch)  # kv_len counts the new token
        what = f"kv_len={raw['kv_len']}"
    else:
        step = Step.prefill(_int(raw, "isl"), batch)
        what = f"isl={raw['isl']}"
    row = _one_module_row(core, step, _formats("bf16", kv))
    row = replace(row, compute_dtype="fp8" if key == "fp8" else "bf16")
    keys = row.kv_read_bytes / row.kv_write_bytes if table == "attention_decode" else 0.0
    label = f"{raw['attn_dtype']}/kv {raw['kv_cache_dtype']} b={batch} {what} h={heads}/{raw['num_key_value_heads']}" \
            f" d={head_dim}" + (f" window={window}" if window else "")
    return row, Character(table, key, keys), label


def _mla(raw):
    kv, key = _attention_dtypes(raw)
    core = AttentionCore("mla", "mla", _int(raw, "num_heads"), 1, component="attention.mla", **_MLA)
    batch = _int(raw, "batch_size")
    if raw["kind"] == "generation":
        step, kind = Step.decode(_int(raw, "kv_len") - 1, batch), "mla_decode"
    elif raw["kind"] == "context":
        step, kind = Step.prefill(_int(raw, "isl"), batch), "mla_prefill"
    else:
        raise ValueError(f"MLA kind {raw['kind']!r} is neither context nor generation")
    row = replace(_one_module_row(core, step, _formats("bf16", kv)), compute_dtype="bf16")
    keys = row.kv_read_bytes / row.kv_write_bytes if kind == "mla_decode" else 0.0
    label = f"{raw['kind']} kv {raw['kv_cache_dtype']} b={batch} isl={raw['isl']} kv_len={raw['kv_len']} " \
            f"h={raw['num_heads']}"
    return row, Character(kind, key, keys), label


def _moe(raw, accelerator):
    if raw["moe_dtype"] not in _GEMM_DTYPES:
        raise ValueError(f"MoE dtype {raw['moe_dtype']!r} is not one the tool prices")
    precision, key = _GEMM_DTYPES[raw["moe_dtype"]]
    tp, ep = _int(raw, "moe_tp_size"), _int(raw, "moe_ep_size")
    experts, inter = _int(raw, "num_experts"), _int(raw, "inter_size")
    if not tp or not ep or experts % ep or inter % tp:
        raise ValueError(f"experts {experts} / EP {ep} or intermediate {inter} / TP {tp} do not divide")
    module = Experts("moe", experts // ep, _int(raw, "topk"), _int(raw, "hidden_size"), inter // tp, "moe",
                     gated="nongated" not in raw.get("kernel_source", ""))
    formats = _formats(precision)
    row = experts_row("kernel", module, 1, float(raw["local_pairs"]), float(raw["experts_touched"]), formats)
    if key != "wo" and accelerator is not None and not accelerator.peak_flops_per_second(row.compute_dtype):
        key = "wo"  # e.g. fp4 weights on a part without fp4 units: converted and multiplied in bf16
    label = f"{raw['moe_dtype']} tokens={raw['num_tokens']} h={raw['hidden_size']} i={inter}/{tp} " \
            f"top{raw['topk']} E={experts}/{ep}"
    return row, Character("moe", key), label


def read_kernels(path: str) -> list[KernelRow]:
    """Every data row of a kernel CSV, in file order, priced or with the reason it is not."""
    from inferledger.hardware import find_accelerator

    try:
        with open(path, encoding="utf-8", newline="") as handle:
            lines = handle.read().splitlines()
    except FileNotFoundError:
        raise CalibrationError(f"kernel CSV {path!r} not found") from None
    except (OSError, UnicodeDecodeError) as error:
        raise CalibrationError(f"cannot read kernel CSV {path!r}: {error}") from None
    if not lines:
        raise CalibrationError(f"kernel CSV {path!r} is empty; give a file with a header row")
    header = next(csv.reader(lines[:1]))
    try:
        table = table_of(header)
    except CalibrationError as error:
        raise CalibrationError(f"{path}: {error}") from None
    accelerators: dict = {}
    out = []
    for number, text in enumerate(lines[1:], start=1):
        values = next(csv.reader([text]), [])
        if not values:
            continue
        raw = dict(zip(header, values, strict=False))
        held_out = zlib.crc32(text.encode("utf-8")) % HELD_OUT_ONE_IN == 0
        gpu = raw.get("gpu", "")
        excluded = "flagged l2_fit" if _flag(raw.get("l2_fit")) or \
            _flag(raw.get("weight_bytes_x_copies_plus_act_le_L2")) else "flagged suspect" \
            if _flag(raw.get("suspect")) else ""
        common = {"line": number, "table": table, "gpu": gpu, "held_out": held_out}
        try:
            if len(values) != len(header):
                raise ValueError(f"the row has {len(values)} fields, the header {len(header)}")
            measured = float(raw.get("latency_us", "nan")) * 1e-6
            if not measured > 0 or not math.isfinite(measured):
                raise ValueError(f"latency_us = {raw.get('latency_us')!r} is not a positive number")
            if table == "collectives":
                raise ValueError("collectives are not modelled yet (no interconnect rows in the ledger)")
            if gpu not in accelerators:
                try:
                    accelerators[gpu] = find_accelerator(GPU_NAMES.get(gpu, gpu))
                except InferledgerError:
                    accelerators[gpu] = None
            accelerator = accelerators[gpu]
            if accelerator is None:
                raise ValueError(f"gpu {gpu!r} is not in the catalog (known: {', '.join(GPU_NAMES)})")
            if table == "gemm":
                row, shape, label = _gemm(raw)
            elif table == "mla":
                row, shape, label = _mla(raw)
            elif table == "moe":
                row, shape, label = _moe(raw, accelerator)
            else:
                row, shape, label = _attention(raw, table)
        except (KeyError, ValueError, InferledgerError) as error:
            reason = f"missing column {error}" if isinstance(error, KeyError) else str(error)
            out.append(KernelRow(**common, clean=False, accelerator=None, shape=None, row=None,
                                 measured_seconds=None, reason=reason, excluded=excluded))
            continue
        if not excluded and row.bytes <= L2_MARGIN * L2_BYTES.get(gpu, 0.0):
            excluded = f"working set {row.bytes / 1e6:.0f} MB within {L2_MARGIN}x the {L2_BYTES[gpu] / 1e6:.0f} MB L2"
        out.append(KernelRow(**common, clean=not excluded, accelerator=accelerator, shape=shape, row=row,
                             measured_seconds=measured, label=label, excluded=excluded))
    return out
