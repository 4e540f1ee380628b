"""Chart specs: what each picture shows, as plain dicts of numbers already in display units.

Both renderers draw these and nothing else: matplotlib for `--plot` and Jupyter (report/plots.py), and the vanilla
JS of the web page and the HTML report (web/static/charts.js). So the picture's arithmetic is written once, here,
and every number in it is read from a request document (`request --json`) or the card's datasheet figures.

Two kinds of spec:
- "xy": {"x": axis, "y": axis, "series": [{"name", "mode": "line"|"points", "points": [[x, y], ...],
  "labels": [...]?, "size": "small"|"large"}], "marks": [{"axis": "x"|"y", "value", "label"}]}
- "bars": {"unit", "bars": [{"name", "segments": [[name, value], ...]}], "marks": [{"value", "label"}]}
Each carries "id", "title" and "note" (one line under the picture).
"""

from __future__ import annotations

import math

GIB = 2**30
TERA = 1e12

# One colour per meaning, the same in every renderer (colour-blind safe: Okabe-Ito).
COLORS = {
    "roof": "#444444", "prefill": "#0072B2", "decode": "#D55E00", "realistic": "#009E73",
    "weights": "#0072B2", "kv": "#E69F00", "workspace": "#CC79A7", "reserve": "#999999",
    "ttft": "#0072B2", "tpot": "#D55E00", "decode_rate": "#D55E00", "e2e_rate": "#0072B2",
    "fits": "#0072B2", "does_not_fit": "#BBBBBB", "chosen": "#D55E00",
}


def card_figures(accelerator, compute_dtype: str) -> dict:
    """The two ceilings of the roofline at the dtype the weights compute in (as the ledger times them)."""
    from inferledger.ledger.roofline import runs_at

    dtype, peak = runs_at(accelerator, compute_dtype)
    bandwidth = accelerator.memory_bandwidth_bytes_per_second
    return {"name": accelerator.name, "display_name": accelerator.display_name, "compute_dtype": dtype,
            "peak_flops_per_second": peak, "memory_bandwidth_bytes_per_second": bandwidth,
            "ridge_flops_per_byte": peak / bandwidth, "memory_bytes": accelerator.memory_bytes}


def _operator_points(rows: list[dict]) -> tuple[list, list]:
    """(intensity, achieved TFLOP/s) per operator row: its FLOPs over its floor time. Rows doing no FLOPs
    (an embedding lookup) have no place on log axes and are left out."""
    points, labels = [], []
    for row in rows:
        if row["flops"] > 0 and row["seconds"] > 0 and row["intensity"]:
            points.append([row["intensity"], row["flops"] * row["count"] / row["seconds"] / TERA])
            labels.append(f"{row['operator']} ({row['block']}, ×{row['count']})")
    return points, labels


def roofline_chart(document: dict, card: dict) -> dict:
    """The card's roofline with every operator of prefill and of one decode step on it; the two steps as a
    whole; and, when the document carries a realistic estimate, the steps at their realistic times."""
    peak, bandwidth = card["peak_flops_per_second"], card["memory_bandwidth_bytes_per_second"]
    ridge = card["ridge_flops_per_byte"]
    prefill, decode = document["prefill"], document["decode"]
    series = []
    for phase in ("prefill", "decode"):
        points, labels = _operator_points(document.get("operators", {}).get(phase, []))
        series.append({"name": f"{phase} operators", "mode": "points", "color": COLORS[phase], "points": points,
                       "labels": labels})
    steps = [["prefill step", prefill["intensity"], prefill["flops"], prefill["seconds"], "prefill"],
             ["decode step", decode["intensity"], decode["flops_per_step"], decode["seconds_per_token"], "decode"]]
    for name, intensity, flops, seconds, color in steps:
        if intensity and seconds:
            series.append({"name": f"{name} (floor)", "mode": "points", "size": "large", "color": COLORS[color],
                           "points": [[intensity, flops / seconds / TERA]],
                           "labels": [f"{name}: {intensity:,.1f} FLOP/B, {flops / seconds / TERA:,.1f} TFLOP/s"]})
    realistic = document.get("realistic") or {}
    measured = [["prefill", prefill["intensity"], prefill["flops"], (realistic.get("prefill") or {}).get("seconds")],
                ["decode", decode["intensity"], decode["flops_per_step"],
                 (realistic.get("decode") or {}).get("seconds_per_token")]]
    real_points = [[i, f / s / TERA] for _, i, f, s in measured if i and s]
    if real_points:
        series.append({"name": "steps (realistic)", "mode": "points", "size": "large", "color": COLORS["realistic"],
                       "points": real_points, "labels": [f"{m[0]} step, realistic" for m in measured if m[1] and m[3]]})
    xs = [p[0] for s in series for p in s["points"]] + [ridge]
    low, high = min(xs) / 3, max(xs) * 3
    roof = {"name": f"roof ({card['compute_dtype']} peak, memory bandwidth)", "mode": "line", "plain": True,
            "color": COLORS["roof"],
            "points": [[low, low * bandwidth / TERA], [ridge, peak / TERA], [high, peak / TERA]]}
    return {
        "id": "roofline", "kind": "xy", "title": f"Roofline of {card['name']}: each operator at its floor time",
        "x": {"label": "arithmetic intensity (FLOP/byte)", "log": True},
        "y": {"label": "attained TFLOP/s", "log": True},
        "series": [roof, *series],
        "marks": [{"axis": "x", "value": ridge, "label": f"ridge {ridge:,.0f} FLOP/B"}],
        "note": "left of the ridge an operator is memory bound, right of it compute bound; operators doing no "
                "FLOPs (the embedding lookup) are not drawn",
    }


def memory_chart(memory: dict, batch: int | None = None) -> dict:
    """The memory account as stacked bars against the card: weights, KV cache of `batch` requests and of the
    most that fit, activation workspace, runtime reserve. `memory` is the `memory` block of `request --json`
    (or `fit --json`, which carries the same keys)."""
    per_request = memory.get("kv_bytes_per_request")
    fixed = [["weights", memory["weight_bytes"] / GIB], ["activation workspace",
             memory["activation_workspace_bytes"] / GIB], ["runtime reserve", memory["runtime_overhead_bytes"] / GIB]]
    bars = []
    if per_request is None:  # a bare parameter count: no cache shape
        bars.append({"name": "weights only", "segments": fixed})
    else:
        if batch is not None:
            bars.append({"name": f"batch {batch:,}", "segments": [fixed[0], ["KV cache", batch * per_request / GIB],
                                                                  *fixed[1:]]})
        most = memory.get("max_concurrency")
        if most and memory.get("fits"):
            bars.append({"name": f"{most:,} requests (most that fit)",
                         "segments": [fixed[0], ["KV cache", most * per_request / GIB], *fixed[1:]]})
    return {
        "id": "memory", "kind": "bars", "unit": "GiB",
        "title": f"Memory of {memory['num_gpus']} × {memory['accelerator']} at {memory['context_tokens']:,} "
                 "tokens per request",
        "colors": {"weights": COLORS["weights"], "KV cache": COLORS["kv"],
                   "activation workspace": COLORS["workspace"], "runtime reserve": COLORS["reserve"]},
        "bars": bars,
        "marks": [{"value": memory["usable_bytes"] / GIB, "label": f"usable ({memory['gpu_memory_utilization']:g})"},
                  {"value": memory["memory_bytes"] / GIB,
                   "label": "card" if memory["num_gpus"] == 1 else f"{memory['num_gpus']} cards"}],
        "note": "GiB = 2**30 bytes; the engine may use the usable share, the rest is left to the driver",
    }


def sweep_point(document: dict) -> dict:
    """The figures a latency curve reads from one request document (realistic ones when it has them)."""
    realistic = document.get("realistic") or {}
    batch, osl = document["workload"]["batch"], document["workload"]["osl"]
    per_token = (realistic.get("decode") or {}).get("seconds_per_token")
    total = realistic.get("total_seconds")
    return {
        "batch": batch, "isl": document["workload"]["isl"],
        "ttft_seconds": document["ttft_seconds"], "seconds_per_token": document["decode"]["seconds_per_token"],
        "decode_tokens_per_second": document["decode"]["tokens_per_second"],
        "tokens_per_second": document["tokens_per_second"],
        "realistic_ttft_seconds": (realistic.get("prefill") or {}).get("seconds"),
        "realistic_seconds_per_token": per_token,
        "realistic_decode_tokens_per_second": batch / per_token if per_token else None,
        "realistic_tokens_per_second": batch * osl / total if total else None,
        "max_concurrency": document["memory"]["max_concurrency"],
    }


def _curve(points: list[dict], x_key: str, y_key: str, scale: float = 1.0) -> list:
    return [[p[x_key], p[y_key] * scale] for p in points if p.get(y_key)]


def _realistic(points: list[dict], x_key: str, curves: list, scale: float = 1.0) -> list[dict]:
    """Dashed twins of the floor curves from the realistic figures, when the documents carry them."""
    out = []
    for name, key, color in curves:
        curve = _curve(points, x_key, key, scale)
        if curve:
            out.append({"name": name, "mode": "line", "dash": True, "color": COLORS[color], "points": curve})
    return out


def sweep_charts(points: list[dict], over: str, document: dict) -> list[dict]:
    """Latency (TTFT, time per output token) and throughput against batch or against input length."""
    x_key = "batch" if over == "batch" else "isl"
    x_axis = {"label": "requests in the batch" if over == "batch" else "input tokens (ISL)", "log": True, "base": 2}
    fixed = (f"ISL {document['workload']['isl']:,}, OSL {document['workload']['osl']:,}" if over == "batch"
             else f"batch {document['workload']['batch']:,}, OSL {document['workload']['osl']:,}")
    latency = [{"name": "TTFT", "mode": "line", "color": COLORS["ttft"],
                "points": _curve(points, x_key, "ttft_seconds", 1e3)},
               {"name": "time per output token", "mode": "line", "color": COLORS["tpot"],
                "points": _curve(points, x_key, "seconds_per_token", 1e3)}]
    latency += _realistic(points, x_key, [("TTFT (realistic)", "realistic_ttft_seconds", "ttft"),
                                          ("per token (realistic)", "realistic_seconds_per_token", "tpot")], 1e3)
    throughput = [{"name": "decode tokens/s", "mode": "line", "color": COLORS["decode_rate"],
                   "points": _curve(points, x_key, "decode_tokens_per_second")},
                  {"name": "end-to-end tokens/s", "mode": "line", "color": COLORS["e2e_rate"],
                   "points": _curve(points, x_key, "tokens_per_second")}]
    throughput += _realistic(points, x_key, [("decode (realistic)", "realistic_decode_tokens_per_second", "decode_rate"),
                                             ("end to end (realistic)", "realistic_tokens_per_second", "e2e_rate")])
    marks = []
    most = document["memory"]["max_concurrency"]
    if over == "batch" and most and most <= max(p["batch"] for p in points):
        marks.append({"axis": "x", "value": most, "label": f"KV cache full at {most:,}"})
    chosen = document["workload"][x_key]
    marks.append({"axis": "x", "value": chosen, "label": f"this request ({chosen:,})"})
    return [
        {"id": f"latency_{over}", "kind": "xy", "title": f"Latency vs {over} ({fixed})", "x": x_axis,
         "y": {"label": "milliseconds", "log": True}, "series": latency, "marks": marks,
         "note": "floor times from the roofline of every operator; time per output token is the mean over OSL"},
        {"id": f"throughput_{over}", "kind": "xy", "title": f"Throughput vs {over} ({fixed})", "x": x_axis,
         "y": {"label": "output tokens per second", "log": False}, "series": throughput, "marks": marks,
         "note": "decode tokens/s: all sequences of the batch together; end to end includes the prefill"},
    ]


def _label_clusters(points: list[dict], first: str, x_decades: float = 0.2, y_decades: float = 0.06) -> dict:
    """card → its label: cards whose labels would overlap (an A100's variants: closer than the decades given on
    the log axes; a label is wider than tall) share one label,
    "a100-sxm-80gb +3", written on the first of them (`first` before any other); the others get none (their
    tooltips still name them)."""
    clusters: list[list[dict]] = []
    for p in sorted(points, key=lambda p: (p["card"] != first, p["seconds_per_token"], p["card"])):
        near = next((c for c in clusters
                     if abs(math.log10(p["seconds_per_token"] / c[0]["seconds_per_token"])) < x_decades
                     and abs(math.log10(p["ttft_seconds"] / c[0]["ttft_seconds"])) < y_decades), None)
        near.append(p) if near else clusters.append([p])
    labels = {}
    for cluster in clusters:
        labels[cluster[0]["card"]] = cluster[0]["card"] + (f" +{len(cluster) - 1}" if len(cluster) > 1 else "")
        labels.update((p["card"], "") for p in cluster[1:])
    return labels


def cards_chart(points: list[dict], document: dict) -> dict:
    """The same request on every card of the catalog: TTFT against time per output token (both floor), the
    cards whose memory cannot hold it greyed out. `points`: {"card", "ttft_seconds", "seconds_per_token", "fits"}."""
    this = document["accelerator"]
    labels = _label_clusters(points, first=this)  # the chosen card keeps its label

    def series(name, chosen, color, size="small"):
        members = [p for p in points if chosen(p)]
        return {"name": name, "mode": "points", "annotate": True, "size": size, "color": color,
                "points": [[p["seconds_per_token"] * 1e3, p["ttft_seconds"] * 1e3] for p in members],
                "labels": [labels[p["card"]] for p in members], "details": [p["card"] for p in members]}

    return {
        "id": "cards", "kind": "xy", "title": f"The same request on every card ({document['model']}, "
                                              f"batch {document['workload']['batch']:,})",
        "x": {"label": "time per output token (ms)", "log": True}, "y": {"label": "TTFT (ms)", "log": True},
        "series": [series("fits in memory", lambda p: p["fits"] and p["card"] != this, COLORS["fits"]),
                   series("does not fit", lambda p: not p["fits"] and p["card"] != this, COLORS["does_not_fit"]),
                   series(f"{this} (chosen)", lambda p: p["card"] == this, COLORS["chosen"], "large")],
        "marks": [],
        "note": "floor times, one card each at the chosen formats; lower left is faster on both counts; hover a "
                "point for its card",
    }


def load_chart(points: list[dict], document: dict) -> dict:
    """Latency percentiles against offered load, from the serving simulator. `points`: {"rate" (requests/s),
    "ttft": {"p50", "p99"}, "tpot": {"p50", "p99"}} per simulated rate, seconds."""
    series = []
    for metric, color, label in (("ttft", COLORS["ttft"], "TTFT"), ("tpot", COLORS["tpot"], "time per token")):
        for quantile, dash in (("p50", False), ("p99", True)):
            curve = [[p["rate"], p[metric][quantile] * 1e3] for p in points if p[metric].get(quantile)]
            series.append({"name": f"{label} {quantile}", "mode": "line", "dash": dash, "color": color,
                           "points": curve})
    return {
        "id": "load", "kind": "xy", "title": f"Latency under load ({document['model']} on {document['accelerator']}, "
                                             f"ISL {document['workload']['isl']:,}, OSL {document['workload']['osl']:,})",
        "x": {"label": "offered load (requests/s, Poisson)", "log": False}, "y": {"label": "milliseconds", "log": True},
        "series": series, "marks": [],
        "note": "the serving simulator: continuous batching on one card at the chosen formats; p99 dashed",
    }
