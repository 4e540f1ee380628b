"""Blind rounds 44-98 (tests/fixtures/blind44_logs .. blind98_logs), the reading fixes after their blind runs.
Expected figures are the excerpts' own numbers or arithmetic written out here."""

from __future__ import annotations

import pytest
from blind_helpers import FIXTURES
from blind_helpers import rules as _rules
from blind_helpers import write as _write

from inferledger.diagnose import diagnose_files
from inferledger.diagnose.read import read_records
from inferledger.diagnose.records import Record
from inferledger.errors import LogFormatError

# -- Little's law: how many requests a run held --------------------------------------------------------------------

def test_a_burst_run_is_not_judged_against_one_streams_decode(monkeypatch):
    # rate=inf, 94.91 req/s with a 2.905 s mean TTFT: at least 94.91 × 2.905 = 276 requests in flight, so its 5.45 ms
    # TPOT is a batch's; against the batch-1 estimate it read as decode 2.2× too slow.
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    path = FIXTURES / "blind45_logs" / ".." / "blind46_logs" / "vllm__kvcached-h100-layout-ab-bench-serve-rate-inf-and-16.txt"
    diagnosis = diagnose_files([path], model="Qwen/Qwen3-0.6B", gpu="h100-sxm")
    assert "hardware-decode-below-realistic" not in _rules(diagnosis)
    assert diagnosis.verdict == "queueing"
    assert any("~276 requests at once" in line for line in diagnosis.roofline["lines"])


def test_an_unstated_batch_is_judged_against_the_fullest_batch(tmp_path, monkeypatch):
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    # No concurrency, no rate: 25 ms a token could be any batch's, so it is not slow ...
    fine = _write(tmp_path, "Mean TPOT (ms): 25.0\nMean TTFT (ms): 300.0\nOutput token throughput (tok/s): 20.0\n")
    diagnosis = diagnose_files([fine], model="Qwen/Qwen3-0.6B", gpu="h100-sxm")
    assert "hardware-decode-below-realistic" not in _rules(diagnosis)
    # ... but 5 s a token is slower than a 0.6B model's step even at the most requests an H100's KV memory holds,
    # with an 8,192-token prefill chunk in every step. (0.3 tok/s × 5 s = 1.5 streams: neither one stream, which
    # one_stream_by_littles_law would take as batch 1, nor the two that streams_by_littles_law counts as a batch.)
    slow = _write(tmp_path, "Mean TPOT (ms): 5000.0\nMean TTFT (ms): 300.0\nOutput token throughput (tok/s): 0.3\n",
                  "slow.txt")
    diagnosis = diagnose_files([slow], model="Qwen/Qwen3-0.6B", gpu="h100-sxm")
    (finding,) = [item for item in diagnosis.evidence if item.rule == "hardware-decode-below-realistic"]
    assert "requests its KV memory holds" in finding.text


def test_output_rate_times_tpot_is_the_batch(tmp_path, monkeypatch):
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    # 1,600 output tok/s at 20 ms a token: 1600 × 0.020 = 32 streams decoding at once.
    path = _write(tmp_path, "Mean TPOT (ms): 20.0\nMean TTFT (ms): 150.0\nOutput token throughput (tok/s): 1600.0\n")
    diagnosis = diagnose_files([path], model="Qwen/Qwen3-0.6B", gpu="h100-sxm")
    assert diagnosis.roofline["batch"] == 32


# -- llama.cpp's benches -------------------------------------------------------------------------------------------

def test_a_sweep_bench_row_is_one_stream_judged_on_its_own_generation_rate():
    # One sequence, phases timed apart: 7,168 prompt tokens at 255.56 t/s, then 5.43 t/s of generation. The prompt
    # does not dilute a rate timed on its own; 5.43 tok/s is under the fixed cutoff of 10.
    diagnosis = diagnose_files([FIXTURES / "blind45_logs" / "ikllama__sweep-bench-tg-drop-7168-prompt-branch-vs-main.txt"])
    assert diagnosis.verdict == "decode-bound"
    assert "windows-slow-streams" in _rules(diagnosis)
    assert "windows-prefill-heavy" not in _rules(diagnosis)


def test_a_tab_separated_sweep_bench_table_is_read():
    records = read_records(FIXTURES / "blind45_logs" / "ikllama__sweep-bench-tg-drop-7168-prompt-branch-vs-main.txt")
    assert [record.metrics["generation_tokens_per_second"] for record in records] == [5.43, 4.32]
    assert records[1].metrics["decode_seconds"] == 414.487


def test_a_batched_bench_row_of_several_sequences_is_no_streams_speed(tmp_path):
    # B = 8 sequences at 40 t/s in all: 5 t/s each is a batch's share, not a slow stream.
    path = _write(tmp_path, "|    PP |     TG |    B |   N_KV |   T_PP s | S_PP t/s |   T_TG s | S_TG t/s |      T s |    S t/s |\n"
                            "|-------|--------|------|--------|----------|----------|----------|----------|----------|----------|\n"
                            "|   128 |    128 |    8 |   2048 |    0.500 |  2048.00 |   25.600 |    40.00 |   26.100 |    78.47 |\n")
    diagnosis = diagnose_files([path])
    assert "windows-slow-streams" not in _rules(diagnosis)


def test_a_bench_slowing_faster_than_its_context_grows_is_no_measure_of_the_context():
    # pp512: 179.48 t/s at depth 5,000, 26.75 at 10,000 (the poster's **bold** cell): 6.7× slower over a context 2×
    # longer, past 1.5 × 2 = 3×.
    path = FIXTURES / "blind45_logs" / "llamabench__vulkan-r9-hawaii-ministral-3b-depth-10000.txt"
    records = [record for record in read_records(path) if record.kind != "capacity"]  # the command line's model file
    assert [(r.metrics.get("prompt_tokens_per_second"), r.metrics["context_depth_tokens"]) for r in records][0] == \
        (26.75, 10000.0)
    diagnosis = diagnose_files([path])
    assert diagnosis.verdict == "measurement-artifact"
    (finding,) = [item for item in diagnosis.evidence if item.rule == "windows-slowdown-beyond-context"]
    assert finding.numbers["slowdown_over_depth_ratio"] == pytest.approx((179.48 / 26.75) / (10000 / 5000))


def test_a_slowdown_the_context_explains_is_left_alone(tmp_path):
    # tg128: 50 t/s at depth 4,096, 40 at 8,192: 1.25× slower over 2× the context, within the bound.
    rows = "".join(f"| llama 8B Q4_0 | 4.33 GiB | 8.03 B | CUDA | 99 | {test} | {rate} ± 0.10 |\n"
                   for test, rate in (("tg128 @ d4096", 50.0), ("tg128 @ d8192", 40.0)))
    path = _write(tmp_path, "| model | size | params | backend | ngl | test | t/s |\n| --- | ---: | ---: | --- | --: | ---: | ---: |\n"
                  + rows)
    assert "windows-slowdown-beyond-context" not in _rules(diagnose_files([path]))


def test_served_requests_slower_than_the_same_logs_bench():
    # The server's request: 23.22 t/s; the sweep-bench beside it, slowest row 29.13 t/s (at N_KV 4,096):
    # 23.22 / 29.13 = 0.80, under 0.85.
    diagnosis = diagnose_files([FIXTURES / "blind45_logs" / "ikllama__server-timings-vs-sweep-bench-1024-prompt.txt"])
    assert diagnosis.verdict == "decode-bound"
    (finding,) = [item for item in diagnosis.evidence if item.rule == "requests-decode-below-bench"]
    assert finding.numbers["bench_generation_tokens_per_second"] == pytest.approx(29.13)


def test_a_request_as_fast_as_the_bench_is_not_flagged(tmp_path):
    text = (FIXTURES / "blind45_logs" / "ikllama__server-timings-vs-sweep-bench-1024-prompt.txt").read_text()
    # the request at 28.0 t/s (35.71 ms a token): 28.0 / 29.13 = 0.96 of the bench
    text = text.replace("(   43.06 ms per token,    23.22 tokens per second)", "(   35.71 ms per token,    28.00 tokens per second)")
    text = text.replace("eval time =   10721.79 ms", "eval time =    8892.86 ms")
    assert "requests-decode-below-bench" not in _rules(diagnose_files([_write(tmp_path, text)]))


# -- units a line does not print ----------------------------------------------------------------------------------

def test_unitless_latencies_take_the_unit_littles_law_gives():
    # Concurrency 1 at 3.9196 req/s: each request takes 1 / 3.9196 = 0.255 s; Total Latency 236.95 is milliseconds.
    (record,) = read_records(FIXTURES / "blind45_logs" / "fwbench__fireworks-llama-v3p1-8b-concurrency-1-short-outputs.txt")
    assert record.metrics["ttft_seconds_mean"] == pytest.approx(0.21038031)
    assert record.metrics["e2e_seconds_mean"] == pytest.approx(0.23694919)
    assert diagnose_files([FIXTURES / "blind45_logs" / "fwbench__fireworks-llama-v3p1-8b-concurrency-1-short-outputs.txt"]
                          ).verdict == "healthy"


def test_unitless_latencies_in_seconds_and_unsettled_ones(tmp_path):
    # 4 requests at once at 0.8 req/s: 4 / 0.8 = 5 s each; "Total Latency : 4.8" is seconds.
    path = _write(tmp_path, "Concurrency : 4\nQps : 0.8\nTime To First Token : 0.9\nTotal Latency : 4.8\n"
                            "Num Requests : 40\n")
    (record,) = [r for r in read_records(path) if hasattr(r, "metrics")]
    assert record.metrics["e2e_seconds_mean"] == 4.8
    # 48 at 0.8 req/s with 1 request at once: 1.25 s expected, 48 is neither 1.25 s nor 1.25 ms within 2×: unread.
    path = _write(tmp_path, "Concurrency : 1\nQps : 0.8\nTime To First Token : 9\nTotal Latency : 48\n"
                            "Num Requests : 40\n", "odd.txt")
    (record,) = [r for r in read_records(path) if hasattr(r, "metrics")]
    assert "e2e_seconds_mean" not in record.metrics and "ttft_seconds_mean" not in record.metrics


# -- tables -----------------------------------------------------------------------------------------------------------

def test_a_per_token_time_column_alone_makes_a_run(monkeypatch):
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    records = read_records(FIXTURES / "blind44_logs" / "onebin__batch-decode-table-b1-b4-b8-ms-per-token.txt")
    assert [record.metrics["tpot_seconds_mean"] for record in records] == pytest.approx([0.466, 0.175, 0.135])


def test_context_prefixed_columns_are_runs_at_that_context():
    # `30K prompt processing | 30K token generation | 146k prompt processing | 146k token generation`: two runs a row;
    # the 146k prompt column states no unit (1156, 1186) and is not read.
    records = read_records(FIXTURES / "blind44_logs" / "mlxlm__m3-ultra-minimax-m2.1-4bit-mlx-vs-llamacpp-30k-146k-table.txt")
    runs = [(r.metrics.get("ttft_seconds_mean"), r.metrics["output_tokens_per_second_per_user_mean"],
             r.metrics["mean_input_tokens"]) for r in records]
    assert runs == [(82.5, 25.0, 30000), (None, 5.95, 146000), (78.0, 32.0, 30000), (None, 12.12, 146000)]


def test_sort_arrows_ranges_and_a_cpu_backend_cell(tmp_path):
    # `Gen tok/s ↓` with `206.5–216.7` (a range reads as its first figure); the `(cpu)` row at 8.6 tok/s is judged
    # by a CPU's cutoff (1 s a token), the GPU rows' 9.1 by the GPU's (100 ms).
    records = read_records(FIXTURES / "blind46_logs" / "llamacpp__homelab-gemma-4-gen-toks-ranges-across-rigs-backends-table.txt")
    assert records[0].metrics["output_tokens_per_second_per_user_mean"] == 206.5
    assert [r.labels.get("device") for r in records].count("cpu") == 1
    path = _write(tmp_path, "| Backend | Conc. | Gen tok/s ↓ |\n|---|---|---|\n| llama.cpp (cpu) | 1 | 8.6–10.2 |\n"
                            "| llama.cpp (cuda) | 1 | 120.5 |\n")
    diagnosis = diagnose_files([path])
    assert diagnosis.verdict == "healthy"


def test_a_chinese_header_table_on_cpus():
    # 初始延迟 (ms) = first-token latency, 生成速度 (TPS) = generation speed, CPU型号 = the CPU's model.
    records = read_records(FIXTURES / "blind46_logs" / "ollama__csdn-cpu-only-llama2-7b-load-first-token-tps-table.txt")
    assert records[0].metrics["ttft_seconds_mean"] == pytest.approx(0.890)
    assert records[0].metrics["output_tokens_per_second_per_user_mean"] == 6.8
    assert records[0].labels["device"] == "cpu"
    assert diagnose_files([FIXTURES / "blind46_logs" / "ollama__csdn-cpu-only-llama2-7b-load-first-token-tps-table.txt"]
                          ).verdict == "healthy"


def test_figures_inside_cells(tmp_path):
    # `Total TPS: 9743.28<br>Mean TPOT(ms): 48.57`: a case a row, a setup a column.
    records = read_records(FIXTURES / "blind46_logs" / "vllm__gpustack-perf-lab-gpt-oss-20b-a100-baseline-vs-optimized-table.txt")
    assert len(records) == 10
    assert records[0].metrics == {"total_tokens_per_second": 9743.28, "tpot_seconds_mean": pytest.approx(0.04857)}
    assert records[1].labels["benchmark"] == "ShareGPT" and records[1].labels["tool"] == "Optimized"


def test_a_batch_size_model_floor_is_not_applied_to_a_many_stream_run(tmp_path, monkeypatch):
    # 9,743 total tok/s at 48.57 ms a token: up to 9743 × 0.04857 = 473 streams; the 20B model's one-stream floor on
    # a slow card does not judge it.
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    path = _write(tmp_path, "| Case | Setup |\n|---|---|\n| A | Total TPS: 9743.28<br>Mean TPOT(ms): 48.57 |\n")
    diagnosis = diagnose_files([path], model="openai/gpt-oss-20b")
    assert "summary-slower-than-size-allows" not in _rules(diagnosis)
    assert any("a batch's step" in note for note in diagnosis.notes)


def test_a_cpu_backend_request_is_judged_by_a_cpus_cutoff(tmp_path):
    # llama.cpp on its CPU backend at 150 ms a token (6.7 tok/s): slow for a GPU, not for a CPU.
    text = ("llama_model_load_internal: using CPU backend\n"
            "| model | size | params | backend | threads | test | t/s |\n| --- | ---: | ---: | --- | ---: | ---: | ---: |\n"
            "| llama 7B Q4_0 | 3.56 GiB | 6.74 B | CPU | 8 | tg128 | 6.67 ± 0.05 |\n")
    diagnosis = diagnose_files([_write(tmp_path, text)])
    assert diagnosis.verdict != "decode-bound"


# -- rounds 47 and 48 -------------------------------------------------------------------------------------------------

def test_a_late_first_token_alone_is_no_healthy_reading():
    # Six hosted calls, TTFT 14.4 s, 197.4 s, 0.6 s, 2.7 s, 1.4 s, 0.8 s (mean 36.2 s), no prompt length and no
    # per-token time: a long prompt and a wait look the same.
    diagnosis = diagnose_files([FIXTURES / "blind47_logs" / "nimstats__hosted-nim-models-success-ttft-six-models.txt"])
    assert diagnosis.verdict == "insufficient-data"
    (finding,) = [item for item in diagnosis.evidence if item.rule == "requests-ttft-unexplained"]
    assert finding.numbers["ttft_seconds_mean"] == pytest.approx((14444 + 197389 + 625 + 2721 + 1414 + 842) / 6 / 1e3)


def test_a_list_of_runs_a_rate_a_line():
    # `- qwen-coder:7b ~3t/s` beside 154, 78 and 57.78 t/s: 1 / 3 = 333 ms a token, under the fixed cutoff.
    records = read_records(FIXTURES / "blind47_logs" / "ollama__amd-fork-who-are-you-four-models-rates.txt")
    assert [record.metrics["generation_tokens_per_second"] for record in records] == [154.0, 78.0, 57.78, 3.0]
    diagnosis = diagnose_files([FIXTURES / "blind47_logs" / "ollama__amd-fork-who-are-you-four-models-rates.txt"])
    assert diagnosis.verdict == "decode-bound"
    assert "as slow as 333 ms" in diagnosis.evidence[0].text


def test_a_metric_column_between_keys_and_runs():
    # `| Model | Metric | oMLX (Cache off) | … |`, `pp16384` and `tg512` rows: llama-bench's tests, in t/s.
    records = read_records(FIXTURES / "blind47_logs" / "omlx__maintainer-table-pp16384-tg512-vs-mlx-lm-apple-silicon.txt")
    first = records[0]
    assert first.labels == {"tool": "oMLX (Cache off)", "benchmark": "Qwen3.6-35B-A3B-6bit"}
    assert first.metrics == {"input_tokens_per_second": 2469.9, "output_tokens_per_second_per_user_mean": 75.0}


def test_a_dict_a_python_client_printed():
    # ollama-python's final chunk printed as a dict: 17 tokens in 4,034 ms of eval, 237 ms a token.
    (record,) = [r for r in read_records(FIXTURES / "blind48_logs" / "ollama__python-stream-chunks-gemma2-2b-final-durations.txt")
                 if "output_tokens" in r.metrics]
    assert record.metrics["output_tokens"] == 17
    assert record.metrics["tpot_seconds"] == pytest.approx(record.metrics["decode_seconds"] / 17)


def test_a_python_literal_is_read_not_run(tmp_path):
    # A name or a call is no literal: such a line is not read (ast.literal_eval evaluates literals only).
    path = _write(tmp_path, "{'eval_count': __import__('os').getpid(), 'eval_duration': 1000000000}\n"
                            "{'eval_count': 10, 'eval_duration': 1000000000, 'total_duration': 1200000000}\n")
    records = read_records(path)
    assert [record.metrics["output_tokens"] for record in records] == [10]


def test_lmdeploy_table_headers():
    # `FTL(ave)(s)` is the mean first-token latency, `throughput(out tok/s)` the output rate, `batch` the cap.
    records = read_records(FIXTURES / "blind48_logs" / "lmdeploy__a100-v0.2.0-restful-3000-prompts-table.txt")
    assert records[0].metrics["ttft_seconds_mean"] == 0.526
    assert records[0].metrics["output_tokens_per_second"] == 3387.419
    assert records[0].metrics["max_concurrency"] == 256


def test_a_saturated_steps_prefill_chunk_is_allowed_for(monkeypatch):
    # DeepSeek-R1 on 8 H200s, batch unstated: 227 ms a token is within the realistic step at the most requests the KV
    # memory holds plus an 8,192-token prefill chunk in the same step.
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    path = FIXTURES / "blind48_logs" / "vllm__gpustack-deepseek-r1-h200-baseline-vs-sglang-dp-attention-table.txt"
    diagnosis = diagnose_files([path], model="deepseek-ai/DeepSeek-R1", gpu="h200-sxm")
    assert "hardware-decode-below-realistic" not in _rules(diagnosis)
    assert any("8,192-token prefill chunk" in line for line in diagnosis.roofline["lines"])


# -- rounds 49 and 51 -------------------------------------------------------------------------------------------------

def test_a_llama_bench_table_with_test_second():
    # llama-benchy heads `| model | test | t/s | peak t/s | ttfr (ms) | …`: pp2048 at 475.08 t/s, tg512 at 48.87.
    records = [record for record in read_records(
        FIXTURES / "blind51_logs" / "llamaserver__sycl-llama-benchy-qwen36-35b-a3b-pp2048-tg512.txt")
        if record.kind != "capacity"]  # the server's command line: its model file
    assert [(r.metrics.get("prompt_tokens_per_second"), r.metrics.get("generation_tokens_per_second")) for r in records] \
        == [(475.08, None), (None, 48.87)]


def test_two_runs_in_a_cell_read_as_the_first():
    # `3.89 / 4.02s`: two warm runs, the unit after the last. The line above states the probe's prompt (`4838-token
    # prompt`, the eleventh session's reading): the cold column's 9.41 s is that prompt's prefill, no longer a first
    # token left unexplained.
    records = read_records(FIXTURES / "blind51_logs" / "mtplx__ttft-cold-warm-by-build-probe-table.txt")
    assert [r.metrics["ttft_seconds_mean"] for r in records[:2]] == [9.41, 3.89]
    assert {r.metrics["mean_input_tokens"] for r in records} == {4838}
    diagnosis = diagnose_files([FIXTURES / "blind51_logs" / "mtplx__ttft-cold-warm-by-build-probe-table.txt"])
    assert "summary-ttft-unexplained" not in _rules(diagnosis)
    # TTFTs of a 4,838-token prompt and nothing after the first token timed: the table times prompt processing
    # (summary-prompt-only; the round's readers accept prefill-bound beside healthy)
    assert diagnosis.verdict == "prefill-bound" and _rules(diagnosis) == {"summary-prompt-only"}


def test_both_phases_rates_make_a_run():
    # mlx_lm's `"prompt_tps": 64.93…` and `"generation_tps": 34.87…`: one generation's account, no latency.
    (record,) = read_records(FIXTURES / "blind49_logs" / "mlx__llm-logs-response-json-mistral-small-4bit.txt")
    assert record.metrics == {"input_tokens_per_second": pytest.approx(64.93223804297065),
                              "output_tokens_per_second": pytest.approx(34.876992607358126)}


def test_a_llama_bench_row_with_no_layer_offloaded_is_a_cpu_run():
    # ngl 0 rows at 4.45 t/s ran on the CPU (a CPU's cutoff is 1 t/s), the ngl 99 rows at 21-34 t/s on the GPU.
    diagnosis = diagnose_files([FIXTURES / "blind9_logs" / "llamabench__2024-rx6800xt-13b-q6k-opencl-vulkan-rocm-ngl-0-99.txt"])
    assert diagnosis.verdict == "healthy"
    # With 8 layers on the Radeon Pro 5600M, 3.05 t/s is slow for its GPU; 7.2 t/s with none is a CPU's speed.
    diagnosis = diagnose_files([FIXTURES / "blind13_logs" / "llamabench__metal-intel-mac-5600m-ngl-0-vs-8.txt"])
    assert diagnosis.verdict == "decode-bound"
    (finding,) = [item for item in diagnosis.evidence if item.rule == "windows-slow-streams"]
    assert finding.numbers["generation_per_request_mean"] == pytest.approx((7.2 + 3.05) / 2, abs=0.05)


def test_gin_management_calls_and_stamps():
    from inferledger.diagnose.parsers import ollama

    lines = ['[GIN] 2026/01/20 - 23:21:17 | 200 |       16.52µs |       127.0.0.1 | GET      "/api/ps"',
             '[GIN] 2026/01/20 - 23:21:17 | 200 |  200.665714ms |       127.0.0.1 | POST     "/api/generate"']
    (record,) = [item for item in ollama.parse(enumerate(lines, 1)) if isinstance(item, Record)]
    assert record.metrics["e2e_seconds"] == pytest.approx(0.200665714)
    # 2026-01-20 is 20,473 days after 1970-01-01; 23:21:17 is 84,077 s into it.
    assert record.timestamp_seconds == 20473 * 86400 + 84077
    assert ollama._gin_seconds("2026/13/20 - 23:21:17") is None and ollama._gin_seconds("2026/01/20 - 24:00:00") is None


def test_a_unit_spelled_out_and_a_statistic_before_latency():
    # `| Batch Size | Output throughput in token per second (TPS) | Average latency in seconds |`, no rule line:
    # batch 1 at 36 tok/s and 3.530 s a request.
    records = read_records(FIXTURES / "blind50_logs" / "vllm__oci-mi300x-llama-3.1-405b-fp8-latency-batch-sweep-and-throughput-table.txt")
    assert records[0].metrics == {"max_concurrency": 1, "output_tokens_per_second": 36, "e2e_seconds_mean": 3.530}


def test_headline_figures_number_first():
    # `2394 Total tok/s (serve bench)` and `479 Output tok/s (serve bench)`: rates alone, so insufficient-data; a
    # label holding another figure (`3670.42 pp / 82.74 tg tok/s`) is not read as one.
    from inferledger.diagnose.parsers.generic_summary import line_metric

    assert line_metric("2394 Total tok/s (serve bench)") == ("total_tokens_per_second", 2394.0)
    assert line_metric("3670.42 pp / 82.74 tg tok/s") is None and line_metric("192 GB HBM3 per card") is None
    diagnosis = diagnose_files([FIXTURES / "blind50_logs" / "vllm__mi300x-gpt-oss-120b-aiter-serve-bench-headline-rates.txt"])
    assert diagnosis.verdict == "insufficient-data"


# -- round 53 ---------------------------------------------------------------------------------------------------------

def test_latency_grows_with_concurrency_as_one_slot_serves_them():
    # No TTFT in the sweep: P50 latency 892 ms at 1, 29,123 ms at 32 (32.6× for 32×): one request after another.
    path = FIXTURES / "blind53_logs" / "ollama__rtx4090-llama3-8b-q4km-single-request-and-concurrency-tables.txt"
    diagnosis = diagnose_files([path])
    assert diagnosis.verdict == "queueing"
    (finding,) = [item for item in diagnosis.evidence if item.rule == "summary-e2e-grows-with-concurrency"]
    assert (finding.numbers["e2e_seconds_low"], finding.numbers["e2e_seconds_high"]) == (0.892, 29.123)


def test_batched_latency_growth_is_no_queue(tmp_path):
    # A batching server: 1.0 s at 1, 2.0 s at 32, far under 0.75 × 32 × 1.0 s.
    text = "| Concurrency | P50 Latency (ms) |\n|---|---|\n| 1 | 1000 |\n| 8 | 1400 |\n| 32 | 2000 |\n"
    assert "summary-e2e-grows-with-concurrency" not in _rules(diagnose_files([_write(tmp_path, text)]))


def test_a_latency_per_token_header_and_a_prompt_eval_time():
    # `Latency (ms/token)` 2.43 is a time per token, `Prompt Eval (ms)` 26.97 the prompt's time (one sequence's TTFT).
    records = read_records(FIXTURES / "blind53_logs" / "llamacpp__a100-tinyllama-1.1b-q4km-q8-llama-cli-latency-table.txt")
    assert records[0].metrics["tpot_seconds_mean"] == pytest.approx(0.00243)
    assert records[0].metrics["ttft_seconds_mean"] == pytest.approx(0.02697)


# -- round 54 ---------------------------------------------------------------------------------------------------------

def test_a_preemption_column_is_the_engines_preemptions():
    # `| watermark | preempt | …`: 1,065 + 400 + 187 + 168 = 1,820 preemptions over the four runs.
    diagnosis = diagnose_files([FIXTURES / "blind54_logs" / "vllm__kv-watermark-pr-gb200-qwen25-7b-conc128-preemption-table.txt"])
    assert diagnosis.verdict == "kv-capacity"
    (finding,) = [item for item in diagnosis.evidence if item.rule == "state-preemption"]
    assert finding.numbers["preemptions"] == 1065 + 400 + 187 + 168


def test_a_change_column_of_percentages_is_no_run():
    # `| Metric | Before | After | Change |` with `-51.2%` under Change: two runs, not three (a TTFT of -51.2 is none).
    records = read_records(FIXTURES / "blind54_logs" / "sglang__srt-slurm-b200-fp8-8k1k-1p1d-conc128-before-after-table.txt")
    assert [record.metrics["ttft_seconds_mean"] for record in records] == [19.097, 9.321]


# -- round 55 ---------------------------------------------------------------------------------------------------------

def test_parts_that_outlast_the_total_are_no_one_run():
    # A guide's --verbose block: 312 tokens at 24.8 tok/s is 312 / 24.8 = 12.58 s of eval, with a 0.423 s load and a
    # 0.312 s prompt eval, against a 4.5 s total: the parts exceed it by 12.58 + 0.423 + 0.312 - 4.5 = 8.82 s.
    diagnosis = diagnose_files([FIXTURES / "blind55_logs" / "ollama__verbose-llama3-docs-site-example.txt"])
    assert diagnosis.verdict == "measurement-artifact"
    (finding,) = [item for item in diagnosis.evidence if item.rule == "requests-parts-exceed-total"]
    assert finding.numbers["largest_gap_seconds"] == pytest.approx(4.5 - (312 / 24.8 + 0.423 + 0.312))


# -- round 52 ---------------------------------------------------------------------------------------------------------

def test_xinference_average_generation_speed():
    # `Average generation speed: **0.33 tokens/s.**`: 1 / 0.33 = 3.03 s a token.
    (record,) = read_records(FIXTURES / "blind52_logs" / "xinference__transformers-4x4090-qwen72b-awq-average-generation-speed.txt")
    assert record.metrics["tpot_seconds"] == pytest.approx(1 / 0.33)


def test_server_bench_prompt_latency_and_totals():
    # llama.cpp's server-bench: `Total prompt length: 28594 tokens` is the run's total, not a prompt's, and
    # `Average prompt latency: 36.30 ms` the prompt's processing before the first token.
    (record,) = read_records(FIXTURES / "blind52_logs" / "llamaserver__server-bench-py-rtx4090-phi4-mini-1000-mmlu-requests.txt")
    assert record.metrics["total_input_tokens"] == 28594 and record.metrics["mean_input_tokens"] == 28.59
    assert record.metrics["ttft_seconds_mean"] == pytest.approx(0.0363)


# -- round 57 ---------------------------------------------------------------------------------------------------------

def test_difference_columns_are_no_runs():
    # `| Metric | k8s (Mean) | llm-d (Mean) | Δ (llm-d - k8s) | Δ% vs k8s |`: two runs; the Δ columns' `-34.7942`
    # (a TTFT difference) is no run's TTFT.
    records = read_records(FIXTURES / "blind57_logs" / "llmd__inference-scheduling-vs-k8s-service-mean-table.txt")
    assert [record.metrics["ttft_seconds_mean"] for record in records] == [34.9145, 0.1203]


def test_a_llama_server_replys_timings_object():
    # `"prompt_n": 1, "prompt_ms": 15.079, …, "predicted_n": 5, "predicted_ms": 48.984`: 48.984 / 5 = 9.80 ms a token.
    (record,) = read_records(FIXTURES / "blind57_logs" / "llamaserver__openwebui-chat-response-timings-gemma-3n-e2b.txt")
    assert record.metrics["output_tokens"] == 5 and record.metrics["input_tokens"] == 1
    assert record.metrics["tpot_seconds"] == pytest.approx(0.048984 / 5)
    assert record.metrics["prefill_seconds"] == pytest.approx(0.015079)


# -- a large batch's TPOT with no card: not judged by the one-stream cutoff -----------------------------------------

BENCH = """\
============ Serving Benchmark Result ============
Successful requests:                     {done}
Benchmark duration (s):                  100.00
Request throughput (req/s):              {rate}
Output token throughput (tok/s):         {output}
Mean TTFT (ms):                          150.00
Mean TPOT (ms):                          {tpot}
==================================================
"""


@pytest.mark.parametrize(("output", "tpot", "verdict", "rule"), [
    # 2,000 output tok/s × 0.150 s = 300 streams decoding at once (Little's law), past 128: unjudged without the card
    (2000.0, 150.0, "insufficient-data", "summary-tpot-batch-unjudged"),
    # 500 × 0.150 = 75 streams: under 128, the one-stream cutoff (100 ms) still judges it
    (500.0, 150.0, "decode-bound", "summary-slow-tpot-no-hardware"),
])
def test_a_large_batchs_tpot_needs_the_card(tmp_path, output, tpot, verdict, rule):
    text = BENCH.format(done=1000, rate=5.0, output=output, tpot=tpot)
    diagnosis = diagnose_files([_write(tmp_path, text)])
    assert diagnosis.verdict == verdict
    assert rule in _rules(diagnosis)
    assert "summary-healthy" not in _rules(diagnosis)  # an unjudged speed is not called normal


def test_a_large_batchs_tpot_is_still_judged_with_the_card(tmp_path, monkeypatch):
    # With the model and card the ledger judges the step at that batch; the batch rule is for the no-card path only.
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    text = BENCH.format(done=1000, rate=5.0, output=2000.0, tpot=150.0)
    diagnosis = diagnose_files([_write(tmp_path, text)], model="Qwen/Qwen3-0.6B", gpu="h100-sxm")
    assert "summary-tpot-batch-unjudged" not in _rules(diagnosis)


# -- round 59 ------------------------------------------------------------------------------------------------------

def test_a_load_the_total_has_no_room_for_is_no_cold_start():
    # llama_print_timings: prompt eval 10,514.60 + eval 49,937.32 = 60,451.92 ms of a 60,533.22 ms total, so the
    # 28,606.21 ms load came before the request; the 1,517-1,665 ms tokens are what is judged.
    diagnosis = diagnose_files([FIXTURES / "blind59_logs" / "llamacpp__m2-max-96gb-70b-print-timings-three-runs.txt"])
    assert "requests-cold-start" not in _rules(diagnosis)
    assert diagnosis.verdict == "decode-bound"


def test_a_load_inside_the_total_is_still_a_cold_start(tmp_path):
    # ollama's final response: total 5.0 s = load 3.0 + prompt 0.5 + eval 1.4 (+ 0.1): the load is 60 % of it.
    text = ('{"model":"llama3","done":true,"total_duration":5000000000,"load_duration":3000000000,'
            '"prompt_eval_count":20,"prompt_eval_duration":500000000,"eval_count":70,"eval_duration":1400000000}\n')
    diagnosis = diagnose_files([_write(tmp_path, text)])
    # (thirty-seventh session: the prompt and the answer are timed apart from the load, so the cold start is said
    # in the notes and their times are judged: 1.4 s / 70 tokens = 20 ms a token)
    assert "requests-cold-start" not in _rules(diagnosis) and diagnosis.verdict == "healthy"
    assert any("model load 3,000 ms is 60% of the request time: a cold start" in note for note in diagnosis.notes)


def test_mid_batch_streams_under_the_cutoff_are_unjudged_without_the_card():
    # 50 running, 450.0 / 50 = 9.0 down to 400.0 / 50 = 8.0 tok/s a stream, nobody waiting, KV 22-42 %.
    diagnosis = diagnose_files([FIXTURES / "blind59_logs" / "vllm__ascend-evalscope-50-concurrent-prefix-cache-v1-stats.txt"])
    assert diagnosis.verdict == "insufficient-data"
    assert "windows-streams-unjudged" in _rules(diagnosis) and "windows-healthy" not in _rules(diagnosis)


def test_a_table_in_chinese_units_is_listed_unread():
    diagnosis = diagnose_files([FIXTURES / "blind59_logs" / "vllm__ascend-910b4-glm-4.5v-vs-h20-sglang-poster-table.txt"])
    info = diagnosis.files[0]
    assert info["formats"] == ["unrecognised"] and diagnosis.verdict == "insufficient-data"
    assert any("tokens/秒" in item["text"] for item in info["unread_examples"])


# -- round 61 ------------------------------------------------------------------------------------------------------

FLATTENED = """\
| Metric |
engine A |
engine B |
| Output throughput |
276.50 tok/s |
330.52 tok/s |
| Mean TTFT |
5,647 ms |
1,480 ms |
| Median TPOT |
13.05 ms |
11.72 ms |
"""


def test_a_table_flattened_a_cell_a_line_is_joined_back(tmp_path):
    records = read_records(_write(tmp_path, FLATTENED))
    by_tool = {record.labels["tool"]: record.metrics for record in records}  # a value column is a run
    assert by_tool["table column 'engine A'"]["ttft_seconds_mean"] == pytest.approx(5.647)
    assert by_tool["table column 'engine B'"]["output_tokens_per_second"] == pytest.approx(330.52)


def test_a_late_first_token_with_few_in_flight_is_the_prompt(tmp_path):
    # engine A: 276.50 tok/s × 13.05 ms = 3.6 streams decoding (Little's law), TTFT 5.647 s = 433 × 13.05 ms:
    # with 4 in flight nothing waits for a slot, so the prompt is the cost.
    diagnosis = diagnose_files([_write(tmp_path, FLATTENED)])
    assert diagnosis.verdict == "prefill-bound"
    item = next(item for item in diagnosis.evidence if item.rule == "summary-ttft-over-tpot-few-in-flight")
    assert item.numbers["requests_in_flight"] == pytest.approx(276.50 * 0.01305)


def test_a_late_first_token_with_many_in_flight_is_still_a_queue(tmp_path):
    # 2,000 tok/s × 20 ms = 40 streams: past 8, a first token 5.6 s late (280 × 20 ms) may be a wait for a slot.
    text = "| Metric | run |\n|---|---|\n| Output throughput | 2000 tok/s |\n| Mean TTFT | 5,600 ms |\n" \
           "| Median TPOT | 20 ms |\n"
    diagnosis = diagnose_files([_write(tmp_path, text)])
    assert "summary-ttft-over-tpot" in _rules(diagnosis)
    assert diagnosis.verdict == "queueing"


# -- round 60 ------------------------------------------------------------------------------------------------------

def test_snake_case_headers_and_a_per_request_rate():
    # the four rows' per_request_output_tps, each one stream's rate (the last: 1 / 4.36 = 229 ms a token)
    records = read_records(FIXTURES / "blind60_logs" / "lmdeploy__llama2-tp1-concurrency-sweep-table-per-request-tps.txt")
    assert [record.metrics["output_tokens_per_second_per_user_mean"] for record in records] == pytest.approx(
        [17.01704522, 10.45953345, 6.878417422, 4.359966226])
    assert not any("total_tokens_per_second" in record.metrics for record in records)  # `per_request_total_tps`


@pytest.mark.parametrize(("remaining", "running", "waiting"), [(57, 9, 57), (2, 2, 0), (1, 3, 0)])
def test_the_first_sglangs_fill_batch_line(tmp_path, remaining, running, waiting):
    # requests left for the next fills wait only when they outnumber the running batch
    line = (f"new fill batch. #seq: 1. #cached_token: 330. #new_token: 2172. #remaining_req: {remaining}. "
            f"#running_req: {running}. tree_cache_hit_rate: 69.16%\n")
    (record,) = read_records(_write(tmp_path, line))
    assert record.metrics["running_requests"] == running
    assert record.metrics["waiting_requests"] == waiting
    assert record.metrics["prefix_cache_hit_fraction"] == pytest.approx(0.6916)


# -- round 62 ------------------------------------------------------------------------------------------------------

def test_a_prompt_read_in_progress_lines():
    # 2,048 -> 10,240 of 24,809 tokens between 19:37:26.079 and 19:38:28.090 (62.011 s): 8,192 / 62.011 = 132 tok/s;
    # the excerpt ends at 10,240 / 24,809 = 41 %, so the whole prompt takes 24,809 / 132 = 188 s before a token.
    path = FIXTURES / "blind62_logs" / "ollama__mlx-engine-cache-miss-24809-token-prompt-progress.txt"
    diagnosis = diagnose_files([path])
    assert diagnosis.verdict == "prefill-bound"
    item = next(item for item in diagnosis.evidence if item.rule == "requests-prompt-in-progress")
    rate = 8192 / 62.011
    assert item.numbers["projected_prefill_seconds"] == pytest.approx(24809 / rate, rel=1e-3)


def test_a_prompt_read_in_chunks_with_nothing_running():
    # first chunk 32,000 new + 73,747 pending = 105,747 tokens; the lines state 132.32, 336.69, 675.73 input tok/s
    path = FIXTURES / "blind62_logs" / "sglang__lsglang-105k-prompt-chunked-prefill-32000-no-queue.txt"
    diagnosis = diagnose_files([path])
    assert diagnosis.verdict == "prefill-bound"
    item = next(item for item in diagnosis.evidence if item.rule == "windows-prompt-in-chunks")
    assert item.numbers["prompt_tokens"] == 105747


def test_each_request_against_its_own_context_window():
    # 3,893/49,152, 2,500/4,096 and 4,681/8,192: at most 61 % of its own window, none full
    path = FIXTURES / "blind62_logs" / "koboldcpp__smart-cache-horde-jobs-three-ctxlimit-lines.txt"
    assert "requests-context-full" not in _rules(diagnose_files([path]))


# -- round 63 ------------------------------------------------------------------------------------------------------

def test_a_prefill_only_burst_is_a_queue_of_prompts():
    # 128 generated tokens over 64 requests = 2 a request: the E2E (22.2 s mean) is the first token's; rate inf with
    # a cap of 640 above the 64 sent holds them all, so the first tokens wait by construction.
    path = FIXTURES / "blind63_logs" / "sglang__bench-serving-pd-separated-4096-in-1-out-64-prompts.txt"
    diagnosis = diagnose_files([path])
    assert diagnosis.verdict == "queueing"
    assert {"summary-tpot-batch-unjudged", "summary-ttft-equals-e2e"}.isdisjoint(_rules(diagnosis))


# -- round 64 ------------------------------------------------------------------------------------------------------

def test_tabbyapi_metrics_without_their_prefix():
    # `1934 tokens generated in 504.75 seconds (Queue: 0.0 s, Process: 0 cached tokens and 118010 new tokens at
    # 433.73 T/s, Generate: 8.31 T/s, ...)`: the prompt 118,010 / 433.73 = 272.1 s, the answer at 8.31 T/s
    path = FIXTURES / "blind64_logs" / "exllamav3__long-context-nccl-runs-118k-and-37k-prompts-uncached.txt"
    first = read_records(path)[0]
    assert first.metrics["e2e_seconds"] == 504.75
    assert first.metrics["prefill_seconds"] == pytest.approx(118010 / 433.73)
    assert first.metrics["generation_tokens_per_second"] == 8.31
    assert diagnose_files([path]).verdict == "decode-bound"  # 120 ms a token, past the fixed cutoff


def test_process_names_the_prompt_in_a_phrase():
    from inferledger.diagnose.parsers.generic_phrases import line_metrics

    metrics = line_metrics("Process: 512 tokens at 850.0 t/s, Generate: 9.5 t/s")
    assert metrics["prompt_tokens_per_second"] == 850.0 and metrics["generation_tokens_per_second"] == 9.5


def test_the_prefill_share_weighs_requests_by_their_compute():
    # Process + Generate of the six turns: 34.76+9.61, 33.04+9.76, 32.48+7.91 (the prompt >= half: flagged), then
    # 0.81+9.38, 0.67+8.09, 0.81+8.83; flagged 127.56 s of 156.16 s = 82 %, against 3 of 6 requests by count.
    path = FIXTURES / "blind64_logs" / "koboldcpp__ctxlimit-near-max-contextshift-some-turns-full-reprocess.txt"
    item = next(item for item in diagnose_files([path]).evidence if item.rule == "requests-prefill-share")
    flagged = 34.76 + 9.61 + 33.04 + 9.76 + 32.48 + 7.91
    assert item.numbers["compute_share"] == pytest.approx(flagged / (flagged + 0.81 + 9.38 + 0.67 + 8.09 + 0.81 + 8.83))


def test_a_full_context_the_runner_shifts_yields_to_where_the_time_goes():
    # three `[Context Shifting: Erased …]` lines: the 97 % window is handled; 82 % of the compute reads prompts
    path = FIXTURES / "blind64_logs" / "koboldcpp__ctxlimit-near-max-contextshift-some-turns-full-reprocess.txt"
    diagnosis = diagnose_files([path])
    assert diagnosis.verdict == "prefill-bound"
    assert diagnosis.events["context_shifts"] == 3
    full = next(item for item in diagnosis.evidence if item.rule == "requests-context-full")
    assert "shifted its context 3 time(s)" in full.text


# -- round 65 ------------------------------------------------------------------------------------------------------

def test_koboldcpp_lines_with_bold_markup():
    # `Processing:**33.7s (188ms/T)**, Generation:45.0s (281ms/T), Total:78.7s`: the generation's 281 ms a token
    records = read_records(FIXTURES / "blind65_logs" / "koboldcpp__2023-opencl-three-versions-time-taken-lines.txt")
    assert [record.metrics["prefill_seconds"] for record in records] == [33.7, 34.2, 39.8]
    assert records[0].metrics["tpot_seconds"] == pytest.approx(0.281)


def test_mlx_lm_rates_one_build_a_line():
    records = read_records(FIXTURES / "blind65_logs" / "mlxlm__mistral-7b-adapters-mlx08-prompt-generation-rates.txt")
    assert [(record.metrics["prompt_tokens_per_second"], record.metrics["generation_tokens_per_second"])
            for record in records] == [(140.416, 24.049), (106.642, 13.586)]


# -- round 66 ------------------------------------------------------------------------------------------------------

def test_a_bench_matrix_of_tests_as_columns_is_read_as_llama_bench_rows():
    # `| model | quant | size | params | pp128 | tg64 |`, one model a row: each cell a llama-bench test's rate
    path = FIXTURES / "blind66_logs" / "gpullama3__llama-tornado-bench-rtx4090-pp-tg-model-table.txt"
    rows = [record for record in read_records(path) if record.source == "llamacpp.bench"]
    assert [record.metrics.get("generation_tokens_per_second") for record in rows][1::2] == [109.60, 53.30, 35.45, 24.92]
    assert [record.metrics.get("prompt_tokens_per_second") for record in rows][0::2] == [107.70, 54.28, 33.10, 21.14]
    # Mistral-7B: 13.5 GiB read per token at 24.92 tok/s = 361 GB/s, 36 % of the RTX 4090's 1,008 GB/s
    diagnosis = diagnose_files([path], gpu="rtx-4090")
    assert diagnosis.verdict == "decode-bound"
    item = next(item for item in diagnosis.evidence if item.rule == "hardware-decode-far-below-floor")
    assert item.numbers["bandwidth_fraction"] == pytest.approx(13.5 * 2**30 * 24.92 / 1008e9)


def test_a_burst_whose_first_tokens_are_a_few_steps_built_no_queue():
    # rate inf, 10 requests: TTFT 62.46 ms against TPOT 3.29 ms is 19 steps (under 20): all admitted at once
    path = FIXTURES / "blind66_logs" / "sglang__bench-serving-example-10-requests-e2e-ttft-tpot-cut.txt"
    diagnosis = diagnose_files([path])
    assert diagnosis.verdict == "healthy"
    assert "summary-all-at-once" not in _rules(diagnosis)


def test_one_request_waiting_while_nothing_runs_is_in_transit(tmp_path):
    line = ("INFO 07-13 17:42:{s:02d} [loggers.py:271] Engine 001: Avg prompt throughput: {p} tokens/s, Avg generation "
            "throughput: {g} tokens/s, Running: {r} reqs, Waiting: {w} reqs, GPU KV cache usage: 1.0%, Prefix cache hit "
            "rate: 0.0%\n")
    transit = _write(tmp_path, line.format(s=0, p=0.0, g=60.0, r=2, w=0) + line.format(s=10, p=0.0, g=5.9, r=0, w=1))
    assert "windows-waiting" not in _rules(diagnose_files([transit]))
    # two waiting with nothing running is a stall; one waiting behind a running request is a queue
    for running, waiting in ((0, 2), (2, 1)):
        queued = _write(tmp_path, line.format(s=0, p=0.0, g=60.0, r=2, w=0)
                        + line.format(s=10, p=0.0, g=5.9, r=running, w=waiting), f"q{running}{waiting}.txt")
        assert "windows-waiting" in _rules(diagnose_files([queued]))


def test_speculative_decoding_steps_are_judged_by_the_one_stream_cutoff(tmp_path):
    stats = ("INFO 09-07 06:43:{s:02d} [loggers.py:310] Engine 000: Avg prompt throughput: 0.0 tokens/s, Avg generation "
             "throughput: {g} tokens/s, Running: 3 reqs, Waiting: 0 reqs, GPU KV cache usage: 70.1%, Prefix cache hit "
             "rate: 81.4%\n")
    spec = ("INFO 09-07 06:43:{s:02d} [metrics.py:120] SpecDecoding metrics: Mean acceptance length: {a}, Accepted "
            "throughput: 15.58 tokens/s, Drafted throughput: 28.77 tokens/s, Accepted: 156 tokens, Drafted: 288 "
            "tokens, Per-position acceptance rate: 0.540, Avg Draft acceptance rate: 54.2%\n")
    # 36 and 39 tok/s over 3 running = 12.5 tok/s a stream; at 2.0 and 2.2 tokens a step: 12.5 / 2.1 = 6.0 steps/s
    slow = _write(tmp_path, stats.format(s=20, g=36.0) + spec.format(s=20, a=2.0)
                  + stats.format(s=30, g=39.0) + spec.format(s=30, a=2.2))
    diagnosis = diagnose_files([slow])
    assert diagnosis.verdict == "decode-bound"
    item = next(item for item in diagnosis.evidence if item.rule == "windows-slow-spec-steps")
    assert item.numbers["steps_per_second"] == pytest.approx((36.0 + 39.0) / 2 / 3 / 2.1)
    # 54 and 57 tok/s (18.5 a stream) at 1.5 tokens a step: 12.3 steps/s, over the cutoff
    fine = _write(tmp_path, stats.format(s=20, g=54.0) + spec.format(s=20, a=1.5)
                  + stats.format(s=30, g=57.0) + spec.format(s=30, a=1.5), "fine.txt")
    assert "windows-slow-spec-steps" not in _rules(diagnose_files([fine]))
    # 105 tok/s (35 a stream) at 4 tokens a step: 8.8 steps/s, but the stream is past twice the cutoff
    fast = _write(tmp_path, stats.format(s=20, g=105.0) + spec.format(s=20, a=4.0), "fast.txt")
    assert "windows-slow-spec-steps" not in _rules(diagnose_files([fast]))


def test_a_rate_named_by_its_unit_alone_is_one_streams_in_a_table_without_a_batch(tmp_path):
    # `| Model | tok/s |`: llmfit's rows, a model each, one warmed slot: each rate one stream's generation
    path = FIXTURES / "blind64_logs" / "llamacpp__llmfit-bench-rtx-2080-19-models-full-gpu-moe-partial-offload.txt"
    rates = [record.metrics.get("output_tokens_per_second_per_user_mean") for record in read_records(path)]
    assert rates[:3] == [304.3, 140.3, 140.3]
    assert diagnose_files([path]).verdict == "healthy"
    # a concurrency column beside it: the rate may be the batch's, so the bare column stays unread
    batch = _write(tmp_path, "| Concurrency | tok/s |\n|---|---|\n| 1 | 30.1 |\n| 64 | 900.5 |\n")
    diagnosis = diagnose_files([batch])
    assert diagnosis.verdict == "insufficient-data" and diagnosis.files[0]["formats"] == ["unrecognised"]


# -- round 67 ------------------------------------------------------------------------------------------------------

def test_a_short_prompt_read_at_the_answers_pace_leaves_both_phases_unjudged():
    # 27 prompt tokens in 2,684.39 ms (10.06 tok/s), 25 generated in 3,559.27 ms (7.02 tok/s): the prompt read at
    # 1.4× the generation rate, 2.68 s / 0.142 s = 19 decode steps, 43 % of prompt + generation: a CPU's shape,
    # where the GPU's 10 tok/s cutoff would call decode slow
    path = FIXTURES / "blind67_logs" / "llamaserver__2024-json-timings-before-crash-27-prompt-25-gen.txt"
    assert 2684.39 / (3559.27 / 25) >= 10 and (27 / 2.68439) < 3 * (25 / 3.55927)
    diagnosis = diagnose_files([path])
    assert diagnosis.verdict == "insufficient-data"
    assert "requests-phases-unjudged" in _rules(diagnosis) and "requests-slow-tpot-no-hardware" not in _rules(diagnosis)


def test_a_short_prompt_within_nine_steps_is_overhead(tmp_path):
    # 24 tokens in 1,281.33 ms (18.7 tok/s, under 3 × 7.02) against 142.37 ms a generated token: 9 steps, under 10,
    # though 43 % of prompt + generation (12 tokens in 1,708.44 ms): the fixed cutoff judges the decode
    assert 1281.33 / 142.37 < 10 and 24 / 1.28133 < 3 * 7.02 and 1281.33 / (1281.33 + 1708.44) > 1 / 3
    text = ("prompt eval time =    1281.33 ms /    24 tokens (   53.39 ms per token,    18.73 tokens per second)\n"
            "       eval time =    1708.44 ms /    12 runs   (  142.37 ms per token,     7.02 tokens per second)\n"
            "      total time =    2989.77 ms\n")
    assert diagnose_files([_write(tmp_path, text)]).verdict == "decode-bound"


# -- round 68 ------------------------------------------------------------------------------------------------------

def test_a_closed_loops_step_is_at_most_its_concurrency_over_its_output_rate():
    # LMDeploy's profile_throughput at concurrency 128: `number of completion tokens` is the run's (228,637 over
    # 7.116 req/s × 140.528 s = 1,000 requests, 229 each); each of the 128 streams writes 1,626.983 / 128 tok/s, so
    # a step takes at most 128 / 1,626.983 s = 78.7 ms (prefills included); the PyTorch engine's 128 / 705.288 =
    # 181 ms at 128 streams is a large batch's step the one-stream cutoff does not judge
    path = FIXTURES / "blind68_logs" / "lmdeploy__profile-throughput-a100-llama2-13b-turbomind-vs-pytorch-conc-128.txt"
    first = read_records(path)[0]
    assert first.metrics["total_output_tokens"] == 228637 and "mean_output_tokens" not in first.metrics
    diagnosis = diagnose_files([path])
    healthy = next(item for item in diagnosis.evidence if item.rule == "summary-healthy")
    assert healthy.numbers["seconds_per_token"] == pytest.approx(128 / 1626.983)
    unjudged = next(item for item in diagnosis.evidence if item.rule == "summary-tpot-batch-unjudged")
    assert unjudged.numbers["tpot_seconds_mean"] == pytest.approx(128 / 705.288)


def test_a_loop_over_few_rounds_states_no_step(tmp_path):
    # 128 in flight, 2.0 req/s × 100 s = 200 requests: under four rounds, start and drain weigh too much (at four or
    # more, 128 / 4,000 tok/s = 32 ms a step would read healthy)
    text = ("# Turbomind\nconcurrency: 128\nelapsed_time: 100.000s\n\nnumber of prompt tokens: 50000\n"
            "number of completion tokens: 400000\ntoken throughput (completion token): 4000.000 token/s\n"
            "token throughput (prompt + completion token): 4500.000 token/s\nRPS (request per second): 2.000 req/s\n"
            "RPM (request per minute): 120.000 req/min\n")
    diagnosis = diagnose_files([_write(tmp_path, text + "\n" + text)])  # two runs, as profile_throughput's are pasted
    # LMDeploy's profiler block, read by its own reader since its throughput line names it (blind round 437)
    assert diagnosis.files[0]["formats"] == ["bench-text"]
    assert "summary-healthy" not in _rules(diagnosis)


def test_an_out_clause_is_the_answers_phase():
    from inferledger.diagnose.parsers.generic_phrases import line_metrics

    metrics = line_metrics("ctx 31K · pp 3.8K/3.2s 1171t/s · out 353/4.7s 74t/s · 27K cached")
    assert metrics["prompt_tokens_per_second"] == 1171 and metrics["generation_tokens_per_second"] == 74


def test_a_prompt_read_in_full_chunks_with_no_pending_count_is_at_least_one_chunk():
    # six SGLang Prefill lines, #new-token 2048, nothing running, 45.52-46.09 input tok/s: one chunk alone is
    # 2,048 / ~46 = ~44.6 s before a first token (past the 5 s of a prompt in progress)
    path = FIXTURES / "blind6_logs" / "sglang__2026-prefill-2048-tokens-at-46-tok-s.txt"
    diagnosis = diagnose_files([path])
    assert diagnosis.verdict == "prefill-bound"
    item = next(item for item in diagnosis.evidence if item.rule == "windows-prompt-in-chunks")
    mean = (45.65 + 46.04 + 46.04 + 46.09 + 45.52 + 46.00) / 6
    assert item.numbers["projected_prefill_seconds"] == pytest.approx(2048 / mean)


# -- rounds 69 and 70 ----------------------------------------------------------------------------------------------

def test_a_rich_table_with_heavy_borders_no_client_reader_takes_is_read():
    # ZhiLight's bench: `┏━┳━┓` / `┃ Target QPS ┃ Actual QPS ┃ TTFT Mean(ms) ┃ …` / `┡━╇━┩`, one row cut at the right
    path = FIXTURES / "blind69_logs" / "zhilight__qps-sweep-4x4090-qwq72b-gptq-4k-prompt-one-row.txt"
    (record,) = [record for record in read_records(path) if isinstance(record, Record)]
    assert record.metrics["request_rate_per_second"] == 0.1  # the rate offered, beside the 0.09 kept
    assert record.metrics["request_throughput_per_second"] == 0.09
    assert record.metrics["ttft_seconds_mean"] == pytest.approx(4.91974)
    assert record.metrics["tpot_seconds_mean"] == pytest.approx(0.04943)


def test_a_stage_table_aligned_by_spaces_is_one_request():
    # RKLLM: `Prefill  562.15  81  6.94  144.09` and `Generate  53718.66  430  126.08  7.93` under `Stage  Total Time
    # (ms)  Tokens  Time per Token (ms)  Tokens per Second`: the prompt's 81 tokens in 0.562 s, 430 generated at 126 ms
    path = FIXTURES / "blind69_logs" / "rkllm__r1-distill-qwen-1.5b-w8a8-rockchip-npu-stage-table.txt"
    (record,) = read_records(path)
    assert record.metrics["prefill_seconds"] == pytest.approx(0.56215) and record.metrics["input_tokens"] == 81
    assert record.metrics["decode_seconds"] == pytest.approx(53.71866) and record.metrics["output_tokens"] == 430
    assert record.metrics["tpot_seconds"] == pytest.approx(0.12608)  # the prompt row's per-token time is not a step
    assert diagnose_files([path]).verdict == "decode-bound"  # 7.93 tok/s, under the one-stream cutoff


def test_a_bare_rate_beside_a_batch_column_is_the_batchs():
    # fastllm: `Batch | 最大推理速度(token / s)`: 2,919 tok/s at batch 64 is 2919 / 64 = 45.6 a stream; the phone row
    # (`Xiaomi 10 Pro - 4 Threads`, 4 ~ 5 tok/s) ran on a CPU
    path = FIXTURES / "blind69_logs" / "fastllm__chatglm-6b-speed-table-4090-batch-sizes.txt"
    records = read_records(path)
    assert records[2].metrics["output_tokens_per_second_per_user_mean"] == pytest.approx(2919 / 64)
    assert records[2].metrics["output_tokens_per_second"] == 2919
    assert records[-1].labels.get("device") == "cpu"
    assert diagnose_files([path], gpu="rtx-4090").verdict == "healthy"


def test_a_concurrency_column_leaves_a_bare_rate_unread(tmp_path):
    # genai-bench's `Output Speed (tok/s)` beside `Concurrency` is each request's: not divided, not read as one stream's
    text = "| Concurrency | TTFT | e2e_latency | Output Speed (tok/s) |\n|---|---|---|---|\n| 1 | 0.05 | 8.29 | 35.04 |\n"
    diagnosis = diagnose_files([_write(tmp_path, text)])
    assert not any("per-stream rate" in item.text for item in diagnosis.evidence)


def test_chinese_request_words_make_a_log_of_serving_numbers():
    # a client's log in Chinese (总请求数 total requests, 平均吞吐量 1.48 请求/秒 requests a second): listed unread
    path = FIXTURES / "blind69_logs" / "vllm__ascend-qwen25-vl-3b-custom-client-200-requests-latency-stats.txt"
    diagnosis = diagnose_files([path])
    assert diagnosis.verdict == "insufficient-data" and diagnosis.files[0]["formats"] == ["unrecognised"]


def test_a_context_near_full_beside_every_prompt_read_in_full_yields_to_the_prompt():
    # koboldcpp via SillyTavern: 3,713 of 4,096 (91 %) after reprocessing all 3,695 prompt tokens in 436.85 s of
    # 481.64 s: the prompt's measured cost outranks the forecast of a full window
    path = FIXTURES / "blind70_logs" / "koboldcpp__sillytavern-full-reprocess-mythomax-13b-two-turns.txt"
    diagnosis = diagnose_files([path])
    assert diagnosis.verdict == "prefill-bound"
    full = next(item for item in diagnosis.evidence if item.rule == "requests-context-full")
    assert full.verdict == "kv-capacity"


# -- round 72 ------------------------------------------------------------------------------------------------------

def test_a_grid_tables_rules_do_not_end_it():
    # tabulate's grid (`+----+`, `+====+` under the header): one user at 7.936 ms a token, four at 9.913 ms
    path = FIXTURES / "blind72_logs" / "sglang__eagle-draft-extend-cuda-graph-conc-1-and-4-grid-table.txt"
    records = read_records(path)
    assert [record.metrics["tpot_seconds_mean"] for record in records] == [pytest.approx(0.007936),
                                                                           pytest.approx(0.009913)]
    assert diagnose_files([path]).verdict == "healthy"


def test_a_grid_table_its_own_reader_takes_is_read_once():
    # evalscope's `Key | Value` grid: its reader's, not the generic table reader's too
    path = FIXTURES / "blind18_logs" / "evalscope__rdna3-100-concurrent-tpot-127ms.txt"
    assert "markdown-table" not in diagnose_files([path]).files[0]["formats"]


def test_all_in_flight_at_a_rate_spread_over_the_run_is_a_queue_not_a_burst():
    # offered 10 req/s: 200 requests arrive over 20 s of a 59.8 s run, kept at 3.34 req/s; the peak of 198 in flight
    # is the queue the arrivals built, not a burst sent at once (a burst arrives within the run's first twentieth)
    path = FIXTURES / "blind72_logs" / "vllm__bench-serve-uccl-p2p-pd-qwen2.5-32b-rate10-200-prompts.txt"
    assert 200 / 10 > 0.05 * 59.80
    diagnosis = diagnose_files([path])
    assert diagnosis.verdict == "queueing" and "summary-burst-prefill" not in _rules(diagnosis)


# -- round 71 ------------------------------------------------------------------------------------------------------

def test_tensorrt_llm_start_up_lines_size_the_kv_cache():
    # `Allocate 3657433088 bytes for k/v cache.` and `Using 13952 total tokens in paged KV cache`: capacity, no speed
    path = FIXTURES / "blind71_logs" / "trtllm__triton-backend-tp-startup-paged-kv-cache-lines.txt"
    records = read_records(path)
    assert [record.metrics for record in records[:2]] == [{"kv_cache_bytes": 3657433088.0},
                                                          {"kv_cache_tokens": 13952.0}]
    assert diagnose_files([path]).verdict == "insufficient-data"


# -- rounds 73 and 74 ----------------------------------------------------------------------------------------------

def test_a_prompt_read_slower_turn_after_turn_while_decode_holds():
    # ollama --verbose: 969 prompt tokens at 843.34 tok/s, then 1,011 at 97.31 (8.7×, 10.389 s of 16.38 s of
    # compute) while eval holds at 9.02 then 7.84 tok/s (1.15×): the prompt pass slowed
    path = FIXTURES / "blind73_logs" / "ollama__2025-macos-verbose-two-blocks-before-and-after.txt"
    assert 843.34 / 97.31 >= 3 and 9.02 / 7.84 <= 1.5 and 10.389 >= (10.389 + 5.992) / 3
    diagnosis = diagnose_files([path])
    assert diagnosis.verdict == "prefill-bound"
    item = next(item for item in diagnosis.evidence if item.rule == "requests-prefill-slowed")
    assert item.numbers["prompt_tokens_per_second_last"] == 97.31


def test_a_prompt_slower_beside_a_decode_as_much_slower_is_the_machine(tmp_path):
    block = ("prompt eval count:    {n} token(s)\nprompt eval duration: {p}s\nprompt eval rate:     {pr} tokens/s\n"
             "eval count:           46 token(s)\neval duration:        {d}s\neval rate:            {dr} tokens/s\n")
    # prompt 843 -> 97 tok/s and decode 9.0 -> 2.0 tok/s: both slowed, not the prompt pass alone
    text = (block.format(n=969, p=1.149, pr=843.34, d=5.099, dr=9.02)
            + block.format(n=1011, p=10.389, pr=97.31, d=23.0, dr=2.0))
    assert "requests-prefill-slowed" not in _rules(diagnose_files([_write(tmp_path, text)]))


def test_a_bench_table_printed_as_a_grid_is_read_through_its_rules():
    # mistralrs-bench: `+---+` rules between its llama-bench-style rows; tg 128 at 73.838 t/s, pp 512 at 1141.041
    path = FIXTURES / "blind74_logs" / "mistralrs__bench-a10-mistral-7b-quantized-tg128-pp512-conc1.txt"
    records = read_records(path)
    assert records[0].metrics["generation_tokens_per_second"] == 73.838
    assert records[1].metrics["prompt_tokens_per_second"] == 1141.041


def test_numbers_no_rule_judges_are_said_to_be_read(tmp_path):
    # one llama-bench tg row whose model cell states no size (nothing sizes a step, since round 91 a named size does)
    text = "| model | backend | test | t/s |\n| --- | --- | ---: | ---: |\n| my-finetune | CUDA | tg128 | 73.8 |\n"
    diagnosis = diagnose_files([_write(tmp_path, text)], gpu="a10")
    assert diagnosis.verdict == "insufficient-data"
    assert diagnosis.evidence[0].rule == "read-unjudged" and diagnosis.evidence[0].text.startswith("read 1 window(s)")


# -- round 75 ------------------------------------------------------------------------------------------------------

def test_a_stats_line_with_a_terminals_wrap_padding_inside_a_word():
    # `Avg generation thr                        oughput: 0.1 tokens/s`: the padding out, the window read
    path = FIXTURES / "blind75_logs" / "vllmascend__910b3-x2-qwen36-27b-startup-then-one-request.txt"
    (record,) = [record for record in read_records(path) if isinstance(record, Record) and record.source == "vllm.stats"]
    assert record.metrics["generation_tokens_per_second"] == 0.1 and record.metrics["prompt_tokens_per_second"] == 12.7
    assert diagnose_files([path]).verdict == "insufficient-data"  # one arrival window measures no stream


def test_a_threads_column_marks_cpu_runs_timed_per_token():
    # `Quantized Model | Threads | Memory use | Time per token`, cells `137.10 ms`: llama.cpp on a CPU, 100-262 ms a
    # token, under the CPU's one-second cutoff
    path = FIXTURES / "blind75_logs" / "llamacpp__2023-cpu-5700g-llama-7b-13b-threads-time-per-token-table.txt"
    records = read_records(path)
    assert records[1].metrics["tpot_seconds_mean"] == pytest.approx(0.10043)
    assert all(record.labels.get("device") == "cpu" for record in records)
    assert diagnose_files([path]).verdict == "healthy"


def test_a_mixture_of_experts_batch_step_is_not_one_tokens_read():
    # vLLM-MLX, Qwen3-Next-80B-A3B: ITL 72.7 ms at ×16 is a batch whose tokens chose many experts, not the 3B active
    # share one token reads: not judged against that floor
    path = FIXTURES / "blind75_logs" / "vllmmlx__qwen3-next-80b-mtp-m3-ultra-latency-and-concurrency-tables.txt"
    diagnosis = diagnose_files([path], model="Qwen/Qwen3-Next-80B-A3B-Instruct")
    assert "summary-slower-than-size-allows" not in _rules(diagnosis)
    assert any("mixture of experts" in note for note in diagnosis.notes)


# -- round 77 ------------------------------------------------------------------------------------------------------

def test_an_offline_runs_backlog_is_no_queue():
    # vLLM's `Processed prompts: 34/10000` bar beside stats lines with 9,832 pending: the prompts it submitted at
    # once; the swapping and the SWAP preemption name the limit (kv-capacity)
    path = FIXTURES / "blind77_logs" / "vllm__v0-chunked-prefill-offline-n2-swapped-pending-stats-with-tqdm.txt"
    diagnosis = diagnose_files([path])
    assert diagnosis.verdict == "kv-capacity" and "windows-waiting" not in _rules(diagnosis)
    assert any("offline run's own backlog" in note for note in diagnosis.notes)


# -- round 78 ------------------------------------------------------------------------------------------------------

def test_a_speed_column_of_capitalised_rates_on_a_cpu():
    # `| Device | CPU/GPU | Model | Speed |` with `4.88 Tokens/s` cells: each row one stream, on a CPU (its column),
    # 1 / 1.36 = 735 ms a token for the 13B, under a CPU's one-second cutoff
    path = FIXTURES / "blind78_logs" / "ollama__pi5-16gb-cpu-llama-3b-8b-13b-speed-table.txt"
    records = read_records(path)
    assert [record.metrics["output_tokens_per_second_per_user_mean"] for record in records] == [4.88, 2.17, 1.36]
    assert all(record.labels.get("device") == "cpu" for record in records)
    assert diagnose_files([path]).verdict == "healthy"


def test_llama_bench_tests_as_rows_and_setups_as_columns():
    # `| Gen Length | Bonsai 8B (…) | Qwen3-30B-A3B (…) |` over `| tg64 | **93.4** | 81.3 |`: each cell a stream's rate
    path = FIXTURES / "blind78_logs" / "llamabench__strix-halo-bonsai-8b-1bit-vs-qwen3-30b-a3b-pp-tg-tables.txt"
    records = read_records(path)
    assert [record.metrics.get("output_tokens_per_second_per_user_mean") for record in records[:2]] == [93.4, 81.3]
    assert any(record.metrics.get("input_tokens_per_second") == 427 for record in records)
    assert diagnose_files([path]).verdict == "healthy"


# -- round 84 ------------------------------------------------------------------------------------------------------

def test_several_models_read_at_one_bandwidth_are_the_machines_memory():
    # ollama's obench tables, each under `using model: NAME`: ollama tags default to Q4_K_M (4.5 bits a weight), so a
    # step reads 3e9 × 4.5 / 8 = 1.6875 GB (llama3.2:3b), 8e9 × 4.5 / 8 = 4.5 GB (llama3.1:8b), 14e9 × 4.5 / 8 =
    # 7.875 GB (deepseek-r1:14b). Median steps (four rows a table, run rows and the average row): the 3B's middle
    # two rates 23.81 and 23.14 tok/s -> (1/23.81 + 1/23.14) / 2 s; the 8B's 10.46 and 10.44.
    path = FIXTURES / "blind84_logs" / "ollama__obench-framework13-ryzen-ai-three-models-eval-rate-tables.txt"
    diagnosis = diagnose_files([path])
    assert diagnosis.verdict == "healthy"
    found = next(item for item in diagnosis.evidence if item.rule == "summary-models-one-bandwidth")
    low = 1.6875e9 / ((1 / 23.81 + 1 / 23.14) / 2)
    high = 4.5e9 / ((1 / 10.46 + 1 / 10.44) / 2)
    assert found.numbers["effective_bandwidth_bytes_per_second_min"] == pytest.approx(low)
    assert found.numbers["effective_bandwidth_bytes_per_second_max"] == pytest.approx(high)
    assert not _rules(diagnosis) & {"summary-slow-tpot-no-hardware", "summary-slow-tpot-cpu"}


_OBENCH = """Running benchmark 3 times using model: {first}
| Run | Eval Rate (Tokens/Second) |
|-----|-----------------------------|
| 1 | {a} tokens/s |
| 2 | {a} tokens/s |
Running benchmark 3 times using model: {second}
| Run | Eval Rate (Tokens/Second) |
|-----|-----------------------------|
| 1 | {b} tokens/s |
| 2 | {b} tokens/s |
"""


@pytest.mark.parametrize(("first", "a", "second", "b"), [
    # 1.6875 GB × 6 = 10.1 GB/s against 7.875 GB × 5.8 = 45.7 GB/s: the small model is as slow as the large one, so
    # something other than the memory sets the pace
    ("llama3.2:3b", 6.0, "deepseek-r1:14b", 5.8),
    # 7B and 8B (3.94 and 4.5 GB, 1.14× apart): sizes too close to tell a bandwidth from a fixed cost
    ("qwen2.5:7b", 5.0, "llama3.1:8b", 4.4),
])
def test_models_not_at_one_bandwidth_keep_the_cutoff(tmp_path, first, a, second, b):
    diagnosis = diagnose_files([_write(tmp_path, _OBENCH.format(first=first, a=a, second=second, b=b))])
    assert "summary-models-one-bandwidth" not in _rules(diagnosis)
    assert diagnosis.verdict == "decode-bound"


def test_a_model_column_names_each_rows_model(tmp_path):
    # | Model | Eval rate |: 3B at 12 tok/s and 8B at 4.6 tok/s -> 1.6875e9 × 12 = 20.3 GB/s, 4.5e9 × 4.6 = 20.7 GB/s
    text = ("| Model | Eval Rate (tok/s) |\n|---|---|\n| llama3.2:3b | 12.0 |\n| llama3.1:8b | 4.6 |\n")
    diagnosis = diagnose_files([_write(tmp_path, text)])
    found = next(item for item in diagnosis.evidence if item.rule == "summary-models-one-bandwidth")
    assert found.numbers["effective_bandwidth_bytes_per_second_min"] == pytest.approx(1.6875e9 * 12)
    assert found.numbers["effective_bandwidth_bytes_per_second_max"] == pytest.approx(4.5e9 * 4.6)
    assert diagnosis.verdict == "healthy"


# -- round 82 ------------------------------------------------------------------------------------------------------

def test_two_tables_pasted_with_no_line_between_are_two_tables():
    # the TTFT table's three rows (325ms, 714ms, 936ms, a unit in each cell) and llmperf's two (TTFT (ms) 700.5 and
    # 716.3): five runs, each with its own table's columns
    path = FIXTURES / "blind82_logs" / "vllm__ascend-chunked-prefill-ttft-table-and-llmperf-one-output-token.txt"
    records = read_records(path)
    assert [record.metrics["ttft_seconds_mean"] for record in records] == pytest.approx(
        [0.325, 0.714, 0.936, 0.7005, 0.7163])
    assert [record.metrics["mean_input_tokens"] for record in records] == [4962, 4962, 4962, 4000, 8000]


def test_a_table_setting_off_its_last_row_with_a_rule_stays_one_table(tmp_path):
    # a rule above a row that holds numbers is the same table's (a total, a gap): TTFT 120 and 180 ms, both read
    text = ("| Setup | TTFT (ms) | TPOT (ms) |\n|---|---|---|\n| a | 120 | 20 |\n|---|---|---|\n| b | 180 | 25 |\n")
    records = read_records(_write(tmp_path, text))
    assert [record.metrics["ttft_seconds_mean"] for record in records] == pytest.approx([0.120, 0.180])


def test_a_prompt_only_run_is_prefill():
    # 4,962-token prompts and one output token: the TTFT (325 ms: 4962 / 0.325 = 15,268 prompt tok/s) is the request
    path = FIXTURES / "blind82_logs" / "vllm__ascend-chunked-prefill-ttft-table-and-llmperf-one-output-token.txt"
    diagnosis = diagnose_files([path])
    assert diagnosis.verdict == "prefill-bound"
    found = [item for item in diagnosis.evidence if item.rule == "summary-prompt-only"]
    assert found[0].numbers == {"ttft_seconds_mean": 0.325, "mean_input_tokens": 4962}
    assert "15,268 prompt tok/s" in found[0].text


def test_a_short_prompt_only_run_is_not_judged_prefill(tmp_path):
    # 512-token prompts (under the rule's 1,024) and one output token: a fixed cost, not the prompt's work
    text = "| ISL | OSL | TTFT (ms) |\n|---|---|---|\n| 512 | 1 | 40 |\n"
    assert "summary-prompt-only" not in _rules(diagnose_files([_write(tmp_path, text)]))


# -- round 81 ------------------------------------------------------------------------------------------------------

def test_a_time_column_is_the_request_time():
    # `| Test | TTFT | TPS | PP t/s | Time |` over `| Short generation | 3641 ms | 17.6 | 5 | 3.6 s |`: the first token
    # came 3.641 s in, the whole request took 3.6 s (rounded): the first token is the last, not streamed
    path = FIXTURES / "blind81_logs" / "mlx__mlxstudio-m4-max-two-versions-two-moe-models-ttft-tps-tables.txt"
    row = next(record for record in read_records(path) if record.line_number == 27)
    assert row.metrics["ttft_seconds_mean"] == pytest.approx(3.641)
    assert row.metrics["e2e_seconds_mean"] == pytest.approx(3.6)
    diagnosis = diagnose_files([path])
    assert diagnosis.verdict == "measurement-artifact"
    assert "summary-ttft-equals-e2e" in _rules(diagnosis)


def test_a_stress_tests_response_times_are_request_latencies():
    # rich's `│ Average Response Time │ 3.55 seconds │` rows: a load tester's request latency, min 0.86 to max 4.03 s
    path = FIXTURES / "blind81_logs" / "vllm__085-qwen3-8b-stress-test-10-concurrent-response-time-table.txt"
    (record,) = read_records(path)
    assert record.metrics["e2e_seconds_mean"] == pytest.approx(3.55)
    assert (record.metrics["e2e_seconds_min"], record.metrics["e2e_seconds_max"]) == pytest.approx((0.86, 4.03))


def test_a_total_test_duration_is_the_runs_duration(tmp_path):
    text = "| Total Test Duration (s) | Mean TTFT (ms) |\n|---|---|\n| 38.16 | 120 |\n"
    (record,) = read_records(_write(tmp_path, text))
    assert record.metrics["duration_seconds"] == pytest.approx(38.16)


def test_a_rate_not_kept_with_first_tokens_on_time_is_a_batch_not_a_queue():
    # 30 req/s offered, 5.59 kept, 53.7 s for 300 requests (1.3 × (300 / 30 + latency) is less), but mean TTFT
    # 114.53 ms is 114.53 / 155.10 = 0.74 of one decode step: every request was admitted; ~175 decode at once
    # (1125.75 tok/s × 0.1551 s), a large batch's step the cutoff does not judge
    path = FIXTURES / "blind81_logs" / "vllmbench__fp8-l20-rate-30-300-requests-after-fix.txt"
    diagnosis = diagnose_files([path])
    assert "summary-rate-not-kept" not in _rules(diagnosis)
    assert any("0.7× the 155.1 ms per token" in note for note in diagnosis.notes)
    assert diagnosis.verdict == "insufficient-data"


# -- round 85 ------------------------------------------------------------------------------------------------------

def test_a_cards_name_is_no_time():
    # "costs about twice as much per token as the L40S": `L40S` is a card, not 40 s a token
    from inferledger.diagnose.parsers import generic_phrases

    records = list(generic_phrases.parse([(1, "TTFT: 235 ms, 900 tokens generated in 12 s"),
                                          (2, "the cheap L40S GPU costs about twice as much per token as the H100s")]))
    metrics = [record.metrics for record in records if hasattr(record, "metrics")]
    assert metrics and all("tpot_seconds" not in m or m["tpot_seconds"] < 1 for m in metrics)
    assert metrics[0]["ttft_seconds"] == pytest.approx(0.235)


def test_a_figure_pasted_onto_its_label_still_reads():
    # a web table's cells run together: `Total Duration320.74 s` is a request's 320.74 s
    from inferledger.diagnose.parsers import generic_phrases

    records = [record for record in generic_phrases.parse([(1, "Total Duration320.74 s")])
               if hasattr(record, "metrics")]
    assert records[0].metrics["e2e_seconds"] == pytest.approx(320.74)


# -- round 86 ------------------------------------------------------------------------------------------------------

def test_a_table_flattened_onto_one_line_is_read_row_by_row():
    # `| Model | Tokens / s | Observation | |---|---|---| | ministral‑3:3b | 13.72 | … | | ministral‑3:14b | 5.14 | …
    # | | q` (the excerpt cuts the third row): two rows of one stream's rate each
    path = FIXTURES / "blind86_logs" / "ollama__dual-xeon-2695v4-cpu-only-q4km-eight-models-story-speed-table.txt"
    rates = [record.metrics["output_tokens_per_second_per_user_mean"] for record in read_records(path)]
    assert rates == [13.72, 5.14]


def test_a_line_with_a_rule_of_dashes_but_no_rows_is_not_a_table(tmp_path):
    # one header and its rule on a line, no rows: nothing to read (and a line of prose is left alone)
    from inferledger.diagnose.parsers.bench_markdown import _one_line_rows

    assert _one_line_rows("| TTFT (ms) | TPOT (ms) | |---|---|") is None
    assert _one_line_rows("see the table below | it is --- fine") is None


# -- rounds 87 and 88 ----------------------------------------------------------------------------------------------

def test_a_first_token_quicker_than_a_millisecond_is_an_artefact():
    # vLLM's TTFT histogram: 8,060 first tokens summing to 0.5871782 s = 0.0729 ms each, for a 70B model
    path = FIXTURES / "blind87_logs" / "vllm__metrics-ttft-histogram-llama3-70b-from-0.1s-bucket.txt"
    diagnosis = diagnose_files([path])
    assert diagnosis.verdict == "measurement-artifact"
    found = next(item for item in diagnosis.evidence if item.rule == "summary-ttft-under-one-pass")
    assert found.numbers["ttft_seconds"] == pytest.approx(0.5871782302856445 / 8060)


def test_a_cut_histogram_with_every_first_token_in_its_lowest_bucket():
    # le=0.001 already holds the 208 observations every later bucket shows: each at most 1 ms
    path = FIXTURES / "blind87_logs" / "vllm__metrics-ttft-histogram-hermes-70b-tp8-lowest-buckets.txt"
    (record,) = [record for record in read_records(path) if record.kind == "summary"]
    assert record.metrics["ttft_seconds_max"] == 0.001
    assert diagnose_files([path]).verdict == "measurement-artifact"


def test_a_first_token_in_an_assumed_unit_is_not_judged_quick(tmp_path):
    # `Mean TTFT: 0.4` with no unit anywhere (JetStream's layout, read as ms): 0.4 ms is only an assumption
    text = "Mean TTFT: 0.4\nMedian TTFT: 0.4\nMean TPOT: 20.0\nMedian TPOT: 20.0\nRequest throughput (req/s): 2.0\n"
    path = _write(tmp_path, text)
    (record,) = read_records(path)
    assert record.metrics["ttft_seconds_mean"] == pytest.approx(0.0004)
    assert record.labels["latency_unit_assumed"] == "ms"
    diagnosis = diagnose_files([path])
    assert "summary-ttft-under-one-pass" not in _rules(diagnosis)


def test_a_summary_cut_before_its_e2e_rows_has_its_request_rebuilt():
    # TTFT 2882.46 ms, TPOT 10.05 ms, 40,000 / 200 = 200 output tokens: 2.88246 + 0.01005 × 199 = 4.882 s a request,
    # the first token 59 % of it
    path = FIXTURES / "blind87_logs" / "vllmbench__aibrix-pd-router-prefix-cache-before-fallback-200-requests.txt"
    diagnosis = diagnose_files([path])
    assert diagnosis.verdict == "prefill-bound"
    found = next(item for item in diagnosis.evidence if item.rule == "summary-ttft-share")
    assert found.numbers["e2e_seconds_mean"] == pytest.approx(2.88246 + 0.01005 * 199)


def test_llama_bench_with_no_device_is_a_cpu_run():
    # `--device none`, the dev column `none` on a CUDA build: 6.65 tok/s is the CPU's (41.98 GiB × 3/79.67 active ×
    # 6.65 = 11.2 GB/s of weights read), not slow for it
    path = FIXTURES / "blind88_logs" / "llamacpp__qwen3-next-80b-iq4nl-cpu-only-llama-bench-good-build.txt"
    assert all(record.labels.get("device") == "cpu" for record in read_records(path) if record.kind != "capacity")
    assert diagnose_files([path]).verdict == "healthy"


# -- round 90 ------------------------------------------------------------------------------------------------------

def test_a_prompt_only_run_whose_first_token_is_its_last_is_prefill():
    # 3,085,580 / 100 = 30,856 prompt tokens and 200 / 100 = 2 output tokens a request; TTFT 2925.44 ms, E2E 2925.45:
    # the first token is the request's end by design, not a reply that was not streamed
    path = FIXTURES / "blind90_logs" / "sglangbench__npu-deepseek-r1-kv-pool-baseline-concurrency-8-one-token-out.txt"
    diagnosis = diagnose_files([path], model="deepseek-ai/DeepSeek-R1")
    assert diagnosis.verdict == "prefill-bound"
    found = next(item for item in diagnosis.evidence if item.rule == "summary-prompt-only")
    assert found.numbers["mean_input_tokens"] == pytest.approx(3085580 / 100)
    assert "summary-ttft-equals-e2e" not in _rules(diagnosis)


def test_an_omni_summary_in_two_sections_whose_figures_leave_most_of_a_request_unexplained():
    # `================== Text Result ===================` between the E2E rows and the TTFT/TPOT rows: one summary.
    # 929 / 10 = 92.9 output tokens: 5.75819 + 0.06141 × 91.9 = 11.40 s of a 25.53 s mean request (45 %): the rest is
    # not in its figures (the audio an Omni model also generates), so it is not read healthy
    path = FIXTURES / "blind90_logs" / "vllmbench__omni-qwen3-omni-chunked-prefill-32768-concurrency-8-cut.txt"
    (record,) = [record for record in read_records(path) if record.kind == "summary"]
    assert (record.metrics["e2e_seconds_mean"], record.metrics["ttft_seconds_mean"]) == pytest.approx((25.53213, 5.75819))
    diagnosis = diagnose_files([path])
    assert diagnosis.verdict == "insufficient-data"
    predicted = {item.rule: item.numbers.get("predicted_e2e_seconds") for item in diagnosis.evidence}
    assert predicted["summary-parts-unaccounted"] == pytest.approx(5.75819 + 0.06141 * (929 / 10 - 1))


# -- rounds 91 and 92 ----------------------------------------------------------------------------------------------

def test_a_prompt_tps_column_is_a_prompt_rate():
    # `| Target | Actual Prompt Tokens | Result | Prompt TPS | Peak Memory | Wall Time |` over `| ~4K | 4,116 | … |
    # 1007.245 | 52.901 GB | 18.47s |`
    path = FIXTURES / "blind91_logs" / "mlx__2026-mlx-vlm-pr-diffusiongemma-26b-prompt-tps-by-context.txt"
    first = read_records(path)[0]
    assert first.metrics["mean_input_tokens"] == 4116
    assert first.metrics["input_tokens_per_second"] == pytest.approx(1007.245)
    assert first.metrics["e2e_seconds_mean"] == pytest.approx(18.47)


def test_a_tab_separated_table_of_serving_numbers_is_not_refused():
    # `Version<TAB>TP<TAB>Output token throughput (tok/s)<TAB>…`, then `Before<TAB>8<TAB>175.11<TAB>…`: two rows of
    # serving numbers no reader takes, reported unread
    path = FIXTURES / "blind92_logs" / "vllm__ascend-dspark-spec-decode-tp8-before-after-output-throughput-summary.txt"
    diagnosis = diagnose_files([path])
    assert diagnosis.verdict == "insufficient-data"
    assert "read-unknown-layout" in _rules(diagnosis)


# -- round 93 ------------------------------------------------------------------------------------------------------

def test_a_percentiles_digits_are_no_figure():
    # `TTFT p50 ms` names a statistic, not 50 ms; `pp512 t/s` a test, not 512 tok/s
    from inferledger.diagnose.parsers import generic_phrases

    assert generic_phrases.line_metrics("| Concurrency | TTFT p50 ms branch / main | ITL p50 ms |") == {}
    assert generic_phrases.line_metrics("pp512 t/s | tg128 t/s |") == {}


def test_a_client_capped_below_its_requests_drains_in_waves():
    # 100 requests offered at 50 req/s with `--max-concurrency 50`: they all arrive in 100 / 50 = 2 s, the run takes
    # 28.93 s (14×), but only 50 ran at once: two waves the client made, no queue the summary shows
    path = FIXTURES / "blind93_logs" / "sglangbench__pd-1p1d-two-l40-servers-short-prompts-concurrency-50.txt"
    diagnosis = diagnose_files([path])
    assert "summary-drain-beyond-arrivals" not in _rules(diagnosis)
    assert any("only 50 of its 100 requests run at once" in note for note in diagnosis.notes)


def test_two_llama_cpp_timing_lines_run_together_are_two_lines():
    # `prompt eval time = 167565.72 ms / 804 tokens (…) llama_print_timings: eval time = 26200.71 ms / 146 runs (…)`
    path = FIXTURES / "blind91_logs" / "llamacpp__2023-main-mac-mps-long-prompt-waits.txt"
    (request,) = [record for record in read_records(path) if record.kind == "request"]
    assert request.metrics["input_tokens"] == 804
    assert request.metrics["output_tokens"] == 146
    assert request.metrics["tpot_seconds"] == pytest.approx(0.17946)
    assert diagnose_files([path]).verdict == "prefill-bound"


def test_compare_llama_bench_rows_are_a_row_a_build_sized_from_the_model_cell():
    # `| Accelerate, Apple M3 Max | llama 1B Q8_0 | tg128 | 169.28 | 170.57 | 1.01 |`: two builds' tg128; no size
    # column, so the model cell sizes a step: 1e9 × 8.5 bits (Q8_0's 34 bytes a block of 32) / 8 = 1.0625 GB
    path = FIXTURES / "blind91_logs" / "llamacpp__2024-bench-metal-fa-pr-m3-max-llama-1b-q8.txt"
    rows = [record for record in read_records(path) if "generation_tokens_per_second" in record.metrics]
    assert [(row.labels["build"], row.metrics["generation_tokens_per_second"]) for row in rows] == [
        ("master", 169.28), ("gg/metal-fa-f16", 170.57)]
    assert rows[0].metrics["named_weights_bytes"] == pytest.approx(1.0625e9)
    diagnosis = diagnose_files([path])
    assert diagnosis.verdict == "healthy"
    assert any(item.numbers.get("effective_bandwidth_bytes_per_second_max") == pytest.approx(1.0625e9 * 170.57)
               for item in diagnosis.evidence)


def test_a_size_read_from_the_name_is_judged_by_the_named_cutoff():
    # mistralrs-bench's row names `mistralai/Mistral-7B-Instruct-v0.1` (7e9 at the runner's usual Q4_K_M, 4.5 bits:
    # 3.94 GB) at 73.838 tok/s: 290.7 GB/s, 48 % of the A10's 600 GB/s; under the size column's 50 % cutoff but over
    # the named 40 %: not judged far below the floor
    path = FIXTURES / "blind74_logs" / "mistralrs__bench-a10-mistral-7b-quantized-tg128-pp512-conc1.txt"
    diagnosis = diagnose_files([path], gpu="a10")
    assert not _rules(diagnosis) & {"hardware-decode-far-below-floor", "hardware-named-decode-far-below-floor"}
    assert diagnosis.verdict == "healthy"


# -- round 95 ------------------------------------------------------------------------------------------------------

def test_perf_analyzer_blocks_and_the_servers_queue():
    # Client: 6048 requests at 335.954 infer/sec, 59469 µs average; Server: 59287 µs a request, 28517 µs of it queue
    # (48 %, over the rule's 40 %): the instances were full at concurrency 20
    path = FIXTURES / "blind95_logs" / "triton__perf-analyzer-ensemble-concurrency-20-queue-vs-compute.txt"
    (record,) = read_records(path)
    assert record.metrics["max_concurrency"] == 20
    assert record.metrics["request_throughput_per_second"] == pytest.approx(335.954)
    assert record.metrics["e2e_seconds_mean"] == pytest.approx(0.059469)
    assert record.metrics["queue_seconds_mean"] == pytest.approx(0.028517)
    assert diagnose_files([path]).verdict == "queueing"
    # concurrency 1: 188 µs of 3089 (6 %) in the queue, nobody waits
    quiet = FIXTURES / "blind89_logs" / "triton__perf-analyzer-ensemble-add-sub-trial-average-concurrency-1.txt"
    assert "summary-server-queue" not in _rules(diagnose_files([quiet]))


# -- round 98 ------------------------------------------------------------------------------------------------------

def test_a_short_queue_at_a_full_batch_is_not_read_as_queueing():
    # DP ranks at 32 running each, 0-2 waiting: 2 <= 0.1 × 32 = 3.2, admitted within a few steps as requests finish
    path = FIXTURES / "blind98_logs" / "sglang__2025-h20-deepseek-r1-dp-ep-decode-batch-32-accept-len.txt"
    diagnosis = diagnose_files([path])
    assert "windows-waiting" not in _rules(diagnosis)
    assert any("at most 2 beside at least 32 running" in note for note in diagnosis.notes)


def test_a_table_copied_with_its_cells_one_space_apart_is_read_from_the_end_of_each_row(tmp_path):
    # `GPU pp512 (t/s) tg128 (t/s)` over `RTX PRO 4000 ~1018 ~27.11`: the label has spaces and digits of its own, so the
    # two numbers are the row's last two words; a tg128 rate is one stream's, 1 / 27.11 s a token.
    path = _write(tmp_path, "Qwen3-VL-32B (Q4):\n\nGPU pp512 (t/s) tg128 (t/s)\nRTX 3090 ~1138 ~36.24\n"
                            "RTX PRO 4000 ~1018 ~27.11 ± 0.40\nnot a row\n")
    rows = [record for record in read_records(path) if record.kind == "summary"]
    assert [(row.metrics["input_tokens_per_second"], row.metrics["output_tokens_per_second_per_user_mean"])
            for row in rows] == [(1138, 36.24), (1018, 27.11)]
    assert diagnose_files([path]).verdict == "healthy"
    # A header with a word that names no measure (`Notes`) is prose to this reader, not a table.
    prose = _write(tmp_path, "GPU tg128 (t/s) Notes\nRTX 3090 36.24 12\n", "prose.txt")
    with pytest.raises(LogFormatError):
        read_records(prose)
