"""General rule changes made before the third blind round, from round 2's remaining misses
(tests/fixtures/blind2_logs/EXPECTED.md): a per-stream decode reading is weighed against the windows that state a
generation rate (SGLang prefill-batch lines state none), and a typical first token many times the fastest one at one
prompt length is queueing. Inputs are lines written here; the arithmetic is in each test."""

from __future__ import annotations

from pathlib import Path

import pytest

from inferledger.diagnose import diagnose_files
from inferledger.diagnose.parsers import bench_markdown, vllm_offline
from inferledger.diagnose.read import read_records
from inferledger.diagnose.records import Record
from inferledger.errors import LogFormatError


def _diagnose(tmp_path, text: str, name: str = "log.txt"):
    path = tmp_path / name
    path.write_text(text)
    return diagnose_files([path])


def _sglang_prefill(second: int, running: int) -> str:
    return (f"[2026-01-01 00:00:{second:02d} TP0] Prefill batch, #new-seq: 4, #new-token: 4096, #cached-token: 0, "
            f"token usage: 0.30, #running-req: {running}, #queue-req: 0, input throughput (token/s): 5000.00")


def _sglang_decode(second: int, running: int, generation: float) -> str:
    return (f"[2026-01-01 00:00:{second:02d} TP0] Decode batch, #running-req: {running}, #token: 9000, "
            f"token usage: 0.30, gen throughput (token/s): {generation:.2f}, #queue-req: 0")


def test_prefill_windows_do_not_dilute_a_slow_decode_window(tmp_path):
    # Four prefill-batch windows (no generation rate) and one decode window: 40 running at 120 tok/s in total is
    # 120 / 40 = 3 tok/s per stream, below the 5 tok/s any batch should reach. The one window that states a speed
    # says decode is slow: 1 of 1 such windows, not 1 of 5.
    lines = [_sglang_prefill(second, 8 * second) for second in range(1, 5)] + [_sglang_decode(5, 40, 120.0)]
    diagnosis = _diagnose(tmp_path, "\n".join(lines) + "\n")
    assert diagnosis.verdict == "decode-bound"
    item = next(item for item in diagnosis.evidence if item.rule == "windows-slow-streams")
    assert "1 of 1 windows" in item.text
    assert item.numbers["generation_per_request_mean"] == pytest.approx(3.0)


def test_fast_decode_windows_after_prefill_windows_stay_healthy(tmp_path):
    # The same prefill windows, then decode at 40 running × 30 tok/s = 1,200 tok/s: nothing slow.
    lines = [_sglang_prefill(second, 8 * second) for second in range(1, 5)] + [_sglang_decode(5, 40, 1200.0)]
    diagnosis = _diagnose(tmp_path, "\n".join(lines) + "\n")
    assert diagnosis.verdict == "healthy"


AIPERF_TABLE = """\
                                  NVIDIA AIPerf | LLM Metrics
┏━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━┳━━━━━━━━━━┳━━━━━━━━━━┳━━━━━━━━━━┳━━━━━━━━━━┳━━━━━━━━━━┓
┃                           Metric ┃      avg ┃      min ┃      max ┃      p99 ┃      p50 ┃
┡━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━╇━━━━━━━━━━╇━━━━━━━━━━╇━━━━━━━━━━╇━━━━━━━━━━╇━━━━━━━━━━┩
│         Time to First Token (ms) │   {ttft} │   100.00 │ 1,400.00 │ 1,390.00 │   {p50} │
│             Request Latency (ms) │ 2,600.00 │ 2,000.00 │ 3,100.00 │ 3,000.00 │ 2,600.00 │
│         Inter Token Latency (ms) │    15.00 │    12.00 │    20.00 │    19.50 │    15.00 │
│  Output Sequence Length (tokens) │   128.00 │   128.00 │   128.00 │   128.00 │   128.00 │
│   Input Sequence Length (tokens) │ 1,024.00 │ {isl_min} │ 1,024.00 │ 1,024.00 │ 1,024.00 │
"""


def test_typical_first_token_far_above_the_fastest_is_queueing(tmp_path):
    # 1,024-token prompts: the fastest first token is 100 ms, so one prompt's prefill takes at most 100 ms. The
    # median is 800 ms = 8× that (≥ 5×, and 700 ms ≥ 0.3 s more) while ITL spreads 20 / 12 = 1.7× (≤ 2×):
    # ~700 ms of the typical first token is waiting. Mean 750 ms is below the 1 s the spread rule needs.
    text = AIPERF_TABLE.format(ttft="  750.00", p50="  800.00", isl_min="1,024.00")
    diagnosis = _diagnose(tmp_path, text)
    assert diagnosis.verdict == "queueing"
    item = next(item for item in diagnosis.evidence if item.rule == "summary-ttft-over-fastest")
    assert item.numbers["ttft_seconds_typical"] == pytest.approx(0.8)
    assert item.numbers["ttft_seconds_fastest"] == pytest.approx(0.1)


def test_typical_first_token_near_the_fastest_is_not_queueing(tmp_path):
    # Median 400 ms = 4× the fastest: under the 5× the rule asks.
    text = AIPERF_TABLE.format(ttft="  380.00", p50="  400.00", isl_min="1,024.00")
    diagnosis = _diagnose(tmp_path, text)
    assert all(item.rule != "summary-ttft-over-fastest" for item in diagnosis.evidence)


def test_prompts_of_different_lengths_do_not_read_the_fastest_as_prefill(tmp_path):
    # Inputs from 100 to 1,024 tokens (10×): the fastest first token is the shortest prompt's, not a bound on the
    # typical one's prefill.
    text = AIPERF_TABLE.format(ttft="  750.00", p50="  800.00", isl_min="  100.00")
    diagnosis = _diagnose(tmp_path, text)
    assert all(item.rule != "summary-ttft-over-fastest" for item in diagnosis.evidence)


# -- vLLM offline inference bar (parsers/vllm_offline.py) ------------------------------------------------------------

FIXTURES = Path(__file__).parents[1] / "fixtures" / "logs"


def _summaries(text: str) -> list:
    return [item for item in vllm_offline.parse(enumerate(text.splitlines(), 1)) if isinstance(item, Record)]


def test_offline_bar_reads_the_run_totals():
    # vllm#5425: 1000 prompts in 00:10 at 49,992.62 input and 12,473.79 output tok/s; the rates are totals over the
    # elapsed time, so a request averages 12,473.79 × 10 / 1000 = 124.7 output and 499.9 input tokens.
    path = FIXTURES / "vllmoffline__tqdm-1000-prompts-pr-5425.txt"
    (record,) = _summaries(path.read_text())
    assert record.metrics["completed_requests"] == 1000
    assert record.metrics["duration_seconds"] == 10
    assert record.metrics["request_throughput_per_second"] == pytest.approx(97.45)
    assert record.metrics["mean_output_tokens"] == pytest.approx(124.7379)
    assert record.metrics["mean_input_tokens"] == pytest.approx(499.9262)
    assert diagnose_files([path]).verdict == "healthy"


def test_offline_bar_cut_mid_run_keeps_its_last_line_and_bounds_the_stream_rate():
    # vllm#20292 on a RISC-V CPU: the last bar line reads 225 of 1000 after 3:28:37 = 12,517 s at 29.06 s/it and
    # 2.30 output tok/s in total. Every prompt is in flight, so no stream beats 2.30 tok/s: a step of at least
    # 1 / 2.30 = 435 ms, over the fixed 100 ms cutoff.
    path = FIXTURES / "vllmoffline__tqdm-riscv-cpu-cut.txt"
    (record,) = _summaries(path.read_text())
    assert record.metrics["completed_requests"] == 225
    assert record.metrics["duration_seconds"] == 3 * 3600 + 28 * 60 + 37
    assert record.metrics["request_throughput_per_second"] == pytest.approx(1 / 29.06)
    assert "225 of 1000" in record.labels["cut"]
    diagnosis = diagnose_files([path])
    assert diagnosis.verdict == "decode-bound"
    item = next(item for item in diagnosis.evidence if item.rule == "summary-slow-tpot-no-hardware")
    assert item.numbers["tpot_seconds_mean"] == pytest.approx(1 / 2.30)


def test_two_offline_runs_in_one_file_are_two_summaries():
    text = ("Processed prompts: 100%|███| 4/4 [00:02<00:00,  2.00it/s, est. speed input: 100.00 toks/s, output: "
            "400.00 toks/s]\n"
            "Processed prompts:  50%|█  | 8/16 [00:04<00:04,  2.00it/s, est. speed input: 200.00 toks/s, output: "
            "800.00 toks/s]\n"
            "Processed prompts: 100%|███| 16/16 [00:08<00:00,  2.00it/s, est. speed input: 200.00 toks/s, output: "
            "800.00 toks/s]\n")
    records = _summaries(text)
    assert [record.metrics["completed_requests"] for record in records] == [4, 16]
    # Second run: 800 tok/s × 8 s / 16 prompts = 400 output tokens per prompt.
    assert records[1].metrics["mean_output_tokens"] == pytest.approx(400)


def test_old_generation_speed_bar():
    text = "Processed prompts: 100%|██████████| 1/1 [00:02<00:00,  2.09s/it, Generation Speed: 49.28 toks/s]\n"
    (record,) = _summaries(text)
    assert record.metrics["output_tokens_per_second"] == pytest.approx(49.28)
    assert record.metrics["request_throughput_per_second"] == pytest.approx(1 / 2.09)


# -- Markdown result tables (parsers/bench_markdown.py) --------------------------------------------------------------

SWEEP = """\
| Source | ISL | OSL | Concurrency | N Req | TTFT (ms) | TPOT (ms) | E2EL (ms) | Req Tput (RPS) |
|--------|-----|-----|-------------|-------|-----------|-----------|-----------|----------------|
| mytool | 512 | 256 |           1 |    10 |      60.0 |      20.0 |    5160.0 |          0.194 |
| mytool | 512 | 256 |          64 |   640 |    4000.0 |      25.0 |   10375.0 |          6.170 |
"""


def test_markdown_sweep_rows_are_runs(tmp_path):
    diagnosis = _diagnose(tmp_path, SWEEP)
    # Row 2: 512-token prompts at 6.17 req/s is 512 × 6.17 = 3,159 input tok/s, so one prompt needs at most
    # 512 / 3,159 = 162 ms of prefill; a 4.0 s mean TTFT is 24.7× that (≥ 5×): the requests waited.
    assert diagnosis.verdict == "queueing"
    item = next(item for item in diagnosis.evidence if item.rule == "summary-ttft-over-prompt-work")
    assert item.numbers["prompt_work_seconds"] == pytest.approx(512 / (512 * 6.170))
    assert item.lines == [4]
    # Row 1 (concurrency 1) reads as its own run: TTFT 60 ms, TPOT 20 ms.
    healthy = next(item for item in diagnosis.evidence if item.rule == "summary-healthy")
    assert healthy.numbers["ttft_seconds_mean"] == pytest.approx(0.060)
    assert healthy.numbers["seconds_per_token"] == pytest.approx(0.020)


def test_markdown_time_columns_need_a_unit(tmp_path):
    # "TTFT" and "Latency" without a unit could be ms or s: the table is not read as latencies.
    text = "| ISL | TTFT | Latency |\n|---|---|---|\n| 512 | 4000 | 9000 |\n"
    diagnosis = _diagnose(tmp_path, text)
    assert diagnosis.verdict == "insufficient-data"
    # the row of numbers under the TTFT header (line 3) is listed as not read, not guessed at
    assert [item["line_number"] for item in diagnosis.files[0]["unread_examples"]] == [3]
    # A bare time per output token settles it: 25 s a token is no served model's, so 25 is ms and TTFT 4000 is 4 s,
    # 160 tokens' time: a wait (tests/diagnose/test_blind99_on_fixes.py has the rule's cases).
    settled = _diagnose(tmp_path, "| ISL | TTFT | TPOT |\n|---|---|---|\n| 512 | 4000 | 25 |\n")
    assert settled.verdict == "queueing"


def test_markdown_cut_row_is_not_misread(tmp_path):
    cut = SWEEP.rstrip("\n").rsplit("|", 3)[0] + "\n"  # the last row loses its last cells
    diagnosis = _diagnose(tmp_path, cut)
    # The cut row keeps its cells before the last (perhaps cut) one: concurrency 64, 640 requests, TTFT 4.0 s (its
    # TPOT, the cell the cut may have shortened, is not read, nor are the cells after it). No input rate is left to
    # weigh the prompt's work, but 4000 / 60 = 66.7x the first token of concurrency 1 for 64x the requests in
    # flight (>= half of 64) is a wait (summary-ttft-grows-with-concurrency).
    assert diagnosis.verdict == "queueing"
    item = next(item for item in diagnosis.evidence if item.rule == "summary-ttft-grows-with-concurrency")
    assert item.numbers["ttft_seconds_high"] / item.numbers["ttft_seconds_low"] == pytest.approx(4000 / 60)
    path = tmp_path / "cut_rows.md"
    path.write_text(cut, encoding="utf-8")
    first, second = read_records(path)
    assert first.metrics["tpot_seconds_mean"] == pytest.approx(0.020)
    assert second.metrics == pytest.approx({"mean_input_tokens": 512, "mean_output_tokens": 256,
                                            "max_concurrency": 64, "completed_requests": 640,
                                            "ttft_seconds_mean": 4.0})


# -- one generated token (summary-one-token) -------------------------------------------------------------------------

def test_per_token_time_over_one_token_is_an_artefact(tmp_path):
    # A table whose runs generate one token: a TPOT of 20.9 ms equal to the TTFT is the first token's time.
    text = ("| OSL | TTFT (ms) | TPOT (ms) |\n|---|---|---|\n| 1 | 20.9 | 20.9 |\n")
    diagnosis = _diagnose(tmp_path, text)
    assert diagnosis.verdict == "measurement-artifact"
    item = next(item for item in diagnosis.evidence if item.rule == "summary-one-token")
    assert item.numbers["mean_output_tokens"] == 1


def test_rate_inf_with_a_concurrency_cap_is_a_latency_test(tmp_path):
    # vllm bench serve at rate inf but --max-concurrency 2 over 10 requests: a closed loop, so its TTFT is not queue
    # wait by construction. TTFT 3.0 s of an 8.0 s E2E is 37.5 % (≥ 25 % and ≥ 1 s): the prompt's work dominates.
    text = """============ Serving Benchmark Result ============
Traffic request rate:                    inf
Max request concurrency:                 2
Successful requests:                     10
Benchmark duration (s):                  40.00
Total input tokens:                      5120
Total generated tokens:                  10000
Request throughput (req/s):              0.25
Output token throughput (tok/s):         250.00
---------------Time to First Token----------------
Mean TTFT (ms):                          3000.00
-----Time per Output Token (excl. 1st token)------
Mean TPOT (ms):                          5.00
----------------End-to-End Latency----------------
Mean E2E Latency (ms):                   8000.00
==================================================
"""
    diagnosis = _diagnose(tmp_path, text)
    assert diagnosis.verdict == "prefill-bound"
    item = next(item for item in diagnosis.evidence if item.rule == "summary-ttft-share")
    assert item.numbers["ttft_seconds_mean"] / item.numbers["e2e_seconds_mean"] == pytest.approx(0.375)


# -- after blind round 3 (not blind): sanity of per-request parts -------------------------------------------------------

def test_prompt_slower_per_token_than_decode_is_an_artefact(tmp_path):
    # 20 prompt tokens in 8,000 ms is 400 ms per prompt token; 50 generated tokens in 5,000 ms is 100 ms each:
    # 400 / 100 = 4× (≥ 3×). Prefill reads the weights once for the whole prompt, so the prompt time holds
    # something else (a load, a warm-up).
    text = ("llama_print_timings: prompt eval time =    8000.00 ms /    20 tokens (  400.00 ms per token,     2.50 "
            "tokens per second)\n"
            "llama_print_timings:        eval time =    5000.00 ms /    50 runs   (  100.00 ms per token,    10.00 "
            "tokens per second)\n"
            "llama_print_timings:       total time =   13000.00 ms /    70 tokens\n")
    diagnosis = _diagnose(tmp_path, text)
    assert diagnosis.verdict == "measurement-artifact"
    assert any(item.rule == "requests-prompt-slower-than-decode" for item in diagnosis.evidence)


def test_prompt_faster_per_token_than_decode_is_not_an_artefact(tmp_path):
    # 200 prompt tokens in 2,000 ms = 10 ms each, against 100 ms per generated token: an ordinary request.
    text = ("llama_print_timings: prompt eval time =    2000.00 ms /   200 tokens (   10.00 ms per token,   100.00 "
            "tokens per second)\n"
            "llama_print_timings:        eval time =    5000.00 ms /    50 runs   (  100.00 ms per token,    10.00 "
            "tokens per second)\n")
    diagnosis = _diagnose(tmp_path, text)
    assert all(item.rule != "requests-prompt-slower-than-decode" for item in diagnosis.evidence)


def test_a_model_that_cannot_be_loaded_costs_the_comparison_not_the_reading(tmp_path):
    # The log is the input; --model only adds the hardware comparison. A model that cannot be resolved is a warning.
    text = ("INFO 01-01 00:00:05 metrics.py:449] Avg prompt throughput: 0.0 tokens/s, Avg generation throughput: "
            "40.0 tokens/s, Running: 1 reqs, Swapped: 0 reqs, Pending: 0 reqs, GPU KV cache usage: 1.0%, CPU KV cache "
            "usage: 0.0%.\n")
    path = tmp_path / "log.txt"
    path.write_text(text)
    diagnosis = diagnose_files([path], model=str(tmp_path / "missing" / "config.json"), gpu="h100")
    assert diagnosis.verdict == "healthy"
    assert len(diagnosis.warnings) == 1 and "without the hardware comparison" in diagnosis.warnings[0]
    assert diagnosis.to_dict()["warnings"] == diagnosis.warnings


# -- tables with one row per metric (after blind round 3, not blind) ------------------------------------------------

def test_metric_rows_with_run_columns_are_one_run_per_column(tmp_path):
    text = """| Metric | isl-100 avg | isl-2000 avg |
|---|---|---|
| Time to First Token (ms) | 30.00 | 400.00 |
| Inter Token Latency (ms) | 15.00 | 16.00 |
| Input Sequence Length (tokens) | 100.00 | 2,000.00 |
| Request Count (requests) | 64.00 | 64.00 |
"""
    records = list(bench_markdown.parse(enumerate(text.splitlines(), 1)))
    assert [record.metrics["ttft_seconds_mean"] for record in records] == pytest.approx([0.030, 0.400])
    assert [record.metrics["mean_input_tokens"] for record in records] == [100, 2000]
    assert records[1].labels["tool"] == "table column 'isl-2000 avg'"
    assert _diagnose(tmp_path, text).verdict == "healthy"


BOX = """╒══════════════╤═════════╤═════════════╤═════════════╤═════════════╤═════════════╤═════╕
│ Parameters   │ Stage   │ Average     │ Min         │ Median      │ P99         │  N  │
╞══════════════╪═════════╪═════════════╪═════════════╪═════════════╪═════════════╪═════╡
│ E2EL         │ total   │ 20000.0 ms  │ 15000.0 ms  │ 19000.0 ms  │ 30000.0 ms  │ 64  │
├──────────────┼─────────┼─────────────┼─────────────┼─────────────┼─────────────┼─────┤
│ TTFT         │ total   │ 9000.0 ms   │ 300.0 ms    │ 8000.0 ms   │ 20000.0 ms  │ 64  │
├──────────────┼─────────┼─────────────┼─────────────┼─────────────┼─────────────┼─────┤
│ TPOT         │ total   │ 20.0 ms     │ 18.0 ms     │ 20.0 ms     │ 23.0 ms     │ 64  │
"""


def test_box_table_with_statistic_columns_is_one_run(tmp_path):
    (record,) = bench_markdown.parse(enumerate(BOX.splitlines(), 1))
    # Units follow the numbers: 9000.0 ms = 9.0 s; the Stage and N columns name no statistic and are not read.
    assert record.metrics["ttft_seconds_mean"] == pytest.approx(9.0)
    assert record.metrics["ttft_seconds_min"] == pytest.approx(0.3)
    assert record.metrics["ttft_seconds_p99"] == pytest.approx(20.0)
    assert record.metrics["tpot_seconds_median"] == pytest.approx(0.020)
    # Median TTFT 8.0 s is 26.7× the fastest 0.3 s (≥ 5×) while TPOT spreads 23 / 18 = 1.3×: waiting.
    assert _diagnose(tmp_path, BOX).verdict == "queueing"


def test_box_table_cut_inside_a_row_keeps_the_complete_cells():
    cut = BOX.rstrip("\n").rsplit("│", 3)[0]  # the TPOT row ends after its Median cell, cut mid-way
    (record,) = bench_markdown.parse(enumerate(cut.splitlines(), 1))
    assert record.metrics["tpot_seconds_min"] == pytest.approx(0.018)
    assert "tpot_seconds_median" not in record.metrics  # the last, possibly cut, cell is not read


# -- text-generation-benchmark tables (parsers/tgi_benchmark.py) ----------------------------------------------------

def test_tgi_benchmark_latency_table_is_one_run_per_batch():
    from inferledger.diagnose.parsers import tgi_benchmark

    path = FIXTURES / "tgibenchmark__a100-prefill-latency-by-batch-pr-1243.txt"
    records = list(tgi_benchmark.parse(enumerate(path.read_text().splitlines(), 1)))
    assert [record.metrics["max_concurrency"] for record in records] == [100, 150, 200, 250, 300, 350]
    assert records[0].metrics["ttft_seconds_mean"] == pytest.approx(0.37077)
    assert records[-1].metrics["ttft_seconds_p99"] == pytest.approx(1.4642)


def test_tgi_benchmark_throughput_counts_sequences_not_tokens():
    from inferledger.diagnose.parsers import tgi_benchmark

    # TGI's benchmark prints batch ÷ latency as "tokens/secs" (text-generation-inference#1417): at batch 4,
    # 96.00 "tokens/secs" of prefill is 4 / 96 = 41.7 ms per prefill and 142.00 of decode is 4 / 142 = 28.2 ms per
    # token. A blank Step cell continues the step above; NaN cells are a step that did not run.
    text = """| Step    | Batch Size | Average            | Lowest             | Highest            |
|---------|------------|--------------------|--------------------|--------------------|
| Prefill | 1          | 24.00 tokens/secs  | 23.00 tokens/secs  | 25.00 tokens/secs  |
|         | 4          | 96.00 tokens/secs  | 95.00 tokens/secs  | 97.00 tokens/secs  |
| Decode  | 1          | 35.50 tokens/secs  | 35.00 tokens/secs  | 36.00 tokens/secs  |
|         | 4          | 142.00 tokens/secs | 141.00 tokens/secs | 143.00 tokens/secs |
|         | 8          | NaN tokens/secs    | NaN tokens/secs    | NaN tokens/secs    |
"""
    records = list(tgi_benchmark.parse(enumerate(text.splitlines(), 1)))
    assert [record.metrics["max_concurrency"] for record in records] == [1, 4]
    batch4 = records[1].metrics
    assert batch4["ttft_seconds_mean"] == pytest.approx(4 / 96)
    assert batch4["tpot_seconds_mean"] == pytest.approx(4 / 142)
    # The lowest rate is the longest time: 4 / 95 is the slowest prefill, 4 / 97 the fastest.
    assert batch4["ttft_seconds_max"] == pytest.approx(4 / 95)
    assert batch4["ttft_seconds_min"] == pytest.approx(4 / 97)
    assert batch4["output_tokens_per_second"] == pytest.approx(142)


# -- a vLLM stats line cut at the end of a paste (after blind round 3, not blind) -----------------------------------

V0_LINE = ("INFO 12-23 18:28:10 metrics.py:449] Avg prompt throughput: 0.0 tokens/s, Avg generation throughput: 45.7 "
           "tokens/s, Running: 1 reqs, Swapped: 0 reqs, Pending: 3 reqs, GPU KV cache usage: 3.1%, CPU KV cache usage: "
           "0.0%.")


def test_stats_line_cut_after_its_kv_field_is_read(tmp_path):
    # Cut after "CPU KV": every field up to the GPU KV usage is whole (3.1% ends in its %); 3 requests wait.
    cut = V0_LINE[: V0_LINE.index("CPU KV") + len("CPU KV")]
    diagnosis = _diagnose(tmp_path, cut + "\n")
    assert diagnosis.verdict == "queueing"
    assert diagnosis.files[0]["records"] == 1 and diagnosis.files[0]["skipped_lines"] == 0


def test_stats_line_cut_inside_its_kv_number_keeps_only_the_whole_fields(tmp_path):
    # Cut at "usage: 3": the 3 may be 3.1 or 31, so the KV usage is not read; the fields before it, each closed by its
    # unit, are.
    cut = V0_LINE[: V0_LINE.index("usage: 3") + len("usage: 3")]
    path = tmp_path / "cut.txt"
    path.write_text(cut + "\n")
    (record,) = read_records(path)
    assert "kv_cache_usage_fraction" not in record.metrics
    assert record.metrics["generation_tokens_per_second"] == float(V0_LINE.split("generation throughput: ")[1].split()[0])
    # Cut inside its first rate: nothing whole, reported as damaged.
    with pytest.raises(LogFormatError, match="1 damaged line"):
        _diagnose(tmp_path, V0_LINE[: V0_LINE.index(" tokens/s")] + "\n")


# -- windows that hold an arrival, and stalled windows (after blind round 3, not blind) -----------------------------

def _v0(second: int, prompt: float, generation: float, running: int, waiting: int = 0) -> str:
    return (f"INFO 01-01 00:00:{second:02d} metrics.py:449] Avg prompt throughput: {prompt:.1f} tokens/s, Avg "
            f"generation throughput: {generation:.1f} tokens/s, Running: {running} reqs, Swapped: 0 reqs, Pending: "
            f"{waiting} reqs, GPU KV cache usage: 1.0%, CPU KV cache usage: 0.0%.")


def test_a_lone_arrival_window_measures_no_speed(tmp_path):
    # One request read its prompt in this window (150 prompt tok/s) and produced 2 tokens/s averaged over the whole
    # interval, most of which passed before it came: not a stream's speed, and nothing else to judge.
    diagnosis = _diagnose(tmp_path, _v0(5, 150.0, 2.0, 1) + "\n")
    assert diagnosis.verdict == "insufficient-data"
    assert any(item.rule == "windows-no-speed" for item in diagnosis.evidence)


def test_the_window_after_an_idle_one_is_an_arrival(tmp_path):
    # Idle, then a window at 3 tok/s (the arrival: its interval began while idle), then two at 40 tok/s per stream.
    lines = [_v0(5, 0.0, 0.0, 0), _v0(10, 0.0, 3.0, 1), _v0(15, 0.0, 40.0, 1), _v0(20, 0.0, 41.0, 1)]
    diagnosis = _diagnose(tmp_path, "\n".join(lines) + "\n")
    assert diagnosis.verdict == "healthy"
    assert all(item.rule != "windows-slow-streams" for item in diagnosis.evidence)


def test_sglang_decode_line_after_an_idle_prefill_is_an_arrival(tmp_path):
    # SGLang's gen throughput spans the time since its last decode line: the first decode line after a prefill
    # admitted into an empty batch (#running-req: 0) reads 1.1 tok/s; the next reads 80.
    lines = ["[2026-01-01 00:00:01 TP0] Prefill batch. #new-seq: 1, #new-token: 100, #cached-token: 0, token usage: "
             "0.00, #running-req: 0, #queue-req: 0",
             _sglang_decode(2, 1, 1.1), _sglang_decode(3, 1, 80.0)]
    diagnosis = _diagnose(tmp_path, "\n".join(lines) + "\n")
    assert diagnosis.verdict == "healthy"


def test_requests_held_with_nothing_produced_are_stalled(tmp_path):
    # Four 10-s windows with one request running, no prompt read and no token generated: a hung engine. The first
    # may hold the request's arrival (an excerpt's opening window has no window before it), so three count.
    lines = [_v0(10 * n, 0.0, 0.0, 1) for n in range(1, 5)]
    diagnosis = _diagnose(tmp_path, "\n".join(lines) + "\n")
    assert diagnosis.verdict == "decode-bound"
    item = next(item for item in diagnosis.evidence if item.rule == "windows-stalled")
    assert item.numbers["stalled_windows"] == 3


def test_an_excerpt_opening_on_a_request_not_yet_begun(tmp_path):
    # One request, nothing produced in the first window (it came in just before the line), 28.9 tok/s in the next:
    # the opening window is its arrival, not a hang.
    lines = [_v0(10, 0.0, 0.0, 1), _v0(20, 0.0, 28.9, 1)]
    diagnosis = _diagnose(tmp_path, "\n".join(lines) + "\n")
    assert not any(item.rule == "windows-stalled" for item in diagnosis.evidence)


# -- after blind round 4 (not blind) ----------------------------------------------------------------------------------

def test_tgis_unquoted_spans_are_requests(tmp_path):
    # The vLLM TGIS adapter's span, unquoted: 100 tokens at 8.00 ms each, 16 prompt tokens.
    text = ("INFO 01-01 00:00:01 logs.py:43] generate_stream{input=[b'hi'] params=sampling { } "
            "tokenization_time=0.40ms queue_and_inference_time=801.00ms time_per_token=8.00ms total_time=801.40ms "
            "input_toks=16}: Streaming response generated 100 tokens before MAX_TOKENS, output 400 chars\n")
    diagnosis = _diagnose(tmp_path, text)
    assert diagnosis.verdict == "healthy"
    assert diagnosis.metrics["request"]["tpot_seconds"]["mean"] == pytest.approx(0.008)
    assert diagnosis.metrics["request"]["output_tokens"]["mean"] == 100
    assert diagnosis.metrics["request"]["input_tokens"]["mean"] == 16


def test_gpt_fast_line_and_mlx_benchmark_trials(tmp_path):
    from inferledger.diagnose.parsers import local_runners

    text = ("Timing with prompt_tokens=1024 and generation_tokens=100.\n"
            "Trial 1:  prompt_tps=2048.000, generation_tps=50.000, peak_memory=3.0\n"
            "Averages: prompt_tps=2048.000, generation_tps=50.000, peak_memory=3.0\n"
            "Time for inference 1: 2.50 sec total, 100 tokens, 40.00 tokens/sec, 25.00 ms/token\n")
    trial, gptfast = [item for item in local_runners.parse(enumerate(text.splitlines(), 1))]
    # 1024 prompt tokens at 2048 tok/s = 0.5 s of prefill; 100 at 50 tok/s = 2.0 s of decode, 20 ms a token.
    assert trial.metrics["prefill_seconds"] == pytest.approx(0.5)
    assert trial.metrics["decode_seconds"] == pytest.approx(2.0)
    assert trial.metrics["tpot_seconds"] == pytest.approx(0.02)
    assert gptfast.metrics == {"e2e_seconds": 2.5, "output_tokens": 100, "output_tokens_per_second_per_request": 40}


def _llama_timings(prompt_ms: float, prompt_tokens: int, eval_ms: float, runs: int) -> str:
    return (f"llama_print_timings: prompt eval time = {prompt_ms:10.2f} ms / {prompt_tokens:5d} tokens\n"
            f"llama_print_timings:        eval time = {eval_ms:10.2f} ms / {runs:5d} runs\n")


def test_a_long_prompt_read_at_a_healthy_rate_needs_two_thirds_of_the_time(tmp_path):
    # 2,048 tokens in 700 ms (2,926 tok/s) against 128 tokens in 640 ms (200 tok/s): read 14.6× faster per token than
    # the answer is written, so the 52 % share is a long prompt, not prefill-bound.
    diagnosis = _diagnose(tmp_path, _llama_timings(700.0, 2048, 640.0, 128))
    assert all(item.rule != "requests-prefill-share" for item in diagnosis.evidence)
    # The same rates over 8,192 tokens: 2,800 ms of prompt is 81 % of the request (≥ 2/3): prefill-bound.
    diagnosis = _diagnose(tmp_path, _llama_timings(2800.0, 8192, 640.0, 128))
    assert diagnosis.verdict == "prefill-bound"


def test_a_whole_call_time_bounds_the_decode_step(tmp_path):
    # 12 tokens with a 226-token context in 576.62 s: at least 576.62 / 238 = 2.42 s per generated token, since no
    # prompt token costs more than a generated one. 234 tokens with 1,088 of context in 43.51 s bound it only at
    # 43.51 / 1,322 = 33 ms: under the 100 ms cutoff, nothing to say.
    slow = "Output generated in 576.62 seconds (0.02 tokens/s, 12 tokens, context 226, seed 1)\n"
    diagnosis = _diagnose(tmp_path, slow)
    assert diagnosis.verdict == "decode-bound"
    item = next(item for item in diagnosis.evidence if item.rule == "requests-slow-tpot-no-hardware")
    assert item.numbers["tpot_seconds_lower_bound"] == pytest.approx(576.62 / 238)
    fine = "Output generated in 43.51 seconds (5.38 tokens/s, 234 tokens, context 1088, seed 1)\n"
    assert _diagnose(tmp_path, fine).verdict == "insufficient-data"


def test_an_all_at_once_run_with_more_in_flight_than_any_batch_is_queueing(tmp_path):
    # Rows pasted before the first section title are read. 250 req/s × 50 s mean latency = 12,500 requests in flight:
    # above the largest default running-batch cap (2,048), so most of each request's 50 s is waiting.
    text = ("Issue Rate (req/sec):   2.0000E+15\n"
            "===========================================================\n"
            "= PERFORMANCE OVERVIEW\n"
            "===========================================================\n"
            "Request Throughput (req/sec):                     250.0000\n"
            "Total Output Throughput (tokens/sec):             7000.0000\n"
            "Average request latency (ms):                     50000.0000\n")
    diagnosis = _diagnose(tmp_path, text)
    assert diagnosis.verdict == "queueing"
    item = next(item for item in diagnosis.evidence if item.rule == "summary-all-at-once")
    assert item.numbers["requests_in_flight"] == pytest.approx(250 * 50)
    # 1 req/s × 250 s = 250 in flight: within a batch, so only a note.
    calm = text.replace("250.0000\n", "1.0000\n").replace("50000.0000", "250000.0000")
    assert _diagnose(tmp_path, calm).verdict != "queueing"


def test_ollama_verbose_values_in_markdown_bold(tmp_path):
    # Pasted into an issue: 74 tokens in 5.657 s = 76.4 ms per token.
    text = "eval count:           74 token(s)\neval duration:        5.657106746s\neval rate:            **13.08 tokens/s**\n"
    diagnosis = _diagnose(tmp_path, text)
    assert diagnosis.files[0]["skipped_lines"] == 0
    assert diagnosis.metrics["request"]["generation_tokens_per_second"]["mean"] == pytest.approx(13.08)


def test_one_token_runs_set_the_per_token_time_aside_but_keep_the_queue(tmp_path):
    # 768 requests at once, one output token each: TTFT = E2E = 25.7 s. The ITL of 0.00 ms is no measurement, but the
    # all-at-once queue read from the TTFT stands.
    text = """============ Serving Benchmark Result ============
Traffic request rate:                    inf
Successful requests:                     768
Benchmark duration (s):                  43.81
Total input tokens:                      784912
Total generated tokens:                  768
Request throughput (req/s):              17.53
Output token throughput (tok/s):         17.53
----------------End-to-End Latency----------------
Mean E2E Latency (ms):                   25747.35
---------------Time to First Token----------------
Mean TTFT (ms):                          25747.35
---------------Inter-Token Latency----------------
Mean ITL (ms):                           0.00
==================================================
"""
    diagnosis = _diagnose(tmp_path, text)
    assert diagnosis.verdict == "queueing"
    # 768 tokens over 768 requests, an ITL of 0: set aside with a note (no decode step was timed), not an artefact
    assert any("per-token time of 0" in note for note in diagnosis.notes)
