"""The second edition's readers on real samples found in public issues (tests/fixtures/found_logs, each with its
source on line 1): JetStream `Key: value unit` summaries, LMDeploy profiler text, the tgi-gaudi client's
performance summary, guidellm 0.1 rich tables, llama-bench with padded right-aligned headers, llama-server
decode-progress lines, and TGI span fragments. The numbers checked are the samples' own, with the unit conversion
written out (ms / 1000 -> s); the verdicts are the readings written in each test."""

from __future__ import annotations

from pathlib import Path

import pytest

from inferledger.diagnose import diagnose_files
from inferledger.diagnose.read import LogFile, detect_formats, iter_records

FOUND = Path(__file__).resolve().parent.parent / "fixtures" / "found_logs"
LOGS = Path(__file__).resolve().parent.parent / "fixtures" / "logs"


def _summaries(name: str) -> list:
    log = LogFile.open(FOUND / name)
    return [record for record in iter_records(log, detect_formats(log)) if record.kind == "summary"]


def test_jetstream_key_value_summaries():
    first, second = _summaries("jetstream__benchmark-serving-llama3-llama2-key-value.txt")
    assert first.labels["tool"] == "jetstream-bench" and "truncated" not in first.labels
    assert first.metrics["completed_requests"] == 1780
    assert first.metrics["duration_seconds"] == 294.101467
    assert first.metrics["input_tokens_per_second"] == 730.75
    assert first.metrics["ttft_seconds_mean"] == pytest.approx(114960.78 / 1000)
    assert first.metrics["tpot_seconds_p99"] == pytest.approx(132710.43 / 1000)
    assert second.metrics["completed_requests"] == 100
    assert second.metrics["ttft_seconds_median"] == pytest.approx(1273.70 / 1000)
    # LLAMA 3: 214914 / 1780 = 120.7 input tokens at 730.75 tok/s -> 0.165 s of prompt work; TTFT 115 s is ~700x.
    diagnosis = diagnose_files([FOUND / "jetstream__benchmark-serving-llama3-llama2-key-value.txt"])
    assert diagnosis.verdict == "queueing"
    item = next(item for item in diagnosis.evidence if item.rule == "summary-ttft-over-prompt-work")
    assert item.numbers["prompt_work_seconds"] == pytest.approx(214914 / 1780 / 730.75)


def test_lmdeploy_profile_throughput():
    (summary,) = _summaries("lmdeploy__profile-throughput-pytorch-concurrency-256.txt")
    m = summary.metrics
    assert (m["ttft_seconds_min"], m["ttft_seconds_max"], m["ttft_seconds_mean"]) == (0.623, 12.899, 4.401)
    assert m["itl_seconds_p95"] == 0.708 and m["itl_seconds_p99"] == 0.979
    assert m["total_input_tokens"] == 740656 and m["output_tokens_per_second"] == 2353.993
    assert m["request_throughput_per_second"] == 10.159 and m["max_concurrency"] == 256
    assert m["completed_requests"] == round(10.159 * 295.300)  # RPS x elapsed_time = 3000 requests
    # First tokens from 0.623 s to 12.899 s (21x) at a fixed 256 concurrency: requests wait inside the server.
    assert diagnose_files([FOUND / "lmdeploy__profile-throughput-pytorch-concurrency-256.txt"]).verdict == "queueing"


def test_lmdeploy_first_token_equal_to_full_latency_is_an_artefact():
    (summary,) = _summaries("lmdeploy__profile-generation-first-token-equals-token-latency.txt")
    assert summary.metrics["ttft_seconds_mean"] == summary.metrics["e2e_seconds_mean"] == 89.29
    assert summary.metrics["mean_output_tokens"] == 2048 and summary.metrics["max_concurrency"] == 64
    diagnosis = diagnose_files([FOUND / "lmdeploy__profile-generation-first-token-equals-token-latency.txt"])
    assert diagnosis.verdict == "measurement-artifact"
    assert "healthy" not in {item.verdict for item in diagnosis.evidence}


def test_tgi_gaudi_performance_summary():
    (summary,) = _summaries("tgigaudi__run-generation-performance-summary-throughput-zero.txt")
    assert summary.metrics["output_tokens_per_second"] == 0.0
    assert summary.metrics["ttft_seconds_mean"] == pytest.approx(16835.90 / 1000)
    assert summary.metrics["tpot_seconds_median"] == pytest.approx(14.22 / 1000)
    diagnosis = diagnose_files([FOUND / "tgigaudi__run-generation-performance-summary-throughput-zero.txt"])
    assert diagnosis.verdict == "measurement-artifact"  # Throughput 0.0 with latencies measured (§1.12)
    # TTFT 16.8 s against 15.2 ms per token (1106x): the requests queued, the other reading of this sample.
    assert [item["verdict"] for item in diagnosis.alternatives] == ["queueing"]


def test_guidellm_01_rich_table_with_wrapped_cells():
    (summary,) = _summaries("guidellm__v01-rich-performance-stats-async-2rps.txt")
    m = summary.metrics
    assert summary.labels["benchmark"] == "asynchronous@2.00 req/sec" and m["request_rate_per_second"] == 2.0
    assert m["e2e_seconds_median"] == 20.20  # request latency in sec
    assert m["ttft_seconds_median"] == pytest.approx(13039.3 / 1000)  # TTFT in ms in the same table
    assert m["ttft_seconds_p99"] == pytest.approx(24736.2 / 1000)  # the wrapped continuation cell
    assert m["itl_seconds_p99"] == pytest.approx(73.6 / 1000)
    diagnosis = diagnose_files([FOUND / "guidellm__v01-rich-performance-stats-async-2rps.txt"])
    # TTFT p1 1365.0 -> p99 24736.2 ms (18x) while ITL 50.8 -> 73.6 ms (1.4x): a growing queue.
    assert diagnosis.verdict == "queueing"
    item = next(item for item in diagnosis.evidence if item.rule == "summary-ttft-spread")
    assert item.numbers["ttft_spread"] == pytest.approx(24736.2 / 1365.0)


def test_llama_bench_padded_headers_give_a_bandwidth_floor():
    diagnosis = diagnose_files([FOUND / "llamacpp__llama-bench-qnn-right-aligned.txt"])
    # tg128: 2.30 GiB x 0.70 tok/s = 2.30 * 2**30 * 0.70 = 1.73 GB/s of weight reads (FORMATS.md §4.2).
    item = next(item for item in diagnosis.evidence if item.rule == "hardware-low-effective-bandwidth")
    assert item.numbers["effective_bandwidth_bytes_per_second_max"] == pytest.approx(2.30 * 2**30 * 0.70)
    assert diagnosis.verdict == "decode-bound"
    assert "try another backend" in " ".join(diagnosis.advice)


def test_llama_server_progress_lines():
    log = LogFile.open(FOUND / "llamacpp__server-2026-n-decoded-progress-lines.txt")
    windows = [record for record in iter_records(log, detect_formats(log)) if record.kind == "interval"]
    assert len(windows) == 12
    assert windows[0].metrics["generation_tokens_per_second"] == 12.57  # tg_3s, the recent rate
    assert windows[0].metrics["decoded_tokens"] == 1081
    assert windows[0].timestamp_seconds == pytest.approx(2 * 60 + 2.846974)  # 2.02.846.974 since start
    diagnosis = diagnose_files([FOUND / "llamacpp__server-2026-n-decoded-progress-lines.txt"])
    assert diagnosis.verdict == "healthy"  # one stream at ~12.6 tok/s; judging it needs the hardware
    assert any("--model/--gpu" in note for note in diagnosis.notes)


def test_tgi_span_fragment(tmp_path):
    # The real TGI line of logs/ cut before inference_time: a fragment with total, validation and queue times.
    line = (LOGS / "tgi__cpu-backend-generate-success-line.txt").read_text().splitlines()[1]
    path = tmp_path / "tgi.log"
    path.write_text(line[:line.index("inference_time=")] + "\n")
    diagnosis = diagnose_files([path])
    request = diagnosis.metrics["request"]
    assert request["e2e_seconds"]["max"] == pytest.approx(3.764430077)
    assert request["queue_seconds"]["max"] == pytest.approx(110.388e-6)
    assert diagnosis.verdict == "insufficient-data"
    assert "3,764.4 ms" in diagnosis.evidence[0].text


# `vllm bench latency` (benchmarks/benchmark_latency.py) as it prints: its arguments, the tqdm bar of the timed
# iterations, then the average and the percentiles in seconds. Written here; numbers chosen for the arithmetic.
BENCH_LATENCY = """Namespace(model='meta-llama/Llama-2-7b-hf', tokenizer=None, tensor_parallel_size=1, input_len=32, \
output_len=128, batch_size=8, n=1, num_iters_warmup=10, num_iters=30)
Profiling iterations: 100%|██████████| 30/30 [00:36<00:00,  1.20s/it]
Avg latency: 1.2036 seconds
10% percentile latency: 1.19 seconds
50% percentile latency: 1.20 seconds
90% percentile latency: 1.22 seconds
99% percentile latency: 1.23 seconds
"""


def test_vllm_bench_latency_summary(tmp_path):
    path = tmp_path / "latency.txt"
    path.write_text(BENCH_LATENCY)
    log = LogFile.open(path)
    [record] = list(iter_records(log, detect_formats(log)))
    m = record.metrics
    assert record.source == "vllm.bench-latency" and record.labels["model"] == "meta-llama/Llama-2-7b-hf"
    assert m["e2e_seconds_mean"] == 1.2036 and m["e2e_seconds_median"] == 1.20 and m["e2e_seconds_p99"] == 1.23
    assert (m["mean_input_tokens"], m["mean_output_tokens"], m["mean_concurrency"]) == (32, 128, 8)
    # One batch of 8 prompts × 128 output tokens per 1.2036 s iteration.
    assert m["output_tokens_per_second"] == pytest.approx(8 * 128 / 1.2036)
    assert "e2e_seconds_p10" not in m  # the 10/25/75 % percentiles have no metric of their own


def test_vllm_bench_latency_without_arguments_takes_the_defaults(tmp_path):
    """An excerpt cut after the arguments (blind round 12's MI355X pair): benchmark_latency's own defaults,
    --input-len 32 --output-len 128 --batch-size 8, give the batch's shape, and a note says they were assumed."""
    path = tmp_path / "latency.txt"
    path.write_text(BENCH_LATENCY.split("\n", 2)[2])  # no Namespace line, no bar
    log = LogFile.open(path)
    [record] = list(iter_records(log, detect_formats(log)))
    m = record.metrics
    assert (m["mean_input_tokens"], m["mean_output_tokens"], m["mean_concurrency"]) == (32, 128, 8)
    assert m["output_tokens_per_second"] == pytest.approx(8 * 128 / 1.2036)
    diagnosis = diagnose_files([path])
    assert any("defaults assumed (input_len 32, output_len 128, batch_size 8)" in note for note in diagnosis.notes)
    # With the arguments printed nothing is assumed.
    path.write_text(BENCH_LATENCY)
    assert not any("defaults assumed" in note for note in diagnose_files([path]).notes)


def test_bench_latency_step_judged_against_the_hardware(tmp_path):
    """A whole-batch latency with no step time: the step is (latency − the ledger's prefill) ÷ output tokens. At
    9.6 s for 128 steps of Llama-2-7B (13.5 GB of fp16 weights) on an A100 80GB (2,039 GB/s), a step takes ~75 ms
    against a bandwidth floor of 13.5 / 2039 s ≈ 6.6 ms: an order of magnitude slow, decode-bound. At 1.2 s (~9 ms a
    step) it is normal."""
    from inferledger.hardware import find_accelerator
    from inferledger.ledger.request import request_account
    from inferledger.model import load_model

    slow = tmp_path / "slow.txt"
    slow.write_text(BENCH_LATENCY.replace("1.2036 seconds", "9.6 seconds"))
    result = diagnose_files([slow], gpu="a100-80gb")
    assert result.verdict == "decode-bound"
    account = request_account(load_model("meta-llama/Llama-2-7b-hf"), find_accelerator("a100-80gb"), isl=32,
                              osl=128, batch=8)
    step = result.roofline["observed_decode_seconds_per_token"]
    assert step == pytest.approx((9.6 - account.realistic.prefill_seconds) / 128)
    assert 0.070 < step < 0.075  # the prefill of 8 × 32 tokens is a few ms of the 9.6 s
    fast = tmp_path / "fast.txt"
    fast.write_text(BENCH_LATENCY)
    assert diagnose_files([fast], gpu="a100-80gb").verdict == "healthy"
