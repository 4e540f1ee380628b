"""Tokens first: load real tokenizers (offline from bundled registry files, or from a user's files or the hub),
count a text under several side by side, and price the difference through the request ledger.

    from inferledger.tokens import load_tokenizer, count_text
    report = count_text(text, [load_tokenizer("cl100k_base"), load_tokenizer("mistral-v1")])
    report.spread_percent, [r.tokens for r in report.results]
"""

from inferledger.tokens.counting import TextStats, TokenCountReport, TokenizerCount, count_pieces, count_text
from inferledger.tokens.loading import (
           BUNDLED,
           DEFAULT_TOKENIZERS,
           Tokenizer,
           load_tokenizer,
           load_tokenizer_file,
)

__all__ = ["BUNDLED", "DEFAULT_TOKENIZERS", "TextStats", "TokenCountReport", "TokenizerCount", "Tokenizer",
           "count_pieces", "count_text", "load_tokenizer", "load_tokenizer_file"]
