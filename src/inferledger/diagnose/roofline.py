"""The log against the request ledger (item 3): what the hardware could do for this model and workload, what the
log shows, and what to change with the expected gain.

* decode: achieved bandwidth = ledger bytes per decode step ÷ observed seconds per step, as a fraction of the
  card's bandwidth (decode step ≥ (weights + KV read) ÷ bandwidth);
* prefill: achieved FLOP/s = observed prompt tokens/s × ledger FLOPs per prompt token, as a fraction of the dense
  peak; above the peak is impossible and is flagged as a measurement artefact, not diagnosed;
* KV capacity: the tokens the log says the cache holds vs what the ledger's memory account computes.

The workload shape (ISL, OSL, batch) comes from the log when it says (request token counts, benchmark means,
running requests); otherwise ISL 1024 / OSL 256 is assumed and said so.
"""

from __future__ import annotations

import math
from typing import NamedTuple

from inferledger.defaults import ISL_TOKENS as DEFAULT_ISL
from inferledger.defaults import KV_BLOCK_TOKENS
from inferledger.defaults import MAX_BATCHED_TOKENS as PREFILL_CHUNK_TOKENS  # a step's chunked-prefill budget
from inferledger.defaults import OSL_TOKENS as DEFAULT_OSL
from inferledger.diagnose.accumulate import NAMED_BANDWIDTH_SOURCE, Accumulator
from inferledger.diagnose.findings import Finding
from inferledger.diagnose.named_model import step_fixed_seconds
from inferledger.diagnose.rules import fire, limit, threshold

# Thresholds and their reasons: rules.py (the hardware family).
IMPOSSIBLE_FRACTION = threshold("hardware-decode-faster-than-floor")
PEAK_FRACTION = threshold("hardware-prefill-above-peak")
LOW_FRACTION = threshold("hardware-decode-far-below-floor")
NEAR_FRACTION = threshold("hardware-decode-near-floor")
REALISTIC_FACTOR = threshold("hardware-decode-below-realistic")
LOW_BANDWIDTH = threshold("hardware-low-effective-bandwidth")
ONE_STREAM_SHARE = threshold("hardware-throughput-one-stream")
OFFLINE_MAX_SEQS = limit("offline-max-seqs")


NAMED_LOW_FRACTION = threshold("hardware-named-decode-far-below-floor")
BENCH_LOW_FRACTION = limit("bench-decode-far-below")
BENCH_MIXTURE_LOW_FRACTION = limit("bench-mixture-decode-far-below")
NAMED_NEAR_FRACTION = threshold("hardware-named-decode-near-floor")
NAMED_MAX_BATCH = limit("named-max-batch")
FIRST_TOKEN_STEPS = limit("first-token-steps")
SPLIT_CARD_MIN_BYTES = limit("split-card-memory")
WEIGHTS_MEMORY_SHARE = limit("weights-memory-share")


def _row_fixed_cost(acc: Accumulator, line: int) -> tuple[float, int | None, float]:
    """(seconds, layers, share of the step at the row's rate) of the layers' fixed cost of the llama-bench row at
    `line`: at rate r it adds r × its seconds to the share of the card's speed the row reached; (0, None, 0) for a row
    whose model size is not known."""
    rate, total, mixture = acc.bench_steps.get(line, (0.0, 0.0, False))
    fixed, layers = step_fixed_seconds(total, mixture)
    return fixed, layers, rate * fixed


def _slowest_row_far_below(acc: Accumulator, accelerator, named: bool):
    """A finding when a table's slowest GPU row (of several, no model run with two settings) reaches less of the
    card's speed than the far-below cutoff, the layers' fixed cost counted: one model slower than the card allows is
    a slow decode even where another row of the table runs fine. None otherwise."""
    if acc.effective_bandwidth.count < 2 or acc.bench_slowest is None \
            or any(len(settings) > 1 for settings in acc.bench_settings.values()):
        return None  # a table of one run, or of settings compared (an offload against none): its rows differ by design
    reached, line, rate = acc.bench_slowest
    bandwidth = accelerator.memory_bandwidth_bytes_per_second
    fixed, _layers, fixed_share = _row_fixed_cost(acc, line)
    fraction = reached / bandwidth + fixed_share
    if fraction >= (NAMED_LOW_FRACTION if named else BENCH_LOW_FRACTION):
        return None
    rule = "hardware-named-decode-far-below-floor" if named else "hardware-decode-far-below-floor"
    return fire(rule, f"{acc.bandwidth_source} = {reached / 1e9:.1f} GB/s on the slowest row ({rate:.1f} tok/s), "
                f"{fraction:.0%} of the speed the {accelerator.name}'s {bandwidth / 1e9:,.0f} GB/s allows"
                + (" with the layers' fixed cost" if fixed else "") + ": that run's decode is held back by the "
                "backend or an offload, not the memory", {"bandwidth_fraction": fraction,
                                                          "effective_bandwidth_bytes_per_second": reached},
                lines=[line])


def log_hardware_findings(acc: Accumulator, gpu: str | None = None) -> list:
    """Hardware evidence the log carries by itself (llama-bench's size and params columns), no --model needed: its
    decode against the card's bandwidth, its prompt processing against the card's compute."""
    return _bench_decode_findings(acc, gpu) + _bench_prefill_findings(acc, gpu)


def _bench_prefill_findings(acc: Accumulator, gpu: str | None) -> list:
    """llama-bench's pp<N> rows on a named GPU against the ledger's realistic prefill of the micro-batch the runner
    reads the prompt in (N tokens, at most n_ubatch: a pass of the weights each): the row that reached most of it, so
    a table of settings compared is judged by its best. A table of several models (params columns OTHER_MODEL_RATIO
    apart) is judged by the model whose best row reached least: one model's slow prompt path is not made fast by
    another model's row."""
    accelerator = catalogued_card(gpu) if acc.bench_prompts else None
    if accelerator is None:
        return []
    best_by_model, rates = {}, {}
    for rate, tokens, ubatch, parameters, weights_bytes, line, mixture_total in acc.bench_prompts:
        chunk = min(tokens, ubatch)
        key = (chunk, parameters, weights_bytes, mixture_total)  # a table's rows repeat a model and test
        if key not in rates:
            rates[key] = _bench_prompt_rate(chunk, parameters, weights_bytes, accelerator, mixture_total)
        realistic = rates[key]
        size = mixture_total or parameters
        model = next((known for known in best_by_model if _one_model(known, size)), size)
        best = best_by_model.get(model)
        if realistic and (best is None or rate / realistic > best[0]):
            best_by_model[model] = (rate / realistic, rate, realistic, tokens, chunk, line)
    if not best_by_model:
        return []
    share, rate, realistic, tokens, chunk, line = min(best_by_model.values())
    read = f"{chunk:,}-token micro-batches" if chunk < tokens else f"{tokens:,} token(s)"
    best = "the best row" + (" of its model" if len(best_by_model) > 1 else "")
    text = (f"llama-bench: prompt processing {rate:,.0f} tok/s (pp{tokens}, {best}) is {share:.0%} of the "
            f"{realistic:,.0f} tok/s the ledger's realistic prefill of {read} allows on {accelerator.name}")
    return _prefill_rate_findings(rate, realistic, text, "hardware-bench-prefill-below-realistic", "the backend, "
                                  "the build or an offload", lines=[line])


def _prefill_rate_findings(rate: float, realistic: float, text: str, below_rule: str, holding: str,
                           **where) -> list:
    """A prompt rate against the ledger's realistic one: below `below_rule`'s share slow (what holds it back:
    `holding`), within the estimate's slack as fast as the card computes, between the two nothing."""
    numbers = {"prompt_tokens_per_second": rate, "ledger_realistic_prompt_tokens_per_second": realistic}
    if rate < threshold(below_rule) * realistic:
        return [fire(below_rule, f"{text}: the prompt is held back by {holding}, not the card's compute", numbers,
                     **where)]
    if rate >= threshold("hardware-prefill-near-realistic") * realistic:
        return [fire("hardware-prefill-near-realistic", text + ": as fast as the card computes", numbers, **where)]
    return []


def catalogued_card(gpu: str | None):
    """The catalogued card of `gpu`, or None (none given, or none the catalogue knows by that name)."""
    from inferledger.errors import InferledgerError
    from inferledger.hardware import find_accelerator

    if not gpu:
        return None
    try:
        return find_accelerator(gpu)
    except InferledgerError:
        return None


def _bench_prompt_rate(tokens: int, parameters: float, weights_bytes: float, accelerator,
                       mixture_total: float | None = None) -> float | None:
    """Tokens a second of the ledger's realistic prefill of `tokens` for a model computing with `parameters` a token
    stored in `weights_bytes`: the catalogued model of its kind nearest in size, its time scaled by the parameters (a
    prompt's FLOPs are 2 × parameters a token, attention aside). A mixture of experts (`mixture_total` its total, its
    active `parameters`) is scaled from the catalogued mixture by the larger of its active and its total ratios: a
    micro-batch's tokens compute with the active parameters and touch nearly every expert, so either can bound it.
    Below 9 bits a weight the format is weight-only (dequantised to the matmul's dtype, as llama.cpp's quantised types
    are), above 20 fp32."""
    from inferledger.diagnose.named_model import catalog_nearest
    from inferledger.model import load_model

    nearest = catalog_nearest(mixture_total or parameters, mixture=mixture_total is not None)
    if nearest is None or parameters <= 0:
        return None
    name, total, _layers, active = nearest
    scale = parameters / total if mixture_total is None else max(mixture_total / total, parameters / active)
    bits = weights_bytes * 8 / parameters
    precision = "int4" if bits < 9 else "fp32" if bits > 20 else "bf16"
    seconds = _one_prefill_seconds(load_model(name), accelerator, tokens, precision, None, {})
    return tokens / (seconds * scale) if seconds else None


def _bench_decode_findings(acc: Accumulator, gpu: str | None) -> list:
    """llama-bench's size column × its tg rate is the bandwidth the decode reached (every step reads all weights
    once); with a GPU (given, or named by the log) that is a fraction of the card's bandwidth, the floor of the
    weights' size ÷ bandwidth per token."""
    reached = acc.effective_bandwidth
    if not reached.count:
        return []
    # A mixture named without its active size reads a range (named_model.MixtureRead): faster than the card only
    # if its least read is, far below it only if its most read is.
    most = max(reached.high, acc.effective_bandwidth_high.high if acc.effective_bandwidth_high.count else 0.0)
    upto = f"-{most / 1e9:.1f}" if most > 1.01 * reached.high else ""
    backend = acc.labels.get("backend_name") or acc.labels.get("backend")
    where = f" on the {backend} backend" if backend else ""
    numbers = {"effective_bandwidth_bytes_per_second_max": reached.high}
    if upto:
        numbers["effective_bandwidth_bytes_per_second_most"] = most
    judged = "give --gpu to compare with the card's bandwidth"
    if gpu and acc.bench_cpu_rows == reached.count:
        # Every row ran on the CPU (ngl 0, a CPU backend, llamafile's cpu_info alone): the card read none of it.
        judged = f"every row ran on the CPU, so {gpu}'s bandwidth does not bound it"
        gpu = None
    if gpu:
        accelerator = catalogued_card(gpu)
        if accelerator is not None:
            bandwidth = accelerator.memory_bandwidth_bytes_per_second
            fraction = reached.high / bandwidth
            numbers.update(card_bandwidth_bytes_per_second=bandwidth, bandwidth_fraction=fraction)
            share = f"{fraction:.0%}" + (f"-{most / bandwidth:.0%}" if upto else "")
            text = (f"{acc.bandwidth_source} = {reached.high / 1e9:.1f}{upto} GB/s at best{where}, {share} of the "
                    f"{accelerator.name}'s {bandwidth / 1e9:,.0f} GB/s")
            if fraction > IMPOSSIBLE_FRACTION and reached.high_line in acc.bench_unsplit_lines:
                return []  # a mixture whose active share no config gives: its file × rate is no step's read
            if fraction > IMPOSSIBLE_FRACTION:
                return [fire("hardware-decode-faster-than-floor", text + ": faster than the card can read the "
                             "weights (wrong GPU, or part of the model on another device)", numbers)]
            # The fastest step the card allows is the weights' read plus the layers' fixed cost: at rate r that
            # cost adds r × its seconds to the share of that step the row reached (a small model's floor is mostly
            # the fixed cost).
            fixed, layers, fixed_share = _row_fixed_cost(acc, reached.high_line)
            if fixed:
                fraction += fixed_share
                numbers.update(fixed_step_seconds=fixed, floor_speed_fraction=fraction)
                text += (f"; with {layers} layers' fixed cost ({fixed * 1e3:.2f} ms a step) the fastest row reaches "
                         f"{fraction:.0%} of the speed the card allows")
            # A size read from the model's name is an estimate: the stricter cutoff of the named rules.
            named = acc.bandwidth_source == NAMED_BANDWIDTH_SOURCE
            # (a mixture's row, its experts gathered a token at a time, by the mixture's own cutoff)
            mixture = acc.bench_steps.get(reached.high_line, (0.0, 0.0, False))[2]
            low = NAMED_LOW_FRACTION if named else BENCH_MIXTURE_LOW_FRACTION if mixture else BENCH_LOW_FRACTION
            if most / bandwidth + fixed_share < low:
                return [fire("hardware-named-decode-far-below-floor" if named else "hardware-decode-far-below-floor",
                             text + ": the backend, not the memory, limits decode", numbers)]
            slowest = _slowest_row_far_below(acc, accelerator, named)
            if slowest is not None:
                return [slowest]
            if fraction >= NEAR_FRACTION:
                return [fire("hardware-decode-near-floor", text + ": as fast as the memory allows", numbers)]
            judged = f"{share} of the {accelerator.name}'s bandwidth, between the cutoffs"
    if most < LOW_BANDWIDTH:
        return [fire("hardware-low-effective-bandwidth",
                     f"{acc.bandwidth_source} = {reached.high / 1e9:.2f} GB/s at best{where}: "
                     f"below {LOW_BANDWIDTH / 1e9:.0f} GB/s, slower than any current memory system; the backend, "
                     "not the hardware, limits decode", numbers)]
    models = [name for name in acc.bench_settings if name]
    if not gpu and len(models) >= 2 and reached.count >= 3 \
            and most <= threshold("summary-models-one-bandwidth") * reached.low:
        # Models of different sizes read at one pace (as summary-models-one-bandwidth for named runs): the machine's
        # memory sets it, whatever the card.
        numbers["models_at_one_bandwidth"] = len(models)
        judged = (f"{len(models)} models read at one pace (within {most / reached.low:.2f}×): the memory system's "
                  "speed, not a slow decode; " + judged)
        return [fire("hardware-decode-near-floor", f"{acc.bandwidth_source} = {reached.low / 1e9:.1f}–"
                     f"{most / 1e9:.1f} GB/s{where}: what a memory system delivers; {judged}", numbers)]
    return [fire("hardware-decode-near-floor", f"{acc.bandwidth_source} = "
                 f"{reached.low / 1e9:.1f}–{most / 1e9:.1f} GB/s{where}: what a memory system delivers; "
                 f"{judged}", numbers,
                 score=0.55, verdict="healthy")]


def _shape(acc: Accumulator) -> tuple[int, int, int | None, list[str]]:
    """ISL, OSL, batch and notes on where each came from; batch None where the log shows several requests at once
    and no batch (_littles_law)."""
    notes = []
    isl = osl = None
    batch = None
    requests = acc.requests
    if "input_tokens" in requests and requests["input_tokens"].count:
        isl = requests["input_tokens"].mean
    if "output_tokens" in requests and requests["output_tokens"].count:
        osl = requests["output_tokens"].mean
    from inferledger.diagnose.rules_summary import one_stream_by_littles_law, run_lengths

    for record, _file in acc.summaries:
        metrics = record.metrics
        completed = metrics.get("completed_requests")
        if isl is None or osl is None:
            # stated, or from the totals over the requests, or from the rates over req/s (rules_summary._Run)
            mean_input, mean_output = run_lengths(record)
            isl = mean_input if isl is None else isl
            osl = mean_output if osl is None else osl
        if batch is None:
            batch = metrics.get("max_concurrency") or metrics.get("mean_concurrency")
        if batch is None and record.labels.get("offline_batch") and completed \
                and completed <= OFFLINE_MAX_SEQS and not record.labels.get("cut"):
            batch = completed  # every prompt submitted at once, and the engine's batch holds them all
            notes.append(f"batch {completed:,.0f}: an offline run's prompts, all submitted at once (at most "
                         f"{OFFLINE_MAX_SEQS} run together by vLLM's default)")
    running = acc.interval.get("running_requests")
    if batch is None and running is not None and running.count and running.high > 0:
        busy = [value for value in (running.mean,) if value]
        batch = busy[0] if busy else running.high
        used = acc.interval.get("kv_cache_used_tokens")
        if isl is None and used is not None and used.count and running.mean:
            # SGLang #token is KV tokens in use: ÷ running requests = the mean context per request.
            isl = used.mean / running.mean
            notes.append(f"context per request {isl:,.0f} tokens from KV tokens in use ÷ running requests")
    stated = acc.capacity.get("stated_batch_size")
    if batch is None and stated is not None:
        batch = stated[0]
        notes.append(f"batch {batch:,.0f}: the excerpt's own words state it (line {stated[1]})")
    if isl is None:
        isl = DEFAULT_ISL
        notes.append(f"input length not in the log: ISL {DEFAULT_ISL} assumed")
    if osl is None:
        osl = DEFAULT_OSL
        notes.append(f"output length not in the log: OSL {DEFAULT_OSL} assumed")
    if batch is None:
        streams, held, how = _littles_law(acc)
        if streams is not None:
            batch = streams
            notes.append(f"batch ~{streams:,.0f}: {how}")
        elif held is not None:
            notes.append(f"~{held:,.0f} requests at once ({how}) at a batch the log does not state")
            return max(1, round(isl)), max(1, round(osl)), None, notes
        elif acc.summaries and not acc.request_count and not acc.interval_count:
            if all(one_stream_by_littles_law(record.metrics) for record, _file in acc.summaries):
                batch = 1
                notes.append("batch 1: output tok/s × TPOT is one stream (Little's law)")
            else:
                notes.append("a benchmark summary that states no concurrency: its per-token time may be any batch's")
                return max(1, round(isl)), max(1, round(osl)), None, notes
        else:
            batch = 1
            notes.append("batch 1 assumed (the log shows no concurrency)")
    return max(1, round(isl)), max(1, round(osl)), max(1, round(batch)), notes


def _littles_law(acc: Accumulator) -> tuple[float | None, float | None, str]:
    """rules_summary.streams_by_littles_law of the first summary that says how many requests it held at once."""
    from inferledger.diagnose.rules_summary import streams_by_littles_law

    for record, _file in acc.summaries:
        found = streams_by_littles_law(record.metrics)
        if found[2]:
            return found
    return None, None, ""


# Two llama-bench rows' params columns this far apart are two models (a table's 7B, 32B and 235B rows), not one
# model's files (one model's params column is one figure whatever the quantisation).
OTHER_MODEL_RATIO = limit("bench-other-model-params")


def _one_model(params: float, other: float) -> bool:
    """Whether two llama-bench rows' params columns are one model's (within OTHER_MODEL_RATIO)."""
    return max(params, other) < OTHER_MODEL_RATIO * min(params, other)


def own_bench_rows(acc: Accumulator, spec) -> tuple[list, list] | None:
    """(generation rates, prompt rates) of the llama-bench rows of the model judged (its params column within
    OTHER_MODEL_RATIO of the ledger's total for `spec`) where the rows are of several models: the rest are other
    models' speeds, no observation of this one. None where the rows are of one model or state no size."""
    steps = list(acc.bench_steps.values())
    prompts = [(prompt.rate, prompt.mixture_total or prompt.parameters) for prompt in acc.bench_prompts]
    sizes = sorted({params for _rate, params, _mixture in steps} | {params for _rate, params in prompts})
    if len(sizes) < 2 or _one_model(sizes[0], sizes[-1]):
        return None
    from inferledger.ledger.params import count_parameters

    total_params = count_parameters(spec).total  # counted only for a table of several models
    if total_params <= 0:
        return None
    return ([rate for rate, params, _mixture in steps if _one_model(params, total_params)],
            [rate for rate, params in prompts if _one_model(params, total_params)])


class ObservedStep(NamedTuple):
    """A decode step the log shows: its seconds (None when it shows none), where they came from, and whether they are
    a TPOT the run states (a served run's, whose steps also prefill the prompts arriving meanwhile)."""

    seconds: float | None
    source: str
    tpot: bool = False


def _observed_decode(acc: Accumulator, own: tuple | None = None) -> ObservedStep:
    """Observed seconds per decode step (one token per running stream) and where it came from; `own`
    (own_bench_rows) keeps a table of several models to the rows of the one judged."""
    if own is not None:
        rates = own[0]
        return ObservedStep(len(rates) / sum(rates), f"mean generation rate of the {len(rates)} llama-bench row(s) "
                            "of this model's size (the table's other rows are other models)") if rates \
            else ObservedStep(None, "")
    tpot = acc.requests.get("tpot_seconds")
    if tpot is not None and tpot.count and not acc.labels.get("tpot_includes_prefill"):
        return ObservedStep(tpot.mean, "mean TPOT of the requests", tpot=True)
    from inferledger.diagnose.rules_summary import prefill_interleaved

    for record, _file in acc.summaries:
        statistic = "mean" if record.metrics.get("tpot_seconds_mean") else "median"
        value = record.metrics.get(f"tpot_seconds_{statistic}")
        if value and not prefill_interleaved(record, value):
            return ObservedStep(value, f"{statistic} TPOT of {record.labels.get('tool', record.source)}", tpot=True)
    per_user = _per_user_step(acc)
    if per_user:
        return per_user
    if acc.per_stream.count and acc.per_stream.mean:
        return ObservedStep(1 / acc.per_stream.mean, "generation tok/s ÷ running requests in the stats windows")
    generation = acc.requests.get("generation_tokens_per_second")
    if generation is not None and generation.count and generation.mean:
        return ObservedStep(1 / generation.mean, "request generation rate")
    if tpot is not None and tpot.count:
        return ObservedStep(tpot.mean, "time_per_token (includes prefill)")
    return ObservedStep(None, "")


def _per_user_step(acc: Accumulator) -> ObservedStep | None:
    """A file of one run with no TPOT whose stream's output rate (trtllm-bench's `Per User Output Throughput`) and
    batch (req/s × mean latency, Little's law) are both known: the rate's inverse is its step, if every request
    in flight fits one engine batch (limit max-default-batch); past it the rate also counts the wait for a slot."""
    from inferledger.diagnose.rules_summary import MAX_DEFAULT_BATCH, prefill_interleaved

    if len(acc.summaries) != 1:
        return None
    record = acc.summaries[0][0]
    metrics = record.metrics
    rate, served, latency = (metrics.get("output_tokens_per_second_per_user_mean"),
                             metrics.get("request_throughput_per_second"), metrics.get("e2e_seconds_mean"))
    if not (rate and served and latency) or served * latency > MAX_DEFAULT_BATCH or prefill_interleaved(record, 1 / rate):
        return None
    return ObservedStep(1 / rate, f"one stream's output rate of {record.labels.get('tool', record.source)}")


def _prompt_rate(acc: Accumulator) -> float | None:
    """Prompt tokens a second the first summary stating them fed its server (stated, or its total over its time)."""
    from inferledger.diagnose.rules_summary import stated_input_rate

    return next((rate for record, _file in acc.summaries if (rate := stated_input_rate(record.metrics))), None)


def _offline_batch_step(acc: Accumulator, batch: int) -> tuple[float | None, str]:
    """Seconds a decode step of an offline batch (every prompt at once, _shape's batch): its streams ÷ its output rate.
    The rate is over the whole run, prompts included, so the step is at most this; judged only where a request's
    output is at least its prompt (_shape's ISL ≤ OSL), so the prompts' share stays small."""
    for record, _file in acc.summaries:
        rate = record.metrics.get("output_tokens_per_second")
        if record.labels.get("offline_batch") and rate and record.metrics.get("completed_requests") == batch:
            return batch / rate, f"{batch} prompts at once ÷ the offline run's {rate:,.1f} output tok/s (prompts included)"
    return None, ""


def _whole_call_decode(acc: Accumulator, prefill_seconds: float) -> tuple[float | None, str]:
    """Seconds per decode step from a log that times only whole calls (vllm bench latency, exllamav2, a runner's
    total): the call's time less the ledger's estimate of its prefill, over its output tokens. Used only where no
    step time is logged; 16 output tokens at least, so the prefill estimate's error is spread thin."""
    for record, _file in acc.summaries:
        metrics = record.metrics
        e2e, output = metrics.get("e2e_seconds_mean"), metrics.get("mean_output_tokens")
        if e2e and output and output >= 16 and "ttft_seconds_mean" not in metrics:
            return max(e2e - prefill_seconds, 0.0) / output or None, \
                f"{record.labels.get('tool', record.source)} latency less the ledger's prefill, ÷ output tokens"
    e2e, output = acc.requests.get("e2e_seconds"), acc.requests.get("output_tokens")
    if acc.tpot_ceiling.count and e2e is not None and output is not None and output.mean >= 16:
        return max(e2e.mean - prefill_seconds, 0.0) / output.mean or None, \
            "whole-call time less the ledger's prefill, ÷ output tokens"
    return None, ""


def window_prompt_share(acc: Accumulator, flops_per_token: float, peak_flops_per_second: float) -> float | None:
    """The stats windows' highest prompt rate × a prompt token's FLOPs, as a share of the card's peak (None with no
    such rate). The rules read it where lines with nothing running state the rate (rules_windows._prompt_in_chunks):
    far under any engine's prefill, it is no speed but tokens over a time that was partly idle."""
    rate = acc.interval.get("prompt_tokens_per_second")
    if rate is None or not rate.count or rate.high <= 0 or not peak_flops_per_second:
        return None
    return rate.high * flops_per_token / peak_flops_per_second


def _observed_prefill(acc: Accumulator, own: tuple | None = None) -> tuple[float | None, str]:
    """Observed prompt tokens per second while prefilling, and where it came from (`own`: as _observed_decode's)."""
    if own is not None:
        return (max(own[1]), "highest prompt rate of the llama-bench rows of this model's size") if own[1] \
            else (None, "")
    rate = acc.requests.get("prompt_tokens_per_second")
    tokens = acc.requests.get("input_tokens")
    if rate is not None and rate.count and (tokens is None or tokens.mean > 20):
        return rate.high, "request prompt-eval rate (highest)"
    prompt = acc.interval.get("prompt_tokens_per_second")
    if prompt is not None and prompt.count and prompt.high > 0:
        return prompt.high, "highest prompt throughput of the stats windows (an average over the window)"
    return None, ""


# Cards a model spans when neither the user nor the log says how many: the fewest, a power of two (tensor parallel
# splits heads evenly), whose memory holds the weights. Judged against one card it cannot fit on, every deployment of
# a big model would look slow.
_CARD_COUNTS = (2, 4, 8, 16, 32, 64)
# A layout past one node needs a link between nodes; the one multi-node GPU clusters are usually built with.
_ASSUMED_INTER_NODE = "ib-ndr"


_LAYER_SPLIT_ENGINES = ("llama.cpp", "ollama")


def _log_layout(acc: Accumulator):
    """The Parallelism the log states (vLLM's tensor_parallel_size / pipeline_parallel_size, SGLang's tp_size…), or
    None."""
    from inferledger.errors import InferledgerError
    from inferledger.parallelism import Parallelism

    degrees = {}
    for name, metric in (("tp", "tensor_parallel_size"), ("pp", "pipeline_parallel_size"),
                         ("attention_dp", "attention_data_parallel_size")):
        degree = acc.stated_degree(metric)
        if degree is not None:
            degrees[name] = degree
    if not any(value > 1 for value in degrees.values()):
        return None
    try:
        return Parallelism(**degrees)
    except InferledgerError:  # degrees that do not go together (attention dp not dividing tp): not a layout
        return None


def _layout(acc: Accumulator, spec, accelerator, precision, kv_precision, parallel, topology_options, shape):
    """(Parallelism or None, Topology or None, note or None): the layout the comparison judges the log against —
    the one given, else the log's, else the fewest cards that hold the weights when one card cannot."""
    from inferledger.errors import InferledgerError
    from inferledger.hardware.topology import topology_for
    from inferledger.ledger.request import request_account
    from inferledger.parallelism import Parallelism

    options = dict(topology_options or {})
    note = None
    layout = parallel
    if layout is None:
        layout = _log_layout(acc)
        if layout is not None:
            note = f"{layout.label()} as the log states"
    topology = topology_for(accelerator, **options)
    if layout is None:
        isl, osl, batch = shape
        alone = request_account(spec, accelerator, isl=isl, osl=osl, batch=batch, precision=precision,
                                kv_precision=kv_precision, realistic=False)
        # A log is of a run that started: weights that fill the card's memory all but its last tenth ran on it (an
        # ollama or llama.cpp runner keeps little beside them), though a server's reserve would not have them.
        if alone.memory.weights_fit or alone.memory.weight_bytes <= accelerator.memory_bytes * WEIGHTS_MEMORY_SHARE:
            return None, (topology_for(accelerator, **options) if options else None), None
        # llama.cpp (and ollama over it) splits a model by its layers across cards by default: one token passes
        # them in turn, a pipeline, not a tensor split whose cards read their shares at once.
        by_layers = acc.labels.get("engine") in _LAYER_SPLIT_ENGINES
        for cards in _CARD_COUNTS:
            tp = 1 if by_layers else min(cards, topology.gpus_per_node)
            candidate = Parallelism(tp=tp, pp=cards // tp)
            if candidate.cards_per_replica > topology.gpus_per_node and topology.inter_node is None:
                candidate_topology = topology_for(accelerator, **{"inter_node": _ASSUMED_INTER_NODE, **options})
            else:
                candidate_topology = topology
            try:
                account = request_account(spec, accelerator, isl=isl, osl=osl, batch=batch, precision=precision,
                                          kv_precision=kv_precision, realistic=False, parallel=candidate,
                                          topology=candidate_topology)
            except InferledgerError:
                continue
            if account.memory.weights_fit:
                return candidate, candidate_topology, (
                    f"the weights do not fit one {accelerator.name}: judged on {candidate.label()}, the fewest cards "
                    "that hold them" + (", a layer split as llama.cpp's" if by_layers else "")
                    + " (give --tp/--pp or --gpus for the real layout)")
        return None, None, None
    if layout.cards_per_replica > topology.gpus_per_node and topology.inter_node is None:
        topology = topology_for(accelerator, **{"inter_node": _ASSUMED_INTER_NODE, **options})
        note = (note + "; " if note else "") + f"{_ASSUMED_INTER_NODE} assumed between nodes (give --inter-node)"
    return layout, topology, note


def _one_prefill_seconds(spec, accelerator, isl: int, precision, kv_precision, spread: dict) -> float:
    """The ledger's realistic prefill of one prompt of `isl` tokens, alone on the layout (its floor where the realistic
    estimate has no fit)."""
    from inferledger.ledger.request import request_account

    account = request_account(spec, accelerator, isl=isl, osl=1, batch=1, precision=precision,
                              kv_precision=kv_precision, **spread)
    return account.realistic.prefill_seconds if account.realistic else account.prefill.seconds


def _judge_prefill_rate(acc: Accumulator, rate: float, spec, accelerator, precision, kv_precision, spread: dict,
                        lines: list, findings: list) -> None:
    """The fastest request's own prompt-eval rate against the ledger's realistic prefill of one prompt of the
    requests' mean length."""
    tokens = acc.requests.get("input_tokens")
    if tokens is None or not tokens.count:
        return
    isl = max(1, round(tokens.mean))
    seconds = _one_prefill_seconds(spec, accelerator, isl, precision, kv_precision, spread)
    if not seconds:
        return
    realistic = isl / seconds
    share = rate / realistic
    text = (f"prompt processing {rate:,.0f} tok/s (the fastest request's) is {share:.0%} of the {realistic:,.0f} tok/s "
            f"the ledger's realistic prefill of a {isl:,}-token prompt allows on {accelerator.name}")
    lines.append(text)
    findings += _prefill_rate_findings(rate, realistic, text, "hardware-prefill-below-realistic",
                                       "the engine, its backend or an offload")


def _judge_first_token(acc: Accumulator, spec, accelerator, precision, kv_precision, spread: dict, lines: list,
                       findings: list) -> None:
    """A summary's TTFT (its median where stated) against the ledger's realistic prefill of its mean prompt, plus the
    mean wait a queue of the run's own load adds: one stream at a time waits for no other prompt; Poisson arrivals at
    req/s λ wait ρ / 2(1 − ρ) prefills at utilisation ρ = λ × one prefill (M/D/1). Runs with neither, or too busy to
    say, are left alone."""
    from inferledger.diagnose.rules_summary import first_token_load, run_per_token

    for record, file in acc.summaries:
        load = first_token_load(record)
        if load is None:
            continue
        ttft, mean_input, rate, one_stream = load
        prefill = _one_prefill_seconds(spec, accelerator, max(1, round(mean_input)), precision, kv_precision, spread)
        utilisation = 0.0 if one_stream else rate * prefill
        if utilisation >= limit("prefill-utilisation"):
            continue
        expected = prefill * (1 + utilisation / (2 * (1 - utilisation)))
        # A served run's new prompt waits for the running step to end and is prefilled inside a step of the running
        # batch: its first token pays that batch's steps too (limit first-token-steps × the run's TPOT); a prompt
        # longer than the step's token budget the log states (chunked prefill) spans a step for each further chunk.
        # The step is the run's TPOT, else what its latencies give ((E2E − TTFT) over the tokens after the first).
        step = 0.0 if one_stream else (run_per_token(record) or 0.0)
        budget = acc.capacity.get("chunked_prefill_tokens")
        chunks = math.ceil(mean_input / budget[0]) if budget and budget[0] > 0 else 1
        steps = FIRST_TOKEN_STEPS + chunks - 1
        expected += steps * step
        lines.append(f"first token: TTFT {ttft * 1e3:,.0f} ms for {mean_input:,.0f}-token prompts vs "
                     f"{expected * 1e3:,.0f} ms the ledger's realistic prefill and "
                     + ("no queue (one stream at a time)" if one_stream else
                        f"the queue at {rate:.2f} req/s ({utilisation:.0%} busy prefilling)"
                        + (f" and {steps:g} of the run's {step * 1e3:,.1f} ms steps"
                           + (f" ({chunks} chunks of {budget[0]:,.0f} tokens)" if chunks > 1 else "") if step
                           else "")) + " allow")
        if ttft > threshold("hardware-ttft-above-realistic") * expected and ttft - expected > limit("ttft-excess"):
            findings.append(fire(
                "hardware-ttft-above-realistic",
                f"{record.labels.get('tool') or record.source}: TTFT {ttft:.2f} s is {ttft / expected:.1f}× the "
                f"{expected:.2f} s the ledger's realistic prefill of a {mean_input:,.0f}-token prompt on "
                f"{accelerator.name} allows" + ("" if one_stream else f" with the queue of {rate:.2f} req/s")
                + ": the prefill path is slower than the hardware (engine, attention backend, KV transfer, encoder)",
                {"ttft_seconds": ttft, "ledger_ttft_seconds": expected, "mean_input_tokens": mean_input},
                lines=[record.line_number], file=file))
        return  # the first summary that can be judged speaks for the run


def compare(acc: Accumulator, model: str | None, gpu: str | None, precision: str | None = None,
            kv_precision: str | None = None, parallel=None, topology_options: dict | None = None
            ) -> tuple[dict, list, list]:
    """(roofline section, extra findings, advice) for the diagnosis. `parallel`: the Parallelism the model is
    spread over (default: what the log states, else one card, else the fewest cards that hold the weights);
    `topology_options`: hardware.topology.topology_for's keywords (cards per node, links)."""
    if not model or not gpu:
        missing = "--gpu" if model else "--model"
        return {"error": f"the roofline comparison needs both --model and --gpu ({missing} missing)",
                "lines": [f"skipped: {missing} missing"]}, [], []
    from inferledger.hardware import find_accelerator
    from inferledger.ledger.request import request_account
    from inferledger.ledger.roofline import runs_at
    from inferledger.model import load_model
    from inferledger.operators import Formats

    spec = load_model(model)
    accelerator = find_accelerator(gpu)
    isl, osl, batch, notes = _shape(acc)
    batch_known = batch is not None
    batch = batch or 1  # the account of one stream still gives the memory and the prefill; its decode is not judged
    layout, topology, layout_note = _layout(acc, spec, accelerator, precision, kv_precision, parallel,
                                            topology_options, (isl, osl, batch))
    if layout_note:
        notes.append(layout_note)
    spread = {"parallel": layout, "topology": topology}
    account = request_account(spec, accelerator, isl=isl, osl=osl, batch=batch, precision=precision,
                              kv_precision=kv_precision, **spread)
    bandwidth = accelerator.memory_bandwidth_bytes_per_second
    dtype, peak = runs_at(accelerator, Formats.resolve(spec, precision, kv_precision).weights.compute_dtype)
    section = {"model": account.model, "accelerator": account.accelerator, "precision": account.weights,
               "kv_precision": account.kv, "isl": isl, "osl": osl, "batch": batch if batch_known else None,
               "assumptions": notes,
               "ledger_decode_seconds_per_token": account.decode.seconds_per_token,
               "ledger_decode_bytes_per_step": account.decode.bytes_per_step,
               "ledger_prefill_seconds": account.prefill.seconds,
               "card_bandwidth_bytes_per_second": bandwidth, "card_peak_flops_per_second": peak,
               "parallel": layout.to_dict() if layout is not None else None}
    cards = f" × {layout.cards_per_replica} ({layout.label()})" if layout is not None else ""
    lines = [f"{account.model} on {account.accelerator}{cards} ({account.weights} weights, {account.kv} KV), "
             f"ISL {isl}, OSL {osl}, " + (f"batch {batch}" if batch_known else "a batch the log does not state (one "
                                           "stream's account)") + (f" [{'; '.join(notes)}]" if notes else "")]
    findings: list[Finding] = []
    advice: list[str] = []

    own = own_bench_rows(acc, spec)
    if own is not None and not any(own):
        lines.append(f"the log's llama-bench rows are of other models than {account.model} (their params columns): "
                     "its speed is not observed")
    step, step_source, tpot_step = _observed_decode(acc, own)
    if step and precision is None and acc.effective_bandwidth.count:
        # The log's rows state their own weights (a size column, a quantisation in the model cell) and nothing
        # states a format for the checkpoint: those rows judge decode (log_hardware_findings), not its native bytes.
        lines.append("decode: the log's rows state their own weights' size; judged by those, not by the "
                     f"checkpoint's {account.weights}")
        step = None
    if not step:
        tpot_step = False
        step, step_source = _whole_call_decode(
            acc, account.realistic.prefill_seconds if account.realistic else account.prefill.seconds)
    if not step and batch_known and isl <= osl:
        step, step_source = _offline_batch_step(acc, batch)
    if step and not batch_known:
        if _judge_unknown_batch(step, step_source, account, spec, accelerator, (isl, osl, precision, kv_precision),
                                spread, lines, findings, acc):
            section.update(observed_decode_seconds_per_token=step, decode_source=step_source)
    elif step:
        achieved = account.decode.bytes_per_step / step
        fraction = achieved / bandwidth
        speed_fraction = account.decode.seconds_per_token / step
        section.update(observed_decode_seconds_per_token=step, decode_source=step_source,
                       achieved_decode_bandwidth_bytes_per_second=achieved, decode_bandwidth_fraction=fraction,
                       decode_roofline_fraction=speed_fraction)
        lines.append(f"decode: {step * 1e3:.2f} ms/token observed ({step_source}) vs {account.decode.seconds_per_token * 1e3:.2f} "
                     f"ms ledger floor ({account.decode.bound}-bound); {account.decode.bytes_per_step / 1e9:.2f} GB "
                     f"per step → {achieved / 1e9:.0f} GB/s = {fraction:.0%} of {bandwidth / 1e9:.0f} GB/s")
        evidence_numbers = {"decode_roofline_fraction": speed_fraction,
                            "observed_decode_seconds_per_token": step,
                            "ledger_decode_seconds_per_token": account.decode.seconds_per_token}
        realistic = account.realistic.decode_seconds_per_token if account.realistic else None
        prompt_rate = _prompt_rate(acc) if realistic and tpot_step else None
        if prompt_rate:
            # A served run's steps also prefill the prompts arriving meanwhile (chunked prefill mixes them in): at r
            # prompt tok/s and p s a prompt token, a step of d s of decode takes d + r·step·p, so step = d / (1 − r·p).
            per_prompt_token = account.realistic.prefill_seconds / (isl * batch)
            load = prompt_rate * per_prompt_token
            if 0 < load < 1:
                realistic /= 1 - load
                lines.append(f"the run's {prompt_rate:,.0f} prompt tok/s prefilled between decode steps "
                             f"({per_prompt_token * 1e6:.1f} µs a prompt token) take {load:.0%} of each step: "
                             f"realistic step {realistic * 1e3:.2f} ms")
        if realistic:
            section["ledger_realistic_decode_seconds_per_token"] = realistic
            lines.append(f"decode realistic estimate {realistic * 1e3:.2f} ms/token: observed is "
                         f"{step / realistic:.2f}× it")
        if speed_fraction > IMPOSSIBLE_FRACTION:
            findings.append(_faster_than_floor(step, account, evidence_numbers, acc))
        elif realistic and step > REALISTIC_FACTOR * realistic:
            findings.append(fire(
                "hardware-decode-below-realistic", f"decode {step * 1e3:.2f} ms/token ({step_source}) is "
                f"{step / realistic:.1f}× the ledger's realistic {realistic * 1e3:.2f} ms for {account.model} on "
                f"{account.accelerator}", evidence_numbers))
        elif speed_fraction < LOW_FRACTION and not realistic:
            # (With a realistic estimate the step was judged against it above: kernels' launches and efficiencies,
            # fitted to measurements, are what the floor leaves out; within it, a step far from the floor is normal.)
            findings.append(fire(
                "hardware-decode-far-below-floor", f"decode {step * 1e3:.2f} ms/token ({step_source}) reaches "
                f"{speed_fraction:.0%} of the speed the ledger's floor allows ({account.decode.seconds_per_token * 1e3:.2f} "
                f"ms for {account.model} on {account.accelerator}, batch {batch})", evidence_numbers))
            advice.append(f"decode runs at {speed_fraction:.0%} of the roofline: the engine, not the memory "
                          "bandwidth, limits it (CUDA graphs off, CPU offload, small kernels, or host overhead)")
        else:
            if speed_fraction >= NEAR_FRACTION:
                findings.append(fire(
                    "hardware-decode-near-floor", f"decode {step * 1e3:.2f} ms/token is {speed_fraction:.0%} of the "
                    f"speed the hardware allows for {account.model} on {account.accelerator}: as fast as the "
                    "memory bandwidth lets it be", evidence_numbers))
            faster = request_account(spec, accelerator, isl=isl, osl=osl, batch=batch, precision="fp8",
                                     kv_precision=kv_precision or account.kv, realistic=False, **spread)
            gain = account.decode.seconds_per_token / faster.decode.seconds_per_token
            where = "near the bandwidth roofline" if speed_fraction >= NEAR_FRACTION else \
                "below what tuned engines reach (75-90% of bandwidth), but bandwidth-limited"
            advice.append(f"decode is {where} ({speed_fraction:.0%}); fp8 weights would cut the "
                          f"floor to {faster.decode.seconds_per_token * 1e3:.2f} ms/token (×{gain:.2f} faster); "
                          "speculative decoding or a higher-bandwidth GPU are the other levers")
    elif (not batch_known or batch == 1) and account.realistic:
        _judge_rate_only(acc, account.realistic.decode_seconds_per_token,
                         f"the ledger's realistic step for {account.model} on {account.accelerator}", lines, findings)

    _judge_first_token(acc, spec, accelerator, precision, kv_precision, spread, lines, findings)

    flops_per_token = account.prefill.flops / max(1, isl * batch)
    section["window_prompt_peak_fraction"] = window_prompt_share(acc, flops_per_token, peak)
    rate, rate_source = _observed_prefill(acc, own)
    if rate:
        achieved_flops = rate * flops_per_token
        fraction = achieved_flops / peak if peak else None
        section.update(observed_prompt_tokens_per_second=rate, prefill_source=rate_source,
                       achieved_prefill_flops_per_second=achieved_flops, prefill_peak_fraction=fraction)
        if fraction is not None:
            lines.append(f"prefill: {rate:,.0f} prompt tok/s ({rate_source}) × {flops_per_token / 1e9:.1f} GFLOP/token "
                         f"= {achieved_flops / 1e12:.1f} TFLOP/s = {fraction:.0%} of the {dtype} peak "
                         f"{peak / 1e12:.0f} TFLOP/s")
            if fraction > PEAK_FRACTION:
                findings.append(fire(
                    "hardware-prefill-above-peak", f"prompt rate {rate:,.0f} tok/s needs "
                    f"{achieved_flops / 1e12:.0f} TFLOP/s, {fraction:.1f}× the card's peak: impossible, so the prompt "
                    "was not all computed (prefix cache) or not all timed", {"prefill_peak_fraction": fraction}))
            elif rate_source.startswith("request"):
                _judge_prefill_rate(acc, rate, spec, accelerator, precision, kv_precision, spread, lines, findings)

    memory = account.memory
    if memory.kv_tokens_capacity is not None:
        section.update(ledger_kv_tokens_capacity=memory.kv_tokens_capacity,
                       ledger_kv_bytes_per_token=memory.kv_bytes_per_token,
                       ledger_max_concurrency=memory.max_concurrency, ledger_context_tokens=memory.context_tokens)
        logged = acc.capacity.get("kv_cache_tokens")
        if logged is None and "gpu_blocks" in acc.capacity:
            logged = (acc.capacity["gpu_blocks"][0] * acc.capacity.get("block_size_tokens", (KV_BLOCK_TOKENS,))[0],)
        text = (f"KV: ledger {memory.kv_bytes_per_token / 1e3:.1f} kB/token, {memory.kv_tokens_capacity:,} tokens fit "
                f"({memory.max_concurrency} requests of {memory.context_tokens} tokens)")
        if logged:
            section["log_kv_tokens"] = logged[0]
            ratio = logged[0] / memory.kv_tokens_capacity if memory.kv_tokens_capacity else None
            section["log_vs_ledger_kv_ratio"] = ratio
            text += f"; the log says {logged[0]:,.0f} tokens"
            if ratio is not None:
                text += f" ({ratio:.0%} of the ledger's)"
        lines.append(text)
        if memory.kv_bytes_per_token:
            cheaper = request_account(spec, accelerator, isl=isl, osl=osl, batch=batch, precision=precision,
                                      kv_precision="fp8", realistic=False, **spread)
            if cheaper.memory is not None and cheaper.memory.kv_tokens_capacity > memory.kv_tokens_capacity:
                section["ledger_kv_tokens_capacity_fp8_kv"] = cheaper.memory.kv_tokens_capacity
                kv_advice = (f"fp8 KV cache: {cheaper.memory.kv_tokens_capacity:,} tokens instead of "
                             f"{memory.kv_tokens_capacity:,} (×{cheaper.memory.kv_tokens_capacity / max(1, memory.kv_tokens_capacity):.2f}), "
                             f"{cheaper.memory.max_concurrency} requests of {memory.context_tokens} tokens instead of "
                             f"{memory.max_concurrency}")
                section["kv_advice"] = kv_advice
    section["lines"] = lines
    return section, findings, advice


def _judge_rate_only(acc: Accumulator, one_stream_seconds: float, what: str, lines: list, findings: list) -> None:
    """Runs that state only an output rate (tokens a second over all their streams) and no batch, or a batch of one:
    each is at least one stream, so a rate at or above ONE_STREAM_SHARE of one stream's (`what`: the step's source,
    one_stream_seconds a token) shows decode as fast as the card allows; a lower one is left unjudged (a slow engine,
    or prompts taking the time)."""
    rates = [record.metrics["output_tokens_per_second"] for record, _file in acc.summaries
             if record.metrics.get("output_tokens_per_second")]
    if not rates:
        return
    one_stream, lowest = 1 / one_stream_seconds, min(rates)
    ratio = lowest / one_stream
    text = (f"output rate {lowest:,.1f} tok/s (the lowest of {len(rates)} run(s), no per-token time stated) "
            f"is {ratio:.{1 if ratio >= 1 else 2}f}× one stream's {one_stream:,.1f} tok/s ({what})")
    lines.append(text)
    if lowest >= ONE_STREAM_SHARE * one_stream:
        findings.append(fire("hardware-throughput-one-stream", text + ": whatever the batch, decode is not slow", {
            "output_tokens_per_second": lowest, "one_stream_tokens_per_second": one_stream}))


def _faster_than_floor(step: float, account, numbers: dict, acc: Accumulator):
    """hardware-decode-faster-than-floor; with speculative decoding on (the launch command, the engine's acceptance
    stats) and the step within its speed-up, hardware-speculative-faster-than-floor (several tokens a pass)."""
    floor = account.decode.seconds_per_token
    text = (f"decode {step * 1e3:.2f} ms/token is faster than the ledger's floor {floor * 1e3:.2f} ms for "
            f"{account.model} on {account.accelerator}")
    stated = acc.labels.get("speculative")
    accepted = acc.interval.get("spec_mean_acceptance_length") or acc.interval.get("spec_acceptance_fraction")
    speculative = f"the launch command runs speculative decoding (`{stated}`)" if stated else \
        "the engine's stats count accepted draft tokens" if accepted is not None and accepted.count else None
    if speculative and step * threshold("hardware-speculative-faster-than-floor") >= floor:
        return fire("hardware-speculative-faster-than-floor", f"{text}, {floor / step:.1f}× one pass's speed: "
                    f"{speculative}, several tokens accepted a pass", numbers)
    return fire("hardware-decode-faster-than-floor", f"{text}: wrong model/GPU, speculative decoding, or a broken "
                "measurement", numbers)


def _judge_unknown_batch(step: float, step_source: str, account, spec, accelerator, shape: tuple, spread: dict,
                         lines: list, findings: list, acc: Accumulator) -> bool:
    """A per-token time from a run whose batch the log does not state: any batch from one to the most the card's KV
    memory holds could have made it, each step perhaps carrying a chunk of other prompts, so it is slow only when
    slower than the ledger's realistic step at that largest batch plus one chunk's prefill, and impossible only when
    faster than one stream's floor. Whether it was judged."""
    from inferledger.ledger.request import request_account

    isl, osl, precision, kv_precision = shape
    fullest = account.memory.max_concurrency if account.memory is not None else None
    floor = account.decode.seconds_per_token
    text = f"decode: {step * 1e3:.2f} ms/token observed ({step_source}) at a batch the log does not state"
    if step * IMPOSSIBLE_FRACTION < floor:
        lines.append(text)
        findings.append(_faster_than_floor(step, account, {"observed_decode_seconds_per_token": step,
                                                           "ledger_decode_seconds_per_token": floor}, acc))
        return True
    if not fullest or fullest <= 1:
        lines.append(text + "; not judged against the hardware")
        return False
    full = request_account(spec, accelerator, isl=isl, osl=osl, batch=fullest, precision=precision,
                           kv_precision=kv_precision, **spread)
    # A saturated run's step also carries a chunk of other requests' prompts (chunked prefill): its TPOT includes it.
    chunk = request_account(spec, accelerator, isl=PREFILL_CHUNK_TOKENS, osl=1, batch=1, precision=precision,
                            kv_precision=kv_precision, **spread)
    chunk_seconds = chunk.realistic.prefill_seconds if chunk.realistic else chunk.prefill.seconds
    decode = full.realistic.decode_seconds_per_token if full.realistic else full.decode.seconds_per_token
    slowest = decode + chunk_seconds
    lines.append(text + f": between one stream's realistic step and {slowest * 1e3:.2f} ms ({decode * 1e3:.2f} ms "
                 f"at the {fullest:,} requests the card's KV memory holds, plus {chunk_seconds * 1e3:.2f} ms of a "
                 f"{PREFILL_CHUNK_TOKENS:,}-token prefill chunk sharing the step), any batch could have made it")
    if step > REALISTIC_FACTOR * slowest:
        findings.append(fire(
            "hardware-decode-below-realistic", f"decode {step * 1e3:.2f} ms/token ({step_source}) is "
            f"{step / slowest:.1f}× the ledger's realistic {slowest * 1e3:.2f} ms for {account.model} on "
            f"{account.accelerator} even at the {fullest:,} requests its KV memory holds with a prefill chunk in "
            "every step (the log states no batch)",
            {"observed_decode_seconds_per_token": step, "ledger_realistic_decode_seconds_per_token": slowest,
             "batch": fullest}))
    return True


def _stream_rate_step(acc: Accumulator) -> tuple[float | None, str]:
    """The step of the fastest run among summaries that state one stream's generation rate (a benchmark table's
    decode tok/s): for a model sized from its name, whose format the name states. (With a config at hand, compare()
    does not read these rates: a table's rates are often of a quantised file the flag's checkpoint is not, an
    ollama tag beside an HF id.)"""
    streams = [record.metrics["output_tokens_per_second_per_user_mean"] for record, _file in acc.summaries
               if record.metrics.get("output_tokens_per_second_per_user_mean")]
    return (1 / max(streams), "one stream's generation rate (the fastest run)") if streams else (None, "")


def _named_cards(acc: Accumulator, named, accelerator) -> tuple[int, str]:
    """(cards whose memory one decode step reads at once, how that was decided) for a model sized from its name: the
    tensor-parallel degree the log states; else, when the weights do not fit one card, the fewest that hold them,
    split by tensors (a GPU server's way) or by layers (llama.cpp's and ollama's: the cards read in turn, one)."""
    layout = _log_layout(acc)
    if layout is not None:
        return layout.tp, f", tp {layout.tp} as the log states"
    total = named.total_params * named.bits_per_weight / 8
    room = accelerator.memory_bytes * WEIGHTS_MEMORY_SHARE
    if total <= room:
        return 1, ""
    cards = next((count for count in _CARD_COUNTS if count * room >= total), _CARD_COUNTS[-1])
    if named.format_guessed and accelerator.memory_bytes < SPLIT_CARD_MIN_BYTES:
        # On a consumer card a model too big for it in bf16 runs quantised more often than over several cards.
        return 1, f"; {total / 1e9:.0f} GB in the guessed bf16 do not fit one card: a quantised file or a split"
    if acc.labels.get("engine") in _LAYER_SPLIT_ENGINES:
        return 1, f"; {total / 1e9:.0f} GB of weights need {cards} cards, split by layers: read in turn"
    return cards, f"; {total / 1e9:.0f} GB of weights need {cards} cards, the fewest that hold them, tensor-split"


def _stated_kv_read(acc: Accumulator) -> float:
    """Bytes of KV cache one stream's decode step reads where llama.cpp states its cache (`kv self size` over its
    n_ctx: the bytes a token's keys and values take) and the requests state their lengths: each step reads the cache
    of the prompt and of the answer so far, half the answer on average. 0 where either is not stated."""
    kv, context = acc.capacity.get("kv_cache_bytes"), acc.capacity.get("context_tokens")
    prompt, output = acc.requests.get("input_tokens"), acc.requests.get("output_tokens")
    if kv is None or context is None or not context[0] or not str(kv[3]).startswith("llamacpp") \
            or prompt is None or not prompt.count:
        return 0.0
    tokens = prompt.mean + (output.mean / 2 if output is not None and output.count else 0.0)
    return kv[0] / context[0] * min(tokens, context[0])


def named_floor_seconds(named, bandwidth_bytes_per_second: float, kv_read_bytes: float = 0.0) -> float:
    """One stream's decode step of a model known by its name: its weights (and any KV cache the log sizes) read at
    the bandwidth, plus its layers' fixed cost (named_model.step_fixed_seconds)."""
    fixed, _layers = step_fixed_seconds(named.total_params, named.mixture_of_experts)
    return (named.weights_bytes_per_step + kv_read_bytes) / bandwidth_bytes_per_second + fixed


def named_floor_findings(acc: Accumulator, named, accelerator) -> tuple[dict, list]:
    """(roofline section, findings) for a model known only by its name (named_model.NamedModel): the decode floor of
    one stream is the weights the name states ÷ the card's bandwidth. Judged only at a batch of one or two, where the
    weights are most of what a step reads; with more streams their cache, which the name does not give, joins."""
    from inferledger.ledger.roofline import runs_at

    cards, spread = _named_cards(acc, named, accelerator)
    bandwidth = accelerator.memory_bandwidth_bytes_per_second * cards  # a tensor split's cards read their shares at once
    fixed, layers = step_fixed_seconds(named.total_params, named.mixture_of_experts)
    kv_read = _stated_kv_read(acc)
    floor = named_floor_seconds(named, bandwidth, kv_read)
    _isl, _osl, stated_batch, notes = _shape(acc)
    batch = stated_batch or NAMED_MAX_BATCH + 1  # several at once, how many not stated: not judged against one stream's floor
    on = f"{cards} × {accelerator.name}" if cards > 1 else f"the {accelerator.name}"
    section = {"model": named.name, "accelerator": accelerator.name, "estimated_from_name": True,
               "weights_bytes_per_step": named.weights_bytes_per_step, "batch": stated_batch, "cards_reading": cards,
               "card_bandwidth_bytes_per_second": accelerator.memory_bandwidth_bytes_per_second,
               "named_decode_floor_seconds_per_token": floor,
               # A prompt token's FLOPs are 2 × the parameters it passes through (attention aside); the peak is the
               # card's bf16, the least a weight-only or bf16 model computes at.
               "window_prompt_peak_fraction": window_prompt_share(acc, 2 * named.active_params,
                                                                  runs_at(accelerator, "bf16")[1]),
               "lines": [named.describe() + f" → {floor * 1e3:.2f} ms/token floor on {on} ({bandwidth / 1e9:,.0f} "
                         f"GB/s{spread}); the config.json was not at hand, so this is an estimate"]}
    if acc.effective_bandwidth.count and acc.bandwidth_source != NAMED_BANDWIDTH_SOURCE:
        # llama-bench's rows state their files' sizes (an F16 and a Q8_0 file of one model): their own reads judge
        # decode (log_hardware_findings), not one size the name guesses for all of them.
        section["lines"].append("the log's rows state their weights' size: decode is judged by those, not this floor")
        return section, []
    step, source, _tpot = _observed_decode(acc)
    if not step:
        step, source = _stream_rate_step(acc)
    if not step and (batch > NAMED_MAX_BATCH or stated_batch == 1):
        found = []
        _judge_rate_only(acc, floor, f"the floor of {named.name} sized from its name", section["lines"], found)
        return section, found
    if not step or batch > NAMED_MAX_BATCH:
        if step:
            at = f"batch {batch}" if stated_batch else "a batch the log does not state"
            section["lines"].append(f"{at}: the cache read joins the weights, which the name does not give; "
                                    "decode not judged against this floor")
        return section, []
    fraction = floor / step
    section.update(observed_decode_seconds_per_token=step, decode_source=source, decode_roofline_fraction=fraction)
    cost = f" + {layers} layers' fixed cost {fixed * 1e3:.2f} ms" if fixed else ""
    cache = f" + {kv_read / 1e9:.1f} GB of the context's KV cache the log sizes" if kv_read else ""
    text = (f"decode {step * 1e3:.2f} ms/token ({source}) reaches {fraction:.0%} of the speed the weights allow "
            f"({floor * 1e3:.2f} ms: {named.weights_bytes_per_step / 1e9:.1f} GB{cache} at {bandwidth / 1e9:,.0f} "
            f"GB/s{cost}, {named.name} sized from its name)")
    numbers = {"decode_roofline_fraction": fraction, "observed_decode_seconds_per_token": step,
               "named_decode_floor_seconds_per_token": floor}
    section["lines"].append(text)
    if fraction < NAMED_LOW_FRACTION:
        return section, [fire("hardware-named-decode-far-below-floor", text + ": the engine or an offload, not "
                              "the memory, limits decode", numbers)]
    if NAMED_NEAR_FRACTION <= fraction <= IMPOSSIBLE_FRACTION:
        return section, [fire("hardware-named-decode-near-floor", text + ": as fast as the memory allows", numbers)]
    return section, []
