"""Checks the `inferledger gpus` verb end to end through inferledger.cli.main.

Sound because the checks are about the contract, not the tool's own formatting: --json must parse and carry the
datasheet figure written here (H100 SXM bf16 989.4e12 dense), and a bad name must exit 1 with exactly one line on
stderr and no traceback, as errors.py promises.
"""

import json
import subprocess
import sys

from inferledger.cli import main


def test_gpus_json_lists_catalog(capsys):
    assert main(["gpus", "--json"]) == 0
    parts = json.loads(capsys.readouterr().out)
    assert isinstance(parts, list) and len(parts) >= 18
    by_name = {p["name"]: p for p in parts}
    assert by_name["h100-sxm"]["peak_flops_per_second_by_dtype"]["bf16"] == 989.4e12
    assert all(p["sources"] for p in parts)


def test_gpus_json_one_part(capsys):
    assert main(["gpus", "a100 80gb", "--json"]) == 0
    part = json.loads(capsys.readouterr().out)
    assert part["name"] == "a100-sxm-80gb"
    assert round(part["flops_per_byte_by_dtype"]["bf16"]) == 153  # 312e12 / 2039e9


def test_gpus_table_and_detail(capsys):
    assert main(["gpus"]) == 0
    table = capsys.readouterr().out
    assert "h100-sxm" in table and "mi300x" in table
    assert main(["gpus", "h100"]) == 0
    detail = capsys.readouterr().out
    assert "sources:" in detail and "https://" in detail


def test_gpus_unknown_name_exits_1_with_one_line(capsys):
    assert main(["gpus", "nope"]) == 1
    captured = capsys.readouterr()
    assert captured.out == ""
    lines = captured.err.strip().splitlines()
    assert len(lines) == 1 and "nope" in lines[0] and "Traceback" not in captured.err


def test_gpus_ambiguous_name_subprocess():
    result = subprocess.run([sys.executable, "-m", "inferledger", "gpus", "A100"],
                            capture_output=True, text=True, timeout=60)
    assert result.returncode == 1
    assert "Traceback" not in result.stderr
    assert len(result.stderr.strip().splitlines()) == 1 and "ambiguous" in result.stderr
