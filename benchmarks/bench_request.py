"""How fast one request account is computed: in process (target ≤ 1 ms) and by the CLI from a cold start
(target ≤ 0.3 s wall on a 2-core machine), next to the bare interpreter start-up for scale.

    python benchmarks/bench_request.py [--runs 20]

Prints measurements from this run only; nothing is asserted (speed is not a test)."""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import time


def in_process(runs: int) -> tuple[float, float]:
    from inferledger.hardware import find_accelerator
    from inferledger.ledger.request import request_account
    from inferledger.model import load_model

    spec, card = load_model("meta-llama/Llama-3.1-8B"), find_accelerator("h100-sxm")
    request_account(spec, card, isl=8192, osl=512)  # warm caches (catalog, imports)
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        request_account(spec, card, isl=8192, osl=512)
        times.append(time.perf_counter() - start)
    load_times = []
    for _ in range(runs):
        start = time.perf_counter()
        load_model("meta-llama/Llama-3.1-8B")
        load_times.append(time.perf_counter() - start)
    return statistics.median(times), statistics.median(load_times)


def wall(command: list[str], runs: int) -> float:
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        subprocess.run(command, check=True, capture_output=True)
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=20)
    runs = parser.parse_args().runs
    account, load = in_process(runs * 10)
    python = wall([sys.executable, "-c", "pass"], runs)
    help_ = wall([sys.executable, "-m", "inferledger", "--help"], runs)
    request = wall([sys.executable, "-m", "inferledger", "request", "--model", "meta-llama/Llama-3.1-8B",
                    "--gpu", "h100-sxm", "--isl", "8192", "--osl", "512", "--json"], runs)
    print(f"one request account in process: {account * 1e3:.3f} ms (target <= 1 ms: {account / 1e-3:.2f}x of it)")
    print(f"load_model from the catalog:    {load * 1e3:.3f} ms")
    print(f"python -c pass:                 {python * 1e3:.0f} ms")
    print(f"inferledger --help:             {help_ * 1e3:.0f} ms ({help_ / python:.2f}x bare python)")
    print(f"inferledger request (cold):     {request * 1e3:.0f} ms ({request / python:.2f}x bare python; "
          f"target <= 300 ms: {request / 0.3:.2f}x of it)")


if __name__ == "__main__":
    main()
