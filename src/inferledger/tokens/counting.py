"""Count one text (or a stream of pieces, or of records) under several tokenizers side by side.

What the seed chapter says and this makes computable: the same text gives token counts 20–30% apart under
different tokenizers (more for Chinese), and the usual words × 1.3 estimate is off by as much. spread_percent is
(largest − smallest) / smallest × 100, so "30% apart" reads as the larger count being 1.3× the smaller.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass, field

import numpy as np

from inferledger.tokens.loading import Tokenizer

# The rule of thumb "1 token ≈ 0.75 English words", i.e. tokens ≈ words × 1.3 (OpenAI's help pages say
# "1 token ~= ¾ words"; 1/0.75 = 1.33, commonly rounded to 1.3).
TOKENS_PER_WORD_RULE = 1.3

# Han ideographs (with extension A and compatibility), kana and Hangul syllables: each counts as one CJK
# character. CJK punctuation and full-width forms separate words but are not counted as CJK characters.
_CJK_RANGES = ((0x3400, 0x4DBF), (0x4E00, 0x9FFF), (0xF900, 0xFAFF), (0x3040, 0x30FF), (0xAC00, 0xD7AF))
_CJK_PUNCTUATION_RANGES = ((0x3000, 0x303F), (0xFF00, 0xFFEF))


def _tables() -> tuple[np.ndarray, np.ndarray]:
    """Lookup tables over the Basic Multilingual Plane: is CJK; separates words (whitespace as str.split sees
    it, CJK, CJK punctuation). A table lookup over a piece's code points is ~20× faster than a regex findall."""
    cjk = np.zeros(0x10000, dtype=bool)
    for low, high in _CJK_RANGES:
        cjk[low:high + 1] = True
    separator = cjk.copy()
    for low, high in _CJK_PUNCTUATION_RANGES:
        separator[low:high + 1] = True
    separator[[ord(c) for c in map(chr, range(0x10000)) if c.isspace()]] = True
    return cjk, separator


_CJK_TABLE, _SEPARATOR_TABLE = _tables()


def _cjk_and_words(text: str) -> tuple[int, int]:
    codes = np.frombuffer(text.encode("utf-32-le", "surrogatepass"), dtype=np.uint32)
    in_plane = codes < 0x10000
    index = np.where(in_plane, codes, 0)
    cjk = _CJK_TABLE[index] & in_plane
    word_char = ~(_SEPARATOR_TABLE[index] & in_plane)  # characters outside the plane (emoji…) are word characters
    starts = int(word_char[0]) + int(np.count_nonzero(word_char[1:] & ~word_char[:-1])) if codes.size else 0
    return int(np.count_nonzero(cjk)), starts


@dataclass
class TextStats:
    """What a tokenizer-free estimate can see. words: whitespace-separated runs, CJK characters treated as
    separators (a Chinese sentence has no spaces, so its characters are counted on their own)."""

    bytes: int = 0
    characters: int = 0
    words: int = 0
    cjk_characters: int = 0
    lines: int = 0

    def add(self, text: str, byte_count: int) -> None:
        self.bytes += byte_count
        self.characters += len(text)
        self.lines += text.count("\n")
        if text.isascii():
            self.words += len(text.split())
        else:
            cjk, words = _cjk_and_words(text)
            self.cjk_characters += cjk
            self.words += words

    @property
    def words_estimate_tokens(self) -> float:
        return self.words * TOKENS_PER_WORD_RULE

    def to_dict(self) -> dict:
        return {"bytes": self.bytes, "characters": self.characters, "words": self.words,
                "cjk_characters": self.cjk_characters, "lines": self.lines,
                "words_estimate_tokens": round(self.words_estimate_tokens, 1),
                "tokens_per_word_rule": TOKENS_PER_WORD_RULE}


@dataclass
class TokenizerCount:
    """One tokenizer's count of the whole input (and per record, when the input is records)."""

    tokenizer: str
    family: str
    vocab_size: int
    source: str
    tokens: int
    characters: int
    words_estimate_tokens: float
    per_record_tokens: list[int] | None = field(default=None, repr=False)

    @property
    def characters_per_token(self) -> float:
        return self.characters / self.tokens if self.tokens else float("nan")

    @property
    def words_estimate_error_percent(self) -> float:
        """(words × 1.3 − real count) / real count × 100: negative when the rule undercounts."""
        return (self.words_estimate_tokens - self.tokens) / self.tokens * 100 if self.tokens else float("nan")

    def record_stats(self) -> dict | None:
        if self.per_record_tokens is None:
            return None
        counts = np.asarray(self.per_record_tokens, dtype=np.int64)
        if counts.size == 0:
            return {"records": 0}
        return {"records": int(counts.size), "mean_tokens": float(counts.mean()),
                "p50_tokens": float(np.percentile(counts, 50)), "p99_tokens": float(np.percentile(counts, 99)),
                "max_tokens": int(counts.max())}

    def to_dict(self) -> dict:
        document = {"tokenizer": self.tokenizer, "family": self.family, "vocab_size": self.vocab_size,
                    "source": self.source, "tokens": self.tokens, "characters": self.characters,
                    "characters_per_token": self.characters_per_token,
                    "words_estimate_error_percent": self.words_estimate_error_percent}
        stats = self.record_stats()
        if stats is not None:
            document["per_record"] = stats
        return document


@dataclass
class TokenCountReport:
    """Counts of one input under several tokenizers, and how far apart they are."""

    input: str
    text: TextStats
    results: list[TokenizerCount]
    records: int | None = None  # None for a plain text; the number of JSONL/CSV records otherwise
    cost: object | None = None  # a TokenCost when a model and an accelerator were given
    tokenizer_choice: object | None = None  # a TokenizerChoice when the model's own tokenizer was picked
    warnings: list = field(default_factory=list)

    @property
    def spread_percent(self) -> float:
        counts = [r.tokens for r in self.results]
        if not counts or min(counts) == 0:
            return 0.0 if counts and max(counts) == 0 else float("nan")
        return (max(counts) - min(counts)) / min(counts) * 100

    def to_dict(self) -> dict:
        document = {"input": self.input, "text": self.text.to_dict(), "records": self.records,
                    "results": [r.to_dict() for r in self.results], "spread_percent": self.spread_percent}
        if self.cost is not None:
            document["cost"] = self.cost.to_dict()
        if self.tokenizer_choice is not None:
            document["tokenizer_choice"] = self.tokenizer_choice.to_dict()
        document["warnings"] = list(self.warnings)
        return document


def count_pieces(pieces: Iterable[tuple[str, int] | tuple[str, int, str]], tokenizers: list[Tokenizer], name: str = "<text>",
                 per_record: bool = False, batch_chars: int = 1 << 21,
                 batch_pieces: int = 1024,
                 on_progress: Callable[[int], None] | None = None) -> TokenCountReport:
    """Count (text, byte count[, context]) pieces under each tokenizer, encoding batch_pieces pieces per library call.

    per_record: the pieces are records (JSONL/CSV), so keep each one's count; otherwise they are parts of one
    text cut at safe points (reading.iter_pieces), each counted as count(context + text) − count(context), and
    only the sums matter. A batch goes to the library when it
    holds batch_chars characters or batch_pieces pieces, so memory is one batch whatever the input size.
    """
    stats = TextStats()
    totals = [0] * len(tokenizers)
    records: list[list[int]] | None = [[] for _ in tokenizers] if per_record else None
    done_bytes = 0
    batch: list[str] = []
    contexts: list[str] = []
    context_counts: list[dict[str, int]] = [{"": 0} for _ in tokenizers]
    batch_size = 0
    record_count = 0

    def flush():
        nonlocal batch_size
        batch_size = 0
        for index, tokenizer in enumerate(tokenizers):
            known = context_counts[index]
            for context in contexts:
                if context not in known:
                    known[context] = tokenizer.count(context)
            counts = tokenizer.count_batch(batch)
            if any(contexts):
                counts = [n - known[c] for n, c in zip(counts, contexts, strict=True)]
            totals[index] += sum(counts)
            if records is not None:
                records[index].extend(counts)
        batch.clear()
        contexts.clear()
        if on_progress:
            on_progress(done_bytes)

    for item in pieces:
        text, byte_count = item[0], item[1]
        context = item[2] if len(item) > 2 else ""
        stats.add(text, byte_count)
        done_bytes += byte_count
        record_count += 1
        batch.append(context + text if context else text)
        contexts.append(context)
        batch_size += len(text)
        if batch_size >= batch_chars or len(batch) >= batch_pieces:
            flush()
    if batch:
        flush()

    results = [TokenizerCount(t.name, t.family, t.vocab_size, t.source, totals[i], stats.characters,
                              stats.words_estimate_tokens, records[i] if records is not None else None)
               for i, t in enumerate(tokenizers)]
    return TokenCountReport(name, stats, results, record_count if per_record else None)


def count_text(text: str, tokenizers: list[Tokenizer], name: str = "<text>") -> TokenCountReport:
    """Counts of one in-memory text, each tokenizer encoding it whole (one call)."""
    return count_pieces([(text, len(text.encode("utf-8", "surrogatepass")))], tokenizers, name)
