"""Reading a log file: encoding, binary and empty-file checks, line cleaning, format detection and streaming.

Everything a parser sees has been cleaned once here:
ANSI colour codes (raw or rendered as `#033[2m`), Docker/compose/kubectl/journald/SkyPilot prefixes, CR line ends and
terminal redraws. The file is read line by line in binary (constant memory whatever its size) and decoded with
replacement, so a stray bad byte costs one odd character, never the run.
"""

from __future__ import annotations

import gzip
import operator
import os
import re
from bisect import bisect_left, bisect_right
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from itertools import accumulate, chain, compress, repeat

from inferledger.diagnose.records import Requests, Unread, Windows
from inferledger.errors import LogFormatError

_match_start = re.Match.start
_match_end = re.Match.end
_groups = re.Match.groups
_lastindex = operator.attrgetter("lastindex")
_first = operator.itemgetter(0)

HEAD_BYTES = 64 * 1024
MAX_SKIP_EXAMPLES = 20

# ESC [ ... letter, and the same sequence after a log shipper rendered ESC as the text "#033" (TGI via CloudWatch) or a
# terminal copy wrote it in caret notation, "^[" (`[GIN] … |^[[97;42m 200 ^[[0m|`, ollama#2839).
_ANSI = re.compile(r"(?:\x1b|#033|\^\[)\[[0-9;?]*[A-Za-z]")
_ANSI_BYTES = re.compile(_ANSI.pattern.encode())
# No-break spaces (a table copied from a web page or a chat app) read as the spaces they stand for.
_SPACES = str.maketrans({"\xa0": " ", "\u202f": " ", "\u2007": " "})
# Outer prefixes added by the deployment, not the engine:
#   docker --timestamps:  2026-05-12T08:01:39.331095044Z <line>
#   compose:              vllm-1  | <line>
#   kubectl --prefix:     [pod/name/container] <line>
#   journald:             May 12 08:01:39 host vllm[123]: <line>
#   (not an engine's own stamp in Rust tracing's layout: the level right-aligned in five, then its target, as in
#   `2025-09-15T02:30:04.602320Z  INFO candle_vllm::scheduler: …`; that stamp is the line's time, kept for readers)
_DOCKER = re.compile(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(?:\.\d+)?(?:Z|[+-]\d\d:?\d\d) "
                     r"(?!(?: INFO| WARN|ERROR|DEBUG|TRACE) \w+(?:::\w+)*[:{])")
_COMPOSE = re.compile(r"[\w.-]+-\d+\s+\| ")
_KUBECTL = re.compile(r"\[pod/[^\]]+\] ")
_JOURNALD = re.compile(r"[A-Z][a-z]{2} [ \d]\d \d\d:\d\d:\d\d(?:\.\d+)? \S+ [\w.@-]+(?:\[\d+\])?: ")
#   journalctl -o short-iso:  2025-05-12T08:01:39+0000 host vllm[123]: <line>   (the [pid] needed: a docker stamp
#   before an engine's own `Token generation: ...` reads the same way without it)
_JOURNALD_ISO = re.compile(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(?:\.\d+)?(?:Z|[+-]\d\d:?\d\d) \S+ [\w.@-]+\[\d+\]: ")
#   Go's log package:     2024/07/12 02:25:54 <line>   (load testers and tools written in Go)
_GO_LOG = re.compile(r"\d{4}/\d\d/\d\d \d\d:\d\d:\d\d(?:\.\d+)? ")
#   pytest's live log:    INFO     root:vllm_bench.py:126 <line>   (a benchmark run inside a CI test; the level
#   padded to eight, then logger:file:line)
_PYTEST_LOG = re.compile(r"(?:DEBUG {4}|INFO {5}|WARNING |ERROR {4}|CRITICAL )[\w.]+:[\w.-]+\.py:\d+ ")
#   SkyPilot's job output: (task, pid=25491) <line>   (multi-node: `(head, rank=0, pid=…)`, `(worker1, rank=1, pid=…)`)
_SKYPILOT = re.compile(r"\((?:task|head|worker\d*)(?:, rank=\d+)?, pid=\d+\) ")
_SKYPILOT_STARTS = ("(task, ", "(head, ", "(worker")
#   Open MPI's mpirun --tag-output: [1,0]<stdout>:<line>   (job, rank; a multi-node launch of SGLang or vLLM)
_MPI_TAG = re.compile(r"\[\d+,\d+\]<std(?:out|err)>: ?")
#   RKLLM's runtime tag, on its own lines among the demo's prints: I rkllm: <line>
_RKLLM_TAG = re.compile(r"[IWE] rkllm: ")
# And one added by the person pasting: a Markdown or e-mail quote (`> `, nested `>> `) around a log quoted in a reply.
_QUOTE = re.compile(r"(?:>[ \t]?)+")
_MONTHS = {"Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"}


def clean_line(line: str) -> str:
    """One raw line (without its newline) as the engine printed it. Cheap tests guard every regex."""
    if "\r" in line:
        # A terminal redraw (tqdm) or a Windows line end: keep what the terminal would finally show.
        line = line.rstrip("\r")
        if "\r" in line:
            line = line.rsplit("\r", 1)[1]
    if "\x1b" in line or "#033[" in line or "^[[" in line:
        line = _ANSI.sub("", line)
    if "\xa0" in line or "\u202f" in line or "\u2007" in line:
        line = line.translate(_SPACES)
    if line[:1] in _WRAPS:
        line = _unwrapped_whole(line)
    while line:  # stacked prefixes: compose over Go's log stamp, a quote over docker's stamp, ...
        cut = _outer_prefix_end(line)
        if not cut:
            break
        line = line[cut:]
    return line


# A whole line wrapped by the person pasting or the viewer it was copied from: Markdown inline code (`` `Avg prompt
# throughput: …` ``) and a one-cell box's frame (`│ INFO 03-21 … │`, a terminal UI's log pane). A table's row has more
# bars than its frame and a code fence more backticks: both are left as they are.
_WRAPS = ("`", "│")


def _unwrapped_whole(line: str) -> str:
    stripped = line.rstrip()
    mark = line[0]
    if len(stripped) > 2 and stripped[-1] == mark and stripped.count(mark) == 2:
        return stripped[1:-1].strip()
    return line


def _outer_prefix_end(line: str) -> int:
    """Where the outermost prefix a deployment or a paste put before the engine's line ends (0: none)."""
    first = line[0]
    match = None
    if first == ">":
        match = _QUOTE.match(line)
    elif first.isdigit():
        if line[10:11] == "T" and line[4:5] == "-":
            match = _JOURNALD_ISO.match(line) or _DOCKER.match(line)
        elif line[4:5] == "/" and line[10:11] == " ":
            match = _GO_LOG.match(line)
    elif first == "[" and line.startswith("[pod/"):
        match = _KUBECTL.match(line)
    elif first == "[" and "]<std" in line[:16]:
        match = _MPI_TAG.match(line)
    elif line[:3] in _MONTHS:
        match = _JOURNALD.match(line)
    elif first == "(" and line.startswith(_SKYPILOT_STARTS):
        match = _SKYPILOT.match(line)
    elif first in "+-" and (line[1:2] == "|" or line[1:3] == " |" or not line[1:].strip()):
        # a table's row as a diff shows it, added or removed (`+| Qwen3-8B | 42.1 |`, or with a space before its bar:
        # `- | RTX 4090 | pp512 | 7264.74 |`), among other text; or the diff's empty line (a lone `+`), no title for the
        # table under it
        return 2 if line[1:3] == " |" else 1
    elif " | " in line[:40]:
        match = _COMPOSE.match(line)
    elif line[8:9] == " " and first in "IWEDC" and ".py:" in line[:80]:
        match = _PYTEST_LOG.match(line)
    elif line[1:8] == " rkllm:":
        match = _RKLLM_TAG.match(line)
    return match.end() if match else 0


# A prefix the person pasting put on every line, found in the head (_paste_prefix): an indented Markdown code block's
# indentation, `grep -n`'s line numbers (":" a match, "-" a context line), grep's file name when it searched several.
_GREP_NUMBER = re.compile(r"(\d+)[:-]")
_GREP_FILE = re.compile(r"((?:[\w.-]*/)*[\w.-]+\.(?:log|txt|out|err|jsonl?))[:-]")
# A runtime's own tag on every line, glog style (a level letter, its name): RKLLM's `I rkllm: `.
_LEVEL_TAG = re.compile(r"[IWEDV] [A-Za-z][\w.-]*: ")


_DIFF_ADDED = re.compile(r"\+")
_COMMENT_MARK = re.compile(r"#(?: |$)")
COMMENTED_SHARE = 0.9  # of a paste's lines comments: output commented out, not a document's headings
# A changed line's mark (not a table's `+---+` border nor a `--` rule), and the share of a paste's lines that carry one
# when it is a diff.
_DIFF_MARK = re.compile(r"[+-](?![-+=])")
DIFF_LINES_SHARE = 0.8
# A diff copied from a rendered view whose rows are cells: `| 17 | +| Framework | Tok/s |  |`, the line's number, the
# change mark, the line (its closing bar the row's own).
_DIFF_ROW = re.compile(r"\| (\d+) \| [+ -]?")


def _paste_prefix(lines: list) -> re.Pattern | None:
    """The prefix every line of the head's body carries (comment lines and grep's `--` group rules aside), when it is
    one a paste or a search adds: the common indentation (a tab, or 2 spaces or more), line numbers that increase
    line after line (a year or a port repeated on every line does not), one file name, a runtime's glog-style
    tag (`I rkllm: `), a diff's `+` (the added lines of a pull request) or a rendered diff's numbered rows (`| 17 | +`);
    or a script's comment mark when nearly every line is a comment (a benchmark's output kept in a script as `# …`
    lines under its commented commands). None for most logs."""
    written = [line.rstrip("\r") for line in lines if line.strip()]
    if len(written) >= 3 and sum(line[:1] == "#" for line in written) >= COMMENTED_SHARE * len(written):
        return _COMMENT_MARK
    body = [line for line in written if line[:1] != "#" and line.strip() != "--"]
    if len(body) < 3:
        return None
    indent = os.path.commonprefix([line[: len(line) - len(line.lstrip(" \t"))] for line in body])
    if len(indent) >= 2 or "\t" in indent:
        return re.compile(re.escape(indent))
    numbers = [_GREP_NUMBER.match(line) for line in body]
    if all(numbers):
        values = [int(match.group(1)) for match in numbers]
        if values == sorted(set(values)):  # strictly increasing
            return _GREP_NUMBER
    names = {match.group(1) if match else None for match in map(_GREP_FILE.match, body)}
    if len(names) == 1 and None not in names:
        return re.compile(re.escape(names.pop()) + r"[:-]")
    tags = {match.group() if match else None for match in map(_LEVEL_TAG.match, body)}
    if len(tags) == 1 and None not in tags:
        return re.compile(re.escape(tags.pop()))
    if all(line[:1] == "+" and line[1:2] != "+" for line in body):
        return _DIFF_ADDED  # a patch's added lines, pasted from a pull request's diff
    marks = [_DIFF_MARK.match(line) for line in body]
    if sum(map(bool, marks)) >= DIFF_LINES_SHARE * len(body) and {"+", "-"} <= {mark.group() for mark in marks if mark}:
        # A patch's added and removed lines (a document's table replaced in a pull request), perhaps beside its file's
        # name: both are measurements, the new and the old, read with their marks off.
        return _DIFF_MARK
    rows = [_DIFF_ROW.match(line) for line in body]
    if all(rows) and [int(row.group(1)) for row in rows] == sorted({int(row.group(1)) for row in rows}):
        return _DIFF_ROW  # a diff view's rows, numbered line after line
    return None


def _unwrapped(line: str, prefix: re.Pattern | None) -> str:
    match = prefix.match(line) if prefix is not None else None
    return line[match.end():] if match else line


READ_BLOCK_BYTES = 4 * 1024 * 1024
# A line start that clean_line might strip: a date (Docker/RFC 3339 and journald's ISO stamps, Go's log stamp), ">"
# (a quote), a diff's mark before a table's row (`+|`) or alone, "[pod/" (kubectl), mpirun's "[1,0]<std", SkyPilot's
# "(task," and kin, a month name (journald), pytest's level and logger, RKLLM's tag. One regex over the block (it
# searches for "\n" first), not one substring search per prefix; an engine's own clock (llama-server's
# `16.42.988.854`) is no date.
_PREFIX_START = (r"(?:\d{4}[-/]\d\d[-/]\d\d[T ]|>|`|│|[+-](?: ?\||[ \t]*\r?\n)|\[pod/|\[\d+,\d+\]<std"
                 r"|\((?:task|head|worker)|(?:"
                 + "|".join(sorted(_MONTHS)) + ") |" + _PYTEST_LOG.pattern + "|" + _RKLLM_TAG.pattern + ")")
_PREFIXED_LINE = re.compile(r"\n" + _PREFIX_START)
_PREFIXED_FIRST = re.compile(_PREFIX_START)


def _may_need_cleaning(line: str) -> bool:
    """False only for lines clean_line leaves as they are (its own tests, cheapest first; a superset of them)."""
    return "\r" in line or "\x1b" in line or "#033[" in line or "^[[" in line or line[:1].isdigit() or line[:1] in ">`│" \
        or " | " in line[:40] or line[:3] in _MONTHS or line[:5] == "[pod/" or "\xa0" in line \
        or line.startswith(_SKYPILOT_STARTS) or (line[:1] == "[" and "]<std" in line[:16]) \
        or (line[8:9] == " " and line[:1] in "IWEDC" and ".py:" in line[:80]) or line[1:8] == " rkllm:" \
        or "\u202f" in line or "\u2007" in line \
        or (line[:1] in "+-" and (line[1:2] == "|" or not line[1:].strip()))


# A compose prefix's tail (`-1  | ` of `vllm-1  | `): searched for from its literal "-", not from each newline (a
# 2026 llama-server line, a ` | ` in each and a stamp of digits and dots first, cost a backtracking try each). Any
# compose prefix holds one; occurrences never overlap (only the first character is a "-").
_COMPOSE_TAIL = re.compile(r"-\d+\s+\| ")


def _block_is_clean(text: str) -> bool:
    """True when no line of the block needs clean_line: no CR, no ANSI code, no deployment prefix. Single-character
    tests first (memchr speed); a '|' is searched for as a compose prefix at a line start. A pattern or a longer
    string is searched for only where its rare first character is in the block: each costs ten times a single
    character's search (2-3 ms a 4 MiB block of a 2026 llama-server log, whose lines all hold a '|')."""
    if "\r" in text or "\x1b" in text or ("#" in text and "#033[" in text) or ("^" in text and "^[[" in text) \
            or "\xa0" in text or "\u202f" in text or "\u2007" in text:
        return False
    if "|" in text and "-" in text and any(_COMPOSE.match(text, text.rfind("\n", 0, tail.start()) + 1)
                                           for tail in _COMPOSE_TAIL.finditer(text)):
        return False  # a line that starts with a compose prefix
    return _PREFIXED_FIRST.match(text) is None and _PREFIXED_LINE.search(text) is None


def _open_binary(path: str):
    if path.endswith(".gz"):
        return gzip.open(path, "rb")
    return open(path, "rb")


def _encoding_of(head: bytes) -> str:
    if head.startswith(b"\xef\xbb\xbf"):
        return "utf-8-sig"
    if head.startswith((b"\xff\xfe", b"\xfe\xff")):
        return "utf-16"
    return "utf-8"


def _looks_binary(head: bytes, encoding: str) -> bool:
    if encoding == "utf-16":
        return False
    if b"\x00" in head:
        return True
    sample = head[:8192]
    controls = sum(1 for byte in sample if byte < 9 or 13 < byte < 32 and byte != 27)
    return controls > len(sample) * 0.05


@dataclass
class LogFile:
    """A log file opened for reading: its cleaned head (for detection) and a streamed line iterator."""

    path: str
    encoding: str = "utf-8"
    size_bytes: int = 0
    head: str = ""
    skipped: int = 0  # lines a parser recognised but could not read
    skipped_examples: list = field(default_factory=list)  # the first few Skipped, for the report
    unread: int = 0  # lines in a known format carrying numbers no reader used
    unread_examples: list = field(default_factory=list)
    lines_read: int = 0
    bytes_read: int = 0
    paste_prefix: re.Pattern | None = None  # on every line, put there by the person pasting (_paste_prefix)
    serving_lines: int = 0  # of a file in no known format: its lines that name serving (unrecognised_lines)

    @classmethod
    def open(cls, path: str) -> LogFile:
        """Check the file can be read as text; raise LogFormatError with one line otherwise."""
        path = os.fspath(path)
        if not os.path.exists(path):
            raise LogFormatError(f"{path}: no such file")
        if os.path.isdir(path):
            raise LogFormatError(f"{path}: is a folder; expected a log file")
        try:
            with _open_binary(path) as handle:
                raw_head = handle.read(HEAD_BYTES)
        except (OSError, EOFError) as error:
            raise LogFormatError(f"{path}: cannot be read ({error.__class__.__name__}: {error})") from None
        if not raw_head.strip():
            raise LogFormatError(f"{path}: the file is empty; expected a serving log or benchmark output")
        encoding = _encoding_of(raw_head)
        if _looks_binary(raw_head, encoding):
            raise LogFormatError(f"{path}: looks like a binary file; expected a text log or benchmark output")
        text = raw_head.decode(encoding, errors="replace")
        if len(raw_head) == HEAD_BYTES and "\n" in text:
            text = text[: text.rindex("\n")]  # a cut last line would mislead sniffing
        raw_lines = text.split("\n")
        prefix = _paste_prefix(raw_lines)
        head = "\n".join(clean_line(_unwrapped(line, prefix)) for line in raw_lines)
        return cls(path=path, encoding=encoding, size_bytes=os.path.getsize(path), head=head, paste_prefix=prefix)

    def lines(self, progress=None) -> Iterator[tuple[int, str]]:
        """(line_number, cleaned_text) for every line, streamed in constant memory."""
        for first, _text, lines in self.blocks(progress, split=True):
            yield from enumerate(lines, first)

    def blocks(self, progress=None, start: int = 0, stop: int | None = None, first_line: int = 1,
               split: bool = False) -> Iterator[tuple[int, str | None, list | None]]:
        """The lines of lines(), a block at a time: (first line's number, text, None) for a block no line of which
        needs cleaning (`text` as read, whole lines, each ending in a newline: what a reader may scan whole), else
        (first line's number, None, its cleaned lines). With `split`, a clean block's lines come too (text.split,
        counted once), as (first line's number, text, lines). Streamed in constant memory (a block is
        READ_BLOCK_BYTES at most, or one line).

        `start`/`stop` (not UTF-16) read the byte range [start, stop), start being a line start whose line number
        is `first_line`, as candidate_lines does."""
        if self.encoding == "utf-16":
            # UTF-16 cannot be split on b"\n"; decode as a text stream (rare: PowerShell redirects).
            with open(self.path, encoding="utf-16", errors="replace", newline="") as handle:
                for number, line in enumerate(handle, 1):
                    self.lines_read = number
                    yield number, None, [clean_line(_unwrapped(line.rstrip("\n"), self.paste_prefix))]
            return
        # Read 4 MiB blocks cut at their last newline and decode each block once: per-line decoding and the
        # per-line cleaning tests cost more than parsing a noise line (benchmarks/bench_diagnose.py). A block
        # boundary is always a newline, so a multi-byte character is never split.
        encoding = self.encoding
        prefix = self.paste_prefix
        done = start
        number = first_line - 1
        tail = b""
        with _open_binary(self.path) as handle:
            if start:
                handle.seek(start)
            while True:
                data = handle.read(READ_BLOCK_BYTES if stop is None else min(READ_BLOCK_BYTES, stop - done))
                if not data:
                    break
                done += len(data)
                if tail:
                    data = tail + data
                cut = data.rfind(b"\n") + 1
                tail = data[cut:]
                if not cut:
                    continue  # one line longer than a block: keep reading until it ends
                text = data[:cut].decode(encoding, errors="replace")
                clean = prefix is None and _block_is_clean(text)
                if clean and not split:
                    yield number + 1, text, None
                    number += text.count("\n")
                else:
                    pieces = text.split("\n")
                    pieces.pop()  # the empty piece after the final newline
                    if not clean:
                        pieces = [clean_line(_unwrapped(line, prefix)) if prefix is not None
                                  else clean_line(line) if _may_need_cleaning(line) else line for line in pieces]
                    yield number + 1, text if clean else None, pieces
                    number += len(pieces)
                self.lines_read = number
                self.bytes_read = done - len(tail)
                if progress is not None:
                    progress.update(self.bytes_read)
            if tail:
                number += 1
                yield number, None, [clean_line(_unwrapped(tail.decode(encoding, errors="replace"), prefix))]
            self.lines_read = number
            self.bytes_read = done

    def candidate_lines(self, markers, wants_next=None, progress=None, block_bytes: int = 2 << 20,
                        start: int = 0, stop: int | None = None, first_line: int = 1,
                        shapes=(), windows: bool = False) -> Iterator[tuple[int, object]]:
        """(line_number, cleaned_text) for only the lines holding one of `markers` (bytes), plus the line after
        one for which wants_next(text) is true. The file is scanned in blocks by one compiled pattern at C speed
        (the "skip lines cheaply before regex work" of the issue); line numbers come from counting newlines.

        `shapes` (a parser's LINE_SHAPES; plain UTF-8 only) are the usual lines read with no per-line Python: a line
        whose text after `prefix` matches `body` to its end, its prefix matching `prefix` whole, comes as
        (line_number, build(groups, prefix_text, line_number)), the parser's Record, not as text.

        With `windows`, the lines of shapes whose build has a `columns` converter come as (0, records.Windows): the
        shape lines between two other lines sent, or a block's edge, as columns (no Record each; the accumulator
        folds the columns).

        `start`/`stop` (plain files only) read the byte range [start, stop), start being a line start whose line
        number is `first_line`; bytes_read is the absolute offset reached, lines_read the last line number."""
        patterns = _scan_pattern(markers, shapes if self.encoding == "utf-8" else (), windows)
        encoding = self.encoding
        number_at = first_line  # line number of the first line in `block`
        done = start
        carry = b""
        send_next = [False]  # the next block's first line is the line after a cut line: sent as text
        with _open_binary(self.path) as handle:
            if start:
                handle.seek(start)
            while True:
                if stop is None:
                    data = handle.read(block_bytes)
                else:
                    data = handle.read(min(block_bytes, stop - done - len(carry))) if stop > done + len(carry) \
                        else b""
                if not data and not carry:
                    break
                if data:
                    cut = data.rfind(b"\n")  # the last newline of carry + data (carry holds none)
                    if cut < 0:
                        carry += data
                        continue
                    # The block copied once: carry and data's whole lines joined from a view, not sliced then added.
                    block, carry = b"".join((carry, memoryview(data)[: cut + 1])), data[cut + 1:]
                else:
                    block, carry = carry, b""
                    if not block.endswith(b"\n"):
                        block += b"\n"
                done += len(block)
                if b"\x1b" in block or b"#033[" in block or b"^[[" in block:
                    # colour inside a marker (`LMCache \x1b[32mINFO`)
                    block = _ANSI_BYTES.sub(b"", block)
                newlines = yield from _block_items(block, patterns, number_at, encoding, wants_next, send_next,
                                                   self.paste_prefix)
                number_at += newlines
                self.bytes_read = done
                self.lines_read = number_at - 1
                if progress is not None:
                    progress.update(done)

    def note_skipped(self, skipped) -> None:
        if type(skipped) is Unread:
            if skipped.text[:2] == "# ":
                return  # a comment (a shell's, a pasted file's header): no output of the run, as unrecognised_lines
            self.unread += 1
            if len(self.unread_examples) < MAX_SKIP_EXAMPLES:
                self.unread_examples.append(skipped)
            return
        self.skipped += 1
        if len(self.skipped_examples) < MAX_SKIP_EXAMPLES:
            self.skipped_examples.append(skipped)


def _block_items(block: bytes, patterns, first_line: int, encoding: str, wants_next, send_next: list,
                 prefix=None) -> Iterator:
    """candidate_lines' items for one block of whole lines, its first line numbered `first_line`. send_next[0] says
    the block's first line is the line after a cut line (sent as text whatever it holds); it is left saying the same
    of the next block's first line. Returns the block's newline count (_LineNumbers.count).

    Three steps; the first and the last cost no Python step a shape line, however many the block holds:
    1. each shape pattern's matches; a shape body's line start (rfind) and prefix (its fullmatch) by a map over
       them; a body whose prefix does not match, and every marker outside the bodies (_markers_outside), is a text
       candidate;
    2. the text candidates in order, a Python step each (few in a plain log), after any marker inside a shape
       line's body is dropped at C speed; a marker inside a shape line's prefix makes that line text, as does
       following a cut line;
    3. line numbers from the newlines before the lines sent (_LineNumbers); then the text lines in order, the shape
       lines between two of them as one records.Windows (their converters) or as a Record each (builds with no
       converter)."""
    rows, candidates = _shape_rows(block, patterns)
    text_lines = _text_lines(block, candidates, encoding, wants_next, send_next, prefix)
    if text_lines and rows:
        shape_starts = set(chain.from_iterable(row[1] for row in rows))
        turned = [start for start, _text in text_lines if start in shape_starts]
        if turned:  # shape lines read as text: out of the rows
            rows = _without_lines(rows, set(turned))
    text_starts = [start for start, _text in text_lines]
    numbers = _LineNumbers(block, first_line, [text_starts, *(row[1] for row in rows)])
    events = [(start, number, text) for (start, text), number in
              zip(text_lines, numbers.of(text_starts), strict=True)]
    windowed = []
    for row in rows:
        lo, hi, _prefix, build, columns = row[0]
        if columns is not None:
            windowed.append((*row, numbers.of(row[1])))
            continue
        events += [(start, number, build(match.groups()[lo:hi], block[start:match.start()].decode(), number))
                   for start, match, number in zip(row[1], row[2], numbers.of(row[1]), strict=True)]
    if len(events) > len(text_lines):
        events.sort(key=_first)
    if not windowed:
        for _start, number, item in events:
            yield number, item
        return numbers.count
    # Each converter's rows before each event: the shape lines between two events, a slice of each.
    event_starts = [start for start, _number, _item in events]
    cuts = [list(map(bisect_left, repeat(row[1]), event_starts)) + [len(row[1])] for row in windowed]
    done = [0] * len(windowed)
    for index, event in enumerate(chain(events, [None])):
        parts = []
        for which, row in enumerate(windowed):
            first, last = done[which], cuts[which][index]
            if last > first:
                parts.append(_converted(row, first, last))
                done[which] = last
        if parts:
            yield 0, _windows_of(parts)
        if event is not None:
            yield event[1], event[2]
    return numbers.count


# From this many lines to number in a block (shape rows: a busy log), numpy finds its newlines once (~1 ms for
# 2 MiB) and looks each start up; fewer are counted between one start and the next (~0.3 ms for 2 MiB, and a step a
# start): the two cost the same near 3,000 starts.
NUMPY_LINES_MIN = 2048


class _LineNumbers:
    """The line numbers of line starts in a block whose first line is numbered first_line (the newlines before each
    start), and the block's newline count. With NUMPY_LINES_MIN starts or more the block's newline offsets are found
    once by numpy and each start looked up among them (searchsorted), no Python step a line; with fewer, the newlines
    are counted between one start and the next, all the starts in order, once."""

    __slots__ = ("first_line", "newline_at", "numbers", "count")

    def __init__(self, block: bytes, first_line: int, starts: list):
        """`starts`: every list of line starts that will be numbered."""
        self.first_line = first_line
        self.newline_at = self.numbers = None
        if sum(map(len, starts)) >= NUMPY_LINES_MIN:
            import numpy as np

            self.newline_at = np.flatnonzero(np.frombuffer(block, np.uint8) == 10)
            self.count = len(self.newline_at)
            return
        merged = sorted(chain.from_iterable(starts))
        newlines = accumulate(map(block.count, repeat(b"\n"), chain((0,), merged), merged))
        self.numbers = dict(zip(merged, map(operator.add, repeat(first_line), newlines), strict=True))
        self.count = self.numbers[merged[-1]] - first_line + block.count(b"\n", merged[-1]) if merged \
            else block.count(b"\n")

    def of(self, starts: list) -> list:
        """The numbers of `starts`, one of the lists given at the start."""
        if self.newline_at is None:
            return list(map(self.numbers.__getitem__, starts))
        if not starts:
            return []
        import numpy as np

        return (np.searchsorted(self.newline_at, starts) + self.first_line).tolist()


def _shape_rows(block: bytes, patterns) -> tuple[list, list]:
    """Step 1 of _block_items: ([(shape entry, line starts, body matches, prefix matches)] in line order per entry,
    [text candidate matches])."""
    entries: dict = {}  # shape entry -> its body matches
    candidates: list = []
    outside = []  # marker-only passes searched outside the shape bodies, once those are known
    for pattern, shape_of in patterns:
        if shape_of is None:
            outside.append(pattern)
            continue
        found = list(pattern.finditer(block))
        if not shape_of:
            candidates += found
            continue
        kinds = list(map(shape_of.get, map(_lastindex, found)))  # a marker's match has no lastindex
        sorts = dict.fromkeys(kinds)
        for kind in sorts:
            # One shape and no marker (the usual block): all of them, no step a match to pick them.
            mine = found if len(sorts) == 1 else [match for match, its in zip(found, kinds, strict=True) if its is kind]
            if kind is None:
                candidates += mine
            else:
                entries[kind] = mine
    if outside:
        candidates += _markers_outside(block, outside, entries.values())
    rows = []
    rfind = block.rfind
    for entry, bodies in entries.items():
        body_starts = list(map(_match_start, bodies))
        line_starts = list(map(operator.add, map(rfind, repeat(b"\n"), repeat(0), body_starts), repeat(1)))
        prefixes = list(map(entry[2], repeat(block), line_starts, body_starts))
        if None in prefixes:  # a body after other text: its line is read the per-line way
            candidates += [body for body, prefix in zip(bodies, prefixes, strict=True) if prefix is None]
            kept = [index for index, prefix in enumerate(prefixes) if prefix is not None]
            line_starts, bodies, prefixes = ([column[index] for index in kept]
                                             for column in (line_starts, bodies, prefixes))
        if line_starts:
            rows.append((entry, line_starts, bodies, prefixes))
    if rows and candidates:
        candidates = _outside_shape_bodies(candidates, rows, block)
    elif len(patterns) > 1:
        candidates.sort(key=_match_start)
    return rows, candidates


# Joining the text between the shape bodies costs a copy of the block: with less of it in bodies than this, the
# marker passes run over the whole block (the few markers inside bodies dropped by _outside_shape_bodies). A 2 MiB
# block of bench_diagnose.py's logs read between its bodies / over the whole block: 7.2 / 5.9 ms at 1 % stats lines
# (2 % of the bytes in bodies), 12.0 / 12.5 ms at 10 % (16 %), 34 / 40 ms at 60 % mixed (61 %), 36 / 48 ms at 60 %
# SGLang (58 %).
OUTSIDE_MIN_BODY_SHARE = 0.1


def _markers_outside(block: bytes, passes: list, bodies) -> list:
    """The matches of the marker-only passes (on the block) that start outside every shape body: each pass runs once
    over the text between the bodies, joined (_scan_pattern made sure no marker starts before a body and ends inside
    it), and its places are mapped back to the block and matched there. An SGLang batch line holds two markers in its
    body (`#running-req`, `#queue-req`): found in the whole block, they cost a match each, then _outside_shape_bodies
    dropped them again (a quarter of the read of an SGLang log, benchmarks/bench_diagnose.py). A block with few
    bodies (OUTSIDE_MIN_BODY_SHARE) has them searched in the whole block.

    No match is lost or made: a body ends at its line's newline, which every piece after a body starts with, and no
    marker holds a newline, so no marker spans two pieces; a marker starting in a body ended the body's line as a
    text line or was dropped by _outside_shape_bodies."""
    starts = sorted(chain.from_iterable(map(_match_start, found) for found in bodies))
    ends = sorted(chain.from_iterable(map(_match_end, found) for found in bodies))
    if sum(ends) - sum(starts) < len(block) * OUTSIDE_MIN_BODY_SHARE:
        return list(chain.from_iterable(marker_pass.finditer(block) for marker_pass in passes))
    # A body lies in one line and ends at its newline: two bodies on one line (two shapes) end at the same newline,
    # and the piece between them is empty.
    lows = [0] + ends
    pieces = list(map(block.__getitem__, map(slice, lows, chain(starts, (len(block),)))))
    offsets = list(accumulate(map(len, pieces), initial=0))  # where each piece starts in the joined text
    text = b"".join(pieces)
    found = []
    for marker_pass in passes:
        places = [lows[index] + place - offsets[index]
                  for place in marker_pass.places(text) for index in (bisect_right(offsets, place) - 1,)]
        found += filter(None, map(marker_pass.check, repeat(block), places))
    return found


def _outside_shape_bodies(candidates: list, rows: list, block: bytes) -> list:
    """The candidates, in order, less those inside a shape line's body (SGLang's batch lines hold two `#` markers
    each), by maps: no Python step a match."""
    body_at = dict(zip(chain.from_iterable(row[1] for row in rows),
                       chain.from_iterable(map(_match_start, row[2]) for row in rows), strict=True))
    starts = list(map(_match_start, candidates))
    lines = list(map(operator.add, map(block.rfind, repeat(b"\n"), repeat(0), starts), repeat(1)))
    kept = list(compress(candidates, map(operator.lt, starts, map(body_at.get, lines, repeat(len(block))))))
    kept.sort(key=_match_start)
    return kept


def _text_lines(block: bytes, candidates: list, encoding: str, wants_next, send_next: list, prefix=None) -> list:
    """Step 2 of _block_items: [(line start, cleaned text)] of the lines the candidates (in order) fall in, each once,
    and of each line after one for which wants_next(text) is true. `prefix`: the file's paste prefix, stripped."""
    lines = []
    find, rfind = block.find, block.rfind
    size = len(block)
    position = 0
    following = send_next[0]
    send_next[0] = False
    matches = iter(candidates)
    while True:
        if following:  # the line right after a cut line, whatever it holds (wrap joining)
            start = position
            following = False
        else:
            match = next(matches, None)
            if match is None:
                break
            if match.start() < position:
                continue
            start = rfind(b"\n", position, match.start()) + 1 or position
        end = find(b"\n", start)
        raw = block[start:end]
        position = end + 1
        try:
            text = raw.decode(encoding)
        except UnicodeDecodeError:
            text = raw.decode(encoding, errors="replace")
        if prefix is not None:
            text = _unwrapped(text, prefix)
        if _may_need_cleaning(text):
            text = clean_line(text)
        lines.append((start, text))
        if wants_next is not None and wants_next(text):
            following = True
        if position >= size:
            send_next[0] = following
            break
    return lines


def _without_lines(rows: list, starts: set) -> list:
    """The rows less the shape lines starting at `starts` (read as text instead)."""
    kept_rows = []
    for entry, line_starts, bodies, prefixes in rows:
        kept = [index for index, start in enumerate(line_starts) if start not in starts]
        if kept:
            kept_rows.append((entry, *([column[index] for index in kept] for column in (line_starts, bodies, prefixes))))
    return kept_rows


def _converted(row, first: int, last: int) -> tuple:
    """(line numbers, converter's (stamps, sources, labels, metric columns)) of rows[first:last] of one shape: the
    converter gets the shape's groups as columns (a tuple a group) and the prefixes' matches."""
    (lo, hi, _prefix, _build, columns), _line_starts, bodies, prefixes, numbers = row
    fields = list(zip(*map(_groups, bodies[first:last]), strict=True))[lo:hi]  # a tuple a group: the shape's own
    return numbers[first:last], columns(fields, prefixes[first:last])


def _scan_pattern(markers, shapes, windows: bool = False):
    """The block scan's patterns, one per first byte, and, per pattern, a map from group number of a shape's groups
    (match.lastindex) to (first, last + 1 group index in match.groups(), prefix fullmatch, build, columns): columns
    is the build's `columns` converter when `windows` asks for rows as columns, else None. The first bytes that only
    markers start with are one _MarkerPass (with an empty map) from MERGED_PASS_MIN_BYTES of them on. Beside shapes,
    a marker-only pass has None for a map: it is run outside the shape bodies (_markers_outside), unless a marker
    could start before a body and end inside it (_may_straddle), when it is run over the whole block ({}).

    Why one pattern per first byte: CPython's regex engine finds a pattern whose alternatives all begin with the same
    byte with a fast search for that byte (2 GB/s on a noisy log), but any pattern with two different first bytes
    falls back to trying every position of the block (~5 ns a byte, whatever it holds): nine single-byte patterns
    scan a 64 MiB vLLM + SGLang log in 0.39 s where their union took 0.59 s (benchmarks/bench_diagnose.py). Matches
    at one place always share their first byte, so each pattern holds every alternative that could match there and
    the leftmost match of the union is the earliest of the patterns' matches: the same lines, read the same way.

    Within a pattern the shapes' bodies come first: where a body and a marker start at the same place the body is
    tried first (a marker is the fallback, to the per-line path). A body gets no capturing group of its own, so a
    marker's match has no lastindex and a body's names its shape."""
    alternatives = {}  # first byte -> [(alternative, (inner groups, prefix fullmatch, build, columns) or None)]
    for prefix, body, build in shapes:
        first = _first_byte(body)
        columns = getattr(build, "columns", None) if windows else None
        alternatives.setdefault(first, []).append(
            (b"(?:" + body + b")(?=\n)", (re.compile(body).groups, re.compile(prefix).fullmatch, build, columns)))
    for first, alternative in _by_first_byte(markers):
        alternatives.setdefault(first, []).append((alternative, None))
    patterns = []
    marker_only = [first for first, group in alternatives.items() if all(shape is None for _a, shape in group)]
    if len(marker_only) >= MERGED_PASS_MIN_BYTES:
        patterns.append((_MarkerPass([marker for marker in set(markers) if marker[:1] in marker_only]), {}))
        alternatives = {first: group for first, group in alternatives.items() if first not in marker_only}
    for group in alternatives.values():
        shape_of = {}
        groups = 0
        for _alternative, shape in group:
            if shape is None:
                continue
            inner, prefix, build, columns = shape
            entry = (groups, groups + inner, prefix, build, columns)
            for index in range(groups + 1, groups + inner + 1):  # optional groups: any of them may be the last
                shape_of[index] = entry
            groups += inner
        patterns.append((re.compile(b"|".join(alternative for alternative, _shape in group)), shape_of))
    heads = [_literal_head(body) for _prefix, body, _build in shapes]
    if heads and not any(_may_straddle(marker, head) for marker in markers for head in heads):
        patterns = [(pattern if type(pattern) is _MarkerPass else _PlainPass(pattern), None) if shape_of == {}
                    else (pattern, shape_of) for pattern, shape_of in patterns]
    return patterns


def _literal_head(body: bytes) -> bytes:
    """The literal text every match of a shape's body starts with (up to its first special character; shorter than
    the body's real literal start at worst)."""
    if body[:1] == b"\\":
        return body[1:2]
    special = re.search(rb"[\\\[\](){}.*+?^$|]", body)
    if special is None:
        return body
    # A quantifier may repeat the byte before it no times.
    return body[: special.start() - (special.group() in b"*+?{")]


def _may_straddle(marker: bytes, head: bytes) -> bool:
    """Whether `marker` could start before a body starting with `head` and end inside it: a tail of the marker (not
    the whole) that begins as the head does, or that the head begins with (the body's text past the head unknown)."""
    return any(marker[cut: cut + len(head)] == head[: len(marker) - cut] for cut in range(1, len(marker)))


class _PlainPass:
    """One marker-only pattern as _markers_outside runs it: its places in a text, and its match on the block."""

    __slots__ = ("finditer", "check")

    def __init__(self, pattern: re.Pattern):
        self.finditer = pattern.finditer
        self.check = pattern.match

    def places(self, text: bytes):
        return map(_match_start, self.finditer(text))


def _windows_of(parts: list) -> Windows:
    """One Windows of converted rows [(line numbers, (stamps, sources, labels, metric columns))], one part a shape,
    each part in line order: a log mixing engines has several, joined one after the other and put back in line
    order by one itemgetter a column (C speed, not a Python step a value)."""
    if len(parts) == 1:
        lines, (stamps, sources, labels, metrics) = parts[0]
        return Windows(lines, stamps, sources, labels, metrics)
    joined_lines = list(chain.from_iterable(lines for lines, _part in parts))
    order = operator.itemgetter(*sorted(range(len(joined_lines)), key=joined_lines.__getitem__))
    names = dict.fromkeys(name for _lines, part in parts for name in part[3])

    def joined(column_of) -> list:
        return list(order(list(chain.from_iterable(column_of(part) or [None] * len(lines) for lines, part in parts))))

    return Windows(list(order(joined_lines)), joined(lambda part: part[0]), joined(lambda part: part[1]),
                   joined(lambda part: part[2]), {name: joined(lambda part, name=name: part[3].get(name))
                                                  for name in names})


def _first_byte(body: bytes) -> bytes:
    """The byte every match of a shape's body starts with (bodies begin with literal text, as the scan needs)."""
    if body[:1] == b"\\":
        return body[1:2]
    if body[:1] in b"([{.*+?^$|":
        raise ValueError(f"a LINE_SHAPES body must begin with a literal byte: {body[:20]!r}")
    return body[:1]


# Marker-only first bytes (no shape body starts with them) merged into one pass from this many on: the merged pass
# costs a translate of the block (~0.8 ms a MiB) and one pass (~0.4 ms a MiB), each pass it replaces ~0.4 ms a MiB.
MERGED_PASS_MIN_BYTES = 4
_MERGED = b"\x00"


class _MarkerPass:
    """The markers of several first bytes found in one pass instead of one pass each (_scan_pattern). The block is
    translated with each of those first bytes turned into one byte (NUL), and a pattern starting with that byte finds
    every place where the translated text reads as a translated marker: the regex engine's fast search for a single
    first byte holds, for the price of one translate (a C loop, half the cost of a pass). Each place is then checked
    against the markers themselves on the block as it is, so a place that only the translation made (other text, a
    NUL in the file) is dropped. The pattern takes one byte a match (the rest is a lookahead), so no match hides
    another: every place a marker starts comes, overlapping ones too (in the same line; read once all the same)."""

    __slots__ = ("table", "pattern", "check")

    def __init__(self, markers):
        firsts = bytes(sorted({marker[0] for marker in markers}))
        self.table = bytes.maketrans(firsts, _MERGED * len(firsts))
        # After the merged byte, one branch per next byte (a place that is no marker fails at its first test).
        rests = {marker[1:].translate(self.table) for marker in markers}
        self.pattern = re.compile(re.escape(_MERGED) + b"(?=" + b"|".join(
            alternative for _next, alternative in _by_first_byte(rests)) + b")")
        self.check = re.compile(b"|".join(alternative for _first, alternative in _by_first_byte(markers))).match

    def places(self, text: bytes):
        """Where the translated text reads as a translated marker: a superset of where a marker starts (check)."""
        return map(_match_start, self.pattern.finditer(text.translate(self.table)))

    def finditer(self, block: bytes) -> list:
        """The matches of the markers in the block (match objects on the block itself), in order."""
        return list(filter(None, map(self.check, repeat(block), self.places(block))))


def _by_first_byte(markers) -> list:
    """(first byte, `A(?:vg prompt throughput:|…)`) for the markers, one alternative per first byte, longest first
    within it: at every byte that may start a marker the regex tries one branch per first byte, not one per marker.
    Which marker matched is never read, only where."""
    rests = {}
    for marker in sorted(set(markers), key=len, reverse=True):
        rests.setdefault(marker[:1], []).append(re.escape(marker[1:]))
    return [(first, re.escape(first) + b"(?:" + b"|".join(rest) + b")") for first, rest in rests.items()]


# The format name of a file no reader knows whose lines carry serving numbers (unrecognised_lines).
UNRECOGNISED = "unrecognised"
# The format named for a file read only for its out-of-memory failure (failures.py).
FAILURE = "engine-failure"


# Lines from the first serving line of a file whose opening no reader recognised, sniffed again (unrecognised_lines).
SNIFF_AGAIN_LINES = 200
# How far a file no reader recognised is scanned for serving lines (lines are read in 4 MiB blocks).
UNRECOGNISED_SCAN_BYTES = 16 * 1024 * 1024


def unrecognised_lines(log: LogFile) -> str:
    """Count, on `log`, the lines of a file in no known format that carry serving numbers (a rate in tok/s, a TTFT,
    a latency: records.looks_like_serving_words and a digit), and a table's rows of numbers under a header that names such
    measures, as unread, the first few as examples: such a file is serving output whose layout no reader knows,
    reported line by line rather than refused. Another program's log has none. Returns the text from the first such
    line on (SNIFF_AGAIN_LINES lines), for detection to try again where the numbers are: a log whose first 64 KB
    are all start-up noise still has a known format."""
    from inferledger.diagnose.records import (
        has_a_measurement,
        has_figures,
        looks_like_serving_words,
        names_a_measure,
        names_serving,
        unread,
    )

    serving_table = False  # inside a table whose header (or the title right above it) names a serving measure
    # Inside a table whose header or title names a measure or a serving phase but not both (`Short (ms) | Long (ms)`,
    # `config | prefill | decode`): its rows are serving numbers when the file names serving somewhere (`Input
    # Tokens`, a prompt), held until then; so is any line with a figure and its unit (`TP2:  793.57 ms`).
    measure_table = False
    serving_named = False
    held: list = []
    was_row = False
    title = ""  # the last line with words that is no table row
    previous = ""
    sample: list = []
    for number, line in log.lines():
        if log.bytes_read > UNRECOGNISED_SCAN_BYTES:
            break  # another program's big log: its opening decides (a few µs a line, 20 MB/s, are not spent on all)
        if line[:2] == "# ":
            continue  # a comment (a shell's, a pasted file's header): no output of the run
        # a row (between bars, or tab-separated as a page's table copies), or a border (`+----+`)
        row = bool("|" in line or "\t" in line.strip() or (line.strip() and not line.strip(" +-=:")))
        words = looks_like_serving_words(line)
        names = names_serving(line)
        serving_named = serving_named or names
        log.serving_lines += names
        header = row and not was_row  # a table's first line, its title the line with words above it
        serving_table = row and (serving_table or words or (header and looks_like_serving_words(title)))
        measure_table = row and (measure_table or names_a_measure(line) or (header and (
            names_serving(line) or names_a_measure(title) or names_serving(title))))
        if 0 < len(sample) < SNIFF_AGAIN_LINES:
            sample.append(line)
        digits = any(char.isdigit() for char in line)
        if (words or serving_table) and digits:
            log.note_skipped(unread(number, line, UNRECOGNISED))
            if not sample:
                sample = [previous, line]  # with the line before: a table's header, a wrapped line's start
        elif (measure_table and not header or has_a_measurement(line) or has_figures(line)) and digits \
                and len(held) < MAX_HELD_ROWS:
            # (a header's figures name its columns, `| LLaMA | 6.7B | 13.0B |`: no run's measurement)
            held.append(unread(number, line, UNRECOGNISED))
        if not row and line.strip():
            title = line
        was_row = row
        previous = line
    if serving_named:
        for item in held:
            log.note_skipped(item)
    return "\n".join(sample)


# Rows of measure tables held until the file names serving (unrecognised_lines): beyond this many, not counted.
MAX_HELD_ROWS = 10_000


def detect_formats(log: LogFile) -> list:
    """The parser modules for this file, best first; LogFormatError with the list of known formats if none."""
    from inferledger.diagnose.parsers import PARSERS, detect

    found = detect(log.head)
    if not found:
        names = ", ".join(sorted({module.NAME for module in PARSERS}))
        raise LogFormatError(
            f"{log.path}: no known log format recognised in the first {min(log.size_bytes, HEAD_BYTES)} bytes; "
            f"expected one of: {names}"
        )
    return found


# The push-style scan of a big plain file is shared by two processes (the box the issue names has 2 cores, and per
# stats line the Python work, not the I/O, is the cost). The file is cut at line boundaries into pairs of chunks;
# this process reads the first chunk of each pair and a forked child the second, sending that chunk's items back
# through a pipe in pickled batches. This process yields its own chunk, then the child's, and so on: the records,
# their order, line numbers and every statistic folded from them are those of a single pass, and memory stays
# bounded by one chunk whatever the file size. The child works on its next chunk while this one folds the last.
# Off with INFERLEDGER_DIAGNOSE_PROCESSES=1; only plain UTF-8 files of PARALLEL_MIN_BYTES or more, and only when
# every parser in the scan says its state is empty between lines that do not ask for the next (SPLITTABLE).
PARALLEL_MIN_BYTES = 64 * 1024 * 1024
PARALLEL_PAIR_BYTES = 32 * 1024 * 1024
# Share of each pair this process reads itself: it also folds every record (its own and the child's) into the
# diagnosis. With the windows folded over numpy columns, 256 MiB bench_diagnose.py logs, back to back: at 0.4 this
# process waited for the child (0.2-0.3 s a run), at 0.5 the child waited; 0.45 was the fastest at 1 %, 10 % and
# 60 % stats lines (108, 39 and 220 MB/s against 104, 40 and 200 at 0.4). Once the shape lines cost a third less to
# read (their markers outside their bodies, stamps and line numbers by numpy) the folding weighs more where stats
# lines are many: CPU seconds of this process / the child (a shared 2-core machine, where wall times wander) at 0.45:
# 3.3 / 2.6 (60 %, mixed and SGLang alike), 1.5 / 1.3 (10 %), 0.85 / 0.75 (1 %); at 0.38: 2.95 / 2.95, 1.35 / 1.37,
# 0.74 / 0.8; at 0.42: 3.1 / 2.7, 1.36 / 1.26, 0.79 / 0.77. Wall seconds, two runs each, at 0.38 / 0.42 / 0.45:
# 3.2-3.3 / 3.15-3.6 / 3.3-3.5 (60 %), 1.55-1.6 / 1.45-1.47 / 1.5-1.63 (10 %), 0.96 / 0.93-0.95 / 0.88-0.95 (1 %).
PARALLEL_PARENT_SHARE = 0.42
_BATCH_ITEMS = 4096


def _push_scan(push):
    markers = [marker for module in push for marker in module.MARKERS]
    next_rules = [module.wants_next for module in push if hasattr(module, "wants_next")]
    if not next_rules:
        wants_next = None
    elif len(next_rules) == 1:
        wants_next = next_rules[0]
    else:
        def wants_next(text, rules=tuple(next_rules)):
            return any(rule(text) for rule in rules)
    return markers, wants_next


def _push_items(log: LogFile, push, progress=None, start: int = 0, stop: int | None = None,
                first_line: int = 1, windows: bool = False) -> Iterator:
    """Records and Skipped from one scan for all push-style parsers (vLLM and SGLang in one mixed log cost one
    pass, not two), over the whole file or the byte range [start, stop) whose first line is `first_line`; with
    `windows`, the usual stats lines come as records.Windows blocks (LogFile.candidate_lines)."""
    markers, wants_next = _push_scan(push)
    line_parsers = [module.LineParser() for module in push]
    # A shape's line is read by the scan itself; it needs every parser's state empty there (SPLITTABLE: a state
    # lives only from a line asking for its next to that next line, which the scan always sends as text).
    shapes = [shape for module in push for shape in getattr(module, "LINE_SHAPES", ())] \
        if all(getattr(module, "SPLITTABLE", False) for module in push) else ()
    lines = log.candidate_lines(markers, wants_next, progress, start=start, stop=stop, first_line=first_line,
                                shapes=shapes, windows=windows)
    # `text` is a str to feed, or the Record a LINE_SHAPE made of its line.
    if len(line_parsers) == 1:
        feed = line_parsers[0].feed
        for line_number, text in lines:
            if type(text) is str:
                yield from feed(line_number, text)
            else:
                yield text
    else:
        for line_number, text in lines:
            if type(text) is str:
                for parser in line_parsers:
                    yield from parser.feed(line_number, text)
            else:
                yield text
    for parser in line_parsers:
        yield from parser.finish()


def _processes() -> int:
    value = os.environ.get("INFERLEDGER_DIAGNOSE_PROCESSES", "")
    if value.strip().isdigit():
        return int(value)
    return min(os.cpu_count() or 1, 2)


def _split_point(log: LogFile, wants_next, target: int) -> int | None:
    """A byte offset at or after `target` that starts a line, such that the line before it does not ask for its
    next line (a wrapped vLLM stats line is joined across it in a single pass); None when there is none."""
    with open(log.path, "rb") as handle:
        handle.seek(target)
        handle.readline()  # the rest of the line `target` falls in
        position = handle.tell()
        for _ in range(1000):
            line = handle.readline()
            if not line.endswith(b"\n"):
                return None
            position += len(line)
            if wants_next is None or not wants_next(clean_line(line[:-1].decode(log.encoding, errors="replace"))):
                return position if position < log.size_bytes else None
    return None


def _chunks(log: LogFile, wants_next, parent_share: float) -> list:
    """[(start, stop)] covering the file: alternately this process's chunk (parent_share of a pair) and the child's,
    each cut after a line for which wants_next (None: any line) is false."""
    bounds = [0]
    pair = PARALLEL_PAIR_BYTES
    while True:
        base = bounds[-1] if len(bounds) % 2 else bounds[-2]  # the start of the current pair
        share = parent_share if len(bounds) % 2 else 1.0
        cut = _split_point(log, wants_next, max(int(base + pair * share), bounds[-1]))
        if cut is None:
            break
        bounds.append(cut)
    bounds.append(None)  # the last chunk reads to the end, as a single pass does (a log may still be growing)
    return list(zip(bounds, bounds[1:], strict=False))


def _items_of(batch: list, lines: int) -> Iterator:
    """_send_items' batch of tuples as the items they were, line numbers moved on by `lines` (those before the chunk,
    for a chunk numbered from its start)."""
    from inferledger.diagnose.records import Skipped, new_record

    for item in batch:
        if len(item) == 6:
            line, kind, source, metrics, timestamp, labels = item
            yield new_record(kind, source, line + lines, metrics, timestamp, labels)
        elif len(item) == 5:  # a Windows block
            yield Windows([line + lines for line in item[0]], *item[1:])
        elif len(item) == 7:  # a Requests block, its windows' fields last
            source, at, labels, row_labels, metrics, windows, _tag = item
            yield Requests(source, [line + lines for line in at], labels, row_labels, metrics,
                           Windows([line + lines for line in windows[0]], *windows[1:]))
        elif len(item) == 4:
            yield Unread(item[0] + lines, item[1], item[2])
        else:
            yield Skipped(item[0] + lines, item[1], item[2])


def _send_items(items, connection, protocol: int) -> None:
    """A chunk's items (parsed whole before any is sent: the parent reads it only after its own chunk), as pickled
    batches of plain tuples (_items_of reads them back): compact bytes on both sides, and one batch of objects at a
    time. The count of batches goes first."""
    import pickle

    from inferledger.diagnose.records import Record

    batches = []
    batch = []
    held = 0  # windows and records in `batch`
    for item in items:
        held += 1
        if type(item) is Windows:
            batch.append((item.lines, item.stamps, item.sources, item.labels, item.metrics))
            held += len(item) - 1
        elif type(item) is Record:
            batch.append((item.line_number, item.kind, item.source, item.metrics, item.timestamp_seconds,
                          item.labels))
        elif type(item) is Requests:
            windows = item.windows
            fields = (windows.lines, windows.stamps, windows.sources, windows.labels, windows.metrics)
            batch.append((item.source, item.lines, item.labels, item.row_labels, item.metrics, fields, "requests"))
            held += len(item) + len(windows) - 1
        elif type(item) is Unread:
            batch.append((item.line_number, item.text, item.source, "unread"))
        else:
            batch.append((item.line_number, item.reason, item.source))
        if held >= _BATCH_ITEMS:
            batches.append(pickle.dumps(batch, protocol))
            batch = []
            held = 0
    batches.append(pickle.dumps(batch, protocol))
    connection.send_bytes(pickle.dumps(len(batches), protocol))
    for blob in batches:
        connection.send_bytes(blob)


def _receive_items(connection) -> list:
    """_send_items' batches, still pickled (the whole chunk is received before any of it is folded, so the child,
    blocked until then, goes on to its next chunk while this process folds this one and reads its own next)."""
    import pickle

    count = pickle.loads(connection.recv_bytes())
    return [connection.recv_bytes() for _ in range(count)]


def _child(log: LogFile, push, chunks, connection) -> None:
    """In the forked child: each odd chunk's items, as tuples with line numbers counted from the chunk's start."""
    import pickle

    protocol = pickle.HIGHEST_PROTOCOL
    try:
        for start, stop in chunks[1::2]:
            part = LogFile(path=log.path, encoding=log.encoding, size_bytes=log.size_bytes)
            _send_items(_push_items(part, push, start=start, stop=stop, windows=True), connection, protocol)
            connection.send_bytes(pickle.dumps((part.lines_read, part.bytes_read), protocol))
    finally:
        connection.close()


def _fork_context(log: LogFile, splittable: bool):
    """The multiprocessing context to read this file with two processes, or None when it is read by one."""
    if (log.encoding != "utf-8" or log.path.endswith(".gz") or log.size_bytes < PARALLEL_MIN_BYTES
            or _processes() < 2 or not splittable):
        return None
    import multiprocessing
    import threading

    if threading.active_count() > 1:  # forking a threaded program is unsafe (and deprecated from Python 3.12)
        return None
    try:
        return multiprocessing.get_context("fork")
    except ValueError:  # no fork on this platform: one process
        return None


def _parallel_items(log: LogFile, push, progress=None) -> Iterator | None:
    """The items of _push_items(log, push) read by two processes, or None when this file is not split."""
    context = _fork_context(log, all(getattr(module, "SPLITTABLE", False) for module in push))
    if context is None:
        return None
    chunks = _chunks(log, _push_scan(push)[1], PARALLEL_PARENT_SHARE)
    if len(chunks) < 2:
        return None
    return _parallel_run(log, push, progress, context, chunks)


@contextmanager
def _forked(context, target, args):
    """A daemon child running target(*args, send end of a pipe), and the receiving end; the child ended after."""
    receive, send = context.Pipe(duplex=False)
    child = context.Process(target=target, args=(*args, send), daemon=True)
    try:
        child.start()
        send.close()
        yield receive
    finally:
        receive.close()
        if child.is_alive():
            child.terminate()
        child.join()


def _parallel_run(log: LogFile, push, progress, context, chunks) -> Iterator:
    import pickle

    child_ok = True
    with _forked(context, _child, (log, push, chunks)) as receive:
        lines = 0  # lines before the current chunk
        for index, (start, stop) in enumerate(chunks):
            if index % 2 and child_ok:
                try:
                    blobs = _receive_items(receive)
                    lines_in_chunk, done = pickle.loads(receive.recv_bytes())
                except (EOFError, OSError, pickle.UnpicklingError, TypeError, ValueError):
                    child_ok = False  # the child died: this chunk and the rest are read here
                else:
                    for blob in blobs:
                        yield from _items_of(pickle.loads(blob), lines)
                    del blobs
                    lines += lines_in_chunk
                    log.lines_read = lines
                    log.bytes_read = done
                    if progress is not None:
                        progress.update(done)
                    continue
            part = LogFile(path=log.path, encoding=log.encoding, size_bytes=log.size_bytes)
            yield from _push_items(part, push, progress, start, stop, first_line=lines + 1, windows=True)
            lines = part.lines_read
            log.lines_read = lines
            log.bytes_read = part.bytes_read


# A pull reader with a resumable state (a module's new_reader(), read_blocks(reader, blocks) and the reader's fresh()
# and finish()) is split the same way, though its state may live across any line: the child reads each of its
# chunks from a fresh state, and its items stand only when this process, having read everything before the chunk,
# holds a fresh state there too (else it reads the chunk itself, from its own). The child's state at the chunk's end
# comes with the items, to go on from. Its chunks are cut after a line the module's split_after says ends its state
# most of the time (a request's end), and its line numbers count from the file's start (the state holds some).
# This process folds every request as well: it reads a smaller share of each pair than the child. A 256 MiB
# bench_diagnose.py --llama-server log, its requests read and folded as columns (llamacpp's stretches,
# records.Requests), CPU seconds of this process / the child: 1.5 / 2.1 at 0.35, 1.4 / 1.5 at 0.45, 1.6 / 1.4 at 0.5.
PULL_PARENT_SHARE = 0.45


def _newlines(path: str, start: int, stop: int) -> int:
    """The newlines in the bytes [start, stop) of a plain file."""
    count = 0
    with open(path, "rb") as handle:
        handle.seek(start)
        while start < stop:
            data = handle.read(min(READ_BLOCK_BYTES, stop - start))
            if not data:
                break
            count += data.count(b"\n")
            start += len(data)
    return count


def _pull_child(log: LogFile, module, chunks, connection) -> None:
    """In the forked child: each odd chunk's items read from a fresh state, then its lines, bytes and end state."""
    import pickle

    protocol = pickle.HIGHEST_PROTOCOL
    lines = 0  # the lines before `counted`
    counted = 0
    try:
        for start, stop in chunks[1::2]:
            lines += _newlines(log.path, counted, start)
            part = LogFile(path=log.path, encoding=log.encoding, size_bytes=log.size_bytes)
            reader = module.new_reader()
            _send_items(module.read_blocks(reader, part.blocks(start=start, stop=stop, first_line=lines + 1)),
                        connection, protocol)
            connection.send_bytes(pickle.dumps((part.lines_read, part.bytes_read, reader), protocol))
            lines, counted = part.lines_read, part.bytes_read
    finally:
        connection.close()


def _parallel_pull(log: LogFile, module, progress=None) -> Iterator | None:
    """The items of module.parse_log(log) read by two processes, or None when this file is not split."""
    context = _fork_context(log, hasattr(module, "new_reader"))
    if context is None:
        return None
    split_after = module.split_after
    chunks = _chunks(log, lambda line: not split_after(line), PULL_PARENT_SHARE)
    if len(chunks) < 2:
        return None
    return _parallel_pull_run(log, module, progress, context, chunks)


def _parallel_pull_run(log: LogFile, module, progress, context, chunks) -> Iterator:
    import pickle

    child_ok = True
    reader = module.new_reader()
    with _forked(context, _pull_child, (log, module, chunks)) as receive:
        for index, (start, stop) in enumerate(chunks):
            if index % 2 and child_ok:
                try:
                    blobs = _receive_items(receive)
                    lines, done, child_reader = pickle.loads(receive.recv_bytes())
                except (EOFError, OSError, pickle.UnpicklingError, TypeError, ValueError):
                    child_ok = False  # the child died: this chunk and the rest are read here
                else:
                    if reader.fresh():  # the child began where this process stands: its items are the file's
                        for blob in blobs:
                            yield from _items_of(pickle.loads(blob), 0)
                        reader = child_reader
                        log.lines_read, log.bytes_read = lines, done
                        if progress is not None:
                            progress.update(done)
                        continue
            part = LogFile(path=log.path, encoding=log.encoding, size_bytes=log.size_bytes)
            yield from module.read_blocks(reader, part.blocks(progress, start, stop, log.lines_read + 1))
            log.lines_read, log.bytes_read = part.lines_read, part.bytes_read
    yield from reader.finish()


# Reading a big log makes millions of short-lived tuples (regex groups, zipped columns, cache keys) and no reference
# cycles worth collecting; each 700 of them set off the cyclic collector, which now and then walks every object of
# the process: ~1300 collections (11 full ones) on a 32 MiB log with 60 % stats lines, 10-15 % of the read
# (benchmarks/bench_diagnose.py). While a log is read the collector runs after 50,000 allocations instead.
READ_GC_THRESHOLD = 50_000


@contextmanager
def fewer_collections():
    """The cyclic garbage collector's first threshold raised to READ_GC_THRESHOLD inside the block, the previous
    thresholds back after it (a threshold of 0, collection switched off, is left as it is)."""
    import gc

    thresholds = gc.get_threshold()
    if thresholds[0]:
        gc.set_threshold(max(thresholds[0], READ_GC_THRESHOLD), *thresholds[1:])
    try:
        yield
    finally:
        gc.set_threshold(*thresholds)


def iter_records(log: LogFile, parsers, progress=None, windows: bool = False) -> Iterator:
    """Every Record the parsers read from the file; Skipped lines are counted on `log`, never raised. With
    `windows`, the usual stats lines come as records.Windows blocks and a reader's usual requests as records.Requests
    blocks (what Accumulator.add_all folds fastest), else as Records.

    Each parser reads the whole file in its own pass: a mixed log (a server log with a benchmark summary pasted
    after it) costs one pass per format present, and each parser keeps its own state.
    """
    from inferledger.diagnose.records import Skipped

    push = [module for module in parsers if hasattr(module, "MARKERS") and hasattr(module, "LineParser")]
    pull = [module for module in parsers if module not in push]
    if log.encoding == "utf-16":  # blocks cannot be scanned as bytes: every parser reads every line
        pull, push = parsers, []
    first = True
    if push:
        items = _parallel_items(log, push, progress) if not pull else None
        if items is None:
            items = _push_items(log, push, progress, windows=True)
        for item in items:
            if type(item) is Windows:
                if windows:
                    yield item
                else:
                    yield from item.records()
            elif type(item) is Skipped or type(item) is Unread:
                log.note_skipped(item)
            else:
                yield item
        first = False
    for module in pull:
        # A reader with a parse_log reads the file itself (a block at a time); parse_log(log) = parse(log.lines()).
        shown = progress if first else None
        first = False
        items = _parallel_pull(log, module, shown) if not push and len(pull) == 1 else None
        if items is None:
            items = module.parse_log(log, shown) if hasattr(module, "parse_log") else module.parse(log.lines(shown))
        for item in items:
            if type(item) is Skipped or type(item) is Unread:
                log.note_skipped(item)
            elif not windows and (type(item) is Requests or type(item) is Windows):
                yield from item.records()
            else:
                yield item


def read_records(path) -> list:
    """Every Record of one file, read by the formats its opening is detected as: what `diagnose` folds, listed (with
    diagnose's fallbacks: a known format's marker but none of its lines read, the last-resort reader that sniffs it;
    a known format's lines with no timing among them, that reader on the lines they left)."""
    log = LogFile.open(path)
    parsers = detect_formats(log)
    records = list(iter_records(log, parsers))
    if not records and not log.skipped:
        from inferledger.diagnose.parsers import FALLBACKS, pick

        fallback = pick(log.head, FALLBACKS)[:1]
        if fallback:
            records = list(iter_records(LogFile.open(path), fallback))
    elif not log.skipped and not any(record.kind in TIMED_KINDS for record in records):
        records += leftover_records(log, parsers)
    return records


TIMED_KINDS = ("interval", "request", "summary")  # records that time serving (not a capacity, an event, a name)


def leftover_records(log: LogFile, parsers) -> list:
    """The last-resort reader's records from the lines a known format's readers left, for a file they read with no
    timing in it: a page whose engine start-up lines a reader knows and whose figures are prose (`TTFT median = 1.2
    s` beside llama-server's start-up). Only lines no record of theirs starts on, so no line is read twice; [] when
    no fallback reader sniffs the file's opening, or the file was read by one already."""
    from inferledger.diagnose.parsers import FALLBACKS, pick
    from inferledger.diagnose.records import Record

    if set(parsers) & set(FALLBACKS):
        return []
    fallback = pick(log.head, FALLBACKS)[:1]
    if not fallback:
        return []
    taken = {item.line_number for item in iter_records(LogFile.open(log.path), parsers)}
    rest = ((number, line) for number, line in LogFile.open(log.path).lines() if number not in taken)
    return [item for item in fallback[0].parse(rest) if type(item) is Record]
