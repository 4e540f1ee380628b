"""Rules over server stats windows (vLLM stats lines, SGLang batch lines, TRT-LLM iteration stats, two /metrics
scrapes): each rule's confidence grows with the share of windows it holds in (rules.Rule.score), so a reading that
persists outranks one outlier window. Thresholds and confidences: rules.py."""

from __future__ import annotations

import re

from inferledger.diagnose.accumulate import KV_FULL_FRACTION, SLOW_CPU_TPOT_SECONDS, SMALL_BATCH, Accumulator
from inferledger.diagnose.rules import Hardware, fire, limit, threshold
from inferledger.report.units import format_seconds_short

DEPTH_MAX_TOKENS = limit("depth-max")
SGLANG_DECODE_LOG_STEPS = limit("sglang-decode-log-steps")
RECURRING_SHARE = limit("recurring-share")
SPEC_MIN_DRAFTED = limit("spec-min-drafted")


def lines_of(acc: Accumulator, flag: str) -> dict:
    lines = acc.flags[flag]
    return {"lines": list(lines.lines), "file": lines.file}


def _prefill_ramp(acc: Accumulator) -> bool:
    """Every prompt-heavy window comes before every slow-decode window of one file: a batch whose prompts were read
    first and whose decode then crawls. Its prompt windows starved no decode (none had begun): the steady state after
    them is the reading."""
    heavy = acc.flags["prefill_heavy"]
    slow = [acc.flags[name] for name in ("slow_small_batch", "starved") if acc.flags[name].count]
    if not heavy.count or not slow or heavy.count > len(heavy.lines) or any(lines.file != heavy.file for lines in slow):
        return False
    return max(heavy.lines) < min(min(lines.lines) for lines in slow)


def _prompt_rate_only(acc: Accumulator, findings: list) -> None:
    """Rows that measure only how fast prompts are read (a llama-bench table of pp tests): say so, with the rates."""
    prompt = acc.interval_value("prompt_tokens_per_second")
    if not prompt or acc.interval_value("generation_tokens_per_second"):
        return
    findings.append(fire("windows-prompt-rate-only", f"{prompt.count} prompt-processing measurement(s) at "
                         f"{prompt.low:,.0f}-{prompt.high:,.0f} tok/s and no generation rate: decode speed is not "
                         "measured", {"prompt_tokens_per_second_min": prompt.low,
                                      "prompt_tokens_per_second_max": prompt.high, "measurements": prompt.count}))
    # llama-bench's rows on a GPU backend, their (active) parameters known: a prompt costs 2 FLOPs a parameter a token,
    # so the best row's rate says how much compute the reading reached.
    best = max(acc.bench_prompts, key=lambda row: (row.rate * row.parameters, row.rate, row.parameters, row.line),
               default=None)
    flops = best.rate * 2 * best.parameters if best is not None else 0.0
    if best is not None and flops >= threshold("windows-prompt-compute-sound"):
        rate, parameters = best.rate, best.parameters
        findings.append(fire(
            "windows-prompt-compute-sound", f"prompt processing up to {rate:,.0f} tok/s with {parameters / 1e9:.2g}B "
            f"parameters a token = {flops / 1e12:,.1f} TFLOP/s (2 FLOPs a parameter a token, a mixture's active "
            "ones): an accelerator's compute at work, more than any CPU reaches; decode is not measured",
            {"prompt_tokens_per_second": rate, "prompt_flops_per_second": flops}, lines=[best.line]))


def _slow_spec_steps(acc: Accumulator, running, findings: list, hardware: Hardware) -> bool:
    """windows-slow-spec-steps: with speculative decoding, a stream's steps a second are its tokens a second over the
    tokens a step (vLLM's mean acceptance length counts the bonus token): the small-batch cutoff judges steps."""
    spec = acc.interval.get("spec_mean_acceptance_length")
    if spec is None or not spec.count or spec.mean <= 1 or not acc.per_stream.count or running is None \
            or running.high > SMALL_BATCH:
        return False
    steps, cutoff = acc.per_stream.mean / spec.mean, threshold("windows-slow-spec-steps")
    if steps >= cutoff or acc.per_stream.mean >= 2 * cutoff:
        return False
    findings.append(fire(
        "windows-slow-spec-steps", f"~{acc.per_stream.mean:.1f} tok/s per running request at up to "
        f"{running.high:.0f} running with speculative decoding accepting {spec.mean:.2f} tokens a step: "
        f"{steps:.1f} steps a second, under the one-stream cutoff (a fixed cutoff: {hardware.ask})",
        {"generation_per_request_mean": acc.per_stream.mean, "spec_mean_acceptance_length": spec.mean,
         "steps_per_second": steps}))
    return True


def _drafts_rejected(acc: Accumulator, findings: list) -> None:
    """windows-spec-drafts-rejected: speculative decoding whose drafts are almost never accepted (vLLM's mean
    acceptance length, which counts the step's own token, at most this threshold): every step pays the drafter and
    the verification of its drafts and keeps about one token, so decode is slower than it would be without them."""
    spec = acc.interval.get("spec_mean_acceptance_length")
    drafted = acc.interval.get("spec_drafted_tokens")
    if spec is None or not spec.count or spec.mean > threshold("windows-spec-drafts-rejected") \
            or (drafted is not None and drafted.count and drafted.total < SPEC_MIN_DRAFTED):
        return
    findings.append(fire(
        "windows-spec-drafts-rejected", f"speculative decoding keeps {spec.mean:.2f} tokens a step in {spec.count} "
        "window(s): its drafts are almost never accepted, so every step pays the drafter and the verification for "
        "one token; decode is slower than without speculation (turn it off, or fix the draft model or its settings)",
        {"spec_mean_acceptance_length": spec.mean}))


def window_findings(acc: Accumulator, findings: list, notes: list, hardware: Hardware) -> None:
    windows = acc.interval_count
    if not windows:
        _prompt_rate_only(acc, findings)
        return
    _batch_below_one_stream(acc, findings)
    flags = acc.flags
    kv = acc.interval_value("kv_cache_usage_fraction")
    waiting = acc.interval_value("waiting_requests")
    running = acc.interval_value("running_requests")
    prompt = acc.interval_value("prompt_tokens_per_second")
    generation = acc.interval_value("generation_tokens_per_second")
    numbers = {"windows": windows}
    if kv:
        numbers["kv_cache_usage_fraction_max"] = kv.high
    if waiting:
        numbers["waiting_requests_max"] = waiting.high
    if running:
        numbers["running_requests_max"] = running.high

    def share(flag: str) -> float:
        return flags[flag].count / windows

    if flags["kv_full_waiting"].count:
        findings.append(fire(
            "windows-kv-full-waiting", f"KV cache ≥ {KV_FULL_FRACTION:.0%} full with requests waiting in "
            f"{flags['kv_full_waiting'].count} of {windows} windows (max {kv.high:.0%}, waiting up to "
            f"{waiting.high:.0f})", numbers, share("kv_full_waiting"), **lines_of(acc, "kv_full_waiting")))
    if flags["swapped"].count:
        findings.append(fire(
            "windows-swapped", f"requests swapped to CPU in {flags['swapped'].count} of {windows} windows: the GPU "
            "KV cache ran out", {"swapped_requests_max": acc.interval["swapped_requests"].high}, share("swapped"),
            **lines_of(acc, "swapped")))
    # An offline run (vLLM's `LLM.generate` progress bar beside the stats lines) submits every prompt at once: its
    # waiting requests are its own backlog, which no user waits in; the batch it can hold is what the KV rules read.
    offline = any(record.labels.get("offline_batch") for record, _file in acc.summaries)
    short_queue = bool(flags["waiting"].count and not offline and running is not None and running.low
                       and waiting.high <= threshold("windows-short-queue") * running.low)
    if flags["waiting"].count and offline:
        notes.append(f"requests waiting in {flags['waiting'].count} of {windows} windows (up to {waiting.high:,.0f}): an "
                     "offline run's own backlog, submitted at once, not a queue users wait in")
    elif short_queue:
        notes.append(f"requests waiting in {flags['waiting'].count} of {windows} windows, at most {waiting.high:.0f} "
                     f"beside at least {running.low:.0f} running: a full batch admits them within a few steps "
                     "(windows-short-queue), not read as a queue")
    elif flags["waiting"].count:
        draining = waiting.last is not None and waiting.last < waiting.high and waiting.last <= waiting.first / 2
        text = (f"requests waiting in {flags['waiting'].count} of {windows} windows (up to {waiting.high:.0f}, "
                f"last {waiting.last:.0f})")
        if kv:
            text += f" while KV usage peaked at {kv.high:.0%}"
            if kv.high < KV_FULL_FRACTION:
                text += ": not KV-bound"
        if draining:
            text += "; the queue is draining"
        finding = fire("windows-waiting", text, numbers, share("waiting"), **lines_of(acc, "waiting"))
        if draining:
            finding.score -= 0.15
        findings.append(finding)
    ramp = _prefill_ramp(acc)
    if ramp:
        notes.append(f"the first {flags['prefill_heavy'].count} prompt-heavy window(s) read the batch's prompts before "
                     "its decode began; the windows after them decode slowly, and the reading follows those")
    elif flags["prefill_heavy"].count:
        findings.append(fire(
            "windows-prefill-heavy", f"prompt throughput dominates {flags['prefill_heavy'].count} of {windows} "
            f"windows (up to {prompt.high:.1f} prompt tok/s vs {generation.low:.1f} generation tok/s) and decode is "
            f"starved (~{acc.per_stream.low:.1f} tok/s per running request)",
            {"prompt_tokens_per_second_max": prompt.high, "generation_tokens_per_second_min": generation.low,
             "generation_per_request_min": acc.per_stream.low}, share("prefill_heavy"),
            **lines_of(acc, "prefill_heavy")))
    _slow_prefill_gap(acc, findings)
    if flags["bench_prefill_share"].count:
        timed = flags["bench_rows_timed"].count
        prefill = acc.interval_value("prefill_seconds")
        findings.append(fire(
            "windows-bench-prefill-share", f"{flags['bench_prefill_share'].count} of {timed} bench rows spend at least "
            f"half their time reading the prompt (prompt phase up to {format_seconds_short(prefill.high)}): for "
            "requests of these lengths the prompt is the cost",
            {"rows": flags["bench_prefill_share"].count, "rows_timed": timed, "prefill_seconds_max": prefill.high},
            flags["bench_prefill_share"].count / timed, **lines_of(acc, "bench_prefill_share")))
    slow = flags["slow_small_batch"].count + flags["starved"].count
    # Speed is judged only in windows that state one (running > 0 and a generation rate): SGLang prefill-batch lines
    # carry no generation rate, so they neither support nor dilute a per-stream reading.
    decoding = max(acc.per_stream.count, slow, 1)
    # On a CPU (the log's backend, or a CPU it names with no accelerator) a stream under the GPU's cutoff is usual:
    # only one under the CPU's own (a second a token) is slow.
    cpu_pace = bool(slow and not hardware.judged and acc.labels.get("backend") == "cpu"
                    and acc.per_stream.low >= 1 / SLOW_CPU_TPOT_SECONDS)
    if cpu_pace:
        notes.append(f"generation at {acc.per_stream.low:.1f}–{acc.per_stream.high:.1f} tok/s per running request on a "
                     "CPU backend: slow for a GPU, within what a CPU's memory gives")
        slow = 0
    if slow and not hardware.judged:
        findings.append(fire(
            "windows-slow-streams", f"generation at {acc.per_stream.low:.1f}–{acc.per_stream.high:.1f} tok/s per "
            f"running request with no prefill load in {slow} of {decoding} windows that state a generation rate "
            f"(a fixed cutoff: {hardware.ask})",
            {"generation_per_request_mean": acc.per_stream.mean},
            slow / decoding, **lines_of(acc, "slow_small_batch" if flags["slow_small_batch"].count else "starved")))
    spec_slow = not slow and not hardware.judged and _slow_spec_steps(acc, running, findings, hardware)
    _drafts_rejected(acc, findings)
    if flags["stalled"].count:
        findings.append(fire(
            "windows-stalled", f"requests running but no prompt read and no token generated in "
            f"{flags['stalled'].count} of {decoding} windows that state a generation rate: the engine is stuck, "
            "or one step outlasts the window", {"stalled_windows": flags["stalled"].count},
            flags["stalled"].count / decoding, **lines_of(acc, "stalled")))
    _depth_slowdown(acc, findings)
    _same_test_slower(acc, findings)
    _slowdown_beyond_context(acc, findings)
    if flags["kv_full_no_queue"].count:
        findings.append(fire(
            "windows-kv-full-no-queue", f"KV cache ≥ {KV_FULL_FRACTION:.0%} full with no request waiting in "
            f"{flags['kv_full_no_queue'].count} of {windows} windows (max {kv.high:.0%}): the batch fills the KV "
            "pool; the next burst will queue or preempt", numbers, share("kv_full_no_queue"),
            **lines_of(acc, "kv_full_no_queue")))
    if flags["busy"].count == 0 and _prompt_in_chunks(acc, findings, hardware):
        return
    if flags["busy"].count == 0 and running is not None:  # bench tables state no running count: not idle
        findings.append(fire("windows-idle", f"the server is idle in all {windows} windows (Running 0, Waiting 0): "
                             "nothing to diagnose", numbers))
        return
    if flags["busy"].count == 0:
        return
    # Healthy where most busy windows show no finding: a burst's first windows do not outweigh a steady run.
    # Not when a finding recurs (in 3 windows or more and a tenth of them or more): episodes are not outliers.
    # Arrival windows neither support nor spoil "healthy": their rates are averaged over time before the arrival.
    # A full batch's short queue (windows-short-queue) is no finding: its windows count as clean.
    clean = flags["clean"].count + (flags["clean_but_queued"].count if short_queue else 0)
    if cpu_pace:  # the windows only "slow" are a CPU's usual pace
        clean = min(clean + flags["slow_small_batch"].count + flags["starved"].count, flags["busy"].count)
    recurring = max(3, RECURRING_SHARE * windows)
    judged = flags["busy"].count - flags["arrival"].count
    if judged <= 0:
        if flags["troubled"].count:
            return
        findings.append(fire("windows-no-speed", f"{windows} stats windows, each holding the arrival of its "
                             f"{running.high:.0f} running request(s) (up to {generation.high if generation else 0:.1f} "
                             "generation tok/s averaged over time before it came): no window measures a stream's "
                             "speed", numbers, **lines_of(acc, "arrival")))
        return
    if clean <= judged / 2 or (slow and not hardware.judged and slow > decoding / 2) or spec_slow or any(
            flags[name].count >= recurring for name in (
                *(() if short_queue else ("waiting",)), *(() if cpu_pace else ("slow_small_batch", "starved")),
                "kv_full", "prefill_heavy", "swapped", "stalled")):
        return
    # What a healthy window looks like: busy, no queue, KV not full, per-stream speed shown.
    shown = _window_bits(acc, numbers)
    if not generation and not acc.per_stream.count:
        # No speed in the windows: healthy needs numbers that show it; say what the windows do show.
        findings.append(fire("windows-no-speed", f"{windows} stats windows: " + shown
                             + "; no generation rate to judge speed by", numbers))
        return
    if not hardware.judged and not cpu_pace and acc.per_stream.count \
            and acc.per_stream.mean < threshold("windows-slow-streams") \
            and running is not None and running.high < threshold("summary-tpot-batch-unjudged"):
        # Under the one-stream cutoff at a batch past the small-batch rule's: slow for a model that fits the card,
        # the price of a big model on a slow one; the card decides, so the speed is neither called normal nor slow.
        findings.append(fire(
            "windows-streams-unjudged", f"{windows} stats windows: " + shown + f": ~{acc.per_stream.mean:.1f} tok/s "
            f"per running request at up to {running.high:.0f} running is under the one-stream cutoff, which does not "
            f"judge a batch this size; {hardware.ask}",
            dict(numbers, generation_per_request_mean=acc.per_stream.mean)))
        return
    queue = (f"a queue of at most {waiting.high:.0f} beside {running.low:.0f}+ running, admitted within steps"
             if short_queue else "no queue")
    known = [text for value, text in ((waiting, queue), (kv, "KV cache not full")) if value is not None]
    if clean < judged:
        known = [f"{clean} of {judged} busy windows without a finding"]
    findings.append(fire("windows-healthy", f"{windows} stats windows: " + shown
                         + (f"; {', '.join(known)}" if known else ""), numbers,
                         min(1.0, windows / 5) * clean / judged))


def _window_bits(acc: Accumulator, numbers: dict) -> str:
    """What the windows show (generation, running, waiting, KV, per-stream speed), the means added to `numbers`."""
    generation, running = acc.interval_value("generation_tokens_per_second"), acc.interval_value("running_requests")
    waiting, kv = acc.interval_value("waiting_requests"), acc.interval_value("kv_cache_usage_fraction")
    bits = []
    if generation:
        bits.append(f"generation {generation.low:.1f}–{generation.high:.1f} tok/s")
        numbers["generation_tokens_per_second_mean"] = generation.mean
    if running:
        bits.append(f"running {running.low:.0f}–{running.high:.0f}")
    if waiting is not None:
        bits.append(f"waiting max {waiting.high:.0f}")
    if kv:
        bits.append(f"KV {kv.low:.1%}–{kv.high:.1%}")
    if acc.per_stream.count:
        bits.append(f"~{acc.per_stream.mean:.1f} tok/s per running request")
        numbers["generation_per_request_mean"] = acc.per_stream.mean
    return ", ".join(bits)


def _prompt_in_chunks(acc: Accumulator, findings: list, hardware: Hardware) -> bool:
    """A prompt read in chunks (SGLang's Prefill lines, `#pending-token` saying what is left) while nothing else runs:
    its length (or, with no pending count, one chunk's) and the rate its lines state give the time before its first
    token. True when that is long enough to name, or when the model and card show the rate is no prefill speed."""
    pending, chunk = acc.interval_value("pending_tokens"), acc.interval_value("batch_tokens")
    rate = acc.interval_value("prompt_tokens_per_second")
    if chunk is None or rate is None or rate.mean <= 0 or chunk.high <= 0:
        return False
    if pending is not None and pending.high <= 0:
        # `#pending-token: 0` on every line: each prompt was read whole in its batch, none in chunks; the input rate
        # of a lone line is averaged over the idle time before it (SGLang's), not a prefill speed.
        return False
    # The first chunk line: what it reads now and what is left; with no pending count, one full chunk is the least a
    # prompt read so holds.
    known = pending is not None and pending.high > 0
    prompt = pending.first + chunk.first if known else chunk.high
    seconds = prompt / rate.mean
    if seconds < threshold("requests-prompt-in-progress"):
        return False
    share = hardware.window_prompt_peak_fraction
    if share is not None and share < threshold("windows-prompt-rate-idle"):
        findings.append(fire(
            "windows-prompt-rate-idle", f"prefill lines with nothing else running state {_span(rate.low, rate.high)} "
            f"input tok/s: at most {share:.2%} of what the {hardware.card_name or 'card'}'s peak computes for this "
            "model, far under any engine's prefill; the rate is the tokens over time partly idle (SGLang's: the "
            "last batch's tokens over the time since the Prefill line before), not the prompt's speed",
            {"prompt_tokens_per_second_high": rate.high, "window_prompt_peak_fraction": share}))
        return True
    findings.append(fire(
        "windows-prompt-in-chunks", f"a prompt of {'~' if known else 'at least '}{prompt:,.0f} tokens read in chunks "
        f"of up to {chunk.high:,.0f} "
        f"with nothing else running, at {_span(rate.low, rate.high)} input tok/s: about {seconds:,.0f} s before "
        "its first token", {"prompt_tokens": prompt, "prompt_tokens_per_second_mean": rate.mean,
                            "projected_prefill_seconds": seconds}))
    return True


def _span(low: float, high: float) -> str:
    """`45-46`, or `46` where both round alike."""
    return f"{low:,.0f}" if f"{low:,.0f}" == f"{high:,.0f}" else f"{low:,.0f}-{high:,.0f}"


def _slow_prefill_gap(acc: Accumulator, findings: list) -> None:
    """SGLang prompts whose reading (Prefill line to the next Decode line) ran under the threshold × the rate one
    stream then generates at: the prompt, not the decode, is the cost of those requests. The gap also holds the
    decode steps before that Decode line, at most SGLANG_DECODE_LOG_STEPS: taken off, the gap bounds the prefill from
    below, so the prompt rate it gives is the fastest the prompt can have been read."""
    streams = acc.per_stream
    if acc.prefill_gap_slowest is None or not streams.count or not streams.mean:
        return
    tokens, seconds = acc.prefill_gap_slowest
    prefill = seconds - SGLANG_DECODE_LOG_STEPS / streams.mean
    if prefill <= 0:
        return
    ratio = tokens / prefill / streams.mean
    if ratio >= threshold("windows-slow-prefill-gap"):
        return
    findings.append(fire(
        "windows-slow-prefill-gap", f"a {tokens:,.0f}-token prompt took {prefill:,.0f}-{seconds:,.0f} s from its "
        f"Prefill line to the next Decode line (at most {tokens / prefill:,.0f} prompt tok/s) while a stream then "
        f"generates ~{streams.mean:.1f} tok/s: the prompt is read at most {ratio:.1f}× as fast as one stream writes, "
        f"so it costs as much as ~{prefill * streams.mean:,.0f} generated tokens", {
            "prompt_tokens": tokens, "prefill_seconds_min": prefill, "prefill_seconds_max": seconds,
            "prompt_tokens_per_second_max": tokens / prefill, "generation_per_request_mean": streams.mean},
        **lines_of(acc, "prefill_gap")))


def _depth_slowdown(acc: Accumulator, findings: list) -> None:
    """llama-bench -d: generation at a few thousand tokens of context against generation with none. Each step reads
    the weights plus the cache; at these depths the cache of a usual GQA model is a fraction of the weights (Llama-3
    8B: 128 kB a token, 0.5 GB at 4,096 against 4.9 GB of Q4 weights), so a rate that halves means the attention
    kernel, not the memory, sets the pace."""
    rates = acc.depth_generation
    base = rates.get(0.0)
    if base is None or not base.count or not base.high:
        return
    deeper = [(depth, held.high) for depth, held in rates.items() if 0 < depth <= DEPTH_MAX_TOKENS and held.count]
    if not deeper:
        return
    depth, rate = min(deeper, key=lambda item: item[1])  # the slowest depth
    slowdown = base.high / rate if rate else float("inf")
    if slowdown >= threshold("windows-decode-slows-with-depth"):
        findings.append(fire(
            "windows-decode-slows-with-depth", f"generation falls from {base.high:.1f} tok/s with an empty context "
            f"to {rate:.1f} tok/s at {depth:,.0f} tokens of context ({slowdown:.1f}× slower): the attention over "
            "the cache, not the weights' read, sets the pace of each token",
            {"generation_tokens_per_second_depth_0": base.high, "generation_tokens_per_second_deep": rate,
             "context_depth_tokens": depth, "slowdown": slowdown}))


def _same_test_slower(acc: Accumulator, findings: list) -> None:
    """llama-bench rows of one test, model and settings under two builds (a fork against mainline, a bisect): where
    the slower of a pair is the rule's threshold times slower than the faster or more, the widest such gap of the
    log is the finding (a tg test's: decode-bound; a pp test's: prefill-bound)."""
    gaps = []
    for (file, model, test, _settings, _machine), runs in acc.bench_tests.items():
        (slow, slow_line), (fast, fast_line) = min(runs), max(runs)
        if slow > 0 and fast / slow >= threshold("windows-bench-same-test-slower"):
            gaps.append((fast / slow, file, model, test, slow, slow_line, fast, fast_line))
    if not gaps:
        return
    ratio, file, model, test, slow, slow_line, fast, fast_line = max(gaps, key=lambda gap: gap[0])
    prompt = re.match(r"\s*pp(\d+)\s*$", test)
    small = prompt is not None and int(prompt.group(1)) <= SMALL_BATCH  # pp1-pp8: a decode step's work
    decode = small or test.lstrip().startswith("tg")
    phase = ("generation (a few tokens a step, as in decoding several streams)" if small
             else "generation" if decode else "prompt processing")
    findings.append(fire(
        "windows-bench-same-test-slower", f"llama-bench {test}{f' of {model}' if model else ''}: {slow:,.2f} tok/s "
        f"(line {slow_line}) against {fast:,.2f} tok/s (line {fast_line}) under the same settings, {ratio:.1f}× "
        f"slower: that build's {phase} leaves the machine's speed unused",
        {"tokens_per_second_slow": slow, "tokens_per_second_fast": fast, "slowdown": ratio},
        lines=sorted((slow_line, fast_line)), file=file,
        verdict="decode-bound" if decode else "prefill-bound"))


def _slowdown_beyond_context(acc: Accumulator, findings: list) -> None:
    """llama-bench -d at two depths d1 < d2, both above zero: a step reads the weights (fixed) and the cache (linear
    in the depth), so its time grows at most d2/d1 times between them, for prompt and generation tests alike. A rate
    that falls much faster than that does not measure what the context costs."""
    worst = None
    for phase, rates in (("generation", acc.depth_generation), ("prompt", acc.depth_prompt)):
        depths = sorted((depth, held.high) for depth, held in rates.items() if depth > 0 and held.count and held.high)
        for index, (shallow, fast) in enumerate(depths):
            for deep, slow in depths[index + 1:]:
                excess = fast / slow / (deep / shallow)
                if excess >= threshold("windows-slowdown-beyond-context") and (worst is None or excess > worst[0]):
                    worst = (excess, phase, shallow, fast, deep, slow)
    if worst is None:
        return
    excess, phase, shallow, fast, deep, slow = worst
    findings.append(fire(
        "windows-slowdown-beyond-context", f"{phase} falls from {fast:,.1f} tok/s at {shallow:,.0f} tokens of context "
        f"to {slow:,.1f} at {deep:,.0f} ({fast / slow:.1f}× slower over a context {deep / shallow:.1f}× longer): a "
        "step's cache read grows no faster than the context, so this is not the context's cost (memory spilled off "
        "the device, another load, or a test run once: rerun with -r 3 and watch device memory)",
        {f"{phase}_tokens_per_second_shallow": fast, f"{phase}_tokens_per_second_deep": slow,
         "context_depth_tokens_shallow": shallow, "context_depth_tokens_deep": deep, "slowdown_over_depth_ratio": excess}))


def _batch_below_one_stream(acc: Accumulator, findings: list) -> None:
    """windows-batch-below-one-stream: a llama-batched-bench shape whose batch of several sequences generates less in
    all than the rule's share of one sequence's tokens a second (the smallest such batch is shown)."""
    cut = threshold("windows-batch-below-one-stream")
    for (file, _pp, _tg), by_batch in acc.batched_generation.items():
        single = by_batch.get(1)
        below = [(batch, rate, line) for batch, (rate, line) in sorted(by_batch.items())
                 if single and batch > 1 and rate < cut * single[0]]
        if below:
            batch, rate, line = below[0]
            findings.append(fire(
                "windows-batch-below-one-stream", f"llama-batched-bench: {batch} sequences generate {rate:,.1f} tok/s "
                f"in all against {single[0]:,.1f} for one ({rate / single[0]:.0%}): the batched decode path is slower "
                "than the single-sequence one", {"batch": float(batch), "generation_tokens_per_second": rate,
                                                 "single_generation_tokens_per_second": single[0]},
                1 - rate / (cut * single[0]), lines=[single[1], line], file=file))
            return
