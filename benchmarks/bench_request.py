"""How fast one request account is computed: in process (target ≤ 1 ms) and by the CLI from a cold start
(target ≤ 0.15 s median wall on a 2-core machine), next to the bare interpreter start-up for scale.

    python benchmarks/bench_request.py [--runs 21]

The cold CLI is timed twice: with the package's bytecode cached (as `pip install` leaves it; compiled first here)
and with none for the package (a copy of its sources with PYTHONDONTWRITEBYTECODE=1: every one of its modules is
compiled on every start, as in an editable install where bytecode is never written). Prints measurements from this run only; nothing is asserted."""

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


def wall(command: list[str], runs: int, env: dict | None = None) -> float:
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        subprocess.run(command, check=True, capture_output=True, env=env)
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=21)
    runs = parser.parse_args().runs
    import compileall
    import os
    import tempfile

    import inferledger

    compileall.compile_dir(os.path.dirname(inferledger.__file__), quiet=1)
    account, load = in_process(runs * 10)
    python = wall([sys.executable, "-c", "pass"], runs)
    help_ = wall([sys.executable, "-m", "inferledger", "--help"], runs)
    command = [sys.executable, "-m", "inferledger", "request", "--model", "meta-llama/Llama-3.1-8B",
               "--gpu", "h100-sxm", "--isl", "8192", "--osl", "512", "--json"]
    request = wall(command, runs)
    with tempfile.TemporaryDirectory() as copy:
        import shutil

        shutil.copytree(os.path.dirname(inferledger.__file__), os.path.join(copy, "inferledger"),
                        ignore=shutil.ignore_patterns("__pycache__"))
        uncached = wall(command, runs, {**os.environ, "PYTHONPATH": copy, "PYTHONDONTWRITEBYTECODE": "1"})
    print(f"one request account in process: {account * 1e3:.3f} ms (target <= 1 ms: {account / 1e-3:.2f}x of it)")
    print(f"load_model from the catalog:    {load * 1e3:.3f} ms")
    print(f"python -c pass:                 {python * 1e3:.0f} ms")
    print(f"inferledger --help:             {help_ * 1e3:.0f} ms ({help_ / python:.2f}x bare python)")
    print(f"inferledger request (cold):     {request * 1e3:.0f} ms ({request / python:.2f}x bare python; "
          f"target <= 150 ms: {request / 0.15:.2f}x of it)")
    print(f"  no bytecode for the package:  {uncached * 1e3:.0f} ms ({uncached / python:.2f}x bare python)")


if __name__ == "__main__":
    main()
