"""Blind rounds 718 on: the general fixes of the thirty-third session. Expected figures are worked out here."""

from __future__ import annotations

import pytest
from blind_helpers import diagnosed


def _said(diagnosis, *words) -> bool:
    """Whether one piece of the diagnosis' evidence says every one of `words`."""
    return any(all(word in evidence.text for word in words) for evidence in diagnosis.evidence)

# An SGLang server log whose reader counts all three failures failures.py also reads (the KV pool's figures, a
# refused prompt, the scheduler's OOM), then the client's own timeout pasted below it.
_SGLANG_FAILURES_THEN_CLIENT_TIMEOUT = """\
[2025-05-01 10:00:01 TP0] KV Cache is allocated. #tokens: 100000, K size: 6.10 GB, V size: 6.10 GB
[2025-05-01 10:00:02 TP0] max_total_num_tokens=100000, chunked_prefill_size=8192, max_prefill_tokens=16384, \
max_running_requests=2048, context_len=131072
[2025-05-01 10:00:10 TP0] Prefill batch. #new-seq: 1, #new-token: 8192, #cached-token: 0, token usage: 0.08, \
#running-req: 0, #queue-req: 0
[2025-05-01 10:00:20 TP0] Input length (120000 tokens) exceeds the maximum allowed length (100000 tokens). Use a \
shorter input or enable --allow-auto-truncate.
[2025-05-01 10:00:30 TP0] Scheduler hit an exception: torch.OutOfMemoryError: CUDA out of memory. Tried to \
allocate 2.00 GiB.
requests.exceptions.ReadTimeout: HTTPConnectionPool(host='localhost', port=30000): Read timed out. (read timeout=600)
"""


def test_a_client_timeout_is_read_where_the_reader_counted_every_engine_failure(tmp_path):
    diagnosis = diagnosed(tmp_path, _SGLANG_FAILURES_THEN_CLIENT_TIMEOUT, "sglang_server.log")
    # one refused prompt (120,000 tokens over the pool's 100,000) and one OOM, each counted once by the reader
    assert diagnosis.events == {"too_long_rejections": 1.0, "oom": 1.0, "client_read_timeouts": 1.0}
    assert any("stopped waiting for at its read timeout" in note for note in diagnosis.notes)


# vLLM's checkpoint-loading bar, the whole paste (round 725: a 96-shard checkpoint, the log cut mid-load).
_VLLM_LOADING_BAR = """\
Loading safetensors checkpoint shards:  61% Completed | 59/96 [04:27<02:55,  4.76s/it]
Loading safetensors checkpoint shards:  62% Completed | 60/96 [04:32<02:55,  4.86s/it]
Loading safetensors checkpoint shards:  77% Completed | 74/96 [05:39<01:45,  4.77s/it]
"""


def test_a_checkpoint_loading_bar_alone_is_read_as_start_up_not_refused(tmp_path):
    diagnosis = diagnosed(tmp_path, _VLLM_LOADING_BAR, "vllm_start.log")
    assert diagnosis.verdict == "insufficient-data"
    (evidence,) = diagnosis.evidence
    # the latest line: 74 of 96 shards after 5 min 39 s = 339 s, 339 / 74 = 4.58 s a shard
    assert "checkpoint 74 of 96 shards loaded in 339 s (4.6 s a shard)" in evidence.text
    assert "the log ends before the load does" in evidence.text
    assert evidence.lines == [1]  # where the bar starts


def test_transformers_bar_and_an_hour_long_load(tmp_path):
    finished = "Loading checkpoint shards: 100%|██████████| 4/4 [00:05<00:00,  1.31s/it]\n"
    diagnosis = diagnosed(tmp_path, finished, "notebook.txt")
    (evidence,) = diagnosis.evidence
    assert "checkpoint 4 of 4 shards loaded in 5 s (1.2 s a shard)" in evidence.text  # 5 / 4 = 1.25
    assert "ends before" not in evidence.text
    hour = "Loading pt checkpoint shards:  50% Completed | 81/163 [1:02:03<1:02:00, 45.9s/it]\n"
    (evidence,) = diagnosed(tmp_path, hour, "bin_checkpoint.log").evidence
    # 1 h 2 min 3 s = 3,723 s; 3,723 / 81 = 45.96
    assert "checkpoint 81 of 163 shards loaded in 3,723 s (46.0 s a shard)" in evidence.text


def test_a_bar_under_a_second_states_no_rate(tmp_path):
    bar = ("Loading safetensors checkpoint shards:   0% Completed | 0/4 [00:00<?, ?it/s]\n"
           "Loading safetensors checkpoint shards:  50% Completed | 2/4 [00:00<00:00,  2.85it/s]\n")
    (evidence,) = diagnosed(tmp_path, bar, "sglang_start.log").evidence
    assert "checkpoint 2 of 4 shards loaded in under 1 s; the log ends before the load does" in evidence.text


def test_vllm_start_up_times_are_stated(tmp_path):
    log = ("INFO 03-01 07:56:47 [weight_utils.py:273] Time spent downloading weights for meta-llama/Llama-3.2-1B: "
           "14.584169 seconds\n"
           "INFO 03-01 07:56:47 [weight_utils.py:307] No model.safetensors.index.json found in remote.\n"
           "INFO 03-01 07:56:52 [loader.py:423] Loading weights took 5.38 seconds\n")
    diagnosis = diagnosed(tmp_path, log, "vllm_start.log")
    assert diagnosis.verdict == "insufficient-data"
    (evidence,) = diagnosis.evidence
    assert "weights downloaded in 14.6 s, weights loaded in 5.4 s" in evidence.text


# A benchmark app's result blob (the CoreAI community bench, round 730) as Apple's JSON writer prints it (` : `), its
# runs timing the phases (`prefill_s`, `decode_s`) with no `ttft_s`, cut inside the second run.
_APP_RUNS_NO_TTFT = """{
  "kind" : "coreai-community-bench",
  "protocol" : {
    "max_tokens" : 256,
    "prompt_tokens" : 128
  },
  "results" : {
    "load_s" : 3.4,
    "runs" : [
      {
        "decode_s" : 3.608239084,
        "decode_tok_s" : 70.67159189388127,
        "gen_tokens" : 256,
        "kind" : "cold",
        "prefill_s" : 4.115459292,
        "prefill_tok_s" : 31.102239365802482
      },
      {
        "decode_s" : 3.710868625,
"""


def test_an_app_bench_blob_timing_its_phases_is_read(tmp_path):
    diagnosis = diagnosed(tmp_path, _APP_RUNS_NO_TTFT, "bench.json")
    # the cold run only (the cut one left out): 4.12 s reading 128 prompt tokens against 3.61 s writing 256
    assert diagnosis.verdict == "prefill-bound"
    assert _said(diagnosis, "1 of 1 requests", "4.12 s")


def test_a_rate_cell_behind_a_word_reads_as_its_rate(tmp_path):
    # round 732's layout: models as columns, machines as rows, every cell `Total: N t/s`
    table = ("|CPU/GPU       |llama3.1:8b|llama2:7b|\n"
             "|--------------|------|-----|\n"
             "|GPU AMD RX570|Total: 18.80 t/s|Total: 27.46 t/s|\n")
    diagnosis = diagnosed(tmp_path, table, "bench.md")
    # 1,000 / 18.80 = 53.19 ms and 1,000 / 27.46 = 36.42 ms a token
    assert _said(diagnosis, "'llama3.1:8b'", "53.19 ms")
    assert _said(diagnosis, "'llama2:7b'", "36.42 ms")


def test_llama_cpp_python_refusing_a_prompt_over_its_context_is_kv_capacity(tmp_path):
    for line in ("ValueError: Requested tokens (2913) exceed context window of 1024\n",
                 'Error: "Prompt exceeds n_ctx: 2913 > 1024"\n'):
        diagnosis = diagnosed(tmp_path, line, "comfyui.log")
        assert diagnosis.events == {"too_long_rejections": 1.0}
        assert diagnosis.verdict == "kv-capacity"


def test_completion_tokens_and_wall_time_alone_are_judged_only_when_fast(tmp_path):
    slow = ("| Prompt | Completion tokens | Wall time |\n| --- | --- | --- |\n"
            "| `What is 2+2?` | 11 | 78s |\n")
    diagnosis = diagnosed(tmp_path, slow, "table.md")
    assert diagnosis.verdict == "insufficient-data"  # was healthy: 78 s over 11 tokens is 7.09 s a token
    assert _said(diagnosis, "78 s over 11 output tokens, 7.09 s a token")
    fast = ("| Prompt | Completion tokens | Wall time |\n| --- | --- | --- |\n"
            "| `Write a story` | 400 | 8s |\n")
    assert diagnosed(tmp_path, fast, "table.md").verdict == "healthy"  # guard: 20 ms a token, prompt included


def test_a_total_tokens_column_leaves_the_rate_one_streams(tmp_path):
    # round 736's RKLLM table: each row one request, its token counts beside its rate
    table = ("| Test | Tokens/sec | Total Tokens | Completion Tokens | Response Time |\n"
             "|---|---|---|---|---|\n| Math | 7.23 | 56 | 23 | ~3s |\n| Code Generation | 8.21 | 189 | 156 | ~19s |\n")
    diagnosis = diagnosed(tmp_path, table, "readme.md")
    # 1 / 7.23 = 138 ms and 1 / 8.21 = 122 ms a token
    assert _said(diagnosis, "138 ms per output token")
    assert _said(diagnosis, "122 ms per output token")


def test_mlx_lm_benchmark_2025_shape_line(tmp_path):
    log = ("Timing with prompt_tokens=2048, generation_tokens=2048, batch_size=1.\n"
           "Trial 1:  prompt_tps=204.832, generation_tps=21.086, peak_memory=5.114\n"
           "Trial 2:  prompt_tps=137.867, generation_tps=18.929, peak_memory=5.114\n")
    diagnosis = diagnosed(tmp_path, log, "bench.txt")
    # 1 / 21.086 = 47.4 ms and 1 / 18.929 = 52.8 ms a token: a mean of 50.1 ms
    assert _said(diagnosis, "2 request(s)", "50.1 ms/token")


def test_a_ternary_models_name_states_its_bits():
    from inferledger.diagnose.named_model import from_name

    # TQ1_0's 54 bytes a 256 weights = 1.6875 bits: 27e9 × 1.6875 / 8 = 5.695 GB a decode step
    assert from_name("prism-ml/Ternary-Bonsai-27B-gguf").weights_bytes_per_step == pytest.approx(5.695e9, rel=1e-3)
    assert from_name("microsoft/bitnet-b1.58-2B-4T").bits_per_weight == 1.6875
    assert from_name("microsoft/bitnet-b1.58-2B-4T-bf16").bits_per_weight == 16.0  # guard: a stated format wins


def test_a_named_rows_step_counts_its_layers_fixed_cost(tmp_path):
    # round 734: four ternary models on an M3 Pro (150 GB/s). The 1.7B row at 164.6 tok/s reads 1.7e9 × 1.6875 / 8
    # = 0.359 GB a step: 59 GB/s, 39 % of the card, under the far-below cutoff by the bytes alone; a 28-layer step's
    # fixed cost (tens of microseconds a layer) is most of its 6.1 ms, as it is for a sized row.
    table = ("llama.cpp Metal (build 62061f910), -ngl 99 -fa 1\n\n| Model | PP512 (t/s) | TG128 (t/s) |\n|-------|------------:|------------:|\n"
             "| Ternary-Bonsai-27B | 78.6 | 12.6 |\n| Ternary-Bonsai-8B | 287.8 | 51.3 |\n"
             "| Ternary-Bonsai-4B | 532.4 | 83.4 |\n| Ternary-Bonsai-1.7B | 1348.8 | 164.6 |\n")
    diagnosis = diagnosed(tmp_path, table, "bench.md", model="prism-ml/Ternary-Bonsai-27B-gguf", gpu="m3-pro")
    assert not _said(diagnosis, "slowest row")
    assert diagnosis.verdict == "healthy"


def test_the_gguf_a_runner_loads_states_the_weights_format(tmp_path):
    # round 730's ane-infer run: no engine the readers know, its loading line naming the file
    log = ("Loading model from /Users/me/models/Qwen3.5-2B-Q8_0.gguf\n  Layers: 24\n\n"
           "  TTFT: 496.3ms\n  Generated: 256 tokens\n  Decode: 25.3 tok/s\n")
    diagnosis = diagnosed(tmp_path, log, "ane.txt", model="Qwen/Qwen3.5-2B", gpu="m4")
    lines = diagnosis.roofline["lines"]
    # Q8_0: 34 bytes a 32 weights = 8.5 bits; 2e9 × 8.5 / 8 = 2.125 GB a step (not bf16's 4.0 GB)
    assert any("8.5 bits per weight (the log's Q8_0) = 2.1 GB per decode step" in line for line in lines)


def test_experts_kept_on_the_cpu_are_not_judged_against_the_card(tmp_path):
    # round 277's llama-batched-bench of Kimi-K2 with `-ot exps=CPU` on one RTX PRO 6000 and two EPYCs
    log = ("./build/bin/llama-batched-bench \\\n"
           "    --model /data/Kimi-K2-Instruct-UD-Q4_K_XL-00001-of-00013.gguf \\\n"
           "    --ctx-size 131072 --n-gpu-layers 62 -ot exps=CPU -npp 4096 -ntg 1024 -npl 1\n\n"
           "main: n_kv_max = 131072, n_batch = 4096, n_ubatch = 4096, flash_attn = 1, is_pp_shared = 0, "
           "n_gpu_layers = 62, n_threads = 32, n_threads_batch = 32\n\n"
           "|    PP |     TG |    B |   N_KV |   T_PP s | S_PP t/s |   T_TG s | S_TG t/s |      T s |    S t/s |\n"
           "|-------|--------|------|--------|----------|----------|----------|----------|----------|----------|\n"
           "|  4096 |   1024 |    1 |   5120 |   38.594 |   106.13 |   46.432 |    22.05 |   85.026 |    60.22 |\n")
    diagnosis = diagnosed(tmp_path, log, "bench.txt", model="moonshotai/Kimi-K2-Instruct", gpu="rtx-pro-6000-server")
    assert not any(evidence.rule.startswith("hardware-decode") for evidence in diagnosis.evidence)
    assert any("keeps the experts in system memory (`-ot exps=CPU`)" in note for note in diagnosis.notes)


def test_a_hyphenated_mean_rate_header_is_read(tmp_path):
    table = ("| model | ttft (ms) | avg-token/s |\n|---|---|---|\n| qwen2.5-0.5B-prefill-20e | 359.8 | 10.32 |\n")
    assert _said(diagnosed(tmp_path, table, "results.md"), "per-stream rate 96.90 ms")  # 1,000 / 10.32


def test_two_runs_statistics_and_their_ratio_column(tmp_path):
    # round 737: HTTP against WebSocket, each with p50 and p95, and the WS/HTTP ratios beside them
    table = ("| Metric | HTTP p50 | HTTP p95 | WS p50 | WS p95 | WS/HTTP p50 | WS/HTTP p95 |\n"
             "|---|--:|--:|--:|--:|--:|--:|\n"
             "| TTFT (ms) | 12.30 | 25.15 | 10.95 | 11.33 | 0.891 | 0.451 |\n")
    diagnosis = diagnosed(tmp_path, table, "gateway.md")
    assert _said(diagnosis, "'HTTP'", "TTFT 12.3 ms")
    assert _said(diagnosis, "'WS'", "TTFT 10.9 ms")
    assert diagnosis.verdict != "measurement-artifact"  # the ratio 0.891 is no TTFT of 0.891 ms


def test_a_generation_rate_named_with_its_mean_and_unit(tmp_path):
    # round 745's table: `Average Generation Rate tokens/s` beside `Average Response Time s`
    table = ("|Model| Size | Accuracy|Average Response Time s|Average Generation Rate tokens/s|\n|--|--|--|--|--|\n"
             "| qwen3:8b | 5.2 GB | 65.00% | 35.19 | 34.17 |\n")
    assert _said(diagnosed(tmp_path, table, "readme.md"), "per-stream rate 29.27 ms")  # 1,000 / 34.17


def test_a_slow_rate_over_a_few_tokens_in_all_times_no_step(tmp_path):
    # round 747: one prompt on a cold engine, vLLM's default 16 tokens (7.31 tok/s × 2.19 s = 16.0)
    bar = ("Processed prompts: 100%|█████| 1/1 [00:02<00:00,  2.19s/it, est. speed input: 1.83 toks/s, "
           "output: 7.31 toks/s]\n")
    diagnosis = diagnosed(tmp_path, bar, "offline.txt")
    assert diagnosis.verdict == "insufficient-data"
    assert _said(diagnosis, "over 16 output tokens in all")
    # guard: 35 prompts (5.04 tok/s × 111 s = 560 tokens) still time their steps
    many = ("Processed prompts: 100%|█████| 35/35 [01:51<00:00,  3.17s/it, est. speed input: 3.31 toks/s, "
            "output: 5.04 toks/s]\n")
    assert diagnosed(tmp_path, many, "offline35.txt").verdict == "decode-bound"


_BENCH_HEADER = ("| model                          |       size |     params | backend    | ngl | fa |            test |"
                 "                  t/s |\n| --- | ---: | ---: | --- | --: | -: | ---: | ---: |\n")


def test_a_mixture_no_config_splits_is_not_called_faster_than_the_card(tmp_path):
    # round 748: DeepSeek-V2-Lite (deepseek2 16B, 2.4B active) at 210 tok/s on an RTX 5090: 9.65 GiB × 210 = 2.18 TB/s
    # is over the card's 1.79 TB/s only because a step reads the active share, which no bundled config gives
    rows = ("| deepseek2 16B Q4_K - Medium    |   9.65 GiB |    15.71 B | Vulkan     |  99 |  1 |    tg128 @ d512 |"
            "        210.15 ± 0.88 |\n")
    diagnosis = diagnosed(tmp_path, _BENCH_HEADER + rows, "bench.md", gpu="rtx-5090")
    assert diagnosis.verdict != "measurement-artifact"
    # guard: a dense 8B at 500 tok/s (4.33 GiB × 500 = 2.3 TB/s) on a 360 GB/s RTX 3060 is faster than it can read
    dense = ("| llama 8B Q4_0                  |   4.33 GiB |     8.03 B | CUDA       |  99 |  1 |           tg128 |"
             "        500.00 ± 0.88 |\n")
    assert diagnosed(tmp_path, _BENCH_HEADER + dense, "dense.md", gpu="rtx-3060").verdict == "measurement-artifact"


def test_a_batch_generating_less_than_one_sequence_is_decode_bound(tmp_path):
    # rounds 239 and 748: llama-batched-bench where two sequences generate less in all than one
    head = ("|    PP |     TG |    B |   N_KV |   T_PP s | S_PP t/s |   T_TG s | S_TG t/s |      T s |    S t/s |\n"
            "|-------|--------|------|--------|----------|----------|----------|----------|----------|----------|\n")
    rows = ("|   512 |    128 |    1 |    640 |    0.184 |  2777.25 |    1.551 |    82.55 |    1.735 |   368.90 |\n"
            "|   512 |    128 |    2 |    768 |    0.176 |  2902.45 |    8.671 |    29.52 |    8.847 |    86.80 |\n"
            "|   512 |    128 |    8 |   1536 |    0.177 |  2886.69 |   10.270 |    99.71 |   10.447 |   147.03 |\n")
    diagnosis = diagnosed(tmp_path, head + rows, "batched.md")
    assert diagnosis.verdict == "decode-bound"
    assert _said(diagnosis, "2 sequences generate 29.5 tok/s in all against 82.5 for one (36%)")  # 29.52 / 82.55
    # guard: eight sequences at 99.71 tok/s in all, 121 % of one's 82.55, raise the total: no finding
    scaling = rows.splitlines(keepends=True)[0] + rows.splitlines(keepends=True)[2]
    assert not _said(diagnosed(tmp_path, head + scaling, "scaling.md"), "the batched decode path is slower")


def test_sglangs_host_kv_pool_over_the_free_host_memory_is_a_start_up_refusal(tmp_path):
    line = ("ValueError: Not enough host memory available. Requesting 7.05 GB but only have 2.04 GB free. Please "
            "reduce the size of the hierarchical cache.\n")
    diagnosis = diagnosed(tmp_path, line, "sglang.log")
    assert diagnosis.events == {"kv_start_refusals": 1.0}
    assert diagnosis.verdict == "kv-capacity"
