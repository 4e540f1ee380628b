"""The step-time source is pluggable: when inferledger.ledger.realistic is importable the simulator takes its step
times from realistic_step(rows, accelerator, calibration) on the mixed step's rows, and says so. A stand-in module
(installed for the test only) prices a step as 2 × its floor plus 1 ms, so the expected figures follow by hand."""

import sys
import types
from dataclasses import dataclass

import pytest

from inferledger.hardware import find_accelerator
from inferledger.ledger.roofline import time_step
from inferledger.model import load_model
from inferledger.simulate import simulate
from inferledger.workload import make_trace


@dataclass(frozen=True)
class RealisticStep:
    seconds: float
    seconds_by_component: dict
    overhead_seconds: float
    extrapolated: bool
    notes: tuple


@pytest.fixture
def stand_in(monkeypatch):
    calls = []
    module = types.ModuleType("inferledger.ledger.realistic")

    def load_calibration(path=None):
        return {"path": path}

    def realistic_step(rows, accelerator, calibration):
        calls.append(rows)
        floor = time_step(rows, accelerator).seconds
        return RealisticStep(2 * floor + 1e-3, {}, 1e-3, False, ())

    module.load_calibration, module.realistic_step = load_calibration, realistic_step
    monkeypatch.setitem(sys.modules, "inferledger.ledger.realistic", module)
    return calls


def test_realistic_is_used_when_installed_and_said(stand_in):
    spec, card = load_model("meta-llama/Llama-3.1-8B"), find_accelerator("h200-sxm")
    trace = make_trace([1000], [3])
    floor = simulate(spec, card, trace, precision="fp8", source="floor")
    result = simulate(spec, card, trace, precision="fp8")  # auto
    assert result.step_cost["source"] == "realistic" and floor.step_cost["source"] == "floor"
    # each step: 2 × its floor + 1 ms (the floor's 1-token-step at batch 1 is what the ledger says)
    assert result.run.first_token[0] == pytest.approx(2 * floor.run.first_token[0] + 1e-3, rel=1e-6)
    assert result.run.finish[0] == pytest.approx(2 * floor.run.finish[0] + 3e-3, rel=1e-6)
    assert all(hasattr(r, "flops") and hasattr(r, "compute_dtype") for r in stand_in[0])


def test_realistic_asked_for_but_missing_is_an_error():
    from inferledger.errors import BadWorkload

    if "inferledger.ledger.realistic" in sys.modules or _importable():
        pytest.skip("the realistic estimate is installed here")
    with pytest.raises(BadWorkload, match="not installed; use --step-cost floor"):
        simulate(load_model("meta-llama/Llama-3.1-8B"), find_accelerator("h200-sxm"), make_trace([10], [2]),
                 source="realistic")


def _importable() -> bool:
    import importlib.util

    return importlib.util.find_spec("inferledger.ledger.realistic") is not None
