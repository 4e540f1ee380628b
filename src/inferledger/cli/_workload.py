"""Options shared by `request` and `fit`: the model (or a bare parameter count), the accelerator, formats."""

from __future__ import annotations


def add_model_options(parser, *, params: bool = True) -> None:
    parser.add_argument("--model", "-m", metavar="MODEL",
                        help="path to config.json, a folder, a catalog name or a hub id")
    if params:
        parser.add_argument("--params", type=float, metavar="N",
                            help="a bare parameter count instead of a model (e.g. 7e9): the seed's estimate")
    parser.add_argument("--gpu", "-g", required=True, metavar="NAME",
                        help="accelerator name (`inferledger gpus`) or a .json/.yaml file of your own part")
    parser.add_argument("--precision", metavar="P", help="weight format (default: the checkpoint's)")
    parser.add_argument("--kv-precision", metavar="P", help="KV-cache format (default: bf16)")
    parser.add_argument("--gpu-memory-utilization", type=float, default=0.9, metavar="F",
                        help="fraction of the card the engine may use, as vLLM's flag (default 0.9)")


def load(args):
    """(spec or None, accelerator) from the parsed options; one clear error for a wrong combination."""
    from inferledger.errors import BadWorkload
    from inferledger.hardware import find_accelerator
    from inferledger.model import load_model

    if getattr(args, "params", None) is not None and args.model:
        raise BadWorkload("give --model or --params, not both")
    if not args.model and getattr(args, "params", None) is None:
        raise BadWorkload("give --model MODEL (or --params N for a bare parameter count)")
    accelerator = find_accelerator(args.gpu)
    spec = load_model(args.model) if args.model else None
    return spec, accelerator
