"""The command line as a user meets it: every verb has help, --json prints only JSON with the documented keys,
and the numbers it carries are the library's (checked against hand arithmetic where the issue names a figure)."""

import json
import subprocess
import sys

import pytest

from inferledger.cli import VERBS, build_parser


def cli_json(*args):
    result = subprocess.run([sys.executable, "-m", "inferledger", *map(str, args), "--json"],
                            capture_output=True, text=True)
    assert result.returncode == 0, result.stderr
    return json.loads(result.stdout)


def test_every_verb_has_help_and_is_in_the_readme():
    from pathlib import Path

    readme = (Path(__file__).parent.parent / "README.md").read_text()
    parser = build_parser()
    choices = parser._subparsers._group_actions[0].choices
    for verb in choices:
        assert verb in VERBS
        assert choices[verb].description
        assert f"inferledger {verb}" in readme, verb


def test_model_json_keys():
    doc = cli_json("model", "meta-llama/Llama-3.1-8B", "--kv-precision", "bf16")
    assert doc["params"]["total"] == 8_030_261_248
    assert doc["params"]["active"] == 8_030_261_248
    assert sum(doc["params"]["by_component"].values()) == doc["params"]["total"]
    assert doc["weight_bytes"]["bf16"] == 8_030_261_248 * 2
    assert doc["kv_bytes_per_token"] == 2 * 32 * 8 * 128 * 2


def test_models_lists_the_catalog():
    doc = cli_json("models")
    names = {entry["name"] for entry in doc}
    assert {"meta-llama/Llama-3.1-8B", "deepseek-ai/DeepSeek-V3", "openai/gpt-oss-20b"} <= names
    assert not [entry for entry in doc if "error" in entry]


@pytest.mark.parametrize("key", ["prefill", "decode", "memory", "simplified"])
def test_request_json_sections(key):
    doc = cli_json("request", "--model", "meta-llama/Llama-3.1-8B", "--gpu", "h100-sxm", "--isl", "8192",
                   "--osl", "512")
    assert isinstance(doc[key], dict)
    assert doc["total_seconds"] == pytest.approx(doc["prefill"]["seconds"] + doc["decode"]["seconds"])


def test_fit_json():
    doc = cli_json("fit", "--model", "meta-llama/Llama-3.1-8B", "--gpu", "h100-sxm", "--context", "8192",
                   "--concurrency", "10")
    assert doc["kv_bytes_per_request"] == 8192 * 131072
    assert doc["max_concurrency"] == int(doc["kv_budget_bytes"] // doc["kv_bytes_per_request"])
    assert doc["longest_context_tokens"] == int(doc["kv_budget_bytes"] / 10 // 131072)


def test_model_from_a_folder(tmp_path):
    from inferledger.model.config import CATALOG_DIR

    (tmp_path / "config.json").write_bytes((CATALOG_DIR / "openai-community--gpt2.json").read_bytes())
    assert cli_json("model", tmp_path)["params"]["total"] == 124_439_808  # GPT-2 small, published
