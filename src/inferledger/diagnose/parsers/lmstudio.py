"""LM Studio's server log (the Developer tab, `lms log stream`). Each entry is a stamp and a level, with the message on
the same line (`[2025-04-17 18:32:17][INFO][LM STUDIO SERVER] Running chat completion …`) or on the next
(`2025-11-11 20:08:13  [INFO]` then ` [qwen/qwen3-vl-30b] Prompt processing progress: 46.0%`).

LM Studio prints no rates for the API's requests, only events stamped to the second: a request's start (`Running chat
completion`), how far its prompt has been read (`Prompt processing progress: 46.0%`; earlier builds' debug lines
`PromptProcessing: 2.64928`, a request of their own where no start line precedes them), its first token and its end
(`Finished streaming response`, `Generated prediction`), and with the llama.cpp engine the prompt's size (`Total
prompt tokens: 939`, `Prompt tokens to decode: 1`). From them, per request: the time to first token and the whole
request, and for a prompt still being read when the excerpt ends, the time it has taken and the share done (the
rules project the whole prompt's time from them). Times are whole seconds: below one second a phase reads as 0 and is
not stated; a request that states nothing else is still a request seen.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from inferledger.diagnose.parsers._common import find_timestamp
from inferledger.diagnose.records import Record

NAME = "lmstudio"

_STAMP = re.compile(r"^\[?(\d{4}-\d\d-\d\d \d\d:\d\d:\d\d)\]?\s*\[(INFO|DEBUG|WARN|WARNING|ERROR)\]")
_MODEL = re.compile(r"^\s*(?:\[(?:INFO|DEBUG|ERROR|WARN)\])?\s*\[([^\]]+)\]")
# the 0.3 builds' `Prompt processing progress: 46.0%`, or the earlier `[DEBUG] PromptProcessing: 2.64928` (a percentage)
_PROGRESS = re.compile(r"Prompt processing progress: (\d+(?:\.\d+)?)%|^\s*PromptProcessing: (\d+(?:\.\d+)?)\s*$")
_TOTAL_PROMPT = re.compile(r"Total prompt tokens: (\d+)")
_TO_DECODE = re.compile(r"Prompt tokens to decode: (\d+)")
_USAGE = re.compile(r'"(prompt_tokens|completion_tokens)":\s*(\d+)')
_START = "Running chat completion"
_FIRST = "First token generated"
_ENDS = ("Finished streaming response", "Generated prediction", "Finished prediction")


_STAMP_ANY_LINE = re.compile(_STAMP.pattern, re.MULTILINE)
_EARLY_PROGRESS = re.compile(_STAMP.pattern + r"\s*PromptProcessing: \d", re.MULTILINE)


def sniff(head: str) -> float:
    stamped = _STAMP_ANY_LINE.search(head) is not None
    if "[LM STUDIO SERVER]" in head or (stamped and (f"{_START} on conversation with" in head
                                                     or "Prompt processing progress:" in head
                                                     or _EARLY_PROGRESS.search(head) is not None)):
        return 0.95
    return 0.0


class _Request:
    def __init__(self, line: int, start: float | None, model: str | None):
        self.line = line
        self.start = start
        self.model = model
        self.first = None  # stamp of the first token
        self.progress = []  # (stamp, fraction)
        self.metrics = {}
        self.end = None  # stamp of its end, once seen
        self.opened_by_progress = False  # no start line seen: its first progress line opened it

    def record(self) -> Record:
        """The request's Record, made when the next request starts or the log ends."""
        metrics = dict(self.metrics)
        finished, end = self.end is not None, self.end
        start = self.start
        if start is not None and self.first is not None and self.first > start:
            metrics["ttft_seconds"] = self.first - start
        done = [stamp for stamp, fraction in self.progress if fraction >= 1.0]
        if start is not None and done and done[0] > start:
            metrics["prefill_seconds"] = done[0] - start
        if finished and start is not None and end is not None and end > start:
            metrics["e2e_seconds"] = end - start
        if not finished and self.first is None and self.progress and start is not None:
            stamp, fraction = self.progress[-1]
            # opened by its first progress line: the share read since that line, not since the request began
            fraction -= self.progress[0][1] if self.opened_by_progress else 0.0
            if 0 < fraction < 1.0 and stamp > start:
                # The excerpt ends inside the prompt: how long it has taken and how much of it is read.
                metrics["prompt_elapsed_seconds"] = stamp - start
                metrics["prompt_progress_fraction"] = fraction
        labels = {"engine": "lmstudio", "ttft_definition": "server events stamped to the second"}
        if self.model:
            labels["model"] = self.model
        return Record("request", "lmstudio.request", self.line, metrics, start, labels)


def parse(lines) -> Iterator[Record]:
    stamp = None
    request = None
    for line_number, line in lines:
        head = _STAMP.match(line)
        if head:
            stamp, _year_assumed = find_timestamp(head.group(1))
            line = line[head.end():]
            if not line.strip():
                continue
        if _START in line:
            if request is not None:
                yield request.record()
            model = _MODEL.match(line)
            name = model.group(1) if model and model.group(1) != "LM STUDIO SERVER" else None
            request = _Request(line_number, stamp, name)
            continue
        progress = _PROGRESS.search(line) if "rompt" in line else None  # `Prompt processing`, `PromptProcessing`
        if request is None and progress is not None and stamp is not None:
            # a prompt's progress with no start line before it (the excerpt begins there): a request from here
            request = _Request(line_number, stamp, None)
            request.opened_by_progress = True
        if request is None:
            continue
        if progress is not None:
            if stamp is not None:
                request.progress.append((stamp, float(progress.group(1) or progress.group(2)) / 100))
        elif _FIRST in line:
            request.first = stamp
        elif "prompt tokens" in line.lower() or "Prompt tokens to decode" in line:
            match = _TOTAL_PROMPT.search(line)
            if match:
                request.metrics["input_tokens"] = float(match.group(1))
            match = _TO_DECODE.search(line)
            if match and "input_tokens" in request.metrics:
                request.metrics["cached_tokens"] = request.metrics["input_tokens"] - float(match.group(1))
        elif '_tokens"' in line:
            for name, value in _USAGE.findall(line):
                request.metrics["input_tokens" if name == "prompt_tokens" else "output_tokens"] = float(value)
        if request.end is None and any(end in line for end in _ENDS):
            request.end = stamp  # kept open: `Generated prediction: {` is followed by the usage counts
    if request is not None:
        yield request.record()
