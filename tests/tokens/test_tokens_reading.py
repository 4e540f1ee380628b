"""Reading text for counting: streamed pieces add up to the whole, and bad bytes are reported, not dropped.

Why the checks are sound: the reference count is one library call on the whole text (the number a user would
get from tokenizer.encode); the streamed path is forced into many small pieces (down to 64 characters, blocks of
97 bytes so multi-byte characters straddle blocks), so any error at a cut would show. Byte offsets in the error
cases are counted by hand from the literal bytes in each test.
"""

from __future__ import annotations

import io

import pytest

from inferledger.errors import TokenizerError
from inferledger.tokens.counting import count_pieces, count_text
from inferledger.tokens.loading import DEFAULT_TOKENIZERS
from inferledger.tokens.reading import iter_csv_records, iter_jsonl_records, iter_pieces


@pytest.mark.parametrize("piece_chars", [64, 200, 1000])
def test_streamed_counts_equal_whole_text(piece_chars, bundled, chinese_text, english_text):
    tokenizers = [bundled(name) for name in DEFAULT_TOKENIZERS]
    for text in (chinese_text, english_text):
        data = text.encode("utf-8")
        pieces = list(iter_pieces(io.BytesIO(data), piece_chars=piece_chars, block_bytes=97))
        assert len(pieces) > 1
        assert "".join(p.text for p in pieces) == text
        assert sum(p.byte_count for p in pieces) == len(data)
        streamed = count_pieces(((p.text, p.byte_count, p.context) for p in pieces), tokenizers, batch_pieces=3)
        whole = count_text(text, tokenizers)
        assert [r.tokens for r in streamed.results] == [r.tokens for r in whole.results]
        assert streamed.text == whole.text


def test_a_line_without_newlines_still_streams(bundled):
    # 2,000 words on one line: pieces must be cut at spaces (memory stays flat) and still count exactly.
    text = " ".join(f"word{i % 7}alpha" for i in range(2000))
    tokenizers = [bundled("cl100k_base"), bundled("mistral-v1")]
    pieces = list(iter_pieces(io.BytesIO(text.encode()), piece_chars=500, block_bytes=256))
    assert max(len(p.text) for p in pieces) <= 500 * 4
    streamed = count_pieces(((p.text, p.byte_count, p.context) for p in pieces), tokenizers)
    assert [r.tokens for r in streamed.results] == [t.count(text) for t in tokenizers]


def _read(data: bytes, **kwargs):
    return list(iter_pieces(io.BytesIO(data), "f.txt", piece_chars=8, block_bytes=4, **kwargs))


def test_invalid_utf8_reports_its_byte_offset():
    # b"ab\n" (3 bytes) + "é" (2 bytes) + b"cd" → the stray 0xff is byte 7.
    data = b"ab\n" + "é".encode() + b"cd" + b"\xff" + b"tail"
    with pytest.raises(TokenizerError, match=r"f\.txt: invalid UTF-8 at byte offset 7 \(0xff\)"):
        _read(data)


def test_invalid_utf8_straddling_a_block_boundary():
    # "中" is e4 b8 ad; cut after e4 b8 with a wrong third byte: the first bad byte is e4 at offset 5.
    data = b"hello" + b"\xe4\xb8" + b"A" + b"more text"
    with pytest.raises(TokenizerError, match="byte offset 5 "):
        _read(data)


def test_truncated_character_at_end_of_file():
    with pytest.raises(TokenizerError, match="byte offset 2 "):
        _read(b"ok\xe4\xb8")


def test_binary_file():
    with pytest.raises(TokenizerError, match="looks binary \\(NUL byte at offset 6\\)"):
        _read(b"PK\x03\x04ab\x00\x00")


def test_utf16_is_named():
    with pytest.raises(TokenizerError, match="UTF-16"):
        _read("hi".encode("utf-16"))


def test_other_encoding_when_asked():
    text = "中文，GBK 编码"
    pieces = _read(text.encode("gbk"), encoding="gbk")
    assert "".join(p.text for p in pieces) == text


def test_jsonl_records_and_chat_messages():
    data = (b'{"text": "one"}\n\n{"messages": [{"role": "user", "content": "a"}, '
            b'{"role": "assistant", "content": [{"type": "text", "text": "b"}]}]}\n"bare string"\n')
    assert [t for t, _ in iter_jsonl_records(io.BytesIO(data), "d.jsonl")] == ["one", "a\nb", "bare string"]


def test_jsonl_errors_name_the_line():
    with pytest.raises(TokenizerError, match="line 2 is not JSON"):
        list(iter_jsonl_records(io.BytesIO(b'{"text": "x"}\n{oops\n'), "d.jsonl"))
    with pytest.raises(TokenizerError, match="line 1 has no field 'body' \\(keys: text\\)"):
        list(iter_jsonl_records(io.BytesIO(b'{"text": "x"}\n'), "d.jsonl", field="body"))


def test_csv_records():
    data = b'id,text\n1,"hello, world"\n2,"two\nlines"\n'
    assert [t for t, _ in iter_csv_records(io.BytesIO(data), "d.csv")] == ["hello, world", "two\nlines"]
    with pytest.raises(TokenizerError, match="no column 'body'"):
        list(iter_csv_records(io.BytesIO(data), "d.csv", column="body"))
