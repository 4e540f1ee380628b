"""A benchmark script's per-request figures summarised by pandas' `DataFrame.describe()`:

           duration_ms  tokensPerSecond  outputTokens
    count    10.000000        10.000000          10.0
    mean    863.273740        11.884291          10.0
    std     174.210427         1.668077           0.0
    min     774.039030         7.424325          10.0
    25%     777.982295        11.719851          10.0
    50%     799.238801        12.517188          10.0
    75%     853.254139        12.853763          10.0
    max    1346.923828        12.919245          10.0

or its transpose (`describe().T`: a column a row, the statistics across), or a `groupby(setting).agg([...])` of the
same figures, a run a row under two header lines (the figures, then each one's statistics) and the setting's name:

                generated_tps             total_tps
                     mean median  std      mean median  std
    concurrency
    1                42.2   42.2  0.3     167.1  167.2  0.7

Each column holds one figure of every request, so a statistic row is that figure over the requests: the mean and the
median (50%) of a latency, of a request's own token rate, of its token counts; `count` is the number of requests. A
column is read only when its name says what it is and, for a time, its unit (`duration_ms`, `ttft_s`): a bare
`latency` may be seconds or milliseconds.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from inferledger.diagnose.parsers.bench_common import TIME_UNITS, canonical_stat
from inferledger.diagnose.records import Record

NAME = "pandas-describe"

_STATS = ("count", "mean", "std", "min", "max")
_PERCENT = re.compile(r"^(\d{1,2}(?:\.\d+)?)%$")
_NUMBER = re.compile(r"^-?\d+(?:\.\d+)?(?:e[-+]?\d+)?$|^nan$", re.IGNORECASE)
# A column's name in words (`tokensPerSecond` and `tokens_per_second` alike), its unit split off the end.
_TIMES = ((re.compile(r"\bttft\b|time to first token|first token"), "ttft_seconds"),
          (re.compile(r"\btpot\b|time per output token"), "tpot_seconds"),
          (re.compile(r"\bitl\b|inter token"), "itl_seconds"),
          (re.compile(r"\be2el?\b|latency|duration|elapsed|total time|response time|^time$|wall"), "e2e_seconds"))
_RATE = re.compile(r"^(?:output |gen(?:eration|erated)? |decode )?(?:tok(?:en)?s? per s(?:ec(?:ond)?)?|tok(?:en)?s? s|tps)$")
_COUNTS = ((re.compile(r"^(?:output|completion|generated|new|gen) tok(?:en)?s?$|^num (?:output|generated) tokens$"),
            "mean_output_tokens"),
           (re.compile(r"^(?:input|prompt) tok(?:en)?s?$|^num (?:input|prompt) tokens$"), "mean_input_tokens"))
STREAM_RATE = "output_tokens_per_second_per_user_mean"  # one request's tokens over its own time, averaged


def _words(name: str) -> str:
    name = re.sub(r"(?<=[a-z])(?=[A-Z])", " ", name).lower()
    return " ".join(re.split(r"[\s_./()\-]+", name)).strip()


def column(name: str) -> tuple[str, float, str] | None:
    """(metric, factor to base units, kind) for a column name, or None: a time (`time`) needs its unit, a request's
    token rate is `rate`, its token counts `count`."""
    words = _words(name).split()
    unit = TIME_UNITS.get(words[-1]) if words else None
    if unit is not None:
        words = words[:-1]
    text = " ".join(words)
    if not text:
        return None
    if _RATE.match(text):
        return STREAM_RATE, 1.0, "rate"
    for pattern, metric in _COUNTS:
        if pattern.match(text):
            return metric, 1.0, "count"
    if unit is None:
        return None
    return next(((metric, unit, "time") for pattern, metric in _TIMES if pattern.search(text)), None)


def _stat(word: str) -> str | None:
    """`mean` -> mean, `50%` -> median, `90%` -> p90, `count` -> count; other percentiles and `std` -> None."""
    if word == "count":
        return "count"
    match = _PERCENT.match(word)
    if match:
        return canonical_stat("median" if match.group(1) == "50" else f"p{match.group(1)}")
    return canonical_stat(word) if word != "std" else None


def _is_stat_row(cells: list) -> bool:
    return len(cells) >= 2 and (cells[0] in _STATS or bool(_PERCENT.match(cells[0]))) \
        and all(_NUMBER.match(cell) for cell in cells[1:])


# groupby().agg()'s statistic names, and the settings a run is grouped by (the index's name) that the diagnosis reads.
_AGG_STATS = {"mean", "median", "std", "min", "max", "count", "sum"}
_SETTINGS = {"concurrency": "max_concurrency", "max_concurrency": "max_concurrency", "batch_size": "max_concurrency",
             "users": "max_concurrency", "num_users": "max_concurrency", "prompt_size": "mean_input_tokens",
             "input_len": "mean_input_tokens", "prompt_len": "mean_input_tokens"}


def _is_agg_header(names: list, stats: list, index: list) -> bool:
    """groupby().agg()'s header: figures, then each one's statistics (the same number under each), then the index's
    name alone on its line."""
    return bool(names) and len(stats) >= 2 and len(stats) % len(names) == 0 and all(
        word in _AGG_STATS or _PERCENT.match(word) for word in stats) and len(index) == 1 \
        and index[0].lower() in _SETTINGS and any(column(name) for name in names)


def sniff(head: str) -> float:
    lines = [line.split() for line in head.splitlines()]
    for index, cells in enumerate(lines[:-3]):
        if index > 0 and _is_agg_header(lines[index - 1], cells, lines[index + 1]):
            return 0.65
        if cells[:1] == ["count"] and _is_stat_row(cells) and lines[index + 1][:1] == ["mean"] \
                and lines[index + 2][:1] == ["std"] and index > 0 \
                and any(column(name) for name in lines[index - 1]):
            return 0.65
        if cells[:2] == ["count", "mean"] and "std" in cells:  # the transpose's header
            return 0.65
    return 0.0


def _record(line_number: int, figures: dict) -> Record | None:
    """The summary of one describe() block: figures is {column name: {statistic: value}}."""
    metrics: dict = {}
    for name, stats in figures.items():
        found = column(name)
        if found is None:
            continue
        metric, factor, kind = found
        if stats.get("count"):
            metrics["completed_requests"] = stats["count"]
        if kind != "time":  # a count or a request's own rate: its mean over the requests
            if "mean" in stats:
                metrics[metric] = stats["mean"]
            continue
        for stat, value in stats.items():
            if stat != "count":
                metrics[f"{metric}_{stat}"] = value * factor
    if set(metrics) <= {"completed_requests"}:
        return None
    return Record("summary", "pandas.describe", line_number, metrics, None,
                  {"tool": "pandas describe()", "statistics": "over the requests, a column a figure of each"})


def _agg_record(line_number: int, names: list, stats: list, setting: str, cells: list) -> Record | None:
    """One run of a groupby().agg() table: its setting's value and each figure's statistics."""
    per_name = len(stats) // len(names)
    figures = {name: {} for name in names}
    for at, cell in enumerate(cells[1:]):
        stat = _stat(stats[at])
        if stat is not None and cell.lower() != "nan":
            figures[names[at // per_name]][stat] = float(cell)
    record = _record(line_number, figures)
    if record is None:
        return None
    record.metrics[_SETTINGS[setting.lower()]] = float(cells[0])
    record.labels["tool"] = "pandas groupby().agg()"
    record.labels["statistics"] = f"over the requests of each {setting}, a column a figure of each"
    return record


def parse(lines) -> Iterator[Record]:
    agg: tuple | None = None  # (figures, statistics, setting) of a groupby().agg() table being read
    before: list = []  # the line above `previous`, for the agg header's first line
    previous: list = []
    header: list | None = None  # the columns above the statistic rows (describe()), or the stats (describe().T)
    start = 0
    figures: dict = {}
    transposed = False
    for line_number, line in lines:
        cells = line.split()
        if agg is not None:
            names, stats, setting = agg
            if len(cells) == len(stats) + 1 and all(_NUMBER.match(cell) for cell in cells):
                record = _agg_record(line_number, names, stats, setting, cells)
                if record is not None:
                    yield record
                continue
            agg = None
        if len(cells) == 1 and before and previous and _is_agg_header(before, previous, cells):
            agg = (before, previous, cells[0])
            continue
        if header is not None and not transposed and _is_stat_row(cells) and len(cells) - 1 == len(header):
            stat = _stat(cells[0])
            if stat is not None:
                for name, cell in zip(header, cells[1:], strict=True):
                    if cell.lower() != "nan":  # a column with no value for this statistic (an empty one's `std`)
                        figures.setdefault(name, {})[stat] = float(cell)
            continue
        if header is not None and transposed and len(cells) == len(header) + 1 \
                and all(_NUMBER.match(cell) for cell in cells[1:]):
            stats = {_stat(word): float(cell) for word, cell in zip(header, cells[1:], strict=True)
                     if cell.lower() != "nan"}
            figures[cells[0]] = {stat: value for stat, value in stats.items() if stat is not None}
            continue
        if header is not None:
            record = _record(start, figures)
            if record is not None:
                yield record
            header, figures, transposed = None, {}, False
        if cells[:1] == ["count"] and _is_stat_row(cells) and previous and len(previous) == len(cells) - 1:
            header, start, transposed = previous, line_number, False
            stat = _stat("count")
            for name, cell in zip(header, cells[1:], strict=True):
                figures.setdefault(name, {})[stat] = float(cell)
            continue
        if cells[:2] == ["count", "mean"] and "std" in cells:
            header, start, transposed = cells, line_number, True
            continue
        if cells:
            before, previous = previous, cells
    if header is not None:
        record = _record(start, figures)
        if record is not None:
            yield record
