"""Blind rounds 359 on: the general fixes of the nineteenth session. Expected figures are worked out here."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from blind_helpers import markdown_summaries

from inferledger.diagnose import diagnose_files
from inferledger.diagnose.parsers import (
    bench_clients,
    bench_markdown,
    generic_phrases,
    llamacpp,
    local_runners,
    pandas_describe,
)
from inferledger.diagnose.read import LogFile
from inferledger.diagnose.records import Record

STREAM = "output_tokens_per_second_per_user_mean"
FIXTURES = Path(__file__).resolve().parent.parent / "fixtures"


_summaries = markdown_summaries


def test_a_rate_named_by_its_model_beside_the_context_is_one_streams(tmp_path):
    # A blog's ollama table on an RX 9070 XT: decode speed as the context grows, the rate's header naming the model.
    # The context column is the setting the rows vary, not a measure beside the rate, so the rate is one stream's.
    text = ("| Context | qwen3:8b tok/s | Slowdown |\n|---|---|---|\n| 11 tokens | 83.6 | baseline |\n"
            "| 16,384 tokens | 62.8 | -24.9% |\n")
    rates = [record.metrics[STREAM] for record in _summaries(tmp_path, text)]
    assert rates == [83.6, 62.8]


def test_a_named_rate_beside_a_concurrency_stays_unread_as_one_stream(tmp_path):
    # The same header shape beside a concurrency column: `Baseline (tok/s)` may be the run's total, so no per-stream
    # rate is read from it.
    text = ("| ISL/OSL | Conc | Baseline (tok/s) | Optimized (tok/s) |\n|---|---|---|---|\n"
            "| 1k/1k | 4 | 399.90 | 417.60 |\n| 1k/1k | 64 | 2614.64 | 2654.50 |\n")
    assert not any(STREAM in record.metrics for record in _summaries(tmp_path, text))


# A figure no run can print: text-generation-webui's early llama.cpp loader (oobabooga/textgen#685) wrote -10 tokens
# at -0.11 tokens/s; lemonade's bench wrote `TPS=1000000.0` on every run, 1 / 1,000,000 s = 1 µs a token, under the
# 10 µs (100,000 tok/s) no decode step of any transformer reaches. Each is an artefact; the same line with sound
# figures is not.
@pytest.mark.parametrize("rule, broken, sound", [
    ("requests-negative-figure", "Output generated in 87.86 seconds (-0.11 tokens/s, -10 tokens)\n",
     "Output generated in 5.50 seconds (36.39 tokens/s, 200 tokens, context 7, seed 1413621777)\n"),
    ("requests-impossible-generation-rate",
     "    Run 1/3... TTFT=1745.3ms TPS=1000000.0\n    Run 2/3... TTFT=1773.5ms TPS=1000000.0\n",
     "    Run 1/3... TTFT=1745.3ms TPS=95.0\n    Run 2/3... TTFT=1773.5ms TPS=96.0\n"),
])
def test_an_impossible_figure_is_a_broken_counter(tmp_path, rule, broken, sound):
    path = tmp_path / "run.txt"
    path.write_text(broken)
    diagnosis = diagnose_files([path])
    assert diagnosis.verdict == "measurement-artifact"
    assert rule in {item.rule for item in diagnosis.evidence}
    path.write_text(sound)
    assert rule not in {item.rule for item in diagnose_files([path]).evidence}


def test_a_statistic_parted_from_its_unit_by_a_comma_is_kept(tmp_path):
    # ATOM's PR table (ROCm/ATOM#2238): `ITL P50, ms` and `ITL P90, ms` are two statistics, not two means, the
    # second overwriting the first.
    text = ("| Metric | Baseline |\n|---|---:|\n| ITL P50, ms | 87.73 |\n| ITL P90, ms | 113.80 |\n"
            "| TTFT P90, s | 4.02 |\n")
    (record,) = _summaries(tmp_path, text)
    assert record.metrics["itl_seconds_median"] == pytest.approx(87.73 / 1000)
    assert record.metrics["itl_seconds_p90"] == pytest.approx(113.80 / 1000)
    assert record.metrics["ttft_seconds_p90"] == pytest.approx(4.02)
    assert "itl_seconds_mean" not in record.metrics


def test_a_rate_with_its_change_in_brackets_is_read(tmp_path):
    # vllm#48035's table: `**98** (−28%)` is 98 tok/s and its change from the row above; a cell that is a change
    # alone (`-39%`) stays unread as a rate.
    text = ("| Config | Mean decode tok/s |\n|---|---|\n| v0.19.1 | **136** |\n| v0.24.0 | **98** (−28%) |\n"
            "| v0.24.0 FP8 | **80** (−41% vs v0.19.1 FP16, −18% vs v0.24.0 FP16) |\n| diff | -39% |\n")
    rates = [record.metrics.get(STREAM) for record in _summaries(tmp_path, text)]
    assert rates == [136.0, 98.0, 80.0]


def test_a_tail_first_token_far_past_the_tail_step_is_a_queue(tmp_path):
    # llm-d's autoscaling table (llm-d/llm-d-autoscaling#1404) states only P99s: a first token 526,493 ms late
    # against 74.80 ms steps is 526.493 / 0.0748 ≈ 7,039 steps, far past the hundred a long prompt could explain.
    path = tmp_path / "autoscale.md"
    path.write_text("| Metric | Run 1 |\n|--------|------|\n| P99 TTFT (ms) | 526,493 |\n"
                    "| P99 ITL (ms/token) | 74.80 |\n| Error count | 0 |\n")
    diagnosis = diagnose_files([path])
    assert diagnosis.verdict == "queueing"
    (finding,) = [item for item in diagnosis.evidence if item.rule == "summary-ttft-over-tpot"]
    assert finding.numbers["ttft_seconds_p99"] == pytest.approx(526.493)
    # 3 s against 50 ms steps is 60 steps: a long prompt may take that, no queue is read.
    path.write_text("| Metric | Run 1 |\n|--------|------|\n| P99 TTFT (ms) | 3,000 |\n| P99 ITL (ms/token) | 50 |\n")
    assert "summary-ttft-over-tpot" not in {item.rule for item in diagnose_files([path]).evidence}


LLAMA_BENCH_JSON = FIXTURES / "found_logs" / "llamacpp__llama-bench-json-readme-rtx4080-qwen25-7b.txt"


def _bench_records(path) -> list:
    return [item for item in bench_clients.parse(LogFile.open(path).lines()) if isinstance(item, Record)]


def test_llama_bench_json_reads_as_its_table_rows():
    # llama-bench's README, `-o json`: pp512 at 7100.002165 ± 140.341520 t/s and tg128 at 118.881588 ± 1.041811,
    # the file 4,677,120,000 bytes and 7,615,616,512 parameters.
    prompt, generation = _bench_records(LLAMA_BENCH_JSON)
    assert prompt.metrics["prompt_tokens_per_second"] == pytest.approx(7100.002165)
    assert prompt.metrics["prompt_tokens_per_second_std"] == pytest.approx(140.341520)
    assert generation.metrics["generation_tokens_per_second"] == pytest.approx(118.881588)
    assert generation.metrics["weights_bytes"] == pytest.approx(4_677_120_000, rel=1e-9)
    assert generation.metrics["parameters"] == pytest.approx(7_615_616_512, rel=1e-9)
    assert (prompt.labels["test"], generation.labels["test"]) == ("pp512", "tg128")
    # Judged on the card: 4,677,120,000 B × 118.881588 tok/s = 556.0 GB/s of the RTX 4080's 716.8 GB/s (78 %).
    diagnosis = diagnose_files([LLAMA_BENCH_JSON], gpu="rtx-4080")
    assert diagnosis.verdict == "healthy"
    assert any("556.0 GB/s" in item.text for item in diagnosis.evidence)


def test_llama_bench_jsonl_reads_as_its_json(tmp_path):
    # `-o jsonl` prints the same objects, one a line.
    objects = json.loads(LLAMA_BENCH_JSON.read_text().split("\n", 1)[1])
    path = tmp_path / "bench.jsonl"
    path.write_text("".join(json.dumps(item) + "\n" for item in objects))
    assert [record.metrics for record in _bench_records(path)] == \
        [record.metrics for record in _bench_records(LLAMA_BENCH_JSON)]


def test_a_result_file_keyed_by_llama_bench_tests_is_read():
    # normiebench's submitted result (brand-o/normiebench#39): `"pp512": 1193.53, "tg128": 44.84` under its run.
    path = FIXTURES / "blind361_logs" / "llamacpp__normiebench-razer-blade15-rtx2070-maxq-llama31-8b-q4km-json.txt"
    rates = {record.labels["test"]: record.metrics for record in _bench_records(path)}
    assert rates["pp512"]["prompt_tokens_per_second"] == 1193.53
    assert rates["tg128"]["generation_tokens_per_second"] == 44.84


def test_llama2c_achieved_rate_is_a_step_rate(tmp_path):
    # llama2.c's run (karpathy/llama2.c#78): `achieved tok/s: 0.376868`, a forward pass every 1 / 0.376868 = 2.653 s;
    # llama2.cu's line also states its tokens and seconds (165 in 4.897 s).
    path = tmp_path / "run.txt"
    path.write_text("achieved tok/s: 0.376868\nachieved tok/s: 33.694098. Tokens: 165, seconds: 4.897\n")
    slow, fast = [item for item in local_runners.parse(LogFile.open(path).lines()) if isinstance(item, Record)]
    assert slow.metrics["tpot_seconds"] == pytest.approx(2.6534, rel=1e-4)
    assert fast.metrics["generation_tokens_per_second"] == 33.694098
    assert (fast.metrics["output_tokens"], fast.metrics["decode_seconds"]) == (165, 4.897)


def test_the_first_llama_cpps_mean_per_token_is_a_step_when_the_prompt_is_short(tmp_path):
    # ggml-org/llama.cpp 2023 on a Lichee Pi 4A: a 2-token prompt, `predict time = 105365.27 ms / 6197.96 ms per
    # token`, 105365.27 / 6197.96 = 17 evaluations of which 15 generated: the mean per token is a step (6.198 s).
    path = tmp_path / "main.txt"
    path.write_text("main: number of tokens in prompt = 2\nmain:     load time =    91.25 ms\n"
                    "main:  predict time = 105365.27 ms / 6197.96 ms per token\nmain:    total time = 129801.62 ms\n")
    (record,) = [item for item in llamacpp.parse(LogFile.open(path).lines()) if isinstance(item, Record)]
    assert record.metrics["tpot_seconds"] == pytest.approx(6.19796)
    assert record.metrics["output_tokens"] == 15
    # A long prompt (400 of 500 evaluations) read in batches: the mean is no step's time.
    path.write_text("main: number of tokens in prompt = 400\nmain:  predict time = 10000.00 ms / 20.00 ms per token\n")
    (record,) = [item for item in llamacpp.parse(LogFile.open(path).lines()) if isinstance(item, Record)]
    assert "tpot_seconds" not in record.metrics


def test_a_pandas_groupby_agg_table_is_a_run_a_row(tmp_path):
    # MariTalk Local's benchmark.py (maritaca-ai/maritalk-api#52): `groupby("concurrency").agg(["mean", "median",
    # "std"])` of each request's generated and total tokens per second; a run a concurrency, its mean generation rate
    # one stream's (total_tps, prompt tokens included, is no decode rate and is not read).
    path = tmp_path / "agg.txt"
    path.write_text("            generated_tps             total_tps            \n"
                    "                     mean median  std      mean median  std\n"
                    "concurrency                                                \n"
                    "1                    42.2   42.2  0.3     167.1  167.2  0.7\n"
                    "8                     7.1    7.2  0.6      30.8   30.9  0.6\n")
    assert pandas_describe.sniff(path.read_text()) > 0
    runs = [item.metrics for item in pandas_describe.parse(LogFile.open(path).lines())]
    assert runs == [{STREAM: 42.2, "max_concurrency": 1.0}, {STREAM: 7.1, "max_concurrency": 8.0}]


def test_a_rate_cell_with_its_bandwidth_after_it_is_a_streams_rate(tmp_path):
    # calm's README: `61 tok/s (923 GB/s)` under `Performance (first 32)`, the rate and the bandwidth it reached; a
    # cell whose note is words (`17.6 t/s (no gain from 64 to 96 cores)`) is not read as a rate this way.
    text = ("| Model (context) | Performance (first 32) | Performance (last 32) |\n| --- | --- | --- |\n"
            "| Llama3 8B (4096), fp16 | 61 tok/s (923 GB/s) | 59 tok/s (919 GB/s) |\n"
            "| Llama3 8B (4096), fp8 | 120 tok/s (903 GB/s) | 110 tok/s (889 GB/s) |\n")
    assert [record.metrics.get(STREAM) for record in _summaries(tmp_path, text)] == [61.0, 59.0, 120.0, 110.0]
    text = "| Test | Result |\n|---|---|\n| llama-bench pp512, t=96 | 17.6 t/s (no gain from 64 to 96 cores) |\n"
    assert not any(STREAM in record.metrics for record in _summaries(tmp_path, text))


def test_a_rate_named_with_an_approximate_length_is_a_streams_rate(tmp_path):
    # yalm's README: `Avg. throughput (~120 tokens) tok/s`, an engine a row, one stream each.
    text = ("| Engine | Avg. throughput (~120 tokens) tok/s |\n| --- | --- |\n| llama.cpp, GPU | 61.0 |\n"
            "| calm, GPU | 66.0 |\n")
    assert [record.metrics.get(STREAM) for record in _summaries(tmp_path, text)] == [61.0, 66.0]


def test_a_test_column_of_cases_leaves_the_rates_one_streams(tmp_path):
    # A vLLM report on a Ryzen AI Max+ 395: `Test` names the prompt's case (`Short (100)`), not llama-bench's pp/tg;
    # `Time/Token (ms)` is the time per output token, 162.03 ms beside 1000 / 6.17 = 162.07 ms of the rate.
    text = ("| Test | Tokens | Time (s) | Tok/s | Time/Token (ms) |\n|------|--------|----------|-------|-----|\n"
            "| Short (100) | 100 | 16.20 | **6.17** | 162.03 |\n| Medium (300) | 300 | 46.75 | **6.42** | 155.83 |\n")
    first, second = _summaries(tmp_path, text)
    assert first.metrics["tpot_seconds_mean"] == pytest.approx(0.16203)
    assert second.metrics[STREAM] == 6.42
    # llama-bench's `test` column (pp512, tg128) stays the llama.cpp reader's
    text = "| model | test | t/s |\n|---|---|---|\n| llama 7B Q4_0 | tg128 | 131.42 |\n"
    assert not any(STREAM in record.metrics for record in _summaries(tmp_path, text))


def test_a_sweep_split_into_a_table_a_measure_is_joined_by_its_setting(tmp_path):
    # A Dynamo sweep report (DO-Solutions): `Concurrency | TPOT p50 | TPOT p95`, then `Concurrency | TTFT p50 | TTFT
    # p95` over the same concurrencies: a run is a row of both, its TTFT and TPOT read together.
    text = ("| Concurrency | TPOT p50 | TPOT p95 |\n|:---:|:---:|:---:|\n| 50 | 44ms | 46ms |\n| 90 | 67ms | 83ms |\n\n"
            "| Concurrency | TTFT p50 | TTFT p95 |\n|:---:|:---:|:---:|\n| 50 | 174ms | 210ms |\n| 90 | 231ms | 5815ms |\n")
    runs = [record.metrics for record in _summaries(tmp_path, text)]
    assert len(runs) == 2
    assert runs[1]["max_concurrency"] == 90
    assert runs[1]["tpot_seconds_median"] == pytest.approx(0.067)
    assert runs[1]["ttft_seconds_p95"] == pytest.approx(5.815)
    # tables over other settings' values are separate runs
    other = text.replace("| 90 | 231ms", "| 100 | 231ms")
    assert len(_summaries(tmp_path, other)) == 4


def test_a_concurrency_a_line_above_the_table_states_is_its_runs(tmp_path):
    # vllm#38479's reproduction: `1500 prompts at 80 concurrency` above a table of three configurations: each run
    # held 80 requests at once (a table's own concurrency column would outrank the line).
    text = ("Same harness (`vllm bench serve`, random 512→128, 1500 prompts at 80 concurrency):\n\n"
            "| Metric | Baseline | TQ |\n|---|---:|---:|\n| Mean TPOT (ms) | 10.17 | 34.96 |\n"
            "| Mean TTFT (ms) | 596.97 | 752.38 |\n")
    assert [record.metrics["max_concurrency"] for record in _summaries(tmp_path, text)] == [80, 80]
    assert bench_markdown._stated_concurrency("with 64 concurrent requests") == 64
    assert bench_markdown._stated_concurrency("vllm bench serve --max-concurrency 32 --num-prompts 320") == 32
    assert bench_markdown._stated_concurrency("concurrency is what matters here") is None


def test_llama_cpp_yaml_log_timings_are_a_request(tmp_path):
    # llama.cpp's CLI YAML log (--logdir, 2023-24), its timings block: 227 prompt tokens in 73,317,136 µs, 205 tokens
    # after the first in 3,515,782 µs: 3.515782 / 205 = 17.15 ms a token, the block's own `mst_eval: 17.15`.
    path = tmp_path / "run.yml"
    path.write_text("mst_eval: 17.15  # ms / token during generation\nmst_p_eval: 322.98  # ms / token during prompt "
                    "processing\nn_eval: 205  # number of tokens generated (excluding the first one)\nn_p_eval: 227  # "
                    "number of tokens processed in batches at the beginning\nt_eval_us: 3515782  # total microseconds "
                    "spent generating tokens\nt_load_us: 4173895  # total microseconds spent loading the model\n"
                    "t_p_eval_us: 73317136  # total microseconds spent prompt processing\nts_eval: 58.31  # tokens / "
                    "second during generation\nts_p_eval: 3.10  # tokens / second during prompt processing\n")
    assert llamacpp.sniff(path.read_text()) > 0
    (record,) = [item for item in llamacpp.parse(LogFile.open(path).lines()) if isinstance(item, Record)]
    assert record.metrics["input_tokens"] == 227 and record.metrics["output_tokens"] == 205
    assert record.metrics["prefill_seconds"] == pytest.approx(73.317136)
    assert record.metrics["tpot_seconds"] == pytest.approx(0.01715, abs=5e-6)
    assert record.labels["variant"] == "yaml-log"


def test_a_tokenizers_time_per_token_is_no_decode_step():
    # tt-inference-server's C++ server (tenstorrent/tt-inference-server): `tokenizer encode: 131 tokens, 2.816332 ms
    # total, 21.4987175573 us/token` times the text's encoding on the host, not a generated token.
    line = ("20260222 20:13:25.290471 UTC 6337 DEBUG [chat_completions] tokenizer encode: 131 tokens, 2.816332 ms "
            "total, 21.4987175573 us/token - llm_controller.cpp:180")
    assert "tpot_seconds" not in generic_phrases.line_metrics(line)
    # a tokenizer named in brackets qualifies the figure beside it
    assert generic_phrases.line_metrics("TTFT (including tokenization): 120 ms")["ttft_seconds"] == pytest.approx(0.12)


def test_a_llama_bench_table_copied_without_outer_bars_is_read(tmp_path):
    # GitHub's rendered table copied as text (ggml-org/llama.cpp, an M2 Air's llama-bench): no outer bars, `-- | --`
    # its rule; each row read as llama-bench's, the file 3.83 GiB = 3.83 × 2^30 bytes.
    path = tmp_path / "bench.txt"
    path.write_text("model | size | params | backend | ngl | test | t/s\n-- | -- | -- | -- | -- | -- | --\n"
                    "llama 7B Q4_0 | 3.83 GiB | 7.24 B | Metal | 99 | pp 128 | 144.47 ± 0.22\n"
                    "llama 7B Q4_0 | 3.83 GiB | 7.24 B | Metal | 99 | tg 128 | 20.06 ± 0.66\n")
    prompt, generation = [item for item in llamacpp.parse(LogFile.open(path).lines()) if isinstance(item, Record)]
    assert prompt.metrics["prompt_tokens_per_second"] == 144.47
    assert generation.metrics["generation_tokens_per_second"] == 20.06
    assert generation.metrics["weights_bytes"] == pytest.approx(3.83 * 2**30)
