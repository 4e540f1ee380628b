"""Which tokenizer counts a model's input: the model's own, found where the model is, and said out loud.

`tokens --model M` with no --tokenizer counts with, in this order:
  1. the tokenizer file beside the model (its folder, or the folder of its config.json / .gguf / .safetensors);
  2. for a hub id, the repo's own tokenizer file, from the local hub cache or the hub (offline first);
  3. the bundled tokenizer of the model's family (config.json model_type, e.g. qwen3 → qwen2.5), offline;
and only when none applies, the default side-by-side set, with a warning that none of them is the model's.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from inferledger.errors import InferledgerError, TokenizerError
from inferledger.tokens.loading import FAMILY_TOKENIZERS, Tokenizer, load_tokenizer, load_tokenizer_file

_FILES = ("tokenizer.json", "tekken.json", "tokenizer.model", "spiece.model")


@dataclass(frozen=True)
class TokenizerChoice:
    """The tokenizer a model's text is counted with, and why that one."""

    model: str
    tokenizer: str
    source: str
    why: str  # "the model folder's tokenizer.json", "its family's bundled tokenizer", ...

    def to_dict(self) -> dict:
        return {"model": self.model, "tokenizer": self.tokenizer, "source": self.source, "why": self.why}


def _folder_of(model: str) -> Path | None:
    path = Path(model).expanduser()
    if path.is_dir():
        return path
    if path.is_file():
        return path.parent
    return None


def model_tokenizer(model: str, add_special_tokens: bool = False) -> tuple[Tokenizer, TokenizerChoice] | None:
    """The model's own tokenizer and why it is that one, or None when none can be found (offline, no family)."""
    folder = _folder_of(model)
    if folder is not None:
        for path in [folder / name for name in _FILES] + sorted(folder.glob("*.tiktoken")):
            if not path.is_file():
                continue
            try:
                tokenizer = load_tokenizer_file(path, add_special_tokens)
            except TokenizerError:  # e.g. a tiktoken rank file whose split pattern is unknown: try the next
                continue
            return tokenizer, TokenizerChoice(model, tokenizer.name, str(path), f"the model folder's {path.name}")
    elif model.count("/") == 1 and " " not in model:
        try:
            tokenizer = load_tokenizer(model, add_special_tokens)
            return tokenizer, TokenizerChoice(model, tokenizer.name, tokenizer.source,
                                              "the hub repo's own tokenizer file")
        except TokenizerError:
            pass  # not cached and the hub not reachable, or no such file: try the family below
    try:
        from inferledger.model import load_model

        model_type = load_model(model).model_type
    except InferledgerError:
        return None
    family = FAMILY_TOKENIZERS.get(model_type)
    if family is None:
        return None
    tokenizer = load_tokenizer(family, add_special_tokens)
    return tokenizer, TokenizerChoice(model, tokenizer.name, tokenizer.source,
                                      f"its family's bundled tokenizer, model_type {model_type}; its own "
                                      "tokenizer file is not at hand")
