"""Small helpers shared by the parsers: timestamps and unit conversion (base units out)."""

from __future__ import annotations

import calendar
import re
from itertools import repeat
from operator import add, attrgetter, is_, mul

# vLLM prints `MM-DD HH:MM:SS` without a year. The diagnosis only uses differences
# between stamps, so a fixed leap year keeps 02-29 valid; the record says the year was assumed.
ASSUMED_YEAR = 2000

_DATE_TIME = re.compile(
    r"(?:(\d{4})-)?(\d\d)-(\d\d)[ T](\d\d):(\d\d):(\d\d)(?:[.,](\d+))?"
)


def epoch_seconds(year: int, month: int, day: int, hour: int, minute: int, second: int, fraction: str | None) -> float:
    """UTC epoch seconds; the engine's local time is taken as UTC (no zone is printed)."""
    value = calendar.timegm((year, month, day, hour, minute, second, 0, 0, 0))
    if fraction:
        # Non-zero-padded milliseconds (`17:18:28.53`) read as a decimal fraction, which is what they mean.
        value += float("0." + fraction)
    return float(value)


_MINUTES: dict = {}


_DIGITS = "0123456789"


def _fast_parts(text: str):
    """The stamp's parts located from the first `:` (the hour's), without a regex; None when that is not a stamp."""
    colon = text.find(":")
    if colon < 8 or len(text) < colon + 6:
        return None
    stamp = text[colon - 8: colon + 6]  # MM-DD HH:MM:SS
    month, day, hour, minute, second = stamp[0:2], stamp[3:5], stamp[6:8], stamp[9:11], stamp[12:14]
    if stamp[2] != "-" or stamp[5] not in " T" or stamp[11] != ":" or not (
            (month + day + hour + minute + second).isdigit() and (month + day + hour + minute + second).isascii()):
        return None
    year = None
    if colon >= 13 and text[colon - 9] == "-":
        year = text[colon - 13: colon - 9]
        if not (year.isdigit() and year.isascii()):
            year = None
    fraction = None
    end = colon + 6
    if end < len(text) and text[end] in ".,":
        stop = end + 1
        while stop < len(text) and text[stop] in _DIGITS:
            stop += 1
        fraction = text[end + 1: stop] or None
    return year, month, day, hour, minute, second, fraction


def minute_epoch(year: str | None, month: str, day: str, hour: str, minute: str) -> float | None:
    """Epoch seconds of the minute a stamp's digits name (ASSUMED_YEAR when no year), None when no date. Consecutive
    lines share their minute: its epoch is computed once (a log is millions of lines)."""
    key = (year, month, day, hour, minute)
    base = _MINUTES.get(key)
    if base is None:
        try:
            base = epoch_seconds(int(year) if year else ASSUMED_YEAR, int(month), int(day), int(hour), int(minute),
                                 0, None)
        except (ValueError, OverflowError):
            return None
        if len(_MINUTES) > 4096:  # bounded: constant memory on any log length
            _MINUTES.clear()
        _MINUTES[key] = base
    return base


def hour_stamp(hour: float | None, minute: bytes, second: bytes, fraction: bytes | None) -> float | None:
    """Epoch seconds of a stamp from its hour's epoch and its minute, second and fraction digits (bytes, as a line
    shape's prefix groups give them): timegm is linear in the minutes and seconds, so hour + 60 × minute + second is
    exactly the stamp's epoch_seconds. None when the hour is not a date."""
    if hour is None:
        return None
    if fraction:
        return hour + (int(minute) * 60 + int(second)) + float(b"0." + fraction)
    return hour + (int(minute) * 60 + int(second))


def hour_stamps(hours, minutes, seconds, fractions) -> list:
    """hour_stamp of each row (columns, one value a row), by maps at C speed when every row's hour is a date and
    the fractions are all absent or all present (the usual log): the same operations in the same order."""
    if None not in hours:
        offsets = map(add, map(mul, map(int, minutes), repeat(60)), map(int, seconds))
        if fractions.count(None) == len(fractions):
            return list(map(add, hours, offsets))
        if None not in fractions:
            return list(map(add, map(add, hours, offsets), map(float, map(add, repeat(b"0."), fractions))))
    return list(map(hour_stamp, hours, minutes, seconds, fractions))


_group, _start = re.Match.group, re.Match.start
_string = attrgetter("string")


def clock_stamps(hours, prefixes: list, minute_group: int) -> list | None:
    """hour_stamps(hours, minutes, seconds, fractions) of rows stating no fraction, their minute and second digits
    read where their prefixes' matches found them (`(\\d\\d):(\\d\\d)` from group minute_group on), by numpy over
    the text the matches were made on (a block): hour + (60 × minute + second), the same float64 additions, with no
    Python int a row. None when that does not hold: an hour that is not a date, matches made on several texts or on
    str."""
    if not prefixes or None in hours:
        return None
    text = prefixes[0].string
    if type(text) is not bytes or not all(map(is_, map(_string, prefixes), repeat(text))):
        return None
    import numpy as np

    at = np.fromiter(map(_start, prefixes, repeat(minute_group)), np.intp, len(prefixes))
    digits = np.frombuffer(text, np.uint8)
    # Two ASCII digits "ab" at `first`: 10 × a + b = 10 × byte a + byte b - 528 (48 is "0").
    minutes, seconds = (digits[at + first].astype(np.int64) * 10 + digits[at + first + 1] - 528 for first in (0, 3))
    return (np.array(hours, dtype=np.float64) + (minutes * 60 + seconds)).tolist()


def row_stamps(keys: list, cache: dict, read, prefixes: list, minute_group: int) -> tuple[list, list]:
    """(stamps, values) of rows: each row's hour epoch and value (its labels) by its key (cached_rows; read(key) gives
    (epoch of the hour or None, value)), then its stamp from the hour and its prefix's groups minute_group, the
    second and the fraction after it: clock_stamps when no row states a fraction, else hour_stamps."""
    hours, values = zip(*cached_rows(keys, cache, read), strict=True)
    fraction = minute_group + 2
    stamps = None if any(map(_group, prefixes, repeat(fraction))) else clock_stamps(hours, prefixes, minute_group)
    if stamps is None:
        stamps = hour_stamps(hours, *zip(*map(_group, prefixes, repeat(minute_group), repeat(minute_group + 1),
                                               repeat(fraction)), strict=True))
    return stamps, list(values)


def cached_rows(keys: list, cache: dict, read) -> list:
    """cache[key] for each row's key, by a map; read(key) stored first for a key not held (a new hour of a log: few).
    The cache is bounded (cleared past 4096 keys): constant memory on any log length."""
    hits = list(map(cache.get, keys))
    if None in hits:
        for index in [index for index, hit in enumerate(hits) if hit is None]:
            key = keys[index]
            hit = cache.get(key)
            if hit is None:
                if len(cache) > 4096:
                    cache.clear()
                hit = cache[key] = read(key)
            hits[index] = hit
    return hits


def find_timestamp(text: str) -> tuple[float | None, bool]:
    """(epoch seconds, year_assumed) for the first `[YYYY-]MM-DD HH:MM:SS[.f]` in text, or (None, False)."""
    parts = _fast_parts(text)
    if parts is None:
        match = _DATE_TIME.search(text)
        if not match:
            return None, False
        parts = match.groups()
    year, month, day, hour, minute, second, fraction = parts
    base = minute_epoch(year, month, day, hour, minute)
    if base is None:
        return None, False
    value = base + int(second)
    if fraction:
        value += float("0." + fraction)
    return value, year is None


def number(text: str) -> float:
    """A printed number with optional thousands separators (`1,131,008`)."""
    return float(text.replace(",", ""))


# Memory units as the engines print them. vLLM computes `bytes / 2**30` and printed it as "GB" before renaming
# the label to "GiB" (same quantity); SGLang divides by its GB constant 1 << 30. So GB/MB from these
# engines are binary units.
BINARY_MEMORY = {"KB": 2**10, "KiB": 2**10, "MB": 2**20, "MiB": 2**20, "GB": 2**30, "GiB": 2**30,
                 "TB": 2**40, "TiB": 2**40}

_DURATION_PART = re.compile(r"(\d+(?:\.\d+)?)(ns|µs|μs|us|ms|s|m|h)")
_DURATION_SCALE = {"ns": 1e-9, "µs": 1e-6, "μs": 1e-6, "us": 1e-6, "ms": 1e-3, "s": 1.0, "m": 60.0, "h": 3600.0}


def duration_seconds(text: str) -> float | None:
    """Rust `Duration` debug (`466.15µs`, `3.764430077s`) or Go duration (`2m7.682s`) strings, in seconds."""
    text = text.strip()
    one = _DURATION_PART.fullmatch(text)  # the usual one part (a TGI span, a GIN latency under a minute)
    if one is not None:
        return float(one.group(1)) * _DURATION_SCALE[one.group(2)]
    total = 0.0
    position = 0
    for match in _DURATION_PART.finditer(text):
        if match.start() != position:
            return None
        total += float(match.group(1)) * _DURATION_SCALE[match.group(2)]
        position = match.end()
    if position == 0 or position != len(text):
        return None
    return total


def feed_all(parser, lines):
    """Drive a push-style LineParser (feed per line, finish at the end) over (line_number, line) pairs."""
    for line_number, line in lines:
        yield from parser.feed(line_number, line)
    yield from parser.finish()


class LineByLine:
    """The state of a reader that keeps none from one line to the next (each line a request, TGI's): read.py's pull
    interface for two processes (new_reader, read_blocks, split_after) then cuts the file after any line, and every
    chunk the child reads stands."""

    def fresh(self) -> bool:
        return True

    def finish(self) -> list:
        return []


def lines_of_blocks(parse, blocks):
    """parse()'s items of read.LogFile.blocks(): a clean block's text split into its lines, the others' lines as
    given, each numbered as lines() numbers it."""
    for first, text, lines in blocks:
        if lines is None:
            lines = text.split("\n")
            lines.pop()  # the empty piece after the block's final newline
        yield from parse(enumerate(lines, first))
