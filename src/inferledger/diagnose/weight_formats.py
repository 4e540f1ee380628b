"""Which weight format each benchmark run of a file used, and the rule that fewer bits decode faster.

A decode step reads every weight once, so a run whose weights are stored in fewer bits reads fewer bytes a token and,
memory-bound, decodes faster: INT4 weights give 2-3× over FP16 at batch 1, not 4× (dequantising them and the wider
accumulators cost some), and never less than 1×. A quantised run decoding slower than the same model's 16-bit run
beside it (or its 8-bit run beside a 4-bit one) has a dequantising kernel (an unfused weight-only path, a fallback
GEMM, a kernel built for batch 1 run at a large batch) that costs more than the bytes it saves: that kernel, not
memory, bounds decode.

A run's format is the one its own labels state (a table's model cell `Llama-2-7b-AQLM-2Bit-1x16-hf`, a benchmark's
name), else the one a line between it and the run before it states (`bfloat16:` above vLLM's throughput line, the
`--torchao-config int8wo` of the command that printed it). A run stating none is the checkpoint's own 16 bits when it
opens the file or a model cell names it without a format. A line naming two formats (`int4 vs bf16`, prose on both)
states none; a weight-only quantisation beside an activation dtype (`--dtype half --quantization awq`) states the
quantisation; a KV cache's dtype is no weights' format.

Runs are compared only as one model (its family and size, `Llama-2-7b-AQLM-2Bit-1x16-hf` beside `Llama-2-7b-hf`)
measured the same way on the same shape; a table's rows only within that table, where a row's model must be named
(a table of several cards or models repeats a format with no comparison in it).
"""

from __future__ import annotations

import re

from inferledger.diagnose.named_model import FORMATS, stated_formats
from inferledger.diagnose.rules import fire, threshold

# Lines worth testing against every format: any that holds a format's tag at all (most of a log holds none).
_ANY_TAG = re.compile("|".join(re.escape(tag) for tag, _bits in FORMATS), re.IGNORECASE)
# A KV cache's dtype (`--kv-cache-dtype fp8`, `kv_cache_dtype=fp8_e4m3`, `fp8 KV cache`): not the weights'
_KV_DTYPE = re.compile(r"\bkv[\w-]*[\s=:]+\S+|\S+\s+kv\b", re.IGNORECASE)
_LABELS = ("benchmark", "section_model", "model", "quantization", "weights_format", "variant")
_RUN_RATES = ("output_tokens_per_second_per_user_mean", "output_tokens_per_second")


def _width(bits: float) -> int:
    """The format's class: formats of one class (Q4_K and AWQ's 4.25) are one width, not two formats."""
    return next(width for width, below in ((2, 3), (3, 4), (4, 6), (6, 7), (8, 10), (16, 20)) if bits < below) \
        if bits < 20 else 32


def stated_bits(text: str) -> float | None:
    """The bits a weight the text states, or None where it states no format or two."""
    if not _ANY_TAG.search(text) or re.search(r"\bvs\.?\b|\bversus\b", text, re.IGNORECASE):
        return None
    formats = list(stated_formats(_KV_DTYPE.sub(" ", text)))
    if formats and formats[0][0].endswith("bpw"):  # (stated_formats gives the most specific first)
        return formats[0][1]  # a file's own bits a weight (`Q4_K_S (3.87 bpw)`) over its type's usual ones
    found = {_width(bits): bits for _tag, bits in formats}
    low = [width for width in found if width < 16]
    if len(low) == 1:  # a weight-only quantisation beside its activations' dtype is the quantisation
        return found[low[0]]
    return found[16] if not low and len(found) == 1 and 16 in found else None


def stated_by_line(head: str) -> dict:
    """{line number: (bits a weight, the model it names or None)} for each line of `head` that states one format
    (`Llama-3.1-405B (FP8)` above a sweep's rows names its model too)."""
    stated = {}
    for number, line in enumerate(head.split("\n"), 1):
        bits = stated_bits(line) if len(line) < 400 else None
        if bits is not None:
            stated[number] = (bits, _key(line))
    return stated


def _decode_rate(record) -> tuple[str, float] | None:
    """(measure, tok/s) of a run's decode: a stream's rate (its inverse step), else its output throughput."""
    metrics = record.metrics
    for name in ("tpot_seconds_mean", "tpot_seconds_median"):
        if metrics.get(name):
            return "stream", 1 / metrics[name]
    for name in _RUN_RATES:
        if metrics.get(name):
            return ("stream" if name == _RUN_RATES[0] else "output"), metrics[name]
    return None


def _table(record) -> bool:
    """A row of a pasted table: its own cells name its variant (its labels), and the lines around it are other rows,
    whose words (a KV cache's `q8_0`, an attention kernel's `fp8`) are no statement of this run's weights."""
    return record.source.startswith("bench.markdown") or record.labels.get("tool") == "markdown table"


_LINK = re.compile(r"\[([^\]]+)\]\([^)]*\)")  # a Markdown link: its text (`[Gemma 2 9B IT Q4_0](https://…)`)


def _model_id(record) -> str | None:
    """The model a table's model cell names (`meta-llama/Llama-2-7b-hf`, `vicuna-7b`, a link's `Gemma 2 9B IT Q4_0`):
    a model column's cell, or one word elsewhere, not a title above the table (`Bonsai 8B (1-bit) vs Qwen3-30B-A3B
    on Strix Halo`)."""
    cell = _LINK.sub(r"\1", str(record.labels.get("section_model") or "")).strip()
    if cell and len(cell.split()) <= 6 and not re.search(r"\bvs\.?\b", cell, re.IGNORECASE):
        return "-".join(cell.split())  # one word as an id is: `Gemma-2-9B-IT-Q4_0`
    name = str(record.labels.get("model") or "").strip()
    return name if re.fullmatch(r"[\w./:+-]+", name) else None


def _run_format(record, stated: dict, after_line: int, first: bool) -> tuple:
    """(bits a weight or None, the model's (family, size) or None) of one run."""
    model = _model_id(record)
    key = _key(model or "")
    for label in _LABELS:
        bits = stated_bits(str(record.labels.get(label, "")))
        if bits is not None:
            return bits, key
    if model:
        # a model id naming no format: the checkpoint as published; naming two, no one format
        return (None if _ANY_TAG.search(model) else 16.0), key
    if _table(record):
        return None, key
    between = [line for line in stated if after_line < line <= record.line_number]
    if between:
        return stated[max(between)]
    return (16.0 if first else None), None


# A model named with its size (`Llama-2-7b-hf`, `Qwen3-VL-235B`, `meta-llama/Meta-Llama-3-8B`)
_SIZED_NAME = re.compile(r"(?:[\w.-]+/)?(?P<family>[a-z]+)(?P<between>[\w.-]*?)(?<![\w.])(?P<size>\d+(?:\.\d+)?[bm])"
                         r"(?![a-z0-9])")


def _key(text: str) -> tuple | None:
    """(family, generation, size) of the model the text names (`Llama-2-7b-AQLM-2Bit-1x16-hf` and `Llama-2-7b-hf` are
    one: llama, 2, 7b; `Gemma-3-12B` and `Gemma-4-12B` two), or None where it names none with its size."""
    match = _SIZED_NAME.search(text.lower())
    return (match["family"], tuple(re.findall(r"\d+(?:\.\d+)?", match["between"])), match["size"]) if match else None


def _blocks(records: list) -> dict:
    """{line: block number}: a table's rows are consecutive lines; a gap of more starts another table or section."""
    block, last, found = 0, None, {}
    for record in records:
        if last is not None and record.line_number - last > 2:
            block += 1
        found[record.line_number], last = block, record.line_number
    return found


def _name(record) -> str:
    labels = record.labels
    return _LINK.sub(r"\1", labels.get("benchmark") or labels.get("section_model") or labels.get("tool")
                     or record.source)


def _same_shape(one, other) -> bool:
    """The two runs' stated lengths and load agree (where both state them)."""
    return all(one.metrics.get(name) is None or other.metrics.get(name) is None
               or one.metrics[name] == other.metrics[name]
               for name in ("mean_input_tokens", "mean_output_tokens", "max_concurrency"))


def _table_pair(record, key, base, base_key) -> bool:
    """Two rows of one table naming one model (`Gemma 2 9B IT Q4_0` beside `… Q8_0`): an 8-bit run is a 4-bit run's
    base only so. Prose sections of 8-bit and 4-bit runs differ in more than their weights (a card, a speculation
    setting, a model the headings name without its size)."""
    return _table(record) and _table(base) and key is not None and key == base_key


def quantised_not_faster(acc, findings: list) -> None:
    """summary-quantised-not-faster: a file's run of weights in fewer than 16 bits decoding slower than the rule's
    threshold × the rate of the nearest run of its model and shape in wider weights (16 bits, or 8 beside 4)."""
    by_file: dict = {}
    for record, file in acc.summaries:
        if file in acc.weight_formats:
            by_file.setdefault(file, []).append(record)
    ratio = threshold("summary-quantised-not-faster")
    for file, records in by_file.items():
        records = sorted(records, key=lambda record: record.line_number)
        block = _blocks(records)
        runs, previous = [], 0
        for index, record in enumerate(records):
            (bits, key), rate = _run_format(record, acc.weight_formats[file], previous, index == 0), _decode_rate(record)
            previous = record.line_number
            if bits is not None and rate is not None:
                runs.append((record, bits, rate, key))
        # a run naming no model is the file's one model, where the file names one at most
        one_model = len({key for _bits, key in acc.weight_formats[file].values() if key} |
                        {key for *_run, key in runs if key}) <= 1
        for record, bits, (measure, rate), key in runs:
            if _width(bits) >= 16 or (key is None and _table(record)):
                continue
            # the same model's run in wider weights (16-bit, or 8-bit beside 4-bit) measured the same way on the
            # same shape and the same kind of device (a phone's CPU row beside a GPU's), in the same table where a
            # table
            bases = [(abs(base.line_number - record.line_number), base, base_rate, base_bits)
                     for base, base_bits, (base_measure, base_rate), base_key in runs
                     if _width(bits) < _width(base_bits) <= 16 and base_measure == measure
                     and base.labels.get("device") == record.labels.get("device")
                     and (base_key == key or one_model and not _table(record) and None in (key, base_key))
                     and _same_shape(base, record)
                     and not ((_table(record) or _table(base)) and block[base.line_number] != block[record.line_number])
                     and (_width(base_bits) == 16 or _table_pair(record, key, base, base_key))]
            if not bases:
                continue
            _distance, base, base_rate, base_bits = min(bases, key=lambda item: item[0])
            if rate < ratio * base_rate:
                findings.append(fire(
                    "summary-quantised-not-faster",
                    f"{_name(record)}: {bits:g}-bit weights decode at {rate:,.1f} tok/s, {rate / base_rate:.2f}× "
                    f"the {base_rate:,.1f} tok/s of the {base_bits:g}-bit run (line {base.line_number}): fewer bytes "
                    "a token should decode faster, so the dequantising kernel, not memory, bounds decode",
                    {"tokens_per_second": rate, "wider_weights_tokens_per_second": base_rate, "bits_per_weight": bits,
                     "wider_bits_per_weight": base_bits},
                    lines=[record.line_number], file=file))
