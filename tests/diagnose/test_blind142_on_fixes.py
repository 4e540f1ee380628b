"""Blind rounds 142 on: the general fixes of the thirteenth session (rounds 142-158). Expected figures are worked out here."""

from __future__ import annotations

from pathlib import Path

import pytest

from inferledger.diagnose import diagnose_files
from inferledger.diagnose.device import device_records

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures"

# A poster's table of decode speed on a CPU box named only by its vector instruction set. 6.5 tok/s is 154 ms a
# token: slower than the GPU cutoff (10 tok/s, 100 ms) and well inside a CPU's (1 tok/s).
CPU_TABLE = """\
AVX512 llama.cpp speed report
| Model | Quantization | TPS |
|---|---|---|
| Qwen3-30B-A3B | Q2_K | 6.5 |
| Qwen3-30B-A3B | Q4_K_M | 6.5 |
"""


def test_a_run_named_by_its_vector_instruction_set_is_a_cpu_run(tmp_path):
    path = tmp_path / "cpu.txt"
    path.write_text(CPU_TABLE)
    diagnosis = diagnose_files([path])
    assert diagnosis.verdict == "healthy"
    assert any("names a CPU (AVX512)" in note for note in diagnosis.notes)
    # Without the word the same rates are slow by the GPU's cutoff.
    path.write_text(CPU_TABLE.replace("AVX512 ", ""))
    assert diagnose_files([path]).verdict == "decode-bound"
    for named in ("an AVX2 box, 8 threads", "AVX-512 server"):
        assert device_records(f"{named}\n")[0].labels["backend"] == "cpu"
    # llama.cpp's system_info flags are printed by every build, GPU ones too: not a CPU named.
    assert device_records("system_info: n_threads = 8 | AVX2 = 1 | AVX512 = 0 | AVX512_VNNI = 0 |\n") == []


def _wrk(connections: int, latency: str, requests: int, rate: float) -> str:
    return f"""\
Running 1m test @ http://10.0.0.1:8000/v1/chat/completions
  4 threads and {connections} connections
  Thread Stats   Avg      Stdev     Max   +/- Stdev
    Latency   {latency}   38.32ms   4.20s   66.93%
    Req/Sec     1.45      3.05    10.00     87.92%
  Latency Distribution
     50%    2.90s
     99%    4.10s
  {requests} requests in 1.00m, 285.10KB read
  Socket errors: connect 0, read 0, write 0, timeout 3
Requests/sec:   {rate:8.2f}
Transfer/sec:      4.74KB
"""


def test_wrk_reports_one_run_each_with_its_connections_in_flight(tmp_path):
    from inferledger.diagnose.read import read_records

    path = tmp_path / "wrk.txt"
    path.write_text(_wrk(20, "3.07s", 381, 6.34) + _wrk(100, "812.5ms", 1601, 26.64))
    first, second = [record for record in read_records(path) if getattr(record, "kind", "") == "summary"]
    assert first.source == "wrk" and first.line_number == 1
    assert first.metrics["max_concurrency"] == 20
    assert first.metrics["e2e_seconds_mean"] == 3.07
    assert first.metrics["e2e_seconds_max"] == 4.2
    assert first.metrics["e2e_seconds_median"] == 2.9 and first.metrics["e2e_seconds_p99"] == 4.1
    assert first.metrics["completed_requests"] == 381 and first.metrics["duration_seconds"] == 60.0
    assert first.metrics["failed_requests"] == 3
    assert first.metrics["request_throughput_per_second"] == 6.34
    assert second.line_number == 13 and second.metrics["e2e_seconds_mean"] == pytest.approx(0.8125)


def test_a_sweep_that_serves_more_at_a_level_latency_is_healthy(tmp_path):
    # 20 -> 100 connections is 5x the requests in flight. 6.34 -> 26.64 req/s is 4.2x (at least 0.6 x 5 = 3x) at
    # 3.07 -> 3.62 s, 1.18x the latency (at most 1.5x): the server batched them.
    path = tmp_path / "wrk.txt"
    path.write_text(_wrk(20, "3.07s", 381, 6.34) + _wrk(100, "3.62s", 1601, 26.64))
    diagnosis = diagnose_files([path])
    assert diagnosis.verdict == "healthy"
    assert "5× the requests in flight (concurrency 20 → 100) complete 4.2× the requests a second at 1.18×" \
        in diagnosis.evidence[0].text
    # 2x the requests a second for 5x in flight (under 3x): no sign of batching, and no queue either.
    path.write_text(_wrk(20, "3.07s", 381, 6.34) + _wrk(100, "3.62s", 760, 12.68))
    assert diagnose_files([path]).verdict == "insufficient-data"
    # The latency grown in step with the connections (3.07 s -> 15.35 s, 5x): requests wait for those ahead.
    path.write_text(_wrk(20, "3.07s", 381, 6.34) + _wrk(100, "15.35s", 390, 6.5))
    assert diagnose_files([path]).verdict == "queueing"


def test_a_table_with_every_cell_alone_on_its_line_is_regrouped_by_its_rule(tmp_path):
    # A documentation page copied as text: each cell on its own line, closed by a bar; the four cells above the rule
    # of four columns are the header, the cells after it rows of four, up to the next table's header above its rule.
    from inferledger.diagnose.parsers.bench_markdown import _cells_regrouped

    header = ["Concurrency |", "TTFT (ms) |", "ITL (ms) |", "Throughput(Tokens/s) |"]
    lines = ["Intro line", *header, "---|---|---|---|", "1 |", "25.05 |", "13.21 |", "75.36 |",
             "5 |", "64.82 |", "12.64 |", "387.55 |", *header, "|---|---|---|---|", "1 |", "30.1 |", "2 |"]
    regrouped = list(_cells_regrouped(enumerate(lines, 1)))
    assert regrouped[:5] == [(1, "Intro line"), (2, "| Concurrency | TTFT (ms) | ITL (ms) | Throughput(Tokens/s) |"),
                             (6, "---|---|---|---|"), (7, "| 1 | 25.05 | 13.21 | 75.36 |"),
                             (11, "| 5 | 64.82 | 12.64 | 387.55 |")]
    assert regrouped[5] == (15, "| Concurrency | TTFT (ms) | ITL (ms) | Throughput(Tokens/s) |")
    # The second table's row was cut by the excerpt after three cells: its lines stay as they were.
    assert regrouped[7:] == [(20, "1 |"), (21, "30.1 |"), (22, "2 |")]
    # Read: a sweep whose TTFT stays low, ITL 13.21 ms at one stream (75.36 tok/s, 1000 / 13.21 = 75.7).
    path = tmp_path / "nim.txt"
    path.write_text("\n".join(lines) + "\n")
    diagnosis = diagnose_files([path])
    assert diagnosis.verdict == "healthy"
    assert any("TTFT 25.1 ms, ITL 13.21 ms" in item.text for item in diagnosis.evidence)


def test_korean_and_japanese_headers_and_cells_read_as_english(tmp_path):
    # A Korean page's pivoted table: total processing time (총 처리 시간) "about 6.7 seconds" (약 6.7초) and output
    # length in tokens (출력 길이 (토큰)) per model. 6.7 s for 672 tokens is 6.7 / 672 = 10 ms a token at most.
    from inferledger.diagnose.parsers.bench_markdown import _cjk_cell

    assert [_cjk_cell(cell) for cell in ("약 6.7초", "20 秒", "约 5 秒", "452 밀리초", "約 12ミリ秒", "약 500 내외", "소형")] \
        == ["~6.7 s", "~20 s", "~5 s", "~452 ms", "~12 ms", "~500", "소형"]
    path = tmp_path / "ko.txt"
    path.write_text("항목 | 0.5B | 7B |\n---|---|---|\n총 처리 시간 | 약 6.7초 | 약 19.4초 |\n"
                    "출력 길이 (토큰) | 672 | 약 500 내외 |\n")
    diagnosis = diagnose_files([path])
    assert diagnosis.verdict == "healthy"
    e2e = sorted(item.numbers["e2e_seconds_mean"] for item in diagnosis.evidence)
    assert e2e == [6.7, 19.4]


SAME_LOAD = """\
| Metric | Through the proxy | Engine direct |
|---|---|---|
| Concurrency | {concurrency} | {concurrency} |
| Requests/sec | 17.36 | 51.42 |
| TTFT avg (s) | 9.43 | 0.74 |
"""


def test_a_path_whose_first_token_waits_under_the_same_load_is_queueing(tmp_path):
    # The same 256 requests in flight: 9.43 s against 0.74 s is 12.7x (>= 5x) and over 2 s, so the slow path holds
    # the requests before the engine starts them.
    path = tmp_path / "proxy.txt"
    path.write_text(SAME_LOAD.format(concurrency=256))
    diagnosis = diagnose_files([path])
    assert diagnosis.verdict == "queueing"
    assert "mean TTFT 9.43 s, 13× the 0.74 s of table column 'Engine direct' under the same load (256 requests" \
        in diagnosis.evidence[0].text
    # One request at a time: a first token 13x later is the prompt's work done slower, not a wait.
    path.write_text(SAME_LOAD.format(concurrency=1))
    assert diagnose_files([path]).verdict != "queueing"


RATE_SWEEP = """\
| Metric | RPS=1 | RPS=2 |
|--------|-------|-------|
| **Request Rate Configured (RPS)** | 1.00 | 2.00 |
| **Request Throughput (req/s)** | 0.94 | 1.78 |
| **Mean TTFT (ms)** | 199.34 | {ttft} |
| **P99 TTFT (ms)** | 478.80 | 9569.23 |
| **Mean TPOT (ms)** | 55.20 | {tpot} |
"""


def test_bold_row_names_keep_their_statistic_and_a_rate_sweeps_first_tokens_waiting_is_queueing(tmp_path):
    from inferledger.diagnose.read import read_records

    path = tmp_path / "sweep.txt"
    path.write_text(RATE_SWEEP.format(ttft=2962.19, tpot=72.33))
    low, high = read_records(path)
    # `**P99 TTFT (ms)**` is the p99, not a second mean over the first.
    assert low.metrics["ttft_seconds_mean"] == pytest.approx(0.19934)
    assert low.metrics["ttft_seconds_p99"] == pytest.approx(0.4788)
    assert (low.metrics["request_rate_per_second"], high.metrics["request_rate_per_second"]) == (1.0, 2.0)
    # 2962.19 / 199.34 = 14.9x (>= 5x, and >= 2 x the rate's 2x) with TPOT 72.33 / 55.20 = 1.3x (<= 2x).
    diagnosis = diagnose_files([path])
    assert diagnosis.verdict == "queueing"
    assert "mean TTFT 199 ms at 1 req/s offered, 2,962 ms at 2: 15× for 2.0× the rate and the time per output token " \
           "1.3×" in diagnosis.evidence[0].text
    # Every step 2.4x slower (132 ms): the batch grew with the load; not read as a wait by this rule.
    path.write_text(RATE_SWEEP.format(ttft=2962.19, tpot=132.0))
    assert all(item.rule != "summary-ttft-grows-with-rate" for item in diagnose_files([path]).evidence)


def test_lmcache_chunk_retrieval_lines_are_kv_loads_with_the_prefix_cache_on(tmp_path):
    from inferledger.diagnose.read import read_records

    path = tmp_path / "lmcache.txt"
    path.write_text(
        "INFO LMCache: Retrieved 0 chunks [2025-01-10 11:34:30,896] -- /lmcache/cache_engine.py:385\n"
        "INFO LMCache: Retrieved 3 chunks (767 tokens in total) --hit rate 25.03% -- elapsed time 0.0236 "
        "[2025-01-10 11:34:30,920] -- /lmcache/cache_engine.py:385\n")
    [record] = read_records(path)
    assert record.kind == "event" and record.line_number == 2
    assert record.metrics == {"kv_loaded_tokens": 767.0, "kv_load_seconds": 0.0236}
    assert record.labels["prefix_caching"] == "on"
    assert diagnose_files([path]).verdict == "insufficient-data"


def test_a_space_table_whose_label_has_words_of_its_own_and_cjk_ranges():
    from inferledger.diagnose.parsers.bench_markdown import _cjk_cell, _space_header

    # `양자화 포맷` (quantization format) is the label: two words before two measures.
    assert _space_header("양자화 포맷 PP (t/s) TG (t/s)") == ["양자화 포맷", "PP (t/s)", "TG (t/s)"]
    assert _space_header("Model PP (t/s) TG (t/s)") == ["Model", "PP (t/s)", "TG (t/s)"]
    # Two words before a single measure stay prose.
    assert _space_header("we measured TG (t/s)") is None
    # A range is read as its middle: (80 + 85) / 2 = 82.5 s.
    assert _cjk_cell("80~85초") == "~82.5 s" and _cjk_cell("약 13~14GB") == "약 13~14GB"


PHONE = """\
| Model | Backend | TTFT (ms) | TBT (ms) |
| :--- | :--- | :--- | :--- |
| llama3.2-1b | {backend} | 180.1 | 66.63 |
"""


def test_time_between_tokens_is_read_and_a_cpu_row_is_not_held_to_a_gpus_floor(tmp_path):
    from inferledger.diagnose.read import read_records
    from inferledger.diagnose.rules_requests import LARGE_MODEL_EFFICIENCY, SLOW_COMMON_CARD_BYTES_PER_S

    path = tmp_path / "phone.txt"
    path.write_text(PHONE.format(backend="cpu"))
    [record] = read_records(path)
    assert record.metrics["itl_seconds_mean"] == pytest.approx(0.06663)  # TBT: time between tokens
    assert record.labels["device"] == "cpu"
    # Llama-3.2-1B's bf16 weights (~2.47 GB) on the slow common card take 2.47e9 / (bandwidth x efficiency) a step;
    # 66.6 ms is several times that, slow for any GPU, and a CPU's pace (over its 1 s cutoff: not slow there).
    floor_s = 2.47e9 / (SLOW_COMMON_CARD_BYTES_PER_S * LARGE_MODEL_EFFICIENCY)
    assert 0.0666 > 3 * floor_s
    assert diagnose_files([path], model="meta-llama/Llama-3.2-1B").verdict != "decode-bound"
    path.write_text(PHONE.format(backend="cuda"))
    assert diagnose_files([path], model="meta-llama/Llama-3.2-1B").verdict == "decode-bound"


PERF_ANALYZER = """\
*** Measurement Settings ***
  Batch size: 256
  Using "time_windows" mode for stabilization

Request concurrency: {concurrency}
  Client:
    Request count: 1299
    Throughput: 18473.3 infer/sec
    p50 latency: 13806 usec
    p90 latency: 13945 usec
    p95 latency: 14248 usec
    p99 latency: {p99} usec
"""


def test_one_request_at_a_time_with_a_tight_tail_is_healthy(tmp_path):
    # 14610 / 13806 = 1.06 (<= 1.25): no stall; concurrency 1: nothing waits for another request.
    path = tmp_path / "pa.txt"
    path.write_text(PERF_ANALYZER.format(concurrency=1, p99=14610))
    diagnosis = diagnose_files([path])
    assert diagnosis.verdict == "healthy"
    assert "p99 1.06× the median" in diagnosis.evidence[0].text
    # A tail of 2.2x the median (30000 / 13806), or 4 requests in flight: the latency alone says nothing.
    path.write_text(PERF_ANALYZER.format(concurrency=1, p99=30000))
    assert diagnose_files([path]).verdict == "insufficient-data"
    path.write_text(PERF_ANALYZER.format(concurrency=4, p99=14610))
    assert diagnose_files([path]).verdict == "insufficient-data"


def test_a_bare_table_whose_header_opens_with_its_empty_label_cell_and_latencies_settled_by_littles_law(tmp_path):
    from inferledger.diagnose.read import read_records

    path = tmp_path / "omni.txt"
    path.write_text("  | max_concurrency | E2E | req/s\n-- | -- | -- | --\n"
                    "base | 8 | 50987.29 | 0.14\nbase | 32 | 109713.05 | 0.26\n")
    low, high = read_records(path)
    # Little's law: 8 in flight at 0.14 req/s is 57 s a request, 32 at 0.26 is 123 s; the bare figures are within 2x
    # of those as milliseconds (51.0 s, 109.7 s), a thousand times off as seconds.
    assert low.metrics["max_concurrency"] == 8 and low.metrics["request_throughput_per_second"] == 0.14
    assert low.metrics["e2e_seconds_mean"] == pytest.approx(50.98729)
    assert high.metrics["e2e_seconds_mean"] == pytest.approx(109.71305)
    assert low.labels["latency_unit_assumed"] == "ms"


def test_a_tables_engines_are_a_sweep_each(tmp_path):
    # vLLM's TTFT stays near 0.3 s from 1 to 16 in flight; SGLang's goes 0.3 -> 9.6 s, 32x for 16x the requests
    # (>= half the ratio and >= 1 s): SGLang's first tokens wait. Mixed as one sweep the medians would blur it.
    path = tmp_path / "engines.txt"
    path.write_text("| Engine | Concurrency | Mean TTFT (s) | Mean TPOT (ms) |\n|---|---|---|---|\n"
                    "| vLLM | 1 | 0.30 | 20 |\n| vLLM | 16 | 0.35 | 22 |\n"
                    "| SGLang | 1 | 0.30 | 20 |\n| SGLang | 16 | 9.60 | 22 |\n")
    diagnosis = diagnose_files([path])
    assert diagnosis.verdict == "queueing"
    grows = [item.text for item in diagnosis.evidence if item.rule == "summary-ttft-grows-with-concurrency"]
    assert grows == [grows[0]] and grows[0].startswith("SGLang: median TTFT 300 ms at concurrency 1, 9600 ms at 16")


def test_a_single_space_table_of_figure_rows_groups_its_header_words_by_the_rows_width(tmp_path):
    from inferledger.diagnose.parsers.bench_markdown import _grouped_header
    from inferledger.diagnose.read import read_records

    header = "Concurrent Output tok/s TTFT (ms) TPOT (ms) ITL p99 (ms)"
    # Seven words, rows of five figures: only one grouping names a measure in every group.
    assert _grouped_header(header, 5) == ["Concurrent", "Output tok/s", "TTFT (ms)", "TPOT (ms)", "ITL p99 (ms)"]
    assert _grouped_header("the quick brown fox", 2) is None
    path = tmp_path / "sweep.txt"
    path.write_text(f"{header}\n1 277 362 2.91 3.14\n512 18,746 2,610 15.46 47.88\n")
    low, high = read_records(path)
    assert low.metrics["max_concurrency"] == 1 and high.metrics["max_concurrency"] == 512
    assert high.metrics["ttft_seconds_mean"] == pytest.approx(2.61)
    assert high.metrics["tpot_seconds_mean"] == pytest.approx(0.01546)
    assert high.metrics["itl_seconds_p99"] == pytest.approx(0.04788)


def test_a_speed_column_in_ms_per_token_is_the_time_per_output_token():
    from inferledger.diagnose.parsers.bench_markdown import _column

    assert _column("Speed (ms/token)") == ("tpot_seconds_mean", 1e-3, "time")
    assert _column("AWQ 4bit Speed (ms/token)") == ("tpot_seconds_mean", 1e-3, "time")
    # A prompt's time per token is not a generated token's.
    assert _column("Prompt speed (ms/token)") != ("tpot_seconds_mean", 1e-3, "time")


def test_an_edge_device_named_in_a_tables_title_gets_the_cpus_cutoff(tmp_path):
    # 93.12 ms a token (10.7 tok/s) and 104.71 ms (9.6 tok/s): the second is under the GPU's 10 tok/s cutoff, and
    # both far inside the 1 s a token a CPU or an edge device is allowed.
    table = ("| Model | FP16 Speed (ms/token) |\n| --- | --- |\n| vicuna-7b | 93.12 |\n| llama2-7b-chat | 104.71 |\n")
    path = tmp_path / "edge.txt"
    path.write_text("* NVIDIA Jetson Orin:\n" + table)
    assert diagnose_files([path]).verdict == "healthy"
    path.write_text("* Our server:\n" + table)
    assert diagnose_files([path]).verdict == "decode-bound"


def _timings(prompt_ms: float, prompt_tokens: int, eval_ms: float, runs: int) -> str:
    return (f"llama_print_timings:        load time =    {prompt_ms:.2f} ms\n"
            f"llama_print_timings: prompt eval time =    {prompt_ms:.2f} ms /    {prompt_tokens} tokens "
            f"(  {prompt_ms / prompt_tokens:.2f} ms per token,  {1000 * prompt_tokens / prompt_ms:.2f} tokens per second)\n"
            f"llama_print_timings:        eval time =    {eval_ms:.2f} ms /    {runs} runs   (  {eval_ms / runs:.2f} ms "
            f"per token,  {1000 * runs / eval_ms:.2f} tokens per second)\n"
            f"llama_print_timings:       total time =    {prompt_ms + eval_ms:.2f} ms /  {prompt_tokens + runs} tokens\n")


def test_one_warm_up_call_among_several_is_a_note_not_the_verdict(tmp_path):
    # The first call's 14-token prompt at 138 ms a token against 25.9 ms a generated token (>= 3x): a warm-up. One
    # request of three (under half) voids its own prompt figures; the two steady calls are what the file shows.
    warm_up = _timings(1936.37, 14, 802.53, 31)
    steady = _timings(390.62, 32, 12520.37, 479)
    path = tmp_path / "calls.txt"
    path.write_text(warm_up + steady + steady)
    diagnosis = diagnose_files([path])
    assert diagnosis.verdict != "measurement-artifact"
    assert all(item.rule != "requests-prompt-slower-than-decode" for item in diagnosis.evidence)
    assert any(note.startswith("1 of 3 request(s) spend more time per prompt token") for note in diagnosis.notes)
    # Every call so: the prompt figures are broken throughout.
    path.write_text(warm_up * 3)
    assert diagnose_files([path]).verdict == "measurement-artifact"


def test_a_short_offline_bar_takes_its_time_from_its_rate_not_its_whole_second_clock(tmp_path):
    from inferledger.diagnose.read import read_records

    # One prompt at 2.02 it/s is 1 / 2.02 = 0.495 s, which tqdm's clock shows as 00:00.
    path = tmp_path / "offline.txt"
    path.write_text("Processed prompts: 100%|##########| 1/1 [00:00<00:00,  2.02it/s, est. speed input: 1389.95 "
                    "toks/s, output: 76.88 toks/s]\n")
    [record] = [item for item in read_records(path) if item.kind == "summary"]
    assert record.metrics["duration_seconds"] == pytest.approx(1 / 2.02)
    assert record.metrics["mean_output_tokens"] == pytest.approx(76.88 / 2.02)  # 38 tokens in that time
    # One request that ran to its end: its duration bounds its latency, and 76.9 tok/s is over the 10 tok/s cutoff.
    assert diagnose_files([path]).verdict == "healthy"


def test_a_llama_cpp_build_with_no_blas_backend_is_a_cpu_run():
    # Before late 2024 system_info said `BLAS = 1` for every GPU backend (cuBLAS, Metal's Accelerate, Vulkan, SYCL).
    flags = "AVX = 1 | AVX2 = 1 | AVX512 = 0 | FMA = 1 | F16C = 1 | BLAS = {blas} | SSE3 = 1 |"
    [record] = device_records("system_info: n_threads = 2 / 2 | " + flags.format(blas=0) + "\n")
    assert record.labels["backend"] == "cpu"
    assert device_records("system_info: n_threads = 8 / 16 | " + flags.format(blas=1) + "\n") == []
    # A GPU named beside it wins: not a CPU run.
    assert device_records("ggml_cuda_init: found 1 CUDA devices\n" + flags.format(blas=0) + "\n") == []


def test_a_decimal_comma_in_a_phrase_is_a_decimal_point():
    from inferledger.diagnose.parsers.generic_phrases import _number

    assert _number("6,20") == 6.2 and _number("16") == 16.0
    assert _number("1,234") == 1234.0 and _number("12,345,678") == 12345678.0 and _number("1,234.5") == 1234.5


def test_an_aiperf_exports_command_states_its_concurrency_and_an_unstated_cap_is_not_called_unkept(tmp_path):
    import json

    from inferledger.diagnose.read import read_records

    export = {"request_throughput": {"unit": "requests/sec", "avg": 2.16},
              "request_latency": {"unit": "ms", "avg": 6730.0},
              "time_to_first_token": {"unit": "ms", "avg": 230.1},
              "inter_token_latency": {"unit": "ms", "avg": 11.85},
              "output_token_throughput": {"unit": "tokens/sec", "avg": 1172.1},
              "request_count": {"unit": "requests", "avg": 96},
              "benchmark_duration": {"unit": "sec", "avg": 44.52}}
    path = tmp_path / "profile_export_aiperf.json"
    path.write_text(json.dumps(dict(export, cli_command="aiperf profile --model m --concurrency 16 --streaming")))
    [record] = read_records(path)
    assert record.metrics["max_concurrency"] == 16
    # 2.16 req/s x 6.73 s = 14.5 in flight of the 16 allowed: kept.
    assert diagnose_files([path]).verdict == "healthy"
    # A sweep's list names no single run's cap; unstated, the 96 requests are not taken as the allowance (the rule
    # would call 14.5 of 96 in flight a client that did not keep its requests in flight).
    path.write_text(json.dumps(dict(export, cli_command="aiperf profile --concurrency '16,32,64'")))
    [record] = read_records(path)
    assert "max_concurrency" not in record.metrics
    assert diagnose_files([path]).verdict == "healthy"


def test_bare_first_token_times_under_one_are_seconds(tmp_path):
    from inferledger.diagnose.read import read_records

    # 0.5466 as milliseconds would be a first token in half a millisecond: no LLM's forward pass is that short.
    path = tmp_path / "tpu.txt"
    path.write_text("| concurrency | avg_ttft | prefill_tps |\n|---|---|---|\n| 1 | 0.546599 | 14778.3 |\n"
                    "| 256 | 3.55723 | 352654 |\n| 1024 | 21.005 | 240170 |\n")
    records = read_records(path)
    assert [record.metrics["ttft_seconds_mean"] for record in records] == [0.546599, 3.55723, 21.005]
    # 3.56 s at 256 in flight, 21.0 s at 1024: 5.9x for 4x the requests (>= half the ratio): first tokens wait.
    assert diagnose_files([path]).verdict == "queueing"
    # All figures 1 or more say nothing by themselves: 21 could be ms or s. The rates are read, the times not.
    path.write_text("| concurrency | avg_ttft | prefill_tps |\n|---|---|---|\n| 1 | 1.5 | 14778.3 |\n| 256 | 21.0 | 352654 |\n")
    assert all("ttft_seconds_mean" not in record.metrics for record in read_records(path))


def test_a_sample_count_inside_a_metrics_object_is_not_its_value():
    from inferledger.diagnose.read import read_records

    # A sweep summary's objects: "ttft_ms": {"p50": 1053.3, "p95": 36707.6, "p99": 36707.6, "n": 3}. The 3 (and the
    # ITL's 224) are how many were timed: read as the mean they made a 3 ms first token and a 224 ms ITL.
    path = FIXTURES / "blind152_logs" / "ollama__forge-slm-cloud-arm-q4-sweep-summary-concurrency-1-and-8-three-prompt-buckets.txt"
    first = read_records(path)[0]
    assert "ttft_seconds_mean" not in first.metrics and "itl_seconds_mean" not in first.metrics
    assert first.metrics["ttft_seconds_median"] == pytest.approx(1.0533255830087)
    assert first.metrics["itl_seconds_median"] == pytest.approx(0.04799454199383035)


TORCHCHAT = """\
python torchchat.py generate llama3.2-11B --prompt "What's in this image?" --compile
Generated 74 tokens
Time for inference 3: 1.9990 sec total
Time to first token: 0.1759 sec with parallel prefill.

      Total throughput: 37.5180 tokens/sec, 0.0267 s/token
First token throughput: 5.6850 tokens/sec, 0.1759 s/token
 Next token throughput: 40.5893 tokens/sec, 0.0246 s/token
"""


def test_torchchats_generate_block_is_one_request(tmp_path):
    from inferledger.diagnose.read import read_records

    path = tmp_path / "torchchat.txt"
    path.write_text(TORCHCHAT)
    [record] = [item for item in read_records(path) if item.kind == "request"]
    assert record.line_number == 3
    assert record.metrics == {"e2e_seconds": 1.999, "output_tokens": 74.0, "ttft_seconds": 0.1759,
                              "tpot_seconds": 0.0246}
    # 24.6 ms a token (40.6 tok/s) is over the 10 tok/s cutoff, and the first token came in 176 ms.
    assert diagnose_files([path]).verdict == "healthy"


def test_a_throughput_only_table_is_read_and_judged_unjudgeable(tmp_path):
    from inferledger.diagnose.read import read_records

    path = tmp_path / "grid.csv"
    path.write_text("ISL,OSL,Requests,Request_Throughput\n1024,1024,3000,10.6385\n128,128,30000,120.5\n")
    records = read_records(path)
    assert [record.metrics["request_throughput_per_second"] for record in records] == [10.6385, 120.5]
    diagnosis = diagnose_files([path])
    assert diagnosis.verdict == "insufficient-data"
    assert all(item.rule == "summary-throughput-only" for item in diagnosis.evidence)


def test_a_result_column_of_rates_set_as_code_is_each_runs_stream_rate(tmp_path):
    from inferledger.diagnose.read import read_records

    path = tmp_path / "ollama.md"
    path.write_text("| Graphics Card | Model | Result |\n| --- | --- | --- |\n| RX 7900 XTX | llama2:13b | `68.93 Tokens/S` |\n"
                    "| RX 7900 XTX | gemma:2b | `188.32 Tokens/S` |\n")
    first, second = read_records(path)
    # 1 / 68.93 tok/s = 14.5 ms a token, over the 10 tok/s cutoff: healthy.
    assert first.metrics["output_tokens_per_second_per_user_mean"] == pytest.approx(68.93)
    assert second.metrics["output_tokens_per_second_per_user_mean"] == pytest.approx(188.32)
    assert diagnose_files([path]).verdict == "healthy"


def test_a_rows_own_model_size_turns_the_fixed_cutoff_into_a_floor(tmp_path):
    from inferledger.diagnose.rules_requests import LARGE_MODEL_EFFICIENCY, SLOW_COMMON_CARD_BYTES_PER_S

    # `tg 512` columns are llama-bench's generation rate (t/s). 5.85 t/s is 171 ms a token: slow by the 10 t/s
    # cutoff, yet a 70B model at 16 bits reads 70e9 x 2 = 140 GB a token, 140e9 / (360e9 x 0.7) = 556 ms on a slow
    # common card: the size explains it. 8B at ~4.5 bits (Q4_K_M) is ~4.5 GB: 17.9 ms, and 72.8 t/s is 13.7 ms.
    floor_s = 70e9 * 2 / (SLOW_COMMON_CARD_BYTES_PER_S * LARGE_MODEL_EFFICIENCY)
    assert 1 / 5.85 < floor_s
    path = tmp_path / "gpus.md"
    path.write_text("| GPU | Model | tg 512 | pp 512 |\n|---|---|---|---|\n| 3070 8GB | 8B Q4_K_M | 72.79 | 2402.51 |\n"
                    "| 4090 24GB * 8 | 70B F16 | 5.85 | 579.00 |\n")
    diagnosis = diagnose_files([path])
    assert diagnosis.verdict == "healthy"
    assert any(item.rule == "summary-slow-tpot-large-model" and "171 ms per output token" in item.text
               for item in diagnosis.evidence)
    # A row naming no size keeps the cutoff's reading.
    path.write_text(path.read_text().replace("70B F16", "big model"))
    assert diagnose_files([path]).verdict == "decode-bound"


def test_a_llama_bench_table_copied_without_its_bars_is_read_from_both_ends(tmp_path):
    from inferledger.diagnose.read import read_records

    path = tmp_path / "bench.txt"
    path.write_text("model size params backend ngl test t/s\n"
                    "qwen35moe ?B Q4_0 19.78 GiB 34.66 B Vulkan 99 pp512 2104.92 ± 23.25\n"
                    "qwen35moe ?B Q4_0 19.78 GiB 34.66 B Vulkan 99 tg128 104.79 ± 0.47\n")
    prompt, generation = read_records(path)
    assert prompt.metrics["prompt_tokens_per_second"] == 2104.92
    assert generation.metrics["generation_tokens_per_second"] == 104.79
    assert generation.metrics["generation_tokens_per_second_std"] == 0.47
    assert generation.metrics["weights_bytes"] == pytest.approx(19.78 * 2**30)
    assert generation.metrics["parameters"] == pytest.approx(34.66e9)


CONTEXT_ONLY = """\
| Metric | rep 1 |
|---|---|
| Total / successful / failed requests | 80 / 80 / 0 |
| Benchmark duration (s) | {duration} |
| Total input tokens | 596480 |
| Total generated tokens | 80 |
| Request throughput (req/s) | 5.99 |
| Total token throughput (tok/s) | 44631.07 |
| TTFT mean (ms) | 1289.48 |
"""


def test_a_prompt_only_runs_first_tokens_are_its_prefills_not_a_queue(tmp_path):
    # 596,480 / 80 = 7,456-token prompts and one token each. The run's input rate gives 7,456 / 44,631 = 167 ms a
    # prompt, and TTFT is 7.7x that: about 5.99 req/s x 1.29 s = 7.7 prompts prefilled at once, in a closed loop whose
    # every request is in its first-token phase. 1.29 s of a 13.4 s run is no burst's wait.
    path = tmp_path / "ctx.txt"
    path.write_text(CONTEXT_ONLY.format(duration=13.37))
    diagnosis = diagnose_files([path])
    assert diagnosis.verdict == "prefill-bound"
    assert all(item.rule != "summary-ttft-over-prompt-work" for item in diagnosis.evidence)
    # The same first tokens in a 4.5 s run (over a quarter of it): requests sent together wait their turn.
    path.write_text(CONTEXT_ONLY.format(duration=4.5))
    assert any(item.rule == "summary-ttft-over-prompt-work" for item in diagnose_files([path]).evidence)


def test_a_prompt_only_serving_run_cut_before_its_latencies_is_read_by_its_input_rate(tmp_path):
    # 4,194,304 input tokens over 512 requests is 8,192 a prompt, 1,024 generated is 2 each: prompts only.
    path = tmp_path / "prefill.txt"
    path.write_text("Backend:                                 sglang-oai\n"
                    "Traffic request rate:                    inf\n"
                    "Max request concurrency:                 256\n"
                    "Successful requests:                     512\n"
                    "Benchmark duration (s):                  143.46\n"
                    "Total input tokens:                      4194304\n"
                    "Total generated tokens:                  1024\n"
                    "Request throughput (req/s):              3.57\n"
                    "Input token throughput (tok/s):          29236.71\n"
                    "Output token throughput (tok/s):         7.14\n")
    diagnosis = diagnose_files([path])
    assert diagnosis.verdict == "prefill-bound"
    assert "8,192-token prompts and 2 output token(s) a request at 29,237 input tok/s" in diagnosis.evidence[0].text


def test_a_cpu_backend_loaded_alone_names_a_cpu_run_judged_by_a_desktops_memory(tmp_path):
    from inferledger.diagnose.rules_requests import LARGE_MODEL_EFFICIENCY, SLOW_COMMON_CPU_BYTES_PER_S

    verbose = ("ggml_backend_load_best: C:\\ollama\\lib\\ggml-cpu-icelake.dll score: 1463\n"
               "total duration:       6.1342709s\nload duration:        18.6438ms\n"
               "prompt eval count:    31 token(s)\nprompt eval duration: 193ms\nprompt eval rate:     160.62 tokens/s\n"
               "eval count:           85 token(s)\neval duration:        5.653s\neval rate:            15.04 tokens/s\n")
    path = tmp_path / "cpu.txt"
    path.write_text(verbose)
    assert device_records(verbose)[0].labels["backend"] == "cpu"
    # 5.653 s / 85 = 66.5 ms a token. A 7B at ollama's default 4.5 bits reads 7e9 x 4.5 / 8 = 3.94 GB a step: 3.94e9 /
    # (40e9 x 0.7) = 141 ms from a desktop's memory, so 66.5 ms is no slower than a CPU allows (on a 360 GB/s card it
    # would be 15.6 ms, and 66.5 ms 4.3x that).
    floor_s = 7e9 * 4.5 / 8 / (SLOW_COMMON_CPU_BYTES_PER_S * LARGE_MODEL_EFFICIENCY)
    assert 5.653 / 85 < floor_s
    assert diagnose_files([path], model="Qwen/Qwen2.5-Coder-7B-Instruct").verdict == "healthy"
    # With a GPU backend loaded beside it, the same rate is judged against the slow card: slower than its weights allow.
    path.write_text("ggml_backend_load_best: ggml-cuda.dll score: 1\n" + verbose)
    assert diagnose_files([path], model="Qwen/Qwen2.5-Coder-7B-Instruct").verdict == "decode-bound"


def _gin(second: int, latency: float) -> str:
    return f'[GIN] 2025/02/18 - 12:25:{second:02d} | 200 | {latency:12.6f}s |  10.0.0.1 | POST     "/api/chat"\n'


def test_requests_sent_together_and_finished_one_after_another_were_served_in_turn(tmp_path):
    # Six chat requests finishing at :02, :04, ... :12 with latencies 2, 4, ... 12 s all arrived at :00 (finish less
    # latency): the last took 6x the first's time (>= 3x), so each waited for the ones before it.
    path = tmp_path / "gin.txt"
    path.write_text("".join(_gin(2 * index, 2.0 * index) for index in range(1, 7)))
    diagnosis = diagnose_files([path])
    assert diagnosis.verdict == "queueing"
    assert diagnosis.evidence[0].text.startswith("6 requests arrived within 0.0 s of each other")
    # One client sending each request when the last returned (arrivals spread over the run): no finding.
    path.write_text("".join(_gin(2 * index, 2.0) for index in range(1, 7)))
    assert all(item.rule != "requests-served-in-turn" for item in diagnose_files([path]).evidence)


def test_distributed_llamas_token_lines_are_one_streams_steps(tmp_path):
    from inferledger.diagnose.read import read_records

    path = tmp_path / "dllama.txt"
    path.write_text("⏩ Loaded 4242882560 bytes\n"
                    "🔶 G  420 ms I  418 ms T    0 ms S      0 kB R      0 kB Hello\n"
                    "🔶 G  495 ms I  491 ms T    4 ms S      0 kB R      0 kB  world\n"
                    "🔶 G  410 ms I  407 ms T    2 ms S      0 kB R      0 kB !\n")
    [record] = read_records(path)
    # (420 + 495 + 410) / 3 = 441.7 ms a token over three tokens: 2.3 tok/s, slow by the 10 tok/s cutoff.
    assert record.metrics["output_tokens"] == 3
    assert record.metrics["tpot_seconds"] == pytest.approx(1.325 / 3)
    assert diagnose_files([path]).verdict == "decode-bound"


def test_a_table_of_request_latencies_alone_is_read_and_judged_unjudgeable(tmp_path):
    # Per-request wall times by model (Korean: 추론 시간 (1건), inference time for one item; 80~85초 reads as 82.5 s):
    # no tokens, so the latency says nothing about speed, but the table is read, not refused.
    path = tmp_path / "l4.md"
    path.write_text("Model | 추론 시간 (1건) | 비고 |\n---|---|---|\ngoogle/gemma-3-4b-it | 80~85초 | a |\n"
                    "Qwen/Qwen2.5-3B-Instruct | 24~28초 | b |\n")
    diagnosis = diagnose_files([path])
    assert diagnosis.verdict == "insufficient-data"
    assert {item.numbers.get("e2e_seconds_mean") for item in diagnosis.evidence} == {82.5, 26.0}


def test_a_prompt_cut_to_its_slots_context_is_noted(tmp_path):
    from inferledger.diagnose.read import read_records

    path = tmp_path / "server.txt"
    path.write_text(
        "slot update_slots: id  3 | task 1366 | new prompt, n_ctx_slot = 512, n_keep = 0, n_prompt_tokens = 837\n"
        "slot      release: id  3 | task 1366 | stop processing: n_past = 452, truncated = 1\n"
        "slot print_timing: id  3 | task 1366 |\n"
        "prompt eval time =   31945.70 ms /   325 tokens (   98.29 ms per token,    10.17 tokens per second)\n"
        "       eval time =   23513.62 ms /   128 tokens (  183.70 ms per token,     5.44 tokens per second)\n"
        "      total time =   55459.32 ms /   453 tokens\n"
        "srv  update_slots: all slots are idle\n")
    events = [record for record in read_records(path) if record.kind == "event"]
    assert [(record.line_number, record.metrics) for record in events] == [(2, {"truncated_prompts": 1.0})]
    diagnosis = diagnose_files([path])
    assert any(note.startswith("1 request(s) had their prompt cut to fit the slot's context") for note in diagnosis.notes)
    # The request itself is still read: 325 prompt tokens in 31.9 s.
    assert diagnosis.metrics["requests"] == 1


MLPERF = ('[ {{ "ID": "5.1-0001", "Submitter": "AMD", "Model": "llama2-70b-99", "Scenario": "{scenario}", '
          '"Accelerator": "AMD Instinct MI300X 192GB HBM3", "a#": 8, "compliance": 1, "errors": {errors}, '
          '"inferred": 0, "Performance_Result": 8840.42, "Performance_Units": "Tokens/s" }} ]\n')


def test_a_passing_mlperf_server_or_interactive_result_is_healthy(tmp_path):
    from inferledger.diagnose.read import read_records

    path = tmp_path / "mlperf.json"
    path.write_text(MLPERF.format(scenario="Interactive", errors=0))
    [record] = read_records(path)
    assert record.metrics == {"output_tokens_per_second": 8840.42}
    assert record.labels["mlperf_valid"] is True
    diagnosis = diagnose_files([path])
    assert diagnosis.verdict == "healthy" and diagnosis.evidence[0].rule == "summary-mlperf-valid"
    # Offline has no latency bound, and a result with errors passed nothing: the rate alone.
    for scenario, errors in (("Offline", 0), ("Interactive", 2)):
        path.write_text(MLPERF.format(scenario=scenario, errors=errors))
        assert diagnose_files([path]).verdict == "insufficient-data"
