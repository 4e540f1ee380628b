"""Benchmark reports saved as JSON: vLLM --save-result, SGLang --output-file JSONL, AIPerf / genai-perf
profile exports, llmperf summary and individual responses, DJL's awscurl summary. Units: `_ms` keys are
ms, detailed arrays seconds; exports carry a unit per metric; llmperf is seconds; awscurl ms."""

from __future__ import annotations

import math
import re
from collections.abc import Iterator

from inferledger.diagnose.parsers import optimum_benchmark
from inferledger.diagnose.parsers.bench_common import (
    LATENCY_METRIC,
    TIME_UNITS,
    canonical_stat,
    json_number,
)
from inferledger.diagnose.parsers.json_stream import DAMAGED_ELEMENTS
from inferledger.diagnose.records import Record, Skipped

_MS_KEY = re.compile(r"^(mean|median|std|p\d+(?:\.\d+)?)_(ttft|tpot|itl|e2el|e2e_latency)_ms$")
_JSON_SCALARS = {  # vLLM --save-result / SGLang --output-file keys -> metric; durations in s
    "completed": "completed_requests",
    "failed": "failed_requests",
    "duration": "duration_seconds",
    "total_input_tokens": "total_input_tokens",
    "total_output_tokens": "total_output_tokens",
    "request_throughput": "request_throughput_per_second",
    "request_goodput": "goodput_requests_per_second",
    "input_throughput": "input_tokens_per_second",
    "output_throughput": "output_tokens_per_second",
    "total_token_throughput": "total_tokens_per_second",
    "max_output_tokens_per_s": "peak_output_tokens_per_second",
    "max_concurrent_requests": "peak_concurrent_requests",
    "max_concurrency": "max_concurrency",
    "request_rate": "request_rate_per_second",
    "concurrency": "mean_concurrency",
    "accept_length": "spec_mean_acceptance_length",
    "spec_decode_acceptance_length": "spec_mean_acceptance_length",
}
# SGLang's bench_serving --output-file of early 2024: latencies in ms with no unit in their keys (`median_ttft`,
# `median_itl`), the totals `total_input` / `total_output`, its rate `output_token_throughput`.
_SGLANG_2024_MS = re.compile(r"^(mean|median|p\d+)_(ttft|tpot|itl|e2el|e2e_latency)$")
_SGLANG_2024_SCALARS = {"total_input": "total_input_tokens", "total_output": "total_output_tokens",
                        "output_token_throughput": "output_tokens_per_second"}
_EXPORT_METRICS = {  # AIPerf profile_export_aiperf.json / genai-perf profile_export_genai_perf.json names
    "time_to_first_token": "ttft_seconds",
    "time_to_second_token": "ttst_seconds",
    "inter_token_latency": "itl_seconds",
    "request_latency": "e2e_seconds",
    "output_token_throughput_per_user": "output_tokens_per_second_per_user",
    "output_sequence_length": "output_tokens",
    "input_sequence_length": "input_tokens",
}
_EXPORT_SCALARS = {"request_throughput": "request_throughput_per_second", "request_count": "completed_requests",
                   "output_token_throughput": "output_tokens_per_second", "error_request_count": "failed_requests",
                   "benchmark_duration": "duration_seconds"}
# llmperf's `inter_token_latency_s` is a request's time over its output tokens, the first token's wait included (its
# client sums every gap, the first token's too, and the benchmark divides by the tokens): a latency per output token.
LLMPERF_METRICS = {"ttft_s": "ttft_seconds", "inter_token_latency_s": "e2e_per_output_token_seconds",
                   "end_to_end_latency_s": "e2e_seconds", "number_input_tokens": "input_tokens",
                   "number_output_tokens": "output_tokens",
                   "request_output_throughput_token_per_s": "output_tokens_per_second_per_request"}
# llmperf's per-request throughput cannot be recomputed from its other fields.
LLMPERF_LABEL = {"tool": "llmperf", "throughput_definition": "request_output_throughput_token_per_s is "
                                                              "tool-defined (not recomputable)"}


def json_records(line_number: int, value, truncated: int) -> Iterator:
    produced = False
    for item in _json_items(line_number, value, truncated):
        produced = True
        yield item
    if truncated == DAMAGED_ELEMENTS:
        yield Skipped(line_number, "JSON array element damaged inside (a broken line?): dropped, the others read",
                      "bench")
    elif truncated and not produced:
        yield Skipped(line_number, "JSON document cut before any complete benchmark value", "bench")


def _json_items(line_number: int, value, truncated: int) -> Iterator:
    if value is None:
        yield Skipped(line_number, "JSON document that could not be read (damaged or cut before any value)",
                      "bench")
        return
    base_labels = {"truncated": "true"} if truncated > 0 else {}
    if isinstance(value, list):
        if truncated > 1 and value:
            value = value[:-1]  # the element the cut went through: its missing fields would mislead
        if value and any(isinstance(item, dict) and "avg_ts" in item for item in value[:5]):
            yield from _llama_bench(line_number, value)
        elif value and any(isinstance(item, dict) and "ttft_s" in item for item in value[:5]):
            yield from _llmperf_requests(line_number, value, base_labels)
        elif value and any(isinstance(item, dict) and "Performance_Result" in item for item in value[:5]):
            yield from filter(None, (_mlperf(line_number, item) for item in value if isinstance(item, dict)))
        elif (entries := _valued_entries(value)) is not None:
            yield from _valued_metrics(line_number, entries, base_labels)
        return
    if not isinstance(value, dict):
        return
    if "avg_ts" in value:  # llama-bench -o jsonl: a test a line
        yield from _llama_bench(line_number, [value])
    elif isinstance(value.get("runs"), dict) and any(isinstance(run, dict) and any(map(_BENCH_TEST.match, run))
                                                     for run in value["runs"].values()):
        yield from _bench_tests(line_number, value["runs"])
    elif any(key.startswith("results_") for key in value):
        yield from _llmperf_summary(line_number, value, base_labels)
    elif any(isinstance(item, dict) and "unit" in item for item in value.values()):
        yield from _export_summary(line_number, value, base_labels)
    elif "totalTimeMills" in value or "timeToFirstByte" in value:
        yield from awscurl_summary(line_number, value, base_labels)
    elif isinstance(value.get("load_summary"), dict) or isinstance(value.get("successes"), dict):
        yield from _inference_perf(line_number, value, base_labels)
    elif isinstance(value.get("summary_stats"), dict) and isinstance(value["summary_stats"].get("stats"), list):
        yield from _gke_summary(line_number, value["summary_stats"]["stats"], base_labels)
    elif (report := _optimum_report(value)) is not None:
        record = optimum_benchmark.report_record(line_number, report)
        if record is not None:
            yield record
    elif "request_throughput" in value or any(_MS_KEY.match(key) for key in value):
        yield from _serving_json(line_number, value, base_labels)
    elif "dataset_name" in value and any(_SGLANG_2024_MS.match(key) for key in value):
        yield from _serving_json(line_number, value, base_labels, early_sglang=True)
    elif (entries := _valued_entries(value)) is not None:
        yield from _valued_metrics(line_number, entries, base_labels)
    else:
        yield from _app_runs(line_number, value, truncated)


def _optimum_report(value: dict) -> dict | None:
    """optimum-benchmark's report (benchmark_report.json, or the `report` of its benchmark.json): phases holding a
    latency dict; None for any other document."""
    report = value.get("report") if isinstance(value.get("report"), dict) else value
    phases = [report.get(phase) for phase in ("prefill", "decode", "per_token")]
    if sum(isinstance(phase, dict) and isinstance(phase.get("latency"), dict) for phase in phases) >= 2:
        return report
    return None


def _llama_bench(line_number: int, items: list) -> Iterator:
    """llama-bench's -o json (an array) and -o jsonl (an object a line): a test an object, its shape in `n_prompt`,
    `n_gen` and `n_depth`, its rate `avg_ts` ± `stddev_ts` (tokens per second over the repetitions), the file's size
    in bytes and its parameters; read as the markdown table's row of the same test (llamacpp.bench_row)."""
    from inferledger.diagnose.parsers.llamacpp import bench_row

    for item in items:
        rate = json_number(item.get("avg_ts")) if isinstance(item, dict) else None
        if rate is None:
            continue
        prompt, generated, depth = (int(json_number(item.get(key)) or 0) for key in ("n_prompt", "n_gen", "n_depth"))
        test = "+".join(part for part in (f"pp{prompt}" if prompt else "", f"tg{generated}" if generated else "")
                        if part) + (f" @ d{depth}" if depth else "")
        size, params = json_number(item.get("model_size")), json_number(item.get("model_n_params"))
        cells = {"model": str(item.get("model_type") or item.get("model_filename") or ""),
                 "size": f"{size / 2**30:.9f} GiB" if size else "",
                 "params": f"{params / 1e9:.9f} B" if params else "",
                 "backend": str(item.get("backends") or ""),
                 "ngl": "" if item.get("n_gpu_layers") is None else str(item["n_gpu_layers"]),
                 "threads": str(item.get("n_threads") or ""), "n_batch": str(item.get("n_batch") or ""),
                 "n_ubatch": str(item.get("n_ubatch") or ""), "test": test,
                 "t/s": f"{rate} ± {json_number(item.get('stddev_ts')) or 0.0}"}
        if test:
            yield bench_row(line_number, list(cells), list(cells.values()))


# A llama-bench test named as its table names it (`pp512`, `tg128`), a key of a result object.
_BENCH_TEST = re.compile(r"^(?:pp|tg)\d+$")


def _bench_tests(line_number: int, runs: dict) -> Iterator:
    """Result files that keep llama-bench's tests as keys, a model a run (normiebench's submitted JSON: `"runs":
    {"llama3.1-8b": {"modelLabel": …, "quant": "q4_k_m", "backend": "cuda", "pp512": 1193.53, "tg128": 44.84}}`):
    each test's rate read as that llama-bench row."""
    from inferledger.diagnose.parsers.llamacpp import bench_row

    for name, run in runs.items():
        if not isinstance(run, dict):
            continue
        model = " ".join(str(run[key]) for key in ("modelLabel", "quant") if run.get(key)) or str(name)
        for test, value in run.items():
            rate = json_number(value) if _BENCH_TEST.match(test) else None
            if rate is not None:
                yield bench_row(line_number, ["model", "backend", "test", "t/s"],
                                [model, str(run.get("backend") or ""), test, str(rate)])


def _serving_json(line_number: int, value: dict, labels: dict, early_sglang: bool = False) -> Iterator:
    # SGLang names E2E `e2e_latency` and writes its dataset knobs; vLLM writes model_id / endpoint_type.
    sglang = (early_sglang or any("e2e_latency" in key for key in value) or "total_output_tokens_retokenized" in value
              or "random_input_len" in value)
    ms_key = _SGLANG_2024_MS if early_sglang else _MS_KEY
    scalars = dict(_JSON_SCALARS, **_SGLANG_2024_SCALARS) if early_sglang else _JSON_SCALARS
    labels = dict(labels, tool="sglang-bench" if sglang else "vllm-bench")
    for key in ("backend", "model_id", "date", "dataset_name"):
        if isinstance(value.get(key), str):
            labels[key] = value[key]
    metrics = {}
    for key, item in value.items():
        match = ms_key.match(key)
        if match is not None:
            number, stat = json_number(item), canonical_stat(match.group(1))
            if number is not None and stat is not None:
                metrics[f"{LATENCY_METRIC[match.group(2).replace('_', ' ')]}_{stat}"] = number / 1000.0
            continue
        metric = scalars.get(key)
        if metric is None:
            continue
        number = json_number(item)
        if number is None:
            continue
        if not math.isfinite(number):
            if metric == "request_rate_per_second":
                labels["request_rate"] = "inf"  # all requests at t=0; JSON "inf" / SGLang Infinity
            continue
        metrics[metric] = number
    if isinstance(value.get("request_rate"), str) and value["request_rate"].lower().startswith("inf"):
        labels["request_rate"] = "inf"
    rate = json_number(value.get("spec_decode_acceptance_rate"))
    if rate is not None:
        metrics["spec_acceptance_fraction"] = rate / 100.0  # vLLM reports it in % (console "Acceptance rate (%)")
    source = "bench.sglang" if sglang else "bench.vllm"
    if metrics:
        yield Record("summary", source, line_number, metrics, labels=labels)
    # --save-detailed arrays: ttfts and latencies in seconds, one entry per request.
    ttfts = value.get("ttfts")
    if isinstance(ttfts, list):
        errors = value.get("errors") or []
        columns = {"ttft_seconds": ttfts, "e2e_seconds": value.get("latencies") or [],
                   "input_tokens": value.get("input_lens") or [], "output_tokens": value.get("output_lens") or []}
        for index in range(len(ttfts)):
            if index < len(errors) and errors[index]:
                continue  # a failed request has ttft 0 by construction
            request = {}
            for metric, column in columns.items():
                number = json_number(column[index]) if isinstance(column, list) and index < len(column) else None
                if number is not None:
                    request[metric] = number
            if request:
                yield Record("request", source, line_number, request, labels={"tool": labels["tool"]})


# kubernetes-sigs/inference-perf's lifecycle report (stage_N_lifecycle_metrics.json): the load it sent, then the
# successes' latencies in seconds, each a {mean, median/p50, p90, …} object, their token rates and lengths.
# normalized_time_per_output_token is a request's whole latency over its output tokens (TTFT and queue included), no
# step time: read as the latency per output token it is.
_INFERENCE_PERF_LATENCY = {"request_latency": "e2e_seconds", "time_per_output_token": "tpot_seconds",
                           "time_to_first_token": "ttft_seconds", "inter_token_latency": "itl_seconds",
                           "normalized_time_per_output_token": "e2e_per_output_token_seconds"}
_INFERENCE_PERF_RATES = {"input_tokens_per_sec": "input_tokens_per_second",
                         "output_tokens_per_sec": "output_tokens_per_second",
                         "total_tokens_per_sec": "total_tokens_per_second",
                         "requests_per_sec": "request_throughput_per_second"}
_INFERENCE_PERF_LENGTHS = {"prompt_len": "mean_input_tokens", "output_len": "mean_output_tokens"}


def _inference_perf(line_number: int, value: dict, labels: dict) -> Iterator:
    labels = dict(labels, tool="inference-perf")
    metrics = {}
    load = value.get("load_summary") if isinstance(value.get("load_summary"), dict) else {}
    for key, metric in (("requested_rate", "request_rate_per_second"), ("count", "requests_sent"),
                        ("send_duration", "duration_seconds")):
        number = json_number(load.get(key))
        if number is not None:
            metrics[metric] = number
    successes = value.get("successes") if isinstance(value.get("successes"), dict) else {}
    number = json_number(successes.get("count"))
    if number is not None:
        metrics["completed_requests"] = number
    failures = value.get("failures")
    number = json_number(failures.get("count")) if isinstance(failures, dict) else None
    if number:
        metrics["failed_requests"] = number
    latency = successes.get("latency") if isinstance(successes.get("latency"), dict) else {}
    for key, metric in _INFERENCE_PERF_LATENCY.items():
        _add_stats(metrics, metric, latency.get(key))
    throughput = successes.get("throughput") if isinstance(successes.get("throughput"), dict) else {}
    for key, metric in _INFERENCE_PERF_RATES.items():
        number = json_number(throughput.get(key))
        if number is not None:
            metrics[metric] = number
    _add_means(metrics, successes, _INFERENCE_PERF_LENGTHS)
    if metrics:
        yield Record("summary", "bench.inference-perf", line_number, metrics, labels=labels)


# ai-on-gke's benchmark_serving.py report (`summary_stats.stats`, one entry a request rate): its latencies in ms, its
# per_token_latency a request's time over its output tokens in seconds, its lengths in tokens.
_GKE_LATENCIES = {"request_latency": ("e2e_seconds", 1e-3), "ttft": ("ttft_seconds", 1e-3),
                  "tpot": ("tpot_seconds", 1e-3), "per_token_latency": ("e2e_per_output_token_seconds", 1.0)}
_GKE_LENGTHS = {"input_length": "mean_input_tokens", "output_length": "mean_output_tokens"}


def _gke_summary(line_number: int, stats: list, labels: dict) -> Iterator:
    labels = dict(labels, tool="ai-on-gke benchmark_serving")
    for entry in stats:
        if not isinstance(entry, dict):
            continue
        metrics = {}
        rate = json_number(entry.get("request_rate"))
        if rate is not None:
            metrics["request_rate_per_second"] = rate
        for key, (metric, scale) in _GKE_LATENCIES.items():
            _add_stats(metrics, metric, entry.get(key), scale)
        _add_means(metrics, entry, _GKE_LENGTHS)
        if any(name.startswith(("e2e", "ttft", "tpot")) for name in metrics):
            yield Record("summary", "bench.ai-on-gke", line_number, metrics, labels=labels)


def _add_stats(metrics: dict, metric: str, stats, scale: float = 1.0) -> None:
    """metrics[f"{metric}_{stat}"] for each statistic a report's dict of them names (`{"mean": …, "p99": …}`)."""
    for stat_name, stat_value in stats.items() if isinstance(stats, dict) else ():
        stat, number = canonical_stat(stat_name), json_number(stat_value)
        if stat is not None and number is not None:
            metrics[f"{metric}_{stat}"] = number * scale


def _add_means(metrics: dict, source: dict, names: dict) -> None:
    """metrics[metric] = the mean of each `source[key]` dict of statistics (a length's, in tokens)."""
    for key, metric in names.items():
        number = json_number(source[key].get("mean")) if isinstance(source.get(key), dict) else None
        if number is not None:
            metrics[metric] = number


# awscurl (DJL Serving's load tester, `-c clients -N requests -P -t`): times in ms, tps = requests/s; its token
# counts are those of the whole response body, as the tokenizer it is given splits it.
_AWSCURL = {"totalTimeMills": ("duration_seconds", 1e-3), "failedRequests": ("failed_requests", 1.0),
            "concurrentClients": ("max_concurrency", 1.0), "tps": ("request_throughput_per_second", 1.0),
            "tokenThroughput": ("output_tokens_per_second", 1.0), "totalTokens": ("total_output_tokens", 1.0),
            "tokenPerRequest": ("mean_output_tokens", 1.0), "averageLatency": ("e2e_seconds_mean", 1e-3),
            "p50Latency": ("e2e_seconds_median", 1e-3), "p90Latency": ("e2e_seconds_p90", 1e-3),
            "p99Latency": ("e2e_seconds_p99", 1e-3), "timeToFirstByte": ("ttft_seconds_mean", 1e-3)}


def awscurl_summary(line_number: int, value: dict, labels: dict) -> Iterator:
    labels = dict(labels, tool="awscurl", token_count_definition="tokens of the whole response body, as the "
                  "given tokenizer splits it (details and prompt echo included when the server returns them)")
    if isinstance(value.get("tokenizer"), str):
        labels["model"] = value["tokenizer"]
    metrics = {}
    for key, (metric, factor) in _AWSCURL.items():
        number = json_number(value.get(key))
        if number is not None:
            metrics[metric] = number * factor
    total = json_number(value.get("totalRequests"))
    if total is not None:
        metrics["completed_requests"] = total - metrics.get("failed_requests", 0.0)
    if metrics:
        yield Record("summary", "bench.awscurl", line_number, metrics, labels=labels)


def _export_summary(line_number: int, value: dict, labels: dict) -> Iterator:
    tool = "genai-perf" if "input_config" in value else "aiperf"
    labels = dict(labels, tool=tool)
    metrics = {}
    for key, item in value.items():
        if not isinstance(item, dict):
            continue
        unit = str(item.get("unit", "")).strip().lower()
        factor = TIME_UNITS.get(unit, 1.0)
        if key in _EXPORT_SCALARS:
            number = json_number(item.get("avg"))
            if number is not None:
                metrics[_EXPORT_SCALARS[key]] = number * factor
            continue
        metric = _EXPORT_METRICS.get(key)
        if metric is None:
            continue
        _add_stats(metrics, metric, item, factor)
    # The command it ran: one `--concurrency N` is the run's cap (a sweep's list names no single run's).
    concurrency = _CLI_CONCURRENCY.search(value.get("cli_command") or "") \
        if isinstance(value.get("cli_command"), str) else None
    if metrics and concurrency is not None:
        metrics["max_concurrency"] = float(concurrency.group(1))
    if metrics:
        yield Record("summary", f"bench.{tool}", line_number, metrics, labels=labels)


_CLI_CONCURRENCY = re.compile(r"--concurrency[ =]'?(\d+)'?(?=\s|$)")


# MLPerf Inference's summary records (the results site's JSON): a scenario's audited result in its units.
_MLPERF_UNITS = {"tokens/s": "output_tokens_per_second", "samples/s": "request_throughput_per_second",
                 "queries/s": "request_throughput_per_second"}


def _mlperf(line_number: int, item: dict) -> Record | None:
    """One MLPerf result: its throughput, its scenario and whether it passed (compliant, no errors, not inferred).
    A Server or Interactive result passes only with its latency bounds met at p99 (TTFT and TPOT for LLMs): the
    rules' own judgement of its latencies, which the record carries as `mlperf_valid`."""
    result = json_number(item.get("Performance_Result"))
    metric = _MLPERF_UNITS.get(str(item.get("Performance_Units", "")).strip().lower())
    if result is None or metric is None:
        return None
    valid = item.get("compliance") == 1 and not item.get("errors") and not item.get("inferred")
    labels = {"tool": f"MLPerf {item.get('Scenario', '')}".strip(), "mlperf_scenario": str(item.get("Scenario", "")),
              "mlperf_valid": bool(valid)}
    if item.get("Model"):
        labels["section_model"] = str(item["Model"])
    return Record("summary", "bench.mlperf", line_number, {metric: result}, labels=labels)


def _llmperf_summary(line_number: int, value: dict, labels: dict) -> Iterator:
    labels = dict(labels, **LLMPERF_LABEL)
    if isinstance(value.get("model"), str):
        labels["model"] = value["model"]
    metrics = {}
    for key, item in value.items():
        number = json_number(item)
        if number is None or not key.startswith("results_"):
            continue
        rest = key[len("results_"):]
        for prefix, metric in LLMPERF_METRICS.items():
            if rest.startswith(prefix + "_"):
                stat = canonical_stat(rest[len(prefix) + 1:])
                if stat is not None:
                    metrics[f"{metric}_{stat}"] = number  # llmperf: seconds and token counts already
                break
    scalars = {"results_mean_output_throughput_token_per_s": ("output_tokens_per_second", 1.0),
               "results_num_completed_requests": ("completed_requests", 1.0),
               "results_number_errors": ("failed_requests", 1.0),
               "results_num_completed_requests_per_min": ("request_throughput_per_second", 1 / 60.0),
               "num_concurrent_requests": ("max_concurrency", 1.0),
               "mean_input_tokens": ("mean_input_tokens", 1.0), "mean_output_tokens": ("mean_output_tokens", 1.0)}
    for key, (metric, factor) in scalars.items():
        number = json_number(value.get(key))
        if number is not None:
            metrics[metric] = number * factor
    if metrics:
        yield Record("summary", "bench.llmperf", line_number, metrics, labels=labels)


def _llmperf_requests(line_number: int, items: list, labels: dict) -> Iterator:
    labels = dict(labels, **LLMPERF_LABEL)
    for item in items:
        if not isinstance(item, dict):
            continue
        if item.get("error_code") not in (None, "", 0):
            yield Record("event", "bench.llmperf", line_number, {"errors": 1.0},
                         labels=dict(labels, error=str(item.get("error_msg", ""))[:200]))
            continue
        metrics = {}
        for key, metric in LLMPERF_METRICS.items():
            number = json_number(item.get(key))
            if number is not None:
                metrics[metric] = number  # seconds and token counts as llmperf writes them
        if metrics:
            yield Record("request", "bench.llmperf", line_number, metrics, labels=labels)


# A benchmark app's report: a `runs` list (at the top or under `results`) of one generation each, its fields named
# by phase and unit (the CoreAI community bench: `prefill_tok_s`, `decode_tok_s`, `ttft_s`, `prompt_tokens`,
# `gen_tokens`, `kind` cold or warm; `prefill_s` / `decode_s` where a release prints the phases' times instead of TTFT).
_RUN_FIELDS = {"ttft_s": "ttft_seconds", "prefill_s": "prefill_seconds", "decode_s": "decode_seconds",
               "prefill_tok_s": "prompt_tokens_per_second",
               "decode_tok_s": "generation_tokens_per_second", "prompt_tokens": "input_tokens",
               "gen_tokens": "output_tokens", "output_tokens": "output_tokens"}


def _valued(item) -> bool:
    """A metric stated as an object of its figure and unit (`{"value": 4.18, "unit": "tok/s", …}`)."""
    return isinstance(item, dict) and json_number(item.get("value")) is not None and isinstance(item.get("unit"), str)


def _mostly_valued(container) -> bool:
    """A list or object of which half the members or more are valued metrics (_valued)."""
    items = list(container.values()) if isinstance(container, dict) else container if isinstance(container, list) \
        else []
    return bool(items) and 2 * sum(map(_valued, items)) >= len(items)


def _valued_entries(value) -> list | None:
    """[(label, figure, unit)] of a file of metrics each an object of its figure and unit, or None: a list of them
    named (github-action-benchmark's `[{"name": "decode", "unit": "tok/s", "value": 41.2}]`) or an object of them by
    key, at the top or under `metrics` / `results` / `benchmarks` (`{"metrics": {"llm_tok_per_sec": {"value": 4.18,
    "unit": "tok/s", "description": "… decode throughput …"}}}`). A description names the metric in words, so it is
    the label where there is one."""
    if isinstance(value, dict):
        value = next((inner for inner in (value, *(value.get(key) for key in ("metrics", "results", "benchmarks")))
                      if _mostly_valued(inner)), None)
    if not _mostly_valued(value):
        return None
    named = value.items() if isinstance(value, dict) else ((item.get("name"), item) for item in value
                                                           if isinstance(item, dict))
    return [(str(item.get("description") or key), json_number(item["value"]), item["unit"])
            for key, item in named if _valued(item) and (key or item.get("description"))]


# A latency that is a request's: a file of valued metrics holds its parts' too (a kernel's step, an embedding call).
_REQUEST_WORDS = re.compile(r"(?i)request|e2e|end[ _-]?to[ _-]?end|response|completion")


def _valued_metrics(line_number: int, entries: list, labels: dict) -> Iterator:
    """A run of valued metrics, each read by its label's words (generic_summary.labelled_metric); a metric the run
    already holds starts the next run (a file of several models' or settings' figures, one after another)."""
    from inferledger.diagnose.parsers.generic_summary import labelled_metric

    labels = dict(labels, tool="valued metrics")
    metrics: dict = {}
    for label, figure, unit in entries:
        found = labelled_metric(label, figure, unit)
        if found is None or (found[0].startswith("e2e_seconds") and not _REQUEST_WORDS.search(label)):
            continue  # (a latency of a part, `GatedDeltaNet fused step latency`, is no request's)
        name, number = found
        if name in metrics:
            yield Record("summary", "bench.valued", line_number, metrics, labels=labels)
            metrics = {}
        metrics[name] = number
    if metrics:
        yield Record("summary", "bench.valued", line_number, metrics, labels=labels)


def _app_runs(line_number: int, value: dict, truncated: int) -> Iterator:
    """A request a run of the report's `runs` list (_RUN_FIELDS); a run the cut went through (fewer fields than the
    first) is left out, as its missing fields would mislead."""
    results = value.get("results")
    runs = value.get("runs", results.get("runs") if isinstance(results, dict) else None)
    if not isinstance(runs, list):
        return
    runs = [run for run in runs if isinstance(run, dict) and sum(key in _RUN_FIELDS for key in run) >= 2]
    if truncated > 0 and len(runs) > 1 and len(runs[-1]) < len(runs[0]):
        runs = runs[:-1]
    for run in runs:
        metrics = {metric: number for key, metric in _RUN_FIELDS.items()
                   if (number := json_number(run.get(key))) is not None}
        labels = {"tool": "app-bench"}
        if isinstance(run.get("kind"), str):
            labels["run"] = run["kind"]
        yield Record("request", "bench.app-runs", line_number, metrics, labels=labels)


def wanted_json(text: str) -> bool:
    # (`"tg`: a result file keyed by llama-bench's tests, `"tg128": 44.84`)
    return ('"avg_ts"' in text or '"tg' in text or "_ms" in text or "request_throughput" in text or "ttft_s" in text
            or "results_" in text or '"load_summary"' in text or '"summary_stats"' in text
            or '"unit"' in text or "totalTimeMills" in text or '"median_ttft"' in text or '"decode_tok_s"' in text)

