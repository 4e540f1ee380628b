"""Blind rounds 896 on: the general fixes of the thirty-ninth session. Expected figures are worked out here."""

from __future__ import annotations

import pytest
from blind_helpers import diagnosed, markdown_summaries, parsed, write


def _said(diagnosis, *words) -> bool:
    """Whether one piece of the diagnosis' evidence says every one of `words`."""
    return any(all(word in evidence.text for word in words) for evidence in diagnosis.evidence)


def _fired(diagnosis, rule: str) -> bool:
    return any(evidence.rule == rule for evidence in diagnosis.evidence)


# KTransformers balance_serve's console (kvcache-ai/ktransformers#1316, blind888): the runner prints the batch's pieces,
# then the engine the pass's time with 1000 ÷ ms as "tokens/s", one token a pass whatever the batch.
_PREFILL_PASSES = """\
prefill_batch_i: 254,
padded_batch_size 57 capture_padded_batch_size 57
Model execution time (GPU): 7737.844 ms, 0.129 tokens/s
81454
prefill_batch_i: 254,
padded_batch_size 57 capture_padded_batch_size 57
Model execution time (GPU): 7813.713 ms, 0.128 tokens/s
198
"""


def test_a_ktransformers_prefill_pass_reads_its_chunk_over_its_time(tmp_path):
    from inferledger.diagnose.parsers import ktransformers

    windows = parsed(ktransformers, write(tmp_path, _PREFILL_PASSES))
    # 254 prompt tokens in 7.737844 s and in 7.813713 s: 32.8 and 32.5 tok/s, not the printed 0.129 and 0.128
    assert [window.metrics["prompt_tokens_per_second"] for window in windows] == \
        pytest.approx([254 / 7.737844, 254 / 7.813713])
    assert all(window.metrics["running_requests"] == 0 for window in windows)  # nothing decoding beside


def test_ktransformers_prefill_passes_with_nothing_decoding_are_prefill_bound(tmp_path):
    diagnosis = diagnosed(tmp_path, _PREFILL_PASSES)
    assert diagnosis.verdict == "prefill-bound"  # was insufficient-data: the lines were not read
    # one chunk of 254 tokens at the passes' mean rate, (32.83 + 32.51) / 2 = 32.7 tok/s: 254 / 32.7 = 7.8 s at least
    assert _fired(diagnosis, "windows-prompt-in-chunks") and _said(diagnosis, "254 tokens", "about 8 s")


# Decode passes (kvcache-ai/ktransformers#1453): one sequence a pass, so the printed rate is the stream's.
_DECODE_PASSES = """\
decode_batch_i: 1,
Model execution time (GPU): 220.331 ms, 4.539 tokens/s
38005
decode_batch_i: 1,
Model execution time (GPU): 216.355 ms, 4.622 tokens/s
42387
decode_batch_i: 3, token_num: 3 ,batch_size: 3
Model execution time (GPU): 240.000 ms, 4.167 tokens/s
"""


def test_a_ktransformers_decode_pass_generates_one_token_a_sequence(tmp_path):
    from inferledger.diagnose.parsers import ktransformers

    windows = parsed(ktransformers, write(tmp_path, _DECODE_PASSES))
    # 1 / 0.220331 s = 4.54 tok/s, 1 / 0.216355 = 4.62, and three sequences in 0.240 s = 12.5 tok/s in all
    assert [window.metrics["generation_tokens_per_second"] for window in windows] == \
        pytest.approx([1 / 0.220331, 1 / 0.216355, 3 / 0.240])
    assert [window.metrics["running_requests"] for window in windows] == [1, 1, 3]
    assert all("prompt_tokens_per_second" not in window.metrics for window in windows)


def test_a_ktransformers_pass_whose_batch_lines_were_cut_is_reported_not_guessed(tmp_path):
    from inferledger.diagnose.parsers import ktransformers
    from inferledger.diagnose.read import LogFile
    from inferledger.diagnose.records import Skipped

    # the excerpt opens on a pass's time (blind277): which batch it timed is above the cut
    path = write(tmp_path, "Model execution time (GPU): 18302.588 ms, 0.055 tokens/s\n46324\n" + _DECODE_PASSES)
    items = list(ktransformers.parse(LogFile.open(path).lines()))
    assert isinstance(items[0], Skipped) and items[0].line_number == 1
    assert sum(not isinstance(item, Skipped) for item in items) == 3


# Figures no log means but a damaged or hand-edited one prints (found by mutating the fixtures' numbers): each reached a
# division by zero or an infinity made whole, an internal error where the reader should get a verdict.
_CONCURRENCY_ZERO = """\
============ Serving Benchmark Result ============
Successful requests:                     60
Maximum request concurrency:             0
Request rate configured (RPS):           1.50
Benchmark duration (s):                  40.0
Mean TTFT (ms):                          95.3
Mean TPOT (ms):                          21.4
==================================================
"""


def test_a_client_concurrency_of_zero_caps_nothing(tmp_path):
    diagnosis = diagnosed(tmp_path, _CONCURRENCY_ZERO)
    # 60 requests at the 1.5 req/s offered arrive over 40 s, the run's own length: the rate was kept, nothing waited;
    # a first token in 95 ms and 21.4 ms a token are a normal stream
    assert diagnosis.verdict == "healthy"


# A depth sweep whose shallowest row states a zero depth and a zero time (tensorrt-llm's table, numbers damaged).
_SWEEP_ZERO_ROW = """\
|  ISL  | OSL  | Concurrency | N Req | TTFT (ms) | TPOT (ms) | Tput User (TPS) | Tput Decode (TPS) | E2EL (ms) |
|   128 | 1024 |           0 |     0 |      27.0 |         0 |          103.37 |                 0 |         0 |
|  3072 |  128 |           0 |     0 |      90.2 |         0 |           99.43 |                 0 |    1367.5 |
|     0 |  128 |           0 |     0 |         0 |         0 |           96.91 |                 0 |    1385.7 |
"""


def test_a_sweep_row_of_zero_depth_and_time_is_an_artifact_not_a_crash(tmp_path):
    diagnosis = diagnosed(tmp_path, _SWEEP_ZERO_ROW)
    assert diagnosis.verdict == "measurement-artifact"  # a TTFT of 0 ms: the first token was not timed
    assert _fired(diagnosis, "summary-ttft-zero")


def test_a_rate_with_no_time_a_token_is_said_in_words(tmp_path):
    diagnosis = diagnosed(tmp_path, "  Average:      999999999999 tokens/sec\n  P-1:           0.0 ms/token (0 TPS)\n")
    assert diagnosis.verdict == "measurement-artifact"
    assert _fired(diagnosis, "requests-impossible-generation-rate") and _said(diagnosis, "with no time a token")


# compare-llama-bench rows cut from their header (llama.cpp#17505): GPU, model, micro-batch size, test, before, after.
_UBATCH_ZERO = """\
| RTX 4090 | llama 8B Q4_0 |   0 | pp512@d32768 | 6491.70 | 6495.43 | 1.00 |
| RTX 4090 | llama 8B Q4_0 | 512 | pp512@d32768 | 6500.10 | 6510.00 | 1.00 |
"""


def test_a_micro_batch_of_zero_reads_as_llama_cpps_default(tmp_path):
    diagnosis = diagnosed(tmp_path, _UBATCH_ZERO)
    # was "--isl must be a whole number of at least 1, got 0", an error about a flag the user never gave: the prompt
    # of 512 tokens is read in llama.cpp's default micro-batches of 512 (min(512, 512)), at 6,510 tok/s at best
    assert _fired(diagnosis, "hardware-prefill-near-realistic") and _said(diagnosis, "512 token(s)", "6,510 tok/s")


def test_an_input_rate_beyond_any_float_compares_no_prompt_work(tmp_path):
    # 1e308 tokens over 32 requests at 10^12 req/s: the run's input rate overflows to infinity, so one prompt's own
    # work (its tokens ÷ that rate) is no figure, and the first token is not compared with it (was a division by 0)
    text = ("Successful requests:           32\nTotal input tokens:            1e308\n"
            "Request throughput (req/s):    999999999999\nMedian TTFT (ms):              18342.09\n")
    diagnosis = diagnosed(tmp_path, text)
    assert not _fired(diagnosis, "summary-ttft-over-prompt-work")


def test_a_run_length_beyond_any_float_counts_no_requests(tmp_path):
    # 1e308 req/s over 1e308 s is no count of requests (was an infinity made whole: OverflowError)
    text = _CONCURRENCY_ZERO.replace("Successful requests:                     60\n", "").replace(
        "40.0", "1e308").replace("Request rate configured (RPS):           1.50", "Request throughput (req/s): 1e308")
    diagnosis = diagnosed(tmp_path, text)
    assert not any("completed_requests" in evidence.numbers for evidence in diagnosis.evidence)


def test_arrivals_of_no_time_give_no_drain_ratio(tmp_path):
    # 1e-320 requests at 1e308 req/s arrive over 0 s (the quotient underflows): the run's drain over its arrivals is
    # no figure (was a division by zero); with no first-token, per-token or request time the rate alone is unjudged
    text = ("Traffic request rate:                    1e308\nMax request concurrency:                 5\n"
            "Successful requests:                     1e-320\nBenchmark duration (s):                  1e-320\n")
    assert diagnosed(tmp_path, text).verdict == "insufficient-data"


# Two runs as columns (a pasted sweep), some cells zeroed: a sweep from a concurrency of 0, or from no requests served
# a second, scales by no ratio (was a division by zero).
_SWEEP_FROM_ZERO = """\
| Benchmark duration (s) | 489.46 | 340.34 | 0 |
| Request throughput (req/s) | 0 | 0.29 | 0 |
| Concurrency | 9.51 | 0 | 0 |
| **Mean TTFT (ms)** | 3932.67 | 0 | 0 |

| Benchmark duration (s) | 109.03 | 103.23 | 100.86 |
| Request throughput (req/s) | 0.92 | 0.97 | 0.99 |
| Concurrency | 44.43 | 0 | 0 |
| **Mean TTFT (ms)** | 0 | 15495.26 | 14780.73 |
"""


def test_a_sweep_from_zero_scales_by_no_ratio(tmp_path):
    assert not _fired(diagnosed(tmp_path, _SWEEP_FROM_ZERO), "summary-sweep-scales")


# A hand-made llama-bench comparison (blind901, a Reddit post on llama.cpp's ROCm backend): llama-bench's own columns,
# then each build's rate under the build's name alone and their change.
_BUILDS_BY_NAME = """\
| model | size | params | test | HIP | lhl-tune-tile | Δ% |
|------------------------|------------|----------|----------------|--------:|----------------:|-------:|
| llama 1B Q4_K - Medium | 762.81 MiB | 1.24 B | pp512 | 4703.28 | 4970.14 | 5.67% |
| llama 1B Q4_K - Medium | 762.81 MiB | 1.24 B | pp512 @ d1024 | 4076.03 | 4575.18 | 12.25% |
"""


def test_builds_named_alone_over_llama_bench_columns_are_each_a_row(tmp_path):
    from inferledger.diagnose.parsers import llamacpp

    rows = parsed(llamacpp, write(tmp_path, _BUILDS_BY_NAME))
    # two tests × two builds, each its rate (the Δ% column is no build): was no reader at all
    assert sorted(row.metrics["prompt_tokens_per_second"] for row in rows) == [4076.03, 4575.18, 4703.28, 4970.14]
    assert {row.labels["build"] for row in rows} == {"hip", "lhl-tune-tile"}


def test_builds_named_alone_read_as_an_accelerators_prompt_rate(tmp_path):
    diagnosis = diagnosed(tmp_path, _BUILDS_BY_NAME)
    # 2 FLOPs × 1.24 B parameters × 4,970.14 tok/s = 12.3 TFLOP/s: past windows-prompt-compute-sound's 10 TFLOP/s
    assert diagnosis.verdict == "healthy" and _said(diagnosis, "12.3 TFLOP/s")


def test_guard_a_plain_llama_bench_header_is_no_comparison():
    from inferledger.diagnose.parsers.llamacpp import _bare_builds

    assert _bare_builds(["model", "size", "params", "backend", "ngl", "test", "t/s"]) is None
    # no change column beside them: two columns of something else, not a comparison
    assert _bare_builds(["model", "size", "params", "test", "hip", "rocm"]) is None


# A model card's llamafile-bench table as a commit's diff shows it (blind900, Mozilla's Mistral-7B-Instruct-v0.3
# llamafile card): the removed rows marked `- ` before their bar, the context rows indented, the Markdown source's
# underscores escaped (`model\_filename`, `Q6\_K`).
_CARD_DIFF = """\
@@ -75,60 +75,60 @@ pass the `-c 0` flag.
  | hardware | model\\_filename | size | test | t/s |
  | :------- | :-------------- | ---: | ---: | --: |
- | NVIDIA GeForce RTX 4090 (cuBLAS) | Mistral-7B-Instruct-v0.3.F16 | 13.50 GiB | pp512 | 7264.74 |
- | NVIDIA GeForce RTX 4090 (cuBLAS) | Mistral-7B-Instruct-v0.3.F16 | 13.50 GiB | tg16 | 58.27 |
- | NVIDIA GeForce RTX 4090 (cuBLAS) | Mistral-7B-Instruct-v0.3.Q6\\_K | 5.54 GiB | pp512 | 4236.95 |
- | NVIDIA GeForce RTX 4090 (cuBLAS) | Mistral-7B-Instruct-v0.3.Q6\\_K | 5.54 GiB | tg16 | 114.65 |
"""


def test_a_diffs_removed_table_rows_with_escaped_underscores_are_read(tmp_path):
    from inferledger.diagnose.parsers import llamacpp

    rows = parsed(llamacpp, write(tmp_path, _CARD_DIFF))
    # the four rows, marks off: two prompt rates and two generation rates (was no reader at all)
    assert sorted(row.metrics.get("generation_tokens_per_second", 0) for row in rows) == [0, 0, 58.27, 114.65]
    assert {row.labels["model"] for row in rows} == {"Mistral-7B-Instruct-v0.3.F16", "Mistral-7B-Instruct-v0.3.Q6_K"}


def test_a_diffs_table_judged_against_the_card(tmp_path):
    diagnosis = diagnosed(tmp_path, _CARD_DIFF, gpu="rtx-4090")
    # 13.50 GiB × 58.27 tok/s = 14.50 GB × 58.27 = 844.7 GB/s, 84 % of the 4090's 1,008 GB/s: as fast as the memory
    # allows (Q6_K: 5.54 GiB × 114.65 = 682 GB/s, 68 %)
    assert diagnosis.verdict == "healthy" and _said(diagnosis, "844.7 GB/s", "84%")


# A deployment guide's comparison (blind907, Dynamo on GKE): the workload stated on a labelled line above each table,
# its figures parted by bars, and a `Winner` column that compares the runs.
_WORKLOAD_AND_WINNER = """\
**Workload:** 2000 Prompts | Input: 8,192 Tokens (Long) | Output: 200 Tokens (Short)

| Metric | Standard vLLM (Monolithic 8-GPU) | Dynamo Disaggregated (Split 4+4 GPUs) | Winner |
| :--- | :--- | :--- | :--- |
| **Request Throughput** | 2.57 req/s | 0.82 req/s | Standard (3x Higher) |
| **Mean TTFT** (Wait Time) | 325 sec | 1,036 sec | Standard (3x Faster) |
| **P99 TPOT** (Tail Latency) | **1,106.83 ms** | **100.46 ms** | **Dynamo (11x Smoother)** |
"""


def test_a_winner_column_is_no_run(tmp_path):
    summaries = markdown_summaries(tmp_path, _WORKLOAD_AND_WINNER)
    # the two deployments, not a third run at `3x Faster` = 3 s TTFT and `3x Higher` = 3 req/s
    assert sorted(record.metrics["ttft_seconds_mean"] for record in summaries) == [325.0, 1036.0]


def test_a_labelled_workload_line_with_bars_states_the_lengths(tmp_path):
    summaries = markdown_summaries(tmp_path, _WORKLOAD_AND_WINNER)
    assert all(record.metrics["mean_input_tokens"] == 8192 and record.metrics["mean_output_tokens"] == 200
               for record in summaries)
    diagnosis = diagnosed(tmp_path, _WORKLOAD_AND_WINNER)
    # 8,192 tokens ÷ (2.57 req/s × 8,192) = 0.389 s of prompt work against a 325 s first token: 835× (was unjudged:
    # no prompt length was read)
    assert diagnosis.verdict == "queueing" and _said(diagnosis, "835×")


def test_guard_a_cap_on_the_output_is_no_output_length():
    from inferledger.diagnose.parsers.bench_markdown import _stated_setting

    assert _stated_setting("Current profile: repo-review · max output: 4096 tokens · runs: 94") == {}


def test_lengths_stated_by_label_or_capitalised_are_read():
    from inferledger.diagnose.parsers.bench_markdown import _stated_setting

    assert _stated_setting("- Input: 8,000 tokens") == {"mean_input_tokens": 8000.0}
    assert _stated_setting("**Workload**: 8,192 Input Tokens / 1,024 Output Tokens") == {
        "mean_input_tokens": 8192.0, "mean_output_tokens": 1024.0}


# A model card's `Metric Value` table rendered as text (blind904, a Qwen3-32B NVFP4 mirror's verified performance on a
# DGX Spark): each row its label and its figure, no bar and no colon between.
_RENDERED_CARD = """\
Metric Value
Throughput ~10.5 tok/s
Prompt tokens 40
Output tokens 852
"""


def test_a_rendered_tables_token_counts_are_read_with_its_rate(tmp_path):
    from inferledger.diagnose.parsers import generic_phrases

    [request] = parsed(generic_phrases, write(tmp_path, _RENDERED_CARD))
    # one request: 40 prompt tokens, 852 generated at 10.5 tok/s (was no reader: one rate alone is too little to go on)
    assert (request.metrics["input_tokens"], request.metrics["output_tokens"]) == (40, 852)
    assert request.metrics["generation_tokens_per_second"] == 10.5


def test_a_rendered_cards_stream_judged_against_the_weights(tmp_path):
    diagnosis = diagnosed(tmp_path, _RENDERED_CARD, model="nvidia/Qwen3-32B-NVFP4", gpu="dgx-spark")
    # 1 / 10.5 = 95.24 ms a token; 32B × 4.5 bits = 18.0 GB at 273 GB/s + 64 layers' launches = 68.88 ms: 72 % of what
    # the weights allow, a healthy stream
    assert diagnosis.verdict == "healthy" and _said(diagnosis, "95.2 ms/token")


def test_guard_a_sentence_ending_in_a_token_count_is_no_row():
    from inferledger.diagnose.parsers.generic_phrases import line_metrics

    # a sentence whose count comes before its unit reads as ever: the count by its unit, the phase by its words
    assert line_metrics("The prompt was 40 tokens") == {"input_tokens": 40.0}


# FMBench's results summary (blind912, a SageMaker TGI endpoint on ml.g5.xlarge): its latency printed with no unit,
# its request rate as transactions a minute.
_FMBENCH = """\
| Information | Value |
|-----|-----|
| concurrency | 1 |
| prompt_token_count_mean | 1623 |
| completion_token_count_mean | 53 |
| completion_token_throughput | 18 |
| latency_mean | 2.35 |
| transactions_per_minute | 49 |
"""


def test_transactions_a_minute_settle_a_unitless_latency(tmp_path):
    from inferledger.diagnose.parsers import generic_summary

    [run] = parsed(generic_summary, write(tmp_path, _FMBENCH))
    # 49 a minute = 0.817 req/s; one request at a time takes 1 / 0.817 = 1.22 s each (Little's law), so 2.35 is
    # seconds (within 2× of 1.22 s; 2.35 ms would be 520× off); was no rate and a latency left unread
    assert run.metrics["request_throughput_per_second"] == pytest.approx(49 / 60)
    assert run.metrics["e2e_seconds_mean"] == pytest.approx(2.35)


def test_guard_tokens_a_minute_are_no_request_rate():
    from inferledger.diagnose.parsers.generic_summary import labelled_metric

    assert labelled_metric("tokens_per_minute", 1200, "") != ("request_throughput_per_second", 20.0)


# `ollama ps` before and after a Modelfile's copy of the model with a larger num_ctx (blind911): a new ID over the same
# weights, its CONTEXT column the longer one.
_PS_COPY = """\
NAME                        ID              SIZE     PROCESSOR          CONTEXT    UNTIL
glm-4.7-flash:latest        d1a8a26252f1    22 GB    100% GPU           32768      2 minutes from now
NAME                        ID              SIZE     PROCESSOR          CONTEXT    UNTIL
glm-4.7-flash-96k:latest    3e5716da4864    29 GB    17%/83% CPU/GPU    96000      3 minutes from now
"""


def test_a_models_copy_for_a_longer_context_is_its_reload(tmp_path):
    diagnosis = diagnosed(tmp_path, _PS_COPY)
    # 22 GB all on the GPU, then 29 GB with 83 % there: the 7 GB more is the cache of a 96,000-token context against
    # 32,768, and it sent 17 % of the model to system memory (was capacity facts only: two unrelated models)
    assert diagnosis.verdict == "kv-capacity"
    assert _said(diagnosis, "32,768 to 96,000", "the 7.0 GB it grew")


def test_guard_another_model_is_no_copy(tmp_path):
    other = _PS_COPY.replace("glm-4.7-flash-96k:latest", "qwen3-coder:30b        ")
    assert not _fired(diagnosed(tmp_path, other), "state-reload-pushes-layers-off")


# A script that keeps its benchmark's output as comments under its commented commands (blind910, a Qwen2.5-VL-3B run
# on two GPUs with data parallelism): every line a `# ` comment.
_COMMENTED = """\
# vllm bench serve \\
#   --dataset-name random \\
#   --random-input-len 5000 \\
#   --random-output-len 200 \\
#   --num-prompts 300
# ============ Serving Benchmark Result ============
# Successful requests:                     300
# Benchmark duration (s):                  100.42
# Total input tokens:                      1500000
# Total generated tokens:                  60000
# Request throughput (req/s):              2.99
# Output token throughput (tok/s):         597.50
# ---------------Time to First Token----------------
# Mean TTFT (ms):                          39744.96
# -----Time per Output Token (excl. 1st token)------
# Mean TPOT (ms):                          211.22
# ==================================================
"""


def test_benchmark_output_commented_out_in_a_script_is_read(tmp_path):
    diagnosis = diagnosed(tmp_path, _COMMENTED)
    # vllm bench's own block once the comment marks are off: 1,500,000 ÷ 300 = 5,000 tokens a prompt at 1,500,000 ÷
    # 100.42 = 14,937 input tok/s is 335 ms of prompt work against a 39.7 s first token (was the last-resort reader's
    # "unknown client", which left it unjudged)
    assert diagnosis.verdict == "queueing" and _said(diagnosis, "vllm-bench", "335 ms")


def test_guard_a_document_with_headings_keeps_its_marks():
    from inferledger.diagnose.read import _paste_prefix

    page = ["# Results", "", "We ran the benchmark twice.", "## Run 1", "TTFT: 120 ms", "TPOT: 21 ms", "## Run 2",
            "TTFT: 118 ms", "TPOT: 22 ms"]
    assert _paste_prefix(page) is None


def test_a_rate_past_a_floats_range_warns_nothing(tmp_path):
    import warnings

    # llama-batched-bench rows, one S_TG damaged to 1e308: eight times it (the prefill-heavy test's product) is past
    # a float's range; the reader may take it as infinite, but numpy's overflow warning is no line for a user
    rows = ("|    PP |     TG |    B |   N_KV |   T_PP s | S_PP t/s |   T_TG s | S_TG t/s |      T s |    S t/s |\n"
            "|-------|--------|------|--------|----------|----------|----------|----------|----------|----------|\n"
            "|   512 |    128 |    1 |    640 |    0.064 |  8000.00 |    1.280 |    1e308 |    1.344 |   476.19 |\n"
            "|   512 |    128 |    2 |   1280 |    0.128 |  8000.00 |    2.000 |   128.00 |    2.128 |   601.50 |\n")
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert diagnosed(tmp_path, rows).verdict
