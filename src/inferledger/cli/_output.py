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


def json_text(document) -> str:
    """The text `--json` prints for `document` (a dict, list or anything with to_dict()), newline included: the
    web API answers with the same text, so the two cannot differ."""
    if hasattr(document, "to_dict"):
        document = document.to_dict()
    return json.dumps(_clean(document), indent=2, ensure_ascii=False) + "\n"


def print_json(document) -> None:
    sys.stdout.write(json_text(document))


def print_warnings(verb: str, warnings) -> None:
    """Warnings go to stderr, one line each (the JSON carries them too, under `warnings`)."""
    for warning in warnings:
        print(f"inferledger {verb}: warning: {warning}", file=sys.stderr)


def add_plot_option(parser, what: str) -> None:
    parser.add_argument("--plot", metavar="FILE",
                        help=f"also draw {what} to FILE (.png or .svg; needs the `plot` extra: matplotlib)")


def write_plot(path: str, charts: list, verb: str) -> None:
    """Draw chart specs (inferledger.report.charts) into one PNG or SVG; says where on stderr, so --json stays
    the only thing on stdout."""
    from inferledger.report.plots import save_charts

    save_charts(charts, path)
    print(f"inferledger {verb}: plot written to {path}", file=sys.stderr)
