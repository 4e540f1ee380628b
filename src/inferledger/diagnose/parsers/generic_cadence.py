"""The last resort for a stream logged a piece at a time: a timestamped line repeated for every token or streamed
reply ("… after self.model.generate_next_token:30932", "… WorkerThread - sent a reply, jobdone: false"), as web demos
and model servers log at debug level. The gaps between the repeated lines are the time per token; the time from the
line that opened the request (the last other timestamped line before the stream) to the first piece is its first
token. A piece may hold more than one token, which the lines do not say: the record says each line was counted as one.

Only lines whose words name a token, a reply, a chunk or a stream count, and only a template (the line with its
digits taken out) repeated five times or more: a health check or a progress bar is not a token. Used, like the other
generic readers, only when no format is recognised (parsers.detect takes the fallback that reads the most).
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from datetime import datetime
from statistics import median

from inferledger.diagnose.records import Record

NAME = "generic-cadence"

_STAMP = re.compile(r"(\d{4}-\d{2}-\d{2})[T ](\d{2}:\d{2}:\d{2})(?:[.,](\d{1,6}))?")
_STREAM_WORDS = re.compile(r"token|\brepl(?:y|ies)\b|\bchunk|\bdelta\b|\bstream", re.IGNORECASE)
_DIGITS = re.compile(r"\d+")
MIN_PIECES = 5


def _stamped(line: str) -> tuple[float, str] | None:
    """(seconds, the line after its stamp with digits taken out) for a line that opens with a date and a time to the
    millisecond or finer (a stamp to the second cannot time a piece of a stream)."""
    match = _STAMP.search(line[:40])
    if match is None or match.group(3) is None or len(match.group(3)) < 3:
        return None
    day, clock, fraction = match.groups()
    seconds = datetime.fromisoformat(f"{day} {clock}").timestamp() + float(f"0.{fraction}")
    return seconds, _DIGITS.sub("#", line[match.end():]).strip()


def _stream_template(lines: list) -> str | None:
    """The template of the stream lines: the most repeated one naming a token or a reply, when it repeats enough."""
    counts: dict = {}
    for _number, (_seconds, template) in lines:
        if _STREAM_WORDS.search(template):
            counts[template] = counts.get(template, 0) + 1
    if not counts:
        return None
    template, count = max(counts.items(), key=lambda item: item[1])
    return template if count >= MIN_PIECES else None


def _stamped_lines(lines) -> list:
    found = []
    for number, line in lines:
        stamped = _stamped(line)
        if stamped is not None:
            found.append((number, stamped))
    return found


def sniff(head: str) -> float:
    """A template naming a token or a reply repeated five times or more with its stamps: a stream to read."""
    return 0.5 if _stream_template(_stamped_lines(enumerate(head.splitlines(), 1))) else 0.0


def parse(lines) -> Iterator:
    stamped = _stamped_lines(lines)
    template = _stream_template(stamped)
    if template is None:
        return
    start = None  # the stamp of the last other line before the current stream: the request's start
    pieces: list = []  # (line number, seconds) of the current stream
    for number, (seconds, text) in stamped:
        if text == template:
            pieces.append((number, seconds))
            continue
        if pieces:
            yield _record(start, pieces)
            pieces = []
        start = seconds
    if pieces:
        yield _record(start, pieces)


def _record(start: float | None, pieces: list) -> Record:
    stamps = [seconds for _number, seconds in pieces]
    gaps = [later - earlier for earlier, later in zip(stamps, stamps[1:], strict=False)]
    metrics = {"output_tokens": float(len(stamps))}
    if gaps and median(gaps) > 0:  # pieces logged in the same millisecond are not timed apart
        # the median gap: an excerpt's elided lines ("....." in a paste) make one long gap, not a slower stream
        metrics["tpot_seconds"] = median(gaps)
        metrics["decode_seconds"] = stamps[-1] - stamps[0]
    labels = {"tool": "unknown server or demo",
              "reader": "cadence: a timestamped line repeated a streamed piece, each counted as one token"}
    if start is not None and stamps[0] >= start:
        # The opening line to the first piece: the prompt's reading, and a wait if a server queued the request
        # (one stream in the excerpt: a demo or a single client, where there is none to wait for).
        metrics["ttft_seconds"] = metrics["prefill_seconds"] = stamps[0] - start
        metrics["e2e_seconds"] = stamps[-1] - start
        labels["prefill_definition"] = "from the request's opening line to its first piece, any wait included"
    return Record("request", "text.cadence", pieces[0][0], metrics, labels=labels)
