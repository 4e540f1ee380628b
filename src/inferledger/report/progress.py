"""A tiny progress bar on stderr, drawn only when stderr is a terminal (never into pipes, files or JSON output)."""

from __future__ import annotations

import sys
import time


class Progress:
    """Call update(done) as work advances; close() ends the line. Redraws at most every 0.2 s."""

    def __init__(self, total: float, label: str = "", stream=None, enabled: bool | None = None):
        self.total = max(float(total), 1.0)
        self.label = label
        self.stream = stream if stream is not None else sys.stderr
        if enabled is None:
            enabled = bool(getattr(self.stream, "isatty", lambda: False)())
        self.enabled = enabled
        self._last = 0.0
        self._drawn = False

    def update(self, done: float) -> None:
        if not self.enabled:
            return
        now = time.monotonic()
        if now - self._last < 0.2:
            return
        self._last = now
        fraction = min(max(done / self.total, 0.0), 1.0)
        width = 30
        filled = int(fraction * width)
        self.stream.write(f"\r{self.label} [{'#' * filled}{'.' * (width - filled)}] {fraction * 100:5.1f}%")
        self.stream.flush()
        self._drawn = True

    def close(self) -> None:
        if self.enabled and self._drawn:
            self.stream.write("\r" + " " * (len(self.label) + 45) + "\r")
            self.stream.flush()
