"""Sweeps of one request over batch and over input length, and the full set of chart specs for a request.

Each point of a sweep is the same request document `request --json` prints, with one option changed, so a curve
can never disagree with the account it starts from.
"""

from __future__ import annotations

from argparse import Namespace

BATCHES = tuple(2**k for k in range(10))  # 1 … 512 requests
SHORTEST_ISL = 128
LONGEST_ISL = 131072  # the sweep stops here (or at the model's maximum) even for 10M-token models


def _with(options, **changes) -> Namespace:
    return Namespace(**{**vars(options), **changes})


def batch_values(batch: int) -> list[int]:
    return sorted({*BATCHES, batch})


def isl_values(isl: int, max_context_tokens: int | None, osl: int) -> list[int]:
    """Powers of two from 128 to the model's maximum context less OSL (capped at 128K), and the chosen ISL."""
    longest = min(LONGEST_ISL, (max_context_tokens or LONGEST_ISL) - osl)
    values, value = set(), SHORTEST_ISL
    while value <= longest:
        values.add(value)
        value *= 2
    return sorted({*values, isl})


def sweep(options, spec, accelerator, over: str) -> list[dict]:
    """One chart point per batch size (over="batch") or per input length (over="isl")."""
    from inferledger.cli.request import request_document
    from inferledger.report.charts import sweep_point

    if over == "batch":
        values = batch_values(options.batch)
    else:
        values = isl_values(options.isl, spec.max_context_tokens, options.osl)
    return [sweep_point(request_document(_with(options, **{over: value}), spec, accelerator)[1])
            for value in values]


def card_points(options, spec, accelerator) -> list[dict]:
    """The request on each card of the catalog (the chosen one included even when it is the user's own file)."""
    from inferledger.cli.request import request_document
    from inferledger.errors import InferledgerError
    from inferledger.hardware import load_catalog

    parts = {part.name: part for part in load_catalog()}
    parts[accelerator.name] = accelerator
    points = []
    for part in parts.values():
        try:
            document = request_document(options, spec, part)[1]
        except InferledgerError:  # a card that cannot run the formats at all is left off the chart
            continue
        points.append({"card": part.name, "ttft_seconds": document["ttft_seconds"],
                       "seconds_per_token": document["decode"]["seconds_per_token"],
                       "fits": document["memory"]["fits"]})
    return points


LOAD_FRACTIONS = (0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.85, 1.0)  # of the saturation the ledger estimates
LOAD_REQUESTS = 400  # requests per simulated rate


def load_points(options, spec, accelerator, document: dict) -> list[dict] | None:
    """Latency percentiles at offered loads around saturation, from the serving simulator (inferledger.simulate)
    when it is installed; None when it is not, or for a bare parameter count. Saturation is estimated from the
    ledger: the decode throughput of as many requests as the KV cache holds (at most 256), per request's OSL."""
    try:
        from inferledger.simulate import simulate
        from inferledger.workload import synthetic_trace
    except ImportError:
        return None
    from inferledger.cli.request import request_document

    most = document["memory"]["max_concurrency"]
    if spec.is_bare or not most:
        return None
    full = request_document(_with(options, batch=min(most, 256)), spec, accelerator)[1]
    saturation = full["decode"]["tokens_per_second"] / options.osl
    points = []
    for fraction in LOAD_FRACTIONS:
        trace = synthetic_trace(LOAD_REQUESTS, options.isl, options.osl, rate=fraction * saturation)
        result = simulate(spec, accelerator, trace, precision=options.precision, kv_precision=options.kv_precision,
                          gpu_memory_utilization=options.gpu_memory_utilization).to_dict()
        points.append({"rate": fraction * saturation, "ttft": result["ttft"], "tpot": result["tpot"]})
    return points


def request_charts(options, spec, accelerator, document: dict, with_load: bool = False) -> list[dict]:
    """Every chart of one request: roofline, memory, latency and throughput against batch and against ISL, the
    same request on every card, and with `with_load` (seconds of simulation: the report and --plot, not the
    page) latency percentiles under load when the serving simulator is installed."""
    from inferledger.precision import get_precision
    from inferledger.report.charts import (
        card_figures,
        cards_chart,
        load_chart,
        memory_chart,
        roofline_chart,
        sweep_charts,
    )

    card = card_figures(accelerator, get_precision(document["precision"]).compute_dtype)
    charts = [roofline_chart(document, card), memory_chart(document["memory"], document["workload"]["batch"]),
              *sweep_charts(sweep(options, spec, accelerator, "batch"), "batch", document),
              *sweep_charts(sweep(options, spec, accelerator, "isl"), "context", document),
              cards_chart(card_points(options, spec, accelerator), document)]
    load = load_points(options, spec, accelerator, document) if with_load else None
    return charts + ([load_chart(load, document)] if load else [])
