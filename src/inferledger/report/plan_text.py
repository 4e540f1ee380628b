"""The text forms of `inferledger plan` and `inferledger compare`."""

from __future__ import annotations

from inferledger.report.simulate_text import describe_step_cost
from inferledger.report.table import render_table
from inferledger.report.units import format_seconds

HEADER = ["card", "cards", "weights", "KV", "max seqs", "decoding", "output tok/s", "max req/s", "TTFT", "TPOT",
          "$/h", "$/M output"]


def layout_text(c: dict) -> str:
    return "1" if c["cards"] == 1 else f"{c['cards']} ({c['layout']})"


def config_row(c: dict) -> list[str]:
    return [c["accelerator"], layout_text(c), c["precision"], c["kv_precision"], f"{c['max_num_seqs']:,}",
            f"{c['decoding']:,.0f} ({c['limited_by']})", f"{c['output_tokens_per_s']:,.0f}",
            f"{c['max_requests_per_s']:,.2f}", format_seconds(c["ttft_seconds"]), format_seconds(c["tpot_seconds"]),
            f"{c['usd_per_hour']:.2f}", f"{c['usd_per_million_output_tokens']:.3f}"]


def heading(result) -> list[str]:
    s = result.shape
    return [f"{result.model}; {result.workload}",
            f"shape: mean ISL {s.isl:,.0f}, mean OSL {s.osl:,.0f}, p95 ISL {s.isl_p95:,.0f}; SLO: TTFT ≤ "
            f"{format_seconds(result.slo.ttft_seconds)}, TPOT ≤ {format_seconds(result.slo.tpot_seconds)}",
            describe_step_cost(result.step_cost), ""]


def sources(result, prices) -> list[str]:
    used = sorted({c["accelerator"] for c in result.configurations})
    return ["prices: " + "; ".join(f"{name} ${prices[name].usd_per_hour:.2f}/h ({prices[name].date}, "
                                   f"{prices[name].source})" for name in used)]


def render_plan(result, prices, top: int) -> str:
    meeting = [c for c in result.configurations if c["meets_slo"]]
    out = heading(result)
    out.append(f"{len(meeting):,} of {len(result.configurations):,} configurations meet the SLO; the cheapest {top}:")
    out.append(render_table(["#", *HEADER], [[str(i + 1), *config_row(c)] for i, c in enumerate(meeting[:top])]))
    best = meeting[0]
    out.append("")
    where = "" if best["cards"] == 1 else f" on {best['cards']} cards ({best['layout']})"
    out.append(f"best: {best['accelerator']}{where} in {best['precision']} with max-num-seqs "
               f"{best['max_num_seqs']:,}: ${best['usd_per_million_output_tokens']:.3f} per million output tokens, up "
               f"to {best['max_requests_per_s']:,.2f} requests/s (closed form at saturation; confirm with "
               "`inferledger simulate`)")
    out.append("cards: a layout's price is $/card-hour × its cards; dp replicas fill a node (more throughput, the "
               "same $ per token)")
    out.extend(sources(result, prices))
    for card, precision, reason in result.skipped:
        out.append(f"skipped {card} {precision}: {reason}")
    return "\n".join(out)


def render_compare(result, prices, chosen: list, simulated: dict) -> str:
    out = heading(result)
    header = HEADER + (["simulated tok/s", "sim TTFT p95", "sim TPOT p95"] if simulated else [])
    rows = []
    for c in chosen:
        row = config_row(c)
        if simulated:
            sim = simulated[(c["accelerator"], c["precision"])]
            row += [f"{sim['throughput']['output_tokens_per_s']:,.0f}", format_seconds(sim["ttft"]["p95"]),
                    format_seconds(sim["tpot"]["p95"])]
        rows.append(row)
    out.append("each card and format at its cheapest batch limit that meets the SLO (marked *: none does, the "
               "closest shown):")
    out.append(render_table(header, [[("" if c["meets_slo"] else "*") + r[0], *r[1:]]
                                     for c, r in zip(chosen, rows, strict=True)]))
    out.extend(sources(result, prices))
    for card, precision, reason in result.skipped:
        out.append(f"skipped {card} {precision}: {reason}")
    return "\n".join(out)
