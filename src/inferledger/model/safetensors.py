"""safetensors headers → the dtype and shape of every tensor, matched against the config's ModelSpec.

The format (huggingface/safetensors, "Format" in its README): 8 bytes, a little-endian u64 N; N bytes of JSON
mapping each tensor name to {"dtype", "shape", "data_offsets": [begin, end]} (plus an optional "__metadata__");
then the data. So a header is a few kilobytes read from the front of each file, and a tensor's stored bytes are
end − begin, exact whatever the dtype. A sharded checkpoint's model.safetensors.index.json names the shard of
each tensor. The data is never read.
"""

from __future__ import annotations

import json
import re
import struct
from dataclasses import replace
from pathlib import Path

from inferledger.errors import ConfigError
from inferledger.model.checkpoint import Matcher, Tensor
from inferledger.model.spec import Block, ModelSpec, Weights
from inferledger.precision import PRECISIONS, ggml_format

# Headers hold names and shapes only: a larger one is not a safetensors file (safetensors itself caps it at 100 MB).
MAX_HEADER_BYTES = 100_000_000
INDEX_NAME = "model.safetensors.index.json"

# safetensors dtype → the precision its matmul runs in (named by the file's dtype in module_formats).
_DTYPES = {"F32": "fp32", "F16": "fp16", "BF16": "bf16", "F8_E4M3": "fp8", "F8_E5M2": "fp8_e5m2", "I8": "int8"}

# A decoder layer's tensors, whatever wraps the language model (model., model.language_model., language_model.model.).
# GPT-2 and Falcon number their layers h.N.
_LAYER = re.compile(r"(?:^|\.)(?:layers|h)\.(\d+)\.(.+?)(?:\.(?:weight|bias))?$")
# Layer tensor names that are not the spec's module names: GPT-2's Conv1D names, Falcon's.
_LAYER_ALIASES = {"attn.c_attn": "qkv_proj", "attn.c_proj": "o_proj", "mlp.c_fc": "mlp.up_proj",
                  "mlp.c_proj": "mlp.down_proj", "self_attention.query_key_value": "qkv_proj",
                  "self_attention.dense": "o_proj", "mlp.dense_h_to_4h": "mlp.up_proj",
                  "mlp.dense_4h_to_h": "mlp.down_proj"}
_OUTER = {"embed_tokens": "embed_tokens", "wte": "embed_tokens", "word_embeddings": "embed_tokens",
          "tok_embeddings": "embed_tokens", "wpe": "embed_positions", "embed_positions": "embed_positions",
          "norm": "final_norm", "ln_f": "final_norm", "final_layernorm": "final_norm", "lm_head": "lm_head",
          "output": "lm_head"}


def read_header(path: Path) -> tuple[dict, int]:
    """(header dict without __metadata__, bytes read) of one .safetensors file."""
    try:
        with open(path, "rb") as handle:
            head = handle.read(8)
            if len(head) < 8:
                raise ConfigError(f"{path}: too short to be a safetensors file")
            (length,) = struct.unpack("<Q", head)
            if not 2 <= length <= MAX_HEADER_BYTES:
                raise ConfigError(f"{path}: not a safetensors file (header length {length:,} bytes)")
            raw = handle.read(length)
    except FileNotFoundError:
        raise ConfigError(f"{path}: no such file (a shard named in the index is missing?)") from None
    except (IsADirectoryError, PermissionError) as error:
        raise ConfigError(f"{path}: cannot read ({error.__class__.__name__})") from None
    try:
        header = json.loads(raw)
    except (UnicodeDecodeError, json.JSONDecodeError):
        raise ConfigError(f"{path}: not a safetensors file (its header is not JSON)") from None
    if not isinstance(header, dict):
        raise ConfigError(f"{path}: not a safetensors file (its header is not a JSON object)")
    header.pop("__metadata__", None)
    return header, 8 + length


def tensors_of(path: Path) -> tuple[list[Tensor], int]:
    header, read = read_header(path)
    out = []
    for name, entry in header.items():
        try:
            begin, end = entry["data_offsets"]
            shape = tuple(int(s) for s in entry["shape"])
            out.append(Tensor(name, str(entry["dtype"]), shape, int(end) - int(begin)))
        except (KeyError, TypeError, ValueError):
            raise ConfigError(f"{path}: tensor {name!r} has no dtype/shape/data_offsets; not a safetensors "
                              "header") from None
    return out, read


def shard_files(path: Path) -> list[Path]:
    """The .safetensors files of a file, an index or a folder (the index's shards when it has one)."""
    if path.is_dir():
        if (path / INDEX_NAME).is_file():
            return shard_files(path / INDEX_NAME)
        return sorted(path.glob("*.safetensors"))
    if path.name.endswith(".index.json"):
        try:
            weight_map = json.loads(path.read_text(encoding="utf-8"))["weight_map"]
            shards = sorted(set(weight_map.values()))
        except (UnicodeDecodeError, json.JSONDecodeError, KeyError, TypeError, AttributeError):
            raise ConfigError(f"{path}: not a safetensors index (no weight_map of tensor → shard)") from None
        return [path.parent / shard for shard in shards]
    return [path]


def _candidates(rest: str) -> tuple:
    """Spec module names a layer tensor (its name after layers.N.) may be, most specific first."""
    last = rest.split(".")[-1]
    if rest in _LAYER_ALIASES:
        return (_LAYER_ALIASES[rest],)
    if "shared_expert_gate" in rest:  # Qwen2-MoE: the sigmoid gate of the shared expert
        return ("shared.gate",)
    if "shared_expert" in rest:  # shared_expert (Qwen) / shared_experts (DeepSeek)
        return ("shared." + last,)
    if re.search(r"(^|\.)experts(\.|$)", rest):  # experts.N.w1 (Mixtral), experts.gate_up_proj (fused)
        return ("experts",)
    if last == "e_score_correction_bias":
        return ("router.e_score_correction_bias",)
    if last in ("gate", "router"):  # mlp.gate (Qwen MoE, DeepSeek), block_sparse_moe.gate (Mixtral)
        return ("router",)
    return (rest, "mlp." + last, last)


def match(spec: ModelSpec, tensors: list[Tensor], matcher: Matcher | None = None) -> Matcher:
    matcher = matcher or Matcher(spec)
    for tensor in tensors:
        layer_match = _LAYER.search(tensor.name)
        if layer_match and not re.search(r"(vision|visual|mtp|audio)", tensor.name):
            layer = int(layer_match.group(1))
            matcher.add(tensor, matcher.locate(layer, _candidates(layer_match.group(2))), layer)
            continue
        stem = re.sub(r"\.(weight|bias)$", "", tensor.name).split(".")[-1]
        outer = None if re.search(r"(vision|visual|mtp|audio)", tensor.name) else _OUTER.get(stem)
        matcher.add(tensor, matcher.locate(None, (outer,)) if outer else None)
    return matcher


def _stored_format(dtypes: str, bits: float):
    known = _DTYPES.get(dtypes)
    return replace(PRECISIONS[known], name=dtypes, bits=bits) if known else ggml_format(dtypes, bits)


def _finish(spec: ModelSpec, files: list[Path], tensors: list[Tensor], read: int) -> ModelSpec:
    matcher = match(spec, tensors)
    checked = matcher.finish("safetensors", tuple(str(f) for f in files), _stored_format, header_bytes=read)
    # Unquantized files: each module in the dtype its tensors have (a float32 config over bf16 files, F32 norms).
    # A quantized checkpoint keeps the config's format, whose group overhead stands for its scale tensors.
    quantized = spec.quantization or any(u["what"] == "quantization scales" for u in checked.checkpoint.unexpected)
    return replace(checked, module_formats=()) if quantized else checked


def _read_all(files: list[Path]) -> tuple[list[Tensor], int]:
    tensors, read = [], 0
    for file in files:
        found, size = tensors_of(file)
        tensors += found
        read += size
    return tensors, read


def check_folder(spec: ModelSpec, folder: Path) -> ModelSpec:
    """A folder's spec (from its config.json) checked against its safetensors headers, when it has any."""
    files = shard_files(folder)
    if not files:
        return spec
    tensors, read = _read_all(files)
    return _finish(spec, files, tensors, read)


def read_safetensors(path: str | Path) -> ModelSpec:
    """A .safetensors file or index: the config.json beside it gives the architecture and the headers check it;
    with no config, a bare parameter count of every tensor (shapes alone do not say how many heads)."""
    from inferledger.model import load_model

    path = Path(path)
    files = shard_files(path)
    tensors, read = _read_all(files)
    if (path.parent / "config.json").is_file():
        return _finish(load_model(path.parent / "config.json"), files, tensors, read)
    elements = sum(t.elements for t in tensors)
    if not elements:
        raise ConfigError(f"{path}: holds no tensors")
    name = path.name.removesuffix(".index.json").removesuffix(".safetensors")
    spec = ModelSpec.bare(elements)
    spec = replace(spec, name=name, blocks=(Block("model", (Weights("weights", elements),)),),
                   notes=spec.notes + (f"no config.json beside {path.name}: every tensor counted as one bare "
                                       "parameter count; put the model's config.json beside it for the full account",))
    matcher = Matcher(spec)
    for tensor in tensors:
        matcher.add(tensor, (0, "weights"))
    return matcher.finish("safetensors", tuple(str(f) for f in files), _stored_format, header_bytes=read)


def check_hub(spec: ModelSpec, repo_id: str) -> ModelSpec:
    """A hub id's spec checked against its safetensors headers, read by HTTP range requests (huggingface_hub's
    get_safetensors_metadata: the first bytes of each shard, never the weights). Offline, or on any failure, the
    spec stands as the config gives it, with a note saying the headers were not read."""
    from inferledger import hub

    if hub.offline_by_choice() or not hub.reachable():
        return replace(spec, notes=spec.notes + ("safetensors headers not read (offline)",))
    try:
        from huggingface_hub import get_safetensors_metadata

        metadata = get_safetensors_metadata(repo_id)
    except Exception as error:  # no safetensors in the repo, gated, network: the config's account stands
        return replace(spec, notes=spec.notes + (f"safetensors headers not read ({error.__class__.__name__})",))
    files = [f"hub:{repo_id}/{name}" for name in metadata.files_metadata]
    tensors = [Tensor(name, str(info.dtype), tuple(int(s) for s in info.shape),
                      int(info.data_offsets[1]) - int(info.data_offsets[0]))
               for file in metadata.files_metadata.values() for name, info in file.tensors.items()]
    return _finish(spec, files, tensors, 0)
