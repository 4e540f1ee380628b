"""The engine-neutral diagnosis: from the folded Records to a verdict, its evidence and a confidence.

The rules live in families (rules_summary, rules_windows, rules_requests, rules_state; roofline.py for the
hardware), their thresholds and confidences in one table (rules.py). The seed's rule (slow first token + fast
tokens -> prefill; slow tokens -> bandwidth; both -> queue first) is applied only after the pitfalls of
are ruled out. Ranking: the best-scoring finding is the verdict; its confidence is never below that
of an alternative it lists.
"""

from __future__ import annotations

from inferledger.diagnose.accumulate import Accumulator
from inferledger.diagnose.advice import advice_for
from inferledger.diagnose.findings import VERDICTS, Diagnosis, Evidence, Finding
from inferledger.diagnose.read import UNRECOGNISED
from inferledger.diagnose.rules import NO_HARDWARE, Hardware, fire, limit, threshold
from inferledger.diagnose.rules_requests import request_findings
from inferledger.diagnose.rules_state import capacity_findings, event_findings, snapshot_findings
from inferledger.diagnose.rules_summary import summary_findings
from inferledger.diagnose.rules_windows import window_findings

ALL_AT_ONCE_RATE = threshold("summary-all-at-once")
CLOSE_CALL = limit("close-call")


_PROMPT_ONLY = ("requests-prompt-only", "summary-prompt-only")


def decide(acc: Accumulator, roofline_findings: list | None = None, hardware: Hardware = NO_HARDWARE,
           sized=None, files=()) -> tuple[list, list, list]:
    """All findings (best first), the consistency checks and the notes. `hardware`: what the comparison with the
    hardware judged (rules.Hardware: where it judged decode speed, the fixed-cutoff decode rules stand down).
    `sized`: the model's size read from its name (named_model.NamedModel) when no card is known, for the fixed
    cutoff's large-model floor. `files`: what was read of each file (a file no reader knows is judged by the lines
    it could not read)."""
    findings: list[Finding] = []
    checks: list[dict] = []
    notes: list[str] = []
    event_findings(acc, findings, notes)
    window_findings(acc, findings, notes, hardware)
    request_findings(acc, findings, checks, notes, hardware, sized)
    summary_findings(acc, findings, checks, notes, hardware, sized)
    snapshot_findings(acc, findings)
    if not any(finding.verdict != "insufficient-data" for finding in findings):
        capacity_findings(acc, findings)
    if roofline_findings:
        findings.extend(roofline_findings)
        if any("models_at_one_bandwidth" in item.numbers for finding in roofline_findings
               for item in finding.evidence):
            # llama-bench's models of several sizes all read at one pace: that is the memory system's speed, and
            # the fixed cutoff's reading of their rates as slow decode (windows-slow-streams) is taken back.
            findings = [finding for finding in findings if finding.rule != "windows-slow-streams"]
        if any(finding.rule == "hardware-prefill-near-realistic" for finding in roofline_findings):
            # A prompt-only measurement reads as prefill-bound for want of a card to judge it against; the card
            # has judged the prompt's rate as fast as it computes, so the prompt is the work timed, not a bottleneck.
            taken = [finding for finding in findings if finding.rule in _PROMPT_ONLY]
            findings = [finding for finding in findings if finding.rule not in _PROMPT_ONLY]
            notes.extend(f"{finding.evidence[0].text}: the prompt's rate is as fast as the card computes "
                         "(hardware-prefill-near-realistic), so it is the work timed, not a bottleneck"
                         for finding in taken)
    # "healthy" needs numbers that show it (rules set them); a healthy finding without any is dropped.
    findings = [finding for finding in findings
                if finding.verdict != "healthy" or any(item.numbers for item in finding.evidence)]
    unknown = [info for info in files if UNRECOGNISED in info.get("formats", ()) and info["unread_lines"]]
    worded = [info for info in files if UNRECOGNISED in info.get("formats", ()) and not info["unread_lines"]]
    if not findings and worded and not unknown and not acc.records:
        findings.append(fire(
            "read-no-numbers", f"{', '.join(info['path'] for info in worded)}: words on serving a model (a question, "
            "a command, prose) but no serving number in any form a reader takes (a rate in tok/s, a TTFT, a "
            "latency, an engine's stats line): nothing to judge; the engine's log lines or a benchmark's printed "
            "summary would say more", {}))
    elif not findings and unknown and not acc.records:
        first = unknown[0]["unread_examples"][0]
        findings.append(fire(
            "read-unknown-layout", f"no reader knows the layout of {', '.join(info['path'] for info in unknown)}: "
            f"{sum(info['unread_lines'] for info in unknown):,} line(s) carry serving numbers that were not read "
            f"(line {first['line_number']}: {first['text']})", {}))
    elif not findings and acc.interval_count + acc.request_count + len(acc.summaries):
        # Numbers were read, none that a rule judges alone (a bench's rate with no card to judge it against, a
        # fraction of the bandwidth between "far below" and "near" the floor): say what was read, not "nothing".
        findings.append(fire("read-unjudged", f"read {acc.interval_count:,} window(s), {acc.request_count:,} "
                             f"request(s) and {len(acc.summaries):,} summar(ies), but no rule judges them alone: "
                             "see the timeline and the hardware comparison for what they show", {}))
    elif not findings:
        findings.append(fire("state-capacity-only", "the recognised lines carry no throughput, latency or "
                             "capacity numbers", {}))
    findings.sort(key=lambda finding: (-finding.score, VERDICTS.index(finding.verdict)))
    return findings, checks, notes


_HEADLINES = {
    "queueing": "requests wait in a queue: the server is overloaded for this traffic (add replicas or cap the rate)",
    "kv-capacity": "the KV cache is the limit: requests queue or get preempted for lack of KV memory",
    "prefill-bound": "prompt processing (prefill) dominates: first tokens are slow and decode is starved",
    "decode-bound": "token generation is slow per stream with no queue: decode (memory bandwidth) is the limit",
    "healthy": "no bottleneck in the log: no queue, KV cache not full, per-token speed normal",
    "measurement-artifact": "the numbers are a measurement artefact, not a serving problem: do not diagnose them",
    "insufficient-data": "not enough in the log to name a bottleneck: the evidence says what was read and what is missing",
}

# Rules whose finding names its own cause, not the verdict's usual one: their headline replaces the verdict's.
_RULE_HEADLINES = {
    "summary-concurrency-over-cap": "requests wait for a slot: the client keeps more in flight than the engine's "
                                    "running cap lets run at once",
    "summary-same-work-slower": "a run generates the same tokens far slower than another run in this file: its "
                                "generation path is broken, not the card's limit",
    "windows-bench-same-test-slower": "one build runs the same test far slower than another on this machine: the "
                                      "build, not the hardware, sets its speed",
    "requests-host-bound-steps": "each token waits on the host launching its kernels: decode is slow, but not for "
                                 "lack of memory bandwidth",
    "state-workers-hung": "the engine's workers stopped taking steps: a hang or a crash to debug, not a speed limit",
    "summary-same-load-ttft-waits": "requests wait on one path that another path serves at once under the same "
                                    "load: what stands in front of the engine (a proxy, a router, a replica's queue) "
                                    "holds them",
    "summary-sweep-scales": "no queue in the load test: more requests at once are served at about the same latency "
                            "(their tokens, and so the speed per token, are not in the log)",
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


def rank(findings: list) -> tuple[str, float, list]:
    """(verdict, confidence, alternatives) from findings sorted best first. An alternative is another verdict with
    a score of at least 0.5; the confidence is the best score, lowered by CLOSE_CALL when an alternative is within
    CLOSE_CALL of it, and never below the strongest alternative listed."""
    best = findings[0]
    alternatives = []
    for finding in findings[1:]:
        if finding.verdict != best.verdict and finding.verdict not in [a["verdict"] for a in alternatives] \
                and finding.score >= 0.5 and finding.verdict not in ("healthy", "insufficient-data"):
            alternatives.append({"verdict": finding.verdict, "confidence": round(finding.score, 2)})
    confidence = best.score
    if alternatives and alternatives[0]["confidence"] > best.score - CLOSE_CALL:
        confidence = max(alternatives[0]["confidence"], best.score - CLOSE_CALL)
    return best.verdict, min(confidence, 1.0), alternatives


def build(acc: Accumulator, files: list, roofline: dict | None = None, roofline_findings: list | None = None,
          advice: list | None = None, hardware: Hardware = NO_HARDWARE, sized=None) -> Diagnosis:
    findings, checks, notes = decide(acc, roofline_findings, hardware, sized, files)
    verdict, confidence, alternatives = rank(findings)
    best = findings[0]
    evidence = []
    seen = set()
    for finding in findings:
        for item in finding.evidence:
            key = (item.verdict, item.text)
            if key not in seen:
                seen.add(key)
                evidence.append(item)
    if acc.labels.get("ttft_definition") or acc.labels.get("ttft_includes_reasoning"):
        notes.append("TTFT definition: " + str(acc.labels.get("ttft_definition") or "includes reasoning tokens"))
    capacity = {name: value for name, (value, *_rest) in acc.capacity.items()}
    events = {name: total for name, total in acc.events.items()}
    if acc.preemptions_total.count:
        events["preemptions_total_reported"] = acc.preemptions_total.high
    # A queue that the test itself built (every request sent at t=0) is not overload: say so instead.
    throughput_test = verdict == "queueing" and all(
        (item.numbers.get("request_rate_per_second") or 0) >= ALL_AT_ONCE_RATE for item in best.evidence)
    advice = list(advice or []) + advice_for(verdict, roofline, throughput_test=throughput_test, acc=acc,
                                             rule=best.rule)
    headline = _RULE_HEADLINES.get(best.rule, _HEADLINES[verdict])
    if throughput_test:
        headline = ("a throughput test: every request was sent at once, so requests queue by design; its TTFT is "
                    "queue wait, not serving latency")
    return Diagnosis(
        verdict=verdict, confidence=confidence, headline=headline, evidence=evidence,
        alternatives=alternatives, metrics=_metrics(acc), timeline=acc.timeline.to_list(), capacity=capacity,
        events=events, checks=checks, files=files, notes=notes, advice=advice, roofline=roofline)


__all__ = ["VERDICTS", "Diagnosis", "Evidence", "Finding", "build", "decide", "rank"]
