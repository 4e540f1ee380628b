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


def write_gguf(path, arch: str, metadata: dict, tensors: list, data_region: bool = True) -> None:
    """tensors: (name, shape as PyTorch writes it, GGML type). The data region is a hole of the data's length
    (a sparse file), or with data_region=False absent: the header alone."""
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
    if data_region:
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


def test_deepseek_mla_moe_with_split_kv_b_and_an_mtp_layer(tmp_path):
    """A scaled-down DeepSeek-V3 as llama.cpp writes it since 2025: MLA with q_lora, kv_b split into k_b and v_b,
    one dense layer then MoE layers with a shared expert and the routing bias, and one MTP block (block_count 4 =
    3 layers + 1 nextn) that is reported, not counted."""
    hidden, heads, q_lora, kv_lora, nope, rope, v_dim = 64, 4, 32, 16, 8, 4, 8
    experts, moe_inter, inter, vocab = 4, 16, 96, 128

    def layer(i: int) -> list:
        b = f"blk.{i}."
        tensors = [(b + "attn_norm.weight", (hidden,), Q.F32), (b + "attn_q_a.weight", (q_lora, hidden), Q.F16),
                   (b + "attn_q_a_norm.weight", (q_lora,), Q.F32),
                   (b + "attn_q_b.weight", (heads * (nope + rope), q_lora), Q.F16),
                   (b + "attn_kv_a_mqa.weight", (kv_lora + rope, hidden), Q.Q8_0),
                   (b + "attn_kv_a_norm.weight", (kv_lora,), Q.F32),
                   (b + "attn_k_b.weight", (heads, kv_lora, nope), Q.F16),
                   (b + "attn_v_b.weight", (heads, v_dim, kv_lora), Q.F16),
                   (b + "attn_output.weight", (hidden, heads * v_dim), Q.Q8_0),
                   (b + "ffn_norm.weight", (hidden,), Q.F32)]
        if i == 0:
            return tensors + [(b + "ffn_gate.weight", (inter, hidden), Q.Q8_0),
                              (b + "ffn_up.weight", (inter, hidden), Q.Q8_0),
                              (b + "ffn_down.weight", (hidden, inter), Q.F16)]
        return tensors + [(b + "ffn_gate_inp.weight", (experts, hidden), Q.F32),
                          (b + "exp_probs_b.bias", (experts,), Q.F32),
                          (b + "ffn_gate_exps.weight", (experts, moe_inter, hidden), Q.Q8_0),
                          (b + "ffn_up_exps.weight", (experts, moe_inter, hidden), Q.Q8_0),
                          (b + "ffn_down_exps.weight", (experts, hidden, moe_inter), Q.F16),
                          (b + "ffn_gate_shexp.weight", (moe_inter, hidden), Q.Q8_0),
                          (b + "ffn_up_shexp.weight", (moe_inter, hidden), Q.Q8_0),
                          (b + "ffn_down_shexp.weight", (hidden, moe_inter), Q.F16)]

    tensors = [("token_embd.weight", (vocab, hidden), Q.Q8_0), ("output_norm.weight", (hidden,), Q.F32),
               ("output.weight", (vocab, hidden), Q.Q8_0)]
    for i in range(4):
        tensors += layer(i)
    metadata = {"general.file_type": 7, "deepseek2.block_count": 4, "deepseek2.nextn_predict_layers": 1,
                "deepseek2.embedding_length": hidden, "deepseek2.feed_forward_length": inter,
                "deepseek2.attention.head_count": heads, "deepseek2.attention.head_count_kv": 1,
                "deepseek2.attention.q_lora_rank": q_lora, "deepseek2.attention.kv_lora_rank": kv_lora,
                "deepseek2.attention.key_length": kv_lora + rope, "deepseek2.attention.value_length": kv_lora,
                "deepseek2.attention.key_length_mla": nope + rope, "deepseek2.attention.value_length_mla": v_dim,
                "deepseek2.rope.dimension_count": rope, "deepseek2.expert_count": experts,
                "deepseek2.expert_used_count": 2, "deepseek2.expert_shared_count": 1,
                "deepseek2.expert_feed_forward_length": moe_inter, "deepseek2.leading_dense_block_count": 1,
                "deepseek2.context_length": 4096}
    write_gguf(tmp_path / "ds.gguf", "deepseek2", metadata, tensors)

    spec = load_model(tmp_path / "ds.gguf")
    ledger = model_ledger(spec)
    in_layers = [t for t in tensors if not t[0].startswith("blk.3.")]
    assert spec.model_type == "deepseek_v3" and spec.num_layers == 3
    assert ledger.params.total == sum(int(np.prod(shape)) for _, shape, _ in in_layers)
    assert ledger.weight_bytes_selected == pytest.approx(sum(tensor_bytes(s, q) for _, s, q in in_layers), rel=1e-12)
    assert spec.checkpoint.mismatches == ()
    (mtp,) = spec.checkpoint.unexpected
    assert mtp["tensors"] == len(layer(3)) and mtp["what"].startswith("layers past")
    # MLA caches the latent and the rope key: 3 layers × (16 + 4) × 2 bytes per token.
    assert ledger.kv_bytes_per_token == 3 * (kv_lora + rope) * 2


def test_a_folder_holding_one_gguf_reads_it(llama_gguf, tmp_path):
    path, tensors = llama_gguf
    assert model_ledger(load_model(path.parent)).params.total == 8_030_261_248
    for name in ("a.gguf", "b.gguf"):
        write_gguf(tmp_path / name, "llama", *llama_31_8b_q4_k_m())
    with pytest.raises(ConfigError, match="2 .gguf files; pass one of them: a.gguf, b.gguf"):
        load_model(tmp_path)


def test_tokenizer_arrays_in_the_metadata_are_stepped_over(tmp_path):
    """Real files carry the vocabulary, merges, scores and token types as metadata arrays; the reader steps over
    them (strings by their lengths, numbers by their width) and lands exactly on the tensor table."""
    writer = gguf.GGUFWriter(str(tmp_path / "tok.gguf"), "llama")
    for key, value in {"block_count": 1, "embedding_length": 32, "feed_forward_length": 64,
                       "attention.head_count": 2, "attention.head_count_kv": 2}.items():
        writer.add_uint32(f"llama.{key}", value)
    writer.add_tokenizer_model("gpt2")
    writer.add_token_list([f"token-{i}" * (i % 5 + 1) for i in range(3000)])
    writer.add_token_merges([f"a{i} b{i}" for i in range(2000)])
    writer.add_token_scores([float(i) for i in range(3000)])
    writer.add_token_types([1] * 3000)
    shapes = {"token_embd.weight": (3000, 32), "output_norm.weight": (32,), "blk.0.attn_norm.weight": (32,),
              "blk.0.attn_q.weight": (32, 32), "blk.0.attn_k.weight": (32, 32), "blk.0.attn_v.weight": (32, 32),
              "blk.0.attn_output.weight": (32, 32), "blk.0.ffn_norm.weight": (32,),
              "blk.0.ffn_gate.weight": (64, 32), "blk.0.ffn_up.weight": (64, 32), "blk.0.ffn_down.weight": (32, 64)}
    for name, shape in shapes.items():
        writer.add_tensor(name, np.zeros(shape, dtype=np.float32))
    writer.write_header_to_file()
    writer.write_kv_data_to_file()
    writer.write_tensors_to_file()
    writer.close()
    spec = load_model(tmp_path / "tok.gguf")
    elements = sum(int(np.prod(shape)) for shape in shapes.values())
    assert model_ledger(spec).params.total == elements == 96_000 + 32 * 3 + 4 * 1024 + 3 * 2048
    assert spec.checkpoint.stored_bytes == 4 * elements
    # The data region starts where the header ends: what was read is the file less its tensor data.
    assert spec.checkpoint.header_bytes + 4 * elements <= (tmp_path / "tok.gguf").stat().st_size
    assert spec.vocab_size == 3000 and spec.tied_embeddings


def test_damaged_weight_files_are_one_error_never_a_traceback(tmp_path):
    """Random damage to a real GGUF header and random safetensors headers: either a spec or a ConfigError."""
    import random

    metadata, tensors = llama_31_8b_q4_k_m()
    write_gguf(tmp_path / "good.gguf", "llama", metadata, tensors[:12])
    header = (tmp_path / "good.gguf").read_bytes()[:4096]
    generator = random.Random(13)
    for _ in range(60):
        damaged = bytearray(header[:generator.randint(4, len(header))])
        for _ in range(generator.randint(1, 4)):
            damaged[generator.randrange(4, len(damaged))] = generator.randrange(256)
        (tmp_path / "d.gguf").write_bytes(bytes(damaged))
        length = generator.randint(0, 64)
        (tmp_path / "d.safetensors").write_bytes(length.to_bytes(8, "little") + generator.randbytes(length))
        for name in ("d.gguf", "d.safetensors"):
            try:
                load_model(tmp_path / name)
            except ConfigError:
                pass
    (tmp_path / "json.gguf").write_text("{}")
    with pytest.raises(ConfigError, match="not a GGUF file"):
        load_model(tmp_path / "json.gguf")


def test_the_header_alone_reads_like_the_file(llama_gguf, tmp_path):
    """No tensor data is mapped: the header cut from a file (or the first megabytes of a download) gives the same
    account. examples/Llama-3.1-8B-Q4_K_M.header.gguf, which the README runs, is this header."""
    from pathlib import Path

    path, _ = llama_gguf
    write_gguf(tmp_path / "header.gguf", "llama", *llama_31_8b_q4_k_m(), data_region=False)
    example = Path(__file__).resolve().parents[2] / "examples" / "Llama-3.1-8B-Q4_K_M.header.gguf"
    assert example.read_bytes() == (tmp_path / "header.gguf").read_bytes()
    whole, header = model_ledger(load_model(path)), model_ledger(load_model(example))
    assert header.params.total == whole.params.total == 8_030_261_248
    assert header.weight_bytes_selected == whole.weight_bytes_selected
    assert example.stat().st_size < 20_000
