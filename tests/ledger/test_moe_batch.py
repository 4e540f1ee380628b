"""Why MoE is cheap per request and dear in a batch (the seed's next-chapter question).

With b tokens each routed to k of E experts uniformly, the expected number of distinct experts touched is
E·(1 − (1 − k/E)^b): one token reads k experts; a large batch reads nearly all of them, so decode bytes per step
approach the whole model while a dense model's stay flat.
"""

import pytest

from inferledger.hardware import find_accelerator
from inferledger.ledger.request import request_account
from inferledger.model import load_model
from inferledger.operators import expected_distinct_experts


def test_expected_distinct_experts_by_hand():
    assert expected_distinct_experts(8, 2, 1) == pytest.approx(2.0)  # 8 x (1 - 6/8)
    assert expected_distinct_experts(8, 2, 2) == pytest.approx(8 * (1 - 0.75**2))  # 3.5
    assert expected_distinct_experts(256, 8, 256) == pytest.approx(256 * (1 - (248 / 256) ** 256))  # ~255.9
    assert expected_distinct_experts(4, 4, 1) == 4  # top_k = E: all of them


def test_mixtral_decode_expert_bytes_grow_with_batch():
    """Mixtral-8x7B, bf16: one expert is 3 x 4096 x 14336 weights = 352,321,536 x 2 bytes; 32 layers.
    batch 1 reads 2 experts per layer; batch 64 reads 8 x (1 - 0.75^64) ≈ 8."""
    spec, card = load_model("mistralai/Mixtral-8x7B-v0.1"), find_accelerator("h100-sxm")
    expert_bytes = 3 * 4096 * 14336 * 2

    def experts_read(batch):
        account = request_account(spec, card, isl=1024, osl=1, batch=batch)
        return sum(r["weight_bytes"] * r["count"] for r in account.operators["decode"] if r["operator"] == "experts")

    assert experts_read(1) == pytest.approx(32 * 2 * expert_bytes)
    assert experts_read(64) == pytest.approx(32 * 8 * (1 - 0.75**64) * expert_bytes)


def test_cheap_per_request_dear_in_a_batch():
    """Bytes read per generated token: the MoE's advantage over a dense model of similar total size shrinks
    as the batch touches more experts (Mixtral 46.7B total vs Llama-3.1-70B dense)."""
    card = find_accelerator("h100-sxm")
    moe, dense = load_model("mistralai/Mixtral-8x7B-v0.1"), load_model("meta-llama/Llama-3.1-70B")

    def bytes_per_token(spec, batch):
        return request_account(spec, card, isl=512, osl=1, batch=batch).decode.weight_bytes_per_step / batch

    advantage_1 = bytes_per_token(dense, 1) / bytes_per_token(moe, 1)
    advantage_64 = bytes_per_token(dense, 64) / bytes_per_token(moe, 64)
    assert advantage_1 > 5  # ~141 GB vs ~26 GB read for one token
    assert advantage_64 < 1.7  # at batch 64 the MoE reads all its 93 GB of weights
