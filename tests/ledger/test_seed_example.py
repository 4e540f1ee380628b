"""The seed chapter's worked example, its errata corrected (DESIGN.md): 7B parameters, FP16, ISL 8192, OSL 512,
A100 (312 TFLOP/s dense fp16, 2039 GB/s).

  prefill = 2 x 7e9 x 8192 = 114.688 TFLOP; / 312e12 = 0.3676 s
  decode  = 7e9 x 2 bytes = 14 GB per token; / 2039e9 = 6.866 ms; x 512 = 3.515 s
  total   = 3.883 s
  one decode token / one prefill token = (14e9 / 2039e9) / (2 x 7e9 / 312e12) = 312e12 / 2039e9 = 153
  (the seed says "forty-some times": erratum 2).
"""

import pytest

from inferledger.hardware import find_accelerator
from inferledger.ledger.request import request_account

PEAK = 312e12
BANDWIDTH = 2039e9


@pytest.fixture(scope="module")
def account():
    return request_account(None, find_accelerator("a100-sxm-80gb"), isl=8192, osl=512, precision="fp16",
                           parameters=7e9)


def test_the_card_is_the_books_a100(account):
    a100 = find_accelerator("a100-sxm-80gb")
    assert a100.peak_flops_per_second("fp16") == PEAK
    assert a100.memory_bandwidth_bytes_per_second == BANDWIDTH


def test_prefill(account):
    assert account.simplified.prefill_flops == 2 * 7e9 * 8192 == pytest.approx(114.688e12)
    assert account.simplified.prefill_seconds == pytest.approx(2 * 7e9 * 8192 / PEAK)
    assert account.simplified.prefill_seconds == pytest.approx(0.37, abs=0.005)
    assert account.prefill.bound == "compute"  # intensity 8192 FLOP/byte > 153: compute bound (erratum 1)
    assert account.prefill.intensity == pytest.approx(2 * 7e9 * 8192 / (7e9 * 2))


def test_decode(account):
    per_token = 7e9 * 2 / BANDWIDTH
    assert account.simplified.decode_seconds_per_token == pytest.approx(per_token)
    assert per_token == pytest.approx(6.9e-3, abs=0.05e-3)
    assert account.simplified.decode_seconds == pytest.approx(512 * per_token)
    assert account.decode.bound == "memory"  # intensity 1 FLOP/byte < 153
    assert account.decode.intensity == pytest.approx(1.0)


def test_total_and_the_153_ratio(account):
    total = 2 * 7e9 * 8192 / PEAK + 512 * 7e9 * 2 / BANDWIDTH
    assert account.simplified.total_seconds == pytest.approx(total)
    assert total == pytest.approx(3.9, abs=0.05)
    assert account.simplified.decode_token_over_prefill_token == pytest.approx(PEAK / BANDWIDTH)
    assert round(PEAK / BANDWIDTH) == 153


def test_bare_count_full_account_equals_simplified(account):
    # With no architecture there is no attention and no cache to add: both accounts agree, and the tool says why.
    assert account.total_seconds == pytest.approx(account.simplified.total_seconds)
    assert "bare parameter count" in account.differences[0]
