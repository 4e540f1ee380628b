"""Forgiving accelerator lookup: "h100", "H100-SXM5-80GB", "nvidia h100 sxm", "a100 80gb", or a path to the
user's own .json/.yaml part.

Rules, in order:
1. A name ending in .json / .yaml / .yml is a file describing one part.
2. Case, separators and noise words (vendor names, "GPU", "Tensor Core", memory types such as "HBM3") are ignored;
   "80 GB" and "80GB" are the same token.
3. An exact match on a part's id, display name or alias wins. Defaults for bare family names live in the data file as
   aliases, each documented in that entry's notes: "H100" -> h100-sxm, "A100 80GB" -> a100-sxm-80gb,
   "A100 40GB" -> a100-sxm-40gb. A bare "A100" has no default (four parts) and is reported as ambiguous.
4. Otherwise the query's words must all appear among one part's words; one such part wins, several are ambiguous.
   A part whose id carries a variant word (ti, super, xt, xtx) is not matched by a query without it: "RTX 4060" is
   not taken for the rtx-4060-ti-16gb.
5. Nothing matches: UnknownAccelerator listing the close names (difflib).
"""

from __future__ import annotations

import os
import re

from inferledger.errors import UnknownAccelerator, require
from inferledger.hardware.catalog import Accelerator, load_catalog, load_file

_FILE_SUFFIXES = (".json", ".yaml", ".yml")
_NOISE = {
    "nvidia", "amd", "intel", "geforce", "tensor", "core", "cores", "gpu", "gpus", "instinct", "accelerator",
    "card", "processor", "the", "hbm", "hbm2", "hbm2e", "hbm3", "hbm3e", "gddr6", "gddr6x", "per",
}
# Words that name a different board of the same number (RTX 4060 vs 4060 Ti, 7900 XT vs XTX).
_VARIANTS = {"ti", "super", "xt", "xtx"}


def _tokens(text: str) -> tuple[str, ...]:
    words = [w for w in re.split(r"[^a-z0-9]+", str(text).lower()) if w]
    merged: list[str] = []
    for word in words:
        # "80 GB" -> "80gb"; "80GiB" and "80g" mean the same label.
        if word in ("gb", "gib", "g") and merged and merged[-1].isdigit():
            merged[-1] += "gb"
            continue
        word = re.sub(r"^(\d+)(gib|g)$", r"\1gb", word)
        if word not in _NOISE:
            merged.append(word)
    return tuple(merged)


def _labels(part: Accelerator) -> list[str]:
    return [part.name, part.display_name, *part.aliases]


def _is_file_name(name: str) -> bool:
    return str(name).lower().endswith(_FILE_SUFFIXES)


def find_accelerator(name, extra_files=()) -> Accelerator:
    """The one part `name` designates, from the bundled catalog, $INFERLEDGER_ACCELERATORS and extra_files,
    or from the file `name` itself. Raises UnknownAccelerator (one line) when nothing or several things match."""
    if isinstance(name, Accelerator):
        return name
    require(name, (str, os.PathLike), "name", "an accelerator name such as 'h100-sxm' or a path to a .json/.yaml part")
    name = str(name).strip()
    if _is_file_name(name):
        parts = load_file(name)
        if len(parts) != 1:
            names = ", ".join(p.name for p in parts)
            raise UnknownAccelerator(
                f"accelerator file {name!r} describes {len(parts)} parts ({names}); "
                f"add it to $INFERLEDGER_ACCELERATORS and pass one of those names instead"
            )
        return parts[0]

    catalog = load_catalog(extra_files)
    query = _tokens(name)
    if not query:
        raise UnknownAccelerator(f"accelerator name {name!r} is empty or only generic words; "
                                 "run `inferledger gpus` for the catalog")
    query_key = "".join(query)

    exact = [p for p in catalog if any("".join(_tokens(label)) == query_key for label in _labels(p))]
    if len(exact) == 1:
        return exact[0]
    if len(exact) > 1:
        _ambiguous(name, exact)

    words = set(query)
    # A name short of a label must still carry the part's number (`4090`, `M2`, `8060S`): words alone (`Radeon
    # Graphics`, `Ryzen`, `AI PRO`) are shared by parts the catalogue does not hold.
    numbered = any(any(char.isdigit() for char in word) for word in words)
    covering = [p for p in catalog if numbered and words <= {t for label in _labels(p) for t in _tokens(label)}
                and not (_VARIANTS & set(_tokens(p.name))) - words]
    if len(covering) == 1:
        return covering[0]
    if len(covering) > 1:
        _ambiguous(name, covering)

    key_to_names: dict[str, list[str]] = {}
    for part in catalog:
        for label in _labels(part):
            key_to_names.setdefault("".join(_tokens(label)), []).append(part.name)
    close: list[str] = []
    from difflib import get_close_matches  # only on this error path: it is slow to import

    for key in get_close_matches(query_key, list(key_to_names), n=8, cutoff=0.6):
        for part_name in key_to_names[key]:
            if part_name not in close:
                close.append(part_name)
    hint = f"close names: {', '.join(close[:5])}" if close else "no close names"
    raise UnknownAccelerator(
        f"unknown accelerator {name!r} ({hint}); run `inferledger gpus` for the catalog, "
        "or pass a .json/.yaml file describing your part"
    )


def _ambiguous(name: str, parts: list[Accelerator]):
    raise UnknownAccelerator(
        f"accelerator {name!r} is ambiguous: it matches {', '.join(p.name for p in parts)}; name one of them"
    )
