"""The mixed-step model: its rows are the ledger's rows. A uniform step gives exactly what operators.rows and
roofline.time_step give; a mixed step is the sum of its prefill part and its decode part with the weights read
once; the vectorised key counts are operators.attended_keys / cached_keys."""

from functools import cache
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from inferledger.hardware import find_accelerator
from inferledger.model import load_model
from inferledger.operators import Formats, Step, attended_keys, cached_keys, rows, total
from inferledger.simulate import build_step_model, step_cost
from inferledger.simulate.step_cost import floor_reference_seconds
from inferledger.simulate.step_model import Layout, decode_keys, layouts

CONFIGS = Path(__file__).parent.parent / "fixtures" / "configs"
# Dense models with full attention, alternating sliding windows (Gemma-2), all-sliding (Mistral-7B v0.1) and
# Mamba layers (Nemotron-H); MoE with full attention, with sliding windows (gpt-oss) and with MLA (DeepSeek-V3).
DENSE = ["meta-llama/Llama-3.1-8B", str(CONFIGS / "google--gemma-2-9b-it.json"),
         str(CONFIGS / "mistralai--Mistral-7B-v0.1.json"), "nvidia/Nemotron-H-56B-Base-8K"]
MOE = ["Qwen/Qwen3-30B-A3B", "openai/gpt-oss-20b", "deepseek-ai/DeepSeek-V3"]


@cache
def model(name, precision="fp8"):
    spec = load_model(name)
    formats = Formats.resolve(spec, precision, precision if precision != "int4" else None)
    return spec, formats, build_step_model(spec, formats)


@settings(max_examples=60, deadline=None)
@given(st.sampled_from(DENSE), st.sampled_from(["fp8", "bf16", "int4"]),
       st.sampled_from(["h200-sxm", "a100-sxm-80gb", "l40s"]), st.booleans(),
       st.integers(1, 8), st.integers(1, 6000), st.integers(0, 40000))
def test_uniform_steps_are_the_roofline_of_the_rows(name, precision, gpu, prefill, batch, new, context):
    spec, formats, m = model(name, precision)
    card = find_accelerator(gpu)
    step = Step.prefill(new, batch, context) if prefill else Step.decode(context, batch)
    x = m.features([(new, context)] * batch) if prefill else m.features([], [context] * batch)
    got = float(step_cost(m, card, source="floor").seconds(x))
    # The model's coefficients are a float64 least-squares solve over samples up to ~10^6 tokens, checked by the fit
    # to 1e-9 of each field's largest value over its check samples (step_model._fit). That bound is absolute: the
    # attended-keys term of a 1M-token sample is ~10^12 key-token pairs, of a batch of 6 prompts of 5,600 tokens
    # 6 × 5,600² / 2 ≈ 10^8, so that term's own error can reach 1e-9 × 10^12 / 10^8 = 1e-5 of it (hypothesis found
    # 2.7e-8, 1.09e-7, 1.03e-6, then 1.0e-5 of the step's seconds on a 6 × 5,595-token Mistral fp8 prefill on an
    # h200-sxm). 1e-4 leaves that bound a factor of ten; a wrong or missing matmul or attention term is far larger.
    assert got == pytest.approx(floor_reference_seconds(spec, card, formats, step), rel=1e-4)


@settings(max_examples=30, deadline=None)
@given(st.sampled_from(MOE), st.integers(1, 4), st.integers(1, 3000), st.integers(0, 9000))
def test_moe_steps_within_the_expert_table_interpolation(name, batch, new, context):
    """Routed experts touched, E·(1 − (1 − k/E)^T), is concave in tokens: the table (every token count to 256,
    then 2% apart) is linearly interpolated; 1e-4 bounds that error here (it is ~1e-7 in practice)."""
    spec, formats, m = model(name)
    card = find_accelerator("h200-sxm")
    got = float(step_cost(m, card, source="floor").seconds(m.features([(new, context)] * batch)))
    want = floor_reference_seconds(spec, card, formats, Step.prefill(new, batch, context))
    assert got == pytest.approx(want, rel=1e-4)


@settings(max_examples=40, deadline=None)
@given(st.sampled_from(DENSE), st.integers(1, 3000), st.integers(0, 5000), st.integers(1, 64), st.integers(0, 9000))
def test_a_mixed_step_sums_its_parts_and_reads_the_weights_once(name, new, context, decoders, decode_context):
    spec, formats, m = model(name)
    mixed = m.rows_of(m.features([(new, context)], [decode_context] * decoders))
    prefill_part = rows(spec, Step.prefill(new, 1, context), formats)
    decode_part = rows(spec, Step.decode(decode_context, decoders), formats)
    for field in ("flops", "kv_read_bytes", "kv_write_bytes", "activation_bytes"):
        assert total(mixed, field) == pytest.approx(total(prefill_part, field) + total(decode_part, field),
                                                    rel=1e-9, abs=1e-6)
    # Weights are read once per step however many sequences share it (embedding rows: one per token).
    embedding = sum(r.weight_bytes * r.count for r in prefill_part if r.kind == "embedding")
    assert total(mixed, "weight_bytes") == pytest.approx(total(decode_part, "weight_bytes") + embedding, rel=1e-9)


@settings(max_examples=200, deadline=None)
@given(st.sampled_from(["full", "sliding", "chunked"]), st.integers(1, 4096), st.lists(st.integers(0, 20000),
                                                                                       min_size=1, max_size=20))
def test_vectorised_decode_keys_are_the_operators(kind, window, contexts):
    module = type("Core", (), {"window_tokens": window if kind != "full" else None, "kind": kind})()
    layout = Layout(kind, window if kind != "full" else None, module)
    attended, read = decode_keys(layout, np.array(contexts))
    assert attended.tolist() == [attended_keys(kind, layout.window, c, 1) for c in contexts]
    assert read.tolist() == [cached_keys(module, c + 1) for c in contexts]


def test_layouts_of_a_hybrid_window_model():
    """gpt-oss alternates full and 128-token sliding layers, Gemma-2 full and 4096-token ones: two layouts each."""
    found = {(layout.kind, layout.window) for layout in layouts(load_model("openai/gpt-oss-20b"))}
    assert found == {("full", None), ("sliding", 128)}
    found = {(layout.kind, layout.window) for layout in layouts(load_model(DENSE[1]))}
    assert found == {("full", None), ("sliding", 4096)}
