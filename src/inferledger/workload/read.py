"""Read a request trace from a file: JSONL or CSV, one request per line or row.

A record gives its lengths directly, or text to count, in any of the shapes these tools write:
- lengths: input_tokens / isl / input_len / prompt_tokens and output_tokens / osl / output_len /
  completion_tokens, or an OpenAI response's `usage` {prompt_tokens, completion_tokens};
- text: `prompt` and `output` (or `completion`, `response`) strings, counted with a tokenizer;
- OpenAI chat: `messages` [{role, content}], the last assistant message being the output (or a separate
  `response`/`completion`);
- ShareGPT: `conversations` [{from, value}], the first human turn as input and the reply after it as output (as
  vLLM's and SGLang's serving benchmarks take them).
Arrival times (arrival_seconds / arrival_time / timestamp, seconds) are kept when every record has one, shifted so
the first request arrives at 0. Cached prompt tokens (cached_tokens / prefix_tokens /
usage.prompt_tokens_details.cached_tokens) become prefix-cache hits.

A record that cannot be read is an error naming its line (up to five are listed): nothing is dropped silently.
"""

from __future__ import annotations

import csv
import io
import json
import os

from inferledger.errors import BadWorkload
from inferledger.workload.trace import Trace, make_trace

INPUT_KEYS = ("input_tokens", "isl", "input_len", "input_length", "prompt_tokens", "prompt_len")
OUTPUT_KEYS = ("output_tokens", "osl", "output_len", "output_length", "completion_tokens")
ARRIVAL_KEYS = ("arrival_seconds", "arrival_time", "timestamp", "time")
CACHED_KEYS = ("cached_tokens", "prefix_tokens", "cached_prompt_tokens")
OUTPUT_TEXT_KEYS = ("output", "completion", "response")
MAX_LISTED = 5


class _Row:
    """One record, normalised: lengths or texts to count, and its line for messages."""

    __slots__ = ("line", "isl", "osl", "input_text", "output_text", "arrival", "cached")

    def __init__(self, line):
        self.line = line
        self.isl = self.osl = self.input_text = self.output_text = self.arrival = self.cached = None


def read_trace(path: str, *, tokenizer=None) -> Trace:
    """The trace in `path` (.jsonl/.json lines or .csv). `tokenizer` (an inferledger.tokens.Tokenizer) counts
    records that carry text instead of lengths; without one, such a trace is an error that says to give one."""
    if not os.path.isfile(path):
        raise BadWorkload(f"{path}: no such file" if not os.path.exists(path) else f"{path}: not a file")
    with open(path, "rb") as stream:
        raw = stream.read()
    try:
        text = raw.decode("utf-8-sig")
    except UnicodeDecodeError as error:
        raise BadWorkload(f"{path}: not UTF-8 text (byte {error.start}); give a JSONL or CSV trace") from None
    rows, problems = (_csv_rows if path.lower().endswith(".csv") else _jsonl_rows)(text, path)
    if problems:
        _fail(path, problems)
    if not rows:
        raise BadWorkload(f"{path}: no requests in the trace")
    _count_texts(rows, tokenizer, path)
    problems = [(r.line, why) for r in rows for why in _length_problems(r)]
    if problems:
        _fail(path, problems)
    with_arrival = [r for r in rows if r.arrival is not None]
    arrivals = None
    if with_arrival and len(with_arrival) != len(rows):
        missing = next(r.line for r in rows if r.arrival is None)
        raise BadWorkload(f"{path}: {_where(missing)}: no arrival time, though other records have one; give every "
                          "record an arrival time or none")
    if with_arrival:
        arrivals = [r.arrival for r in rows]
        for earlier, later in zip(rows, rows[1:], strict=False):
            if later.arrival < earlier.arrival:
                raise BadWorkload(f"{path}: {_where(later.line)}: arrives at {later.arrival:g}, before "
                                  f"{_where(earlier.line)} at {earlier.arrival:g}; sort the trace by arrival time")
        arrivals = [a - arrivals[0] for a in arrivals]
    return make_trace([r.isl for r in rows], [r.osl for r in rows], arrivals,
                      [r.cached or 0 for r in rows], source=os.path.basename(path))


def _fail(path: str, problems: list) -> None:
    listed = "; ".join(f"{_where(line)}: {why}" for line, why in problems[:MAX_LISTED])
    more = f" (and {len(problems) - MAX_LISTED} more)" if len(problems) > MAX_LISTED else ""
    raise BadWorkload(f"{path}: {len(problems)} bad record{'s' if len(problems) > 1 else ''}: {listed}{more}")


def _where(line) -> str:
    return f"line {line}" if isinstance(line, int) else str(line)


def _jsonl_rows(text: str, path: str):
    rows, problems = [], []
    stripped = text.lstrip()
    if stripped.startswith("["):  # one JSON array of records (ShareGPT dumps are written this way)
        try:
            records = json.loads(text)
        except json.JSONDecodeError as error:
            return [], [(error.lineno, f"not JSON ({error.msg})")]
        numbered = [(f"record {i + 1}", r) for i, r in enumerate(records)]
    else:
        numbered = []
        for number, line in enumerate(text.splitlines(), start=1):
            if not line.strip():
                continue
            try:
                numbered.append((number, json.loads(line)))
            except json.JSONDecodeError as error:
                problems.append((number, f"not JSON ({error.msg})"))
    for where, record in numbered:
        row = _Row(where)
        why = _fill(row, record) if isinstance(record, dict) else "not a JSON object"
        (problems.append((where, why)) if why else rows.append(row))
    return rows, problems


def _csv_rows(text: str, path: str):
    reader = csv.DictReader(io.StringIO(text))
    rows, problems = [], []
    try:
        for record in reader:
            row = _Row(reader.line_num)
            cleaned = {k.strip(): v for k, v in record.items() if k is not None and v not in (None, "")}
            if None in record:
                problems.append((reader.line_num, f"{len(record[None])} more fields than the header has"))
                continue
            why = _fill(row, cleaned, text_fields=True)
            (problems.append((reader.line_num, why)) if why else rows.append(row))
    except csv.Error as error:
        problems.append((reader.line_num, f"not CSV ({error})"))
    return rows, problems


def _first(record: dict, keys):
    return next(((k, record[k]) for k in keys if k in record and record[k] is not None), (None, None))


def _number(value, what: str, from_text: bool):
    if from_text and isinstance(value, str):
        try:
            value = float(value)
        except ValueError:
            raise ValueError(f"{what} {value!r} is not a number") from None
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise ValueError(f"{what} {value!r} is not a number")
    return value


def _fill(row: _Row, record: dict, text_fields: bool = False) -> str | None:
    """Fill `row` from one record; the reason it cannot be read, or None."""
    try:
        usage = record.get("usage") if isinstance(record.get("usage"), dict) else {}
        key, isl = _first(record, INPUT_KEYS)
        if isl is None:
            key, isl = _first(usage, ("prompt_tokens",))
        okey, osl = _first(record, OUTPUT_KEYS)
        if osl is None:
            okey, osl = _first(usage, ("completion_tokens",))
        row.isl = None if isl is None else _number(isl, key, text_fields)
        row.osl = None if osl is None else _number(osl, okey, text_fields)
        if row.isl is None or row.osl is None:
            _texts(row, record)
        _, arrival = _first(record, ARRIVAL_KEYS)
        row.arrival = None if arrival is None else _number(arrival, "arrival time", text_fields)
        ckey, cached = _first(record, CACHED_KEYS)
        if cached is None and isinstance(usage.get("prompt_tokens_details"), dict):
            ckey, cached = _first(usage["prompt_tokens_details"], ("cached_tokens",))
        row.cached = None if cached is None else _number(cached, ckey, text_fields)
    except ValueError as error:
        return str(error)
    if row.isl is None and row.input_text is None:
        return f"no input length ({' / '.join(INPUT_KEYS[:3])}) and no prompt text or messages (keys: " \
               f"{', '.join(list(record)[:8])})"
    if row.osl is None and row.output_text is None:
        return f"no output length ({' / '.join(OUTPUT_KEYS[:3])}) and no output text"
    return None


def _content(message) -> str:
    content = message.get("content", message.get("value", "")) if isinstance(message, dict) else message
    if isinstance(content, list):  # content parts: [{"type": "text", "text": ...}]
        return "\n".join(p.get("text", "") for p in content if isinstance(p, dict))
    if not isinstance(content, str):
        raise ValueError(f"message content is {type(content).__name__}, not text")
    return content


def _texts(row: _Row, record: dict) -> None:
    """Input and output text from prompt/output, chat messages or ShareGPT turns (only what lengths lack)."""
    input_text = output_text = None
    if isinstance(record.get("conversations"), list):
        turns = [t for t in record["conversations"] if isinstance(t, dict)]
        first = next((i for i, t in enumerate(turns) if t.get("from") in ("human", "user")), None)
        if first is None or first + 1 >= len(turns):
            raise ValueError("a ShareGPT conversation needs a human turn followed by a reply")
        input_text, output_text = _content(turns[first]), _content(turns[first + 1])
    elif isinstance(record.get("messages"), list):
        messages = record["messages"]
        if not all(isinstance(m, dict) for m in messages) or not messages:
            raise ValueError("messages must be a non-empty list of {role, content} objects")
        if messages[-1].get("role") == "assistant" and len(messages) > 1:
            messages, output_text = messages[:-1], _content(messages[-1])
        input_text = "\n".join(_content(m) for m in messages)
    elif isinstance(record.get("prompt"), str):
        input_text = record["prompt"]
    if output_text is None:
        key, value = _first(record, OUTPUT_TEXT_KEYS)
        if isinstance(value, dict):  # an OpenAI response object
            choices = value.get("choices") or [{}]
            value = (choices[0].get("message") or {}).get("content", choices[0].get("text"))
        if value is not None and not isinstance(value, str):
            raise ValueError(f"{key} is {type(value).__name__}, not text")
        output_text = value
    if row.isl is None:
        row.input_text = input_text
    if row.osl is None:
        row.output_text = output_text


def _count_texts(rows: list, tokenizer, path: str) -> None:
    need = [r for r in rows if r.isl is None or r.osl is None]
    if not need:
        return
    if tokenizer is None:
        raise BadWorkload(f"{path}: {_where(need[0].line)} gives text, not token counts; name a tokenizer to count it "
                          "with (--tokenizer, e.g. cl100k_base or the model's tokenizer.json)")
    inputs = [r for r in need if r.isl is None]
    for row, count in zip(inputs, tokenizer.count_batch([r.input_text for r in inputs]), strict=True):
        row.isl = count
    outputs = [r for r in need if r.osl is None]
    for row, count in zip(outputs, tokenizer.count_batch([r.output_text for r in outputs]), strict=True):
        row.osl = count


def _length_problems(row: _Row):
    for what, value, low in (("input length", row.isl, 1), ("output length", row.osl, 1),
                             ("cached prefix length", row.cached, 0)):
        if value is None:
            continue
        if value != value or value in (float("inf"), float("-inf")) or value != int(value):
            yield f"{what} {value!r} is not a whole number of tokens"
        elif value < low:
            yield f"{what} {value!r} is {'negative' if value < 0 else 'zero'}; it must be at least {low}"
    if row.cached is not None and row.isl is not None and row.cached >= row.isl:
        yield f"{row.cached:g} cached tokens of an input of {row.isl:g}: at least one input token must be computed"
    if row.arrival is not None and not (row.arrival == row.arrival and abs(row.arrival) != float("inf")):
        yield f"arrival time {row.arrival!r} is not a finite number of seconds"
