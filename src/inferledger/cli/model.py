"""`inferledger model MODEL`: where the parameters live, what they weigh, and what each token of context costs."""

from __future__ import annotations

HELP = "count a model from its config.json: parameters by component, weight bytes, KV cache per token"


def add_arguments(parser) -> None:
    from inferledger import defaults
    from inferledger.cli._output import add_json_flag
    from inferledger.cli._workload import add_format_options

    parser.add_argument("model", metavar="MODEL",
                        help="path to config.json, a folder holding one, a .gguf file, a .safetensors file or index, "
                             "a catalog name, or a hub id")
    add_format_options(parser)
    parser.add_argument("--context", type=int, default=defaults.CONTEXT_TOKENS, metavar="TOKENS",
                        help=f"context for the per-request KV figure (default {defaults.CONTEXT_TOKENS})")
    add_json_flag(parser)


def run(args) -> int:
    from inferledger.cli._output import print_json
    from inferledger.errors import BadWorkload
    from inferledger.ledger.model_ledger import model_ledger
    from inferledger.model import load_model

    if args.context < 1:
        raise BadWorkload(f"--context must be at least 1 token, got {args.context}")
    spec = load_model(args.model)
    ledger = model_ledger(spec, args.precision, args.kv_precision, args.context)
    if args.json:
        document = ledger.to_dict()
        if spec.checkpoint is not None:  # what the weight files hold, from their headers
            document["checkpoint"] = spec.checkpoint.to_dict()
        print_json(document)
    else:
        from inferledger.report.model_text import render_checkpoint, render_model

        print(render_model(ledger))
        if spec.checkpoint is not None:
            print(render_checkpoint(spec.checkpoint))
    return 0
