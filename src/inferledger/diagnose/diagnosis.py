"""The engine-neutral diagnosis: from a stream of Records to a verdict, its evidence and a confidence.

The seed's rule (slow first token + fast tokens -> prefill; slow tokens -> bandwidth; both -> queue first) is
applied only after the known pitfalls of serving measurements are ruled out: queue evidence is checked before anything is
called prefill-bound, the achieved request rate is compared with the offered one, all-at-once runs
are throughput tests, impossible numbers are artefacts, not diagnoses, and the two consistency
checks (Little's law, TTFT + TPOT·(n−1) ≈ E2E) are reported.

Records are folded in constant memory by accumulate.Accumulator; the rules here read its statistics and flags.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

from inferledger.diagnose.accumulate import (
    ALL_AT_ONCE_RATE,
    KV_FULL_FRACTION,
    SLOW_TPOT_SECONDS,
    TINY_PROMPT_TOKENS,
    Accumulator,
)

VERDICTS = ("queueing", "kv-capacity", "prefill-bound", "decode-bound", "healthy", "measurement-artifact",
            "insufficient-data")


@dataclass
class Evidence:
    """One observation that supports (or weighs on) a verdict: a sentence, its numbers and where they came from."""

    verdict: str  # the verdict it supports, or "note" for context that supports none
    text: str
    numbers: dict = field(default_factory=dict)
    lines: list = field(default_factory=list)
    file: str = ""

    def to_dict(self) -> dict:
        return {"verdict": self.verdict, "text": self.text, "numbers": self.numbers, "lines": self.lines,
                "file": self.file}


@dataclass
class Finding:
    verdict: str
    score: float  # 0..1, how strongly the evidence supports the verdict
    evidence: list


@dataclass
class Diagnosis:
    """The verdict for a set of log files, with its evidence, confidence, timeline and consistency checks."""

    verdict: str
    confidence: float
    headline: str
    evidence: list
    alternatives: list  # [{"verdict", "confidence"}] other readings the evidence also supports
    metrics: dict
    timeline: list
    capacity: dict
    events: dict
    checks: list
    files: list
    notes: list
    advice: list = field(default_factory=list)
    roofline: dict | None = None

    def to_dict(self) -> dict:
        return {
            "verdict": self.verdict,
            "confidence": round(self.confidence, 2),
            "headline": self.headline,
            "alternatives": self.alternatives,
            "evidence": [item.to_dict() for item in self.evidence],
            "metrics": self.metrics,
            "timeline": self.timeline,
            "capacity": self.capacity,
            "events": self.events,
            "checks": self.checks,
            "roofline": self.roofline,
            "advice": self.advice,
            "notes": self.notes,
            "files": self.files,
        }


# -- the rules ------------------------------------------------------------------------------------------------------
def _fmt(value: float, digits: int = 3) -> str:
    return f"{value:.{digits}g}"


def _summary_value(record, name: str):
    value = record.metrics.get(name)
    if value is None and name.endswith("_mean"):
        value = record.metrics.get(name[:-5] + "_median")
    return value


def _offered_rate(record) -> float | None:
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


def _summary_findings(acc: Accumulator, findings: list, checks: list, notes: list) -> None:
    for record, file in acc.summaries:
        where = {"lines": [record.line_number], "file": file}
        name = record.labels.get("benchmark") or record.labels.get("tool") or record.source
        ttft = _summary_value(record, "ttft_seconds_mean")
        tpot = _summary_value(record, "tpot_seconds_mean")
        itl = _summary_value(record, "itl_seconds_mean")
        e2e = _summary_value(record, "e2e_seconds_mean")
        completed = record.metrics.get("completed_requests")
        duration = record.metrics.get("duration_seconds")
        achieved = record.metrics.get("request_throughput_per_second")
        if achieved is None and completed and duration:
            achieved = completed / duration
        output_rate = record.metrics.get("output_tokens_per_second")
        mean_output = record.metrics.get("mean_output_tokens")
        if mean_output is None and completed and record.metrics.get("total_output_tokens"):
            mean_output = record.metrics["total_output_tokens"] / completed
        offered = _offered_rate(record)
        concurrency = record.metrics.get("max_concurrency")
        per_token = tpot if tpot is not None else itl

        # measurement bugs: impossible numbers are flagged, not diagnosed.
        if ttft is not None and ttft <= 0 and (completed or output_rate or e2e):
            findings.append(Finding("measurement-artifact", 0.9, [Evidence(
                "measurement-artifact", f"{name}: mean TTFT is 0 ms: the first token was not timed",
                {"ttft_seconds_mean": ttft}, **where)]))
        if output_rate is not None and output_rate <= 0 and completed:
            findings.append(Finding("measurement-artifact", 0.9, [Evidence(
                "measurement-artifact", f"{name}: output throughput 0.0 tok/s with {completed:.0f} requests done",
                {"output_tokens_per_second": output_rate, "completed_requests": completed}, **where)]))
        if ttft is not None and e2e is not None and ttft > 0 and ttft >= 0.999 * e2e and (mean_output or 2) > 1:
            findings.append(Finding("measurement-artifact", 0.85, [Evidence(
                "measurement-artifact", f"{name}: first-token latency equals the full latency (not streamed?)",
                {"ttft_seconds_mean": ttft, "e2e_seconds_mean": e2e}, **where)]))
        ttst = record.metrics.get("ttst_seconds_mean")
        if ttst is not None and ttst < 0.001 and ttft is not None and ttft > 0.2:
            findings.append(Finding("measurement-artifact", 0.45, [Evidence(
                "measurement-artifact",
                f"{name}: time to second token {ttst * 1e3:.2f} ms after a {ttft * 1e3:.0f} ms first token: tokens "
                "arrive in chunks, so TTFT depends on what the tool counts as the first token",
                {"ttst_seconds_mean": ttst, "ttft_seconds_mean": ttft}, **where)]))

        # latency composition: TTFT + TPOT·(n−1) ≈ E2E.
        if ttft is not None and tpot is not None and e2e is not None and mean_output and mean_output > 1:
            predicted = ttft + tpot * (mean_output - 1)
            ratio = predicted / e2e if e2e > 0 else math.inf
            checks.append({"check": "latency composition", "source": name, "predicted_e2e_seconds": predicted,
                           "reported_e2e_seconds": e2e, "ratio": ratio, "ok": 0.85 <= ratio <= 1.15,
                           "meaning": "TTFT + TPOT x (mean output - 1) vs mean E2E; a mismatch means "
                                      "chunked streaming, speculative decoding or a broken measurement"})
        # Little's law: output throughput × mean TPOT ≈ mean number of decoding requests.
        if output_rate and per_token:
            decoding = output_rate * per_token
            check = {"check": "Little's law", "source": name, "output_tokens_per_second": output_rate,
                     "seconds_per_token": per_token, "implied_decoding_requests": decoding}
            cap = concurrency or record.metrics.get("mean_concurrency")
            if cap:
                check["concurrency"] = cap
                check["ok"] = decoding <= cap * 1.2
            checks.append(check)

        # achieved vs offered request rate. A short run understates capacity: the last requests still run
        # after the arrivals end, so compare duration with (arrival window + one request's latency).
        if offered is not None and math.isfinite(offered) and offered > 0 and achieved is not None and completed:
            latency = e2e
            if latency is None and ttft is not None and tpot is not None and mean_output:
                latency = ttft + tpot * (mean_output - 1)
            expected = completed / offered + (latency or 0.0)
            if achieved < 0.8 * offered and duration and duration > 1.3 * expected:
                findings.append(Finding("queueing", 0.8, [Evidence(
                    "queueing",
                    f"{name}: achieved {achieved:.3g} req/s against {offered:.3g} req/s offered; the run took "
                    f"{duration:.3g} s where ~{expected:.3g} s was expected: the server cannot keep up",
                    {"request_throughput_per_second": achieved, "request_rate_per_second": offered,
                     "duration_seconds": duration}, **where)]))
            elif achieved < 0.8 * offered:
                notes.append(f"{name}: achieved {achieved:.3g} req/s < {offered:.3g} offered, but the run is short: "
                             f"{completed:.0f} requests arrive in {completed / offered:.3g} s and then drain "
                             f"(expected ~{expected:.3g} s, took {duration or 0:.3g} s); not overload")
        all_at_once = offered is not None and offered >= ALL_AT_ONCE_RATE
        uncapped = concurrency is None or (completed is not None and concurrency >= completed)
        if all_at_once and uncapped and (concurrency is None or concurrency > 1):
            strength = 0.7
            text = (f"{name}: every request sent at t=0 (rate {'inf' if math.isinf(offered) else f'{offered:.2g}'}): "
                    "a throughput test; TTFT is queue wait by construction")
            if ttft is not None and per_token and ttft > 20 * per_token:
                strength = 0.75
                text += f"; TTFT {ttft * 1e3:.0f} ms vs {per_token * 1e3:.1f} ms per token"
            findings.append(Finding("queueing", strength, [Evidence(
                "queueing", text, {"request_rate_per_second": offered, "ttft_seconds_mean": ttft}, **where)]))
        elif all_at_once:
            notes.append(f"{name}: request rate inf but client concurrency {concurrency:.0f}: "
                         "latencies are measured behind the client's own queue")

        # Per-token speed (TPOT for speed, ITL for stalls).
        if per_token is not None and per_token >= SLOW_TPOT_SECONDS:
            findings.append(Finding("decode-bound", 0.65, [Evidence(
                "decode-bound", f"{name}: {per_token * 1e3:.0f} ms per output token (≤ {1 / per_token:.1f} tok/s "
                "per stream)", {"tpot_seconds_mean": per_token}, **where)]))
        itl_p99 = record.metrics.get("itl_seconds_p99")
        itl_median = record.metrics.get("itl_seconds_median") or itl
        if ttft is not None and ttft >= 1.0 and e2e and ttft >= 0.25 * e2e and not all_at_once:
            evidence = [Evidence(
                "prefill-bound", f"{name}: TTFT {ttft:.2f} s is {ttft / e2e:.0%} of the request time with no "
                "queue evidence in this summary (check server Waiting/queue before trusting this)",
                {"ttft_seconds_mean": ttft, "e2e_seconds_mean": e2e}, **where)]
            score = 0.5
            if itl_p99 and itl_median and itl_p99 > 10 * itl_median:
                score = 0.65
                evidence.append(Evidence("prefill-bound", f"{name}: ITL P99 {itl_p99 * 1e3:.0f} ms vs median "
                                         f"{itl_median * 1e3:.1f} ms: prefills stall the decode batch",
                                         {"itl_seconds_p99": itl_p99}, **where))
            findings.append(Finding("prefill-bound", score, evidence))
        failed = record.metrics.get("failed_requests")
        if failed and completed and failed > 0.05 * (failed + completed):
            notes.append(f"{name}: {failed:.0f} of {failed + completed:.0f} requests failed")
        if all_at_once and uncapped:
            continue  # a throughput test says nothing about latency health
        if ttft is not None or per_token is not None or output_rate is not None or e2e is not None:
            latency_bits = []
            if ttft is not None:
                latency_bits.append(f"TTFT {ttft * 1e3:.1f} ms")
            if per_token is not None:
                latency_bits.append(f"{'TPOT' if tpot is not None else 'ITL'} {per_token * 1e3:.2f} ms")
            if output_rate is not None:
                latency_bits.append(f"{output_rate:.1f} output tok/s")
            if achieved is not None:
                latency_bits.append(f"{achieved:.3g} req/s")
            findings.append(Finding("healthy", 0.6, [Evidence("healthy", f"{name}: " + ", ".join(latency_bits),
                                                              {}, **where)]))
        elif completed or duration:
            findings.append(Finding("insufficient-data", 0.45, [Evidence(
                "insufficient-data", f"{name}: request counts and token lengths only; no latency columns",
                {"completed_requests": completed}, **where)]))
        elif record.metrics:
            shown = ", ".join(sorted(record.metrics)[:6])
            findings.append(Finding("insufficient-data", 0.45, [Evidence(
                "insufficient-data", f"{name}: no TTFT, per-token latency or throughput; only {shown}",
                {}, **where)]))


def _lines_evidence(acc: Accumulator, flag: str) -> dict:
    lines = acc.flags[flag]
    return {"lines": list(lines.lines), "file": lines.file}


def _interval_findings(acc: Accumulator, findings: list, notes: list) -> None:
    windows = acc.interval_count
    if not windows:
        return
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

    if flags["kv_full_waiting"].count:
        share = flags["kv_full_waiting"].count / windows
        findings.append(Finding("kv-capacity", min(0.95, 0.7 + share), [Evidence(
            "kv-capacity", f"KV cache ≥ {KV_FULL_FRACTION:.0%} full with requests waiting in "
            f"{flags['kv_full_waiting'].count} of {windows} windows (max {kv.high:.0%}, waiting up to "
            f"{waiting.high:.0f})", numbers, **_lines_evidence(acc, "kv_full_waiting"))]))
    if flags["swapped"].count:
        findings.append(Finding("kv-capacity", 0.8, [Evidence(
            "kv-capacity", f"requests swapped to CPU in {flags['swapped'].count} windows: the GPU KV cache ran out",
            {"swapped_requests_max": acc.interval["swapped_requests"].high}, **_lines_evidence(acc, "swapped"))]))
    if flags["waiting"].count:
        share = flags["waiting"].count / windows
        draining = waiting.last is not None and waiting.last < waiting.high and waiting.last <= waiting.first / 2
        text = (f"requests waiting in {flags['waiting'].count} of {windows} windows (up to {waiting.high:.0f}, "
                f"last {waiting.last:.0f})")
        if kv:
            text += f" while KV usage peaked at {kv.high:.0%}"
            if kv.high < KV_FULL_FRACTION:
                text += ": not KV-bound"
        if draining:
            text += "; the queue is draining"
        score = 0.55 + 0.35 * share - (0.15 if draining else 0.0)
        findings.append(Finding("queueing", score, [Evidence("queueing", text, numbers,
                                                             **_lines_evidence(acc, "waiting"))]))
    if flags["prefill_heavy"].count:
        share = flags["prefill_heavy"].count / windows
        findings.append(Finding("prefill-bound", 0.6 + 0.35 * share, [Evidence(
            "prefill-bound", f"prompt throughput dominates {flags['prefill_heavy'].count} of {windows} windows "
            f"(up to {prompt.high:.1f} prompt tok/s vs {generation.low:.1f} generation tok/s) and decode is starved "
            f"(~{acc.per_stream.low:.1f} tok/s per running request)",
            {"prompt_tokens_per_second_max": prompt.high, "generation_tokens_per_second_min": generation.low,
             "generation_per_request_min": acc.per_stream.low}, **_lines_evidence(acc, "prefill_heavy"))]))
    slow = flags["slow_small_batch"].count + flags["starved"].count
    if slow:
        share = slow / windows
        findings.append(Finding("decode-bound", 0.5 + 0.3 * share, [Evidence(
            "decode-bound", f"generation at {acc.per_stream.low:.1f}–{acc.per_stream.high:.1f} tok/s per running "
            f"request with no prefill load in {slow} of {windows} windows",
            {"generation_per_request_mean": acc.per_stream.mean},
            **_lines_evidence(acc, "slow_small_batch" if flags["slow_small_batch"].count else "starved"))]))
    if flags["busy"].count == 0:
        findings.append(Finding("insufficient-data", 0.6, [Evidence(
            "insufficient-data", f"the server is idle in all {windows} windows (Running 0, Waiting 0): nothing to "
            "diagnose", numbers, lines=[], file="")]))
        return
    if flags["waiting"].count or flags["kv_full"].count or flags["prefill_heavy"].count or slow \
            or flags["swapped"].count:
        return
    # What a healthy window looks like: busy, no queue, KV not full, per-stream speed reasonable.
    bits = []
    if generation:
        bits.append(f"generation {generation.low:.1f}–{generation.high:.1f} tok/s")
    if running:
        bits.append(f"running {running.low:.0f}–{running.high:.0f}")
    if waiting is not None:
        bits.append(f"waiting max {waiting.high:.0f}")
    if kv:
        bits.append(f"KV {kv.low:.1%}–{kv.high:.1%}")
    if acc.per_stream.count:
        bits.append(f"~{acc.per_stream.mean:.1f} tok/s per running request")
    score = 0.55 + min(0.25, 0.05 * windows)
    findings.append(Finding("healthy", score, [Evidence(
        "healthy", f"{windows} stats windows: " + ", ".join(bits) + "; no queue, KV cache not full", numbers,
        lines=[], file="")]))


def _event_findings(acc: Accumulator, findings: list) -> None:
    for name, text in (("preemptions", "preemption(s): the KV cache ran out and requests were evicted"),
                       ("retractions", "request(s) retracted: the KV pool was full during decode"),
                       ("oom", "out-of-memory event(s)")):
        total = acc.events.get(name)
        if total:
            lines = acc.event_lines[name]
            numbers = {name: total}
            if name == "preemptions" and acc.preemptions_total.count:
                numbers["preemptions_total_reported"] = acc.preemptions_total.high
            findings.append(Finding("kv-capacity", 0.9, [Evidence(
                "kv-capacity", f"{total:.0f} {text}", numbers, lines=list(lines.lines), file=lines.file)]))


def _request_findings(acc: Accumulator, findings: list, notes: list) -> None:
    count = acc.request_count
    if not count:
        return
    flags = acc.flags
    for flag, text in (("ttft_zero", "TTFT of 0 ms"), ("ttft_ge_e2e", "first-token latency equal to the full latency"),
                       ("prefill_zero", "prompt eval time 0.00 ms for a non-empty prompt")):
        if flags[flag].count:
            findings.append(Finding("measurement-artifact", 0.85, [Evidence(
                "measurement-artifact", f"{flags[flag].count} of {count} requests report {text}", {},
                **_lines_evidence(acc, flag))]))
    if flags["cold_start"].count:
        load = acc.request_value("load_seconds")
        e2e = acc.request_value("e2e_seconds")
        findings.append(Finding("measurement-artifact", 0.8, [Evidence(
            "measurement-artifact", f"model load {load.high * 1e3:.1f} ms is {load.high / e2e.high:.0%} of the "
            "request time: this measures a cold start, not serving", {"load_seconds": load.high,
                                                                       "e2e_seconds": e2e.high},
            **_lines_evidence(acc, "cold_start"))]))
    if flags["tiny_prompt"].count:
        notes.append(f"{flags['tiny_prompt'].count} request(s) with ≤ {TINY_PROMPT_TOKENS} prompt tokens: their "
                     "prompt-eval rate is fixed overhead, not prefill speed")
    if flags["queue_dominant"].count:
        queue = acc.request_value("queue_seconds")
        findings.append(Finding("queueing", 0.6 + 0.3 * flags["queue_dominant"].count / count, [Evidence(
            "queueing", f"{flags['queue_dominant'].count} of {count} requests spent longer queued than computing "
            f"(queue up to {queue.high:.3g} s)", {"queue_seconds_max": queue.high},
            **_lines_evidence(acc, "queue_dominant"))]))
    tpot = acc.request_value("tpot_seconds")
    if flags["slow_tpot"].count:
        queue = acc.request_value("queue_seconds")
        text = (f"{flags['slow_tpot'].count} of {count} requests at {tpot.mean * 1e3:.0f} ms per output token "
                f"(~{1 / tpot.mean:.1f} tok/s per stream)")
        if queue is not None:
            text += f" with {queue.mean * 1e3:.2f} ms in the queue: no queueing"
        if acc.labels.get("tpot_includes_prefill"):
            text += "; this time_per_token includes prefill"
        findings.append(Finding("decode-bound", 0.55 + 0.3 * flags["slow_tpot"].count / count, [Evidence(
            "decode-bound", text, {"tpot_seconds_mean": tpot.mean}, **_lines_evidence(acc, "slow_tpot"))]))
    ttft = acc.request_value("ttft_seconds")
    generation = acc.request_value("generation_tokens_per_second")
    bits = []
    if ttft is not None:
        bits.append(f"TTFT {ttft.mean * 1e3:.0f} ms")
    if tpot is not None:
        bits.append(f"{tpot.mean * 1e3:.1f} ms/token")
    elif generation is not None:
        bits.append(f"{generation.mean:.1f} tok/s generation")
    itl = acc.request_value("itl_seconds")
    if itl is not None and tpot is None:
        bits.append(f"ITL {itl.mean * 1e3:.1f} ms")
    if bits and not (flags["slow_tpot"].count or flags["queue_dominant"].count):
        findings.append(Finding("healthy", 0.55 + min(0.2, 0.05 * count), [Evidence(
            "healthy", f"{count} request(s): " + ", ".join(bits), {}, lines=[], file="")]))


def _capacity_findings(acc: Accumulator, findings: list) -> None:
    capacity = {name: value for name, (value, *_rest) in acc.capacity.items()}
    if not capacity:
        return
    tokens = capacity.get("kv_cache_tokens")
    if tokens is None and capacity.get("gpu_blocks") is not None:
        # vLLM default block size 16 unless the log printed another (hybrid models).
        tokens = capacity["gpu_blocks"] * capacity.get("block_size_tokens", 16)
    concurrency = capacity.get("max_concurrency_at_length")
    length = capacity.get("max_model_len_tokens")
    if concurrency is None and tokens and length:
        concurrency = tokens / length
    facts = []
    if tokens:
        facts.append(f"KV cache {tokens:,.0f} tokens")
    if capacity.get("kv_cache_bytes"):
        facts.append(f"{'' if tokens else 'KV cache '}{capacity['kv_cache_bytes'] / 2**30:.2f} GiB")
    if length:
        facts.append(f"max length {length:,.0f}")
    if concurrency is not None:
        facts.append(f"{concurrency:.2f} full-length requests fit")
    if capacity.get("weights_bytes"):
        facts.append(f"weights {capacity['weights_bytes'] / 2**30:.2f} GiB")
    line_of = acc.capacity.get("kv_cache_tokens") or next(iter(acc.capacity.values()))
    where = {"lines": [line_of[1]], "file": line_of[2]}
    if concurrency is not None and concurrency < 2:
        findings.append(Finding("kv-capacity", 0.55, [Evidence(
            "kv-capacity", "startup capacity: " + ", ".join(facts) + ": long-context traffic will queue on KV "
            "capacity", {"kv_cache_tokens": tokens, "max_concurrency_at_length": concurrency}, **where)]))
    findings.append(Finding("insufficient-data", 0.5, [Evidence(
        "insufficient-data", "capacity facts only: " + (", ".join(facts) or ", ".join(sorted(capacity))),
        {"kv_cache_tokens": tokens, "max_concurrency_at_length": concurrency}, **where)]))


def _snapshot_findings(acc: Accumulator, findings: list) -> None:
    if not acc.snapshot:
        return
    waiting = acc.snapshot.get("waiting_requests")
    kv = acc.snapshot.get("kv_cache_usage_fraction")
    running = acc.snapshot.get("running_requests")
    facts = []
    if running:
        facts.append(f"running {running.high:.0f}")
    if waiting:
        facts.append(f"waiting {waiting.high:.0f}")
    if kv:
        facts.append(f"KV {kv.high:.0%}")
    for name in ("prompt_tokens_total", "generation_tokens_total", "requests_total", "preemptions_total"):
        if name in acc.snapshot:
            facts.append(f"{name} {acc.snapshot[name].high:,.0f}")
    if waiting and waiting.high > 0:
        if kv and kv.high >= KV_FULL_FRACTION:
            findings.append(Finding("kv-capacity", 0.7, [Evidence(
                "kv-capacity", f"metrics snapshot: {waiting.high:.0f} waiting with KV {kv.high:.0%} full", {})]))
        else:
            findings.append(Finding("queueing", 0.6, [Evidence(
                "queueing", f"metrics snapshot: {waiting.high:.0f} requests waiting", {})]))
    preempted = acc.snapshot.get("preemptions_total")
    if preempted and preempted.high > 0:
        findings.append(Finding("kv-capacity", 0.6, [Evidence(
            "kv-capacity", f"metrics snapshot: {preempted.high:.0f} preemptions since start", {})]))
    findings.append(Finding("insufficient-data", 0.5, [Evidence(
        "insufficient-data", "one metrics snapshot (counters need two scrapes for rates): " + ", ".join(facts), {})]))


def decide(acc: Accumulator, roofline_findings: list | None = None) -> tuple[list, list, list]:
    """All findings (best first), the consistency checks and the notes."""
    findings: list[Finding] = []
    checks: list[dict] = []
    notes: list[str] = []
    _event_findings(acc, findings)
    _interval_findings(acc, findings, notes)
    _request_findings(acc, findings, notes)
    _summary_findings(acc, findings, checks, notes)
    _snapshot_findings(acc, findings)
    if not findings:
        _capacity_findings(acc, findings)
    else:
        has_traffic = any(f.verdict not in ("insufficient-data",) for f in findings)
        if not has_traffic:
            _capacity_findings(acc, findings)
    if roofline_findings:
        findings.extend(roofline_findings)
    if not findings:
        findings.append(Finding("insufficient-data", 0.5, [Evidence(
            "insufficient-data", "the recognised lines carry no throughput, latency or capacity numbers", {})]))
    findings.sort(key=lambda finding: (-finding.score, VERDICTS.index(finding.verdict)))
    return findings, checks, notes


_HEADLINES = {
    "queueing": "requests wait in a queue: the server is overloaded for this traffic (add replicas or cap the rate)",
    "kv-capacity": "the KV cache is the limit: requests queue or get preempted for lack of KV memory",
    "prefill-bound": "prompt processing (prefill) dominates: first tokens are slow and decode is starved",
    "decode-bound": "token generation is slow per stream with no queue: decode (memory bandwidth) is the limit",
    "healthy": "no bottleneck in the log: no queue, KV cache not full, per-token speed normal",
    "measurement-artifact": "the numbers are a measurement artefact, not a serving problem: do not diagnose them",
    "insufficient-data": "the log has no traffic numbers to diagnose (startup, idle or format-only lines)",
}


def _metrics(acc: Accumulator) -> dict:
    metrics = {"records": acc.records, "interval_windows": acc.interval_count, "requests": acc.request_count,
               "summaries": len(acc.summaries), "sources": dict(acc.sources)}
    metrics["interval"] = {name: running.to_dict() for name, running in sorted(acc.interval.items())}
    if acc.per_stream.count:
        metrics["interval"]["generation_tokens_per_second_per_running_request"] = acc.per_stream.to_dict()
    metrics["request"] = {name: running.to_dict() for name, running in sorted(acc.requests.items())}
    metrics["snapshot"] = {name: running.to_dict() for name, running in sorted(acc.snapshot.items())}
    metrics["summary"] = [dict(record.metrics, source=record.source, line=record.line_number, file=file,
                               **{"labels": record.labels})
                          for record, file in acc.summaries]
    return metrics


def build(acc: Accumulator, files: list, roofline: dict | None = None, roofline_findings: list | None = None,
          advice: list | None = None) -> Diagnosis:
    findings, checks, notes = decide(acc, roofline_findings)
    best = findings[0]
    verdict = best.verdict
    evidence = []
    seen = set()
    for finding in findings:
        for item in finding.evidence:
            key = (item.verdict, item.text)
            if key not in seen:
                seen.add(key)
                evidence.append(item)
    alternatives = []
    for finding in findings[1:]:
        if finding.verdict != verdict and finding.verdict not in [a["verdict"] for a in alternatives] \
                and finding.score >= 0.5 and finding.verdict not in ("healthy", "insufficient-data"):
            alternatives.append({"verdict": finding.verdict, "confidence": round(finding.score, 2)})
    # Confidence: the winning score, lowered when a different non-trivial reading is nearly as strong.
    confidence = best.score
    if alternatives and alternatives[0]["confidence"] > best.score - 0.1:
        confidence = max(0.3, best.score - 0.15)
    if acc.labels.get("ttft_definition") or acc.labels.get("ttft_includes_reasoning"):
        notes.append("TTFT definition: " + str(acc.labels.get("ttft_definition") or "includes reasoning tokens"))
    capacity = {name: value for name, (value, *_rest) in acc.capacity.items()}
    events = {name: total for name, total in acc.events.items()}
    if acc.preemptions_total.count:
        events["preemptions_total_reported"] = acc.preemptions_total.high
    from inferledger.diagnose.roofline import advice_for

    # A queue that the test itself built (every request sent at t=0) is not overload: say so instead.
    throughput_test = verdict == "queueing" and all(
        (item.numbers.get("request_rate_per_second") or 0) >= ALL_AT_ONCE_RATE for item in best.evidence)
    advice = list(advice or []) + advice_for(verdict, roofline, throughput_test=throughput_test)
    headline = _HEADLINES[verdict]
    if throughput_test:
        headline = ("a throughput test: every request was sent at once, so requests queue by design; its TTFT is "
                    "queue wait, not serving latency")
    return Diagnosis(
        verdict=verdict, confidence=confidence, headline=headline, evidence=evidence,
        alternatives=alternatives, metrics=_metrics(acc), timeline=acc.timeline.to_list(), capacity=capacity,
        events=events, checks=checks, files=files, notes=notes, advice=advice, roofline=roofline)
