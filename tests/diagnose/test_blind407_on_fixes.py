"""Blind rounds 407 on: the general fixes of the twentieth session. Expected figures are worked out here."""

from __future__ import annotations

import pytest
from blind_helpers import markdown_summaries, write

from inferledger.diagnose import diagnose_files
from inferledger.diagnose.parsers import (
    bench_markdown,
    generic_phrases,
    generic_summary,
    llamacpp,
    local_runners,
    ollama,
)
from inferledger.diagnose.records import Record
from inferledger.errors import LogFormatError

STREAM = "output_tokens_per_second_per_user_mean"


_summaries = markdown_summaries


def test_a_before_after_cell_reads_as_its_after_figure(tmp_path):
    # A PR's table (vllm-project/vllm#51653's shape): each cell is the old runner's figure, an arrow, the new one's
    # and the change. The row is the new run: 34.3 tok/s, TTFT 8,024 ms = 8.024 s, ITL 21.32 ms = 0.02132 s.
    text = ("| conc | out tok/s | TTFT p50 | ITL p50 |\n|---|---|---|---|\n"
            "| 1 | 34.1 -> 34.3 +1% | 8054 -> 8024 +0% | 21.46 -> 21.32 +1% |\n")
    (record,) = _summaries(tmp_path, text)
    assert record.metrics["output_tokens_per_second"] == 34.3
    assert abs(record.metrics["ttft_seconds_median"] - 8.024) < 1e-12
    assert abs(record.metrics["itl_seconds_median"] - 0.02132) < 1e-12


def test_a_before_after_cell_with_units_and_change_in_brackets(tmp_path):
    # `993.65 → 994.31 tok/s (+0.07%)` and `57.91 → 57.84 ms (-0.12%)`: the after figures with their units.
    text = ("| Scenario | Output throughput | Mean TTFT | Mean TPOT |\n|---|---|---|---|\n"
            "| FM | 993.65 → 994.31 tok/s (+0.07%) | 5279.36 → 5279.96 ms (+0.01%) | 57.91 → 57.84 ms (-0.12%) |\n")
    (record,) = _summaries(tmp_path, text)
    assert record.metrics["output_tokens_per_second"] == 994.31
    assert abs(record.metrics["tpot_seconds_mean"] - 0.05784) < 1e-12


def test_a_range_or_a_chain_of_figures_is_no_before_after():
    # Only one arrow between two figures is a change; `1 -> 2 -> 3` and words are left as they are.
    assert bench_markdown._after_figure("1 -> 2 -> 3") == "1 -> 2 -> 3"
    assert bench_markdown._after_figure("v0.25 → PR") == "v0.25 → PR"
    assert bench_markdown._after_figure("2.67s → 2.13s") == "2.13s"


_STARTUP = ("(EngineCore_0 pid=5839) INFO 08-20 18:04:10 [gpu_model_runner.py:2007] Model loading took 65.9651 GiB and "
            "12.799889 seconds\n"
            "(EngineCore_0 pid=5839) INFO 08-20 18:04:22 [gpu_worker.py:276] Available KV cache memory: {kv} GiB\n")
_SIZED = ("(EngineCore_0 pid=5839) INFO 08-20 18:04:23 [kv_cache_utils.py:849] GPU KV cache size: 158,528 tokens\n")
_FAILED = "(EngineCore_0 pid=5839) ERROR 08-20 18:04:24 [core.py:700] EngineCore failed to start.\n"


def _diagnose(tmp_path, text: str):
    return diagnose_files([write(tmp_path, text, "vllm.log")])


def test_negative_kv_memory_is_a_start_up_refusal(tmp_path):
    # vllm-project/vllm's gpt-oss-120b on an H100 (blind411): 65.97 GiB of weights and the activations leave
    # -2.14 GiB for the cache; no cache, no engine.
    diagnosis = _diagnose(tmp_path, _STARTUP.format(kv="-2.14"))
    assert diagnosis.events.get("kv_start_refusals") == 1
    assert diagnosis.verdict == "kv-capacity"


def test_an_engine_dying_before_it_sized_the_cache_is_kv_capacity(tmp_path):
    # 1.71 GiB found for the cache, then `EngineCore failed to start` before any `GPU KV cache size` line: it died
    # sizing the cache for its context.
    assert _diagnose(tmp_path, _STARTUP.format(kv="1.71") + _FAILED).verdict == "kv-capacity"


def test_an_engine_dying_after_it_sized_the_cache_is_not_kv_capacity(tmp_path):
    # The cache was sized (158,528 tokens): what killed it came later (graph capture, a worker), not the KV cache.
    diagnosis = _diagnose(tmp_path, _STARTUP.format(kv="9.71") + _SIZED + _FAILED)
    assert diagnosis.verdict != "kv-capacity"
    assert diagnosis.events.get("engine_start_failures") == 1


def test_a_header_rule_of_single_dashes_opens_a_table(tmp_path):
    # GitHub's tables need only one dash a cell under the header, a colon beside it for its alignment (a curated
    # run's table in ollama37 writes `|---|--:|`; llm-compressor's README `|-      |-      |`).
    text = "| Model | GPU offload | decode | verdict |\n|---|--:|--:|---|\n| qwen3.5:4b | **70%** | **8.9 t/s** | PASS |\n"
    assert [record.metrics[STREAM] for record in _summaries(tmp_path, text)] == [8.9]


def test_a_label_of_tokens_per_second_is_a_rate_not_seconds():
    # `Generation Tok / Sec: 488.13` is 488.13 tokens a second (not 488.13 seconds of decode); `Generations / Sec`
    # names no tokens and stays unread as a rate of tokens.
    lines = [(1, "* Generation Tok / Sec:         488.13"), (2, "* Prompt Tok / Sec:             1180.01")]
    (record,) = [item for item in generic_phrases.parse(lines) if isinstance(item, Record)]
    assert record.metrics["generation_tokens_per_second"] == 488.13
    assert record.metrics["prompt_tokens_per_second"] == 1180.01
    assert "decode_seconds" not in record.metrics and "prefill_seconds" not in record.metrics


def test_the_word_nearest_a_rate_names_it():
    # GPUStack's performance lab flattened: a case (`Short Prompt`) named before its total rate; the total is the
    # run's prompt and output tokens together, not its prompt's. `Total prompt tok/s` stays the prompt's.
    lines = [(1, "Short Prompt Total TPS: 5796.73"), (2, "Mean TPOT(ms): 525.31")]
    (record,) = [item for item in generic_summary.parse(lines) if isinstance(item, Record)]
    assert record.metrics["total_tokens_per_second"] == 5796.73
    assert "input_tokens_per_second" not in record.metrics
    lines = [(1, "Total prompt tok/s: 812.5"), (2, "Mean TPOT(ms): 25.0")]
    (record,) = [item for item in generic_summary.parse(lines) if isinstance(item, Record)]
    assert record.metrics["input_tokens_per_second"] == 812.5


def test_a_static_batch_sweep_has_no_queue(tmp_path):
    # text-generation-benchmark prefills each batch in one call on the model shard (no router): the first token of
    # batch 32 comes after 32 prompts' prefill, 12.5× batch 1's here for 32× the prompts, which is work, not waiting.
    text = ("| Step           | Batch Size | Average    | Lowest     | Highest    | p50        | p90        | p99        |\n"
            "|----------------|------------|------------|------------|------------|------------|------------|------------|\n"
            "| Prefill        | 1          | 345.72 ms  | 342.55 ms  | 348.42 ms  | 345.88 ms  | 348.42 ms  | 348.42 ms  |\n"
            "|                | 8          | 1179.98 ms | 1176.53 ms | 1185.13 ms | 1180.36 ms | 1185.13 ms | 1185.13 ms |\n"
            "|                | 32         | 4313.01 ms | 4273.01 ms | 4603.97 ms | 4282.30 ms | 4603.97 ms | 4603.97 ms |\n"
            "| Decode (token) | 1          | 12.38 ms   | 12.02 ms   | 15.06 ms   | 12.08 ms   | 12.12 ms   | 12.12 ms   |\n"
            "|                | 8          | 18.63 ms   | 16.75 ms   | 22.28 ms   | 19.55 ms   | 16.87 ms   | 16.87 ms   |\n"
            "|                | 32         | 27.76 ms   | 24.49 ms   | 33.47 ms   | 27.84 ms   | 29.67 ms   | 29.67 ms   |\n")
    diagnosis = _diagnose(tmp_path, text)
    assert diagnosis.verdict != "queueing"
    assert not any(item.verdict == "queueing" for item in diagnosis.evidence)


def test_rows_of_bare_figures_in_a_file_naming_serving_are_listed_unread(tmp_path):
    # A llama-bench comparison retyped as rows of bare figures (ggml-org/llama.cpp, a Strix Halo thread): no reader
    # knows it, but it is serving output, so its rows are listed unread and the verdict says so (not a refusal).
    text = ("Qwen3.6-35B-A3B, four separate llama-bench processes per arm:\n\n"
            "real  1697.85  1692.98  1700.51  1706.60   mean 1699.49\n"
            "fast  1725.00  1732.29  1723.65  1739.34   mean 1730.07\n")
    path = tmp_path / "pasted.txt"
    path.write_text(text)
    diagnosis = diagnose_files([path])
    assert diagnosis.verdict == "insufficient-data"
    assert [item["line_number"] for item in diagnosis.files[0]["unread_examples"]] == [3, 4]
    # The same rows with nothing naming serving are some other program's numbers.
    path.write_text(text.replace("Qwen3.6-35B-A3B, four separate llama-bench processes per arm", "two arms"))
    with pytest.raises(LogFormatError, match="no known log format"):
        diagnose_files([path])


def test_a_row_of_whole_numbers_in_a_file_naming_serving_is_listed_unread(tmp_path):
    # sglang's multi-LoRA table: tok/s as whole numbers with their share of the base's, under a header naming none.
    path = tmp_path / "pasted.txt"
    path.write_text("| topology | cuBLAS gate only | full series |\n|---|---|---|\n"
                    "| TP4/EP1 | 2435 (70%) / 4209 (69%) / 7067 (69%) | 2495 (72%) / 4417 (73%) |\n"
                    "python3 -m sglang.launch_server --model-path Qwen/Qwen3.5-35B-A3B-FP8\n")
    assert diagnose_files([path]).verdict == "insufficient-data"
    # Two numbers, a date and a time are no such row.
    path.write_text("engine: vllm\nrun 12 of 40 on 2024-05-14 10:00:00\n")
    with pytest.raises(LogFormatError, match="no known log format"):
        diagnose_files([path])


def test_a_version_or_a_date_is_no_figure_and_inference_names_serving(tmp_path):
    path = tmp_path / "pasted.txt"
    path.write_text("engine: vllm\nupgraded 0.4.2 to 0.5.1 on 2024-05-14\n")
    with pytest.raises(LogFormatError, match="no known log format"):
        diagnose_files([path])
    # djl-serving#586: a time of `inference` is a serving measurement
    path.write_text("HuggingFace Accelerate, with pipeline\nTime for inference with batch size 1 is 25.356090545654297s\n")
    assert diagnose_files([path]).verdict == "insufficient-data"


_BENCHMARKER = (
    "│ Benchmark          │ QPS        │ E2E Latency (avg) │ TTFT (avg) │ ITL (avg) │ Successful Requests │ "
    "Prompt tokens per req (avg) │ Decoded tokens per req (avg) │\n"
    "├────────────────────┼────────────┼───────────────────┼────────────┼───────────┼─────────────────────┼"
    "─────────────────────────────┼──────────────────────────────┤\n"
    "│ warmup             │ 0.72 req/s │ 1.40 sec          │ 65.69 ms   │ 7.44 ms   │ 10/10               │ "
    "200.00                      │ 177.40                       │\n"
    "│ constant@1.00req/s │ 0.71 req/s │ 3.42 sec          │ 2040.85 ms │ {itl}   │ 9/9                 │ "
    "200.00                      │ 183.44                       │\n")


def test_the_same_prompt_at_the_same_step_with_more_in_flight_waited(tmp_path):
    # inference-benchmarker on a one-slot llama-server (ik_llama.cpp#470): the warm-up, one request at a time, reads
    # the 200-token prompt in 65.69 ms; at 1 req/s offered the same prompt's first token takes 2,040.85 ms (31×)
    # while the step stays 7.44 → 7.52 ms. Requests in flight by Little's law: 0.72 × 1.40 = 1.0 against
    # 0.71 × 3.42 = 2.4: the first tokens waited for the slot.
    diagnosis = _diagnose(tmp_path, _BENCHMARKER.format(itl="7.52 ms"))
    assert diagnosis.verdict == "queueing"
    (finding,) = [item for item in diagnosis.evidence if item.rule == "summary-same-prompt-ttft-waits"]
    assert abs(finding.numbers["requests_in_flight"] - 0.71 * 3.42) < 1e-9
    assert abs(finding.numbers["same_prompt_requests_in_flight"] - 0.72 * 1.40) < 1e-9
    # A step 2× slower on the second run is another path reading the prompt slower, not a wait.
    diagnosis = _diagnose(tmp_path, _BENCHMARKER.format(itl="15.0 ms"))
    assert not any(item.rule == "summary-same-prompt-ttft-waits" for item in diagnosis.evidence)


def test_a_llama_bench_test_named_above_a_depth_table_is_its_cells_rate(tmp_path):
    # llama.cpp PR comment on a Strix Halo: `llama-bench tg64` above a table of bare figures a depth a row, one build a
    # column: each cell is one stream's generation rate at that context.
    text = ("**llama-bench tg64, no speculation:**\n\n| depth | before | this PR |\n|---:|---:|---:|\n"
            "| 1024 | 22.70 | 22.83 |\n| 32768 | ~15.2 | **17.68** (+17%) |\n")
    runs = [(record.labels["benchmark"], record.metrics["mean_input_tokens"], record.metrics[STREAM])
            for record in _summaries(tmp_path, text)]
    assert runs == [("before", 1024, 22.70), ("this PR", 1024, 22.83), ("before", 32768, 15.2),
                    ("this PR", 32768, 17.68)]


def test_the_runners_own_model_file_sets_the_floors_format(tmp_path):
    # llama.cpp's CI on a V100 (ggml-org/ci): the command line loads `ggml-model-f16.bin`, --model names only the
    # checkpoint. The floor reads 7B weights at 16 bits = 14.0 GB a step, not the usual GGUF's 4.5 bits (3.9 GB).
    text = ("+ ./bin/main --model ../models-mnt/open-llama/7B-v2/ggml-model-f16.bin -ngl 999 -n 256 --ignore-eos "
            "-p 'I believe the meaning of life is'\n"
            "llama_print_timings:        load time =  2994.26 ms\n"
            "llama_print_timings:      sample time =   145.28 ms /   256 runs   (    0.57 ms per token,  1762.18 "
            "tokens per second)\n"
            "llama_print_timings: prompt eval time =   170.37 ms /     8 tokens (   21.30 ms per token,    46.96 "
            "tokens per second)\n"
            "llama_print_timings:        eval time =  5092.80 ms /   255 runs   (   19.97 ms per token,    50.07 "
            "tokens per second)\n"
            "llama_print_timings:       total time =  5430.42 ms\n")
    path = tmp_path / "ci.log"
    path.write_text(text)
    diagnosis = diagnose_files([path], model="openlm-research/open_llama_7b_v2", gpu="v100-pcie-16gb")
    described = " ".join(diagnosis.roofline["lines"])
    assert f"= {7e9 * 16 / 8 / 1e9:.1f} GB per decode step" in described
    assert "the log's F16" in described


def test_exllamav2s_prompt_line_makes_the_response_line_its_decode():
    # LangChain's ExLlamaV2 notebook: the prompt is timed on its own line, so the response line's 9.84 s are the
    # decode of its 150 tokens (65.6 ms a token), not the whole call.
    lines = [(1, "Prompt processed in 0.04 seconds, 36 tokens, 807.38 tokens/second"),
             (2, "Response generated in 9.84 seconds, 150 tokens, 15.24 tokens/second")]
    (record,) = [item for item in local_runners.parse(lines) if isinstance(item, Record)]
    assert record.metrics["tpot_seconds"] == 9.84 / 150
    assert record.metrics["prefill_seconds"] == 0.04 and record.metrics["input_tokens"] == 36
    # test_inference.py's line says it includes the prompt: the whole call, as before.
    lines = [(1, " -- Response generated in 3.40 seconds, 128 tokens, 37.66 tokens/second (includes prompt eval.)")]
    (record,) = [item for item in local_runners.parse(lines) if isinstance(item, Record)]
    assert record.metrics == {"e2e_seconds": 3.40, "output_tokens": 128}


def test_mlc_llms_quantisation_tag_states_the_weights_bits():
    # MLC-LLM's q4f16_1: 4-bit weights in groups of 32 with one float16 scale each, 4 + 16/32 = 4.5 bits a weight.
    from inferledger.diagnose.named_model import from_name

    named = from_name("mlc-ai/mlc-chat-Llama-2-7b-chat-hf-q4f16_1")
    assert named.bits_per_weight == 4 + 16 / 32
    assert from_name("mlc-ai/Llama-3-8B-Instruct-q0f16-MLC").bits_per_weight == 16
    # distributed-llama's q40 is ggml's Q4_0: 32 weights of 4 bits and one float16 scale, 4 + 16/32 bits each
    assert from_name("llama3_1_8b_instruct_q40").bits_per_weight == 4 + 16 / 32


_VERBOSE = ("total duration:       {total}s\nload duration:        0.05s\nprompt eval count:    21 token(s)\n"
            "prompt eval duration: 1s\nprompt eval rate:     21.00 tokens/s\neval count:           160 token(s)\n"
            "eval duration:        {decode}s\neval rate:            {rate} tokens/s\n")


def test_ollamas_cpu_only_warning_is_a_cpu_backend():
    lines = list(enumerate(["WARNING: No NVIDIA/AMD GPU detected. Ollama will run in CPU-only mode.",
                            *_VERBOSE.format(total=17.8, decode=16.77, rate=9.54).splitlines()], 1))
    labels = [item.labels for item in ollama.parse(lines) if isinstance(item, Record) and item.kind == "capacity"]
    assert labels == [{"engine": "ollama", "backend": "cpu"}]


def test_several_models_named_before_their_blocks_leave_each_block_one_of_them():
    # A blog's script: three `ollama run "MODEL" --verbose` commands, then the results; no block is the last
    # named model's alone, so the requests are several models', not one model slowing down.
    text = ('ollama run "llama3.1:8b" --verbose "hi"\nollama run "codestral:22b" --verbose "hi"\n'
            + _VERBOSE.format(total=8.1, decode=2.0, rate=80.0) + "\n" + _VERBOSE.format(total=12.0, decode=6.0,
                                                                                        rate=26.7))
    requests = [item for item in ollama.parse(list(enumerate(text.splitlines(), 1)))
                if isinstance(item, Record) and item.kind == "request"]
    assert [record.labels.get("models_named") for record in requests] == ["llama3.1:8b, codestral:22b"] * 2
    assert not any("model" in record.labels for record in requests)
    # One model named: its blocks are that model's.
    text = 'ollama run llama3.1:8b --verbose "hi"\n' + _VERBOSE.format(total=8.1, decode=2.0, rate=80.0)
    (record,) = [item for item in ollama.parse(list(enumerate(text.splitlines(), 1)))
                 if isinstance(item, Record) and item.kind == "request"]
    assert record.labels["model"] == "llama3.1:8b"


_TRTLLM_BENCH = """===========================================================
= REQUEST DETAILS
===========================================================
Number of requests:             100
Number of concurrent requests:  94.6050
Average Input Length (tokens):  128.0000
Average Output Length (tokens): 128.0000
===========================================================
= WORLD + RUNTIME INFORMATION
===========================================================
TP Size:                1
Max Runtime Batch Size: {cap}
Max Runtime Tokens:     7680
Issue Rate (req/sec):   1.0526E+15

===========================================================
= PERFORMANCE OVERVIEW
===========================================================
Request Throughput (req/sec):                     86.5373
Total Output Throughput (tokens/sec):             11076.7700
Average request latency (ms):                     1093.2284
Average time-to-first-token [TTFT] (ms):   162.6706
Average time-per-output-token [TPOT] (ms): 7.3272
"""


def test_a_burst_the_batch_cap_holds_waits_for_no_slot(tmp_path):
    # NVIDIA's trtllm-bench sample: 100 requests at once, a 3,840-request batch cap. TTFT 163 ms is 22 steps of 7.3 ms
    # (past the 20 steps a burst admitted at once takes), but every request fits the batch: the 12,800 prompt tokens
    # through a 7,680-token budget are two prefill iterations, no queue for a slot.
    diagnosis = _diagnose(tmp_path, _TRTLLM_BENCH.format(cap=3840))
    assert diagnosis.verdict != "queueing"
    # A cap of 4 for the same 100: most of them waited for a slot.
    assert _diagnose(tmp_path, _TRTLLM_BENCH.format(cap=4)).verdict == "queueing"


def test_a_clauses_label_names_its_phase_before_its_note():
    # mlx-swift-lm's BenchCBv2: `decode: 130.6 tok/s (1023 tokens after first token)` is the decode's rate; the note's
    # `first token` does not make it a first token's.
    metrics = generic_phrases.line_metrics("- decode: 130.6 tok/s (1023 tokens after first token)")
    assert metrics["generation_tokens_per_second"] == 130.6
    assert metrics["output_tokens"] == 1023
    assert "ttft_seconds" not in metrics


_CI_RUN = """+ ./bin/llama-cli --model ../models-mnt/pythia/1.4B/ggml-model-f16.gguf -ngl 99 -n 64 -p 'I believe'
0.00.127.380 I llm_load_print_meta: model size       = 2.64 GiB (16.01 BPW)
0.00.275.336 I llm_load_tensors:   {device} model buffer size =  2699.45 MiB
0.00.409.834 I llama_kv_cache_init:        {device} KV buffer size =   384.00 MiB
llama_perf_context_print:        load time =     476.97 ms
llama_perf_context_print: prompt eval time =     233.16 ms /     7 tokens (   33.31 ms per token,    30.02 tokens per second)
llama_perf_context_print:        eval time =    4461.19 ms /    63 runs   (   70.81 ms per token,    14.12 tokens per second)
llama_perf_context_print:       total time =    4764.32 ms /    70 tokens
"""


def test_buffers_on_the_cpu_alone_are_a_cpu_run_and_the_padded_model_size_is_read(tmp_path):
    # llama.cpp's CI on an 8-thread aarch64 node (ggml-org/ci): -ngl 99, but every buffer is the CPU's, so the run is
    # a CPU's; `model size       = 2.64 GiB` (padded) is the weights it reads a token.
    path = tmp_path / "ci.log"
    path.write_text(_CI_RUN.format(device="CPU_Mapped").replace("CPU_Mapped KV", "CPU KV"))
    diagnosis = diagnose_files([path])
    assert diagnosis.capacity["weights_bytes"] == 2.64 * 2**30
    lines = list(enumerate(_CI_RUN.format(device="CPU").splitlines(), 1))
    labels = [item.labels for item in llamacpp.parse(lines) if isinstance(item, Record) and item.kind == "capacity"]
    assert {"engine": "llama.cpp", "backend": "cpu"} in labels
    # A card's buffer beside the CPU's: a GPU run, not a CPU one.
    lines = list(enumerate(_CI_RUN.format(device="CUDA0").splitlines(), 1))
    labels = [item.labels for item in llamacpp.parse(lines) if isinstance(item, Record) and item.kind == "capacity"]
    assert {"engine": "llama.cpp", "backend": "cpu"} not in labels


def test_llama_bench_models_of_several_sizes_at_one_pace_are_the_memorys_speed(tmp_path):
    # An AMD iGPU's Vulkan llama-bench of DeepSeek-R1 distills: size × tg rate = 1.04 GiB × 72.18, 4.36 × 19.15 and
    # 39.59 × 1.87 = 80.6, 89.6 and 79.5 GB/s, within 1.13× of each other for sizes 38× apart: the shared memory's
    # bandwidth, which no fixed tokens-a-second cutoff may call slow decode.
    rows = [("qwen2 1.5B Q4_K - Medium", "1.04", "1.78", "72.18"), ("qwen2 7B Q4_K - Medium", "4.36", "7.62", "19.15"),
            ("llama 70B Q4_K - Medium", "39.59", "70.55", "1.87")]
    text = "| model | size | params | backend | ngl | test | t/s |\n| --- | ---: | ---: | --- | --: | ---: | ---: |\n"
    text += "".join(f"| {model} | {size} GiB | {params} B | Vulkan | 99 | tg128 | {rate} ± 0.05 |\n"
                    for model, size, params, rate in rows)
    diagnosis = _diagnose(tmp_path, text)
    assert diagnosis.verdict == "healthy"
    (finding,) = [item for item in diagnosis.evidence if "models_at_one_bandwidth" in item.numbers]
    assert finding.numbers["models_at_one_bandwidth"] == 3
    assert not any(item.rule == "windows-slow-streams" for item in diagnosis.evidence)


def test_an_intel_part_named_by_its_number_is_a_cpu_run():
    from inferledger.diagnose.device import device_records

    (record,) = device_records("This was the performance of llama-7b int4 on my i5-12400F:\n"
                               "Output generated in 33.07 seconds (6.05 tokens/s, 200 tokens, context 17)\n")
    assert record.labels == {"backend": "cpu", "device_named": "i5-12400F"}
    # Beside a card, the CPU is the host, not the device that ran the model.
    assert device_records("i7-13700K host, RTX 4090\nOutput generated in 3.1 seconds (64.5 tokens/s)\n") == []


def _pp_only(moe_column: str = "", rate: str = "5012.34") -> str:
    moe_head, moe_cell = (" n_cpu_moe |", f" {moe_column} |") if moe_column else ("", "")
    return (f"| model | size | params | backend | ngl |{moe_head} test | t/s |\n"
            f"| --- | ---: | ---: | --- | --: |{' --: |' if moe_column else ''} ---: | ---: |\n"
            f"| llama 8B Q4_K - Medium | 4.58 GiB | 8.03 B | CUDA | 99 |{moe_cell} pp512 | {rate} ± 12.1 |\n")


def test_a_prompt_only_table_read_at_an_accelerators_pace_is_sound(tmp_path):
    # 2 × 8.03e9 parameters × 5,012.34 tok/s = 80.5 TFLOP/s: no CPU computes that, the card read the prompt.
    diagnosis = _diagnose(tmp_path, _pp_only())
    assert diagnosis.verdict == "healthy"
    (finding,) = [item for item in diagnosis.evidence if item.rule == "windows-prompt-compute-sound"]
    assert finding.numbers["prompt_flops_per_second"] == 2 * 8.03e9 * 5012.34
    # 300 tok/s is 4.8 TFLOP/s, a CPU's reach: unjudged; so are rows whose experts stay on the CPU.
    assert _diagnose(tmp_path, _pp_only(rate="300.00")).verdict == "insufficient-data"
    assert _diagnose(tmp_path, _pp_only(moe_column="20")).verdict == "insufficient-data"


def test_llama_servers_slot_fields_read_as_a_rate_and_no_cached_prompt():
    # llama-server's /slots: `prompt_tokens_seconds` is the prompt's tokens a second, `n_prompt_tokens_cache` the
    # tokens reused from the cache (not the prompt's length).
    assert generic_phrases.line_metrics("prompt_tokens_seconds:  125.9") == {"prompt_tokens_per_second": 125.9}
    assert generic_phrases.line_metrics("n_prompt_tokens_cache:      0") == {}
    assert generic_phrases.line_metrics("n_prompt_tokens:        95538") == {"input_tokens": 95538}


def test_a_whole_call_of_fifty_tokens_bounds_its_step(tmp_path):
    # torchchat on an M-series GPU (blind10): `Time for inference 1: 28.73 sec total, 50 tokens, 1.74 tokens/sec`
    # after a ten-word prompt. Half the call over its tokens, 287 ms, is still a step no 8B model's 4.5 GB needs.
    text = ("Time for inference 1: 28.73 sec total, 50 tokens, 1.74 tokens/sec, 574.53 ms/token\n"
            "Bandwidth achieved: 27.95 GB/s\n")
    diagnosis = diagnose_files([write(tmp_path, text, "torchchat.log")], model="meta-llama/Meta-Llama-3-8B-Instruct")
    (finding,) = [item for item in diagnosis.evidence if item.rule == "requests-slower-than-size-allows"]
    assert abs(finding.numbers["observed_seconds_per_token"] - 28.73 / 50 / 2) < 1e-3
