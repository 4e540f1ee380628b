"""Chart specs (report/charts.py) drawn with matplotlib: PNG or SVG files, and figures that Jupyter shows inline.

matplotlib is the optional `plot` extra and is imported only when a picture is drawn. In a notebook:

    from inferledger.report.plots import request_figure
    request_figure("meta-llama/Llama-3.1-8B", "h100-sxm", isl=8192, osl=512)   # shows the seven charts inline
"""

from __future__ import annotations

import math
from pathlib import Path

FORMATS = {".png": "png", ".svg": "svg"}


def _pyplot():
    from inferledger.errors import BadArgument

    try:
        import matplotlib
    except ImportError:
        raise BadArgument("drawing plots needs matplotlib: pip install 'inferledger[plot]'") from None
    matplotlib.use("Agg", force=False)  # no display needed; a notebook's inline backend is kept
    from matplotlib.figure import Figure

    return Figure


def _format_of(path) -> str:
    from inferledger.errors import BadArgument

    suffix = Path(path).suffix.lower()
    if suffix not in FORMATS:
        raise BadArgument(f"--plot {path}: the file name must end in .png or .svg")
    return FORMATS[suffix]


def _number(value: float) -> str:
    """A tick label: 512, 8K, 128K, 0.1, 1e+04 only past a million."""
    if value >= 1024 and math.log2(value).is_integer() and value < 2**30:
        return f"{value / 1024:g}K"
    return f"{value:g}" if value < 1e6 else f"{value:.0e}"


def _scale(ax, axis, spec_axis: dict) -> None:
    from matplotlib.ticker import FuncFormatter, NullFormatter

    if not spec_axis["log"]:
        return
    (ax.set_xscale if axis is ax.xaxis else ax.set_yscale)("log", base=spec_axis.get("base", 10))
    axis.set_major_formatter(FuncFormatter(lambda value, _: _number(value)))
    axis.set_minor_formatter(NullFormatter())


def _draw_xy(ax, spec: dict) -> None:
    for series in spec["series"]:
        if not series["points"]:
            continue
        xs, ys = zip(*series["points"], strict=True)
        if series["mode"] == "line":
            plain = series.get("plain")
            ax.plot(xs, ys, color=series["color"], label=series["name"], linewidth=1.2 if plain else 1.8,
                    linestyle="--" if series.get("dash") else "-", marker=None if plain else "o", markersize=3,
                    zorder=1 if plain else 2, alpha=0.7 if plain else 1.0)
        else:
            large = series.get("size") == "large"
            ax.scatter(xs, ys, color=series["color"], label=series["name"], s=90 if large else 22,
                       marker="D" if large else "o", edgecolors="white" if large else "none", linewidths=0.8,
                       alpha=1.0 if large else 0.75, zorder=3 if large else 2)
            if series.get("annotate"):
                for x, y, label in zip(xs, ys, series["labels"], strict=True):
                    if label:
                        ax.annotate(label, (x, y), xytext=(4, 3), textcoords="offset points", fontsize=6.5,
                                    color="#333333")
    for axis, name in ((ax.xaxis, "x"), (ax.yaxis, "y")):
        _scale(ax, axis, spec[name])
    for mark in spec.get("marks", []):
        draw = ax.axvline if mark["axis"] == "x" else ax.axhline
        draw(mark["value"], color="#777777", linestyle=":", linewidth=1)
        if mark["axis"] == "x":
            ax.annotate(mark["label"], (mark["value"], 1.0), xycoords=("data", "axes fraction"),
                        xytext=(3, -3), textcoords="offset points", fontsize=7, color="#555555",
                        va="top", rotation=90)
    ax.set_xlabel(spec["x"]["label"])
    ax.set_ylabel(spec["y"]["label"])
    ax.grid(True, which="major", color="#e5e5e5", linewidth=0.7)
    ax.legend(fontsize=7, loc="best", framealpha=0.9)


def _draw_bars(ax, spec: dict) -> None:
    names = [bar["name"] for bar in spec["bars"]]
    seen = set()
    for index, bar in enumerate(spec["bars"]):
        left = 0.0
        for name, value in bar["segments"]:
            ax.barh(index, value, left=left, color=spec["colors"].get(name, "#999999"), height=0.55,
                    label=None if name in seen else name, edgecolor="white", linewidth=0.6)
            seen.add(name)
            if value > 0.06 * max(m["value"] for m in spec["marks"]):  # room for its number
                ax.text(left + value / 2, index, f"{value:,.1f}", ha="center", va="center", fontsize=7,
                        color="white")
            left += value
    top = max([m["value"] for m in spec["marks"]] + [sum(v for _, v in bar["segments"]) for bar in spec["bars"]])
    for index, mark in enumerate(spec["marks"]):  # the last mark (the card) drawn solid
        last = index == len(spec["marks"]) - 1
        ax.axvline(mark["value"], color="#333333" if last else "#777777", linestyle="-" if last else "--",
                   linewidth=1)
        ax.annotate(f"{mark['label']} {mark['value']:,.1f}", (mark["value"], 1.0), fontsize=7, ha="right",
                    xycoords=("data", "axes fraction"), xytext=(-3, -10 - 10 * index), textcoords="offset points",
                    color="#444444")
    ax.set_yticks(range(len(names)), names, fontsize=8)
    ax.set_ylim(-0.7, len(names) + 0.1)
    ax.set_xlim(0, top * 1.05)
    ax.invert_yaxis()
    ax.set_xlabel(spec["unit"])
    ax.legend(fontsize=7, loc="lower right", ncols=2, framealpha=0.9)


def draw(ax, spec: dict) -> None:
    """Draw one chart spec on a matplotlib Axes."""
    (_draw_bars if spec["kind"] == "bars" else _draw_xy)(ax, spec)
    ax.set_title(spec["title"], fontsize=9.5, loc="left")
    ax.tick_params(labelsize=8)
    for side in ("top", "right"):
        ax.spines[side].set_visible(False)


def figure(charts: list[dict]):
    """A matplotlib Figure with the charts in a grid of two columns (Jupyter displays it inline)."""
    figure_class = _pyplot()
    columns = 1 if len(charts) == 1 else 2
    rows = math.ceil(len(charts) / columns)
    fig = figure_class(figsize=(7.2 * columns, 4.4 * rows), layout="constrained", dpi=110)
    for index, spec in enumerate(charts):
        draw(fig.add_subplot(rows, columns, index + 1), spec)
    return fig


def save_charts(charts: list[dict], path) -> None:
    """Draw the charts into one PNG or SVG file (the format from the file name)."""
    fig = figure(charts)
    try:
        fig.savefig(path, format=_format_of(path))
    except OSError as error:
        from inferledger.errors import BadArgument

        raise BadArgument(f"--plot {path}: cannot write ({error.strerror or error})") from None


def request_figure(model: str, gpu: str, **options):
    """The seven charts of one request as a Figure, for a notebook. `options` are request's, by their Python
    names (isl, osl, batch, precision, kv_precision, context, overhead_ms, gpu_memory_utilization)."""
    from inferledger.cli._workload import load
    from inferledger.cli.request import request_document, request_options
    from inferledger.report.curves import request_charts

    namespace = request_options(model=model, gpu=gpu, **options)
    spec, accelerator = load(namespace)
    document = request_document(namespace, spec, accelerator)[1]
    return figure(request_charts(namespace, spec, accelerator, document))
