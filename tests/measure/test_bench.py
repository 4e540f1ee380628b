"""`inferledger bench` end to end: the documented JSON keys, and the one physical claim a test may make about
timings: the floor, computed from this machine's own measured ceilings, is never above what the machine did.
(Speed targets live in benchmarks/, not here.)"""

import json
import subprocess
import sys

import pytest


def bench(*args):
    return subprocess.run([sys.executable, "-m", "inferledger", "bench", *args], capture_output=True, text=True)


@pytest.fixture(scope="module")
def small():
    result = bench("--size", "small", "--json")
    assert result.returncode == 0, result.stderr
    assert result.stderr == ""  # no progress line when stderr is not a terminal
    return json.loads(result.stdout)


def test_json_keys(small):
    ceilings = small["ceilings"]
    assert {"fp32", "fp64"} <= set(ceilings["flops_per_second_by_dtype"])
    assert ceilings["memory_bandwidth_bytes_per_second"] > 0
    assert 0 < ceilings["call_latency_seconds"] < 1e-3
    assert set(small["prefill"]) == {"measured_seconds", "floor_seconds", "realistic_seconds"}
    assert set(small["decode"]) == {"measured_seconds_per_token", "floor_seconds_per_token",
                                    "realistic_seconds_per_token"}
    model = small["model"]
    assert model["weight_bytes"] == 4 * model["parameters"]
    # Decode must stream from DRAM: weights past 4x the last-level cache.
    assert model["weight_bytes"] >= 4 * ceilings["last_level_cache_bytes"]


def test_floor_is_never_above_measured(small):
    assert small["prefill"]["floor_seconds"] <= small["prefill"]["measured_seconds"]
    assert small["decode"]["floor_seconds_per_token"] <= small["decode"]["measured_seconds_per_token"]


@pytest.mark.parametrize("args, message", [
    (["--size", "huge"], "unknown size 'huge'; use small or medium"),
    (["--model", "deepseek-ai/DeepSeek-V3"], "bench runs dense llama, qwen2, qwen3 models"),
    (["--model", "no-such-model-anywhere"], "unknown model 'no-such-model-anywhere'"),
    (["--backend", "jax"], "unknown backend 'jax'; use numpy or torch"),
    (["--device", "cuda"], "the numpy backend runs on the CPU only"),
])
def test_bad_input_is_one_line(args, message):
    result = bench(*args)
    assert result.returncode == 1
    assert result.stdout == ""
    assert len(result.stderr.strip().splitlines()) == 1
    assert message in result.stderr


def test_torch_backend_without_torch_is_one_line():
    try:
        import torch  # noqa: F401
        pytest.skip("torch is installed")
    except ImportError:
        pass
    result = bench("--backend", "torch")
    assert result.returncode == 1
    assert result.stderr.strip() == ("inferledger bench: error: --backend torch needs PyTorch: "
                                     "pip install 'inferledger[torch]' (or use --backend numpy)")
