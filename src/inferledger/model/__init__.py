"""Model configs → ModelSpec. `load_model(name)` takes a path, a folder, a catalog name or a hub id."""

from __future__ import annotations

import importlib
import os
from pathlib import Path

from inferledger.errors import UnsupportedModelType
from inferledger.model import families
from inferledger.model.config import Fields, catalog_names, resolve_config
from inferledger.model.spec import ModelSpec

# model_type → adapter. Adding a family is adding a line here (and, if it really differs, an adapter).
ADAPTERS = {
    **dict.fromkeys(
        ["llama", "mistral", "mixtral", "qwen2", "qwen2_moe", "qwen3", "qwen3_moe", "phi3", "gemma", "gemma2",
         "gemma3", "gemma3_text", "gpt_oss", "minimax_m2", "llama4_text"],
        families.llama_like),
    "gpt2": families.gpt2,
    **dict.fromkeys(["falcon", "RefinedWeb", "RefinedWebModel"], families.falcon),
    **dict.fromkeys(["deepseek_v2", "deepseek_v3", "kimi_k2", "deepseek_v32", "glm_moe_dsa"], families.deepseek),
}

try:  # hybrid layouts (linear attention, Mamba, per-layer block configs) live in their own module
    ADAPTERS.update(importlib.import_module("inferledger.model.hybrids").ADAPTERS)
except ModuleNotFoundError as error:
    if error.name != "inferledger.model.hybrids":
        raise

# Multimodal wrappers keep the language model in a nested config.
_TEXT_CONFIG_KEYS = ("text_config", "llm_config", "language_config")


def spec_from_config(config: dict, name: str = "model", source: str = "config.json") -> ModelSpec:
    """Normalise one config dict (already parsed) into a ModelSpec."""
    outer = config
    for key in _TEXT_CONFIG_KEYS:
        if isinstance(config.get(key), dict):
            inner = dict(config[key])
            # Some wrappers keep quantization/dtype/tie flags on the outer config only; vision_config lets an
            # adapter that can size the vision tower report it (extra_parameters["vision"]).
            for carried in ("quantization_config", "torch_dtype", "tie_word_embeddings", "vision_config"):
                if carried in outer and carried not in inner:
                    inner[carried] = outer[carried]
            config = inner
            break
    model_type = config.get("model_type") or outer.get("model_type")
    if not model_type:
        raise UnsupportedModelType(f"{source}: no model_type field; is this a Hugging Face config.json?")
    adapter = ADAPTERS.get(model_type)
    if adapter is None:
        raise UnsupportedModelType(
            f"{source}: unsupported model_type {model_type!r}; supported: {', '.join(sorted(ADAPTERS))}")
    spec = adapter(Fields(config, source), model_type, name)
    vision = outer.get("vision_config")
    if isinstance(vision, dict) and vision:
        from dataclasses import replace

        spec = replace(spec, notes=spec.notes + ("a vision tower is configured; it is not counted in the total",))
    return spec


def load_model(name: str | os.PathLike) -> ModelSpec:
    """A ModelSpec from a path to config.json, a folder holding one, a catalog name or a hub id."""
    config, source = resolve_config(name)
    label = source
    if source.endswith(".json"):  # a file: the folder's name for config.json, else the file's stem
        path = Path(source)
        label = path.parent.name if path.name == "config.json" else path.stem.replace("--", "/", 1)
    return spec_from_config(config, name=label, source=source)


__all__ = ["ModelSpec", "load_model", "spec_from_config", "catalog_names", "ADAPTERS"]
