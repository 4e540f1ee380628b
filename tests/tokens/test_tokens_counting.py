"""Text statistics, spread and the words × 1.3 estimate, on texts small enough to count by eye.

Why sound: the fake tokenizers below count characters and whitespace words, so every expected number is written
out by hand in the test; nothing is compared with the tool's own earlier output.
"""

from __future__ import annotations

import math

import pytest

from inferledger.tokens.counting import TextStats, count_pieces, count_text
from inferledger.tokens.loading import Tokenizer


def _fake(name: str, count) -> Tokenizer:
    return Tokenizer(name, "fake", 0, "test", lambda texts: [count(t) for t in texts])


CHARS = _fake("chars", len)
WORDS = _fake("words", lambda t: len(t.split()))


def test_text_stats_by_hand():
    stats = TextStats()
    text = "Hello world.\n中文分词，很难 OK"
    stats.add(text, len(text.encode()))
    # words: "Hello", "world.", then 中文分词 and 很难 are CJK (separators), "，" separates, "OK" → 3 words.
    assert stats.words == 3
    assert stats.cjk_characters == 6  # 中 文 分 词 很 难; the full-width comma is not counted
    assert stats.characters == 23
    assert stats.bytes == 13 + 6 * 3 + 3 + 3  # ASCII 13 incl. newline; 6 Han + 1 comma at 3 bytes; " OK"
    assert stats.lines == 1


def test_spread_and_estimate_error_by_hand():
    report = count_text("one two three four", [CHARS, WORDS])
    chars, words = report.results
    assert (chars.tokens, words.tokens) == (18, 4)
    # spread: (18 − 4) / 4 × 100 = 350 %
    assert report.spread_percent == pytest.approx(350.0)
    # words × 1.3 = 5.2; against 4 real tokens: (5.2 − 4) / 4 = +30 %; against 18: (5.2 − 18) / 18 = −71.1 %
    assert words.words_estimate_error_percent == pytest.approx(30.0)
    assert chars.words_estimate_error_percent == pytest.approx((5.2 - 18) / 18 * 100)
    assert words.characters_per_token == pytest.approx(18 / 4)


def test_records_keep_per_record_counts():
    records = [("a b", 3), ("c d e f", 7), ("g", 1)]
    report = count_pieces(records, [WORDS], per_record=True, batch_pieces=2)
    stats = report.results[0].record_stats()
    assert report.records == 3
    assert report.results[0].tokens == 7
    assert stats["records"] == 3 and stats["max_tokens"] == 4
    assert stats["mean_tokens"] == pytest.approx(7 / 3)
    assert stats["p50_tokens"] == 2


def test_contexts_are_taken_away():
    # Text "a b c" cut as "a" | " b c" (context "a", the letter before the cut):
    # count("a") + count("a b c") − count("a") = 1 + 3 − 1 = 3 words, as for the whole text.
    report = count_pieces([("a", 1), (" b c", 4, "a")], [WORDS])
    assert report.results[0].tokens == 3
    assert report.text.characters == 5


def test_empty_input():
    report = count_text("", [CHARS, WORDS])
    assert [r.tokens for r in report.results] == [0, 0]
    assert report.spread_percent == 0.0
    assert math.isnan(report.results[0].characters_per_token)
    assert report.to_dict()["results"][0]["tokens"] == 0
