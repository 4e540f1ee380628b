"""Blind rounds 569 on: the general fixes of the twenty-seventh session. Expected figures are worked out here."""

from __future__ import annotations

import pytest
from blind_helpers import diagnosed, markdown_summaries, parsed, write

from inferledger.diagnose.parsers import trtllm_bench


def _stream_rates(summaries) -> list:
    return sorted(summary.metrics["output_tokens_per_second_per_user_mean"] for summary in summaries)


def test_llama_bench_tests_named_beside_their_back_end_are_rates(tmp_path):
    # PocketPal's benchmark screen: `CPU pp | CPU tg | GPU pp | GPU tg`, a row a quant. Each back end is a run of
    # its own (the metric named twice), so two rows give four runs, each a prompt rate and a stream's rate.
    summaries = markdown_summaries(tmp_path, "| quant | CPU pp | CPU tg | GPU pp | GPU tg |\n|---|---:|---:|---:|---:|\n"
                                             "| q4_0 | 99.9 | 30.4 | 629.0 | 28.1 |\n"
                                             "| q8_0 | 100.0 | 25.7 | 558.2 | 26.0 |\n")
    assert _stream_rates(summaries) == [25.7, 26.0, 28.1, 30.4]
    assert sorted(summary.metrics["input_tokens_per_second"] for summary in summaries) == [99.9, 100.0, 558.2, 629.0]


def test_a_before_after_header_reads_its_cells_as_the_after_run(tmp_path):
    # `tg base → PR-722 (Δ)` over `28.7 → 34.9 (+21.6 %)`: the metric is tg, each cell the PR's figure (34.9), the
    # memory column no rate
    summaries = markdown_summaries(tmp_path, "| model/quant | pp base → PR-722 (Δ) | tg base → PR-722 (Δ) | "
                                             "total mem base → PR-722 (Δ) |\n|---|---|---|---|\n"
                                             "| qwen3-1.7b/q4_0 | 586.7 → 643.4 (+9.7 %) | 28.7 → 34.9 (+21.6 %) | "
                                             "1710 → 1710 MB (±0 %) |\n"
                                             "| phi-4-mini/q4_0 | 292.4 → 311.6 (+6.6 %) | 11.4 → 9.5 (−16.9 %) | "
                                             "3375 → 3375 MB (±0 %) |\n")
    assert _stream_rates(summaries) == [9.5, 34.9]
    assert sorted(summary.metrics["input_tokens_per_second"] for summary in summaries) == [311.6, 643.4]


def test_a_bare_tg_column_or_a_ratio_of_two_is_no_rate(tmp_path):
    # `tg` alone heads the test's length here (32, 4 tokens) beside the run's own rate column, and `tg ratio` is one
    # run over another: neither is a rate, so each row is one run whose stream rate is its `tg t/s` cell
    summaries = markdown_summaries(tmp_path, "| Model | tg | tg t/s | tg ratio |\n|---|---:|---:|---:|\n"
                                             "| Qwen2.5 3B Q4_0 | 32 | 55.19 | 1.158 |\n"
                                             "| Qwen3 0.6B Q8_0 | 4 | 182.82 | 1.700 |\n")
    assert _stream_rates(summaries) == [55.19, 182.82]


def _wrapped(text: str, width: int) -> str:
    """`text` as a terminal of `width` columns prints it: cut every `width` characters, mid-word."""
    return "\n".join(text[start:start + width] for start in range(0, len(text), width)) + "\n"


def test_benchmark_py_records_a_terminal_wrapped_are_read_whole(tmp_path):
    # TensorRT-LLM's benchmark.py prints a record a line; pasted from an 80-column terminal each is cut mid-word, and
    # the excerpt starts inside the first record (its head cut). Each record whole again: the first one's keys are
    # found by name though its first token is a value (`float16`), and each gives its batch and its tokens_per_sec.
    records = [(56, 1224.39, 9147.39), (64, 1313.61, 9744.175)]
    lines = [f"[BENCHMARK] model_name llama_70b world_size 8 precision float16 batch_size {batch} input_length 512 "
             f"output_length 200 tokens_per_sec {rate} latency(ms) {latency} compute_cap sm80"
             for batch, rate, latency in records]
    cut = lines[0].index(" float16")  # the excerpt starts there, inside the first record's first row
    text = _wrapped(lines[0], 80)[cut:] + _wrapped(lines[1], 80)
    summaries = parsed(trtllm_bench, write(tmp_path, text))
    assert [(item.metrics["max_concurrency"], item.metrics["output_tokens_per_second"]) for item in summaries] == \
        [(56, 1224.39), (64, 1313.61)]
    assert summaries[1].metrics["e2e_seconds_mean"] == pytest.approx(9.744175)
    assert summaries[1].labels["model"] == "llama_70b"


def test_vllm_kv_refusal_wrapped_by_a_terminal_is_a_start_up_refusal(tmp_path):
    # vLLM V1's ValueError, cut by an 80-column terminal between `KV cach` and `e is needed`: still the engine
    # refusing to start for lack of KV memory (4.26 GiB needed, 4.25 GiB left), so the KV cache is the limit
    text = ("(EngineCore pid=316) ValueError: To serve at least one request with the model's max seq len (100000), "
            "(4.26 GiB KV cach\ne is needed, which is larger than the available KV cache memory (4.25 GiB). Based on "
            "the available memory, the estimated maximum model length is 99750.\n")
    diagnosis = diagnosed(tmp_path, text)
    assert diagnosis.verdict == "kv-capacity"
    assert diagnosis.events["kv_start_refusals"] == 1


@pytest.mark.parametrize("line", [
    "Task 1: EXC_RESOURCE (RESOURCE_TYPE_MEMORY: high watermark memory limit exceeded) (limit=6144 MB)",
    "Native API failed. Native API returns: -6 (PI_ERROR_OUT_OF_HOST_MEMORY) -6 (PI_ERROR_OUT_OF_HOST_MEMORY)"])
def test_an_os_or_runtime_memory_failure_is_an_out_of_memory_event(tmp_path, line):
    # iOS ending the app at its memory limit, SYCL's runtime unable to allocate a buffer: memory ended the run
    diagnosis = diagnosed(tmp_path, "the app crashed on the first long prompt:\n" + line + "\n")
    assert diagnosis.verdict == "kv-capacity"
    assert diagnosis.events["oom"] == 1


_OFFLINE = "{heading}\nThroughput: {rate} requests/s, {total} total tokens/s, {output} output tokens/s\n\n"


def test_quantised_weights_decoding_slower_than_16_bit_are_the_kernel(tmp_path):
    # vLLM's offline throughput, one model, bf16 then torchao int4 weight-only, the format on the line above each
    # run: 598.52 output tok/s against 3,642.96 is 0.16× the 16-bit run's, where 4-bit weights (a quarter of the bytes
    # a token) should decode faster. The int4 run is the bottleneck; the bf16 run beside it is not judged slower.
    text = ("python benchmarks/benchmark_throughput.py --input-len 256 --output-len 256 --model "
            "meta-llama/Meta-Llama-3-8B\n"
            + _OFFLINE.format(heading="bfloat16:", rate=14.23, total=7285.92, output=3642.96)
            + _OFFLINE.format(heading="torchao int4wo-128", rate=2.34, total=1197.03, output=598.52))
    diagnosis = diagnosed(tmp_path, text)
    assert diagnosis.verdict == "decode-bound"
    (slow,) = [item for item in diagnosis.evidence if item.rule == "summary-quantised-not-faster"]
    assert slow.numbers["tokens_per_second"] == 598.52
    assert slow.numbers["wider_weights_tokens_per_second"] == 3642.96
    assert slow.numbers["bits_per_weight"] == 4.25  # int4 weights with their group scales (named_model.FORMATS)


@pytest.mark.parametrize("rows", [
    # AWQ on one row beside FP16, faster (8.61 ms a token against 19.09): what fewer bytes give
    "| vicuna-7b | 8.61 | 19.09 |\n",
    # slower, but the 16-bit run is another model (13b against 7b): no comparison of formats
    "| vicuna-13b | 12.17 | OOM |\n| vicuna-7b | 30.0 | 19.09 |\n"])
def test_a_quantised_run_is_compared_only_with_its_own_models_16_bit_run(tmp_path, rows):
    # FastChat's AWQ table: `AWQ 4bit Speed (ms/token) | FP16 Speed (ms/token)`, a model a row. In the second case
    # the 7b row's AWQ time (30.0 ms) is slower than its own FP16 (19.09): that one pair fires, the 13b's OOM none.
    text = "| Model | AWQ 4bit Speed (ms/token) | FP16 Speed (ms/token) |\n|---|---|---|\n" + rows
    diagnosis = diagnosed(tmp_path, text)
    fired = [item for item in diagnosis.evidence if item.rule == "summary-quantised-not-faster"]
    if "30.0" in rows:
        (slow,) = fired
        assert slow.numbers["tokens_per_second"] == pytest.approx(1 / 0.030)
        assert slow.numbers["wider_weights_tokens_per_second"] == pytest.approx(1 / 0.01909)
    else:
        assert fired == []
