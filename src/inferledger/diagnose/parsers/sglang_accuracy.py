"""SGLang's accuracy benchmarks (benchmark/gsm8k/bench_sglang.py and its siblings for mmlu, hellaswag, …): a dataset's
questions sent through the server at once (`--parallel 2000`), printed when the last answer is in as

    Accuracy: 0.945
    Invalid: 0.000
    Latency: 33.134 s
    Output throughput: 4311.163 token/s

The latency is the whole run's, from the first question sent to the last answer, and the output throughput is every
answer's tokens over it: the run's rate, all its streams together, not one request's speed. One summary Record a block,
its duration and output rate; neither says how fast one stream decoded, so the diagnosis judges them as a run's
throughput (against one stream's realistic rate where the model and card are known).
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from inferledger.diagnose.records import Record

NAME = "sglang-accuracy"

_LATENCY = re.compile(r"^\W*Latency:\s*([\d.]+)\s*s\b")
_THROUGHPUT = re.compile(r"^\W*Output throughput:\s*([\d.]+)\s*token/s\b", re.MULTILINE)
_ACCURACY = re.compile(r"Accuracy:\s*([\d.]+)")


def sniff(head: str) -> float:
    return 0.8 if "Output throughput:" in head and "Latency:" in head and _THROUGHPUT.search(head) else 0.0


def parse(lines) -> Iterator:
    latency = accuracy = None
    for line_number, line in lines:
        if "Accuracy:" in line:
            match = _ACCURACY.search(line)
            accuracy = match.group(1) if match else None
            continue
        if "Latency:" in line:
            match = _LATENCY.match(line)
            latency = float(match.group(1)) if match else None
            continue
        match = _THROUGHPUT.match(line) if "Output throughput:" in line else None
        if match is None:
            continue
        rate = float(match.group(1))
        metrics = {"output_tokens_per_second": rate}
        if latency:
            metrics["duration_seconds"] = latency
            metrics["total_output_tokens"] = round(latency * rate)
        labels = {"tool": "sglang accuracy bench", "engine": "sglang",
                  "throughput_definition": "every answer's tokens over the run's latency"}
        if accuracy is not None:
            labels["accuracy"] = accuracy
        yield Record("summary", "bench.sglang_accuracy", line_number, metrics, labels=labels)
        latency = accuracy = None
