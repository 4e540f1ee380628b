"""Rules over benchmark-client summaries (one Record per run): artefacts first, then queue evidence, then prefill and
decode, then the consistency checks; last the rules across a file's runs (the same work at another speed, the first
token against the concurrency). Thresholds and confidences: rules.py."""

from __future__ import annotations

import math
import re
from statistics import median

from inferledger.diagnose.accumulate import (
    SLOW_STREAM_TOKENS_PER_SECOND,
    STARVED_TOKENS_PER_SECOND,
    Accumulator,
)
from inferledger.diagnose.records import STATS
from inferledger.diagnose.rules import RULES, Hardware, fire, limit, threshold
from inferledger.diagnose.weight_formats import quantised_not_faster
from inferledger.report.units import format_seconds_short

ALL_AT_ONCE_RATE = threshold("summary-all-at-once")
PREFILL_TOKENS_PER_STEP = limit("prefill-tokens-per-step")
LATENCY_PER_TOKEN_MIN_IN_FLIGHT = limit("latency-per-token-min-in-flight")
MAX_DEFAULT_BATCH = limit("max-default-batch")
DRAIN_OVER_CRAWL = limit("drain-over-crawl")
_BOTTLENECKS = ("queueing", "kv-capacity", "prefill-bound", "decode-bound")


def summary_value(record, name: str):
    value = record.metrics.get(name)
    if value is None and name.endswith("_mean"):
        value = record.metrics.get(name[:-5] + "_median")
    return value


def offered_rate(record) -> float | None:
    rate = record.metrics.get("request_rate_per_second")
    if rate is None:
        label = str(record.labels.get("request_rate", "")).strip().lower()
        if label in ("inf", "infinity"):
            return math.inf
        try:
            rate = float(label) if label else None
        except ValueError:
            rate = None
    return rate


def input_per_output(metrics: dict) -> float | None:
    """Prompt tokens per generated token of a run, from its rates or else its totals."""
    prompt, output = metrics.get("input_tokens_per_second"), metrics.get("output_tokens_per_second")
    if not (prompt and output):
        prompt, output = metrics.get("total_input_tokens"), metrics.get("total_output_tokens")
    return prompt / output if prompt and output else None


def prefill_interleaved(record, per_token: float | None) -> bool:
    """A long per-token time in a run that is nearly all prompt, with other requests in flight (see the rule), unless
    the others' prefills cannot account for it: in a request's life each of the other (concurrency - 1) streams
    starts about one request, whose prefill takes about a TTFT, so they add at most (concurrency - 1) × TTFT over
    the request's output tokens to its per-token time; a per-token time well over that is the decode's own."""
    if record.labels.get("static_batch"):  # every prompt is read before the first decode step: none between them
        return False
    metrics = record.metrics
    ratio = input_per_output(metrics)
    concurrency = metrics.get("max_concurrency")
    if not (per_token and per_token >= threshold("summary-slow-tpot-no-hardware") and ratio
            and ratio >= threshold("summary-prefill-interleaved") and (concurrency is None or concurrency > 1)):
        return False
    ttft = metrics.get("ttft_seconds_median") or metrics.get("ttft_seconds_mean")
    output = metrics.get("mean_output_tokens")
    if output is None and metrics.get("total_output_tokens") and metrics.get("completed_requests"):
        output = metrics["total_output_tokens"] / metrics["completed_requests"]
    if concurrency and ttft and output and output > 1:
        return per_token <= limit("interleaved-prefill-slack") * (concurrency - 1) * ttft / (output - 1)
    return True


PROMPT_ONLY_OUTPUT_TOKENS = limit("prompt-only-output")
STEP_BOUND_MIN_TOKENS = limit("step-bound-min-tokens")
HEALTHY_MIN_TOKENS = limit("healthy-min-tokens")
OVER_CAP_UNTIMED = limit("over-cap-untimed")
FASTEST_STREAM_STEP = limit("fastest-stream-step")


def run_lengths(record) -> tuple:
    """(mean input tokens, mean output tokens) of one summary as _Run works them out; None where it cannot."""
    run = _Run(record)
    return run.mean_input, run.mean_output


def stated_input_rate(metrics: dict) -> float | None:
    """Prompt tokens a second a run fed its server as its summary states them: the rate, or its total over its time."""
    rate = metrics.get("input_tokens_per_second")
    if rate is None and metrics.get("total_input_tokens") and metrics.get("duration_seconds"):
        rate = metrics["total_input_tokens"] / metrics["duration_seconds"]
    return rate


def run_per_token(record) -> float | None:
    """A run's time per output token as _Run works it out: its TPOT, else its ITL, else (E2E − TTFT) spread over the
    tokens after the first (or the inverse of a stream's rate); None where none of them is known."""
    return _Run(record).per_token


def first_token_load(record) -> tuple | None:
    """(TTFT s, the median where stated; mean input tokens; arrivals req/s; one stream at a time) of a summary whose
    first tokens can be set against the prompt's work: a measured TTFT (not worked out), a prompt length, and its
    arrivals known: one stream at a time, or requests sent at a finite rate (the clients' Poisson arrivals; the
    higher of the rate offered and the rate served); else None. Every request sent at once (`inf`), or a closed loop of several
    streams, queues each prompt behind the others' by design: not judged."""
    run = _Run(record)
    if run.ttft is None or run.ttft_derived or not run.mean_input:
        return None
    # The median where stated: one cold first request (a graph captured, a cache filled) lifts a short run's mean.
    ttft = min(run.ttft, record.metrics.get("ttft_seconds_median") or run.ttft)
    if run.concurrency == 1:
        return ttft, run.mean_input, 0.0, True
    if run.offered is None or not math.isfinite(run.offered) or run.offered <= 0:
        return None
    return ttft, run.mean_input, max(run.offered, run.achieved or 0.0), False


class _Run:
    """The numbers of one summary the rules read, each derived once."""

    def __init__(self, record, server: str | None = None):
        metrics = record.metrics
        self.name = record.labels.get("benchmark") or record.labels.get("tool") or record.source
        self.server = server  # the serving engine a launch command in the log started
        self.ttft = summary_value(record, "ttft_seconds_mean")
        self.ttft_derived = ""  # how a TTFT the run does not state was worked out
        self.tpot = summary_value(record, "tpot_seconds_mean")
        self.itl = summary_value(record, "itl_seconds_mean")
        self.e2e = summary_value(record, "e2e_seconds_mean")
        self.completed = metrics.get("completed_requests")
        self.duration = metrics.get("duration_seconds")
        achieved = metrics.get("request_throughput_per_second")
        sent = metrics.get("requests_sent")
        if self.completed is None and sent and achieved and self.duration \
                and abs(achieved * self.duration - sent) <= 0.05 * sent:
            self.completed = sent  # the rate × the run's time accounts for every request sent: all completed
        if achieved is None and self.completed and self.duration:
            achieved = self.completed / self.duration
        if self.duration is None and self.completed and achieved:
            self.duration = self.completed / achieved  # the rate is the requests over the run's time
        self.achieved = achieved
        self.output_rate = metrics.get("output_tokens_per_second")
        # The requests a run completed; req/s × its time where it states no count (for lengths per request only:
        # the rules that compare counts read the stated one).
        served = achieved * self.duration if achieved and self.duration else None
        completed = self.completed or (round(served) if served and math.isfinite(served) else None)
        mean_output = metrics.get("mean_output_tokens")
        if mean_output is None and completed and metrics.get("total_output_tokens"):
            mean_output = metrics["total_output_tokens"] / completed
        if mean_output is None and self.output_rate and achieved:
            mean_output = self.output_rate / achieved  # output tok/s ÷ completed req/s: the tokens of a request
        self.mean_output = mean_output
        # A run of a few tokens in all (a cold engine's one short call): its output rate times its start-up and
        # prompt, not its decode steps.
        total_output = metrics.get("total_output_tokens") or (mean_output * completed if mean_output and completed
                                                               else None)
        self.few_tokens = total_output if total_output is not None and total_output < STEP_BOUND_MIN_TOKENS else 0.0
        # A prefill benchmark (a token or two out a request): its request latency is its first token's.
        self.prompt_only = mean_output is not None and mean_output <= PROMPT_ONLY_OUTPUT_TOKENS
        if self.ttft is None and self.e2e is not None and self.prompt_only and mean_output > 0:
            self.ttft = self.e2e  # (a request that wrote no token has no first token: its time is no TTFT)
        mean_input = metrics.get("mean_input_tokens")
        if mean_input is None and completed and metrics.get("total_input_tokens"):
            mean_input = metrics["total_input_tokens"] / completed
        if mean_input is None and metrics.get("input_tokens_per_second") and achieved:
            mean_input = metrics["input_tokens_per_second"] / achieved  # input tok/s ÷ req/s: a request's prompt
        self.mean_input = mean_input
        input_rate = stated_input_rate(metrics)
        if input_rate is None and mean_input and achieved:
            input_rate = mean_input * achieved  # clients that print only per-request means (evalscope)
        self.input_rate = input_rate
        # One prompt's own prefill at most: the run's input rate is a lower bound on the server's prefill rate.
        work = mean_input / input_rate if mean_input and input_rate else None
        self.prompt_work = work if work else None  # (a prompt of no work, a figure too small to hold: none)
        self.offered = offered_rate(record)
        self.concurrency = metrics.get("max_concurrency")
        self.per_token = self.tpot if self.tpot is not None else self.itl
        self.per_token_derived: bool | str = False  # True: (E2E − TTFT) spread over the tokens; a str: how else
        self.step_bound = False
        self.one_token = False  # set when the per-token time covers about one token (summary-one-token)
        if self.per_token is None and self.e2e and self.ttft is not None and mean_output and mean_output > 1 \
                and self.e2e > self.ttft:
            # No per-token row: the decode part of the mean request, spread over its tokens after the first.
            self.per_token = (self.e2e - self.ttft) / (mean_output - 1)
            self.per_token_derived = True
        per_output = metrics.get("e2e_per_output_token_seconds_mean")
        if self.ttft is None and self.tpot is not None and self.e2e and per_output and mean_output is None:
            # No TTFT (cut, or not logged), but the step and the latency per output token: a request's tokens are
            # roughly its latency over that (a ratio of means: for this estimate only, no count of the run's), and
            # what they do not take of its latency is its wait for the first (queue and prefill).
            tokens = self.e2e / per_output
            first = self.e2e - self.tpot * (tokens - 1)
            if tokens > 1 and first > 0:
                self.ttft, self.ttft_derived = first, "E2E − TPOT × (E2E ÷ latency per output token − 1)"
        stream = metrics.get("output_tokens_per_second_per_user_mean")
        if self.per_token is None and stream:
            # Only a stream's generation rate (ollama's eval rate: its tokens over their decode time): the step is
            # its inverse.
            self.per_token = 1 / stream
            self.per_token_derived = PER_STREAM_RATE
        self.not_streamed, self.not_streamed_numbers = _not_streamed(self, metrics)
        # The decode step: TPOT, unless the median gap between tokens is far shorter (stalls inflate TPOT).
        itl_median = record.metrics.get("itl_seconds_median")
        self.step = self.per_token
        if self.per_token is not None and itl_median and itl_median < 0.5 * self.per_token:
            self.step = itl_median
        self.all_at_once = self.offered is not None and self.offered >= ALL_AT_ONCE_RATE
        if self.per_token is None and self.concurrency and (self.offered is None or self.all_at_once) \
                and self.output_rate and mean_output and mean_output > PROMPT_ONLY_OUTPUT_TOKENS \
                and (self.concurrency == 1 or (completed and completed >= CLOSED_LOOP_ROUNDS * self.concurrency)) \
                and (mean_input is None or mean_input <= CLOSED_LOOP_PROMPT_SHARE * mean_output):
            # A closed loop (no request rate, or `inf` under a concurrency cap: the client keeps `concurrency`
            # requests in flight, each sent as one ends) over many rounds: each stream generates output tok/s ÷
            # concurrency on average, its prompts' time included, so concurrency ÷ output tok/s bounds the step
            # from above. One stream at a time needs no rounds: its output rate is its own, prompts included.
            self.per_token = self.step = self.concurrency / self.output_rate
            self.per_token_derived = "per token (at most: concurrency ÷ output tok/s, prefills included)"
        if self.step is None and (self.all_at_once or record.labels.get("offline_batch")) and self.output_rate \
                and not self.prompt_only:
            # Every request in flight from the start: no stream generates faster than the whole run, so the run's
            # output rate bounds the per-stream rate from above, and its inverse bounds the step from below.
            self.step = 1 / self.output_rate
            self.step_bound = True
        self.uncapped = self.concurrency is None or (self.completed is not None and self.concurrency >= self.completed)
        # Every request arrived within the run's first twentieth at a finite offered rate: a burst, whatever the rate.
        self.arrived_in_burst = bool(self.offered is not None and math.isfinite(self.offered) and self.offered > 0
                                     and self.completed and self.duration
                                     and self.completed / self.offered <= BURST_ARRIVAL_SHARE * self.duration)
        # Streams at once, and how many and how it is known in words: the stated concurrency (a cap above the requests
        # sent holds them all), else Little's law (the requests in flight, the fewest there were, or at most as many
        # as total tok/s × TPOT); 0 when nothing says.
        self.batch, self.batch_text = 0.0, ""
        if self.concurrency is not None:
            self.batch = min(self.concurrency, self.completed or self.concurrency)
            self.batch_text = f"{self.batch:,.0f} streams at once (its stated concurrency)"
        else:
            streams, held, how = streams_by_littles_law(metrics)
            if streams or held:
                bound = "~" if streams else "at most ~" if how.startswith("at most") else "at least ~"
                self.batch = streams or held
                self.batch_text = f"{bound}{self.batch:,.0f} streams at once ({how})"


SPREAD_MEAN_SHARE = limit("spread-mean-share")
CHUNKED_GAP_SHARE = limit("chunked-gap-share")
PER_STREAM_RATE = "per token at the per-stream rate"  # how a step read from one stream's generation rate is named
MLPERF_BOUNDED = ("Server", "Interactive")  # MLPerf scenarios with latency bounds (an Offline run has none)
BURST_ARRIVAL_SHARE = limit("burst-arrival-share")
BURST_ADMITTED_STEPS = limit("burst-admitted-steps")
BURST_IN_BATCH_TTFT = limit("burst-in-batch-ttft")
MORE_IN_FLIGHT = limit("more-in-flight")
CLOSED_LOOP_ROUNDS = limit("closed-loop-rounds")
CLOSED_LOOP_PROMPT_SHARE = limit("closed-loop-prompt-share")
CLIENT_ROUNDS_FIRST_TOKEN = limit("client-rounds-first-token")
PROMPT_SWEEP_SPAN = limit("prompt-sweep-span")
STREAMS_SEEN = limit("streams-seen")
ONE_STREAM_BAND = limit("one-stream-band")
KEPT_UP_TTFT_SHARE = limit("kept-up-ttft-share")


def _not_streamed(run: _Run, metrics: dict) -> tuple[str, dict]:
    """How a run shows its replies reached the client whole, and the figures that show it (("", {}) when they
    streamed): a first token as late as the last (mean or median), or every gap between tokens 0 while requests
    generate several tokens. Its TTFT is then the whole request and its per-token times measure nothing; a
    prompt-only run's first token is its last by design."""
    if run.prompt_only or (run.mean_output is not None and run.mean_output <= 1):
        return "", {}
    share = threshold("summary-ttft-equals-e2e")
    # A scrape's histograms count first tokens of requests still running, which have no full latency yet: first
    # tokens counted more often than whole requests are of other requests, not each request's first and last.
    other_requests = metrics.get("ttft_seconds_count", 0) > metrics.get("e2e_seconds_count", math.inf)
    # (a tail's too, where the paste states only that: the slowest first tokens as late as the slowest replies)
    for stat in ("mean", "median", "p90", "p95", "p99"):
        ttft, e2e = metrics.get(f"ttft_seconds_{stat}"), metrics.get(f"e2e_seconds_{stat}")
        if ttft is not None and e2e and ttft > 0 and ttft >= share * e2e and not other_requests:
            return (f"{stat} first-token latency {ttft * 1e3:,.5g} ms equals the {stat} full latency "
                    f"{e2e * 1e3:,.5g} ms", {f"ttft_seconds_{stat}": ttft, f"e2e_seconds_{stat}": e2e})
    ttft, e2e, tokens = metrics.get("ttft_seconds_mean"), metrics.get("e2e_seconds_mean"), run.mean_output
    if ttft and e2e and tokens and tokens > PROMPT_ONLY_OUTPUT_TOKENS and ttft < e2e \
            and (e2e - ttft) / (tokens - 1) < FASTEST_STREAM_STEP:
        return (f"the ~{tokens - 1:,.0f} tokens after the first took {(e2e - ttft) * 1e3:,.3g} ms in all "
                f"({(e2e - ttft) / (tokens - 1) * 1e3:.3f} ms each), faster than any stream decodes",
                {"ttft_seconds_mean": ttft, "e2e_seconds_mean": e2e, "mean_output_tokens": tokens})
    gaps = {name: value for name, value in metrics.items() if name.startswith("itl_seconds_") and name[12:] in STATS}
    if gaps and not any(gaps.values()) and run.mean_output and run.mean_output > threshold("summary-one-token"):
        return (f"every inter-token latency statistic is 0 while requests generate ~{run.mean_output:,.0f} tokens",
                dict(gaps, mean_output_tokens=run.mean_output))
    return "", {}


def _over_cap(run: _Run, acc: Accumulator, where: dict, findings: list) -> bool:
    """summary-concurrency-over-cap: a client holding more requests in flight than the engine's running cap (the
    launch command's --max-num-seqs and kin, or the engine's own start-up line) has the rest wait for a slot; read
    when the first tokens show it (TTFT past BURST_ADMITTED_STEPS decode steps) or, a summary cut before its
    latencies, when the client holds OVER_CAP_UNTIMED times the cap or more (half its requests wait, whatever their
    steps)."""
    cap = acc.capacity.get("max_running_requests")
    if cap is None or not run.concurrency or run.concurrency <= cap[0]:
        return False
    untimed = run.ttft is None and not run.per_token and run.e2e is None
    waits_in_ttft = run.ttft is not None and run.per_token and run.ttft >= BURST_ADMITTED_STEPS * run.per_token
    if not (waits_in_ttft or (untimed and run.concurrency >= OVER_CAP_UNTIMED * cap[0])):
        return False
    waiting = run.concurrency - cap[0]
    shown = ("no latency in the excerpt" if untimed else
             f"TTFT {run.ttft * 1e3:,.0f} ms is {run.ttft / run.per_token:.0f} decode steps of "
             f"{run.per_token * 1e3:.1f} ms")
    numbers = {"max_concurrency": run.concurrency, "max_running_requests": cap[0]}
    if not untimed:
        numbers["ttft_seconds_mean"] = run.ttft
    findings.append(fire(
        "summary-concurrency-over-cap", f"{run.name}: {run.concurrency:.0f} requests in flight against a running cap "
        f"of {cap[0]:.0f} (line {cap[1]}): {waiting:.0f} wait for a slot; {shown}", numbers,
        share=waiting / run.concurrency, **where))
    return True


def streams_by_littles_law(metrics: dict) -> tuple[float | None, float | None, str]:
    """(decode streams, the fewest requests in flight, how) of a run, by Little's law: each stream writes 1/TPOT
    tokens a second, so output tok/s × TPOT is the streams decoding at once and req/s × E2E the requests in flight
    (either is the batch), as is an offered req/s × (TTFT + output tokens × TPOT) where the first token is too short
    for a queue to be growing; req/s × TTFT, a part of E2E, is the fewest in flight and total tok/s × TPOT bounds the
    streams from above (prompt tokens counted too): the batch is then unknown. Only figures above STREAMS_SEEN are
    returned: a run that held more at once was no batch of one, and its batched TPOT judged as one stream's reads as
    slow decode. (None, None, "") when nothing says so."""
    tpot = metrics.get("tpot_seconds_mean") or metrics.get("tpot_seconds_median")
    streams = _decoding_streams(metrics)
    if streams and streams > STREAMS_SEEN:
        return streams, None, "output tok/s × TPOT (Little's law)"
    rate = metrics.get("request_throughput_per_second")
    if rate and metrics.get("e2e_seconds_mean") and rate * metrics["e2e_seconds_mean"] > STREAMS_SEEN:
        return rate * metrics["e2e_seconds_mean"], None, "req/s × mean E2E: requests in flight (Little's law)"
    # A rate offered, none measured: a server that keeps up (its first token a small part of the request, so no queue
    # grows) completes what it is offered, and each request is in flight its first token plus a step an output token.
    offered, ttft, output = metrics.get("request_rate_per_second"), metrics.get("ttft_seconds_mean"), \
        metrics.get("mean_output_tokens")
    if not rate and offered and ttft and tpot and output and output > 1:
        e2e = ttft + (output - 1) * tpot
        if ttft <= KEPT_UP_TTFT_SHARE * e2e and offered * e2e > STREAMS_SEEN:
            return offered * e2e, None, "offered req/s × (TTFT + output tokens × TPOT): requests in flight (Little's " \
                                        "law, the first token too short for a queue to be growing)"
    if rate and ttft and rate * ttft > STREAMS_SEEN:
        return None, rate * ttft, "req/s × mean TTFT, Little's law"
    total = metrics.get("total_tokens_per_second")
    if tpot and total and total * tpot > STREAMS_SEEN:
        return None, total * tpot, "at most total tok/s × TPOT streams, Little's law"
    return None, None, ""


def _decoding_streams(metrics: dict) -> float | None:
    """Output tok/s × TPOT, the streams decoding at once (Little's law: each writes 1/TPOT tokens a second), or None
    where the run states either not."""
    tpot = metrics.get("tpot_seconds_mean") or metrics.get("tpot_seconds_median")
    output = metrics.get("output_tokens_per_second")
    return output * tpot if tpot and output else None


def one_stream_by_littles_law(metrics: dict) -> bool:
    """Whether a run's output tok/s × TPOT is one stream (within limit one-stream-band of 1): its tokens a second are
    one stream's at that step, so it held one request at a time (Little's law, as streams_by_littles_law's batch)."""
    streams = _decoding_streams(metrics)
    return streams is not None and 1 / ONE_STREAM_BAND <= streams <= ONE_STREAM_BAND


def summary_findings(acc: Accumulator, findings: list, checks: list, notes: list, hardware: Hardware,
                     sized=None) -> None:
    """The rules for benchmark summaries. `sized`: the model's weights per step (named_model) when no card is known."""
    first = len(findings)
    # (run, record, file) of every summary, for the rules across a file's runs
    runs = [(_Run(record, acc.labels.get("server")), record, file) for record, file in acc.summaries]
    shallowest = _kv_sweeps(runs)
    for run, record, file in runs:
        where = {"lines": [record.line_number], "file": file}
        before = len(findings)
        _artefacts(run, record, where, findings, notes)
        _in_flight(run, record, where, findings)
        _consistency(run, record, checks, findings, where)
        _burst(run, record, where, findings)
        queued = _over_cap(run, acc, where, findings) or _queue(run, record, where, findings, notes)
        if queued:
            _wait_dominates(run, where, findings)
        _prefill(run, record, where, findings, queued)
        # A run on a CPU (its own backend cell, or the log's) or an edge device (Jetson, a phone) gets a CPU's cutoff:
        # ten tokens a second is fast there.
        edge = record.labels.get("device") == "edge"
        cpu = record.labels.get("device") == "cpu" or acc.labels.get("backend") == "cpu" or edge
        rule = "summary-slow-tpot-cpu" if cpu else "summary-slow-tpot-no-hardware"
        # (a valid MLPerf Server or Interactive result met its per-token bound at its load: judged by the benchmark)
        judged = record.labels.get("mlperf_valid") and record.labels.get("mlperf_scenario") in MLPERF_BOUNDED
        slow = run.step is not None and run.step >= threshold(rule) and not hardware.judged and not judged
        # a slow rate bounding the step over a few tokens in all: no decode measure, and no healthy run either
        cold_call = run.step_bound and run.few_tokens and run.step is not None \
            and run.step >= threshold("summary-slow-tpot-no-hardware")
        if not cpu and not cold_call and _row_on_card(run, record, acc, hardware, where, findings):
            pass  # the row's model on the card given: its step judged by the weights it reads, not a fixed cutoff
        elif slow and cold_call:
            # A slow rate over a few tokens in all (a cold engine's one short call): its start-up and prompt, which
            # bound no decode step. (A fast one still shows the steps are fast.)
            findings.append(fire(
                "summary-throughput-only", f"{run.name}: {1 / run.step:.3g} output tok/s over {run.few_tokens:,.0f} "
                "output tokens in all: too few for the rate to time a decode step (a cold call's start-up and "
                "prompt are most of it)", {"output_tokens_per_second": 1 / run.step}, **where))
        elif slow and run.batch >= threshold("summary-tpot-batch-unjudged"):
            findings.append(fire(
                "summary-tpot-batch-unjudged", f"{run.name}: {run.step * 1e3:.0f} ms per output token with "
                f"{run.batch_text}: a large batch's step, which the one-stream cutoff does not judge; {hardware.ask}",
                {"tpot_seconds_mean": run.step, "streams": run.batch}, **where))
        elif slow and not cpu and sized is None and (floor := _large_model_floor(record, acc, hardware)) is not None \
                and run.step <= floor[0]:
            findings.append(fire(
                "summary-slow-tpot-large-model", f"{run.name}: {run.step * 1e3:.0f} ms per output token "
                f"(~{1 / run.step:.1f} tok/s per stream) is what {floor[1].describe()} allows {floor[2]} "
                f"({floor[0] * 1e3:.0f} ms): slow for the fixed cutoff, not for this size"
                + ("" if hardware.bandwidth_bytes_per_second else
                   f"; {'give --model' if hardware.card else 'give --gpu'} to judge it against the card"),
                {"tpot_seconds_mean": run.step, "large_model_seconds_per_token": floor[0],
                 "weights_bytes_per_step": floor[1].weights_bytes_per_step}, **where))
        elif slow and (shallow := _fast_when_shallow(record, file, shallowest, threshold(rule))) is not None:
            # The same model at a shorter context kept to the cutoff: this run's slower step is the KV cache it
            # reads a token at its depth, attention's cost, not a slow decode path.
            notes.append(f"{run.name}: {run.step * 1e3:.0f} ms per output token at {run.mean_input:,.0f} context "
                         f"tokens against {shallow[1] * 1e3:.0f} ms at {shallow[0]:,.0f}: each step reads the context's "
                         "KV cache, so the run at the shortest context is the one the cutoff judges")
        elif slow:
            findings.append(fire(
                rule, f"{run.name}: {run.step * 1e3:.0f} ms per output token (≤ {1 / run.step:.1f} tok/s per "
                f"stream{'; the whole run generates that, so no stream is faster' if run.step_bound else ''}"
                f"{' on an edge device' if edge else ' on a CPU' if cpu else ''}); judged by a fixed cutoff: "
                f"{hardware.ask}", {"tpot_seconds_mean": run.step}, **where))
        elif run.step is not None and sized is not None and not hardware.judged and not cpu:
            _slower_than_size(run, sized, where, findings, notes, acc)  # a GPU's floor: a CPU reads from DRAM
        if not cpu:
            _latency_per_output_token(run, record, where, findings)
        if run.ttft_derived:
            notes.append(f"{run.name}: no TTFT stated; {run.ttft * 1e3:,.0f} ms worked out as {run.ttft_derived}")
        assumed = record.labels.get("shape_assumed")
        if assumed and (note := f"{run.name}: the excerpt prints no arguments; the tool's defaults assumed "
                                f"({assumed})") not in notes:
            notes.append(note)
        failed = record.metrics.get("failed_requests")
        if failed and run.completed and failed > 0.05 * (failed + run.completed):
            notes.append(f"{run.name}: {failed:.0f} of {failed + run.completed:.0f} requests failed")
        if run.all_at_once and run.uncapped and run.ttft is not None and queued:
            continue  # a throughput test's latencies say nothing about latency health (unless no queue built)
        if run.one_token or any(finding.verdict in _BOTTLENECKS
                                or (finding.verdict == "measurement-artifact" and finding.score >= 0.8)
                                or finding.rule == "summary-tpot-batch-unjudged" for finding in findings[before:]) \
                or cold_call:
            continue  # healthy only when no bottleneck (or a broken measurement) was read, and the speed was judged
        if run.step_bound and run.few_tokens and run.few_tokens < HEALTHY_MIN_TOKENS:
            # A fast rate over fewer tokens than a default call's bounds the step, but times a smoke test's call,
            # not a serving run: too little to call it healthy.
            notes.append(f"{run.name}: {run.few_tokens:,.0f} output tokens in all: too few to call the run healthy")
            continue
        _health(run, record, where, findings)
    _same_work(acc, findings, first)
    quantised_not_faster(acc, findings)
    _same_load_waits(acc, findings)
    _latency_follows_prompt(runs, findings)
    _same_prompt_slower(acc, findings)
    _static_prefill_shrinks(acc, findings)
    _models_one_bandwidth(acc, runs, findings, first, hardware)
    _ttft_with_concurrency(acc, findings)
    _ttft_with_rate(acc, findings)
    _sweep_rate_not_kept(acc, findings)
    # Runs side by side (a sweep, engines compared in one table): a bottleneck in one of them is what the file shows;
    # the healthy runs are its baseline and do not outvote it.
    ours = findings[first:]
    by_design = _queue_by_design(ours, notes)
    bottleneck = max((finding.score for finding in ours if finding.verdict in _BOTTLENECKS
                      and not any(finding is queue for queue in by_design)), default=0.0)
    if len(acc.summaries) > 1 and bottleneck >= 0.5:
        for finding in ours:
            if finding.rule in ("summary-healthy", "summary-sweep-scales"):
                finding.score = min(finding.score, bottleneck - 0.05)


def _depth_group(record, file: str) -> tuple:
    """The runs of one model at one load in one file (a context sweep's cells: one row's, named alike): they differ
    only by context."""
    labels, metrics = record.labels, record.metrics
    return (file, labels.get("section_model") or labels.get("model"), labels.get("benchmark"), labels.get("device"),
            metrics.get("max_concurrency"))


def _kv_sweeps(runs: list) -> dict:
    """_depth_group -> (context tokens, decode step) of the shortest-context run, for the groups run at
    KV_SWEEP_POINTS contexts or more (a decode-speed table by context length, ISL variants of one model) whose steps
    grow with context along a line: each step reads the KV cache of the tokens before it, so a step is its weights'
    time plus a time per context token. A sweep off that line (a step at 16K slower than at 32K, a fall past what the
    shorter contexts' slope gives) is a decode path's trouble, not the KV cache's size, and is left out."""
    found: dict = {}
    for run, record, file in runs:
        depth = record.metrics.get("mean_input_tokens")
        if depth is not None and run.step is not None:
            found.setdefault(_depth_group(record, file), {})[depth] = run.step
    shallowest = {}
    for group, steps in found.items():
        points = sorted(steps.items())
        if len(points) < KV_SWEEP_POINTS:
            continue
        (shallow_depth, shallow_step), (deep_depth, deep_step) = points[0], points[-1]
        slope = (deep_step - shallow_step) / (deep_depth - shallow_depth)
        if slope >= 0 and shallow_step > 0 and all(
                abs(step / (shallow_step + slope * (at - shallow_depth)) - 1) <= KV_LINE_TOLERANCE
                for at, step in points[1:-1]):
            shallowest[group] = points[0]
    return shallowest


def _fast_when_shallow(record, file: str, shallowest: dict, cutoff: float) -> tuple | None:
    """(context, step) of the same model's shortest-context run on a KV sweep's line (_kv_sweeps) when this run ran
    at a longer context and that step is under the cutoff: this run is slower by its context. None otherwise."""
    shallow = shallowest.get(_depth_group(record, file))
    depth = record.metrics.get("mean_input_tokens")
    if shallow is None or depth is None or depth <= shallow[0] or shallow[1] >= cutoff:
        return None
    return shallow


KV_SWEEP_POINTS = limit("kv-sweep-points")
KV_LINE_TOLERANCE = limit("kv-line-tolerance")


# Below the healthy rule's confidence: a by-design queue (_queue_by_design) does not outvote the served rates.
SERVED_RATES = RULES["summary-healthy"].low - 0.05


def _queue_by_design(ours: list, notes: list) -> list:
    """A rate sweep whose finite rates are served without a finding (two summary-healthy runs or more) and whose only
    bottleneck is its all-at-once run's queue: that queue is the test's design, not the server's state, so it ranks
    below the served rates (vllm-ascend's qps 1 / 4 / 16 / inf suite). The findings so ranked, for the caller's
    bottleneck (which they no longer are)."""
    served = [finding for finding in ours if finding.rule == "summary-healthy"]
    by_design = [finding for finding in ours if finding.rule == "summary-all-at-once"]
    if len(served) < 2 or not by_design or any(finding.verdict in _BOTTLENECKS and finding.rule != "summary-all-at-once"
                                               for finding in ours):
        return []
    for finding in by_design:
        finding.score = min(finding.score, SERVED_RATES)
    notes.append(f"{len(served)} runs at finite rates are served without a queue: the all-at-once run's queue is the "
                 "throughput test's design, not the server's state")
    return by_design


FLAT_THROUGHPUT = limit("flat-throughput")
SWEEP_SCALES = limit("sweep-scales")
SWEEP_FLAT_LATENCY = limit("sweep-flat-latency")
SWEEP_STEP_GROWTH = limit("sweep-step-growth")
STEADY_TAIL = limit("steady-tail")
SAME_LOAD_MIN_IN_FLIGHT = limit("same-load-min-in-flight")
SLOWEST_PREFILL_TOKENS_PER_STEP = limit("slowest-prefill-tokens-per-step")
SERVER_PREFILL_TOKENS_PER_STEP = limit("server-prefill-tokens-per-step")
FLAT_APART = limit("flat-apart")


def _flat(low_rates: list, high_rates: list) -> bool:
    """The runs' completed requests a second stay level from the lower concurrency to the higher (a server that does
    not batch): the latency's growth is then waiting, however short the requests are."""
    return None not in low_rates + high_rates and median(high_rates) <= FLAT_THROUGHPUT * median(low_rates)


def _sweep_levels(acc: Accumulator) -> dict:
    """A file's runs at stated concurrency levels with no offered rate (a sweep table, a load tester's runs):
    (file, variant, metric) -> concurrency -> [(time, line, completed requests a second, record)]; the metric the
    median TTFT where the runs state it, else the request latency (E2E); a variant a table's column group."""
    levels: dict = {}
    for record, file in acc.summaries:
        concurrency = record.metrics.get("max_concurrency")
        ttft, e2e = summary_value(record, "ttft_seconds_mean"), summary_value(record, "e2e_seconds_mean")
        metric, value = ("TTFT", ttft) if ttft is not None else ("E2E", e2e)
        if concurrency and value is not None and offered_rate(record) is None and not record.labels.get("static_batch"):
            # (a static batch's first tokens wait for the batch's prefill, not in a queue: it grows with the batch)
            series = levels.setdefault((file, _variant(record), metric), {})
            series.setdefault(concurrency, []).append((value, record.line_number,
                                                       record.metrics.get("request_throughput_per_second"), record))
    return levels


def _prompt_heavy(record) -> bool:
    """A run mostly of prompt: more prompt tokens an output token than limit closed-loop-prompt-share, or, its lengths
    unknown, a first token hundreds of its steps long with few requests in flight (the thresholds of
    summary-ttft-over-tpot and its few-in-flight variant): the prompt's own work."""
    run = _Run(record)
    if run.mean_input and run.mean_output:
        return run.mean_input / run.mean_output > CLOSED_LOOP_PROMPT_SHARE
    return bool(run.concurrency and run.concurrency <= threshold("summary-ttft-over-tpot-few-in-flight")
                and run.ttft and run.per_token and run.ttft >= threshold("summary-ttft-over-tpot") * run.per_token)


def _variant(record) -> str | None:
    """Which of a file's sweeps a run belongs to: a table's rows of several engines or setups (its `engine` column, an
    unnamed label column) are a sweep each, as are its column groups (`benchmark`); None for a file's one sweep."""
    tool = record.labels.get("tool", "")
    setup = tool if record.source == "bench.markdown" and tool and tool != "markdown table" \
        and not tool.startswith("table column") else None
    return " ".join(filter(None, (setup, record.labels.get("benchmark")))) or None


def _ttft_with_concurrency(acc: Accumulator, findings: list) -> None:
    """summary-ttft-grows-with-concurrency: a file's runs at several concurrency levels (a sweep table), the median
    TTFT of a level against that of a level far below it; summary-e2e-grows-with-concurrency the same of the request
    latency, for runs that state no TTFT. Where neither fires, summary-sweep-scales: the completed requests a second
    grew nearly in step with the requests in flight at a level latency (_scales)."""
    for (file, variant, metric), by_level in _sweep_levels(acc).items():
        rule = "summary-ttft-grows-with-concurrency" if metric == "TTFT" else "summary-e2e-grows-with-concurrency"
        share = 0.5 if metric == "TTFT" else threshold(rule)  # of the concurrency ratio the time must grow by
        times = {level: median(t for t, *_ in runs) for level, runs in by_level.items()}
        served = {level: [rate for _, _, rate, _ in runs] for level, runs in by_level.items()}

        # The sweep's ends, or else any two levels far enough apart: a server batches up to its cap with a flat TTFT
        # and queues beyond it (sglang on MI300X: 2 s at 256, 104 s at 1,024), which the ends of a sweep from 1
        # dilute; then the steepest such growth is the one shown. Under a second, only with the throughput flat.
        # (Levels nearer, from limit flat-apart, where the completed requests a second stay flat between them:
        # Little's law then puts every added request in the wait.)
        pairs = [(low, high) for low in times for high in times
                 if times[low] > 0 and (high / low >= threshold("summary-ttft-grows-with-concurrency")
                                        or high / low >= FLAT_APART and _flat(served[low], served[high]))
                 and (times[high] >= 1.0 or _flat(served[low], served[high]))
                 and times[high] >= share * (high / low) * times[low]]
        if not pairs:
            _scales(file, variant, metric, times, served, by_level, findings)
            continue
        ends = (min(times), max(times))
        low, high = ends if ends in pairs else max(
            pairs, key=lambda pair: times[pair[1]] / times[pair[0]] / (pair[1] / pair[0]))
        low_time, high_time = times[low], times[high]
        lines = sorted({line for level in (low, high) for _, line, *_ in by_level[level]})
        waits = ("each first token waits for the requests ahead of it" if metric == "TTFT" else
                 "a request takes as long as the ones ahead of it together: they are served one after another, "
                 "not batched")
        # How sure: from the least growth the rule takes (share of the ratio) to growth in step with the requests in
        # flight; a flat throughput between the levels is a saturated server whatever the growth. Not for runs
        # mostly of prompt (limit closed-loop-prompt-share): what their requests wait for is the prompts' prefill.
        growth = high_time / low_time / (high / low)
        prompt_heavy = any(_prompt_heavy(record) for level in (low, high) for *_, record in by_level[level])
        sure = 0.0 if prompt_heavy else 1.0 if _flat(served[low], served[high]) else \
            min(1.0, max(0.0, (growth - share) / (1 - share)))
        findings.append(fire(
            rule, f"{variant + ': ' if variant else ''}median {metric} {low_time * 1e3:.0f} ms at concurrency "
            f"{low:.0f}, {high_time * 1e3:.0f} ms at {high:.0f}: {high_time / low_time:.1f}× for {high / low:.0f}× "
            f"the requests in flight: {waits}", {f"{metric.lower()}_seconds_low": low_time,
                                                 f"{metric.lower()}_seconds_high": high_time,
                                                 "concurrency_low": low, "concurrency_high": high},
            share=sure, lines=lines, file=file))


def _same_work(acc: Accumulator, findings: list, first: int) -> None:
    """Offline runs of one file that generate the same tokens (count and model): the fastest is what the work needs
    on that card, and a run far slower than it has a broken generation path (summary-same-work-slower); its healthy
    reading is taken back."""
    runs: dict = {}
    for record, file in acc.summaries:
        tokens, rate = record.metrics.get("total_output_tokens"), record.metrics.get("output_tokens_per_second")
        if record.labels.get("offline_batch") and tokens and rate and rate > 0:
            runs.setdefault((file, tokens, record.labels.get("model")), []).append(record)
    ratio = threshold("summary-same-work-slower")
    for (file, tokens, _model), records in runs.items():
        fastest = max(records, key=lambda record: record.metrics["output_tokens_per_second"])
        best = fastest.metrics["output_tokens_per_second"]
        for record in records:
            rate = record.metrics["output_tokens_per_second"]
            if best < ratio * rate:
                continue
            findings[first:] = [finding for finding in findings[first:] if not (
                finding.rule == "summary-healthy" and finding.evidence[0].lines == [record.line_number]
                and finding.evidence[0].file == file)]
            findings.append(fire(
                "summary-same-work-slower",
                f"{_Run(record).name}: {tokens:,.0f} generated tokens at {rate:,.1f} tok/s, {best / rate:.0f}× slower "
                f"than the same work at {best:,.1f} tok/s (line {fastest.line_number}): the generation path is "
                "broken, not tuned", {"output_tokens_per_second": rate, "same_work_tokens_per_second": best},
                lines=[record.line_number], file=file))


def _latency_follows_prompt(runs: list, findings: list) -> None:
    """summary-latency-follows-prompt: a file's runs of one sweep at three prompt lengths or more (the longest at
    least PROMPT_SWEEP_SPAN × the shortest), one request at a time or no load stated and their outputs alike, whose
    request latency (E2E, or TTFT + the tokens after the first; a first token alone is the prompt's by definition)
    rises with the prompt: the cost a prompt token adds (the slope from the shortest to the longest run) times the
    longest prompt is the rule's share of that run's latency or more."""
    sweeps: dict = {}
    for run, record, file in runs:  # summary_findings' (run, record, file) of every summary
        metrics = record.metrics
        latency = run.e2e
        if latency is None and run.ttft is not None and run.per_token and run.mean_output:
            latency = run.ttft + run.per_token * (run.mean_output - 1)  # the request rebuilt: first token, then the rest
        if metrics.get("mean_input_tokens") and latency and (metrics.get("max_concurrency") or 1) <= 1:
            sweeps.setdefault((file, _variant(record)), []).append((metrics["mean_input_tokens"], latency, record))
    share = threshold("summary-latency-follows-prompt")
    for (file, _variant_name), runs in sweeps.items():
        runs.sort(key=lambda run: run[0])
        outputs = [run[2].metrics.get("mean_output_tokens") for run in runs]
        if len({tokens for tokens, _latency, _record in runs}) < 3 or runs[-1][0] < PROMPT_SWEEP_SPAN * runs[0][0] \
                or any(runs[index + 1][1] < runs[index][1] for index in range(len(runs) - 1)) \
                or (all(outputs) and max(outputs) > 1.5 * min(outputs)):
            continue
        (short, short_latency, _), (long, long_latency, record) = runs[0], runs[-1]
        per_token = (long_latency - short_latency) / (long - short)
        if per_token <= 0 or per_token * long < share * long_latency:
            continue
        findings.append(fire(
            "summary-latency-follows-prompt",
            f"latency rises with the prompt: {short:,.0f} → {long:,.0f} tokens take {short_latency:.3g} → "
            f"{long_latency:.3g} s, {per_token * 1e3:.2f} ms a prompt token (~{1 / per_token:,.0f} tok/s of prefill), "
            f"{per_token * long / long_latency:.0%} of the longest run's latency: the prompt's processing is the cost",
            {"seconds_per_prompt_token": per_token, "longest_prompt_tokens": long, "longest_latency_seconds":
             long_latency}, lines=[run[2].line_number for run in runs], file=file))


def _same_load_waits(acc: Accumulator, findings: list) -> None:
    """summary-same-load-ttft-waits: runs of one file under the same load (the same stated concurrency, at least
    limit same-load-min-in-flight, the same offered rate or none, the same stated prompt length or none), one of
    whose mean TTFT is this many times the fastest's and at least 2 s: the same requests met the same engine work, so
    the extra time before the first token is waiting in front of it (a proxy or router that holds requests back, a
    replica's queue)."""
    loads: dict = {}
    for record, file in acc.summaries:
        concurrency, ttft = record.metrics.get("max_concurrency"), summary_value(record, "ttft_seconds_mean")
        if concurrency and concurrency >= SAME_LOAD_MIN_IN_FLIGHT and ttft and ttft > 0:
            # (a stated prompt length is part of the work: 10,000 tokens at 16 in flight is not 1,000's load)
            key = (file, concurrency, offered_rate(record), record.metrics.get("mean_input_tokens"))
            loads.setdefault(key, []).append((ttft, record))
    ratio = threshold("summary-same-load-ttft-waits")
    for (file, concurrency, _offered, _prompt), runs in loads.items():
        fastest, quick = min(runs, key=lambda run: run[0])
        for ttft, record in runs:
            if ttft >= ratio * fastest and ttft >= 2.0:
                findings.append(fire(
                    "summary-same-load-ttft-waits",
                    f"{_Run(record).name}: mean TTFT {ttft:,.2f} s, {ttft / fastest:.0f}× the {fastest:,.2f} s of "
                    f"{_Run(quick).name} under the same load ({concurrency:,.0f} requests in flight): the same work "
                    "waits longer before its first token on this path", {"ttft_seconds_mean": ttft,
                                                                         "same_load_ttft_seconds": fastest},
                    lines=sorted({record.line_number, quick.line_number}), file=file))


# A run named for a prompt already read (`warm TTFT`, `cache hit`, `2nd turn`): its prefix is cached, not read again.
# (A warm-up run, `warmup`, is no cached prompt: the client's first requests, sent one at a time.)
_REUSED_PROMPT = re.compile(r"\bwarm\b|cached|cache hit|\bhit\b|prefix|reuse|\b2nd\b|\bsecond (?:run|turn|request|pass)")


def _requests_in_flight(run: _Run, record) -> float | None:
    """A run's requests in flight: its stated concurrency, else completed requests a second × mean request time
    (Little's law, however few)."""
    rate = record.metrics.get("request_throughput_per_second")
    return run.concurrency or (rate * run.e2e if rate and run.e2e else None)


def _same_prompt_slower(acc: Accumulator, findings: list) -> None:
    """summary-same-prompt-slower-prefill: runs of one file with the same stated prompt length and few requests in
    flight (none stated, or under limit same-load-min-in-flight), one of whose TTFT is this many times the fastest's
    and at least 2 s: the same prompt read that much slower on one path (another engine, build or setting) is that
    path's prefill, not a wait (too few in flight to queue)."""
    prompts: dict = {}
    for record, file in acc.summaries:
        concurrency, ttft = record.metrics.get("max_concurrency"), summary_value(record, "ttft_seconds_mean")
        prompt = record.metrics.get("mean_input_tokens")
        rate = record.metrics.get("input_tokens_per_second")
        if ttft is None and prompt and rate and record.labels.get("prompt_rate"):
            ttft = prompt / rate  # one prompt read at its stated rate (a prompt-length sweep's cell)
        if prompt and prompt >= 128 and ttft and ttft > 0 and not offered_rate(record) \
                and (concurrency is None or concurrency < SAME_LOAD_MIN_IN_FLIGHT) \
                and not _REUSED_PROMPT.search(_Run(record).name.lower()):
            prompts.setdefault((file, prompt, concurrency), []).append((ttft, record))
    ratio = threshold("summary-same-prompt-slower-prefill")
    for (file, prompt, _concurrency), runs in prompts.items():
        fastest, quick = min(runs, key=lambda run: run[0])
        slow = [(ttft, record) for ttft, record in runs if ttft >= ratio * fastest and ttft >= 2.0]
        if slow:
            ttft, record = max(slow, key=lambda run: run[0])
            run, quick_run = _Run(record), _Run(quick)
            in_flight, quick_in_flight = _requests_in_flight(run, record), _requests_in_flight(quick_run, quick)
            if run.per_token and quick_run.per_token and in_flight and quick_in_flight \
                    and run.per_token <= threshold("summary-same-prompt-ttft-waits") * quick_run.per_token \
                    and in_flight >= MORE_IN_FLIGHT * quick_in_flight:
                # The same prompt, the same step, more requests at once: the engine reads the prompt no slower on
                # this run, its first tokens waited for the requests ahead (a single slot, a full batch).
                findings.append(fire(
                    "summary-same-prompt-ttft-waits",
                    f"{run.name}: TTFT {ttft:,.2f} s for a {prompt:,.0f}-token prompt, {ttft / fastest:.0f}× the "
                    f"{fastest:,.2f} s of {quick_run.name} for the same prompt, at the same per-token time "
                    f"({run.per_token * 1e3:.1f} vs {quick_run.per_token * 1e3:.1f} ms) with ~{in_flight:.1f} "
                    f"requests in flight against ~{quick_in_flight:.1f}: the first tokens waited for the requests "
                    "ahead of them", {"ttft_seconds_mean": ttft, "same_prompt_ttft_seconds": fastest,
                                      "requests_in_flight": in_flight, "same_prompt_requests_in_flight": quick_in_flight},
                    lines=sorted({record.line_number, quick.line_number}), file=file))
                continue
            findings.append(fire(
                "summary-same-prompt-slower-prefill",
                f"{_Run(record).name}: TTFT {ttft:,.2f} s for a {prompt:,.0f}-token prompt, {ttft / fastest:.0f}× the "
                f"{fastest:,.2f} s of {_Run(quick).name} for the same prompt with few requests in flight: this "
                "path reads the prompt that much slower", {"ttft_seconds_mean": ttft, "same_prompt_ttft_seconds":
                                                              fastest, "mean_input_tokens": prompt},
                lines=sorted({record.line_number, quick.line_number}), file=file))


def _static_prefill_shrinks(acc: Accumulator, findings: list) -> None:
    """summary-static-batch-prefill-shrinks: a static-batch sweep of one file whose larger batch prefills in a small
    share of a smaller batch's time; the first such pair (smallest batches) is shown."""
    sweeps: dict = {}
    for record, file in acc.summaries:
        batch, ttft = record.metrics.get("max_concurrency"), summary_value(record, "ttft_seconds_mean")
        if record.labels.get("static_batch") and batch and ttft and ttft > 0:
            sweeps.setdefault((file, record.source), []).append((batch, ttft, record.line_number))
    share = threshold("summary-static-batch-prefill-shrinks")
    for (file, _source), runs in sweeps.items():
        runs.sort()
        pair = next(((small, large) for index, small in enumerate(runs) for large in runs[index + 1:]
                     if large[0] > small[0] and large[1] <= share * small[1]), None)
        if pair is None:
            continue
        (small, small_ttft, small_line), (large, large_ttft, large_line) = pair
        findings.append(fire(
            "summary-static-batch-prefill-shrinks",
            f"batch {large:g} prefills in {large_ttft * 1e3:,.1f} ms, batch {small:g} in {small_ttft * 1e3:,.1f} ms: "
            f"{large / small:g}× the prompts in {large_ttft / small_ttft:.0%} of the time, so the smaller batches' "
            "timings hold a compilation or a missed shape, not prefill; warm every batch shape up and measure again",
            {"small_batch": small, "small_batch_prefill_seconds": small_ttft, "large_batch": large,
             "large_batch_prefill_seconds": large_ttft}, lines=[small_line, large_line], file=file))


SIZES_APART = limit("sizes-apart")
_CUTOFF_RULES = ("summary-slow-tpot-no-hardware", "summary-slow-tpot-cpu")


def _models_one_bandwidth(acc: Accumulator, runs: list, findings: list, first: int, hardware: Hardware) -> None:
    """summary-models-one-bandwidth: one stream's runs of several models a file names (a table's section or a row's
    model), each sized from its name: weights per step ÷ the median step is the bandwidth its decode reached. The same
    bandwidth for models of different sizes is the machine's memory at work, and the fixed cutoff's readings of those
    runs are taken back."""
    from inferledger.diagnose.roofline import LOW_BANDWIDTH

    by_file: dict = {}  # file -> model -> [(step, line)]
    for run, record, file in runs:
        name = record.labels.get("section_model")
        if not name or run.step is None or run.step_bound or run.batch >= STREAMS_SEEN:
            continue
        by_file.setdefault(file, {}).setdefault(name, []).append((run.step, record.line_number))
    for file, steps_of in by_file.items():
        reached = {}  # model -> (bandwidth B/s, its NamedModel, median step)
        for name, steps in steps_of.items():
            sized = _row_model(name, acc)
            step = median(step for step, _line in steps)
            if sized is not None and step > 0:
                reached[name] = (sized.weights_bytes_per_step / step, sized, step)
        if len(reached) < 2:
            continue
        sizes = [sized.weights_bytes_per_step for _bandwidth, sized, _step in reached.values()]
        speeds = [bandwidth for bandwidth, _sized, _step in reached.values()]
        if max(sizes) < SIZES_APART * min(sizes) or max(speeds) > threshold("summary-models-one-bandwidth") * \
                min(speeds) or min(speeds) < LOW_BANDWIDTH:
            continue
        lines = sorted(line for name in reached for _step, line in steps_of[name])
        taken = set(lines)
        findings[first:] = [finding for finding in findings[first:] if not (
            finding.rule in _CUTOFF_RULES and finding.evidence[0].file == file
            and set(finding.evidence[0].lines) <= taken)]
        each = "; ".join(f"{name} {1 / step:.1f} tok/s × {sized.weights_bytes_per_step / 1e9:.1f} GB = "
                         f"{bandwidth / 1e9:.0f} GB/s" for name, (bandwidth, sized, step) in reached.items())
        findings.append(fire(
            "summary-models-one-bandwidth", f"{each}: every model's weights are read at {min(speeds) / 1e9:.0f}-"
            f"{max(speeds) / 1e9:.0f} GB/s, the rate falling as the size grows: decode runs at this machine's memory "
            f"bandwidth (sizes and formats read from the names); slow tokens are the memory's, not a fault"
            f"{hardware.ask_card}", {"effective_bandwidth_bytes_per_second_min": min(speeds),
                                        "effective_bandwidth_bytes_per_second_max": max(speeds)},
            lines=lines, file=file))


def _large_model_floor(record, acc: Accumulator, hardware: Hardware) -> tuple | None:
    """(seconds a step, the sized model, where) one stream of the model the run's own row names with a size (`70B F16`, a
    table's Model cell) takes on the card given (--gpu) or else the slowest device of the log's kind
    (rules_requests.slow_floor); None when the row states no size. Rows of several models, each its own size, are
    why: --model names one for the whole log (and a model given so is judged by _slower_than_size and the roofline)."""
    from inferledger.diagnose.rules_requests import (
        LARGE_MODEL_EFFICIENCY,
        slow_floor,
        stream_seconds,
        tensor_parallel,
    )

    name = record.labels.get("section_model")
    sized = _row_model(name, acc) if name else None
    if sized is None:
        return None
    shards = tensor_parallel(acc)
    if hardware.bandwidth_bytes_per_second:
        seconds = stream_seconds(sized, hardware.bandwidth_bytes_per_second)
        place = (f"on the {hardware.card_name} ({hardware.bandwidth_bytes_per_second / 1e9:,.0f} GB/s at "
                 f"{LARGE_MODEL_EFFICIENCY:.0%})")
        return seconds / shards, sized, place
    seconds, place = slow_floor(sized, acc, shards)
    return seconds, sized, place


ROW_WEIGHTS_SHARE = limit("row-weights-share")


def _row_on_card(run: _Run, record, acc: Accumulator, hardware: Hardware, where: dict, findings: list) -> bool:
    """A row whose own model cell states its size (`Mistral 7B`: a table of several models, so no --model names them
    all) with the card given or named: one stream's step against the weights the name states read at the card's
    bandwidth (roofline.named_floor_seconds), where reading them is most of the floor (limit row-weights-share).
    Far under it, hardware-named-decode-far-below-floor; near it, hardware-named-decode-near-floor. A run that states
    only its whole output rate bounds its step from below, and a batch only raises that rate, so a rate far under is
    slow at any batch (a dense model: a mixture's batch reads more experts than one token); a stream of a larger
    batch reads its cache too, which the name does not give: not judged. True when the row was judged, so the fixed
    cutoff stands down."""
    from inferledger.diagnose.roofline import (
        IMPOSSIBLE_FRACTION,
        NAMED_LOW_FRACTION,
        NAMED_MAX_BATCH,
        NAMED_NEAR_FRACTION,
        named_floor_seconds,
    )
    from inferledger.diagnose.rules_requests import tensor_parallel

    name = record.labels.get("row_model")
    if not hardware.bandwidth_bytes_per_second or hardware.judged or not name or not run.step:
        return False
    sized = _row_model(name, acc)
    one_stream = run.batch <= NAMED_MAX_BATCH and not run.step_bound
    if sized is None or not (one_stream or (run.step_bound and not sized.mixture_of_experts)):
        return False
    shards = tensor_parallel(acc)
    bandwidth = hardware.bandwidth_bytes_per_second * shards
    floor = named_floor_seconds(sized, bandwidth)
    fraction = floor / run.step
    if sized.weights_bytes_per_step / bandwidth < ROW_WEIGHTS_SHARE * floor or fraction > IMPOSSIBLE_FRACTION \
            or (fraction >= NAMED_LOW_FRACTION and not one_stream):
        # a small model's step is mostly its layers' fixed cost; faster than the floor, the name misread; a whole
        # run's rate not far under bounds no stream's step
        return False
    on = f"{shards} × the {hardware.card_name}" if shards > 1 else f"the {hardware.card_name}"
    bound = " (at least: the whole run generates that)" if run.step_bound else ""
    text = (f"{run.name}: {run.step * 1e3:.1f} ms per output token{bound} reaches {fraction:.0%} of the speed the "
            f"weights allow on {on} ({floor * 1e3:.2f} ms: {sized.describe()}, sized from the row's model cell)")
    numbers = {"observed_decode_seconds_per_token": run.step, "named_decode_floor_seconds_per_token": floor,
               "decode_roofline_fraction": fraction}
    if fraction < NAMED_LOW_FRACTION:
        findings.append(fire("hardware-named-decode-far-below-floor",
                             text + ": the engine or an offload, not the memory, limits decode", numbers, **where))
    elif fraction >= NAMED_NEAR_FRACTION:
        findings.append(fire("hardware-named-decode-near-floor", text + ": as fast as the memory allows", numbers,
                             **where))
    return True


def _row_model(name: str, acc: Accumulator):
    """The size and format a row's model cell states (named_model.from_name), or None. An ollama tag
    (`llama3.1:8b`) names ollama's default format when it states none."""
    from inferledger.diagnose.named_model import from_name

    return from_name(name, "ollama" if ":" in name and "/" not in name else acc.labels.get("engine"))


def _slower_than_size(run: _Run, sized, where: dict, findings: list, notes: list, acc: Accumulator) -> None:
    """The step against one stream's read of the weights the model's size states on a slow common card; not for a
    run that held several streams at once and states no batch (Little's law): its step is a batch's. The log's
    tensor-parallel cards share the floor (slow_card_seconds)."""
    from inferledger.diagnose.rules_requests import slow_floor, tensor_parallel

    # Little's law says several at once (a stated batch of a dense model is judged below: its step reads the weights
    # once for all); a mixture of experts' batch reads the experts its tokens chose, more than one token's active share.
    moe_batch = sized.mixture_of_experts and run.batch > STREAMS_SEEN
    if (run.concurrency is None and run.batch) or moe_batch:
        notes.append(f"{run.name}: {run.step * 1e3:.1f} ms per output token with {run.batch_text}: a batch's step, "
                     "not judged against one stream's read of the weights"
                     + (" (a mixture of experts: the batch reads more experts than one token)" if moe_batch else ""))
        return
    shards = tensor_parallel(acc)
    floor, place = slow_floor(sized, acc, shards)
    if run.step < threshold("summary-slower-than-size-allows") * floor:
        return
    findings.append(fire(
        "summary-slower-than-size-allows", f"{run.name}: {run.step * 1e3:.1f} ms per output token is "
        f"{run.step / floor:.1f}× the {floor * 1e3:.1f} ms that {sized.describe()} takes {place}: "
        "slower than the slowest such memory streams it; give --gpu to judge it against the hardware",
        {"observed_seconds_per_token": run.step, "slow_card_seconds_per_token": floor,
         "weights_bytes_per_step": sized.weights_bytes_per_step, "tensor_parallel_size": shards}, **where))


def _artefacts(run: _Run, record, where: dict, findings: list, notes: list) -> None:
    name, ttft, e2e = run.name, run.ttft, run.e2e
    first, later = record.metrics.get("first_call_seconds"), record.metrics.get("later_calls_seconds_median")
    if first is not None and later and first >= threshold("summary-first-call-cold") * later:
        findings.append(fire("summary-first-call-cold", f"{name}: the first call took {first:,.3g} s, "
                             f"{first / later:.0f}× the {later:,.3g} s median of the later ones: a cold start (load, "
                             "boot, warm-up), not serving time", {"first_call_seconds": first,
                                                                   "later_calls_seconds_median": later}, **where))
    if ttft is not None and ttft <= 0 and (run.completed or run.output_rate or e2e):
        findings.append(fire("summary-ttft-zero", f"{name}: mean TTFT is 0 ms: the first token was not timed "
                             "", {"ttft_seconds_mean": ttft}, **where))
    # A unit the reader assumed (bare figures read as ms) cannot show a first token under a millisecond.
    fastest = ttft if ttft is not None else record.metrics.get("ttft_seconds_max")
    if fastest is not None and 0 < fastest <= threshold("summary-ttft-under-one-pass") \
            and not record.labels.get("latency_unit_assumed"):
        every = "mean TTFT" if ttft is not None else "every first token the histogram counts at most"
        findings.append(fire("summary-ttft-under-one-pass", f"{name}: {every} {fastest * 1e3:.3g} ms: under one "
                             "forward pass of any model; the first token was not timed from the request's arrival",
                             {"ttft_seconds": fastest}, **where))
    if run.output_rate is not None and run.output_rate <= 0 and (run.completed or ttft or run.per_token or run.achieved):
        done = f"{run.completed:.0f} requests done" if run.completed else f"{run.achieved:,.3g} requests a second " \
            "done" if run.achieved and not (ttft or run.per_token) else "latencies measured"
        findings.append(fire("summary-zero-throughput", f"{name}: output throughput 0.0 tok/s with {done}: the "
                             "throughput was not measured",
                             {"output_tokens_per_second": run.output_rate, "completed_requests": run.completed},
                             **where))
    if run.not_streamed:
        findings.append(fire("summary-ttft-equals-e2e", f"{name}: {run.not_streamed}: the replies reached the client "
                             "whole (not streamed), so the TTFT is each request's full time and the per-token times "
                             "measure nothing", run.not_streamed_numbers, **where))
        # Not a first token nor a decode step: no rule reads them (a TTFT holding the decode is no wait), nor is the
        # run called healthy on them.
        run.ttft = run.per_token = run.step = None
        run.one_token = True
    received, generated = record.metrics.get("total_output_tokens_retokenized"), record.metrics.get("total_output_tokens")
    if received is not None and generated and received <= threshold("summary-retokenized-short") * generated:
        findings.append(fire(
            "summary-retokenized-short", f"{name}: the client's text re-counts to {received:,.0f} of the "
            f"{generated:,.0f} tokens generated: it did not see the text as it streamed, so its TTFT and per-token "
            "times measure something else", {"total_output_tokens_retokenized": received,
                                             "total_output_tokens": generated}, **where))
        run.per_token = run.step = None  # not a decode measurement: no rule reads it
        run.one_token = True  # nor a healthy one
    if run.per_token == 0 and not run.per_token_derived and run.mean_output is not None \
            and 0 < run.mean_output <= threshold("summary-one-token"):
        # A per-token time of 0.00 beside about one token a request: the client had no second token to time and
        # printed its placeholder, a prefill test's (sglang#12263). Nothing was mis-measured: the per-token time is
        # set aside and the run judged on its first token.
        notes.append(f"{name}: {run.mean_output:.2f} tokens generated per request and a per-token time of 0: no "
                     "decode step was timed (a prefill test); the run is judged on its first token")
        run.per_token = run.step = None
    elif run.per_token == 0 and not run.per_token_derived and run.mean_output is None:
        # A per-token time of 0.00 and no output length: a prefill test's placeholder or a timer that saw no second
        # token (a reasoning model's tokens not counted); either way no decode step was timed, and none is healthy
        notes.append(f"{name}: a per-token time of 0 and no output length: no decode step was timed; the run is "
                     "judged on its first token")
        run.per_token = run.step = None
        run.one_token = True
    if run.per_token is not None and not run.per_token_derived and run.mean_output is not None \
            and 0 < run.mean_output <= threshold("summary-one-token"):
        findings.append(fire("summary-one-token", f"{name}: {run.per_token * 1e3:.2f} ms per output token with "
                             f"{run.mean_output:.2f} tokens generated per request: no second token to time, so this "
                             "is not a decode measurement", {"mean_output_tokens": run.mean_output,
                                                             "seconds_per_token": run.per_token}, **where))
        run.per_token = run.step = None  # not a decode measurement: no rule reads it
        run.one_token = True
    if run.per_token is not None and not run.one_token and prefill_interleaved(record, run.per_token):
        ratio = input_per_output(record.metrics)
        findings.append(fire(
            "summary-prefill-interleaved", f"{name}: {run.per_token * 1e3:,.0f} ms per output token in a run of "
            f"{ratio:,.0f} prompt tokens per output token: each request's few decode steps wait between the other "
            "requests' prefills, so this is prefill time, not a decode measurement",
            {"input_per_output_tokens": ratio, "seconds_per_token": run.per_token}, **where))
        run.per_token = run.step = None
        run.one_token = True  # as with one token: no decode rule reads it, and the run is not called healthy
    ttst = record.metrics.get("ttst_seconds_mean")
    if ttst is not None and ttst < threshold("summary-chunked-ttst") and ttft is not None and ttft > 0.2:
        findings.append(fire(
            "summary-chunked-ttst", f"{name}: time to second token {ttst * 1e3:.2f} ms after a {ttft * 1e3:.0f} ms "
            "first token: tokens arrive in chunks, so TTFT depends on what the tool counts as the first token",
            {"ttst_seconds_mean": ttst, "ttft_seconds_mean": ttft}, **where))


def _in_flight(run: _Run, record, where: dict, findings: list) -> None:
    """Fewer requests in flight than the run allowed: the client, not the server, set the pace."""
    e2e, achieved, completed, duration = run.e2e, run.achieved, run.completed, run.duration
    if not (e2e and achieved and completed and duration) or duration < 3 * e2e:
        return  # one wave of requests: the ramp up and the drain are most of the run
    if run.concurrency is None and run.offered is None:
        return  # what the client allowed is not stated: its cap may be what kept the rest out
    reported = record.metrics.get("mean_concurrency")
    in_flight = reported or achieved * e2e
    allowed = min(run.concurrency or completed, completed)
    if run.offered is not None and math.isfinite(run.offered) and run.offered > 0:
        allowed = min(allowed, run.offered * e2e)
    if allowed < 4 or in_flight >= threshold("summary-concurrency-not-kept") * allowed:
        return
    findings.append(fire(
        "summary-concurrency-not-kept",
        f"{run.name}: {in_flight:.1f} requests in flight on average "
        f"({'as the client reports' if reported else f'{achieved:.3g} req/s × {e2e:.3g} s'}) where the "
        f"run allowed {allowed:.0f}, over a {duration:.4g} s run: the client did not keep its requests in flight, so "
        "its throughput and duration are the client's pace, not the server's",
        {"requests_in_flight": in_flight, "requests_allowed": allowed, "duration_seconds": duration,
         "e2e_seconds_mean": e2e}, **where))


def _latency_per_output_token(run: _Run, record, where: dict, findings: list) -> None:
    """A run that states only its request latency and rates (the 2023 benchmark_serving.py: total time, throughput,
    average latency, latency per token and per output token): a latency per output token far past any GPU decode
    step, with many requests in flight, is time spent waiting."""
    if run.ttft is not None or run.per_token is not None or not run.e2e or not run.achieved:
        return
    per_output = record.metrics.get("e2e_per_output_token_seconds_mean") or (
        run.e2e / run.mean_output if run.mean_output else None)
    in_flight = run.achieved * run.e2e
    if per_output is None or per_output < threshold("summary-latency-per-output-token") \
            or in_flight < LATENCY_PER_TOKEN_MIN_IN_FLIGHT:
        return
    findings.append(fire(
        "summary-latency-per-output-token", f"{run.name}: {per_output:.2f} s of request latency per output token "
        f"(mean {run.e2e:.3g} s) with ~{in_flight:.0f} requests in flight ({run.achieved:.3g} req/s × {run.e2e:.3g} "
        "s): far past any GPU decode step, so requests spent their time waiting (no TTFT in the log to say where)",
        {"e2e_per_output_token_seconds_mean": per_output, "requests_in_flight": in_flight,
         "e2e_seconds_mean": run.e2e}, **where))


def _burst(run: _Run, record, where: dict, findings: list) -> None:
    """Every request in flight together (rate inf uncapped, or a peak concurrency of all of them) and few enough for
    one running batch: no slot is waited for, so a first token far later than its own prompt's prefill waits for
    the other prompts' prefills. One prompt's prefill is priced in decode steps: a prefill pass reads the weights
    once like a step but computes on every prompt token, so it costs about tokens ÷ (ridge × bytes per weight)
    steps: ~1/300 of the prompt at bf16 on an H100, ~1/75 with 4-bit weights; 1/100 is used, and twice the whole
    burst's prefill is the most this can explain (beyond it, a queue)."""
    peak = record.metrics.get("peak_concurrent_requests")
    completed, step, ttft, mean_input = run.completed, run.step, run.ttft, run.mean_input
    # A peak of all of them at once is a burst when they arrived so (no rate stated, or all in the run's first
    # twentieth); at a finite rate spread over the run it is a queue the arrivals built (the queue rules).
    offered = run.offered
    arrived_at_once = offered is None or not math.isfinite(offered) or run.arrived_in_burst
    together = (run.all_at_once and run.uncapped) or bool(peak and completed and peak >= 0.9 * completed
                                                           and arrived_at_once)
    if not together or not completed or completed < 2 or completed > threshold("summary-burst-prefill") \
            or not step or run.step_bound or ttft is None or not mean_input or mean_input < 256 or ttft < 1.0:
        return
    one_prompt = mean_input / PREFILL_TOKENS_PER_STEP * step
    burst = completed * one_prompt
    if ttft < 2 * one_prompt or ttft > 2 * burst:
        return
    findings.append(fire(
        "summary-burst-prefill", f"{run.name}: {completed:.0f} requests in flight together, {mean_input:,.0f} "
        f"input tokens each: mean TTFT {format_seconds_short(ttft)} is {ttft / one_prompt:.1f}× one prompt's prefill "
        f"(~{one_prompt:.2g} s at {PREFILL_TOKENS_PER_STEP} prompt tokens per {step * 1e3:.1f} ms step) and within "
        f"the burst's {format_seconds_short(burst)}: first tokens wait for the other prompts' prefills",
        {"ttft_seconds_mean": ttft, "one_prompt_prefill_seconds": one_prompt, "burst_prefill_seconds": burst,
         "requests_together": completed}, **where))


def _consistency(run: _Run, record, checks: list, findings: list, where: dict) -> None:
    ttft, tpot, e2e, mean_output = run.ttft, run.tpot, run.e2e, run.mean_output
    if ttft is not None and tpot is not None and e2e is not None and mean_output and mean_output > 1:
        predicted = ttft + tpot * (mean_output - 1)
        ratio = predicted / e2e if e2e > 0 else math.inf
        checks.append({"check": "latency composition", "source": run.name, "predicted_e2e_seconds": predicted,
                       "reported_e2e_seconds": e2e, "ratio": ratio, "ok": 0.85 <= ratio <= 1.15,
                       "meaning": "TTFT + TPOT x (mean output - 1) vs mean E2E; a mismatch means "
                                  "chunked streaming, speculative decoding or a broken measurement"})
        if ratio < threshold("summary-parts-unaccounted"):
            findings.append(fire(
                "summary-parts-unaccounted", f"{run.name}: TTFT {ttft:.2f} s + {mean_output - 1:,.0f} tokens × "
                f"{tpot * 1e3:.1f} ms = {predicted:.2f} s of a {e2e:.2f} s mean request: {1 - ratio:.0%} of it is "
                "not in the summary's first-token and per-token figures", {"predicted_e2e_seconds": predicted,
                                                                           "e2e_seconds_mean": e2e}, **where))
    if run.output_rate and run.per_token:
        decoding = run.output_rate * run.per_token
        check = {"check": "Little's law", "source": run.name, "output_tokens_per_second": run.output_rate,
                 "seconds_per_token": run.per_token, "implied_decoding_requests": decoding}
        cap = run.concurrency or record.metrics.get("mean_concurrency")
        if cap:
            check["concurrency"] = cap
            check["ok"] = decoding <= cap * 1.2
        checks.append(check)
        if cap and decoding > threshold("summary-streams-past-cap") * cap and not run.per_token_derived:
            findings.append(fire(
                "summary-streams-past-cap", f"{run.name}: {run.output_rate:,.1f} output tok/s × "
                f"{run.per_token * 1e3:.1f} ms a token = {decoding:.0f} streams decoding at once, "
                f"{decoding / cap:.1f}× the {cap:.0f} the run held: the per-token figure is no one token's time "
                "(a gap between multi-token chunks: MTP, speculative decoding, a buffered stream) or the rate is "
                "not this run's; neither can be read as the stream's speed",
                {"implied_decoding_requests": decoding, "concurrency": cap}, **where))


def _spread(record, metric: str) -> float | None:
    metrics = record.metrics
    low = metrics.get(f"{metric}_p1", metrics.get(f"{metric}_min"))
    high = metrics.get(f"{metric}_p99", metrics.get(f"{metric}_max"))
    return high / low if low and high and low > 0 else None


def _ttft_spread(run: _Run, record, where: dict, findings: list) -> bool:
    spread = _spread(record, "ttft_seconds")
    # a table that gives only the fastest and the slowest first token (llmapibenchmark's Min/Max TTFT): the slowest
    # stands for the run's TTFT in the one-second test
    ttft = run.ttft if run.ttft is not None else record.metrics.get("ttft_seconds_p99",
                                                                    record.metrics.get("ttft_seconds_max"))
    # A tail of seconds counts as a mean of a second does: a p99 of 8.7 s behind a 0.68 s mean is requests that
    # waited (a p99 of 1.4 s over a 0.1 s fastest, median 0.4 s, is left to summary-ttft-over-fastest).
    tail = record.metrics.get("ttft_seconds_p99", record.metrics.get("ttft_seconds_max")) or 0.0
    if spread is None or ttft is None or (ttft < 1.0 and tail < 2.0) or spread < threshold("summary-ttft-spread"):
        return False
    if run.concurrency == 1:
        return False  # one request in flight at a time (a closed loop of one): none waited behind another
    if "ttft_seconds_p99" not in record.metrics and run.ttft is not None and run.ttft < SPREAD_MEAN_SHARE * tail:
        # Only the slowest of all stated, and the mean a small share of it: one request (the opening wave of a
        # closed loop, all sent at once; a reply that ran to its cap) was late, not the run's requests behind a
        # growing queue (which puts the mean near halfway between the fastest and the slowest).
        return False
    steady = _spread(record, "itl_seconds") or _spread(record, "tpot_seconds")
    text = f"{run.name}: first tokens spread {spread:.0f}× from the fastest to the slowest"
    if steady is not None:
        if steady > 2.0:
            return False
        text += f" while the per-token time spreads only {steady:.1f}×"
    text += ": a queue that grew during the run"
    findings.append(fire("summary-ttft-spread", text, {"ttft_spread": spread, "per_token_spread": steady},
                         share=1.0 if steady is not None else 0.0, **where))
    return True


def _ttft_over_fastest(run: _Run, record, where: dict, findings: list) -> bool:
    metrics = record.metrics
    fastest = metrics.get("ttft_seconds_min", metrics.get("ttft_seconds_p1"))
    typical = metrics.get("ttft_seconds_median", run.ttft)
    if not fastest or fastest <= 0 or typical is None or typical < threshold("summary-ttft-over-fastest") * fastest \
            or typical - fastest < 0.3:
        return False
    low, high = metrics.get("input_tokens_min"), metrics.get("input_tokens_max")
    if low and high and high > 2 * low:
        return False  # prompts of different lengths prefill in different times: the fastest is the shortest
    steady = _spread(record, "itl_seconds") or _spread(record, "tpot_seconds")
    if steady is not None and steady > 2.0:
        return False
    findings.append(fire(
        "summary-ttft-over-fastest",
        f"{run.name}: typical TTFT {typical * 1e3:.0f} ms is {typical / fastest:.0f}× the fastest "
        f"({fastest * 1e3:.0f} ms, the prompt's own work at most) while the per-token time stays within "
        f"{steady or 1:.1f}×: most of the first-token time is waiting",
        {"ttft_seconds_typical": typical, "ttft_seconds_fastest": fastest, "per_token_spread": steady},
        share=1.0 if steady is not None else 0.0, **where))
    return True


def _queue(run: _Run, record, where: dict, findings: list, notes: list) -> bool:
    """Queue evidence of the run; True when some rule found it."""
    if record.labels.get("static_batch"):
        return False  # the benchmark drives the model with one batch at a time: no queue, its TTFT the batch's prefill
    name, offered, achieved, completed = run.name, run.offered, run.achieved, run.completed
    found = _mlperf_over_bounds(run, record, where, findings)
    queue, server = summary_value(record, "queue_seconds_mean"), summary_value(record, "server_request_seconds_mean")
    if queue is not None and server and queue >= threshold("summary-server-queue") * server:
        found = True
        findings.append(fire("summary-server-queue", f"{name}: {queue * 1e3:,.1f} ms of the server's "
                             f"{server * 1e3:,.1f} ms a request ({queue / server:.0%}) in its queue"
                             + (f" at concurrency {run.concurrency:.0f}" if run.concurrency else ""),
                             {"queue_seconds_mean": queue, "server_request_seconds_mean": server}, **where))
    if offered is not None and math.isfinite(offered) and offered > 0 and achieved is not None and completed:
        # A short run understates capacity: the last requests still run after the arrivals end, so compare the
        # duration with (arrival window + one request's latency).
        latency = run.e2e
        if latency is None and run.ttft is not None and run.tpot is not None and run.mean_output:
            latency = run.ttft + run.tpot * (run.mean_output - 1)
        if latency is None and record.metrics.get("mean_concurrency") and achieved:
            latency = record.metrics["mean_concurrency"] / achieved  # Little's law: in flight ÷ completions/s
        service = latency
        if latency is not None and run.ttft is not None and run.prompt_work is not None and run.ttft > run.prompt_work:
            # The observed latency holds whatever wait a queue added; a server keeping up serves a request in its
            # decode and its prompt's own work, so the drain test compares with that (not with the wait it tests).
            service = latency - run.ttft + run.prompt_work
        arrivals = completed / offered  # the seconds over which the requests arrived
        expected = arrivals + (service or 0.0)
        # the client holds the rest back (a concurrency under one request is a damaged figure, no cap)
        capped = run.concurrency is not None and 1 <= run.concurrency < completed
        rounds = math.ceil(completed / run.concurrency) if capped else 1
        # The client lets `concurrency` requests run at once, each first token came in about its prompt's own work
        # (no wait at the server), and each stream crawled: the rest waited at the client while the slow streams set
        # the pace, so the run takes its rounds of one request's service each. (Streams at a normal pace that still
        # fall behind the offered rate are a load past the server's capacity: a queue.)
        in_rounds = bool(capped and service and rounds * service > expected and run.ttft is not None
                         and run.prompt_work and run.ttft <= CLIENT_ROUNDS_FIRST_TOKEN * run.prompt_work
                         and run.per_token is not None and run.per_token * SLOW_STREAM_TOKENS_PER_SECOND >= 1)
        if in_rounds:
            expected = rounds * service
        kept = threshold("summary-rate-not-kept")
        concurrency, output_rate = record.metrics.get("mean_concurrency"), run.output_rate
        if concurrency is None and latency and achieved:
            concurrency = achieved * latency  # Little's law: completions/s × a request's latency = in flight
        if run.arrived_in_burst and concurrency and output_rate \
                and output_rate / concurrency >= SLOW_STREAM_TOKENS_PER_SECOND:
            # A burst (every request arrived in the run's first twentieth) whose streams each still generate at a
            # normal rate: a throughput test, not a server that cannot keep up; the rate rules do not apply.
            notes.append(f"{name}: {completed:.0f} requests arrived within {arrivals:.3g} s of a "
                         f"{run.duration:.3g} s run, ~{concurrency:.0f} in flight at {output_rate / concurrency:.1f} "
                         "tok/s each: a throughput test; the offered rate is not a load the server had to keep up with")
            return False
        drain = run.duration / arrivals if run.duration and arrivals else None
        # A request served from its arrival, even at a starved stream's pace, ends within its output's crawl time.
        crawl = run.mean_output / STARVED_TOKENS_PER_SECOND if run.mean_output else None
        past_crawl = bool(drain and crawl and run.duration - arrivals >= DRAIN_OVER_CRAWL * crawl)
        if achieved < kept * offered and latency is None and drain and not capped \
                and (drain >= threshold("summary-drain-beyond-arrivals") or past_crawl):
            found = True
            crawled = f"; {run.mean_output:,.0f} tokens a request take {crawl:.3g} s even at " \
                      f"{STARVED_TOKENS_PER_SECOND:g} tok/s" if past_crawl else ""
            findings.append(fire(
                "summary-drain-beyond-arrivals",
                f"{name}: {completed:.0f} requests offered at {offered:.3g} req/s all arrived within "
                f"{arrivals:.3g} s, but the run took {run.duration:.4g} s ({drain:.3g}× that) at "
                f"{achieved:.3g} req/s{crawled}: requests waited behind each other (or crawled together); the "
                "excerpt has no latency to tell which",
                {"request_throughput_per_second": achieved, "request_rate_per_second": offered,
                 "duration_seconds": run.duration, "drain_factor": drain}, **where))
        elif achieved < kept * offered and latency is None:
            notes.append(f"{name}: achieved {achieved:.3g} req/s < {offered:.3g} offered, but the excerpt has no "
                         "request latency (E2E, TTFT and TPOT, or mean concurrency): a short run's drain and overload "
                         "look the same without it" + (f"; and the client let only {run.concurrency:.0f} of its "
                                                       f"{completed:.0f} requests run at once" if capped else ""))
        elif achieved < kept * offered and run.concurrency == 1 and latency and run.duration \
                and run.duration <= 1.3 * completed * latency:
            # The client sent one request at a time: each as long as its latency is all the time the run took, and
            # the server never held a second one to queue.
            notes.append(f"{name}: achieved {achieved:.3g} req/s < {offered:.3g} offered because the client sent one "
                         f"request at a time: {completed:.0f} requests × {latency:.3g} s ≈ the run's "
                         f"{run.duration:.4g} s; no server queue")
        elif achieved < kept * offered and run.duration and run.duration > 1.3 * expected \
                and run.ttft is not None and run.per_token and run.ttft <= BURST_ADMITTED_STEPS * run.per_token:
            # Behind, yet every first token came within a few decode steps: no request waited to be admitted; the
            # server took them all into one growing batch, whose slower steps are where the time went.
            notes.append(f"{name}: achieved {achieved:.3g} req/s against {offered:.3g} offered, but TTFT "
                         f"{run.ttft * 1e3:.0f} ms is only {run.ttft / run.per_token:.1f}× the "
                         f"{run.per_token * 1e3:.1f} ms per token: every request was admitted at once and no queue "
                         "built; the overload is a large batch decoding slowly")
        elif achieved < kept * offered and run.duration and run.duration > 1.3 * expected:
            found = True
            findings.append(fire(
                "summary-rate-not-kept",
                f"{name}: achieved {achieved:.3g} req/s against {offered:.3g} req/s offered; the run took "
                f"{run.duration:.3g} s where ~{expected:.3g} s was expected: the server cannot keep up",
                {"request_throughput_per_second": achieved, "request_rate_per_second": offered,
                 "duration_seconds": run.duration}, **where))
        elif achieved < kept * offered and in_rounds:
            notes.append(f"{name}: achieved {achieved:.3g} req/s < {offered:.3g} offered because the client let only "
                         f"{run.concurrency:.0f} requests run at once and each stream crawled ({run.per_token * 1e3:,.0f} "
                         f"ms a token): {completed:.0f} requests in {rounds} rounds of ~{service:.3g} s"
                         + (f" ≈ the run's {run.duration:.4g} s" if run.duration else "")
                         + "; the rest waited at the client, behind the slow streams")
        elif achieved < kept * offered:
            notes.append(f"{name}: achieved {achieved:.3g} req/s < {offered:.3g} offered, but the run is short: "
                         f"{completed:.0f} requests arrive in {arrivals:.3g} s and then drain "
                         f"(expected ~{expected:.3g} s, " + (f"took {run.duration:.3g} s" if run.duration else
                                                             "its duration not stated") + "); not overload")
    if run.all_at_once and run.uncapped and (run.concurrency is None or run.concurrency > 1):
        text = (f"{name}: every request sent at t=0 (rate {'inf' if math.isinf(offered) else f'{offered:.2g}'}): "
                "a throughput test; TTFT is queue wait by construction")
        if run.ttft is None:
            # No first-token time: the queue it builds by design shows only through Little's law, requests in flight
            # = completions/s × mean latency, against the engine's running-batch cap (stated, or the largest default
            # of the engines: TensorRT-LLM's 2048).
            cap = record.metrics.get("max_running_requests")
            in_flight = run.achieved * run.e2e if run.achieved and run.e2e else None
            if in_flight is None or in_flight <= 1.2 * (cap or MAX_DEFAULT_BATCH):
                notes.append(text + "; the summary states no TTFT, so no queue is read from it")
                return found
            limit = f"{'stated' if cap else 'largest default'} batch cap of {cap or MAX_DEFAULT_BATCH:,.0f}"
            findings.append(fire(
                "summary-all-at-once", f"{text}; {run.achieved:.4g} req/s × {run.e2e:.3g} s mean latency = "
                f"{in_flight:,.0f} requests in flight, above the {limit}: most of each request's time is waiting",
                {"requests_in_flight": in_flight, "request_rate_per_second": offered}, share=1.0, **where))
            return True
        if run.per_token and run.ttft <= BURST_ADMITTED_STEPS * run.per_token:
            # The queue a burst builds by design shows in its first tokens; here the mean is a few decode steps:
            # the whole burst was admitted together and nobody waited for a slot.
            notes.append(f"{name}: every request sent at t=0, but TTFT {run.ttft * 1e3:.0f} ms is only "
                         f"{run.ttft / run.per_token:.0f}× the {run.per_token * 1e3:.1f} ms per token: every request "
                         "was admitted at once, no queue built")
            return found
        cap = record.metrics.get("max_running_requests")
        if cap and run.completed and run.completed <= cap and run.ttft < BURST_IN_BATCH_TTFT:
            # The engine's batch holds the whole burst (trtllm-bench's `Max Runtime Batch Size`): no request waited
            # for a slot; its sub-second first tokens are the burst's prompts prefilled a few iterations at a time.
            notes.append(f"{name}: every request sent at t=0, but the {cap:,.0f}-request batch cap holds all "
                         f"{run.completed:,.0f}: TTFT {run.ttft * 1e3:.0f} ms is the burst's prefill, no queue for a "
                         "slot")
            return found
        found = True
        share = 0.0
        if run.per_token:  # past BURST_ADMITTED_STEPS (above): the first tokens waited
            share = 1.0
            text += f"; TTFT {run.ttft * 1e3:.0f} ms vs {run.per_token * 1e3:.1f} ms per token"
        findings.append(fire("summary-all-at-once", text, {"request_rate_per_second": offered,
                                                             "ttft_seconds_mean": run.ttft}, share=share, **where))
    elif run.all_at_once:
        notes.append(f"{name}: request rate inf but client concurrency {run.concurrency:.0f}: "
                     "latencies are measured behind the client's own queue")
    if found or run.all_at_once:
        return found
    if run.ttft is None:
        return _ttft_spread(run, record, where, findings) or _tail_ttft_over_step(run, record, where, findings)
    found = _ttft_spread(run, record, where, findings) or _ttft_over_fastest(run, record, where, findings)
    # TTFT far beyond the prompt's own work, with no offered-rate line to compare. Not for a prompt-only run (a
    # token or two a request) whose first tokens take a small share of it: its every request is in its first-token
    # phase, so its TTFT is the concurrency over the request rate whether the prompts queue or are prefilled together
    # (summary-prompt-only reads it); a first token a quarter of the run or more late is a burst's queue all the same.
    prompt_only = run.mean_output is not None and run.mean_output <= PROMPT_ONLY_OUTPUT_TOKENS \
        and not (run.duration and run.ttft >= 0.25 * run.duration)
    if run.prompt_work is not None and run.ttft >= 0.5 and not prompt_only:
        work = run.prompt_work
        factor = threshold("summary-ttft-over-prompt-work")
        if run.ttft >= factor * work:
            findings.append(fire(
                "summary-ttft-over-prompt-work",
                f"{name}: mean TTFT {format_seconds_short(run.ttft)} is {run.ttft / work:.0f}× the prompt's own work "
                f"({run.mean_input:,.0f} input tokens ÷ the run's {run.input_rate:,.0f} input tok/s = "
                f"{work * 1e3:.0f} ms): requests wait before their prefill",
                {"ttft_seconds_mean": run.ttft, "prompt_work_seconds": work}, **where))
            return True
        return found
    # A stated prompt read at the slowest rate an accelerator reads one (SLOWEST_PREFILL_TOKENS_PER_STEP tokens in a
    # decode step's time; a serving engine's launch in the log, SERVER_PREFILL_TOKENS_PER_STEP) accounts for a first
    # token this late: it shows no wait.
    per_step = SERVER_PREFILL_TOKENS_PER_STEP if run.server else SLOWEST_PREFILL_TOKENS_PER_STEP
    explained = run.mean_input is not None and run.ttft <= run.mean_input / per_step * (run.per_token or 0.0)
    if not found and run.per_token and run.ttft >= 2.0 and not explained \
            and run.ttft >= threshold("summary-ttft-over-tpot") * run.per_token:
        # A runner's own rates (one stream's generation rate, no load, rate or request count stated): one stream
        one_stream = run.per_token_derived == PER_STREAM_RATE and run.concurrency is None and run.offered is None \
            and run.output_rate is None and run.achieved is None and not run.completed and not run.batch \
            and not run.input_rate
        if 0 < run.batch <= threshold("summary-ttft-over-tpot-few-in-flight") or one_stream:
            in_flight, how = (1.0, "one stream (a runner's own generation rate, no load stated)") if one_stream \
                else (run.batch, run.batch_text)
            findings.append(fire(
                "summary-ttft-over-tpot-few-in-flight",
                f"{name}: mean TTFT {format_seconds_short(run.ttft)} is {run.ttft / run.per_token:.0f}× the "
                f"{run.per_token * 1e3:.1f} ms per token with {how}: too few to wait for a batch slot, so the prompt "
                "is the cost",
                {"ttft_seconds_mean": run.ttft, "tpot_seconds_mean": run.per_token, "requests_in_flight": in_flight},
                **where))
            return False
        if run.input_rate:
            return False  # an input rate with no prompt length (a table's prefill row): the prompt is unknown, not absent
        findings.append(fire(
            "summary-ttft-over-tpot",
            f"{name}: mean TTFT {format_seconds_short(run.ttft)} is {run.ttft / run.per_token:.0f}× the "
            f"{run.per_token * 1e3:.1f} ms per token, and the summary has no input rate to rule out a long prompt: "
            "queueing, or a very long prefill",
            {"ttft_seconds_mean": run.ttft, "tpot_seconds_mean": run.per_token}, **where))
        return True
    return found


def _tail_ttft_over_step(run: _Run, record, where: dict, findings: list) -> bool:
    """summary-ttft-over-tpot for a summary that states only tails (`P99 TTFT`, `P99 ITL`): the same percentile of
    both, a first token that late against the slowest steps, which a long prompt alone does not explain either."""
    if run.input_rate or run.mean_input is not None or run.per_token is not None:
        return False
    for stat in ("p90", "p95", "p99"):
        ttft = record.metrics.get(f"ttft_seconds_{stat}")
        step = record.metrics.get(f"tpot_seconds_{stat}") or record.metrics.get(f"itl_seconds_{stat}")
        if ttft and step and ttft >= 2.0 and ttft >= threshold("summary-ttft-over-tpot") * step \
                and not 0 < run.batch <= threshold("summary-ttft-over-tpot-few-in-flight"):
            findings.append(fire(
                "summary-ttft-over-tpot",
                f"{run.name}: {stat} TTFT {ttft:.3g} s is {ttft / step:.0f}× the {stat} {step * 1e3:.1f} ms per "
                "token (the summary states only tails), and no input rate rules out a long prompt: queueing, or a "
                "very long prefill", {f"ttft_seconds_{stat}": ttft, f"step_seconds_{stat}": step}, **where))
            return True
    return False


def _wait_dominates(run: _Run, where: dict, findings: list) -> None:
    """With queue evidence found: when the wait before the first token (TTFT less the prompt's own work) is most of
    the request's time, the queue is where the user's time goes, whatever else is slow."""
    # (a per-token time of 0, tokens that came in one chunk, times no decode: the request's length is unknown)
    if run.ttft is None or run.prompt_work is None or not run.per_token or not run.mean_output \
            or (run.e2e and run.ttft >= threshold("summary-ttft-equals-e2e") * run.e2e):
        return  # a first token as late as the last is a reply not streamed: its TTFT holds the decode too
    latency = run.e2e or run.ttft + run.per_token * max(run.mean_output - 1, 0)
    wait = run.ttft - run.prompt_work
    if latency > 0 and wait >= threshold("summary-wait-dominates") * latency:
        findings.append(fire(
            "summary-wait-dominates",
            f"{run.name}: ~{wait:.3g} s of the {latency:.3g} s request ({wait / latency:.0%}) is waiting before the "
            f"prefill (TTFT {run.ttft:.3g} s less the prompt's own {run.prompt_work * 1e3:.0f} ms): the queue is "
            "most of each request's time", {"wait_seconds": wait, "request_seconds": latency}, **where))


def _prompt_only(run: _Run, ttft: float, shape: str, note: str, where: dict, findings: list) -> None:
    findings.append(fire(
        "summary-prompt-only", f"{run.name}: {run.mean_input:,.0f}-token prompts and {shape}: TTFT {ttft * 1e3:,.0f} "
        f"ms ({run.mean_input / ttft:,.0f} prompt tok/s) is the whole request, prompt processing{note}",
        {"ttft_seconds_mean": ttft, "mean_input_tokens": run.mean_input}, **where))


def _prefill(run: _Run, record, where: dict, findings: list, queued: bool) -> None:
    ttft, e2e = run.ttft, run.e2e
    if ttft is None and run.prompt_only and run.mean_input and run.mean_input >= threshold("summary-prompt-only") \
            and run.input_rate and not record.labels.get("offline_batch"):
        # A serving benchmark's prompt-only run cut before its latencies: its input rate is all it measured (an
        # offline batch that ran to its end is judged on its duration instead, _health).
        findings.append(fire(
            "summary-prompt-only", f"{run.name}: {run.mean_input:,.0f}-token prompts and {run.mean_output:g} output "
            f"token(s) a request at {run.input_rate:,.0f} input tok/s: the run timed prompt processing and nothing "
            "else (no TTFT in the log)", {"mean_input_tokens": run.mean_input,
                                          "input_tokens_per_second": run.input_rate}, **where))
        return
    if ttft is None or (run.all_at_once and run.uncapped) \
            or (e2e and ttft >= threshold("summary-ttft-equals-e2e") * e2e and not run.prompt_only):
        # An uncapped all-at-once run's TTFT is queue wait; a first token "as late as the last" is the artefact
        # above (a prompt-only run's first token is its last by design). A client concurrency cap makes rate inf a
        # closed loop whose latencies are real.
        return
    note = "" if not queued else " (queue evidence above: part of it is waiting)"
    if run.prompt_only and run.mean_input and run.mean_input >= threshold("summary-prompt-only") and ttft > 0:
        _prompt_only(run, ttft, f"{run.mean_output:g} output token(s) a request", note, where, findings)
        return
    share = _ttft_share(run, record, e2e, note, where)
    if share is not None:
        findings.append(share)
        return
    itl_median = record.metrics.get("itl_seconds_median")
    if (itl_p99 := _stalled_gaps(run, record, itl_median)) is not None:
        findings.append(fire("summary-itl-stalls", f"{run.name}: ITL P99 {itl_p99 * 1e3:.0f} ms vs median "
                             f"{itl_median * 1e3:.1f} ms: prefills stall the decode batch{note}",
                             {"itl_seconds_p99": itl_p99, "itl_seconds_median": itl_median}, **where))
        return
    if run.mean_input and run.mean_input >= 256 and run.per_token and ttft > 0:
        prompt_rate = run.mean_input / ttft
        decode_rate = 1 / run.per_token
        if prompt_rate < threshold("summary-slow-prompt-rate") * decode_rate:
            findings.append(fire(
                "summary-slow-prompt-rate",
                f"{run.name}: prompts read at {prompt_rate:,.0f} tok/s ({run.mean_input:,.0f} tokens in a "
                f"{ttft * 1e3:.0f} ms TTFT), barely faster than decode at {decode_rate:.0f} tok/s{note}",
                {"prompt_tokens_per_second": prompt_rate, "decode_tokens_per_second": decode_rate}, **where))
            return
    if e2e is None and run.per_token is None and run.mean_input and run.mean_input >= 128 and ttft >= 5.0 \
            and run.mean_input / ttft < threshold("summary-prompt-crawls"):
        findings.append(fire(
            "summary-prompt-crawls", f"{run.name}: {run.mean_input:,.0f} prompt tokens in a {ttft:,.1f} s TTFT, "
            f"{run.mean_input / ttft:.2g} tok/s: the prompt's processing crawls, and nothing else is timed{note}",
            {"ttft_seconds_mean": ttft, "prompt_tokens_per_second": run.mean_input / ttft}, **where))
        return
    if e2e is None and run.per_token is None and run.mean_output is None and not run.output_rate \
            and run.mean_input and run.mean_input >= threshold("summary-prompt-only") and ttft > 0:
        # a TTFT by prompt length and nothing after the first token (a TTFT sweep's table): the prompt is all it times
        _prompt_only(run, ttft, "no token after the first timed", note, where, findings)
        return
    if e2e is None and run.tpot and run.mean_output and run.mean_output > 1:
        # A summary cut before its E2E rows, no other prompt evidence: its mean request rebuilt from TTFT and TPOT.
        share = _ttft_share(run, record, ttft + run.tpot * (run.mean_output - 1), note, where,
                            " (E2E rebuilt as TTFT + TPOT × the tokens after the first)")
        if share is not None:
            findings.append(share)


def _stalled_gaps(run: _Run, record, median: float | None) -> float | None:
    """The ITL P99 when it is summary-itl-stalls' many times the median gap, else None. A median gap far below the
    time per output token (under limit chunked-gap-share of it) is tokens arriving several to a chunk, the gaps inside
    a chunk near zero: their P99 over that median measures the chunking, not a stall."""
    p99 = record.metrics.get("itl_seconds_p99")
    if not p99 or not median or p99 <= threshold("summary-itl-stalls") * median:
        return None
    return None if run.tpot and median < CHUNKED_GAP_SHARE * run.tpot else p99


def _ttft_share(run: _Run, record, e2e: float | None, note: str, where: dict, how: str = ""):
    """summary-ttft-share's finding (with the ITL stalls that go with it) when the first token is that share of the
    request and a second or more, else None."""
    ttft = run.ttft
    if not (ttft >= 1.0 and e2e and ttft >= threshold("summary-ttft-share") * e2e):
        return None
    finding = fire("summary-ttft-share", f"{run.name}: TTFT {ttft:.2f} s is {ttft / e2e:.0%} of the request "
                   f"time{how}{note or ' with no queue evidence in this summary (check server Waiting/queue)'}",
                   {"ttft_seconds_mean": ttft, "e2e_seconds_mean": e2e}, share=0.0, **where)
    itl_median = record.metrics.get("itl_seconds_median") or run.itl
    if (itl_p99 := _stalled_gaps(run, record, itl_median)) is not None:
        stall = fire("summary-itl-stalls", f"{run.name}: ITL P99 {itl_p99 * 1e3:.0f} ms vs median "
                     f"{itl_median * 1e3:.1f} ms: prefills stall the decode batch", {"itl_seconds_p99": itl_p99},
                     **where)
        finding.score = max(finding.score, stall.score)
        finding.evidence.extend(stall.evidence)
    return finding


def _rate_sweeps(acc: Accumulator, measures) -> dict:
    """(file, variant) -> offered request rate -> (*measures(record), line): a file's runs at stated finite offered
    rates (a rate sweep), each run whose `measures` are not None."""
    sweeps: dict = {}
    for record, file in acc.summaries:
        rate = offered_rate(record)
        if rate and math.isfinite(rate) and (measured := measures(record)) is not None:
            sweeps.setdefault((file, _variant(record)), {})[rate] = (*measured, record.line_number)
    return sweeps


def _ttft_with_rate(acc: Accumulator, findings: list) -> None:
    """summary-ttft-grows-with-rate: a file's runs at offered request rates (a rate sweep), the mean TTFT at the
    highest rate against the one at the lowest, while the time per output token grew far less: the prompt's work is
    the same at every rate, so a first token that grows many times with a small step in rate waits to be admitted."""
    def measures(record):  # (TTFT, per-token time or None), or None without a TTFT
        ttft = summary_value(record, "ttft_seconds_mean")
        return (ttft, summary_value(record, "tpot_seconds_mean") or summary_value(record, "itl_seconds_mean")) \
            if ttft else None

    for (file, variant), by_rate in _rate_sweeps(acc, measures).items():
        low, high = min(by_rate), max(by_rate)
        (ttft_low, step_low, line_low), (ttft_high, step_high, line_high) = by_rate[low], by_rate[high]
        grown = ttft_high / ttft_low
        if low == high or grown < threshold("summary-ttft-grows-with-rate") or ttft_high < 1.0 \
                or grown < 2 * high / low:
            continue
        steps = f" and the time per output token {step_high / step_low:.1f}×" if step_low and step_high else ""
        if steps and step_high > SWEEP_STEP_GROWTH * step_low:
            continue  # every step slowed as much: the batch, not a wait, grew the time
        findings.append(fire(
            "summary-ttft-grows-with-rate", f"{variant + ': ' if variant else ''}mean TTFT {ttft_low * 1e3:,.0f} ms at "
            f"{low:g} req/s offered, {ttft_high * 1e3:,.0f} ms at {high:g}: {grown:.0f}× for {high / low:.1f}× the "
            f"rate{steps}: first tokens wait to be admitted", {"ttft_seconds_low": ttft_low,
                                                               "ttft_seconds_high": ttft_high,
                                                               "request_rate_low": low, "request_rate_high": high},
            lines=sorted({line_low, line_high}), file=file))


def _sweep_rate_not_kept(acc: Accumulator, findings: list) -> None:
    """summary-sweep-rate-not-kept: a file's runs at three offered request rates or more (a load test's table of
    target and achieved rates), the lowest rate kept and the highest not, while the request latency (or TTFT) grew:
    the server's capacity lies between them and the arrivals beyond it wait."""
    def measures(record):  # (achieved req/s, request latency or TTFT), or None without both
        achieved = summary_value(record, "request_throughput_per_second")
        latency = summary_value(record, "e2e_seconds_mean") or summary_value(record, "ttft_seconds_mean")
        return (achieved, latency) if achieved and latency else None

    kept = threshold("summary-rate-not-kept")  # the share of the offered rate a server that keeps up completes
    grown = threshold("summary-sweep-rate-not-kept")
    for (file, variant), by_rate in _rate_sweeps(acc, measures).items():
        low, high = min(by_rate), max(by_rate)
        (served_low, latency_low, line_low), (served_high, latency_high, line_high) = by_rate[low], by_rate[high]
        if len(by_rate) < 3 or served_low < kept * low or served_high >= kept * high \
                or latency_high < grown * latency_low:
            continue
        findings.append(fire(
            "summary-sweep-rate-not-kept", f"{variant + ': ' if variant else ''}{served_low:g} of {low:g} req/s "
            f"offered completed, but {served_high:g} of {high:g} ({served_high / high:.0%}), the latency "
            f"{latency_low:,.2f} s -> {latency_high:,.2f} s: past its capacity the server completes fewer requests "
            "than arrive, and the rest wait", {"request_rate_low": low, "request_rate_high": high,
                                          "achieved_rate_high": served_high, "latency_seconds_low": latency_low,
                                          "latency_seconds_high": latency_high},
            lines=sorted({line_low, line_high}), file=file))


def _scales(file: str, variant, metric: str, times: dict, served: dict, by_level: dict, findings: list) -> None:
    """summary-sweep-scales: from the sweep's lowest level to its highest (this many times apart or more), the
    completed requests a second grew by at least limit sweep-scales' share of the concurrency ratio while the latency
    stayed under limit sweep-flat-latency times its value: the server batched the extra requests instead of queueing
    them, which a load tester's request latencies show with no token counts (wrk, vegeta, locust)."""
    low, high = min(times), max(times)
    rates_low, rates_high = served[low], served[high]
    if low <= 0 or high / low < threshold("summary-sweep-scales") or None in rates_low + rates_high \
            or times[low] <= 0 or median(rates_low) <= 0:
        return
    grown, ratio = median(rates_high) / median(rates_low), high / low
    if grown < SWEEP_SCALES * ratio or times[high] > SWEEP_FLAT_LATENCY * times[low]:
        return
    lines = sorted({line for level in (low, high) for _, line, *_ in by_level[level]})
    findings.append(fire(
        "summary-sweep-scales", f"{variant + ': ' if variant else ''}{ratio:.0f}× the requests in flight (concurrency "
        f"{low:.0f} → {high:.0f}) complete {grown:.1f}× the requests a second at {times[high] / times[low]:.2f}× the "
        f"median {metric} ({times[low] * 1e3:,.0f} → {times[high] * 1e3:,.0f} ms): the server batches them, nothing "
        "waits", {"concurrency_low": low, "concurrency_high": high, "requests_per_second_ratio": grown,
                  f"{metric.lower()}_seconds_low": times[low], f"{metric.lower()}_seconds_high": times[high]},
        lines=lines, file=file))


def _steady(record) -> float | None:
    """p99 ÷ median request latency when the run states both and the tail is within limit steady-tail; else None."""
    median_e2e, p99 = record.metrics.get("e2e_seconds_median"), record.metrics.get("e2e_seconds_p99")
    if not median_e2e or not p99 or p99 > STEADY_TAIL * median_e2e:
        return None
    return p99 / median_e2e


def _mlperf_valid(run: _Run, record, where: dict, findings: list) -> bool:
    """summary-mlperf-valid: a valid MLPerf Server or Interactive result (audited, or LoadGen's own VALID) with no
    errors counted; True when it fired."""
    scenario = record.labels.get("mlperf_scenario")
    if not record.labels.get("mlperf_valid") or scenario not in MLPERF_BOUNDED \
            or record.metrics.get("failed_requests"):
        return False
    rate = run.output_rate or run.achieved
    findings.append(fire(
        "summary-mlperf-valid", f"{run.name}: {rate:,.1f} {'output tok/s' if run.output_rate else 'samples/s'}, a "
        f"valid {scenario} result with no errors: the scenario's p99 latency bounds (first token and "
        "time per output token) held at this load, by the benchmark's rules", {"throughput": rate}, **where))
    return True


def _mlperf_over_bounds(run: _Run, record, where: dict, findings: list) -> bool:
    """summary-mlperf-over-bounds: an MLPerf Server or Interactive run that LoadGen judged INVALID because its
    latency bounds were not met: the queries it scheduled arrived faster than the system answers them within the
    bounds; True when it fired."""
    scenario = record.labels.get("mlperf_scenario")
    if record.labels.get("mlperf_latency_bounds_met") is not False or scenario not in MLPERF_BOUNDED:
        return False
    bits = [f"mean TTFT {run.ttft:,.2f} s" if run.ttft is not None else "",
            f"{run.achieved:,.3g} samples/s completed" if run.achieved is not None else ""]
    findings.append(fire(
        "summary-mlperf-over-bounds", f"{run.name}: INVALID, its latency bounds not met"
        + "".join(f"; {bit}" for bit in bits if bit) + f": the {scenario} load arrived faster than the system "
        "answers it within the bounds, so queries waited", {"ttft_seconds_mean": run.ttft or 0.0}, **where))
    return True


def _health(run: _Run, record, where: dict, findings: list) -> None:
    if _mlperf_valid(run, record, where, findings):
        return
    if record.labels.get("warmup") and run.per_token is None:
        ttft = f"TTFT {format_seconds_short(run.ttft)}, " if run.ttft is not None else ""
        findings.append(fire("summary-warmup-only", f"{run.name}: {ttft}the warm-up run's alone, with no time per "
                             "token and no measured run after it: its kernels and graphs were built in it",
                             {"ttft_seconds_mean": run.ttft}, **where))
        return
    numbers = {}
    bits = []
    if run.ttft is not None:
        bits.append(f"TTFT {run.ttft * 1e3:.1f} ms")
        numbers["ttft_seconds_mean"] = run.ttft
    if run.per_token is not None:
        kind = "TPOT" if run.tpot is not None else "ITL" if not run.per_token_derived \
            else run.per_token_derived if isinstance(run.per_token_derived, str) else "(E2E − TTFT) per token"
        bits.append(f"{kind} {run.per_token * 1e3:.2f} ms")
        numbers["seconds_per_token"] = run.per_token
    if run.output_rate is not None:
        bits.append(f"{run.output_rate:.1f} output tok/s")
        numbers["output_tokens_per_second"] = run.output_rate
    if run.output_rate is None and record.metrics.get("total_tokens_per_second"):
        bits.append(f"{record.metrics['total_tokens_per_second']:.1f} total tok/s")
        numbers["total_tokens_per_second"] = record.metrics["total_tokens_per_second"]
    if run.e2e is not None and not bits:
        bits.append(f"E2E {format_seconds_short(run.e2e)}")
        numbers["e2e_seconds_mean"] = run.e2e
    # An offline batch that ran to its end bounds every request's latency by its duration (all were in flight from
    # the start): that bound, with its rates, is a run's full account (the vllm#5425 sample of a baseline run). A rate with
    # no latency and no such bound (a throughput line, a bar cut mid-run) is not.
    bounded = bool(record.labels.get("offline_batch") and not record.labels.get("cut") and run.duration)
    if run.achieved is not None and (bits or not bounded):
        # beside the rest, or alone as a rate (summary-throughput-only); an offline bar's prompts a second alone
        # are no account of its tokens
        bits.append(f"{run.achieved:.3g} req/s")
        numbers["request_throughput_per_second"] = run.achieved
    if bits and run.ttft is None and run.per_token is None and run.e2e is None and not bounded:
        findings.append(fire("summary-throughput-only", f"{run.name}: " + ", ".join(bits) + "; no TTFT, per-token "
                             "time or request latency, so the rate alone says nothing about speed", numbers, **where))
    elif bits and run.ttft is None and run.per_token is None and run.output_rate is None and not run.mean_output \
            and not bounded and run.concurrency == 1 and (steady := _steady(record)) is not None:
        # One request in flight at a time (a closed loop of one): nothing can queue, and a tight spread shows no
        # hiccup; the speed itself is not judged (no tokens).
        findings.append(fire("summary-one-at-a-time-steady", f"{run.name}: " + ", ".join(bits) + f"; one request "
                             f"in flight at a time, p99 {steady:.2f}× the median: nothing waits and nothing "
                             "stalls (the speed per token is not in the log)", dict(numbers, p99_over_median=steady),
                             **where))
    elif bits and run.ttft is None and run.per_token is None and run.output_rate is None and not run.mean_output \
            and not bounded:
        # A request latency with no token rate or length: 67 s is fast for 10,000 tokens and slow for 10.
        findings.append(fire("summary-throughput-only", f"{run.name}: " + ", ".join(bits) + "; no TTFT, per-token "
                             "time or token rate, so the latency alone says nothing about speed", numbers, **where))
    elif bits and run.ttft is None and run.per_token is None and run.output_rate is None and not bounded \
            and run.e2e and run.e2e / run.mean_output >= threshold("summary-slow-tpot-no-hardware"):
        # With the length, a request slow for its tokens (no TTFT beside it) may be slow in its prompt or its decode:
        # which is not told, so it is no healthy run either.
        findings.append(fire("summary-throughput-only", f"{run.name}: E2E {run.e2e:,.3g} s over {run.mean_output:,.0f} "
                             f"output tokens, {run.e2e / run.mean_output:.3g} s a token with the prompt's time in it: "
                             f"past a slow decode step's {threshold('summary-slow-tpot-no-hardware'):g} s, and with no "
                             "TTFT the prompt's share and the decode's cannot be told apart",
                             dict(numbers, mean_output_tokens=run.mean_output), **where))
    elif bits and run.ttft is not None and run.per_token is None and run.output_rate is None \
            and run.mean_input is None and run.ttft >= threshold("requests-ttft-unexplained"):
        # A late first token alone, no prompt length beside it: a long prompt and a wait look the same.
        findings.append(fire("summary-ttft-unexplained", f"{run.name}: first token after {run.ttft:,.1f} s with no "
                             "prompt length and no per-token time or rate: a long prompt and a wait look the same",
                             numbers, **where))
    elif bits and record.source == "prometheus.histograms" and (counted := max(
            (value for name, value in record.metrics.items() if name.endswith("_count")), default=math.inf)) \
            < threshold("summary-scrape-few-requests"):
        findings.append(fire("summary-scrape-few-requests", f"{run.name}: " + ", ".join(bits) + f" over {counted:.0f} "
                             "request(s) since the server started: too few to call the serving healthy or not",
                             dict(numbers, requests_counted=counted), **where))
    elif bits:
        findings.append(fire("summary-healthy", f"{run.name}: " + ", ".join(bits), numbers, **where))
    elif run.completed or run.duration:
        findings.append(fire("summary-no-latency", f"{run.name}: request counts and token lengths only; no latency "
                             "columns", {"completed_requests": run.completed}, **where))
    elif record.metrics:
        shown = ", ".join(sorted(record.metrics)[:6])
        findings.append(fire("summary-no-latency", f"{run.name}: no TTFT, per-token latency or throughput; only "
                             f"{shown}", {}, **where))
