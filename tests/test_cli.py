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


def test_request_json_carries_the_hand_derived_account():
    """Llama-3.1-8B on an H100 SXM, ISL 8192: prefill attention = 32 layers x 32 heads x (8192 x 8193 / 2 pairs)
    x (2 x 128 + 2 x 128) FLOP = 17.59 TFLOP; the KV cache holds (8192 + 512) x 131,072 bytes per request."""
    doc = cli_json("request", "--model", "meta-llama/Llama-3.1-8B", "--gpu", "h100-sxm", "--isl", "8192",
                   "--osl", "512")
    assert doc["prefill"]["attention_flops"] == 32 * 32 * (8192 * 8193 // 2) * 512 == 17_594_333_528_064
    assert doc["memory"]["kv_bytes_per_request"] == 8704 * 131_072
    assert doc["prefill"]["bound"] == "compute" and doc["decode"]["bound"] == "memory"
    assert doc["simplified"]["decode_token_over_prefill_token"] == pytest.approx(989.4e12 / 3.35e12)
    assert doc["warnings"] == []


def test_fit_json():
    """Llama-3.1-8B bf16 on an H100 (80 GiB) at 8K: usable 80 GiB x 0.9 = 77,309,411,328; weights 8,030,261,248 x 2;
    workspace 8192 x (4096 + 14336) x 2 + 8192 x 4096 x 2 + 128 x 128,256 x 4 = 434,765,824; reserve 1 GiB.
    Budget 59,740,381,184 bytes / (8192 x 131,072) per request = 55.6 -> 55; for 10 requests each may hold
    59,740,381,184 / 10 / 131,072 = 45,578 tokens."""
    doc = cli_json("fit", "--model", "meta-llama/Llama-3.1-8B", "--gpu", "h100-sxm", "--context", "8192",
                   "--concurrency", "10")
    assert doc["kv_budget_bytes"] == pytest.approx(59_740_381_184)
    assert doc["kv_bytes_per_request"] == 8192 * 131072
    assert doc["max_concurrency"] == 55
    assert doc["longest_context_tokens"] == 45_578
    assert doc["concurrency_fits"] is True


def test_fit_with_a_bare_parameter_count():
    """--params 7e9 on two 24 GiB cards: 14 GB of bf16 weights, 2 x 1 GiB reserve reported and subtracted."""
    doc = cli_json("fit", "--params", "7e9", "--gpu", "rtx-4090", "--gpus", "2")
    assert doc["weight_bytes"] == 14e9
    assert doc["runtime_overhead_bytes"] == 2 * 2**30
    assert doc["kv_budget_bytes"] == pytest.approx(2 * 24 * 2**30 * 0.9 - 14e9 - 2 * 2**30)
    assert doc["max_concurrency"] is None and doc["fits"] is True


def test_overhead_per_step_adds_once_per_forward_step():
    """--overhead-ms 2 adds 2 ms to the prefill step and to each of the OSL decode steps: (1 + 64) x 2 ms."""
    base = cli_json("request", "--model", "meta-llama/Llama-3.1-8B", "--gpu", "h100", "--isl", "512", "--osl", "64")
    slow = cli_json("request", "--model", "meta-llama/Llama-3.1-8B", "--gpu", "h100", "--isl", "512", "--osl", "64",
                    "--overhead-ms", "2")
    assert slow["prefill"]["seconds"] - base["prefill"]["seconds"] == pytest.approx(0.002)
    assert slow["decode"]["seconds_per_token"] - base["decode"]["seconds_per_token"] == pytest.approx(0.002)
    assert slow["total_seconds"] - base["total_seconds"] == pytest.approx(65 * 0.002)


def test_model_from_a_folder(tmp_path):
    from inferledger.model.config import CATALOG_DIR

    (tmp_path / "config.json").write_bytes((CATALOG_DIR / "openai-community--gpt2.json").read_bytes())
    assert cli_json("model", tmp_path)["params"]["total"] == 124_439_808  # GPT-2 small, published
