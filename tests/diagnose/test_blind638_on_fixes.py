"""Blind rounds 638 on: the general fixes of the thirtieth session. Expected figures are worked out here."""

from __future__ import annotations

import pytest
from blind_helpers import diagnosed, markdown_summaries, parsed, rules, write

# llama-server's own lines, as a benchmark page quotes them: a start-up and two requests' draft statistics, which the
# llama.cpp reader knows (a capacity and two events) and which time nothing.
_LLAMA_SERVER_LINES = (
    "0.05.476.607 I srv    load_model: initializing, n_slots = 4, n_ctx_slot = 8192, kv_unified = 'false'\n"
    "0.05.574.974 I srv  llama_server: model loaded\n"
    "0.11.952.363 I slot print_timing: id  3 | task 0 | draft acceptance = 0.84783 (   39 accepted /    46 generated), "
    "mean len =  2.70\n"
    "0.44.467.647 I slot print_timing: id  3 | task 29 | draft acceptance = 0.64516 (   40 accepted /    62 generated),"
    " mean len =  2.29\n")


def test_prose_figures_beside_a_known_formats_untimed_lines_are_read(tmp_path):
    # The page's figures are prose: 256 tokens in 32.0 s is 8.0 tok/s, 1 / 8.0 = 125 ms a token for one stream,
    # under the fixed 10 tok/s cutoff. The llama.cpp reader takes the server's lines (no timing among them), so only
    # the last-resort reader, on the lines it left, sees the request.
    text = ("Results:\n- Single stream: generated 256 tokens in 32.0 s (8.0 tokens/sec), first token after 0.9 s\n"
            "Server log:\n" + _LLAMA_SERVER_LINES)
    diagnosis = diagnosed(tmp_path, text)
    assert diagnosis.verdict == "decode-bound"
    assert any("125 ms per output token" in item.text for item in diagnosis.evidence)
    assert diagnosis.files[0]["formats"] == ["llamacpp"]


def test_lines_a_known_reader_took_are_not_read_again_as_prose(tmp_path):
    # LMCache's store lines (`Stored 1024 tokens in 3.909 seconds`) are the cache's transfers, read by its reader as
    # such; read again as phrases they would be requests generating 1024 tokens at 262 tok/s.
    line = ("[2026-09-14 11:13:{:02d},396] LMCache INFO: Stored 1024 tokens in {} seconds "
            "(engine_driven_transfer.py:787:lmcache.v1.multiprocess.modules.engine_driven_transfer)\n")
    text = "".join(line.format(26 + index, seconds)
                   for index, seconds in enumerate((3.909, 3.148, 1.931, 0.810, 0.148, 0.158, 0.144)))
    diagnosis = diagnosed(tmp_path, text)
    assert diagnosis.verdict == "insufficient-data"
    assert not any("per output token" in item.text for item in diagnosis.evidence)


def test_an_engines_start_up_time_is_no_request(tmp_path):
    # SGLang's CUDA-graph capture took 7.01 s at start-up; the benchmark's counts below it (30,720 input and 1,500,000
    # output tokens) have no time of their own. 7.01 s for 1.5M tokens would be a request at 4.7 µs a token, which
    # is no request at all: nothing here times the serving.
    text = ("[2025-06-09 22:16:48 TP0] Capture cuda graph end. Time elapsed: 7.01 s. mem usage=1.34 GB. avail "
            "mem=52.97 GB.\n"
            "[2025-06-09 22:16:48 TP0] max_total_num_tokens=1005629, chunked_prefill_size=8192, max_prefill_tokens="
            "16384, max_running_requests=3929, context_len=131072\n\n#Input tokens: 30720\n#Output tokens: 1500000\n")
    diagnosis = diagnosed(tmp_path, text)
    assert diagnosis.verdict == "insufficient-data"
    assert not any("per output token" in item.text for item in diagnosis.evidence)


_LLAMA_2_7B_Q4_K_M_TIMINGS = (
    "llama_print_timings:        load time =     727.50 ms\n"
    "llama_print_timings: prompt eval time =      68.52 ms /     9 tokens (    7.61 ms per token,   131.35 tokens per "
    "second)\n"
    "llama_print_timings:        eval time =     225.70 ms /    24 runs   (    9.40 ms per token,   106.34 tokens per "
    "second)\n"
    "llama_print_timings:       total time =     954.18 ms\n")


def test_the_file_type_llama_cpp_prints_sets_the_weights_the_ledger_reads(tmp_path):
    # llama-cpp-rs's README run: Llama-2-7B in Q4_K_M on an RTX 3090 at 9.40 ms a token. In bf16 a step reads
    # 6.74e9 x 2 B = 13.5 GB, 14.4 ms at 936 GB/s, which 9.40 ms would beat; at Q4_K's 4.5 bits a weight it reads
    # 6.74e9 x 4.5 / 8 = 3.79 GB, 4.05 ms: 9.40 ms is an ordinary step over that floor.
    text = ("llm_load_print_meta: model ftype      = Q4_K - Medium\nllm_load_print_meta: model params     = 6.74 B\n"
            + _LLAMA_2_7B_Q4_K_M_TIMINGS)
    diagnosis = diagnosed(tmp_path, text, model="meta-llama/Llama-2-7b-hf", gpu="rtx-3090")
    assert diagnosis.roofline["precision"] == "Q4_K"
    assert "hardware-decode-faster-than-floor" not in rules(diagnosis)
    floor_ms = 6.74e9 * 4.5 / 8 / 936e9 * 1e3
    assert floor_ms < 9.40 < 6.74e9 * 2 / 936e9 * 1e3


def test_a_file_type_the_loader_guessed_states_no_format(tmp_path):
    # `file type = all F32 (guessed)`: ggml-ci's Pythia 1.4B file is 2.64 GiB, 2.64 x 2^30 x 8 / 1.41e9 = 16.1 bits a
    # weight, so the guess is no format; the file type a loader states (`Q8_0`) is one.
    from inferledger.diagnose.parsers import llamacpp

    guessed = parsed(llamacpp, write(tmp_path, "0.00.103.471 I print_info: file type   = all F32 (guessed)\n"))
    assert not any("weights_format" in record.labels for record in guessed)
    stated = parsed(llamacpp, write(tmp_path, "0.00.103.471 I print_info: file type   = Q8_0\n", "stated.txt"))
    assert [record.labels["weights_format"] for record in stated] == ["Q8_0"]


def test_a_russian_tables_headers_are_read_as_their_english():
    # check_parallels' report: `Количество параллельных запросов` (number of parallel requests), `Общее время (с)`
    # (total time, seconds), `Среднее время на запрос (с)` (mean time per request, seconds); German, Spanish and
    # French name the same measures.
    from inferledger.diagnose.parsers.bench_markdown import _column

    assert _column("Количество параллельных запросов") == ("max_concurrency", 1.0, "count")
    assert _column("Среднее время на запрос (с)") == ("e2e_seconds_mean", 1.0, "time")
    assert _column("Время до первого токена (мс)") == ("ttft_seconds_mean", 1e-3, "time")
    assert _column("Latenz (ms)") == ("e2e_seconds_mean", 1e-3, "time")
    assert _column("Tiempo hasta el primer token (ms)") == ("ttft_seconds_mean", 1e-3, "time")
    assert _column("Latence (s)") == ("e2e_seconds_mean", 1.0, "time")


def test_a_time_per_request_is_a_latency_and_a_total_beside_it_the_runs(tmp_path):
    # 48 requests through 4 slots: the batch took 118.915 s, each request 2.4774 s on average (118.915 / 48 = 2.477).
    # The total is the run's wall time; read as a request's it would grow with the batch and call it a queue.
    table = ("| Parallel requests | Total time (s) | Mean time per request (s) | Tokens |\n|---:|---:|---:|---:|\n"
             "| 4 | 10.575 | 2.64374 | 857 |\n| 48 | 118.915 | 2.4774 | 10167 |\n")
    first, last = markdown_summaries(tmp_path, table)
    assert last.metrics["e2e_seconds_mean"] == 2.4774 and last.metrics["duration_seconds"] == 118.915
    assert last.metrics["duration_seconds"] / 48 == pytest.approx(last.metrics["e2e_seconds_mean"], rel=0.01)
    assert first.metrics["max_concurrency"] == 4


_DECODE_BY_CONTEXT = ("### Decoding Speed (TPS, or Tokens per Second, starting @ different context lengths)\n\n"
                      "| Model | HW | 1k | 4k | 16k | 64k |\n|---|---|--:|--:|--:|--:|\n"
                      "| LLaMA 3.2 3B | NPU | {} | {} | {} | {} |\n")


def test_a_decode_slowing_along_a_line_with_context_is_judged_at_the_shortest(tmp_path):
    # FastFlowLM's decode table: 26.3 tok/s at 1k (38.0 ms a step), 24.1 at 4k (41.5 ms), 18.0 at 16k (55.6 ms), 9.0
    # at 64k (111.1 ms). The line from 1k to 64k rises (111.1 - 38.0) / 63 = 1.16 ms per 1k tokens, so it gives
    # 38.0 + 3 x 1.16 = 41.5 ms at 4k and 38.0 + 15 x 1.16 = 55.4 ms at 16k: the steps are the KV cache's reads.
    # At 1k the step is under the 100 ms (10 tok/s) cutoff, so the 64k run's 111 ms is no slow decode.
    diagnosis = diagnosed(tmp_path, _DECODE_BY_CONTEXT.format(26.3, 24.1, 18.0, 9.0))
    assert "summary-slow-tpot-no-hardware" not in rules(diagnosis)
    assert any("111 ms per output token at 64,000 context tokens against 38 ms at 1,000" in note
               for note in diagnosis.notes)
    assert (111.1 - 38.0) / 63 * 3 + 38.0 == pytest.approx(41.5, abs=0.1)


def test_a_decode_falling_off_the_line_is_still_slow(tmp_path):
    # oMLX's collapse: 38 ms at 1k, 42 ms at 4k, 250 ms at 16k, 185 ms at 64k. The line from 1k to 64k gives
    # 38 + 15 x (185 - 38) / 63 = 73 ms at 16k; 250 ms is 3.4x that, so the context does not explain it.
    diagnosis = diagnosed(tmp_path, _DECODE_BY_CONTEXT.format(26.3, 23.8, 4.0, 5.4))
    assert "summary-slow-tpot-no-hardware" in rules(diagnosis)
    assert diagnosis.verdict == "decode-bound"


def test_a_config_line_of_key_value_pairs_states_the_tables_setting(tmp_path):
    # The GB10 report's config line is 165 characters, longer than a bullet, but its pairs are a setting, not a story.
    # At max_concurrency=10, 230 output tok/s x 183.54 ms a token = 42.2 streams decoding at once: 4.2x the 10 the
    # client allowed, so the per-token figure is no one token's time (thinking tokens the client did not count).
    from inferledger.diagnose.parsers.bench_markdown import _stated_setting

    config = ("Config: model=openai/gpt-oss-20b, test_type=text_only, num_prompts=100, max_concurrency=10, "
              "input_len=1000, output_len=300, range_ratio=0.3, thinking_disabled=false")
    assert len(config) > 160
    assert _stated_setting(config) == {"mean_input_tokens": 1000, "mean_output_tokens": 300, "max_concurrency": 10}
    table = ("| Metric | Unit | NVIDIA_GB10 |\n| --- | --- | --- |\n| output_token_throughput | tok/s | 230.00 |\n"
             "| request_throughput | req/s | 1.69 |\n| ttft_mean | ms | 282.53 |\n| tpot_mean | ms | 183.54 |\n")
    diagnosis = diagnosed(tmp_path, f"{config}\n{table}")
    assert "summary-streams-past-cap" in rules(diagnosis)
    assert 230.0 * 0.18354 / 10 == pytest.approx(4.2, abs=0.05)


def test_a_table_under_a_bench_one_batch_heading_is_a_static_batch(tmp_path):
    # bench_one_batch_server at bs 64 with 1,024-token prompts: the batch's 65,536 prompt tokens at 110,137 tok/s
    # take 65,536 / 110,137 = 0.595 s, the TTFT: every first token waits for the batch's prefill, in no queue.
    text = ("### `bench_one_batch_server --input-len 1024 --output-len 8`\n\n"
            "| bs | latency (s) | input tput (tok/s) | output tput post-TTFT (tok/s) | TTFT (s) | ITL (ms) |\n"
            "|---:|---:|---:|---:|---:|---:|\n| 1 | 0.125 | 15,422 | 136.2 | 0.066 | 7.34 |\n"
            "| 64 | 0.682 | 110,137 | 5,876.6 | 0.595 | 10.89 |\n")
    diagnosis = diagnosed(tmp_path, text)
    assert diagnosis.verdict == "healthy"
    assert not rules(diagnosis) & {"summary-ttft-over-prompt-work", "summary-wait-dominates"}
    assert 64 * 1024 / 110_137 == pytest.approx(0.595, abs=0.001)


def _bench_row(rate: float) -> str:
    return ("| model                          |       size |     params | backend    | ngl |            test |         "
            "         t/s |\n| ------------------------------ | ---------: | ---------: | ---------- | --: | --------------: "
            "| -------------------: |\n| qwen2 3B Q4_K - Medium         |   1.79 GiB |     3.09 B | CUDA       |  99 | "
            f"          tg128 |         {rate:.2f} ± 0.01 |\n")


def test_a_llama_bench_row_at_llama_cpps_usual_share_of_the_card_is_not_held_back(tmp_path):
    # A Jetson Orin Nano Super (102 GB/s): 1.79 GiB x 23.85 t/s = 45.8 GB/s, 45 % of the card, 48 % with the layers'
    # fixed cost: llama.cpp's usual 45-70 %, not a backend holding decode back. The same row at 15 t/s reaches
    # 1.79 x 2^30 x 15 / 102e9 = 28 % (+~2 % fixed cost), under the 40 % cutoff: held back.
    assert 1.79 * 2**30 * 23.85 / 102e9 == pytest.approx(0.45, abs=0.005)
    usual = diagnosed(tmp_path, _bench_row(23.85), gpu="jetson-orin-nano-super")
    assert "hardware-decode-far-below-floor" not in rules(usual)
    slow = diagnosed(tmp_path, _bench_row(15.0), "slow.txt", gpu="jetson-orin-nano-super")
    assert "hardware-decode-far-below-floor" in rules(slow)
    assert 1.79 * 2**30 * 15.0 / 102e9 == pytest.approx(0.28, abs=0.005)


def test_a_start_up_kv_refusal_quoted_in_a_report_is_read(tmp_path):
    # A GB10 report quotes vLLM's refusal in a block quote the terminal wrapped at `can be`: at util 0.72 the KV pool
    # holds 230,698 tokens, fewer than one request of the 262,144 configured.
    report = ("Booting at 262k with util 0.72:\n\n> `ValueError: The model's max seq len (262144) is larger than the "
              "maximum number of tokens that can be\n> stored in KV cache (230698). Try increasing "
              "gpu_memory_utilization or decreasing max_model_len when initializing the engine.`\n")
    diagnosis = diagnosed(tmp_path, report)
    assert diagnosis.verdict == "kv-capacity"
    assert 230_698 < 262_144
    # SGLang's pool sized negative: 32.70 GB free after the weights, but a 0.40 static fraction of a 97 GB card
    # keeps (1 - 0.40) x 97 = 58.2 GB for everything else, so the KV cache gets 32.70 - 58.2 < 0.
    sglang = ("Load weight end. avail mem=32.70 GB, mem usage=60.64 GB.\n"
              "RuntimeError: Not enough memory. Please try to increase --mem-fraction-static.\n")
    assert diagnosed(tmp_path, sglang, "sglang.txt").verdict == "kv-capacity"
    assert 32.70 - (1 - 0.40) * 97 < 0


def test_a_refusal_the_vllm_reader_read_keeps_its_figures(tmp_path):
    # The vLLM reader reads the same refusal's figures (131,072 configured over a 37,440-token pool, under one full
    # request): the capacity rule judges them, and no second refusal is counted from the same line.
    line = ("ERROR 01-01 12:00:00 engine.py:366] ValueError: The model's max seq len (131072) is larger than the "
            "maximum number of tokens that can be stored in KV cache (37440). Try increasing `gpu_memory_utilization` "
            "or decreasing `max_model_len` when initializing the engine.\n")
    diagnosis = diagnosed(tmp_path, "INFO 01-01 11:59:00 llm_engine.py:100] Initializing an LLM engine (v0.6.3)\n" + line)
    assert diagnosis.verdict == "kv-capacity"
    assert "state-few-full-requests" in rules(diagnosis)
    assert 37_440 / 131_072 < 1


def test_llama_servers_context_error_as_the_client_sees_it_is_a_refused_request(tmp_path):
    # llama-server started with -c 8192 --parallel 10 gives each slot 8192 / 10 = 819 tokens (1,024 as padded): a
    # 1,140-token conversation does not fit its slot's KV cache and the client gets HTTP 400.
    text = ('{\n  "error": {\n    "code": 400,\n    "message": "the request exceeds the available context size, try '
            'increasing it",\n    "type": "exceed_context_size_error",\n    "n_prompt_tokens": 1140,\n'
            '    "n_ctx": 1024\n  }\n}\n')
    diagnosis = diagnosed(tmp_path, text)
    assert diagnosis.verdict == "kv-capacity"
    assert diagnosis.events["too_long_rejections"] == 1  # one response: its message counted, not its type too


_OLLAMA_VERBOSE = ("total duration:       15.996778309s\nload duration:        103.045508ms\n"
                   "prompt eval count:    16 token(s)\nprompt eval duration: 3.669236307s\n"
                   "prompt eval rate:     4.36 tokens/s\neval count:           42 token(s)\n"
                   "eval duration:        12.223595634s\neval rate:            3.44 tokens/s\n")


def test_ollamas_image_run_without_a_gpu_flag_is_a_cpu_run(tmp_path):
    # Docker hands a container no GPU unless asked: `docker run … ollama/ollama` with no --gpus serves from the
    # CPU, where 3.44 tok/s (291 ms a token) is under the CPU's 1 s cutoff, not slow as on a GPU's 100 ms one.
    plain = "docker run -d --rm -v ollama:/root/.ollama -p 11434:11434 --name ollama02 ollama/ollama\n"
    cpu = diagnosed(tmp_path, plain + _OLLAMA_VERBOSE)
    assert "requests-slow-tpot-no-hardware" not in rules(cpu)
    assert 12.223595634 / 42 == pytest.approx(0.291, abs=0.001)
    given = plain.replace("docker run -d", "docker run -d --gpus=all")
    assert "requests-slow-tpot-no-hardware" in rules(diagnosed(tmp_path, given + _OLLAMA_VERBOSE, "gpu.txt"))


def _cpu_bench(threads: int, pp: float, tg: float) -> str:
    return ("| model                          |       size |     params | backend    |    threads | test       |      "
            "        t/s |\n| ------------------------------ | ---------: | ---------: | ---------- | ---------: | -------"
            "--- | ---------------: |\n"
            f"| llama 7B mostly Q4_K - Medium  |   3.80 GiB |     6.74 B | CPU        | {threads:10d} | pp 512     | "
            f"{pp:10.2f} ± 0.05 |\n"
            f"| llama 7B mostly Q4_K - Medium  |   3.80 GiB |     6.74 B | CPU        | {threads:10d} | tg 128     | "
            f"{tg:10.2f} ± 0.03 |\n")


def test_the_same_test_on_another_machine_is_no_slower_build(tmp_path):
    # pp512 at 8 threads: 28.49 tok/s on a Ryzen 6800H, 13.38 on an i7-8700 named between the tables. 28.49 / 13.38
    # = 2.1x is two machines, not one build slower than another.
    two_machines = ("* CPU: AMD 6800H\n\n" + _cpu_bench(8, 28.49, 10.85) + "\nCPU: Intel(R) Core(TM) i7-8700 CPU @ "
                    "3.20GHz\n\n" + _cpu_bench(8, 13.38, 7.39))
    assert "windows-bench-same-test-slower" not in rules(diagnosed(tmp_path, two_machines))
    # the same two tables with no machine named between them: one machine's two runs, the second 2.1x slower
    one_machine = _cpu_bench(8, 28.49, 10.85) + "\n\n" + _cpu_bench(8, 13.38, 7.39)
    assert "windows-bench-same-test-slower" in rules(diagnosed(tmp_path, one_machine, "one.txt"))
    assert 28.49 / 13.38 == pytest.approx(2.13, abs=0.01)


def test_rates_spelled_per_second_and_a_phases_bare_length_are_read(tmp_path):
    # mlx-lm's benchmark table: `Prompt (2048) tok/sec | Generation (128) tok/sec`; 134.52 tok/s is 1 / 134.52 =
    # 7.43 ms a token for one stream, 1622.27 tok/s the 2,048-token prompt's reading.
    from inferledger.diagnose.parsers.bench_markdown import _column

    assert _column("Prompt (2048) tok/sec") == ("input_tokens_per_second", 1.0, "rate")
    assert _column("Generation (128) tok/sec") == ("output_tokens_per_second_per_user_mean", 1.0, "rate")
    assert _column("output_tokens_per_s") == ("output_tokens_per_second", 1.0, "rate")
    (row,) = markdown_summaries(tmp_path, "Precision | Prompt (2048) tok/sec | Generation (128) tok/sec\n"
                                          "--------- | ------------------- | ------------------------\n"
                                          "q4 | 1622.27 | 134.52\n")
    assert row.metrics["output_tokens_per_second_per_user_mean"] == 134.52
    assert 1 / 134.52 * 1e3 == pytest.approx(7.43, abs=0.01)


def test_a_bare_rate_beside_the_prompt_and_output_lengths_is_the_generations(tmp_path):
    # optimum's run_llama.py table: batch 1, a 1,000-token prompt, 200 new tokens at 27.329 tok/s, so one stream
    # writes a token every 1 / 27.329 = 36.6 ms.
    rows = markdown_summaries(tmp_path, "|changes|batch_size|prompt_length|new_tokens|dtype|tok_per_s|max_mem_mb|\n"
                                        "|---|---|---|---|---|---|---|\n|None|1|1000|200|fp16|23.150|14776.09|\n"
                                        "|SDPA|1|1000|200|fp16|27.329|14249.72|\n")
    assert [row.metrics["mean_output_tokens"] for row in rows] == [200, 200]
    assert rows[1].metrics["output_tokens_per_second"] == 27.329
    assert 1 / 27.329 * 1e3 == pytest.approx(36.6, abs=0.05)


def test_a_middle_and_a_tail_in_phrases_are_a_runs_statistics(tmp_path):
    # An autoscaler's summary of three load jobs: `TTFT: 24.91 ms (avg), 75.80 ms (max)`. An average and a maximum
    # are over many requests, at a batch the lines do not state; read as one request, its 13.12 ms step would be 1.9x
    # an H100's realistic single-stream step for Llama-3.1-8B and called slow.
    from inferledger.diagnose.parsers import generic_phrases

    text = "## Performance Metrics\n\n- TTFT: 24.91 ms (avg), 75.80 ms (max)\n- ITL: 13.12 ms (avg), 47.26 ms (max)\n"
    (record,) = parsed(generic_phrases, write(tmp_path, text))
    assert record.kind == "summary"
    assert record.metrics == {"ttft_seconds_mean": 0.02491, "tpot_seconds_mean": 0.01312}
    diagnosis = diagnosed(tmp_path, text, "run.txt", model="meta-llama/Llama-3.1-8B", gpu="h100-sxm")
    assert "hardware-decode-below-realistic" not in rules(diagnosis)
    assert diagnosis.roofline["batch"] is None


def test_a_prompt_longer_than_the_step_budget_waits_a_step_a_chunk(tmp_path):
    # vLLM's `Chunked prefill is enabled with max_num_batched_tokens=512`: a 550-token prompt is ceil(550 / 512) = 2
    # chunks, so its first token pays 1.5 + (2 - 1) = 2.5 of the run's 70.74 ms steps (177 ms), not 1.5 (106 ms).
    from inferledger.diagnose.parsers import vllm

    line = "INFO 03-11 06:17:52 [config.py:1666] Chunked prefill is enabled with max_num_batched_tokens=512.\n"
    (record,) = parsed(vllm, write(tmp_path, line, "start.log"))
    assert record.metrics == {"chunked_prefill_tokens": 512}
    table = ("- Llama-3-8B-Instruct\n- 1xH100\n- 550 input tokens | 150 output tokens\n- 10 QPS\n\n"
             "| Metric | `main` |\n| - | - |\n| TPOT (mean) | 70.74 |\n| TTFT (mean) | 687.69 |\n")
    loaded = "INFO 03-11 06:17:40 [gpu_model_runner.py:1329] Model loading took 14.99 GiB and 4.11 seconds\n"
    diagnosis = diagnosed(tmp_path, loaded + line + table, model="meta-llama/Meta-Llama-3-8B-Instruct", gpu="h100-sxm")
    first = next(text for text in diagnosis.roofline["lines"] if text.startswith("first token:"))
    assert "2.5 of the run's 70.7 ms steps (2 chunks of 512 tokens)" in first
    assert (1.5 + 2 - 1) * 70.74 == pytest.approx(176.9, abs=0.1)
