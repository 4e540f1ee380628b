"""Where one machine stops being enough for the simulator: time and peak memory of one process as the trace grows
(Llama-3.1-8B fp8 on an H200, chat-like lognormal lengths at 150 requests/s, a replica at or past its capacity), and the per-request
cost that extrapolates to a fleet-sized trace. Each size runs in a fresh process so peak memory is its own.
Prints measurements from this run only.

    python benchmarks/bench_scale.py [--sizes 100000,300000,1000000]
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import subprocess
import sys

CHILD = """
import json, resource, sys, time
from inferledger.hardware import find_accelerator
from inferledger.model import load_model
from inferledger.simulate import simulate
from inferledger.workload import synthetic_trace
n = int(sys.argv[1])
spec, card = load_model("meta-llama/Llama-3.1-8B"), find_accelerator("h200-sxm")
base = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
start = time.perf_counter()
trace = synthetic_trace(n, "lognormal:256,1.0", "lognormal:200,1.0", rate=150, seed=1)
result = simulate(spec, card, trace, precision="fp8", kv_precision="fp8")
seconds = time.perf_counter() - start
peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
print(json.dumps({"seconds": seconds, "peak_kib": peak, "base_kib": base, "steps": result.metrics["steps"],
                  "simulated_seconds": result.metrics["duration_seconds"]}))
"""


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="100000,300000,1000000")
    sizes = [int(s) for s in parser.parse_args().sizes.split(",")]
    print(f"machine: {platform.processor() or platform.machine()}, {os.cpu_count()} cores, Python "
          f"{platform.python_version()}; one process per size")
    print(f"{'requests':>10s} {'seconds':>8s} {'requests/s':>11s} {'peak MiB':>9s} {'KiB/request':>12s} "
          f"{'simulated h':>12s} {'sim/wall':>9s}")
    for n in sizes:
        out = subprocess.run([sys.executable, "-c", CHILD, str(n)], capture_output=True, text=True, check=True)
        r = json.loads(out.stdout)
        per_request = (r["peak_kib"] - r["base_kib"]) / n
        print(f"{n:10,} {r['seconds']:8.1f} {n / r['seconds']:11,.0f} {r['peak_kib'] / 1024:9,.0f} "
              f"{per_request:12.2f} {r['simulated_seconds'] / 3600:12.2f} {r['simulated_seconds'] / r['seconds']:8,.0f}×")


if __name__ == "__main__":
    main()
