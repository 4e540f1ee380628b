"""Blind rounds 505 on: the general fixes of the twenty-fourth session. Expected figures are worked out here."""

from __future__ import annotations

import pytest
from blind_helpers import rules, server_timing, write

from inferledger.diagnose import diagnose_files
from inferledger.diagnose.named_model import stated_format
from inferledger.diagnose.read import read_records


def _prefill_lines(rates: tuple, new_tokens: int = 8192) -> str:
    """SGLang Prefill lines with nothing running or queued, one a minute, stating `rates` as input throughput."""
    return "".join(
        f"[2026-04-16 20:{10 + minute:02d}:00] Prefill batch, #new-seq: 1, #new-token: {new_tokens}, "
        f"#cached-token: 0, token usage: 0.02, #running-req: 0, #queue-req: 0, input throughput (token/s): {rate}, "
        "cuda graph: False\n" for minute, rate in enumerate(rates))


def test_a_prompt_rate_no_card_computes_that_slowly_is_no_prefill_speed(tmp_path):
    # Llama-3.1-8B (8.03 B parameters) on an H100 SXM (989 TFLOP/s bf16, dense): a prompt token is ~2 × 8.03e9 =
    # 16 GFLOP, so 63 tok/s is 63 × 16.06e9 / 989e12 = 0.10% of the peak, where tuned prefill reaches 30-60% and an
    # engine without its fast kernels a few percent: SGLang's input rate is the last batch's tokens over the time
    # since the line before, idle time included. Without the card the same lines are a prompt read slowly.
    log = write(tmp_path, _prefill_lines((14.39, 63.15)))
    share = 63.15 * 2 * 8.03e9 / 989e12
    assert share < 0.01
    carded = diagnose_files([log], model="meta-llama/Llama-3.1-8B", gpu="h100-sxm")
    assert carded.verdict == "measurement-artifact"
    assert "windows-prompt-rate-idle" in rules(carded) and "windows-prompt-in-chunks" not in rules(carded)
    bare = diagnose_files([log])
    assert bare.verdict == "prefill-bound" and "windows-prompt-in-chunks" in rules(bare)


def test_a_model_known_by_name_only_is_sized_from_it(tmp_path):
    # `acme/Foo-4B` is in no catalogue: 4e9 parameters from its name, a prompt token 2 × 4e9 = 8 GFLOP; on an H20
    # (148 TFLOP/s bf16) 63 tok/s is 63 × 8e9 / 148e12 = 0.34% of the peak.
    log = write(tmp_path, _prefill_lines((14.39, 63.15)))
    diagnosis = diagnose_files([log], model="acme/Foo-4B", gpu="h20")
    assert diagnosis.verdict == "measurement-artifact"
    (text,) = [item.text for item in diagnosis.evidence if item.rule == "windows-prompt-rate-idle"]
    assert f"{63.15 * 8e9 / 148e12:.2%}" in text


def test_a_slow_prompt_the_card_could_compute_that_slowly_stays_prefill(tmp_path):
    # 2,000 tok/s of Llama-3.1-8B on an H100 SXM is 2000 × 16.06e9 / 989e12 = 3.2% of the peak: slow, but an engine's
    # speed (eager, no fast attention), so 8,192-token chunks read at it are still the prompt's cost.
    log = write(tmp_path, _prefill_lines((1900.0, 2000.0), new_tokens=65536))
    assert 2000 * 2 * 8.03e9 / 989e12 > 0.01
    diagnosis = diagnose_files([log], model="meta-llama/Llama-3.1-8B", gpu="h100-sxm")
    assert "windows-prompt-rate-idle" not in rules(diagnosis)
    assert diagnosis.verdict == "prefill-bound" and "windows-prompt-in-chunks" in rules(diagnosis)


def test_i_quants_and_ternary_types_state_their_bits():
    # ggml's blocks of 256 weights: IQ1_S 50 bytes → 50 × 8 / 256 = 1.5625 bits, IQ2_XXS 66 → 2.0625, IQ4_XS 136 →
    # 4.25, TQ1_0 54 → 1.6875; a file type's line states its average to four places.
    assert stated_format("deepseek2 16B IQ1_S_R4") == ("iq1_s", 50 * 8 / 256)
    assert stated_format("llama 8B IQ2_XXS - 2.0625 bpw")[1] == 66 * 8 / 256
    assert stated_format("Qwen3-14B-IQ4_XS.gguf") == ("iq4_xs", 136 * 8 / 256)
    assert stated_format("bitnet 3B TQ1_0") == ("tq1_0", 54 * 8 / 256)


BENCH_NO_SIZE = """| model                  | threads |     test |   t/s (main)     |     t/s (PR)     |  Speedup |
| ---------------------- | ------: | -------: | ---------------: | ---------------: | -------: |
| {model} |       8 |    tg128 |     62.01 ± 0.02 |     65.26 ± 0.82 |  1.052   |
"""


def test_a_mixture_the_catalogue_cannot_split_is_not_sized_from_its_total(tmp_path):
    # `deepseek2` is llama.cpp's name for DeepSeek's mixture of experts: a step of a 16B one reads its active experts,
    # a share no catalogued model of that total gives, so the name sizes no step (its whole 16e9 × 1.5625 / 8 =
    # 3.1 GB would make any fast rate look impossible). A dense `llama 8B IQ2_XXS` is sized: 8e9 × 2.0625 / 8.
    mixture = write(tmp_path, BENCH_NO_SIZE.format(model="deepseek2 16B IQ1_S_R4"), "moe.txt")
    assert not any("named_weights_bytes" in record.metrics for record in read_records(mixture))
    dense = write(tmp_path, BENCH_NO_SIZE.format(model="llama 8B IQ2_XXS       "), "dense.txt")
    (row, *_rest) = [record for record in read_records(dense) if "named_weights_bytes" in record.metrics]
    assert row.metrics["named_weights_bytes"] == pytest.approx(8e9 * 2.0625 / 8)


def test_a_prompt_read_fast_in_a_blink_is_no_bottleneck_whatever_its_share(tmp_path):
    # An editor's fill-in-the-middle call: 118 new tokens in 55.02 ms (2,145 tok/s, 21× the 102 tok/s decode) beside 2
    # generated in 19.55 ms: 55.02 / 74.57 = 74% of the call, over the 2/3 a healthy-rate prompt needs, but 55 ms is
    # under the half second anyone notices. 3,000 tokens at the same rate take 1.4 s beside the same 2 tokens:
    # prefill-bound.
    assert 55.02 / (55.02 + 19.55) > 2 / 3 and 118 / 55.02 >= 10 * 2 / 19.55
    blink = write(tmp_path, server_timing(118, 55.02, 2, 19.55), "blink.txt")
    assert "requests-prefill-share" not in rules(diagnose_files([blink]))
    long = write(tmp_path, server_timing(3000, 3000 / 118 * 55.02, 2, 19.55), "long.txt")
    assert 3000 / 118 * 55.02 / 1e3 >= 0.5
    diagnosis = diagnose_files([long])
    assert diagnosis.verdict == "prefill-bound" and "requests-prefill-share" in rules(diagnosis)


APP_REPORT = """{
  "kind" : "coreai-community-bench",
  "results" : {
    "load_s" : 0.6,
    "runs" : [
      {
        "decode_tok_s" : 375.6,
        "gen_tokens" : 256,
        "kind" : "cold",
        "prefill_tok_s" : 360,
        "prompt_tokens" : 52,
        "ttft_s" : 0.14
      },
      {
        "decode_tok_s" : 374.1,
        "gen_tokens" : 256,
        "kind" : "warm",
"""


def test_an_apps_runs_list_is_a_request_a_run_less_the_one_cut(tmp_path):
    # A benchmark app's report, cut inside its second run: the first run is a request (TTFT 0.14 s, 52 prompt tokens
    # at 360 tok/s, 256 generated at 375.6 tok/s); the second, missing its prompt and TTFT, is left out.
    log = write(tmp_path, APP_REPORT)
    (run,) = [record for record in read_records(log) if record.kind == "request"]
    assert run.metrics == {"ttft_seconds": 0.14, "prompt_tokens_per_second": 360, "generation_tokens_per_second": 375.6,
                           "input_tokens": 52, "output_tokens": 256}
    assert run.labels["run"] == "cold"
    whole = write(tmp_path, APP_REPORT + '"prefill_tok_s" : 355, "prompt_tokens" : 52, "ttft_s" : 0.15\n}]}}\n',
                  "whole.txt")
    assert [record.labels["run"] for record in read_records(whole) if record.kind == "request"] == ["cold", "warm"]


RKLLM_DEMO = """Initializing RKLLM Runtime...
I rkllm: rkllm-runtime version: 1.2.1, rknpu driver version: 0.9.8, platform: RK3588
RKLLM initialized successfully.
robot: n_image_tokens:  289
I rkllm: --------------------------------------------------------------------------------------
I rkllm:  Stage         Total Time (ms)  Tokens    Time per Token (ms)      Tokens per Second
I rkllm: --------------------------------------------------------------------------------------
I rkllm:  Prefill       2201.45          321       6.86                     145.81
I rkllm:  Generate      12419.47         102       121.76                   8.21
I rkllm: --------------------------------------------------------------------------------------
"""


def test_rkllms_runtime_tag_among_a_demos_prints_is_stripped(tmp_path):
    # The runtime tags its own lines `I rkllm: `; the demo's prints beside them carry none, so no prefix is common to
    # every line: the tag comes off each line that has it, and the stage table is read (102 tokens in 12,419.47 ms).
    log = write(tmp_path, RKLLM_DEMO)
    records = [record for record in read_records(log) if record.kind == "request"]
    assert records and records[0].metrics["output_tokens"] == 102
    assert records[0].metrics["decode_seconds"] == pytest.approx(12.41947)


COLD_WARM = """| Configuration | GPU decode |
|---|---:|
| GPU alone, cold pipelines | 67.8 tok/s |
| GPU alone, warm pipelines | 184.9 tok/s |
| GPU + concurrent draft | 178.9 tok/s |
"""


def test_a_row_called_cold_beside_warm_rows_is_a_warm_up_left_out(tmp_path):
    # The cold row paid the first run's shader compiling (67.8 tok/s); the warm rows (184.9, 178.9) are the runs.
    rates = [record.metrics["output_tokens_per_second_per_user_mean"]
             for record in read_records(write(tmp_path, COLD_WARM)) if record.kind == "summary"]
    assert rates == [184.9, 178.9]
    # With no warm row to measure instead, a cold row is the measurement and is kept.
    alone = COLD_WARM.replace("warm pipelines", "second process")
    assert 67.8 in [record.metrics.get("output_tokens_per_second_per_user_mean")
                    for record in read_records(write(tmp_path, alone, "alone.txt"))]


CARD_TABLE = """### Single-stream performance
<table>
  <thead>
    <tr>
      <th></th>
      <th></th>
      <th colspan="2">Instruction Following<br>256 / 128</th>
      <th colspan="2">Multi-turn Chat<br>512 / 256</th>
    </tr>
    <tr>
      <th>Hardware</th>
      <th>Model</th>
      <th>Latency (s)</th>
      <th>QPD</th>
      <th>Latency (s)</th>
      <th>QPD</th>
    </tr>
  </thead>
  <tbody>
    <tr>
      <th rowspan="2">A100x1</th>
      <th>org/Model-8B</th>
      <td>1.6</td>
      <td>3359</td>
      <td>3.1</td>
      <td>1654</td>
    </tr>
    <tr>
      <th>org/Model-8B-FP8</th>
      <td>1.2</td>
      <td>3531</td>
      <td>2.4</td>
      <td>1807</td>
    </tr>
  </tbody>
</table>
"""


def test_an_html_tables_spans_are_repeated_and_its_header_rows_merged():
    from inferledger.diagnose.parsers.html_tables import unrolled

    rows = [text for _line, text in unrolled(enumerate(CARD_TABLE.split("\n"), 1)) if text.startswith("|")]
    assert rows[0] == ("| Hardware | Model | Instruction Following 256 / 128 - Latency (s) | Instruction Following "
                       "256 / 128 - QPD | Multi-turn Chat 512 / 256 - Latency (s) | Multi-turn Chat 512 / 256 - QPD |")
    assert rows[2] == "| A100x1 | org/Model-8B | 1.6 | 3359 | 3.1 | 1654 |"
    assert rows[3] == "| A100x1 | org/Model-8B-FP8 | 1.2 | 3531 | 2.4 | 1807 |"  # the rowspan repeated


def test_a_tables_settings_by_column_group_are_a_run_each(tmp_path):
    # Two settings (256 in / 128 out, 512 / 256), two rows: four runs, each with its latency and lengths.
    runs = sorted((record.metrics["mean_input_tokens"], record.metrics["mean_output_tokens"],
                   record.metrics["e2e_seconds_mean"])
                  for record in read_records(write(tmp_path, CARD_TABLE)) if record.kind == "summary")
    assert runs == [(256, 128, 1.2), (256, 128, 1.6), (512, 256, 2.4), (512, 256, 3.1)]


def test_rkllms_platform_names_the_soc_its_speeds_are_judged_on(tmp_path):
    # `rknpu driver version: 0.9.8, platform: RK3588`: the log names its device, the RK3588 (33.792 GB/s: LPDDR4X at
    # 4224 MT/s on a 64-bit bus), so a 3B model's 121.76 ms a token is judged against that memory's floor, not by the
    # fixed cutoff (8.21 tok/s is under ten) that asks for a card; the demo's prints carry no device of their own.
    diagnosis = diagnose_files([write(tmp_path, RKLLM_DEMO)], model="Qwen/Qwen2.5-VL-3B-Instruct")
    assert diagnosis.roofline["accelerator"] == "rk3588"
    assert diagnosis.roofline["card_bandwidth_bytes_per_second"] == 64 * 4224e6 / 8
    assert diagnosis.verdict != "decode-bound"


def test_a_streamed_replys_first_chunk_is_its_first_token(tmp_path):
    # A speech model streamed through an LLM engine: its first audio chunk is the reply's first token. 210.42 ms at
    # concurrency 1 and 1017.70 ms at 4: 1017.70 / 210.42 = 4.8× for 4× the requests in flight, each waiting.
    table = ("| Mode | Concurrency | Avg Latency | First Chunk Latency (P50) | RTF |\n|---|---|---|---|---|\n"
             "| Streaming | 1 | 913.28 ms | 210.42 ms | 0.1501 |\n| Streaming | 2 | 1009.23 ms | 226.08 ms | 0.0862 |\n"
             "| Streaming | 4 | 1793.86 ms | 1017.70 ms | 0.0824 |\n")
    log = write(tmp_path, table)
    ttfts = [record.metrics["ttft_seconds_median"] for record in read_records(log) if record.kind == "summary"]
    assert ttfts == pytest.approx([0.21042, 0.22608, 1.0177])
    assert diagnose_files([log]).verdict == "queueing"


def test_a_rendered_diffs_numbered_rows_are_taken_off(tmp_path):
    # A blog post's diff copied from a rendered view: `| 17 | +` before each line. Taken off, the post's table is read:
    # 245.15 tok/s decode is 1 / 245.15 = 4.08 ms a token.
    lines = ["## The Numbers", "", "| Framework | Tok/s (decode) | CUDA Graphs |", "|---|---|---|",
             "| Zerfoo | 245.15 | Yes |", "| Zerfoo | 174.44 | No |"]
    log = write(tmp_path, "".join(f"| {number} | +{line} |\n" for number, line in enumerate(lines, 13)))
    rates = [record.metrics.get("output_tokens_per_second_per_user_mean") for record in read_records(log)
             if record.kind == "summary"]
    assert rates == [245.15, 174.44]


def test_a_column_of_words_or_of_times_does_not_make_a_rate_a_batchs(tmp_path):
    # `Prompt` names each row's case (`Exam Summary`), `Total` holds times with their units: neither is a phase's
    # measure or a batch beside the `Tok/s` column, so 13.5 tok/s is one stream's generation (1 / 13.5 = 74.07 ms).
    table = ("| Config | Prompt | TTFT | Total | Tok/s |\n|---|---|---|---|---|\n"
             "| Default | Exam Summary | 1456ms | 14.60s | 13.5 |\n| Default | Rail Chat | 794ms | 5.27s | 13.1 |\n")
    runs = [record.metrics for record in read_records(write(tmp_path, table)) if record.kind == "summary"]
    assert [run.get("output_tokens_per_second_per_user_mean") for run in runs] == [13.5, 13.1]
    assert [run.get("ttft_seconds_mean") for run in runs] == pytest.approx([1.456, 0.794])


def test_a_rate_named_column_of_times_is_no_rate(tmp_path):
    # `Avg per Request` names a rate by its words, but its cells are times (`0.68–2.46s`): 0.68 is no tok/s.
    table = ("| Engine | Requests | Total Time | Avg per Request |\n|---|---|---|---|\n"
             "| SGLang | 16 | 2.47s | 0.68–2.46s |\n| vLLM | 16 | 11.26s | ~10.25–11.26s |\n")
    runs = [record.metrics for record in read_records(write(tmp_path, table)) if record.kind == "summary"]
    assert runs and not any("output_tokens_per_second_per_user_mean" in run for run in runs)
