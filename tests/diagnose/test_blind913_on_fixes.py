"""Blind rounds 913 on: the general fixes of the fortieth session. Expected figures are worked out here."""

from __future__ import annotations

import pytest
from blind_helpers import diagnosed, markdown_summaries, parsed, write


def _said(diagnosis, *words) -> bool:
    """Whether one piece of the diagnosis' evidence says every one of `words`."""
    return any(all(word in evidence.text for word in words) for evidence in diagnosis.evidence)


def _fired(diagnosis, rule: str) -> bool:
    return any(evidence.rule == rule for evidence in diagnosis.evidence)


def _rates(summaries) -> list:
    return [summary.metrics.get("output_tokens_per_second_per_user_mean") for summary in summaries]


# The Qwen (1.0) cards' profile of generation at batch 1 (blind539's Qwen-7B README, blind900's Qwen-14B card): the
# column names how many tokens were generated, the prose says the cells are tokens per second.
_QWEN_PROFILE = """\
### Inference Speed

We measured the average inference speed (tokens/s) of generating 2048 and 8192 tokens under BF16 precision and Int4.

| Quantization | Speed (2048 tokens) | Speed (8192 tokens) |
| -------------- | :-------------------: | :-------------------: |
| BF16         |        30.34        |        29.32        |
| Int4         |        43.56        |        33.92        |

In detail, the setting of profiling is generating 8192 new tokens with 1 context token, batch size 1, on an A100.
"""


def test_a_qwen_card_speed_column_is_one_stream_generating_that_many_tokens(tmp_path):
    summaries = markdown_summaries(tmp_path, _QWEN_PROFILE)
    # four cells, each one stream's rate: 30.34 and 29.32 tok/s for BF16, 43.56 and 33.92 for Int4
    assert sorted(_rates(summaries)) == pytest.approx(sorted([30.34, 29.32, 43.56, 33.92]))


def test_a_qwen_card_profile_of_a_7b_on_an_a100_is_decode_bound(tmp_path):
    diagnosis = diagnosed(tmp_path, _QWEN_PROFILE, model="Qwen/Qwen-7B-Chat", gpu="a100-sxm-80gb")
    # was insufficient-data (the table was not read). The fastest row, 43.56 tok/s, is 1 / 43.56 = 22.96 ms a token,
    # against 7e9 x 2 bytes = 14.0 GB read at 2,039 GB/s = 6.87 ms (plus the layers' fixed cost): under half the speed
    assert diagnosis.verdict == "decode-bound"
    assert _said(diagnosis, "22.96 ms/token")


def test_guard_a_speed_column_naming_no_tokens_stays_unread(tmp_path):
    # `Speed` alone names no unit: a card's speed in images, steps or characters is no token rate
    text = _QWEN_PROFILE.replace("Speed (2048 tokens)", "Speed").replace("Speed (8192 tokens)", "Speed, long")
    assert all(rate is None for rate in _rates(markdown_summaries(tmp_path, text)))


# A README's table written with opening bars and no closing ones, its rule too (blind909, qwen600's README):
# the style of the table, not a row cut by an excerpt, so the last cell of each row is whole.
_OPEN_RIGHT = """\
| inference engine | ~ tokens/sec
| ---              | ---
| hf + flash-attn  | 29.57
| llama.cpp        | 107.19
| qwen600          | **116.15**
"""


def test_a_table_with_no_closing_bars_keeps_its_last_column(tmp_path):
    assert sorted(_rates(markdown_summaries(tmp_path, _OPEN_RIGHT))) == pytest.approx([29.57, 107.19, 116.15])


def test_guard_a_closing_bar_in_a_table_with_none_opens_an_empty_last_cell(tmp_path):
    # blind142's report: a row with no note ends `| 14.5 |`, one with a note `| 18.1 | fastest`; both are rows of
    # the table's three columns, the rate in the second
    text = """\
| Quant | TPS | Note
|-------|-----|------
| Q2_K | 18.1 | fastest
| Q4_K_M | 14.5 |
"""
    assert sorted(_rates(markdown_summaries(tmp_path, text))) == pytest.approx([14.5, 18.1])


def test_guard_a_row_cut_under_a_whole_rule_still_loses_its_last_cell(tmp_path):
    # the header and rule close their bars, the last row does not: an excerpt cut it (`| c | 11` may be `| c | 110 |`)
    text = """\
| engine | tok/s |
| --- | --- |
| a | 29.57 |
| b | 107.19 |
| c | 11
"""
    assert sorted(_rates(markdown_summaries(tmp_path, text))) == pytest.approx([29.57, 107.19])


# A model card's tables as a page copy leaves them, cells one space apart and a metric a row (blind904's cards on
# Hugging Face): the line above the rows names the variants, each row a metric's name, then one figure a variant.
_CARD_SPACED = """\
Evaluated on Apple M4 Pro with MLX.

This model FP16 baseline
Decode tok/s (avg, long traces) 1157.12 1270.13
Peak memory (GB) 0.154 0.223
Disk size (MB) 55 201
"""


def test_a_single_space_card_table_reads_a_run_per_variant(tmp_path):
    summaries = markdown_summaries(tmp_path, _CARD_SPACED)
    # two variants, split where a capital starts a name (`This model` | `FP16 baseline`), each one stream's rate
    assert sorted((summary.labels["tool"], summary.metrics.get("output_tokens_per_second_per_user_mean"))
                  for summary in summaries) == [("table column 'FP16 baseline'", 1270.13),
                                                ("table column 'This model'", 1157.12)]


def test_a_metric_headed_single_space_table_takes_rows_with_confidence_intervals(tmp_path):
    text = """\
Metric BF16 baseline This checkpoint
GSM8K strict-match 91.8 [89.4, 94.2] 86.6 [83.6, 89.6]
Weights on disk (GB) 16.4 6.4
ITL p50 ms/token, Marlin fallback path 11.1 4.6
"""
    summaries = {summary.labels["tool"]: summary.metrics for summary in markdown_summaries(tmp_path, text)}
    # the accuracy row's intervals are no columns, so the table stays two figures wide down to the ITL row:
    # 11.1 ms and 4.6 ms, the median of each variant's gaps between tokens
    assert summaries["table column 'BF16 baseline'"]["itl_seconds_median"] == pytest.approx(0.0111)
    assert summaries["table column 'This checkpoint'"]["itl_seconds_median"] == pytest.approx(0.0046)


def test_guard_prose_with_two_figures_under_a_short_line_is_no_table(tmp_path):
    # the first row must name a measure (or the header say `Metric`): a sentence ending in figures opens nothing
    text = "Results below\nWe ran it on 2 boxes 8 16\nThe second took 3 4\n"
    assert markdown_summaries(tmp_path, text) == []


def test_a_bar_table_row_names_a_rate_before_an_aside(tmp_path):
    # `Decode tok/s (192-token generations)` (blind392's three llama.cpp builds) is the decode rate
    text = """\
| Metric | b10092 | b10333 |
|---|---|---|
| Decode tok/s (192-token generations) | **15.48** | 14.26 (0.921×) |
"""
    assert sorted(_rates(markdown_summaries(tmp_path, text))) == pytest.approx([14.26, 15.48])


def test_guard_an_aside_does_not_make_a_count_or_a_name_a_measure(tmp_path):
    # blind7's `Total generated tokens (retokenized)` is not the total generated; blind476's `C (SingularityAI)` is a
    # tier's name, not a concurrency `c`
    text = """\
| Metric | A | B |
|---|---|---|
| Total generated tokens | 262144 | 262144 |
| Total generated tokens (retokenized) | 261347 | 261314 |
| C (SingularityAI) | 0 | 1 |
| Output token throughput (tok/s) | 5598.17 | 5934.04 |
"""
    for summary in markdown_summaries(tmp_path, text):
        assert summary.metrics["total_output_tokens"] == 262144
        assert "max_concurrency" not in summary.metrics


def test_a_zero_per_token_time_with_no_output_length_is_not_healthy(tmp_path):
    # blind447: vLLM's multi-turn benchmark printed TPOT 0.00 at every quantile for a reasoning model whose tokens it
    # did not count; with no output length, no decode step was timed and the run is not healthy on it
    text = """\
| Metric | Value |
|---|---|
| Mean TTFT (ms) | 22195.78 |
| Mean TPOT (ms) | 0.00 |
"""
    diagnosis = diagnosed(tmp_path, text)
    assert diagnosis.verdict != "healthy"
    assert any("per-token time of 0 and no output length" in note for note in diagnosis.notes)


def test_a_row_of_units_under_the_header_names_the_columns_units(tmp_path):
    # KTransformers' Chinese guide (blind916): `pp` and `tg` over a second header row `令牌/秒` (tokens per second)
    text = """\
| 引擎 | pp | tg |
| --- | --- | --- |
| | 令牌/秒 | 令牌/秒 |
| 1 `ktransformers@25c5bdd` | 19.0 | 14.7 |
| 1 `llama.cpp@51f311e0` | 18.4 | 8.63 |
"""
    summaries = markdown_summaries(tmp_path, text)
    assert sorted(_rates(summaries)) == pytest.approx([8.63, 14.7])
    assert sorted(summary.metrics["input_tokens_per_second"] for summary in summaries) == pytest.approx([18.4, 19.0])


def test_guard_a_first_row_of_words_is_no_unit_row(tmp_path):
    # a first row of names under the header stays a row: only a row of units alone folds into the header
    text = """\
| engine | tg t/s |
| --- | --- |
| baseline | 14.7 |
| patched | 16.2 |
"""
    assert sorted(_rates(markdown_summaries(tmp_path, text))) == pytest.approx([14.7, 16.2])


def test_lunar_lakes_arc_140v_is_in_the_catalogue_at_its_bus_bandwidth():
    from inferledger.hardware.lookup import find_accelerator

    card = find_accelerator("Intel(R) Arc(TM) 140V GPU")
    assert card.name == "arc-140v"
    # dual-channel LPDDR5X-8533: 2 x 64 bits = 16 bytes a transfer x 8533e6 transfers a second = 136.5 GB/s
    assert card.memory_bandwidth_bytes_per_second == pytest.approx(16 * 8533e6, rel=1e-3)
    # 8 Xe2-cores x 128 lanes x 2 FLOP (a fused multiply-add) x 2.05 GHz
    assert card.peak_flops_per_second_by_dtype["fp32"] == pytest.approx(8 * 128 * 2 * 2.05e9)


# lm.rs's README (blind915): one model at Q4_0 and Q8_0 on a 16-core Epyc, the 4-bit build no faster than the 8-bit.
_LMRS = """\
Speed measured on a 16-core AMD Epyc.
|        Model       | Size | Speed |
| ------------------ | ------------- | ------------- |
| [Gemma 2 2B IT Q4_0](https://huggingface.co/x/gemma2-2b-it-q4_0) | 1.39G | 20 tok/s |
| [Gemma 2 2B IT Q8_0](https://huggingface.co/x/gemma2-2b-it-q8_0) | 2.66GB | 18 tok/s |
| [Gemma 2 9B IT Q4_0](https://huggingface.co/x/gemma2-9b-it-q4_0) | 4.91GB | 7 tok/s |
| [Gemma 2 9B IT Q8_0](https://huggingface.co/x/gemma2-9b-it-q8_0) | 9.53GB | 8 tok/s |
"""


def test_a_4_bit_row_slower_than_its_8_bit_row_is_its_kernels_limit(tmp_path):
    diagnosis = diagnosed(tmp_path, _LMRS)
    slow = [evidence for evidence in diagnosis.evidence if evidence.rule == "summary-quantised-not-faster"]
    # the 9B: 7 tok/s at Q4_0 (4.5 bits a weight) against 8 at Q8_0 (8.5), 7 / 8 = 0.88×; the 2B's Q4_0 is faster
    # (20 against 18), and no row is compared across the two sizes
    assert [(evidence.numbers["tokens_per_second"], evidence.numbers["wider_weights_tokens_per_second"])
            for evidence in slow] == [(7.0, 8.0)]
    assert slow[0].text.startswith("Gemma 2 9B IT Q4_0: 4.5-bit weights decode at 7.0 tok/s, 0.88× the 8.0 tok/s of "
                                   "the 8.5-bit run")
    assert diagnosis.verdict == "decode-bound"


def test_guard_an_8_bit_section_beside_a_4_bit_one_is_no_base(tmp_path):
    # blind491: an FP8 run on two cards and an NVFP4 run on another card, each under its own heading: they differ in
    # more than their weights, so the 8-bit run is no base (a 16-bit one in prose still is)
    text = """\
## Qwen/Qwen3.8-27B-FP8 2 RTX PRO 4000, MTP 3
Output token throughput (tok/s):         79.05

## unsloth/Qwen3.8-27B-NVFP4 RTX 4090 48Gb, MTP 2
Output token throughput (tok/s):         67.34
"""
    assert not _fired(diagnosed(tmp_path, text), "summary-quantised-not-faster")


def test_guard_two_generations_of_one_family_and_size_are_two_models(tmp_path):
    # blind835: Gemma 3 12B (its 3-bit QAT build) beside Gemma 4 12B at 4 bits: not one model in two formats
    text = """\
| Model | RAM | tok/s |
|---|---|---|
| Gemma-3-12B | 6.09 GB | 3.9 |
| Gemma 4 12B-4bit | 11.37 GB | 2.7 |
"""
    assert not _fired(diagnosed(tmp_path, text), "summary-quantised-not-faster")


def test_a_files_bits_a_weight_outrank_its_types_usual_ones():
    from inferledger.diagnose.weight_formats import stated_bits

    # ByteShape's Q4_K_S at 3.87 bits a weight (blind703): the file's own figure, not Q4_K's usual 4.5
    assert stated_bits("ByteShape Qwen3-4B Q4_K_S (3.87 bpw)") == 3.87
    assert stated_bits("Qwen3-4B Q4_K_M") == 4.5


def test_a_scaling_column_beside_a_batch_sweep_is_no_load(tmp_path):
    # the vLLM Metal plugin's report (blind917): `Scaling vs batch=1` is each row's rate over the first row's, not a
    # load the rates were run at; the `tok/s` beside a batch column is the batch's, per stream ÷ the batch
    text = """\
| Batch | tok/s | Scaling vs batch=1 |
|-------|-------|--------------------|
| 1     | 6.4   | 1.00x              |
| 16    | 32.0  | 4.96x              |
"""
    # 6.4 / 1 = 6.4 and 32.0 / 16 = 2.0 tok/s a stream
    assert sorted(_rates(markdown_summaries(tmp_path, text))) == pytest.approx([2.0, 6.4])


# An analysis script's generated report (blind920): a section heading names the measure, a sub-heading the prompt
# length, each row a configuration and each `b=N` column that configuration at batch N.
_BY_BATCH = """\
## T1: Batch TPOT (ms)

Lower is better.

### i=128

| Config | b=1 | b=8 | b=64 | Δ(1→64) |
|--------|------:|------:|------:|---------:|
| TP2 H200 NVLink | 5.83 | **6.46** | 9.94 | 1.7x |
| TP8 H200 NVLink | **4.58** | 6.60 | **9.28** | 2.0x |
| **Winner** | TP8 | TP2 | TP8 | |

## T2: Batch TPS

### i=128

| Config | b=1 | b=8 | b=64 | Δ(1→64) |
|--------|------:|------:|------:|---------:|
| TP2 H200 NVLink | 171 | 1238 | 6439 | 37.6x |
"""


def test_a_table_by_batch_columns_reads_its_sections_measure_a_cell(tmp_path):
    summaries = markdown_summaries(tmp_path, _BY_BATCH)
    # T1's six cells: each configuration's TPOT at batch 1, 8 and 64, in ms; the change column and the `Winner` row
    # are no runs, and T2's throughputs are under a heading that names no measure the tool reads a cell of
    assert sorted((summary.labels["benchmark"], summary.metrics["max_concurrency"],
                   round(summary.metrics["tpot_seconds_mean"] * 1e3, 2)) for summary in summaries) == [
        ("TP2 H200 NVLink", 1.0, 5.83), ("TP2 H200 NVLink", 8.0, 6.46), ("TP2 H200 NVLink", 64.0, 9.94),
        ("TP8 H200 NVLink", 1.0, 4.58), ("TP8 H200 NVLink", 8.0, 6.6), ("TP8 H200 NVLink", 64.0, 9.28)]


def test_guard_workloads_beside_concurrency_columns_are_no_load_table(tmp_path):
    # blind312: `| | count100 | code | prose | C8 | C16 |`, workloads and concurrencies side by side, each row's
    # figures before the `C` columns: no run's name and loads
    text = """\
You measured 19.4 -> 51.7 tok/s decode dropping eager. Measured at TP4, median of 3:

| | count100 | code | C8 | C16 |
|---|---|---|---|---|
| `--enforce-eager` | **98.8** | **73.1** | **224.3** | 249.3 |
| `cudagraph_mode: PIECEWISE` | 80.0 | 58.8 | 183.5 | 237.4 |
"""
    assert all("max_concurrency" not in summary.metrics for summary in markdown_summaries(tmp_path, text))


def test_output_rate_times_tpot_of_one_is_one_stream_judged_against_the_card(tmp_path):
    # onnxruntime-genai's benchmark (blind489): a TPOT and an output rate, no concurrency stated. 8.2 tok/s x
    # 0.12197 s = 1.0: one stream wrote every token, so the step is one stream's and the card's floor judges it
    text = """\
| Metric | Value |
|---|---|
| Mean TPOT (ms) | 121.97 |
| Output token throughput (tok/s) | 8.2 |
"""
    diagnosis = diagnosed(tmp_path, text, model="Qwen/Qwen3-8B", gpu="rtx-4080")
    assert any("batch 1: output tok/s × TPOT is one stream" in line for line in diagnosis.roofline["lines"])
    assert diagnosis.verdict == "decode-bound"


def test_the_one_stream_band_is_a_quarter_either_side_of_one(tmp_path):
    # 80 tok/s x 0.05 s = 4 streams: no batch of one (streams_by_littles_law says 4)
    from inferledger.diagnose.rules_summary import one_stream_by_littles_law

    assert not one_stream_by_littles_law({"tpot_seconds_mean": 0.05, "output_tokens_per_second": 80.0})
    assert one_stream_by_littles_law({"tpot_seconds_mean": 0.05, "output_tokens_per_second": 19.0})  # 0.95


def test_a_perf_analyzer_block_pasted_from_its_client_rows_is_read(tmp_path):
    # a Triton perf_analyzer result pasted without its `Request concurrency:` line (blind925): the client's rows and
    # the server's split are one run's, its concurrency unstated
    text = """\
   Request count: 478
    Throughput: 5.90113 infer/sec
    p50 latency: 693918210 usec
    p99 latency: 749308680 usec
  Server:
    Inference count: 3824
    Execution count: 478
    Avg request latency: 695099710 usec (overhead 1 usec + queue 692389668 usec + compute infer 2709978 usec)
"""
    from inferledger.diagnose.parsers import perf_analyzer

    (run,) = parsed(perf_analyzer, write(tmp_path, text))
    assert run.metrics["request_throughput_per_second"] == 5.90113
    assert run.metrics["e2e_seconds_median"] == pytest.approx(693.918210)
    assert run.metrics["queue_seconds_mean"] == pytest.approx(692.389668)
    assert "max_concurrency" not in run.metrics
    # 692.39 s of the server's 695.10 s a request in its queue: 99.6 %, past summary-server-queue's 40 %
    diagnosis = diagnosed(tmp_path, text)
    assert diagnosis.verdict == "queueing" and _fired(diagnosis, "summary-server-queue")
