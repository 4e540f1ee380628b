"""Blind rounds 796 on: the general fixes of the thirty-fifth session. Expected figures are worked out here."""

from __future__ import annotations

import pytest
from blind_helpers import FIXTURES, diagnosed, parsed, write


def _said(diagnosis, *words) -> bool:
    """Whether one piece of the diagnosis' evidence says every one of `words`."""
    return any(all(word in evidence.text for word in words) for evidence in diagnosis.evidence)


def _fired(diagnosis, rule: str) -> bool:
    return any(evidence.rule == rule for evidence in diagnosis.evidence)


# candle-vllm's scheduler (Rust, tracing's layout: the stamp, the level right-aligned in five, the target) logging a
# 178,460-token prompt chunk by chunk, with no compose prefix before it (blind779's lines as `docker logs` prints them).
_TRACING_PROGRESS = """\
2025-09-15T02:30:04.602320Z  INFO candle_vllm::scheduler: Seq 3 chunk prefilled 8192/178460 tokens
2025-09-15T02:30:15.688730Z  INFO candle_vllm::scheduler: Seq 3 chunk prefilled 16384/178460 tokens
2025-09-15T02:30:26.770282Z  INFO candle_vllm::scheduler: Seq 3 chunk prefilled 24576/178460 tokens
2025-09-15T02:30:37.889952Z  INFO candle_vllm::scheduler: Seq 3 chunk prefilled 32768/178460 tokens
"""


def test_a_rust_tracing_stamp_is_the_lines_own_time(tmp_path):
    diagnosis = diagnosed(tmp_path, _TRACING_PROGRESS, "candle.log")
    # 32768 - 8192 = 24576 tokens in 37.889952 - 4.602320 = 33.288 s: 738 tok/s; 32768 / 178460 = 18% read
    assert diagnosis.verdict == "prefill-bound"  # was insufficient-data: the stamps were cleaned off as docker's
    assert _said(diagnosis, "18% of it read")
    assert _said(diagnosis, "178,460 tokens at 738 tok/s")


def test_docker_stamps_before_an_engine_line_are_still_cleaned_off(tmp_path):
    # guard (the first pair; the second failed before): docker --timestamps before vLLM's own `ERROR 05-12 …`
    # lines is the deployment's prefix
    from inferledger.diagnose.read import clean_line

    vllm_line = "ERROR 05-12 08:01:39 [engine.py:160] RuntimeError: CUDA error: out of memory"
    assert clean_line("2026-05-12T08:01:39.331095044Z " + vllm_line) == vllm_line
    tracing_line = "2025-09-15T02:30:04.602320Z ERROR candle_vllm::scheduler: step failed"
    assert clean_line("2026-05-12T08:01:39.331095044Z " + tracing_line) == tracing_line


# `ollama ps` from the terminal, then again after an editor's API calls, pasted as Markdown tables (ollama#7081, round
# 796): the same model ID, 9.6 GB all on the GPU, then 19 GB at 43%/57% CPU/GPU.
_PS_TWICE = """\
| NAME                     | ID            | SIZE    | PROCESSOR  | UNTIL               |
|--------------------------|---------------|---------|------------|---------------------|
| codestral:22b-v0.1-q2_K   | 0e1127d332ef  | 9.6 GB  | 100% GPU   | 4 minutes from now  |

| NAME                     | ID            | SIZE    | PROCESSOR          | UNTIL        |
|--------------------------|---------------|---------|--------------------|--------------|
| codestral:22b-v0.1-q2_K   | 0e1127d332ef  | 19 GB   | 43%/57% CPU/GPU    | Stopping...  |
"""


def test_a_model_reloaded_larger_and_off_the_gpu_grew_its_cache(tmp_path):
    diagnosis = diagnosed(tmp_path, _PS_TWICE, "ps.md")
    # one ID is one set of weights: 19 - 9.6 = 9.4 GB grew with the reload, and the share on the GPU fell to 57%
    assert diagnosis.verdict == "kv-capacity"  # was insufficient-data: the Markdown rows were not read
    assert _said(diagnosis, "held 9.6 GB with 100% on the GPU, then 19.0 GB with 57%", "the 9.4 GB it grew")
    # the fix is a shorter context, not the longer one the single-stream runners' kv-capacity advice asks for
    assert any("smaller num_ctx" in tip for tip in diagnosis.advice)
    assert not any("larger context window" in tip for tip in diagnosis.advice)


def test_another_model_or_a_smaller_reload_is_no_growth(tmp_path):
    # guard: two models side by side (blind8's llama3:70b split and llama3:latest on the GPU) are two IDs, and the same
    # ID reloaded smaller is no cache growth
    two_models = _PS_TWICE.replace("0e1127d332ef  | 19 GB", "a6990ed6be41  | 19 GB")
    assert not _fired(diagnosed(tmp_path, two_models, "two.md"), "state-reload-pushes-layers-off")
    smaller = _PS_TWICE.replace("19 GB ", "8.1 GB")
    assert not _fired(diagnosed(tmp_path, smaller, "smaller.md"), "state-reload-pushes-layers-off")


def test_a_cache_that_pushes_layers_off_is_answered_with_a_shorter_context():
    # ollama#12305 (blind290): 20 GiB of KV beside 13 GiB of weights, no layer on the card; was advised a larger
    # context window, the single-stream runners' advice for a window that fills
    from inferledger.diagnose import diagnose_files

    path = FIXTURES / "blind290_logs" / "ollama__windows-runner-offload-zero-layers-kv-20gib-quadro-rtx3000.txt"
    advice = diagnose_files([path]).advice
    assert any("smaller num_ctx" in tip for tip in advice)
    assert not any("larger context window" in tip for tip in advice)


def test_a_context_cut_to_the_kv_cache_at_start_is_kv_capacity(tmp_path):
    # LMDeploy TurboMind asked for a 202,752-token context on one 32 GB V100 (round 802): the cache held 4,928
    log = ("[TM][WARNING] [TM] `max_context_token_num` is not set, default to 202752.\n"
           "[TM][WARNING] [SegMgr] prefix caching is enabled\n"
           "[TM][WARNING] `session_len` truncated to 4928 due to limited KV cache memory\n")
    diagnosis = diagnosed(tmp_path, log, "turbomind.log")
    assert diagnosis.verdict == "kv-capacity"  # was insufficient-data: an unknown layout with no numbers read
    assert any(evidence.lines == [3] for evidence in diagnosis.evidence if evidence.verdict == "kv-capacity")


# compare-llama-bench rows cut from the top of their table (round 804: llama.cpp#8495; round 808: llama.cpp#10581):
# the model first, then the device and the micro-batch size; or the model, its size, the backend and the threads.
_COMPARE_MODEL_FIRST = """\
| llama 8B IQ2_XXS - 2.0625 bpw   | RTX 3090   |                 512 | pp2048 |    4078.77 |  4161.70 |    1.02 |
| llama 8B IQ2_XXS - 2.0625 bpw   | RTX 3090   |                1024 | pp2048 |    4046.51 |  4278.76 |    1.06 |
"""
_COMPARE_SMALL_BATCHES = """\
| qwen2 14B Q6_K   |  11.29 GiB | Metal,BLAS |  1 |           pp1 |         42.24 ± 0.17 |         42.06 ± 0.15 |    1.00 |
| qwen2 14B Q6_K   |  11.29 GiB | Metal,BLAS |  1 |           pp5 |         38.59 ± 0.04 |         86.23 ± 0.11 |    2.23 |
"""


def test_compare_rows_without_their_header_in_other_layouts_are_read(tmp_path):
    from inferledger.diagnose.parsers import llamacpp

    rows = parsed(llamacpp, write(tmp_path, _COMPARE_MODEL_FIRST))
    # two rows, each under two builds: 4,078.77 / 4,161.70 and 4,046.51 / 4,278.76 prompt tok/s (was unread)
    assert [row.metrics["prompt_tokens_per_second"] for row in rows] == [4078.77, 4161.70, 4046.51, 4278.76]
    assert {row.labels["gpu"] for row in rows} == {"RTX 3090"}
    assert {row.labels["n_ubatch"] for row in rows} == {"512", "1024"}
    small = parsed(llamacpp, write(tmp_path, _COMPARE_SMALL_BATCHES))
    assert len(small) == 4
    assert all("gpu" not in row.labels for row in small)  # `Metal,BLAS` is the backend, not a device


def test_a_one_token_prompt_is_a_decode_step(tmp_path):
    from inferledger.diagnose.parsers import llamacpp

    pp1 = parsed(llamacpp, write(tmp_path, _COMPARE_SMALL_BATCHES))[0]
    # llama-bench -p 1: one token a forward step at an empty context, 42.24 tok/s of one stream's generation
    assert pp1.metrics["generation_tokens_per_second"] == 42.24
    assert "prompt_tokens_per_second" not in pp1.metrics


def test_a_build_slower_at_a_few_tokens_a_step_is_slower_at_decoding(tmp_path):
    diagnosis = diagnosed(tmp_path, _COMPARE_SMALL_BATCHES, "compare.md")
    # pp5: 86.23 / 38.59 = 2.2× between the builds, five tokens a step: the kernels of batched decoding (was read
    # as prompt processing, prefill-bound)
    assert diagnosis.verdict == "decode-bound"
    assert _said(diagnosis, "pp5", "38.59 tok/s", "86.23 tok/s", "2.2× slower", "generation")
    # guard: the same gap at pp512 is prompt processing's
    large = _COMPARE_SMALL_BATCHES.replace("pp5 ", "pp512 ").replace("pp1 ", "tg128")
    assert diagnosed(tmp_path, large, "large.md").verdict == "prefill-bound"


def test_a_compare_table_without_outer_bars_and_rates_named_t_s_after_the_build_is_read(tmp_path):
    from inferledger.diagnose.parsers import llamacpp

    # KleidiAI's Graviton 3 table (round 814): GitHub's bar-less Markdown, each build's column `… (t/s)`
    table = ("Threads  | Test   | w/o SVE (t/s)     | w/ SVE (t/s)      | Uplift (%)\n"
             "---------|--------|------------------|-------------------|------------\n"
             "1        | pp512  | 75.09 ± 0.02     | 84.51 ± 0.05      | +12.55%\n"
             "1        | tg128  | 18.69 ± 0.01     | 20.49 ± 0.00      | +9.63%\n")
    rows = parsed(llamacpp, write(tmp_path, table))
    assert [(row.labels["build"], next(iter(row.metrics.values()))) for row in rows] == [
        ("w/o sve", 75.09), ("w/ sve", 84.51), ("w/o sve", 18.69), ("w/ sve", 20.49)]


def test_the_shell_prompt_before_a_scrape_is_no_damaged_sample(tmp_path):
    # Higress's gateway stats (round 815): the command's prompt line, then samples of metrics no reader knows
    scrape = ('istio-proxy@higress-gateway-744b4fc98d-qh477:/$ curl -sS http://127.0.0.1:15020/stats/prometheus\n'
              '# TYPE route_upstream_model_consumer_metric_input_token counter\n'
              'route_upstream_model_consumer_metric_input_token{ai_route="r",ai_model="llama3.2:1b"} 116\n')
    # was refused as prometheus output whose every line is damaged (the prompt read as a sample without a value)
    assert diagnosed(tmp_path, scrape, "stats.txt").verdict == "insufficient-data"


# sglang.bench_one_batch of late 2024 (round 819: sglang#2712): no `Warmup ...` marker, `Benchmark ...` before each
# batch size's measured run, so the run after a measured one, with no marker, is the next batch size's warm-up.
_ONE_BATCH_PER_SIZE_WARMUPS = """\
Prefill. latency: 2.03397 s, throughput:     62.93 token/s
Decode.  latency: 2.15392 s, throughput:      0.46 token/s
Decode.  latency: 0.02824 s, throughput:     35.41 token/s
Decode.  median latency: 0.02776 s, median throughput:     36.02 token/s
Total. latency:  4.355 s, throughput:     31.23 token/s
Benchmark ...
Prefill. latency: 0.14870 s, throughput:    860.77 token/s
Decode.  latency: 0.02796 s, throughput:     35.76 token/s
Decode.  median latency: 0.02796 s, median throughput:     35.76 token/s
Total. latency:  7.268 s, throughput:     52.84 token/s

Prefill. latency: 5.71712 s, throughput:    179.11 token/s
Decode.  latency: 2.32011 s, throughput:      3.45 token/s
"""


def test_a_run_after_a_measured_one_without_its_marker_is_the_next_warm_up(tmp_path):
    from inferledger.diagnose.parsers import sglang_one_batch

    (run,) = parsed(sglang_one_batch, write(tmp_path, _ONE_BATCH_PER_SIZE_WARMUPS))
    # the measured run only: prefill 0.14870 s, median step 0.02796 s (the trailing 2.32 s step compiled kernels)
    assert run.metrics["ttft_seconds_mean"] == 0.1487
    assert run.metrics["tpot_seconds_median"] == 0.02796
    assert diagnosed(tmp_path, _ONE_BATCH_PER_SIZE_WARMUPS, "one_batch.txt").verdict == "healthy"  # was decode-bound


def test_runs_after_one_benchmark_marker_are_all_measured(tmp_path):
    from inferledger.diagnose.parsers import sglang_one_batch

    # later releases print `Warmup ...` and `Benchmark ...` once, then every configuration's run (blind485)
    log = ("Warmup ...\n" + _ONE_BATCH_PER_SIZE_WARMUPS.split("Benchmark ...\n")[0] + "Benchmark ...\n"
           "Prefill. latency: 3.73642 s, throughput:   1096.24 token/s\n"
           "Total. latency:  3.736 s, throughput:   1097.31 token/s\n"
           "Prefill. latency: 3.58247 s, throughput:   1143.34 token/s\n"
           "Decode.  median latency: 0.01889 s, median throughput:    211.78 token/s\n"
           "Total. latency: 22.969 s, throughput:    356.65 token/s\n"
           "Prefill. latency: 7.19562 s, throughput:   1138.47 token/s\n"
           "Total. latency:  7.196 s, throughput:   1139.58 token/s\n"
           "Prefill. latency: 7.16274 s, throughput:   1143.70 token/s\n"
           "Decode.  median latency: 0.02310 s, median throughput:    346.26 token/s\n")
    runs = parsed(sglang_one_batch, write(tmp_path, log))
    # four configurations, four runs (the third was taken for a first run's warm-up and dropped)
    assert [run.metrics["ttft_seconds_mean"] for run in runs] == [3.73642, 3.58247, 7.19562, 7.16274]


def test_a_stream_chunk_logged_by_a_browser_console_is_read_with_its_source_tail(tmp_path):
    # Open WebUI's page logging ollama's stream (round 822: open-webui#1588): Firefox's `[file.js:7:40]` after each
    chunk = ('{"model":"pino:latest","created_at":"2024-04-17T16:15:48.632559068Z","message":{"role":"assistant",'
             '"content":""},"done":true,"total_duration":28659780080,"load_duration":28186422382,'
             '"prompt_eval_count":43,"prompt_eval_duration":36463000,"eval_count":61,"eval_duration":436111000}'
             ' [3.da31ebab.js:7:40](https://example.org/_app/immutable/nodes/3.da31ebab.js)\n')
    diagnosis = diagnosed(tmp_path, chunk, "console.txt")
    # load 28.186 s of the 28.660 s total = 98%: a cold start (was: no numbers read); the answer's 61 tokens in
    # 436.1 ms (7.15 ms a token) are timed apart from it and judged (thirty-seventh session: the cold start a note)
    assert diagnosis.verdict == "healthy"
    assert any("model load 28,186 ms is 98% of the request time: a cold start" in note for note in diagnosis.notes)


def test_a_test_split_over_task_and_tokens_columns_is_llama_benchs(tmp_path):
    from inferledger.diagnose.parsers import llamacpp

    # ggml-sycl's F16 build against its F32 build on an Arc Pro B70 (round 832: llama.cpp PR table)
    table = ("| Model | Task | Tokens | F32 (tok/s) | F16 (tok/s) | Speedup |\n"
             "| --- | --- | ---: | ---: | ---: | ---: |\n"
             "| DeepSeek-R1-Qwen-32B-Q4 | pp | 512 | 255.34 ±0.00 | 702.80 ±0.00 | 2.75x |\n"
             "| DeepSeek-R1-Qwen-32B-Q4 | tg | 128 | 20.99 ±0.00 | 20.97 ±0.00 | 1.00x |\n")
    rows = parsed(llamacpp, write(tmp_path, table))
    # pp512 is prompt processing under each build, tg128 generation (the markdown reader took every cell for decode)
    assert [(row.labels["build"], row.metrics.get("prompt_tokens_per_second"),
             row.metrics.get("generation_tokens_per_second")) for row in rows] == [
        ("f32", 255.34, None), ("f16", 702.8, None), ("f32", None, 20.99), ("f16", None, 20.97)]
    diagnosis = diagnosed(tmp_path, table, "sycl.md")
    # was decode-bound: `4.5-bit weights decode at 255.3 tok/s, 0.36× the 16-bit run`, a build read as a format
    assert not _said(diagnosis, "4.5-bit weights decode")
    assert diagnosis.verdict != "decode-bound"


# The server's refusal of a request longer than the model's context, as RAG and agent apps print it.
_WINDOW_REFUSALS = [
    # vLLM's OpenAI server (round 811: a Ray Serve RAG service)
    "openai.BadRequestError: Error code: 400 - {'object': 'error', 'message': \"This model's maximum context length "
    "is 4096 tokens. However, you requested 6379 tokens (6029 in the messages, 350 in the completion).\"}",
    # vLLM V1's engine (round 831: lmms-eval)
    "ValueError: The decoder prompt (length 163270) is longer than the maximum model length of 128000.",
    # TGI's validation (round 821: a UI-TARS endpoint)
    "Input validation error: `inputs` tokens + `max_new_tokens` must be <= 65537. Given: 79993 `inputs` tokens and "
    "1024 `max_new_tokens`",
    # OpenAI's code (blind690: Azure chat with your data)
    "openai.BadRequestError: Error code: 400 - {'error': {'code': 'context_length_exceeded', 'message': 'too long'}}",
]


@pytest.mark.parametrize("refusal", _WINDOW_REFUSALS)
def test_a_request_refused_as_longer_than_the_models_context_is_kv_capacity(tmp_path, refusal):
    diagnosis = diagnosed(tmp_path, refusal + "\n", "app.log")
    # was insufficient-data: the model's own window was not read (every blind reading of such a refusal accepts
    # kv-capacity)
    assert diagnosis.verdict == "kv-capacity"
    assert _said(diagnosis, "1 request(s) refused as longer than the engine can hold")


def test_a_context_window_named_in_prose_is_no_refusal(tmp_path):
    # guard: a model card's statement of its window refuses nothing
    card = "The model's maximum context length is 32768 tokens; decode runs at 41.2 tok/s on one RTX 4090.\n"
    assert not _said(diagnosed(tmp_path, card, "card.md"), "refused as longer")


def test_ai_on_gke_benchmark_reports_are_read(tmp_path):
    from inferledger.diagnose.parsers import bench_clients

    # ai-on-gke's benchmark_serving.py JSON (blind296: ai-on-gke#866), its latencies in ms, per-token latency in s
    report = ('{"summary_stats": {"stats": [{"request_rate": 10, "per_token_latency": {"mean": 0.0738}, '
              '"request_latency": {"mean": 15297.4, "p99": 19976.9}, "tpot": {"mean": 83.1}, '
              '"input_length": {"mean": 18}}]}}\n')
    (run,) = parsed(bench_clients, write(tmp_path, report))
    # 15,297.4 ms = 15.2974 s, 83.1 ms = 0.0831 s; was refused as `JSON document cut before any benchmark value`
    assert run.metrics["e2e_seconds_mean"] == pytest.approx(15.2974)
    assert run.metrics["e2e_seconds_p99"] == pytest.approx(19.9769)
    assert run.metrics["tpot_seconds_mean"] == pytest.approx(0.0831)
    assert run.metrics["e2e_per_output_token_seconds_mean"] == pytest.approx(0.0738)
    assert run.metrics["request_rate_per_second"] == 10
    assert run.metrics["mean_input_tokens"] == 18


def test_a_prompt_read_again_from_its_start_is_prefill_bound(tmp_path):
    # llama-server with a sliding-window model (round 801: a Gemma 3 chat resending its history)
    log = ("slot update_slots: id  0 | task 2014 | new prompt, n_ctx_slot = 40192, n_keep = 0, n_prompt_tokens = 10423\n"
           "slot update_slots: id  0 | task 2014 | forcing full prompt re-processing due to lack of cache data (likely "
           "due to SWA, see https://github.com/ggml-org/llama.cpp/pull/13194#issuecomment-2868343055)\n")
    diagnosis = diagnosed(tmp_path, log, "server.log")
    assert diagnosis.verdict == "prefill-bound"  # was insufficient-data: a start-up-like slot line, nothing timed
    assert _said(diagnosis, "1 prompt(s) read again from the start")
    # guard: prose saying a model forces it (a blog's sentence) is no server line
    prose = "Qwen 3.5's recurrent architecture still forces full prompt re-processing on every turn.\n"
    assert diagnosed(tmp_path, prose + log.splitlines()[0] + "\n", "blog.md").verdict != "prefill-bound"
