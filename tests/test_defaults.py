"""One default per concept: every verb and the library read it from inferledger.defaults, so leaving a flag out
means the same as passing the documented default, on every verb that takes it. One test per concept."""

import json
from pathlib import Path

import pytest

from inferledger import defaults
from inferledger.cli import build_parser, main

LLAMA = "meta-llama/Llama-3.1-8B"
FP8_CHECKPOINT = "Qwen/Qwen3-32B-FP8"  # quantization_config: fp8, weight_block_size [128, 128]


def run_json(capsys, *args):
    code = main([*map(str, args), "--json"])
    out, _ = capsys.readouterr()
    assert code == 0
    return json.loads(out)


def test_weight_format_is_the_checkpoints_on_every_verb(capsys, tmp_path):
    """An fp8 checkpoint is accounted in fp8 (block 128x128) by model, request, fit, tokens and diagnose."""
    want = "fp8 (block 128x128)"
    assert run_json(capsys, "model", FP8_CHECKPOINT)["precision"] == want
    assert run_json(capsys, "request", "--model", FP8_CHECKPOINT, "--gpu", "h100")["precision"] == want
    assert run_json(capsys, "fit", "--model", FP8_CHECKPOINT, "--gpu", "h100")["precision"] == want
    text = tmp_path / "prompt.txt"
    text.write_text("How many requests fit on one card?")
    tokens = run_json(capsys, "tokens", text, "--tokenizer", "cl100k_base", "--model", FP8_CHECKPOINT, "--gpu", "h100")
    assert tokens["cost"]["precision"] == want
    log = Path(__file__).parent / "fixtures" / "logs" / "vllm__v02-llm-engine-stats-line.txt"
    diagnosis = run_json(capsys, "diagnose", log, "--model", FP8_CHECKPOINT, "--gpu", "h100")
    assert diagnosis["roofline"]["precision"] == want


def test_kv_format_follows_the_weights_on_every_verb(capsys):
    """fp32 weights cache fp32: Llama-3.1-8B holds 32 layers x 2 (K, V) x 8 heads x 128 x 4 bytes = 262,144 per
    token, in model, fit and request alike; a quantized checkpoint caches bf16 (2 bytes: 131,072)."""
    assert run_json(capsys, "model", LLAMA, "--precision", "fp32")["kv_bytes_per_token"] == 262_144
    assert run_json(capsys, "fit", "--model", LLAMA, "--gpu", "h100", "--precision", "fp32")[
        "kv_bytes_per_token"] == 262_144
    assert run_json(capsys, "request", "--model", LLAMA, "--gpu", "h100", "--precision", "fp32")[
        "memory"]["kv_bytes_per_token"] == 262_144
    assert run_json(capsys, "fit", "--model", LLAMA, "--gpu", "h100", "--precision", "int4")[
        "kv_bytes_per_token"] == 131_072


def test_context_default(capsys):
    """No lengths: 8192 tokens of context for model and fit; request sizes memory for its own ISL + OSL."""
    assert defaults.CONTEXT_TOKENS == 8192
    assert run_json(capsys, "model", LLAMA)["context_tokens"] == defaults.CONTEXT_TOKENS
    assert run_json(capsys, "fit", "--model", LLAMA, "--gpu", "h100")["context_tokens"] == defaults.CONTEXT_TOKENS
    request = run_json(capsys, "request", "--model", LLAMA, "--gpu", "h100")
    assert request["memory"]["context_tokens"] == defaults.ISL_TOKENS + defaults.OSL_TOKENS == 1280


def test_isl_and_osl_defaults_mean_the_same_on_every_verb(capsys):
    """fit --isl 2000 alone sizes for 2000 + the default OSL, as request --isl 2000 does."""
    fit = run_json(capsys, "fit", "--model", LLAMA, "--gpu", "h100", "--isl", "2000")
    request = run_json(capsys, "request", "--model", LLAMA, "--gpu", "h100", "--isl", "2000")
    assert fit["context_tokens"] == request["memory"]["context_tokens"] == 2000 + 256
    assert request["workload"] == {"isl": 2000, "osl": defaults.OSL_TOKENS, "batch": defaults.BATCH}


def test_gpu_memory_utilization_default(capsys):
    fit = run_json(capsys, "fit", "--model", LLAMA, "--gpu", "h100")
    request = run_json(capsys, "request", "--model", LLAMA, "--gpu", "h100")
    assert fit["gpu_memory_utilization"] == request["memory"]["gpu_memory_utilization"] == 0.9
    assert fit["usable_bytes"] == 80 * 2**30 * 0.9


def test_kv_block_size_default():
    """vLLM's --block-size default (16 tokens): a log's block count becomes tokens with it."""
    from inferledger.diagnose import roofline

    assert defaults.KV_BLOCK_TOKENS == 16 and roofline.KV_BLOCK_TOKENS is defaults.KV_BLOCK_TOKENS


@pytest.mark.parametrize("verb, flag, value", [
    ("request", "--isl", defaults.ISL_TOKENS), ("request", "--osl", defaults.OSL_TOKENS),
    ("request", "--gpu-memory-utilization", defaults.GPU_MEMORY_UTILIZATION),
    ("fit", "--gpu-memory-utilization", defaults.GPU_MEMORY_UTILIZATION),
    ("fit", "--context", defaults.CONTEXT_TOKENS), ("model", "--context", defaults.CONTEXT_TOKENS),
    ("tokens", "--osl", defaults.OSL_TOKENS),
])
def test_help_texts_state_the_shared_default(verb, flag, value):
    parser = build_parser()
    sub = next(a for a in parser._subparsers._group_actions[0].choices.items() if a[0] == verb)[1]
    action = next(a for a in sub._actions if flag in a.option_strings)
    assert f"{value}" in action.help
