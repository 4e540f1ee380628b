"""The shape of a workload on a card: alone, a request's prefill and decode are the request ledger's; under load
its prefill shares a full token budget and its decode a full batch, so the share moves toward prefill."""

import pytest

from inferledger.hardware import find_accelerator
from inferledger.ledger.request import request_account
from inferledger.model import load_model
from inferledger.operators import Formats
from inferledger.simulate import build_step_model, step_cost
from inferledger.workload import make_trace
from inferledger.workload.summary import summarise_trace


def test_alone_is_the_request_ledger_and_load_shifts_the_share_to_prefill():
    spec, card = load_model("meta-llama/Llama-3.1-8B"), find_accelerator("h200-sxm")
    cost = step_cost(build_step_model(spec, Formats.resolve(spec, "fp8", "fp8")), card, source="floor")
    shape = summarise_trace(make_trace([3000], [200]), cost).shape
    # The first token comes from the prefill, the other 199 from decode steps at contexts 3000 … 3198.
    account = request_account(spec, card, isl=3000, osl=199, precision="fp8", kv_precision="fp8")
    assert shape["alone"]["prefill_seconds"] == pytest.approx(account.prefill.seconds, rel=1e-9)
    assert shape["alone"]["decode_seconds"] == pytest.approx(account.decode.seconds, rel=1e-9)
    # Under load the weights are read once for many tokens: decode per request gets far cheaper than prefill does.
    assert shape["loaded"]["prefill_share"] > shape["alone"]["prefill_share"]
