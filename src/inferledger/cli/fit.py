"""`inferledger fit`: weights + KV cache + workspace + overhead → how many requests fit, and how long they can be."""

from __future__ import annotations

HELP = "the memory account: how many requests of a context fit on a card, or the longest context for N requests"


def add_arguments(parser) -> None:
    from inferledger import defaults
    from inferledger.cli._output import add_json_flag
    from inferledger.cli._workload import add_calibration_option, add_length_options, add_model_options

    add_model_options(parser)
    parser.add_argument("--context", type=int, metavar="TOKENS",
                        help=f"tokens per request, prompt + output (default ISL + OSL when either is given, "
                             f"else {defaults.CONTEXT_TOKENS})")
    add_length_options(parser, defaulted=False)
    parser.add_argument("--batch", "--concurrency", dest="concurrency", type=int, metavar="N",
                        help="also report whether N requests fit and the longest context at which they do")
    parser.add_argument("--gpus", type=int, default=1, metavar="N",
                        help="cards sharing the model (tensor parallel): memory adds up (default 1)")
    add_calibration_option(parser)
    add_json_flag(parser)


def run(args) -> int:
    from inferledger import defaults
    from inferledger.cli._output import print_json, print_warnings
    from inferledger.cli._workload import load, load_calibration_option
    from inferledger.errors import BadWorkload
    from inferledger.ledger.memory import longest_context, memory_account
    from inferledger.operators import Formats

    for name in ("context", "isl", "osl", "concurrency", "gpus"):
        value = getattr(args, name)
        if value is not None and value < 1:
            raise BadWorkload(f"--{'batch' if name == 'concurrency' else name} must be at least 1, got {value}")
    spec, accelerator = load(args)
    calibration = load_calibration_option(args)
    context = defaults.context_tokens(args.isl, args.osl, args.context)
    formats = Formats.resolve(spec, args.precision, args.kv_precision)
    account = memory_account(spec, accelerator, formats, context,
                             gpu_memory_utilization=args.gpu_memory_utilization, num_gpus=args.gpus)
    # When nothing fits, the memory account's reason becomes the error line below rather than a warning too.
    warnings = list(account.warnings[1:] if not account.fits else account.warnings)
    document = {"model": spec.name, "precision": formats.weights.name, "kv_precision": formats.kv.name,
                **account.to_dict()}
    if args.concurrency is not None:
        document["concurrency"] = args.concurrency
        document["concurrency_fits"] = bool(account.max_concurrency and account.max_concurrency >= args.concurrency)
        document["longest_context_tokens"] = longest_context(spec, account, formats, args.concurrency)
        if account.fits and not document["concurrency_fits"] and not spec.is_bare:
            warnings.append(f"{args.concurrency:,} requests of {context:,} tokens do not fit: "
                            f"{account.max_concurrency:,} do")
    batch = args.concurrency or account.max_concurrency
    if account.fits and batch and not spec.is_bare:
        from inferledger.ledger.request import decode_step_times

        # How fast that many requests decode at the full context: the floor beside what kernels really take.
        document["decode_step"] = decode_step_times(spec, accelerator, formats, context, batch, calibration)
    if spec.max_context_tokens and context > spec.max_context_tokens:
        warnings.append(f"context {context:,} exceeds the model's maximum {spec.max_context_tokens:,}")
    document["warnings"] = warnings
    print_warnings("fit", warnings)
    if args.json:
        print_json(document)
    else:
        from inferledger.report.fit_text import render_fit

        print(render_fit(document))
    if not account.fits:
        raise BadWorkload(account.warnings[0])
    return 0
