"""An engine's checkpoint-loading bar at start-up: vLLM's and SGLang's `Loading safetensors checkpoint shards:  61%
Completed | 59/96 [04:27<02:55,  4.76s/it]` (`pt` for .bin files) and transformers' `Loading checkpoint shards:
100%|██████████| 4/4 [00:05<00:00,  1.31s/it]`. Start-up, not serving: each line is the load's progress (shards read
of the checkpoint's, the bar's elapsed time), kept as capacity facts whose latest line holds the most. A log of only
these lines ends before anything is served, and says how far and how fast the weights were loading.
"""

from __future__ import annotations

import re

from inferledger.diagnose.records import Record

NAME = "checkpoint-load"

# percent, then the bar's text up to its `|` (vLLM's ` Completed `, transformers' blocks after it), shards
# read/total, elapsed [h:]mm:ss before the `<` of the time left
_BAR = re.compile(r"Loading (?:(?:safetensors|pt|npcache) )?checkpoint shards:\s*\d+%[^|]*\|\D*?(\d+)/(\d+) "
                  r"\[(?:(\d+):)?(\d+):(\d+)<")


def sniff(head: str) -> float:
    return 0.7 if "checkpoint shards:" in head and _BAR.search(head) else 0.0


class LineParser:
    """Push-style parser fed only the lines that hold one of MARKERS (see read.py)."""

    def feed(self, line_number: int, line: str) -> list:
        match = _BAR.search(line) if "checkpoint shards:" in line else None
        if match is None:
            return []
        loaded, shards, hours, minutes, seconds = match.groups()
        elapsed = int(hours or 0) * 3600 + int(minutes) * 60 + int(seconds)
        return [Record("capacity", "checkpoint-load", line_number,
                       {"checkpoint_shards": float(shards), "checkpoint_shards_loaded": float(loaded),
                        "checkpoint_load_seconds": float(elapsed)})]

    def finish(self) -> list:
        return []


MARKERS = (b"Loading safetensors checkpoint shards:", b"Loading pt checkpoint shards:", b"Loading checkpoint shards:",
           b"Loading npcache checkpoint shards:")
# No state between lines: a big file may be read by two processes (read.py).
SPLITTABLE = True
