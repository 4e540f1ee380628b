"""Blind rounds 277 on: the general fixes of the seventeenth session. Expected figures are worked out here."""

from __future__ import annotations

from pathlib import Path

import pytest
from blind_helpers import rules

from inferledger.diagnose import diagnose_files
from inferledger.diagnose.parsers import bench_clients, vllm_offline
from inferledger.diagnose.read import LogFile
from inferledger.diagnose.records import Record

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures"


def _records(path, parser) -> list:
    return [item for item in parser.parse(LogFile.open(path).lines()) if isinstance(item, Record)]


def test_inference_benchmark_averages_include_the_wait_and_the_command_states_the_offered_rate():
    # AI-Hypercomputer/inference-benchmark#24: `--request-rate=10` on the command line above the block, averages
    # per request and per output token in milliseconds, "(includes waiting time on server)"; "weighted" names the
    # aggregate over the served models, no model.
    path = FIXTURES / "blind282_logs" / "inferencebenchmark__vllm-llama2-7b-sharegpt-rate-10-ignore-eos-result.txt"
    (record,) = _records(path, bench_clients)
    metrics = record.metrics
    assert metrics["request_rate_per_second"] == 10
    assert metrics["e2e_seconds_mean"] == pytest.approx(39549.75 / 1000)
    assert metrics["e2e_per_output_token_seconds_mean"] == pytest.approx(443.50 / 1000)
    assert metrics["e2e_per_token_seconds_mean"] == pytest.approx(0.08)
    assert metrics["request_throughput_per_second"] == pytest.approx(48.09 / 60)
    assert "model" not in record.labels
    # 48.09 / 60 = 0.80 req/s served of 10 offered: the rest waited.
    diagnosis = diagnose_files([path])
    assert diagnosis.verdict == "queueing"


def _offline(tmp_path, command: str, throughput: str) -> Record:
    path = tmp_path / "throughput.log"
    path.write_text(command + "\n" + throughput + "\n")
    (record,) = _records(path, vllm_offline)
    return record


def test_benchmark_throughputs_prompt_count_from_its_command(tmp_path):
    # 2.00 req/s × (128 + 512) tokens = 1,280 total tok/s and 2.00 × 512 = 1,024 output tok/s, as printed: the
    # command's lengths are this run's, so its 64 prompts are the run's requests.
    command = "python benchmarks/benchmark_throughput.py --input-len 128 --output-len 512 --num-prompts 64 --model m"
    line = "Throughput: 2.00 requests/s, 1280.00 total tokens/s, 1024.00 output tokens/s"
    metrics = _offline(tmp_path, command, line).metrics
    assert metrics["completed_requests"] == 64
    assert (metrics["mean_input_tokens"], metrics["mean_output_tokens"]) == (128, 512)
    # Four sequences a prompt: the engine's batch is not the prompts' count.
    assert "completed_requests" not in _offline(tmp_path, command + " --n 4", line).metrics
    # A printed output rate the lengths do not give (2.00 × 1 ≠ 1,024): the command is another run's.
    other = command.replace("--output-len 512", "--output-len 1").replace("--input-len 128", "--input-len 639")
    metrics = _offline(tmp_path, other, line).metrics
    assert "completed_requests" not in metrics and "mean_output_tokens" not in metrics


def test_a_prefill_row_with_no_prompt_length_is_no_queue():
    # kvcache-ai/ktransformers#1914: one stream per column, the prompt's length only in the column's title. At 8K the
    # 2,759 ms first token is 7,678 tokens ÷ 2,971.2 prefill tok/s = 2.58 s of prefill: its own prompt, no wait. The
    # table's input rate says the prompt was measured, so TTFT ≫ TPOT is no evidence of a queue.
    path = FIXTURES / "blind277_logs" / \
        "ktransformers__kt-kernel-sglang-8x5090-epyc-9355-qwen3-30b-a3b-bf16-prompt-length-table.txt"
    diagnosis = diagnose_files([path])
    assert "summary-ttft-over-tpot" not in rules(diagnosis)
    assert diagnosis.verdict != "queueing"


def test_a_runners_cache_sized_by_its_context_is_no_shortage():
    # ollama/ollama#10810: ollama sized the KV cache for its context (memory.required.kv 752 MiB = 0.73 GiB) beside
    # 132.3 GiB of weights, 0.55 % of them, under the 1 % that reads vLLM's leftover memory as a starved cache. Here
    # the small cache is a short context; what the line shows is 65 of 95 layers on the GPUs, the rest on the CPU.
    path = FIXTURES / "blind281_logs" / "ollama__qwen3-235b-five-24gb-gpus-offload-65-of-95-layers-journal.txt"
    diagnosis = diagnose_files([path])
    assert "state-kv-memory-small" not in rules(diagnosis)
    assert diagnosis.verdict == "decode-bound"
