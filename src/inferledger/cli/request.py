"""`inferledger request`: the full account of one request — TTFT, per-token time, end to end, memory."""

from __future__ import annotations

HELP = "account for one request: prefill (TTFT), decode per token, end to end, memory; vs the simple estimate"


def add_arguments(parser) -> None:
    from inferledger.cli._output import add_json_flag, add_plot_option

    add_request_options(parser)
    parser.add_argument("--operators", action="store_true",
                        help="also print the operator-level roofline of prefill and of a decode step")
    add_json_flag(parser)
    add_plot_option(parser, "roofline, memory and latency/throughput vs batch and context")


def add_request_options(parser) -> None:
    """The options of one request (shared with `report`; the web API takes the same names)."""
    from inferledger import defaults
    from inferledger.cli._workload import (
        add_calibration_option,
        add_length_options,
        add_model_options,
        add_parallel_options,
    )

    add_model_options(parser)
    add_length_options(parser, defaulted=True)
    parser.add_argument("--batch", type=int, default=defaults.BATCH, metavar="N",
                        help=f"requests running together (default {defaults.BATCH})")
    parser.add_argument("--context", type=int, metavar="TOKENS",
                        help="context per request for the memory account (default ISL + OSL)")
    parser.add_argument("--overhead-ms", type=float, default=0.0, metavar="MS",
                        help="fixed time per forward step (kernel launches, scheduling); default 0: the ideal roofline")
    add_calibration_option(parser)
    add_parallel_options(parser)
    parser.add_argument("--disaggregate", action="store_true",
                        help="also size split prefill/decode: prefill cards per decode card (decode instances "
                             "running --batch) and the KV handover between them")


def request_options(**given):
    """A namespace holding every option of `request` at its default, overridden by `given` (by Python name:
    model, params, gpu, precision, kv_precision, isl, osl, batch, context, overhead_ms, gpu_memory_utilization,
    calibration)."""
    from argparse import ArgumentParser, Namespace

    from inferledger.errors import BadArgument

    parser = ArgumentParser(add_help=False)
    add_request_options(parser)
    options = vars(parser.parse_args(["--gpu", "-"]))  # the defaults, as the CLI has them
    options["gpu"] = None
    unknown = sorted(set(given) - set(options))
    if unknown:
        raise BadArgument(f"unknown request option(s): {', '.join(unknown)}; known: {', '.join(options)}")
    return Namespace(**{**options, **given})


def request_document(options, spec=None, accelerator=None):
    """(account, document): the account of the request `options` describe and the document `request --json`
    prints. `options` is the parsed namespace, or any object with the same attribute names (the web API builds
    one from JSON); `spec` and `accelerator`, when given, are used instead of loading options.model/options.gpu.
    Every consumer (CLI, web API, HTML report, plots) takes its document from here, so keys added to it reach
    them all unchanged."""
    from inferledger.cli._workload import load, load_calibration_option, parallel_from
    from inferledger.errors import positive_number
    from inferledger.ledger.request import request_account

    if spec is None or accelerator is None:
        spec, accelerator = load(options)
    calibration = load_calibration_option(options)
    overhead_ms = positive_number(options.overhead_ms, "--overhead-ms", allow_zero=True)
    layout, topology = parallel_from(options, accelerator)
    account = request_account(spec, accelerator, isl=options.isl, osl=options.osl, batch=options.batch,
                              precision=options.precision, kv_precision=options.kv_precision,
                              overhead_seconds_per_step=overhead_ms / 1e3,
                              gpu_memory_utilization=options.gpu_memory_utilization,
                              context_tokens=options.context, calibration=calibration, parallel=layout,
                              topology=topology)
    document = account.to_dict()
    if options.disaggregate:
        from inferledger.ledger.disaggregation import disaggregation
        from inferledger.operators import Formats

        document["disaggregation"] = disaggregation(
            spec, accelerator, Formats.resolve(spec, options.precision, options.kv_precision), isl=options.isl,
            osl=options.osl, decode_batch=options.batch, prefill_parallel=layout, decode_parallel=layout,
            topology=topology, overhead_seconds=overhead_ms / 1e3).to_dict()
    return account, document


def run(args) -> int:
    from inferledger.cli._output import print_json, print_warnings, write_plot
    from inferledger.cli._workload import load

    spec, accelerator = load(args)
    account, document = request_document(args, spec, accelerator)
    print_warnings("request", account.warnings)
    if args.plot:
        from inferledger.report.curves import request_charts

        write_plot(args.plot, request_charts(args, spec, accelerator, document, with_load=True), "request")
    if args.json:
        print_json(document)
        return 0
    from inferledger.report.request_text import render_disaggregation, render_operators, render_request

    print(render_request(account))
    if "disaggregation" in document:
        print()
        print(render_disaggregation(document["disaggregation"]))
    if args.operators:
        print()
        print(render_operators(account))
    return 0
