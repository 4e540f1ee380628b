"""Blind rounds 863 on: the general fixes of the thirty-seventh session. Expected figures are worked out here."""

from __future__ import annotations

from blind_helpers import diagnosed, parsed, write


def _said(diagnosis, *words) -> bool:
    """Whether one piece of the diagnosis' evidence says every one of `words`."""
    return any(all(word in evidence.text for word in words) for evidence in diagnosis.evidence)


def _fired(diagnosis, rule: str) -> bool:
    return any(evidence.rule == rule for evidence in diagnosis.evidence)


# llama-cli on an Intel Arc A770 (SYCL) under a locale with decimal commas (blind426): the loader's metadata names the
# model (general.name) and its size, the SYCL device table and the memory breakdown at exit name the card; no command
# line names a model file.
_SYCL_RUN = """\
print_info: file type   = F16
print_info: file size   = 14,19 GiB (16,00 BPW)
print_info: n_layer          = 28
print_info: model type       = 7B
print_info: general.name     = MathTutor 7B H_v0.0.1
load_tensors: offloaded 29/29 layers to GPU
load_tensors:        SYCL0 model buffer size = 13486,77 MiB
Found 1 SYCL devices:
|ID|        Device Type|                                   Name|Version|units  |group   |group|size   |  Driver version|
|--|-------------------|---------------------------------------|-------|-------|--------|-----|-------|----------------|
| 0| [level_zero:gpu:0]|                Intel Arc A770 Graphics|  12.55|    512|    1024|   32| 16225M|      1.13.36015|
llama_kv_cache: size =  224,00 MiB (  4096 cells,  28 layers,  1/1 seqs), K (f16):  112,00 MiB, V (f16):  112,00 MiB
common_perf_print: prompt eval time =     116,10 ms /     9 tokens (   12,90 ms per token,    77,52 tokens per second)
common_perf_print:        eval time =   40380,08 ms /   511 runs   (   79,02 ms per token,    12,65 tokens per second)
common_perf_print:       total time =   40676,85 ms /   520 tokens
"""


def test_a_decimal_comma_file_size_is_read(tmp_path):
    from inferledger.diagnose.parsers import llamacpp

    records = parsed(llamacpp, write(tmp_path, _SYCL_RUN))
    sizes = [record.metrics["weights_bytes"] for record in records if "weights_bytes" in record.metrics]
    assert sizes == [14.19 * 2**30]  # was none: `14,19 GiB` stopped the size's pattern at its comma
    caches = [record.metrics["kv_cache_bytes"] for record in records if "kv_cache_bytes" in record.metrics]
    assert caches == [224 * 2**20]


def test_the_loaders_model_name_and_the_sycl_card_judge_decode(tmp_path):
    diagnosis = diagnosed(tmp_path, _SYCL_RUN)
    # F16 is 2 bytes a weight: 7e9 × 2 = 14.0 GB a step at the A770's 560 GB/s is a floor of 25 ms and more (the
    # fixed per-layer cost on top); 79.02 ms is at most 25 / 79.02 = 32 % of that speed, under the 40 % the rule asks.
    assert diagnosis.verdict == "decode-bound"  # was healthy: no card and no model, so the fixed cutoff judged it
    assert _fired(diagnosis, "hardware-named-decode-far-below-floor")
    assert _said(diagnosis, "MathTutor 7B", "560 GB/s", "79.02 ms/token")


def test_the_memory_breakdown_names_a_cuda_card(tmp_path):
    from inferledger.diagnose.device import named_card

    line = ("llama_memory_breakdown_print: |   - CUDA0 (NVIDIA GeForce RTX 4090) | 24080 = 1480 + (21860 = 19200 +  "
            "2048 +  612) +  740 |")
    assert named_card([line]) == ("rtx-4090", "NVIDIA GeForce RTX 4090")
    # a remote device (llama.cpp's RPC) is no card the catalogue holds: no card named
    assert named_card(["llama_memory_breakdown_print: |   - RPC0 (rog:50052) | 0 = 0 + (0 = 0 + 0 + 0) + 0 |"]) is None


def test_a_metadata_name_without_a_size_takes_the_model_type(tmp_path):
    from inferledger.diagnose.parsers import llamacpp

    text = ("llm_load_print_meta: model type       = 13B\n"
            "llm_load_print_meta: general.name     = LLaMA v2\n"
            "llama_print_timings:        eval time =  5000.00 ms /   100 runs   (   50.00 ms per token,    20.00 tokens "
            "per second)\n")
    models = [record.labels["model"] for record in parsed(llamacpp, write(tmp_path, text)) if "model" in record.labels]
    assert models == ["LLaMA v2 13B"]
    # a type llama.cpp does not know (`?B`) gives a sizeless name no model
    unknown = text.replace("= 13B", "= ?B")
    assert not [record for record in parsed(llamacpp, write(tmp_path, unknown, "unknown.log"))
                if "model" in record.labels]


# A metric-per-row table whose cells carry the poster's markup (blind866: tt-metal's nightly table, the QB2 column in
# bold, the TTFT cells marked with a warning sign).
_MARKED_CELLS = """\
| Metric | **QB2 (P150×4, BH)** | T3K (1×8, WH) |
|---|---:|---:|
| TPOT / ITL (per token) | **68.9 ms** | 74.4 ms |
| output throughput (aggregate) | 11.21 tok/s | 10.66 tok/s |
| mean TTFT | ~140 s ⚠️ | ~149 s ⚠️ |
"""


def test_a_metric_rows_unit_is_read_through_bold_and_marks(tmp_path):
    from inferledger.diagnose.parsers import bench_markdown

    runs = [record for record in parsed(bench_markdown, write(tmp_path, _MARKED_CELLS)) if record.kind == "summary"]
    assert [record.labels["tool"] for record in runs] == ["table column 'QB2 (P150×4, BH)'", "table column 'T3K (1×8, WH)'"]
    # was no TPOT and no TTFT: `**68.9 ms**` ends in `ms**` and `~140 s ⚠️` in the sign, neither read as a unit
    assert runs[0].metrics["tpot_seconds_mean"] == 68.9e-3
    assert runs[0].metrics["ttft_seconds_mean"] == 140.0
    assert runs[1].metrics["ttft_seconds_mean"] == 149.0
    diagnosis = diagnosed(tmp_path, _MARKED_CELLS, "marked.md")
    # 140 s / 68.9 ms = 2,032 steps before the first token, with no input rate to say the prompt is that long
    assert diagnosis.verdict == "queueing"
    assert _said(diagnosis, "140 s", "2032×")


# An offline batch report's summary (blind338): the run's total time beside the count of its requests.
_BATCH_REPORT = """\
| Metric | Value |
|--------|-------|
| **Total Requests** | 5,000 |
| **Model Load Time** | 26.1 seconds |
| **Total Time** | 2,209.1 seconds (36.8 minutes) |
"""


def test_a_total_time_beside_a_request_count_is_the_runs_duration(tmp_path):
    from inferledger.diagnose.parsers import bench_markdown

    runs = [record for record in parsed(bench_markdown, write(tmp_path, _BATCH_REPORT)) if record.kind == "summary"]
    assert len(runs) == 1
    # 5,000 requests' total is the batch's wall time, not one request's latency
    assert runs[0].metrics["duration_seconds"] == 2209.1
    assert "e2e_seconds_mean" not in runs[0].metrics
    assert runs[0].metrics["completed_requests"] == 5000


# Figures quoted with their spread before the unit: openvino.genai's benchmark (blind170) and llama-bench's rows in a
# poster's own table (blind575).
_SPREAD_LINES = """\
Load time: 3110.00 ms
Generate time: 1786.82 ± 66.43 ms
TTFT: 288.04 ± 43.60 ms
"""


def test_a_figures_spread_before_its_unit_leaves_the_unit_to_the_figure(tmp_path):
    diagnosis = diagnosed(tmp_path, _SPREAD_LINES)
    # was 43.6 ms: the unit after the spread was read as the spread's
    assert diagnosis.metrics["request"]["ttft_seconds"]["mean"] == 288.04e-3


_BENCH_ROWS_QUOTED = """\
Baseline numbers on the hardware anyway. Dual P40, Qwen3-32B-Q4_K_M, `-ngl 99`:

| test | result |
|---|---|
| pp512, `llama-bench -r 3` | 198.28 ± 3.24 t/s |
| tg128, `llama-bench -r 3` | 11.46 ± 0.01 t/s |
"""


def test_llama_bench_rates_quoted_with_their_spread_are_the_rates(tmp_path):
    diagnosis = diagnosed(tmp_path, _BENCH_ROWS_QUOTED)
    # 11.46 t/s is 1 / 11.46 = 87.3 ms a token; read as the spread, 0.01 t/s was 100 s a token
    assert abs(diagnosis.metrics["request"]["tpot_seconds"]["mean"] - 1 / 11.46) < 1e-9
    assert diagnosis.metrics["request"]["prompt_tokens_per_second"]["mean"] == 198.28


# An issue's bullet list of ollama's figures, each hedged (blind163: v0.24 on five GTX 1070 Ti).
_HEDGED = """\
* input_tokens: 50
* output_tokens: 978
* prompt_token/s: around 303.8
* response_token/s: around 34.26
* total_duration: around 30 seconds
"""


def test_a_value_hedged_after_its_label_is_read(tmp_path):
    diagnosis = diagnosed(tmp_path, _HEDGED)
    request = diagnosis.metrics["request"]
    # was no rate at all (`around` stood between the label and the figure): 1 / 34.26 s a token, 303.8 prompt tok/s
    assert abs(request["tpot_seconds"]["mean"] - 1 / 34.26) < 1e-9
    assert request["prompt_tokens_per_second"]["mean"] == 303.8
    approx = diagnosed(tmp_path, _HEDGED.replace("around 34.26", "~34.26"), "tilde.txt")
    assert abs(approx.metrics["request"]["tpot_seconds"]["mean"] - 1 / 34.26) < 1e-9


# ollama's final response for a cold first call (blind46, ollama's API doc): 10.7 s in all, 6.34 s of it the model's
# load, 26 prompt tokens in 130 ms and 259 tokens in 4.23 s.
_COLD_CALL = ('{"model":"llama3.2","done":true,"total_duration":10706818083,"load_duration":6338219291,'
              '"prompt_eval_count":26,"prompt_eval_duration":130079000,"eval_count":259,"eval_duration":4232710000}\n')


def test_a_cold_start_timed_apart_from_the_answer_leaves_the_answer_judged(tmp_path):
    diagnosis = diagnosed(tmp_path, _COLD_CALL)
    # 4.2327 s / 259 tokens = 16.3 ms a token, judged; the load (6,338 / 10,707 = 59 %) said, no verdict of its own
    assert diagnosis.verdict == "healthy"  # was measurement-artifact: the load outranked the answer's timing
    assert not _fired(diagnosis, "requests-cold-start")
    assert _said(diagnosis, "16.3 ms/token")
    assert any("model load 6,338 ms is 59% of the request time: a cold start" in note for note in diagnosis.notes)


def test_a_cold_start_with_no_answer_timed_is_still_the_reading(tmp_path):  # guard: the rule where nothing else is
    text = _COLD_CALL.replace(',"eval_count":259,"eval_duration":4232710000', "")
    diagnosis = diagnosed(tmp_path, text, "no-eval.txt")
    assert diagnosis.verdict == "measurement-artifact"
    assert _fired(diagnosis, "requests-cold-start")


# llama-bench on a Raspberry Pi 5's CPU (blind875): a 30B-A3B MoE at 2.70 bits a weight, its tg128 at 7.99 t/s.
_PI5_BENCH = """\
| model                          |       size |     params | backend    | threads |            test |                  t/s |
| ------------------------------ | ---------: | ---------: | ---------- | ------: | --------------: | -------------------: |
| qwen3moe 30B.A3B all F32 (guessed) |   9.58 GiB |    30.53 B | CPU        |       4 |           pp512 |         10.91 ± 0.01 |
| qwen3moe 30B.A3B all F32 (guessed) |   9.58 GiB |    30.53 B | CPU        |       4 |           tg128 |          7.99 ± 0.03 |
"""


def test_a_single_board_computers_memory_is_no_broken_backend(tmp_path):
    diagnosis = diagnosed(tmp_path, _PI5_BENCH)
    # 9.58 GiB × ~3.3 of 30.53 B parameters active ≈ 1.1 GB a step × 7.99 t/s ≈ 8-9 GB/s: a Pi 5's LPDDR4X at its
    # pace, not under every memory system's (was: below 10 GB/s, a broken backend, decode-bound)
    assert not _fired(diagnosis, "hardware-low-effective-bandwidth")
    assert diagnosis.verdict == "healthy"


def test_a_backend_reading_a_few_gb_a_second_is_still_the_backend(tmp_path):  # guard
    slow = _PI5_BENCH.replace("7.99 ± 0.03", "2.10 ± 0.03")  # 1.1 GB × 2.1 t/s ≈ 2.3 GB/s: under 4 GB/s
    diagnosis = diagnosed(tmp_path, slow, "slow.txt")
    assert _fired(diagnosis, "hardware-low-effective-bandwidth")
    assert diagnosis.verdict == "decode-bound"
