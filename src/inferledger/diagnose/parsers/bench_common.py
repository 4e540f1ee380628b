"""Numbers, units and statistic names as the benchmark clients print them."""

from __future__ import annotations

import math
import re

NUMBER = re.compile(r"[-+]?(?:\d[\d,]*(?:\.\d*)?|\.\d+)(?:[eE][-+]?\d+)?|[-+]?inf(?:inity)?", re.IGNORECASE)
# A grid table's rule (tabulate's `grid` and `psql` formats, pandas' to_markdown(tablefmt="grid"), mistralrs-bench):
# `+----+====+`.
# A column comparing two runs (a difference, a ratio, a gain, the better of them), not a run of its own (a markdown
# table's `Δ`, llamafile's `t/s speedup`, a `Winner` column's `Standard (3.4x faster)`); so is a row comparing the
# rows above it (`| **Δ** | **+0.45 ms** | … |`, `Speedup`), whose signed cells would make a column of times look
# like none.
COMPARISON = re.compile(r"^[\s*_`]*(?:Δ|(?:delta|diff(?:erence)?|change|gain|improvement|speed-?up|ratio|winner)\b)",
                        re.IGNORECASE)
GRID_RULE = re.compile(r"^\+[-=:+]*[-=]{3,}[-=:+]*\+$")
# Seconds per unit, for the unit words the tools print.
TIME_UNITS = {"ns": 1e-9, "us": 1e-6, "usec": 1e-6, "µs": 1e-6, "μs": 1e-6, "ms": 1e-3, "msec": 1e-3, "s": 1.0,
              "sec": 1.0, "secs": 1.0, "seconds": 1.0}
# The statistic spellings of the tools, mapped onto records.STATS (p50 is the median everywhere).
STAT_NAMES = {"mean": "mean", "avg": "mean", "average": "mean", "median": "median", "p50": "median",
               "p90": "p90", "p95": "p95", "p99": "p99", "min": "min", "minimum": "min", "max": "max",
               "maximum": "max", "p100": "max", "std": "std", "stddev": "std"}


def json_number(value) -> float | None:
    """A JSON number (not a bool), or a number in a string (llmperf writes min/max token counts as strings)."""
    if isinstance(value, bool) or value is None:
        return None
    if isinstance(value, (int, float)):
        return float(value)
    if isinstance(value, str):
        return to_number(value) if NUMBER.fullmatch(value.strip()) else None
    return None


def to_number(text: str) -> float | None:
    """The first number in a cell ('1,764.61', '--->  1,764.61', '15.0 RPS.'), or None ('N/A', 'not set')."""
    match = NUMBER.search(text)
    if match is None:
        return None
    token = match.group().replace(",", "")
    try:
        value = float(token)
    except ValueError:
        return None
    return value if math.isfinite(value) else None  # 'inf' rates are handled as labels before this


def canonical_stat(name: str) -> str | None:
    """A tool's statistic name ('Mean', 'P99', 'quantiles_p95', 'p99.9') as a records.STATS name, or None."""
    name = name.lower().replace("quantiles_", "")
    if name in STAT_NAMES:
        return STAT_NAMES[name]
    if re.fullmatch(r"p9\d\.\d+", name):
        return name.replace(".", "_")  # p99.9 -> p99_9: a tail percentile records.STATS does not list
    return None  # p1..p75: not used by the diagnosis, left out to keep the metric names to records.STATS

LATENCY_METRIC = {"ttft": "ttft_seconds", "tpot": "tpot_seconds", "itl": "itl_seconds", "e2el": "e2e_seconds",
                   "e2e latency": "e2e_seconds", "ttst": "ttst_seconds"}

LITTLE_TOLERANCE = 2.0  # measured latency within this factor of C / R: closed loops, warm-up and stragglers


def littles_unit(rate: float | None, held: float | None, latency: float | None) -> float | None:
    """Seconds per unit (1 or 0.001) of a unitless request latency that `held` requests in flight at `rate` completed
    a second make plausible (Little's law: each takes held / rate), or None when that cannot say."""
    if not rate or not held or not latency:
        return None
    expected = held / rate
    return next((factor for factor in (1.0, 1e-3)
                 if 1 / LITTLE_TOLERANCE <= latency * factor / expected <= LITTLE_TOLERANCE), None)
