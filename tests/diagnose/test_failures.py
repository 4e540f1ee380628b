"""The engine's own out-of-memory failure read wherever a paste holds one (diagnose/failures.py).

The samples are real (the blind rounds' fixtures, each citing its thread) or the engines' lines as the cited threads
print them; the line numbers expected are counted here from what the test writes.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from blind_helpers import write

from inferledger.diagnose import diagnose_files
from inferledger.diagnose.failures import failure_records
from inferledger.diagnose.read import HEAD_BYTES, read_records
from inferledger.errors import LogFormatError

FIXTURES = Path(__file__).parent.parent / "fixtures"

# vLLM V1's engine core ending a run (vllm-project/vllm#29049): no reader knows a traceback.
VLLM_V1_OOM = FIXTURES / "blind237_logs" / "vllm__v1-0111-lora-adapters-sampler-logits-sort-cuda-oom.txt"
# oMLX's memory guard aborting a request, quoted by the user (jundot/omlx#1945).
OMLX_GUARD = FIXTURES / "blind236_logs" / "omlx__mac-mini-m4-24gb-hermes-agent-request-aborted-process-memory-limit.txt"
# SGLang: one decode line, then the scheduler's traceback (`Failed to allocate token prealloc indices`).
SGLANG_PREALLOC = FIXTURES / "blind218_logs" / "sglang__lmcache-integration-one-decode-line-then-prealloc-alloc-failure.txt"

STATS = ("INFO 05-11 08:17:{second:02d} metrics.py:467] Avg prompt throughput: 0.0 tokens/s, Avg generation "
         "throughput: 41.0 tokens/s, Running: 1 reqs, Swapped: 0 reqs, Pending: 0 reqs, GPU KV cache usage: 3.1%, "
         "CPU KV cache usage: 0.0%\n")
OOM_LINE = ("ERROR 05-11 08:19:02 engine.py:160] torch.OutOfMemoryError: CUDA out of memory. Tried to allocate "
            "1.47 GiB. GPU 0 has a total capacity of 79.11 GiB of which 1.25 GiB is free.\n")


def _evidence(diagnosis, rule: str) -> str:
    return next(item.text for item in diagnosis.evidence if item.rule == rule)


def test_a_paste_that_is_only_the_failure_reads_as_memory_capacity():
    diagnosis = diagnose_files([VLLM_V1_OOM])
    assert diagnosis.verdict == "kv-capacity"
    # The engine's own words from the exception on, without the log collector's prefix.
    assert "`torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 1.47 GiB." in _evidence(
        diagnosis, "state-preemption")
    assert diagnosis.files[0]["formats"] == ["engine-failure"]


def test_a_memory_guard_abort_is_a_failure_too():
    diagnosis = diagnose_files([OMLX_GUARD])
    assert diagnosis.verdict == "kv-capacity"
    assert "process memory limit exceeded (usage 22.3 GB, ceiling 17.0 GB)" in _evidence(diagnosis, "state-preemption")


def test_a_crash_after_a_healthy_window_outranks_it():
    # One decode window at 93.5 tok/s, KV 51 %: healthy on its own; then the scheduler died for want of token slots.
    diagnosis = diagnose_files([SGLANG_PREALLOC])
    assert diagnosis.verdict == "kv-capacity"
    # The traceback's `raise ValueError("Failed to allocate …")` source line is not a second event: one failure.
    assert diagnosis.to_dict()["events"]["oom"] == 1


def test_the_failure_at_the_end_of_a_long_log_is_read_from_its_tail(tmp_path):
    # Past the 64 KB head: the stats lines alone fill more than it, and the failure is the last line.
    windows = HEAD_BYTES // len(STATS) + 200
    text = "".join(STATS.format(second=index % 60) for index in range(windows)) + OOM_LINE
    diagnosis = diagnose_files([write(tmp_path, text)])
    assert diagnosis.verdict == "kv-capacity"
    lines = next(item.lines for item in diagnosis.evidence if item.rule == "state-preemption")
    assert lines == [windows + 1]  # numbered as in the file: after every stats line


def test_prose_a_quoted_raise_and_a_header_are_not_failures():
    lines = ["I think I ran out of memory when the context grew",
             '    raise ValueError("Failed to allocate token prealloc indices")',
             '  File "/usr/lib/python3/site-packages/torch/cuda/memory.py", line 12, in OutOfMemoryError',
             "# source: an issue titled CUDA error: out of memory",
             "the card has 24 GB of memory"]
    assert failure_records(lines) == []


def test_each_runtimes_spelling_is_read():
    lines = ["ggml_backend_cuda_buffer_type_alloc_buffer: allocating 9216.00 MiB on device 0: cudaMalloc failed: "
             "out of memory",
             "jaxlib.xla_extension.XlaRuntimeError: RESOURCE_EXHAUSTED: Error allocating device buffer",
             "RuntimeError: HIP out of memory. Tried to allocate 2.00 GiB",
             "[  123.4] Out of memory: Killed process 4242 (llama-server)",
             "llama_model_load: error loading model: unable to allocate CUDA0 buffer",
             "RuntimeError: alloc_req_slots runs out of memory. Please set a smaller number for "
             "`--max-running-requests`. self.req_to_token_pool.available_size()=1, num_reqs=2,",
             # xLLM's scheduler with no KV blocks left even for an 11-token prompt (xLLM-AI/xllm#828)
             "E20260131 11:24:13.739012 604960 prefill_only_scheduler.cpp:222] Request prompt is too long, no enough "
             "memory to schedule a single sequence."]
    assert [record.line_number for record in failure_records(lines, first_line=10)] == [10, 11, 12, 13, 14, 15, 16]
    # A poster's sentence that names SGLang's failure is not the failure (sgl-project/sglang#10408 opens with one).
    assert failure_records(["then crashes in the scheduler with alloc_req_slots runs out of memory."]) == []


# vLLM V0's memory profile (vllm-project/vllm#16570): the weights and the KV cache's share on one line.
PROFILE = ("INFO 04-15 00:05:58 [worker.py:267] model weights take {weights}GiB; non_torch_memory takes 0.43GiB; "
           "PyTorch activation peak memory takes 2.51GiB; the rest of the memory reserved for KV Cache is {kv}GiB.\n")


def test_kv_memory_under_a_hundredth_of_the_weights_is_a_capacity_limit(tmp_path):
    # 0.14 GiB against 14.99 GiB of weights is 0.93 %: under the 1 % line (rules.py's state-kv-memory-small).
    diagnosis = diagnose_files([write(tmp_path, PROFILE.format(weights="14.99", kv="0.14"))])
    assert diagnosis.verdict == "kv-capacity"
    assert "0.9% of the weights' 14.99 GiB" in _evidence(diagnosis, "state-kv-memory-small")


def test_kv_memory_over_a_hundredth_of_the_weights_is_left_to_the_token_count(tmp_path):
    # 0.16 GiB is 1.07 % of 14.99 GiB: no capacity verdict from the bytes alone.
    diagnosis = diagnose_files([write(tmp_path, PROFILE.format(weights="14.99", kv="0.16"))])
    assert diagnosis.verdict == "insufficient-data"
    assert diagnosis.to_dict()["capacity"]["kv_cache_bytes"] == 0.16 * 2**30


def test_tensorrt_llms_refusal_to_start_for_want_of_one_sequence_is_kv_capacity():
    # Triton's TensorRT-LLM backend (triton-inference-server/tensorrtllm_backend#366): 29,184 tokens of paged KV
    # cannot hold one sequence of 272 blocks, and the instance is not created.
    path = FIXTURES / "blind262_logs" / "triton-trtllm__mistral-7b-multi-gpu-kv-cache-allocation-triton-vs-run-py.txt"
    diagnosis = diagnose_files([path])
    assert diagnosis.verdict == "kv-capacity"
    assert diagnosis.to_dict()["events"]["kv_start_refusals"] == 1


def test_a_table_aligned_by_runs_of_spaces_is_read_cell_by_cell():
    # Triton's model analyzer (triton-inference-server/model_analyzer, blind round 262): multi-word headers, cells
    # apart by two spaces or more; the first row's 23.6 ms first token and 5.2 ms token-to-token.
    path = FIXTURES / "blind262_logs" / "model-analyzer__vllm-periodic-concurrency-1-to-8-first-token-and-token-to-token-ms.txt"
    summaries = [record for record in read_records(path) if record.kind == "summary"]
    first = min(summaries, key=lambda record: record.line_number)
    assert first.metrics["ttft_seconds_mean"] == pytest.approx(23.6e-3)
    assert first.metrics["itl_seconds_mean"] == pytest.approx(5.2e-3)
    assert {record.line_number for record in summaries} == {10, 11, 12, 13}  # the four rows, nothing else


def test_prose_with_double_spaces_is_no_aligned_table(tmp_path):
    text = ("We ran it twice.  The first run  was slow.\n"
            "Throughput  was fine  overall\n"
            "It took  12 s  to load\n")
    with pytest.raises(LogFormatError):  # nothing in it is read, so it is no serving output
        read_records(write(tmp_path, text))


# `vllm bench serve`'s summary, as it prints it; Llama-3.1-8B's config is bundled (../shared/models).
BENCH = """============ Serving Benchmark Result ============
Successful requests:                     10
{load}Benchmark duration (s):                  60.00
Total input tokens:                      80000
Total generated tokens:                  1280
Request throughput (req/s):              0.17
Output token throughput (tok/s):         21.33
---------------Time to First Token----------------
Mean TTFT (ms):                          {ttft}
Median TTFT (ms):                        {ttft}
-----Time per Output Token (excl. 1st token)------
Mean TPOT (ms):                          8.00
Median TPOT (ms):                        8.00
==================================================
"""
ONE_STREAM = "Maximum request concurrency:             1\n"
# An 8,000-token prompt through Llama-3.1-8B: 2 × 8.03e9 parameters × 8,000 tokens = 1.28e14 FLOPs for the weights'
# matrices alone, 0.13 s at the H100 SXM's 989 dense bf16 TFLOP/s. No realistic prefill is faster than that, and
# none slower than at 30 % of the peak (0.43 s): 2.0 s is more than twice any of them; 0.25 s less than twice all.
PEAK_SECONDS = 2 * 8.03e9 * 8000 / 989e12


def test_a_first_token_far_slower_than_the_prefill_the_hardware_allows_is_prefill_bound(tmp_path):
    assert 2.0 > 2 * PEAK_SECONDS / 0.3
    text = BENCH.format(load=ONE_STREAM, ttft="2000.00")
    diagnosis = diagnose_files([write(tmp_path, text)], model="meta-llama/Llama-3.1-8B", gpu="h100-sxm")
    assert diagnosis.verdict == "prefill-bound"
    assert "8,000-token prompt" in _evidence(diagnosis, "hardware-ttft-above-realistic")


def test_a_first_token_within_twice_the_prefill_is_not_judged_slow(tmp_path):
    assert 0.25 < 2 * PEAK_SECONDS
    text = BENCH.format(load=ONE_STREAM, ttft="250.00")
    diagnosis = diagnose_files([write(tmp_path, text)], model="meta-llama/Llama-3.1-8B", gpu="h100-sxm")
    assert "hardware-ttft-above-realistic" not in {item.rule for item in diagnosis.evidence}


def test_requests_sent_all_at_once_wait_by_design_and_are_not_judged(tmp_path):
    # Every request at t=0 and no cap: each prompt waits for the others' prefills; a slow first token says nothing
    # about the prefill path.
    text = BENCH.format(load="Request rate:                            inf\n", ttft="2000.00")
    diagnosis = diagnose_files([write(tmp_path, text)], model="meta-llama/Llama-3.1-8B", gpu="h100-sxm")
    assert "hardware-ttft-above-realistic" not in {item.rule for item in diagnosis.evidence}


def test_the_client_flags_on_a_commands_continuation_lines_are_its_load(tmp_path):
    # sglang.bench_serving's command wrapped with backslashes (sgl-project/sglang#16731): `--request-rate 1` two
    # lines below the program's name is the load it offered.
    text = ("python -m sglang.bench_serving \\\n  --backend sglang \\\n  --request-rate 1 \\\n  --num-prompts 200\n"
            + BENCH.format(load="", ttft="500.00"))
    summary = next(record for record in read_records(write(tmp_path, text)) if record.kind == "summary")
    assert summary.metrics["request_rate_per_second"] == 1.0


def test_tritons_core_model_benchmark_is_one_run():
    # tensorrtllm_backend's benchmark_core_model.py (triton-inference-server/tensorrtllm_backend#378): 200 prompts in
    # 92,768.536 ms; the requests' latencies sum to 11,858,259.31 ms, a mean of 11,858.26 s / 200 = 59.29 s.
    path = FIXTURES / "blind262_logs" / "triton-trtllm__benchmark-core-model-a10-llama-200-requests-inflight-check.txt"
    (summary,) = read_records(path)
    assert summary.metrics["completed_requests"] == 200
    assert summary.metrics["duration_seconds"] == pytest.approx(92.768536)
    assert summary.metrics["e2e_seconds_mean"] == pytest.approx(11858.25931 / 200)
    assert summary.metrics["output_tokens_per_second"] == 804.54
    assert summary.metrics["mean_input_tokens"] == 128  # the command's --input-mean


@pytest.mark.parametrize("line, card", [
    # llama.cpp's Vulkan backend (ggml-org/llama.cpp#12833's and ubergarm's runs), its ROCm one, Metal's init line
    ("ggml_vulkan: 0 = AMD Radeon RX 7900 XTX (RADV NAVI31) (radv) | uma: 0 | fp16: 1 | bf16: 0", "rx-7900-xtx"),
    ("ggml_vulkan: 0 = Tesla T4 (NVIDIA) | uma: 0 | fp16: 1 | warp size: 32", "t4"),
    ("  Device 0: AMD Radeon RX 7900 XTX, gfx1100 (0x1100), VMM: no, Wave Size: 32", "rx-7900-xtx"),
    ("ggml_metal_init: GPU name:   Apple M2 Max", "m2-max"),
])
def test_llama_cpps_backend_device_lines_name_the_card(line, card):
    from inferledger.diagnose.device import named_card

    assert named_card([line])[0] == card


def test_the_prompt_rate_far_below_the_cards_compute_is_prefill_bound(tmp_path):
    # llama.cpp's timings for one request on an H100 SXM with Llama-3.1-8B: 2,048 prompt tokens at 100 tok/s. The
    # weights' matrices alone are 2 × 8.03e9 FLOPs a token: at 100 tok/s that is 1.6 TFLOP/s, 0.16 % of the card's
    # 989 TFLOP/s; no fitted efficiency puts a realistic prefill within 3× of that.
    text = ("llama_print_timings: prompt eval time =   20480.00 ms /  2048 tokens (   10.00 ms per token,   100.00 "
            "tokens per second)\n"
            "llama_print_timings:        eval time =    1600.00 ms /   127 runs   (   12.60 ms per token,    79.38 "
            "tokens per second)\n")
    diagnosis = diagnose_files([write(tmp_path, text)], model="meta-llama/Llama-3.1-8B", gpu="h100-sxm")
    assert "hardware-prefill-below-realistic" in {item.rule for item in diagnosis.evidence}


BENCH_HEADER = ("| model                          |       size |     params | backend    | ngl | nkvo | test   |"
                "              t/s |\n"
                "| ------------------------------ | ---------: | ---------: | ---------- | --: | ---: | -----: |"
                " ---------------: |\n")
BENCH_ROW = "| {model:<30} | {size:>10} | {params:>10} | CUDA       |  99 | {nkvo:>4} | tg 128 | {rate:>16} |\n"


def test_the_slowest_of_several_models_far_below_the_card_is_decode_bound(tmp_path):
    # On an RTX 4090 (1,008 GB/s): the 7B's 3.56 GiB × 127 tok/s = 485 GB/s is fine; the 14B's 8.38 GiB × 10 tok/s
    # = 90 GB/s is 9 % of the card, and its 40-odd layers' fixed cost (~2 ms a step) adds ~2 %: far under half.
    assert 8.38 * 2**30 * 10 / 1008e9 + 10 * 2e-3 < 0.5
    text = BENCH_HEADER + BENCH_ROW.format(model="llama 7B Q4_0", size="3.56 GiB", params="6.74 B", nkvo=0,
                                           rate="127.43 ± 0.18") \
        + BENCH_ROW.format(model="qwen2 14B Q4_K - Medium", size="8.38 GiB", params="14.77 B", nkvo=0,
                           rate="10.00 ± 0.10")
    diagnosis = diagnose_files([write(tmp_path, text)], gpu="rtx-4090")
    assert diagnosis.verdict == "decode-bound"
    assert "on the slowest row (10.0 tok/s)" in _evidence(diagnosis, "hardware-decode-far-below-floor")


def test_one_model_run_with_two_settings_is_a_comparison_not_a_slow_decode(tmp_path):
    # blind round 5's nkvo 0 / 1 (the KV cache kept in host memory): the second row is slower by design.
    text = BENCH_HEADER + BENCH_ROW.format(model="llama 7B Q4_0", size="3.56 GiB", params="6.74 B", nkvo=0,
                                           rate="127.43 ± 0.18") \
        + BENCH_ROW.format(model="llama 7B Q4_0", size="3.56 GiB", params="6.74 B", nkvo=1, rate="10.00 ± 0.10")
    diagnosis = diagnose_files([write(tmp_path, text)], gpu="rtx-4090")
    assert "hardware-decode-far-below-floor" not in {item.rule for item in diagnosis.evidence}


def test_a_status_codes_counter_is_no_failure():
    # ScaleLLM's /metrics (vectorch-ai/ScaleLLM, blind round 274): a counter of requests by gRPC status, at zero.
    assert failure_records(['request_status_total{code="RESOURCE_EXHAUSTED"} 0']) == []


def test_requests_refused_as_busy_are_a_full_queue(tmp_path):
    # ollama's access log answering a burst (IBM/prompt-declaration-language#702): 503 in ~40 ms is a refusal at the
    # door, not a served request's latency.
    text = "".join(f"[GIN] 2025/03/06 - 11:42:21 | 503 |   4{index}.044125ms |       127.0.0.1 | POST     "
                   '"/api/generate"\n' for index in range(3))
    diagnosis = diagnose_files([write(tmp_path, text)])
    assert diagnosis.verdict == "queueing"
    assert diagnosis.to_dict()["events"]["busy_rejections"] == 3
    assert "3 request(s) refused" in _evidence(diagnosis, "state-busy-rejections")


def test_the_length_vllm_settled_on_sets_how_many_full_requests_fit(tmp_path):
    # vllm-project/vllm#39734's start-up: 76,640 tokens of KV cache for a 262,144-token model length hold
    # 76,640 / 262,144 = 0.29 full-length requests, under the two the capacity rule asks.
    text = ("INFO 05-02 10:00:00 [model.py:1685] Using max model len 262144\n"
            "INFO 05-02 10:01:00 [kv_cache_utils.py:1087] GPU KV cache size: 76,640 tokens\n")
    diagnosis = diagnose_files([write(tmp_path, text)])
    assert diagnosis.verdict == "kv-capacity"
    assert "0.29 full-length requests fit" in _evidence(diagnosis, "state-few-full-requests")
