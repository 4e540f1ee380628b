"""Blind rounds 320 on: the general fixes of the eighteenth session. Expected figures are worked out here."""

from __future__ import annotations

from pathlib import Path

import pytest

from inferledger.diagnose import diagnose_files
from inferledger.diagnose.launch import launch_records
from inferledger.diagnose.named_model import stated_format
from inferledger.diagnose.parsers import (
    bench_markdown,
    generic_phrases,
    generic_summary,
    llamacpp,
    ollama,
    pandas_describe,
    vllm,
)
from inferledger.diagnose.read import LogFile, clean_line
from inferledger.diagnose.records import Record
from inferledger.diagnose.rules import ASK_FOR_HARDWARE, COMPARISON_UNJUDGED
from inferledger.diagnose.rules_summary import prefill_interleaved


def _read(parser, path) -> list:
    """The Records `parser` reads from the file at `path` (its Skipped and Unread items left out)."""
    return [item for item in parser.parse(LogFile.open(path).lines()) if isinstance(item, Record)]


def _read_text(parser, tmp_path, text: str) -> list:
    """_read of `text` pasted into a file."""
    path = tmp_path / "pasted.txt"
    path.write_text(text)
    return _read(parser, path)


def _summaries(tmp_path, text: str) -> list:
    return [record for record in _read_text(bench_markdown, tmp_path, text) if record.kind == "summary"]


STREAM = "output_tokens_per_second_per_user_mean"
FIXTURES = Path(__file__).resolve().parent.parent / "fixtures"


def test_a_context_after_the_metric_makes_a_run_per_context(tmp_path):
    # oMLX users' tables: `tg TPS @1k | tg TPS @4k | pp TPS @4k`, each row a model; the runs at 1K and at 4K
    # context are two runs of the row, the 4K one with its prompt rate.
    text = ("| Model | Size | tg TPS @1k | tg TPS @4k | pp TPS @4k |\n|---|---:|---:|---:|---:|\n"
            "| A 4bit | 19 GB | 42.8 | 39.5 | 199.2 |\n")
    one_k, four_k = _summaries(tmp_path, text)
    assert one_k.metrics[STREAM] == 42.8 and one_k.metrics["mean_input_tokens"] == 1000
    assert "input_tokens_per_second" not in one_k.metrics
    assert four_k.metrics[STREAM] == 39.5 and four_k.metrics["mean_input_tokens"] == 4000
    assert four_k.metrics["input_tokens_per_second"] == 199.2
    # a context written out in tokens (`@ 8192`) is that many tokens, not thousands
    short, long = _summaries(tmp_path, "| Model | tg t/s @ 512 | tg t/s @ 8192 |\n|---|---|---|\n| B | 24.1 | 20.5 |\n")
    assert (short.metrics["mean_input_tokens"], long.metrics["mean_input_tokens"]) == (512, 8192)
    assert (short.metrics[STREAM], long.metrics[STREAM]) == (24.1, 20.5)


def test_a_bare_rate_with_its_variant_in_brackets_is_a_run_per_variant(tmp_path):
    # distributed-llama's PR table: `Tokens/s (version 0.15.1) | … | Tokens/s (This PR)`, one model a row.
    text = ("| Model | Tokens/s (version 0.15.1) | Tokens/s (This PR) |\n| --- | --- | --- |\n"
            "| `llama3_1_8b_instruct_q40` | 24.80 | 45.33 |\n")
    before, after = _summaries(tmp_path, text)
    assert (before.metrics[STREAM], after.metrics[STREAM]) == (24.80, 45.33)
    assert before.labels["benchmark"] == "column 'Tokens/s (version 0.15.1)'"
    # a note naming a load is no one stream's rate: not read as one
    assert not _summaries(tmp_path, "| Model | tok/s (batch 8) |\n|---|---|\n| A | 300 |\n")


def test_aggregate_and_per_request_rates_are_told_apart(tmp_path):
    # A batch's table: `Agg tok/s` is the batch's generation over its streams, `Per-req tok/s` one stream's;
    # 207.7 / 80.4 = 2.6 streams' worth at B=4 (the streams do not all decode at every step).
    text = ("| Mode | Agg tok/s | Per-req tok/s | TTFT |\n|---|---|---|---|\n"
            "| B=4 | 207.7 | 80.4 | 0.24s |\n")
    (run,) = _summaries(tmp_path, text)
    assert run.metrics["output_tokens_per_second"] == 207.7
    assert run.metrics[STREAM] == 80.4
    assert run.metrics["ttft_seconds_mean"] == pytest.approx(0.24)
    # a concurrency sweep's `aggregate tok/s | per stream` (a GB10 thread): 87.5 over 8 streams, 10.9 each
    (run,) = _summaries(tmp_path, "| c | aggregate tok/s | per stream |\n|---:|---:|---:|\n| 8 | 87.5 | 10.9 |\n")
    assert (run.metrics["output_tokens_per_second"], run.metrics[STREAM]) == (87.5, 10.9)
    # a real-time factor per request is no token rate
    runs = _summaries(tmp_path, "| concurrency | TTFB p50 | RTF_per_req_mean |\n|---:|---:|---:|\n| 1 | 0.067s | 0.103 |\n")
    assert all(STREAM not in run.metrics for run in runs)


def test_llama_bench_of_2023_heads_its_rates_with_the_unit_first(tmp_path):
    # llama-bench before its `test | t/s` layout: `t/s pp 512 | t/s tg 128` columns, a configuration a row.
    text = ("model | size | params | backend | ngl | threads | t/s pp 512 | t/s tg 128 |\n"
            "---|---|---|---|---|---|---|---|\n"
            "llama 7B mostly Q3_K - Medium | 18.96 GiB | 46.70 B | CUDA | 33 | 8 | 205.07 | 83.16 |\n")
    (run,) = _summaries(tmp_path, text)
    assert run.metrics["input_tokens_per_second"] == 205.07
    assert run.metrics[STREAM] == 83.16


def test_vllm_0_1_scheduler_lines_are_stats_windows(tmp_path):
    # vLLM 0.1.0-0.1.1 printed one rate a window (vllm/core/scheduler.py, `Throughput: … tokens/s, Running: …`);
    # one request at 100 % of the cache, then it waits with nothing running: the cache, not a queue of many.
    stamp = "INFO 08-01 03:08:{:02d} scheduler.py:271] "
    lines = [stamp.format(s) + f"Throughput: {rate} tokens/s, Running: {run} reqs, Swapped: 0 reqs, Pending: {wait} "
             f"reqs, GPU KV cache usage: {kv}%, CPU KV cache usage: 0.0%"
             for s, rate, run, wait, kv in ((39, "181.6", 1, 0, "100.0"), (45, "185.4", 1, 0, "100.0"),
                                            (51, "0.0", 0, 1, "0.0"), (57, "0.0", 0, 1, "0.0"))]
    path = tmp_path / "vllm-0.1.log"
    path.write_text("\n".join(lines) + "\n")
    windows = _read(vllm, path)
    assert [w.metrics["generation_tokens_per_second"] for w in windows] == [181.6, 185.4, 0.0, 0.0]
    assert [w.metrics["waiting_requests"] for w in windows] == [0, 0, 1, 1]
    assert windows[0].metrics["kv_cache_usage_fraction"] == pytest.approx(1.0)
    assert windows[0].labels["version"] == "v0.1"
    assert diagnose_files([path]).verdict == "kv-capacity"


def test_output_t_per_s_is_the_output_rate(tmp_path):
    # A provider comparison (`Output T/s | TTFT`): llama.cpp's `t/s` spelling of tokens a second.
    (run,) = _summaries(tmp_path, "| Model | Platform | Output T/s | TTFT |\n|---|---|---|---|\n| 8B | H100 | 130 | 280ms |\n")
    assert run.metrics["output_tokens_per_second"] == 130
    assert run.metrics["ttft_seconds_mean"] == pytest.approx(0.280)


def test_a_setup_list_states_the_tensor_parallel_degree():
    # A PR's `## Configuration` list beside its table: one copy of the model spans four cards.
    head = "## Configuration\n\n- GPU: 4× MI355X\n- Tensor parallelism: TP4\n- AITER: enabled\n"
    (record,) = launch_records(head)
    assert record.metrics == {"tensor_parallel_size": 4.0}
    assert [r.metrics for r in launch_records("- tp = 1\n- cuda 11.8\n")] == [{"tensor_parallel_size": 1.0}]
    # two runs at two degrees: neither is the file's
    assert launch_records("tp = 1\nresults…\ntp = 4\nresults…\n") == []
    # a launch command's own flag wins over a list
    (record,) = launch_records("vllm serve m --tensor-parallel-size 8\n- TP: 4\n")
    assert record.metrics["tensor_parallel_size"] == 8


def test_a_speed_column_beside_a_requests_latency_is_its_rate(tmp_path):
    # SGLang's speculative-decoding bench table (a box table): 512 tokens in 6.171 s is 82.97 token/s as printed.
    text = ("+-------------+--------+------------+-----------------+\n"
            "| Latency (s) | Tokens | Acc Length | Speed (token/s) |\n"
            "+-------------+--------+------------+-----------------+\n"
            "|    6.171    |  512   |   2.081    |      82.97      |\n"
            "+-------------+--------+------------+-----------------+\n")
    (run,) = _summaries(tmp_path, text)
    assert run.metrics[STREAM] == pytest.approx(512 / 6.171, rel=1e-3)
    assert run.metrics["e2e_seconds_mean"] == pytest.approx(6.171)


def test_koboldcpp_benchmark_columns_name_the_prompt_processing(tmp_path):
    # koboldcpp's --benchmark (LostRuins/koboldcpp): `Processing` is the prompt's phase; 53.062 s at 7.76 T/s is
    # ~412 prompt tokens, and the first token comes when it ends.
    text = ("**Run** | **Processing Time** | **Processing Speed** | **Generation Time** | **Generation Speed** | "
            "**Total Time**\n------- | --- | --- | --- | --- | ---\n"
            "1       | 53.062s             | 7.76T/s              | 21.544s             | 4.64T/s              | 74.606s\n")
    (run,) = _summaries(tmp_path, text)
    assert run.metrics["ttft_seconds_mean"] == pytest.approx(53.062)
    assert run.metrics["input_tokens_per_second"] == 7.76
    assert run.metrics[STREAM] == 4.64
    assert run.metrics["e2e_seconds_mean"] == pytest.approx(74.606)


def test_prefills_that_cannot_fill_the_per_token_time_leave_it_to_decode():
    # vllm bench serve (MetaX-MACA/vLLM-metax#223's shape): 102,400-token prompts, 1,024 outputs (100 to 1), 2 in flight,
    # median TTFT 23.9 s, TPOT 293 ms. 100 prompt tokens per output token, but in one request's life the other
    # stream prefills about once: 23.9 s over 1,023 tokens is 23 ms a token, far under 293 ms.
    metrics = {"input_tokens_per_second": 632.0, "output_tokens_per_second": 6.18, "max_concurrency": 2,
               "ttft_seconds_median": 23.9, "total_output_tokens": 4096, "completed_requests": 4}
    record = Record("summary", "test", 1, metrics)
    assert not prefill_interleaved(record, 0.293)
    # 400 ms of prefill a token (16 in flight, 28 s TTFT, 1,024 tokens) explains a 293 ms per-token time
    assert prefill_interleaved(Record("summary", "test", 1, {**metrics, "max_concurrency": 16, "ttft_seconds_median": 28.0}),
                               0.293)


def test_an_ollama_final_chunk_cut_at_its_start_keeps_its_whole_fields(tmp_path):
    # A paste from the middle of ollama's final /api/chat chunk: no JSON reader takes it, but every
    # timing after `"content":""},` is whole. 238 tokens in 8.059779 s: 33.86 ms each; 1,026 prompt tokens in
    # 1.896469 s.
    (record,) = _read_text(ollama, tmp_path, '{"role":"assistant","content":""},"done_reason":"stop","done":true,'
                           '"total_duration":9987503333,"load_duration":28999667,"prompt_eval_count":1026,'
                           '"prompt_eval_duration":1896469000,"eval_count":238,"eval_duration":8059779000}\n')
    assert record.metrics["tpot_seconds"] == pytest.approx(8.059779 / 238)
    assert record.metrics["input_tokens"] == 1026
    assert record.metrics["prefill_seconds"] == pytest.approx(1.896469)
    assert record.metrics["e2e_seconds"] == pytest.approx(9.987503333)
    # a field cut inside its number is not taken: `"eval_duration":80` may be 8059779000
    cut = _read_text(ollama, tmp_path, '{"x":1}},"eval_count":238,"eval_duration":80')
    assert all("decode_seconds" not in record.metrics for record in cut)


def test_pytests_live_log_prefix_is_taken_off(tmp_path):
    # vllm bench serve's summary printed through a CI test's logger (pytest: level padded to 8, logger:file:line)
    assert clean_line("INFO     root:vllm_bench.py:126 Mean TTFT (ms):    99.02") == "Mean TTFT (ms):    99.02"
    vllm_line = "INFO 03-14 02:00:01 metrics.py:449] Avg prompt throughput: 1.0 tokens/s"
    assert clean_line(vllm_line) == vllm_line  # vLLM's own prefix is the engine's, kept
    lines = ["Maximum request concurrency:             40", "Request throughput (req/s):              15.49",
             "Output token throughput (tok/s):         1549.45", "Mean TTFT (ms):                          99.02",
             "Median TTFT (ms):                        95.77"]
    path = tmp_path / "ci.log"
    path.write_text("".join(f"INFO     root:vllm_bench.py:126 {line}\n" for line in lines))
    plain = tmp_path / "plain.log"
    plain.write_text("\n".join(lines) + "\n")
    prefixed, bare = diagnose_files([path]), diagnose_files([plain])
    assert prefixed.verdict == bare.verdict == "healthy"
    assert [e.numbers for e in prefixed.evidence] == [e.numbers for e in bare.evidence]


def test_pandas_describe_of_per_request_figures(tmp_path):
    # A FasterTransformer-backend client's `df.describe()` (blind339): ten requests; 863.27 ms mean, 799.24 ms
    # median, 11.88 tok/s each on average, 10 tokens each.
    path = FIXTURES / "blind339_logs" / "fastertransformer__triton-backend-gpt-j-a100-40gb-stats-duration-tokens-per-second.txt"
    (record,) = _read(pandas_describe, path)
    assert record.metrics["completed_requests"] == 10
    assert record.metrics["e2e_seconds_mean"] == pytest.approx(0.863274, rel=1e-5)
    assert record.metrics["e2e_seconds_median"] == pytest.approx(0.799239, rel=1e-5)
    assert record.metrics["e2e_seconds_max"] == pytest.approx(1.346924, rel=1e-5)
    assert record.metrics[STREAM] == pytest.approx(11.884291)
    assert record.metrics["mean_output_tokens"] == 10
    # the transpose, and a time with no unit in its name (`latency`: seconds or ms?) left unread
    text = ("               count    mean     std     min     25%     50%     75%     max\n"
            "ttft_ms         20.0   120.0    10.0   100.0   110.0   118.0   125.0   150.0\n"
            "latency         20.0     2.1     0.2     1.8     2.0     2.1     2.2     2.6\n"
            "prompt_tokens   20.0   512.0     0.0   512.0   512.0   512.0   512.0   512.0\n")
    (record,) = _read_text(pandas_describe, tmp_path, text)
    assert record.metrics["ttft_seconds_mean"] == pytest.approx(0.120)
    assert record.metrics["ttft_seconds_median"] == pytest.approx(0.118)
    assert record.metrics["mean_input_tokens"] == 512
    assert not any(name.startswith("e2e_") for name in record.metrics)


def test_a_model_sized_by_its_name_is_judged_on_the_cards_that_hold_it(tmp_path):
    # tt-inference-server's GPU reference (blind342): Llama-3.2-90B-Vision at concurrency 1, TPOT 46 ms, on H100s.
    # 90B × 2 bytes = 180 GB; an H100 holds 0.9 × 80 GB = 72 GB of weights, two 144 GB, four 288 GB: four cards,
    # tensor-split, read 180 GB at 4 × 3,350 GB/s = 13.4 ms a token before the layers' fixed cost.
    path = tmp_path / "sweep.md"
    path.write_text("| ISL | OSL | Concurrency | TTFT (ms) | TPOT (ms) | E2EL (ms) |\n|---|---|---|---|---|---|\n"
                    "| 128 | 128 | 1 | 105.5 | 46.0 | 5944.1 |\n")
    diagnosis = diagnose_files([path], model="meta-llama/Llama-3.2-90B-Vision-Instruct", gpu="h100-sxm")
    assert diagnosis.roofline["cards_reading"] == 4
    floor = diagnosis.roofline["named_decode_floor_seconds_per_token"]
    assert 180e9 / (4 * 3350e9) < floor < 180e9 / (4 * 3350e9) + 0.005
    assert diagnosis.verdict == "decode-bound"  # 46 ms is under two fifths of that speed
    # a 32B in a guessed bf16 on one 24 GB card: a quantised file as likely as a split, judged on the one card
    diagnosis = diagnose_files([path], model="Qwen/Qwen2.5-32B-Instruct", gpu="rtx-3090")
    assert diagnosis.roofline.get("cards_reading", 1) == 1


def test_a_variant_column_of_rates_with_their_unit_is_read(tmp_path):
    # A regression report (sglang, AIPerf at concurrency 1): the variants head the columns, each cell a rate with its
    # unit; ~126.9 tok/s is 7.88 ms a token.
    text = ("| Workload | System / shape | Before #26496 | After #26496 | Drop |\n| --- | --- | ---: | ---: | ---: |\n"
            "| `Llama-3.3-70B-NVFP4` | GB200, TP=4 | ~126.9 tok/s | ~104.4 tok/s | ~16.2% |\n")
    before, after = _summaries(tmp_path, text)
    assert (before.metrics[STREAM], after.metrics[STREAM]) == (126.9, 104.4)
    assert after.labels["benchmark"] == "column 'After #26496'"


def test_exllamas_bits_per_weight_are_the_names_format():
    assert stated_format("turboderp_Mistral-Large-Instruct-2407-123B-exl2_4.25bpw") == ("4.25bpw", 4.25)
    assert stated_format("Llama-3-70B-Instruct-exl2-2.5bpw")[1] == 2.5
    assert stated_format("model-12bpwx") is None


def test_phase_headers_that_state_their_length_and_unit(tmp_path):
    # text-generation-webui's speed table: `Prompt processing (3200 tokens, t/s) | Generation (512 tokens, t/s)`.
    text = ("Model | Backend | Prompt processing (3200 tokens, t/s) | Generation (512 tokens, t/s)\n-- | -- | -- | --\n"
            "TheBloke/Llama-2-7B-GPTQ | ExLlamaV2 | 6138.32 | 130.16\n")
    (run,) = _summaries(tmp_path, text)
    assert run.metrics["input_tokens_per_second"] == 6138.32
    assert run.metrics[STREAM] == 130.16
    assert run.labels["tool"] == "ExLlamaV2"


def test_phrases_read_a_rate_per_second_and_leave_a_bare_throughput(tmp_path):
    # `output_tokens_per_s: 964.28` is a rate (its `_s` follows `per`), not 964 seconds; `throughput=5.38` beside a
    # batch size counts samples or requests a second, no token words: not a token rate.
    records = _read_text(generic_phrases, tmp_path, "prefix_cache=false\n  avg_ms: 16.59\n  output_tokens_per_s: 964.28\n")
    assert all("decode_seconds" not in record.metrics for record in records)
    assert any(record.metrics.get("generation_tokens_per_second") == 964.28 for record in records)
    records = _read_text(generic_phrases, tmp_path,
                         "batch_size 1: throughput=5.38, latency=0.19\nbatch_size 2: throughput=4.42, latency=0.45\n")
    assert all("generation_tokens_per_second" not in record.metrics for record in records)


def test_sglang_multiturn_bench_latencies_are_seconds(tmp_path):
    # sgl-project/sglang benchmark/hicache/bench_multiturn.py prints TTFT and latency with no unit; they are
    # time.perf_counter() differences. 256 requests offered at 24 a second, 0.95 a second served.
    (record,) = _read_text(generic_summary, tmp_path,
                           "Performance metrics summary:\n  Total requests: 256 at 24 requests per second\n"
                           "  Average TTFT: 7.53\n  P90 TTFT: 11.20\n  Median TTFT: 3.62\n  Average latency: 24.88\n"
                           "  Throughput: 0.95 requests per second\n")
    assert record.metrics["completed_requests"] == 256 and record.metrics["request_rate_per_second"] == 24
    assert record.metrics["ttft_seconds_mean"] == pytest.approx(7.53)
    assert record.metrics["ttft_seconds_median"] == pytest.approx(3.62)
    assert record.metrics["e2e_seconds_mean"] == pytest.approx(24.88)
    assert record.metrics["request_throughput_per_second"] == pytest.approx(0.95)


def test_llama_cpp_start_up_alone_is_read_as_its_capacity(tmp_path):
    # A crash report pasting only llama.cpp's start-up (its KV cache on three SYCL cards): 782 + 736 + 690 MiB.
    path = tmp_path / "startup.log"
    path.write_text("llama_kv_cache_init: kv_size = 23552, offload = 1, type_k = 'f16', type_v = 'f16', n_layer = 48\n"
                    "llama_kv_cache_init:      SYCL0 KV buffer size =   782.00 MiB\n"
                    "llama_kv_cache_init:      SYCL1 KV buffer size =   736.00 MiB\n"
                    "llama_kv_cache_init:      SYCL2 KV buffer size =   690.00 MiB\n"
                    "llama_init_from_model: KV self size  = 2208.00 MiB, K (f16): 1104.00 MiB, V (f16): 1104.00 MiB\n")
    assert llamacpp.sniff(path.read_text()) > 0
    diagnosis = diagnose_files([path])
    assert diagnosis.verdict == "insufficient-data"  # a cache's size alone judges no speed


def test_a_fixed_cutoff_asks_for_the_flags_only_when_they_were_not_given(tmp_path):
    # vllm bench serve at 715 ms per output token: 500 output tok/s × 0.715 s = ~358 streams at once, a batch the
    # one-stream cutoff leaves alone; with the flags the comparison ran and could not judge a model it sizes from
    # its name at that batch, so the evidence says so instead of asking for the flags.
    path = tmp_path / "summary.txt"
    path.write_text("============ Serving Benchmark Result ============\nSuccessful requests:  100\n"
                    "Output token throughput (tok/s):   500.00\nMean TPOT (ms):   715.19\n")
    bare = diagnose_files([path])
    flagged = diagnose_files([path], model="Qwen/Qwen3-14B", gpu="a100-sxm-80gb")
    assert any(ASK_FOR_HARDWARE in item.text for item in bare.evidence)
    assert not any(ASK_FOR_HARDWARE in item.text for item in flagged.evidence)
    assert any(COMPARISON_UNJUDGED in item.text for item in flagged.evidence)


def test_pandas_describe_leaves_a_statistic_it_has_no_value_for(tmp_path):
    # `nan` where a column has no value (no request timed): not a figure, so nothing of it reaches the report
    text = ("       duration_ms  tokensPerSecond\ncount    2.0   2.0\nmean   nan   12.0\nstd    nan   1.0\n"
            "min    nan   11.0\n50%    nan   12.0\nmax    nan   13.0\n")
    (record,) = _read_text(pandas_describe, tmp_path, text)
    assert record.metrics == {"completed_requests": 2.0, STREAM: 12.0}
