"""Blind rounds 926 on: the general fixes of the forty-first session. Expected figures are worked out here."""

from __future__ import annotations

import pytest
from blind_helpers import diagnosed, markdown_summaries, parsed, write

from inferledger.diagnose.parsers import generic_summary


def _said(diagnosis, *words) -> bool:
    """Whether one piece of the diagnosis' evidence says every one of `words`."""
    return any(all(word in evidence.text for word in words) for evidence in diagnosis.evidence)


def _fired(diagnosis, rule: str) -> bool:
    return any(evidence.rule == rule for evidence in diagnosis.evidence)


# An ollama setup note (blind911): the split column says where each row's layers sit, `100% GPU` for both rows here.
_SPLIT_COLUMN = """\
| Model                     | Quantization | Size (loaded) | CPU/GPU Split | Speed      |
| ------------------------- | ------------ | ------------- | ------------- | ---------- |
| `smollm2:latest`          | Q8_0         | 2.9 GB        | 100% GPU      | ~18 tok/s  |
| `codegeex4:9b-all-q3_K_M` | Q3_K_M       | ~5.0 GB       | 100% GPU      | ~4.5 tok/s |
"""


def test_a_cpu_gpu_split_column_does_not_make_every_row_a_cpu_run(tmp_path):
    summaries = markdown_summaries(tmp_path, _SPLIT_COLUMN)
    assert [summary.metrics["output_tokens_per_second_per_user_mean"] for summary in summaries] == [18.0, 4.5]
    assert all(summary.labels.get("device") != "cpu" for summary in summaries)


def test_a_split_column_of_gpu_rows_is_judged_by_a_gpus_cutoff(tmp_path):
    diagnosis = diagnosed(tmp_path, _SPLIT_COLUMN)
    # was healthy: both rows were read as CPU runs, whose memory makes 4.5 tok/s usual. On a GPU one stream at
    # 1 / 4.5 = 222 ms a token is slow
    assert diagnosis.verdict == "decode-bound"
    assert _said(diagnosis, "222 ms per output token")


def test_a_row_whose_split_cell_names_the_cpu_is_still_a_cpu_run(tmp_path):
    text = _SPLIT_COLUMN.replace("| 100% GPU      | ~4.5", "| 29% CPU / 71% GPU | ~4.5")
    summaries = markdown_summaries(tmp_path, text)
    assert [summary.labels.get("device") for summary in summaries] == [None, "cpu"]


def test_guard_a_cpu_column_still_makes_its_rows_cpu_runs(tmp_path):
    text = _SPLIT_COLUMN.replace("CPU/GPU Split", "CPU          ").replace("100% GPU", "i7-12700K")
    assert all(summary.labels.get("device") == "cpu" for summary in markdown_summaries(tmp_path, text))


# A script printing each setting's five runs as Python lists (blind928, small models on CPU, OpenVINO and GPUs).
_LISTS = """\
**L40 GPU**
* Dtype: bf16
TTFT (s): [0.0288, 0.0282, 0.0263, 0.0263, 0.0262]
Latency total (s): [3.4132, 3.0791, 3.0515, 3.0573, 3.0502]
Throughput (tok/s): [37.5, 41.57, 41.95, 41.87, 41.96]
Generated tokens: [128, 128, 128, 128, 128]

**T4 GPU**
* Dtype: float32
TTFT (s): [0.0712, 0.0655, 0.0648, 0.0649, 0.0645]
Latency total (s): [5.7204, 5.6813, 5.7102, 5.6992, 5.7011]
Throughput (tok/s): [22.38, 22.53, 22.42, 22.46, 22.45]
Generated tokens: [128, 128, 128, 128, 128]
"""


def test_a_list_of_runs_reads_as_its_mean():
    # (0.0288 + 0.0282 + 0.0263 + 0.0263 + 0.0262) / 5 = 0.02716 s
    assert generic_summary.line_metric("TTFT (s): [0.0288, 0.0282, 0.0263, 0.0263, 0.0262]") == \
        ("ttft_seconds_mean", pytest.approx(0.02716))
    # (37.5 + 41.57 + 41.95 + 41.87 + 41.96) / 5 = 40.97
    assert generic_summary.line_metric("Throughput (tok/s): [37.5, 41.57, 41.95, 41.87, 41.96]") == \
        ("output_tokens_per_second", pytest.approx(40.97))


def test_lists_of_runs_are_a_summary_a_setting(tmp_path):
    summaries = parsed(generic_summary, write(tmp_path, _LISTS, "lists.txt"))
    assert len(summaries) == 2
    l40, t4 = (summary.metrics for summary in summaries)
    # the L40's latency: (3.4132 + 3.0791 + 3.0515 + 3.0573 + 3.0502) / 5 = 3.13026 s for 128 tokens each
    assert l40["e2e_seconds_mean"] == pytest.approx(3.13026)
    assert l40["mean_output_tokens"] == 128
    assert t4["output_tokens_per_second"] == pytest.approx((22.38 + 22.53 + 22.42 + 22.46 + 22.45) / 5)


def test_lists_of_runs_are_judged(tmp_path):
    diagnosis = diagnosed(tmp_path, _LISTS, name="lists.txt")
    # was insufficient-data (no line read). The T4's step: (5.70224 - 0.06618) s / 127 tokens after the first
    # = 44.38 ms a token, one stream (22.45 tok/s x 44.38 ms = 1.0)
    assert diagnosis.verdict != "insufficient-data"
    assert _said(diagnosis, "44.38 ms")


def test_guard_a_list_of_words_or_an_empty_list_is_not_read():
    assert generic_summary.line_metric("TTFT (s): []") is None
    assert generic_summary.line_metric("Models: [llama, qwen]") is None


# SGLang's multi-turn HiCache bench (benchmark/hicache/bench_multiturn.py) printed twice (blind931): its latencies have
# no unit (seconds), and only its completed rate states one.
_MULTITURN = """\
#cache_hit_rate: 0.6614896363279186

Performance metrics summary:
  Total requests: 1280 at 16 requests per second
  Average TTFT: 5.18
  P90 TTFT: 7.24
  Median TTFT: 5.87
  Average latency: 10.27
  P90 latency: 11.53
  Median latency: 10.33
  Throughput: 2.78 requests per second
"""


def test_a_multiturn_summary_with_one_unit_is_read(tmp_path):
    assert generic_summary.sniff(_MULTITURN) > 0
    diagnosis = diagnosed(tmp_path, _MULTITURN, name="multiturn.txt")
    # was insufficient-data (no reader took the file)
    assert diagnosis.verdict != "insufficient-data"
    assert _said(diagnosis, "TTFT 5.18 s")


def test_a_run_stating_its_count_and_rate_took_count_over_rate(tmp_path):
    diagnosis = diagnosed(tmp_path, _MULTITURN, name="multiturn.txt")
    # 1,280 requests at 2.78 req/s took 1280 / 2.78 = 460 s; offered at 16 req/s they arrive in 1280 / 16 = 80 s, and
    # ~80 s plus one request's 10.27 s = 90.3 s was expected: the server fell behind its arrivals
    assert diagnosis.verdict == "queueing"
    assert _fired(diagnosis, "summary-rate-not-kept")
    assert _said(diagnosis, "the run took 460 s where ~90.3 s was expected")
    assert not any("took 0 s" in note for note in diagnosis.notes)


def test_guard_a_short_run_stating_its_count_and_rate_drains_without_a_queue(tmp_path):
    # 100 requests at 16 req/s arrive in 6.25 s; at 12 req/s completed they took 100 / 12 = 8.3 s, within 1.3 × the
    # expected 6.25 + 1.2 = 7.45 s: a drain, not a server falling behind
    text = _MULTITURN.replace("1280 at 16", "100 at 16").replace("Throughput: 2.78", "Throughput: 12") \
        .replace("Average latency: 10.27", "Average latency: 1.2").replace("Average TTFT: 5.18", "Average TTFT: 0.3")
    diagnosis = diagnosed(tmp_path, text, name="multiturn.txt")
    assert not _fired(diagnosis, "summary-rate-not-kept")
    assert any("took 8.33 s); not overload" in note for note in diagnosis.notes)


# llmperf against TGI on an inf2.xlarge (blind937): the load a column, named in the corner cell; a metric a row, the
# first named `First Time To Token`; prose above the table naming a per-token time (not the table's title).
_LOAD_COLUMNS = """\
Inter-token latency (ms/token) at the 50th percentile rises from 52.18 ms for one user to 97.17 ms for 16 users.

| Concurrent Users               | 1     | 2     | 4      | 8     | 16     |
|--------------------------------|-------|-------|--------|-------|--------|
| Mean Input Token               | 550   | 550   | 550    | 550   | 550    |
| Mean Output Token              | 177   | 175   | 174    | 176   | 175    |
| First Time To Token (ms) p50   | 1001  | 1419  | 3732.78| 7539  | 7503   |
| Throughput (token/sec) p50     | 16.23 | 29.2  | 48.08  | 72.16 | 142.72 |
| Inter Token Latency (ms/token) p50 | 52.18 | 58.29 | 69.93  | 93.95 | 97.17  |
| Cost per 1M token              | $13.01| $7.23 | $4.39  | $2.93 | $1.48  |
"""


def test_a_load_a_column_and_a_metric_a_row_is_a_run_a_column(tmp_path):
    summaries = markdown_summaries(tmp_path, _LOAD_COLUMNS)
    # five runs, one a column, each at the concurrency its column names; before, every cell was read as a time per
    # token in the prose's unit (1001 ms a token at a `concurrency` of 50, from `p50`)
    assert [summary.metrics.get("max_concurrency") for summary in summaries] == [1, 2, 4, 8, 16]
    first = summaries[0].metrics
    assert first["ttft_seconds_median"] == pytest.approx(1.001)
    assert first["tpot_seconds_median"] == pytest.approx(0.05218)  # the row's `p50` kept beside its `ms/token`


def test_a_first_token_growing_with_the_users_is_a_queue(tmp_path):
    diagnosis = diagnosed(tmp_path, _LOAD_COLUMNS)
    # 1,419 ms at 2 users, 7,539 ms at 8: 7539 / 1419 = 5.3x for 4x the requests in flight
    assert diagnosis.verdict == "queueing"
    assert _said(diagnosis, "5.3× for 4× the requests in flight")


# llm-speed-benchmark's README table of hosted APIs (blind933): medians ± IQR; `Response Tok/s` is one reply's rate.
_HOSTED = """\
| Model | Time To First Token | Prompt Tok/s | Response Tok/s | Num Response Tokens |
| --- | --- | --- | --- | --- |
| mistral-large-2407 | 0.53 +/- 0.39 | 150.68 +/- 83.60 | 14.99 +/- 7.24 | 598.00 +/- 53.50 |
| gpt-4o | 0.57 +/- 0.29 | 134.95 +/- 84.01 | 64.34 +/- 15.51 | 824.00 +/- 78.00 |
"""


def test_a_hosted_replys_response_rate_is_one_streams(tmp_path):
    summaries = markdown_summaries(tmp_path, _HOSTED)
    assert [summary.metrics["output_tokens_per_second_per_user_mean"] for summary in summaries] == [14.99, 64.34]
    # was insufficient-data (no column read): 1 / 14.99 = 66.71 ms a token, within a stream's usual pace
    diagnosis = diagnosed(tmp_path, _HOSTED)
    assert diagnosis.verdict == "healthy"
    assert _said(diagnosis, "66.71 ms")


# A load tool's summary of an HTTP endpoint, three iterations averaged (blind933: the API's root path, no model).
_ROOT_PATH = """\
| Metric | Value |
|--------|-------|
| Avg Requests/sec | 50.19 |
| Avg P50 Latency | 172.65 ms |
| Avg P95 Latency | 333.91 ms |
| Avg P99 Latency | 526.87 ms |
| Avg P95 TTFB | 333.88 ms |
"""


def test_an_average_of_a_percentile_is_that_percentile(tmp_path):
    (summary,) = markdown_summaries(tmp_path, _ROOT_PATH)
    assert summary.metrics["ttft_seconds_p95"] == pytest.approx(0.33388)
    assert summary.metrics["e2e_seconds_p95"] == pytest.approx(0.33391)
    assert summary.metrics["e2e_seconds_median"] == pytest.approx(0.17265)
    assert "ttft_seconds_mean" not in summary.metrics


def test_a_tail_first_byte_as_late_as_the_tail_reply_is_no_stream(tmp_path):
    diagnosis = diagnosed(tmp_path, _ROOT_PATH)
    # was healthy (the p95 TTFB read as a mean TTFT). 333.88 / 333.91 = 0.99991 of the same percentile of the whole
    # request: the replies arrived whole
    assert diagnosis.verdict == "measurement-artifact"
    assert _fired(diagnosis, "summary-ttft-equals-e2e")
    assert _said(diagnosis, "p95 first-token latency 333.88 ms equals the p95 full latency 333.91 ms")


def test_guard_a_mean_and_a_percentile_a_slash_apart_keep_the_first():
    from inferledger.diagnose.parsers import bench_markdown

    # `TTFT mean / p99 (s)` heads cells `0.24 / 0.31`: the first figure, the mean
    assert bench_markdown._column("TTFT mean / p99 (s)")[0] == "ttft_seconds_mean"


# A hosted model timed direct and through a router (blind943): seconds a scenario, no reader's layout.
_ROUTED = """\
| Scenario | Google Direct (Avg) | OpenRouter (Avg) | Improvement |
| :--- | :--- | :--- | :--- |
| **Cold Start** | 24.70s | **17.13s** | 31% Faster |
| **Warm Cache** | 14.87s | **7.42s** | 50% Faster |

**Model Used**: `google/gemini-3-flash-preview:nitro` (OpenRouter) vs `gemini-3-flash-preview` (Google Direct).
"""


def test_a_hosted_models_timings_in_no_known_layout_are_reported_unread(tmp_path):
    # was an error (no known format): the hosted model's name ties the seconds to serving an LLM, so the diagnosis
    # says which lines it could not read
    diagnosis = diagnosed(tmp_path, _ROUTED, name="routed.md")
    assert diagnosis.verdict == "insufficient-data"
    assert _fired(diagnosis, "read-unknown-layout")


def test_guard_seconds_naming_no_model_or_server_stay_an_unknown_format(tmp_path):
    from inferledger.errors import LogFormatError

    text = _ROUTED.replace("gemini-3-flash-preview", "build-cache").replace("OpenRouter", "Mirror")
    with pytest.raises(LogFormatError):
        diagnosed(tmp_path, text, name="routed.md")


# AWS Neuron's runtime failing to place a tensor on a full NeuronCore (blind937, Mistral 7B on an inf2.8xlarge).
_NEURON_FULL = """\
2025-Jun-18 14:30:52.926380 ERROR TDRV:log_dev_mem Failed to allocate 64.000MB (usage: tensors) on ND 0:NC 0, current utilization:
* total: 15.938GB
* tensors: 15.938GB
"""


def test_a_neuron_core_out_of_device_memory_is_an_oom(tmp_path):
    diagnosis = diagnosed(tmp_path, _NEURON_FULL, name="neuron.log")
    # was an error (no known format): the core's 15.9 GB are all tensors and 64 MB more do not fit
    assert diagnosis.verdict == "kv-capacity"
    assert _said(diagnosis, "1 out-of-memory event", "on ND 0:NC 0")


def test_guard_a_neuron_allocation_line_naming_no_core_is_no_oom():
    from inferledger.diagnose.failures import _FAILURE

    assert _FAILURE.search("TDRV:log_dev_mem Failed to allocate 64.000MB (usage: tensors) on ND 0:NC 0")
    assert not _FAILURE.search("we Failed to allocate 64.000MB of host staging buffers")


# Locust's stats against one ollama server through FastAPI (blind949): users a row, a statistic a column.
_LOCUST = """\
| Case        | Concurrency | Name      | Requests | Fails | Median (ms) | 95%ile (ms) | Average (ms) | Current RPS |
| ----------- | ----------- | --------- | -------- | ----- | ----------- | ----------- | ------------ | ----------- |
| Pure Python | 300         | /generate | 4608     | 0     | 9600        | 11000       | 8021.21      | 27.3        |
| Pure Python | 1000        | /generate | 4603     | 0     | 24000       | 38000       | 22912.62     | 25.8        |
"""


def test_a_load_testers_statistic_columns_are_its_response_times(tmp_path):
    first, second = markdown_summaries(tmp_path, _LOCUST)
    assert first.metrics["e2e_seconds_median"] == pytest.approx(9.6)
    assert first.metrics["e2e_seconds_p95"] == pytest.approx(11.0)
    assert first.metrics["e2e_seconds_mean"] == pytest.approx(8.02121)
    assert second.metrics["max_concurrency"] == 1000


def test_guard_a_statistic_column_counts_no_response_time_without_a_failures_column(tmp_path):
    text = _LOCUST.replace("| Fails |", "| Model |").replace("| 0     |", "| a     |")
    assert all("e2e_seconds_median" not in summary.metrics for summary in markdown_summaries(tmp_path, text))


def test_latency_in_step_with_users_at_a_flat_rate_is_a_queue_though_the_levels_are_near(tmp_path):
    diagnosis = diagnosed(tmp_path, _LOCUST)
    # was insufficient-data (no latency read). 300 and 1,000 users are 3.3x apart, under the rule's 4x, but 27.3 then
    # 25.8 req/s is flat (<= 1.25x): the mean response 8.02 s then 22.91 s, 2.9x, is >= 0.75 of the 3.3x ratio
    assert diagnosis.verdict == "queueing"
    assert _fired(diagnosis, "summary-e2e-grows-with-concurrency")
    assert _said(diagnosis, "8021 ms at concurrency 300", "22913 ms at 1000")


def test_guard_near_levels_whose_throughput_grew_are_not_compared(tmp_path):
    # 27.3 then 60 req/s: the server served the added users (a batch), so 3.3x apart stays under the rule's reach
    text = _LOCUST.replace("| 25.8        |", "| 60          |")
    assert not _fired(diagnosed(tmp_path, text), "summary-e2e-grows-with-concurrency")


def test_first_tokens_of_requests_still_running_are_not_a_reply_sent_whole():
    from inferledger.diagnose.records import Record
    from inferledger.diagnose.rules_summary import _not_streamed, _Run

    # blind948: a vLLM scrape whose TTFT histogram counts 69 first tokens and its E2E histogram 38 finished requests;
    # mean TTFT 71.6 s against a mean E2E of 23.7 s is of other requests, not one request's first token at its end
    metrics = {"ttft_seconds_mean": 71.6, "ttft_seconds_count": 69.0, "e2e_seconds_mean": 23.7,
               "e2e_seconds_count": 38.0, "mean_output_tokens": 128.0}
    record = Record("summary", "prometheus.histograms", 1, metrics)
    assert _not_streamed(_Run(record), metrics) == ("", {})
    # the same figures over one population (counts equal, or none stated) are a first token as late as the last
    for same in ({**metrics, "ttft_seconds_count": 38.0}, {k: v for k, v in metrics.items() if "count" not in k}):
        assert _not_streamed(_Run(Record("summary", "x", 1, same)), same)[0]


def test_a_rate_cell_with_its_spread_after_it_is_a_rate(tmp_path):
    # blind951: a laptop GPU's ollama table, each cell a mean with its standard deviation in brackets
    text = """\
| Model                        | Ingestion mean (std)   | Generation mean (std) |
| ---------------------------- | ---------------------- | --------------------- |
| tinyllama:1.1b-chat-v1-q4_0  | 2014.63 tok/s (±12.62) | 227.13 tok/s (±2.26)  |
| dolphin-phi:2.7b-v2.6-q4_0   | 684.07 tok/s (±3.85)   | 122.25 toks/s (±0.87) |
"""
    first, second = markdown_summaries(tmp_path, text)
    assert first.metrics["output_tokens_per_second_per_user_mean"] == 227.13
    assert first.metrics["input_tokens_per_second"] == 2014.63
    assert second.metrics["output_tokens_per_second_per_user_mean"] == 122.25


def test_mlx_refusing_a_buffer_past_metals_largest_is_an_oom(tmp_path):
    # blind950: a vision model's image too large for a 32 GB M1 Max: 96.9 GB asked against a 16 GiB buffer limit
    text = ("libc++abi: terminating due to uncaught exception of type std::runtime_error: Attempting to allocate "
            "96905199616 bytes which is greater than the maximum allowed buffer size of 17179869184 bytes.\n")
    diagnosis = diagnosed(tmp_path, text, name="mlx.log")
    assert diagnosis.verdict == "kv-capacity"
    assert _said(diagnosis, "1 out-of-memory event")


def test_a_throughput_a_line_reports_is_no_offered_rate(tmp_path):
    # blind954: the finding above the table reports what the server kept up, not what the client offered
    text = """\
* **Finding:** Despite 95% GPU utilization, throughput remains flat (~133 req/s) while latency degrades by **18x**.

| Scenario    | Concurrency | GPU Util | P50 Latency (ms) |
|-------------|-------------|----------|------------------|
| Interactive | 20          | 92.61%   | 150.17           |
| Saturation  | 400         | 95.42%   | 2745.41          |
"""
    summaries = markdown_summaries(tmp_path, text)
    assert [summary.metrics["max_concurrency"] for summary in summaries] == [20, 400]
    assert all("request_rate_per_second" not in summary.metrics for summary in summaries)
    # an offered rate stated so stays the runs' setting
    offered = markdown_summaries(tmp_path, text.replace("throughput remains flat (~133 req/s)", "sent at 133 req/s"))
    assert all(summary.metrics["request_rate_per_second"] == 133 for summary in offered)
