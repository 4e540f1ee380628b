"""Blind rounds 433 on: the general fixes of the twenty-first session. Expected figures are worked out here."""

from __future__ import annotations

from blind_helpers import markdown_summaries, parsed, rules, write

from inferledger.diagnose import diagnose_files
from inferledger.diagnose.parsers import bench_markdown, bench_text

STREAM = "output_tokens_per_second_per_user_mean"


def test_a_time_cell_in_minutes_and_seconds_with_a_note_after_it():
    # 5 min 12 s = 5 × 60 + 12 = 312 s; `2 min` = 120 s; the bracketed aside is no part of the figure.
    assert bench_markdown._cell_seconds("~5 m 12 s (130,810 tok)") == 312.0
    assert bench_markdown._cell_seconds("5m 12s") == 312.0
    assert bench_markdown._cell_seconds("2 min") == 120.0
    assert bench_markdown._cell_seconds("870ms") == 0.87
    assert bench_markdown._cell_seconds("12 m") is None  # metres, or minutes without their unit spelled: not read


def test_a_context_table_of_ttfts_in_thousands_and_minutes(tmp_path):
    # A long-context sweep (Pushkinist/rMLX#155's shape): `4k` is 4,000 prompt tokens, `128k` 128,000, and the
    # last TTFT cell in minutes and seconds no longer drops the whole column.
    text = ("| Context | TTFT | ratio |\n|---|---|---|\n| 4k | ~6.9 s | ~48× |\n| 64k | ~132 s | — |\n"
            "| 128k | ~5 m 12 s (130,810 tok) | — |\n")
    records = markdown_summaries(tmp_path, text)
    assert [record.metrics["mean_input_tokens"] for record in records] == [4000.0, 64000.0, 128000.0]
    assert [record.metrics["ttft_seconds_mean"] for record in records] == [6.9, 132.0, 312.0]


def test_a_time_column_in_minutes_is_a_jobs_duration_not_a_request_latency(tmp_path):
    # A 5,000-request batch that took `1.8 min` (1.8 × 60 = 108 s): the batch's wall time, no request's latency.
    text = "| Model | Time | Success |\n|---|---|---|\n| Llama 3.2 1B | 1.8 min | 100% |\n| Gemma 3 4B | 37 min | 100% |\n"
    assert all(not any(name.startswith("e2e_") for name in record.metrics)
               for record in markdown_summaries(tmp_path, text))
    column = bench_markdown._unit_from_cells("Time", 1, [(3, ["x", "1.8 min"]), (4, ["y", "37 min"])])
    assert column == ("duration_seconds", None, "count")


def test_a_row_label_with_the_engines_field_name(tmp_path):
    # mlx-lm's receipt tabulated a metric a row (ml-explore/mlx-lm#1211's shape): `generation_tps` names one
    # stream's generation rate, `generation_s` is under `wall time`, `prompt_tps` a prefill rate; 7.402 tok/s is a
    # step of 1 / 7.402 = 0.135 s, 0.544 tok/s one of 1.84 s: slow by any stream's measure.
    text = ("| | AR | MTP |\n|---|---|---|\n| tokens generated | 59 | 59 |\n"
            "| decode throughput (`generation_tps`) | 7.402 tok/s | 0.544 tok/s |\n"
            "| wall time (`generation_s`) | 41.73 s | 155.21 s |\n"
            "| prefill, 30 prompt tokens (`prompt_tps`) | 0.889 tok/s | 0.642 tok/s |\n")
    ar, mtp = markdown_summaries(tmp_path, text)
    assert (ar.metrics[STREAM], mtp.metrics[STREAM]) == (7.402, 0.544)
    assert (ar.metrics["e2e_seconds_mean"], ar.metrics["mean_output_tokens"]) == (41.73, 59.0)
    assert mtp.metrics["input_tokens_per_second"] == 0.642
    diagnosis = diagnose_files([write(tmp_path, text)])
    assert diagnosis.verdict == "decode-bound"


def test_phase_rows_of_rates_beside_a_change_column(tmp_path):
    # `Prefill | 181.7 tok/s` is a prefill rate, not a TTFT; `Decode | 27.74 tok/s` one stream's rate; the `Δ`
    # column's `−8.8 %` and `~0` are no run.
    text = ("| Metric | chunk 2048 | chunk 1024 | Δ |\n|---|---|---|---|\n"
            "| Prefill | 181.7 tok/s | 165.7 tok/s | −8.8 % |\n| Decode | 27.74 tok/s | 27.42 tok/s | ~0 |\n")
    first, second = markdown_summaries(tmp_path, text)
    assert first.metrics == {"input_tokens_per_second": 181.7, STREAM: 27.74}
    assert second.metrics == {"input_tokens_per_second": 165.7, STREAM: 27.42}


def test_a_per_token_header_named_by_its_phase(tmp_path):
    # `decode ms/token`: 11.26 ms = 0.01126 s a generated token; `prefill ms` the prompt's, the first token's time.
    text = "| max len | decode ms/token | prefill ms |\n| --- | --- | --- |\n| 4096 | 11.26 | 79.3 |\n"
    (record,) = markdown_summaries(tmp_path, text)
    assert abs(record.metrics["tpot_seconds_mean"] - 0.01126) < 1e-12
    assert abs(record.metrics["ttft_seconds_mean"] - 0.0793) < 1e-12


_PIPELINE = ("python3 benchmark/profile_pipeline_api.py ShareGPT.json llama2_13b_chat -c 128 -n 1000\n"
             "number of prompts: 1000\nnumber of prompt tokens: 248339\nnumber of completion tokens: 241582\n"
             "token throughput (completion token): 1746.433 token/s\n"
             "token throughput (prompt + completion token): 3541.714 token/s\n"
             "RPS (request per second): 7.229 req/s\nRPM (request per minute): 433.749 req/min\n")


def test_lmdeploys_pipeline_profile_block(tmp_path):
    # profile_pipeline_api prints no first token (the pipeline does not stream): a block opened by its prompts, the
    # run's totals and rates (InternLM/lmdeploy's issue of the two profilers' tokenizers).
    path = write(tmp_path, _PIPELINE)
    assert bench_text.sniff(_PIPELINE) > 0
    (record,) = parsed(bench_text, path)
    assert record.metrics["completed_requests"] == 1000
    assert record.metrics["total_input_tokens"] == 248339
    assert record.metrics["output_tokens_per_second"] == 1746.433
    assert record.metrics["request_throughput_per_second"] == 7.229  # RPS, not RPM ÷ 60, where both are printed
    # rates and totals only: the prompts are not one request's 248,339 tokens, and nothing times a request
    diagnosis = diagnose_files([path])
    assert diagnosis.verdict == "insufficient-data"
    assert "summary-throughput-only" in rules(diagnosis)


def test_two_pipeline_blocks_are_two_runs(tmp_path):
    path = write(tmp_path, _PIPELINE + _PIPELINE.replace("7.229", "3.100"))
    records = parsed(bench_text, path)
    assert [record.metrics["request_throughput_per_second"] for record in records] == [7.229, 3.1]


def test_a_late_first_token_of_one_runners_stream_is_its_prompt_not_a_queue(tmp_path):
    # A local harness's table (one stream's generation rate, no concurrency, rate or request count): 2,983.71 ms is
    # 2.98371 / (1 / 35.31) ≈ 105 steps, but nothing shares the runner, so nothing waits for a slot.
    text = ("| Metric | Short Prompt | Long Prompt |\n|---|---|---|\n"
            "| First Token Latency | 112.16 ms | 2,983.71 ms |\n| Generation Speed | 40.91 tok/s | 35.31 tok/s |\n")
    diagnosis = diagnose_files([write(tmp_path, text)])
    assert diagnosis.verdict == "prefill-bound"
    assert "summary-ttft-over-tpot" not in rules(diagnosis)
    assert "summary-ttft-over-tpot-few-in-flight" in rules(diagnosis)


def test_a_stated_concurrency_keeps_the_queue_reading(tmp_path):
    # The same late first token with 64 requests stated in flight: a slot may be what it waited for.
    text = ("| concurrency | TTFT (ms) | TPOT (ms) |\n|---|---|---|\n| 64 | 2983.71 | 28.32 |\n")
    diagnosis = diagnose_files([write(tmp_path, text)])
    assert "summary-ttft-over-tpot-few-in-flight" not in rules(diagnosis)


def test_a_total_time_column_leaves_a_bare_rate_one_streams(tmp_path):
    # A runner's comparison (a blog's ollama table): `Tokens/sec` by its unit alone is each model's generation rate;
    # the `Total time` beside it is a request's time, no total rate that would make the rates the run's.
    text = ("| Model | Quant | Tokens/sec | Cold load | Total time |\n|---|---|---|---|---|\n"
            "| llama2:13b | Q4_K_M | 53.44 | 9.53s | 12.05s |\n| mistral:7b | Q4_K_M | 90.17 | 2.39s | 4.11s |\n")
    first, second = markdown_summaries(tmp_path, text)
    assert (first.metrics[STREAM], second.metrics[STREAM]) == (53.44, 90.17)
    assert first.metrics["e2e_seconds_mean"] == 12.05


def test_a_rate_beside_a_batch_column_is_the_batchs_with_a_spread(tmp_path):
    # `Batch | … | Throughput (tok/s)` with `83.05 ± 0.38`: the batch's rate, 83.05 / 1 = 83.05 tok/s a stream at
    # batch 1; at batch 4, 200 / 4 = 50 a stream.
    text = ("| Model | Batch | Generated Tokens | Throughput (tok/s) | Runs |\n|---|---|---|---|---|\n"
            "| Qwen2.5-3B | 1 | 256 | 83.05 ± 0.38 | 10 |\n| Qwen2.5-3B | 4 | 256 | 200.0 ± 1.2 | 10 |\n")
    one, four = markdown_summaries(tmp_path, text)
    assert (one.metrics["output_tokens_per_second"], one.metrics[STREAM]) == (83.05, 83.05)
    assert (four.metrics["output_tokens_per_second"], four.metrics[STREAM]) == (200.0, 50.0)


def test_runs_at_one_concurrency_but_different_prompts_are_not_the_same_work(tmp_path):
    # 16 in flight with 1,000-token prompts (TTFT 0.55 s) and 10,000-token prompts (3.14 s, 5.7×): ten times the
    # prompt, not a wait; the same 10,000 tokens at 16 taking 5× longer on another path would be one.
    text = ("| ISL | C | TTFT (ms) | TPOT (ms) |\n|---:|---:|---:|---:|\n"
            "| 1000 | 16 | 548.8 | 15.8 |\n| 10000 | 16 | 3139.3 | 20.5 |\n")
    assert "summary-same-load-ttft-waits" not in rules(diagnose_files([write(tmp_path, text)]))
    same = text.replace("| 1000 | 16 | 548.8 |", "| 10000 | 16 | 548.8 |")
    assert "summary-same-load-ttft-waits" in rules(diagnose_files([write(tmp_path, same, "same.txt")]))


def test_the_card_is_not_asked_for_when_it_was_given(tmp_path):
    # Three ollama models read at one pace: the evidence asks for --gpu only when none was given.
    text = ("| Model | Tokens/sec |\n|---|---|\n| llama2:13b | 53.44 |\n| mistral:7b | 90.17 |\n"
            "| deepseek-coder:6.7b | 101.44 |\n")
    path = write(tmp_path, text)
    bare = diagnose_files([path])
    given = diagnose_files([path], gpu="rtx-4090")
    assert "summary-models-one-bandwidth" in rules(bare) and "summary-models-one-bandwidth" in rules(given)
    assert any("give --gpu to judge the card" in item.text for item in bare.evidence)
    assert not any("give --gpu to judge the card" in item.text for item in given.evidence)


def test_a_prompt_length_stated_as_a_benchmarks_isl_or_input_len():
    # The lines above a table state the runs' prompt as a benchmark names it: ISL=60381, `--random-input-len 2048`,
    # `ISL: 8k` (8 × 1,000); `ISLAND=5` is no prompt.
    assert bench_markdown._stated_prompt("MI308X, Qwen3.5-27B, TP2, ISL=60381, OSL=132:") == 60381
    assert bench_markdown._stated_prompt("  --random-input-len 2048 \\") == 2048
    assert bench_markdown._stated_prompt("ISL: 8k, OSL 1k") == 8000
    assert bench_markdown._stated_prompt("ISLAND=5") is None
    # a shape written in/out after its dataset's name (xLLM's `random 20k/1k`, 20 × 1,000 prompt tokens)
    assert bench_markdown._stated_prompt("(TP=4, random 20k/1k, `parallel=1`, MTP=3)") == 20000
    assert bench_markdown._stated_prompt("ISL/OSL 1024/128") == 1024
    assert bench_markdown._stated_prompt("random seed 42") is None
    assert bench_markdown._stated_prompt("- 4K-token prompt") == 4000  # as before


def test_an_isl_line_above_a_table_is_its_runs_prompt(tmp_path):
    text = "MI308X, TP2, ISL=60381, OSL=132:\n\n| Version | TPOT (ms) | TTFT (ms) |\n|---|---|---|\n| base | 18.9 | 17562 |\n"
    (record,) = markdown_summaries(tmp_path, text)
    assert record.metrics["mean_input_tokens"] == 60381


_PROFILE = ("concurrency: 256\nelapsed_time: 399.739s\n\n"
            "first token latency(s)(min, max, ave): 0.068, {slowest}, {mean}\n"
            "per-token latency(s) percentile(50, 75, 95, 99): [0, 0.094, 0.169, 0.227]\n\n"
            "number of prompt tokens: 2238364\nnumber of completion tokens: 2005448\n"
            "token throughput (completion token): 5016.892 token/s\n"
            "token throughput (prompt + completion token): 10616.453 token/s\n"
            "RPS (request per second): 25.016 req/s\n")


def test_one_slow_first_token_of_a_closed_loop_is_no_growing_queue(tmp_path):
    # LMDeploy's profile_throughput (InternLM/lmdeploy's tutorial run): 256 in flight, mean TTFT 0.285 s, the slowest
    # 4.066 s; 0.285 / 4.066 = 7 % of the slowest, under a quarter: the opening wave of 256 sent at once waited, the
    # 10,000 requests did not. A mean of 2.5 s (62 %) over the same spread is a queue that grew.
    one_late = diagnose_files([write(tmp_path, _PROFILE.format(slowest="4.066", mean="0.285"))])
    assert "summary-ttft-spread" not in rules(one_late)
    assert one_late.verdict != "queueing"
    grown = diagnose_files([write(tmp_path, _PROFILE.format(slowest="4.066", mean="2.500"), "grown.txt")])
    assert "summary-ttft-spread" in rules(grown)


def test_a_zero_per_token_time_sizes_no_request(tmp_path):
    # The per-token p50 of 0 (tokens that came in one chunk): TTFT 0.285 s less the prompt's ~40 ms is no "86 % of
    # a 0.285 s request" (the request's decode is not timed at all).
    diagnosis = diagnose_files([write(tmp_path, _PROFILE.format(slowest="4.066", mean="0.285"))])
    assert "summary-wait-dominates" not in rules(diagnosis)


_LOADGEN = ("================================================\nMLPerf Results Summary\n"
            "================================================\nSUT name : PySUT\nScenario : Server\n"
            "Mode     : PerformanceOnly\nCompleted samples per second    : {rate}\nCompleted tokens per second: {tokens}\n"
            "Result is : {result}\n  Performance constraints satisfied : {bounds}\n  Min duration satisfied : Yes\n"
            "================================================\nAdditional Stats\n"
            "================================================\nMean latency (ns)               : 53175389991\n"
            "Mean First Token latency (ns)   : {ttft}\nMean Time to Output Token (ns)  : {tpot}\n")


def test_an_mlperf_server_run_over_its_latency_bounds_queued(tmp_path):
    # A local harness's INVALID Server run (Llama 3.1 8B on an A30): 0.34 samples/s, mean first token 50.4 s
    # (50,385,872,554 ns) and 22 ms a token: LoadGen sent queries at its target rate and the bounds failed, so they
    # waited, whatever the decode's own speed.
    text = _LOADGEN.format(rate="0.34", tokens="44.52", result="INVALID", bounds="NO", ttft="50385872554",
                           tpot="21964703")
    diagnosis = diagnose_files([write(tmp_path, text)])
    assert diagnosis.verdict == "queueing"
    assert "summary-mlperf-over-bounds" in rules(diagnosis)


def test_an_mlperf_run_invalid_for_another_reason_is_not_over_its_bounds(tmp_path):
    # INVALID with the latency bounds met (a run too short, say): no evidence of a wait.
    text = _LOADGEN.format(rate="0.34", tokens="44.52", result="INVALID", bounds="Yes", ttft="50385872554",
                           tpot="21964703")
    assert "summary-mlperf-over-bounds" not in rules(diagnose_files([write(tmp_path, text)]))


def test_a_valid_mlperf_server_batch_step_is_judged_by_the_benchmark(tmp_path):
    # AMD's MI325X Server submission: VALID, 126 ms a token (126,269,215 ns) at ~29,500 tok/s, thousands of
    # streams at once: the one-stream cutoff does not apply and LoadGen's own bounds held.
    text = _LOADGEN.format(rate="99.86", tokens="29522.56", result="VALID", bounds="Yes", ttft="963332124",
                           tpot="126269215")
    diagnosis = diagnose_files([write(tmp_path, text)])
    assert diagnosis.verdict == "healthy"
    assert "summary-mlperf-valid" in rules(diagnosis)
    assert "summary-tpot-batch-unjudged" not in rules(diagnosis)


def _llmperf_block(concurrency: int, ttft_min: float, ttft_mean: float, ttft_max: float) -> str:
    return (f"python token_benchmark_ray.py --model m --num-concurrent-requests {concurrency} --llm-api openai\n"
            "\\Results for token benchmark for NousResearch/Meta-Llama-3-8B-Instruct queried with the openai api.\n\n"
            "inter_token_latency_s\n    p50 = 0.0533\n    mean = 0.0535\n    min = 0.0499\n"
            f"ttft_s\n    p50 = 1.75\n    mean = {ttft_mean}\n    min = {ttft_min}\n    max = {ttft_max}\n"
            "end_to_end_latency_s\n    p50 = 14.44\n    mean = 14.528\n"
            "number_input_tokens\n    mean = 515.25\n    max = 576\nnumber_output_tokens\n    mean = 271.625\n"
            "Number Of Errored Requests: 0\nOverall Output Throughput: 35.83\nNumber Of Completed Requests: 16\n"
            "Completed Requests Per Minute: 7.914\n")


def test_llmperfs_console_summary(tmp_path):
    # Ray LLMPerf's printed summary (an AWS Neuron guide's run): statistics under each metric's name, seconds and
    # token counts; 7.914 requests a minute = 7.914 / 60 = 0.1319 a second; the concurrency from the command.
    from inferledger.diagnose.parsers import llmperf_console

    text = _llmperf_block(2, 0.93, 1.582, 1.853)
    assert llmperf_console.sniff(text) > 0
    (record,) = parsed(llmperf_console, write(tmp_path, text))
    metrics = record.metrics
    assert (metrics["ttft_seconds_mean"], metrics["e2e_seconds_mean"]) == (1.582, 14.528)
    assert (metrics["mean_input_tokens"], metrics["mean_output_tokens"]) == (515.25, 271.625)
    # llmperf's inter-token latency is a request's time over its tokens: 14.528 / 271.625 = 0.0535 s, its TTFT in it
    assert metrics["e2e_per_output_token_seconds_mean"] == 0.0535 and "itl_seconds_mean" not in metrics
    assert metrics["output_tokens_per_second"] == 35.83 and metrics["completed_requests"] == 16
    assert abs(metrics["request_throughput_per_second"] - 7.914 / 60) < 1e-12
    assert metrics["max_concurrency"] == 2 and record.labels["model"] == "NousResearch/Meta-Llama-3-8B-Instruct"
    # the decode step is the request's time less its first token's, over the tokens after it:
    # (14.528 − 1.582) / (271.625 − 1) = 47.8 ms
    diagnosis = diagnose_files([write(tmp_path, text, "run.txt")])
    assert "47.84 ms" in " ".join(item.text for item in diagnosis.evidence)


def test_two_llmperf_runs_pasted_one_after_the_other(tmp_path):
    from inferledger.diagnose.parsers import llmperf_console

    text = _llmperf_block(1, 0.05, 1.5, 2.3) + _llmperf_block(8, 0.06, 1.7, 2.2)
    records = parsed(llmperf_console, write(tmp_path, text))
    assert [record.metrics["max_concurrency"] for record in records] == [1, 8]


def test_first_tokens_spread_at_one_request_in_flight_is_no_queue(tmp_path):
    # batch 1 (a Trainium speculation run): the slowest first token 2.3 s over the fastest 0.05 s is 46×, but one
    # request at a time waits behind none; at 8 in flight the same spread may be a queue.
    one = diagnose_files([write(tmp_path, _llmperf_block(1, 0.05, 1.5, 2.3))])
    assert "summary-ttft-spread" not in rules(one)
    eight = diagnose_files([write(tmp_path, _llmperf_block(8, 0.05, 1.5, 2.3), "eight.txt")])
    assert "summary-ttft-spread" in rules(eight)


def test_a_guidellm_table_as_wide_as_the_terminal_keeps_its_rows_apart():
    # guidellm's `Benchmarks Stats` where every row fills the line (an IBM lab's ilab/vLLM sweep, blind round 452):
    # no space parts a row's last value from the next row's name (`38.6constant@0.50`). The constant@0.50 row reads
    # as printed: 0.46 req/s, TTFT mean 74.2 ms, request latency 7.00 (seconds under the `(ms)` title), TPOT 27.1 ms.
    from blind_helpers import FIXTURES

    from inferledger.diagnose.read import read_records

    path = FIXTURES / "blind452_logs" / "guidellm__ilab-vllm-granite-3.3-8b-1x-l40s-sweep-30-requests.txt"
    stats = {record.labels["benchmark"]: record.metrics for record in read_records(path)
             if record.kind == "summary" and record.line_number == 50}
    assert list(stats)[:3] == ["synchronous", "throughput", "constant@0.50"] and len(stats) == 10
    row = stats["constant@0.50"]
    assert row["request_throughput_per_second"] == 0.46
    assert abs(row["ttft_seconds_mean"] - 0.0742) < 1e-12 and abs(row["tpot_seconds_mean"] - 0.0271) < 1e-12
    assert abs(row["e2e_seconds_mean"] - 7.00) < 1e-9


def test_one_request_at_its_cap_is_no_growing_queue_whatever_the_mean(tmp_path):
    # A hosted model's 1,319 sequential requests: TTFT min 746 ms, mean 2,902 ms, max 30,676 ms (one reply whose
    # reasoning ran to the cap); 2,902 / 30,676 = 9 % of the slowest, under a quarter: no queue grew.
    text = ("| Metric | p50 | p90 | Mean | Min | Max |\n| --- | ---: | ---: | ---: | ---: | ---: |\n"
            "| time_to_first_token_ms | 2,662.03 | 4,161.29 | 2,902.14 | 746.38 | 30,676.00 |\n")
    assert "summary-ttft-spread" not in rules(diagnose_files([write(tmp_path, text)]))


def test_a_chunked_streams_gap_tail_is_no_stall(tmp_path):
    # inference-perf's sanity run (llm-d's guide): TPOT 6.6 ms, but the median gap between tokens 0.04 ms (tokens
    # arriving two to a chunk) and its P99 16 ms: 0.04 is under a quarter of 6.6 (1.65 ms), so the P99's 400× the
    # median is the chunking. A median gap of 1.8 ms (over a quarter of the step) with a P99 of 25 ms (14×) still is.
    def table(median_ms: float, p99_ms: float) -> str:
        return ("| Metric | Mean | Median | P99 |\n|---|---|---|---|\n| TTFT (ms) | 33.3 | 30.1 | 66.0 |\n"
                f"| TPOT (ms) | 6.6 | 6.7 | 7.0 |\n| ITL (ms) | 6.5 | {median_ms} | {p99_ms} |\n")

    chunked = diagnose_files([write(tmp_path, table(0.04, 16.0))])
    assert "summary-itl-stalls" not in rules(chunked)
    stalled = diagnose_files([write(tmp_path, table(1.8, 25.0), "stalled.txt")])
    assert "summary-itl-stalls" in rules(stalled)


def test_mlc_llms_statistics_block_is_one_request(tmp_path):
    # `mlc_llm bench` on a W7900 (a user's notes): 3,376 prompt tokens in 35.351 s at 95.501 tok/s, then 128 tokens
    # in 11.979 s at 10.686 tok/s; the prompt is 35.351 / (35.351 + 11.979) = 75 % of the request.
    from inferledger.diagnose.parsers import local_runners

    text = ("Statistics:\n----------- prefill -----------\nthroughput: 95.501 tok/s\ntotal tokens: 3376 tok\n"
            "total time: 35.351 s\n------------ decode ------------\nthroughput: 10.686 tok/s\ntotal tokens: 128 tok\n"
            "total time: 11.979 s\n")
    assert local_runners.sniff(text) > 0
    (record,) = parsed(local_runners, write(tmp_path, text))
    assert record.metrics == {"prompt_tokens_per_second": 95.501, "input_tokens": 3376, "prefill_seconds": 35.351,
                              "generation_tokens_per_second": 10.686, "output_tokens": 128, "decode_seconds": 11.979}
    assert diagnose_files([write(tmp_path, text, "stats.txt")]).verdict == "prefill-bound"


_OFFLOAD = ('time=2025-05-16T17:44:49.187+02:00 level=INFO source=server.go:168 msg=offload library=cuda '
            'layers.requested=-1 layers.model=49 layers.offload=4 layers.split="" memory.available="[11.4 GiB]"\n')


def test_a_partial_offload_with_no_generation_timed_is_too_little_to_judge(tmp_path):
    # ollama placed 4 of 49 layers on the GPU (a Llama 4 Scout start-up, blind round 438): decode will hang on the
    # system memory's share, but nothing in the excerpt times a token.
    diagnosis = diagnose_files([write(tmp_path, _OFFLOAD)])
    assert diagnosis.verdict == "insufficient-data"
    assert "state-partial-offload-unmeasured" in rules(diagnosis) and "state-partial-offload" not in rules(diagnosis)


def test_a_partial_offload_beside_a_measured_output_rate_is_its_decode(tmp_path):
    # The same placement beside a run's output rate (9.3 tok/s, a rate alone judges nothing): generation was measured,
    # so the placement is read as what held it back.
    measured = _OFFLOAD + "\n| run | Output token throughput (tok/s) |\n|---|---|\n| a | 9.3 |\n"
    diagnosis = diagnose_files([write(tmp_path, measured)])
    assert diagnosis.verdict == "decode-bound" and "state-partial-offload" in rules(diagnosis)


def test_genai_perfs_csv_export(tmp_path):
    # profile_export_genai_perf.csv (NVIDIA/cloudai's Dynamo doc): thousands in quoted cells, then the aggregates.
    # TTFT avg "1,146.31" ms = 1.14631 s, p99 "3,457.97" ms; ITL 30.35 ms; 261.25 output tok/s; 40 requests.
    from inferledger.diagnose.parsers import bench_clients

    text = ('Metric,avg,min,max,p99,p95,p90,p75,p50,p25\n'
            'Time To First Token (ms),"1,146.31",249.48,"3,485.23","3,457.97","3,349.56","3,215.06","1,330.93",640.07,'
            '286.52\nInter Token Latency (ms),30.35,27.59,35.60,35.23,33.88,32.53,31.05,30.13,29.04\n'
            'Output Sequence Length (tokens),174.45,164.00,187.00,186.22,183.10,180.10,177.00,174.00,171.75\n\n'
            'Metric,Value\nOutput Token Throughput (per sec),261.25\nRequest Throughput (per sec),1.50\n'
            'Request Count (count),40.00\n')
    assert bench_clients.sniff(text) > 0
    (record,) = parsed(bench_clients, write(tmp_path, text))
    metrics = record.metrics
    assert abs(metrics["ttft_seconds_mean"] - 1.14631) < 1e-12 and abs(metrics["ttft_seconds_p99"] - 3.45797) < 1e-12
    assert abs(metrics["itl_seconds_mean"] - 0.03035) < 1e-12 and metrics["output_tokens_mean"] == 174.45
    assert (metrics["output_tokens_per_second"], metrics["request_throughput_per_second"]) == (261.25, 1.5)
    assert metrics["completed_requests"] == 40


def test_mindies_benchmark_table(tmp_path):
    # MindIE's `benchmark` client (a QwQ-32B run on Atlas 800I A2): a field a row, each cell with its unit; FirstTokenTime
    # 64.7768 ms = 0.0647768 s, DecodeTime 27.0037 ms a token, GenerateTime 12,176.1428 ms, QueueWaitTime 893.4933 μs;
    # the SLO_P90 column is its objective's reading, not a second P90.
    text = ("+--------+--------+--------+--------+--------+--------+\n"
            "|              Metric |         average |             max |             P90 |         SLO_P90 |    N |\n"
            "+--------+--------+--------+--------+--------+--------+\n"
            "|      FirstTokenTime |      64.7768 ms |     848.3901 ms |       74.367 ms |       80.000 ms | 8792 |\n"
            "|          DecodeTime |      27.0037 ms |     788.9588 ms |      28.3229 ms |      27.6082 ms | 8792 |\n"
            "|        GenerateTime |   12176.1428 ms |    15100.317 ms |    14138.473 ms |    14138.473 ms | 8792 |\n"
            "|         InputTokens |         59.8964 |             212 |            89.0 |            89.0 | 8792 |\n"
            "|     GeneratedTokens |        449.2916 |             512 |           512.0 |           512.0 | 8792 |\n"
            "| GeneratedTokenSpeed | 36.7786 token/s | 40.9125 token/s | 37.5995 token/s | 37.5995 token/s | 8792 |\n"
            "|       QueueWaitTime |     893.4933 μs |       175689 μs |        114.0 μs |            / μs | 8792 |\n"
            "+--------+--------+--------+--------+--------+--------+\n")
    (record,) = markdown_summaries(tmp_path, text)
    metrics = record.metrics
    assert abs(metrics["ttft_seconds_mean"] - 0.0647768) < 1e-12 and abs(metrics["ttft_seconds_p90"] - 0.074367) < 1e-12
    assert abs(metrics["tpot_seconds_mean"] - 0.0270037) < 1e-12 and abs(metrics["e2e_seconds_mean"] - 12.1761428) < 1e-9
    assert abs(metrics["queue_seconds_mean"] - 893.4933e-6) < 1e-15
    assert (metrics["mean_input_tokens"], metrics["mean_output_tokens"], metrics[STREAM]) == (59.8964, 449.2916, 36.7786)


def test_a_serving_engines_prompt_is_read_at_an_accelerators_pace(tmp_path):
    # vllm-project/vllm#48887's shape: `vllm serve`, then 2,048-token prompts at 10 req/s and TTFT 6,715.81 ms
    # against 65.03 ms a token (103 steps). A CPU's slowest prefill (5 tokens a step) would explain 2,048 / 5 ×
    # 65.03 ms = 26.6 s; an accelerator under vLLM reads 25 a step or more: 2,048 / 25 × 65.03 ms = 5.3 s < 6.7 s, so
    # the first token waited.
    table = ("--random-input-len 2048 \\\n--request-rate 10\n\n| Scenario | Output throughput | Mean TTFT | Mean TPOT |\n"
             "|---|---:|---:|---:|\n| LoRA | 881.72 tok/s | 6715.81 ms | 65.03 ms |\n")
    served = diagnose_files([write(tmp_path, "vllm serve Qwen/Qwen2.5-7B-Instruct --enable-lora\n" + table)])
    assert "summary-ttft-over-tpot" in rules(served)
    bare = diagnose_files([write(tmp_path, table, "bare.txt")])  # no engine named: a CPU's pace explains it
    assert "summary-ttft-over-tpot" not in rules(bare)


def test_malformed_figures_in_the_new_readers_are_no_crash(tmp_path):
    # A figure with two points (`1.2.3 tok/s`) in MLC's block, a quote left open in genai-perf's CSV: each reader
    # skips what it cannot read and the file is still diagnosed.
    mlc = "----------- prefill -----------\nthroughput: 1.2.3 tok/s\ntotal time: 5 s\n------------ decode ----------\n"
    genai = 'Metric,avg,min,max,p99\nTime To First Token (ms),"1,146.31,249.48\nRequest Latency (ms),5,4,6,7\n'
    for name, text in (("mlc.txt", mlc), ("genai.csv", genai)):
        assert diagnose_files([write(tmp_path, text, name)]).verdict
