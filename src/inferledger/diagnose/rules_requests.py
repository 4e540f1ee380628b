"""Rules over per-request records (TGI spans, llama.cpp and ollama timings, llmperf and detailed bench JSON):
artefacts and sanity checks per request first, then queue, prefill share and per-token speed, each
weighted by the share of requests it holds for. Thresholds and confidences: rules.py."""

from __future__ import annotations

from inferledger.diagnose.accumulate import (
    IMPOSSIBLE_TPOT_SECONDS,
    PARTS_MISMATCH,
    PROMPT_SLOWER_THAN_DECODE,
    SLOW_PROMPT_MIN_STEPS,
    SLOW_PROMPT_MIN_TOKENS,
    SLOW_PROMPT_RATIO,
    SLOW_TPOT_SECONDS,
    TINY_PROMPT_TOKENS,
    Accumulator,
)
from inferledger.diagnose.named_model import step_fixed_seconds
from inferledger.diagnose.rules import Hardware, fire, limit, threshold
from inferledger.diagnose.rules_windows import DEPTH_MAX_TOKENS
from inferledger.report.units import format_seconds_short

SLOW_COMMON_CARD_BYTES_PER_S = limit("slow-common-card")
WARM_UP_RATIO = threshold("requests-first-warm-up")
LARGE_MODEL_EFFICIENCY = threshold("requests-slow-tpot-large-model")
SLOW_CARD = f"{SLOW_COMMON_CARD_BYTES_PER_S / 1e9:.0f} GB/s card at {LARGE_MODEL_EFFICIENCY:.0%} of its bandwidth"


SLOW_COMMON_CPU_BYTES_PER_S = limit("slow-common-cpu")
SLOW_COMMON_APPLE_BYTES_PER_S = limit("slow-common-apple")
IN_TURN_GROWTH = limit("in-turn-growth")
WHOLE_CALL_MIN_OUTPUT = limit("whole-call-min-output")
SLOW_CPU = f"CPU's {SLOW_COMMON_CPU_BYTES_PER_S / 1e9:.0f} GB/s at {LARGE_MODEL_EFFICIENCY:.0%} of its bandwidth"


def stream_seconds(sized, bytes_per_second: float) -> float:
    """One decode step of the weights the name states read at LARGE_MODEL_EFFICIENCY of a memory's bandwidth."""
    return sized.weights_bytes_per_step / (LARGE_MODEL_EFFICIENCY * bytes_per_second)


def slow_cpu_seconds(sized) -> float:
    """One decode step of the weights the name states read from a desktop's two memory channels."""
    return stream_seconds(sized, SLOW_COMMON_CPU_BYTES_PER_S)


def slow_card_seconds(sized, shards: int = 1) -> float:
    """One decode step of the weights the name states on that slow common card; over `shards` tensor-parallel cards
    each reads its 1/shards of every layer at once, so the step is that much shorter."""
    return stream_seconds(sized, SLOW_COMMON_CARD_BYTES_PER_S) / shards


def slow_floor(sized, acc: Accumulator, shards: int = 1) -> tuple[float, str]:
    """(seconds, where) of one decode step of the weights the name states on the slowest device of the log's kind: a
    desktop CPU's memory (a CPU run), the base M1's unified memory (a Metal run), else a slow common card, its log's
    tensor-parallel cards sharing it. On an accelerator the step also pays its layers' fixed launch cost (limit
    layer-step-seconds), which a small model's weights do not outweigh."""
    backend = acc.labels.get("backend")
    if backend == "cpu":
        return slow_cpu_seconds(sized), f"from a desktop {SLOW_CPU}"
    # (a configured model states no size here: its config's own account, no name's)
    fixed, layers = step_fixed_seconds(sized.total_params, sized.mixture_of_experts) \
        if getattr(sized, "total_params", None) else (0.0, None)
    launches = f", plus {layers} layers' fixed launch cost ({fixed * 1e3:.1f} ms)" if layers else ""
    if backend == "apple":
        return stream_seconds(sized, SLOW_COMMON_APPLE_BYTES_PER_S) + fixed, (
            f"from a base M1's {SLOW_COMMON_APPLE_BYTES_PER_S / 1e9:.0f} GB/s unified memory at "
            f"{LARGE_MODEL_EFFICIENCY:.0%}{launches}")
    return slow_card_seconds(sized, shards) + fixed, f"on {slow_cards(shards)}{launches}"


def tensor_parallel(acc: Accumulator) -> int:
    """The tensor-parallel degree the log states (a launch command's -tp, vLLM's tensor_parallel_size), else 1."""
    return acc.stated_degree("tensor_parallel_size") or 1


def slow_cards(shards: int) -> str:
    """The slow common card(s) a floor was taken on, for a finding's text."""
    return f"{shards} of a {SLOW_CARD} (tensor parallel {shards}, each reading its share)" if shards > 1 \
        else f"a {SLOW_CARD}"


def _size_explains(acc: Accumulator, sized, findings: list) -> bool:
    """A slow stream of a model whose name states its size: as slow as its weights make it on a slow common card?
    Then the fixed cutoff misjudged a large model, and the finding says so instead (the prompt's findings stay)."""
    tpot = acc.request_value("tpot_seconds")
    step = tpot.mean if acc.flags["slow_tpot"].count else acc.tpot_bound.low
    floor, place = slow_floor(sized, acc)
    if step > floor:
        return False
    findings.append(fire(
        "requests-slow-tpot-large-model", f"{step * 1e3:.0f} ms per output token (~{1 / step:.1f} tok/s per stream) "
        f"is what {sized.describe()} allows {place} ({floor * 1e3:.0f} ms): slow for the fixed cutoff, not "
        "for this size; give --gpu to judge it against the card",
        {"observed_seconds_per_token": step, "large_model_seconds_per_token": floor,
         "weights_bytes_per_step": sized.weights_bytes_per_step}))
    return True


_ONE_AT_A_TIME = ("ollama.", "llamacpp.", "local.")  # runners that serve a user's requests in turn, one model


def _decode_slowed(acc: Accumulator, findings: list) -> bool:
    """A runner's requests, in turn, whose decode rate ends at half its best or less, at a context too short for
    attention to explain it: the same model now streams slower (part of it moved off the GPU, another load). Requests
    naming two models or more are no one model's (a benchmark of several models in turn)."""
    rate = acc.request_value("generation_tokens_per_second")
    context = acc.request_value("input_tokens")
    factor = threshold("requests-decode-slowed")
    if rate is None or rate.count < 3 or not rate.last or rate.high < factor * rate.last or len(acc.request_models) > 1 \
            or not all(source.startswith(_ONE_AT_A_TIME) for source in acc.sources) \
            or (context is not None and context.high > DEPTH_MAX_TOKENS):
        return False
    findings.append(fire(
        "requests-decode-slowed", f"decode fell from {rate.high:.1f} to {rate.last:.1f} tok/s over {rate.count} "
        f"requests in turn ({rate.high / rate.last:.1f}×)"
        + (f" with prompts of at most {context.high:,.0f} tokens" if context and context.high else "")
        + ": the same model streams at half its speed or less (part of it off the GPU, or another load)",
        {"generation_tokens_per_second_max": rate.high, "generation_tokens_per_second_last": rate.last}))
    return True


def _host_bound(acc: Accumulator, findings: list) -> bool:
    """Steps whose host side (scheduling and launching the kernels, tinygrad's `enqueue in`) takes most of each token:
    the device waits on the launches, so no card or memory sets the pace and the tokens are slow for the hardware
    whatever it is (requests-host-bound-steps)."""
    host, tpot = acc.request_value("host_seconds_per_token"), acc.request_value("tpot_seconds")
    if host is None or tpot is None or not tpot.mean or host.mean < threshold("requests-host-bound-steps") * tpot.mean:
        return False
    findings.append(fire(
        "requests-host-bound-steps", f"{host.mean * 1e3:,.2f} ms of each {tpot.mean * 1e3:,.2f} ms token is the host "
        f"launching the step's kernels ({host.mean / tpot.mean:.0%}): the device waits on the launches, not on its "
        "memory", {"host_seconds_per_token": host.mean, "tpot_seconds_mean": tpot.mean}))
    return True


def _prefill_slowed(acc: Accumulator, findings: list) -> None:
    """A runner's requests in turn, prompts of about one size (within 2×), whose prompt rate ends at a third of its
    best or less while their decode holds (within 1.5×), the last prompt a third of its request's compute or more:
    the prompt pass is what slowed (a cache no longer reused, a context grown), not the machine."""
    prompt, tokens = acc.request_value("prompt_tokens_per_second"), acc.request_value("input_tokens")
    decode = acc.request_value("generation_tokens_per_second")
    prefill, spent = acc.request_value("prefill_seconds"), acc.request_value("decode_seconds")
    factor = threshold("requests-prefill-slowed")
    if prompt is None or prompt.count < 2 or not prompt.last or prompt.high < factor * prompt.last \
            or tokens is None or tokens.high > 2 * tokens.low or decode is None or decode.high > 1.5 * decode.low \
            or prefill is None or spent is None or prefill.last < (prefill.last + spent.last) / 3 \
            or not all(source.startswith(_ONE_AT_A_TIME) for source in acc.sources):
        return
    findings.append(fire(
        "requests-prefill-slowed", f"prompt processing fell from {prompt.high:,.1f} to {prompt.last:,.1f} tok/s over "
        f"{prompt.count} requests in turn ({prompt.high / prompt.last:.1f}×) with prompts of {tokens.low:,.0f}-"
        f"{tokens.high:,.0f} tokens, while decode held at {decode.low:.1f}-{decode.high:.1f} tok/s: the last prompt "
        f"took {prefill.last:,.3g} s of its request; the prompt pass is what slowed",
        {"prompt_tokens_per_second_max": prompt.high, "prompt_tokens_per_second_last": prompt.last,
         "prefill_seconds_last": prefill.last}))


def _decode_below_bench(acc: Accumulator, findings: list) -> bool:
    """Served requests slower to decode than the same log's bench of one stream (a user pasting the server's timings
    under llama-bench's or sweep-bench's table): compared with the bench's slowest row, so a depth the bench ran
    deeper than the requests does not make the requests look slow."""
    rate = acc.request_value("generation_tokens_per_second")
    context = acc.request_value("input_tokens")
    benched = [held.high for depth, held in acc.depth_generation.items() if depth <= DEPTH_MAX_TOKENS and held.count]
    if acc.bench_stream.count:
        benched.append(acc.bench_stream.low)
    if rate is None or not rate.count or not benched or (context is not None and context.high > DEPTH_MAX_TOKENS):
        return False
    bench = min(benched)
    if not rate.mean < threshold("requests-decode-below-bench") * bench:
        return False
    findings.append(fire(
        "requests-decode-below-bench", f"served requests decode at {rate.mean:.1f} tok/s (mean of {rate.count}), "
        f"{rate.mean / bench:.0%} of the {bench:.1f} tok/s this log's bench measures for one stream (its slowest row): "
        "the serving path, not the machine, loses the speed (its settings, an offload, another load or build)",
        {"generation_tokens_per_second_mean": rate.mean, "bench_generation_tokens_per_second": bench}))
    return True


def _size_too_slow(acc: Accumulator, sized, findings: list) -> bool:
    """Under the fixed cutoff, yet far slower than the weights the name states allow even on a slow common card: a
    small or mixture-of-experts model streaming from the CPU (an offload, a lost GPU)."""
    tpot = acc.request_value("tpot_seconds")
    shards = tensor_parallel(acc)
    floor, where = slow_floor(sized, acc, shards)
    if tpot is not None and tpot.count and not acc.labels.get("tpot_includes_prefill"):
        step, how = tpot.mean, ""
    else:
        # Only whole-call times (gpt-fast/torchchat, exllamav2): call ÷ output tokens bounds the step from above;
        # with limit whole-call-min-output tokens or more and a prompt no longer than 4× the output, at least half
        # the call is decode, so half that bound is still a step the rule may read.
        ceiling, output = acc.tpot_ceiling, acc.request_value("output_tokens")
        prompt = acc.request_value("input_tokens")
        if not ceiling.count or output is None or output.mean < WHOLE_CALL_MIN_OUTPUT \
                or (prompt is not None and prompt.count and prompt.mean > 4 * output.mean):
            return False
        step, how = ceiling.mean / 2, "at least "
    if step < threshold("requests-slower-than-size-allows") * floor:
        return False
    tpot_mean = step
    findings.append(fire(
        "requests-slower-than-size-allows", f"{how}{tpot_mean * 1e3:.1f} ms per output token"
        f"{' (half of each call ÷ its output tokens)' if how else ''} is {tpot_mean / floor:.1f}× "
        f"the {floor * 1e3:.1f} ms that {sized.describe()} takes {where}: slower than the slowest such memory "
        "streams it" + ("" if acc.labels.get("backend") == "cpu" else " (an offload to the CPU?)")
        + "; give --gpu to judge it against the hardware",
        {"observed_seconds_per_token": tpot_mean, "slow_card_seconds_per_token": floor,
         "weights_bytes_per_step": sized.weights_bytes_per_step, "tensor_parallel_size": shards}))
    return True


class _Held:
    """A flag's count and lines without the warm-up request's line (it is the first request, so its line comes
    first when flagged)."""

    def __init__(self, lines, warm_line):
        dropped = warm_line is not None and lines.lines[:1] == [warm_line]
        self.count = lines.count - dropped
        self.lines = lines.lines[1:] if dropped else lines.lines
        self.file = lines.file


class _WithoutWarmUp(dict):
    """acc.flags as the request rules read them: each flag without the warm-up request."""

    def __init__(self, flags: dict, warm_line):
        super().__init__({name: _Held(lines, warm_line) for name, lines in flags.items()})


def _warm_up(acc: Accumulator) -> tuple | None:
    """(line, first, rest) when the file's first request took WARM_UP_RATIO × or more the later requests' mean time
    per output token: a cold start, left out of the judgement."""
    tpot = acc.request_value("tpot_seconds")
    if tpot is None or tpot.count < 2 or tpot.first != tpot.high:
        return None
    rest = (tpot.total - tpot.first) / (tpot.count - 1)
    # rest 0: the later requests print no per-token time (a placeholder), nothing to compare the first with;
    # a first past IMPOSSIBLE_TPOT_SECONDS: a timer bug
    if rest <= 0 or not tpot.first >= WARM_UP_RATIO * rest or tpot.first >= IMPOSSIBLE_TPOT_SECONDS:
        return None
    return tpot.high_line, tpot.first, rest


def _per_token(seconds: float) -> str:
    """A time per token as people write it: milliseconds, or seconds past ten of them."""
    return f"{seconds:,.0f} s" if seconds >= 10 else f"{seconds * 1e3:.0f} ms"


def _phase_leads(acc: Accumulator, findings: list) -> None:
    """requests-phase-leads: with both the prompt share and the per-token cutoff fired over the requests, the phase
    holding most of their time leads (its summed seconds against the other's)."""
    prompt = next((finding for finding in findings if finding.rule == "requests-prefill-share"), None)
    decode = next((finding for finding in findings if finding.rule == "requests-slow-tpot-no-hardware"), None)
    prefill, generation = acc.request_value("prefill_seconds"), acc.request_value("decode_seconds")
    if prompt is None or decode is None or not (prefill and generation and prefill.count and generation.count):
        return
    prefill_total, decode_total = prefill.mean * prefill.count, generation.mean * generation.count
    share = threshold("requests-phase-leads")
    if prefill_total >= share * (prefill_total + decode_total):
        decode.score = min(decode.score, prompt.score - 0.05)
    elif decode_total >= share * (prefill_total + decode_total):
        prompt.score = min(prompt.score, decode.score - 0.05)


def _served_in_turn(acc: Accumulator, findings: list) -> None:
    """requests-served-in-turn: requests a server's access log times (finish stamp, latency) that arrived together
    (finish less latency, within a few seconds, or a quarter of their finishes' span and the first one's latency) and
    finished one after another, the last taking limit in-turn-growth times the first's latency or more: each waited
    for those before it."""
    timed = sorted(item for item in acc.finishes if item[1] >= 1.0)  # past a second: a model's work, not a probe
    if len(timed) < threshold("requests-served-in-turn"):
        return
    arrivals = [finish - latency for finish, latency, _line, _file in timed]
    span = timed[-1][0] - timed[0][0]
    spread = max(arrivals) - min(arrivals)
    first, last = timed[0][1], timed[-1][1]
    # Together: within a quarter of the finishes' span, and before the first request was done (a client that sends
    # each request when the one before it returns spreads its arrivals over their latencies: not a queue)
    if span < 2 * first or spread > max(2.0, min(0.25 * span, first)) or last < IN_TURN_GROWTH * first:
        return
    findings.append(fire(
        "requests-served-in-turn", f"{len(timed)} requests arrived within {spread:.1f} s of each other (finish less "
        f"latency) and finished one after another over {span:.0f} s, latencies growing {first:.2f} s → {last:.2f} s: "
        "each waited for the ones before it (served in turn, a slot at a time)",
        {"requests": float(len(timed)), "arrival_spread_seconds": spread, "finish_span_seconds": span,
         "e2e_seconds_first": first, "e2e_seconds_last": last},
        lines=[timed[0][2], timed[-1][2]], file=timed[0][3]))


def request_findings(acc: Accumulator, findings: list, checks: list, notes: list, hardware: Hardware,
                     sized=None) -> None:
    """The per-request rules. `sized`: the model's size from its name (named_model.NamedModel), when the hardware
    is unknown; it turns the fixed slow-decode cutoff into the floor such a model has on a slow common card."""
    count = acc.request_count
    if not count:
        return
    _served_in_turn(acc, findings)
    warm = _warm_up(acc)
    if warm is not None:
        notes.append(f"the first request (line {warm[0]}) took {warm[1] * 1e3:,.0f} ms per output token, "
                     f"{warm[1] / warm[2]:.0f}× the {warm[2] * 1e3:,.1f} ms of the later ones: a cold start (model "
                     "load, warm-up), left out of the judgement")
    flags = _WithoutWarmUp(acc.flags, warm[0] if warm else None)

    def share(flag: str) -> float:
        return flags[flag].count / count

    def where(flag: str) -> dict:
        return {"lines": list(flags[flag].lines), "file": flags[flag].file}

    for flag, rule, text in (("ttft_zero", "requests-ttft-zero", "TTFT of 0 ms"),
                             ("ttft_under_one_pass", "requests-ttft-under-one-pass", "a first token in under a "
                                                                                      "millisecond, under one forward "
                                                                                      "pass of any model"),
                             ("ttft_ge_e2e", "requests-ttft-ge-e2e", "first-token latency equal to the full latency"),
                             ("prefill_zero", "requests-prefill-zero", "prompt eval time 0.00 ms for a multi-token "
                                                                        "prompt")):
        if flags[flag].count:
            findings.append(fire(rule, f"{flags[flag].count} of {count} requests report {text}",
                                 {"requests": flags[flag].count}, **where(flag)))
    full = acc.request_value("context_held_fraction")  # each request against its own window
    if full is not None and full.high >= threshold("requests-context-full"):
        shifted = acc.events.get("context_shifts")  # the runner makes room as it goes: the rule's lowest confidence
        # Every request spent most of its compute reading its prompt: that cost is measured, the full window a forecast.
        measured = flags["prefill_share"].count == count
        findings.append(fire(
            "requests-context-full", f"a request ended with its context {full.high:.0%} of its window: the next prompt "
            "will not fit without shifting or cutting the context; a larger context size (KV cache) is the fix"
            + (f" (the runner shifted its context {shifted:.0f} time(s) here: a full window it handles, each miss a "
               "prompt read again)" if shifted else ""),
            {"context_held_fraction": full.high},
            share=0.0 if shifted else 0.5 if measured or full.last < threshold("requests-context-full") else 1.0))
    sampling = acc.request_value("sample_per_decode")
    if sampling is not None and sampling.high >= threshold("requests-sampling-slows-decode"):
        findings.append(fire(
            "requests-sampling-slows-decode", f"sampling took {sampling.high:.1f}× the model's eval time over the same "
            "tokens: the samplers (a grammar, penalties) on the host, not the card, set the speed of generation",
            {"sample_per_decode_max": sampling.high}, lines=[sampling.high_line] if sampling.high_line else []))
    elapsed, done = acc.request_value("prompt_elapsed_seconds"), acc.request_value("prompt_progress_fraction")
    if elapsed is not None and done is not None and done.last > 0 \
            and elapsed.last / done.last >= threshold("requests-prompt-in-progress"):
        findings.append(fire(
            "requests-prompt-in-progress", f"the excerpt ends inside a prompt: {done.last:.0%} of it read in "
            f"{elapsed.last:,.0f} s, so the whole prompt takes about {elapsed.last / done.last:,.0f} s before the "
            "first token", {"prompt_elapsed_seconds": elapsed.last, "prompt_progress_fraction": done.last,
                            "projected_prefill_seconds": elapsed.last / done.last}))
    if flags["cold_start"].count == 1 and count >= 2:
        # One request paid the model's load and the others did not: the runner was cold for its first request only,
        # and the warm ones are how it serves (as requests-first-warm-up leaves a slow first request out).
        load = acc.request_value("load_seconds")
        notes.append(f"one of {count} requests (line {flags['cold_start'].lines[0]}) loaded the model first "
                     f"({load.high * 1e3:,.0f} ms): a cold start, left out; the warm requests are how it serves")
    elif flags["cold_start"].count:
        load, e2e, tpot = (acc.request_value(name) for name in ("load_seconds", "e2e_seconds", "tpot_seconds"))
        if tpot is not None and tpot.count:
            # The load stated apart from the prompt's and the answer's times (ollama's load_duration, llama.cpp's
            # load time): those are measured clean of it, and they are what is judged; the cold start is said.
            notes.append(f"model load {load.high * 1e3:,.0f} ms is {load.high / e2e.high:.0%} of the request time: "
                         "a cold start, timed apart from the prompt and the answer, whose times are judged")
        else:
            findings.append(fire(
                "requests-cold-start", f"model load {load.high * 1e3:.1f} ms is {load.high / e2e.high:.0%} of the "
                "request time: this measures a cold start, not serving", {"load_seconds": load.high,
                                                                           "e2e_seconds": e2e.high},
                **where("cold_start")))
    if flags["impossible_prompt_rate"].count:
        rate = acc.request_value("prompt_tokens_per_second")
        findings.append(fire(
            "requests-impossible-prompt-rate", f"prompt eval at up to {rate.high:,.0f} tok/s on a single-stream "
            f"runner in {flags['impossible_prompt_rate'].count} of {count} requests: above "
            f"{threshold('requests-impossible-prompt-rate'):,.0f} tok/s is a timing bug (only part of the prompt "
            "timed), not prefill speed", {"prompt_tokens_per_second_max": rate.high},
            **where("impossible_prompt_rate")))
    if flags["one_token"].count:
        findings.append(fire(
            "requests-one-token", f"{flags['one_token'].count} of {count} requests write one token: their per-token "
            "time or rate is the prompt's first token, not a decode step, and is set aside",
            {"requests": flags["one_token"].count}, share("one_token"), **where("one_token")))
    if flags["negative_figure"].count:
        findings.append(fire(
            "requests-negative-figure", f"{flags['negative_figure'].count} of {count} requests print a negative "
            "token count, rate or time: a broken counter, no speed can be read from them",
            {"requests": flags["negative_figure"].count}, **where("negative_figure")))
    if flags["impossible_fast"].count:
        rate = acc.request_value("tpot_seconds")
        fastest = f"of up to {1 / rate.low:,.0f} tok/s" if rate.low > 0 else "with no time a token"
        findings.append(fire(
            "requests-impossible-generation-rate", f"{flags['impossible_fast'].count} of {count} requests state a "
            f"generation rate {fastest} for one stream: beyond any decode step (a division by a zero decode time), no "
            "speed can be read from them", {"requests": flags["impossible_fast"].count},
            **where("impossible_fast")))
    if flags["impossible_tpot"].count:
        findings.append(fire(
            "requests-impossible-tpot", f"{flags['impossible_tpot'].count} of {count} requests state a time per "
            f"output token of a day or more (up to {acc.request_value('tpot_seconds').high:,.0f} s): a timer bug, no "
            "speed can be read from them", {"requests": flags["impossible_tpot"].count}, **where("impossible_tpot")))
    if flags["rate_contradicts_time"].count:
        findings.append(fire(
            "requests-rate-contradicts-time", f"{flags['rate_contradicts_time'].count} of {count} requests print a "
            "tokens/s that contradicts their own count and time (more than "
            f"{threshold('requests-rate-contradicts-time'):.0%} apart): the line was edited or mixed, no speed can "
            "be read from it", {"requests": flags["rate_contradicts_time"].count},
            share=share("rate_contradicts_time"), **where("rate_contradicts_time")))
    # An odd prompt time in fewer than half the requests (a first call's warm-up) voids those prompts' figures, not
    # the steady requests around them.
    minor = (flags["prompt_slower_than_decode"].count == flags["prompt_artifact_minor"].count
             and flags["slow_tpot"].count and not hardware.judged) \
        or 2 * flags["prompt_slower_than_decode"].count < count
    if flags["prompt_slower_than_decode"].count and minor:
        # An odd prompt time voids the prompt's figures, not a slow decode that takes most of each request.
        notes.append(f"{flags['prompt_slower_than_decode'].count} of {count} request(s) spend more time per prompt "
                     f"token than per generated token (≥ {PROMPT_SLOWER_THAN_DECODE:.0f}×): their prompt time holds "
                     "something other than prompt work (load, warm-up); the rest, and decode, are judged on their own")
    elif flags["prompt_slower_than_decode"].count:
        findings.append(fire(
            "requests-prompt-slower-than-decode", f"{flags['prompt_slower_than_decode'].count} of {count} requests "
            f"spend more time per prompt token than per generated token (≥ {PROMPT_SLOWER_THAN_DECODE:.0f}×): the "
            "prompt time holds something other than prompt work (model load, warm-up)",
            {"requests": flags["prompt_slower_than_decode"].count}, **where("prompt_slower_than_decode")))
    if flags["slow_prompt"].count:
        findings.append(fire(
            "requests-slow-prompt-rate", f"{flags['slow_prompt'].count} of {count} requests read a prompt of "
            f"{SLOW_PROMPT_MIN_TOKENS}+ tokens at under {SLOW_PROMPT_RATIO:.0f}× the rate they generate, and it takes "
            "a third or more of the request: prompt processing is not batched (or paid a warm-up)",
            {"requests": flags["slow_prompt"].count}, share("slow_prompt"), **where("slow_prompt")))
    if flags["tiny_prompt"].count:
        notes.append(f"{flags['tiny_prompt'].count} request(s) with ≤ {TINY_PROMPT_TOKENS:.0f} prompt tokens: their "
                     "prompt-eval rate is fixed overhead, not prefill speed")
    gap = acc.parts_gap
    if gap.count:
        worst = gap.high if abs(gap.high) >= abs(gap.low) else gap.low
        checks.append({"check": "request parts", "source": "requests", "requests": gap.count,
                       "largest_gap_seconds": worst, "mismatched": flags["parts_mismatch"].count,
                       "ok": flags["parts_mismatch"].count == 0,
                       "meaning": f"total time vs load + prompt eval + eval per request (> {PARTS_MISMATCH:.0%} "
                                  "off is time the runner did not account for)"})
    if flags["parts_exceed_total"].count:
        findings.append(fire(
            "requests-parts-exceed-total", f"{flags['parts_exceed_total'].count} of {count} requests take longer in "
            f"their parts (load + prompt eval + eval) than in total, by up to {-gap.low:,.2f} s: the figures cannot "
            "all be from one run (an edited or illustrative block)", {"largest_gap_seconds": gap.low},
            share("parts_exceed_total"), **where("parts_exceed_total")))
    if flags["queue_dominant"].count:
        queue = acc.request_value("queue_seconds")
        findings.append(fire(
            "requests-queue-dominant", f"{flags['queue_dominant'].count} of {count} requests spent longer queued "
            f"than computing (queue up to {queue.high:.3g} s)", {"queue_seconds_max": queue.high},
            share("queue_dominant"), **where("queue_dominant")))
    if flags["queue_long"].count:
        queue = acc.request_value("queue_seconds")
        findings.append(fire(
            "requests-queue-long", f"{flags['queue_long'].count} of {count} requests waited in the queue up to "
            f"{queue.high:.3g} s (≥ {threshold('requests-queue-long'):.0f} s; the line gives no compute time to "
            "compare with)", {"queue_seconds_max": queue.high}, share("queue_long"), **where("queue_long")))
    if flags["prefill_share"].count:
        prefill = acc.request_value("prefill_seconds")
        tokens = acc.request_value("input_tokens")
        size = f" for up to {tokens.high:,.0f} tokens" if tokens is not None else ""  # a prompt of unstated length
        # A share of the requests, or of their compute time when the prompt-heavy ones hold more of it (a few long
        # reprocessed prompts among quick turns are where the time goes).
        by_time = acc.prefill_share_compute_seconds / acc.compute_seconds if acc.compute_seconds > 0 else 0.0
        findings.append(fire(
            "requests-prefill-share", f"{flags['prefill_share'].count} of {count} requests spent at least half "
            f"their compute reading the prompt (prompt eval up to {format_seconds_short(prefill.high)}{size}"
            + (f"; {by_time:.0%} of all requests' compute" if by_time > share("prefill_share") else "") + ")",
            {"prefill_seconds_max": prefill.high, "compute_share": by_time},
            max(share("prefill_share"), by_time), **where("prefill_share")))
    _prefill_slowed(acc, findings)
    tpot = acc.request_value("tpot_seconds")
    tpot_mean = warm[2] if warm is not None else tpot.mean if tpot is not None else None
    cpu = acc.labels.get("backend") == "cpu"  # the GPU's cutoff is a fast CPU run: a CPU's own (requests-slow-tpot-cpu)
    slow_flag = "slow_tpot_cpu" if cpu else "slow_tpot"
    slow = bool(flags[slow_flag].count) and not hardware.judged
    slow_bound = bool(flags["slow_tpot_bound"].count) and not hardware.judged and not cpu
    if cpu and flags["slow_tpot"].count and not slow and not hardware.judged:
        notes.append(f"{_per_token(tpot_mean)} per output token on a CPU backend: slow for a GPU, within what a CPU's "
                     "memory gives; give --model and --gpu (a CPU part) to judge it")
    if (slow or slow_bound) and sized is not None and _size_explains(acc, sized, findings):
        return
    if (slow or slow_bound) and not cpu and flags["slow_prompt_short"].count == count:
        findings.append(fire(
            "requests-phases-unjudged", f"{count} request(s) read a prompt of under {SLOW_PROMPT_MIN_TOKENS} tokens "
            f"in {SLOW_PROMPT_MIN_STEPS}+ decode steps, at under {SLOW_PROMPT_RATIO:.0f}× the rate they generate "
            f"({_per_token(tpot_mean)} per output token): both phases at one pace, a CPU's shape (or a runner that does "
            "not batch the prompt); the GPU's cutoff does not judge it: give --model and --gpu",
            {"tpot_seconds_mean": tpot_mean}, **where("slow_prompt_short")))
        return
    if slow:
        queue = acc.request_value("queue_seconds")
        text = (f"{flags[slow_flag].count} of {count} requests at {_per_token(tpot_mean)} per output token "
                f"(~{1 / tpot_mean:.3g} tok/s per stream)")
        if flags[slow_flag].count < count and tpot is not None and tpot.high > tpot_mean:  # some slow: the slowest
            text = (f"{flags[slow_flag].count} of {count} requests as slow as {_per_token(tpot.high)} per output "
                    f"token (~{1 / tpot.high:.3g} tok/s per stream; {_per_token(tpot_mean)} the mean of all)")
        if queue is not None:
            text += f" with {queue.mean * 1e3:.2f} ms in the queue: no queueing"
        if acc.labels.get("tpot_includes_prefill"):
            text += "; this time_per_token includes prefill"
        if cpu:
            text += "; the log shows a CPU backend: decode reads the weights from DRAM, and slower than a CPU's cutoff"
        text += f"; a fixed cutoff: {hardware.ask}"
        findings.append(fire("requests-slow-tpot-cpu" if cpu else "requests-slow-tpot-no-hardware", text,
                             {"tpot_seconds_mean": tpot_mean}, share(slow_flag), **where(slow_flag)))
    if slow_bound:
        bound = acc.tpot_bound
        findings.append(fire(
            "requests-slow-tpot-no-hardware", f"{flags['slow_tpot_bound'].count} of {count} requests take at least "
            f"{bound.low * 1e3:,.0f} ms per output token: the whole call ÷ (prompt + output tokens), since no prompt "
            f"token costs more than a generated one; a fixed cutoff: {hardware.ask}",
            {"tpot_seconds_lower_bound": bound.low}, share("slow_tpot_bound"),
            **where("slow_tpot_bound")))
    if sized is None:  # a per-token time judged against the model's size stands on its own evidence
        _phase_leads(acc, findings)
    if not (slow or slow_bound) and not hardware.judged and sized is not None and _size_too_slow(acc, sized, findings):
        return
    if not (slow or slow_bound) and (_decode_slowed(acc, findings) or _decode_below_bench(acc, findings)
                                     or _host_bound(acc, findings)):
        return
    if slow or slow_bound or flags["queue_dominant"].count or flags["queue_long"].count \
            or flags["prefill_share"].count or flags["impossible_tpot"].count:
        return
    ttft = acc.request_value("ttft_seconds")
    generation = acc.request_value("generation_tokens_per_second")
    itl = acc.request_value("itl_seconds")
    if ttft is not None and tpot is None and generation is None and itl is None \
            and acc.request_value("input_tokens") is None and ttft.mean >= threshold("requests-ttft-unexplained"):
        findings.append(fire(
            "requests-ttft-unexplained", f"{count} request(s): first token after {ttft.mean:,.1f} s on average with no "
            "prompt length and no per-token time: a long prompt and a wait for a slot look the same",
            {"ttft_seconds_mean": ttft.mean}))
        return
    bits = []
    numbers = {}
    if ttft is not None:
        bits.append(f"TTFT {ttft.mean * 1e3:.0f} ms" if ttft.mean >= 0.01 else f"TTFT {ttft.mean * 1e3:.3g} ms")
        numbers["ttft_seconds_mean"] = ttft.mean
    if tpot is not None:
        bits.append(f"{tpot_mean * 1e3:.1f} ms/token")
        numbers["tpot_seconds_mean"] = tpot_mean
    elif generation is not None:
        bits.append(f"{generation.mean:.1f} tok/s generation")
        numbers["generation_tokens_per_second_mean"] = generation.mean
    if itl is not None and tpot is None:
        bits.append(f"ITL {itl.mean * 1e3:.1f} ms")
        numbers["itl_seconds_mean"] = itl.mean
    ceiling = acc.tpot_ceiling
    if not bits and ceiling.count == count and ceiling.high < SLOW_TPOT_SECONDS:
        # No step time stated, but every call's time ÷ its output tokens is already under the slow cutoff.
        bits.append(f"at most {ceiling.high * 1e3:.1f} ms per output token (each call's whole time ÷ its output "
                    "tokens, prompt included)")
        numbers["tpot_seconds_upper_bound"] = ceiling.high
    queue = acc.request_value("queue_seconds")
    if queue is not None and bits:
        bits.append(f"queue {queue.mean * 1e3:.1f} ms")
    if bits:
        judged = count - (warm is not None)
        findings.append(fire("requests-healthy", f"{judged} request(s)"
                             + (" after the first" if warm is not None else "") + ": " + ", ".join(bits), numbers,
                             min(1.0, judged / 5)))
        return
    prompt, prompt_rate = acc.request_value("input_tokens"), acc.request_value("prompt_tokens_per_second")
    output = acc.request_value("output_tokens")
    if prompt is not None and prompt_rate is not None and prompt_rate.count and prompt_rate.mean > 0 \
            and not (output and output.high) \
            and prompt.mean >= threshold("requests-prompt-only"):
        findings.append(fire(
            "requests-prompt-only", f"{count} request(s) measure only their prompt: {prompt.mean:,.0f} tokens at "
            f"{prompt_rate.mean:,.0f} tok/s, {prompt.mean / prompt_rate.mean:,.1f} s each, and nothing generated",
            {"input_tokens_mean": prompt.mean, "prompt_tokens_per_second_mean": prompt_rate.mean}))
        return
    e2e = acc.request_value("e2e_seconds")
    facts = [f"{label} {value.mean * 1e3:,.1f} ms" for label, value in (("total", e2e), ("queue", queue)) if value]
    if facts:
        findings.append(fire("requests-no-speed", f"{count} request(s): mean " + ", ".join(facts) + "; no TTFT or "
                             "per-token time in the log", {"e2e_seconds_mean": e2e.mean if e2e else None}))
