"""How fast the local page follows a change: the median wall time of POST /api/request and POST /api/charts
(the account, and the seven charts with their 30-odd accounts of the sweeps and the card comparison) over a
loopback socket, for a dense, an MoE and a hybrid model. Target: charts ≤ 0.5 s on a 2-core machine, so the page
keeps up with typing (it waits 250 ms after the last keystroke).

    python benchmarks/bench_page.py [--runs 7]

Prints measurements from this run only; nothing is asserted."""

from __future__ import annotations

import argparse
import http.client
import json
import statistics
import threading
import time

MODELS = ("meta-llama/Llama-3.1-8B", "deepseek-ai/DeepSeek-V3", "Qwen/Qwen3-Next-80B-A3B-Thinking")


def timed_post(port: int, path: str, body: bytes) -> float:
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=120)
    start = time.perf_counter()
    connection.request("POST", path, body=body, headers={"Content-Type": "application/json"})
    response = connection.getresponse()
    response.read()
    elapsed = time.perf_counter() - start
    connection.close()
    assert response.status == 200, response.status
    return elapsed


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=7)
    runs = parser.parse_args().runs
    from inferledger.web.server import make_server

    server = make_server("127.0.0.1", 0)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    port = server.server_address[1]
    print(f"{'model':<36} {'/api/request':>13} {'/api/charts':>12}   (median of {runs}, seconds)")
    for model in MODELS:
        body = json.dumps({"model": model, "gpu": "h200-sxm", "precision": "fp8", "isl": 4096, "osl": 512}).encode()
        timed_post(port, "/api/charts", body)  # warm: imports, catalog, calibration
        request = statistics.median(timed_post(port, "/api/request", body) for _ in range(runs))
        charts = statistics.median(timed_post(port, "/api/charts", body) for _ in range(runs))
        print(f"{model:<36} {request:>13.3f} {charts:>12.3f}")
    server.shutdown()


if __name__ == "__main__":
    main()
