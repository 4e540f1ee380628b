"""Blind rounds 876 on: the general fixes of the thirty-eighth session. Expected figures are worked out here."""

from __future__ import annotations

import pytest
from blind_helpers import diagnosed, markdown_summaries, parsed, write


def _said(diagnosis, *words) -> bool:
    """Whether one piece of the diagnosis' evidence says every one of `words`."""
    return any(all(word in evidence.text for word in words) for evidence in diagnosis.evidence)


def _fired(diagnosis, rule: str) -> bool:
    return any(evidence.rule == rule for evidence in diagnosis.evidence)


# tt-metal's README table (blind373, blind156): `t/s/u` is each user's measured decode rate, `Target t/s/u` the rate
# the model was to reach. Rows cut from the Nov 2025 table.
_TARGET_TABLE = """\
| Model | Batch | Hardware | ttft (ms) | t/s/u | Target<br>t/s/u | t/s |
|---|---|---|---|---|---|---|
| Falcon 7B | 32 | n150 (Wormhole) | 70 | 18.5 | 26 | 592.0 |
| Llama 3.2 1B | 32 | n150 (Wormhole) | 23 | 80.5 | 160 | 2576.0 |
"""


def test_a_goal_column_beside_the_measured_one_is_not_read_as_a_run(tmp_path):
    summaries = markdown_summaries(tmp_path, _TARGET_TABLE)
    # one run a row, each at its measured rate: 18.5 and 80.5 tok/s per user (was a second run a row, at the target's
    # 26 and 160 tok/s, read from the goal's column as if measured)
    assert sorted(record.metrics["output_tokens_per_second_per_user_mean"] for record in summaries) == [18.5, 80.5]
    # t/s is the batch's: 32 users × 18.5 = 592.0, 32 × 80.5 = 2576.0
    assert sorted(record.metrics["output_tokens_per_second"] for record in summaries) == [32 * 18.5, 32 * 80.5]


# ATOM's vLLM plug-in A/B table (blind444): `target` is the build under test, `ref` the reference; no plain TTFT
# column, so `target TTFT` is a measurement.
_VARIANT_TABLE = """\
| model | ISL | OSL | C | target TTFT (ms) | ref TTFT (ms) | target TPOT (ms) | ref TPOT (ms) |
|---|---:|---:|---:|---:|---:|---:|---:|
| DeepSeek-V3.2 FP8 TP8 | 1000 | 100 | 4 | 191.810 | 165.205 | 13.549 | 14.188 |
"""


def test_guard_a_target_column_with_no_plain_twin_is_still_measured(tmp_path):
    summaries = markdown_summaries(tmp_path, _VARIANT_TABLE)
    ttfts = sorted(record.metrics["ttft_seconds_mean"] for record in summaries)
    assert ttfts == pytest.approx([0.165205, 0.191810])  # both builds' first tokens, the target's 191.810 ms among them


# A streaming probe's printout (blind877, sudoingX/qwen38-mtp's probe.py against llama-server): one prompt a line, its
# median rate first, its runs, then the prompt's text, which makes each line longer than a list's.
_PROBE = """\
python3 probe.py http://127.0.0.1:8123
  26.6 tok/s median | runs: [26.6, 26.7, 26.6] | write a python function that merges two sorted lists into one
  26.7 tok/s median | runs: [26.7, 26.8, 26.7] | explain the difference between mmap and read for large files
  25.9 tok/s median | runs: [25.9, 26.0, 25.9] | write a bash script that watches a directory and prints changes
OVERALL: mean 26.4 median 26.6
"""


def test_a_probes_rate_a_line_with_the_prompt_quoted_after_is_read(tmp_path):
    from inferledger.diagnose.parsers import generic_phrases

    rates = [record.metrics["generation_tokens_per_second"]
             for record in parsed(generic_phrases, write(tmp_path, _PROBE))]
    assert rates == [26.6, 26.7, 25.9]  # was refused: each line is longer than the 80 characters of a list's line
    # 26.6 tok/s is 1 / 26.6 = 37.6 ms a token
    diagnosis = diagnosed(tmp_path, _PROBE, "probe.txt")
    assert diagnosis.verdict == "healthy"


_TABLE_ROWS = """\
| Llama-3.1-8B on one RTX 4090, run one of many configurations | 4096 | 45.2 tok/s |
| Llama-3.1-8B on one RTX 4090, run two of many configurations | 8192 | 44.8 tok/s |
| Llama-3.1-8B on one RTX 4090, run three of many configurations | 16384 | 43.9 tok/s |
"""


def test_guard_a_tables_long_rows_are_not_a_list_of_rates(tmp_path):
    from inferledger.diagnose.parsers import generic_phrases

    assert generic_phrases.sniff(_TABLE_ROWS) == 0.0  # the first cell of each row holds no rate


# trtllm-bench results as a TensorRT-LLM PR tabulates them (blind880): thousands grouped by spaces, and the headers
# kept on one line by HTML no-break spaces.
_SPACED_TABLE = """\
| isl | osl | quant | concurrency | backend | req/s | tps&nbsp;/gpu | avg&nbsp;latency&nbsp;ms | p50&nbsp;latency&nbsp;ms |
|----:|----:|:-----:|----:|:-------:|------:|--------------:|-------------------------:|-------------------------:|
| 5000 | 500  | - |   1 | cpp | 0.3338 |  166.9008 |   2 995.6970 |   2 995.7907 |
| 5000 | 500  | - | 250 | cpp | 3.8081 | 1 904.0392 |  51 868.0716 |  61 115.2586 |
"""


def test_space_grouped_figures_under_no_break_space_headers_are_read(tmp_path):
    summaries = markdown_summaries(tmp_path, _SPACED_TABLE)
    # `2 995.6970` ms is 2.9956970 s (was none: `avg&nbsp;latency&nbsp;ms` named no metric; and its cells read as 2)
    assert [record.metrics["e2e_seconds_mean"] for record in summaries] == pytest.approx([2.995697, 51.8680716])
    assert [record.metrics["e2e_seconds_median"] for record in summaries] == pytest.approx([2.9957907, 61.1152586])
    # one request in flight: 500 tokens in 2.996 s is 166.9 tok/s, the table's own tps/gpu at concurrency 1
    assert 500 / summaries[0].metrics["e2e_seconds_mean"] == pytest.approx(166.9008, rel=1e-3)


def test_guard_two_figures_in_one_cell_are_not_joined(tmp_path):
    summaries = markdown_summaries(tmp_path, """\
| model | concurrency | latency (ms) |
|---|---|---|
| a | 4 | 12 3456 |
| b | 8 | 1 20 |
""")
    # neither cell is a figure grouped in threes: each still reads as its first number, 12 ms and 1 ms
    assert [record.metrics["e2e_seconds_mean"] for record in summaries] == pytest.approx([0.012, 0.001])


# llama-bench on an RX 7900 XT under ROCm, with the timings of a 2,562-token prompt printed after it and no token
# generated (blind881, llama.cpp#4763).
_DEVICE_LINE = "  Device 0: AMD Radeon RX 7900 XT, compute capability 11.0, VMM: no\n"
_BENCH_AND_PROMPT = """\
| model                          |       size |     params | backend    | ngl | test       |              t/s |
| ------------------------------ | ---------: | ---------: | ---------- | --: | ---------- | ---------------: |
| llama 7B Q8_0                  |   7.17 GiB |     7.24 B | ROCm       |  33 | pp 512     |  2402.21 ± 34.47 |
| llama 7B Q8_0                  |   7.17 GiB |     7.24 B | ROCm       |  33 | tg 128     |     67.20 ± 0.02 |
 llama_print_timings:        load time =    1193.32 ms
 llama_print_timings: prompt eval time =    1158.94 ms /  2562 tokens (    0.45 ms per token,  2210.64 tokens per second)
"""


def test_a_prompt_only_run_the_card_judges_fast_is_no_bottleneck(tmp_path):
    diagnosis = diagnosed(tmp_path, _DEVICE_LINE + _BENCH_AND_PROMPT, gpu="rx-7900-xt")
    # 7.17 GiB × 67.20 t/s = 7.699 GB × 67.2 = 517 GB/s, 65 % of the card's 800 GB/s; and the card judges the pp512
    # row as fast as it computes: the prompt-only timings are the work, not a bottleneck (was prefill-bound)
    assert diagnosis.verdict == "healthy"
    assert _fired(diagnosis, "hardware-prefill-near-realistic")
    assert not _fired(diagnosis, "requests-prompt-only")
    assert any("2,562 tokens at 2,211 tok/s" in note and "as fast as the card computes" in note
               for note in diagnosis.notes)
    # the HIP build's device line names an AMD card: its backend is ROCm, not CUDA (was "on the CUDA backend")
    assert any("517.4" in evidence.text and "on the ROCm backend" in evidence.text for evidence in diagnosis.evidence)


def test_guard_with_no_card_a_long_prompt_alone_is_still_its_cost(tmp_path):
    diagnosis = diagnosed(tmp_path, _BENCH_AND_PROMPT)
    assert _fired(diagnosis, "requests-prompt-only")  # no card judged the prompt's rate


# LM Studio's MLX engine, the poster's table of first-token times by prompt size (blind884, lmstudio-bug-tracker).
_TTFT_BY_TOKENS = """\
Tokens | With slowdown (TTFT) | Without slowdown (TTFT)
-- | -- | --
25 K | 180 s | 30 s
10 K | 72 s | 10 s
4.3 K | 32.7 s | 4.3 s
1.4 K | 12.0 s | 1.5 s
"""


def test_a_bare_token_count_beside_first_token_times_is_the_prompt(tmp_path):
    summaries = markdown_summaries(tmp_path, _TTFT_BY_TOKENS)
    prompts = sorted({record.metrics["mean_input_tokens"] for record in summaries})
    assert prompts == [1400.0, 4300.0, 10000.0, 25000.0]  # was none: `Tokens` alone named no metric
    diagnosis = diagnosed(tmp_path, _TTFT_BY_TOKENS, "ttft.txt")
    # the same 25,000-token prompt: 180 s against 30 s, 6× slower on one path (139 against 833 prompt tok/s)
    assert diagnosis.verdict == "prefill-bound"  # was healthy: TTFTs of unknown prompts
    assert _said(diagnosis, "180.00 s for a 25,000-token prompt", "6×")


def test_guard_tokens_beside_a_rate_and_a_duration_are_not_the_prompt(tmp_path):
    summaries = markdown_summaries(tmp_path, """\
| Run | TTFT (ms) | Throughput (tok/s) | Tokens | Duration (ms) |
|-----|-----------|-------------------|--------|---------------|
| 1 | 3927.06 | 98.19 | 1596 | 20227.93 |
""")
    assert summaries and not any("mean_input_tokens" in record.metrics for record in summaries)
    summaries = markdown_summaries(tmp_path, """\
| test | mode | TTFT | decode | tokens |
|---|---|---|---|---|
| code-256 | strict | 1.7s | 53.6 tok/s | 256 |
| long-600 | strict | 1.6s | 52.0 tok/s | 600 |
""")  # (blind570: a phase's rate column named by the phase alone, its unit in the cells)
    assert summaries and not any("mean_input_tokens" in record.metrics for record in summaries)


# SGLang's gsm8k accuracy run (blind761, sglang#7241): 1,319 questions sent at once, the run's latency and output rate.
_ACCURACY_RUN = """\
python3 benchmark/gsm8k/bench_sglang.py --num-questions 2000 --parallel 2000 --num-shots 8 --port 30001
100%|████████████████████████████████████████| 1319/1319 [00:32<00:00, 40.19it/s]
Accuracy: 0.945
Invalid: 0.000
Latency: 33.134 s
Output throughput: 4311.163 token/s
"""


def test_an_accuracy_runs_throughput_is_the_runs_not_one_streams(tmp_path):
    from inferledger.diagnose.parsers import sglang_accuracy

    [record] = parsed(sglang_accuracy, write(tmp_path, _ACCURACY_RUN))
    assert record.kind == "summary"  # was a request read by the phrase reader: one stream at 4,311 tok/s
    assert record.metrics["output_tokens_per_second"] == 4311.163
    assert record.metrics["duration_seconds"] == 33.134
    assert record.metrics["total_output_tokens"] == round(33.134 * 4311.163)  # 142,846 tokens over all the answers
    assert record.labels["accuracy"] == "0.945"


def test_with_the_card_an_accuracy_runs_rate_is_judged_as_a_runs(tmp_path):
    diagnosis = diagnosed(tmp_path, _ACCURACY_RUN, model="deepseek-ai/DeepSeek-V3", gpu="h200-sxm")
    # 4,311 tok/s over 1,319 answers at once is no one stream's 0.23 ms a token, which beat the weights' floor and read
    # as a broken measurement; as the run's rate it is far above one stream's realistic rate: decode is not slow
    assert diagnosis.verdict == "healthy"  # was measurement-artifact
    assert _fired(diagnosis, "hardware-throughput-one-stream")
    assert not _fired(diagnosis, "hardware-decode-faster-than-floor")


def test_without_the_card_an_accuracy_runs_rate_alone_is_not_judged(tmp_path):
    diagnosis = diagnosed(tmp_path, _ACCURACY_RUN)
    assert diagnosis.verdict == "insufficient-data"  # was healthy, from 0.23 ms "per token" of one stream
    assert _fired(diagnosis, "summary-throughput-only")


# FMBench's report for one endpoint at concurrency 1 (blind707, FMBench on a g5.2xlarge), its metrics a row each.
_ONE_STREAM_REPORT = """\
| Information | Value |
|-----|-----|
| experiment_name | llama3-8b-instruct |
| concurrency | 1 |
| error_rate | 0.0 |
| prompt_token_count_mean | 284 |
| prompt_token_throughput | 4314 |
| completion_token_count_mean | 61 |
| completion_token_throughput | 76 |
"""


def test_one_stream_at_a_time_bounds_its_step_by_its_output_rate(tmp_path):
    diagnosis = diagnosed(tmp_path, _ONE_STREAM_REPORT, "fmbench.txt")
    # one request in flight at a time: its 61 tokens come at 76 tok/s with its prompt's time in them, so a decode step
    # takes at most 1 / 76 = 13.16 ms (was insufficient-data: a rate alone, read as any batch's)
    assert diagnosis.verdict == "healthy"
    assert _said(diagnosis, "at most", "13.16 ms")
    [summary] = diagnosis.metrics["summary"]
    assert summary["mean_output_tokens"] == 61  # `completion_token_count_mean` (was not read)


def test_guard_one_stream_of_long_prompts_gives_its_step_no_bound(tmp_path):
    # 4,000 prompt tokens a generated one's 61: most of the time is the prompt's (more than 8 prompt tokens a token)
    diagnosis = diagnosed(tmp_path, _ONE_STREAM_REPORT.replace("| 284 |", "| 4000 |"), "fmbench.txt")
    assert not _said(diagnosis, "at most")
    assert diagnosis.verdict == "insufficient-data"


# SGLang's bench_one_batch for a new model's support PR, the excerpt cut after the warm-up's prefill (blind882).
_WARMUP_ONLY = """\
bench_one_batch with sglang impl
Warmup ...
Prefill. latency: 0.81341 s, throughput:  10071.16 token/s
"""


def test_a_warm_up_prefill_alone_is_not_judged(tmp_path):
    diagnosis = diagnosed(tmp_path, _WARMUP_ONLY, "one_batch.txt")
    # 0.813 s for the warm-up's prompts (0.81341 × 10,071.16 = 8,192 tokens) with its kernels built in it: was healthy
    assert diagnosis.verdict == "insufficient-data"
    assert _fired(diagnosis, "summary-warmup-only")
    assert _said(diagnosis, "TTFT 813 ms", "warm-up")


def test_guard_a_warm_up_with_its_decode_steps_is_still_judged(tmp_path):
    diagnosis = diagnosed(tmp_path, _WARMUP_ONLY + """\
Decode 0. Batch size: 32, latency: 0.01201 s, throughput:   2664.45 token/s
Decode.  median latency: 0.01167 s, median throughput:   2742.07 token/s
Total. latency:  1.276 s, throughput:   6824.65 token/s
""", "one_batch.txt")
    assert not _fired(diagnosis, "summary-warmup-only")  # 11.67 ms a step: a time per token to judge


# llmfit's shared benchmark row for an ollama tag (blind756): the tag states the weights' format.
_TAGGED_ROW = """\
| Model | Provider | Avg TPS | Avg TTFT (ms) |
| --- | --- | --- | --- |
| qwen3.8:27b-q4_K_M | ollama | 16.8 | 420.7 |
"""


def _roofline_text(diagnosis) -> str:
    return " ".join(diagnosis.roofline.get("lines", [])) if diagnosis.roofline else ""


def test_the_one_format_a_tables_model_cells_name_sizes_the_weights(tmp_path):
    diagnosis = diagnosed(tmp_path, _TAGGED_ROW, "llmfit.txt", model="Qwen/Qwen3.8-27B", gpu="rtx-5070-ti")
    # Q4_K is 4.5 bits a weight: 27e9 × 4.5 / 8 = 15.2 GB a step (was the checkpoint's guessed bf16, 54.0 GB)
    assert "4.5 bits per weight (the log's Q4_K) = 15.2 GB" in _roofline_text(diagnosis)


def test_guard_rows_of_two_formats_state_no_one_format(tmp_path):
    rows = _TAGGED_ROW + "| qwen3.8:27b-q8_0 | ollama | 9.9 | 431.0 |\n"
    diagnosis = diagnosed(tmp_path, rows, "llmfit.txt", model="Qwen/Qwen3.8-27B", gpu="rtx-5070-ti")
    assert "the log's" not in _roofline_text(diagnosis)  # a comparison of quantisations: each row its own
