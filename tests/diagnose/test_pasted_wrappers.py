"""What a person pasting a log, or the deployment around the engine, wraps around it changes no reading: each real
excerpt below, quoted as a reply quotes it (`> ` before every line), stamped by docker, prefixed by compose over
that, or coloured, gives the reading of the excerpt as it is, evidence and numbers (a metamorphic check: the expected value is the
tool's reading of the unwrapped file, which the blind rounds' tables check on their own)."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from inferledger.diagnose import diagnose_files
from inferledger.diagnose.accumulate import Accumulator
from inferledger.diagnose.records import Record
from inferledger.diagnose.rules import NO_HARDWARE
from inferledger.diagnose.rules_requests import request_findings

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures"


def _wrapped(source: Path, target: Path, prefix: str, colour: bool = False) -> Path:
    """`prefix` before every line of the excerpt; "{n}" in it is the line's number in the file (grep -n)."""
    lines = source.read_text(encoding="utf-8").split("\n")
    head = 0
    while head < len(lines) and lines[head].startswith("# "):  # the fixture's own header stays as it is
        head += 1
    body = [prefix.format(n=number) + line if line else line for number, line in enumerate(lines[head:], head + 1)]
    if colour:  # the level coloured as Python's and Rust's coloured formatters print it
        body = [line.replace("INFO", "\x1b[32mINFO\x1b[0m") for line in body]
    target.write_text("\n".join(lines[:head] + body), encoding="utf-8")
    return target


@pytest.mark.parametrize("name", [
    "blind4_logs/sglang__bench-serving-vision-768-one-token-outputs.txt",  # a bench summary block
    "blind42_logs/sglang__gb10-ling-flash-mxfp4-c1-c16-ttft-2s-to-71s.txt",  # a Markdown table
    "blind5_logs/vllm__v1-2025-kv-99-running-34-waiting-18-to-40-wrapped.txt",  # docker-stamped stats lines, wrapped
    "blind6_logs/ollama__verbose-gemma2-27b-growing-context-37-to-17-tok-s.txt",  # ollama --verbose
    "blind2_logs/llamabench__qwen3-0.6b-f16-metal.txt",  # llama-bench
])
@pytest.mark.parametrize("prefix", ["> ", ">> "])
def test_a_quoted_excerpt_reads_as_the_excerpt(tmp_path, name, prefix):
    source = FIXTURES / name
    quoted = _wrapped(source, tmp_path / source.name, prefix)
    assert _reading(quoted) == _reading(source)


@pytest.mark.parametrize(("name", "prefix", "colour"), [
    # wrapped slog lines: docker's stamp takes one space, the continuation's own indentation stays
    ("blind8_logs/ollama__slog-offload-24-of-65-layers-ctx-128k-kv-31g.txt", "2025-06-01T10:00:00.123456789Z ", False),
    # compose's prefix over a Go logger's stamp: both are stripped
    ("blind4_logs/loadtest__vllm-conc1-conc5-tiny-requests.txt", "bench-1  | ", False),
    # colour inside the marker the block scan looks for (`LMCache INFO: Stored`)
    ("blind17_logs/lmcache__stored-1024-tokens-3.9s-to-0.14s.txt", "", True),
])
def test_a_deployment_wrapped_excerpt_reads_as_the_excerpt(tmp_path, name, prefix, colour):
    source = FIXTURES / name
    wrapped = _wrapped(source, tmp_path / source.name, prefix, colour)
    assert _reading(wrapped) == _reading(source)


def _reading(path: Path) -> str:
    """The whole diagnosis as JSON, less what names the file (its path, its size with the wrapping)."""
    document = diagnose_files([path]).to_dict()
    document.pop("files")
    return json.dumps(document, sort_keys=True).replace(str(path), "FILE")


@pytest.mark.parametrize("name", [
    "blind5_logs/vllm__v1-2025-kv-99-running-34-waiting-18-to-40-wrapped.txt",  # docker-stamped stats lines, wrapped
    "blind6_logs/ollama__verbose-gemma2-27b-growing-context-37-to-17-tok-s.txt",  # ollama --verbose
    "blind42_logs/sglang__gb10-ling-flash-mxfp4-c1-c16-ttft-2s-to-71s.txt",  # a Markdown table
    "logs/sglang__prometheus-v051-exposition.txt",  # a Prometheus exposition (its readers anchor at the line start)
])
@pytest.mark.parametrize("prefix", ["    ", "\t", "{n}:", "logs/vllm-0.log:"])
def test_a_searched_or_indented_excerpt_reads_as_the_excerpt(tmp_path, name, prefix):
    # an indented Markdown code block, `grep -n`, grep over several files: the prefix on every line is found in the
    # head and taken off each line before any reader sees it
    source = FIXTURES / name
    assert _reading(_wrapped(source, tmp_path / source.name, prefix)) == _reading(source)


@pytest.mark.parametrize(("name", "spacing"), [
    # a llama-bench table copied from a web page or a chat app: its padding turns into no-break spaces
    ("blind2_logs/llamabench__qwen3-0.6b-f16-metal.txt", ("  ", "\xa0 ")),
    # a JSON reply with no-break spaces for its indentation
    ("blind5_logs/ollama__api-generate-json-gemma2-9b-192-tokens-3.2s.txt", ("  ", "\xa0\xa0")),
    # a space-aligned table copied from a spreadsheet: its columns a tab apart
    ("blind7_logs/custom__lattice-vs-ollama-vs-mlx-1k-ctx-prefill-99-tok-s.txt", (r" {2,}", "\t")),
    # the tgi-gaudi client's `Performance  summary` title with its two spaces collapsed to one (rendered text)
    ("found_logs/tgigaudi__run-generation-performance-summary-throughput-zero.txt", (r" {2,}", " ")),
])
def test_respaced_excerpt_reads_as_the_excerpt(tmp_path, name, spacing):
    source = FIXTURES / name
    lines = source.read_text(encoding="utf-8").split("\n")
    pattern, replacement = spacing
    respaced = tmp_path / source.name
    respaced.write_text("\n".join(line if line.startswith("# ") else re.sub(pattern, replacement, line)
                                  for line in lines), encoding="utf-8")
    assert _reading(respaced) == _reading(source)


def test_a_prefix_of_the_log_itself_is_kept(tmp_path):
    from inferledger.diagnose.read import LogFile

    # a year at the start of every line is no grep line number (it does not increase), an engine's own stamp stays
    stamped = tmp_path / "stamped.log"
    stamped.write_text("".join(f"2025-06-01 10:00:0{second},123 - INFO - step {second}\n" for second in range(5)))
    assert LogFile.open(stamped).paste_prefix is None
    # lines indented by one space only, or not all of them, keep their indentation
    ragged = tmp_path / "ragged.log"
    ragged.write_text("    a: 1\n    b: 2\nc: 3\n    d: 4\n")
    assert LogFile.open(ragged).paste_prefix is None


def test_no_warm_up_against_later_requests_with_no_per_token_time():
    # Two requests: the first at 57 ms a token, the second printing 0 (a placeholder): no cold start can be measured
    # against 0 (this divided by zero when a quoted bench summary was read as two requests).
    acc = Accumulator()
    acc.add(Record("request", "test", 1, {"tpot_seconds": 0.057, "output_tokens": 100}))
    acc.add(Record("request", "test", 2, {"tpot_seconds": 0.0, "output_tokens": 100}))
    findings, checks, notes = [], [], []
    request_findings(acc, findings, checks, notes, NO_HARDWARE)
    assert not any("cold start" in note for note in notes)


def test_whole_blocks_read_as_they_are_unless_a_line_has_a_deployment_prefix(tmp_path):
    # llama-server's own clock (`16.42.988.854`) and its ` | ` between fields are the engine's, kept; a compose prefix
    # or a docker stamp on a later line of the same block is taken off that line.
    from inferledger.diagnose.read import LogFile

    own = ["16.44.049.633 I slot print_timing: id  3 | task 1941 | prompt eval time =     210.02 ms",
           "slot update_slots: id  3 | task 1941 | new prompt, n_ctx_slot = 32768"]
    path = tmp_path / "server.log"
    path.write_text("\n".join(own + ["llama-1  | srv  update_slots: all slots are idle",
                                     "2026-05-12T08:01:39.331095044Z srv  update_slots: all slots are idle"]) + "\n")
    assert [text for _number, text in LogFile.open(str(path)).lines()] == own + ["srv  update_slots: all slots are idle"] * 2
