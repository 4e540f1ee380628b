"""How fast the closed-form sweep of `inferledger plan` runs: configurations (card × precision × batch limit)
evaluated per second in process (target ≥ 100,000/s; the best peer manages ~1,700 estimates/s), for Llama-3.1-8B
over the 4 priced cards × 4 precisions × every batch limit 1…N. Reported two ways: the vectorised steady state
alone (StepCost and memory account built once per card and format, as `plan` does), and the whole `plan()` call
including those builds and one result record per configuration; with each step-time source. Then the same for
sharded layouts (Llama-3.1-70B, tp 2/4/8 with their collectives, each filling a node with dp replicas), the layout
search `plan` runs by default. Prints measurements from this run only.

    python benchmarks/bench_plan.py [--limits 4096]
"""

from __future__ import annotations

import argparse
import math
import os
import platform
import time

import numpy as np

from inferledger.hardware import find_accelerator
from inferledger.model import load_model
from inferledger.operators import Formats
from inferledger.plan import Shape, load_prices, plan, steady_state
from inferledger.simulate import SLO, build_step_model, step_cost
from inferledger.workload import synthetic_trace

PRECISIONS = ("bf16", "fp8", "int8", "int4")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--limits", type=int, default=4096)
    limits = np.arange(1, parser.parse_args().limits + 1)
    spec = load_model("meta-llama/Llama-3.1-8B")
    prices = load_prices()
    cards = [find_accelerator(name) for name in prices]
    trace = synthetic_trace(1000, "lognormal:1000,1.0", "lognormal:300,1.0", seed=1)
    shape = Shape.of(trace)
    models = [build_step_model(spec, Formats.resolve(spec, p)) for p in PRECISIONS]
    configurations = len(models) * len(cards) * limits.size
    print(f"machine: {platform.processor() or platform.machine()}, {os.cpu_count()} cores, Python "
          f"{platform.python_version()}; {len(cards)} cards × {len(PRECISIONS)} precisions × {limits.size:,} batch "
          f"limits = {configurations:,} configurations")
    for source in ("realistic", "floor"):
        time_steady_state(models, cards, shape, limits, source)
        start = time.perf_counter()
        result = plan(spec, trace, cards, PRECISIONS, prices, SLO(), batch_limits=limits.tolist(),
                      cost_options={"source": source})
        seconds = time.perf_counter() - start
        best_row = result.configurations[0]
        print(f"{source:9s} whole plan() call:        {seconds * 1e3:8.1f} ms = {configurations / seconds:12,.0f} "
              f"configurations/s (builds included; best: {best_row['accelerator']} {best_row['precision']})")
    sharded(cards, prices, trace, shape, limits)


def sharded(cards, prices, trace, shape, limits) -> None:
    from inferledger.parallelism import Parallelism

    spec = load_model("meta-llama/Llama-3.1-70B")
    layouts = [Parallelism(tp=tp) for tp in (2, 4, 8)]
    models = [build_step_model(spec, Formats.resolve(spec, p), parallel=layout) for p in PRECISIONS
              for layout in layouts]
    configurations = len(models) * len(cards) * limits.size
    print(f"sharded: Llama-3.1-70B, tp 2/4/8 × {len(cards)} cards × {len(PRECISIONS)} precisions × {limits.size:,} "
          f"batch limits = {configurations:,} configurations (collectives included)")
    for source in ("realistic", "floor"):
        time_steady_state(models, cards, shape, limits, source)
        start = time.perf_counter()
        result = plan(spec, trace, cards, PRECISIONS, prices, SLO(1e9, 1e9), batch_limits=limits.tolist(),
                      cost_options={"source": source}, layouts="search")
        seconds = time.perf_counter() - start
        count = len(result.configurations)
        print(f"{source:9s} whole plan() layout search: {seconds * 1e3:8.1f} ms = {count / seconds:12,.0f} "
              f"configurations/s ({count:,} configurations, builds included)")


def time_steady_state(models, cards, shape, limits, source: str) -> None:
    """Best of five sweeps of the vectorised steady state over every (model, card) cost and batch limit."""
    costs = [step_cost(m, card, source=source) for m in models for card in cards]
    configurations = len(costs) * limits.size
    best = math.inf
    for _ in range(5):
        start = time.perf_counter()
        for cost in costs:
            steady_state(cost, shape, limits, 1e4)
        best = min(best, time.perf_counter() - start)
    print(f"{source:9s} steady state, vectorised: {best * 1e3:8.1f} ms = {configurations / best:12,.0f} "
          f"configurations/s ({configurations / best / 1e5:.1f}× the 100,000/s target)")


if __name__ == "__main__":
    main()
