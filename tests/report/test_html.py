"""`inferledger report` writes one self-contained file: the request document it embeds is exactly what
`request --json` prints, and nothing in it reaches the network."""

import json
import re
import subprocess
import sys


def run(*args):
    return subprocess.run([sys.executable, "-m", "inferledger", *map(str, args)], capture_output=True, text=True)


def embedded(text):
    match = re.search(r'<script type="application/json" id="inferledger-data">(.*?)</script>', text, flags=re.S)
    return json.loads(match.group(1))


def test_report_embeds_the_request_document(tmp_path):
    path = tmp_path / "report.html"
    options = ["-m", "meta-llama/Llama-3.1-8B", "-g", "a100-sxm-80gb", "--isl", "4096", "--batch", "2"]
    result = run("report", *options, "-o", path)
    assert result.returncode == 0, result.stderr
    assert result.stdout.startswith(f"wrote {path}: meta-llama/Llama-3.1-8B on a100-sxm-80gb")
    data = embedded(path.read_text())
    assert data["document"] == json.loads(run("request", *options, "--json").stdout)
    assert [c["id"] for c in data["charts"]] == ["roofline", "memory", "latency_batch", "throughput_batch",
                                                 "latency_context", "throughput_context", "cards", "load"]


def test_report_needs_no_network(tmp_path):
    path = tmp_path / "report.html"
    assert run("report", "--params", "7e9", "-g", "h100-sxm", "-o", path).returncode == 0
    text = path.read_text()
    assert "<style>" in text and "const Charts" in text  # styles and scripts inlined
    assert not re.search(r'(src|href)\s*=\s*"(?!#)', text)  # no external script, style, image or link
    # The only URL is the SVG namespace name, an identifier that is never fetched.
    assert set(re.findall(r"https?://[^\s\"'`)]+", text)) == {"http://www.w3.org/2000/svg"}


def test_report_names_in_the_document_cannot_close_the_script(tmp_path):
    from inferledger.report.html import render_report

    document = {"model": "</script><script>alert(1)</script>", "accelerator": "x"}
    text = render_report(document, [], "inferledger report")
    assert "</script><script>alert(1)" not in text
    assert embedded(text)["document"]["model"] == document["model"]


def test_unwritable_output_is_one_line(tmp_path):
    result = run("report", "--params", "7e9", "-g", "h100-sxm", "-o", tmp_path / "no" / "such" / "r.html")
    assert result.returncode == 1
    assert result.stderr.strip().endswith("cannot write (No such file or directory)")
