"""Blind rounds 495 on: the general fixes of the twenty-third session. Expected figures are worked out here."""

from __future__ import annotations

from blind_helpers import FIXTURES

from inferledger.diagnose import diagnose_files

EXL_TABLE = FIXTURES / "blind169_logs" / "other__exllamav3-vs-exl2-ampere-3x3090-mistral-large-median-table.txt"


def _large_model_texts(diagnosis) -> list:
    texts = [item.text for item in diagnosis.evidence if item.rule == "summary-slow-tpot-large-model"]
    assert texts
    return texts


def test_a_large_models_cutoff_asks_only_for_what_was_not_given():
    # A 123B model's ~8 tok/s is slow for the fixed cutoff, not for its size: without a card the evidence asks for
    # one; with --gpu given (and no model to size the ledger's floor) it asks for the model instead, never the card.
    bare = _large_model_texts(diagnose_files([EXL_TABLE]))
    carded = _large_model_texts(diagnose_files([EXL_TABLE], gpu="rtx-3090"))
    assert all("give --gpu" in text for text in bare)
    assert all("give --gpu" not in text and "give --model" in text for text in carded)
