"""The text form of `inferledger workload`."""

from __future__ import annotations

from inferledger.report.table import render_table
from inferledger.report.units import format_seconds


def render_workload(summary, card: str | None = None) -> str:
    out = [f"{summary.source}", ""]
    rows = [[name, f"{d['mean']:,.0f}", f"{d['p50']:,.0f}", f"{d['p90']:,.0f}", f"{d['p99']:,.0f}",
             f"{d['min']:,}", f"{d['max']:,}"] for name, d in (("input (ISL)", summary.isl),
                                                             ("output (OSL)", summary.osl))]
    out.append(render_table(["tokens", "mean", "p50", "p90", "p99", "min", "max"], rows))
    out.append("")
    out.append(f"{summary.requests:,} requests; ISL:OSL {summary.isl_osl_ratio:.2f} (mean input ÷ mean output); "
               f"{summary.input_tokens:,} input and {summary.output_tokens:,} output tokens"
               + (f"; {summary.cached_fraction:.0%} of input from the prefix cache" if summary.cached_fraction else ""))
    a = summary.arrivals
    if a["kind"] == "timed":
        out.append(f"arrivals: {a['rate_per_s']:,.2f} requests/s over {format_seconds(a['duration_seconds'])}, "
                   f"gap CV {a['gap_cv']:.2f} (1 = Poisson, above = burstier)")
    elif a["kind"] == "closed loop":
        out.append(f"arrivals: closed loop of {a['users']} users, think {a['think_seconds']:g} s")
    else:
        out.append("arrivals: saturating (all requests at t = 0)")
    shape = summary.shape
    if shape:
        alone, loaded = shape["alone"], shape["loaded"]
        out.append("")
        out.append(f"shape on {card} (step time: {shape['step_cost']}):")
        out.append(f"  alone (batch 1): prefill {alone['prefill_share']:.0%} of the time, decode "
                   f"{1 - alone['prefill_share']:.0%}; median TTFT {format_seconds(alone['ttft_p50_seconds'])}, "
                   f"median end to end {format_seconds(alone['e2e_p50_seconds'])}")
        out.append(f"  under load ({loaded['max_batched_tokens']:,}-token steps, {loaded['max_num_seqs']} "
                   f"sequences decoding): prefill {loaded['prefill_share']:.0%}, decode "
                   f"{1 - loaded['prefill_share']:.0%} → {shape['verdict']}")
    return "\n".join(out)
