"""The text form of `inferledger simulate`."""

from __future__ import annotations

from inferledger.report.table import render_table
from inferledger.report.units import format_seconds


def _seconds(value) -> str:
    return "-" if value is None else format_seconds(value)


def describe_step_cost(step_cost: dict) -> str:
    if step_cost["source"] == "realistic":
        return "step time: realistic estimate (calibrated kernel latencies)"
    return (f"step time: roofline floor at {step_cost['compute_efficiency']:.0%} of peak FLOP/s and "
            f"{step_cost['bandwidth_efficiency']:.0%} of bandwidth, "
            f"{step_cost['overhead_seconds_per_step'] * 1e3:g} ms overhead per step")


def _layout_label(layout: dict) -> str:
    from inferledger.parallelism import Parallelism

    return Parallelism(**{k: layout[k] for k in ("tp", "pp", "ep", "dp", "attention_dp")}).label()


def render_simulation(result) -> str:
    d = result.to_dict()
    s = d["scheduler"]
    out = [f"{d['model']} on {d['accelerator']}: weights {d['precision']}, KV cache {d['kv_precision']}",
           f"workload: {d['workload']}",
           f"engine: {s['max_num_seqs']:,} sequences, {s['max_batched_tokens']:,}-token steps, "
           f"{'chunked prefill' if s['chunked_prefill'] else 'whole-prompt prefill steps'}, "
           f"KV {d['kv']['blocks']:,} blocks of {s['block_tokens']} tokens"
           + (f", max_tokens {s['max_tokens']:,}" if s["max_tokens"] else "")
           + (f", timeout {s['timeout_seconds']:g} s" if s["timeout_seconds"] else ""),
           describe_step_cost(d["step_cost"]), ""]
    if result.parallel:
        p = result.parallel
        layout = p["layout"]
        out.insert(3, f"cards: {layout['cards']} ({_layout_label(layout)}); per replica: one card's sharded rows with "
                      f"its collectives, that card's KV cache"
                      + (f"; {p['replicas']} replicas share the requests round-robin ({p['requests_per_replica']:,}"
                         " each), rates × replicas" if p["replicas"] > 1 else ""))
    t = d["throughput"]
    out.append(f"throughput: {t['output_tokens_per_s']:,.0f} output tokens/s, {t['requests_per_s']:,.2f} requests/s "
               f"({t['input_tokens_per_s']:,.0f} input tokens/s) over {format_seconds(d['duration_seconds'])}, "
               f"{d['steps']:,} steps")
    out.append("")
    rows = [[name, *(_seconds(d[key][q]) for q in ("p50", "p95", "p99", "mean"))]
            for name, key in (("TTFT", "ttft"), ("TPOT", "tpot"), ("ITL", "itl"), ("end to end", "e2e"),
                              ("queued", "queue"))]
    out.append(render_table(["latency", "p50", "p95", "p99", "mean"], rows))
    out.append("")
    g = d["goodput"]
    out.append(f"goodput (TTFT ≤ {format_seconds(g['ttft_seconds'])}, TPOT ≤ {format_seconds(g['tpot_seconds'])}): "
               f"{g['fraction']:.0%} of requests, {g['requests_per_s']:,.2f} requests/s, "
               f"{g['output_tokens_per_s']:,.0f} output tokens/s")
    out.append(f"KV cache: peak {d['kv']['peak_usage']:.0%}, mean {d['kv']['mean_usage']:.0%}; waiting: mean "
               f"{d['queue_length']['mean']:,.1f}, peak {d['queue_length']['peak']:,}; running: mean "
               f"{d['running']['mean']:,.1f}, peak {d['running']['peak']:,}")
    r = d["requests"]
    out.append(f"requests: {r['completed']:,} completed of {r['total']:,}; {r['timed_out']:,} timed out, "
               f"{r['capped_by_max_tokens']:,} cut by max_tokens, {r['preemptions']:,} preemptions")
    return "\n".join(out)
