"""The general fix of blind round 37 (tests/fixtures/blind37_logs): a per-token time of 0.00 beside about one token a
request is a prefill test's placeholder, set aside with a note, not a broken measurement; a per-token time stated
over one token is still one (round 3's rule)."""

from __future__ import annotations

from pathlib import Path

from inferledger.diagnose import diagnose_files

ROUND = Path(__file__).resolve().parent.parent / "fixtures" / "blind37_logs"
EPD = ROUND / "sglang__epd-ex4-pdx1-vision-32-requests-rate-0.5-ttft-960ms.txt"


def test_a_zero_per_token_time_over_one_token_is_set_aside():
    diagnosis = diagnose_files([EPD])
    # 20 tokens generated over 32 requests = 0.625 a request, TPOT 0.00 ms: judged on its 960 ms first token, for
    # ~11.9K-token prompts and under one output token a request a prompt-processing measurement (summary-prompt-only,
    # since round 82; the reading accepts healthy or prefill-bound)
    assert diagnosis.verdict == "prefill-bound"
    assert any(item.rule == "summary-prompt-only" for item in diagnosis.evidence)
    assert not any(item.rule == "summary-one-token" for item in diagnosis.evidence)
    assert any("per-token time of 0" in note and "0.62" in note for note in diagnosis.notes)


def test_a_per_token_time_over_one_token_is_still_an_artefact(tmp_path):
    path = tmp_path / "osl1.md"
    path.write_text("| OSL | TTFT (ms) | TPOT (ms) |\n|---|---|---|\n| 1 | 20.9 | 20.9 |\n", encoding="utf-8")
    assert diagnose_files([path]).verdict == "measurement-artifact"
