"""Benchmark clients that print `label: value` text blocks between dashed rules: LMDeploy's
profile_throughput.py / profile_generation.py / profile_restful_api.py and the tgi-gaudi client's "Performance
summary" (examples/run_generation.py). One summary Record per block.

Also the text-generation examples that print `Throughput (including tokenization) = 109.7 tokens/second` (optimum-
habana's run_generation.py, with `Memory allocated = 17.56 GB` and `Graph compilation duration = 8.35 seconds`
beside it; transformers-bloom-inference's `*** Performance stats` with `Total tokens generated = N with batch size =
B`): every prompt of the batch generates max_new_tokens together, and the rate is all of them over the whole call, so
one stream's rate is it ÷ the batch size, taken from the `input N:` lines the script prints (or the batch-size line).

And optimum-benchmark's inference log lines, `… - + Forward pass latency: 1.22e-02 (s)`, `+ Generation pass latency`,
`+ Generation throughput: 1234.5 (tokens/s)`, `+ Per token latency`: the forward pass is the prompt's (the first
token's), the generation pass the whole generate() call, one summary per run of them.

Units as printed: LMDeploy latencies in seconds (a `(s)` in the label, or an `s` after each value in old
releases), throughput in token/s and req/s (or req/min); tgi-gaudi latencies in ms after each value.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from inferledger.diagnose.parsers.bench_common import NUMBER, TIME_UNITS, to_number
from inferledger.diagnose.records import Record, looks_like_metric, unread

NAME = "bench-text"

# LMDeploy: "first token latency(s)(min, max, ave): 0.623, 12.899, 4.401", old "first_token latency(min, max, ave):
# 45.43s, 94.67s, 89.29s", "per-token latency(s) percentile(50, 75, 95, 99): [0, 0, 0.708, 0.979]".
_STATS_LINE = re.compile(r"^\s*(first[ _]token latency|token latency|per-token latency)\s*(\((?:s|ms)\))?\s*"
                         r"(?:percentile)?\(([^)]*)\)\s*:\s*(.+)$", re.IGNORECASE)
_LMDEPLOY_METRIC = {"first token latency": "ttft_seconds", "first_token latency": "ttft_seconds",
                    # profile_generation's "token latency" is the whole request (equal to the first token's when
                    # nothing streams)
                    "token latency": "e2e_seconds",
                    "per-token latency": "itl_seconds"}
_STAT = {"min": "min", "max": "max", "ave": "mean", "avg": "mean", "50": "median", "90": "p90", "95": "p95",
         "99": "p99"}
_LMDEPLOY_SCALARS = {  # label (lower case, before ':') -> (metric, factor)
    "concurrency": ("max_concurrency", 1.0),
    "elapsed_time": ("duration_seconds", 1.0),
    "input_tokens": ("mean_input_tokens", 1.0),
    "output_tokens": ("mean_output_tokens", 1.0),
    "number of prompts": ("completed_requests", 1.0),
    "number of prompt tokens": ("total_input_tokens", 1.0),
    "number of completion tokens": ("total_output_tokens", 1.0),
    "token throughput (completion token)": ("output_tokens_per_second", 1.0),
    "token throughput (prompt + completion token)": ("total_tokens_per_second", 1.0),
    "throughput": ("output_tokens_per_second", 1.0),
    "rps (request per second)": ("request_throughput_per_second", 1.0),
    "rpm (request per minute)": ("request_throughput_per_second", 1 / 60.0),
}
_PIPELINE_RATE = "token throughput (completion token)"
_PAIR = re.compile(r"([A-Za-z_][\w ]*?(?:\([^)]*\))?)\s*:\s*([^,]+)")
_GAUDI_TITLE = re.compile(r"Performance\s+summary")  # two spaces as printed, one when a paste collapsed them
_GAUDI_SECTIONS = {"first token latency": "ttft_seconds", "output token latency": "tpot_seconds"}


class _Block:
    def __init__(self, line_number: int, tool: str):
        self.line_number = line_number
        self.tool = tool
        self.metrics: dict = {}
        self.section = ""  # tgi-gaudi: the latency the indented Median/Average lines belong to

    def record(self) -> Record | None:
        if not self.metrics:
            return None
        metrics = self.metrics
        rate, duration = metrics.get("request_throughput_per_second"), metrics.get("duration_seconds")
        if "completed_requests" not in metrics and rate and duration:
            metrics["completed_requests"] = round(rate * duration)
        return Record("summary", f"bench.{self.tool}", self.line_number, metrics, labels={"tool": self.tool})


def _numbers_with_units(text: str, label_unit: str | None) -> list:
    """Each value of a list like '0.623, 12.899, 4.401' or '45.43s, 94.67s' or '[0, 0, 0.708]' in seconds."""
    values = []
    for piece in text.strip().strip("[]").split(","):
        match = NUMBER.search(piece)
        if match is None:
            values.append(None)
            continue
        unit = piece[match.end():].strip().lower() or (label_unit or "s")
        values.append(float(match.group().replace(",", "")) * TIME_UNITS.get(unit, 1.0))
    return values


def _lmdeploy_line(block: _Block, line: str) -> bool:
    match = _STATS_LINE.match(line)
    if match is not None:
        metric = _LMDEPLOY_METRIC[match.group(1).lower()]
        label_unit = match.group(2).strip("()") if match.group(2) else None
        stats = [name.strip().lower() for name in match.group(3).split(",")]
        for stat, value in zip(stats, _numbers_with_units(match.group(4), label_unit), strict=False):
            if value is not None and stat in _STAT:
                block.metrics[f"{metric}_{_STAT[stat]}"] = value
        return True
    used = False
    for label, value in _PAIR.findall(line):
        known = _LMDEPLOY_SCALARS.get(" ".join(label.lower().split()))
        number = to_number(value)
        if known is not None and number is not None:
            if known[1] == 1.0 or known[0] not in block.metrics:  # RPM only where no RPS line was printed
                block.metrics[known[0]] = number * known[1]
            used = True
    return used


def _gaudi_line(block: _Block, line: str) -> bool:
    stripped = line.strip()
    lowered = stripped.lower().rstrip(":")
    if lowered in _GAUDI_SECTIONS:
        block.section = _GAUDI_SECTIONS[lowered]
        return True
    if stripped.lower().startswith("throughput:"):
        number = to_number(stripped)
        if number is not None:
            block.metrics["request_throughput_per_second" if "queries/s" in stripped else
                          "output_tokens_per_second"] = number
        return True
    if block.section and ":" in stripped:
        label, _, value = stripped.partition(":")
        stat = {"median": "median", "average": "mean", "p90": "p90", "p99": "p99"}.get(label.strip().lower())
        values = _numbers_with_units(value, "ms")
        if stat and values and values[0] is not None:
            block.metrics[f"{block.section}_{stat}"] = values[0]
            return True
    return False


_INCLUDING = re.compile(r"Throughput \(including tokenization\) = ([\d.]+) tokens/sec")
_INPUT = re.compile(r"^input (\d+): ")
_BATCH = re.compile(r"with batch size = (\d+)")
# run_generation.py's command line above its stats, where no `input N:` line counts the prompts
_COMMAND_BATCH = re.compile(r"--batch[_-]size[ =](\d+)\b")
_OPTIMUM = re.compile(r"\+ (Forward pass|Prefill|Generation pass|Generation|Decode|Per token) (latency|throughput)(?: \(mean\))?: "
                      r"([\d.]+(?:[eE][-+]?\d+)?) \(([^)]+)\)")
_OPTIMUM_METRIC = {("forward pass", "latency"): "ttft_seconds_mean", ("prefill", "latency"): "ttft_seconds_mean",
                   ("generation pass", "latency"): "e2e_seconds_mean", ("generation", "latency"): "e2e_seconds_mean",
                   ("per token", "latency"): "tpot_seconds_mean", ("decode", "latency"): "tpot_seconds_mean",
                   ("generation", "throughput"): "output_tokens_per_second",
                   ("decode", "throughput"): "output_tokens_per_second"}
_EXAMPLE_LABELS = {"memory allocated": "memory_allocated_gb", "max memory allocated": "max_memory_allocated_gb",
                   "graph compilation duration": "graph_compilation_seconds"}


def _example_record(line_number: int, rate: float, batch: int | None, labels: dict) -> Record:
    """One text-generation example run: its batch's output rate over the call, and one stream's when the batch is
    known (all its prompts generate together)."""
    metrics = {"output_tokens_per_second": rate}
    labels = {"tool": "text-generation example", "offline_batch": True,
              "throughput_definition": "batch × new tokens over the whole call, tokenization included", **labels}
    if batch:
        metrics["mean_concurrency"] = float(batch)
        metrics["output_tokens_per_second_per_user_mean"] = rate / batch
    return Record("summary", "bench.text-generation-example", line_number, metrics, labels=labels)


def sniff(head: str) -> float:
    if "Throughput (including tokenization) = " in head:
        return 0.8
    if ("pass latency: " in head or "Per token latency: " in head) and _OPTIMUM.search(head):
        return 0.8
    if _GAUDI_TITLE.search(head):
        return 0.9
    lowered = head.lower()
    if ("first_token latency" in lowered or "first token latency" in lowered) and (
            "elapsed_time" in lowered or "token/s" in lowered):
        return 0.9
    if _PIPELINE_RATE in lowered:  # profile_pipeline_api's block: no first token (the pipeline does not stream)
        return 0.9
    return 0.0


def parse(lines) -> Iterator:
    block: _Block | None = None
    example: list | None = None  # a text-generation example's run (see where it is made)
    inputs = 0  # `input N:` lines since the last example run, its batch
    command_batch = None  # the batch a command line above the run asked for
    optimum: tuple | None = None  # (line number, metrics) of optimum-benchmark's run being read
    for line_number, line in lines:
        stripped = line.strip()
        if not stripped:
            continue
        if " latency" in stripped or " throughput" in stripped:
            match = _OPTIMUM.search(stripped)
            if match is not None:
                metric = _OPTIMUM_METRIC.get((match.group(1).lower(), match.group(2)))
                unit = match.group(4).strip().lower()
                if metric is not None and (metric.endswith("per_second") == unit.endswith("/s")):
                    value = float(match.group(3)) * (TIME_UNITS.get(unit, 1.0) if "seconds" in metric else 1.0)
                    if optimum is not None and metric in optimum[1]:  # the next run's lines
                        yield Record("summary", "bench.optimum-benchmark", *optimum, labels={"tool": "optimum-benchmark"})
                        optimum = None
                    if optimum is None:
                        optimum = (line_number, {})
                    optimum[1][metric] = value
                continue
        if "--batch" in stripped and (asked := _COMMAND_BATCH.search(stripped)) is not None:
            command_batch = int(asked.group(1))
        if stripped.startswith("input ") and _INPUT.match(stripped):
            inputs = max(inputs, int(_INPUT.match(stripped).group(1)))
            if example is not None and example[4]:
                example[2] = inputs  # the inputs printed after the stats (older releases)
            continue
        if "(including tokenization) =" in stripped:
            match = _INCLUDING.search(stripped)
            if match is not None:
                if "msecs/token" in stripped or (example is not None and example[0] == line_number - 1
                                                 and example[1] == float(match.group(1))):
                    continue
                if example is not None:
                    yield _example_record(*example[:4])
                # [line, rate, batch, labels, batch still to come from the `input N:` lines after it]
                example = [line_number, float(match.group(1)), inputs or command_batch, {}, not inputs]
                inputs = 0
                continue
        if example is not None and "=" in stripped:
            label, _, value = stripped.partition("=")
            key = " ".join(label.lower().split())
            batch = _BATCH.search(stripped)
            if batch is not None:
                example[2], example[4] = int(batch.group(1)), False
            if key in _EXAMPLE_LABELS and to_number(value) is not None:
                example[3][_EXAMPLE_LABELS[key]] = to_number(value)
                continue
        title = _GAUDI_TITLE.search(stripped)
        if stripped.startswith("-----") and not title:
            continue  # rules between and inside the blocks
        if title:
            if block is not None and (record := block.record()) is not None:
                yield record
            block = _Block(line_number, "tgi-gaudi")
            continue
        lowered = stripped.lower()
        # a profile_restful_api / profile_throughput block opens with its concurrency, profile_pipeline_api's
        # with its prompts
        opening = "max_concurrency" if lowered.startswith("concurrency:") \
            else "completed_requests" if lowered.startswith("number of prompts:") else None
        if opening and (block is None or block.tool != "lmdeploy" or opening in block.metrics
                        or (opening == "completed_requests" and "total_input_tokens" in block.metrics)):
            if block is not None and (record := block.record()) is not None:
                yield record
            block = _Block(line_number, "lmdeploy")
        if block is None:
            continue
        used = _gaudi_line(block, line) if block.tool == "tgi-gaudi" else _lmdeploy_line(block, line)
        if not used and looks_like_metric(line):
            yield unread(line_number, line, NAME)
    if block is not None and (record := block.record()) is not None:
        yield record
    if example is not None:
        yield _example_record(*example[:4])
    if optimum is not None:
        yield Record("summary", "bench.optimum-benchmark", *optimum, labels={"tool": "optimum-benchmark"})
