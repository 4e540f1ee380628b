"""The text form of `inferledger request`: the account line by line, then the seed's simplified account."""

from __future__ import annotations

from inferledger.report.table import render_table
from inferledger.report.units import format_bytes, format_seconds


def _shares(seconds_by_component: dict) -> str:
    whole = sum(seconds_by_component.values()) or 1.0
    top = sorted(seconds_by_component.items(), key=lambda kv: -kv[1])[:4]
    return ", ".join(f"{name} {value / whole:.0%}" for name, value in top)


def render_request(account) -> str:
    w, p, d, s = account.workload, account.prefill, account.decode, account.simplified
    out = [f"{account.model} on {account.accelerator}: weights {account.weights}, KV cache {account.kv}; "
           f"ISL {w.isl:,}, OSL {w.osl:,}, batch {w.batch}", ""]
    r = account.realistic

    def real(seconds_of) -> list:
        return [format_seconds(seconds_of(r))] if r is not None else []

    rows = [
        ["prefill (TTFT)", format_seconds(p.seconds), *real(lambda r: r.prefill_seconds),
         f"{p.flops / 1e12:,.1f} TFLOP", format_bytes(p.bytes), f"{p.intensity:,.0f}", p.bound],
        ["decode, per token", format_seconds(d.seconds_per_token), *real(lambda r: r.decode_seconds_per_token),
         f"{d.flops_per_step / 1e9:,.1f} GFLOP", format_bytes(d.bytes_per_step), f"{d.intensity:,.1f}", d.bound],
        [f"decode, {w.osl:,} tokens", format_seconds(d.seconds), *real(lambda r: r.decode_seconds), "", "", "", ""],
        ["end to end", format_seconds(account.total_seconds), *real(lambda r: r.total_seconds), "", "", "", ""],
    ]
    header = ["phase", "floor", *(["realistic"] if r is not None else []), "work", "bytes moved", "FLOP/byte",
              "bound"]
    out.append(render_table(header, rows))
    out.append("")
    if r is not None:
        out.extend(render_realistic(account))
        out.append("")
    out.append(f"decode grows with context: {format_seconds(d.first_token_seconds)} for the first token, "
               f"{format_seconds(d.last_token_seconds)} for the last (each step reads "
               f"{format_bytes(d.kv_read_bytes_per_step)} of KV cache at the middle context, "
               f"weights {format_bytes(d.weight_bytes_per_step)})")
    out.append(f"throughput: {d.tokens_per_second:,.0f} output tokens/s in decode; "
               f"{w.batch * w.osl / account.total_seconds:,.0f} tokens/s end to end")
    out.append(f"where prefill time goes: {_shares(p.seconds_by_component)}")
    out.append(f"where decode time goes:  {_shares(d.seconds_by_component)}")
    m = account.memory
    if m.kv_bytes_per_token is None:
        out.append(f"memory: weights {format_bytes(m.weight_bytes)}; the KV cache is unknown for a bare parameter "
                   "count")
    else:
        out.append(f"memory: weights {format_bytes(m.weight_bytes)}, KV {m.kv_bytes_per_token / 1024:,.1f} KiB/token "
                   f"= {format_bytes(m.kv_bytes_per_request)} per request at {m.context_tokens:,} tokens; "
                   f"{m.max_concurrency:,} such requests fit in {format_bytes(m.kv_budget_bytes)} of KV budget")
    out.append("")
    out.append("the seed's simplified account (prefill = 2·P·ISL / peak, decode = weight bytes / bandwidth):")
    out.append(f"  prefill {format_seconds(s.prefill_seconds)}, decode {format_seconds(s.decode_seconds_per_token)}"
               f"/token, total {format_seconds(s.total_seconds)}; one decode token costs "
               f"{s.decode_token_over_prefill_token:,.0f} prefill tokens")
    for line in account.differences:
        out.append(f"  {line}")
    return "\n".join(out)


def _loss_line(phase: str, losses: list) -> str:
    lost = sum(row["seconds"] - row["floor_seconds"] for row in losses) or 1.0
    parts = []
    for row in losses[:3]:
        extra = row["seconds"] - row["floor_seconds"]
        work = row["seconds"] - row["call_seconds"]
        speed = f"the rest runs at {row['floor_seconds'] / work:.0%} of the floor's speed" if work > 0 else ""
        parts.append(f"{row['operator']} +{format_seconds(extra)} ({extra / lost:.0%} of the gap: call latency "
                     f"{format_seconds(row['call_seconds'])}, {speed})")
    return f"  {phase} loses most in " + "; ".join(parts)


def render_realistic(account) -> list:
    """Why realistic exceeds the floor: the ratio per phase and the operators that lose most time."""
    p, d, r = account.prefill, account.decode, account.realistic
    out = [f"realistic / floor: prefill {r.prefill_seconds / p.seconds:.2f}x, decode "
           f"{r.decode_seconds_per_token / d.seconds_per_token:.2f}x: measured kernels reach a fraction of peak and "
           f"each call costs a fixed latency (calibration {r.calibration['source']}, fitted "
           f"{r.calibration['fitted_on']}; overhead {format_seconds(r.overhead_seconds_per_step)} per step)"]
    out.append(_loss_line("prefill", r.losses["prefill"]))
    out.append(_loss_line("decode", r.losses["decode"]))
    if r.extrapolated:
        out.append("  extrapolated: " + "; ".join(n for n in r.notes if "measurements on" in n or "no " in n[:3]))
    return out


def render_operators(account) -> str:
    """Per-operator roofline of the prefill and of the middle decode step (figures per layer instance)."""
    out = []
    for phase, title in (("prefill", f"prefill of {account.workload.isl:,} tokens"),
                         ("decode", "decode step at the middle context")):
        rows = [[f"{r['block']}/{r['operator']}", str(r["count"]), f"{r['flops'] / 1e9:,.2f}",
                 format_bytes(r["weight_bytes"] + r["activation_bytes"] + r["kv_read_bytes"] + r["kv_write_bytes"]),
                 "-" if r["intensity"] is None else f"{r['intensity']:,.1f}", r["bound"], format_seconds(r["seconds"])]
                for r in account.operators[phase]]
        out.append(f"{title} (per layer; time is x count):")
        out.append(render_table(["operator", "x", "GFLOP", "bytes", "FLOP/byte", "bound", "time"], rows))
        out.append("")
    return "\n".join(out).rstrip()
