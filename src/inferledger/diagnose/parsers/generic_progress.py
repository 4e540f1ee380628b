"""The last resort for a prompt read in chunks with its progress logged: timestamped lines that count the prompt's
tokens read so far against its length (`Prompt processing progress processed=2048 total=24809`, ollama's MLX runner;
`Processed 2048/8831 tokens (264.70 tok/s)`, mlx-openai-server; `Seq 3 chunk prefilled 8192/178460 tokens`,
candle-vllm's scheduler). Consecutive lines of one length are one prompt; the tokens read between its first and last
line over the time between them is its prefill rate, and a prompt the excerpt leaves unfinished gives how long it has
taken and how much of it is read, as LM Studio's progress lines do (the requests-prompt-in-progress rule projects its
whole prefill from them). A prompt read to its end gives its prefill time at that rate. Used, like the other generic
readers, only when no format is recognised or a recognised one read nothing.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from inferledger.diagnose.parsers._common import find_timestamp
from inferledger.diagnose.records import Record

NAME = "generic-progress"

# `processed=2048 total=24809`, `Processed 2048/8831 tokens`, `processed 2048 of 8831`, `chunk prefilled 8192/178460
# tokens`: (read so far, prompt length).
_PROGRESS = re.compile(r"\b(?:process(?:ed|ing)|prefilled)\b\D{0,30}?(\d[\d,]*)\s*(?:/\s*|\s+of\s+|\s+total=)"
                       r"(\d[\d,]*)", re.IGNORECASE)
MIN_LINES = 2
SURE_LINES = 4


def _progress(line: str) -> tuple[float, int, int] | None:
    """(stamp, tokens read, prompt length) of a timestamped progress line, or None."""
    if "rocess" not in line and "prefilled" not in line:
        return None
    match = _PROGRESS.search(line)
    if match is None:
        return None
    stamp, _assumed = find_timestamp(line)
    done, total = int(match.group(1).replace(",", "")), int(match.group(2).replace(",", ""))
    if stamp is None or total <= 0 or done > total:
        return None
    return stamp, done, total


def sniff(head: str) -> float:
    """0.5 from MIN_LINES progress lines; 0.7 from SURE_LINES of one prompt (its length on each), a prompt's reading
    logged chunk by chunk, which outranks the phrases reader's reading of the same lines as bare counts."""
    lengths: dict = {}
    for line in head.split("\n"):
        progress = _progress(line)
        if progress is not None:
            lengths[progress[2]] = lengths.get(progress[2], 0) + 1
    if lengths and max(lengths.values()) >= SURE_LINES:
        return 0.7
    return 0.5 if sum(lengths.values()) >= MIN_LINES else 0.0


def _prompt(line_number: int, points: list) -> Record | None:
    """One prompt from its progress points [(stamp, read, length)], or None when they span no time or no tokens."""
    (start, first, total), (end, last, _) = points[0], points[-1]
    if end <= start or last <= first:
        return None
    rate = (last - first) / (end - start)
    metrics = {"input_tokens": float(total), "prompt_tokens_per_second": rate}
    if last >= total:
        metrics["prefill_seconds"] = total / rate
    else:
        metrics["prompt_elapsed_seconds"] = last / rate  # from its first token read, at the rate seen
        metrics["prompt_progress_fraction"] = last / total
    return Record("request", "generic.progress", line_number, metrics,
                  labels={"engine": "unknown", "prefill_definition": "progress lines: tokens read over the time "
                                                                    "between the first and last line of a prompt"})


def parse(lines) -> Iterator[Record]:
    points: list = []  # the current prompt's progress points
    first_line = 0
    for line_number, line in lines:
        point = _progress(line)
        if point is None:
            continue
        if points and (point[2] != points[-1][2] or point[1] < points[-1][1]):  # another prompt (or one begun again)
            record = _prompt(first_line, points)
            if record is not None:
                yield record
            points = []
        if not points:
            first_line = line_number
        points.append(point)
    if points:
        record = _prompt(first_line, points)
        if record is not None:
            yield record
