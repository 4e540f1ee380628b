"""Blind rounds 660 on: the general fixes of the thirty-first session. Expected figures are worked out here."""

from __future__ import annotations

import pytest
from blind_helpers import diagnosed, markdown_summaries, parsed, rules, write

from inferledger.diagnose.parsers import llamacpp

# One llama-bench table of three models on a Ryzen AI Max+ 395's Vulkan back end: the 235B mixture's prompt runs at
# 16.39 t/s while a 7B's runs at 822 t/s (the round 666 blog's rows).
_THREE_MODELS = """| model                           |      size |   params | backend | ngl |  test |          t/s |
| ------------------------------- | --------: | -------: | ------- | --: | ----: | -----------: |
| qwen3moe 235B.A22B Q3_K - Small | 94.47 GiB | 235.09 B | Vulkan  |  93 | pp512 | 16.39 ± 0.03 |
| qwen3moe 235B.A22B Q3_K - Small | 94.47 GiB | 235.09 B | Vulkan  |  93 | tg128 | 14.18 ± 0.28 |
| qwen3 32B Q4_K - Medium         | 18.40 GiB |  32.76 B | Vulkan  |  99 | pp512 | 140.48 ± 2.20 |
| qwen3 32B Q4_K - Medium         | 18.40 GiB |  32.76 B | Vulkan  |  99 | tg128 |  10.42 ± 0.00 |
| llama 7B Q4_0                   |  3.56 GiB |   6.74 B | Vulkan  |  99 | pp512 | 822.14 ± 29.33 |
| llama 7B Q4_0                   |  3.56 GiB |   6.74 B | Vulkan  |  99 | tg128 |  49.35 ± 0.07 |
"""


def test_a_bench_table_of_several_models_is_observed_on_the_models_own_rows(tmp_path):
    # --model is the 235B: its one tg128 row is its decode, 1 / 14.18 t/s = 70.5 ms a token (the three rows' mean
    # rate, (14.18 + 10.42 + 49.35) / 3 = 24.65 t/s, would be 40.6 ms, the 7B's 822 t/s its prompt rate).
    diagnosis = diagnosed(tmp_path, _THREE_MODELS, model="Qwen/Qwen3-235B-A22B", gpu="strix-halo")
    assert diagnosis.roofline["observed_decode_seconds_per_token"] == pytest.approx(1 / 14.18)
    assert diagnosis.roofline["observed_prompt_tokens_per_second"] == pytest.approx(16.39)


def test_a_model_no_row_is_of_is_not_observed_in_the_table(tmp_path):
    # Qwen3-8B (8.2B parameters) is none of the three (235.09, 32.76, 6.74 B): no row times it.
    diagnosis = diagnosed(tmp_path, _THREE_MODELS, model="Qwen/Qwen3-8B", gpu="strix-halo")
    assert "observed_decode_seconds_per_token" not in diagnosis.roofline
    assert "observed_prompt_tokens_per_second" not in diagnosis.roofline
    assert any("rows are of other models" in line for line in diagnosis.roofline["lines"])


def test_each_models_prompt_rows_are_judged_by_that_models_best(tmp_path):
    # A pp512 of the 235B-A22B computes with its 22B active parameters, 2 × 22e9 × 512 = 22.5 TFLOP: at 16.39 t/s
    # that is 0.72 TFLOP/s, a few percent of any GPU's compute and far under a realistic prefill, however the 7B's
    # 822 t/s (6.74B × 2 × 822 = 11 TFLOP/s) fares. Judged by the table's best row alone the 235B's went unjudged.
    diagnosis = diagnosed(tmp_path, _THREE_MODELS, model="Qwen/Qwen3-235B-A22B", gpu="strix-halo")
    assert "hardware-bench-prefill-below-realistic" in rules(diagnosis)
    assert diagnosis.verdict == "prefill-bound"
    assert any("16 tok/s (pp512, the best row of its model)" in item.text for item in diagnosis.evidence)


def test_a_boards_arm_cores_named_in_a_heading_make_a_cpu_run(tmp_path):
    # TinyLlama 1.1B at Q5_K_M (~0.75 GB) on a Raspberry Pi 5's four Cortex-A76 cores: 15.64 tok/s reads
    # 0.75 GB × 15.64 = 11.7 GB/s, what its one 32-bit LPDDR4X-4267 channel (17 GB/s peak) streams. Judged as a GPU
    # run, 64 ms a token is slow for any card; judged as a CPU's, it is as fast as the board's memory allows.
    text = ("### Performance Benchmarks — ARM Cortex-A76 @ 2.4GHz\n\n"
            "| Model | Avg tok/s | Avg TTFT (ms) |\n|---|---|---|\n"
            "| general-Q5 | 15.64 | 641 |\n| general-Q3 | 20.35 | 502 |\n")
    diagnosis = diagnosed(tmp_path, text, model="TinyLlama/TinyLlama-1.1B-Chat-v1.0")
    assert diagnosis.verdict == "healthy"
    assert any("Cortex-A76" in note for note in diagnosis.notes)


@pytest.mark.parametrize("server", ["AWS Graviton4 r8g.12xlarge", "Neoverse V2, 72 cores"])
def test_an_arm_servers_cores_are_no_desktop_cpu(tmp_path, server):
    # An Arm server streams from 8-12 DDR5 channels (Graviton4: 12 × DDR5-5600, ~537 GB/s a socket): a 70B at
    # ~4.5 bits (~40 GB) decoding at 276 ms a token reads ~145 GB/s, a quarter of it; a desktop CPU's cutoff (1 s a
    # token) would call that fine.
    text = (f"Machine: {server}\n"
            "llama_print_timings:        eval time =   88100.00 ms /   319 runs   (  276.18 ms per token,     3.62 "
            "tokens per second)\n")
    diagnosis = diagnosed(tmp_path, text)
    assert not any("names a CPU" in note for note in diagnosis.notes)


_LONG_PROMPT_Q8_7B = (
    "main: build = 1007 (1f0bccb)\n"
    "llama.cpp: loading model from ./llongorca-7b-16k.ggmlv3.q8_0.bin\n"
    "llama_model_load_internal: n_ctx      = 11000\n"
    "llama_model_load_internal: ftype      = 7 (mostly Q8_0)\n"
    "llama_model_load_internal: using CUDA for GPU acceleration\n"
    "llama_model_load_internal: offloaded 35/35 layers to GPU\n"
    "llama_new_context_with_model: kv self size  = 5500.00 MB\n"
    "llama_print_timings: prompt eval time =  6052.65 ms / 10134 tokens (    0.60 ms per token,  1674.31 tokens per "
    "second)\n"
    "llama_print_timings:        eval time =  4101.42 ms /   157 runs   (   26.12 ms per token,    38.28 tokens per "
    "second)\n")


def test_a_long_contexts_kv_cache_joins_the_weights_a_named_models_step_reads(tmp_path):
    # A 7B at Q8_0 (8.5 bits) is 7e9 × 8.5 / 8 = 7.44 GB a step. llama.cpp sizes its cache at 5500 MB (MiB) for
    # n_ctx 11,000, 524 kB a token; a step of this request reads the prompt's 10,134 tokens and on average half
    # the 157 written: 5500 × 2**20 × 10,212.5 / 11,000 = 5.35 GB. At the RTX 4090's 1,008 GB/s the step's
    # reads take (7.44 + 5.35) / 1008 = 12.7 ms, half of the 26.12 ms observed; the weights alone (7.4 ms) made it
    # look three times too slow.
    diagnosis = diagnosed(tmp_path, _LONG_PROMPT_Q8_7B, model="Open-Orca/LlongOrca-7B-16k", gpu="rtx-4090")
    assert diagnosis.verdict != "decode-bound"
    assert any("5.4 GB of the context's KV cache" in line for line in diagnosis.roofline["lines"])
    assert diagnosis.capacity["kv_cache_bytes"] == pytest.approx(5500 * 2**20)


def test_weights_that_fill_most_of_one_card_ran_on_it(tmp_path):
    # gpt-oss-20b's MXFP4 file is ~13 GB (ollama's gpt-oss:20b, 14 GB; 21B parameters, the experts at 4.25 bits and
    # the rest in bf16) and an RX 7800 XT has 16 GiB = 17.2 GB: the log is of a run on that one card. Only a
    # server's reserve (0.9 of the memory, a GB of workspace and one of runtime) would not hold them; the comparison
    # judged the run on two cards, whose step reads half the weights each.
    text = ("| Test | Prompt Tokens | Response Tokens | Tokens/Sec |\n|---|---|---|---|\n"
            "| Simple | 73 | 109 | 82.7 |\n| Complex | 87 | 1416 | 81.2 |\n")
    diagnosis = diagnosed(tmp_path, text, model="openai/gpt-oss-20b", gpu="rx-7800-xt")
    assert diagnosis.roofline["parallel"] is None
    assert not any("do not fit one" in note for note in diagnosis.roofline["assumptions"])


def test_a_metric_a_row_tables_run_totals_are_read(tmp_path):
    # vLLM's throughput benchmark tabulated a metric a row: 16 requests (all of them), 247.64 s in all, 0.06 req/s,
    # 4,096 completion tokens; the average latency is one request's, the total time the run's.
    text = ("| Metric | Value |\n|--------|-------|\n| Total requests | 16 |\n| Successful requests | 16 (100%) |\n"
            "| Total time | 247.64 seconds |\n| **Requests per second** | **0.06 req/s** |\n"
            "| **Output tokens per second** | **16.54 tok/s** |\n| Average latency | 131.68 seconds |\n"
            "| P99 latency | 247.62 seconds |\n| Total completion tokens | 4,096 |\n")
    [summary] = markdown_summaries(tmp_path, text)
    assert summary.metrics["completed_requests"] == 16
    assert summary.metrics["duration_seconds"] == pytest.approx(247.64)
    assert summary.metrics["e2e_seconds_mean"] == pytest.approx(131.68)
    assert summary.metrics["request_throughput_per_second"] == pytest.approx(0.06)
    assert summary.metrics["total_output_tokens"] == 4096


_RUN_TABLE = ("| Metric | Value |\n|--------|-------|\n| Total requests | {n} |\n| Total time | {total} seconds |\n"
              "| Output tokens per second | {rate} tok/s |\n| Average latency | {latency} seconds |\n"
              "| Total completion tokens | {tokens} |\n")


def test_a_bullets_bold_labels_state_the_tables_setting(tmp_path):
    # `- **Max concurrency:** 2 concurrent requests` above the table: its run held 2 requests at once, each of the
    # 128-token prompts and answers the bullets name.
    text = ("- **Input length:** 128 tokens\n- **Output length:** 128 tokens\n- **Max concurrency:** 2 concurrent "
            "requests\n\n" + _RUN_TABLE.format(n=8, total=31.21, rate=32.81, latency=7.79, tokens=1024))
    [summary] = markdown_summaries(tmp_path, text)
    assert summary.metrics["max_concurrency"] == 2
    assert summary.metrics["mean_input_tokens"] == 128


def test_a_runs_own_totals_outweigh_a_length_a_line_above_states(tmp_path):
    # The bullets are another benchmark's (128 tokens); the run's table says 4,096 completion tokens of 16 requests,
    # 256 each, which the line above must not replace.
    text = ("- the latency test: 128 output tokens a request\n\n"
            + _RUN_TABLE.format(n=16, total=247.64, rate=16.54, latency=131.68, tokens=4096))
    [summary] = markdown_summaries(tmp_path, text)
    assert "mean_output_tokens" not in summary.metrics
    assert summary.metrics["total_output_tokens"] / summary.metrics["completed_requests"] == 256


def test_a_sweep_whose_latency_grows_with_the_requests_at_once_is_a_queue(tmp_path):
    # 16 requests at once take 131.68 s on average against 7.79 s for 2 at once: 16.9× the latency for 8× the
    # requests, at 16.54 output tok/s against 32.81 (the server did not batch the 16, it served them in turn).
    text = ("- **Max concurrency:** 16 concurrent requests\n\n"
            + _RUN_TABLE.format(n=16, total=247.64, rate=16.54, latency=131.68, tokens=4096)
            + "\n- **Max concurrency:** 2 concurrent requests\n\n"
            + _RUN_TABLE.format(n=8, total=31.21, rate=32.81, latency=7.79, tokens=1024))
    diagnosis = diagnosed(tmp_path, text)
    assert diagnosis.verdict == "queueing"
    assert "summary-e2e-grows-with-concurrency" in rules(diagnosis)


def test_a_bench_row_set_in_bold_names_its_model_without_the_markup(tmp_path):
    text = ("| Model | pp512 (t/s) | tg128 (t/s) |\n|---|---|---|\n"
            "| **gemma-4-E2B** QAT Q4_0 | **717.57 ± 18.08** | **20.86 ± 0.02** |\n")
    rows = [record for record in parsed(llamacpp, write(tmp_path, text)) if record.labels.get("model")]
    assert {record.labels["model"] for record in rows} == {"gemma-4-E2B QAT Q4_0"}


def test_a_heading_naming_its_sections_concurrency_sets_its_tables_runs(tmp_path):
    table = ("| Engine | vLLM |\n| --- | --- |\n| Time to first token (ms) | {ttft} |\n"
             "| Inter Token Latency (ms/token) | {itl} |\n")
    text = ("### Concurrency User 1\n" + table.format(ttft=137.3, itl=30.65)
            + "### Concurrency User 64\n" + table.format(ttft=1080.4, itl=61.73))
    assert [summary.metrics["max_concurrency"] for summary in markdown_summaries(tmp_path, text)] == [1, 64]


def test_a_prompt_size_sweep_in_thousands_is_read_as_prompt_tokens(tmp_path):
    # TTFT by prompt size, a setup a column, the metric in the title: the `1K` row is a 1,000-token prompt read in
    # 9.05 s (110 tok/s), the `10K` row 10,000 tokens in 323.88 s; a cell that timed out is no figure.
    text = ("### Average TTFT (seconds)\n| Prompt Size | Phi-3.5-mini llama.cpp | Qwen2.5-1.5B Foundry |\n|---|---|---|\n"
            "| **1K** | 9.05 | 1.79 |\n| **10K** | 323.88 | 22.82 |\n| **15K** | TIMEOUT | 48.79 |\n")
    read = {(summary.labels["benchmark"], summary.metrics["mean_input_tokens"]): summary.metrics["ttft_seconds_mean"]
            for summary in markdown_summaries(tmp_path, text)}
    assert read == {("Phi-3.5-mini llama.cpp", 1000): 9.05, ("Qwen2.5-1.5B Foundry", 1000): 1.79,
                    ("Phi-3.5-mini llama.cpp", 10000): 323.88, ("Qwen2.5-1.5B Foundry", 10000): 22.82,
                    ("Qwen2.5-1.5B Foundry", 15000): 48.79}


def test_a_mixtures_bench_decode_is_judged_by_the_mixtures_cutoff(tmp_path):
    # Qwen3-30B-A3B at Q4_K_M: 17.28 GiB for 30.53 B parameters, of which a token reads ~3.3 B (its active experts
    # and the dense part), ~2 GB. At 75 t/s on an RTX 4090 (1,008 GB/s) that is ~150 GB/s, 15 % of the card, and 48
    # layers' fixed cost (~2.2 ms a step) adds 75 × 2.2 ms = ~16 % of the step: ~31 % of the speed the card allows,
    # under a dense row's 40 % cutoff but above a quarter, llama.cpp's usual for a mixture's gathered experts.
    text = ("| model | size | params | backend | ngl | test | t/s |\n| --- | ---: | ---: | --- | --: | ---: | ---: |\n"
            "| qwen3moe 30B.A3B Q4_K - Medium | 17.28 GiB | 30.53 B | CUDA | 99 | tg128 | 75.00 ± 0.20 |\n")
    diagnosis = diagnosed(tmp_path, text, gpu="rtx-4090")
    assert "hardware-decode-far-below-floor" not in rules(diagnosis)
    assert any("between the cutoffs" in item.text for item in diagnosis.evidence)
