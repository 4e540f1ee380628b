"""`inferledger request`: the full account of one request — TTFT, per-token time, end to end, memory."""

from __future__ import annotations

HELP = "account for one request: prefill (TTFT), decode per token, end to end, memory; vs the simple estimate"


def add_arguments(parser) -> None:
    from inferledger.cli._output import add_json_flag
    from inferledger.cli._workload import add_model_options

    add_model_options(parser)
    parser.add_argument("--isl", type=int, default=1024, metavar="TOKENS", help="input tokens (default 1024)")
    parser.add_argument("--osl", type=int, default=256, metavar="TOKENS", help="output tokens (default 256)")
    parser.add_argument("--batch", type=int, default=1, metavar="N", help="requests running together (default 1)")
    parser.add_argument("--context", type=int, metavar="TOKENS",
                        help="context per request for the memory account (default ISL + OSL)")
    parser.add_argument("--overhead-ms", type=float, default=0.0, metavar="MS",
                        help="fixed time per forward step (kernel launches, scheduling); default 0: the ideal roofline")
    parser.add_argument("--operators", action="store_true",
                        help="also print the operator-level roofline of prefill and of a decode step")
    add_json_flag(parser)


def run(args) -> int:
    import warnings

    from inferledger.cli._output import print_json
    from inferledger.cli._workload import load
    from inferledger.ledger.request import request_account

    spec, accelerator = load(args)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # warnings travel in the account and are printed below
        account = request_account(spec, accelerator, isl=args.isl, osl=args.osl, batch=args.batch,
                                  precision=args.precision, kv_precision=args.kv_precision,
                                  parameters=args.params, overhead_seconds_per_step=args.overhead_ms / 1e3,
                                  gpu_memory_utilization=args.gpu_memory_utilization, context_tokens=args.context)
    if args.json:
        print_json(account)
    else:
        from inferledger.report.request_text import render_request

        print(render_request(account))
        if args.operators:
            from inferledger.report.request_text import render_operators

            print()
            print(render_operators(account))
    return 0
