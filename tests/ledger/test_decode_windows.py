"""Decode across a sliding-window or attention-chunk boundary. A step's cost is linear in context only between
the contexts where a window fills or a chunk restarts; the request ledger sums the steps piece by piece, which
must equal adding up every step one by one (brute force, below), and the cache a step reads must follow the
window by hand: a sliding layer reads min(context + 1, window) tokens, a full layer context + 1."""

from pathlib import Path

import pytest

from inferledger.hardware import find_accelerator
from inferledger.ledger.request import decode_pieces, request_account
from inferledger.ledger.roofline import time_step
from inferledger.model import load_model
from inferledger.operators import Formats, Step, rows, total

GEMMA2 = Path(__file__).parent.parent / "fixtures" / "configs" / "google--gemma-2-9b-it.json"
H100 = find_accelerator("h100-sxm")


def brute_force_decode_seconds(spec, isl, osl):
    formats = Formats.resolve(spec)
    return sum(time_step(rows(spec, Step.decode(c), formats), H100).seconds for c in range(isl, isl + osl))


def test_gemma2_kv_reads_follow_the_window():
    """Gemma-2-9B: 42 layers alternating sliding (window 4096) and full; 8 KV heads x 256 x (K, V) x 2 bytes =
    8,192 bytes per token per layer."""
    spec = load_model(GEMMA2)
    per_layer_token = 8 * 256 * 2 * 2
    for context in (4000, 4095, 4096, 4200):
        read = total(rows(spec, Step.decode(context), Formats.resolve(spec)), "kv_read_bytes")
        assert read == 21 * per_layer_token * (min(context + 1, 4096) + (context + 1))


@pytest.mark.parametrize("isl, osl", [(4000, 200), (4095, 3), (100, 50), (4096, 64)])
def test_gemma2_decode_sum_across_the_window(isl, osl):
    spec = load_model(GEMMA2)
    account = request_account(spec, H100, isl=isl, osl=osl)
    assert account.decode.seconds == pytest.approx(brute_force_decode_seconds(spec, isl, osl), rel=1e-12)


def test_the_pieces_cut_where_the_window_fills():
    spec = load_model(GEMMA2)
    assert decode_pieces(spec, 4000, 200) == [(4000, 4095), (4096, 4199)]
    assert decode_pieces(spec, 100, 50) == [(100, 149)]


def test_llama4_chunked_attention_restarts_at_each_chunk():
    """Llama-4-Scout: 3 of 4 layers attend within 8,192-token chunks, so the key count drops to 1 at 8192, 16384."""
    spec = load_model("meta-llama/Llama-4-Scout-17B-16E-Instruct")
    assert decode_pieces(spec, 8000, 9000) == [(8000, 8191), (8192, 16383), (16384, 16999)]
    account = request_account(spec, H100, isl=8000, osl=400)
    assert account.decode.seconds == pytest.approx(brute_force_decode_seconds(spec, 8000, 400), rel=1e-12)
