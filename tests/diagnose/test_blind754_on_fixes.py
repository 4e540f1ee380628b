"""Blind rounds 754 on: the general fixes of the thirty-fourth session. Expected figures are worked out here."""

from __future__ import annotations

import pytest
from blind_helpers import FIXTURES, diagnosed, markdown_summaries, parsed, write


def _said(diagnosis, *words) -> bool:
    """Whether one piece of the diagnosis' evidence says every one of `words`."""
    return any(all(word in evidence.text for word in words) for evidence in diagnosis.evidence)


# vLLM's offline bar for two one-prompt runs one after the other (round 754: a structured-output example): each bar
# reads 1/1, the second's clock starts again at 00:00.
_TWO_ONE_PROMPT_RUNS = """\
Processed prompts: 100%|██████████| 1/1 [00:02<00:00,  2.63s/it, est. speed input: 4.18 toks/s, output: 1.52 toks/s]
Guided decoding by Choice: Negative
Processed prompts: 100%|██████████| 1/1 [00:00<00:00,  3.56it/s, est. speed input: 114.14 toks/s, output: 28.53 toks/s]
Guided decoding by Regex: alan_turing@enigma.com
"""


def test_a_finished_bar_whose_clock_goes_back_is_the_next_run(tmp_path):
    from inferledger.diagnose.parsers import vllm_offline

    first, second = parsed(vllm_offline, write(tmp_path, _TWO_ONE_PROMPT_RUNS))
    # one prompt in 2.63 s at 1.52 output tok/s: 4.0 tokens; then one in 1 / 3.56 = 0.281 s at 28.53: 8.0 tokens
    assert first.metrics["mean_output_tokens"] == pytest.approx(1.52 * 2.63, rel=1e-3)
    assert second.metrics["mean_output_tokens"] == pytest.approx(28.53 / 3.56, rel=1e-3)
    assert (first.line_number, second.line_number) == (1, 3)


def test_a_fast_rate_over_a_few_tokens_is_not_called_healthy(tmp_path):
    diagnosis = diagnosed(tmp_path, _TWO_ONE_PROMPT_RUNS, "structured_output.txt")
    assert diagnosis.verdict == "insufficient-data"
    assert _said(diagnosis, "1.52 output tok/s over 4 output tokens in all")  # the cold call, as before
    # the warm call: 28.53 tok/s over 8 tokens times a call, not a run (was healthy on its own)
    assert any("8 output tokens in all: too few to call the run healthy" in note for note in diagnosis.notes)
    warm_alone = diagnosed(tmp_path, _TWO_ONE_PROMPT_RUNS.splitlines()[2] + "\n", "warm.txt")
    assert warm_alone.verdict == "insufficient-data"


def test_a_rate_mean_named_after_the_rate_is_a_streams_rate(tmp_path):
    table = ("| Prompt | wall TPS mean | decode TPS mean | CV | TTFT range |\n|---|---:|---:|---:|---:|\n"
             "| Narrative, 1000 toks | 85.09 | 86.37 | 1.9% | 162–186 ms |\n"
             "| Quicksort code | 102.43 | 107.09 | 2.5–2.8% | 192–202 ms |\n")
    diagnosis = diagnosed(tmp_path, table, "bench.md")
    assert diagnosis.verdict == "healthy"
    # 1000 / 86.37 = 11.58 ms and 1000 / 107.09 = 9.34 ms a token (was: no reader knew the layout)
    assert _said(diagnosis, "per-stream rate 11.58 ms") and _said(diagnosis, "per-stream rate 9.34 ms")


def test_variants_as_columns_over_rates_in_tok_per_sec(tmp_path):
    table = ("no penalties | repeat-penalty | presence-penalty\n-------|------|--------\n"
             "33.1 tok/sec | 27.5 tok/sec | 27.3 tok/sec\n")
    diagnosis = diagnosed(tmp_path, table, "penalties.txt")
    # 1000 / 33.1 = 30.21 ms, 1000 / 27.5 = 36.36 ms, 1000 / 27.3 = 36.63 ms a token, one column each
    assert _said(diagnosis, "column 'no penalties'", "30.21 ms")
    assert _said(diagnosis, "column 'repeat-penalty'", "36.36 ms")
    assert _said(diagnosis, "column 'presence-penalty'", "36.63 ms")


def test_a_prefill_column_of_rate_cells_is_read(tmp_path):
    table = ("| build | prefill |\n|---|---|\n| default | ~34 t/s |\n"
             "| -DGGML_CUDA_FA_ALL_QUANTS=ON | 659-1094 t/s depending on context |\n")
    rates = [record.metrics.get("input_tokens_per_second") for record in markdown_summaries(tmp_path, table)]
    assert rates == [34.0, 659.0]  # a range read as its first figure, its note after the unit left


def test_guard_a_workloads_shape_names_no_prefill_rate(tmp_path):
    # guard: `2K input / 128 output` over tok/s cells is the output rate of that shape, not a prefill rate
    table = ("| Precision | Backend | 2K input / 128 output | 32K prefix + 2K input / 1K output |\n"
             "|---|---:|---:|---:|\n| FP8 | FlashInfer | 49.20 tok/s | 43.21 tok/s |\n"
             "| FP8 | Triton | 48.21 tok/s | 31.40 tok/s |\n")
    assert not any("input_tokens_per_second" in record.metrics for record in markdown_summaries(tmp_path, table))


def test_a_unit_before_an_equals_sign_is_the_next_pairs_name():
    from inferledger.diagnose.parsers.generic_phrases import line_metrics

    # llama.cpp's mtp-bench.py: `rate=` is the draft acceptance, `tok/s=` the speed (was: 0.764 tok/s read)
    line = "  code_python        pred= 192 draft= 174 acc= 133 rate=0.764 tok/s=242.1"
    assert line_metrics(line) == {"generation_tokens_per_second": 242.1}


# vLLM V0 with Medusa heads proposing 16 tokens a step, none accepted (round 762, vllm-project/vllm#6768).
_V0_SPEC_NONE_ACCEPTED = """\
INFO 07-24 04:00:31 metrics.py:295] Avg prompt throughput: 558.7 tokens/s, Avg generation throughput: 127.4 tokens/s, \
Running: 2 reqs, Swapped: 0 reqs, Pending: 0 reqs, GPU KV cache usage: 0.8%, CPU KV cache usage: 0.0%.
INFO 07-24 04:00:31 metrics.py:316] Speculative metrics: Draft acceptance rate: 0.000, System efficiency: 0.059, \
Number of speculative tokens: 16, Number of accepted tokens: 0, Number of draft tokens tokens: 42272, Number of \
emitted tokens tokens: 2642.
INFO 07-24 04:00:36 metrics.py:295] Avg prompt throughput: 278.5 tokens/s, Avg generation throughput: 110.4 tokens/s, \
Running: 2 reqs, Swapped: 0 reqs, Pending: 0 reqs, GPU KV cache usage: 0.3%, CPU KV cache usage: 0.0%.
INFO 07-24 04:00:36 metrics.py:316] Speculative metrics: Draft acceptance rate: 0.000, System efficiency: 0.059, \
Number of speculative tokens: 16, Number of accepted tokens: 0, Number of draft tokens tokens: 51056, Number of \
emitted tokens tokens: 3191.
"""


def test_v0_system_efficiency_gives_the_tokens_a_step(tmp_path):
    diagnosis = diagnosed(tmp_path, _V0_SPEC_NONE_ACCEPTED, "vllm_medusa.log")
    # efficiency 0.059 of 16 + 1 positions: 1.003 tokens a step, the step's own token only (was: healthy)
    assert diagnosis.verdict == "decode-bound"
    assert _said(diagnosis, "speculative decoding keeps 1.00 tokens a step in 2 window(s)")


# A TGI request span pasted a field a line (round 763, huggingface/text-generation-inference#2978).
_TGI_SPAN_A_FIELD_A_LINE = """\
adapter_id: None }
total_time="10.779314795s"
validation_time="536.816µs"
queue_time="60.971µs"
inference_time="10.778717208s"
time_per_token="16.039757ms"
seed="None"}
"""


def test_a_tgi_span_pasted_a_field_a_line_is_one_request(tmp_path):
    from inferledger.diagnose.parsers import tgi

    (request,) = parsed(tgi, write(tmp_path, _TGI_SPAN_A_FIELD_A_LINE))
    assert request.line_number == 2  # the span's first field
    assert request.metrics["e2e_seconds"] == pytest.approx(10.779314795)
    assert request.metrics["queue_seconds"] == pytest.approx(60.971e-6)
    assert request.metrics["output_tokens"] == 672  # 10.778717208 s / 16.039757 ms = 672.0
    assert not tgi.split_after('queue_time="60.971µs"')  # a chunk is not cut inside the span
    diagnosis = diagnosed(tmp_path, _TGI_SPAN_A_FIELD_A_LINE, "tgi.log")
    assert diagnosis.verdict == "healthy"  # was: no line could be read


def test_a_notebooks_bar_without_its_bar_is_read(tmp_path):
    from inferledger.diagnose.parsers import vllm_offline

    bars = ("Processed prompts: 100% 1321/1321 [09:09<00:00,  2.40it/s]\n"
            "Processed prompts: 100% 1321/1321 [16:01<00:00,  1.37it/s]\n")
    base, lora = parsed(vllm_offline, write(tmp_path, bars))
    # 9:09 = 549 s and 16:01 = 961 s for 1,321 prompts each
    assert (base.metrics["duration_seconds"], lora.metrics["duration_seconds"]) == (549.0, 961.0)
    assert base.metrics["completed_requests"] == lora.metrics["completed_requests"] == 1321


def test_a_setup_named_compile_with_its_rate_is_a_run():
    from inferledger.diagnose.parsers.generic_phrases import line_metrics

    # `compile` names a setup here, not the engine's start-up (whose lines state a time, no token rate)
    assert line_metrics("vllm + compile (baseline): 61 tokens/s") == {"generation_tokens_per_second": 61.0}
    assert line_metrics("torch.compile takes 41.2 s") == {}  # guard: start-up stays unread


def test_a_boxed_line_with_llama_bench_phase_names_between_figure_and_unit():
    from inferledger.diagnose.parsers.generic_phrases import line_metrics

    line = "│    Single:  2,936 pp t/s  │  11.6 tg t/s  │  TTFT 2,170ms          │"
    assert line_metrics(line) == {"prompt_tokens_per_second": 2936.0, "generation_tokens_per_second": 11.6,
                                  "ttft_seconds": 2.17}


def test_a_count_per_request_is_no_streams_rate(tmp_path):
    table = ("| Component | Tokens | % of Avg Request |\n|---|---|---|\n"
             "| Tool definitions (31 tools) | 8,759 | 46.1% |\n| System prompt | 5,176 | 27.2% |\n"
             "| **Total per request** | **~17,000–23,000** | |\n")
    # was: 17,000 tok/s a stream read from the `Total per request` row
    assert not any(record.metrics for record in markdown_summaries(tmp_path, table))
    rates = ("| Concurrent requests | Per request | Aggregate |\n|---|---|---|\n| 1 | 32.0 tok/s | 32.0 |\n"
             "| 4 | 7.0 tok/s | 20.7 |\n")
    # guard: a bare `Per request` over rates stays one stream's rate
    assert [record.metrics.get("output_tokens_per_second_per_user_mean")
            for record in markdown_summaries(tmp_path, rates)] == [32.0, 7.0]


def test_builds_compared_test_by_test_without_a_model_column(tmp_path):
    from inferledger.diagnose.parsers import llamacpp

    table = ("   | type_k | type_v | fa | rtr |          test |    t/s (main)    |    t/s (pr)      | Speedup |\n"
             "| -----: | -----: | -: | --: | ------------: | ---------------: | ---------------: | ------: |\n"
             "|   bf16 |   bf16 |  1 |   1 |         pp128 |    275.27 ± 1.63 |    278.40 ± 1.60 | 1.011   |\n"
             "|   bf16 |   bf16 |  1 |   1 |         pp512 |    274.71 ± 0.51 |    276.83 ± 0.36 | 1.008   |\n")
    path = write(tmp_path, table, "ik_bench.md")
    rows = parsed(llamacpp, path)
    # two tests under two builds: four llama-bench rows, each build's prompt rate (was: no reader took the table)
    assert sorted((row.labels["build"], row.metrics["prompt_tokens_per_second"]) for row in rows) == [
        ("(main)", 274.71), ("(main)", 275.27), ("(pr)", 276.83), ("(pr)", 278.40)]
    assert diagnosed(tmp_path, table, "ik_bench.md").verdict == "insufficient-data"  # prompt rates alone


def test_a_ttft_sweep_by_prompt_length_times_prompt_processing(tmp_path):
    table = ("| Prompt tokens | Baseline TTFT | SpecPrefill TTFT (20% keep) | Speedup |\n|:---:|:---:|:---:|:---:|\n"
             "| ~8K | 46.0s | 16.3s | **2.83x** |\n| ~16K | 92.0s | 31.3s | **2.94x** |\n")
    diagnosis = diagnosed(tmp_path, table, "specprefill.md")
    # nothing after the first token is timed: the prompt is the work, 8,000 / 46.0 s = 174 prompt tok/s (was healthy)
    assert diagnosis.verdict == "prefill-bound"
    assert _said(diagnosis, "8,000-token prompts and no token after the first timed: TTFT 46,000 ms (174 prompt tok/s)")


def test_an_overloaded_reply_is_a_busy_rejection(tmp_path):
    retry = ('  ⎿  API Error (529 {"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}) · '
             "Retrying in {} seconds… (attempt {}/10)\n")
    text = "".join(retry.replace("{}", str(wait), 1).replace("{}", str(attempt), 1)
                   for attempt, wait in enumerate((1, 1, 2, 5, 10), 1))
    diagnosis = diagnosed(tmp_path, text, "claude_code.txt")
    # five refusals of an overloaded server (was: no reader knew the layout)
    assert diagnosis.verdict == "queueing"
    assert diagnosis.events == {"busy_rejections": 5.0}
    tgi = '{"error":"Model is overloaded","error_type":"overloaded"}\n'
    assert diagnosed(tmp_path, tgi * 2, "tgi_client.txt").events == {"busy_rejections": 2.0}
    # guard: a pasted file's header quoting the words is no refusal
    from inferledger.diagnose.failures import failure_records

    assert failure_records(["# the server is overloaded, retry later"]) == []


def test_chunk_prefilled_progress_lines_are_a_prompt_being_read():
    from inferledger.diagnose import diagnose_files

    # candle-vllm's scheduler reading one 178,460-token prompt 8,192 tokens a chunk (round 779, candle-vllm#300): the
    # kept lines run from 8,192 read at 02:30:04.602320 to 65,536 at 02:31:23.709090, 57,344 tokens in 79.10677 s =
    # 724.9 tok/s, so the whole prompt takes 178,460 / 724.9 = 246.2 s (was: one request of input tokens alone)
    diagnosis = diagnose_files([FIXTURES / "blind779_logs" /
                                "candlevllm__swe-178k-token-request-chunked-prefill-8192-per-11s-var-len-attention.txt"])
    assert diagnosis.verdict == "prefill-bound"
    assert _said(diagnosis, "178,460 tokens at 725 tok/s, 246.2 s each")


def test_a_table_aligned_by_runs_of_spaces_with_two_word_names(tmp_path):
    # a benchmark script's padded columns (round 774, vllm-project/vllm#40108): `p90 TTFT` is one name
    table = """\
--- short_decode  (ISL=128, OSL=512, N=200, C=32) ---
  Config                    Req/s   OutTok/s       TTFT       TPOT        ITL   p90 TTFT   p90 TPOT   p99 TTFT
  ---------------------- -------- ---------- ---------- ---------- ---------- ---------- ---------- ----------
  bf16                        2.0       1035        148       27.4       27.4        280       28.0        283
  turboquant_k8v4             1.7        889        197       31.8       31.8        285       32.2        288
"""
    diagnosis = diagnosed(tmp_path, table, "turboquant.txt")
    # bare latencies in ms (a time a token of 27.4 is ms, bench_markdown.UNITLESS_MS_MIN): was not read
    assert _said(diagnosis, "TTFT 148.0 ms, TPOT 27.40 ms, 1035.0 output tok/s, 2 req/s")
    assert _said(diagnosis, "TTFT 197.0 ms, TPOT 31.80 ms, 889.0 output tok/s, 1.7 req/s")


_SERVE_ONE_SEQ = "vllm serve Qwen/Qwen3-235B-A22B-Instruct-2507 --tensor-parallel-size 4 --max-num-seqs 1{dp}\n\n"
_BENCH_CUT = """\
============ Serving Benchmark Result ============
Successful requests:                     100
Maximum request concurrency:             4
Benchmark duration (s):                  820.75
Total input tokens:                      12796
Total generated tokens:                  12093
"""


def test_a_client_over_twice_the_running_cap_queues_with_no_latency_shown(tmp_path):
    # round 784 (vllm-project/vllm#23340): 4 in flight against --max-num-seqs 1, the summary cut before its latencies;
    # 3 of the 4 always wait (was: the rate alone, insufficient-data)
    diagnosis = diagnosed(tmp_path, _SERVE_ONE_SEQ.format(dp="") + _BENCH_CUT, "bench.txt")
    assert diagnosis.verdict == "queueing"
    assert _said(diagnosis, "4 requests in flight against a running cap of 1", "3 wait for a slot")
    # four data-parallel copies hold one each: 4 run at once, none waits
    spread = diagnosed(tmp_path, _SERVE_ONE_SEQ.format(dp=" --data-parallel-size 4") + _BENCH_CUT, "dp.txt")
    assert spread.verdict != "queueing"


@pytest.mark.parametrize("line", [
    "can't allocate 2303168640 Bytes of memory on device",  # llama.cpp SYCL on an Arc Pro B70 (llama.cpp#28953)
    "[GPU] Exceeded max size of memory object allocation: requested 32095728896 bytes, but max alloc size supported "
    "by device is 25055051776 bytes.",  # OpenVINO GenAI on an Arc Pro B60 (round 795)
])
def test_intel_runtimes_allocation_failures_are_out_of_memory(line):
    from inferledger.diagnose.failures import failure_records

    (record,) = failure_records([line])
    assert record.metrics == {"oom": 1.0}


def test_tenstorrents_tokens_a_second_a_user_is_a_streams_rate(tmp_path):
    table = "| Change | tok/s/u |\n|--------|---------|\n| Baseline | 40.2 |\n| LM-head fidelity → LoFi | **51.5** |\n"
    rates = [record.metrics.get("output_tokens_per_second_per_user_mean")
             for record in markdown_summaries(tmp_path, table)]
    assert rates == [40.2, 51.5]  # round 791 (tenstorrent/tt-metal#50662); was not read


@pytest.mark.parametrize(("header", "metric", "seconds"), [
    ("Latency mean (s)", "e2e_seconds_mean", 1.0), ("Latency p99 (ms)", "e2e_seconds_p99", 1e-3),
    ("latency_p50_ms", "e2e_seconds_median", 1e-3),
])
def test_a_latency_with_its_statistic_after_it(header, metric, seconds):
    from inferledger.diagnose.parsers.bench_markdown import _column

    # round 787's `Latency mean (s)` (was: not a column, the table read as a request rate alone)
    assert _column(header) == (metric, seconds, "time")
