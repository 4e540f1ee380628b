"""The general fixes of blind round 41 (tests/fixtures/blind41_logs): llama-bench's test names with their sizes in a
table header (`pp512 (t/s)`, `tg128 (t/s)`), a `diff` row's percentages left unread, rate cells marked up (`~9.9–10.0
t/s`, `**8.75 t/s**`) with a note in a cell or two, and llama-bench's figures quoted with their ± spread. Expected
figures are the excerpts' numbers."""

from __future__ import annotations

from pathlib import Path

from inferledger.diagnose import diagnose_files
from inferledger.diagnose.parsers import generic_phrases
from inferledger.diagnose.read import read_records

ROUND = Path(__file__).resolve().parent.parent / "fixtures" / "blind41_logs"


def test_test_names_with_sizes_and_a_diff_row():
    records = read_records(ROUND / "llamacpp__vulkan-8060s-moe-pp512-regression-1080-to-657.txt")
    # four builds' rows; the two `diff` rows (`**-39%**`, `-0.5%`) give no run
    assert [record.metrics["input_tokens_per_second"] for record in records] == [1080, 657, 1342, 910]
    assert [record.metrics["output_tokens_per_second_per_user_mean"] for record in records] == \
        [64.85, 64.55, 87.11, 83.75]


def test_marked_up_rate_cells_and_a_note():
    path = ROUND / "lmstudio__780m-vulkan-degradation-10-to-8.75-tok-s.txt"
    records = read_records(path)
    # `~9.9–10.0 t/s` reads 9.9, `**8.75–8.76 t/s**` 8.75; `no recovery to baseline` gives no run
    assert [record.metrics["output_tokens_per_second_per_user_mean"] for record in records] == [9.9, 8.75, 9.64, 9.94]
    assert diagnose_files([path]).verdict == "decode-bound"  # 1 / 8.75 = 114 ms a token, past the 100 ms cutoff


def test_a_phase_value_with_a_spread_is_a_rate():
    assert generic_phrases.line_metrics("Token generation: 119.66 ± 0.16.") == {"generation_tokens_per_second": 119.66}
    assert generic_phrases.line_metrics("Token generation: 119") == {}  # no unit, no spread: not guessed
    assert generic_phrases.line_metrics("TTFT: 120 ± 5") == {}  # a time's unit is never guessed
    assert diagnose_files([ROUND / "llamabench__rtx3080-mistral-7b-q4km-pp-4032-tg-120.txt"]).verdict == "healthy"
