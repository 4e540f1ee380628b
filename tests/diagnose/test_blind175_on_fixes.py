"""Blind rounds 175 on: the general fixes of the fourteenth session. Expected figures are worked out here."""

from __future__ import annotations

import pytest
from blind_helpers import FIXTURES, write

from inferledger.diagnose import diagnose_files
from inferledger.diagnose.read import read_records

# A disaggregated deployment's prefill server (SGLang with Mooncake, sglang#11648): its Prefill batch lines carry
# `#unbootstrapped-req` and `#transferring-req` and no `#running-req`, since it decodes nothing.
PD_PREFILL = """\
[2025-10-15 14:44:33 DP8 TP8 EP8] Prefill batch. #new-seq: 1, #new-token: 512, #cached-token: 0, token usage: 0.01, \
#unbootstrapped-req: 0, #queue-req: 0, #transferring-req: 0, input throughput (token/s): 1258.57,
[2025-10-15 14:44:33 DP13 TP13 EP13] Prefill batch. #new-seq: 2, #new-token: 512, #cached-token: 0, token usage: \
0.01, #unbootstrapped-req: 0, #queue-req: 3, #transferring-req: 1, input throughput (token/s): 1257.48,
"""


def test_a_disaggregated_prefill_servers_batch_lines_are_read(tmp_path):
    records = read_records(write(tmp_path, PD_PREFILL))
    assert [record.source for record in records] == ["sglang.prefill", "sglang.prefill"]
    second = records[1].metrics
    # the line's own fields: 2 new sequences (all the server runs), 3 queued, 1 sending its KV cache, 1257.48 tok/s
    assert second["running_requests"] == 2.0
    assert second["waiting_requests"] == 3.0
    assert second["transferring_requests"] == 1.0
    assert second["prompt_tokens_per_second"] == 1257.48
    assert diagnose_files([write(tmp_path, PD_PREFILL)]).verdict == "insufficient-data"  # no stream's speed in it


# A regression report's table (vllm-ascend#3773): each latency's statistic after its unit, and the tokens after the
# first named "incremental" tokens.
STAT_AFTER_UNIT = """\
| Thread Count | First Token Latency (ms) - P50 | First Token Latency (ms) - P95 | Incremental Token Latency (ms) - P50 |
| :--- | :--- | :--- | :--- |
| 1 | 2605.2 | 3887.1 | 21.3 |
| 4 | 2661.2 | 5441.7 | 24.8 |
"""


def test_a_statistic_after_the_unit_is_the_columns_statistic(tmp_path):
    records = [record for record in read_records(write(tmp_path, STAT_AFTER_UNIT)) if record.kind == "summary"]
    assert len(records) == 2  # a run a row, not a run a column
    first = records[0].metrics
    assert first["ttft_seconds_median"] == 2605.2 / 1000
    assert first["ttft_seconds_p95"] == 3887.1 / 1000
    assert first["itl_seconds_median"] == 21.3 / 1000


# A translated page's table (Ollama on an RTX 4080): tokens written 令牌, "tokens generated per second" in words.
TOKENS_AS_LINGPAI = """\
| 模型 | 使用的显存+显存 | CPU/GPU 分配 | 每秒生成的令牌数 |
|---|---|---|---|
| gpt-oss:20b | 14 GB | 100% GPU | 139.93 |
| qwen3:14b | 12 GB | 100% GPU | 61.85 |
"""


def test_a_chinese_header_of_tokens_generated_per_second_is_a_streams_rate(tmp_path):
    records = [record for record in read_records(write(tmp_path, TOKENS_AS_LINGPAI)) if record.kind == "summary"]
    assert [record.metrics["output_tokens_per_second_per_user_mean"] for record in records] == [139.93, 61.85]


# A small model's llama-bench row on a named card: its step is mostly the layers' fixed cost, not the weights' read.
SMALL_MODEL_BENCH = """\
| model                          |       size |     params | backend    | ngl |          test |                  t/s |
| ------------------------------ | ---------: | ---------: | ---------- | --: | ------------: | -------------------: |
| llama 1B Q4_0                  |   0.70 GiB |     1.24 B | CUDA       |  99 |         tg128 |        450.00 ± 1.00 |
"""


def test_a_small_models_floor_holds_its_layers_fixed_cost(tmp_path):
    diagnosis = diagnose_files([write(tmp_path, SMALL_MODEL_BENCH)], gpu="rtx-4090")
    assert "hardware-decode-far-below-floor" not in {item.rule for item in diagnosis.evidence}
    item = next(item for item in diagnosis.evidence if "fixed_step_seconds" in item.numbers)
    # 0.70 GiB × 450 t/s = 338 GB/s, 34 % of the RTX 4090's 1,008 GB/s; the catalogued dense model nearest 1.24 B
    # parameters is Llama-3.2-1B, 16 layers × 46 µs = 0.736 ms a step, which at 450 steps a second is 33 % more
    weights_share = 0.70 * 2**30 * 450 / 1008e9
    assert item.numbers["fixed_step_seconds"] == pytest.approx(16 * 46e-6)
    assert item.numbers["floor_speed_fraction"] == pytest.approx(weights_share + 450 * 16 * 46e-6)


# A llama.cpp server whose KV cache has no room for a batch (llama.cpp#5195): the 2024 server halves the batch down to
# one and then fails the decode; a 2025 build says it once, of a memory slot.
KV_NO_ROOM_2024 = """\
update_slots : failed to find free space in the KV cache, retrying with smaller n_batch = 256
update_slots : failed to find free space in the KV cache, retrying with smaller n_batch = 128
update_slots : failed to decode the batch, n_batch = 1, ret = 1
"""
KV_NO_ROOM_2025 = "decode: failed to find a memory slot for batch of size 512\n"


@pytest.mark.parametrize(("text", "times"), [(KV_NO_ROOM_2024, 2), (KV_NO_ROOM_2025, 1)])
def test_a_kv_cache_with_no_room_for_a_batch_is_kv_capacity(tmp_path, text, times):
    diagnosis = diagnose_files([write(tmp_path, text)])
    assert diagnosis.verdict == "kv-capacity"
    assert diagnosis.events["kv_no_room"] == times


def test_a_gin_access_line_with_its_client_scrubbed_is_read(tmp_path):
    # ollama#18373: the client's address blanked before pasting; 4m54s is 294 s
    line = 'Sep 11 00:04:26   ollama[]: [GIN] 2026/09/11 - 00:04:26 | 200 |         4m54s |    | POST     "/api/chat"\n'
    records = [record for record in read_records(write(tmp_path, line)) if record.kind == "request"]
    assert [record.metrics["e2e_seconds"] for record in records] == [4 * 60 + 54]


def test_a_static_batch_sweep_whose_larger_batch_prefills_faster_is_an_artefact():
    # tgi-gaudi#184: prefill 3.75 tokens/s at batch 1 is 1 / 3.75 = 267 ms a pass; 287.04 at batch 8 is
    # 8 / 287.04 = 27.9 ms: eight times the prompts in a tenth of the time
    diagnosis = diagnose_files([FIXTURES / "blind188_logs" /
                                "tgi__gaudi-text-generation-benchmark-mixtral-8x7b-2hpu-with-pr176.txt"])
    assert diagnosis.verdict == "measurement-artifact"
    item = next(item for item in diagnosis.evidence if item.rule == "summary-static-batch-prefill-shrinks")
    assert item.numbers["small_batch_prefill_seconds"] == pytest.approx(1 / 3.75, rel=1e-3)
    assert item.numbers["large_batch_prefill_seconds"] == pytest.approx(8 / 287.04, rel=1e-3)


def test_ollama_reads_a_client_cell_of_words_and_its_truncated_prompts(tmp_path):
    text = ('Aug 07 13:30:29 host ollama[17408]: [GIN] 2024/08/07 - 13:30:29 | 500 | 20.000781644s | ip xxx | '
            'POST "/api/generate"\n'
            'time=2025-02-05T09:21:59.623Z level=WARN source=runner.go:129 msg="truncating input prompt" limit=1274 '
            'prompt=7386 keep=5 new=1274\n')
    records = read_records(write(tmp_path, text))
    assert [record.metrics["e2e_seconds"] for record in records if record.kind == "request"] == [20.000781644]
    assert [record.metrics for record in records if record.kind == "event"] == [{"truncated_prompts": 1.0}]


# A vLLM start-up whose cache holds less than one request of its max length: vllm#2418's 229 blocks of 16 tokens
# (3,664) under the 4,096 its config line sets, and the ValueError alone in a paste, 7,344 tokens against 32,768.
CONFIG_AND_BLOCKS = ("INFO 01-11 15:51:02 llm_engine.py:70] Initializing an LLM engine with config: "
                     "model='/models/alpaca-2', dtype=torch.float16, max_seq_len=4096, download_dir=None, "
                     "tensor_parallel_size=1, seed=0)\n"
                     "INFO 01-11 15:51:18 llm_engine.py:275] # GPU blocks: 229, # CPU blocks: 512\n")
SEQ_LEN_ERROR = ("ValueError: The model's max seq len (32768) is larger than the maximum number of tokens that can be "
                 "stored in KV cache (7344). Try increasing `gpu_memory_utilization` or decreasing `max_model_len` when "
                 "initializing the engine.\n")


@pytest.mark.parametrize(("text", "fits"), [(CONFIG_AND_BLOCKS, 229 * 16 / 4096), (SEQ_LEN_ERROR, 7344 / 32768)])
def test_a_vllm_cache_under_one_full_length_request_is_kv_capacity(tmp_path, text, fits):
    diagnosis = diagnose_files([write(tmp_path, text)])
    assert diagnosis.verdict == "kv-capacity"
    item = next(item for item in diagnosis.evidence if item.rule == "state-few-full-requests")
    assert item.numbers["max_concurrency_at_length"] == pytest.approx(fits)


@pytest.mark.parametrize(("line", "event"), [
    ("RuntimeError: Decode out of memory. Try to lower your batch size.", "oom"),
    ("[2025-03-03 06:49:28 TP5] Input length (160062 tokens) exceeds the maximum allowed length (59862 tokens). Use a "
     "shorter input or enable --allow-auto-truncate.", "too_long_rejections")])
def test_sglang_out_of_kv_room_lines_are_kv_capacity(tmp_path, line, event):
    diagnosis = diagnose_files([write(tmp_path, line + "\n")])
    assert diagnosis.verdict == "kv-capacity"
    assert diagnosis.events[event] == 1


def _llama_cli(device_line: str, ms_per_token: float, size_gib: float = 2.64) -> str:
    """A llama-cli run of a model in f16 whose log states its file size (16.01 bits a weight)."""
    runs = 63
    return (f"{device_line}\n"
            f"0.00.095.806 I print_info: file size   = {size_gib:.2f} GiB (16.01 BPW) \n"
            "0.02.190.808 I llama_perf_context_print: prompt eval time =      43.74 ms /     7 tokens (    6.25 ms per "
            "token,   160.03 tokens per second)\n"
            f"0.02.190.809 I llama_perf_context_print:        eval time =    {ms_per_token * runs:.2f} ms /    {runs} "
            f"runs   (   {ms_per_token:.2f} ms per token,    {1000 / ms_per_token:.2f} tokens per second)\n")


METAL = "0.00.064.492 I llama_model_load_from_file_impl: using device Metal (Apple M4) - 10922 MiB free"


def test_a_metal_run_is_judged_by_an_apple_chips_memory_and_the_logs_file_size(tmp_path):
    # 2.64 GiB a step (the log's file size, not the name's guessed 4.5 bits): on the base M1's 68.25 GB/s at 70 % it
    # takes 2.64 × 2**30 / (0.7 × 68.25e9) = 59.3 ms, so 28.4 ms a token is no slow Mac; on a 360 GB/s card (11.2 ms)
    # it would be 2.5× too slow
    diagnosis = diagnose_files([write(tmp_path, _llama_cli(METAL, 28.37))], model="EleutherAI/pythia-1.4b")
    assert diagnosis.verdict == "healthy"
    # a 160M model's 0.30 GiB takes 0.30 × 2**30 / (0.7 × 68.25e9) = 6.7 ms there: 50 ms a token is 7× too slow
    diagnosis = diagnose_files([write(tmp_path, _llama_cli(METAL, 50.0, 0.30))], model="EleutherAI/pythia-160m")
    item = next(item for item in diagnosis.evidence if item.rule == "requests-slower-than-size-allows")
    # (plus its 12 layers' launches, as the catalogue's GPT-2 nearest it in size: 12 × 46 µs, since the twenty-ninth
    # session)
    assert item.numbers["slow_card_seconds_per_token"] == pytest.approx(0.30 * 2**30 / (0.7 * 68.25e9) + 12 * 46e-6,
                                                                         rel=1e-3)
    assert "the log's file size" in item.text


def test_a_cold_start_in_one_of_several_requests_is_a_note():
    # ollama-bash-lib's demo: the first call loads the model (1,158.8 ms of its 1,876 ms), the second is warm (11.6 ms
    # of load); both decode ~9.5 ms a token
    diagnosis = diagnose_files([FIXTURES / "blind189_logs" /
                                "ollama__bash-lib-demo-generate-stream-json-granite33-2b-cold-and-warm-final-stats.txt"])
    assert "requests-cold-start" not in {item.rule for item in diagnosis.evidence}
    assert any("cold start, left out" in note for note in diagnosis.notes)


def test_a_per_gpu_rate_column_is_not_a_run_and_a_step_within_the_realistic_estimate_is_not_engine_bound():
    # InferenceX#1208: MiniMax-M2.5 on MI300X, concurrency 4: TPOT 15.3 ms, 3.20 ms the ledger's floor (21 %) but
    # 11.6 ms its realistic estimate (1.32×, inside the 1.5× the rule allows); `Out tok/s/GPU` is the same run's rate
    # divided by its 16 cards, not a second run
    path = FIXTURES / "blind190_logs" / "vllm__inferencex-minimax-m25-1p1d-16x-mi300x-conc-sweep-table.txt"
    diagnosis = diagnose_files([path], model="MiniMaxAI/MiniMax-M2.5", gpu="mi300x")
    rules = {item.rule for item in diagnosis.evidence}
    assert "hardware-decode-far-below-floor" not in rules
    assert "summary-parts-unaccounted" not in rules
    rates = [record.metrics.get("output_tokens_per_second") for record in read_records(path)
             if record.kind == "summary"]
    assert rates[:2] == [259.0, 484.0]


def test_a_scripts_numbered_runs_with_a_token_rate_are_one_streams_runs(tmp_path):
    # lemonade#1537: five runs of 200 tokens; 83.7 tok/s is 1 / 83.7 = 11.9 ms a token
    text = "".join(f"  Run {number}: 83.7 tok/s (200 tokens, 2389ms)\n" for number in range(1, 4))
    records = [record for record in read_records(write(tmp_path, text)) if record.kind == "summary"]
    assert [record.metrics for record in records] == [{"output_tokens_per_second_per_user_mean": 83.7}] * 3
    diagnosis = diagnose_files([write(tmp_path, text)])
    assert diagnosis.verdict == "healthy"


def test_a_lone_prefill_line_with_nothing_pending_is_no_prompt_in_chunks(tmp_path):
    # sglang#32255: one 402-token prefill after idle; its 24.32 input tok/s is averaged over the idle gap before it
    line = ("[2026-07-24 08:09:27 TP0] Prefill batch, #new-seq: 1, #new-token: 402, #cached-token: 0, full token usage: "
            "0.00, mamba usage: 0.02, #running-req: 0, #queue-req: 0, #pending-token: 0, cuda graph: True, input "
            "throughput (token/s): 24.32\n")
    diagnosis = diagnose_files([write(tmp_path, line)])
    assert "windows-prompt-in-chunks" not in {item.rule for item in diagnosis.evidence}


def test_speculative_drafts_almost_never_accepted_are_decode_bound():
    # vllm#41789: mean acceptance length 1.03 (25 of 3,652 and 15 of 1,724 drafted tokens accepted, under 1 %)
    path = FIXTURES / "blind199_logs" / "vllm__gemma4-31b-mtp-specdecoding-metrics-acceptance-near-zero.txt"
    diagnosis = diagnose_files([path])
    assert diagnosis.verdict == "decode-bound"
    item = next(item for item in diagnosis.evidence if item.rule == "windows-spec-drafts-rejected")
    assert item.numbers["spec_mean_acceptance_length"] == pytest.approx(1.03)
    assert any("turn speculative decoding off" in line for line in diagnosis.advice)


def test_vllm_prompts_over_the_schedulers_limit_are_read_and_noted(tmp_path):
    line = "WARNING 02-13 07:19:11 scheduler.py:949] Input prompt (32889 tokens) is too long and exceeds limit of 2048\n"
    diagnosis = diagnose_files([write(tmp_path, line)])
    assert diagnosis.verdict == "insufficient-data"
    assert diagnosis.events["prompts_over_limit"] == 1
    assert any("refused as longer than the engine's limit" in note for note in diagnosis.notes)


# The engines' own words for a KV cache that cannot hold what was asked: llama-server refusing a request longer than its
# slot (anomalyco/opencode#11286), vLLM V1 refusing to start (a full-length request needs 10.12 GiB, 5.59 GiB left), and
# llama.cpp failing to allocate a 36,864 MiB cache for a default context at load (janhq/jan#8236).
KV_REFUSALS = [
    ("srv    send_error: task id = 0, error: request (68885 tokens) exceeds the available context size (65536 tokens), "
     "try increasing it\n", "too_long_rejections"),
    ("ValueError: To serve at least one request with the models's max seq len (221000), (10.12 GiB KV cache is needed, "
     "which is larger than the available KV cache memory (5.59 GiB). Based on the available memory, the estimated "
     "maximum model length is 122080.\n", "kv_start_refusals"),
    ("0.01.047.215 E ggml_backend_cuda_buffer_type_alloc_buffer: allocating 36864.00 MiB on device 0: cudaMalloc "
     "failed: out of memory\n0.01.048.446 E llama_init_from_model: failed to initialize the context: failed to "
     "allocate buffer for kv cache\n", "kv_start_refusals"),
]


@pytest.mark.parametrize(("text", "event"), KV_REFUSALS)
def test_an_engines_refusal_for_want_of_kv_cache_is_kv_capacity(tmp_path, text, event):
    diagnosis = diagnose_files([write(tmp_path, text)])
    assert diagnosis.verdict == "kv-capacity"
    assert diagnosis.events[event] == 1
