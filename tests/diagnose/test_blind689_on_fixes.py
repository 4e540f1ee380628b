"""Blind rounds 689 on: the general fixes of the thirty-second session. Expected figures are worked out here."""

from __future__ import annotations

import pytest
from blind_helpers import diagnosed, markdown_summaries, parsed, rules, write

# The rules table gives summary-ttft-grows-with-concurrency 0.60 at its least growth (half the concurrency ratio)
# and 0.70 at growth in step with the requests in flight.
_LEAST, _SUREST = 0.60, 0.70

# sglang.bench_serving at 1 req/s against DeepSeek-V3 at TP 8 on H200, the excerpt cut before its TPOT rows (round
# 681's blog post): 300 requests, 60,411 tokens generated, mean E2E 7,586.12 ms, mean TTFT 402.01 ms.
_SGLANG_NO_TPOT = """python3 -m sglang.launch_server --model deepseek-ai/DeepSeek-V3 --tp 8 --port 30000
============ Serving Benchmark Result ============
Backend:                                 sglang
Traffic request rate:                    1.0
Max reqeuest concurrency:                not set
Successful requests:                     300
Benchmark duration (s):                  317.08
Total input tokens:                      95293
Total generated tokens:                  60411
Request throughput (req/s):              0.95
Input token throughput (tok/s):          300.53
Output token throughput (tok/s):         190.52
Total token throughput (tok/s):          491.05
Concurrency:                             7.18
----------------End-to-End Latency----------------
Mean E2E Latency (ms):                   7586.12
Median E2E Latency (ms):                 4788.43
---------------Time to First Token----------------
Mean TTFT (ms):                          402.01
Median TTFT (ms):                        297.76
"""


def test_a_served_first_token_pays_the_steps_its_latencies_give_when_the_tpot_row_is_cut(tmp_path):
    # No TPOT row: each request's tokens after the first took (7586.12 - 402.01) ms over 60,411 / 300 - 1 = 200.37
    # tokens, 35.85 ms a step. A prompt arriving mid-run waits for a step and is prefilled inside one (1.5 steps,
    # 53.8 ms); a 318-token prompt's own prefill on eight H200s is tens of ms, so the median 297.76 ms first token is
    # within the 250 ms of slack the rule allows (without the steps it exceeds it).
    diagnosis = diagnosed(tmp_path, _SGLANG_NO_TPOT, "bench.txt", model="deepseek-ai/DeepSeek-V3", gpu="h200-sxm")
    assert "hardware-ttft-above-realistic" not in rules(diagnosis)
    assert any("1.5 of the run's 35.9 ms steps" in line for line in diagnosis.roofline["lines"])
    assert diagnosis.verdict != "prefill-bound"


def test_first_time_to_token_is_the_first_tokens_time(tmp_path):
    # An llmperf table written by hand heads its TTFT `First Time To Token (ms)`.
    table = """| Engine                         | vLLM        |
| ------------------------------ | ----------- |
| First Time To Token (ms)       | 137.2919661 |
| Inter Token Latency (ms/token) | 30.65149844 |
"""
    (summary,) = markdown_summaries(tmp_path, table)
    assert summary.metrics["ttft_seconds_mean"] == 0.1372919661


def _sweep(ttft_low_ms: float, ttft_high_ms: float) -> str:
    # One engine at 16 and 64 requests in flight, its per-token time near what one A10G allows for an 8B in bf16
    # (16 GB at 600 GB/s: 27 ms a step) at both levels (round 679's NIM column).
    return f"""### Concurrency User 16

| Engine                         | NVIDIA NIM  |
| ------------------------------ | ----------- |
| Time To First Token (ms)       | {ttft_low_ms}  |
| Inter Token Latency (ms/token) | 38.68509632 |

### Concurrency User 64

| Engine                         | NVIDIA NIM  |
| ------------------------------ | ----------- |
| Time To First Token (ms)       | {ttft_high_ms}  |
| Inter Token Latency (ms/token) | 52.95298819 |
"""


def test_a_first_token_growing_in_step_with_the_requests_in_flight_outranks_healthy_steps(tmp_path):
    # 336 ms -> 1,815 ms is 5.4x for 4x the requests in flight: past the full ratio, the surest the rule gets, over
    # the healthy reading of steps near the card's floor.
    diagnosis = diagnosed(tmp_path, _sweep(336.220663, 1814.533666), model="meta-llama/Llama-3.1-8B", gpu="a10g")
    assert diagnosis.verdict == "queueing"
    assert "summary-ttft-grows-with-concurrency" in rules(diagnosis)
    assert diagnosis.confidence == pytest.approx(_SUREST)


def test_a_first_token_growing_by_about_half_the_ratio_is_barely_surer(tmp_path):
    # 500 ms -> 1,100 ms is 2.2x for 4x, 0.55 of the ratio: a tenth of the way from the rule's least growth (half
    # the ratio) to the full ratio, so a tenth of the way from its least confidence to its most.
    diagnosis = diagnosed(tmp_path, _sweep(500.0, 1100.0), model="meta-llama/Llama-3.1-8B", gpu="a10g")
    assert "summary-ttft-grows-with-concurrency" in rules(diagnosis)
    (queue,) = [item for item in diagnosis.alternatives if item["verdict"] == "queueing"]
    assert queue["confidence"] == pytest.approx(_LEAST + 0.1 * (_SUREST - _LEAST), abs=0.005)


def test_prompts_of_hundreds_of_steps_make_the_queue_no_surer_than_their_prefill(tmp_path):
    # The same growth where a first token at the low level is 8 s against a 21 ms step, 375 steps with few requests
    # in flight: what the requests wait for is the others' prefill, not a slot, so the queue is no surer than the
    # prompt's own reading (a guard: the growth alone, 6x for 4x, would make it the surest).
    table = """| conc | TTFT p50 | ITL p50 |
|---|---|---|
| 4 | 8054 | 21.46 |
| 16 | 48000 | 35.47 |
"""
    diagnosis = diagnosed(tmp_path, table, "sweep.txt")
    assert "summary-ttft-grows-with-concurrency" in rules(diagnosis)
    readings = {diagnosis.verdict: diagnosis.confidence} | {item["verdict"]: item["confidence"]
                                                            for item in diagnosis.alternatives}
    assert readings["queueing"] <= readings["prefill-bound"]


def test_a_pasted_diff_of_a_table_reads_its_old_and_new_rows(tmp_path):
    # A pull request's change to a results table, its file's name above: the removed row (120 ms, 9.5 ms) and the
    # added one (95 ms, 8.1 ms) are both measurements, each at its own line.
    text = """doc/en/bench.md
-| GPU | TTFT (ms) | TPOT (ms) |
-|---|---|---|
-| H100 | 120 | 9.5 |
+| GPU | TTFT (ms) | TPOT (ms) |
+|---|---|---|
+| H100 | 95 | 8.1 |
"""
    diagnosis = diagnosed(tmp_path, text, "pr.txt")
    read = sorted((item.numbers["ttft_seconds_mean"], item.lines[0]) for item in diagnosis.evidence
                  if "ttft_seconds_mean" in item.numbers)
    assert read == [(0.095, 7), (0.12, 4)]


def test_prefill_throughput_is_the_prompts_rate():
    from inferledger.diagnose.parsers.bench_markdown import _column

    assert _column("Prefill Throughput") == ("input_tokens_per_second", 1.0, "rate")


def test_a_runtimes_allocation_failing_for_want_of_memory_is_an_out_of_memory_failure():
    from inferledger.diagnose.failures import failure_records

    line = ("ROCm preparing model tensor mappings: 80.45 GiBds4: ROCm model arena alloc failed for tensor-span:128 "
            "(1792.00 MiB chunk): out of memory")
    (record,) = failure_records([line])
    assert record.metrics == {"oom": 1.0}
    # prose about an allocation is not one
    assert failure_records(["the alloc failed and I think we ran out of memory"]) == []


def _torch_oom(tried: str, free: str) -> str:
    return (f"torch.OutOfMemoryError: CUDA out of memory. Tried to allocate {tried}. GPU 7 has a total capacity of "
            f"79.11 GiB of which {free} is free. Including non-PyTorch memory, this process has 0 bytes memory in use.\n")


def test_an_out_of_memory_error_with_the_card_mostly_free_is_not_a_capacity_limit(tmp_path):
    # 66.43 GiB free is 3,401x the 20 MiB it tried to place (ms-swift#9613 under vLLM's cumem allocator): the
    # allocator failed, nothing ran out.
    diagnosis = diagnosed(tmp_path, _torch_oom("20.00 MiB", "66.43 GiB"), "oom.txt")
    assert diagnosis.verdict != "kv-capacity"
    assert diagnosis.events == {"oom_with_room": 1.0}
    assert any("many times the requested memory free (line 1)" in note for note in diagnosis.notes)


def test_an_out_of_memory_error_with_less_free_than_it_asked_is_one(tmp_path):
    # 1.20 GiB free against 2.00 GiB asked: the card is full.
    diagnosis = diagnosed(tmp_path, _torch_oom("2.00 GiB", "1.20 GiB"), "oom.txt")
    assert diagnosis.verdict == "kv-capacity"
    assert diagnosis.events == {"oom": 1.0}


def _one_batch_run(prefill_s: float, step_s: float) -> str:
    return (f"Prefill. latency: {prefill_s:.5f} s, throughput: {128 / prefill_s:9.2f} token/s\n"
            f"Decode.  latency: {step_s:.5f} s, throughput: {1 / step_s:9.2f} token/s\n"
            f"Decode.  median latency: {step_s:.5f} s, median throughput: {1 / step_s:9.2f} token/s\n"
            f"Total. latency: {prefill_s + 255 * step_s:6.3f} s, throughput: {384 / (prefill_s + 255 * step_s):9.2f} "
            "token/s\n")


def test_the_run_before_benchmark_is_bench_one_batchs_warm_up_even_without_its_warmup_line(tmp_path):
    # The paste starts after `Warmup ...`: its first run (a 1.82 s prefill, cold) is the warm-up, the run after
    # `Benchmark ...` (0.169 s) the measurement (sglang#3232's DeepSeek-V3 excerpt).
    from inferledger.diagnose.parsers import sglang_one_batch

    text = _one_batch_run(1.82421, 0.02711) + "Benchmark ...\n" + _one_batch_run(0.16921, 0.02719)
    (record,) = [item for item in parsed(sglang_one_batch, write(tmp_path, text)) if item.kind == "summary"]
    assert record.metrics["ttft_seconds_mean"] == 0.16921


def test_runs_each_after_its_own_benchmark_line_are_all_measured(tmp_path):
    # Several commands' output pasted from `Benchmark ...` on (sglang#2219): no warm-up among them.
    from inferledger.diagnose.parsers import sglang_one_batch

    text = "".join("Benchmark ...\n" + _one_batch_run(prefill, step)
                   for prefill, step in ((0.03508, 0.01924), (0.03655, 0.01836), (0.09426, 0.07523)))
    records = [item for item in parsed(sglang_one_batch, write(tmp_path, text)) if item.kind == "summary"]
    assert [record.metrics["ttft_seconds_mean"] for record in records] == [0.03508, 0.03655, 0.09426]


def test_a_phase_named_with_its_llama_bench_test_reads_as_the_test(tmp_path):
    # llama.cpp RPC-over-RDMA table (round 698): `Token generation (tg256)` 30.19 and 32.16 t/s over TCP and RDMA: steps of 1/30.19 =
    # 33.12 ms and 1/32.16 = 31.09 ms.
    text = """| Metric                     | TCP    | RDMA   | Improvement |
| -------------------------- | ------ | ------ | ----------- |
| Prompt processing (pp2048) | 651.48 | 678.42 | **+4.1%**   |
| Token generation (tg256)   | 30.19  | 32.16  | **+6.5%**   |
"""
    summaries = markdown_summaries(tmp_path, text)
    assert sorted(record.metrics["input_tokens_per_second"] for record in summaries) == [651.48, 678.42]
    assert sorted(record.metrics["output_tokens_per_second_per_user_mean"] for record in summaries) == [30.19, 32.16]


def test_a_setups_multiplier_before_a_metric_names_a_variant_of_it(tmp_path):
    # exo's one-link and four-link columns: `1× decode tok/s` 22.24 and `4× decode tok/s` 21.92 at 516 tokens.
    text = """| Actual prompt tokens | 1× decode tok/s | 4× decode tok/s |
|---:|---:|---:|
| 516 | 22.24 | 21.92 |
"""
    summaries = markdown_summaries(tmp_path, text)
    assert sorted(record.metrics["output_tokens_per_second_per_user_mean"] for record in summaries) == [21.92, 22.24]
    assert {record.metrics["mean_input_tokens"] for record in summaries} == {516}


def _trtllm_overview(requests_per_s: float, latency_ms: float, per_user: float) -> str:
    return f"""===========================================================
= PERFORMANCE OVERVIEW
===========================================================
Request Throughput (req/sec):                     {requests_per_s}
Total Output Throughput (tokens/sec):             1163.5598
Total Latency (ms):                               28161.8536
Average request latency (ms):                     {latency_ms}
Per User Output Throughput [w/ ctx] (tps/user):   {per_user}
"""


def test_a_trtllm_bench_run_without_tpot_is_judged_by_its_streams_rate(tmp_path):
    # TensorRT-LLM#8120's AutoDeploy Mixtral-8x7B on one H200: 9.0903 req/s × 27.33 s = 248 requests in flight, one
    # batch; each stream gets 4.6843 tok/s, a step of 1 / 4.6843 = 213.5 ms.
    text = _trtllm_overview(9.0903, 27333.1795, 4.6843)
    diagnosis = diagnosed(tmp_path, text, "bench.txt", model="mistralai/Mixtral-8x7B-v0.1", gpu="h200-sxm")
    assert diagnosis.roofline["observed_decode_seconds_per_token"] == pytest.approx(1 / 4.6843)


def test_a_streams_rate_with_more_in_flight_than_a_batch_holds_is_no_step(tmp_path):
    # 248.5 req/s × 53.5 s = 13,295 requests in flight, past the largest default batch (2,048): a stream's rate
    # counts its wait for a slot too (blind round 4's 30,000 requests at once).
    text = _trtllm_overview(248.5, 53500.0, 0.535)
    diagnosis = diagnosed(tmp_path, text, "bench.txt", model="meta-llama/Llama-3.1-8B", gpu="h100-sxm")
    assert "observed_decode_seconds_per_token" not in diagnosis.roofline


_OFFLINE_START = """INFO 04-09 02:05:53 [gpu_model_runner.py:1273] Model loading took 61.0374 GiB and 33.525153 seconds
INFO 04-09 02:06:28 [kv_cache_utils.py:578] GPU KV cache size: 16,064 tokens
INFO 04-09 02:06:28 [kv_cache_utils.py:581] Maximum concurrency for 10,000 tokens per request: 1.61x
"""


def test_an_offline_batch_the_kv_cache_holds_whole_is_no_capacity_limit(tmp_path):
    # 16,064 tokens hold 1.61 requests of 10,000 tokens; the batch is one prompt (the bar's 0/1), which fits.
    text = _OFFLINE_START + ("Processed prompts:   0%|          | 0/1 [00:00<?, ?it/s, est. speed input: 0.00 toks/s, "
                             "output: 0.00 toks/s]\n")
    diagnosis = diagnosed(tmp_path, text, "offline.txt")
    assert "state-few-full-requests" not in rules(diagnosis)
    assert diagnosis.verdict != "kv-capacity"


def test_an_offline_batch_larger_than_the_kv_cache_holds_still_warns(tmp_path):
    # 16 prompts against room for 1.61 at full length: some wait for KV (a guard for the rule's exception).
    text = _OFFLINE_START + ("Processed prompts:   0%|          | 0/16 [00:00<?, ?it/s, est. speed input: 0.00 toks/s, "
                             "output: 0.00 toks/s]\n")
    diagnosis = diagnosed(tmp_path, text, "offline.txt")
    assert "state-few-full-requests" in rules(diagnosis)


def test_a_run_named_by_its_setting_lends_its_words_no_statistic(tmp_path):
    # vLLM-Omni's `max_num_seqs=8` column: `max` is the setting's word, not the rows' statistic; the rows name theirs
    # (median first audio packet 2.51 s, median end-to-end 3.50 s).
    text = """| Metric | `max_num_seqs=8` | `max_num_seqs=32` |
|---|---:|---:|
| Median time to first audio packet | 2.51 s | 1.07 s |
| Median end-to-end latency | 3.50 s | 3.77 s |
"""
    first, second = markdown_summaries(tmp_path, text)
    assert first.metrics == {"ttft_seconds_median": 2.51, "e2e_seconds_median": 3.50}
    assert second.metrics == {"ttft_seconds_median": 1.07, "e2e_seconds_median": 3.77}


@pytest.mark.parametrize("line", [
    "ValueError: Free memory on device cuda:7 (174.24/178.35 GiB) on startup is less than desired GPU memory "
    "utilization (0.98, 174.78 GiB). Decrease GPU memory utilization or reduce GPU memory used by other processes.",
    "> `Free memory on cuda:0 (38.74/121.63 GiB) < desired utilization (0.35, 42.57 GiB)`",
])
def test_vllm_refusing_a_memory_budget_others_hold_is_a_start_up_refusal(tmp_path, line):
    # 174.24 GiB free is short of 0.98 x 178.35 = 174.78 GiB; 38.74 short of 0.35 x 121.63 = 42.57: the engine does
    # not start, its weights and KV cache having no room.
    diagnosis = diagnosed(tmp_path, line + "\n", "boot.txt")
    assert diagnosis.events == {"kv_start_refusals": 1.0}
    assert diagnosis.verdict == "kv-capacity"


def test_a_clients_read_timeout_is_noted_not_refused_as_no_log(tmp_path):
    # Dify's error: requests waited its 300 s read timeout for ollama. One event, a note, and no speed to judge.
    line = ("Run failed: [models] Connection Error, HTTPConnectionPool(host='host_ip', port=11434): Read timed out. "
            "(read timeout=300)\n")
    diagnosis = diagnosed(tmp_path, line, "dify.txt")
    assert diagnosis.events == {"client_read_timeouts": 1.0}
    assert diagnosis.verdict == "insufficient-data"
    assert any("stopped waiting for at its read timeout" in note for note in diagnosis.notes)


def test_a_clients_connect_timeout_is_no_serving_speed(tmp_path):
    line = ("HTTPConnectionPool(host='191.168.56.11', port=8000): Max retries exceeded with url: /v1/chat/completions "
            "(Caused by ConnectTimeoutError(<urllib3.connection.HTTPConnection object at 0x7fa080081940>, "
            "'Connection to 192.168.56.11 timed out. (connect timeout=10)'))\n")
    diagnosis = diagnosed(tmp_path, line, "dify.txt")
    assert diagnosis.events == {"client_connect_timeouts": 1.0}
    assert any("never reached the server" in note for note in diagnosis.notes)
