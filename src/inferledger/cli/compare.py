"""`inferledger compare`: two or more cards (or precisions) side by side for one workload — each at its cheapest
batch limit that meets the SLO, with throughput, the most requests per second, TTFT, TPOT and cost; with
--simulate N, each also served in the simulator."""

from __future__ import annotations

HELP = "put two or more cards or precisions side by side for one workload: throughput, latency, $ per M tokens"


def add_arguments(parser) -> None:
    from inferledger.cli.plan import add_sweep_arguments

    def add_simulate(parser) -> None:
        parser.add_argument("--simulate", action="store_true",
                            help="also serve the workload in the simulator on each, at its chosen batch limit")

    add_sweep_arguments(parser, "two or more, e.g. h100-sxm,a100-sxm-80gb",
                        "comma-separated max-num-seqs values to choose from (default 1,2,4,…,1024)", add_simulate)


def chosen_configurations(result) -> list[dict]:
    """Per (card, precision): the cheapest configuration meeting the SLO, else the one closest to it."""
    groups: dict = {}
    for c in result.configurations:
        groups.setdefault((c["accelerator"], c["precision"]), []).append(c)
    slo = result.slo

    def closeness(c):
        return max(c["ttft_seconds"] / slo.ttft_seconds, c["tpot_seconds"] / slo.tpot_seconds)

    chosen = []
    for configurations in groups.values():
        meeting = [c for c in configurations if c["meets_slo"]]
        chosen.append(min(meeting, key=lambda c: c["usd_per_million_output_tokens"]) if meeting
                      else min(configurations, key=closeness))
    return chosen


def run(args) -> int:
    from inferledger.cli._output import print_json
    from inferledger.cli._workload import split_list
    from inferledger.cli.plan import sweep_from
    from inferledger.errors import BadWorkload

    if len(split_list(args.gpus, [])) < 2 and len(split_list(args.precisions, [])) < 2:
        raise BadWorkload("compare needs two or more cards (--gpus a,b) or precisions (--precisions a,b)")
    if not args.precisions:
        args.precisions = "bf16"  # one format across the cards unless asked
    result, prices = sweep_from(args, require_slo=False, search=False)
    chosen = chosen_configurations(result)
    simulated = {}
    if args.simulate:
        simulated = _simulate_each(args, chosen)
    if args.json:
        document = result.to_dict()
        document.pop("configurations")
        document["compared"] = [c | ({"simulated": simulated[(c["accelerator"], c["precision"])]}
                                     if simulated else {}) for c in chosen]
        print_json(document)
        return 0
    from inferledger.report.plan_text import render_compare

    print(render_compare(result, prices, chosen, simulated))
    return 0


def _simulate_each(args, chosen) -> dict:
    from inferledger.cli._workload import layout_from, load_trace, slo_of, step_cost_options, topology_options
    from inferledger.hardware import find_accelerator
    from inferledger.hardware.topology import topology_for
    from inferledger.model import load_model
    from inferledger.simulate import Scheduler, simulate

    spec, trace = load_model(args.model), load_trace(args)
    layout, options = layout_from(args, gpus=False), topology_options(args)
    out = {}
    for c in chosen:
        card = find_accelerator(c["accelerator"])
        scheduler = Scheduler(max_num_seqs=min(c["max_num_seqs"], args.max_batched_tokens),
                              max_batched_tokens=args.max_batched_tokens)
        result = simulate(spec, card, trace, precision=c["precision"], kv_precision=args.kv_precision,
                          scheduler=scheduler, gpu_memory_utilization=args.gpu_memory_utilization, slo=slo_of(args),
                          parallel=layout, topology=topology_for(card, **options) if options else None,
                          **step_cost_options(args))
        metrics = result.metrics
        out[(c["accelerator"], c["precision"])] = {key: metrics[key] for key in ("throughput", "ttft", "tpot",
                                                                                  "goodput")}
    return out
