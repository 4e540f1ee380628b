"""GGUF files written here with the gguf package's own writer → the same ModelSpec a config.json gives, with every
tensor's stored bytes.

Why the checks are sound: the expected parameter count is the sum of the tensor shapes this test writes, and the
expected bytes are those elements times the GGML block sizes written out below from llama.cpp's ggml-common.h
(block_q4_K: fp16 d + fp16 dmin + 12 bytes of 6-bit scales + 128 bytes of nibbles = 144 bytes per 256 weights;
block_q6_K: 128 + 64 + 16 scale bytes + fp16 d = 210 per 256; block_q8_0: fp16 d + 32 bytes = 34 per 32), not the
package's table that the reader uses. The full Llama-3.1-8B file is sparse: the writer writes the header and
tensor table, and the data region is a hole of the right length, so 4.9 GB of shapes cost a few kilobytes on disk.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys

import numpy as np
import pytest

gguf = pytest.importorskip("gguf")
from gguf import GGMLQuantizationType as Q  # noqa: E402

from inferledger.errors import ConfigError, UnsupportedModelType  # noqa: E402
from inferledger.ledger.model_ledger import model_ledger  # noqa: E402
from inferledger.model import load_model  # noqa: E402

BYTES_PER_BLOCK = {Q.Q4_K: (256, 144), Q.Q6_K: (256, 210), Q.Q8_0: (32, 34), Q.F32: (1, 4), Q.F16: (1, 2)}


def tensor_bytes(shape, qtype) -> int:
    block, size = BYTES_PER_BLOCK[qtype]
    return int(np.prod(shape)) // block * size


def write_gguf(path, arch: str, metadata: dict, tensors: list, sparse: bool = True) -> None:
    """tensors: (name, shape as PyTorch writes it, GGML type). sparse: no data, a hole of the data's length."""
    writer = gguf.GGUFWriter(str(path), arch)
    for key, value in metadata.items():
        if isinstance(value, str):
            writer.add_string(key, value)
        else:
            writer.add_uint32(key, value)
    data_bytes = 0
    for name, shape, qtype in tensors:
        nbytes = tensor_bytes(shape, qtype)
        writer.add_tensor_info(name, shape, np.dtype(np.float32), nbytes, raw_dtype=qtype)
        data_bytes += gguf.GGUFWriter.ggml_pad(nbytes, 32)
    writer.write_header_to_file()
    writer.write_kv_data_to_file()
    writer.write_ti_data_to_file()
    writer.close()
    os.truncate(path, gguf.GGUFWriter.ggml_pad(os.path.getsize(path), 32) + data_bytes)


def q4_k_m_uses_q6_k(layer: int, layers: int) -> bool:
    """llama.cpp's use_more_bits(): Q4_K_M keeps attn_v and ffn_down in Q6_K in the first and last eighth of the
    layers and every third layer between."""
    return layer < layers // 8 or layer >= 7 * layers // 8 or (layer - layers // 8) % 3 == 2


def llama_31_8b_q4_k_m() -> tuple[dict, list]:
    """Llama-3.1-8B's shapes (its config.json: hidden 4096, 32 layers, 32 heads, 8 KV heads, FFN 14336, vocab
    128256, untied head) laid out as llama.cpp's Q4_K_M."""
    layers, hidden, ffn, vocab, kv = 32, 4096, 14336, 128256, 1024
    tensors = [("token_embd.weight", (vocab, hidden), Q.Q4_K), ("output_norm.weight", (hidden,), Q.F32),
               ("output.weight", (vocab, hidden), Q.Q6_K)]
    for i in range(layers):
        more = Q.Q6_K if q4_k_m_uses_q6_k(i, layers) else Q.Q4_K
        tensors += [(f"blk.{i}.attn_norm.weight", (hidden,), Q.F32),
                    (f"blk.{i}.attn_q.weight", (hidden, hidden), Q.Q4_K),
                    (f"blk.{i}.attn_k.weight", (kv, hidden), Q.Q4_K),
                    (f"blk.{i}.attn_v.weight", (kv, hidden), more),
                    (f"blk.{i}.attn_output.weight", (hidden, hidden), Q.Q4_K),
                    (f"blk.{i}.ffn_norm.weight", (hidden,), Q.F32),
                    (f"blk.{i}.ffn_gate.weight", (ffn, hidden), Q.Q4_K),
                    (f"blk.{i}.ffn_up.weight", (ffn, hidden), Q.Q4_K),
                    (f"blk.{i}.ffn_down.weight", (hidden, ffn), more)]
    metadata = {"general.name": "Llama 3.1 8B", "general.file_type": 15,  # LlamaFileType.MOSTLY_Q4_K_M
                "llama.block_count": layers, "llama.embedding_length": hidden, "llama.feed_forward_length": ffn,
                "llama.attention.head_count": 32, "llama.attention.head_count_kv": 8,
                "llama.context_length": 131072}
    return metadata, tensors


@pytest.fixture(scope="module")
def llama_gguf(tmp_path_factory):
    path = tmp_path_factory.mktemp("gguf") / "Llama-3.1-8B-Q4_K_M.gguf"
    metadata, tensors = llama_31_8b_q4_k_m()
    write_gguf(path, "llama", metadata, tensors)
    return path, tensors


def test_llama_q4_k_m_parameters_and_bytes_are_the_files(llama_gguf):
    path, tensors = llama_gguf
    elements = sum(int(np.prod(shape)) for _, shape, _ in tensors)
    assert elements == 8_030_261_248  # Meta's published count for Llama-3.1-8B (model card: 8.03B)
    assert sum(q4_k_m_uses_q6_k(i, 32) for i in range(32)) == 16  # layers 0-3, 28-31 and 8 between
    # 65 F32 norms; embedding Q4_K and output Q6_K; per layer q, k, o, gate, up in Q4_K; attn_v and ffn_down in
    # Q6_K for 16 layers and Q4_K for the other 16.
    by_hand = (65 * 4096 * 4
               + 128256 * 4096 * (144 + 210) // 256
               + 32 * (2 * 4096 * 4096 + 1024 * 4096 + 2 * 14336 * 4096) * 144 // 256
               + 16 * (1024 * 4096 + 4096 * 14336) * (144 + 210) // 256)
    assert by_hand == 4_912_898_048
    assert sum(tensor_bytes(shape, qtype) for _, shape, qtype in tensors) == by_hand

    spec = load_model(path)
    ledger = model_ledger(spec)
    assert (spec.model_type, spec.num_layers, spec.vocab_size, spec.tied_embeddings) == ("llama", 32, 128256, False)
    assert ledger.params.total == elements
    assert ledger.precision == "Q4_K_M"
    assert ledger.weight_bytes_selected == pytest.approx(by_hand, rel=1e-12)
    assert spec.checkpoint.stored_bytes == by_hand and spec.checkpoint.elements == elements
    assert spec.checkpoint.unexpected == () and spec.checkpoint.mismatches == ()
    assert spec.checkpoint.header_bytes < 64_000  # the header and tensor table, not 4.9 GB of weights
    # The KV cache is the config's: 32 layers × 8 heads × 128 × (K + V) × 2 bytes = 131,072 per token.
    assert ledger.kv_bytes_per_token == 32 * 8 * 128 * 2 * 2


def test_request_and_fit_charge_the_files_bytes(llama_gguf):
    from inferledger.hardware import find_accelerator
    from inferledger.ledger.memory import memory_account
    from inferledger.ledger.request import request_account
    from inferledger.operators import Formats

    path, tensors = llama_gguf
    data_bytes = sum(tensor_bytes(shape, qtype) for _, shape, qtype in tensors)
    spec = load_model(path)
    account = request_account(spec, find_accelerator("h100-sxm"), isl=1024, osl=16)
    assert account.memory.weight_bytes == pytest.approx(data_bytes, rel=1e-12)
    memory = memory_account(spec, find_accelerator("rtx-4090"), Formats.resolve(spec))
    assert memory.weight_bytes == pytest.approx(data_bytes, rel=1e-12)
    # A format asked for by name replaces the file's: bf16 is 2 bytes for every one of the 8.03e9 weights.
    bf16 = memory_account(spec, find_accelerator("rtx-4090"), Formats.resolve(spec, "bf16"))
    assert bf16.weight_bytes == 2 * 8_030_261_248


def test_cli_model_json_on_a_gguf(llama_gguf):
    path, tensors = llama_gguf
    out = subprocess.run([sys.executable, "-m", "inferledger", "model", str(path), "--json"],
                         capture_output=True, text=True, check=True).stdout
    document = json.loads(out)
    assert document["params"]["total"] == sum(int(np.prod(shape)) for _, shape, _ in tensors)
    assert document["checkpoint"]["by_type"]["Q6_K"]["tensors"] == 1 + 2 * 16
    assert document["checkpoint"]["by_type"]["F32"]["elements"] == 65 * 4096


def test_tied_moe_with_real_data_reads_as_its_tensors(tmp_path):
    """A scaled-down Qwen3-MoE with real tensor data (written by the package, not sparse), its embedding tied:
    per layer q/k/v/o, q/k norms, router, 4 experts of gate/up/down, two norms; the head reads the embedding."""
    hidden, heads, kv_heads, head_dim, experts, inter, vocab, layers = 64, 4, 2, 16, 4, 32, 256, 2
    writer = gguf.GGUFWriter(str(tmp_path / "moe.gguf"), "qwen3moe")
    for key, value in {"block_count": layers, "embedding_length": hidden, "feed_forward_length": 128,
                       "attention.head_count": heads, "attention.head_count_kv": kv_heads,
                       "attention.key_length": head_dim, "expert_count": experts, "expert_used_count": 2,
                       "expert_feed_forward_length": inter, "context_length": 4096}.items():
        writer.add_uint32(f"qwen3moe.{key}", value)
    writer.add_file_type(1)  # MOSTLY_F16

    def add(name, shape, dtype=np.float16):
        writer.add_tensor(name, np.zeros(shape, dtype=dtype))

    add("token_embd.weight", (vocab, hidden))
    add("output_norm.weight", (hidden,), np.float32)
    for i in range(layers):
        add(f"blk.{i}.attn_norm.weight", (hidden,), np.float32)
        add(f"blk.{i}.attn_q.weight", (heads * head_dim, hidden))
        add(f"blk.{i}.attn_k.weight", (kv_heads * head_dim, hidden))
        add(f"blk.{i}.attn_v.weight", (kv_heads * head_dim, hidden))
        add(f"blk.{i}.attn_output.weight", (hidden, heads * head_dim))
        add(f"blk.{i}.attn_q_norm.weight", (head_dim,), np.float32)
        add(f"blk.{i}.attn_k_norm.weight", (head_dim,), np.float32)
        add(f"blk.{i}.ffn_norm.weight", (hidden,), np.float32)
        add(f"blk.{i}.ffn_gate_inp.weight", (experts, hidden), np.float32)
        add(f"blk.{i}.ffn_gate_exps.weight", (experts, inter, hidden))
        add(f"blk.{i}.ffn_up_exps.weight", (experts, inter, hidden))
        add(f"blk.{i}.ffn_down_exps.weight", (experts, hidden, inter))
    writer.write_header_to_file()
    writer.write_kv_data_to_file()
    writer.write_tensors_to_file()
    writer.close()

    spec = load_model(tmp_path / "moe.gguf")
    ledger = model_ledger(spec)
    per_layer_f16 = 2 * hidden * heads * head_dim + 2 * hidden * kv_heads * head_dim + 3 * experts * hidden * inter
    per_layer_f32 = 2 * hidden + 2 * head_dim + experts * hidden
    elements = vocab * hidden + hidden + layers * (per_layer_f16 + per_layer_f32)
    assert spec.tied_embeddings and spec.model_type == "qwen3_moe"
    assert ledger.params.total == elements == 16_384 + 64 + 2 * (36_864 + 416)
    assert ledger.params.active == elements - layers * 2 * 3 * hidden * inter  # 2 of 4 experts per token
    assert ledger.weight_bytes_selected == pytest.approx(
        2 * (vocab * hidden + layers * per_layer_f16) + 4 * (hidden + layers * per_layer_f32), rel=1e-12)
    assert spec.checkpoint.mismatches == ()


def test_errors_are_one_line(tmp_path):
    bad = tmp_path / "bad.gguf"
    bad.write_bytes(b"GGUF" + b"\xff" * 20)
    with pytest.raises(ConfigError, match="not a readable GGUF file"):
        load_model(bad)
    other = tmp_path / "rwkv.gguf"
    write_gguf(other, "rwkv6", {"rwkv6.block_count": 1}, [("token_embd.weight", (16, 8), Q.F32)])
    with pytest.raises(UnsupportedModelType, match="GGUF architecture 'rwkv6'"):
        load_model(other)
