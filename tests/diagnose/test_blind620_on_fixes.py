"""Blind rounds 620 on: the general fixes of the twenty-ninth session. Expected figures are worked out here."""

from __future__ import annotations

import pytest
from blind_helpers import diagnosed, parsed, rules, write


def _reconcile(prompt: int, ttft_ms: float, tokens: int, tpot_ms: float) -> str:
    return (f"[2025-05-15 16:53:57.237075] I srv                 reconcile: rid 3713558753769 | prefill_t = {prompt}, "
            f"prefill_cached_t = 0, prefill_tps = {prompt / ttft_ms * 1e3:.2f} tps, ttft = {ttft_ms:.2f}ms, "
            f"decode_t = {tokens}, decode_tps = {1e3 / tpot_ms:.2f} tps, tpot = {tpot_ms:.2f}ms, draft_t = 0, "
            f"draft_apt = 0.00%, total_t = {prompt + tokens}, stop_r = stop\n")


def test_llama_box_reconcile_line_is_a_request_with_both_phases(tmp_path):
    # GPUStack's llama-box ends each request with one reconcile line: 11 prompt tokens whose first token took
    # 1,924.62 ms (175 ms a prompt token), then 400 tokens at 44.31 ms each (17.72 s). A prompt token never costs
    # more than a generated one, so 175 / 44.31 = 3.95x holds something other than prompt work.
    from inferledger.diagnose.parsers import llamacpp

    path = write(tmp_path, "I srv                     start: server is ready\n" + _reconcile(11, 1924.62, 400, 44.31))
    (record,) = parsed(llamacpp, path)
    assert record.kind == "request" and record.labels["variant"] == "llama-box"
    assert record.metrics["input_tokens"] == 11 and record.metrics["output_tokens"] == 400
    assert record.metrics["ttft_seconds"] == pytest.approx(1.92462)
    assert record.metrics["decode_seconds"] == pytest.approx(400 * 0.04431)
    assert 1.92462 / 11 / 0.04431 == pytest.approx(3.95, abs=0.01)
    diagnosis = diagnosed(tmp_path, "I srv start: server is ready\n" + _reconcile(11, 1924.62, 400, 44.31))
    assert "requests-prompt-slower-than-decode" in rules(diagnosis)
    assert diagnosis.verdict == "measurement-artifact"
    # A 2,000-token prompt in 400 ms (0.2 ms a token) before the same answer: an ordinary request
    assert diagnosed(tmp_path, _reconcile(2000, 400.0, 400, 44.31), "fast.txt").verdict == "healthy"


def test_meta_llama_3_is_judged_with_llama_3_1_s_config(tmp_path):
    # Meta-Llama-3-8B and Llama-3.1-8B state the same sizes (32 layers of 4096, 32/8 heads, MLP 14336, 128256
    # tokens): with no config at hand, the catalogue's 3.1 config gives the ledger's account, not the name's guess.
    # One stream at 40 ms a token on an H100: a step reads the 8.03e9 bf16 weights but the embedding table (128256 x
    # 4096, of which it reads one row each token): 7.505e9 x 2 B = 15.01 GB in 15.01 / 3350 = 4.48 ms (plus the
    # cache), so the step is over 8x the floor.
    from inferledger.diagnose.named_model import catalog_twin

    assert catalog_twin("meta-llama/Meta-Llama-3-8B-Instruct") == ("meta-llama/Llama-3.1-8B", None)
    assert catalog_twin("meta-llama/Meta-Llama-3-70B") == ("meta-llama/Llama-3.1-70B", None)
    assert catalog_twin("meta-llama/Meta-Llama-3-8B-Instruct-AWQ") == ("meta-llama/Llama-3.1-8B", "int4")
    text = ("llama_print_timings:        eval time =   10000.00 ms /   250 runs   (   40.00 ms per token,    25.00 "
            "tokens per second)\n")
    diagnosis = diagnosed(tmp_path, text, model="meta-llama/Meta-Llama-3-8B-Instruct", gpu="h100-sxm")
    assert diagnosis.roofline["architecture_from"] == "meta-llama/Llama-3.1-8B"
    assert "release of the same layers" in diagnosis.roofline["lines"][0]
    weights_bytes = (8.03e9 - 128256 * 4096) * 2
    assert diagnosis.roofline["ledger_decode_seconds_per_token"] == pytest.approx(weights_bytes / 3.35e12, rel=0.03)
    assert diagnosis.verdict == "decode-bound"


def test_a_request_rate_beside_token_rates_makes_them_a_run_s(tmp_path):
    # vLLM's benchmark_throughput prints `Throughput: 8.60 requests/s, …, Output tokens/s: 1792.37`: 8.6 requests a
    # second cannot be one stream, so 1,792 tokens a second is all the streams together, not one stream's 0.56 ms a
    # token.
    text = ("**FlashAttention-2**:\n"
            "`Throughput: 8.60 requests/s, Input tokens/s: 1733.22, Output tokens/s: 1792.37`\n"
            "**FlashInfer**:\n"
            "`Throughput: 7.79 requests/s, Input tokens/s: 1568.72, Output tokens/s: 1622.26`\n")
    diagnosis = diagnosed(tmp_path, text)
    runs = [item for item in diagnosis.evidence if item.rule == "summary-throughput-only"]
    assert len(runs) == 2 and "1792.4 output tok/s" in runs[0].text
    assert not any("ms/token" in item.text for item in diagnosis.evidence)
    assert diagnosis.verdict == "insufficient-data"
    # The same figures with no request rate stay one runner's phrases (a request's generation rate).
    single = diagnosed(tmp_path, "Input tokens/s: 1733.22, Output tokens/s: 52.37\n", "one.txt")
    assert any("19.1 ms/token" in item.text for item in single.evidence)


def test_livekit_metrics_are_requests_whose_rate_is_over_the_whole_call(tmp_path):
    # LiveKit's LLM metrics: ttft and duration in seconds; tokens_per_second is completion tokens over the whole call
    # (42 / 1.42 s = 29.6), no generation rate. The 0.x pipeline line states no duration: 11 tokens at 4.99 a
    # second over the call is 11 / 4.99 = 2.20 s.
    from inferledger.diagnose.parsers import livekit

    text = ("INFO livekit.agents - type='llm_metrics' label='livekit.plugins.openai.llm.LLM' request_id='a1' "
            "timestamp=1748428916.4 duration=1.42 ttft=0.38 cancelled=False completion_tokens=42 prompt_tokens=839 "
            "prompt_cached_tokens=512 total_tokens=881 tokens_per_second=29.58\n"
            "INFO livekit.agents - type='llm_metrics' label='x' request_id='a2' duration=0.4 ttft=0.30 "
            "cancelled=True completion_tokens=3 prompt_tokens=900 tokens_per_second=7.5\n"
            '{"message": "Pipeline LLM metrics: sequence_id=fea6e2011213, ttft=2.10, input_tokens=839, '
            'output_tokens=11, tokens_per_second=4.99", "level": "INFO", "name": "livekit.agents"}\n')
    first, second = parsed(livekit, write(tmp_path, text))  # the cancelled turn is not read
    assert first.metrics == {"output_tokens": 42, "input_tokens": 839, "cached_tokens": 512, "ttft_seconds": 0.38,
                             "e2e_seconds": 1.42}
    assert second.metrics["e2e_seconds"] == pytest.approx(11 / 4.99) and second.metrics["ttft_seconds"] == 2.10
    assert "generation_tokens_per_second" not in first.metrics | second.metrics


def test_a_request_s_first_token_under_a_millisecond_is_no_forward_pass(tmp_path):
    # Gemini Live through LiveKit: ttft 9.39e-05 s (94 us) for a 3,047-token turn; one forward pass of any model
    # takes milliseconds, so the clock started after the first content came. The token details' nested counts
    # (`audio_tokens=0`) are parts of the turn, not its counts.
    line = ("type='realtime_model_metrics' label='livekit.plugins.google.beta.realtime.realtime_api.RealtimeModel' "
            "request_id='gemini-turn-58971acd2589' timestamp=1748428916.454256 duration=13.88671088218689 "
            "ttft=9.393692016601562e-05 cancelled=False input_tokens=3047 output_tokens=49 total_tokens=3096 "
            "tokens_per_second=3.528553335322514 input_token_details=InputTokenDetails(audio_tokens=0, "
            "text_tokens=3047, image_tokens=0, cached_tokens=0)\n")
    diagnosis = diagnosed(tmp_path, line)
    assert "requests-ttft-under-one-pass" in rules(diagnosis)
    assert diagnosis.verdict == "measurement-artifact"
    # The same turn with a 380 ms first token is an ordinary one.
    assert "requests-ttft-under-one-pass" not in rules(diagnosed(tmp_path, line.replace("9.393692016601562e-05",
                                                                                        "0.38"), "slow.txt"))


def test_a_spread_of_runs_is_no_run_s_time(tmp_path):
    # thunder's benchmark_inference prints `TTFT Std Dev: 0.25 ms` under its results: how far the runs scatter, no
    # first token of 0.25 ms. A spread after a run's figure (`mean: 7.130 tokens/s stdev: 0.044`) keeps the figure.
    from inferledger.diagnose.parsers.generic_phrases import line_metrics

    assert line_metrics("  TTFT Std Dev: 0.25 ms") == {}
    assert line_metrics("  Time to First Token (TTFT): 46.46 ms") == {"ttft_seconds": pytest.approx(0.04646)}
    assert line_metrics("0.5.7 mean: 7.130 tokens/s stdev: 0.044 n: 3") == {"generation_tokens_per_second": 7.13}


def test_a_setting_bullets_above_a_table_state_is_its_runs(tmp_path):
    # A PR's bullets state the runs' shape and load above a metric-a-row table: 550 prompt and 150 output tokens at
    # 10 requests a second; a paragraph telling what else was tried states no setting of the table.
    from inferledger.diagnose.parsers.bench_markdown import _stated_setting

    assert _stated_setting("- 550 input tokens | 150 output tokens") == {"mean_input_tokens": 550,
                                                                          "mean_output_tokens": 150}
    assert _stated_setting("- 10 QPS") == {"request_rate_per_second": 10}
    assert _stated_setting("vllm bench serve --request-rate 4 --random-output-len 256") == {
        "request_rate_per_second": 4, "mean_output_tokens": 256}
    story = ("Pacing arrival (`--request-rate 1`) didn't change anything either, which is why the slot semaphore was "
             "the gate and not the arrival timing of the twenty requests we sent through the client that day.")
    assert len(story) > 160 and _stated_setting(story) == {}


_PR_TABLE = ("- Llama-3-8B-Instruct\n- 1xH100\n- 550 input tokens | 150 output tokens\n- 10 QPS\n\n"
             "| Metric | `main` | `zmq + protobuf` |\n| - | - | - |\n"
             "| TPOT (mean) | 70.74 | 54.54 |\n| TTFT (mean) | 687.69 | 269.01 |\n")


def test_an_offered_rate_a_server_keeps_up_with_gives_the_batch(tmp_path):
    # 10 requests a second, each in flight 0.688 s + 149 x 70.74 ms = 11.23 s: 112 at once (Little's law), the
    # first token 6 % of a request's time, so no queue is growing. An 8B model's step at batch 112 on an H100 is
    # around 10-12 ms (the weights' 15 GB and ~112 x 625 tokens of cache at 128 kB each, 9 GB, over 3.35 TB/s is
    # 7.2 ms at the floor), so 70.74 ms is several times what the card allows: decode-bound.
    in_flight = 10 * (0.68769 + 149 * 0.07074)
    assert in_flight == pytest.approx(112.3, abs=0.1)
    diagnosis = diagnosed(tmp_path, _PR_TABLE, model="meta-llama/Meta-Llama-3-8B-Instruct", gpu="h100-sxm")
    assert diagnosis.roofline["batch"] == round(in_flight)
    assert diagnosis.roofline["isl"] == 550 and diagnosis.roofline["osl"] == 150
    floor = (15.01e9 + 112 * (550 + 150 / 2) * 131072) / 3.35e12
    assert diagnosis.roofline["ledger_decode_seconds_per_token"] == pytest.approx(floor, rel=0.1)
    assert diagnosis.verdict == "decode-bound"
    # The same figures with a first token that is most of each request's time: a queue may be growing, so the
    # offered rate is no measure of the requests in flight.
    queued = _PR_TABLE.replace("687.69", "30000.0").replace("269.01", "20000.0")
    lines = diagnosed(tmp_path, queued, "queued.txt", model="meta-llama/Meta-Llama-3-8B-Instruct",
                      gpu="h100-sxm").roofline["lines"]
    assert any("states no concurrency" in line for line in lines)
    assert not any("Little's law" in line for line in lines)


def test_a_configured_model_s_section_says_when_the_log_states_no_batch(tmp_path):
    # A benchmark summary with a TPOT and no concurrency, rate or throughput (nothing for Little's law): the
    # ledger's account is one stream's (for its memory and prefill), but the batch is the log's unknown, not 1, in
    # the section and its JSON (as the name-sized floor's).
    text = "Mean TTFT (ms): 120.5\nMean TPOT (ms): 18.2\n"
    roofline = diagnosed(tmp_path, text, model="meta-llama/Llama-3.1-8B", gpu="h100-sxm").roofline
    assert roofline["batch"] is None
    assert "a batch the log does not state" in roofline["lines"][0]
    assert "batch 1" not in roofline["lines"][0]


def test_a_v0_worker_dying_while_sizing_the_kv_cache_is_a_start_up_capacity_failure(tmp_path):
    # vLLM V0 sizes its KV cache by a profile run (determine_num_available_blocks) of the worst-case batch: 10
    # images at 16,384 tokens each plus a video's 16,384 is 180,224 multimodal tokens, whose activations did not
    # fit beside the weights, so the worker died before any cache was sized.
    text = ("WARNING 08-04 16:54:49 [profiling.py:247] The sequence length used for profiling (max_num_batched_tokens "
            "/ max_num_seqs = 8192) is too short to hold the multi-modal embeddings in the worst case (180224 tokens "
            "in total, out of which {'image': 163840, 'video': 16384} are reserved for multi-modal embeddings).\n"
            "(VllmWorkerProcess pid=42878) ERROR 08-04 16:54:59 [multiproc_worker_utils.py:238] Exception in worker "
            "VllmWorkerProcess while processing method determine_num_available_blocks.\n")
    diagnosis = diagnosed(tmp_path, text)
    assert "state-preemption" in rules(diagnosis)
    assert diagnosis.verdict == "kv-capacity"
    # A worker failing in another method (loading the weights) is no cache sizing.
    other = text.replace("determine_num_available_blocks", "load_model")
    assert diagnosed(tmp_path, other, "load.txt").verdict != "kv-capacity"


def test_decode_advice_does_not_ask_a_full_step_for_more_batch(tmp_path):
    # At ~112 requests a step (10 req/s x 11.23 s) the weights are read once for 112 streams: batching more does not
    # cut a token's time, so the advice looks at the step. At 0.3 req/s (0.3 x 11.23 = 3.4 in flight) a bigger
    # batch is still the cheap fix.
    options = {"model": "meta-llama/Meta-Llama-3-8B-Instruct", "gpu": "h100-sxm"}
    full = diagnosed(tmp_path, _PR_TABLE, **options)
    assert full.verdict == "decode-bound"
    assert "the step already holds ~112 requests" in full.advice[0]
    light = diagnosed(tmp_path, _PR_TABLE.replace("- 10 QPS", "- 0.3 QPS"), "light.txt", **options)
    assert light.roofline["batch"] == round(0.3 * (0.68769 + 149 * 0.07074))
    assert light.verdict == "decode-bound" and light.advice[0].startswith("batch more requests per step")


def test_vllm_prefix_cache_counters_give_the_snapshot_s_hit_rate(tmp_path):
    # vLLM V1's /metrics counts the prefix cache in tokens: 1,131 looked up, 0 found (a hybrid model whose recurrent
    # state has no cached entry); 4,200 of 5,600 would be 75 %. A pasted excerpt with the engine's version line beside
    # the counters is read, not refused as damaged.
    text = ("vLLM 0.26.0\nGPU: GB10 / sm_121a\n\nvllm:prefix_cache_queries_total  1131\n"
            "vllm:prefix_cache_hits_total     0\n")
    diagnosis = diagnosed(tmp_path, text)
    assert diagnosis.verdict == "insufficient-data"
    assert any("prefix cache 0 of 1,131 looked-up tokens hit (0%)" in item.text for item in diagnosis.evidence)
    hit = diagnosed(tmp_path, text.replace("1131", "5600").replace("     0", "     4200"), "hit.txt")
    assert any(f"({4200 / 5600:.0%})" in item.text for item in hit.evidence)


def test_a_tpot_printed_as_tokens_a_second_is_one_stream_s_rate_and_a_peak_rate_no_run_s(tmp_path):
    # A locust script's results: `Avg TPOT: 35.09 tokens/second` is one stream's rate (1 / 35.09 = 28.5 ms a token),
    # not the run's output; `Max QPS (10s window): 1.90` is a window's peak, not a second run's rate. 1.41 req/s x
    # 5.49 s = 7.7 requests in flight.
    from inferledger.diagnose.parsers.generic_summary import line_metric

    assert line_metric("Avg TPOT: 35.09 tokens/second") == ("output_tokens_per_second_per_user_mean", 35.09)
    assert line_metric("Max QPS (10s window): 1.90 requests/second") is None
    assert line_metric("QPS: 1.41 requests/second") == ("request_throughput_per_second", 1.41)
    text = ("vLLM Load Test Results - 2025-02-27 02:29:28.955738\nModel: google/gemma-1.1-2b-it\n\n"
            "Test Duration: 2.0 minutes\nTotal Requests: 168\nTotal Tokens Generated: 30140\n\n"
            "QPS: 1.41 requests/second\nMax QPS (10s window): 1.90 requests/second\nAvg TTFT: 294.3ms\n"
            "P95 TTFT: 534.4ms\nAvg TPOT: 35.09 tokens/second\nAvg Latency: 5489.2ms\nP95 Latency: 6435.9ms\n")
    diagnosis = diagnosed(tmp_path, text)
    assert diagnosis.verdict == "healthy"
    assert any(f"per token at the per-stream rate {1e3 / 35.09:.2f} ms" in item.text for item in diagnosis.evidence)


def test_a_list_of_a_run_s_statistics_is_read_by_its_middle_figure():
    # `TTFT p50/p99: 120/340 ms` lists a run's distribution; read as phrases the unit fell to its last figure, so the
    # p99 (340 ms) became the first token. Its first figure, the median, speaks for the run; a list of tails only
    # (`p95/p99`) gives no middle and is not read, nor is a list whose figures the key=value split parted.
    from inferledger.diagnose.parsers.generic_phrases import line_metrics

    assert line_metrics("TTFT p50/p99: 120/340 ms") == {"ttft_seconds": pytest.approx(0.120)}
    assert line_metrics("TTFT (mean/p50/p95)  : 0.055s / 0.054s / 0.068s") == {"ttft_seconds": 0.055}
    assert line_metrics("TTFT p95/p99: 120/340 ms") == {}
    assert line_metrics("TTFT median/p95/p99 = 4892.4/13206.4/15443.8 ms; TPOT median/p95 = 338.6/502.4 ms") == {}
    assert line_metrics("first token after 1.2 s") == {"ttft_seconds": 1.2}


def test_a_small_model_s_slow_card_floor_counts_its_layers_launches(tmp_path):
    # TinyLlama 1.1B as llama.cpp's usual Q4_K_M: 1.1e9 x 4.5 / 8 = 0.62 GB, read in 0.62 / (0.7 x 360) = 2.46 ms on
    # the slow common card; its layers (16, as the catalogue's Llama-3.2-1B nearest it) add 16 x 46 us = 0.74 ms of
    # launches: a 3.19 ms floor. 7.0 ms a token is 2.2x that (2.85x the weights alone, over the 2.5x line); 12 ms is
    # 3.8x, slower than the size allows either way.
    weights = 1.1e9 * 4.5 / 8 / (0.7 * 360e9)
    floor = weights + 16 * 46e-6
    assert 7.0e-3 / weights > 2.5 > 7.0e-3 / floor and 12e-3 / floor > 2.5

    def timing(ms: float) -> str:
        return (f"llama_print_timings:        eval time = {250 * ms:10.2f} ms /   250 runs   ({ms:8.2f} ms per token, "
                f"{1e3 / ms:8.2f} tokens per second)\n")

    model = "TinyLlama/TinyLlama-1.1B-Chat-v1.0"
    assert "requests-slower-than-size-allows" not in rules(diagnosed(tmp_path, timing(7.0), model=model))
    slow = diagnosed(tmp_path, timing(12.0), "slow.txt", model=model)
    assert "requests-slower-than-size-allows" in rules(slow)
    assert any("plus 16 layers' fixed launch cost" in item.text for item in slow.evidence)


def test_a_served_first_token_pays_the_running_batch_s_steps(tmp_path):
    # 10 req/s of 550-token prompts on an H100 whose running batch steps every 300 ms: a new prompt waits for the step
    # under way and is prefilled inside the next, so 450 ms to its first token is 1.5 steps (450 ms) plus a 550-token
    # prefill (~14 ms on the ledger): no slow prefill path, though it is 30x the prefill alone.
    table = _PR_TABLE.replace("70.74", "300.0").replace("687.69", "450.0").replace("54.54", "280.0") \
        .replace("269.01", "430.0")
    diagnosis = diagnosed(tmp_path, table, model="meta-llama/Meta-Llama-3-8B-Instruct", gpu="h100-sxm")
    assert "hardware-ttft-above-realistic" not in rules(diagnosis)
    line = next(line for line in diagnosis.roofline["lines"] if line.startswith("first token:"))
    assert "1.5 of the run's 300.0 ms steps" in line
    # The same first tokens beside a 20 ms step are the prefill path's: 450 ms against ~14 + 30 ms.
    fast = table.replace("300.0", "20.0").replace("280.0", "20.0")
    assert "hardware-ttft-above-realistic" in rules(diagnosed(tmp_path, fast, "fast.txt",
                                                             model="meta-llama/Meta-Llama-3-8B-Instruct",
                                                             gpu="h100-sxm"))
