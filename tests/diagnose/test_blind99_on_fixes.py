"""Blind rounds 99 on (tests/fixtures/blind99_logs on), the reading fixes after their blind runs.
Expected figures are the excerpts' own numbers or arithmetic written out here."""

from __future__ import annotations

import pytest
from blind_helpers import FIXTURES
from blind_helpers import rules as _rules
from blind_helpers import write as _write

from inferledger.diagnose import diagnose_files
from inferledger.diagnose.read import read_records
from inferledger.errors import LogFormatError

# -- Round 99-101 second pass ----------------------------------------------------------------------------------------

def test_a_wait_that_is_most_of_the_request_names_the_queue(monkeypatch):
    # 1,000 requests at 4 req/s, 2.11 served; 1,024,000 input tokens in 473.62 s (2,162.07 tok/s), so one 1,024-token
    # prompt's own work is 1,024 / 2,162.07 = 0.4736 s; TTFT 100.636 s and 177.82 ms × (119.55 - 1) tokens of decode.
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    path = FIXTURES / "blind99_logs" / "vllmbench__2025-v1-feedback-deepseek-r1-8xh200-random-rate-4.txt"
    diagnosis = diagnose_files([path], model="deepseek-ai/DeepSeek-R1", gpu="h200-sxm")
    assert diagnosis.verdict == "queueing"
    work = 1024 / (1024000 / 473.62)
    wait = next(item for item in diagnosis.evidence if item.rule == "summary-wait-dominates")
    assert wait.numbers["wait_seconds"] == pytest.approx(100.63633 - work)
    assert wait.numbers["request_seconds"] == pytest.approx(100.63633 + 0.17782 * (119.55 - 1))
    # The drain test: arrivals over 1,000 / 4 = 250 s plus the service time (decode 21.08 s + the prompt's work),
    # not plus the observed latency that holds the wait itself.
    kept = next(item for item in diagnosis.evidence if item.rule == "summary-rate-not-kept")
    assert f"~{250 + 0.17782 * 118.55 + work:.3g} s was expected" in kept.text


def test_sglang_early_output_file_lines_are_read_in_ms():
    path = FIXTURES / "blind99_logs" / "sglangbench__2024-multi-rate-1-2-sharegpt-64-prompts-json-lines.txt"
    first, second = read_records(path)
    assert first.metrics["ttft_seconds_median"] == pytest.approx(0.032953862100839615)
    assert first.metrics["itl_seconds_median"] == pytest.approx(0.012583150564412666)
    assert first.metrics["output_tokens_per_second"] == pytest.approx(187.74840245645584)
    assert (first.metrics["total_input_tokens"], second.metrics["request_rate_per_second"]) == (14688, 2)


def test_a_guidellm_request_latency_in_seconds_under_an_ms_title():
    # `Req Latency (ms)` mean 1.59 beside TTFT 102.6 ms: as ms the request would end before its first token; as
    # seconds it is 0.1026 + 127 tokens × 11.6 ms ≈ 1.58 s.
    path = FIXTURES / "blind99_logs" / "guidellm__2025-specforge-qwen3-sweep-without-speculative-stats-table.txt"
    (row,) = read_records(path)
    assert row.metrics["e2e_seconds_mean"] == pytest.approx(1.59)
    assert row.metrics["e2e_seconds_p99"] == pytest.approx(1.92)
    assert row.metrics["ttft_seconds_mean"] == pytest.approx(0.1026)
    assert diagnose_files([path]).verdict == "healthy"


def test_a_prompt_read_under_ten_tokens_a_second_is_the_cost(tmp_path):
    # 512 tokens in 580 s: 0.88 tok/s; 512 tokens in 20 s (25.6 tok/s) is a slow machine, not a crawl.
    crawl = _write(tmp_path, "| Prompt tokens | TTFT (s) |\n|---|---|\n| 512 | 580 |\n| 1024 | 1083 |\n")
    diagnosis = diagnose_files([crawl])
    assert diagnosis.verdict == "prefill-bound"
    rates = [item.numbers["prompt_tokens_per_second"] for item in diagnosis.evidence
             if item.rule == "summary-prompt-crawls"]
    assert rates == [pytest.approx(512 / 580), pytest.approx(1024 / 1083)]
    slow = _write(tmp_path, "| Prompt tokens | TTFT (s) |\n|---|---|\n| 512 | 20 |\n", "slow.txt")
    assert "summary-prompt-crawls" not in _rules(diagnose_files([slow]))


def test_an_ollama_verbose_block_cut_after_its_first_line():
    path = FIXTURES / "blind100_logs" / "ollama__2025-verbose-new-engine-qwen3-235b-three-gpus-spill-total-duration-only.txt"
    (request,) = read_records(path)
    assert request.metrics["e2e_seconds"] == pytest.approx(23 * 60 + 5.891375436)
    assert diagnose_files([path]).verdict == "insufficient-data"


def test_a_sweeps_concurrency_titles_are_each_blocks_concurrency():
    path = FIXTURES / "blind99_logs" / "sglangbench__2025-tokenizer-manager-p99-ttft-concurrency-1-4-8.txt"
    rows = read_records(path)
    assert [(row.metrics["max_concurrency"], row.metrics["ttft_seconds_mean"]) for row in rows] == [
        (1, pytest.approx(0.0762)), (4, pytest.approx(0.167)), (8, pytest.approx(0.26178))]


# -- Round 102-104 second pass ---------------------------------------------------------------------------------------

def test_a_line_wrapped_by_a_paste_is_unwrapped():
    from inferledger.diagnose.read import clean_line

    assert clean_line("`Avg prompt throughput: 1.0 tokens/s`") == "Avg prompt throughput: 1.0 tokens/s"
    assert clean_line("│ INFO 03-21 20:15:46 [executor_base.py:111] # cuda blocks: 7191 │   ") == \
        "INFO 03-21 20:15:46 [executor_base.py:111] # cuda blocks: 7191"
    # A table row has more bars than a frame, a code fence more backticks: left as they are.
    assert clean_line("│ TTFT │ 12.0 │") == "│ TTFT │ 12.0 │"
    assert clean_line("```text") == "```text"


def test_stats_lines_quoted_as_inline_code_and_cut_after_their_rates():
    path = FIXTURES / "blind102_logs" / "vllm__v0-2024-upgrade-0.3.2-stats-fragments-two-versions-4090.txt"
    assert [(record.metrics["prompt_tokens_per_second"], record.metrics["generation_tokens_per_second"])
            for record in read_records(path)] == [(1006.0, 273.8), (175.5, 15.5)]


def test_a_startup_profile_in_a_box_with_the_devices_block_count():
    path = FIXTURES / "blind102_logs" / "vllm__v0-k8s-deployment-startup-memory-profile-blocks.txt"
    blocks = [record.metrics for record in read_records(path) if "gpu_blocks" in record.metrics]
    assert blocks == [{"gpu_blocks": 7191, "cpu_blocks": 512}]


def test_a_triton_server_line_whose_closing_bracket_was_dropped():
    # `Avg request latency: 247496 usec (overhead 844 usec + queue 242704 usec + …` with no `)`: 242.7 of 247.5 ms.
    path = FIXTURES / "blind103_logs" / "triton__perf-analyzer-grpc-concurrency-1000-trt-fp16-queue-dominates.txt"
    (row,) = [record for record in read_records(path) if record.kind == "summary"]
    assert row.metrics["queue_seconds_mean"] == pytest.approx(0.242704)
    assert diagnose_files([path]).verdict == "queueing"


def test_a_few_dozen_prompt_tokens_are_no_prefill_share(tmp_path):
    # 29 prompt tokens in 0.517 s beside 25 tokens in 0.321 s: 62 % of the compute, but one step of fixed cost.
    hello = FIXTURES / "blind104_logs" / "ollama__2025-api-chat-response-json-llama32-one-hello-reply.txt"
    assert "requests-prefill-share" not in _rules(diagnose_files([hello]))
    # The same split for a 200-token prompt is the prompt's work.
    text = hello.read_text().replace('"prompt_eval_count": 29', '"prompt_eval_count": 200')
    assert "requests-prefill-share" in _rules(diagnose_files([_write(tmp_path, text, "long.txt")]))


def test_an_evalscope_summary_is_read_once():
    # `Average time to first token: 0.200` is evalscope's, in seconds; read again as a headless JetStream block it
    # was 0.2 ms.
    path = FIXTURES / "blind4_logs" / "evalscope__glm4-9b-parallel-1-one-request.txt"
    (row,) = read_records(path)
    assert (row.labels["tool"], row.metrics["ttft_seconds_mean"]) == ("evalscope", 0.2)


# -- Round 108-109 second pass ---------------------------------------------------------------------------------------

def test_a_percentile_table_is_one_runs_statistics():
    # evalscope's `Percentile results`: the 50 % row is the median, 90 % the p90; 10 %, 66 % … are not read.
    path = FIXTURES / "blind109_logs" / "evalscope__lmdeploy-percentile-table-1024-out-ttft-seconds.txt"
    (run,) = read_records(path)
    assert run.metrics["ttft_seconds_median"] == pytest.approx(6.1869)
    assert run.metrics["tpot_seconds_p90"] == pytest.approx(0.081)
    assert run.metrics["e2e_seconds_median"] == pytest.approx(87.1149)
    assert (run.metrics["mean_input_tokens"], run.metrics["mean_output_tokens"]) == (1074, 1024)
    assert not any("p10" in name or "p66" in name for name in run.metrics)


def test_a_reply_not_streamed_is_no_wait():
    # evalscope with one package a reply: TTFT = latency = 36.727 s; the first token holds the whole decode.
    path = FIXTURES / "blind109_logs" / "evalscope__minicpm-vllm-100-concurrent-summary.txt"
    diagnosis = diagnose_files([path])
    assert "summary-wait-dominates" not in _rules(diagnosis)
    assert diagnosis.verdict == "measurement-artifact"


def test_llama_bench_rows_without_their_header():
    path = FIXTURES / "blind109_logs" / "llamacpp__ik-llama-bench-deepseek-r1-q8-16x3090-pp-tg-rows.txt"
    rows = read_records(path)
    assert [row.labels["test"] for row in rows][:2] == ["pp8192", "tg128"]
    assert rows[1].metrics["generation_tokens_per_second"] == 17.24
    assert rows[1].metrics["weights_bytes"] == pytest.approx(307.20 * 2**30)
    assert rows[1].labels["truncated"] == "rows without their header"


def test_a_llama_cpp_model_too_big_for_one_card_is_judged_on_a_layer_split(tmp_path, monkeypatch):
    # Llama-3.1-70B in bf16 (141 GB) on 24 GB cards: llama.cpp passes a token through the cards' layers in turn, so
    # the candidate layouts are pipelines (tp 1), never a tensor split.
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    log = _write(tmp_path, "| model | size | params | backend | ngl | test | t/s |\n|---|---|---|---|---|---|---|\n"
                           "| llama 70B BF16 | 131.42 GiB | 70.55 B | CUDA | 99 | tg128 | 3.50 ± 0.01 |\n")
    diagnosis = diagnose_files([log], model="meta-llama/Llama-3.1-70B-Instruct", gpu="rtx-3090")
    layout = next(line for line in diagnosis.roofline["lines"] if "do not fit one" in line)
    assert "layer split" in layout and "tp 1" not in layout.split("judged on")[0]
    assert "pp" in layout.split("judged on")[1].split(",")[0]


# DeepSeek-V3/R1 (config.json, bundled): 61 layers, the first 3 dense, the other 58 with 256 routed experts of which
# 8 run per token, each expert 3 matrices of 7,168 x 2,048; 129,280 x 7,168 embedding. Published: 671B parameters,
# 37B activated per token (DeepSeek-V3 technical report, arXiv 2412.19437, abstract).
_R1_ROUTED = 58 * 256 * 3 * 7168 * 2048
_R1_ROUTED_ACTIVE = 58 * 8 * 3 * 7168 * 2048
_R1_EMBEDDING = 129_280 * 7168


def test_a_mixture_named_without_its_active_size_reads_its_active_share():
    from inferledger.diagnose.named_model import mixture_read

    size = 307.20 * 2**30  # the ik_llama.cpp row's size column
    read = mixture_read("deepseek2 671B Q8_0", 672.05e9, size)
    assert read is not None and read.source.startswith("deepseek-ai/DeepSeek-")
    # Least: every tensor at the file's mean width, the 37B active (less the embedding, one row of it read) of 671B.
    assert read.low_bytes == pytest.approx(size * (37e9 - _R1_EMBEDDING) / 671e9, rel=0.02)
    # Most: everything but the routed experts at 8.5 bits, the experts holding the rest of the file.
    dense = 671e9 - _R1_ROUTED
    per_expert_param = (size - dense * 8.5 / 8) / _R1_ROUTED
    most = (37e9 - _R1_ROUTED_ACTIVE - _R1_EMBEDDING) * 8.5 / 8 + _R1_ROUTED_ACTIVE * per_expert_param
    assert read.high_bytes == pytest.approx(most, rel=0.03)
    # Names that are no mixture, or a total no catalogued mixture has: nothing guessed.
    assert mixture_read("llama 8B Q4_K - Medium", 8.03e9, 4.58 * 2**30) is None
    assert mixture_read("qwen3moe 57B Q4_K", 57.4e9, 32 * 2**30) is None


def test_a_mixtures_llama_bench_rows_are_judged_on_the_share_a_step_reads():
    # 18.09 t/s x 307.2 GiB = 5.97 TB/s, 6.4x an RTX 3090's 936 GB/s: what the file size says, not what a step
    # reads. 37B of 671B active (less the embedding) is 18.0 GB a step, 326 GB/s: 35 % of the card; with the dense
    # part at 8.5 bits ~27 GB, ~490 GB/s (52 %): between the cutoffs, and no artefact.
    path = FIXTURES / "blind109_logs" / "llamacpp__ik-llama-bench-deepseek-r1-q8-16x3090-pp-tg-rows.txt"
    diagnosis = diagnose_files([path], gpu="rtx-3090")
    assert diagnosis.verdict == "healthy"
    finding = next(item for item in diagnosis.evidence if item.rule == "hardware-decode-near-floor")
    least = 18.09 * 307.20 * 2**30 * (37e9 - _R1_EMBEDDING) / 671e9
    assert finding.numbers["effective_bandwidth_bytes_per_second_max"] == pytest.approx(least, rel=0.02)
    assert 0.45 < finding.numbers["effective_bandwidth_bytes_per_second_most"] / 936e9 < 0.6


def test_a_mixture_faster_than_the_card_at_its_least_read_is_still_an_artefact(tmp_path):
    # gpt-oss-20b: 3.61B of 20.91B parameters active (OpenAI's gpt-oss model card, its counts leaving the embedding
    # out), so a step reads at least 11.27 GiB x 3.61 / 20.91 = 2.09 GB; 900 t/s is then >= 1.88 TB/s, 2x an RTX 3090.
    log = _write(tmp_path, "| model | size | params | backend | ngl | test | t/s |\n|---|---|---|---|---|---|---|\n"
                           "| gpt-oss 20B MXFP4 MoE | 11.27 GiB | 20.91 B | CUDA | 99 | tg128 | 900.00 ± 1.00 |\n")
    diagnosis = diagnose_files([log], gpu="rtx-3090")
    assert diagnosis.verdict == "measurement-artifact"
    least = 900 * 11.27 * 2**30 * 3.61e9 / 20.91e9
    finding = next(item for item in diagnosis.evidence if item.rule == "hardware-decode-faster-than-floor")
    assert finding.numbers["effective_bandwidth_bytes_per_second_max"] == pytest.approx(least, rel=0.01)


def test_a_mixture_sized_from_its_name_reads_its_active_share(tmp_path):
    # No size column: `deepseek2 671B Q8_0` names 671B at 8.5 bits (Q8_0's 34 bytes per 32 weights), 713 GB, of
    # which a step reads the 37B active less the embedding: 38.9 GB; at 18.09 t/s 704 GB/s, 75 % of a 3090's 936.
    log = _write(tmp_path, "| model | backend | ngl | test | t/s |\n|---|---|---|---|---|\n"
                           "| deepseek2 671B Q8_0 | CUDA | 63 | tg128 | 18.09 ± 0.01 |\n")
    diagnosis = diagnose_files([log], gpu="rtx-3090")
    finding = next(item for item in diagnosis.evidence if item.rule == "hardware-decode-near-floor")
    step = 671e9 * 8.5 / 8 * (37e9 - _R1_EMBEDDING) / 671e9
    assert finding.numbers["bandwidth_fraction"] == pytest.approx(step * 18.09 / 936e9, rel=0.02)
    assert diagnosis.verdict == "healthy"


_OLD_BENCHMARK_SERVING = ("Total time: {total} s\nThroughput: {rate} requests/s\nAverage latency: {latency} s\n"
                          "Average latency per token: {per_token} s\nAverage latency per output token: {per_output} s\n")


def test_a_latency_per_output_token_far_past_a_step_with_many_in_flight_is_a_wait(tmp_path):
    # 3.60 req/s x 87.19 s = 314 requests in flight, each output token costing 1.26 s of a request's latency: no
    # decode step of a GPU is that slow, so the time was spent waiting.
    log = _write(tmp_path, _OLD_BENCHMARK_SERVING.format(total=278.14, rate=3.60, latency=87.19, per_token=0.27,
                                                         per_output=1.26))
    diagnosis = diagnose_files([log])
    assert diagnosis.verdict == "queueing"
    finding = next(item for item in diagnosis.evidence if item.rule == "summary-latency-per-output-token")
    assert finding.numbers["requests_in_flight"] == pytest.approx(3.60 * 87.19)


def test_a_latency_per_output_token_stands_down_for_a_fast_token_or_few_in_flight(tmp_path):
    # 0.04 s per output token is a decode step's time; 0.05 req/s x 87.19 s = 4.4 requests in flight is too few.
    for rate, per_output in ((3.60, 0.04), (0.05, 1.26)):
        log = _write(tmp_path, _OLD_BENCHMARK_SERVING.format(total=278.14, rate=rate, latency=87.19, per_token=0.27,
                                                             per_output=per_output))
        assert all(item.rule != "summary-latency-per-output-token" for item in diagnose_files([log]).evidence)


def test_lmcache_multi_round_qa_summary_is_one_run(tmp_path):
    # LMCache's multi-round QA benchmark prints QPS (requests launched ÷ time: what it offered) before Processing
    # speed (what finished), and one stream's generation rate in tokens/req/s.
    log = _write(tmp_path, "==================== Performance summary ======================\n"
                           "  QPS: 4.1000 reqs/s\n\n  Processing speed: 1.3203 reqs/s\n\n  Requests on-the-fly: 335\n\n"
                           "  Input tokens per second: 27823.5798 tokens/s\n\n"
                           "  Output tokens per second: 132.0343 tokens/s\n\n"
                           "  Average generation throughput (per request): 8.5716 tokens/req/s\n\n"
                           "  Average TTFT: 47.5952s\n")
    (run,) = [record for record in read_records(log) if record.kind == "summary"]
    assert run.metrics["request_rate_per_second"] == 4.1
    assert run.metrics["request_throughput_per_second"] == 1.3203
    assert run.metrics["output_tokens_per_second_per_user_mean"] == 8.5716
    assert run.metrics["ttft_seconds_mean"] == pytest.approx(47.5952)



def test_a_runtimes_glog_tag_on_every_line_is_a_paste_prefix(tmp_path):
    # RKLLM's stage table behind `I rkllm: `: Prefill 21 tokens in 373.42 ms, Generate 12 tokens at 107.86 ms each.
    rule = "I rkllm: " + "-" * 40 + "\n"
    log = _write(tmp_path, rule + "I rkllm:  Stage         Total Time (ms)  Tokens    Time per Token (ms)      Tokens per "
                 "Second\n" + rule + "I rkllm:  Init          1528.08          /         /                        /\n"
                 "I rkllm:  Prefill       373.42           21        17.78                    56.24\n"
                 "I rkllm:  Generate      1294.38          12        107.86                   9.27\n" + rule)
    (request,) = [record for record in read_records(log) if record.kind == "request"]
    assert request.metrics["prefill_seconds"] == pytest.approx(0.37342) and request.metrics["input_tokens"] == 21
    assert request.metrics["decode_seconds"] == pytest.approx(1.29438) and request.metrics["output_tokens"] == 12
    assert request.metrics["tpot_seconds"] == pytest.approx(0.10786)


def test_a_console_tables_rule_under_its_header_is_skipped(tmp_path):
    # club-3090's multi-turn bench: `Turn  Prompt tok  TTFT ms  Decode TPS  Result chars`, a dashed rule, then a row
    # a turn: 1,256 prompt tokens, first token at 1,153 ms, decode at 109.1 tok/s.
    log = _write(tmp_path, "  Turn  Prompt tok   TTFT ms  Decode TPS  Result chars\n"
                           "  ----- ---------- --------- ----------- -------------\n"
                           "  1          1,256      1153       109.1           307\n"
                           "  2          1,484      1266       118.4           249\n")
    first, second = [record for record in read_records(log) if record.kind == "summary"]
    assert first.metrics == {"mean_input_tokens": 1256.0, "ttft_seconds_mean": pytest.approx(1.153),
                             "output_tokens_per_second": 109.1}
    assert second.metrics["mean_input_tokens"] == 1484.0


def _ds4_request(tmp_path, *lines: str):
    """The log of ds4-server `lines` (each after its `MMDD HH:MM:SS ds4-server: ` stamp) and its one request."""
    log = _write(tmp_path, "".join(f"0925 10:18:05 ds4-server: {line}\n" for line in lines))
    (request,) = [record for record in read_records(log) if record.kind == "request"]
    return log, request


def test_a_ds4_server_request_from_its_progress_and_end_lines(tmp_path):
    # ds4-server: the prompt (81 tokens) done in 0.971 s, decode at 43.72 tok/s to 289 tokens in 6.610 s (cumulative),
    # the request ended after 7.581 s.
    _log, request = _ds4_request(
        tmp_path, "chat ctx=0..81:81 prompt start", "chat ctx=0..81:81 prompt done 0.971s",
        "chat ctx=81..131:50 gen=50 THINKING decoding chunk=41.61 t/s avg=41.61 t/s 1.202s",
        "chat ctx=331..370:39 gen=289 decoding chunk=41.66 t/s avg=43.72 t/s 6.610s",
        "chat ctx=0..81:81 gen=289 finish=stop 7.581s")
    assert request.metrics == {"input_tokens": 81.0, "output_tokens": 289.0, "e2e_seconds": 7.581,
                               "prefill_seconds": 0.971, "decode_seconds": 6.61,
                               "generation_tokens_per_second": 43.72, "tpot_seconds": pytest.approx(1 / 43.72)}


def test_a_ds4_server_request_whose_prompt_line_was_cut_away(tmp_path):
    # 69,865 prompt tokens, 512 generated in 52.291 s of decode, 542.528 s in all: the other 490.2 s read the prompt.
    log, request = _ds4_request(
        tmp_path, "chat ctx=70365..70377:12 gen=512 THINKING decoding chunk=9.78 t/s avg=9.79 t/s 52.291s",
        "chat ctx=0..69865:69865 gen=512 THINKING finish=length 542.528s")
    assert request.metrics["prefill_seconds"] == pytest.approx(542.528 - 52.291)
    assert diagnose_files([log]).verdict == "prefill-bound"


def test_ttft_that_jumps_past_a_servers_batch_is_queueing_though_the_sweep_starts_at_one(tmp_path):
    # TTFT 585 ms at 1, 2,017 at 256, 104,260 at 1,024, 570,017 at 4,096: the ends alone (975x for 4,096x) are under
    # half the concurrency ratio, but 256 -> 4,096 is 283x for 16x: requests wait beyond the batch the server runs.
    log = _write(tmp_path, "| Concurrency | Num Prompts | TTFT (ms) | TPOT (ms) | tok/s/gpu |\n"
                           "|---|---|---|---|---|\n| 1 | 64 | 585 | 28.38 | 4 |\n| 16 | 256 | 338 | 51.63 | 37 |\n"
                           "| 64 | 512 | 634 | 87.27 | 85 |\n| 256 | 1024 | 2,017 | 169.96 | 169 |\n"
                           "| 1024 | 2048 | 104,260 | 437.72 | 179 |\n| 4096 | 4096 | 570,017 | 437.19 | 188 |\n")
    diagnosis = diagnose_files([log])
    assert diagnosis.verdict == "queueing"
    finding = next(item for item in diagnosis.evidence if item.rule == "summary-ttft-grows-with-concurrency")
    assert finding.numbers["concurrency_low"] == 256 and finding.numbers["concurrency_high"] == 4096
    assert finding.numbers["ttft_seconds_high"] / finding.numbers["ttft_seconds_low"] == pytest.approx(570.017 / 2.017)


def test_shapes_run_before_their_warm_up_make_the_timings_an_artefact(tmp_path):
    # vLLM on Gaudi: two shapes met without their warm-up, glued to a progress bar as the terminal printed them.
    log = _write(tmp_path, "Processed prompts:   0%|          | 0/1 [00:00<?, ?it/s, est. speed input: 0.00 toks/s, "
                           "output: 0.00 toks/s]WARNING 10-28 17:27:29 hpu_model_runner.py:1887] Configuration: "
                           "(prompt, 1, 1408) was not warmed-up!\n"
                           "WARNING 10-28 17:27:30 hpu_model_runner.py:1887] Configuration: (decode, 1, 128) was not "
                           "warmed-up!\n"
                           "Processed prompts: 100%|##########| 1/1 [00:00<00:00,  8.82it/s, est. speed input: "
                           "12218.54 toks/s, output: 26.48 toks/s]\n")
    events = [record for record in read_records(log) if record.kind == "event"]
    assert [event.labels["shape"] for event in events] == ["prompt, batch 1, length 1408", "decode, batch 1, length 128"]
    diagnosis = diagnose_files([log])
    assert diagnosis.verdict == "measurement-artifact"
    finding = next(item for item in diagnosis.evidence if item.rule == "state-not-warmed-up")
    assert finding.numbers["unwarmed_shapes"] == 2


def test_a_scrape_of_two_requests_is_too_few_to_call_healthy(tmp_path):
    # A /metrics scrape whose TTFT histogram counts 2 requests, both in the lowest bucket shown (<= 2.5 s).
    buckets = "".join(f'time_to_first_token_seconds_bucket{{le="{bound}"}} 2.0\n'
                      for bound in ("2.5", "5.0", "10.0", "+Inf"))
    log = _write(tmp_path, "# TYPE time_to_first_token_seconds histogram\n" + buckets
                 + "time_to_first_token_seconds_count 2.0\ntime_to_first_token_seconds_sum 2.1\n")
    diagnosis = diagnose_files([log])
    assert diagnosis.verdict == "insufficient-data"
    finding = next(item for item in diagnosis.evidence if item.rule == "summary-scrape-few-requests")
    assert finding.numbers["requests_counted"] == 2


def test_a_ds4_server_prompt_line_with_its_flags(tmp_path):
    # An agent's turn: `TOOLS` between the context span and `prompt done`; 731 prompt tokens in 8.397 s.
    _log, request = _ds4_request(
        tmp_path, "chat ctx=86197..86928:731 TOOLS prompt done 8.397s",
        "chat ctx=87178..87204:26 gen=276 TOOLS DSML_START DSML_END decoding chunk=16.63 t/s avg=15.91 t/s 17.345s",
        "chat ctx=86197..86928:731 gen=276 TOOLS DSML_START DSML_END finish=tool_calls 25.743s")
    assert request.metrics["prefill_seconds"] == 8.397 and request.metrics["input_tokens"] == 731


# -- Round 124 (results files committed to repositories) ----------------------------------------------------------

_SGLANG_SUMMARY = ("============ Serving Benchmark Result ============\n"
                   "Backend:                                 sglang\n"
                   "Traffic request rate:                    2.0\n"
                   "Successful requests:                     100\n"
                   "Benchmark duration (s):                  60.00\n"
                   "Total input tokens:                      30000\n"
                   "Total generated tokens:                  20000\n"
                   "Request throughput (req/s):              1.67\n"
                   "Input token throughput (tok/s):          500.00\n"
                   "Output token throughput (tok/s):         333.33\n"
                   "----------------End-to-End Latency----------------\n"
                   "Mean E2E Latency (ms):                   {e2e_mean}\n"
                   "Median E2E Latency (ms):                 {e2e_median}\n"
                   "---------------Time to First Token----------------\n"
                   "Mean TTFT (ms):                          {ttft_mean}\n"
                   "Median TTFT (ms):                        {ttft_median}\n"
                   "-----Time per Output Token (excl. 1st token)------\n"
                   "Mean TPOT (ms):                          {tpot}\n"
                   "---------------Inter-token Latency----------------\n"
                   "Mean ITL (ms):                           {itl}\n"
                   "Median ITL (ms):                         {itl}\n"
                   "P99 ITL (ms):                            {itl}\n"
                   "==================================================\n")


@pytest.mark.parametrize("figures, shows", [
    # The medians equal (606.88 ms to the first token, 606.86 ms to the last): the means differ by 1 % (2,074 against
    # 2,098 ms), under the 0.999 share, so only the medians show the reply came whole.
    ({"e2e_mean": 2098.07, "e2e_median": 606.86, "ttft_mean": 2074.09, "ttft_median": 606.88, "tpot": 1.76,
      "itl": 12.0}, "median first-token latency"),
    # TTFT a fifth of the request, but no gap between any two tokens of 200 a request (20,000 / 100).
    ({"e2e_mean": 5000.0, "e2e_median": 4900.0, "ttft_mean": 1000.0, "ttft_median": 950.0, "tpot": 20.1,
      "itl": 0.00}, "every inter-token latency statistic is 0"),
])
def test_a_reply_that_reached_the_client_whole_is_an_artefact_not_a_queue(tmp_path, figures, shows):
    log = _write(tmp_path, _SGLANG_SUMMARY.format(**figures))
    diagnosis = diagnose_files([log])
    assert diagnosis.verdict == "measurement-artifact"
    finding = next(item for item in diagnosis.evidence if item.rule == "summary-ttft-equals-e2e")
    assert shows in finding.text
    # TTFT holds the decode: neither a wait (input 300 tokens at 500 tok/s = 0.6 s against a 2.07 s TTFT would read
    # as one) nor a prefill share is read from it.
    assert not _rules(diagnosis) & {"summary-ttft-over-prompt-work", "summary-wait-dominates", "summary-ttft-share"}


def test_a_streamed_run_with_real_gaps_is_not_called_whole(tmp_path):
    log = _write(tmp_path, _SGLANG_SUMMARY.format(e2e_mean=5000.0, e2e_median=4900.0, ttft_mean=1000.0,
                                                  ttft_median=950.0, tpot=20.1, itl=20.0))
    assert "summary-ttft-equals-e2e" not in _rules(diagnose_files([log]))


_LLM_BENCHMARK = "".join(f"model_name =    {model}\nprompt = a question\neval rate:            {rate} tokens/s\n"
                         for model, rate in (("llava:7b", "20.36"), ("llava:7b", "20.48"), ("phi4:14b", "8.67"),
                                             ("deepseek-r1:14b", "6.06"), ("deepseek-r1:14b", "3.22")))


def test_requests_of_several_models_are_not_one_model_slowing(tmp_path):
    # 20.48 tok/s down to 3.22 is 6.4x, past requests-decode-slowed's 2x, but across three models (llm_benchmark names
    # each before its prompts), so it is no model losing speed.
    log = _write(tmp_path, _LLM_BENCHMARK)
    records = [record for record in read_records(log) if record.kind == "request"]
    assert [record.labels["model"] for record in records] == ["llava:7b", "llava:7b", "phi4:14b", "deepseek-r1:14b",
                                                              "deepseek-r1:14b"]
    diagnosis = diagnose_files([log])
    assert "requests-decode-slowed" not in _rules(diagnosis)
    assert any("requests name 3 models" in note for note in diagnosis.notes)


def test_one_models_requests_slowing_still_read(tmp_path):
    # The same five rates all under one `ollama run` line: 20.48 / 3.22 = 6.4x slower, one model.
    log = _write(tmp_path, "$ ollama run llava:7b --verbose\n" + "".join(
        f"eval rate:            {rate} tokens/s\n" for rate in ("20.36", "20.48", "8.67", "6.06", "3.22")))
    assert "requests-decode-slowed" in _rules(diagnose_files([log]))


_SHIFTED = ("| total duration | load duration | prompt eval count | prompt eval duration | prompt eval rate | eval count "
            "| eval duration | eval rate |\n|---|---|---|---|---|---|---|---|\n"
            "| 7.945641583s | 18 token(s) | 61.145167ms | 294.38 tokens/s | 1003 token(s) | 9.638424s | 104.06 tokens/s "
            "| 7.856417ms |\n"
            "| 28 token(s) | 31.569958ms | 886.92 tokens/s | 314 token(s) | 2.276363959s | 137.94 tokens/s | 7.115292ms "
            "| 14 token(s) |\n")


def test_a_table_whose_cells_slipped_against_its_header_is_an_artefact(tmp_path):
    # Row 1: a count under `load duration`, a time under `prompt eval count`, a rate under `prompt eval duration`, ...;
    # read by position, `7.856417ms` under `eval rate` was a 7.86 tok/s stream (127 ms a token).
    diagnosis = diagnose_files([_write(tmp_path, _SHIFTED)])
    assert diagnosis.verdict == "measurement-artifact"
    finding = next(item for item in diagnosis.evidence if item.rule == "state-table-misaligned")
    assert finding.numbers["misaligned_table_rows"] == 2
    assert not any(record.kind == "summary" for record in read_records(tmp_path / "log.txt"))


def test_rates_under_a_phase_header_are_not_a_slip(tmp_path):
    # `30K token generation` names a phase, not a count: its `25 t/s` cells are its own.
    log = _write(tmp_path, "| Model | Engine | 30K prompt processing | 30K token generation |\n|---|---|---|---|\n"
                           "| m | MLX | 82.5s | 25 t/s |\n| m | llama.cpp | 78s | 32 t/s |\n")
    assert not any(record.kind == "event" for record in read_records(log))


def test_a_second_header_pasted_without_its_rule_heads_the_rows_after_it(tmp_path):
    # `E2EL p50` holds digits but is a name: the row heads the E2E rows, which are not read under `tok/s`.
    log = _write(tmp_path, "| c | tok/s | TTFT p50 |\n|---:|---:|---:|\n| 1 | 50.2 | 122 ms |\n| 4 | 178.1 | 393 ms |\n"
                           "| c | E2EL p50 | TPOT p99 |\n| 1 | 5,105 ms | 19.54 ms |\n| 4 | 5,746 ms | 21.89 ms |\n")
    records = read_records(log)
    assert not any(record.kind == "event" for record in records)
    assert [record.metrics.get("tpot_seconds_p99") for record in records if record.kind == "summary"][-2:] \
        == [pytest.approx(0.01954), pytest.approx(0.02189)]


_VEGETA = ("Requests      [total, rate, throughput]         600, 10.02, 3.43\n"
           "Duration      [total, attack, wait]             2m51s, 59.9s, 1m51s\n"
           "Latencies     [min, mean, 50, 90, 95, 99, max]  69.935ms, 2.731s, 112.643ms, 181.423ms, 396.757ms, 2m0s, "
           "2m0s\n"
           "Bytes In      [total, mean]                     774253, 1290.42\n"
           "Success       [ratio]                           97.83%\n"
           "Status Codes  [code:count]                      0:13  200:587\n"
           "Error Set:\n"
           'Post "http://localhost:9088/v1/responses": context deadline exceeded (Client.Timeout exceeded while '
           "awaiting headers)\n")


def test_a_vegeta_report_is_one_run(tmp_path):
    (record,) = [record for record in read_records(_write(tmp_path, _VEGETA)) if record.kind == "summary"]
    metrics = record.metrics
    assert metrics["requests_sent"] == 600 and metrics["request_rate_per_second"] == 10.02
    assert metrics["request_throughput_per_second"] == 3.43
    assert metrics["duration_seconds"] == pytest.approx(2 * 60 + 51)
    assert metrics["e2e_seconds_median"] == pytest.approx(0.112643) and metrics["e2e_seconds_p99"] == 120
    assert (metrics["completed_requests"], metrics["failed_requests"]) == (587, 13)


def test_a_vegeta_attack_the_server_cannot_keep_up_with_is_a_queue(tmp_path):
    # 3,000 requests at 50/s served at 28.03/s: 107 s for what 60 s of arrivals would take.
    report = (_VEGETA.replace("600, 10.02, 3.43", "3000, 50.02, 28.03").replace("2m51s, 59.9s, 1m51s",
                                                                                  "1m45s, 59.979s, 44.987s")
              .replace("0:13  200:587", "0:58  200:2942"))
    diagnosis = diagnose_files([_write(tmp_path, report)])
    assert diagnosis.verdict == "queueing"


# -- Round 123 ------------------------------------------------------------------------------------------------------

def test_llama_benchy_rows_without_their_header(tmp_path):
    # llama-benchy's test second and its rate third (`tg32 @ d192512 | 21.98 ± 0.00`), its own columns after
    # (peak t/s, times to the first response in ms), left unread.
    rows = (("pp2048 @ d192512", "1522.61 ± 0.00", "", "116000.03 ± 0.00"), ("tg32 @ d192512", "21.98 ± 0.00",
                                                                             "23.00 ± 0.00", ""))
    log = _write(tmp_path, "".join("| llamacpp-model | " + " | ".join(row) + " |\n" for row in rows))
    prompt, generation = [record for record in read_records(log) if record.kind == "interval"]
    assert (prompt.metrics["prompt_tokens_per_second"], generation.metrics["generation_tokens_per_second"]) \
        == (1522.61, 21.98)
    assert generation.metrics["context_depth_tokens"] == 192512 and generation.labels["tool"] == "llama-benchy"


# -- Round 126 ------------------------------------------------------------------------------------------------------

def test_llama_server_slot_lines_cut_before_any_timing_are_its_format(tmp_path):
    # A 44,328-token prompt in 2,048-token batches, cut before its timing lines: llama-server's log, with nothing to
    # judge yet (no stamp to time the batches by), not an unknown file.
    log = _write(tmp_path, "".join(
        f"slot update_slots: id  0 | task 4440 | prompt processing progress, n_past = {526 + 2048 * step}, "
        f"n_tokens = 2048, progress = {(526 + 2048 * step) / 44328:.6f}\n" for step in (1, 2, 3)))
    diagnosis = diagnose_files([log])
    assert diagnosis.verdict == "insufficient-data"
    assert diagnosis.files[0]["formats"] == ["llamacpp"]


# -- Later fixes (2026-12-05) ---------------------------------------------------------------------------------------

def test_a_two_column_console_summary_is_read_and_its_unit_picks_the_rate(tmp_path):
    # QServe's performance summary (tabulate's plain layout: the label, two spaces or more, the value; blind round 95):
    # `Token QPS (token/s)` is a token rate by its unit, `Service QPS (req/s)` the request rate.
    log = _write(tmp_path, "Performance Summary\n-----------------------------  -------\n"
                           "Successful Request             359\nRequest_Gen_Token_Len          1024\n"
                           "Avg_Input_Token_Len            1737.53\nAvg_Gen_Token_Len              1000.3\n"
                           "Time_to_First_Token_AVG (s)    9.957\nTime_per_Output_Token_AVG (s)  0.029\n"
                           "Latency_AVG (s)                34.043\nToken QPS (token/s)            1587.65\n"
                           "Service QPS (req/s)            1.59\n")
    [summary] = [record for record in read_records(log) if record.kind == "summary"]
    m = summary.metrics
    assert (m["ttft_seconds_mean"], m["tpot_seconds_mean"], m["e2e_seconds_mean"]) == (9.957, 0.029, 34.043)
    assert (m["output_tokens_per_second"], m["request_throughput_per_second"]) == (1587.65, 1.59)
    assert (m["mean_input_tokens"], m["mean_output_tokens"]) == (1737.53, 1000.3)  # not the 1,024 asked for


def test_two_runs_paired_in_each_cell_are_read_as_two_runs(tmp_path):
    # A PR's sweep, each cell `branch / main` (blind round 93's Dynamo table, first rows): a run each.
    table = ("| Concurrency | Req/s branch / main | TTFT p50 ms branch / main | ITL p50 ms branch / main |\n"
             "|---|---|---|---|\n"
             "| 1 | 1.07 / 0.98 | 479 / 588 | 1.50 / 1.54 |\n"
             "| 100 | 3.39 / 2.72 | 26610 / 28235 | 4.47 / 5.21 |\n")
    summaries = [record for record in read_records(_write(tmp_path, table)) if record.kind == "summary"]
    assert [record.metrics["max_concurrency"] for record in summaries] == [1, 1, 100, 100]
    assert [record.metrics["ttft_seconds_median"] for record in summaries] == pytest.approx(
        [0.479, 0.588, 26.610, 28.235])
    assert [record.metrics["itl_seconds_median"] for record in summaries] == pytest.approx(
        [0.0015, 0.00154, 0.00447, 0.00521])
    # 479 ms -> 26.6 s for 100x the requests in flight: the first tokens wait.
    assert diagnose_files([_write(tmp_path, table)]).verdict == "queueing"
    # A column with one figure in a cell is no pair: the table is left as printed (and no run read from it).
    single = table.replace("| 479 / 588 |", "| 479 |")
    with pytest.raises(LogFormatError):
        read_records(_write(tmp_path, single))


def test_a_full_batchs_short_queue_does_not_spoil_healthy(tmp_path):
    # SGLang decode ranks at their 32-request cap, one or two requests waiting (blind round 98): admitted as soon as
    # one of the 32 finishes, a wait of a few steps; 21 tok/s a request at a KV use of 22 %. Healthy. Waiting 5
    # (over a tenth of the 32 running) is a queue.
    def log(queues):
        return "".join(
            f"[2025-10-20 03:02:{10 + index:02d} TP0] Decode batch. #running-req: 32, #token: 160000, "
            f"token usage: 0.22, cuda graph: True, gen throughput (token/s): {680 - 5 * index:.2f}, #queue-req: {queue}"
            "\n" for index, queue in enumerate(queues))
    diagnosis = diagnose_files([_write(tmp_path, log([0, 1, 1, 2]))])
    assert diagnosis.verdict == "healthy"
    assert "a queue of at most 2 beside 32+ running" in diagnosis.evidence[0].text
    assert diagnose_files([_write(tmp_path, log([0, 5, 5, 5]), "queued.txt")]).verdict == "queueing"


def test_a_cpu_named_with_no_accelerator_is_judged_by_a_cpus_cutoff(tmp_path):
    # vLLM's CPU build prints the same stats lines, `GPU KV cache usage` included. 7.3 tok/s for one request is slow
    # for a GPU (under the 10 tok/s cutoff) and a CPU's usual pace (over its one token a second).
    from inferledger.diagnose.device import device_records

    stats = "".join(
        f"(APIServer pid=1) INFO 06-12 05:47:{seconds} [loggers.py:259] Engine 000: Avg prompt throughput: 0.0 "
        "tokens/s, Avg generation throughput: 7.3 tokens/s, Running: 1 reqs, Waiting: 0 reqs, GPU KV cache usage: "
        "0.5%, Prefix cache hit rate: 0.0%\n" for seconds in (17, 27, 37))
    assert diagnose_files([_write(tmp_path, stats)]).verdict == "decode-bound"
    named = "INFO 06-12 05:40:00 [cpu_worker.py:1] host: Intel(R) Xeon(R) Platinum 8480+, 56 cores\n" + stats
    diagnosis = diagnose_files([_write(tmp_path, named, "cpu.txt")])
    assert diagnosis.verdict == "healthy"
    assert any("names a CPU (Xeon)" in note for note in diagnosis.notes)
    # Any accelerator named beside it (a CUDA line, a card, "GPU" other than vLLM's KV cache line) is no CPU run.
    for accelerator in ("CUDA 12.4 available", "2 x RTX 4090", "offloaded 33/33 layers to GPU"):
        assert device_records(f"Xeon Gold 6338 host\n{accelerator}\n") == []
    assert device_records("Xeon Gold 6338 host, no GPU\n")[0].labels["backend"] == "cpu"


def test_a_card_the_driver_tools_list_is_the_logs_gpu(tmp_path):
    # `nvidia-smi -L` (or collect_env's GPU lines) pasted above the log: every card one catalogue part, so the log is
    # judged against it as if --gpu were given. A card the catalogue does not hold, or two parts, names none.
    from inferledger.diagnose.device import device_records

    listed = "".join(f"GPU {index}: NVIDIA H100 80GB HBM3 (UUID: GPU-{index}a2f)\n" for index in range(2))
    stats = ("INFO 06-12 05:47:17 [loggers.py:259] Engine 000: Avg prompt throughput: 0.0 tokens/s, Avg generation "
             "throughput: 95.0 tokens/s, Running: 1 reqs, Waiting: 0 reqs, GPU KV cache usage: 0.5%, Prefix cache hit "
             "rate: 0.0%\n")
    diagnosis = diagnose_files([_write(tmp_path, listed + stats)], model="meta-llama/Llama-3.1-8B")
    assert diagnosis.roofline["lines"][0] == "named by the log: gpu h100-sxm"
    assert device_records("  Device 0: NVIDIA GeForce RTX 2080 SUPER, compute capability 7.5\n") == []  # not catalogued
    assert device_records("GPU 0: NVIDIA H100 80GB HBM3 (UUID: a)\nGPU 1: NVIDIA A100-SXM4-80GB (UUID: b)\n") == []
    [record] = device_records("|   0  NVIDIA GeForce RTX 4090        Off |   00000000:01:00.0  On |          Off |\n")
    assert record.labels["gpu"] == "rtx-4090"


def test_bare_latencies_take_the_unit_their_per_token_times_settle(tmp_path):
    # A PR's serving table with no unit anywhere (blind round 77): a time per output token of 42 is milliseconds (42 s
    # a token is no served model's), so the TTFT beside it is 193 ms; 0.042 would be seconds; 1.0 settles nothing.
    def table(ttft, tpot):
        return f"Version | MeanTTFT | MeanTPOT\n--|--|--\nmain branch | {ttft} | {tpot}\nthis PR | {ttft} | {tpot}\n"

    [summary, _] = [record for record in read_records(_write(tmp_path, table("193.03", "42.45"))) if
                    record.kind == "summary"]
    assert summary.metrics["ttft_seconds_mean"] == pytest.approx(0.19303)
    assert summary.metrics["tpot_seconds_mean"] == pytest.approx(0.04245)
    assert summary.labels["latency_unit_assumed"] == "ms"
    [summary, _] = [record for record in read_records(_write(tmp_path, table("0.193", "0.042"), "s.txt"))
                    if record.kind == "summary"]
    assert summary.metrics["ttft_seconds_mean"] == pytest.approx(0.193)
    assert summary.labels["latency_unit_assumed"] == "s"
    with pytest.raises(LogFormatError):  # a per-token time of 1.0 could be either: nothing is read
        read_records(_write(tmp_path, table("1.9", "1.0"), "either.txt"))


def test_bare_summary_latencies_take_the_unit_a_time_per_token_settles(tmp_path):
    # `label: value` lines with no unit: a TPOT of 30.8 is ms, so the TTFT of 374.3 is too; without a per-token
    # line (and no rate and concurrency for Little's law) nothing settles them and they are listed unread.
    [summary] = read_records(_write(tmp_path, "Mean TTFT: 374.3\nMean TPOT: 30.8\nMean ITL: 22.9\n"))
    assert summary.metrics["ttft_seconds_mean"] == pytest.approx(0.3743)
    assert summary.metrics["tpot_seconds_mean"] == pytest.approx(0.0308)
    assert summary.labels["latency_unit_assumed"] == "ms"
    unsettled = diagnose_files([_write(tmp_path, "Mean TTFT: 374.3\nMean E2E: 980.1\n", "e2e.txt")])
    assert unsettled.verdict == "insufficient-data"


# -- Round 130 ------------------------------------------------------------------------------------------------------

def test_a_header_rule_of_one_cell_still_rules_a_table(tmp_path):
    # A page's text extraction keeps one cell of the rule (`|---|` under four headers): the rows below are the table's,
    # a run a row and TTFT column (two runs of each model: before and after a fix).
    table = ("| Model | Early TTFT | clean4 TTFT | Speedup |\n|---|\n| qwen | 27574.564 ms | 1100.044 ms | 25.067x |\n"
             "| minilm | 23.342 ms | 22.621 ms | 1.032x |\n")
    summaries = [record for record in read_records(_write(tmp_path, table)) if record.kind == "summary"]
    assert [record.metrics["ttft_seconds_mean"] for record in summaries] == pytest.approx(
        [27.574564, 1.100044, 0.023342, 0.022621])


# -- Twelfth session: general fixes without a new round ---------------------------------------------------------------

def test_a_mean_rate_named_by_its_unit_beside_a_ttft_is_one_streams(tmp_path):
    # llmfit's shared bench row: `Avg TPS` beside `Avg TTFT (ms)`; one request at a time, 58.7 tok/s is one stream's. A rate named by a variant (`Throughput tok/s`) beside a TTFT may be the run's: not read as a stream's.
    table = "| Model | Provider | Avg TPS | Avg TTFT (ms) |\n| --- | --- | --- | --- |\n| Qwen/Qwen3-8B | vllm | 58.7 | 120 |\n"
    [summary] = [record for record in read_records(_write(tmp_path, table)) if record.kind == "summary"]
    assert summary.metrics["output_tokens_per_second_per_user_mean"] == pytest.approx(58.7)
    assert summary.metrics["ttft_seconds_mean"] == pytest.approx(0.120)
    other = table.replace("Avg TPS", "Throughput tok/s")
    assert diagnose_files([_write(tmp_path, other, "t.txt")]).verdict == "insufficient-data"  # listed unread
    row = FIXTURES / "blind114_logs" / "other__llmfit-bench-share-rtx-4090-qwen3-8b-vllm-one-row.txt"
    # Qwen3-8B in bf16 (~16.4 GB) on an RTX 4090 (1,008 GB/s): ~61 tok/s at the bandwidth floor; 58.7 is near it
    assert diagnose_files([row], model="Qwen/Qwen3-8B", gpu="rtx-4090").verdict == "healthy"


# -- Round 131 ------------------------------------------------------------------------------------------------------

PERF_SWEEP = ("Inferences/Second vs. Client Average Batch Latency\n"
              "Concurrency: 1, throughput: {0} infer/sec, latency 43041 usec\n"
              "Concurrency: 2, throughput: {1} infer/sec, latency 85590 usec\n"
              "Concurrency: 4, throughput: {2} infer/sec, latency 167879 usec\n")


def test_perf_analyzer_sweep_lines_pasted_from_a_diff_and_flat_throughput_is_queueing(tmp_path):
    # Each `+`-led line of a pull request's diff is the line itself. From 1 to 4 in flight the completed requests a
    # second stay at ~23 (flat: 23.8 / 23.2 ≤ 1.25) while the latency grows 43 -> 168 ms (3.9× for 4×, ≥ 0.75 × 4):
    # the server takes one request at a time.
    diff = "".join(f"+{line}\n" for line in PERF_SWEEP.format(23.2174, 23.3284, 23.773).splitlines())
    records = read_records(_write(tmp_path, diff))
    assert [record.metrics["max_concurrency"] for record in records] == [1, 2, 4]
    assert records[2].metrics["e2e_seconds_mean"] == pytest.approx(0.167879)
    assert records[2].metrics["request_throughput_per_second"] == pytest.approx(23.773)
    assert diagnose_files([_write(tmp_path, diff, "d.txt")]).verdict == "queueing"
    # A server that batches: the same latencies under a second, but the throughput grows 4× with the load (no queue
    # shown: each level's requests run together).
    batching = PERF_SWEEP.format(23.2, 46.1, 92.5)
    assert diagnose_files([_write(tmp_path, batching, "b.txt")]).verdict != "queueing"


def test_first_and_next_token_lines_with_no_unit_are_the_two_phases(tmp_path):
    # IPEX-LLM's vLLM latency script: `first token` / `next token`, no unit; the per-token time (15.19 ≥ 2) settles ms
    text = "first token: 100.4761297517689\nnext token: 15.190188343637834\n"
    [summary] = [record for record in read_records(_write(tmp_path, text)) if record.kind == "summary"]
    assert summary.metrics["ttft_seconds_mean"] == pytest.approx(0.1004761297517689)
    assert summary.metrics["tpot_seconds_mean"] == pytest.approx(0.015190188343637834)
    assert summary.labels["latency_unit_assumed"] == "ms"


def test_a_scheduler_log_of_token_counts_is_listed_unread_not_refused(tmp_path):
    # `7820 new tokens` is a measurement: a file naming a prefill with such lines gets insufficient-data with the
    # lines listed, not a refusal as no log.
    text = ("Scheduled prefill batch: 1 reqs, 7820 new tokens (cached: [0], new: [7820]), req_ids: (0,)\n"
            "Scheduled prefill batch: 1 reqs,   12 new tokens (cached: [7808], new: [12]),   req_ids: (1,)\n")
    diagnosis = diagnose_files([_write(tmp_path, text)])
    assert diagnosis.verdict == "insufficient-data"
    assert "not read" in diagnosis.evidence[0].text
    with pytest.raises(LogFormatError):  # the same numbers with no unit at all: no measurement
        diagnose_files([_write(tmp_path, "Scheduled prefill batch: 1 reqs, 7820 (0, 7820)\n", "bare.txt")])


def test_requests_a_second_spelled_reqs_ties_a_measurement_to_serving(tmp_path):
    # Ray Serve's replica sweep (`… 422.71s elapsed = 4.73 reqs/s/replica`): no reader knows the layout, but `reqs/s`
    # is a serving rate, so the lines are listed unread (insufficient-data) rather than the file refused as no log.
    text = ("MODEL='Qwen2.5-0.5B-Instruct' N_REPLICAS=1 N_REQUESTS=2000 422.71s elapsed =  4.73 reqs/s/replica\n"
            "MODEL='Qwen2.5-0.5B-Instruct' N_REPLICAS=8 N_REQUESTS=2000 57.28s  elapsed =  4.36 reqs/s/replica\n")
    diagnosis = diagnose_files([_write(tmp_path, text)])
    assert diagnosis.verdict == "insufficient-data" and "not read" in diagnosis.evidence[0].text


# -- Round 132 ------------------------------------------------------------------------------------------------------

ARTILLERY = """Metrics for period to: 15:03:50(+0000) (width: 9.5s)
--------------------------------------------------------------------------------

http.codes.200: ................................................................ 28
http.request_rate: ............................................................. 3/sec
http.requests: ................................................................. 30
http.response_time:
  min: ......................................................................... 105
  max: ......................................................................... 9120
  mean: ........................................................................ 4210.5

--------------------------------
Summary report @ 15:04:12(+0000)
--------------------------------

http.codes.200: ................................................................ 238
http.codes.500: ................................................................ 2
http.downloaded_bytes: ......................................................... 91928
http.request_rate: ............................................................. 3/sec
http.requests: ................................................................. 240
http.response_time:
  min: ......................................................................... 105
  max: ......................................................................... 16348
  mean: ........................................................................ 6655.3
  p95: ......................................................................... 12968.3
vusers.session_length:
  min: ......................................................................... 120.4
  mean: ........................................................................ 6700.1
"""


def test_artillery_report_blocks_are_summaries(tmp_path):
    # artillery prints a block every period and the summary last; response times are milliseconds; the codes split
    # completed (2xx) from failed; a vuser's session length is the scenario's, not a request's (not read).
    first, summary = read_records(_write(tmp_path, ARTILLERY))
    assert first.metrics["requests_sent"] == 30 and first.metrics["completed_requests"] == 28
    assert first.metrics["e2e_seconds_max"] == pytest.approx(9.120)
    assert summary.metrics["request_rate_per_second"] == 3
    assert (summary.metrics["completed_requests"], summary.metrics["failed_requests"]) == (238, 2)
    assert summary.metrics["e2e_seconds_mean"] == pytest.approx(6.6553)
    assert summary.metrics["e2e_seconds_p95"] == pytest.approx(12.9683)
    assert "e2e_seconds_min" in summary.metrics and summary.metrics["e2e_seconds_min"] == pytest.approx(0.105)


def test_a_prompt_length_stated_above_a_table_explains_its_ttft(tmp_path):
    # One request at a time, a 4K-token prompt: TTFT 12.57 s is 3.1 ms a prompt token, under the 43.3 ms decode step
    # (1 / 23.1 tok/s): the prompt's own work accounts for it, no queue. TTFT 12.57 of 45.89 s (27 %) makes it
    # prefill-bound. Without the line above, TTFT is 290× the step with no prompt length: one runner's stream (its
    # own decode rate, no load stated) waits for no slot, so the late first token is still the prompt's (round 433).
    table = ("| engine | turn | TTFT (s) | wall (s) | decode tok/s |\n|---|---:|---:|---:|---:|\n"
             "| llama.cpp | 1 (cold) | 12.57 | 45.89 | 23.1 |\n")
    stated = _write(tmp_path, "- 4K-token prompt, `max_tokens=2048`\n\n" + table)
    [summary] = [record for record in read_records(stated) if record.kind == "summary"]
    assert summary.metrics["mean_input_tokens"] == 4000
    assert diagnose_files([stated]).verdict == "prefill-bound"
    bare = diagnose_files([_write(tmp_path, table, "bare.txt")])
    assert bare.verdict == "prefill-bound"
    assert "summary-ttft-over-tpot-few-in-flight" in {item.rule for item in bare.evidence}
    assert "summary-ttft-over-tpot" not in {item.rule for item in bare.evidence}


def test_token_and_request_rates_tabulated_a_metric_a_row_are_rates(tmp_path):
    # llm-d's guide table: `Input tokens/sec` is a rate, not a prompt length; `Requests/sec` a request rate.
    table = ("| Metric | k8s (Mean) |\n| :--- | :--- |\n| Requests/sec | 5.7306 |\n| Input tokens/sec | 43,417.86 |\n"
             "| Output tokens/sec | 5,362.16 |\n| TTFT (s) | 34.9145 |\n| Inter-token latency (ms) | 70.42 |\n")
    [summary] = read_records(_write(tmp_path, table))
    assert summary.metrics["request_throughput_per_second"] == pytest.approx(5.7306)
    assert summary.metrics["input_tokens_per_second"] == pytest.approx(43417.86)
    assert summary.metrics["output_tokens_per_second"] == pytest.approx(5362.16)
    assert "mean_input_tokens" not in summary.metrics and "mean_output_tokens" not in summary.metrics


def test_a_table_pivoted_on_concurrency_reads_its_metric_from_its_title(tmp_path):
    # `### p50 recall latency (ms) vs concurrency` over `| c | pool=1 | pool=4 |`: a run a column, the concurrency a
    # row. pool=1 goes 3,290 -> 11,648 ms from 1 to 4 in flight (3.5× for 4×, past 0.75 × 4 = 3): one request after
    # another; pool=4 stays flat (1.2×).
    text = ("### p50 recall latency (ms) vs concurrency\n\n| c | pool=1 | pool=4 |\n|---|---|---|\n"
            "| 1 | 3,290 | 3,174 |\n| 2 | 6,064 | 3,388 |\n| 4 | 11,648 | 3,756 |\n")
    records = read_records(_write(tmp_path, text))
    assert [(r.labels["benchmark"], r.metrics["max_concurrency"]) for r in records][:2] == [("pool=1", 1), ("pool=4", 1)]
    assert records[4].metrics["e2e_seconds_median"] == pytest.approx(11.648)
    diagnosis = diagnose_files([_write(tmp_path, text, "t.txt")])
    assert diagnosis.verdict == "queueing"
    assert {item.text.split(":")[0] for item in diagnosis.evidence if item.verdict == "queueing"} == {"pool=1"}
    # the same table under a title naming no measure: its cells are no metric the reader knows
    with pytest.raises(LogFormatError):
        read_records(_write(tmp_path, text.replace("p50 recall latency (ms)", "results"), "u.txt"))


def test_a_first_numbered_call_ten_times_the_others_is_a_cold_start(tmp_path):
    # Two runs of three calls to a hosted model: 195.8 s then 7.7 and 11.7 s (median of the later 9.7: 20×); the
    # numbering starting again opens the second run (241.556 s vs 8.623: 28×).
    text = ("* **Call 1: 195.8 sec**\n* Call 2: 7.7 sec\n* Call 3: 11.7 sec\n\n"
            "* **Call 1: 241.556 sec**\n* Call 2: 5.951 sec\n* Call 3: 11.295 sec\n")
    first, second = read_records(_write(tmp_path, text))
    assert (first.metrics["first_call_seconds"], first.metrics["later_calls_seconds_median"]) == (195.8, 9.7)
    assert second.metrics["later_calls_seconds_median"] == pytest.approx((5.951 + 11.295) / 2)
    assert first.metrics["e2e_seconds_mean"] == pytest.approx((195.8 + 7.7 + 11.7) / 3)
    assert diagnose_files([_write(tmp_path, text, "cold.txt")]).verdict == "measurement-artifact"
    steady = "Request 1: 10.1 s\nRequest 2: 9.8 s\nRequest 3: 10.4 s\n"  # alike: a latency, nothing else to judge
    assert diagnose_files([_write(tmp_path, steady, "steady.txt")]).verdict == "insufficient-data"
