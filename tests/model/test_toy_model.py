"""A two-layer toy Llama small enough to count by hand: parameters, per-component split, operator FLOPs and
KV bytes. Every expected number is the arithmetic in this file, from the config below, not the tool's output.

Toy: hidden 8, 2 layers, 4 query heads of dim 2, 2 KV heads, intermediate 16, vocab 10, untied head.
"""

from inferledger.ledger.params import count_parameters
from inferledger.model import spec_from_config
from inferledger.operators import Formats, Step, kv_bytes_per_sequence, kv_bytes_per_token, rows, total
from inferledger.precision import get_precision

TOY = {
    "model_type": "llama", "hidden_size": 8, "num_hidden_layers": 2, "num_attention_heads": 4,
    "num_key_value_heads": 2, "intermediate_size": 16, "vocab_size": 10, "max_position_embeddings": 64,
    "tie_word_embeddings": False,
}

# q: 8x8, k: 8x4, v: 8x4, o: 8x8  -> 64 + 32 + 32 + 64 = 192 per layer
ATTENTION_PER_LAYER = 8 * 8 + 8 * 4 + 8 * 4 + 8 * 8
# gate, up: 8x16, down: 16x8 -> 3 * 128 = 384 per layer
FFN_PER_LAYER = 3 * 8 * 16
NORMS_PER_LAYER = 2 * 8
EMBEDDING = 10 * 8
HEAD = 10 * 8
FINAL_NORM = 8
TOTAL = EMBEDDING + 2 * (ATTENTION_PER_LAYER + FFN_PER_LAYER + NORMS_PER_LAYER) + FINAL_NORM + HEAD  # 1352


def toy():
    return spec_from_config(dict(TOY), name="toy")


def test_parameters_by_component_sum_to_the_hand_count():
    p = count_parameters(toy())
    assert TOTAL == 1352
    assert p.total == TOTAL
    assert p.active == TOTAL  # dense: every parameter is used by every token
    assert p.by_component == {
        "embedding": EMBEDDING, "attention.full": 2 * ATTENTION_PER_LAYER, "ffn.dense": 2 * FFN_PER_LAYER,
        "norm": 2 * NORMS_PER_LAYER + FINAL_NORM, "lm_head": HEAD,
    }


def test_tied_head_is_counted_once():
    p = count_parameters(spec_from_config({**TOY, "tie_word_embeddings": True}))
    assert p.total == TOTAL - HEAD
    assert "lm_head" not in p.by_component


def test_kv_bytes_per_token_and_request():
    # 2 (K and V) x 2 layers x 2 KV heads x head_dim 2 x 2 bytes (bf16) = 32 bytes per token
    spec = toy()
    assert kv_bytes_per_token(spec, get_precision("bf16")) == 2 * 2 * 2 * 2 * 2 == 32
    assert kv_bytes_per_sequence(spec, get_precision("fp8"), 40) == 40 * 2 * 2 * 2 * 2 * 1


def test_prefill_flops_are_linear_rows_plus_causal_attention():
    """Prefill of n=6 tokens, batch 1.
    Linear rows: 2 FLOP per weight per token, except lm_head on the last position only.
    Attention: query i (1-based) sees i keys: 6*7/2 = 21 (query, key) pairs per head;
    each pair costs 2*head_dim for the score and 2*head_dim for the value: 4 heads x 21 x (4 + 4) FLOP."""
    n = 6
    linear_per_token = 2 * (ATTENTION_PER_LAYER + FFN_PER_LAYER)
    linear = 2 * n * linear_per_token  # two layers
    head = 2 * 1 * HEAD
    attention = 2 * (4 * 21 * (2 * 2 + 2 * 2))
    norms = 4 * n * 8 * (2 * 2 + 1)  # RMSNorm: 4 FLOP per element, 2 per layer + final
    r = rows(toy(), Step.prefill(n), Formats.of(get_precision("bf16")))
    assert total(r, "flops") == linear + head + attention + norms


def test_decode_reads_weights_once_and_the_whole_cache():
    """One decode step at context 30, batch 1, bf16: weights read = every weight except the embedding table
    (one row of 8 is read instead); KV read = 31 cached tokens (30 + the new one) x 32 bytes."""
    r = rows(toy(), Step.decode(30), Formats.of(get_precision("bf16")))
    weights_read = (TOTAL - EMBEDDING + 8) * 2
    assert total(r, "weight_bytes") == weights_read
    assert total(r, "kv_read_bytes") == 31 * 32
    assert total(r, "kv_write_bytes") == 1 * 32


def test_sliding_window_caps_the_cache():
    # Every layer slides with a window of 4: a 40-token request keeps only 4 tokens per layer.
    spec = spec_from_config({**TOY, "model_type": "mistral", "sliding_window": 4})
    assert kv_bytes_per_sequence(spec, get_precision("bf16"), 40) == 4 * 32
    assert kv_bytes_per_token(spec, get_precision("bf16")) == 32
