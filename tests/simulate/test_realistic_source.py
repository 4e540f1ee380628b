"""The step-time source is pluggable: with inferledger.ledger.realistic installed the simulator prices each mixed
step as realistic_step(rows, accelerator, calibration) does on that step's rows — evaluated on arrays, and kept
equal to the per-row loop here — and says so; without it, the floor, said too."""

import importlib
from functools import cache
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from inferledger.errors import BadWorkload
from inferledger.hardware import find_accelerator
from inferledger.ledger.realistic import load_calibration, realistic_step
from inferledger.model import load_model
from inferledger.operators import Formats
from inferledger.simulate import build_step_model, simulate, step_cost
from inferledger.workload import make_trace

CONFIGS = Path(__file__).parent.parent / "fixtures" / "configs"
MODELS = ["meta-llama/Llama-3.1-8B", "Qwen/Qwen3-30B-A3B", "deepseek-ai/DeepSeek-V3",
          str(CONFIGS / "google--gemma-2-9b-it.json")]


@cache
def model(name, precision):
    spec = load_model(name)
    return build_step_model(spec, Formats.resolve(spec, precision, precision if precision != "int4" else None))


@settings(max_examples=40, deadline=None)
@given(st.sampled_from(MODELS), st.sampled_from(["fp8", "bf16", "int4"]),
       st.sampled_from(["h200-sxm", "a100-sxm-80gb", "l40s", "b200"]),
       st.lists(st.tuples(st.integers(1, 3000), st.integers(0, 5000)), max_size=3),
       st.lists(st.integers(0, 20000), max_size=40))
def test_array_prices_are_realistic_step_on_the_rows(name, precision, gpu, prefills, contexts):
    if not prefills and not contexts:
        contexts = [100]
    m, card = model(name, precision), find_accelerator(gpu)
    x = m.features(prefills, contexts)
    cost = step_cost(m, card, source="realistic")
    assert cost.source == "realistic"
    want = realistic_step(m.rows_of(x), card, load_calibration()).seconds
    assert float(cost.seconds(x)) == pytest.approx(want, rel=1e-9)
    assert cost.seconds(np.stack([x, x])).tolist() == pytest.approx([want, want], rel=1e-9)


def test_auto_takes_realistic_when_installed_and_says_so():
    spec, card = load_model("meta-llama/Llama-3.1-8B"), find_accelerator("h200-sxm")
    result = simulate(spec, card, make_trace([1000], [3]), precision="fp8")
    assert result.step_cost["source"] == "realistic"
    assert simulate(spec, card, make_trace([1000], [3]), precision="fp8",
                    source="floor").step_cost["source"] == "floor"


def test_without_the_realistic_module_auto_is_the_floor_and_asking_for_it_is_an_error(monkeypatch):
    module = importlib.import_module("inferledger.simulate.step_cost")  # the module, not the function it exports
    monkeypatch.setattr(module, "_import_realistic", lambda: None)
    spec, card = load_model("meta-llama/Llama-3.1-8B"), find_accelerator("h200-sxm")
    result = simulate(spec, card, make_trace([10], [2]))
    assert result.step_cost["source"] == "floor" and "not installed" in result.step_cost["notes"][0]
    with pytest.raises(BadWorkload, match="not installed; use --step-cost floor"):
        simulate(spec, card, make_trace([10], [2]), source="realistic")
