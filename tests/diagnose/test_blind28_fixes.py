"""The general fixes of blind round 28 (tests/fixtures/blind28_logs): MLC's benchmark.py line, optimum-benchmark's
inference log lines and TensorRT-Edge-LLM's profile summary. Expected figures are the excerpts' numbers."""

from __future__ import annotations

from pathlib import Path

import pytest

from inferledger.diagnose.read import read_records

ROUND = Path(__file__).resolve().parent.parent / "fixtures" / "blind28_logs"


def test_mlc_benchmark_lines():
    user, reference = read_records(ROUND / "mlcjetson__benchmark-orin-llama2-7b-decode-19.3-vs-42.9.txt")
    assert user.metrics == {"prefill_seconds": 0.081, "prompt_tokens_per_second": 197.0, "decode_seconds": 6.632,
                            "generation_tokens_per_second": 19.3, "tpot_seconds": pytest.approx(1 / 19.3),
                            "input_tokens": 16, "output_tokens": 128}
    assert "input_tokens" not in reference.metrics and reference.metrics["generation_tokens_per_second"] == 42.9


def test_optimum_benchmark_lines(tmp_path):
    (run,) = read_records(ROUND / "optimumbenchmark__trt-llm-forward-12ms-82-samples-s.txt")
    assert run.metrics == {"ttft_seconds_mean": pytest.approx(0.0122)}  # samples/s of forward passes: not a token rate
    path = tmp_path / "two.log"  # two runs, each with its generation numbers
    path.write_text("[x][inference][INFO] -    + Forward pass latency: 2.00e-02 (s)\n"
                    "[x][inference][INFO] -    + Generation pass latency: 2.50e+00 (s)\n"
                    "[x][inference][INFO] -    + Generation throughput: 40.00 (tokens/s)\n"
                    "[x][inference][INFO] -    + Forward pass latency: 3.00e-02 (s)\n", encoding="utf-8")
    first, second = read_records(path)
    assert first.metrics == {"ttft_seconds_mean": 0.02, "e2e_seconds_mean": 2.5, "output_tokens_per_second": 40.0}
    assert second.metrics == {"ttft_seconds_mean": 0.03}


def test_tensorrt_edge_llm_profile():
    (request,) = read_records(ROUND / "trtedgellm__thor-qwen25vl-3b-prefill-8277-gen-32.8-tok-s.txt")
    assert request.metrics["input_tokens"] == 512 and request.metrics["output_tokens"] == 120
    assert request.metrics["prefill_seconds"] == pytest.approx(0.0618572)
    assert request.metrics["tpot_seconds"] == pytest.approx(0.0304815)
    assert request.metrics["decode_seconds"] == pytest.approx(0.0304815 * 120)
    assert request.metrics["generation_tokens_per_second"] == 32.8
