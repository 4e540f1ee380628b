"""safetensors headers written here by hand (the format is 8 bytes of little-endian header length, a JSON header
of name → dtype, shape, data_offsets, then the data) → dtypes, shapes and stored bytes, checked against the spec.

Why the checks are sound: the expected element counts are the shapes this test writes, summed here; the expected
bytes are elements × the dtype's width (BF16 2, F32 4, F8_E4M3 1); nothing is taken from the code under test.
"""

from __future__ import annotations

import json
import struct
import subprocess
import sys

import pytest

from inferledger.errors import ConfigError
from inferledger.ledger.model_ledger import model_ledger
from inferledger.model import load_model

WIDTH = {"BF16": 2, "F16": 2, "F32": 4, "F8_E4M3": 1}

# A 2-layer Llama: hidden 64, 4 heads of 16, 2 KV heads, FFN 128, vocab 256, untied head.
CONFIG = {"model_type": "llama", "hidden_size": 64, "num_hidden_layers": 2, "num_attention_heads": 4,
          "num_key_value_heads": 2, "intermediate_size": 128, "vocab_size": 256, "max_position_embeddings": 2048,
          "torch_dtype": "bfloat16", "tie_word_embeddings": False}


def llama_tensors(dtype="BF16", norm_dtype="BF16") -> dict:
    shapes = {"model.embed_tokens.weight": ((256, 64), dtype), "model.norm.weight": ((64,), norm_dtype),
              "lm_head.weight": ((256, 64), dtype)}
    for i in range(2):
        p = f"model.layers.{i}."
        shapes.update({
            p + "input_layernorm.weight": ((64,), norm_dtype), p + "post_attention_layernorm.weight": ((64,), norm_dtype),
            p + "self_attn.q_proj.weight": ((64, 64), dtype), p + "self_attn.k_proj.weight": ((32, 64), dtype),
            p + "self_attn.v_proj.weight": ((32, 64), dtype), p + "self_attn.o_proj.weight": ((64, 64), dtype),
            p + "mlp.gate_proj.weight": ((128, 64), dtype), p + "mlp.up_proj.weight": ((128, 64), dtype),
            p + "mlp.down_proj.weight": ((64, 128), dtype)})
    return shapes


# By hand: embedding and head 2 × 256 × 64 = 32,768; per layer q 4,096 + k 2,048 + v 2,048 + o 4,096 +
# FFN 3 × 8,192 = 24,576 + two norms 128 = 36,992; final norm 64.
LLAMA_ELEMENTS = 32_768 + 2 * 36_992 + 64


def write_safetensors(path, tensors: dict) -> int:
    """Write a real safetensors file (data zero-filled); returns its element count."""
    header, offset, elements = {}, 0, 0
    for name, (shape, dtype) in tensors.items():
        count = 1
        for size in shape:
            count *= size
        header[name] = {"dtype": dtype, "shape": list(shape), "data_offsets": [offset, offset + count * WIDTH[dtype]]}
        offset += count * WIDTH[dtype]
        elements += count
    header["__metadata__"] = {"format": "pt"}
    raw = json.dumps(header).encode()
    with open(path, "wb") as handle:
        handle.write(struct.pack("<Q", len(raw)) + raw + bytes(offset))
    return elements


def test_lone_file_params_total_is_its_element_count(tmp_path):
    path = tmp_path / "model.safetensors"
    elements = write_safetensors(path, llama_tensors())
    assert elements == LLAMA_ELEMENTS
    out = subprocess.run([sys.executable, "-m", "inferledger", "model", str(path), "--json"],
                         capture_output=True, text=True, check=True).stdout
    document = json.loads(out)
    assert document["params"]["total"] == elements
    assert document["weight_bytes_selected"] == 2 * elements
    assert document["checkpoint"]["stored_bytes"] == 2 * elements


def test_file_beside_its_config_is_checked_against_the_spec(tmp_path):
    (tmp_path / "config.json").write_text(json.dumps(CONFIG))
    # F32 norms beside BF16 matrices, as many checkpoints ship them.
    elements = write_safetensors(tmp_path / "model.safetensors", llama_tensors(norm_dtype="F32"))
    spec = load_model(tmp_path / "model.safetensors")
    ledger = model_ledger(spec)
    assert ledger.params.total == elements == LLAMA_ELEMENTS
    norms = 2 * 128 + 64
    assert ledger.weight_bytes_selected == pytest.approx(2 * (elements - norms) + 4 * norms, rel=1e-12)
    assert spec.checkpoint.mismatches == () and spec.checkpoint.unexpected == ()
    # The folder reads the same headers.
    assert load_model(tmp_path).checkpoint.stored_bytes == 2 * (elements - norms) + 4 * norms


def test_sharded_index_and_unexpected_tensors_are_reported(tmp_path):
    (tmp_path / "config.json").write_text(json.dumps(CONFIG))
    tensors = llama_tensors()
    names = list(tensors)
    first = {n: tensors[n] for n in names[: len(names) // 2]}
    second = {n: tensors[n] for n in names[len(names) // 2:]}
    # Extras a real checkpoint may carry: a vision tower, an MTP layer past the config's 2, FP8 scales.
    second["model.visual.patch_embed.proj.weight"] = ((64, 3, 14, 14), "BF16")
    second["model.layers.2.mlp.down_proj.weight"] = ((64, 128), "BF16")
    second["model.layers.0.mlp.down_proj.weight_scale_inv"] = ((1, 1), "F32")
    write_safetensors(tmp_path / "model-00001-of-00002.safetensors", first)
    write_safetensors(tmp_path / "model-00002-of-00002.safetensors", second)
    weight_map = {n: "model-00001-of-00002.safetensors" for n in first}
    weight_map.update({n: "model-00002-of-00002.safetensors" for n in second})
    (tmp_path / "model.safetensors.index.json").write_text(json.dumps({"weight_map": weight_map}))

    spec = load_model(tmp_path / "model.safetensors.index.json")
    assert model_ledger(spec).params.total == LLAMA_ELEMENTS
    unexpected = {u["what"]: u for u in spec.checkpoint.unexpected}
    assert unexpected["vision tower"]["elements"] == 64 * 3 * 14 * 14
    assert unexpected["layers past the config's count (MTP?)"]["elements"] == 64 * 128
    assert unexpected["quantization scales"]["stored_bytes"] == 4
    assert spec.checkpoint.matched_elements == LLAMA_ELEMENTS
    assert any("vision tower" in note for note in spec.notes)
    # Scales present: the config's format (bf16) stands, not the per-tensor dtypes.
    assert spec.module_formats == ()


def test_a_shape_the_config_disagrees_with_is_reported(tmp_path):
    (tmp_path / "config.json").write_text(json.dumps({**CONFIG, "intermediate_size": 96}))
    write_safetensors(tmp_path / "model.safetensors", llama_tensors())
    spec = load_model(tmp_path)
    assert len(spec.checkpoint.mismatches) == 3  # gate, up and down of the FFN block
    assert "mlp.gate_proj" in spec.checkpoint.mismatches[0]
    assert any("disagree with the config" in note for note in spec.notes)


def test_not_a_safetensors_file_is_one_error(tmp_path):
    bad = tmp_path / "bad.safetensors"
    bad.write_bytes(struct.pack("<Q", 10) + b"not json!!")
    with pytest.raises(ConfigError, match="header is not JSON"):
        load_model(bad)
    huge = tmp_path / "huge.safetensors"
    huge.write_bytes(struct.pack("<Q", 2**60))
    with pytest.raises(ConfigError, match="not a safetensors file"):
        load_model(huge)
    index = tmp_path / "model.safetensors.index.json"
    index.write_text(json.dumps({"weight_map": {"x": "missing.safetensors"}}))
    with pytest.raises(ConfigError, match="missing"):
        load_model(index)
