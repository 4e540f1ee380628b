"""`inferledger plan`: for a workload and an SLO, sweep cards × precisions × batch limits and rank the
configurations by dollars per million output tokens, with the most requests per second each sustains."""

from __future__ import annotations

HELP = "which card: sweep cards × precisions × batch limits for a workload and SLO, ranked by $ per M output tokens"


def add_arguments(parser) -> None:
    def add_top(parser) -> None:
        parser.add_argument("--top", type=int, default=10, metavar="N", help="configurations to print (default 10)")

    add_sweep_arguments(parser, "default: every card with a price",
                        "comma-separated max-num-seqs values (default 1,2,4,…,1024)", add_top)


def add_sweep_arguments(parser, default_cards: str, batch_help: str, add_own) -> None:
    """The options plan and compare share, in their order, with each command's own (`add_own(parser)`) before the
    trace, step-cost and --json options."""
    from inferledger.cli._output import add_json_flag
    from inferledger.cli._workload import (
        add_parallel_options,
        add_step_cost_options,
        add_sweep_options,
        add_trace_options,
    )

    add_sweep_options(parser, default_cards=default_cards)
    add_parallel_options(parser, gpus=False)
    parser.add_argument("--batch-limits", metavar="LIST", help=batch_help)
    add_own(parser)
    add_trace_options(parser)
    add_step_cost_options(parser)
    add_json_flag(parser)


def sweep_from(args, require_slo: bool = True, search: bool = True):
    """(Plan, prices) from the options shared by plan and compare. Without a layout given, `search` tries the
    layouts of plan.sweep.searched_layouts, else one card."""
    from inferledger.cli._workload import (
        layout_from,
        load_trace,
        slo_of,
        split_list,
        step_cost_options,
        topology_options,
    )
    from inferledger.errors import BadWorkload
    from inferledger.hardware import find_accelerator
    from inferledger.model import load_model
    from inferledger.plan import DEFAULT_BATCH_LIMITS, DEFAULT_PRECISIONS, load_prices, plan

    prices = load_prices(args.prices)
    layout = layout_from(args, gpus=False)
    layouts = [layout] if layout is not None else ("search" if search else None)
    cards = [find_accelerator(name) for name in split_list(args.gpus, prices)]
    try:
        limits = [int(v) for v in split_list(getattr(args, "batch_limits", None), DEFAULT_BATCH_LIMITS)]
    except ValueError:
        raise BadWorkload(f"--batch-limits must be whole numbers, got {args.batch_limits!r}") from None
    if any(limit < 1 for limit in limits):
        raise BadWorkload(f"--batch-limits must be whole numbers ≥ 1, got {args.batch_limits!r}")
    result = plan(load_model(args.model), load_trace(args), cards, split_list(args.precisions, DEFAULT_PRECISIONS),
                  prices, slo_of(args), batch_limits=limits, kv_precision=args.kv_precision,
                  max_batched_tokens=args.max_batched_tokens, gpu_memory_utilization=args.gpu_memory_utilization,
                  cost_options=step_cost_options(args), require_slo=require_slo, layouts=layouts,
                  topology_options=topology_options(args))
    return result, prices


def run(args) -> int:
    from inferledger.cli._output import print_json, print_warnings
    from inferledger.errors import BadWorkload

    if args.top < 1:
        raise BadWorkload(f"--top must be at least 1, got {args.top}")
    result, prices = sweep_from(args)
    print_warnings("plan", [f"{a} {p} skipped: {r}" for a, p, r in result.skipped if "price" in r])
    if args.json:
        print_json(result)
        return 0
    from inferledger.report.plan_text import render_plan

    print(render_plan(result, prices, args.top))
    return 0
