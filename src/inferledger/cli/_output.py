"""Output shared by every verb: the --json flag and a JSON printer that keeps the document valid."""

from __future__ import annotations

import json
import math
import sys


def add_json_flag(parser) -> None:
    parser.add_argument("--json", action="store_true", help="print JSON only (stable keys, base units)")


def _clean(value):
    # JSON has no Infinity/NaN: emit null so the document stays valid (as nanochat's infer_bench does).
    if isinstance(value, float) and not math.isfinite(value):
        return None
    if isinstance(value, dict):
        return {str(k): _clean(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_clean(v) for v in value]
    return value


def print_json(document) -> None:
    if hasattr(document, "to_dict"):
        document = document.to_dict()
    json.dump(_clean(document), sys.stdout, indent=2, ensure_ascii=False)
    sys.stdout.write("\n")


def print_warnings(verb: str, warnings) -> None:
    """Warnings go to stderr, one line each (the JSON carries them too, under `warnings`)."""
    for warning in warnings:
        print(f"inferledger {verb}: warning: {warning}", file=sys.stderr)
