"""Token counts → the request account: the spread between tokenizers priced in seconds and bytes.

Why sound: the KV bytes are derived by hand from Qwen2.5-7B's config (28 layers, 4 KV heads, head dim 128,
bf16): K and V per token = 28 × 4 × 128 × 2 × 2 bytes = 57,344 bytes, so two counts that differ by n tokens must
differ by n × 57,344 bytes of KV per request; prefill time must grow with the count. The fake tokenizers count
characters and words, so the counts themselves are known by eye.
"""

from __future__ import annotations

import pytest

from inferledger.tokens.cost import token_cost
from inferledger.tokens.counting import count_pieces, count_text
from inferledger.tokens.loading import Tokenizer

CHARS = Tokenizer("chars", "fake", 0, "test", lambda texts: [len(t) for t in texts])
WORDS = Tokenizer("words", "fake", 0, "test", lambda texts: [len(t.split()) for t in texts])
KV_BYTES_PER_TOKEN = 28 * 4 * 128 * 2 * 2  # layers × KV heads × head dim × (K, V) × bf16 bytes


def test_spread_priced_in_kv_bytes_and_prefill_seconds():
    report = count_text("one two three four", [CHARS, WORDS])  # 18 and 4 tokens
    cost = token_cost(report, "Qwen/Qwen2.5-7B", "h100-sxm", output_tokens=16)
    chars, words = cost.rows
    assert (chars.input_tokens, words.input_tokens) == (18, 4)
    # KV per request at context ISL + OSL: (18 + 16) and (4 + 16) tokens.
    assert chars.kv_bytes_per_request == pytest.approx((18 + 16) * KV_BYTES_PER_TOKEN)
    assert chars.kv_bytes_per_request - words.kv_bytes_per_request == pytest.approx(14 * KV_BYTES_PER_TOKEN)
    assert chars.prefill_seconds > words.prefill_seconds
    document = cost.to_dict()
    assert document["kv_bytes_per_request_gap"] == pytest.approx(14 * KV_BYTES_PER_TOKEN)
    assert "operators" not in document["rows"][0]["account"]


def test_records_cost_the_mean_record():
    report = count_pieces([("a b", 3), ("c d e f", 7), ("g h i", 5)], [WORDS], per_record=True)
    cost = token_cost(report, "Qwen/Qwen2.5-7B", "h100-sxm", output_tokens=8)
    assert cost.input_is_mean_record and cost.rows[0].input_tokens == 3  # (2 + 4 + 3) / 3
