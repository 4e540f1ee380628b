"""Options shared by `request` and `fit`: the model (or a bare parameter count), the accelerator, formats.
Defaults and their help texts come from inferledger.defaults, so a flag means the same thing on every verb."""

from __future__ import annotations

from inferledger import defaults

PRECISION_HELP = "weight format: bf16, fp16, fp8, int8, int4, int4-g64, nvfp4, mxfp4, ... (default: the checkpoint's)"
KV_PRECISION_HELP = "KV-cache format (default: the weights' when 16 bits or more, else bf16)"


def add_model_options(parser, *, params: bool = True, gpu_required: bool = True) -> None:
    parser.add_argument("--model", "-m", metavar="MODEL",
                        help="path to config.json, a folder, a catalog name or a hub id")
    if params:
        parser.add_argument("--params", type=float, metavar="N",
                            help="a bare parameter count instead of a model (e.g. 7e9): the seed's estimate")
    parser.add_argument("--gpu", "-g", required=gpu_required, metavar="NAME",
                        help="accelerator name (`inferledger gpus`) or a .json/.yaml file of your own part")
    add_format_options(parser)
    parser.add_argument("--gpu-memory-utilization", type=float, default=defaults.GPU_MEMORY_UTILIZATION,
                        metavar="F", help="fraction of the card the engine may use, as vLLM's flag "
                                          f"(default {defaults.GPU_MEMORY_UTILIZATION})")


def add_calibration_option(parser) -> None:
    parser.add_argument("--calibration", metavar="FILE",
                        help="fitted parameters of the realistic estimate (`inferledger calibrate`); default: the "
                             "bundled fit to measured kernels")


def load_calibration_option(args):
    """The Calibration --calibration names, or the bundled one."""
    from inferledger.calibration import load_calibration

    return load_calibration(getattr(args, "calibration", None))


def add_format_options(parser) -> None:
    parser.add_argument("--precision", metavar="P", help=PRECISION_HELP)
    parser.add_argument("--kv-precision", metavar="P", help=KV_PRECISION_HELP)


def add_length_options(parser, *, defaulted: bool) -> None:
    """--isl/--osl: with `defaulted` they take the workload defaults; else None means "not given"."""
    isl, osl = (defaults.ISL_TOKENS, defaults.OSL_TOKENS) if defaulted else (None, None)
    parser.add_argument("--isl", type=int, default=isl, metavar="TOKENS",
                        help=f"input tokens per request (default {defaults.ISL_TOKENS})")
    parser.add_argument("--osl", type=int, default=osl, metavar="TOKENS",
                        help=f"output tokens per request (default {defaults.OSL_TOKENS})")


def load(args):
    """(spec, accelerator) from the parsed options: a bare parameter count becomes ModelSpec.bare."""
    from inferledger.errors import BadWorkload, positive_number
    from inferledger.hardware import find_accelerator
    from inferledger.model import load_model
    from inferledger.model.spec import ModelSpec

    params = getattr(args, "params", None)
    if params is not None and args.model:
        raise BadWorkload("give --model or --params, not both")
    if not args.model and params is None:
        raise BadWorkload("give --model MODEL (or --params N for a bare parameter count)")
    spec = load_model(args.model) if args.model else ModelSpec.bare(positive_number(params, "--params"))
    return spec, find_accelerator(args.gpu)
