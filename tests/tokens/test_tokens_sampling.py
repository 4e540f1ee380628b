"""Softmax, temperature, top-k, top-p and the output-length cost of the two gates (max_tokens, timeout).

Why sound: logits are chosen as logarithms (ln 1, ln 2, ln 3, …) so the softmax is the plain ratio i / Σ i, and
every filtered distribution is written out as fractions by hand. The output-length figures use the geometric
law with q = 1/2, whose sums (1 + 1/2 + 1/4 + …) are done in the comments.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

from inferledger.cli._output import _clean
from inferledger.errors import BadWorkload
from inferledger.sampling import (
    output_length_cost,
    sample,
    sampling_distribution,
    softmax,
    top_k_filter,
    top_p_filter,
)

LOG_1234 = np.log([1.0, 2.0, 3.0, 4.0])  # softmax → [1, 2, 3, 4] / 10


def test_softmax_of_logarithms_is_the_ratio():
    np.testing.assert_allclose(softmax(np.log([1.0, 2.0, 3.0])), [1 / 6, 2 / 6, 3 / 6])


def test_temperature_two_takes_square_roots():
    # exp(ln(i) / 2) = √i, so T = 2 gives [1, √2, √3] / (1 + √2 + √3).
    roots = np.sqrt([1.0, 2.0, 3.0])
    np.testing.assert_allclose(softmax(np.log([1.0, 2.0, 3.0]), temperature=2), roots / roots.sum())


def test_temperature_zero_is_greedy_and_large_logits_do_not_overflow():
    np.testing.assert_array_equal(softmax([1.0, 5.0, 5.0, 2.0], temperature=0), [0, 1, 0, 0])
    np.testing.assert_allclose(softmax([1000.0, 1000.0]), [0.5, 0.5])
    np.testing.assert_allclose(softmax([0.0, -np.inf]), [1.0, 0.0])


def test_top_k():
    # k = 2 keeps 3/10 and 4/10 → [0, 0, 3/7, 4/7]
    np.testing.assert_allclose(top_k_filter(softmax(LOG_1234), 2), [0, 0, 3 / 7, 4 / 7])
    # ties keep vocabulary order
    np.testing.assert_allclose(top_k_filter([0.25] * 4, 2), [0.5, 0.5, 0, 0])
    np.testing.assert_allclose(top_k_filter(softmax(LOG_1234), 10), [0.1, 0.2, 0.3, 0.4])


@pytest.mark.parametrize("top_p, expected", [
    (0.7, [0, 0, 3 / 7, 4 / 7]),          # 0.4 + 0.3 = 0.7 reaches p exactly: two tokens
    (0.71, [0, 2 / 9, 3 / 9, 4 / 9]),     # needs 0.4 + 0.3 + 0.2 = 0.9
    (0.3, [0, 0, 0, 1]),                  # the most likely token alone already passes
    (1.0, [0.1, 0.2, 0.3, 0.4]),
])
def test_top_p(top_p, expected):
    np.testing.assert_allclose(top_p_filter(softmax(LOG_1234), top_p), expected)


def test_warpers_in_order_temperature_top_k_top_p():
    # top-k 3 → [0, 2, 3, 4] / 9; top-p 0.5 keeps 4/9 then 3/9 (7/9 ≥ 0.5) → [0, 0, 3/7, 4/7].
    np.testing.assert_allclose(sampling_distribution(LOG_1234, 1.0, top_k=3, top_p=0.5), [0, 0, 3 / 7, 4 / 7])


def test_sample_stays_in_the_kept_set():
    rng = np.random.default_rng(0)
    draws = {sample(LOG_1234, top_k=2, rng=rng) for _ in range(200)}
    assert draws == {2, 3}
    assert sample(LOG_1234, temperature=0) == 3


@pytest.mark.parametrize("call", [
    lambda: softmax([]), lambda: softmax([1.0, np.nan]), lambda: softmax([1.0], temperature=-1),
    lambda: top_k_filter([1.0], 0), lambda: top_p_filter([1.0], 0), lambda: top_p_filter([1.0], 1.5),
])
def test_bad_sampling_parameters(call):
    with pytest.raises(BadWorkload):
        call()


def test_geometric_output_length_with_and_without_cap():
    # q = 1/2: E[L] = 1/q = 2; p99 = ⌈ln 0.01 / ln 0.5⌉ = ⌈6.64⌉ = 7 (P(L > 6) = 1/64 > 1 %, P(L > 7) = 1/128 < 1 %).
    # cap 4: E[min(L, 4)] = 1 + 1/2 + 1/4 + 1/8 = 1.875; truncated share P(L > 4) = 1/16.
    cost = output_length_cost(0.01, eos_probability=0.5, max_tokens=4, kv_bytes_per_token=1000)
    assert (cost.uncapped.expected_tokens, cost.uncapped.p99_tokens) == (pytest.approx(2.0), 7)
    assert cost.uncapped.truncated_fraction == 0
    assert cost.capped.expected_tokens == pytest.approx(1.875)
    assert cost.capped.p99_tokens == 4
    assert cost.capped.truncated_fraction == pytest.approx(1 / 16)
    assert cost.capped.expected_decode_seconds == pytest.approx(0.01875)
    assert cost.capped.p99_kv_bytes == pytest.approx(4000)
    assert (cost.cap_tokens, cost.cap_from) == (4, "max_tokens")


def test_timeout_binds_before_max_tokens():
    # timeout 0.33 s − prefill 0.30 s leaves 0.03 s = 3 steps of 10 ms: tighter than max_tokens 4.
    # E[min(L, 3)] = 1 + 1/2 + 1/4 = 1.75.
    cost = output_length_cost(0.01, eos_probability=0.5, max_tokens=4, timeout_seconds=0.33, prefill_seconds=0.3)
    assert (cost.cap_tokens, cost.cap_from) == (3, "timeout")
    assert cost.capped.expected_tokens == pytest.approx(1.75)


def test_length_distribution_given_directly():
    # P(L = 1, 2, 3) = 0.5, 0.3, 0.2: E = 0.5 + 0.6 + 0.6 = 1.7, p99 = 3.
    # cap 2: E = 0.5 · 1 + 0.5 · 2 = 1.5, truncated 0.2, p99 2.
    cost = output_length_cost(0.02, length_pmf=[0, 0.5, 0.3, 0.2], max_tokens=2)
    assert cost.uncapped.expected_tokens == pytest.approx(1.7)
    assert cost.uncapped.p99_tokens == 3
    assert cost.capped.expected_tokens == pytest.approx(1.5)
    assert cost.capped.truncated_fraction == pytest.approx(0.2)
    assert cost.capped.p99_decode_seconds == pytest.approx(0.04)


def test_no_eos_without_a_gate_is_unbounded():
    cost = output_length_cost(0.01, eos_probability=0.0, max_tokens=100)
    assert math.isinf(cost.uncapped.expected_tokens)
    assert _clean(cost.to_dict())["uncapped"]["expected_tokens"] is None  # valid JSON: null, not Infinity
    assert cost.capped.expected_tokens == 100 and cost.capped.truncated_fraction == 1.0


@pytest.mark.parametrize("kwargs", [
    {}, {"eos_probability": 0.1, "length_pmf": [1.0]}, {"eos_probability": 1.5},
    {"length_pmf": [0.5, 0.2]}, {"eos_probability": 0.1, "max_tokens": 0},
    {"eos_probability": 0.1, "timeout_seconds": -1},
])
def test_bad_length_inputs(kwargs):
    with pytest.raises(BadWorkload):
        output_length_cost(0.01, **kwargs)
