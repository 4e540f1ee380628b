"""Where a log comes from when it is not a plain file: standard input (`-`, `/dev/stdin`), a pipe or FIFO, and a
live Prometheus endpoint.

The reader opens a file several times (a head for detection, then one pass per format), which a pipe cannot
give: a second open of a FIFO waits for a writer that never comes. So anything that is not a regular file is read
once, in blocks, into a temporary file (disk, not memory: constant memory whatever the size), and read from there.
A live endpoint is scraped twice, `interval_seconds` apart: the counters' differences are the rates one scrape
cannot give.
"""

from __future__ import annotations

import contextlib
import os
import stat
import sys
import tempfile
import time

from inferledger.errors import LogFormatError

SPOOL_BLOCK_BYTES = 4 * 1024 * 1024
_GZIP_MAGIC = b"\x1f\x8b"


def needs_spool(path: str) -> bool:
    """True for `-` and for anything that exists and is not a regular file (a pipe, FIFO, character device)."""
    if path == "-":
        return True
    try:
        mode = os.stat(path).st_mode
    except OSError:
        return False  # the reader says "no such file"
    return not stat.S_ISREG(mode) and not stat.S_ISDIR(mode)


@contextlib.contextmanager
def spooled(path: str, stdin=None):
    """A regular file holding everything `path` (or stdin for `-`) gives, read once; removed afterwards."""
    handle, spool = tempfile.mkstemp(prefix="inferledger-stdin-")
    try:
        with os.fdopen(handle, "wb") as out:
            source = (stdin or sys.stdin.buffer) if path == "-" else open(path, "rb")  # noqa: SIM115 (closed below)
            try:
                first = source.read(SPOOL_BLOCK_BYTES)
                while first:
                    out.write(first)
                    first = source.read(SPOOL_BLOCK_BYTES)
            finally:
                if path != "-":
                    source.close()
        with open(spool, "rb") as check:
            gzipped = check.read(2) == _GZIP_MAGIC
        if gzipped:  # the reader recognises gzip by its name
            os.replace(spool, spool + ".gz")
            spool += ".gz"
        yield spool
    finally:
        for name in (spool, spool + ".gz"):
            with contextlib.suppress(FileNotFoundError):
                os.unlink(name)


def scrape(url: str, timeout_seconds: float = 10.0) -> str:
    """The text of a Prometheus endpoint (`http://host:port/metrics`), fetched with the standard library."""
    import urllib.error
    import urllib.request

    if not url.startswith(("http://", "https://")):
        raise LogFormatError(f"{url}: expected an http:// or https:// metrics URL")
    try:
        with urllib.request.urlopen(url, timeout=timeout_seconds) as response:  # noqa: S310 (user-given URL)
            body = response.read(64 * 1024 * 1024)
    except (urllib.error.URLError, OSError, ValueError) as error:
        reason = getattr(error, "reason", error)
        raise LogFormatError(f"{url}: could not fetch metrics ({reason})") from None
    return body.decode("utf-8", errors="replace")


def scrape_twice(url: str, interval_seconds: float, timeout_seconds: float = 10.0,
                 sleep=time.sleep, clock=time.monotonic) -> tuple[str, str, float]:
    """(first text, second text, seconds between them)."""
    first = scrape(url, timeout_seconds)
    started = clock()
    sleep(interval_seconds)
    second = scrape(url, timeout_seconds)
    return first, second, max(clock() - started, 1e-9)


def window_records(first_text: str, second_text: str, seconds: float) -> tuple[list, dict]:
    """The records of the second scrape, with its gauge snapshot turned into a stats window that also carries the
    counters' rates over the interval, and a preemption event for the preemptions in between; plus the rates."""
    from inferledger.diagnose.parsers import prometheus
    from inferledger.diagnose.records import Record

    def records(text: str) -> list:
        return [item for item in prometheus.parse(enumerate(text.split("\n"), 1)) if type(item) is Record]

    before = next((record for record in records(first_text) if record.labels.get("snapshot")
                   and record.kind == "interval"), None)
    out = []
    rates: dict = {}
    for record in records(second_text):
        if record.kind == "interval" and record.labels.get("snapshot") and before is not None:
            rates = prometheus.rates_between(before, record, seconds)
            metrics = {name: value for name, value in record.metrics.items() if not name.endswith("_total")}
            metrics.update(rates)
            labels = {key: value for key, value in record.labels.items() if key != "snapshot"}
            labels["window_seconds"] = round(seconds, 3)
            out.append(Record("interval", "prometheus.window", record.line_number, metrics, None, labels))
            preempted = record.metrics.get("preemptions_total", 0.0) - before.metrics.get("preemptions_total", 0.0)
            if preempted > 0:
                out.append(Record("event", "prometheus.window", record.line_number, {"preemptions": preempted},
                                  None, labels))
            continue
        out.append(record)
    return out, rates
