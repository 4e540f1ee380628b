"""The realistic estimate's formula, checked by hand on rows whose FLOPs and bytes are written out here.

One instance of a row costs call + blend(F / (peak · compute_eff), B / (bandwidth · memory_eff), keys · s_per_key);
a step adds the per-step overhead. H100 SXM: bf16 989.4e12 FLOP/s, fp8 1978.9e12, 3.35e12 B/s (its datasheet, as in
accelerators.json). The calibrations here are built in the test, so the expected values do not depend on a fit.
"""

import json

import pytest

from inferledger.calibration import Calibration, Entry, load_calibration
from inferledger.errors import CalibrationError
from inferledger.hardware import find_accelerator
from inferledger.ledger.realistic import realistic_step
from inferledger.operators import Row

H100 = find_accelerator("h100-sxm")
B200 = find_accelerator("b200")


def gemv_row(count=1):
    """y = x·Wᵀ with W 4096x4096 bf16, one token: F = 2·4096·4096, B = weights + x + y."""
    return Row("layer", "proj", "attention.full", count, "linear", flops=2.0 * 4096 * 4096,
               weight_bytes=4096 * 4096 * 2.0, activation_bytes=(4096 + 4096) * 2.0, kv_read_bytes=0.0,
               kv_write_bytes=0.0, weight_elements=4096 * 4096, active_weight_elements=4096 * 4096)


def decode_attention_row(compute_dtype="bf16"):
    """One sequence at 1,000 cached keys, 8 KV heads x 128 (K and V): reads 1,000 x 4,096 elements, writes 4,096."""
    per_token = 8 * 128 * 2 * (1.0 if compute_dtype == "fp8" else 2.0)
    return Row("layer", "attention", "attention.full", 1, "attention", flops=2.0 * 1000 * 32 * 256,
               weight_bytes=0.0, activation_bytes=32 * 256 * 2.0, kv_read_bytes=1000 * per_token,
               kv_write_bytes=per_token, weight_elements=0, active_weight_elements=0,
               compute_dtype=compute_dtype, phase="decode")


def calibration(*entries, overhead=0.0, stand_ins=None):
    return Calibration({(e.kind, e.generation, e.dtype): e for e in entries}, overhead, {}, "test",
                       stand_ins or {})


GEMM = Entry("gemm", "hopper", "bf16", call_seconds=10e-6, compute_efficiency=0.5, memory_efficiency=0.8)


def test_one_gemv_is_call_plus_the_larger_term_at_fitted_efficiency():
    compute = 2 * 4096 * 4096 / (989.4e12 * 0.5)  # 67.8 ns
    memory = (4096 * 4096 * 2 + 8192 * 2) / (3.35e12 * 0.8)  # 12.53 us
    step = realistic_step([gemv_row()], H100, calibration(GEMM))
    assert memory > compute
    assert step.seconds == pytest.approx(10e-6 + memory, rel=1e-12)
    assert not step.extrapolated


def test_count_multiplies_and_the_step_overhead_is_added_once():
    memory = (4096 * 4096 * 2 + 8192 * 2) / (3.35e12 * 0.8)
    step = realistic_step([gemv_row(count=32)], H100, calibration(GEMM, overhead=1e-3))
    assert step.seconds == pytest.approx(32 * (10e-6 + memory) + 1e-3, rel=1e-12)
    assert step.overhead_seconds == 1e-3
    assert step.seconds_by_component == {"attention.full": pytest.approx(32 * (10e-6 + memory))}


def test_a_p_norm_blend_adds_the_terms_in_quadrature():
    entry = Entry("gemm", "hopper", "bf16", call_seconds=0.0, compute_efficiency=0.001, memory_efficiency=0.8,
                  blend_power=2.0)
    compute = 2 * 4096 * 4096 / (989.4e12 * 0.001)  # 33.9 us at a thousandth of peak
    memory = (4096 * 4096 * 2 + 8192 * 2) / (3.35e12 * 0.8)
    step = realistic_step([gemv_row()], H100, calibration(entry))
    assert step.seconds == pytest.approx((compute ** 2 + memory ** 2) ** 0.5, rel=1e-12)


def test_an_fp8_kv_cache_halves_the_bytes_but_attention_math_stays_at_the_bf16_peak():
    entry = Entry("attention_decode", "hopper", "bf16_fp8kv", call_seconds=5e-6, compute_efficiency=1e-4,
                  memory_efficiency=0.9)
    row = decode_attention_row("fp8")
    compute_at_bf16 = 2 * 1000 * 32 * 256 / (989.4e12 * 1e-4)  # 165.6 us; at the fp8 peak it would be half
    memory = (1000 * 2048 + 2048 + 32 * 256 * 2) / (3.35e12 * 0.9)
    assert compute_at_bf16 > memory
    step = realistic_step([row], H100, calibration(entry))
    assert step.seconds == pytest.approx(5e-6 + compute_at_bf16, rel=1e-12)


def test_a_serial_decode_kernel_pays_per_cached_key():
    entry = Entry("attention_decode", "hopper", "bf16", call_seconds=0.0, compute_efficiency=1.0,
                  memory_efficiency=1.0, seconds_per_key=100e-9)
    step = realistic_step([decode_attention_row()], H100, calibration(entry))
    assert step.seconds == pytest.approx(1000 * 100e-9, rel=1e-12)  # kv read / kv write = 1,000 keys


def test_never_below_the_floor():
    entry = Entry("gemm", "hopper", "bf16", call_seconds=0.0, compute_efficiency=1.0, memory_efficiency=1.0)
    step = realistic_step([gemv_row()], H100, calibration(entry))
    assert step.seconds == pytest.approx(step.floor_seconds)
    assert step.floor_seconds == pytest.approx((4096 * 4096 * 2 + 8192 * 2) / 3.35e12)


def test_an_unmeasured_generation_borrows_its_stand_in_and_says_so():
    step = realistic_step([gemv_row()], B200, calibration(GEMM, stand_ins={"blackwell": "hopper"}))
    assert step.extrapolated
    assert any("blackwell" in n and "hopper" in n for n in step.notes)
    # B200: 7.7e12 B/s at the Hopper fit's 0.8
    assert step.seconds == pytest.approx(10e-6 + (4096 * 4096 * 2 + 8192 * 2) / (7.7e12 * 0.8), rel=1e-12)


def test_the_median_default_covers_a_generation_with_no_stand_in():
    default = Entry("gemm", "*", "bf16", call_seconds=20e-6, compute_efficiency=0.5, memory_efficiency=0.5)
    step = realistic_step([gemv_row()], B200, calibration(GEMM, default))
    assert step.extrapolated and any("median" in n for n in step.notes)
    assert step.seconds == pytest.approx(20e-6 + (4096 * 4096 * 2 + 8192 * 2) / (7.7e12 * 0.5), rel=1e-12)


def test_bundled_calibration_has_provenance_and_covers_the_measured_kinds():
    bundled = load_calibration()
    assert bundled.source == "bundled"
    assert {s["file"] for s in bundled.provenance["sources"]} >= {"gemm_latency.csv", "attn_decode_latency.csv"}
    for kind in ("gemm", "attention_prefill", "attention_decode", "mla_prefill", "mla_decode", "moe"):
        assert (kind, "*", "bf16") in bundled.entries, kind
    for entry in bundled.entries.values():
        assert 0 < entry.compute_efficiency <= 1 and 0 < entry.memory_efficiency <= 1


@pytest.mark.parametrize("text, words", [
    ("not json", "not valid JSON"),
    ('{"schema": "other"}', "not a calibration file"),
    ('{"schema": "inferledger.calibration/1", "entries": []}', "non-empty list"),
    ('{"schema": "inferledger.calibration/1", "entries": [{"kind": "gemm", "generation": "hopper", "dtype": "bf16",'
     ' "call_seconds": 1e-5, "compute_efficiency": 1.5, "memory_efficiency": 0.8}]}', "compute_efficiency"),
])
def test_a_bad_calibration_file_is_one_clear_error(tmp_path, text, words):
    path = tmp_path / "params.json"
    path.write_text(text)
    with pytest.raises(CalibrationError, match=words):
        load_calibration(str(path))
    with pytest.raises(CalibrationError, match="not found"):
        load_calibration(str(tmp_path / "missing.json"))


def test_a_written_calibration_loads_back(tmp_path):
    path = tmp_path / "params.json"
    path.write_text(json.dumps(calibration(GEMM, overhead=2e-4).to_dict()))
    loaded = load_calibration(str(path))
    assert loaded.entries[("gemm", "hopper", "bf16")] == GEMM
    assert loaded.step_overhead_seconds == 2e-4
