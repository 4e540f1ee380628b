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
        ("rtx-5090", "fp4", 3352e12),  # RTX Blackwell whitepaper: RTX 5090 3,352 AI TOPS (FP4 with sparsity)
        ("rtx-5090", "bf16", 419e12),  # FP16/BF16 with FP32 accumulate 209.5 | 419*
        ("rtx-6000-ada", "fp8", 1457.0e12),  # RTX 6000 Ada datasheet: Tensor performance 1,457.0 (FP8, sparsity)
        ("rtx-a6000", "bf16", 309.7e12),  # RTX A6000 datasheet: Tensor Performance 309.7 TFLOPS*
        ("l40", "bf16", 362.1e12),  # L40 datasheet: BF16 181.05 | 362.1*
        ("l40", "fp8", 724e12),  # FP8 362 | 724*
        ("a10", "bf16", 250e12),  # A10 datasheet: BF16 125 TF | 250 TF*
        ("a10", "int8", 500e12),  # INT8 250 TOPS | 500 TOPS*
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


@pytest.mark.parametrize(
    "name, bus_bits, gbps_per_pin",
    [
        # (part, memory bus width, per-pin data rate): bandwidth = bits x Gbit/s / 8, the vendor figure.
        ("rtx-5090", 512, 28),  # GDDR7 28 Gbps x 512 bit = 1,792 GB/s (RTX Blackwell whitepaper)
        ("rtx-6000-ada", 384, 20),  # GDDR6 20 Gbps x 384 bit = 960 GB/s (RTX 6000 Ada datasheet)
        ("rtx-a6000", 384, 16),  # GDDR6 16 Gbps x 384 bit = 768 GB/s (RTX A6000 datasheet)
        ("l40", 384, 18),  # GDDR6 18 Gbps x 384 bit = 864 GB/s (L40 datasheet)
        ("a10", 384, 12.5),  # GDDR6 12.5 Gbps x 384 bit = 600 GB/s (A10 datasheet)
    ],
)
def test_gddr_bandwidth_is_bus_width_times_data_rate(name, bus_bits, gbps_per_pin):
    assert find_accelerator(name).memory_bandwidth_bytes_per_second == pytest.approx(bus_bits * gbps_per_pin * 1e9 / 8)


@pytest.mark.parametrize(
    "name, sms, flop_per_clock_per_sm, boost_ghz",
    [
        # Dense FP16/BF16 tensor rate = SMs x FLOP/clock/SM x boost clock, within the datasheets' rounding.
        ("rtx-5090", 170, 512, 2.407),  # GeForce: FP32-accumulate rate, half of FP16-accumulate (1024)
        ("rtx-6000-ada", 142, 1024, 2.505),  # professional AD102: 364.2 with FP32 or FP16 accumulate
        ("rtx-a6000", 84, 1024, 1.80),  # professional GA102: FP32 accumulate at full rate
        ("l40", 142, 512, 2.49),
        ("a10", 72, 1024, 1.695),
        ("t4", 40, 1024, 1.59),  # Turing: 8 tensor cores x 64 FMA per SM; the T4 runs FP32 accumulate at full rate
    ],
)
def test_dense_tensor_rate_is_sms_times_width_times_clock(name, sms, flop_per_clock_per_sm, boost_ghz):
    part = find_accelerator(name)
    assert part.peak_flops_per_second("bf16") == pytest.approx(sms * flop_per_clock_per_sm * boost_ghz * 1e9, rel=2e-3)
    assert part.peak_flops_per_second("fp16") == part.peak_flops_per_second("bf16")


def test_new_cards_memory_and_links_follow_the_conventions():
    # Vendor "N GB" is N GiB; interconnects are stored per direction (vendor bidirectional totals halved).
    for name, gib in (("rtx-5090", 32), ("rtx-6000-ada", 48), ("rtx-a6000", 48), ("l40", 48), ("a10", 24), ("t4", 16)):
        assert find_accelerator(name).memory_bytes == gib * 2**30, name
    assert find_accelerator("rtx-5090").interconnect_bandwidth_bytes_per_second == 128e9 / 2  # PCIe 5.0 x16
    assert find_accelerator("rtx-6000-ada").interconnect_bandwidth_bytes_per_second == 64e9 / 2  # PCIe 4.0, no NVLink
    assert find_accelerator("rtx-a6000").interconnect_bandwidth_bytes_per_second == 112.5e9 / 2  # NVLink bridge
    assert find_accelerator("l40").interconnect_bandwidth_bytes_per_second == 64e9 / 2  # PCIe 4.0 x16
    assert find_accelerator("a10").interconnect_bandwidth_bytes_per_second == 64e9 / 2
    assert find_accelerator("t4").interconnect_bandwidth_bytes_per_second == 32e9 / 2  # PCIe 3.0 x16


def test_rtx_5090_is_the_gb202_generation_with_geforce_fp32_accumulate_rates():
    rtx_5090 = find_accelerator("rtx-5090")
    assert rtx_5090.architecture == find_accelerator("rtx-pro-6000-server").architecture == "blackwell-gb202"
    # Whitepaper: FP16/BF16 with FP32 accumulate 209.5 dense; FP8 twice that; FP4 (3,352 sparse) eight times it.
    assert rtx_5090.peak_flops_per_second("bf16") == 209.5e12
    assert rtx_5090.peak_flops_per_second("fp8") == 2 * 209.5e12
    assert rtx_5090.peak_flops_per_second("fp4") == pytest.approx(8 * 209.5e12)
    # FP32 non-tensor: 170 SMs x 128 lanes x 2 FLOP x 2.407 GHz.
    assert rtx_5090.peak_flops_per_second("fp32") == pytest.approx(170 * 128 * 2 * 2.407e9, rel=2e-3)


def test_l40_and_a10_are_not_their_namesakes():
    # The L40 quotes half the L40S's tensor rates; the A10 quotes about 1.8x the A10G's.
    assert find_accelerator("l40").peak_flops_per_second("bf16") == 181.05e12
    assert find_accelerator("l40s").peak_flops_per_second("bf16") == 362.05e12
    assert find_accelerator("a10").peak_flops_per_second("bf16") == 125e12
    assert find_accelerator("a10g").peak_flops_per_second("bf16") == 70e12


def test_t4_datasheet_figures_and_no_bf16_hardware():
    t4 = find_accelerator("t4")
    # T4 datasheet: 300 GB/sec (the product page's "320+ GB/s" is the bus arithmetic 10 Gbps x 256 bit / 8).
    assert t4.memory_bandwidth_bytes_per_second == 300e9
    assert t4.memory_bandwidth_bytes_per_second < 10e9 * 256 / 8
    # Mixed precision (FP16/FP32) 65 TFLOPS, INT8 130 TOPS, FP32 8.1 TFLOPS; Turing has no BF16: priced as FP16.
    assert t4.peak_flops_per_second("fp16") == 65e12
    assert t4.peak_flops_per_second("int8") == 2 * 65e12
    assert t4.peak_flops_per_second("fp32") == 8.1e12
    assert t4.peak_flops_per_second("bf16") == t4.peak_flops_per_second("fp16")
    assert t4.peak_flops_per_second("fp8") is None and t4.peak_flops_per_second("tf32") is None


def test_a_generation_without_calibration_borrows_and_says_so():
    """Turing is new to the catalog and has no measurements: the realistic estimate takes the median of the
    measured generations, marks the entry extrapolated and names the generation in its note."""
    from inferledger.calibration import load_calibration
    from inferledger.ledger.realistic import generation_of

    t4 = find_accelerator("t4")
    assert generation_of(t4) == "turing"
    entry, extrapolated, note = load_calibration().lookup("gemm", "turing", "bf16")
    assert entry is not None and extrapolated
    assert "turing" in note and "median" in note
    # The RTX 5090 borrows through the GB202 generation's named stand-in, as the RTX PRO 6000 does.
    _, extrapolated_5090, note_5090 = load_calibration().lookup("gemm", generation_of(find_accelerator("5090")), "bf16")
    _, extrapolated_pro, note_pro = load_calibration().lookup("gemm", "blackwell-gb202", "bf16")
    assert (extrapolated_5090, note_5090) == (extrapolated_pro, note_pro)


def test_rtx_6000_ada_is_the_professional_ad102_at_full_rate():
    # Ada professional whitepaper: FP16 364.2 with FP32 or FP16 accumulate; the GeForce RTX 4090 halves FP32 accumulate.
    ada_pro, geforce = find_accelerator("rtx-6000-ada"), find_accelerator("rtx-4090")
    assert ada_pro.architecture == geforce.architecture == "ada"
    assert ada_pro.peak_flops_per_second("bf16") == 364.2e12
    assert ada_pro.peak_flops_per_second("fp8") == pytest.approx(2 * 364.2e12, rel=2e-3)
    assert geforce.peak_flops_per_second("fp8") == pytest.approx(2 * geforce.peak_flops_per_second("bf16"), rel=2e-3)


@pytest.mark.parametrize(
    "name, gib, bandwidth, bf16, architecture",
    [
        # (part, vendor "N GB" stored as GiB, bandwidth B/s, dense bf16 FLOP/s, generation) written from the sources.
        ("h20", 96, 4.0e12, 148e12, "hopper"),  # willitrunai / zangshuxian: 96 GB, 4.0 TB/s, FP16 148 dense
        ("h800-sxm", 80, 3.35e12, 1979e12 / 2, "hopper"),  # H100 SXM rates (1,979 sparse), 3.35 TB/s (Philisun)
        ("a800-sxm-80gb", 80, 2039e9, 312e12, "ampere"),  # A100 SXM4 80GB rates: 2.039 TB/s, 312 dense (Klockwood)
        ("l20", 48, 864e9, 92 * 512 * 2.52e9, "ada"),  # TopCPU: 92 SMs, 2520 MHz, 864 GB/s; L40's 512 FLOP/clk/SM
        ("v100-sxm2-32gb", 32, 900e9, 125e12, "volta"),  # NVIDIA: 125 Tensor TFLOPS; HBM2 900 GB/s
        ("v100-pcie-16gb", 16, 900e9, 112e12, "volta"),  # io-tech.fi: 112 Tensor TFLOPS at 1370 MHz, 16 GB, 900 GB/s
        ("a40", 48, 696e9, 149.7e12, "ampere"),  # A40 datasheet: BF16 149.7 | 299.4*, 696 GB/s
        ("rtx-4080", 16, 22.4e9 * 256 / 8, 76 * 512 * 2.505e9, "ada"),  # Holy Nerdvana: 76 SMs, 2505 MHz, 22.4 Gbps
        ("rtx-4070", 12, 504e9, 46 * 512 * 2.475e9, "ada"),  # TheFPSReview: 46 SMs, 2475 MHz, 504 GB/s
        ("rtx-4060-ti-16gb", 16, 288e9, 34 * 512 * 2.535e9, "ada"),  # TheFPSReview: 34 SMs, 2535 MHz, 288 GB/s
        ("rtx-3080", 10, 760e9, 68 * 512 * 1.71e9, "ampere"),  # IT Creations / winenfood: 68 SMs, 1.71 GHz, 760 GB/s
        ("rtx-3060", 12, 360e9, 28 * 512 * 1.777e9, "ampere"),  # PCPartDB: 28 SMs, 1777 MHz, 360 GB/s
        ("rx-7900-xtx", 24, 960e9, 61.4e12, "rdna3"),  # Guru3D: 61.4 TFLOPS FP32 (WMMA rate unsourced), 960 GB/s
        ("mi250x", 128, 3.2e12, 383e12, "cdna2"),  # AMD table (Zexron): FP16/BF16 383.0, 128GB, 3.2 TB/s
        ("mi355x", 288, 8e12, 256 * 8192 * 2.4e9 / 2, "cdna4"),  # ISSCC: 256 CUs x 8192 FP8/clk x 2.4 GHz; BF16 half
        ("gaudi2", 96, 2.45e12, 432e12, "gaudi2"),  # PCGuia: 96 GB, 2.45 TB/s, BF16 matrix 432
        ("gaudi3", 128, 3.7e12, 1835e12, "gaudi3"),  # Yobitel / The Register: 128 GB, 3.7 TB/s, BF16 1,835
        ("m1-max", 64, 400e9, 10.4e12, "apple-m1"),  # 4096 ALUs, 10.4 TFLOPS, 400 GB/s
        ("m2-max", 96, 400e9, 38 * 128 * 2 * 1.398e9, "apple-m2"),  # 38 cores at 1398 MHz (hmc-tech), 400 GB/s
        ("m3-max", 128, 400e9, 14.32e12, "apple-m3"),  # hmc-tech: 5120 shaders, 14.32 TFLOPS; 400 GB/s
        ("m4-max", 128, 546e9, 40 * 128 * 2 * 1.678e9, "apple-m4"),  # 546 GB/s; 1678 MHz (hmc-tech 32-core figure)
        ("m4-pro", 64, 273e9, 20 * 128 * 2 * 1.678e9, "apple-m4"),  # 273 GB/s, up to 64 GB
        ("m2-ultra", 192, 800e9, 76 * 128 * 2 * 1.398e9, "apple-m2"),  # 192 GB, 800 GB/s, 76 cores
        ("m3-ultra", 512, 819e9, 80 * 128 * 2 * 1.398e9, "apple-m3"),  # TechPowerUp: 512 GB, 819 GB/s, 80 cores
        ("dgx-spark", 128, 273e9, 1e15 / 2 / 8, "blackwell-gb10"),  # 1 PFLOP FP4 sparse; bf16 = dense FP4 / 8
    ],
)
def test_added_parts_figures(name, gib, bandwidth, bf16, architecture):
    part = find_accelerator(name)
    assert part.memory_bytes == gib * 2**30
    assert part.memory_bandwidth_bytes_per_second == pytest.approx(bandwidth, rel=2e-3)
    assert part.peak_flops_per_second("bf16") == pytest.approx(bf16, rel=2e-3)
    assert part.architecture == architecture


def test_added_parts_dtypes_and_links():
    # H20: FP8 296, INT8 296, TF32 74, FP32 44 (1cnz.cn / zangshuxian); NVLink 900 GB/s bidirectional.
    h20 = find_accelerator("h20")
    assert h20.peak_flops_per_second("fp8") == 296e12 and h20.peak_flops_per_second("tf32") == 74e12
    assert h20.interconnect_bandwidth_bytes_per_second == 900e9 / 2
    # H800 / A800: the H100 / A100 compute with NVLink cut to 400 GB/s bidirectional.
    assert find_accelerator("h800").peak_flops_per_second("fp8") == pytest.approx(3958e12 / 2, rel=1e-3)
    assert find_accelerator("h800").interconnect_bandwidth_bytes_per_second == 400e9 / 2
    assert find_accelerator("a800").interconnect_bandwidth_bytes_per_second == 400e9 / 2
    assert find_accelerator("a800").peak_flops_per_second("fp8") is None  # Ampere
    # V100: no BF16 hardware, priced at the FP16 tensor rate; NVLink 2: 6 links x 25 GB/s per direction.
    v100 = find_accelerator("v100")
    assert v100.peak_flops_per_second("bf16") == v100.peak_flops_per_second("fp16") == 125e12
    assert v100.peak_flops_per_second("fp8") is None and v100.peak_flops_per_second("int8") is None
    assert v100.interconnect_bandwidth_bytes_per_second == 6 * 25e9
    assert find_accelerator("v100 pcie").interconnect_bandwidth_bytes_per_second == 32e9 / 2  # PCIe 3.0 x16
    # A40 datasheet: INT8 299.3 | 598.6*, TF32 74.8 | 149.6*; NVLink bridge 112.5 GB/s bidirectional.
    a40 = find_accelerator("a40")
    assert a40.peak_flops_per_second("int8") == 299.3e12 and a40.peak_flops_per_second("tf32") == 74.8e12
    assert a40.interconnect_bandwidth_bytes_per_second == 112.5e9 / 2
    # RTX 4080: the source's FP16-accumulate sparse 390 TFLOPS is 4x the stored FP32-accumulate dense rate.
    assert find_accelerator("rtx-4080").peak_flops_per_second("bf16") == pytest.approx(389.9e12 / 4, rel=2e-3)
    # RTX 3060: NVIDIA's "101 tensor-TFLOPs" (FP16 accumulate, sparse) is 4x the stored rate.
    assert find_accelerator("rtx-3060").peak_flops_per_second("bf16") == pytest.approx(101.9e12 / 4, rel=2e-3)
    assert find_accelerator("rtx-4060-ti-16gb").interconnect_bandwidth_bytes_per_second == 32e9 / 2  # PCIe 4.0 x8
    # MI355X: FP8 5 PF dense (ISSCC), FP4 10 PF dense (The Register); MI250X: INT8 383 TOPS, IF 800 GB/s total.
    mi355x = find_accelerator("mi355x")
    assert mi355x.peak_flops_per_second("fp8") == pytest.approx(5.03e15, rel=2e-3)
    assert mi355x.peak_flops_per_second("fp4") == 10e15
    assert find_accelerator("mi250x").peak_flops_per_second("int8") == 383e12
    assert find_accelerator("mi250x").interconnect_bandwidth_bytes_per_second == 800e9 / 2
    # Gaudi 3: FP8 at the BF16 rate (1,835 both); 24 x 200 GbE. Gaudi 2: FP8 left out (source inconsistent).
    gaudi3 = find_accelerator("gaudi3")
    assert gaudi3.peak_flops_per_second("fp8") == gaudi3.peak_flops_per_second("bf16") == 1835e12
    assert gaudi3.interconnect_bandwidth_bytes_per_second == 24 * 200e9 / 8
    assert find_accelerator("gaudi2").peak_flops_per_second("fp8") is None
    assert find_accelerator("gaudi2").interconnect_bandwidth_bytes_per_second == 24 * 100e9 / 8
    # Apple: no matrix units, FP16 = FP32 = the stored bf16; no fp8.
    m3 = find_accelerator("m3 max")
    assert m3.peak_flops_per_second("fp16") == m3.peak_flops_per_second("fp32") == m3.peak_flops_per_second("bf16")
    assert m3.peak_flops_per_second("fp8") is None
    # DGX Spark: 1 PFLOP FP4 with sparsity -> 500 TFLOPS dense; FP32 31 TFLOPS; ConnectX-7 200 Gb/s.
    spark = find_accelerator("dgx spark")
    assert spark.peak_flops_per_second("fp4") == 1e15 / 2 and spark.peak_flops_per_second("fp32") == 31e12
    assert spark.interconnect_bandwidth_bytes_per_second == 200e9 / 8


@pytest.mark.parametrize("name", ["v100", "rx-7900-xtx", "mi250x", "mi355x", "gaudi2", "gaudi3", "m4-max", "gb10"])
def test_added_generations_without_calibration_extrapolate(name):
    """New generations have no measured kernels: the realistic estimate borrows the median and says so."""
    from inferledger.calibration import load_calibration
    from inferledger.ledger.realistic import generation_of

    generation = generation_of(find_accelerator(name))
    entry, extrapolated, note = load_calibration().lookup("gemm", generation, "bf16")
    assert entry is not None and extrapolated and generation in note


def test_added_parts_request_runs_end_to_end(capsys):
    # Every added part prices a bundled model through the CLI without a traceback.
    from inferledger.cli import main

    for name in ("h20", "l20", "v100-pcie-16gb", "rtx-3060", "rx-7900-xtx", "mi355x", "gaudi3", "m4-pro", "dgx-spark"):
        assert main(["request", "--model", "Qwen/Qwen2.5-7B", "--gpu", name, "--json"]) == 0, name
        assert '"realistic' in capsys.readouterr().out, name


@pytest.mark.parametrize(
    "name, gib, bandwidth",
    [
        # (part, vendor "N GB" stored as GiB, memory bandwidth B/s), written from each entry's cited source.
        ("p40", 24, 346e9),  # Omega Computers (NVIDIA spec): 24 GB GDDR5, 346 GB/s
        ("p100-pcie-16gb", 16, 732e9),  # TechWorm: 16GB and 12GB variants at 732GB/s and 549GB/s
        ("rtx-2080-ti", 11, 14e9 * 352 / 8),  # Spicedreamphone: 11 GB GDDR6, 352-bit, 616.0 GB/s (14 Gbps)
        ("rtx-3090-ti", 24, 21e9 * 384 / 8),  # TweakTown: 24GB GDDR6X 21 Gbps 384-bit, 1008 GB/s
        ("rtx-3070", 8, 14e9 * 256 / 8),  # Winenfood: 8 GB GDDR6 256-bit 448 GB/s
        ("rtx-4060", 8, 17e9 * 128 / 8),  # FPSBench: 8 GB, 17 Gbps, 128-bit, 272.0 GB/s
        ("rtx-4070-ti-super", 16, 672e9),  # CYBIRD-D spec table: 16 GB, 672 GB/s
        ("rtx-5080", 16, 30e9 * 256 / 8),  # Notebookcheck / BigGo: 16 GB GDDR7 256-bit, 30 Gbps, 960 GB/s
        ("rtx-5070-ti", 16, 896e9),  # CYBIRD-D spec table: 16 GB, 896 GB/s
        ("gh200", 96, 4e12),  # NVIDIA GH200 datasheet: 96GB HBM3, up to 4TB/s
        ("jetson-orin-nano-super", 8, 102e9),  # NVIDIA (via Sapui): 8 GB LPDDR5, 102 GB/s in the Super mode
        ("rx-7900-xt", 20, 20e9 * 320 / 8),  # Guru3D: 20 GB GDDR6, 320-bit, 20 Gbps, 800 GB/s
        ("rx-6800-xt", 16, 16e9 * 256 / 8),  # GPU-Monkey: 16 GB, 256-bit, 16 Gbps, 512 GB/s
        ("rx-9070-xt", 16, 20e9 * 256 / 8),  # VideoCardz via AZ Hot Deal: 16 GB GDDR6 20 Gbps 256-bit, 640 GB/s
        ("mi50", 32, 1024e9),  # Hugging Face: MI50 32GB; Spicedreamphone: HBM2 4096-bit, 1,024 GB/s
        ("mi100", 32, 4096 * 2.4e9 / 8),  # heise via Al Khaleej Today: 4 HBM2 stacks, 1.228 TB/s (AMD: 1.23)
        ("strix-halo", 128, 256 * 8000e6 / 8),  # SpawningPoint: up to 128 GB LPDDR5X-8000 on a 256-bit bus
        ("arc-a770", 16, 560e9),  # SvetHardware (Intel's specs): A770 16 GB, 256-bit, 560 GB/s
        ("arc-b580", 12, 19e9 * 192 / 8),  # FPSBench: 12 GB GDDR6 19 Gbps 192-bit, 456.0 GB/s
        ("m1", 16, 68.25e9),  # SomagNews: M1 supports 16GB; llama.cpp PR #1642: M1 physical limit 68.2 GB/s
        ("m2", 24, 100e9),  # personal-computing-history-book: M2 100GB/s, up to 24GB
        ("m3", 24, 100e9),  # Ars Technica: M3 8/16/24GB (102.4 bus arithmetic; Apple quotes 100)
        ("m4", 32, 120e9),  # Ars Technica: M4 16/24/32GB, 120GB/s
        ("m1-pro", 32, 200e9),  # SomagNews: M1 Pro 32GB, 200 GB/s
        ("m2-pro", 32, 200e9),  # Ars Technica: M2 Pro 16/32GB (204.8); MacRumors: M1/M2 Pro 200GB/s
        ("m3-pro", 36, 150e9),  # Ars Technica: M3 Pro 18/36GB; MacRumors: 150GB/s
        ("m1-ultra", 128, 800e9),  # Gamebastion (Wccftech): M1 Ultra up to 128GB, 800GB/s
    ],
)
def test_new_cards_memory_and_bandwidth(name, gib, bandwidth):
    part = find_accelerator(name)
    assert part.memory_bytes == gib * 2**30
    assert part.memory_bandwidth_bytes_per_second == pytest.approx(bandwidth, rel=2e-3)


@pytest.mark.parametrize(
    "name, fp32",
    [
        # Non-tensor FP32 = shaders x 2 FLOP (one FMA) x boost clock, written out from the cited shader counts and clocks.
        # (The M1 family stores Apple's launch figures instead: test_new_cards_sparse_and_vendor_figures.)
        ("p40", 3840 * 2 * 1.531e9),  # 3840 CUDA cores at 1531 MHz (alldbin: 11,758 GFLOPS)
        ("p100-pcie-16gb", 3584 * 2 * 1.30e9),  # 3584 cores at 1300 MHz (Tech4Gamers: 9.3 TFLOPS)
        ("rtx-2080-ti", 4352 * 2 * 1.545e9),  # 4352 cores at 1545 MHz (13.45 TFLOPS)
        ("rtx-3090-ti", 10752 * 2 * 1.86e9),  # 10752 cores at 1860 MHz (TweakTown: 40 TFLOPS)
        ("rtx-3070", 5888 * 2 * 1.725e9),  # 5888 cores at 1725 MHz (20.31)
        ("rtx-4060", 3072 * 2 * 2.46e9),  # 3072 cores at 2460 MHz (FPSBench: 15.11)
        ("rtx-4070-ti-super", 8448 * 2 * 2.61e9),  # 8448 cores at 2610 MHz (44.1)
        ("rtx-5080", 10752 * 2 * 2.617e9),  # 10752 cores at 2617 MHz (56.28)
        ("rtx-5070-ti", 8960 * 2 * 2.452e9),  # 8960 cores at 2452 MHz (43.94)
        ("jetson-orin-nano-super", 1024 * 2 * 1.02e9),  # 1024 cores at 1020 MHz
        ("rx-7900-xt", 84 * 128 * 2 * 2.4e9),  # 84 CUs x 128 dual-issue lanes at 2.4 GHz (Guru3D: 51.6)
        ("rx-6800-xt", 72 * 64 * 2 * 2.25e9),  # 72 CUs x 64 at 2.25 GHz (GPU-Monkey: 20.74)
        ("rx-9070-xt", 64 * 128 * 2 * 2.97e9),  # 64 CUs x 128 at 2.97 GHz (AMD: 48.7)
        ("mi50", 60 * 64 * 2 * 1.725e9),  # 60 CUs x 64 at 1725 MHz (half the 26.5 TFLOPS FP16)
        ("mi100", 120 * 64 * 2 * 1.502e9 * 2),  # vector 120 x 64 x 2 x 1.502 GHz = 23.1; the matrix rate (46.1) is stored
        ("arc-a770", 4096 * 2 * 2.4e9),  # 4096 shaders at 2.4 GHz (half the 39.32 TFLOPS FP16)
        ("arc-b580", 2560 * 2 * 2.67e9),  # 2560 shaders at 2670 MHz (FPSBench: 13.67)
        ("m2", 10 * 128 * 2 * 1.398e9),  # 10 cores at 1.398 GHz (Apple: 3.6)
        ("m3", 10 * 128 * 2 * 1.398e9),  # 10 cores at the M3 Max's 1.398 GHz
        ("m4", 10 * 128 * 2 * 1.678e9),  # 10 cores at the M4 Max's 1.678 GHz
        ("m2-pro", 19 * 128 * 2 * 1.398e9),  # 19 cores at 1.398 GHz (6.8)
        ("m3-pro", 18 * 128 * 2 * 1.398e9),  # 18 cores at the M3 Max's 1.398 GHz
        # Shaders x 2 FLOP x boost clock, or the source's own FP32 figure where it prints one.
        ("rtx-2070", 2304 * 2 * 1.62e9),  # GameGPU: 1620 MHz reference boost
        ("rtx-2060", 1920 * 2 * 1.68e9),  # Fudzilla: 1680 MHz (6.5 TFLOPs)
        ("rtx-2080", 10.07e12),  # cputronic: 10.07 TFLOPS
        ("rtx-3050", 9.098e12),  # cputronic: 9.098 TFLOPS
        ("rtx-3060-ti", 4864 * 2 * 1.665e9),  # cputronic: 1665 MHz
        ("rtx-3070-ti", 21.75e12),  # spec table (huggingface.js): 21.75
        ("rtx-3080-ti", 34.1e12),  # spec table: 34.1
        ("rtx-4070-super", 35.48e12),  # spec table: 35.48
        ("rtx-4080-super", 52.2e12),  # spec table: 52.2
        ("rtx-5060-ti-16gb", 23.7e12),  # spec table: 23.7
        ("rtx-5070", 6144 * 2 * 2.512e9),  # 2512 MHz boost (spec table 30.84 at 2.51)
        ("gtx-1080-ti", 11.34e12),  # spec table: 11.34
        ("gtx-1080", 2560 * 2 * 1.733e9),  # 1.733 GHz boost
        ("gtx-1070-ti", 8.2e12),  # spec table: 8.2
        ("gtx-1060-6gb", 4.375e12),  # alldbin: 4,375 GFLOPS
        ("quadro-rtx-8000", 16.3e12),  # datasheet: 16.3 TFLOPS
        ("a30", 10.32e12),  # SysRqmts: 10.32 TFLOPS
        ("jetson-agx-orin-64gb", 5.3e12),  # technical brief: 5.3 FP32 TFLOPS
        ("jetson-agx-thor", 2560 * 2 * 1.575e9),  # RidgeRun: 2560 CUDA cores, 1.575 GHz
        ("mi60", 14.7e12),  # AMD: 14.7 TFLOPS
        ("mi210", 45.3e12),  # AMD table: FP32 matrix 45.3 (stored as the MI250X entry does)
        ("rx-7800-xt", 37.32e12),  # cputronic: 37.32 TFLOPS
        ("rx-6700-xt", 40 * 64 * 2 * 2.581e9),  # Tom's: 40 CUs, 2581 MHz boost
        ("rx-5700-xt", 9.75e12),  # AMD: 9.75 TFLOPS
        ("rx-9060-xt", 32 * 128 * 2 * 3.13e9),  # TweakTown: 32 CUs, 3.13 GHz (RDNA dual-issue 128 lanes per CU)
        ("rx-580", 6.175e12),  # FPSBench: 6.175 TFLOPS
        ("arc-pro-b60", 12.29e12),  # Technical City / hmc-tech: 12.29 TFLOPS
        ("m5", 5.7e12),  # huggingface.js: Apple M5 5.7
        ("m5-max", 22.8e12),  # huggingface.js: Apple M5 Max 22.8
    ],
)
def test_new_cards_fp32_is_shaders_times_two_times_clock(name, fp32):
    assert find_accelerator(name).peak_flops_per_second("fp32") == pytest.approx(fp32, rel=1e-2)


@pytest.mark.parametrize(
    "name, sms, flop_per_clock_per_sm, boost_ghz",
    [
        # Dense FP16/BF16 tensor rate with FP32 accumulate = SMs x FLOP/clock/SM x clock (GeForce: 512, half of FP16 acc).
        ("rtx-2080-ti", 68, 512, 1.545),  # Turing: 8 tensor cores x 64 FMA x 2 = 1024, halved on GeForce
        ("rtx-3090-ti", 84, 512, 1.86),
        ("rtx-3070", 46, 512, 1.725),
        ("rtx-4060", 24, 512, 2.46),
        ("rtx-4070-ti-super", 66, 512, 2.61),
        ("rtx-5080", 84, 512, 2.617),
        ("rtx-5070-ti", 70, 512, 2.452),  # whitepaper column: 87.9
        ("jetson-orin-nano-super", 8, 2048, 1.02),  # A100-class SM: 67 sparse INT8 TOPS / 4
        # Professional Turing at 1024 (FP16 or FP32 accumulate); GA100 and Orin at the A100's 2048; Thor at 4 tensor
        # cores x 2048.
        ("rtx-2070", 36, 512, 1.62),  # 288 tensor cores / 8
        ("rtx-2060", 30, 512, 1.68),  # 240 tensor cores / 8
        ("rtx-2080", 46, 512, 1.71),  # 368 tensor cores / 8
        ("rtx-3050", 20, 512, 1.777),
        ("rtx-3060-ti", 38, 512, 1.665),
        ("rtx-3070-ti", 48, 512, 1.77),
        ("rtx-3080-ti", 80, 512, 1.665),
        ("rtx-4070-super", 56, 512, 2.475),
        ("rtx-4080-super", 80, 512, 2.55),
        ("rtx-5060-ti-16gb", 36, 512, 2.572),
        ("rtx-5070", 48, 512, 2.512),
        ("quadro-rtx-8000", 72, 1024, 1.77),  # datasheet 130.5 tensor TFLOPS, FP16 or FP32 accumulate
        ("a30", 56, 2048, 1.44),
        ("jetson-agx-orin-64gb", 16, 2048, 1.3),
        ("jetson-agx-thor", 20, 4 * 2048, 1.575),
    ],
)
def test_new_nvidia_tensor_rates_are_sms_times_width_times_clock(name, sms, flop_per_clock_per_sm, boost_ghz):
    part = find_accelerator(name)
    assert part.peak_flops_per_second("bf16") == pytest.approx(sms * flop_per_clock_per_sm * boost_ghz * 1e9, rel=3e-3)
    assert part.peak_flops_per_second("fp16") == part.peak_flops_per_second("bf16")


def test_new_cards_sparse_and_vendor_figures():
    # GH200 datasheet: BF16 1,979* | 990, FP8 3,958* | 1,979, TF32 989* | 494, FP32 67 (* with sparsity).
    gh200 = find_accelerator("gh200")
    assert gh200.peak_flops_per_second("bf16") == pytest.approx(1979e12 / 2)
    assert gh200.peak_flops_per_second("fp8") == pytest.approx(3958e12 / 2)
    assert gh200.peak_flops_per_second("tf32") == pytest.approx(989e12 / 2)
    assert gh200.peak_flops_per_second("fp32") == 67e12
    assert gh200.interconnect_bandwidth_bytes_per_second == 900e9 / 2  # NVLink-C2C 900 GB/s bidirectional
    # RTX 5080: 1801 AI TOPS (FP4 with sparsity) -> 900.5 dense, 8x the FP32-accumulate BF16 rate.
    rtx_5080 = find_accelerator("rtx-5080")
    assert rtx_5080.peak_flops_per_second("fp4") == pytest.approx(1801e12 / 2)
    assert rtx_5080.peak_flops_per_second("fp4") == pytest.approx(8 * rtx_5080.peak_flops_per_second("bf16"), rel=2e-3)
    # RTX 5070 Ti whitepaper column: FP16/BF16 87.9, TF32 43.9, INT8 351.5 (dense).
    rtx_5070_ti = find_accelerator("rtx-5070-ti")
    assert rtx_5070_ti.peak_flops_per_second("bf16") == 87.9e12
    assert rtx_5070_ti.peak_flops_per_second("tf32") == 43.9e12 and rtx_5070_ti.peak_flops_per_second("int8") == 351.5e12
    # MI100 (AMD table): FP32 matrix 46.1, FP16 184.6, bfloat16 92.3 (half FP16 on CDNA1), INT8 184.6; IF 276 GB/s.
    mi100 = find_accelerator("mi100")
    assert mi100.peak_flops_per_second("fp16") == 184.6e12 and mi100.peak_flops_per_second("bf16") == 92.3e12
    assert mi100.peak_flops_per_second("int8") == 184.6e12 and mi100.peak_flops_per_second("fp32") == 46.1e12
    assert mi100.interconnect_bandwidth_bytes_per_second == 276e9 / 2
    # P40: NVIDIA's 47 INT8 TOPS (DP4A, 4x FP32); P100 PCIe: 9.3 / 18.7 TFLOPS FP32 / FP16.
    assert find_accelerator("p40").peak_flops_per_second("int8") == 47e12
    p100 = find_accelerator("p100")
    assert p100.peak_flops_per_second("fp16") == 18.7e12 and p100.peak_flops_per_second("fp32") == 9.3e12
    # Spec-table FP16 rates stored where no matrix rate was sourced: RX 9070 XT 97.32, Arc A770 39.32, Arc B580 27.34.
    assert find_accelerator("rx-9070-xt").peak_flops_per_second("fp16") == 97.32e12
    assert find_accelerator("arc-a770").peak_flops_per_second("bf16") == 39.32e12
    assert find_accelerator("arc-b580").peak_flops_per_second("bf16") == 27.34e12
    # Apple launch figures (the spec table): M1 2.6, M1 Pro 5.2, M1 Ultra 21, M2 3.6, M2 Pro 6.8 TFLOPS.
    for name, tflops in (("m1", 2.6), ("m1-pro", 5.2), ("m1-ultra", 21), ("m2", 3.6), ("m2-pro", 6.8)):
        assert find_accelerator(name).peak_flops_per_second("fp32") == tflops * 1e12, name


def test_new_cards_without_fast_half_precision_are_priced_as_engines_run_them():
    # P40 (GP102): FP16 at 1/64 of FP32 and no BF16; engines compute in FP32, so fp16/bf16 carry the FP32 rate.
    p40 = find_accelerator("p40")
    assert p40.peak_flops_per_second("fp16") == p40.peak_flops_per_second("bf16") == p40.peak_flops_per_second("fp32")
    # No BF16 hardware on Pascal GP100, Turing or Vega 20: bf16 at the FP16 rate, as the V100 and T4 entries do.
    for name in ("p100-pcie-16gb", "rtx-2080-ti", "mi50"):
        part = find_accelerator(name)
        assert part.peak_flops_per_second("bf16") == part.peak_flops_per_second("fp16"), name
    # RDNA2/3/3.5 floors at the FP32 rate, as rx-7900-xtx; Apple GPUs have no matrix units.
    for name in ("rx-7900-xt", "rx-6800-xt", "strix-halo", "m1", "m2", "m3", "m4", "m1-pro", "m2-pro", "m3-pro", "m1-ultra"):
        part = find_accelerator(name)
        assert part.peak_flops_per_second("fp16") == part.peak_flops_per_second("fp32"), name
    # Nothing without a hardware path: no FP8 before Ada/Hopper, no int8 where none was sourced.
    for name in ("p40", "p100-pcie-16gb", "rtx-2080-ti", "rtx-3090-ti", "rtx-3070", "mi50", "mi100", "m1", "arc-b580"):
        assert find_accelerator(name).peak_flops_per_second("fp8") is None, name
    assert find_accelerator("p100").peak_flops_per_second("int8") is None  # GP100 has no DP4A


def test_new_cards_links_are_per_direction():
    for name, per_direction in (
        ("p40", 32e9 / 2),  # PCIe 3.0 x16, 32 GB/s bidirectional
        ("rtx-2080-ti", 32e9 / 2),
        ("rtx-3090-ti", 64e9 / 2),  # PCIe 4.0 x16
        ("rtx-4060", 32e9 / 2),  # PCIe 4.0 x8
        ("rtx-5080", 128e9 / 2),  # PCIe 5.0 x16
        ("rx-9070-xt", 128e9 / 2),
        ("arc-b580", 32e9 / 2),  # PCIe 4.0 x8
        ("mi50", 64e9 / 2),  # PCIe 4.0 x16
        ("m1", 40e9 / 8),  # Thunderbolt / USB4, 40 Gb/s per direction
        ("strix-halo", 40e9 / 8),  # USB4
    ):
        assert find_accelerator(name).interconnect_bandwidth_bytes_per_second == pytest.approx(per_direction), name


@pytest.mark.parametrize("name", ["p40", "rtx-2080-ti", "jetson-orin-nano-super", "rx-6800-xt", "rx-9070-xt", "mi50",
                                  "mi100", "strix-halo", "arc-a770", "arc-b580", "m1", "m2-pro"])
def test_new_generations_borrow_the_median_and_say_so(name):
    """pascal, turing, ampere-orin, rdna2, rdna4, gcn5, cdna1, rdna3.5, xe-hpg, xe2, apple-m1/m2: no measured kernels."""
    from inferledger.calibration import load_calibration
    from inferledger.ledger.realistic import generation_of

    generation = generation_of(find_accelerator(name))
    entry, extrapolated, note = load_calibration().lookup("gemm", generation, "bf16")
    assert entry is not None and extrapolated and generation in note


def test_new_cards_on_measured_generations_use_them():
    from inferledger.calibration import load_calibration
    from inferledger.ledger.realistic import generation_of

    assert generation_of(find_accelerator("gh200")) == "hopper"
    assert generation_of(find_accelerator("rtx-3090-ti")) == "ampere"
    assert generation_of(find_accelerator("rtx-4060")) == "ada"
    _, extrapolated, _ = load_calibration().lookup("gemm", "hopper", "bf16")
    assert not extrapolated
    # GB203 cards share the GB202 generation key, hence the RTX 5090's stand-in.
    assert generation_of(find_accelerator("rtx-5080")) == generation_of(find_accelerator("rtx-5090"))


def test_new_cards_request_runs_end_to_end(capsys):
    from inferledger.cli import main

    for name in ("p40", "rtx-2080-ti", "gh200", "jetson-orin-nano-super", "rx-9070-xt", "mi50", "strix-halo",
                 "arc-b580", "m1", "m3-pro"):
        assert main(["request", "--model", "Qwen/Qwen2.5-7B", "--gpu", name, "--json"]) == 0, name
        assert '"realistic' in capsys.readouterr().out, name


# ---------------------------------------------------------------- hw17: 29 more cards, each figure from its cited source
# Every expected value below is written from the source the entry cites (spec table, datasheet, article), never read
# back from the catalogue: bus width x data rate, shader count x 2 x clock, SMs x FLOP/clock/SM x clock, vendor figures.


@pytest.mark.parametrize(
    "name, gib, bandwidth, architecture",
    [
        ("rtx-2070", 8, 14e9 * 256 / 8, "turing"),  # GameGPU / Tom's: 8 GB GDDR6 14 Gbps, 256-bit, 448 GB/s
        ("rtx-2060", 6, 14e9 * 192 / 8, "turing"),  # Fudzilla: 6GB 14Gbps, 192-bit; benchmark.best: 336.0 GB/s
        ("rtx-2080", 8, 14e9 * 256 / 8, "turing"),  # GameGPU: 8192 MB, 14000 MHz effective, 256-bit, 448 GB/s
        ("rtx-3050", 8, 14e9 * 128 / 8, "ampere"),  # SomagNews: 8GB, 14 Gbps, 128-bit, 224 GB/s
        ("rtx-3060-ti", 8, 14e9 * 256 / 8, "ampere"),  # Wccftech: 8 GB GDDR6 14 Gbps, 256-bit, 448 GB/s
        ("rtx-3070-ti", 8, 608e9, "ampere"),  # CYBIRD-D table: 8 GB, 608 GB/s
        ("rtx-3080-ti", 12, 19e9 * 384 / 8, "ampere"),  # Wccftech: 12 GB GDDR6X 19 Gbps, 384-bit, 912 GB/s
        ("rtx-4070-super", 12, 504e9, "ada"),  # CYBIRD-D table: 12 GB, 504 GB/s
        ("rtx-4080-super", 16, 736e9, "ada"),  # CYBIRD-D table: 16 GB, 736 GB/s
        ("rtx-5060-ti-16gb", 16, 28e9 * 128 / 8, "blackwell-gb202"),  # Tom's: 16GB GDDR7 28 GT/s, 128-bit, 448 GB/s
        ("rtx-5070", 12, 672e9, "blackwell-gb202"),  # CYBIRD-D table: 12 GB, 672 GB/s
        ("gtx-1080-ti", 11, 11e9 * 352 / 8, "pascal"),  # GECID: GDDR5X 11 008 MHz effective, 352-bit; Vortez: 484 GB/s
        ("gtx-1080", 8, 320.32e9, "pascal"),  # 8 GB GDDR5X at 2.5025 GHz, 256-bit, 320.32 GB/s
        ("gtx-1070-ti", 8, 8e9 * 256 / 8, "pascal"),  # Hardwareluxx: 8 GB GDDR5 at 2000 MHz, 256-bit
        ("gtx-1060-6gb", 6, 8e9 * 192 / 8, "pascal"),  # Vortez: 6GB GDDR5 8 Gbps, 192-bit, 192 GB/sec
        ("quadro-rtx-8000", 48, 14e9 * 384 / 8, "turing"),  # Leadtek / Geektopia: 48 GB GDDR6 14 Gb/s, 384-bit, 672 GB/s
        ("a30", 24, 933.1e9, "ampere"),  # SysRqmts: 24 GB HBM2, 3072-bit, 933.1 GB/s
        ("jetson-agx-orin-64gb", 64, 204.8e9, "ampere-orin"),  # NVIDIA (quoted): 64 GB LPDDR5 @ 204.8 GB/s
        ("jetson-agx-thor", 128, 4266e6 * 2 * 256 / 8, "blackwell-thor"),  # RidgeRun: 128GB LPDDR5x 4266 MHz 256-bit, 273 GB/s
        ("mi60", 32, 1024e9, "gcn5"),  # TheLinx: 32GB HBM2, 1024 GB/s
        ("mi210", 64, 4096 * 3.2e9 / 8, "cdna2"),  # AnandTech: 64GB, 3.2 Gbps HBM2E, 4096-bit (AMD: 1.6 TB/s)
        ("rx-7800-xt", 16, 19.5e9 * 256 / 8, "rdna3"),  # Tom's / GPU-Monkey: 16 GB, 19.5 Gbps, 256-bit, 624 GB/s
        ("rx-6700-xt", 12, 16e9 * 192 / 8, "rdna2"),  # Tom's / Linux Format: 12 GB, 16 Gbps, 192-bit, 384 GB/s
        ("rx-5700-xt", 8, 14e9 * 256 / 8, "rdna1"),  # The Gaming PC Guide: 8GB GDDR6 14Gbps, 256-bit, 448 GB/s
        ("rx-9060-xt", 16, 20e9 * 128 / 8, "rdna4"),  # TechPowerUp: 128-bit, 20 Gbps GDDR6, 320 GB/s
        ("rx-580", 8, 8e9 * 256 / 8, "gcn4"),  # FPSBench: 8 GB GDDR5 8 Gbps, 256-bit, 256.0 GB/s
        ("arc-pro-b60", 24, 19e9 * 192 / 8, "xe2"),  # iByteNews: 24 GB GDDR6 19 Gbps, 192-bit, 456 GB/s
        ("m5", 32, 153e9, "apple-m5"),  # The Decoder: up to 32 GB, 153 GB/s
        ("m5-max", 128, 614e9, "apple-m5"),  # cputronic / Awesome Agents: up to 128 GB, 614 GB/s
    ],
)
def test_hw17_memory_bandwidth_and_generation(name, gib, bandwidth, architecture):
    part = find_accelerator(name)
    assert part.memory_bytes == gib * 2**30
    assert part.memory_bandwidth_bytes_per_second == pytest.approx(bandwidth, rel=2e-3)
    assert part.architecture == architecture


def test_hw17_vendor_figures():
    # Quadro RTX 8000 datasheet: FP32 16.3, 130.5 tensor TFLOPS; Turing INT8 at twice FP16 (2048 vs 1024 per SM).
    quadro = find_accelerator("quadro-rtx-8000")
    assert quadro.peak_flops_per_second("bf16") == 130.5e12 and quadro.peak_flops_per_second("fp32") == 16.3e12
    assert quadro.peak_flops_per_second("int8") == pytest.approx(2 * 130.5e12)
    # A30 = GA100 with 56 SMs at 1.44 GHz and the A100's per-SM dense rates (312 / 156 / 624 over 108 SMs at 1.41 GHz).
    a30, scale = find_accelerator("a30"), 56 * 1.44 / (108 * 1.41)
    assert a30.peak_flops_per_second("bf16") == pytest.approx(312e12 * scale, rel=3e-3)
    assert a30.peak_flops_per_second("tf32") == pytest.approx(156e12 * scale, rel=3e-3)
    assert a30.peak_flops_per_second("int8") == pytest.approx(624e12 * scale, rel=3e-3)
    # Jetson T5000 (NVIDIA): sparse FP4 2070, sparse FP8 / INT8 1035, sparse FP16 517; stored dense (halved).
    thor = find_accelerator("jetson-agx-thor")
    assert thor.peak_flops_per_second("fp4") == pytest.approx(2070e12 / 2)
    assert thor.peak_flops_per_second("fp8") == pytest.approx(1035e12 / 2)
    assert thor.peak_flops_per_second("int8") == pytest.approx(1035e12 / 2)
    assert thor.peak_flops_per_second("bf16") == pytest.approx(517e12 / 2, rel=2e-3)
    # Jetson AGX Orin: the GPU's 170 sparse INT8 TOPS of the module's 275 (DLAs 105); FP16 half of dense INT8.
    orin = find_accelerator("jetson-agx-orin-64gb")
    assert orin.peak_flops_per_second("int8") == 170e12 / 2 and orin.peak_flops_per_second("bf16") == 170e12 / 4
    # MI60 (AMD): FP16 29.5, INT8 58.9; MI210 (AMD table): FP16 181, INT8 181, FP32 matrix 45.3.
    mi60 = find_accelerator("mi60")
    assert mi60.peak_flops_per_second("fp16") == pytest.approx(29.5e12, rel=2e-3)
    assert mi60.peak_flops_per_second("int8") == 58.9e12
    mi210 = find_accelerator("mi210")
    assert mi210.peak_flops_per_second("fp16") == mi210.peak_flops_per_second("bf16") == 181e12
    assert mi210.peak_flops_per_second("int8") == 181e12 and mi210.peak_flops_per_second("fp32") == 45.3e12
    # Arc Pro B60 (hmc-tech): XMX FP16/BF16 98.3 TFLOPS with FP32 accumulate, INT8 196.61 TOPS.
    b60 = find_accelerator("arc-pro-b60")
    assert b60.peak_flops_per_second("bf16") == 98.3e12 and b60.peak_flops_per_second("int8") == 196.61e12
    # RX 9060 XT: the spec table's FP16 51.28 (2x FP32), as the RX 9070 XT entry stores its 97.32.
    assert find_accelerator("rx-9060-xt").peak_flops_per_second("fp16") == 51.28e12
    # GeForce Ada / Blackwell ratios (RTX 4090 / 5090 entries): FP8 2x, INT8 4x the FP32-accumulate BF16 rate; FP4 8x.
    for name in ("rtx-4070-super", "rtx-4080-super", "rtx-5060-ti-16gb", "rtx-5070"):
        part = find_accelerator(name)
        assert part.peak_flops_per_second("fp8") == pytest.approx(2 * part.peak_flops_per_second("bf16")), name
        assert part.peak_flops_per_second("int8") == pytest.approx(4 * part.peak_flops_per_second("bf16")), name
    for name in ("rtx-5060-ti-16gb", "rtx-5070"):
        part = find_accelerator(name)
        assert part.peak_flops_per_second("fp4") == pytest.approx(8 * part.peak_flops_per_second("bf16")), name
    # Turing / Ampere GeForce: INT8 at 2048 ops/clock/SM = 4x the 512 FP32-accumulate rate; no FP8.
    for name in ("rtx-2070", "rtx-2060", "rtx-2080", "rtx-3050", "rtx-3060-ti", "rtx-3070-ti", "rtx-3080-ti"):
        part = find_accelerator(name)
        assert part.peak_flops_per_second("int8") == pytest.approx(4 * part.peak_flops_per_second("bf16")), name
        assert part.peak_flops_per_second("fp8") is None, name


def test_hw17_pascal_stores_the_real_fp16_rate_and_bf16_as_engines_run_it():
    # GP102/GP104/GP106: one FP16x2 unit per 128-lane SM, FP16 = 2/128 = 1/64 of FP32 (GameGPU, SashleyCat "1:64 FP32").
    # No BF16 at all: stored at the FP32 rate (engines upcast, as the p40 entry). DP4A INT8 was not sourced: none stored.
    for name in ("gtx-1080-ti", "gtx-1080", "gtx-1070-ti", "gtx-1060-6gb"):
        part = find_accelerator(name)
        assert part.peak_flops_per_second("fp16") == pytest.approx(part.peak_flops_per_second("fp32") / 64), name
        assert part.peak_flops_per_second("bf16") == part.peak_flops_per_second("fp32"), name
        assert part.peak_flops_per_second("int8") is None and part.peak_flops_per_second("fp8") is None, name
        assert any("impractical" in note and "llama.cpp" in note for note in part.notes), name


def test_hw17_parts_without_fast_half_precision_use_documented_floors():
    # RDNA1-3 and the M5 store fp16 at the FP32 rate as a floor (rx-6800-xt / rx-7900-xt convention); Polaris runs FP16
    # at 1:1 (FPSBench: FP16 6.175 (1:1)). No BF16 hardware on Turing or Vega 20: bf16 at the FP16 rate.
    for name in ("rx-7800-xt", "rx-6700-xt", "rx-5700-xt", "rx-580", "m5", "m5-max"):
        part = find_accelerator(name)
        assert part.peak_flops_per_second("fp16") == part.peak_flops_per_second("fp32") == part.peak_flops_per_second(
            "bf16"), name
    for name in ("rtx-2070", "rtx-2060", "rtx-2080", "quadro-rtx-8000", "mi60"):
        part = find_accelerator(name)
        assert part.peak_flops_per_second("bf16") == part.peak_flops_per_second("fp16"), name


def test_hw17_links_are_per_direction():
    for name, per_direction in (
        ("rtx-2070", 32e9 / 2),  # PCIe 3.0 x16
        ("rtx-3050", 32e9 / 2),  # PCIe 4.0 x8
        ("rtx-3060-ti", 64e9 / 2),  # PCIe 4.0 x16
        ("rtx-5070", 128e9 / 2),  # PCIe 5.0 x16
        ("gtx-1060-6gb", 32e9 / 2),  # PCIe 3.0 x16
        ("quadro-rtx-8000", 100e9 / 2),  # NVLink bridge, 100 GB/s bidirectional
        ("a30", 64e9 / 2),  # PCIe 4.0 x16
        ("jetson-agx-orin-64gb", 8 * 16e9 / 8),  # PCIe Gen4 x8 controller
        ("jetson-agx-thor", 4 * 25e9 / 8),  # four 25 GbE MGBE
        ("mi60", 64e9 / 2),  # PCIe 4.0, 64 GB/s bidirectional
        ("mi210", 3 * 100e9 / 2),  # 3 Infinity Fabric links x 100 GB/s, taken as bidirectional
        ("rx-9060-xt", 128e9 / 2),  # PCIe 5.0 x16
        ("rx-580", 32e9 / 2),  # PCIe 3.0 x16
        ("arc-pro-b60", 64e9 / 2),  # PCIe 5.0 x8
        ("m5", 40e9 / 8),  # Thunderbolt / USB4
        ("m5-max", 80e9 / 8),  # Thunderbolt 5
    ):
        assert find_accelerator(name).interconnect_bandwidth_bytes_per_second == pytest.approx(per_direction), name


@pytest.mark.parametrize("name", ["gtx-1080", "rx-5700-xt", "rx-580", "jetson-agx-thor", "m5", "mi60", "mi210"])
def test_hw17_generations_without_calibration_borrow_the_median_and_say_so(name):
    """pascal, rdna1, gcn4, blackwell-thor, apple-m5, gcn5, cdna2: no measured kernels of their own."""
    from inferledger.calibration import load_calibration
    from inferledger.ledger.realistic import generation_of

    generation = generation_of(find_accelerator(name))
    entry, extrapolated, note = load_calibration().lookup("gemm", generation, "bf16")
    assert entry is not None and extrapolated and generation in note


def test_hw17_cards_on_measured_generations_use_them():
    from inferledger.ledger.realistic import generation_of

    assert generation_of(find_accelerator("a30")) == generation_of(find_accelerator("a100 80gb")) == "ampere"
    assert generation_of(find_accelerator("rtx-4080-super")) == "ada"
    assert generation_of(find_accelerator("rtx-5070")) == generation_of(find_accelerator("rtx-5090"))


def test_hw17_cards_request_runs_end_to_end(capsys):
    from inferledger.cli import main

    for name in ("gtx-1080-ti", "rtx-2070", "rtx-5070", "quadro-rtx-8000", "a30", "jetson-agx-thor", "mi210", "rx-580",
                 "arc-pro-b60", "m5-max"):
        assert main(["request", "--model", "Qwen/Qwen2.5-7B", "--gpu", name, "--json"]) == 0, name
        assert '"realistic' in capsys.readouterr().out, name
