"""`inferledger fit`: weights + KV cache + workspace + overhead → how many requests fit, and how long they can be."""

from __future__ import annotations

HELP = "the memory account: how many requests of a context fit on a card, or the longest context for N requests"


def add_arguments(parser) -> None:
    from inferledger.cli._output import add_json_flag
    from inferledger.cli._workload import add_model_options

    add_model_options(parser)
    parser.add_argument("--context", type=int, metavar="TOKENS",
                        help="tokens per request, prompt + output (default ISL + OSL, or 8192)")
    parser.add_argument("--isl", type=int, metavar="TOKENS", help="input tokens per request")
    parser.add_argument("--osl", type=int, metavar="TOKENS", help="output tokens per request")
    parser.add_argument("--batch", "--concurrency", dest="concurrency", type=int, metavar="N",
                        help="also report whether N requests fit and the longest context at which they do")
    parser.add_argument("--gpus", type=int, default=1, metavar="N",
                        help="cards sharing the model (tensor parallel): memory adds up (default 1)")
    add_json_flag(parser)


def _context(args) -> int:
    from inferledger.errors import BadWorkload

    for name in ("context", "isl", "osl", "concurrency"):
        value = getattr(args, name)
        if value is not None and value < 1:
            raise BadWorkload(f"--{name} must be at least 1, got {value}")
    if args.context is not None:
        return args.context
    if args.isl is not None or args.osl is not None:
        return (args.isl or 0) + (args.osl or 0)
    return 8192


def run(args) -> int:
    from inferledger.cli._output import print_json
    from inferledger.cli._workload import load
    from inferledger.errors import BadWorkload
    from inferledger.ledger.memory import longest_context, memory_account, weights_only_account
    from inferledger.ledger.model_ledger import default_precision
    from inferledger.precision import get_precision

    spec, accelerator = load(args)
    if args.gpus < 1:
        raise BadWorkload(f"--gpus must be at least 1, got {args.gpus}")
    context = _context(args)
    kv = get_precision(args.kv_precision or "bf16")
    if spec is None:  # a bare parameter count: the weights are known, the cache is not
        weights = get_precision(args.precision or "bf16")
        document = weights_only_account(args.params, accelerator, weights,
                                        gpu_memory_utilization=args.gpu_memory_utilization, num_gpus=args.gpus)
        print_json(document) if args.json else print(_bare_text(document))
        return 0
    weights = get_precision(args.precision) if args.precision else default_precision(spec)
    account = memory_account(spec, accelerator, weights, kv, context,
                             gpu_memory_utilization=args.gpu_memory_utilization, num_gpus=args.gpus)
    document = {"model": spec.name, "precision": weights.name, "kv_precision": kv.name, **account.to_dict()}
    if args.concurrency is not None:
        document["concurrency"] = args.concurrency
        document["concurrency_fits"] = account.max_concurrency >= args.concurrency
        document["longest_context_tokens"] = longest_context(spec, account, kv, args.concurrency)
    if spec.max_context_tokens and context > spec.max_context_tokens:
        document["warning"] = f"context {context:,} exceeds the model's maximum {spec.max_context_tokens:,}"
    if args.json:
        print_json(document)
    else:
        from inferledger.report.fit_text import render_fit

        print(render_fit(document))
    return 0


def _bare_text(doc: dict) -> str:
    from inferledger.report.units import format_bytes

    verdict = "fit" if doc["fits"] else "do NOT fit"
    return (f"{doc['parameters']:.3g} parameters in {doc['precision']} = {format_bytes(doc['weight_bytes'])} on "
            f"{doc['accelerator']}: the weights {verdict}; {format_bytes(doc['kv_budget_bytes'])} left for KV cache "
            "(give --model for the cache per token and the concurrency)")
