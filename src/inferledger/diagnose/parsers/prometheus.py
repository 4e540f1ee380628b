"""Prometheus text exposition (`/metrics`) from vLLM, SGLang, TGI, TensorRT-LLM's PyTorch backend and llama.cpp's
server. llama.cpp counts the seconds its slots spent reading prompts and generating beside the tokens, so one scrape
gives each phase's rate since start (tokens ÷ their seconds; a slot's own speed, the seconds being summed over slots).

A scrape is a snapshot: gauges give one interval-like record (running, waiting, KV usage), counters are
cumulative totals (a rate needs two scrapes: see `rates_between`), histograms give means (from _sum/_count) and
quantiles (from buckets, only when the +Inf bucket is present, i.e. the histogram is complete). Values are kept per
series while reading (memory bounded by the number of series, not the file length), and the records come out
at the end of the file.
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterator

from inferledger.diagnose.records import Record, Skipped

NAME = "prometheus"

_SAMPLE = re.compile(r"([a-zA-Z_:][\w:]*)(?:\{(.*)\})?\s+(\S+)(?:\s+-?\d+)?\s*$")
_LABEL = re.compile(r'(\w+)="((?:[^"\\]|\\.)*)"')
_PREFIXES = ("vllm:", "sglang:", "pytrtllm:", "trtllm:", "tgi_", "llamacpp:")

# Gauges -> interval metrics. vLLM `*_perc` are ratios 0..1 despite the name.
_GAUGES = {
    "num_requests_running": "running_requests",
    "num_running_reqs": "running_requests",
    "batch_current_size": "running_requests",  # TGI
    "num_requests_waiting": "waiting_requests",
    "num_queue_reqs": "waiting_requests",
    "queue_size": "waiting_requests",  # TGI
    "num_requests_swapped": "swapped_requests",
    "gpu_cache_usage_perc": "kv_cache_usage_fraction",
    "kv_cache_usage_perc": "kv_cache_usage_fraction",
    "token_usage": "kv_cache_usage_fraction",
    "cpu_cache_usage_perc": "cpu_kv_cache_usage_fraction",
    "num_used_tokens": "kv_cache_used_tokens",
    "gen_throughput": "generation_tokens_per_second",
    "avg_generation_throughput_toks_per_s": "generation_tokens_per_second",
    "avg_prompt_throughput_toks_per_s": "prompt_tokens_per_second",
    "cache_hit_rate": "prefix_cache_hit_fraction",
    "spec_accept_length": "spec_mean_acceptance_length",
    "spec_accept_rate": "spec_acceptance_fraction",
    "requests_processing": "running_requests",  # llama.cpp
    "requests_deferred": "waiting_requests",  # llama.cpp
    "kv_cache_usage_ratio": "kv_cache_usage_fraction",  # llama.cpp until 2025
    # Counters (cumulative since start; `_total` suffix stripped before lookup).
    "prompt_tokens": "prompt_tokens_total",
    "tokens_predicted": "generation_tokens_total",  # llama.cpp
    "prompt_seconds": "prompt_seconds_total",  # llama.cpp: slot time spent reading prompts
    "tokens_predicted_seconds": "generation_seconds_total",  # llama.cpp: slot time spent generating
    "generation_tokens": "generation_tokens_total",
    "num_preemptions": "preemptions_total",
    "request_success": "requests_total",
    "num_requests": "requests_total",
    "request_completed": "requests_total",
    # vLLM V1's prefix cache, in tokens since start: looked up, and found cached (their ratio is the hit rate)
    "prefix_cache_queries": "prefix_cache_query_tokens_total",
    "prefix_cache_hits": "prefix_cache_hit_tokens_total",
}
_CAPACITY = {
    "max_total_num_tokens": "kv_cache_tokens",
    "max_prefill_tokens": "max_prefill_tokens",
    "max_running_requests": "max_running_requests",
    "context_len": "max_model_len_tokens",
}
# Histograms (and TGI summaries) -> request metrics. vLLM `time_per_output_token_seconds` is observed per
# inter-token gap, i.e. ITL, not per-request TPOT.
_HISTOGRAMS = {
    "time_to_first_token_seconds": "ttft_seconds",
    "time_per_output_token_seconds": "itl_seconds",
    "inter_token_latency_seconds": "itl_seconds",
    "request_time_per_output_token_seconds": "tpot_seconds",
    "e2e_request_latency_seconds": "e2e_seconds",
    "request_queue_time_seconds": "queue_seconds",
    "request_prefill_time_seconds": "prefill_seconds",
    "request_decode_time_seconds": "decode_seconds",
    "request_inference_time_seconds": "inference_seconds",
    "request_prompt_tokens": "input_tokens",
    "request_generation_tokens": "output_tokens",
    "request_duration": "e2e_seconds",  # TGI
    "request_queue_duration": "queue_seconds",
    "request_inference_duration": "inference_seconds",
    "request_mean_time_per_token_duration": "tpot_seconds",  # TGI: includes prefill
    "request_input_length": "input_tokens",
    "request_generated_tokens": "output_tokens",
}


def _is_sample(line: str) -> bool:
    if not line or line[0] == "#":
        return False
    match = _SAMPLE.match(line)
    return match is not None and _value(match.group(3)) is not None


def sniff(head: str) -> float:
    lines = [line for line in head.split("\n") if line.strip()]
    if not lines:
        return 0.0
    samples = 0
    known = 0
    for line in lines[:400]:
        if line.startswith("# TYPE ") or line.startswith("# HELP "):
            known += 1
            continue
        if _is_sample(line):
            samples += 1
            if line.startswith(_PREFIXES) or any(name in line for name in _HISTOGRAMS):
                known += 1
    considered = min(len(lines), 400)
    if samples == 0:
        return 0.0
    share = (samples + known) / (2 * considered)
    # Without a HELP/TYPE line or a known engine prefix, `name value` lines are too common to claim the file.
    return min(0.95, 0.3 + share) if known else min(0.25, share)


def _base_name(name: str) -> str:
    for prefix in _PREFIXES:
        if name.startswith(prefix):
            return name[len(prefix):]
    return name


def _value(text: str) -> float | None:
    try:
        return float(text)  # accepts NaN, +Inf, -Inf as Prometheus writes them
    except ValueError:
        return None


def _quantile(buckets: list[tuple[float, float]], q: float) -> float | None:
    """histogram_quantile: linear interpolation inside the bucket that holds rank q × count."""
    buckets = sorted(buckets)
    if not buckets or not math.isinf(buckets[-1][0]):
        return None
    count = buckets[-1][1]
    if count <= 0:
        return None
    rank = q * count
    lower_bound, lower_count = 0.0, 0.0
    for bound, cumulative in buckets:
        if cumulative >= rank:
            if math.isinf(bound):
                return lower_bound  # above the highest finite bucket: its bound is all that is known
            if cumulative == lower_count:
                return bound
            return lower_bound + (bound - lower_bound) * (rank - lower_count) / (cumulative - lower_count)
        lower_bound, lower_count = bound, cumulative
    return None


def _group_key(labels: dict) -> str:
    # Data-parallel engines are separate servers whose gauges add up; TP/PP ranks repeat one engine's view.
    return labels.get("engine", "") + "/" + labels.get("dp_rank", "")


def parse(lines) -> Iterator[Record | Skipped]:
    gauges: dict[str, dict[str, float]] = {}  # metric -> group -> value (max over ranks)
    capacity: dict[str, float] = {}
    sums: dict[str, float] = {}
    counts: dict[str, float] = {}
    buckets: dict[str, dict[float, float]] = {}
    quantiles: dict[str, dict[str, float]] = {}
    info_labels: dict[str, str] = {}
    model = None
    engine = None
    first_line = None
    for line_number, line in lines:
        if not line or line[0] == "#":
            continue
        if "{" not in line and " " not in line.strip():
            continue
        match = _SAMPLE.match(line)
        if match is None:
            first = line.split(" ", 1)[0]
            # (not the shell's prompt before the scrape's command: `istio-proxy@gateway-744b:/$ curl …/stats/…`)
            if (":" in first and "@" not in first and not first.endswith(("$", "#"))) or line.startswith(_PREFIXES):
                yield Skipped(line_number, "Prometheus sample line without a readable value", "prometheus")
            continue
        name, label_text, value_text = match.groups()
        value = _value(value_text)
        if value is None:
            yield Skipped(line_number, f"Prometheus sample {name} with value {value_text!r}", "prometheus")
            continue
        if first_line is None:
            first_line = line_number
        labels = dict(_LABEL.findall(label_text)) if label_text else {}
        if engine is None:
            for prefix in _PREFIXES:
                if name.startswith(prefix):
                    engine = prefix.rstrip(":_")
        model = model or labels.get("model_name") or labels.get("name")
        base = _base_name(name)
        if base.endswith("_bucket") and "le" in labels:
            metric = _HISTOGRAMS.get(base[:-7])
            if metric:
                bound = _value(labels["le"])
                if bound is not None:
                    series = buckets.setdefault(metric, {})
                    series[bound] = series.get(bound, 0.0) + value
            continue
        if base.endswith("_sum") and base[:-4] in _HISTOGRAMS:
            metric = _HISTOGRAMS[base[:-4]]
            sums[metric] = sums.get(metric, 0.0) + value
            continue
        if base.endswith("_count") and base[:-6] in _HISTOGRAMS:
            metric = _HISTOGRAMS[base[:-6]]
            counts[metric] = counts.get(metric, 0.0) + value
            continue
        if base in _HISTOGRAMS and "quantile" in labels:  # a summary (TGI's exporter)
            metric = _HISTOGRAMS[base]
            quantile = _value(labels["quantile"])
            if quantile is not None and math.isfinite(value):
                quantiles.setdefault(metric, {})[f"p{quantile * 100:g}".replace(".", "_")] = value
            continue
        if base.endswith("_info") or base.endswith("cache_config"):
            for key in ("num_gpu_blocks", "block_size", "num_cpu_blocks"):
                if key in labels:
                    info_labels[key] = labels[key]
            continue
        if base.endswith("_total"):
            base = base[:-6]
        if base in _CAPACITY:
            capacity.setdefault(_CAPACITY[base], value)
            continue
        metric = _GAUGES.get(base)
        if metric:
            group = gauges.setdefault(metric, {})
            key = _group_key(labels)
            group[key] = max(group.get(key, value), value)
    if first_line is None:
        return
    base_labels = {"engine": engine or "unknown", "snapshot": True}
    if model:
        base_labels["model"] = model
    interval = {metric: sum(groups.values()) for metric, groups in gauges.items()}
    if interval.get("prefix_cache_query_tokens_total") and "prefix_cache_hit_fraction" not in interval:
        interval["prefix_cache_hit_fraction"] = interval.get("prefix_cache_hit_tokens_total", 0.0) \
            / interval["prefix_cache_query_tokens_total"]
    if interval:
        yield Record("interval", "prometheus.gauges", first_line, interval, None, dict(base_labels))
    phases = {}
    for tokens, seconds, rate in (("prompt_tokens_total", "prompt_seconds_total", "input_tokens_per_second"),
                                  ("generation_tokens_total", "generation_seconds_total",
                                   "output_tokens_per_second_per_user_mean")):
        if interval.get(tokens) and interval.get(seconds):
            phases[rate] = interval[tokens] / interval[seconds]
    if phases:  # llama.cpp: each phase's tokens over its own seconds, since the server started
        yield Record("summary", "prometheus.llamacpp-totals", first_line, phases, None,
                     dict(base_labels, tool="llama.cpp /metrics totals since start"))
    for key, metric in (("num_gpu_blocks", "gpu_blocks"), ("block_size", "block_size_tokens"),
                        ("num_cpu_blocks", "cpu_blocks")):
        value = _value(info_labels.get(key, ""))
        if value is not None and value == value:
            capacity[metric] = value
    if capacity:
        yield Record("capacity", "prometheus.capacity", first_line, capacity, None, dict(base_labels))
    summary = {}
    cut: dict = {}  # metric -> (observations at or below the last bound shown, that bound) of a histogram cut short
    for metric in sorted(set(sums) | set(counts) | set(buckets) | set(quantiles)):  # (an order whatever the hash seed)
        count = counts.get(metric)
        if count and metric in sums:
            summary[f"{metric}_mean"] = sums[metric] / count
        series = buckets.get(metric)
        if series:
            pairs = list(series.items())
            for q, stat in ((0.5, "median"), (0.9, "p90"), (0.99, "p99")):
                estimate = _quantile(pairs, q)
                if estimate is not None:
                    summary[f"{metric}_{stat}"] = estimate
            if count is None and any(math.isinf(bound) for bound in series):
                count = series[math.inf]
            elif count is None and metric not in sums:
                # Cut before its +Inf bucket (a pasted fragment): the last bucket shown counts the observations at
                # or below its bound, a lower bound of the whole; no quantile can be read without the total.
                cut[metric] = (max(series.values()), max(series))
                lowest = min(series)
                if series[lowest] == cut[metric][0]:
                    summary[f"{metric}_max"] = lowest  # every observation shown is in the lowest bucket: at most its bound
        for stat, value in quantiles.get(metric, {}).items():
            summary[f"{metric}_{'median' if stat == 'p50' else stat}"] = value
        if metric == "e2e_seconds" and count is not None:
            summary["completed_requests"] = count
        if count is not None:
            summary[f"{metric}_count"] = count
    for metric, (seen, _bound) in cut.items():
        summary[f"{metric}_count"] = seen
    if summary:
        labels = dict(base_labels, quantiles_from_buckets=bool(buckets))
        if cut:
            labels["cut_histograms"] = ", ".join(f"{metric}: {seen:g} at or below {bound:g}"
                                                 for metric, (seen, bound) in sorted(cut.items()))
        yield Record("summary", "prometheus.histograms", first_line, summary, None, labels)


def rates_between(first: Record, second: Record, seconds: float) -> dict:
    """Throughputs from two gauge snapshots `seconds` apart (counter differences ÷ time), for a live scrape."""
    rates = {}
    if seconds <= 0:
        return rates
    for total, rate in (("prompt_tokens_total", "prompt_tokens_per_second"),
                        ("generation_tokens_total", "generation_tokens_per_second"),
                        ("requests_total", "request_throughput_per_second")):
        if total in first.metrics and total in second.metrics:
            rates[rate] = max(second.metrics[total] - first.metrics[total], 0.0) / seconds
    return rates
