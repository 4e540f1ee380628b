"""vLLM offline inference (`LLM.generate`): the tqdm bar `Processed prompts: 100%|███| 1000/1000 [00:10<00:00,
97.45it/s, est. speed input: 49992.62 toks/s, output: 12473.79 toks/s]` (vLLM ≥ 0.5; `Generation Speed: 49.28
toks/s` before). One summary Record per run, from the last bar line of that run. `vllm bench throughput` (benchmark_throughput.py)
ends a run with `Throughput: 0.03 requests/s, 14.83 total tokens/s, 1.65 output tokens/s` and, since 2025,
`Total num prompt tokens:  32768` / `Total num output tokens:  4096`: joined to the run's bar when one is there.
`vllm bench latency` (benchmark_latency.py) times one batch of `batch_size` prompts, `input_len` tokens in and
`output_len` out, over several iterations and prints `Avg latency: 1.2036 seconds` and `90% percentile latency: …`:
one summary per run, its shape from the arguments it printed first (`Namespace(…, input_len=32, output_len=128,
batch_size=8, …)`) when the excerpt holds them, else from the tool's defaults (its `--input-len 32 --output-len 128
--batch-size 8`, unchanged since benchmark_latency.py was written in 2023), which the record says it assumed.

nano-vllm's bench.py (and its forks) ends with `Total: 133966tok, Time: 14.06s, Throughput: 9530.43tok/s` (forks
prefix `Inference Engine: vllm, Model: Qwen3-0.6B, `; later releases add `, TTFT(avg/min/max): a/b/cms`): the
generated tokens of all its prompts (every one runs to its max_tokens), the elapsed time and their ratio, one run a
line.

vLLM's benchmark_guided.py follows its `Throughput:` line with pandas' describe() of each request's `First token
latency(msecs):` and `Next token latency(msecs):` (count, mean, std, min, 25%, 50%, 75%, max): the run's TTFT and
per-token time statistics.

Every prompt is handed to the engine at once, so this is a throughput run, not a latency measurement: the rates are
totals over the elapsed time (tokens are counted as each request finishes, which is why a bar can read 0.00 toks/s
until the first request is done). A bar that stopped short of its total was cut by the excerpt or the run.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from inferledger.diagnose.parsers.vllm import unwarmed_event
from inferledger.diagnose.records import Record

NAME = "vllm-offline"

# (a notebook's bar may print no bar: `Processed prompts: 100% 1321/1321 [09:09<00:00,  2.40it/s]`)
_BAR = re.compile(r"Processed prompts:\s*(\d+)%(?:.*?\|)?\s*(\d+)/(\d+)\s*\[([\d:]+)<[^,\]]*"
                  r"(?:,\s*([\d.]+)(it/s|s/it))?"
                  r"(?:,\s*est\. speed input:\s*([\d.]+) toks/s,\s*output:\s*([\d.]+) toks/s"
                  r"|,\s*Generation Speed:\s*([\d.]+) toks/s)?")


# Before 2024 the line said only "tokens/s" (prompt + output, the same total), as forks such as Aphrodite still do.
_THROUGHPUT = re.compile(r"Throughput:\s*([\d.]+) requests/s,\s*([\d.]+) (?:total )?tokens/s"
                         r"(?:,\s*([\d.]+) output tokens/s)?")
_TOTALS = re.compile(r"Total num (prompt|output) tokens:\s*(\d+)")


_NANO = re.compile(r"(?:Inference Engine: ([^,]+), Model: ([^,]+), )?Total: (\d+)tok, Time: ([\d.]+)s, "
                   r"Throughput: ([\d.]+)tok/s(?:, TTFT\(avg/min/max\): ([\d.]+)/([\d.]+)/([\d.]+)ms)?")
_AVG_LATENCY = re.compile(r"Avg latency:\s*([\d.]+) seconds")
_PERCENTILE_LATENCY = re.compile(r"(\d+)% percentile latency:\s*([\d.]+) seconds")
_ARGUMENT = re.compile(r"\b(input_len|output_len|batch_size|model)=(\d+|'[^']*')")
_FLAG = re.compile(r"--(input|output)-len[= ]+(\d+)")  # the command line's own: `--input-len 256 --output-len 256`
_BATCH_FLAG = re.compile(r"--batch-size[= ]+(\d+)")  # benchmark_latency's own
_PROMPTS = re.compile(r"--num-prompts[= ]+(\d+)")
# Several sequences a prompt (`--n 4`, beam search): the engine's batch is no longer the prompts' count.
_SEQUENCES = re.compile(r"--n[= ]+([2-9]|\d\d+)\b|--use-beam-search")
_LATENCY_STATS = {"50": "median", "90": "p90", "99": "p99"}  # the 10/25/75 % percentiles have no metric name
# benchmark_guided.py's describe() blocks: a heading naming the latency and its unit, then one statistic a line.
_DESCRIBED = re.compile(r"^(First|Next) token latency\((msecs|secs)\):\s*$")
_DESCRIBE_ROW = re.compile(r"^(count|mean|min|max|50%)\s+(-?[\d.]+(?:e[-+]?\d+)?)\s*$")
_DESCRIBE_STATS = {"mean": "mean", "min": "min", "max": "max", "50%": "median"}
_SHAPE = {"input_len": "mean_input_tokens", "output_len": "mean_output_tokens", "batch_size": "mean_concurrency"}  # the whole batch runs together
# benchmark_latency's argument defaults, taken for a run whose excerpt printed no Namespace(...) line.
_LATENCY_DEFAULTS = {"input_len": "32", "output_len": "128", "batch_size": "8"}


def _latency_record(line_number: int, metrics: dict, arguments: dict) -> Record:
    """One `vllm bench latency` run: every iteration is one batch, all its prompts at once, so the latency is the
    batch's prefill plus output_len decode steps, and the batch's output tokens over it a throughput."""
    labels = {"engine": "vllm", "tool": "benchmark_latency"}
    if "model" in arguments:
        labels["model"] = arguments["model"].strip("'")
    assumed = [name for name in _SHAPE if name not in arguments]
    if assumed:
        labels["shape_assumed"] = ", ".join(f"{name} {_LATENCY_DEFAULTS[name]}" for name in assumed)
    for name, metric in _SHAPE.items():
        metrics[metric] = float(arguments.get(name, _LATENCY_DEFAULTS[name]))
    if {"mean_output_tokens", "mean_concurrency", "e2e_seconds_mean"} <= metrics.keys() and metrics["e2e_seconds_mean"]:
        metrics["output_tokens_per_second"] = (metrics["mean_concurrency"] * metrics["mean_output_tokens"]
                                               / metrics["e2e_seconds_mean"])
    return Record("summary", "vllm.bench-latency", line_number, metrics, labels=labels)


def _nano(line_number: int, match: re.Match) -> Record:
    """One nano-vllm bench run: its generated tokens, time and their ratio (all prompts at once, to their end)."""
    engine, model, tokens, seconds, rate, ttft, ttft_min, ttft_max = match.groups()
    metrics = {"total_output_tokens": float(tokens), "duration_seconds": float(seconds),
               "output_tokens_per_second": float(rate)}
    if ttft is not None:
        metrics.update(ttft_seconds_mean=float(ttft) / 1000, ttft_seconds_min=float(ttft_min) / 1000,
                       ttft_seconds_max=float(ttft_max) / 1000)
    labels = {"engine": engine.strip() if engine else "nano-vllm", "tool": "nano-vllm bench.py", "offline_batch": True,
              "throughput_definition": "offline batch: every prompt submitted at once, generated tokens over the "
                                       "elapsed time"}
    if model:
        labels["model"] = model.strip()
        labels["benchmark"] = f"{labels['engine']} bench, {labels['model']}"
    return Record("summary", "bench.nano-vllm", line_number, metrics, labels=labels)


def _throughput(match: re.Match) -> dict:
    metrics = {"request_throughput_per_second": float(match.group(1)),
               "total_tokens_per_second": float(match.group(2))}
    if match.group(3) is not None:
        metrics["output_tokens_per_second"] = float(match.group(3))
    return metrics


def _clock_seconds(text: str) -> float:
    """tqdm's elapsed time, `MM:SS` or `H:MM:SS`."""
    seconds = 0.0
    for part in text.split(":"):
        seconds = seconds * 60 + float(part)
    return seconds


# A finished bar printed again by tqdm's close keeps its time, to its clock's second or, for a short run whose time is
# its count over its rate, to a tenth: another time is another run.
RERUN_CLOCK_SECONDS = 1.0
RERUN_CLOCK_SHARE = 0.1


def _bar(match: re.Match) -> tuple[dict, int]:
    """(metrics, prompts in the run) of one bar line."""
    done, total = int(match.group(2)), int(match.group(3))
    elapsed = _clock_seconds(match.group(4))
    metrics = {"completed_requests": float(done), "duration_seconds": elapsed}
    if match.group(5):
        rate = float(match.group(5))
        metrics["request_throughput_per_second"] = rate if match.group(6) == "it/s" else (1 / rate if rate else 0.0)
        if done and elapsed < 10 and metrics["request_throughput_per_second"] > 0:
            # tqdm's clock shows whole seconds (`00:00` for half a second); a short run's time is its count over
            # its rate, to the rate's precision.
            elapsed = metrics["duration_seconds"] = done / metrics["request_throughput_per_second"]
    output = match.group(8) or match.group(9)
    if output is not None:
        metrics["output_tokens_per_second"] = float(output)
    if match.group(7) is not None:
        metrics["input_tokens_per_second"] = float(match.group(7))
    if done and elapsed > 0:
        # Rates are totals over the elapsed time, so tokens per request follow from them.
        for rate_name, mean_name in (("output_tokens_per_second", "mean_output_tokens"),
                                     ("input_tokens_per_second", "mean_input_tokens")):
            if metrics.get(rate_name):
                metrics[mean_name] = metrics[rate_name] * elapsed / done
    return metrics, total


def _record(line_number: int, metrics: dict, total: int | None, arguments: dict | None = None) -> Record:
    if arguments:
        _fixed_lengths(metrics, arguments)
    labels = {"engine": "vllm", "tool": "vllm-offline", "offline_batch": True,
              "throughput_definition": "offline batch: every prompt submitted at once, rates are totals over the "
                                       "elapsed time"}
    if total is not None:
        metrics["requests_sent"] = float(total)  # the bar's total: every prompt of the batch
    if total is not None and metrics["completed_requests"] < total:
        labels["cut"] = f"the bar stopped at {metrics['completed_requests']:.0f} of {total:.0f} prompts"
    return Record("summary", "bench.vllm-offline", line_number, metrics, labels=labels)


def _fixed_lengths(metrics: dict, arguments: dict) -> None:
    """A throughput run with fixed lengths (its arguments `input_len`, `output_len`) that printed only its total
    tokens a second: every request generated output_len tokens, so the output rate is req/s × output_len. Kept only
    where req/s × (input_len + output_len) gives the printed total (within 5 %), and req/s × output_len the printed
    output rate where there is one: the arguments are this run's. Its `--num-prompts` is then the run's count of
    requests, all submitted at once (none where a prompt runs several sequences: `--n`, beam search)."""
    rate, total = metrics.get("request_throughput_per_second"), metrics.get("total_tokens_per_second")
    if "output_len" not in arguments or "input_len" not in arguments or not rate or not total:
        return
    output, prompt = float(arguments["output_len"]), float(arguments["input_len"])
    printed = metrics.get("output_tokens_per_second", rate * output)
    if abs(rate * (prompt + output) - total) > 0.05 * total or abs(rate * output - printed) > 0.05 * printed:
        return
    metrics["output_tokens_per_second"] = printed
    metrics.update(mean_output_tokens=output, mean_input_tokens=prompt)
    if "num_prompts" in arguments:
        metrics.setdefault("completed_requests", float(arguments["num_prompts"]))


def sniff(head: str) -> float:
    if "Processed prompts:" in head and ("toks/s" in head or "it/s" in head):
        return 0.85
    if "Throughput:" in head and "requests/s," in head and "tokens/s" in head:
        return 0.8
    if "Avg latency:" in head and ("percentile latency:" in head or "benchmark_latency" in head):
        return 0.8
    if "tok, Time: " in head and "Throughput: " in head and _NANO.search(head):
        return 0.8
    return 0.0


def parse(lines) -> Iterator:
    # the latest bar line or throughput summary: (line number, metrics, prompts in its run or None, its summary read)
    last: tuple[int, dict, int | None, bool] | None = None
    arguments: dict = {}  # the last printed Namespace(...) of a latency run
    latency: tuple[int, dict] | None = None  # (line number, metrics) of the latency run being read
    described: tuple | None = None  # (metric, seconds per unit) whose describe() rows follow, while they do
    wrapped: str | None = None  # a bar's `Processed prompts: 100%|███` whose counts and rates are on the next line
    for line_number, line in lines:
        if "was not warmed-up" in line and (event := unwarmed_event(line_number, line)) is not None:
            yield event  # often glued to a progress bar's line, which is read on
        if described is not None and last is not None:
            row = _DESCRIBE_ROW.match(line.strip())
            if row is not None:
                stat, value = row.groups()
                if stat == "count":
                    last[1].setdefault("completed_requests", float(value))
                else:
                    last[1][f"{described[0]}_{_DESCRIBE_STATS[stat]}"] = float(value) * described[1]
                continue
            if line.strip().startswith(("std", "25%", "75%", "dtype:")):
                continue
            described = None
        if "token latency(" in line and last is not None:
            heading = _DESCRIBED.match(line.strip())
            if heading is not None:
                metric = "ttft_seconds" if heading.group(1) == "First" else "tpot_seconds"
                described = (metric, 1e-3 if heading.group(2) == "msecs" else 1.0)
                continue
        if "latency" in line:
            match = _AVG_LATENCY.search(line)
            if match is not None:
                if latency is not None:
                    yield _latency_record(*latency, arguments)
                latency = (line_number, {"e2e_seconds_mean": float(match.group(1))})
                continue
            match = _PERCENTILE_LATENCY.search(line)
            if match is not None and latency is not None:
                stat = _LATENCY_STATS.get(match.group(1))
                if stat is not None:
                    latency[1][f"e2e_seconds_{stat}"] = float(match.group(2))
                continue
        if "Namespace(" in line and "output_len=" in line:
            arguments = dict(_ARGUMENT.findall(line))
            continue
        if "benchmark_latency" in line or "bench latency" in line:
            # A latency run's command line: its shape where stated, the tool's defaults for the rest.
            arguments = {f"{which}_len": value for which, value in _FLAG.findall(line)}
            batch = _BATCH_FLAG.search(line)
            if batch is not None:
                arguments["batch_size"] = batch.group(1)
            continue
        if "--output-len" in line:
            arguments = {f"{which}_len": value for which, value in _FLAG.findall(line)}
            prompts = _PROMPTS.search(line)
            if prompts is not None and _SEQUENCES.search(line) is None:
                arguments["num_prompts"] = prompts.group(1)
            continue
        if "tok, Time: " in line:
            match = _NANO.search(line)
            if match is not None:
                yield _nano(line_number, match)
                continue
        if "Throughput:" in line:
            match = _THROUGHPUT.search(line)
            if match is not None:
                if last is not None and last[3]:
                    yield _record(*last[:3], arguments)  # the run before had its own summary
                    last = None
                metrics = dict(last[1]) if last is not None else {}
                metrics.update(_throughput(match))
                last = (last[0] if last is not None else line_number, metrics, last[2] if last else None, True)
            continue
        if "Total num" in line and last is not None:
            match = _TOTALS.search(line)
            if match is not None:
                name = "total_input_tokens" if match.group(1) == "prompt" else "total_output_tokens"
                last[1][name] = float(match.group(2))
            continue
        if wrapped is not None:
            # the bar's numbers wrapped onto the next line (a narrow terminal, a page's column): read them joined
            line, wrapped = wrapped + " | " + line.strip(), None
        elif "Processed prompts:" not in line:
            continue
        match = _BAR.search(line)
        if match is None:
            if "Processed prompts:" in line and "/" not in line.split("Processed prompts:", 1)[1]:
                wrapped = line.rstrip()
            continue
        metrics, total = _bar(match)
        if last is not None and (last[3] or total != last[2]
                                 or metrics["completed_requests"] < last[1]["completed_requests"]
                                 or (last[1]["completed_requests"] == total
                                     and abs(metrics["duration_seconds"] - last[1]["duration_seconds"])
                                     > max(RERUN_CLOCK_SECONDS, RERUN_CLOCK_SHARE * last[1]["duration_seconds"]))):
            # a new run: the bar restarted, the run before printed its summary, or a finished bar printed again with
            # another time (one prompt's runs one after another, each bar 1/1; the same batch run twice)
            yield _record(*last[:3], arguments)
        last = (line_number, metrics, total, False)
    if last is not None:
        yield _record(*last[:3], arguments)
    if latency is not None:
        yield _latency_record(*latency, arguments)
