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
    code, out, _ = run_cli(capsys, "--url", metrics_server, "--json")
    assert code == 0
    document = json.loads(out)
    # 30 waiting at 97 % KV usage with 41 preemptions since start: KV capacity.
    assert document["verdict"] == "kv-capacity"
    assert document["files"][0]["path"] == metrics_server
    assert document["metrics"]["snapshot"]["waiting_requests"]["max"] == 30


def test_unreachable_url_is_one_line(capsys):
    code, _, err = run_cli(capsys, "--url", "http://127.0.0.1:9/metrics")
    assert code == 1 and "could not fetch" in err and len(err.strip().split("\n")) == 1
