"""onnxruntime-genai's model_benchmark (its C++ benchmark; Ryzen AI's and Windows ML's guides print it as their
expected output), a block a run:

    Batch size: 1, prompt tokens: 128, tokens to generate: 128
    Prompt processing (time to first token):
            avg (us):       169860
            avg (tokens/s): 753.562
            p50 (us):       169022
    Token generation:
            avg (us):       20354.1
            p50 (us):       19964.9
    Token sampling:
            avg (us):       192.274
    E2E generation (entire generation loop):
            avg (ms):       2755.09
            p50 (ms):       2747.84

The prompt's processing is the first token (the tool says so); a token-generation step writes a token for each of
the batch's sequences, so its time is the time per output token; sampling is a part of each step, not read apart.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from inferledger.diagnose.parsers.bench_common import TIME_UNITS, canonical_stat
from inferledger.diagnose.records import Record

NAME = "onnxruntime-genai model_benchmark"

_SHAPE = re.compile(r"Batch size:\s*(\d+),\s*prompt tokens:\s*(\d+),\s*tokens to generate:\s*(\d+)")
_PHASES = (("Prompt processing", "ttft_seconds"), ("Token generation", "tpot_seconds"),
           ("Token sampling", None), ("E2E generation", "e2e_seconds"))
_VALUE = re.compile(r"^\s*(avg|p50) \((us|ms|s)\):\s*([\d.]+(?:[eE][-+]?\d+)?)\s*$")


def sniff(head: str) -> float:
    return 0.9 if "Prompt processing (time to first token):" in head and "Token generation:" in head else 0.0


def _record(line_number: int, metrics: dict, shape) -> Record:
    metrics = dict(metrics)
    if shape is not None:
        batch, prompt, generate = map(float, shape.groups())
        metrics.update(max_concurrency=batch, mean_input_tokens=prompt, mean_output_tokens=generate)
    return Record("summary", "bench.ort-model-benchmark", line_number, metrics,
                  labels={"tool": "onnxruntime-genai model_benchmark", "static_batch": "1"})


def parse(lines) -> Iterator:
    metrics: dict = {}
    shape = first = phase = None
    for line_number, line in lines:
        if "Batch size:" in line and (found := _SHAPE.search(line)) is not None:
            if metrics:
                yield _record(first, metrics, shape)
            metrics, shape, first, phase = {}, found, line_number, None
            continue
        stripped = line.strip()
        if stripped.endswith(":") and not stripped[:1].isspace():
            named = next((metric for title, metric in _PHASES if stripped.startswith(title)), "")
            if named != "":
                phase = named
                first = first or line_number
                continue
        if phase and "(" in line and (value := _VALUE.match(line)) is not None:
            stat, unit, number = value.groups()
            metrics[f"{phase}_{canonical_stat(stat)}"] = float(number) * TIME_UNITS[unit]
    if metrics:
        yield _record(first, metrics, shape)
