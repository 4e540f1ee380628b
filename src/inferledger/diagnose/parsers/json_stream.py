"""Streaming JSON documents out of a log: pretty-printed over many lines or one per line, possibly truncated
(a paste cut short, a killed run). Used by the benchmark-client and ollama parsers."""

from __future__ import annotations

import json
import re

MAX_JSON_CHARS = 256 * 1024 * 1024  # a bigger document is not a benchmark report; drop it rather than grow


def _scan(text: str, state: tuple, on_close=None) -> tuple:
    """Bracket stack and string state after `text`, continuing from `state` = (stack, in_string, escaped).
    on_close(position after the bracket, open stack), if given, is called each time a nested container closes."""
    stack, in_string, escaped = list(state[0]), state[1], state[2]
    for position, char in enumerate(text):
        if in_string:
            if escaped:
                escaped = False
            elif char == "\\":
                escaped = True
            elif char == '"':
                in_string = False
        elif char == '"':
            in_string = True
        elif char in "[{":
            stack.append(char)
        elif char in "]}" and stack:
            stack.pop()
            if on_close is not None and stack:
                on_close(position + 1, tuple(stack))
    return stack, in_string, escaped


def repair_truncated_json(lines: list, whole_elements: bool = True) -> tuple:
    """(value, depth) for a truncated JSON document: drop cut lines from the end and close the brackets; failing that,
    an array's elements that read on their own (_whole_elements; not again for a caller that tried them first).

    The last line is dropped unless it ends at a value boundary (',' or a bracket): a cut line's last number may
    itself be cut ('154.82' -> '1'). depth is how many containers were open at the cut (1 = only the document
    itself, 2 = inside one of its elements, DAMAGED_ELEMENTS = an array's damaged elements dropped); value is None
    when nothing could be read.
    """
    keep = max(len(lines) - 20, 1)
    state = _scan("\n".join(lines[:keep]) + "\n", ([], False, False))
    states = [state]
    for line in lines[keep:]:
        state = _scan(line + "\n", state)
        states.append(state)
    last = len(lines)
    if last > 1 and not lines[-1].rstrip().endswith((",", "{", "[", "}", "]")):
        last -= 1
    for end in range(last, keep - 1, -1):
        stack, in_string, _ = states[end - keep]
        if in_string:
            continue
        text = "\n".join(lines[:end]).rstrip().rstrip(",")
        if text.endswith(":"):
            continue
        closers = "".join("}" if opener == "{" else "]" for opener in reversed(stack))
        try:
            return json.loads(text + closers), len(stack)
        except ValueError:
            continue
    text = "\n".join(lines)
    value, depth = _repair_by_characters(text)
    return _whole_elements(text) if value is None and whole_elements else (value, depth)


_CUT_CANDIDATES = 64  # closing brackets tried from the end: enough to step back over one cut record


def _repair_by_characters(text: str) -> tuple:
    """The line-level repair failed (a one-line array cut mid-object, or a record longer than 20 lines): close the
    document right after one of the last complete values, found by one scan of the characters."""
    ends = []  # (position after a closing bracket, the stack still open there)

    def keep(position: int, still_open: tuple) -> None:
        ends.append((position, still_open))
        if len(ends) > 4 * _CUT_CANDIDATES:
            del ends[:-_CUT_CANDIDATES]

    _scan(text, ([], False, False), keep)
    for end, still_open in reversed(ends[-_CUT_CANDIDATES:]):
        closers = "".join("}" if opener == "{" else "]" for opener in reversed(still_open))
        try:
            return json.loads(text[:end] + closers), len(still_open)
        except ValueError:
            continue
    return None, 1


# The depth repair_truncated_json gives when it dropped damaged elements of an array and kept the rest.
DAMAGED_ELEMENTS = -1


def _whole_elements(text: str) -> tuple:
    """(the elements of a top-level array that read on their own, DAMAGED_ELEMENTS) when an element is damaged
    inside (a paste that broke a line in a value, `"cpu_strict": f` / `alse,`): the damaged ones are dropped, the
    others kept; (None, 1) when the text is no array or no element reads."""
    opening = text.find("[")
    if opening < 0 or text[:opening].strip():
        return None, 1
    ends: list = []  # where each element of the array (an object or an array in it) closes
    _scan(text, ([], False, False), lambda end, still_open: ends.append(end) if still_open == ("[",) else None)
    elements, start = [], opening + 1
    for end in ends:
        try:
            elements.append(json.loads(text[start:end].strip().lstrip(",")))
        except ValueError:
            pass
        start = end
    return (elements, DAMAGED_ELEMENTS) if elements else (None, 1)


def _python_literal(text: str):
    """A one-line document Python printed (`{'model': 'gemma2:2b', 'done': True, …}`: a client's print of a dict), read
    by ast.literal_eval, which evaluates literals only (no name, no call: nothing runs); None if it is not one."""
    if not text.startswith(("{'", "[{'")):
        return None
    import ast

    try:
        value = ast.literal_eval(text)
    except (ValueError, SyntaxError, MemoryError, RecursionError):
        return None
    return value if isinstance(value, (dict, list)) else None


# The source location a browser's console prints after each logged value, as copied (Firefox: `[3.da31ebab.js:7:40]`,
# a paste into Markdown adding its link; Chrome: `index.js:7`): ollama's stream logged by a web UI's page.
_CONSOLE_SOURCE = re.compile(r"\s+\[?[\w.-]+\.m?js:\d+(?::\d+)?\]?(?:\([^)\s]*\))?$")


class JsonCollector:
    """Finds JSON documents in a line stream: one-line objects (JSONL) and pretty-printed blocks that start
    with '{' or '[' and end with the matching bracket at the same indent. A document cut short (EOF, or a log line
    at column 0 inside it) is repaired to what can be read and marked truncated."""

    def __init__(self, wanted=None):
        self.wanted = wanted  # cheap substring test on a one-line document, or None for all
        self.buffer: list = []
        self.start = 0
        self.indent = 0
        self.closer = ""
        self.chars = 0
        self.unread = ""  # the text of the last document no JSON reader took (a reader may still take its fields)

    def feed(self, line_number: int, line: str) -> list:
        """(line_number, value, truncated) for each document completed by this line (usually none); truncated is
        0 for a whole document, else the depth at the cut (see repair_truncated_json)."""
        out: list = []
        if self.buffer:
            stripped = line.lstrip()
            indent = len(line) - len(stripped)
            if stripped.startswith(self.closer) and indent == self.indent:
                self.buffer.append(line)
                try:
                    out.append((self.start, json.loads("\n".join(self.buffer)), 0))
                except ValueError:
                    # Closed where it opened, so not cut: damaged inside. An array keeps its elements that read.
                    value, depth = _whole_elements("\n".join(self.buffer))
                    if value is None:
                        value, depth = repair_truncated_json(self.buffer, whole_elements=False)
                    out.append((self.start, value, depth))
                self._reset()
                return out
            if stripped and indent <= self.indent and stripped[0] not in "\"]}0123456789-tfn":
                out.extend(self.finish())  # the document was cut and the log goes on
            else:
                self.buffer.append(line)
                self.chars += len(line)
                if self.chars > MAX_JSON_CHARS:
                    self.unread = ""  # too long to read again by its fields
                    out.append((self.start, None, 1))
                    self._reset()
                return out
        stripped = line.strip()
        if not stripped or stripped[0] not in "{[":
            return out
        if ".js:" in stripped:  # a browser console's own tail after the logged object, not part of it
            stripped = _CONSOLE_SOURCE.sub("", stripped)
        # '[' opens a document only as a bare '[' or before an object/array/string: '[GIN] …', '[2025-01-01 …]'
        # and '[pid 12]' are log prefixes, not JSON.
        if stripped[0] == "[" and len(stripped) > 1 and stripped[1:].lstrip()[:1] not in ("{", "[", '"'):
            return out
        if (stripped[-1] in "}]" and len(stripped) > 1) and (self.wanted is None or self.wanted(stripped)):
            try:
                out.append((line_number, json.loads(stripped), 0))
                return out
            except ValueError:
                value = _python_literal(stripped)
                if value is not None:
                    out.append((line_number, value, 0))
                    return out
                if stripped[0] == "{" and stripped.count("{") == stripped.count("}"):
                    self.unread = stripped
                    out.append((line_number, None, 1))
                    return out
        self.buffer = [line]
        self.start = line_number
        self.indent = len(line) - len(line.lstrip())
        self.closer = "}" if stripped[0] == "{" else "]"
        self.chars = len(line)
        return out

    def finish(self) -> list:
        if not self.buffer:
            return []
        value, depth = repair_truncated_json(self.buffer)
        if value is None:
            self.unread = "\n".join(self.buffer)
        start = self.start
        self._reset()
        return [(start, value, depth)]

    def _reset(self) -> None:
        self.buffer = []
        self.chars = 0
