"""Blind rounds 956 on: the general fixes of the forty-second session. Expected figures are worked out here."""

from __future__ import annotations

from blind_helpers import diagnosed, markdown_summaries

_STREAM_RATE = "output_tokens_per_second_per_user_mean"

# A model card's comparison (blind950): the unit in the heading, a prompt a column, an engine a row, then averages.
_BY_PROMPT = """\
### Token Generation Speed (tokens/second)
| Model | Short (Haiku) | Medium (Explanation) | Long (Recipe) | Average |
|-------|---------------|---------------------|---------------|---------|
| PyTorch MPS | 10.53 | 16.96 | 17.21 | 14.90 |
| MLX FP16 | 29.00 | 27.62 | 27.66 | 28.09 |
| **Speedup** | **2.75x** | **1.63x** | **1.61x** | **1.88x** |
"""


def test_a_table_of_one_rate_by_prompt_reads_a_run_a_cell(tmp_path):
    summaries = markdown_summaries(tmp_path, _BY_PROMPT)
    rates = {summary.labels["benchmark"]: summary.metrics[_STREAM_RATE] for summary in summaries}
    # the three prompts of each engine; the Average column restates them and the Speedup row compares them
    assert rates == {"PyTorch MPS, Short (Haiku)": 10.53, "PyTorch MPS, Medium (Explanation)": 16.96,
                     "PyTorch MPS, Long (Recipe)": 17.21, "MLX FP16, Short (Haiku)": 29.00,
                     "MLX FP16, Medium (Explanation)": 27.62, "MLX FP16, Long (Recipe)": 27.66}


def test_a_table_of_one_rate_by_prompt_is_judged(tmp_path):
    diagnosis = diagnosed(tmp_path, _BY_PROMPT)
    # was insufficient-data (no reader knew the layout). One stream at 10.53 tok/s is 1000 / 10.53 = 94.97 ms a token
    assert diagnosis.verdict != "insufficient-data"
    assert any("94.97 ms" in evidence.text for evidence in diagnosis.evidence)


# A gateway comparison (blind476): a time in the heading with its unit, a route a column.
_TTFT_BY_ROUTE = """\
### TTFT (ms) — median of 3 passes

| Backend | Direct | Via LiteLLM |
|---|---:|---:|
| **ollama** | 629 | 581 |
| **llama.cpp** | 675 | 683 |
"""


def test_a_table_of_one_time_by_route_reads_the_headings_unit_and_statistic(tmp_path):
    summaries = markdown_summaries(tmp_path, _TTFT_BY_ROUTE)
    times = {summary.labels["benchmark"]: summary.metrics["ttft_seconds_median"] for summary in summaries}
    assert times == {"ollama, Direct": 0.629, "ollama, Via LiteLLM": 0.581,
                     "llama.cpp, Direct": 0.675, "llama.cpp, Via LiteLLM": 0.683}


def test_guard_a_paragraph_above_a_table_names_no_measure_for_its_columns(tmp_path):
    story = ("You measured 19.4 -> 51.7 tok/s dropping eager for FULL_DECODE_ONLY; I could not reproduce it on the "
             "same four machines, median of 3:\n")
    text = story + _BY_PROMPT.split("\n", 1)[1]
    assert all(summary.labels.get("benchmark", "").count(",") == 0 for summary in markdown_summaries(tmp_path, text))


def test_guard_columns_of_loads_or_of_their_own_units_are_not_variants(tmp_path):
    loads = "### Decode tok/s\n| | count100 | C8 | C16 |\n|---|---|---|---|\n| eager | 98.8 | 224.3 | 249.3 |\n"
    units = ("### Decode roofline: tokens per second\n| device | points | effective GB/s | % of peak |\n"
             "|---|---|---|---|\n| laptop | 15 | 43.11 | 79.99 |\n")
    for text in (loads, units):
        assert not any(summary.labels.get("benchmark", "").startswith(("eager, ", "laptop, "))
                       for summary in markdown_summaries(tmp_path, text))
