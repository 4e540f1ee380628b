"""Checks the bundled accelerator figures against published datasheet numbers and the book's anchors.

Sound because every expected value is written out here from the vendor's published figure (cited inline), not read
back from the catalog: the FLOPs:byte anchors are the arithmetic 989.4e12 / 3.35e12 and 312e12 / 2039e9, and the
dense values are the datasheets' "with sparsity" figures divided by 2 by hand. The sweep over every entry checks
invariants that hold for any real part (positive figures, a source for each, narrower dtypes never slower).
"""

import pytest

from inferledger.errors import UnknownPrecision
from inferledger.hardware import DTYPES, find_accelerator, load_catalog


def test_h100_sxm_anchor_295_flops_per_byte():
    # NVIDIA H100 datasheet: BF16 1,979 TFLOPS with sparsity -> 989.4e12 dense (Hopper whitepaper); 3.35 TB/s.
    h100 = find_accelerator("h100-sxm")
    assert h100.peak_flops_per_second("bf16") == pytest.approx(1979e12 / 2, rel=1e-3)
    assert h100.peak_flops_per_second("bf16") == pytest.approx(989.4e12)
    assert h100.memory_bandwidth_bytes_per_second == pytest.approx(3.35e12)
    # 989.4e12 / 3.35e12 = 295.34...
    assert h100.flops_per_byte("bf16") == pytest.approx(295.34, abs=0.01)
    assert round(h100.flops_per_byte()) == 295


def test_a100_sxm_80gb_anchor_153_flops_per_byte():
    # A100 datasheet: BF16 312 TFLOPS dense (624 with sparsity), 80GB HBM2e at 2,039 GB/s (the book's figures).
    a100 = find_accelerator("a100-sxm-80gb")
    assert a100.peak_flops_per_second("bf16") == 312e12
    assert a100.memory_bandwidth_bytes_per_second == 2039e9
    # 312e12 / 2039e9 = 153.016...
    assert a100.flops_per_byte("bf16") == pytest.approx(153.016, abs=0.001)
    assert round(a100.flops_per_byte("bf16")) == 153


@pytest.mark.parametrize(
    "name, dtype, sparse_flops",
    [
        # (part, dtype, datasheet "with sparsity" figure); stored dense must be half of it.
        ("h100-sxm", "fp8", 3958e12),  # H100 SXM datasheet FP8 3,958 TFLOPS*
        ("h100-sxm", "tf32", 989e12),  # TF32 989 TFLOPS*
        ("h100-pcie", "bf16", 1513e12),  # H100 PCIe BF16 1,513 TFLOPS*
        ("h100-nvl", "fp8", 3341e12),  # H100 NVL FP8 3,341 TFLOPS*
        ("h200-sxm", "bf16", 1979e12),  # H200 BF16 1,979 TFLOPS*
        ("b200", "fp4", 18e15),  # HGX B200 FP4 18 PFLOPS*
        ("b200", "bf16", 4.5e15),  # HGX B200 FP16/BF16 4.5 PFLOPS*
        ("gb200", "fp4", 20e15),  # GB200 NVL72 per GPU FP4 20 PFLOPS*
        ("gb200", "fp8", 10e15),  # FP8/FP6 10 PFLOPS*
        ("l4", "fp8", 485e12),  # L4 FP8 485 TFLOPS*
        ("l40s", "fp8", 1466e12),  # L40S FP8 1,466 TFLOPS*
        ("a100-sxm-80gb", "int8", 1248e12),  # A100 INT8 1,248 TOPS*
        ("mi300x", "fp8", 5229.8e12),  # MI300X FP8 with sparsity 5,229.8 TFLOPS
        ("b300", "fp8", 72e15 / 8),  # HGX B300 FP8/FP6 72 PFLOPS* per 8 GPUs
        ("b300", "bf16", 36e15 / 8),  # HGX B300 FP16/BF16 36 PFLOPS* per 8 GPUs
        ("gb300", "fp8", 720e15 / 72),  # GB300 NVL72 FP8/FP6 720 PFLOPS* per 72 GPUs
        ("gb300", "bf16", 360e15 / 72),  # FP16/BF16 360 PFLOPS* per 72 GPUs
        ("rtx-pro-6000-server", "fp8", 2e15),  # RTX PRO 6000 Blackwell Server Edition FP8 2 PFLOPS*
        ("rtx-pro-6000-server", "fp4", 4e15),  # FP4 4 PFLOPS*
    ],
)
def test_sparse_datasheet_figures_are_halved(name, dtype, sparse_flops):
    assert find_accelerator(name).peak_flops_per_second(dtype) == pytest.approx(sparse_flops / 2, rel=2e-3)


def test_cpu_entry_is_derived_from_cores_clock_lanes_channels():
    cpu = find_accelerator("xeon-8480")
    # 56 cores x 1024 BF16 FLOP/cycle (AMX) x 2.0 GHz base
    assert cpu.peak_flops_per_second("bf16") == pytest.approx(56 * 1024 * 2.0e9)
    # 56 cores x 2 FMA ports x 16 fp32 lanes x 2 FLOP x 2.0 GHz
    assert cpu.peak_flops_per_second("fp32") == pytest.approx(56 * 2 * 16 * 2 * 2.0e9)
    # 8 DDR5 channels x 4800 MT/s x 8 bytes = 307.2 GB/s
    assert cpu.memory_bandwidth_bytes_per_second == pytest.approx(8 * 4800e6 * 8)
    assert cpu.peak_flops_per_second("fp8") is None


def test_dtype_aliases_and_missing_dtypes():
    h100 = find_accelerator("h100")
    assert h100.peak_flops_per_second("fp8_e4m3") == h100.peak_flops_per_second("fp8")
    assert h100.peak_flops_per_second("E4M3") == h100.peak_flops_per_second("fp8")
    assert h100.peak_flops_per_second("bfloat16") == h100.peak_flops_per_second("bf16")
    assert h100.peak_flops_per_second("float16") == h100.peak_flops_per_second("fp16")
    assert h100.peak_flops_per_second("nvfp4") is None  # Hopper has no FP4 tensor cores
    b200 = find_accelerator("b200")
    assert b200.peak_flops_per_second("nvfp4") == b200.peak_flops_per_second("mxfp4") == 9e15
    assert find_accelerator("a100 80gb").peak_flops_per_second("fp8") is None
    assert find_accelerator("a100 80gb").flops_per_byte("fp8") is None
    with pytest.raises(UnknownPrecision):
        h100.peak_flops_per_second("fp12")


def test_memory_capacity_reads_vendor_gb_as_gib():
    # "80GB" HBM parts: nvidia-smi reports 81920 MiB on an A100 80GB, i.e. 80 * 2**30 bytes.
    assert find_accelerator("a100 80gb").memory_bytes == 80 * 2**30
    assert find_accelerator("mi300x").memory_bytes == 192 * 2**30


def test_every_entry_is_sourced_positive_and_ordered():
    catalog = load_catalog()
    assert len(catalog) >= 18
    assert len({part.name for part in catalog}) == len(catalog)
    for part in catalog:
        assert part.sources, part.name
        for source in part.sources:
            assert source["title"] and source["url"].startswith("https://"), part.name
        assert part.memory_bytes > 0 and part.memory_bandwidth_bytes_per_second > 0, part.name
        assert part.interconnect_bandwidth_bytes_per_second > 0, part.name
        flops = part.peak_flops_per_second_by_dtype
        assert set(flops) <= set(DTYPES) and "bf16" in flops, part.name
        assert all(value > 0 for value in flops.values()), part.name
        # Narrower floating-point formats are never slower on the same tensor units.
        chain = [flops[d] for d in ("bf16", "fp8", "fp4") if d in flops]
        assert chain == sorted(chain), part.name
        # FLOPs:byte is derived, never stored: it must equal peak / bandwidth exactly.
        assert part.flops_per_byte("bf16") == flops["bf16"] / part.memory_bandwidth_bytes_per_second


def test_to_dict_round_trips_figures():
    data = find_accelerator("h100").to_dict()
    assert data["name"] == "h100-sxm"
    assert data["peak_flops_per_second_by_dtype"]["bf16"] == 989.4e12
    assert data["flops_per_byte_by_dtype"]["bf16"] == pytest.approx(989.4e12 / 3.35e12)
    assert data["interconnect_direction"] == "per direction"
    assert data["interconnect_bandwidth_bytes_per_second"] == 900e9 / 2  # NVLink 900 GB/s bidirectional


def test_blackwell_ultra_quotes_dense_fp4_on_its_own():
    """Blackwell Ultra's tables give FP4 both ways (HGX B300: 144 PF sparse | 108 PF dense per 8 GPUs; GB300 NVL72:
    1,440 | 1,080 PF per 72 GPUs): dense is 3/4 of sparse there, not 1/2, so the dense figure is stored as given."""
    assert find_accelerator("b300").peak_flops_per_second("fp4") == 108e15 / 8
    assert find_accelerator("gb300").peak_flops_per_second("fp4") == 1080e15 / 72


def test_the_calibration_tables_gpu_names_all_resolve():
    """The kernel CSVs name cards a100_sxm ... rtx_pro_6000_server; each maps to one catalog part, and the A100's
    is the 80 GB part (the tables' roofline uses 2,039 GB/s)."""
    from inferledger.calibration.kernels import GPU_NAMES

    for gpu, name in GPU_NAMES.items():
        assert find_accelerator(name).name == name, gpu
    assert find_accelerator(GPU_NAMES["a100_sxm"]).memory_bandwidth_bytes_per_second == 2039e9
    assert find_accelerator(GPU_NAMES["rtx_pro_6000_server"]).memory_bandwidth_bytes_per_second == 1597e9
