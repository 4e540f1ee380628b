"""`inferledger workload`: what a workload looks like — ISL/OSL percentiles, the ISL:OSL ratio, its arrivals,
and with --model and --gpu how its time splits between prefill and decode on that card."""

from __future__ import annotations

HELP = "summarise a workload (a trace or synthetic lengths): ISL/OSL percentiles, ratio, arrivals, shape on a card"


def add_arguments(parser) -> None:
    from inferledger.cli._output import add_json_flag
    from inferledger.cli._workload import add_model_options, add_step_cost_options, add_trace_options

    add_trace_options(parser)
    add_model_options(parser, params=False, gpu_required=False)
    add_step_cost_options(parser)
    add_json_flag(parser)


def run(args) -> int:
    from inferledger.cli._output import print_json
    from inferledger.cli._workload import load, load_trace, step_cost_options
    from inferledger.errors import BadWorkload
    from inferledger.workload.summary import summarise_trace

    trace = load_trace(args)
    cost, card = None, None
    if args.model or args.gpu:
        if not (args.model and args.gpu):
            raise BadWorkload("the shape on a card needs both --model and --gpu")
        from inferledger.operators import Formats
        from inferledger.simulate import build_step_model, step_cost

        spec, accelerator = load(args)
        formats = Formats.resolve(spec, args.precision, args.kv_precision)
        cost = step_cost(build_step_model(spec, formats), accelerator, **step_cost_options(args))
        card = f"{spec.name} on {accelerator.name} ({formats.weights.name} weights, {formats.kv.name} KV)"
    summary = summarise_trace(trace, cost)
    if args.json:
        print_json(summary)
        return 0
    from inferledger.report.workload_text import render_workload

    print(render_workload(summary, card))
    return 0
