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
    if not isinstance(model_type, str):
        raise UnsupportedModelType(f"{source}: model_type is {model_type!r}; expected a name such as 'llama'")
    adapter = ADAPTERS.get(model_type)
    if adapter is None:
        raise UnsupportedModelType(
            f"{source}: unsupported model_type {model_type!r}; supported: {', '.join(sorted(ADAPTERS))}")
    _check_formats(config, source)
    spec = adapter(Fields(config, source), model_type, name)
    check_spec(spec, source)
    vision = outer.get("vision_config")
    if isinstance(vision, dict) and vision and "vision" not in spec.extra_parameters:
        from dataclasses import replace

        if vision.get("model_type") == "siglip_vision_model":
            extra = {**spec.extra_parameters, "vision": siglip_parameters(vision, spec.hidden_size,
                                                                        f"{source} vision_config")}
            spec = replace(spec, extra_parameters=extra)
        else:
            spec = replace(spec, notes=spec.notes + ("a vision tower is configured but not sized; "
                                                     "it is not counted in the total",))
    return spec


def _check_formats(config: dict, source: str) -> None:
    """A quantization_config must be an object and a torch_dtype a dtype: say so here rather than guess bf16."""
    from inferledger.errors import ConfigError, UnknownPrecision
    from inferledger.precision import get_precision

    quantization = config.get("quantization_config")
    if quantization is not None and not isinstance(quantization, dict):
        raise ConfigError(f"{source}: quantization_config must be a JSON object, got {type(quantization).__name__}")
    dtype = config.get("torch_dtype") or config.get("dtype")
    if dtype is not None:
        try:
            get_precision(str(dtype).removeprefix("torch."))
        except UnknownPrecision:
            raise ConfigError(f"{source}: torch_dtype {dtype!r} is not a dtype inferledger knows (float32, float16, "
                              "bfloat16, float8_e4m3fn, ...)") from None


def check_spec(spec: ModelSpec, source: str) -> None:
    """Shapes no real model can have are errors, not numbers."""
    from inferledger.errors import ConfigError
    from inferledger.model.spec import AttentionCore, Experts

    for block, module in spec.modules():
        where = f"{source}: layer {block.layers[0] if block.layers else block.kind}"
        if isinstance(module, AttentionCore) and module.kind != "mla":
            heads, kv_heads = module.num_heads, module.num_kv_heads
            if kv_heads > heads or heads % kv_heads:
                raise ConfigError(f"{where}: {kv_heads} key/value heads must divide the {heads} attention heads "
                                  "(grouped-query attention shares each KV head among a whole group)")
        if isinstance(module, Experts) and not 1 <= module.top_k <= module.num_experts:
            raise ConfigError(f"{where}: {module.top_k} experts per token out of {module.num_experts} experts; "
                              "it must be between 1 and the number of experts")


def siglip_parameters(v: dict, text_hidden: int, source: str = "vision_config") -> int:
    """A SigLIP vision tower (Gemma 3, PaliGemma) and Gemma 3's projector into the text model: a patch conv with
    bias, learned positions, pre-LN encoder layers (q/k/v/out with biases, a 2-matrix GELU MLP with biases, two
    LayerNorms), a final LayerNorm; projector = one hidden×text_hidden matrix + an RMSNorm over the vision width."""
    f = Fields(v, source)
    hidden, inter, layers = f.int("hidden_size"), f.int("intermediate_size"), f.int("num_hidden_layers")
    patch, image = f.int("patch_size", default=14), f.int("image_size", default=896)
    channels = f.int("num_channels", default=3)
    per_layer = 4 * (hidden * hidden + hidden) + 2 * hidden * inter + inter + hidden + 2 * 2 * hidden
    tower = channels * patch * patch * hidden + hidden + (image // patch) ** 2 * hidden + layers * per_layer
    return tower + 2 * hidden + hidden * text_hidden + hidden


def load_model(name: str | os.PathLike) -> ModelSpec:
    """A ModelSpec from a path to config.json, a folder holding one, a .gguf file, a .safetensors file or index,
    a catalog name or a hub id. Weight files are read for their headers only."""
    from inferledger.errors import require

    require(name, (str, os.PathLike), "name", "a catalog name, a hub id or a path to config.json")
    path = Path(name)
    if path.is_dir() and not (path / "config.json").is_file():
        ggufs = sorted(path.glob("*.gguf"))  # an ollama/llama.cpp download: the folder holds the .gguf alone
        if len(ggufs) > 1:
            from inferledger.errors import UnknownModel

            raise UnknownModel(f"{path}: no config.json and {len(ggufs)} .gguf files; pass one of them: "
                               + ", ".join(g.name for g in ggufs[:4]))
        path = ggufs[0] if ggufs else path
    if path.is_file():
        from inferledger.model import gguf

        if gguf.is_gguf(path):
            return gguf.read_gguf(path)
        if path.suffix.lower() == ".gguf":
            from inferledger.errors import ConfigError

            raise ConfigError(f"{path}: not a GGUF file (it does not start with the GGUF magic bytes)")
        if path.name.endswith((".safetensors", ".safetensors.index.json")):
            from inferledger.model.safetensors import read_safetensors

            return read_safetensors(path)
    config, source = resolve_config(name)
    label = source
    if source.endswith(".json"):  # a file: the folder's name for config.json, else the file's stem
        path = Path(source)
        label = path.parent.name if path.name == "config.json" else path.stem.replace("--", "/", 1)
    spec = spec_from_config(config, name=label, source=source)
    if Path(name).is_dir():
        from inferledger.model.safetensors import check_folder

        spec = check_folder(spec, Path(name))
    elif source == str(name) and not Path(source).exists() and source not in catalog_names():
        from inferledger.model.safetensors import check_hub  # a hub id: its headers, when the hub answers

        spec = check_hub(spec, source)
    return spec


__all__ = ["ModelSpec", "load_model", "spec_from_config", "catalog_names", "ADAPTERS"]
