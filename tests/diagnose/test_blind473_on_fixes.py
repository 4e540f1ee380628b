"""Blind rounds 473 on: the general fixes of the twenty-second session. Expected figures are worked out here."""

from __future__ import annotations

import pytest
from blind_helpers import markdown_summaries, parsed, rules, write

from inferledger.diagnose import diagnose_files
from inferledger.diagnose.parsers import (
    bench_text,
    flexgen,
    local_runners,
    nxdi,
    ollama,
    ort_model_benchmark,
    sglang_one_batch,
)
from inferledger.diagnose.read import clean_line

STREAM = "output_tokens_per_second_per_user_mean"


def test_torchtunes_generate_line_numbers_no_run(tmp_path):
    # torchtune's generate recipe (built on gpt-fast's) prints `Time for inference: …` with no run number:
    # 25.33 s at 11.84 tok/s is 25.33 × 11.84 = 299.9, i.e. 300 generated tokens.
    path = write(tmp_path, "INFO:torchtune.utils.logging:Time for inference: 25.33 sec total, 11.84 tokens/sec\n"
                           "INFO:torchtune.utils.logging:Bandwidth achieved: 191.80 GB/s\n")
    (record,) = parsed(local_runners, path)
    assert record.metrics["e2e_seconds"] == 25.33
    assert record.metrics["output_tokens"] == 300.0


FLEXGEN = """python3 -m flexgen.flex_opt --model facebook/opt-13b --path _DUMMY_ --prompt-len 512 --gen-len 100 \\
  --pin-weight 0 --percent 100 0 42 58 100 0 --gpu-batch-size 32 --num-gpu-batches 1 --debug fewer_batch
model size: 23.921 GB   cache size: 14.941 GB   hidden size (p): 0.187 GB
peak gpu mem: 15.024 GB projected: True
prefill latency: 7.099 s        prefill throughput: 2307.857 token/s
decode latency: 161.668 s       decode throughput: 19.596 token/s
total latency: 168.767 s        total throughput: 18.961 token/s
"""


def test_flexgens_block_is_one_static_batch_its_step_the_decode_time_over_the_generated_tokens(tmp_path):
    # FlexGen's rates are over the batch of 32 × 1 prompts: a decode step gives each one token, and the first token
    # comes from the prefill, so a step is 161.668 s / (100 − 1) = 1.633 s; 7.099 s is every prompt's first token.
    (record,) = parsed(flexgen, write(tmp_path, FLEXGEN))
    assert record.metrics["tpot_seconds_median"] == 161.668 / 99
    assert record.metrics["ttft_seconds_mean"] == 7.099
    assert (record.metrics["max_concurrency"], record.metrics["mean_input_tokens"]) == (32.0, 512)
    # Without the command line the batch is solved from the rates: 168.767 × 18.961 − 161.668 × 19.596
    # = 3,199.99 − 3,168.04 = 31.95, whole at 32, and 3,199.99 / 32 = 100.0 generated tokens each.
    (alone,) = parsed(flexgen, write(tmp_path, FLEXGEN.split("\n", 2)[2], "alone.txt"))
    assert (alone.metrics["max_concurrency"], alone.metrics["mean_output_tokens"]) == (32.0, 100.0)
    assert alone.metrics["tpot_seconds_median"] == 161.668 / 99


def test_flexgens_hand_edited_figures_keep_only_what_a_rate_says(tmp_path):
    # A poster scaled the latencies by 2 and left the rates: 953.7 × 0.269 − 235.2 × 1.08 = 256.5 − 254.0 = 2.5 is
    # no whole batch, so no batch nor step is claimed: the batch's 1.08 tok/s bounds a stream's from above.
    text = ("prefill latency: 718.5s, prefill throughput: 5.7 token/s\n"
            "decode latency: 235.2s, decode throughput: 1.08 token/s\n"
            "total latency: 953.7 s, total throughput: 0.269 token/s\n")
    (record,) = parsed(flexgen, write(tmp_path, text))
    assert "max_concurrency" not in record.metrics and "tpot_seconds_median" not in record.metrics
    assert record.labels["offline_batch"] and record.metrics["output_tokens_per_second"] == 1.08


def test_a_static_batch_reads_no_prefill_between_its_decode_steps(tmp_path):
    # 2,307.857 prompt tok/s against 19.596 output tok/s is 118 prompt tokens per output token, which in a server's
    # run means other requests' prefills between a stream's steps; a static batch reads every prompt first, so its
    # 1.633 s step is decode's own: slow for any card (an OPT-13B step reads 24 GB, tens of ms on a GPU).
    diagnosis = diagnose_files([write(tmp_path, FLEXGEN)])
    assert diagnosis.verdict == "decode-bound"
    assert "summary-prefill-interleaved" not in rules(diagnosis)


def test_bare_input_and_output_columns_of_a_bordered_table_are_a_runs_token_counts(tmp_path):
    # f4ah6o/deepseek-v41-provider-bench's latest-run table: 282 prompt tokens and 625 generated for the row.
    text = ("| Provider | Status | TTFT | Decode tok/s | Wall | Input | Output |\n| --- | --- | ---: | ---: | ---: | ---: | ---: |\n"
            "| OpenCode Go | ok | 1495 ms | 160.0 | 5.40 s | 282 | 625 |\n")
    (record,) = markdown_summaries(tmp_path, text)
    assert (record.metrics["mean_input_tokens"], record.metrics["mean_output_tokens"]) == (282.0, 625.0)


def test_a_single_space_header_still_reads_output_as_the_first_word_of_its_rate(tmp_path):
    # `Concurrent Output tok/s TTFT (ms)`: with spaces for borders `Output` is the start of `Output tok/s`, the
    # run's output rate (1,881 tok/s at 8 in flight), not a count of generated tokens.
    text = ("Concurrent Output tok/s TTFT (ms) TPOT (ms)\n1 277 362 2.91\n8 1,881 152 3.96\n")
    records = markdown_summaries(tmp_path, text)
    assert [record.metrics.get("output_tokens_per_second") for record in records] == [277.0, 1881.0]
    assert all("mean_output_tokens" not in record.metrics for record in records)


def test_a_time_to_first_byte_is_a_streamed_replys_first_token(tmp_path):
    # jetsonearth/clio-voice's TTFB report: a streamed reply's first byte carries its first token, 267.1 ms.
    text = ("| Metric | Warm Performance | Cold Start |\n|--------|-----------------|------------|\n"
            "| **Average TTFB** | 267.1 ms | 1,027.8 ms |\n| **Median TTFB** | 208.0 ms | - |\n")
    warm, cold = markdown_summaries(tmp_path, text)
    assert warm.metrics["ttft_seconds_mean"] == pytest.approx(0.2671)
    assert warm.metrics["ttft_seconds_median"] == pytest.approx(0.208)
    assert cold.metrics["ttft_seconds_mean"] == pytest.approx(1.0278)


def test_a_tokens_per_second_column_spelled_out_is_a_streams_rate(tmp_path):
    # torchao's quantisation tables (batch 1, gpt-fast's generate loop) head the rate `Tokens/Second`: Llama-2-7B
    # bf16's 105.13 tok/s is one stream's, a step of 1 / 105.13 = 9.5 ms.
    text = ("| Model | Technique | wikitext-perplexity | Tokens/Second | Memory Bandwidth (GB/s) |\n"
            "| --- | --- | --- | --- | --- |\n| Llama-2-7B | Base (bfloat16) | 12.212 | 105.13 | 1389.20 |\n"
            "| | int8dq | 12.262 | 9.13 | 60.44 |\n")
    base, int8dq = markdown_summaries(tmp_path, text)
    assert (base.metrics[STREAM], int8dq.metrics[STREAM]) == (105.13, 9.13)


def test_an_ollama_benchmark_scripts_average_stats_block_is_a_request(tmp_path):
    # MinhNgyuen/llm-benchmark averages ollama's --verbose fields over its prompts: llama2:13b generated 1,155 tokens
    # in 14.76 s, a step of 14.76 / 1155 = 12.8 ms; the rates come before the counts and times of the same block.
    text = ("Average stats:\n\n----\n        llama2:13b\n                Prompt eval: 690.15 t/s\n"
            "                Response: 78.27 t/s\n                Total: 80.78 t/s\n\n        Stats:\n"
            "                Prompt tokens: 42\n                Response tokens: 1155\n"
            "                Model load time: 2.87s\n                Prompt eval time: 0.06s\n"
            "                Response time: 14.76s\n                Total time: 17.69s\n----\n"
            "Average stats:\n        llama2:latest\n                Prompt eval: 1148.29 t/s\n"
            "                Response: 123.31 t/s\n                Response tokens: 1122\n"
            "                Response time: 9.10s\n")
    path = write(tmp_path, text)
    assert ollama.sniff(text) >= 0.3
    first, second = (record for record in parsed(ollama, path) if record.kind == "request")
    assert (first.metrics["output_tokens"], first.metrics["decode_seconds"]) == (1155.0, 14.76)
    assert (first.metrics["input_tokens"], first.metrics["e2e_seconds"]) == (42.0, 17.69)
    assert first.metrics["generation_tokens_per_second"] == 78.27
    assert (second.metrics["output_tokens"], second.metrics["decode_seconds"]) == (1122.0, 9.10)
    diagnosis = diagnose_files([path])
    assert "requests-healthy" in rules(diagnosis)  # 12.8 ms and 9.10 / 1122 = 8.1 ms a token: no slow stream


def test_a_one_batch_run_with_no_decode_step_generated_one_token(tmp_path):
    # sglang.bench_one_batch with --output-len 1 prints the prefill and a total 3.736 s against the prefill's
    # 3.73642 s: its one token came out of the prefill, so a first token as late as the whole run is by design, not
    # replies that reached a client whole.
    text = ("Benchmark ...\nPrefill. latency: 3.73642 s, throughput:   1096.24 token/s\n"
            "Total. latency:  3.736 s, throughput:   1097.31 token/s\n")
    (record,) = parsed(sglang_one_batch, write(tmp_path, text))
    assert record.metrics["mean_output_tokens"] == 1.0
    assert "summary-ttft-equals-e2e" not in rules(diagnose_files([write(tmp_path, text, "run.txt")]))


def test_run_generations_command_line_states_the_batch_its_throughput_is_over(tmp_path):
    # optimum-habana's run_generation.py asked for `--batch_size 1` and printed no `input N:` lines: its 192.15
    # tokens/second over the call is one stream's, a token every 1 / 192.15 = 5.2 ms.
    text = ("python run_generation.py \\\n--model_name_or_path NousResearch/Llama-3.2-1B \\\n--batch_size 1 \\\n"
            "--bf16\nStats:\n-----\nInput tokens\n"
            "Throughput (including tokenization) = 192.1497924325992 tokens/second\n"
            "Memory allocated                    = 9.88 GB\n")
    (record,) = parsed(bench_text, write(tmp_path, text))
    assert record.metrics[STREAM] == 192.1497924325992
    assert record.metrics["mean_concurrency"] == 1.0


NXDI = """{
    "e2e_model": {
        "latency_ms_p50": 1299.866795539856,
        "latency_ms_p100": 1303.1282424926758,
        "latency_ms_avg": 1300.0563144683838,
        "throughput": 49.22863670422672
    },
    "context_encoding_model": {
        "latency_ms_p50": 70.28031349182129,
        "latency_ms_avg": 70.27335166931152,
        "throughput": 455.3646473357901
    },
    "token_generation_model": {
        "latency_ms_p50": 39.081573486328125,
        "latency_ms_p99": 39.197025299072266,
        "latency_ms_avg": 39.088456092342255,
        "throughput": 26.40825879839129
    }
}
"""


def test_an_nxd_inference_benchmark_report_is_a_runs_first_token_step_and_call(tmp_path):
    # NxD Inference's report (the neuronmm README's Llama-3.2-1B baseline): the context-encoding call is the first
    # token, 70.28 ms at p50; a token-generation call is one decode step, 39.09 ms on average; p100 is the slowest.
    (record,) = parsed(nxdi, write(tmp_path, NXDI))
    assert record.metrics["ttft_seconds_median"] == pytest.approx(0.07028031349182129)
    assert record.metrics["tpot_seconds_mean"] == pytest.approx(0.039088456092342255)
    assert record.metrics["e2e_seconds_max"] == pytest.approx(1.3031282424926758)
    # two reports pasted one after the other are two runs
    assert len(parsed(nxdi, write(tmp_path, NXDI + NXDI, "two.txt"))) == 2


def test_skypilots_job_prefix_is_taken_off_like_a_deployments(tmp_path):
    # `sky exec` puts `(task, pid=25491) ` before every line of the job's output (`(head, rank=0, pid=…)` on a
    # cluster); the engine's own line is what follows it.
    assert clean_line("(task, pid=25491) Mean TTFT: 1981.93 ms") == "Mean TTFT: 1981.93 ms"
    assert clean_line("(head, rank=0, pid=2201) Successful requests: 100") == "Successful requests: 100"
    # vLLM's own process prefix is the engine's, and stays for its reader
    assert clean_line("(APIServer pid=92107) INFO 05-12 08:01:39 x") == "(APIServer pid=92107) INFO 05-12 08:01:39 x"


def test_onnxruntime_genais_model_benchmark_block(tmp_path):
    # Ryzen AI's expected output: the prompt's processing is the first token, 169,860 us = 0.16986 s; a generation
    # step 20,354.1 us = 20.35 ms; the whole loop 2,755.09 ms; batch 1 of 128-token prompts, 128 tokens to generate.
    text = (" Batch size: 1, prompt tokens: 128, tokens to generate: 128\n Prompt processing (time to first token):\n"
            "        avg (us):       169860\n        avg (tokens/s): 753.562\n        p50 (us):       169022\n"
            " Token generation:\n        avg (us):       20354.1\n        avg (tokens/s): 49.1301\n"
            " Token sampling:\n        avg (us):       192.274\n"
            " E2E generation (entire generation loop):\n        avg (ms):       2755.09\n")
    (record,) = parsed(ort_model_benchmark, write(tmp_path, text))
    assert record.metrics["ttft_seconds_mean"] == pytest.approx(0.16986)
    assert record.metrics["ttft_seconds_median"] == pytest.approx(0.169022)
    assert record.metrics["tpot_seconds_mean"] == pytest.approx(0.0203541)
    assert record.metrics["e2e_seconds_mean"] == pytest.approx(2.75509)
    assert (record.metrics["max_concurrency"], record.metrics["mean_input_tokens"]) == (1.0, 128.0)
    # the sampling block's 192 us is part of each step, not a step of its own
    assert record.metrics["tpot_seconds_mean"] != pytest.approx(0.000192274)


def test_a_metric_table_with_a_unit_column(tmp_path):
    # onnxruntime-genai's benchmark_e2e tabulated: `Average Token Generation Latency (per token) | 121.97 | ms` is a
    # step of 0.12197 s; the `Unit` column is each row's unit, no run.
    text = ("| Metric | Value | Unit |\n|---|---:|---|\n"
            "| Average Token Generation Latency (per token) | 121.97182760163986 | ms |\n"
            "| Average Token Generation Throughput (per token) | 8.198614546188496 | tps |\n"
            "| Average Wall Clock Time | 30.455924940109252 | s |\n")
    (record,) = markdown_summaries(tmp_path, text)
    assert record.metrics["e2e_seconds_mean"] == pytest.approx(30.455924940109252)  # a call's wall clock
    assert record.metrics["tpot_seconds_mean"] == pytest.approx(0.12197182760163986)
    assert record.metrics["output_tokens_per_second"] == pytest.approx(8.198614546188496)


def test_a_statistics_table_whose_rows_repeat_a_metric_per_mode_is_not_one_run(tmp_path):
    # `TTFT | on | …` and `TTFT | off | …` under Average / Min / Max: two runs that no column parts, so no run is
    # read from it (one mode's figures would stand for both); two measures of one metric (TTFB above TTFT) are
    # one run, the first row standing.
    modes = ("| Metric | Mode | Average | Min | Max | Unit |\n| --- | --- | ---: | ---: | ---: | --- |\n"
             "| TTFT | on | 6803.979 | 1549.062 | 9695.890 | ms |\n| TTFT | off | 12732.687 | 1332.521 | 26508.421 | ms |\n")
    assert markdown_summaries(tmp_path, modes) == []
    measures = ("| Metric | p50 | Mean | Min | Max |\n| --- | ---: | ---: | ---: | ---: |\n"
                "| time_to_first_byte_ms | 529.08 | 587.82 | 347.87 | 1,310.77 |\n"
                "| time_to_first_token_ms | 3,184.64 | 3,957.45 | 1,466.58 | 45,225.49 |\n"
                "| end_to_end_latency_ms | 4,407.79 | 5,385.75 | 2,359.73 | 64,637.51 |\n")
    (record,) = markdown_summaries(tmp_path, measures)
    assert record.metrics["ttft_seconds_mean"] == pytest.approx(0.58782)
    assert record.metrics["e2e_seconds_mean"] == pytest.approx(5.38575)
