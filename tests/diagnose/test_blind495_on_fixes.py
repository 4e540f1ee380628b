"""Blind rounds 495 on: the general fixes of the twenty-third session. Expected figures are worked out here."""

from __future__ import annotations

import pytest
from blind_helpers import FIXTURES, markdown_summaries, parsed, rules, write

from inferledger.diagnose import diagnose_files
from inferledger.diagnose.parsers import bench_clients
from inferledger.diagnose.read import clean_line

STREAM = "output_tokens_per_second_per_user_mean"

STRIX_TABLE = FIXTURES / "blind500_logs" / "ollama__strix-halo-395-moe-frontier-7b-concurrency-sweep-tok-per-watt.txt"


def test_a_rows_sized_model_is_judged_on_the_card_given():
    # `llama3.1:70b-instruct-q8_0` at 3.0 tok/s (333 ms a token): 70B × 8.5 bits (q8_0) = 74.4 GB a step. With no card
    # the floor is a slow common 360 GB/s card's, 74.375e9 / (0.70 × 360e9) = 295 ms, faster than the row: slow by the
    # fixed cutoff. With --gpu strix-halo (256 GB/s) the row is judged on that card (the forty-third session's
    # rules_summary._row_on_card): 74.375e9 / 256e9 = 290.5 ms plus 80 layers × 46 µs = 3.7 ms, a 294.2 ms floor,
    # 294.2 / 333.3 = 88 % of its speed: the memory's pace, and nothing is asked for.
    bare = diagnose_files([STRIX_TABLE])
    carded = diagnose_files([STRIX_TABLE], gpu="strix-halo")
    assert bare.verdict == "decode-bound"
    seventy = next(item.text for item in carded.evidence
                   if item.rule == "hardware-named-decode-near-floor" and "70b-instruct-q8_0" in item.text)
    assert "on the strix-halo" in seventy and f"({74.375e9 / 256e9 * 1e3 + 80 * 46e-3:.2f} ms" in seventy
    assert "88%" in seventy
    assert not any("give --" in item.text for item in carded.evidence)
    assert carded.verdict == "healthy"


def test_a_setting_every_column_repeats_is_the_runs_not_a_column(tmp_path):
    # FlagOS's release reports head each measure with its sweep point, `4k-1k 64并发 - …` (4k in, 1k out, 64
    # concurrent): the concurrency word must not make `total tok/s` a concurrency column. 244727.52 ms is 244.73 s.
    (run,) = markdown_summaries(tmp_path, (
        "| 模型名 | 卡数 | 4k-1k 64并发 - mean TTFT（ms） | 4k-1k 64并发 - output toks/s "
        "| 4k-1k 64并发 - total tok/s | 4k-1k 64并发 - Mean TPOT (ms) |\n"
        "|---|---|---|---|---|---|\n"
        "| FractalAIResearch/Fathom-R1-14B | 16 | 244727.52 | 88.2 | 440.89 | 338.67 |\n"))
    assert run.metrics["max_concurrency"] == 64
    assert run.metrics["mean_input_tokens"] == 4000 and run.metrics["mean_output_tokens"] == 1000
    assert run.metrics["ttft_seconds_mean"] == pytest.approx(244.72752)
    assert run.metrics["tpot_seconds_mean"] == pytest.approx(0.33867)
    assert run.metrics["total_tokens_per_second"] == 440.89


BLOCK = """============ Serving Benchmark Result ============
Successful requests:                     200
Benchmark duration (s):                  41.26
Request throughput (req/s):              4.85
Output token throughput (tok/s):         1055.44
Mean TTFT (ms):                          3394.37
Mean TPOT (ms):                          66.28
==================================================
"""


def test_a_rate_sweeps_section_title_states_the_rate_of_the_block_below(tmp_path):
    # vllm-ascend's benchmark docs title each block `qps 4:` … `qps inf:`: the load each block was offered.
    path = write(tmp_path, "qps 4:\n" + BLOCK + "\nqps inf:\n" + BLOCK)
    first, second = parsed(bench_clients, path)
    assert first.metrics["request_rate_per_second"] == 4.0 and "request_rate" not in first.labels
    assert second.labels["request_rate"] == "inf" and "request_rate_per_second" not in second.metrics


def test_a_phase_rate_titled_table_by_depth_is_a_run_a_cell_less_its_ratio_column(tmp_path):
    # `## Decode T/s` over `Depth | engine A | engine B | A speedup`: each engine's cell one stream's decode rate at
    # that depth; the speedup column (`1.104x`) is no run.
    runs = markdown_summaries(tmp_path, (
        "## Decode T/s\n\n"
        "| Depth | mistral.rs BF16 | vLLM BF16 | mistral.rs speedup |\n"
        "| ---: | ---: | ---: | ---: |\n"
        "| 128 | 15.6 | 24.4 | 0.639x |\n"
        "| 4096 | 15.2 | 23.7 | 0.641x |\n"))
    assert [(run.labels["benchmark"], run.metrics["mean_input_tokens"], run.metrics[STREAM]) for run in runs] == [
        ("mistral.rs BF16", 128, 15.6), ("vLLM BF16", 128, 24.4), ("mistral.rs BF16", 4096, 15.2),
        ("vLLM BF16", 4096, 23.7)]


@pytest.mark.parametrize("line", [
    "level_zero backend failed with error: 39 (UR_RESULT_ERROR_OUT_OF_DEVICE_MEMORY)",
    "ggml_vulkan: Device memory allocation of size 1073741824 failed.\nvk::Device::allocateMemory: "
    "ErrorOutOfDeviceMemory",
])
def test_intel_and_vulkan_out_of_device_memory_is_the_runs_failure(tmp_path, line):
    # llama.cpp's SYCL backend (Unified Runtime over Level Zero) and its Vulkan backend name running out of the
    # card's memory in their runtimes' own error codes: memory, not compute, ended the run.
    diagnosis = diagnose_files([write(tmp_path, "srv  update_slots: prompt processing, n_tokens = 139264\n"
                                                f"{line}\n")])
    assert diagnosis.verdict == "kv-capacity"
    assert diagnosis.events["oom"] == 1


def test_a_scripts_note_quoting_the_error_code_is_no_failure(tmp_path):
    # A benchmark script's skip list names the code a configuration would fail with: no run failed.
    path = write(tmp_path, "  SKIP  openai/gpt-oss-20b  tp=2: (UR_RESULT_ERROR_OUT_OF_DEVICE_MEMORY — too large)\n"
                           "llama_print_timings:        eval time =  5092.80 ms /   255 runs   (   19.97 ms per token,"
                           "    50.07 tokens per second)\n")
    assert "oom" not in diagnose_files([path]).events


def test_mpiruns_tagged_output_is_taken_off_like_a_deployments_prefix(tmp_path):
    # `mpirun --tag-output` puts `[job,rank]<stdout>:` before every line of a multi-node launch; the engine's block
    # follows it. 388685 tokens over 161.80 s is the 2402.29 tok/s it prints.
    assert clean_line("[1,0]<stdout>:Request throughput (req/s):              12.36") == \
        "Request throughput (req/s):              12.36"
    assert clean_line("[1,13]<stderr>: WARNING x") == "WARNING x"
    block = ("[1,0]<stdout>:====== Offline Throughput Benchmark Result =======\n"
             "[1,0]<stdout>:Successful requests:                     2000\n"
             "[1,0]<stdout>:Benchmark duration (s):                  161.80\n"
             "[1,0]<stdout>:Total generated tokens:                  388685\n"
             "[1,0]<stdout>:Request throughput (req/s):              12.36\n"
             "[1,0]<stdout>:Output token throughput (tok/s):         2402.29\n"
             "[1,0]<stdout>:==================================================\n")
    diagnosis = diagnose_files([write(tmp_path, block)])
    (summary,) = diagnosis.metrics["summary"]
    assert summary["completed_requests"] == 2000
    # SGLang's offline banner opens the block (no rows "before the first banner"): prompts handed over at once
    assert summary["labels"] == {"tool": "sglang-offline", "offline_batch": True}
    assert summary["output_tokens_per_second"] == pytest.approx(388685 / 161.80, rel=1e-3)


def test_a_metric_titled_table_with_a_column_a_context_is_a_run_a_cell(tmp_path):
    # FastFlowLM's README: `Decoding Speed (TPS …)` over `Model | HW | 1k | 2k | 32k`: each row's cells are its
    # decode rate at each context; the row's name is its leading cells, bold markup off.
    runs = markdown_summaries(tmp_path, (
        "### 🚀 Decoding Speed (TPS, or Tokens per Second, starting @ different context lengths)\n\n"
        "| **Model** | **HW** | **1k** | **2k** | **32k** |\n"
        "|---|---|--:|--:|--:|\n"
        "| **Qwen3.5-2B** | NPU (FLM) | 26.8 | 26.2 | 17.0 |\n"))
    assert [(run.labels["benchmark"], run.metrics["mean_input_tokens"], run.metrics[STREAM]) for run in runs] == [
        ("Qwen3.5-2B NPU (FLM)", 1000, 26.8), ("Qwen3.5-2B NPU (FLM)", 2000, 26.2),
        ("Qwen3.5-2B NPU (FLM)", 32000, 17.0)]


CAPPED = """vllm serve meta-llama/Llama-3.1-8B-Instruct --max-num-seqs {cap}
============ Serving Benchmark Result ============
Successful requests:                     320
Maximum request concurrency:             32
Benchmark duration (s):                  120.5
Request throughput (req/s):              2.66
Mean TTFT (ms):                          8500.2
Mean TPOT (ms):                          11.5
==================================================
"""


def test_a_client_concurrency_above_the_launched_running_cap_waits_for_a_slot(tmp_path):
    # 32 requests in flight against --max-num-seqs 8: 32 − 8 = 24 wait; TTFT 8500.2 ms is 8500.2 / 11.5 = 739 steps.
    capped = diagnose_files([write(tmp_path, CAPPED.format(cap=8), "capped.log")])
    assert capped.verdict == "queueing"
    (item,) = [item for item in capped.evidence if item.rule == "summary-concurrency-over-cap"]
    assert "24 wait for a slot" in item.text and "739 decode steps" in item.text
    assert any("--max-num-seqs" in line for line in capped.advice)
    # a cap that holds the whole concurrency: the rule has nothing to say
    roomy = diagnose_files([write(tmp_path, CAPPED.format(cap=64), "roomy.log")])
    assert "summary-concurrency-over-cap" not in rules(roomy)


def test_a_unit_stated_for_every_value_makes_a_phase_heading_a_rate(tmp_path):
    # mistral.rs's release report says once that its values are tokens per second, then heads each table with its
    # format and phase alone (`##### Q4_K_M Prefill`, `##### Q4_K_M Decode`) over `Length` / `Depth` rows.
    runs = markdown_summaries(tmp_path, (
        "All appendix values are tokens per second.\n\n##### Q4_K_M Prefill\n\n"
        "| Length | mistral.rs UQFF q4 | mistral.rs speedup |\n|---:|---:|---:|\n| 512 | 7747.0 | 1.660x |\n\n"
        "##### Q4_K_M Decode\n\n"
        "| Depth | mistral.rs UQFF q4 | mistral.rs speedup |\n|---:|---:|---:|\n| 128 | 68.0 | 1.104x |\n"))
    assert [(run.metrics["mean_input_tokens"], run.metrics.get("input_tokens_per_second"), run.metrics.get(STREAM))
            for run in runs] == [(512, 7747.0, None), (128, None, 68.0)]


def test_one_prompt_read_ten_times_slower_on_one_engine_is_its_prefill(tmp_path):
    # `## Prompt T/s` by prompt length, two engines: each cell one prompt read at that rate, so its first token takes
    # prompt ÷ rate: 4096 / 605.0 = 6.77 s against 4096 / 6327.2 = 0.647 s, 10.5× (the rule's 5× and 2 s both met).
    path = write(tmp_path, "## Prompt T/s\n\n| Prompt tokens | mistral.rs BF16 | vLLM BF16 |\n| ---: | ---: | ---: |\n"
                           "| 4096 | 605.0 | 6327.2 |\n")
    (finding,) = [item for item in diagnose_files([path]).evidence if item.rule == "summary-same-prompt-slower-prefill"]
    assert finding.numbers["ttft_seconds_mean"] == pytest.approx(4096 / 605.0)
    assert finding.numbers["same_prompt_ttft_seconds"] == pytest.approx(4096 / 6327.2)


def test_a_window_with_nothing_running_read_or_generated_is_no_sign_of_health(tmp_path):
    # vLLM at start-up: one request waits, none runs, 0.0 tokens/s both ways. Nothing was served: no verdict of health.
    path = write(tmp_path, "INFO 03-26 04:37:05 [loggers.py:80] Avg prompt throughput: 0.0 tokens/s, Avg generation "
                           "throughput: 0.0 tokens/s, Running: 0 reqs, Waiting: 1 reqs, GPU KV cache usage: 0.0%, "
                           "Prefix cache hit rate: 0.0%\n")
    assert diagnose_files([path]).verdict == "insufficient-data"


def _served(rate: str, ttft_ms: float, tpot_ms: float, completed_per_s: float) -> str:
    return (f"qps {rate}:\n============ Serving Benchmark Result ============\nSuccessful requests:                     200\n"
            f"Request throughput (req/s):              {completed_per_s}\nOutput token throughput (tok/s):         "
            f"{completed_per_s * 218:.1f}\nMean TTFT (ms):                          {ttft_ms}\n"
            f"Mean TPOT (ms):                          {tpot_ms}\n==================================================\n")


def test_a_rate_sweeps_all_at_once_queue_does_not_outvote_its_served_rates(tmp_path):
    # vllm-ascend's suite: qps 1 and 4 served at ~0.1 s first tokens; qps inf sends all 200 at t=0 and its 3.4 s
    # first tokens are that test's queue by design. The served rates speak for the server.
    sweep = write(tmp_path, _served("1", 104.1, 38.78, 0.94) + _served("4", 115.6, 51.48, 2.76)
                  + _served("inf", 3394.37, 66.28, 4.85), "sweep.log")
    diagnosis = diagnose_files([sweep])
    assert diagnosis.verdict == "healthy"
    assert "summary-all-at-once" in rules(diagnosis) or any("all-at-once" in note for note in diagnosis.notes)
    # the all-at-once run alone is still read as the throughput test's queue
    alone = diagnose_files([write(tmp_path, _served("inf", 3394.37, 66.28, 4.85), "alone.log")])
    assert alone.verdict == "queueing"
