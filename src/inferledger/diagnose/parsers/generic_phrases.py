"""The last resort for a runner or script whose own words no reader knows: its requests told in phrases.

"Prefill: 512 tokens in 0.41s (1248.8 tok/s)", "prompt processing: 1024 tokens, 850.3 t/s", "generated 200 tokens in
25.1 seconds (7.97 tokens/sec), first token after 1.2 s", "ttft=0.84s tpot=52ms input_len=2000 output_len=300",
"Prefill time: 1.93 s". A line is cut into clauses (at ", ", ";", " | " and between key=value pairs); a clause's
words name its phase (the prompt, the decode, the first token, a per-token time, the whole request) and its numbers
are read by their units: a token count, a time, a rate. A clause that names no phase takes the one before it on its
line ("1024 tokens, 850.3 t/s"). The lines of one request follow each other; a number it already holds, seen again
with a new value, or a count seen again after its phase was timed, starts the next request (the same count on the line
that times its phase is an echo). A number with no unit is never guessed (a count needs its label to say tokens or
length). A table aligned by spaces (`Stage  Total Time (ms)  Tokens  Tokens per Second`, then `Prefill  562.15  81
144.09`) is read a row a phrase: each number with the unit its column's header names, in the phase the row's label
names (RKLLM's stage table).

Used, like generic_summary, only when no format is recognised (parsers.detect takes the one fallback that reads the
most), or on the lines a known format's readers left when none of theirs timed anything (read.leftover_records), so it
never reads a line a format reader reads. Every record says it was read from phrases.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from inferledger.diagnose.parsers.bench_common import TIME_UNITS
from inferledger.diagnose.records import Record, looks_like_metric, unread

NAME = "generic-phrases"

# A clause's phase, by its words, first match wins: a first token's time before a per-token time before the phases
# ("time to first token" names a token; "prompt eval" holds "eval").
_PHASES = (
    ("first", re.compile(r"(?:first|1st)[ _-]?token|\bttft|time to first")),
    # the tokens after the first: "2+ avg latency" (IPEX-LLM's all-in-one benchmark), "next token latency"
    ("per_token", re.compile(r"per[ _-]?(?:output[ _-]?)?token|\btpot|\bitl\b|inter[ _-]?token|/\s*tok(?:en)?\b|"
                             r"^2\+|(?:next|2nd|second)[ _-]?token|\btoken[ _-]?latency")),  # after "first token latency"
    ("prompt", re.compile(r"prefill|prompt|\bpp\d*\b|\binput|\bprocess(?:ing)?\b|\bingest|\bisl\b")),
    # `out 248/3.0s 81t/s`: a session trace's output clause (not a flag's `-out 32`, nor `32 in / 32 out`)
    ("decode", re.compile(r"decod|generat|\bgen\b|\beval|\boutput|(?<![-\w])out\s+\d|\btg\d*\b|completion|sampl|\bosl\b|"
                          r"new tokens")),
    ("total", re.compile(r"\btotal|\be2e|end[ _-]?to[ _-]?end|overall|elapsed|\bwall|latency")),
)
# What a clause's numbers mean in each phase: (count, time, rate) -> metric name.
_MEANING = {
    "prompt": ("input_tokens", "prefill_seconds", "prompt_tokens_per_second"),
    "decode": ("output_tokens", "decode_seconds", "generation_tokens_per_second"),
    "first": (None, "ttft_seconds", None),
    "per_token": (None, "tpot_seconds", "generation_tokens_per_second"),
    "total": (None, "e2e_seconds", None),
}
# A number standing alone, or after a word it was pasted onto with its unit apart (a web table's cells run together:
# `Total Duration320.74 s224.71 s`); not a name's digits (`L40S` is no 40 s, `H100s` no 100 s), a percentile's
# (`TTFT p50 ms` is no 50 ms) or a llama-bench test's (`pp512 t/s`, `tg128 t/s` are no rates).
_NUMBER = r"(?:(?<![\w.])|(?<=[A-Za-z])(?<![pP])(?<![tT][gG])(?=[\d,.]+\s))(\d[\d,]*(?:\.\d+)?|\.\d+)"
_TIME_UNIT = r"(ms|msec|milliseconds|s|sec|secs|seconds|us|µs|μs)"
# A rate per watt or per joule (`0.470 tok/s/W`, a power test's efficiency) is no rate of tokens.
_PER_ENERGY = r"(?!\s*/\s*(?i:w|watts?|kw|j)\b)"
# (a phase's llama-bench name between the figure and its unit, `2,936 pp t/s`, `11.6 tg t/s`: the clause's phase)
_RATE = re.compile(_NUMBER + r"\s*(?:(?:pp|tg)\s+)?(?:tok(?:en)?s?|t)\s*/\s*(?:s|sec|second)\b" + _PER_ENERGY + "|"
                   + _NUMBER + r"\s*(?:tok(?:en)?s? per sec(?:ond)?|tps)\b" + _PER_ENERGY)
_PER_TOKEN = re.compile(_NUMBER + r"\s*" + _TIME_UNIT + r"\s*(?:/|per)\s*tok(?:en)?\b")
_TOKENS_IN = re.compile(_NUMBER + r"\s*(?:[a-z]+\s+)?tok(?:en)?s?\s+(?:in|took|over)\s+" + _NUMBER + r"\s*" +
                        _TIME_UNIT + r"\b")
_COUNT = re.compile(_NUMBER + r"\s*tok(?:en)?s?\b(?!\s*(?:/|per\b))")
_TIME = re.compile(_NUMBER + r"\s*" + _TIME_UNIT + r"\b(?!\s*(?:/|per\b))")
# `label: value [unit]` or `key=value[unit]`; the label's own unit ("(ms)", "_ms") or token words give a bare value's.
_PAIR = re.compile(r"((?:[A-Za-z]|\d(?:st|nd|rd|th|\+))[\w .()/+-]*?)\s*[:=]\s*" + _NUMBER +  # "1st token …: 617.64"
                   r"\s*((?:ms|msec|milliseconds|s|sec|secs|seconds|us|µs|μs|tok(?:en)?s?(?:\s*/\s*s)?|t/s|tps)\b"
                   r"(?!\s*(?:/\s*s)?\s*[:=]))?")  # (`rate=0.764 tok/s=242.1`: `tok/s` names the next pair)
_LABEL_UNIT = re.compile(r"(?:\(|[ _])" + _TIME_UNIT + r"(/tok(?:en)?)?\)?$")  # "(ms)", "_s", "(ms/token)"
_COUNT_LABEL = re.compile(r"\btok(?:en)?s\b|\blen(?:gth)?\b|\bisl\b|\bosl\b|token count|num tokens?")  # not "next_token: 30932"
# A bare `throughput=5.38` may count requests or images a second: only a token word makes it tokens.
_RATE_LABEL = re.compile(r"\btps\b|tok(?:en)?s?\s*(?:/|per)\s*s(?:ec(?:ond)?)?\b|tok\w*\s+throughput|throughput.*\btok"
                         r"|\bspeed\b|\btok(?:en)?s seconds?$")  # llama-server's /slots `prompt_tokens_seconds`
# A setting, not a measurement: "max_new_tokens = 256", "max length: 4096", "context limit".
# (a timeout too: `The timeout for each individual request is set to 300 seconds` is a bound, not a time taken)
_SETTING = re.compile(r"\b(?:max|min)\b.*(?:tok|\blen)|\blimit\b|\bcap\b|\btime-?outs?\b|\bdeadline\b")
# Nor is a clause naming a spread of runs before its figure (`TTFT Std Dev: 0.25 ms`, thunder's benchmark_inference:
# how far the runs' first tokens scatter, not one's time); a spread after the figure (`mean: 7.13 tokens/s stdev:
# 0.044`) leaves the figure the run's.
_SPREAD = re.compile(r"\bstd\.? ?dev\b|\bstdev\b|\bvariance\b")
# A run's statistics listed together (`TTFT median/p95/p99 = 4892.4/13206.4/15443.8 ms`, `TTFT (mean/p50/p95) :
# 0.055s / 0.054s / 0.068s`): the first figure speaks for the run where the first statistic is its middle (mean,
# median); read as it stands, the phrase's unit would fall to the last figure, a tail percentile.
_STAT = r"(?:median|mean|avg|average|min|max|p\d{1,2}(?:\.\d+)?)"
_STAT_LIST = re.compile(rf"\b({_STAT})(?:\s*/\s*{_STAT})+\b")
_FIGURE_LIST = re.compile(r"(\d[\d,]*(?:\.\d+)?)(\s*[a-zµμ/]+)?(?:\s*/\s*\d[\d,]*(?:\.\d+)?(\s*[a-zµμ/]+)?)+")


def _first_of_list(clause: str) -> str | None:
    """The clause with a listed run's statistics cut to the first figure (its unit kept), when the first statistic
    is the middle one; None when it lists tails only (`p95/p99`); the clause as it is when it lists none."""
    stats = _STAT_LIST.search(clause)
    if stats is None:
        return clause
    if stats.group(1) not in ("median", "mean", "avg", "average", "p50"):
        return None
    figures = _FIGURE_LIST.search(clause, stats.end())
    if figures is None:
        return None
    unit = figures.group(2) or figures.group(3) or ""
    return clause[:stats.start()] + stats.group(1) + clause[stats.end():figures.start()] + figures.group(1) + unit


def _spread(clause: str) -> bool:
    """Whether the clause names a spread of runs before its first figure."""
    match = _SPREAD.search(clause)
    digit = re.search(r"\d", clause)
    return match is not None and (digit is None or match.start() < digit.start())


# A line on the text's own processing on the host (`tokenizer encode: 131 tokens, 2.82 ms total, 21.5 us/token`): its
# times are no phase of serving (a tokenizer named in brackets, `TTFT (including tokenization)`, qualifies another).
_TEXT_PROCESSING = re.compile(r"\b(?:de)?tokeni[sz](?:er|ation|ing)\b(?![^(]*\))")
# Nor is a line on the engine's start-up (`Capture cuda graph end. Time elapsed: 7.01 s`, `Loading weights took 3.2
# s`, `torch.compile takes 41 s`): its time is the server's, before any request.
_START_UP = re.compile(r"\bcuda ?graphs?\b|\bcaptur(?:e|ed|ing)\b|\bload(?:ed|ing)?\s+(?:the\s+)?(?:model|weights|"
                       r"checkpoint|shards?)\b|\b(?:torch\.)?compil(?:e|ed|ing|ation)\b")


# A figure with its spread before its unit (llama-bench's `11.46 ± 0.01 t/s` quoted in a table): the unit is the
# figure's; read as it stands it would fall to the spread.
_SPREAD_BEFORE_UNIT = re.compile(r"(\d[\d,]*(?:\.\d+)?)\s*(?:±|\+/-|\+-)\s*\d[\d,]*(?:\.\d+)?(?=\s*[a-zµμ/])")
# A value hedged after its label (`response_token/s: around 34.26`, `TTFT = ~0.3 s`): the figure is the value.
_HEDGED_VALUE = re.compile(r"([:=]\s*)(?:around|about|approx(?:imately|\.)?|roughly|nearly|~|≈)\s*(?=\d)")


def _clauses(line: str) -> tuple[list, bool]:
    """The line's clauses, lowercased, a `label: value` or `key=value` clause with its unit spelled after the value;
    and whether they are key=value pairs (each names its own phase: none is taken from the pair before it)."""
    text = line.lower()
    if "±" in text or "+/-" in text or "+-" in text:
        text = _SPREAD_BEFORE_UNIT.sub(r"\1", text)
    if ":" in text or "=" in text:
        text = _HEDGED_VALUE.sub(r"\1", text)
    pairs = list(_PAIR.finditer(text))
    keyed = len(pairs) >= 2 and text.count("=") >= 2
    # A sentence ends a clause too (`costs ~2 s. The marginal cost per token …`): its phase words are its own.
    pieces = [pair.group(0) for pair in pairs] if keyed else re.split(r",\s|;|\s[|│]\s|\s-\s|[•·]|(?<=[a-z%)*])\.[*_]*\s",
                                                                      text)
    return [_spelled(piece.strip(" \t-*•>#[](){}\"'")) for piece in pieces], keyed


def _spelled(clause: str) -> str:
    """`label: value` with no unit after the value, given the one its label implies; the label keeps its words."""
    pair = _PAIR.fullmatch(clause) or _PAIR.match(clause)
    if pair is None or pair.group(3):
        return clause.replace("_", " ")
    label = pair.group(1).replace("_", " ").strip()
    unit_in_label = _LABEL_UNIT.search(label)
    if unit_in_label is not None and re.search(r"(?:\bper|/|\btok(?:en)?s)\s*$", label[:unit_in_label.start() + 1]):
        # `output_tokens_per_s`, `Generation Tok / Sec`, llama-server's `prompt_tokens_seconds`: a rate, no time
        unit_in_label = None
    if unit_in_label is not None:
        unit = unit_in_label.group(1) + ("/token" if unit_in_label.group(2) else "")
    elif _RATE_LABEL.search(label):
        unit = "tok/s"
    elif _COUNT_LABEL.search(label) and "cache" not in label:  # (`n_prompt_tokens_cache`: reused, not read)
        unit = "tokens"
    elif "±" in clause[pair.end(2):] and _phase(label) in ("prompt", "decode"):
        # llama-bench's figures quoted as `Token generation: 119.66 ± 0.16`: its t/s is the only figure it prints
        # with a ± spread, so a phase's value with one is a rate
        unit = "tok/s"
    else:
        return clause.replace("_", " ")
    return f"{label} {pair.group(2)} {unit}"


def _phase(clause: str) -> str | None:
    for phase, words in _PHASES:
        if words.search(clause):
            return phase
    return None


def _clause_phase(clause: str) -> str | None:
    """A `label: value …` clause's phase by its label first (`decode: 130.6 tok/s (1023 tokens after first token)` is
    the decode's, whatever its note names), else by all its words."""
    label, colon, _rest = clause.partition(":")
    return (_phase(label) if colon else None) or _phase(clause)


def _number(text: str) -> float:
    """A figure as written: `1,234` a thousands separator; one comma before one or two digits a decimal comma, as much
    of Europe writes it (`TTFT= 6,20 seconds`)."""
    whole, comma, fraction = text.rpartition(",")
    if comma and text.count(",") == 1 and 1 <= len(fraction) <= 2 and "." not in text:
        return float(f"{whole}.{fraction}")
    return float(text.replace(",", ""))


def _seconds(value: str, unit: str) -> float:
    return _number(value) * TIME_UNITS.get(unit, TIME_UNITS["ms"] if unit.startswith("milli") else 1.0)


def _readings(clause: str) -> tuple[list, float | None, float | None, float | None]:
    """The clause's (counts, seconds, rate, seconds per token), each number read once (a match is blanked out)."""
    counts: list = []
    seconds = rate = per_token = None
    match = _RATE.search(clause)
    if match is not None:
        rate = _number(match.group(1) or match.group(2))
        clause = clause[:match.start()] + " " + clause[match.end():]
    match = _PER_TOKEN.search(clause)
    if match is not None:
        per_token = _seconds(match.group(1), match.group(2))
        clause = clause[:match.start()] + " " + clause[match.end():]
    match = _TOKENS_IN.search(clause)
    if match is not None:
        counts.append(_number(match.group(1)))
        seconds = _seconds(match.group(2), match.group(3))
        clause = clause[:match.start()] + " " + clause[match.end():]
    match = _COUNT.search(clause)
    if match is not None and not counts and _number(match.group(1)).is_integer():  # "0.8 tokens": a ratio
        counts.append(_number(match.group(1)))
    match = _TIME.search(clause)
    if match is not None and seconds is None:
        seconds = _seconds(match.group(1), match.group(2))
    return counts, seconds, rate, per_token


# A table's row rendered as text, a token count's label and its figure with no colon between (a model card's `Metric
# Value` table: `Output tokens 852`): read as `Output tokens: 852`.
_BARE_COUNT_ROW = re.compile(r"^\s*([A-Za-z][A-Za-z _-]*\btok(?:en)?s)\s+(\d[\d,]*)\s*$", re.IGNORECASE)


def line_metrics(line: str, bare_rates: bool = True) -> dict:
    """The request metrics one line states, by the phases its clauses name ({} when none); with `bare_rates`, a
    token rate no word places is the output's."""
    if (row := _BARE_COUNT_ROW.match(line)) is not None:
        line = f"{row.group(1)}: {row.group(2)}"
    lowered = line.lower()
    if not any(char.isdigit() for char in line) or _TEXT_PROCESSING.search(lowered) \
            or (_START_UP.search(lowered) and not _RATE.search(line)):
        return {}  # (a setup named with its rate, `vllm + compile (baseline): 61 tokens/s`, is a run's)
    metrics: dict = {}
    phase = None
    clauses, keyed = _clauses(line)
    for clause in clauses:
        continued = keyed and phase is not None and _CONTINUED.match(clause)
        if keyed and not continued:
            phase = None
        if _SETTING.search(clause) or _spread(clause):
            continue
        clause = _first_of_list(clause)
        if clause is None:
            continue
        counts, seconds, rate, per_token = _readings(clause)
        phase = (phase if continued else _clause_phase(clause)) or phase or ("decode" if rate is not None
                                                                               and bare_rates else None)
        if phase is None:
            continue
        count_name, time_name, rate_name = _MEANING[phase]
        if counts and count_name:
            metrics.setdefault(count_name, counts[0])
        if seconds is not None and time_name:
            metrics.setdefault(time_name, seconds)
        if rate is not None and rate_name:
            metrics.setdefault(rate_name, rate)
        if per_token is not None and phase in ("decode", "per_token"):
            metrics.setdefault("tpot_seconds", per_token)
    return metrics


# A `=` chain restating one figure (`prompt eval time = 582,682 ms / 1,659 tokens = 351.23 ms per token = 2.85 tok/s`)
# splits into pairs labelled by the last figure's unit: those pairs go on with the first pair's phase.
_CONTINUED = re.compile(r"(?:tok(?:en)?s?|runs?|per (?:tok(?:en)?|run))\s*[:=]", re.IGNORECASE)

LISTED_RATE_CHARS = 80  # a list's line: a name and its rate, not a sentence


def _listed(line: str) -> bool:
    """Whether a line is a list's: one bare rate, in a short line or in the short first cell of a line its bars part
    (a probe's `26.6 tok/s median | runs: [26.6, 26.7, 26.6] | write a python function that …`, the prompt's text
    quoted last; not a table's row, whose first cell is its label)."""
    if list(line_metrics(line)) != ["generation_tokens_per_second"]:
        return False
    first = line.split(" | ", 1)[0]
    return len(line) <= LISTED_RATE_CHARS or (len(first) <= LISTED_RATE_CHARS and bool(line_metrics(first)))


_ALIGNED = re.compile(r"\s{2,}")
_HEADER_UNIT = re.compile(r"\((ms|s|sec|us)\)|\[(ms|s|sec|us)\]")
_PER_TOKEN_TITLE = re.compile(r"per tok|/tok")
_TOKENS_TITLE = re.compile(r"\btok(?:en)?s\b")


def _column_unit(title: str) -> str | None:
    """The unit a space-aligned table's header gives its column's numbers, spelled for _readings; None: not read."""
    lowered = title.lower()
    unit = _HEADER_UNIT.search(lowered)
    if unit is not None:
        spelled = unit.group(1) or unit.group(2)
        return f"{spelled} per token" if _PER_TOKEN_TITLE.search(lowered) else spelled
    if _RATE_LABEL.search(lowered):
        return "tok/s"
    if _TOKENS_TITLE.search(lowered):
        return "tokens"
    return None


def _aligned(lines) -> Iterator:
    """The lines, each row of a space-aligned table under a header naming units spelled as phrases: `prefill
    562.15 ms, prefill 81 tokens, prefill 144.09 tok/s` (the row's label before each of its numbers)."""
    units: list | None = None
    for line_number, line in lines:
        cells = _ALIGNED.split(line.strip()) if "  " in line else []
        if len(cells) >= 3 and not any(char.isdigit() for char in cells[0]):
            numbers = [re.fullmatch(_NUMBER, cell) for cell in cells[1:]]
            if units is not None and len(cells) == len(units) and all(numbers):
                label = cells[0].lower()
                prompt = _phase(label) == "prompt"  # its time per token is the prompt's, no decode step
                line = ", ".join(f"{label} {cell} {unit}" for cell, unit in zip(cells[1:], units[1:], strict=True)
                                 if unit and not (prompt and unit.endswith("per token")))
            elif not any(numbers):
                found = [_column_unit(cell) for cell in cells]
                units = found if sum(unit is not None for unit in found) >= 2 else None
        elif line.strip() and set(line.strip()) - set("-=+ "):
            units = None  # a line not of the table ends it (a rule of dashes does not)
        yield line_number, line


def sniff(head: str) -> float:
    """Two request metrics or more in the head's phrases that words place (a line of bare rates is too little to
    go on): 0.6 when they say more than generic_summary's `label: value` reading of the same lines (which then
    yields to this reader), else 0.4."""
    from inferledger.diagnose.parsers.generic_summary import line_metric, unitless_latency

    lines = [line for _number, line in _aligned(enumerate(head.splitlines(), 1))]
    worded: list = []
    for line in lines:
        found = line_metrics(line, bare_rates=False)
        if found:
            worded.append((line, found))
    # beside a first token's time, a bare tok/s is the rest of the request's account (GenieX's "Performance : 13.8
    # tok/s • 966 tok • 0.3 s first token")
    bare = any("ttft_seconds" in found for _line, found in worded)
    mine = sum(len(line_metrics(line, bare_rates=bare))
               for line in (lines if bare else (line for line, _found in worded)))
    theirs = sum(line_metric(line) is not None or unitless_latency(line) is not None for line in head.splitlines())
    if mine < 2:
        # A list of runs, a rate a line (`- mistral:7b  ~57.78t/s`): three short lines or more, each one bare rate.
        listed = [line for line in head.splitlines() if _listed(line)]
        # or a run a line timed with no phase word (`Batch 2: 1063 tokens in 288.29 sec (3.69 tokens/sec)`): its
        # count over its time is its own rate, a generation's account
        restated = [line for line in head.splitlines() if _restated(line_metrics(line))]
        return 0.4 if len(listed) >= 3 or len(restated) >= 3 else 0.0
    return 0.6 if mine > theirs else 0.4


def _restated(found: dict) -> bool:
    """Whether a line's numbers are a generation's count, time and rate, the rate the count over the time."""
    if set(found) != {"output_tokens", "decode_seconds", "generation_tokens_per_second"} or not found["decode_seconds"]:
        return False
    rate = found["output_tokens"] / found["decode_seconds"]
    return abs(rate / found["generation_tokens_per_second"] - 1) <= RESTATED_RATE_TOLERANCE


RESTATED_RATE_TOLERANCE = 0.05  # a printed rate rounded to two or three figures


_HEADING = re.compile(r"\s*#{1,6} ")


# Requests (or generations, prompts) a second: a run's rate, stated beside its token rates (`Throughput: 8.60
# requests/s, Input tokens/s: 1733.22, Output tokens/s: 1792.37`, `Generations / Sec: 2.16`).
_REQUEST_RATE = re.compile(_NUMBER + r"\s*(?:requests?|reqs?|generations?|prompts?)\s*(?:/|per)\s*s(?:ec(?:ond)?)?\b"
                           r"|\b(?:requests?|reqs?|generations?|prompts?)\s*/\s*s(?:ec(?:ond)?)?\s*[:=]\s*" + _NUMBER
                           + r"|\b(?:rps|qps)\s*[:=]\s*" + _NUMBER, re.IGNORECASE)


def parse(lines) -> Iterator:
    metrics: dict = {}
    start = 0
    run_rate = None  # the request rate the lines of the current block state: they are a run's, not a request's
    many = False  # a line of the block states a middle and a tail over requests: the block is a run's statistics
    for line_number, line in _aligned(lines):
        if _HEADING.match(line):
            continue  # a markdown heading names a section or a thread (`# Time-to-first-token is 14-16s`), no run
        found = line_metrics(line)
        rate = _REQUEST_RATE.search(line)
        if rate is not None and any(rate.groups()):
            rate_value = _number(next(group for group in rate.groups() if group))
            if metrics and run_rate != rate_value:  # the lines before are another run's (or a request's)
                yield _record(start, metrics, run_rate, many)
                metrics, many = {}, False
            if not metrics:
                start = line_number
            run_rate = rate_value
        if not found:
            if looks_like_metric(line) and rate is None:
                yield unread(line_number, line, NAME)
            continue
        if _starts_next(metrics, found):
            yield _record(start, metrics, run_rate, many)
            metrics, run_rate, many = {}, None, False
        if not metrics:
            start = line_number
        metrics.update(found)
        many = many or _MIDDLE_AND_TAIL.search(line) is not None
    if metrics:
        yield _record(start, metrics, run_rate, many)


# A figure given as a middle beside a tail (`TTFT: 24.91 ms (avg), 75.80 ms (max)`, `mean … p99 …`): statistics over
# many requests, a run's, whose batch the line does not say (one request has no average).
_MIDDLE_AND_TAIL = re.compile(r"\b(?:avg|average|mean|median|p50)\b.*\b(?:max|p9\d(?:\.\d+)?)\b", re.IGNORECASE)
# A request's figures as the run's means (_record of statistics over many requests).
_RUN_MEANS = {"ttft_seconds": "ttft_seconds_mean", "tpot_seconds": "tpot_seconds_mean",
              "e2e_seconds": "e2e_seconds_mean", "input_tokens": "mean_input_tokens",
              "output_tokens": "mean_output_tokens", "generation_tokens_per_second": "output_tokens_per_second_per_user_mean"}


def _starts_next(metrics: dict, found: dict) -> bool:
    """Whether a line's numbers open the next request: a number the request already has, with a new value; or the
    same count again once the request has that phase's time or rate (the next run of the same size). The same count
    on the line that gives the phase its time is an echo ("Prompt: 6 tokens", then "Prefill: 6 tokens in 166.62s")."""
    for name, value in found.items():
        if name not in metrics:
            continue
        if metrics[name] != value:
            return True
        for count, time, rate in (_MEANING["prompt"], _MEANING["decode"]):
            if name == count and (time in metrics or rate in metrics) and time not in found and rate not in found:
                return True
    return False


def _record(line_number: int, metrics: dict, request_rate: float | None = None, many: bool = False) -> Record:
    """One request, its phases' missing numbers worked out from the others (a count over a time is a rate); or, where
    its lines state a request rate, a run of many requests, whose token rates are the run's (all its streams
    together), not one stream's speed; or, where they state a middle and a tail (`many`), a run's means, its batch
    unknown."""
    labels = {"tool": "unknown runner", "reader": "phrases: each clause's phase by its words, its numbers by their units"}
    if many and request_rate is None:
        means = {theirs: metrics[mine] for mine, theirs in _RUN_MEANS.items() if metrics.get(mine)}
        if means:
            return Record("summary", "text.phrases", line_number, means, labels=labels)
    if request_rate is not None:
        run = {"request_throughput_per_second": request_rate}
        for mine, theirs in (("generation_tokens_per_second", "output_tokens_per_second"),
                             ("prompt_tokens_per_second", "input_tokens_per_second")):
            if metrics.get(mine):
                run[theirs] = metrics[mine]
        return Record("summary", "text.phrases", line_number, run, labels=labels)
    metrics = dict(metrics)
    for count, time, rate in (_MEANING["prompt"], _MEANING["decode"]):
        tokens, seconds, per_second = metrics.get(count), metrics.get(time), metrics.get(rate)
        if tokens and seconds and per_second == 0:
            per_second = metrics[rate] = tokens / seconds  # a rate printed as 0.0: too few digits for a slow run
        if tokens and seconds and per_second and not 0.5 < tokens / seconds / per_second < 2:
            del metrics[time]  # a time that is not the phase's (an average per token, say): the rate says more
            seconds = None
        if per_second is None and tokens and seconds:
            metrics[rate] = tokens / seconds
        elif seconds is None and tokens is not None and per_second:
            metrics[time] = tokens / per_second
    if "tpot_seconds" not in metrics and metrics.get("generation_tokens_per_second"):
        metrics["tpot_seconds"] = 1 / metrics["generation_tokens_per_second"]
    return Record("request", "text.phrases", line_number, metrics, labels=labels)
