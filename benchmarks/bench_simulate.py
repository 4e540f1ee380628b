"""How fast the serving simulator runs: 100,000 requests (target ≤ 10 s on a 2-core machine), for Llama-3.1-8B in fp8
on an H200 under loads from light to saturating, reported as requests simulated per second next to the steps the
engine stepped, with each step-time source (the realistic estimate and the roofline floor). Prints measurements
from this run only; nothing is asserted.

    python benchmarks/bench_simulate.py [--requests 100000] [--sources realistic,floor]
"""

from __future__ import annotations

import argparse
import os
import platform
import time

from inferledger.hardware import find_accelerator
from inferledger.model import load_model
from inferledger.simulate import Scheduler, simulate
from inferledger.workload import synthetic_trace

CASES = [  # (name, ISL, OSL, rate per second, max_num_seqs)
    ("fixed 128/128, saturating", "128", "128", "inf", 256),
    ("fixed 2048/128, saturating", "2048", "128", "inf", 256),
    ("chat lognormal, saturating", "lognormal:256,1.0", "lognormal:200,1.0", "inf", 256),
    ("chat lognormal, 100 req/s", "lognormal:256,1.0", "lognormal:200,1.0", "100", 256),
    ("chat lognormal, 40 req/s (light)", "lognormal:256,1.0", "lognormal:200,1.0", "40", 256),
    ("chat lognormal, saturating, 1024 seqs", "lognormal:256,1.0", "lognormal:200,1.0", "inf", 1024),
]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--requests", type=int, default=100_000)
    parser.add_argument("--sources", default="realistic,floor")
    args = parser.parse_args()
    requests = args.requests
    spec, card = load_model("meta-llama/Llama-3.1-8B"), find_accelerator("h200-sxm")
    print(f"machine: {platform.processor() or platform.machine()}, {os.cpu_count()} cores, Python "
          f"{platform.python_version()}; {requests:,} requests per case; target ≤ 10 s each")
    print(f"{'case':40s} {'step time':>9s} {'seconds':>8s} {'requests/s':>11s} {'steps':>10s} {'steps/s':>10s} "
          f"{'vs 10 s':>8s}")
    simulate(spec, card, synthetic_trace(100, 128, 128), precision="fp8", kv_precision="fp8")  # warm caches
    for source in args.sources.split(","):
        for name, isl, osl, rate, seqs in CASES:
            trace = synthetic_trace(requests, isl, osl, rate=rate, seed=1)
            start = time.perf_counter()
            result = simulate(spec, card, trace, precision="fp8", kv_precision="fp8",
                              scheduler=Scheduler(max_num_seqs=seqs), source=source)
            seconds = time.perf_counter() - start
            steps = result.metrics["steps"]
            print(f"{name:40s} {source:>9s} {seconds:8.2f} {requests / seconds:11,.0f} {steps:10,} "
                  f"{steps / seconds:10,.0f} {seconds / 10:7.2f}×")


if __name__ == "__main__":
    main()
