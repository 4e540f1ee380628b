"""`inferledger simulate`: one replica serving a workload with continuous batching — throughput, TTFT / TPOT /
ITL / E2E percentiles, goodput under an SLO, KV usage and queue length over time."""

from __future__ import annotations

HELP = "simulate one replica serving a workload (continuous batching): throughput, latency percentiles, goodput"


def add_arguments(parser) -> None:
    from inferledger import defaults
    from inferledger.cli._output import add_json_flag
    from inferledger.cli._workload import (
        add_model_options,
        add_parallel_options,
        add_step_cost_options,
        add_trace_options,
    )

    add_model_options(parser, params=False)
    add_trace_options(parser)
    add_parallel_options(parser)
    group = parser.add_argument_group("engine")
    group.add_argument("--max-num-seqs", type=int, default=defaults.MAX_NUM_SEQS, metavar="N",
                       help=f"sequences running at once (vLLM --max-num-seqs; default {defaults.MAX_NUM_SEQS})")
    group.add_argument("--max-batched-tokens", type=int, default=defaults.MAX_BATCHED_TOKENS, metavar="N",
                       help=f"token budget per step (default {defaults.MAX_BATCHED_TOKENS})")
    group.add_argument("--no-chunked-prefill", action="store_true",
                       help="whole prompts in prefill-only steps (vLLM V0) instead of chunks beside the decodes")
    group.add_argument("--block-size", type=int, default=defaults.KV_BLOCK_TOKENS, metavar="TOKENS",
                       help=f"tokens per KV-cache block (default {defaults.KV_BLOCK_TOKENS})")
    group.add_argument("--max-tokens", type=int, metavar="N", help="cap on output tokens per request")
    group.add_argument("--timeout", type=float, metavar="SECONDS", help="abort a request this long after it arrives")
    group.add_argument("--slo-ttft-ms", type=float, default=defaults.SLO_TTFT_SECONDS * 1e3, metavar="MS",
                       help=f"goodput: TTFT objective (default {defaults.SLO_TTFT_SECONDS * 1e3:g} ms)")
    group.add_argument("--slo-tpot-ms", type=float, default=defaults.SLO_TPOT_SECONDS * 1e3, metavar="MS",
                       help=f"goodput: TPOT objective (default {defaults.SLO_TPOT_SECONDS * 1e3:g} ms)")
    add_step_cost_options(parser)
    add_json_flag(parser)


def scheduler_from(args):
    from inferledger.simulate import Scheduler

    return Scheduler(max_num_seqs=args.max_num_seqs, max_batched_tokens=args.max_batched_tokens,
                     chunked_prefill=not args.no_chunked_prefill, block_tokens=args.block_size,
                     max_tokens=args.max_tokens, timeout_seconds=args.timeout)


def run(args) -> int:
    from inferledger.cli._output import print_json, print_warnings
    from inferledger.cli._workload import load, load_trace, parallel_from, slo_of, step_cost_options
    from inferledger.report.progress import Progress
    from inferledger.simulate import simulate

    spec, accelerator = load(args)
    parallel, topology = parallel_from(args, accelerator)
    trace = load_trace(args)
    progress = Progress(trace.requests, "simulating")
    try:
        result = simulate(spec, accelerator, trace, precision=args.precision, kv_precision=args.kv_precision,
                          scheduler=scheduler_from(args), gpu_memory_utilization=args.gpu_memory_utilization,
                          slo=slo_of(args), progress=progress.update, parallel=parallel,
                          topology=topology, **step_cost_options(args))
    finally:
        progress.close()
    print_warnings("simulate", result.warnings)
    if args.json:
        print_json(result)
        return 0
    from inferledger.report.simulate_text import render_simulation

    print(render_simulation(result))
    return 0
