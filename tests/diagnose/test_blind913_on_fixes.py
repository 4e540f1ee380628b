"""Blind rounds 913 on: the general fixes of the fortieth session. Expected figures are worked out here."""

from __future__ import annotations

import pytest
from blind_helpers import diagnosed, markdown_summaries


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
