"""One call to an OpenAI-compatible server timed by the shell: `time curl …/v1/chat/completions …`, its JSON reply
and the shell's timing. The reply's `usage` gives the token counts (prompt_tokens, completion_tokens) and the shell
the whole call's wall time, in any of its spellings:

    real	0m7.968s                                  bash / GNU time's builtin
    real 7.97                                         `time -p` (POSIX)
    curl … 0.01s user 0.00s system 0% cpu 7.968 total  zsh
    Elapsed (wall clock) time (h:mm:ss or m:ss): 0:07.96   /usr/bin/time -v

Each reply followed by a timing is one request: e2e = the wall time (connection and the server's queue included),
with its counts. A reply stating 0 completion tokens beside a non-empty answer is the server not counting, so no count
is taken from it.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from inferledger.diagnose.records import Record

NAME = "curl-time"

_BASH = re.compile(r"^real\s+(?:(\d+)m)?(\d+(?:[.,]\d+)?)s\s*$")
_POSIX = re.compile(r"^real\s+(\d+(?:\.\d+)?)\s*$")
_ZSH = re.compile(r"\bcpu\s+(?:(\d+):)?(\d+(?:\.\d+)?) total\s*$")
_GNU = re.compile(r"Elapsed \(wall clock\) time \([^)]*\):\s*(?:(\d+):)?(\d+):(\d+(?:\.\d+)?)")
_USAGE = re.compile(r'"(prompt_tokens|completion_tokens)"\s*:\s*(\d+)')
_CONTENT = re.compile(r'"(?:content|text)"\s*:\s*"(.)')


def _seconds(line: str) -> float | None:
    match = _BASH.match(line)
    if match:
        return int(match.group(1) or 0) * 60 + float(match.group(2).replace(",", "."))
    match = _POSIX.match(line)
    if match:
        return float(match.group(1))
    match = _ZSH.search(line)
    if match:
        return int(match.group(1) or 0) * 60 + float(match.group(2))
    match = _GNU.search(line)
    if match:
        return int(match.group(1) or 0) * 3600 + int(match.group(2)) * 60 + float(match.group(3))
    return None


def sniff(head: str) -> float:
    replies = '"choices"' in head and ('"usage"' in head or '"message"' in head or '"text"' in head)
    if not replies:
        return 0.0
    timed = any(_seconds(line.strip()) is not None for line in head.splitlines())
    return 0.6 if timed else 0.0


def parse(lines) -> Iterator[Record]:
    counts: dict = {}
    answered = False
    seen_reply = False
    for line_number, line in lines:
        if '"choices"' in line or '"usage"' in line or '_tokens"' in line:
            seen_reply = True
            for name, value in _USAGE.findall(line):
                counts["input_tokens" if name == "prompt_tokens" else "output_tokens"] = float(value)
            answered = answered or _CONTENT.search(line) is not None
            continue
        seconds = _seconds(line.strip()) if seen_reply else None
        if seconds is None:
            continue
        metrics = {"e2e_seconds": seconds}
        if counts.get("output_tokens") or not answered:
            metrics.update(counts)  # an answer with 0 completion tokens: the server did not count them
        yield Record("request", "curl-time.request", line_number, metrics, None,
                     {"engine": "openai-compatible server", "tool": "curl + shell time",
                      "ttft_definition": "none: the wall time of the whole call"})
        counts, answered, seen_reply = {}, False, False
