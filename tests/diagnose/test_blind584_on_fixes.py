"""Blind rounds 584 on: the general fixes of the twenty-eighth session. Expected figures are worked out here."""

from __future__ import annotations

import pytest
from blind_helpers import diagnosed, write

from inferledger.diagnose import diagnose_files


def _gin(clock: str, status: int, latency: str, day: int = 28) -> str:
    return f'[GIN] 2024/09/{day} - {clock} | {status} | {latency:>14} |   192.168.2.210 | POST     "/api/generate"\n'


def test_a_client_sending_each_request_as_the_last_returns_is_no_queue(tmp_path):
    # ollama's access log: five requests of 12-17 s, each finishing about one latency after the one before (23:36:39
    # less 12.32 s is 23:36:26.7, about when the first one ended), then one that hung for 32m31s until a restart.
    # Finish less latency puts the arrivals at 23:36:25.2, :26.7, :39.0, :38.9 (within a second of the previous
    # finish), :20.3 and 23:37:31: spread over 66 s, five times the first request's 13.8 s. The last took 141x the
    # first's time, but no request waited behind another: the client sent each as the one before returned.
    path = write(tmp_path, _gin("23:36:39", 200, "13.83000742s") + _gin("23:36:51", 200, "12.323051093s")
                 + _gin("23:37:03", 200, "11.960134825s") + _gin("23:37:20", 200, "17.062595475s")
                 + _gin("23:37:31", 200, "10.729482469s") + _gin("00:10:02", 500, "32m31s", day=29))
    assert all(item.rule != "requests-served-in-turn" for item in diagnose_files([path]).evidence)
    # Six requests sent together (all arriving at 23:36:25, finish less latency) and finishing one after another,
    # the last 815 s after they came (59x the first's 13.8 s): each waited for the ones before it.
    together = [("23:36:39", "13.83000742s"), ("23:36:51", "26.0s"), ("23:37:03", "38.0s"), ("23:37:20", "55.0s"),
                ("23:37:31", "66.0s"), ("23:50:00", "13m35s")]
    path = write(tmp_path, "".join(_gin(clock, 200, latency) for clock, latency in together), "together.txt")
    diagnosis = diagnose_files([path])
    assert "requests-served-in-turn" in {item.rule for item in diagnosis.evidence}
    assert diagnosis.verdict == "queueing"


def _serving(concurrency: int, requests: int, input_tokens: int, output_tokens: int, seconds: float) -> str:
    return ("============ Serving Benchmark Result ============\n"
            f"Successful requests:                     {requests}\n"
            f"Benchmark duration (s):                  {seconds}\n"
            f"Total input tokens:                      {input_tokens}\n"
            f"Total generated tokens:                  {output_tokens}\n"
            f"Request throughput (req/s):              {requests / seconds:.2f}\n"
            f"Output token throughput (tok/s):         {output_tokens / seconds:.2f}\n"
            "==================================================\n")


def test_rate_inf_under_a_concurrency_cap_is_a_closed_loop(tmp_path):
    # vllm bench serve --request-rate inf --max-concurrency 400 over 6,000 prompts: the client holds 400 in flight,
    # sending one as one ends (15 rounds), as a closed loop with no rate does. 1,211,959 tokens in 94.31 s = 12,851
    # tok/s over 400 streams: each stream's step at most 400 / 12,851 = 31.1 ms (prefills included).
    command = "vllm bench serve --request-rate inf --max-concurrency=400 --num-prompts 6000\n"
    summary = _serving(400, 6000, 1_350_511, 1_211_959, 94.31).replace(
        "Successful requests", "Traffic request rate:                    inf\n"
                               "Max request concurrency:                 400\nSuccessful requests")
    path = write(tmp_path, command + summary)
    diagnosis = diagnose_files([path])
    step = 400 / (1_211_959 / 94.31)
    assert step == pytest.approx(0.0311, abs=1e-4)
    # ≤ 100 ms a token with no hardware named: no slow stream
    assert diagnosis.verdict == "healthy"
    assert any(f"{step * 1e3:.2f} ms" in item.text for item in diagnosis.evidence)


def test_a_prompt_heavy_closed_loop_gives_no_per_token_bound(tmp_path):
    # 160 prompts of 16,384 + 256 shared-prefix tokens and 128 out at concurrency 16: 17,053 prompt tokens a request
    # against 128 generated (133 to 1, past the limit of 8), so 16 ÷ output tok/s is mostly the prompts' time and
    # bounds no decode step.
    summary = _serving(16, 160, 2_728_549, 20_480, 80.0).replace(
        "Successful requests", "Traffic request rate:                    inf\n"
                               "Max request concurrency:                 16\nSuccessful requests")
    assert 2_728_549 / 160 / 128 > 8
    diagnosis = diagnosed(tmp_path, summary)
    assert diagnosis.verdict == "insufficient-data"
    assert not any("concurrency ÷ output tok/s" in item.text for item in diagnosis.evidence)


def test_a_name_sized_floor_says_when_the_log_states_no_batch(tmp_path):
    # A table of one stream's tok/s per technique, no concurrency stated: the floor of Mistral-7B sized from its
    # name (14 GB at 2,039 GB/s; no config bundled) is not set against a step whose batch is unknown, and the section
    # says so (it printed "batch 3", the rule's stand-in for "several", before).
    table = ("| Model | Technique | Tokens/Second |\n|---|---|---|\n"
             "| Mistral-7B | Base (bfloat16) | 95.64 |\n| Mistral-7B | int8wo | 153.03 |\n")
    diagnosis = diagnosed(tmp_path, table, model="mistralai/Mistral-7B-v0.1", gpu="a100-sxm-80gb")
    assert diagnosis.roofline["estimated_from_name"]
    lines = diagnosis.roofline["lines"]
    assert any(line.startswith("a batch the log does not state: ") for line in lines)
    assert not any(line.startswith("batch 3") for line in lines)
    assert diagnosis.roofline["batch"] is None


def _bench(lines: dict) -> str:
    return ("============ Serving Benchmark Result ============\n"
            + "".join(f"{name + ':':<41}{value}\n" for name, value in lines.items())
            + "==================================================\n")


def test_a_client_cap_with_crawling_streams_is_no_server_queue(tmp_path):
    # 32 requests of 3,500 in / 1,500 out offered at 1 req/s, the client letting 16 run at once. Mean TTFT 19.19 s
    # against a prompt's own work of 3,500 ÷ (112,000 / 561.73 s) = 17.55 s (1.09×: no wait at the server); each
    # stream crawls at 171.89 ms a token (5.8 tok/s). A request's service is 19.19 + 1,499 × 0.17189 − 19.19 + 17.55
    # = 275.2 s, and 32 requests at 16 at once take two rounds: 550 s, the run's 561.73 s. The client, not the server,
    # held the rest.
    summary = {"Successful requests": 32, "Maximum request concurrency": 16, "Request rate configured (RPS)": "1.00",
               "Benchmark duration (s)": 561.73, "Total input tokens": 112000, "Total generated tokens": 48000,
               "Request throughput (req/s)": "0.06", "Output token throughput (tok/s)": 85.45,
               "Mean TTFT (ms)": 19186.95, "Mean TPOT (ms)": 171.89}
    prompt_work = 3500 / (112000 / 561.73)
    assert 19.18695 <= 1.5 * prompt_work
    service = 19.18695 + 1499 * 0.17189 - 19.18695 + prompt_work
    assert 2 * service == pytest.approx(550.4, abs=0.5) and 561.73 < 1.3 * 2 * service
    diagnosis = diagnosed(tmp_path, _bench(summary))
    assert "summary-rate-not-kept" not in {item.rule for item in diagnosis.evidence}
    assert diagnosis.verdict == "decode-bound"
    assert any("because the client let only 16 requests run at once" in note for note in diagnosis.notes)
    # Streams at a normal pace (49.3 ms a token) that still fall behind 4 req/s at a cap of 100: load past the
    # server's capacity, a queue (400 requests, 1.2 req/s kept).
    summary = {"Traffic request rate": "4.0", "Max request concurrency": 100, "Successful requests": 400,
               "Benchmark duration (s)": 334.35, "Total input tokens": 200000, "Total generated tokens": 600000,
               "Request throughput (req/s)": "1.20", "Output token throughput (tok/s)": 1794.5,
               "Mean E2E Latency (ms)": 75117.38, "Mean TTFT (ms)": 1222.55, "Mean TPOT (ms)": 49.30}
    diagnosis = diagnosed(tmp_path, _bench(summary), "normal.txt")
    assert "summary-rate-not-kept" in {item.rule for item in diagnosis.evidence}


def test_a_burst_without_a_mean_concurrency_counts_its_streams_by_littles_law(tmp_path):
    # Ten 64k-token prompts released at 10 req/s (all within the run's first second of 98.73 s). No mean concurrency
    # printed: 0.10 req/s × (25.87 s + 2,999 × 21.13 ms = 89.24 s) = 8.9 requests in flight, 303.86 / 8.9 = 34 tok/s
    # each, a normal pace: a throughput test, not a server that cannot keep up.
    summary = {"Successful requests": 10, "Request rate configured (RPS)": "10.00", "Benchmark duration (s)": 98.73,
               "Total input tokens": 640040, "Total generated tokens": 30000, "Request throughput (req/s)": "0.10",
               "Output token throughput (tok/s)": 303.86, "Mean TTFT (ms)": 25867.24, "Mean TPOT (ms)": 21.13}
    streams = 0.10 * (25.86724 + 2999 * 0.02113)
    assert streams == pytest.approx(8.9, abs=0.05) and 303.86 / streams > 10
    diagnosis = diagnosed(tmp_path, _bench(summary))
    assert "summary-rate-not-kept" not in {item.rule for item in diagnosis.evidence}
    assert any("a throughput test; the offered rate is not a load" in note for note in diagnosis.notes)


def test_a_per_token_figure_past_the_runs_streams_is_a_measurement_artifact(tmp_path):
    # Lambda's table: 700 generated tok/s at 32 parallel requests with a 103 ms ITL. 700 × 0.103 = 72 streams decoding
    # at once, 2.25× the 32 the run held: the ITL is a gap between multi-token chunks (MTP), not one token's time.
    table = ("| Hardware configuration | Generation throughput (tok/s) | TTFT (ms) | ITL (ms) | Parallel requests |\n"
             "|---|---|---|---|---|\n| NVIDIA HGX B200 | 700 | 1,662 | 103 | 32 |\n")
    assert 700 * 0.103 / 32 == pytest.approx(2.25, abs=0.01)
    diagnosis = diagnosed(tmp_path, table)
    assert diagnosis.verdict == "measurement-artifact"
    assert any(item.rule == "summary-streams-past-cap" and "72 streams decoding at once" in item.text
               for item in diagnosis.evidence)
    # At 50 streams (72 ÷ 50 = 1.4×, within the limit of 2) the figure stands as the stream's step.
    diagnosis = diagnosed(tmp_path, table.replace("| 32 |", "| 50 |"), "fifty.txt")
    assert "summary-streams-past-cap" not in {item.rule for item in diagnosis.evidence}


def test_snake_case_metric_names_keep_their_units(tmp_path):
    # A harness's `metric | value` table in snake_case: `output_tok_s` is output tok/s, `req_s` req/s and
    # `duration_s` a duration in seconds (the underscore took the place of the slash and of the brackets).
    from blind_helpers import markdown_summaries

    [summary] = markdown_summaries(tmp_path, "| metric | value |\n| --- | --- |\n| `requests_ok` | 50 |\n"
                                             "| `duration_s` | 123.89 |\n| `output_tok_s` | 102.91 |\n"
                                             "| `req_s` | 0.40 |\n| `output_tokens_total` | 12,750 |\n")
    assert summary.metrics["output_tokens_per_second"] == 102.91
    assert summary.metrics["request_throughput_per_second"] == 0.40
    assert summary.metrics["duration_seconds"] == 123.89
    # 12,750 tokens over the 123.89 s run: the rate the table states, within its rounding
    assert 12750 / 123.89 == pytest.approx(102.91, abs=0.01)


def test_a_latency_that_follows_the_prompt_is_prefill(tmp_path):
    # The same "say hello" turn with a growing schema prefix: 27, 2,433, 12,033 and 21,633 prompt tokens take 212,
    # 2,980, 22,189 and 36,581 ms (a `Total latency` column: the whole request). The slope from the shortest to the
    # longest is (36.581 − 0.212) / (21,633 − 27) = 1.683 ms a prompt token, × 21,633 = 36.4 s: 99.5 % of the
    # longest request's 36.6 s (at least 80 %), and 21,633 / 27 spans past 8×.
    table = ("| Configuration | Prompt tokens | Total latency | Slowdown |\n|---|---|---|---|\n"
             "| Bare | 27 | 212 ms | 1× |\n| + ~2k schema | 2,433 | 2,980 ms | 14× |\n"
             "| + ~10k schema | 12,033 | 22,189 ms | 104× |\n| + ~18k schema | 21,633 | 36,581 ms | 172× |\n")
    slope = (36.581 - 0.212) / (21633 - 27)
    assert slope * 21633 / 36.581 == pytest.approx(0.995, abs=0.001)
    diagnosis = diagnosed(tmp_path, table)
    assert diagnosis.verdict == "prefill-bound"
    [finding] = [item for item in diagnosis.evidence if item.rule == "summary-latency-follows-prompt"]
    assert f"{slope * 1e3:.2f} ms a prompt token" in finding.text
    # First tokens alone rise with the prompt by definition: with no output, per-token time or request latency, the
    # same sweep of TTFTs says nothing of the request's share.
    ttft = table.replace("Total latency", "TTFT")
    diagnosis = diagnosed(tmp_path, ttft, "ttft.txt")
    assert "summary-latency-follows-prompt" not in {item.rule for item in diagnosis.evidence}
    # Replies of 2,000 tokens at 30 ms each beside the same first tokens: the prompt is at most 36.6 / (36.6 + 60) of
    # the longest request, under 80 %: the reply's decode, not the prompt, is most of the time.
    decode = ttft.replace("| Slowdown |\n|---|---|---|---|", "| Slowdown | Output tokens | TPOT (ms) |\n|---|---|---|---|---|---|")
    decode = "\n".join(line + " 2000 | 30 |" if line.startswith("| ") and "Configuration" not in line else line
                       for line in decode.splitlines()) + "\n"
    assert 36.581 / (36.581 + 1999 * 0.030) < 0.8
    diagnosis = diagnosed(tmp_path, decode, "decode.txt")
    assert "summary-latency-follows-prompt" not in {item.rule for item in diagnosis.evidence}


def test_tt_metals_dram_allocation_failure_is_out_of_memory(tmp_path):
    # A Tenstorrent card's allocator refusing a 146,575,360 B buffer at start-up (12 banks of ~12.2 MB each, page
    # rounded): memory ended the run.
    line = ("Out of Memory: Not enough space to allocate 146575360 B DRAM buffer across 12 banks, where each bank "
            "needs to store 12214976 B, but bank size is only 1046181792 B (assert.hpp:103)\n")
    diagnosis = diagnosed(tmp_path, "Running Qwen3-8B on N150 causes a DRAM error.\n" + line)
    assert diagnosis.verdict == "kv-capacity"
    assert any("146575360 B DRAM buffer" in item.text for item in diagnosis.evidence)


def test_a_clients_timed_out_request_to_an_llm_endpoint_is_read_not_refused(tmp_path):
    # A subtitle translator's log: one request to a local OpenAI-style server that ran out of time, no figure of the
    # server's. Its lines name an LLM endpoint and a request that timed out: about serving, nothing to judge.
    log = ("02:24:33 - Translating scene number 1 batch 2,3,4\n"
           "02:24:33 - Translating with local server at http://127.0.0.7:8080/v1/chat/completions\n"
           "02:29:34 - Request to server timed out: timed out\n02:29:34 - Retrying in 3.0 seconds...\n")
    assert diagnosed(tmp_path, log).verdict == "insufficient-data"
    # Another program's log with a timeout and a web endpoint that is no LLM's stays refused.
    from inferledger.errors import LogFormatError

    other = "02:24:33 - GET http://127.0.0.1:8080/api/users\n02:29:34 - database connection timed out\n"
    with pytest.raises(LogFormatError):
        diagnosed(tmp_path, other, "other.txt")


def test_a_header_broken_over_lines_reads_as_one(tmp_path):
    # `Perf<br>(token/s)`: an HTML line break inside a header cell is a space, so the column is `Perf (token/s)`, a
    # rate named by its unit, as the same header on one line is.
    from blind_helpers import markdown_summaries

    table = "| Build | Perf<br>(token/s) |\n|---|---|\n| b5700 | 14.2 |\n| b5710 | 15.1 |\n"
    broken = markdown_summaries(tmp_path, table)
    one_line = markdown_summaries(tmp_path, table.replace("<br>", " "))
    assert [summary.metrics for summary in broken] == [summary.metrics for summary in one_line]
    assert sorted(summary.metrics["output_tokens_per_second_per_user_mean"] for summary in broken) == [14.2, 15.1]


def test_a_qps_column_heading_a_latency_sweep_is_the_offered_rate(tmp_path):
    # `QPS | TTFT-mean (ms)`: the rate each row was run at (the sweep's setting, its first column), no throughput
    # beside it. 504 ms at 8 req/s, 10,629 ms at 32: 21× the first-token time for 4× the rate (≥ 2 × 4): requests
    # wait to be admitted.
    table = "QPS | TTFT-mean (ms) |\n-- | -- |\n8 | 504.33 |\n16 | 5668.94 |\n32 | 10628.59 |\n"
    from blind_helpers import markdown_summaries

    assert sorted(summary.metrics["request_rate_per_second"] for summary in markdown_summaries(tmp_path, table)) \
        == [8, 16, 32]
    assert 10628.59 / 504.33 > 2 * 32 / 8
    diagnosis = diagnosed(tmp_path, table, "sweep.txt")
    assert diagnosis.verdict == "queueing"
    assert any(item.rule == "summary-ttft-grows-with-rate" for item in diagnosis.evidence)
    # Beside a measured throughput the same column is what the server kept (an achieved rate), no setting.
    kept = "QPS | Output tok/s | TTFT-mean (ms) |\n-- | -- | -- |\n8 | 900 | 504.33 |\n16 | 1700 | 5668.94 |\n"
    assert all("request_rate_per_second" not in summary.metrics for summary in markdown_summaries(tmp_path, kept))


def test_a_kv_cache_sizing_note_without_timings_is_read_not_refused(tmp_path):
    # A PR's note on llama-server's KV cache types: contexts, no speed. `KV cache` and `n_ctx` name serving, so the
    # file is read and said to hold nothing to judge; a web app's cache note is still no serving log.
    from inferledger.errors import LogFormatError

    note = ("| Cache type | n_ctx (auto-tuned) | Eval regression |\n|---|---|---|\n| F16 | 36,864 | baseline |\n"
            "| Q8_0 | 68,608 (1.86x) | none |\n\nQ8 KV cache nearly doubles usable context for the same VRAM.\n")
    assert diagnosed(tmp_path, note).verdict == "insufficient-data"
    with pytest.raises(LogFormatError):
        diagnosed(tmp_path, "| Cache | Hit ratio |\n|---|---|\n| redis | 0.93 |\n", "web.txt")


def test_a_kv_usage_gauge_outside_zero_to_one_is_a_broken_measurement(tmp_path):
    # vLLM's gauge is a share of the cache, 1 meaning 100 %: -0.3875 is no state a cache can be in.
    metrics = ("# HELP vllm:kv_cache_usage_perc KV-cache usage. 1 means 100 percent usage.\n"
               "# TYPE vllm:kv_cache_usage_perc gauge\n"
               'vllm:kv_cache_usage_perc{engine="3",model_name="DeepSeek-V4-Flash"} -0.3875395987328405\n')
    diagnosis = diagnosed(tmp_path, metrics)
    assert diagnosis.verdict == "measurement-artifact"
    assert any(item.rule == "state-usage-out-of-range" for item in diagnosis.evidence)
    # 0.65 is a cache two-thirds full: nothing wrong with the gauge
    diagnosis = diagnosed(tmp_path, metrics.replace("-0.3875395987328405", "0.65"), "fine.txt")
    assert "state-usage-out-of-range" not in {item.rule for item in diagnosis.evidence}


def test_a_served_runs_realistic_step_carries_the_prompts_prefilled_between_steps(tmp_path):
    # 7,200 requests at 60 QPS: 1,582,725 prompt tokens over 142.12 s = 11,137 prompt tok/s, each prefilled in the
    # steps that also decode (chunked prefill). At p s a prompt token (the ledger's realistic prefill over its tokens)
    # and d s of decode a step, a step takes d + 11,137 · step · p: step = d / (1 − 11,137 · p).
    from inferledger.hardware import find_accelerator
    from inferledger.ledger.request import request_account
    from inferledger.model import load_model

    summary = {"Successful requests": 7200, "Benchmark duration (s)": 142.12, "Total input tokens": 1582725,
               "Total generated tokens": 1442778, "Request throughput (req/s)": 50.66,
               "Output token throughput (tok/s)": 10151.98, "Mean TTFT (ms)": 111.60, "Mean TPOT (ms)": 31.33}
    diagnosis = diagnosed(tmp_path, _bench(summary), model="meta-llama/Llama-3.1-8B", gpu="h100-sxm")
    roofline = diagnosis.roofline
    isl, osl, batch = roofline["isl"], roofline["osl"], roofline["batch"]
    assert (isl, osl) == (round(1582725 / 7200), round(1442778 / 7200))
    account = request_account(load_model("meta-llama/Llama-3.1-8B"), find_accelerator("h100-sxm"), isl=isl, osl=osl,
                              batch=batch)
    rate = 1582725 / 142.12
    per_prompt_token = account.realistic.prefill_seconds / (isl * batch)
    assert 0 < rate * per_prompt_token < 1
    expected = account.realistic.decode_seconds_per_token / (1 - rate * per_prompt_token)
    assert roofline["ledger_realistic_decode_seconds_per_token"] == pytest.approx(expected, rel=1e-9)
    assert any(line.startswith(f"the run's {rate:,.0f} prompt tok/s prefilled between decode steps")
               for line in roofline["lines"])


def test_a_hybrid_models_state_cache_refusal_and_exhaustion_are_capacity(tmp_path):
    # vLLM will not start: each decode sequence of a hybrid (Mamba-layer) model holds one state block, and the memory
    # left holds 939 where max_num_seqs asks for 1,024.
    assert 1024 > 939
    refusal = ("ValueError: max_num_seqs (1024) exceeds available Mamba cache blocks (939).\n"
               "Each decode sequence requires one Mamba cache block, so CUDA graph capture cannot\n")
    diagnosis = diagnosed(tmp_path, refusal)
    assert diagnosis.verdict == "kv-capacity"
    assert diagnosis.events["kv_start_refusals"] == 1
    # SGLang running out of its hybrid model's state pool while admitting a prefill: memory ended the run.
    crash = ("[2026-09-21 06:38:26 TP0] Prefill batch, #new-seq: 2, #cached-token: 1280, #running-req: 1, "
             "mamba usage: 0.89\n[2026-09-21 06:38:26 TP0] Scheduler hit an exception: Traceback (most recent call "
             "last):\nAssertionError: Not enough space for mamba ping pong idx, try to increase "
             "--mamba-full-memory-ratio.\n")
    diagnosis = diagnosed(tmp_path, crash, "sglang.txt")
    assert diagnosis.verdict == "kv-capacity"
    assert any("Not enough space for mamba ping pong idx" in item.text for item in diagnosis.evidence)
