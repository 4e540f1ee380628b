"""Read text for counting without holding it whole: a file or stdin in pieces, or the records of a JSONL/CSV.

Memory stays flat: bytes are read in blocks, decoded incrementally, and cut into pieces of about piece_chars
characters. Counts must add up across cuts exactly, so each piece after the first carries a context: the short
text just before its cut, chosen so that the cut is a pre-token boundary (a newline followed by a letter; if a
line runs on for 4 pieces, a single space between two letters). The counter encodes context + piece and takes
away the count of the context alone. Regex-split BPEs (GPT-2, cl100k, o200k, Llama 3, Tekken) end a pre-token
at both kinds of cut, and SentencePiece starts a new word at a space and cannot merge across a newline (its
vocabularies hold no piece with a newline in it), so the context stands in for the text before the cut and the
dummy '▁' SentencePiece puts in front of every call falls on the context, not the piece.

Bad input stops with one line: a NUL byte (binary file), a UTF-16/32 byte-order mark, or the byte offset of the
first byte that is not UTF-8 — never silently dropped or replaced.
"""

from __future__ import annotations

import codecs
import csv
import json
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import BinaryIO

from inferledger.errors import TokenizerError

BLOCK_BYTES = 1 << 20
PIECE_CHARS = 1 << 18

_WIDE_BOMS = ((codecs.BOM_UTF32_LE, "UTF-32"), (codecs.BOM_UTF32_BE, "UTF-32"),
              (codecs.BOM_UTF16_LE, "UTF-16"), (codecs.BOM_UTF16_BE, "UTF-16"))


@dataclass
class Piece:
    """A run of decoded text and how many input bytes it came from (for progress and byte counts)."""

    text: str
    byte_count: int
    context: str = ""  # text just before the cut, encoded with the piece and then taken away (see above)


class _Decoder:
    """Incremental decoder that knows the absolute byte offset of an undecodable byte."""

    def __init__(self, name: str, encoding: str):
        self.name = name
        self.encoding = encoding
        try:
            self.decoder = codecs.getincrementaldecoder(encoding)(errors="strict")
        except LookupError:
            raise TokenizerError(f"unknown text encoding {encoding!r}; use a Python codec name such as "
                                 "utf-8, gbk, utf-16") from None
        self.consumed = 0  # bytes handed to the decoder so far
        self.checked_head = False

    def decode(self, data: bytes, final: bool = False) -> str:
        if not self.checked_head and self.encoding.replace("_", "-").lower() in ("utf-8", "utf8"):
            self.checked_head = True
            for bom, label in _WIDE_BOMS:
                if data.startswith(bom):
                    raise TokenizerError(f"{self.name}: text is {label} (byte-order mark); convert it to UTF-8 "
                                         f"(iconv -f {label} -t UTF-8) or pass --encoding {label.lower()}")
        if self.encoding.replace("_", "-").lower() in ("utf-8", "utf8"):
            nul = data.find(b"\x00")
            if nul >= 0:
                raise TokenizerError(f"{self.name}: looks binary (NUL byte at offset {self.consumed + nul}); "
                                     "give a text file")
        pending = len(self.decoder.getstate()[0])
        try:
            text = self.decoder.decode(data, final)
        except UnicodeDecodeError as error:
            offset = self.consumed - pending + error.start
            bad = error.object[error.start:error.start + 1].hex()
            raise TokenizerError(f"{self.name}: invalid {self.encoding.upper()} at byte offset {offset} (0x{bad}); "
                                 "convert the file to UTF-8 or pass --encoding with its real encoding") from None
        self.consumed += len(data)
        return text


def _cut_point(text: str, limit: int) -> tuple[int, str]:
    """(index, context) of the last cut at or before limit: just after a newline followed by a letter;
    (0, "") when there is none."""
    end = min(limit, len(text) - 1)
    while True:
        newline = text.rfind("\n", 0, end)
        if newline < 0:
            return 0, ""
        if text[newline + 1].isalpha():
            return newline + 1, "\n"
        end = newline


def _space_cut(text: str, limit: int) -> tuple[int, str]:
    """(index, context) just before a single space between two letters ('a| b'); (0, "") when there is none."""
    end = min(limit, len(text) - 1)
    while True:
        space = text.rfind(" ", 1, end)
        if space < 1:
            return 0, ""
        if text[space - 1].isalpha() and text[space + 1].isalpha():
            return space, text[space - 1]
        end = space


def _symbol_cut(text: str, limit: int) -> tuple[int, str]:
    """(index, context) between a letter and a following symbol ('文|。'), for long lines with no spaces (Chinese):
    a pre-token boundary for the regex BPEs; SentencePiece may differ there by a token. Last resort: limit."""
    for index in range(min(limit, len(text) - 1), max(limit - 4096, 1), -1):
        char = text[index]
        if text[index - 1].isalpha() and not (char.isalnum() or char.isspace()):
            return index, text[index - 1]
    return limit, ""


def iter_pieces(stream: BinaryIO, name: str = "<stdin>", encoding: str = "utf-8", piece_chars: int = PIECE_CHARS,
                block_bytes: int = BLOCK_BYTES) -> Iterator[Piece]:
    """Pieces of the text on a binary stream, cut only at safe points (see module docstring)."""
    decoder = _Decoder(name, encoding)
    carry = ""
    carry_bytes = 0
    context = ""
    while True:
        data = stream.read(block_bytes)
        final = not data
        carry += decoder.decode(data, final=final)
        carry_bytes += len(data)
        while len(carry) > piece_chars or (final and carry):
            cut, next_context = (len(carry), "") if len(carry) <= piece_chars else _cut_point(carry, piece_chars * 2)
            if not cut:
                if len(carry) < piece_chars * 4 and not final:
                    break  # read more, hoping for a newline
                cut, next_context = _space_cut(carry, piece_chars)
                if not cut:  # no space between letters either (a line of Chinese): keep memory flat anyway
                    cut, next_context = _symbol_cut(carry, piece_chars)
            piece, carry = carry[:cut], carry[cut:]
            # Bytes of this piece, for progress and the byte total: the last piece takes what is left.
            piece_bytes = carry_bytes if not carry else min(carry_bytes, len(piece.encode(encoding, "surrogatepass")))
            carry_bytes -= piece_bytes
            yield Piece(piece, piece_bytes, context)
            context = next_context
        if final:
            return


def _iter_lines(stream: BinaryIO, name: str, encoding: str) -> Iterator[tuple[int, str]]:
    """(line number, decoded line) with the same byte-offset errors as iter_pieces."""
    decoder = _Decoder(name, encoding)
    for number, raw in enumerate(stream, start=1):
        yield number, decoder.decode(raw)
    decoder.decode(b"", final=True)


def _record_text(value, name: str, where: str) -> str:
    if isinstance(value, str):
        return value
    # Chat format: a list of {"role", "content"} messages (OpenAI / Hugging Face datasets); count the contents.
    if isinstance(value, list) and all(isinstance(m, dict) for m in value):
        parts = []
        for message in value:
            content = message.get("content", "")
            if isinstance(content, list):  # content parts: [{"type": "text", "text": ...}]
                content = "\n".join(p.get("text", "") for p in content if isinstance(p, dict))
            parts.append(str(content))
        return "\n".join(parts)
    raise TokenizerError(f"{name}: {where}: field is {type(value).__name__}, not text or chat messages")


def iter_jsonl_records(stream: BinaryIO, name: str, field: str | None = None,
                       encoding: str = "utf-8") -> Iterator[tuple[str, int]]:
    """(text, byte count) of each JSONL record: the named field, or 'text', 'content', 'prompt', 'messages'."""
    for number, line in _iter_lines(stream, name, encoding):
        if not line.strip():
            continue
        try:
            record = json.loads(line)
        except json.JSONDecodeError as error:
            raise TokenizerError(f"{name}: line {number} is not JSON ({error.msg}); give one JSON object per line") from None
        if isinstance(record, str):
            yield record, len(line.encode(encoding, "surrogatepass"))
            continue
        if not isinstance(record, dict):
            raise TokenizerError(f"{name}: line {number} is not a JSON object")
        key = field or next((k for k in ("text", "content", "prompt", "messages") if k in record), None)
        if key is None or key not in record:
            keys = ", ".join(list(record)[:8])
            raise TokenizerError(f"{name}: line {number} has no field {field or 'text'!r} (keys: {keys}); "
                                 "name one with --field")
        yield _record_text(record[key], name, f"line {number}"), len(line.encode(encoding, "surrogatepass"))


def iter_csv_records(stream: BinaryIO, name: str, column: str | None = None,
                     encoding: str = "utf-8") -> Iterator[tuple[str, int]]:
    """(text, byte count) of each CSV row: the named column, or 'text', or the only column."""
    lines = (line for _, line in _iter_lines(stream, name, encoding))
    reader = csv.reader(lines)
    try:
        header = next(reader)
    except StopIteration:
        return
    except csv.Error as error:
        raise TokenizerError(f"{name}: not CSV ({error})") from None
    if column is not None:
        if column not in header:
            raise TokenizerError(f"{name}: no column {column!r} (columns: {', '.join(header[:8])}); "
                                 "name one with --field")
        index = header.index(column)
    elif "text" in header:
        index = header.index("text")
    elif len(header) == 1:
        index = 0
    else:
        raise TokenizerError(f"{name}: {len(header)} columns and none named 'text'; name one with --field")
    try:
        for row in reader:
            if index < len(row):
                yield row[index], sum(len(c) for c in row) + len(row)
    except csv.Error as error:
        raise TokenizerError(f"{name}: bad CSV at line {reader.line_num} ({error})") from None


def open_input(path: str) -> tuple[BinaryIO, str, int | None]:
    """(binary stream, display name, size in bytes or None) for a path or '-' (stdin)."""
    import os
    import sys

    if path == "-":
        return sys.stdin.buffer, "<stdin>", None
    try:
        if os.path.isdir(path):
            raise TokenizerError(f"{path}: is a folder; give a text, JSONL or CSV file")
        return open(path, "rb"), path, os.path.getsize(path)
    except FileNotFoundError:
        raise TokenizerError(f"{path}: no such file") from None
    except PermissionError:
        raise TokenizerError(f"{path}: permission denied") from None


ProgressCallback = Callable[[int], None]
