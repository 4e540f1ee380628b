"""$/GPU-hour: a small bundled table with sources and dates (prices.json), which a user's file overrides or extends.

A user file is JSON or YAML mapping an accelerator name to dollars per GPU-hour, either a number or
{"usd_per_hour": N, "source": "...", "date": "..."}; names go through the accelerator lookup, so "H100" works.
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass
from importlib import resources

from inferledger.errors import BadWorkload


@dataclass(frozen=True)
class Price:
    usd_per_hour: float
    source: str
    date: str


def bundled_prices() -> dict[str, Price]:
    document = json.loads(resources.files("inferledger.plan").joinpath("prices.json").read_text())
    return {name: Price(float(p["usd_per_hour"]), p["source"], p["date"]) for name, p in document["prices"].items()}


def load_prices(path: str | None = None) -> dict[str, Price]:
    """The bundled prices, overridden and extended by the file at `path` (JSON or YAML)."""
    prices = bundled_prices()
    if path is None:
        return prices
    from inferledger.hardware import find_accelerator

    try:
        with open(path, encoding="utf-8") as stream:
            text = stream.read()
    except OSError as error:
        raise BadWorkload(f"--prices {path}: cannot read it ({error.strerror})") from None
    try:
        if path.lower().endswith((".yaml", ".yml")):
            import yaml

            document = yaml.safe_load(text)
        else:
            document = json.loads(text)
    except Exception as error:  # json and yaml raise different types; both are bad input here
        raise BadWorkload(f"--prices {path}: not valid JSON/YAML ({str(error).splitlines()[0]})") from None
    document = document.get("prices", document) if isinstance(document, dict) else document
    if not isinstance(document, dict):
        raise BadWorkload(f"--prices {path}: give a mapping of accelerator name to dollars per GPU-hour")
    for name, entry in document.items():
        value = entry.get("usd_per_hour") if isinstance(entry, dict) else entry
        if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value) or value <= 0:
            raise BadWorkload(f"--prices {path}: {name}: the price must be dollars per GPU-hour > 0, got {value!r}")
        card = find_accelerator(str(name)).name
        source = entry.get("source", path) if isinstance(entry, dict) else path
        date = str(entry.get("date", "")) if isinstance(entry, dict) else ""
        prices[card] = Price(float(value), str(source), date)
    return prices
