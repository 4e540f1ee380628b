"""`inferledger fit`: weights + KV cache + workspace + overhead → how many requests fit, and how long they can be."""

from __future__ import annotations

HELP = "the memory account: how many requests of a context fit on a card, or the longest context for N requests"


def add_arguments(parser) -> None:
    from inferledger.cli._output import add_json_flag
    from inferledger.cli._workload import add_model_options

    add_model_options(parser, params=False)
    parser.add_argument("--context", type=int, default=8192, metavar="TOKENS",
                        help="tokens per request, prompt + output (default 8192)")
    parser.add_argument("--concurrency", type=int, metavar="N",
                        help="also report the longest context at which N requests fit")
    parser.add_argument("--gpus", type=int, default=1, metavar="N",
                        help="cards sharing the model (tensor parallel): memory adds up (default 1)")
    add_json_flag(parser)


def run(args) -> int:
    from inferledger.cli._output import print_json
    from inferledger.cli._workload import load
    from inferledger.errors import BadWorkload
    from inferledger.ledger.memory import longest_context, memory_account
    from inferledger.ledger.model_ledger import default_precision
    from inferledger.precision import get_precision

    spec, accelerator = load(args)
    if args.gpus < 1:
        raise BadWorkload(f"--gpus must be at least 1, got {args.gpus}")
    weights = get_precision(args.precision) if args.precision else default_precision(spec)
    kv = get_precision(args.kv_precision or "bf16")
    account = memory_account(spec, accelerator, weights, kv, args.context,
                             gpu_memory_utilization=args.gpu_memory_utilization, num_gpus=args.gpus)
    document = {"model": spec.name, "precision": weights.name, "kv_precision": kv.name, **account.to_dict()}
    if args.concurrency is not None:
        document["concurrency"] = args.concurrency
        document["longest_context_tokens"] = longest_context(spec, account, kv, args.concurrency)
    if spec.max_context_tokens and args.context > spec.max_context_tokens:
        document["warning"] = f"context {args.context:,} exceeds the model's maximum {spec.max_context_tokens:,}"
    if args.json:
        print_json(document)
    else:
        from inferledger.report.fit_text import render_fit

        print(render_fit(document))
    return 0
