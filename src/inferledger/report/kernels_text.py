"""The text form of `kernels` and `calibrate`: error of the realistic estimate by kind and card."""

from __future__ import annotations

from inferledger.report.table import render_table


def _percent(value) -> str:
    return "-" if value is None else f"{value:.1%}"


def render_groups(groups: list) -> str:
    rows = [[g["kind"], g["gpu"], f"{g['rows']:,}", f"{g['clean_rows']:,}", _percent(g["median_error"]),
             _percent(g["p90_error"]), f"{g['held_out_rows']:,}", _percent(g["held_out_median_error"]),
             f"{g['floor_violations']:,}"] for g in groups]
    return render_table(["kind", "gpu", "rows", "clean", "median |err|", "p90 |err|", "held out",
                         "held-out median", "floor > measured"], rows, align="llrrrrrrr")


def render_kernels(path: str, summary: dict) -> str:
    out = [f"{path}: {summary['rows']:,} rows, {summary['priced_rows']:,} priced, {summary['clean_rows']:,} clean "
           f"(not cache-resident or suspect); error = realistic / measured - 1 on clean rows", ""]
    if summary["by_kind_and_gpu"]:
        out.extend([render_groups(summary["by_kind_and_gpu"]), ""])
    out.append(f"clean rows measured faster than their floor: {summary['floor_violations']:,}")
    for item in summary["unpriced"]:
        out.append(f"not priced ({item['rows']:,} rows): {item['reason']}")
    out.append("per-row floor, realistic and measured seconds: --json")
    return "\n".join(out)


def render_calibration(document: dict) -> str:
    """What `calibrate` fitted, entry by entry, how it does on the rows held out of the fit, and the per-step
    overhead a serving log gave."""
    output, entries, summary = document["output"], document["entries"], document.get("summary")
    fitted = [e for e in entries if e["generation"] != "*"]
    out = [f"wrote {len(entries)} entries to {output}; use it with --calibration {output}", ""]
    if summary:
        rows = [[e["kind"], e["generation"], e["dtype"], f"{e['call_seconds'] * 1e6:.1f}",
                 f"{e['compute_efficiency']:.2f}", f"{e['memory_efficiency']:.2f}",
                 "max" if e["blend_power"] is None else f"p={e['blend_power']:g}", f"{e['fit_rows']:,}",
                 f"{e['held_out_rows']:,}", _percent(e["held_out_median_error"]), _percent(e["held_out_p90_error"])]
                for e in fitted]
        out.append(f"{len(fitted)} fitted (the rest: per-kind medians for generations without measurements):")
        out.append(render_table(["kind", "generation", "dtype", "call us", "compute eff", "memory eff", "blend",
                                 "fit rows", "held out", "held-out median", "held-out p90"], rows,
                                align="lllrrrrrrrr"))
        out.append("")
        out.append("held-out error by kind and card (realistic / measured - 1, rows the fit never saw):")
        out.append(render_groups(summary["by_kind_and_gpu"]))
        out.append(f"clean rows measured faster than their floor: {summary['floor_violations']:,}")
    step = document.get("step_overhead")
    if step:
        out.append(f"per-step overhead from {', '.join(step['logs'])}: {step['model']} on {step['accelerator']}, "
                   f"ISL {step['isl']}, OSL {step['osl']}, batch {step['batch']}: observed "
                   f"{step['observed_seconds_per_token'] * 1e3:.2f} ms per token ({step['observed_source']}), "
                   f"kernels {step['kernels_seconds_per_token'] * 1e3:.2f} ms, floor "
                   f"{step['floor_seconds_per_token'] * 1e3:.2f} ms -> overhead "
                   f"{step['step_overhead_seconds'] * 1e3:.2f} ms per step" +
                   (f" ({step['note']})" if step["note"] else ""))
    return "\n".join(out)
