"""Blind rounds 550 on: the general fixes of the twenty-sixth session. Expected figures are worked out here."""

from __future__ import annotations

import pytest
from blind_helpers import diagnosed, markdown_summaries, rules

from inferledger.errors import LogFormatError


def test_runs_timed_a_line_with_no_phase_word_are_generations(tmp_path):
    # unsloth#2798's printout: each line a run, its count over its time its own printed rate (323 / 51.71 = 6.25),
    # no word saying decode. Read as five requests of generation; 6.25 tok/s and slower are under the fixed cutoff
    # of 10 tok/s a GPU's stream, so decode is slow (the card given, the model not: no floor to set them against).
    runs = [(323, 51.71, 6.25), (1063, 288.29, 3.69), (1122, 296.92, 3.78), (4675, 1888.87, 2.48), (626, 113.23, 5.53)]
    text = "Inference speed:\n" + "".join(f"Batch {index}: {tokens} tokens in {seconds} sec ({rate} tokens/sec)\n"
                                          for index, (tokens, seconds, rate) in enumerate(runs, 1))
    diagnosis = diagnosed(tmp_path, text, gpu="a100-sxm-80gb")
    assert diagnosis.metrics["requests"] == 5
    assert diagnosis.verdict == "decode-bound"
    # every run under the cutoff: all five requests are the slow ones
    (slow,) = [item for item in diagnosis.evidence if item.verdict == "decode-bound"]
    assert "5 of 5 requests" in slow.text


def test_a_line_whose_rate_is_not_its_count_over_its_time_is_not_a_generation(tmp_path):
    # 323 tokens in 51.71 s is 6.25 tok/s; a printed 62.5 is ten times that: not the line's own account of a run, so
    # no request is read from it; its serving numbers are listed unread instead
    text = "".join(f"Batch {index}: 323 tokens in 51.71 sec (62.5 tokens/sec)\n" for index in range(1, 4))
    diagnosis = diagnosed(tmp_path, text)
    assert rules(diagnosis) == {"read-unknown-layout"}
    assert diagnosis.files[0]["unread_lines"] == 3


def test_two_runs_in_a_cell_under_a_header_naming_them_in_brackets(tmp_path):
    # `Output tok/s (main / PR)` holds each row's two runs; bold cells (`**812.4 / 905.1**`) the same: split into a
    # column a run, each row gives two runs, main's figures first.
    summaries = markdown_summaries(tmp_path, "| Concurrency | Output tok/s (main / PR) | Mean TTFT ms (main / PR) |\n"
                                             "|---|---|---|\n"
                                             "| 8 | 410.2 / 455.9 | 120 / 118 |\n"
                                             "| 16 | **812.4 / 905.1** | 240 / 231 |\n")
    rates = sorted(summary.metrics["output_tokens_per_second"] for summary in summaries)
    assert rates == [410.2, 455.9, 812.4, 905.1]
    ttfts = sorted(summary.metrics["ttft_seconds_mean"] for summary in summaries)
    assert ttfts == pytest.approx([0.118, 0.120, 0.231, 0.240])


def test_a_bracketed_note_with_no_pair_of_figures_is_no_pair(tmp_path):
    # `(p50 / p99)` over cells of one figure: no pair of runs, the column stays whole
    summaries = markdown_summaries(tmp_path, "| Concurrency | Output tok/s (mean / p50) |\n|---|---|\n"
                                             "| 8 | 410.2 |\n| 16 | 812.4 |\n")
    assert sorted(summary.metrics["output_tokens_per_second"] for summary in summaries) == [410.2, 812.4]


def test_a_pasted_question_on_serving_with_no_numbers_is_read_as_nothing_to_judge(tmp_path):
    # A thread's words on a slow model with no figure any reader takes: insufficient-data with the rule that says
    # so, the file listed as unrecognised with no line unread (before, one line: no known log format).
    text = ("I run Qwen2.5-7B with ollama on my laptop and the first answer takes ages.\n"
            "After that the model answers quickly; is the prompt processing the problem?\n"
            "The card is an RTX 3060.\n")
    diagnosis = diagnosed(tmp_path, text)
    assert diagnosis.verdict == "insufficient-data"
    assert rules(diagnosis) == {"read-no-numbers"}
    assert diagnosis.files[0]["formats"] == ["unrecognised"] and diagnosis.files[0]["unread_lines"] == 0


def test_one_line_naming_serving_is_too_little_to_read(tmp_path):
    text = "I tried it with ollama yesterday.\nThe laptop got hot and I went for a walk.\n"
    with pytest.raises(LogFormatError, match="no known log format"):
        diagnosed(tmp_path, text)


def test_lm_studios_earlier_prompt_progress_lines_project_the_prompts_time(tmp_path):
    # cherry-studio#5667's excerpt: LM Studio's `[DEBUG] PromptProcessing: N` (a percentage) stamped to the second,
    # no start line before them. From 2.64928 % at 09:40:20 to 18.545 % at 09:57:10 (1,010 s later) the prompt
    # advanced 15.9 points: at that pace the whole of it takes 1010 / 0.159 ≈ 6,354 s before a first token.
    shares = (2.64928, 5.29856, 7.94784, 10.5971, 13.2464, 15.8957, 18.545)
    stamps = ("09:40:20", "09:41:39", "09:43:06", "09:44:58", "09:48:22", "09:52:54", "09:57:10")
    text = "".join(f"2025-05-05 {stamp} [DEBUG] PromptProcessing: {share}\n"
                   for stamp, share in zip(stamps, shares, strict=True))
    diagnosis = diagnosed(tmp_path, text)
    assert diagnosis.files[0]["formats"] == ["lmstudio"]
    assert diagnosis.verdict == "prefill-bound"
    (item,) = [item for item in diagnosis.evidence if item.rule == "requests-prompt-in-progress"]
    assert item.numbers["projected_prefill_seconds"] == pytest.approx(1010 / ((18.545 - 2.64928) / 100), rel=1e-6)


_RATE_SWEEP = ("| Target RPS | Actual RPS | Avg Latency |\n|---|---|---|\n"
               "| 5 RPS | 4.71 RPS | 1.18 s |\n| 10 RPS | 8.23 RPS | {mid} s |\n| 50 RPS | 12.28 RPS | {high} s |\n")


def test_a_load_test_whose_achieved_rate_stops_following_the_offered_one_queues(tmp_path):
    # a k6 sweep against CPU pods: 4.71 of 5 req/s kept (94 % ≥ 80 %), 12.28 of 50 not (25 %), and the latency
    # 1.18 s -> 7.1 s (6.0× ≥ 1.5×): past capacity the arrivals wait
    diagnosis = diagnosed(tmp_path, _RATE_SWEEP.format(mid=2.79, high=7.1))
    assert diagnosis.verdict == "queueing"
    (item,) = [item for item in diagnosis.evidence if item.rule == "summary-sweep-rate-not-kept"]
    assert item.numbers["achieved_rate_high"] == 12.28 and item.numbers["latency_seconds_high"] == 7.1


def test_an_achieved_rate_short_of_the_offered_one_with_a_flat_latency_is_no_queue(tmp_path):
    # 1.18 s -> 1.5 s is 1.27× (< 1.5×): the client, not a queue, held the rate
    diagnosis = diagnosed(tmp_path, _RATE_SWEEP.format(mid=1.3, high=1.5))
    assert "summary-sweep-rate-not-kept" not in rules(diagnosis)
