"""`inferledger request`: the full account of one request — TTFT, per-token time, end to end, memory."""

from __future__ import annotations

HELP = "account for one request: prefill (TTFT), decode per token, end to end, memory; vs the simple estimate"


def add_arguments(parser) -> None:
    from inferledger import defaults
    from inferledger.cli._output import add_json_flag
    from inferledger.cli._workload import add_calibration_option, add_length_options, add_model_options

    add_model_options(parser)
    add_length_options(parser, defaulted=True)
    parser.add_argument("--batch", type=int, default=defaults.BATCH, metavar="N",
                        help=f"requests running together (default {defaults.BATCH})")
    parser.add_argument("--context", type=int, metavar="TOKENS",
                        help="context per request for the memory account (default ISL + OSL)")
    parser.add_argument("--overhead-ms", type=float, default=0.0, metavar="MS",
                        help="fixed time per forward step (kernel launches, scheduling); default 0: the ideal roofline")
    parser.add_argument("--operators", action="store_true",
                        help="also print the operator-level roofline of prefill and of a decode step")
    add_calibration_option(parser)
    add_json_flag(parser)


def run(args) -> int:
    from inferledger.cli._output import print_json, print_warnings
    from inferledger.cli._workload import load, load_calibration_option
    from inferledger.errors import positive_number
    from inferledger.ledger.request import request_account

    spec, accelerator = load(args)
    calibration = load_calibration_option(args)
    overhead_ms = positive_number(args.overhead_ms, "--overhead-ms", allow_zero=True)
    account = request_account(spec, accelerator, isl=args.isl, osl=args.osl, batch=args.batch,
                              precision=args.precision, kv_precision=args.kv_precision,
                              overhead_seconds_per_step=overhead_ms / 1e3,
                              gpu_memory_utilization=args.gpu_memory_utilization, context_tokens=args.context,
                              calibration=calibration)
    print_warnings("request", account.warnings)
    if args.json:
        print_json(account)
        return 0
    from inferledger.report.request_text import render_operators, render_request

    print(render_request(account))
    if args.operators:
        print()
        print(render_operators(account))
    return 0
