"""Options shared by the verbs: the model (or a bare parameter count), the accelerator, formats, how the model is
spread over cards, and the workload of the serving verbs.
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


def add_parallel_options(parser, *, gpus: bool = True) -> None:
    """--tp/--pp/--ep/--dp/--attention-dp and --gpus (their product), and the node's links. `plan` and `compare`
    use --gpus for their list of cards (gpus=False): there the product is the layout's."""
    group = parser.add_argument_group("spreading the model over cards")
    if gpus:
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
    layout, options = layout_from(args), topology_options(args)
    if not options:
        return layout, None
    from inferledger.hardware.topology import topology_for

    return layout, topology_for(accelerator, **options)


def layout_from(args, *, gpus: bool = True):
    """The Parallelism the options give, or None when none about cards was given. gpus=False: --gpus is not a card
    count here (see add_parallel_options)."""
    names = ("tp", "pp", "ep", "dp", "attention_dp")
    count = getattr(args, "gpus", None) if gpus else None
    if count is None and all(getattr(args, name, None) is None for name in names):
        return None
    from inferledger.parallelism import Parallelism

    degrees = {name: getattr(args, name) for name in names}
    if count is not None:
        return Parallelism.of_gpus(count, **degrees)
    return Parallelism(**{name: value or 1 for name, value in degrees.items()})


def topology_options(args) -> dict:
    """Keyword arguments of hardware.topology.topology_for from the node-link options ({} when none was given)."""
    options = {}
    if args.gpus_per_node is not None:
        options["gpus_per_node"] = args.gpus_per_node
    if args.link_gb_s is not None:
        options["link_bandwidth_bytes_per_second"] = args.link_gb_s * 1e9
    if args.inter_node is not None:
        options["inter_node"] = args.inter_node
    return options


REQUESTS = 1000  # synthetic requests when --requests is not given


def add_trace_options(parser) -> None:
    """The workload of `workload`, `simulate` and `plan`: a trace file, or synthetic lengths and arrivals."""
    group = parser.add_argument_group("workload (a trace file, or synthetic lengths and arrivals)")
    group.add_argument("--trace", metavar="FILE",
                       help="JSONL/CSV requests: lengths, or prompt/output text, OpenAI chat or ShareGPT records")
    group.add_argument("--tokenizer", metavar="NAME",
                       help="counts a trace's text (a bundled name such as cl100k_base, a tokenizer file or hub id)")
    group.add_argument("--isl", metavar="SPEC", help=f"input tokens: N, uniform:LO,HI, normal:MEAN,SD, "
                       f"lognormal:MEAN,SIGMA or empirical:FILE (default {defaults.ISL_TOKENS})")
    group.add_argument("--osl", metavar="SPEC", help=f"output tokens, same forms (default {defaults.OSL_TOKENS})")
    group.add_argument("--requests", type=int, metavar="N", help=f"synthetic requests (default {REQUESTS:,})")
    group.add_argument("--rate", metavar="R", help="requests per second, or inf: all at once (default inf)")
    group.add_argument("--arrivals", metavar="SPEC",
                       help="poisson (default), bursty:CV or closed:USERS[,THINK_SECONDS]")
    group.add_argument("--shared-prefix", type=int, metavar="TOKENS",
                       help="every prompt opens with the same TOKENS, served from the prefix cache after the first")
    group.add_argument("--seed", type=int, default=0, metavar="N", help="random seed of the synthetic draw")


class _LazyTokenizer:
    """Loads the tokenizer only when the trace turns out to carry text."""

    def __init__(self, name: str):
        self.name = name

    def count_batch(self, texts):
        from inferledger.tokens import load_tokenizer

        return load_tokenizer(self.name).count_batch(texts)


def load_trace(args):
    """The Trace the options describe."""
    from inferledger.errors import BadWorkload
    from inferledger.workload import read_trace, synthetic_trace

    synthetic = {"--isl": args.isl, "--osl": args.osl, "--requests": args.requests, "--rate": args.rate,
                 "--arrivals": args.arrivals, "--shared-prefix": args.shared_prefix}
    if args.trace:
        given = [flag for flag, value in synthetic.items() if value is not None]
        if given:
            raise BadWorkload(f"give --trace or synthetic options ({', '.join(given)}), not both")
        return read_trace(args.trace, tokenizer=_LazyTokenizer(args.tokenizer) if args.tokenizer else None)
    return synthetic_trace(REQUESTS if args.requests is None else args.requests,
                           args.isl or defaults.ISL_TOKENS, args.osl or defaults.OSL_TOKENS,
                           rate=args.rate or "inf", arrivals=args.arrivals or "poisson", seed=args.seed,
                           shared_prefix_tokens=args.shared_prefix or 0)


def add_step_cost_options(parser) -> None:
    """Where a serving step's time comes from, and the efficiency assumptions of the floor."""
    group = parser.add_argument_group("step time")
    group.add_argument("--step-cost", choices=("auto", "floor", "realistic"), default="auto",
                       help="auto (default): the realistic estimate when installed, else the roofline floor")
    group.add_argument("--compute-efficiency", type=float, default=1.0, metavar="F",
                       help="floor: fraction of peak FLOP/s kernels reach (default 1.0, the ideal)")
    group.add_argument("--bandwidth-efficiency", type=float, default=1.0, metavar="F",
                       help="floor: fraction of memory bandwidth kernels reach (default 1.0)")
    group.add_argument("--overhead-ms", type=float, default=0.0, metavar="MS",
                       help="floor: fixed time per step (launches, scheduling, sampling); default 0")
    group.add_argument("--calibration", metavar="FILE", help="realistic: kernel calibration file (default bundled)")


def step_cost_options(args) -> dict:
    """Keyword arguments of inferledger.simulate.step_cost (and simulate) from the options."""
    from inferledger.errors import positive_number

    return {"source": args.step_cost, "compute_efficiency": args.compute_efficiency,
            "bandwidth_efficiency": args.bandwidth_efficiency,
            "overhead_seconds": positive_number(args.overhead_ms, "--overhead-ms", allow_zero=True) / 1e3,
            "calibration_path": args.calibration}


def add_sweep_options(parser, *, default_cards: str) -> None:
    """The model and the lists of cards and formats `plan` and `compare` put side by side."""
    parser.add_argument("--model", "-m", metavar="MODEL", required=True,
                        help="path to config.json, a folder, a catalog name or a hub id")
    parser.add_argument("--gpus", metavar="LIST", help=f"comma-separated accelerators ({default_cards})")
    parser.add_argument("--precisions", metavar="LIST",
                        help="comma-separated weight formats (default bf16,fp8,int8,int4)")
    parser.add_argument("--kv-precision", metavar="P", help=KV_PRECISION_HELP)
    parser.add_argument("--gpu-memory-utilization", type=float, default=defaults.GPU_MEMORY_UTILIZATION,
                        metavar="F", help=f"fraction of the card the engine may use (default "
                                          f"{defaults.GPU_MEMORY_UTILIZATION})")
    parser.add_argument("--max-batched-tokens", type=int, default=defaults.MAX_BATCHED_TOKENS, metavar="N",
                        help=f"token budget per step (default {defaults.MAX_BATCHED_TOKENS})")
    parser.add_argument("--slo-ttft-ms", type=float, default=defaults.SLO_TTFT_SECONDS * 1e3, metavar="MS",
                        help=f"TTFT objective (default {defaults.SLO_TTFT_SECONDS * 1e3:g} ms)")
    parser.add_argument("--slo-tpot-ms", type=float, default=defaults.SLO_TPOT_SECONDS * 1e3, metavar="MS",
                        help=f"TPOT objective (default {defaults.SLO_TPOT_SECONDS * 1e3:g} ms)")
    parser.add_argument("--prices", metavar="FILE", help="$/GPU-hour overrides (JSON/YAML: name → dollars)")


def split_list(value: str | None, default) -> list[str]:
    return [v.strip() for v in value.split(",") if v.strip()] if value else list(default)


def slo_of(args):
    from inferledger.errors import positive_number
    from inferledger.simulate import SLO

    return SLO(positive_number(args.slo_ttft_ms, "--slo-ttft-ms") / 1e3,
               positive_number(args.slo_tpot_ms, "--slo-tpot-ms") / 1e3)
