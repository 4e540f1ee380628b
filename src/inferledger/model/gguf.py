"""A llama.cpp / ollama .gguf file → ModelSpec, from its metadata and tensor table only (never the weights).

The metadata becomes the config.json the family's adapter already reads (one adapter per family, whatever the
file format), and the tensor table gives every tensor's GGML type. A quantized GGUF mixes types (Q4_K_M keeps most
matrices in Q4_K but attn_v and ffn_down of some layers, and the output, in Q6_K), so each module of the spec gets
the bits its own tensors take, block scales included, averaged over the layers of its block: the operator rows
then sum to the file's exact tensor bytes. The reader is the `gguf` package maintained with llama.cpp, imported
only here (pip install 'inferledger[gguf]'); it maps the file and parses the header, touching no tensor data.
"""

from __future__ import annotations

import re
import struct
from dataclasses import replace
from pathlib import Path

import numpy as np

from inferledger.errors import ConfigError, UnsupportedModelType
from inferledger.model.checkpoint import Matcher, Tensor
from inferledger.model.spec import ModelSpec
from inferledger.precision import ggml_format

GGUF_MAGIC = b"GGUF"

# general.architecture → the model_type whose adapter reads the same shapes.
ARCHITECTURES = {
    "llama": "llama", "mistral": "mistral", "qwen2": "qwen2", "qwen2moe": "qwen2_moe", "qwen3": "qwen3",
    "qwen3moe": "qwen3_moe", "gemma": "gemma", "gemma2": "gemma2", "gemma3": "gemma3_text", "phi3": "phi3",
    "deepseek2": "deepseek_v3",  # DeepSeek V2/V3/R1, Kimi-K2: MLA + MoE (V2 told apart by its missing exp_probs_b)
}

# GGUF metadata key (after "<arch>.") → the config.json field the adapters read.
_KEYS = {
    "embedding_length": "hidden_size",
    "block_count": "num_hidden_layers",
    "attention.head_count": "num_attention_heads",
    "attention.head_count_kv": "num_key_value_heads",
    "attention.key_length": "head_dim",
    "feed_forward_length": "intermediate_size",
    "context_length": "max_position_embeddings",
    "attention.sliding_window": "sliding_window",
    "expert_count": "num_experts",
    "expert_used_count": "num_experts_per_tok",
    "expert_feed_forward_length": "moe_intermediate_size",
    "expert_shared_feed_forward_length": "shared_expert_intermediate_size",
}

# GGUF tensor name (blk.N.<name> or <name>) → spec module names it may be, most specific first.
_MODULES = {
    "token_embd": ("embed_tokens",), "output_norm": ("final_norm",), "output": ("lm_head",),
    "attn_norm": ("input_layernorm",),
    "attn_q": ("q_proj",), "attn_k": ("k_proj",), "attn_v": ("v_proj",), "attn_qkv": ("qkv_proj",),
    "attn_output": ("o_proj",), "attn_q_norm": ("q_norm",), "attn_k_norm": ("k_norm",), "attn_sinks": ("sinks",),
    # Gemma 2/3 norm both sides of each sublayer: there ffn_norm is the pre-FFN norm; in Llama it is HF's
    # post_attention_layernorm (the norm between attention and FFN).
    "ffn_norm": ("pre_feedforward_layernorm", "post_attention_layernorm"),
    "attn_post_norm": ("post_attention_layernorm",), "post_attention_norm": ("post_attention_layernorm",),
    "ffn_post_norm": ("post_feedforward_layernorm",), "post_ffw_norm": ("post_feedforward_layernorm",),
    "ffn_gate": ("mlp.gate_proj",), "ffn_down": ("mlp.down_proj",),
    "ffn_up": ("mlp.up_proj", "mlp.gate_up_proj"),  # Phi-3 keeps gate and up in one ffn_up
    "ffn_gate_inp": ("router",), "exp_probs_b": ("router.e_score_correction_bias",),
    "ffn_gate_exps": ("experts",), "ffn_up_exps": ("experts",), "ffn_down_exps": ("experts",),
    "ffn_gate_shexp": ("shared.gate_proj",), "ffn_up_shexp": ("shared.up_proj",),
    "ffn_down_shexp": ("shared.down_proj",), "ffn_gate_inp_shexp": ("shared.gate",),
    # MLA; llama.cpp since 2025 splits kv_b into k_b and v_b (the absorbed form), together HF's kv_b_proj.
    "attn_q_a": ("q_a_proj",), "attn_q_a_norm": ("q_a_layernorm",), "attn_q_b": ("q_b_proj",),
    "attn_kv_a_mqa": ("kv_a_proj_with_mqa",), "attn_kv_a_norm": ("kv_a_layernorm",),
    "attn_kv_b": ("kv_b_proj",), "attn_k_b": ("kv_b_proj",), "attn_v_b": ("kv_b_proj",),
}
_TENSOR = re.compile(r"^(?:blk\.(\d+)\.)?(.+?)(?:\.(?:weight|bias))?$")


def is_gguf(path: Path) -> bool:
    try:
        with open(path, "rb") as handle:
            return handle.read(4) == GGUF_MAGIC
    except OSError:
        return False


def _reader(path: Path):
    try:
        import gguf
    except ImportError:
        raise ConfigError(f"{path}: reading a .gguf file needs the gguf package: pip install 'inferledger[gguf]'")\
            from None
    try:
        return gguf, _header_reader(gguf)(path)
    except (ValueError, KeyError, IndexError, OverflowError, UnicodeDecodeError, struct.error) as error:
        raise ConfigError(f"{path}: not a readable GGUF file ({str(error)[:80]})") from None


def _header_reader(gguf):
    """gguf.GGUFReader reading the header only: it steps over metadata arrays instead of building a numpy view per
    element (a real file's tokenizer, 128K tokens and 280K merges, costs the stock reader ~12 s and this ~0.1 s) and
    lists the tensor table without mapping any tensor's data. The header's parsing is the package's own."""
    value_type = gguf.GGUFValueType

    class HeaderReader(gguf.GGUFReader):
        def _get_field_parts(self, orig_offs, raw_type):
            if raw_type != value_type.ARRAY or self.byte_order != "I":
                return super()._get_field_parts(orig_offs, raw_type)
            item_type = value_type(int(struct.unpack_from("<I", self.data, orig_offs)[0]))
            (count,) = struct.unpack_from("<Q", self.data, orig_offs + 4)
            offs = orig_offs + 12
            if item_type == value_type.STRING:
                for _ in range(count):
                    offs += 8 + struct.unpack_from("<Q", self.data, offs)[0]
            elif item_type in self.gguf_scalar_to_np:
                offs += count * np.dtype(self.gguf_scalar_to_np[item_type]).itemsize
            else:  # arrays of arrays: the package's own walk
                return super()._get_field_parts(orig_offs, raw_type)
            return offs - orig_offs, [], [], [value_type.ARRAY, item_type]

        def _build_tensors(self, start_offs, fields):
            # The tensor table without a view of each tensor's data: the data region need not even be there, so
            # the first megabytes of a download (or a header cut from a file) read like the whole file.
            self.tensors = []
            for field in fields:
                _, name, _, dims, raw_type, offset = field.parts
                qtype = gguf.GGMLQuantizationType(int(raw_type[0]))
                block, size = gguf.GGML_QUANT_SIZES[qtype]
                elements = int(np.prod(dims, dtype=np.int64))
                self.tensors.append(gguf.ReaderTensor(
                    name=bytes(name).decode("utf-8"), tensor_type=qtype, shape=dims, n_elements=elements,
                    n_bytes=elements * size // block, data_offset=int(start_offs + offset[0]), data=None,
                    field=field))
            if len({t.name for t in self.tensors}) != len(self.tensors):
                raise ValueError("a tensor name appears twice")

    return HeaderReader


def _scalar(field):
    """A metadata value; arrays (the tokenizer's vocabulary and merges) are not read."""
    if field.types and field.types[0].name == "ARRAY":
        return None
    return field.contents()


def _deepseek_config(config: dict, meta: dict, tensors: dict) -> None:
    """MLA's shapes in DeepSeek's config spelling. key/value_length_mla (llama.cpp since 2025) are the per-head
    q·k and v widths; older files state them as key_length/value_length."""
    def get(key, default=None):
        return meta.get(f"deepseek2.{key}", default)

    rope = get("rope.dimension_count")
    config.pop("head_dim", None)
    config.update(qk_rope_head_dim=rope, kv_lora_rank=get("attention.kv_lora_rank"),
                  qk_nope_head_dim=get("attention.key_length_mla", get("attention.key_length")) - rope,
                  v_head_dim=get("attention.value_length_mla", get("attention.value_length")),
                  n_routed_experts=config.pop("num_experts", 0), n_shared_experts=get("expert_shared_count", 0),
                  first_k_dense_replace=get("leading_dense_block_count", 0),
                  # V3's aux-loss-free routing bias; V2 has none.
                  topk_method="noaux_tc" if any(n.endswith("exp_probs_b.bias") for n in tensors) else "greedy")
    if get("attention.q_lora_rank"):
        config["q_lora_rank"] = get("attention.q_lora_rank")
    # Files with MTP count its layers in block_count (llama.cpp's nextn_predict_layers are the last blocks).
    nextn = get("nextn_predict_layers", 0)
    if nextn:
        config["num_hidden_layers"] -= nextn
        config["num_nextn_predict_layers"] = nextn


def read_gguf(path: str | Path) -> ModelSpec:
    """The ModelSpec of a .gguf file, each module carrying the bits its tensors are stored in."""
    from inferledger.model import spec_from_config

    path = Path(path)
    gguf, reader = _reader(path)
    meta = {name: _scalar(field) for name, field in reader.fields.items()}
    arch = meta.get("general.architecture")
    if arch not in ARCHITECTURES:
        raise UnsupportedModelType(f"{path}: GGUF architecture {arch!r} is not one inferledger reads yet; "
                                   f"supported: {', '.join(sorted(ARCHITECTURES))}; or pass the model's config.json")
    config: dict = {"model_type": ARCHITECTURES[arch]}
    for key, field in _KEYS.items():
        value = meta.get(f"{arch}.{key}")
        if value is not None:
            config[field] = value
    tensors = {t.name: t for t in reader.tensors}
    if "token_embd.weight" not in tensors:
        raise ConfigError(f"{path}: no token_embd.weight tensor; is this a language model GGUF?")
    # GGUF lists dimensions innermost first: token_embd is [hidden, vocab].
    config["vocab_size"] = int(tensors["token_embd.weight"].shape[-1])
    config["tie_word_embeddings"] = "output.weight" not in tensors
    if config.get("num_experts") and arch in ("llama", "mistral"):
        config["num_local_experts"] = config.pop("num_experts")  # Mixtral's spelling for the llama adapter
    if arch == "deepseek2":
        _deepseek_config(config, meta, tensors)
    file_type = meta.get("general.file_type")
    try:
        type_name = gguf.LlamaFileType(file_type).name.removeprefix("MOSTLY_").removeprefix("ALL_")
    except ValueError:
        type_name = "gguf"
    label = str(meta.get("general.name") or path.stem)
    stored_bytes = sum(int(t.n_bytes) for t in reader.tensors)
    elements = sum(int(t.n_elements) for t in reader.tensors)
    spec = spec_from_config(config, name=label, source=str(path))
    # The file's own label (Q4_K_M) with its mean bits over all tensors: what `precision` shows, and the format
    # a module with no tensor of its own is counted in.
    spec = replace(spec, quantization={"quant_method": "gguf", "file_type": type_name,
                                       "bits_per_weight": 8 * stored_bytes / elements if elements else 16.0})
    matcher = Matcher(spec)
    for t in reader.tensors:
        # GGUF lists dimensions innermost first; the shape here reads like PyTorch's.
        tensor = Tensor(t.name, t.tensor_type.name, tuple(int(d) for d in reversed(t.shape)), int(t.n_bytes))
        match = _TENSOR.match(t.name)
        layer = int(match.group(1)) if match.group(1) is not None else None
        matcher.add(tensor, matcher.locate(layer, _MODULES.get(match.group(2), ())), layer)
    # The header runs up to the (aligned) data region; a header-only file ends before that alignment.
    header_bytes = min(int(reader.data_offset), path.stat().st_size)
    return matcher.finish("gguf", (str(path),), ggml_format, header_bytes=header_bytes)
