"""`inferledger diagnose` on the command line: the JSON contract (verdict str, evidence and metrics), the human
report (verdict first, timeline, evidence), one-line errors with exit 1 and no traceback, and a live `--url`
scrape against a tiny Prometheus endpoint served on 127.0.0.1 by the test itself.
"""

from __future__ import annotations

import http.server
import json
import threading
from pathlib import Path

import pytest

from inferledger.cli import main

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures" / "logs"
SINGLE_DECODE = FIXTURES / "vllm__v06-single-request-decode.txt"


def run_cli(capsys, *argv):
    code = main(["diagnose", *map(str, argv)])
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def test_json_contract(capsys):
    # The project's contract check: verdict (str), evidence (list or dict), metrics (list or dict).
    code, out, err = run_cli(capsys, SINGLE_DECODE, "--json")
    assert code == 0
    document = json.loads(out)
    assert document["verdict"] == "healthy"
    assert isinstance(document["evidence"], list) and document["evidence"]
    assert isinstance(document["metrics"], dict)
    # Six 5-s windows at 41.5-41.8 tok/s (§5 #6).
    assert document["metrics"]["interval_windows"] == 6
    generation = document["metrics"]["interval"]["generation_tokens_per_second"]
    assert generation["min"] == 41.5 and generation["max"] == 41.8
    assert err == ""  # no progress bar when stderr is not a terminal


def test_human_report_starts_with_the_verdict(capsys):
    code, out, _ = run_cli(capsys, FIXTURES / "vllm__v1-single-line-prefill-heavy.txt")
    assert code == 0
    first = out.split("\n")[0]
    assert first.startswith("verdict: prefill-bound") or first.startswith("verdict: queueing")
    assert "evidence:" in out and "timeline" in out
    assert "1254.4" in out  # the prompt throughput of the window


def test_preemption_sample_says_kv(capsys):
    code, out, _ = run_cli(capsys, FIXTURES / "vllm__v05-recompute-preemption-warning.txt")
    assert code == 0
    assert out.startswith("verdict: kv-capacity")
    assert "preemption" in out


@pytest.mark.parametrize("content, expected", [
    (b"", "empty"),
    (bytes(range(256)) * 40, "binary"),
    (b"just some application log\nnothing to see\n", "no known log format"),
])
def test_bad_input_one_line_exit_1(tmp_path, capsys, content, expected):
    path = tmp_path / "input.log"
    path.write_bytes(content)
    code, out, err = run_cli(capsys, path)
    assert code == 1
    assert out == ""
    lines = err.strip().split("\n")
    assert len(lines) == 1 and expected in lines[0] and "Traceback" not in err


def test_no_file_given(capsys):
    code, _, err = run_cli(capsys)
    assert code == 1 and "log file" in err


class _Metrics(http.server.BaseHTTPRequestHandler):
    body = b""

    def do_GET(self):  # noqa: N802 (http.server's name)
        self.send_response(200)
        self.send_header("Content-Type", "text/plain; version=0.0.4")
        self.end_headers()
        self.wfile.write(self.body)

    def log_message(self, *args):
        pass


@pytest.fixture
def metrics_server():
    _Metrics.body = "\n".join([
        "# TYPE vllm:num_requests_running gauge",
        'vllm:num_requests_running{engine="0",model_name="m"} 12.0',
        "# TYPE vllm:num_requests_waiting gauge",
        'vllm:num_requests_waiting{engine="0",model_name="m"} 30.0',
        "# TYPE vllm:kv_cache_usage_perc gauge",
        'vllm:kv_cache_usage_perc{engine="0",model_name="m"} 0.97',
        "# TYPE vllm:num_preemptions_total counter",
        'vllm:num_preemptions_total{engine="0",model_name="m"} 41.0',
    ]).encode() + b"\n"
    server = http.server.HTTPServer(("127.0.0.1", 0), _Metrics)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_address[1]}/metrics"
    server.shutdown()
    server.server_close()


def test_live_url_scrape(metrics_server, capsys):
    code, out, _ = run_cli(capsys, "--url", metrics_server, "--interval", "0", "--json")
    assert code == 0
    document = json.loads(out)
    # 30 waiting at 97 % KV usage with 41 preemptions since start: KV capacity.
    assert document["verdict"] == "kv-capacity"
    assert document["files"][0]["path"] == metrics_server
    assert document["metrics"]["snapshot"]["waiting_requests"]["max"] == 30


def test_unreachable_url_is_one_line(capsys):
    code, _, err = run_cli(capsys, "--url", "http://127.0.0.1:9/metrics")
    assert code == 1 and "could not fetch" in err and len(err.strip().split("\n")) == 1


# -- standard input, pipes and FIFOs (read once), and two scrapes -------------------------------------------------
def test_stdin_gives_the_verdict_of_the_file():
    import io

    from inferledger.diagnose import diagnose_files

    data = SINGLE_DECODE.read_bytes()
    from_file = diagnose_files([SINGLE_DECODE])
    from_stdin = diagnose_files(["-"], stdin=io.BytesIO(data))
    assert from_stdin.verdict == from_file.verdict == "healthy"
    assert from_stdin.metrics["interval_windows"] == from_file.metrics["interval_windows"] == 6
    assert from_stdin.files[0]["path"] == "-" and from_stdin.files[0]["spooled"]


def test_cat_into_the_cli_through_a_real_pipe():
    import subprocess
    import sys

    data = (FIXTURES / "vllm__v1-single-line-prefill-heavy.txt").read_bytes()
    piped = subprocess.run([sys.executable, "-m", "inferledger", "diagnose", "-", "--json"], input=data,
                           capture_output=True, timeout=60, check=True)
    from_file = subprocess.run([sys.executable, "-m", "inferledger", "diagnose", "--json",
                                str(FIXTURES / "vllm__v1-single-line-prefill-heavy.txt")],
                               capture_output=True, timeout=60, check=True)
    assert json.loads(piped.stdout)["verdict"] == json.loads(from_file.stdout)["verdict"]


def test_a_fifo_is_read_once_and_does_not_hang(tmp_path):
    import os

    from inferledger.diagnose import diagnose_files

    fifo = tmp_path / "log.fifo"
    os.mkfifo(fifo)
    data = SINGLE_DECODE.read_bytes()

    def write():
        with open(fifo, "wb") as out:
            out.write(data)

    writer = threading.Thread(target=write, daemon=True)
    writer.start()
    result = {}
    reader = threading.Thread(target=lambda: result.update(diagnosis=diagnose_files([fifo])), daemon=True)
    reader.start()
    reader.join(timeout=30)
    assert not reader.is_alive(), "reading a FIFO hung"
    assert result["diagnosis"].verdict == "healthy"
    assert result["diagnosis"].metrics["interval_windows"] == 6


class _Counting(http.server.BaseHTTPRequestHandler):
    """Each scrape adds 500 generation tokens, 2000 prompt tokens and 3 preemptions since the last one."""

    scrapes = 0

    def do_GET(self):  # noqa: N802 (http.server's name)
        _Counting.scrapes += 1
        n = _Counting.scrapes
        body = "\n".join([
            'vllm:num_requests_running{model_name="m"} 8.0',
            'vllm:num_requests_waiting{model_name="m"} 0.0',
            'vllm:kv_cache_usage_perc{model_name="m"} 0.35',
            f'vllm:generation_tokens_total{{model_name="m"}} {1000 + 500 * n}.0',
            f'vllm:prompt_tokens_total{{model_name="m"}} {5000 + 2000 * n}.0',
            f'vllm:num_preemptions_total{{model_name="m"}} {3 * n}.0',
        ]) + "\n"
        self.send_response(200)
        self.end_headers()
        self.wfile.write(body.encode())

    def log_message(self, *args):
        pass


def test_url_scrapes_twice_and_reports_counter_rates():
    from inferledger.diagnose import diagnose_url

    _Counting.scrapes = 0
    server = http.server.HTTPServer(("127.0.0.1", 0), _Counting)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        diagnosis = diagnose_url(f"http://127.0.0.1:{server.server_address[1]}/metrics", interval_seconds=0.2)
    finally:
        server.shutdown()
        server.server_close()
    assert _Counting.scrapes == 2
    info = diagnosis.files[0]
    seconds = info["interval_seconds"]
    assert seconds >= 0.2
    # Between the scrapes: +500 generation tokens, +2000 prompt tokens, +3 preemptions.
    assert info["rates"]["generation_tokens_per_second"] == pytest.approx(500 / seconds)
    assert info["rates"]["prompt_tokens_per_second"] == pytest.approx(2000 / seconds)
    assert diagnosis.metrics["interval_windows"] == 1
    assert diagnosis.events["preemptions"] == 3
    assert diagnosis.verdict == "kv-capacity"  # preemptions within the window, not an old counter
