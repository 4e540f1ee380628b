"""Weight bytes of quantized checkpoints against a measurement: the byte size of the real safetensors tensors.

gpt-oss ships its expert matrices in MXFP4 (4-bit e2m1 values + one e8m0 scale byte per 32 = 0.53125 bytes per
weight) and everything else — attention, router, embedding, head, norms, sinks, expert biases — in bf16
(quantization_config.modules_to_not_convert). Measured tensor bytes (safetensors index metadata.total_size):
  openai/gpt-oss-20b   13,761,264,768  (model.safetensors.index.json of the hub repo)
  openai/gpt-oss-120b  65,248,815,744  (tensor bytes of the 15 shards of the hub repo)
"""

import pytest

from inferledger.ledger.model_ledger import model_ledger
from inferledger.model import load_model


def gpt_oss_bytes(layers, experts, hidden=2880, inter=2880, heads=64, kv_heads=8, head_dim=64, vocab=201088):
    matrices = experts * 3 * hidden * inter  # gate_up (2 x inter) and down, per layer
    expert_biases = experts * (2 * inter + hidden)
    attention = (hidden * heads * head_dim + heads * head_dim  # q + bias
                 + 2 * (hidden * kv_heads * head_dim + kv_heads * head_dim)  # k, v + biases
                 + heads * head_dim * hidden + hidden  # o + bias
                 + heads)  # sinks
    router = hidden * experts + experts
    norms = 2 * hidden
    bf16_per_layer = attention + router + norms + expert_biases
    bf16 = layers * bf16_per_layer + 2 * vocab * hidden + hidden  # embedding, untied head, final norm
    return layers * matrices * (0.5 + 1 / 32) + bf16 * 2


@pytest.mark.parametrize("name, layers, experts, measured", [
    ("openai/gpt-oss-20b", 24, 32, 13_761_264_768),
    ("openai/gpt-oss-120b", 36, 128, 65_248_815_744),
])
def test_mxfp4_checkpoint_bytes(name, layers, experts, measured):
    derived = gpt_oss_bytes(layers, experts)
    assert derived == measured  # the derivation agrees with the real files to the byte
    ledger = model_ledger(load_model(name))
    assert ledger.precision == "mxfp4"  # read from quantization_config
    assert ledger.weight_bytes_selected == measured


def test_fp8_block_scales_are_bytes_not_parameters():
    """Qwen3-32B-FP8: linear weights in fp8 with one fp32 scale per 128x128 block (4 / 16384 bytes per weight);
    embedding, head and norms bf16. The parameter count is the same as the bf16 model's."""
    fp8, bf16 = load_model("Qwen/Qwen3-32B-FP8"), load_model("Qwen/Qwen3-32B")
    ledger = model_ledger(fp8)
    assert ledger.params.total == model_ledger(bf16).params.total
    hidden, vocab, layers = 5120, 151936, 64
    linear_per_layer = hidden * 64 * 128 * 2 + 2 * hidden * 8 * 128 + 3 * hidden * 25600
    norms = layers * (2 * hidden + 2 * 128) + hidden
    expected = layers * linear_per_layer * (1 + 4 / (128 * 128)) + (2 * vocab * hidden + norms) * 2
    assert ledger.weight_bytes_selected == pytest.approx(expected)
