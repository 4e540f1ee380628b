"""The JSON API of `inferledger serve`, over a real socket: it answers exactly what the CLI prints, refuses bad
input with a 4xx and one clear line, and keeps serving afterwards."""

import http.client
import json
import socket
import subprocess
import sys
from pathlib import Path
from urllib.parse import urlsplit

import pytest

FIXTURES = Path(__file__).parent.parent / "fixtures"
LLAMA = "meta-llama/Llama-3.1-8B"


def call(url, method, path, body=b"", headers=None):
    address = urlsplit(url)
    connection = http.client.HTTPConnection(address.hostname, address.port, timeout=60)
    try:
        connection.request(method, path, body=body, headers=headers or {})
        response = connection.getresponse()
        return response.status, response.read().decode("utf-8")
    finally:
        connection.close()


def post(url, path, document):
    return call(url, "POST", path, json.dumps(document).encode(), {"Content-Type": "application/json"})


def cli(*args):
    result = subprocess.run([sys.executable, "-m", "inferledger", *map(str, args)], capture_output=True, text=True)
    assert result.returncode == 0, result.stderr
    return result.stdout


def test_request_answers_exactly_what_request_json_prints(server_url):
    fields = {"model": LLAMA, "gpu": "h100-sxm", "precision": "fp8", "kv_precision": "fp8", "isl": 8192,
              "osl": 512, "batch": 16, "context": 16384, "overhead_ms": 0.25, "gpu_memory_utilization": 0.85}
    status, text = post(server_url, "/api/request", fields)
    assert status == 200, text
    flags = [a for name, value in fields.items() for a in (f"--{name.replace('_', '-')}", value)]
    assert text == cli("request", *flags, "--json")


def test_a_layout_over_cards_answers_what_request_prints(server_url):
    fields = {"model": "meta-llama/Llama-3.1-70B", "gpu": "h100-sxm", "precision": "fp8", "tp": 2, "pp": 2,
              "isl": 2048, "osl": 128, "batch": 8}
    status, text = post(server_url, "/api/request", {**fields, "disaggregate": True})
    assert status == 200, text
    flags = [a for name, value in fields.items() for a in (f"--{name.replace('_', '-')}", value)]
    assert text == cli("request", *flags, "--disaggregate", "--json")
    assert json.loads(text)["parallel"]["layout"]["tp"] == 2


def test_bare_parameter_count(server_url):
    status, text = post(server_url, "/api/request", {"params": 7e9, "gpu": "a100-sxm-80gb"})
    assert status == 200
    assert text == cli("request", "--params", "7e9", "--gpu", "a100-sxm-80gb", "--json")


def test_uploaded_config_gives_the_numbers_of_the_file(server_url):
    path = FIXTURES / "configs" / "mistralai--Mistral-7B-v0.1.json"
    status, text = post(server_url, "/api/request", {"config": json.loads(path.read_text()), "gpu": "l40s"})
    assert status == 200, text
    served, printed = json.loads(text), json.loads(cli("request", "-m", path, "-g", "l40s", "--json"))
    served.pop("model"), printed.pop("model")  # the file's name is the CLI's label; an upload has none
    assert served == printed


def test_catalog_and_formats(server_url):
    status, text = call(server_url, "GET", "/api/models")
    assert status == 200 and LLAMA in [m["name"] for m in json.loads(text)]
    status, text = call(server_url, "GET", "/api/gpus")
    assert status == 200 and text == cli("gpus", "--json")
    status, text = call(server_url, "GET", "/api/formats")
    assert {"bf16", "fp8", "int4"} <= set(json.loads(text))


def test_charts_are_the_specs_of_the_request(server_url):
    status, text = post(server_url, "/api/charts", {"model": LLAMA, "gpu": "h100-sxm", "batch": 8})
    assert status == 200
    charts = json.loads(text)["charts"]
    assert [c["id"] for c in charts][:2] == ["roofline", "memory"]
    # NVIDIA H100 SXM: 989.4 TFLOP/s bf16 over 3.35 TB/s
    assert charts[0]["marks"][0]["value"] == pytest.approx(989.4 / 3.35)


def llama(**fields) -> bytes:
    """A request for Llama 3.1 8B on an H100 with `fields` added (None: the field left out)."""
    document = {"model": LLAMA, "gpu": "h100-sxm", **fields}
    return json.dumps({k: v for k, v in document.items() if v is not None}).encode()


BAD_REQUESTS = [
    (b'{"model": ', "not valid JSON"),
    (b"\xff\xfe", "not UTF-8"),
    (b"[1, 2]", "must be a JSON object"),
    (llama(isl=0), "isl must be between 1 and 10,485,760, got 0"),
    (llama(batch=1e300), "batch must be between 1 and 65,536"),
    (llama(batch=2.5), "batch must be a whole number"),
    (llama(osl="many"), "osl must be a whole number"),
    (llama(gpu_memory_utilization=1.5), "gpu_memory_utilization must be between 0.01 and 1"),
    (llama(overhead_ms=float("nan")), "overhead_ms must be"),
    (llama(model="/etc/passwd"), "paths on the server are not accepted"),
    (llama(model="../../etc/x"), "paths on the server are not accepted"),
    (llama(gpu="/tmp/part.yaml"), "files on the server are not accepted"),
    (llama(gpu="no-such-card"), "unknown accelerator"),
    (llama(precision="fp7"), "fp7"),
    (llama(params=7e9), "exactly one of"),
    (llama(model=None), "exactly one of"),
    (llama(gpu=None), "gpu is required"),
    (llama(path="/etc"), "unknown field(s): path"),
    (llama(model=None, config={"model_type": "llama"}), "uploaded config.json"),
    (llama(model=None, config=[1]), "config must be the JSON object"),
    (b"[" * 100_000 + b"]" * 100_000, "nested too deeply"),
    (llama(tp=3), "tp 3"),
    (llama(tp=0), "tp must be between 1 and 4,096, got 0"),
    (llama(disaggregate="yes"), "disaggregate must be true or false"),
    (llama(tp=16, gpus_per_node=8), "node"),
]


@pytest.mark.parametrize("body,message", BAD_REQUESTS, ids=lambda x: str(x)[:40])
def test_bad_input_is_a_400_with_one_line_and_the_server_keeps_serving(server_url, body, message):
    status, text = call(server_url, "POST", "/api/request", body, {"Content-Type": "application/json"})
    assert status == 400, text
    error = json.loads(text)["error"]
    assert message in error and "\n" not in error and "Traceback" not in error
    assert post(server_url, "/api/request", {"model": LLAMA, "gpu": "h100-sxm"})[0] == 200


def raw_exchange(url, head: bytes, body: bytes = b"") -> str:
    """Send a request by hand (the body may be cut short) and read the answer until the server closes."""
    address = urlsplit(url)
    with socket.create_connection((address.hostname, address.port), timeout=30) as raw:
        raw.sendall(head + body)
        answer = b""
        while chunk := raw.recv(65536):
            answer += chunk
        return answer.decode()


def test_huge_bodies_are_refused_before_they_are_read(server_url):
    # 2 MiB of JSON announced, the first 64 KiB sent: refused at once (the rest is never waited for).
    answer = raw_exchange(server_url, b"POST /api/request HTTP/1.1\r\nHost: x\r\nContent-Length: 2097152\r\n\r\n",
                          b'{"model": "' + b"x" * 65536)
    assert answer.startswith("HTTP/1.1 413") and "the limit is 1,048,576" in answer
    # 1 GiB of log announced and nothing sent.
    answer = raw_exchange(server_url, b"POST /api/diagnose HTTP/1.1\r\nHost: x\r\nContent-Length: 1073741824\r\n\r\n")
    assert answer.startswith("HTTP/1.1 413") and "the limit is 67,108,864" in answer
    assert post(server_url, "/api/request", {"model": LLAMA, "gpu": "h100-sxm"})[0] == 200


def test_a_stalled_client_does_not_block_others(server_url):
    address = urlsplit(server_url)
    with socket.create_connection((address.hostname, address.port), timeout=30) as stalled:
        stalled.sendall(b"POST /api/request HTTP/1.1\r\nHost: x\r\nContent-Length: 100\r\n\r\n{")
        assert post(server_url, "/api/request", {"model": LLAMA, "gpu": "h100-sxm"})[0] == 200


def test_routes_and_methods(server_url):
    assert call(server_url, "GET", "/api/nothing")[0] == 404
    assert call(server_url, "GET", "/../../etc/passwd")[0] == 404
    assert call(server_url, "GET", "/api/request")[0] == 405
    assert call(server_url, "DELETE", "/api/request")[0] == 405
    status, page = call(server_url, "GET", "/")
    assert status == 200 and '<script src="static/app.js">' in page
    assert call(server_url, "GET", "/static/charts.js")[0] == 200


def test_diagnose_an_uploaded_log(server_url):
    log = (FIXTURES / "logs" / "aiperf__profile-export-json-excerpt.txt").read_bytes()
    status, text = call(server_url, "POST", "/api/diagnose?model=llama-3.1-8b&gpu=h100-sxm&name=../../x.log", log)
    assert status == 200, text
    diagnosis = json.loads(text)
    # aiperf's excerpt reports TTFT 44.2 ms at 0.15 req/s: no queue, nothing full.
    assert diagnosis["verdict"] == "healthy"
    assert diagnosis["roofline"]["model"] == LLAMA
    assert diagnosis["files"][0]["path"] == ".._.._x.log"  # shown, never used as a path
    assert "inferledger-upload-" not in text


def test_diagnose_takes_the_layout_over_cards(server_url):
    log = (FIXTURES / "logs" / "aiperf__profile-export-json-excerpt.txt").read_bytes()
    status, text = call(server_url, "POST", "/api/diagnose?model=llama-3.1-8b&gpu=h100-sxm&tp=2&pp=2", log)
    assert status == 200, text
    parallel = json.loads(text)["roofline"]["parallel"]
    assert (parallel["tp"], parallel["pp"], parallel["cards"]) == (2, 2, 4)  # as `diagnose --tp 2 --pp 2`


@pytest.mark.parametrize("query,body,message", [
    ("?tp=two", b"x", "tp must be a number"),
    ("?tp=1.5", b"x", "tp must be a whole number"),
    ("?gpus=9999", b"x", "gpus must be between 1 and 4,096"),
    ("", b"", "the request body is empty"),
    ("", b"\x00\x01\x02 binary", "upload"),
    ("?model=/etc/passwd", b"x", "paths on the server are not accepted"),
    ("?gpu=../../part.json", b"x", "files on the server are not accepted"),
    ("?path=/etc", b"x", "unknown query parameter(s): path"),
])
def test_diagnose_refusals(server_url, query, body, message):
    status, text = call(server_url, "POST", f"/api/diagnose{query}", body)
    assert status == 400, text
    assert message in json.loads(text)["error"]


def test_serve_command_prints_its_loopback_address_and_answers():
    import re

    process = subprocess.Popen([sys.executable, "-m", "inferledger", "serve", "--port", "0"],
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        line = process.stdout.readline()
        match = re.fullmatch(r"inferledger serve: (http://127\.0\.0\.1:\d+)/ \(Ctrl-C to stop\)\n", line)
        assert match, line
        status, text = call(match.group(1), "GET", "/api/formats")
        assert status == 200 and "bf16" in json.loads(text)
    finally:
        process.terminate()
        process.wait(timeout=10)


def test_serve_refuses_a_port_out_of_range():
    result = subprocess.run([sys.executable, "-m", "inferledger", "serve", "--port", "70000"],
                            capture_output=True, text=True, timeout=60)
    assert result.returncode == 1
    assert result.stderr == "inferledger serve: error: --port must be between 0 and 65535, got 70000\n"


def test_report_from_the_page_embeds_the_same_document(server_url):
    import re

    fields = {"model": LLAMA, "gpu": "h100-sxm", "isl": 2048, "batch": 4}
    status, page = post(server_url, "/api/report", fields)
    assert status == 200 and page.startswith("<!doctype html>")
    data = re.search(r'<script type="application/json" id="inferledger-data">(.*?)</script>', page, flags=re.S)
    assert json.loads(data.group(1))["document"] == json.loads(post(server_url, "/api/request", fields)[1])
    assert post(server_url, "/api/report", {"gpu": "h100-sxm"})[0] == 400


def test_a_refused_body_does_not_become_the_next_request(server_url):
    # A POST to a route that does not exist, with a body that looks like a request line: the server answers 404
    # and closes, rather than reading the body as a second request on the same connection.
    smuggled = b"GET /api/gpus HTTP/1.1\r\nHost: x\r\n\r\n"
    head = f"POST /nothing HTTP/1.1\r\nHost: x\r\nContent-Length: {len(smuggled)}\r\n\r\n".encode()
    answer = raw_exchange(server_url, head, smuggled)
    assert answer.count("HTTP/1.1 ") == 1 and answer.startswith("HTTP/1.1 404")
