"""Options shared by `request` and `fit`: the model (or a bare parameter count), the accelerator, formats, and how
the model is spread over cards.
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


def add_parallel_options(parser) -> None:
    """--tp/--pp/--ep/--dp/--attention-dp and --gpus (their product), and the node's links."""
    group = parser.add_argument_group("spreading the model over cards")
    group.add_argument("--gpus", type=int, metavar="N",
                       help="cards in all = tp × pp × dp; alone it means tensor parallel N")
    group.add_argument("--tp", type=int, metavar="N", help="tensor parallel: heads and FFN columns over N cards")
    group.add_argument("--pp", type=int, metavar="N", help="pipeline parallel: layers in N stages")
    group.add_argument("--ep", type=int, metavar="N", help="expert parallel: routed experts over N of the tp cards")
    group.add_argument("--dp", type=int, metavar="N", help="data parallel: N independent replicas")
    group.add_argument("--attention-dp", type=int, metavar="N",
                       help="attention data parallel in N groups of the tp cards (SGLang --enable-dp-attention; "
                            "for MLA models)")
    group.add_argument("--gpus-per-node", type=int, metavar="N", help="cards per node (default: the part's usual node)")
    group.add_argument("--link-gb-s", type=float, metavar="GB/S",
                       help="bandwidth joining the cards of a node, GB/s per direction (default: the part's NVLink "
                            "or PCIe)")
    group.add_argument("--inter-node", metavar="LINK",
                       help="link between nodes, needed past one node: ib-ndr, ib-hdr, ib-xdr, roce-400, eth-200, "
                            "eth-100")


def parallel_from(args, accelerator):
    """(Parallelism or None, Topology or None) from the options: None when no option about cards was given."""
    names = ("gpus", "tp", "pp", "ep", "dp", "attention_dp")
    if all(getattr(args, name, None) is None for name in names):
        layout = None
    else:
        from inferledger.parallelism import Parallelism

        degrees = {name: getattr(args, name) for name in names[1:]}
        if args.gpus is not None:
            layout = Parallelism.of_gpus(args.gpus, **degrees)
        else:
            layout = Parallelism(**{name: value or 1 for name, value in degrees.items()})
    if args.gpus_per_node is None and args.link_gb_s is None and args.inter_node is None:
        return layout, None
    from inferledger.hardware.topology import topology_for

    bandwidth = None if args.link_gb_s is None else args.link_gb_s * 1e9
    return layout, topology_for(accelerator, gpus_per_node=args.gpus_per_node,
                                link_bandwidth_bytes_per_second=bandwidth, inter_node=args.inter_node)
