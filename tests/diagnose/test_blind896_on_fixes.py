"""Blind rounds 896 on: the general fixes of the thirty-ninth session. Expected figures are worked out here."""

from __future__ import annotations

import pytest
from blind_helpers import diagnosed, parsed, write


def _said(diagnosis, *words) -> bool:
    """Whether one piece of the diagnosis' evidence says every one of `words`."""
    return any(all(word in evidence.text for word in words) for evidence in diagnosis.evidence)


def _fired(diagnosis, rule: str) -> bool:
    return any(evidence.rule == rule for evidence in diagnosis.evidence)


# KTransformers balance_serve's console (kvcache-ai/ktransformers#1316, blind888): the runner prints the batch's pieces,
# then the engine the pass's time with 1000 ÷ ms as "tokens/s", one token a pass whatever the batch.
_PREFILL_PASSES = """\
prefill_batch_i: 254,
padded_batch_size 57 capture_padded_batch_size 57
Model execution time (GPU): 7737.844 ms, 0.129 tokens/s
81454
prefill_batch_i: 254,
padded_batch_size 57 capture_padded_batch_size 57
Model execution time (GPU): 7813.713 ms, 0.128 tokens/s
198
"""


def test_a_ktransformers_prefill_pass_reads_its_chunk_over_its_time(tmp_path):
    from inferledger.diagnose.parsers import ktransformers

    windows = parsed(ktransformers, write(tmp_path, _PREFILL_PASSES))
    # 254 prompt tokens in 7.737844 s and in 7.813713 s: 32.8 and 32.5 tok/s, not the printed 0.129 and 0.128
    assert [window.metrics["prompt_tokens_per_second"] for window in windows] == \
        pytest.approx([254 / 7.737844, 254 / 7.813713])
    assert all(window.metrics["running_requests"] == 0 for window in windows)  # nothing decoding beside


def test_ktransformers_prefill_passes_with_nothing_decoding_are_prefill_bound(tmp_path):
    diagnosis = diagnosed(tmp_path, _PREFILL_PASSES)
    assert diagnosis.verdict == "prefill-bound"  # was insufficient-data: the lines were not read
    # one chunk of 254 tokens at the passes' mean rate, (32.83 + 32.51) / 2 = 32.7 tok/s: 254 / 32.7 = 7.8 s at least
    assert _fired(diagnosis, "windows-prompt-in-chunks") and _said(diagnosis, "254 tokens", "about 8 s")


# Decode passes (kvcache-ai/ktransformers#1453): one sequence a pass, so the printed rate is the stream's.
_DECODE_PASSES = """\
decode_batch_i: 1,
Model execution time (GPU): 220.331 ms, 4.539 tokens/s
38005
decode_batch_i: 1,
Model execution time (GPU): 216.355 ms, 4.622 tokens/s
42387
decode_batch_i: 3, token_num: 3 ,batch_size: 3
Model execution time (GPU): 240.000 ms, 4.167 tokens/s
"""


def test_a_ktransformers_decode_pass_generates_one_token_a_sequence(tmp_path):
    from inferledger.diagnose.parsers import ktransformers

    windows = parsed(ktransformers, write(tmp_path, _DECODE_PASSES))
    # 1 / 0.220331 s = 4.54 tok/s, 1 / 0.216355 = 4.62, and three sequences in 0.240 s = 12.5 tok/s in all
    assert [window.metrics["generation_tokens_per_second"] for window in windows] == \
        pytest.approx([1 / 0.220331, 1 / 0.216355, 3 / 0.240])
    assert [window.metrics["running_requests"] for window in windows] == [1, 1, 3]
    assert all("prompt_tokens_per_second" not in window.metrics for window in windows)


def test_a_ktransformers_pass_whose_batch_lines_were_cut_is_reported_not_guessed(tmp_path):
    from inferledger.diagnose.parsers import ktransformers
    from inferledger.diagnose.read import LogFile
    from inferledger.diagnose.records import Skipped

    # the excerpt opens on a pass's time (blind277): which batch it timed is above the cut
    path = write(tmp_path, "Model execution time (GPU): 18302.588 ms, 0.055 tokens/s\n46324\n" + _DECODE_PASSES)
    items = list(ktransformers.parse(LogFile.open(path).lines()))
    assert isinstance(items[0], Skipped) and items[0].line_number == 1
    assert sum(not isinstance(item, Skipped) for item in items) == 3
