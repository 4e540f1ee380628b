"""The accelerator catalog: one frozen record per part, read from the bundled accelerators.json (data with its
sources) plus any parts the user describes in their own JSON/YAML files.

Conventions (also written at the top of accelerators.json):
- peak_flops_per_second_by_dtype holds DENSE peaks; a datasheet's "with sparsity" figure is stored halved.
- interconnect_bandwidth_bytes_per_second is PER DIRECTION (vendors quote the bidirectional total).
- FLOPs:byte is never stored: flops_per_byte() derives it from peak and bandwidth.

Only the standard library is imported here (json at load time, PyYAML lazily for .yaml files), so the CLI stays fast.
"""

from __future__ import annotations

import json
import math
import os
from dataclasses import dataclass
from functools import lru_cache

from inferledger.errors import UnknownAccelerator, UnknownPrecision

ENV_VAR = "INFERLEDGER_ACCELERATORS"

# Canonical dtype keys of the FLOP table, and the spellings users and configs use for them.
DTYPES = ("fp32", "tf32", "fp16", "bf16", "fp8", "int8", "fp4")
_DTYPE_ALIASES = {
    "fp32": "fp32", "float32": "fp32", "f32": "fp32", "float": "fp32",
    "tf32": "tf32", "tensorfloat32": "tf32",
    "fp16": "fp16", "float16": "fp16", "f16": "fp16", "half": "fp16",
    "bf16": "bf16", "bfloat16": "bf16",
    # FP8: E4M3 and E5M2 run at the same tensor-core rate on every part in the catalog.
    "fp8": "fp8", "float8": "fp8", "fp8e4m3": "fp8", "e4m3": "fp8", "fp8e5m2": "fp8", "e5m2": "fp8",
    "fp8e4m3fn": "fp8", "mxfp8": "fp8",
    "int8": "int8", "i8": "int8", "w8a8": "int8",
    # FP4: NVIDIA's NVFP4 and OCP MXFP4 share Blackwell's FP4 tensor-core rate.
    "fp4": "fp4", "float4": "fp4", "nvfp4": "fp4", "mxfp4": "fp4", "fp4e2m1": "fp4", "e2m1": "fp4",
}


def canonical_dtype(dtype: str) -> str:
    """'bfloat16' -> 'bf16', 'fp8_e4m3' -> 'fp8', 'nvfp4' -> 'fp4'. Unknown names raise UnknownPrecision."""
    if dtype in DTYPES:  # the common case, asked once per operator row: no normalising
        return dtype
    key = "".join(ch for ch in str(dtype).lower() if ch.isalnum())
    if key not in _DTYPE_ALIASES:
        raise UnknownPrecision(f"unknown dtype {dtype!r} for peak FLOP/s; use one of {', '.join(DTYPES)}")
    return _DTYPE_ALIASES[key]


@dataclass(frozen=True)
class Accelerator:
    """One accelerator (or CPU socket) in base units. Figures are per device."""

    name: str  # canonical id, e.g. "h100-sxm"
    display_name: str
    vendor: str
    memory_bytes: int  # device memory; see the entry's notes for the GB-vs-GiB reading of the datasheet
    memory_bandwidth_bytes_per_second: float  # peak DRAM/HBM bandwidth
    peak_flops_per_second_by_dtype: dict  # dense peaks, keys from DTYPES; int8 counts integer ops
    interconnect_bandwidth_bytes_per_second: float | None = None  # device-to-device link, per direction
    interconnect_name: str = ""
    aliases: tuple = ()
    sources: tuple = ()  # ({"title", "url", "figures"}, ...)
    notes: tuple = ()
    origin: str = "bundled"  # "bundled" or the path of the user's file
    architecture: str = ""  # chip generation ("hopper", "ada", ...): keys the realistic estimate's efficiencies

    def peak_flops_per_second(self, dtype: str) -> float | None:
        """Dense peak for a dtype (aliases accepted); None when the part has no units for it."""
        return self.peak_flops_per_second_by_dtype.get(canonical_dtype(dtype))

    def flops_per_byte(self, dtype: str = "bf16") -> float | None:
        """Hardware ridge point: peak FLOP/s over memory bandwidth. Below it a kernel is bandwidth bound
        (the seed chapter states this rule backwards; see DESIGN.md errata 1)."""
        peak = self.peak_flops_per_second(dtype)
        return None if peak is None else peak / self.memory_bandwidth_bytes_per_second

    def to_dict(self) -> dict:
        return {
            "name": self.name,
            "display_name": self.display_name,
            "vendor": self.vendor,
            "architecture": self.architecture,
            "aliases": list(self.aliases),
            "memory_bytes": self.memory_bytes,
            "memory_bandwidth_bytes_per_second": self.memory_bandwidth_bytes_per_second,
            "peak_flops_per_second_by_dtype": {k: self.peak_flops_per_second_by_dtype[k]
                                               for k in DTYPES if k in self.peak_flops_per_second_by_dtype},
            "flops_per_byte_by_dtype": {k: self.flops_per_byte(k)
                                        for k in DTYPES if k in self.peak_flops_per_second_by_dtype},
            "interconnect_name": self.interconnect_name,
            "interconnect_bandwidth_bytes_per_second": self.interconnect_bandwidth_bytes_per_second,
            "interconnect_direction": "per direction",
            "sources": [dict(s) for s in self.sources],
            "notes": list(self.notes),
            "origin": self.origin,
        }


# ---------------------------------------------------------------- reading and validating entries

class _BadEntry(Exception):
    """Internal: one entry is invalid; the caller adds the file name."""


def _positive_number(entry: dict, key: str, required: bool = True):
    if key not in entry or entry[key] is None:
        if required:
            raise _BadEntry(f"missing field {key!r}")
        return None
    value = entry[key]
    # bool is an int in Python; a True bandwidth is a typo, not 1 B/s.
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value) or value <= 0:
        raise _BadEntry(f"field {key!r} must be a positive number, got {value!r}")
    return value


def _memory_bytes(entry: dict) -> int:
    # memory_bytes is canonical; memory_gib / memory_gb are conveniences for hand-written user files.
    given = [k for k in ("memory_bytes", "memory_gib", "memory_gb") if entry.get(k) is not None]
    if not given:
        raise _BadEntry("missing field 'memory_bytes' (or 'memory_gib' / 'memory_gb')")
    if len(given) > 1:
        raise _BadEntry(f"give only one of {', '.join(given)}")
    value = _positive_number(entry, given[0])
    factor = {"memory_bytes": 1, "memory_gib": 2**30, "memory_gb": 10**9}[given[0]]
    return int(round(value * factor))


def _entry_to_accelerator(entry, origin: str) -> Accelerator:
    if not isinstance(entry, dict):
        raise _BadEntry(f"an accelerator entry must be a mapping of fields, got {type(entry).__name__}")
    name = entry.get("name")
    if not isinstance(name, str) or not name.strip():
        raise _BadEntry("missing field 'name' (a short id such as 'my-gpu')")
    where = f"entry {name!r}: "
    try:
        flops_in = entry.get("peak_flops_per_second_by_dtype")
        if not isinstance(flops_in, dict) or not flops_in:
            raise _BadEntry("missing field 'peak_flops_per_second_by_dtype' (e.g. {\"bf16\": 312e12})")
        flops = {}
        for dtype, value in flops_in.items():
            try:
                key = canonical_dtype(dtype)
            except UnknownPrecision as error:
                raise _BadEntry(str(error)) from None
            if value is None:  # explicit "the part lacks this dtype"
                continue
            flops[key] = _positive_number({f"peak_flops_per_second_by_dtype.{dtype}": value},
                                          f"peak_flops_per_second_by_dtype.{dtype}")
        if not flops:
            raise _BadEntry("'peak_flops_per_second_by_dtype' has no figures")
        aliases = entry.get("aliases") or []
        if isinstance(aliases, str) or not all(isinstance(a, str) for a in aliases):
            raise _BadEntry("field 'aliases' must be a list of strings")
        sources = entry.get("sources") or [{"title": "user-supplied file", "url": origin}]
        notes = entry.get("notes") or []
        if isinstance(notes, str):
            notes = [notes]
        return Accelerator(
            name=name.strip(),
            display_name=str(entry.get("display_name") or name).strip(),
            vendor=str(entry.get("vendor") or "unknown"),
            architecture=str(entry.get("architecture") or "").strip().lower(),
            memory_bytes=_memory_bytes(entry),
            memory_bandwidth_bytes_per_second=float(_positive_number(entry, "memory_bandwidth_bytes_per_second")),
            peak_flops_per_second_by_dtype={k: float(v) for k, v in flops.items()},
            interconnect_bandwidth_bytes_per_second=_optional_float(
                _positive_number(entry, "interconnect_bandwidth_bytes_per_second", required=False)),
            interconnect_name=str(entry.get("interconnect_name") or ""),
            aliases=tuple(aliases),
            sources=tuple(dict(s) if isinstance(s, dict) else {"title": str(s)} for s in sources),
            notes=tuple(str(n) for n in notes),
            origin=origin,
        )
    except _BadEntry as error:
        raise _BadEntry(where + str(error)) from None


def _optional_float(value):
    return None if value is None else float(value)


def _entries_of(document) -> list:
    # A file may hold one part (a mapping with "name"), a list of parts, or {"accelerators": [...]}.
    if isinstance(document, dict) and "accelerators" in document:
        document = document["accelerators"]
    if isinstance(document, dict):
        return [document]
    if isinstance(document, list):
        return document
    raise _BadEntry("expected an accelerator mapping, a list of them, or {\"accelerators\": [...]}")


def load_file(path: str) -> tuple[Accelerator, ...]:
    """Parts described in a user's .json / .yaml / .yml file. Errors name the file and the field."""
    path = os.fspath(path)
    if not os.path.isfile(path):
        raise UnknownAccelerator(f"accelerator file {path!r} not found; give an existing .json or .yaml file")
    try:
        with open(path, encoding="utf-8") as handle:
            text = handle.read()
    except (OSError, UnicodeDecodeError) as error:
        raise UnknownAccelerator(f"cannot read accelerator file {path!r}: {error}") from None
    if path.lower().endswith((".yaml", ".yml")):
        try:
            import yaml  # lazy: only users with YAML files pay for it
        except ImportError:
            raise UnknownAccelerator(f"reading {path!r} needs PyYAML: pip install pyyaml (or write the file as JSON)") from None
        try:
            document = yaml.safe_load(text)
        except yaml.YAMLError as error:
            mark = getattr(error, "problem_mark", None)
            at = f" at line {mark.line + 1}" if mark is not None else ""
            raise UnknownAccelerator(f"accelerator file {path!r} is not valid YAML{at}; fix the syntax") from None
    else:
        try:
            document = json.loads(text)
        except json.JSONDecodeError as error:
            raise UnknownAccelerator(
                f"accelerator file {path!r} is not valid JSON (line {error.lineno}, column {error.colno}: {error.msg})"
            ) from None
    try:
        entries = _entries_of(document)
        if not entries:
            raise _BadEntry("the file lists no accelerators")
        return tuple(_entry_to_accelerator(entry, origin=path) for entry in entries)
    except _BadEntry as error:
        raise UnknownAccelerator(f"accelerator file {path!r}: {error}") from None


@lru_cache(maxsize=1)
def _bundled() -> tuple[Accelerator, ...]:
    # A plain file read: importlib.resources would cost more at start-up than the whole catalog.
    with open(os.path.join(os.path.dirname(__file__), "accelerators.json"), encoding="utf-8") as file:
        text = file.read()
    # The bundled file is ours: an invalid entry is a packaging bug, so let it raise loudly.
    return tuple(_entry_to_accelerator(entry, origin="bundled") for entry in json.loads(text)["accelerators"])


def _env_files() -> list[str]:
    return [p for p in os.environ.get(ENV_VAR, "").split(os.pathsep) if p.strip()]


def load_catalog(extra_files=()) -> tuple[Accelerator, ...]:
    """Bundled parts, then parts from $INFERLEDGER_ACCELERATORS (os.pathsep-separated files), then extra_files.
    A user part with the same name as an earlier one replaces it, so a file can correct a bundled figure."""
    by_name: dict[str, Accelerator] = {}
    for part in _bundled():
        by_name[part.name] = part
    for path in [*_env_files(), *extra_files]:
        for part in load_file(path):
            by_name.pop(part.name, None)  # re-insert so user parts sort after bundled ones
            by_name[part.name] = part
    return tuple(by_name.values())
