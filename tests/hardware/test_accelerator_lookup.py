"""Checks forgiving name matching and user-supplied accelerator files.

Sound because each expected part is fixed by the spelling a user would type (vendor names, separators, memory
suffixes) and by the documented defaults (bare "H100" is the SXM part, bare "A100" is ambiguous); user files are
written by the test itself with figures chosen here, so what comes back can be compared field by field. Bad files
must raise the typed error with a single line that names the file and the field.
"""

import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from inferledger.errors import InferledgerError, UnknownAccelerator
from inferledger.hardware import find_accelerator, load_catalog


@pytest.mark.parametrize(
    "query, expected",
    [
        ("h100-sxm", "h100-sxm"),
        ("h100", "h100-sxm"),  # documented default: SXM
        ("H100-SXM5-80GB", "h100-sxm"),
        ("nvidia h100 sxm", "h100-sxm"),
        ("NVIDIA H100 80GB HBM3", "h100-sxm"),
        ("h100 pcie", "h100-pcie"),
        ("H100 NVL", "h100-nvl"),
        ("a100-sxm-80gb", "a100-sxm-80gb"),
        ("a100 80gb", "a100-sxm-80gb"),  # documented default: SXM when only memory is given
        ("A100 80 GB", "a100-sxm-80gb"),
        ("A100-PCIE-40GB", "a100-pcie-40gb"),
        ("L4", "l4"),  # must not be taken for the L40S
        ("l40s", "l40s"),
        ("GeForce RTX 4090", "rtx-4090"),
        ("3090", "rtx-3090"),
        ("AMD Instinct MI300X", "mi300x"),
        ("mi325x", "mi325x"),
        ("B200", "b200"),
        ("GB200", "gb200"),
        ("H200", "h200-sxm"),
        ("a10g", "a10g"),
        ("A10", "a10"),  # must not be taken for the A10G, nor the A10G for it
        ("NVIDIA A10", "a10"),
        ("NVIDIA A10G", "a10g"),
        ("L40", "l40"),  # must not be taken for the L40S
        ("NVIDIA L40S", "l40s"),
        ("Tesla T4", "t4"),  # what nvidia-smi prints
        ("T4", "t4"),
        ("NVIDIA RTX A6000", "rtx-a6000"),
        ("A6000", "rtx-a6000"),
        ("NVIDIA GeForce RTX 5090", "rtx-5090"),
        ("5090", "rtx-5090"),
        ("RTX PRO 6000 Server", "rtx-pro-6000-server"),
        ("NVIDIA RTX 6000 Ada Generation", "rtx-6000-ada"),  # what nvidia-smi prints
        ("RTX 6000 Ada", "rtx-6000-ada"),
        ("Xeon Platinum 8480+", "xeon-8480"),
    ],
)
def test_matching(query, expected):
    assert find_accelerator(query).name == expected


def test_every_label_resolves_to_its_own_part():
    # No alias, id or display name may be claimed by two parts (an "A10" alias must not capture the A10G, "L40"
    # the L40S): each label, typed as written, gives back the part that carries it.
    for part in load_catalog():
        for label in (part.name, part.display_name, *part.aliases):
            assert find_accelerator(label).name == part.name, (label, part.name)


def _one_line(error) -> str:
    text = str(error.value)
    assert "\n" not in text
    return text


def test_bare_a100_is_ambiguous_and_lists_candidates():
    with pytest.raises(UnknownAccelerator) as error:
        find_accelerator("A100")
    text = _one_line(error)
    assert "ambiguous" in text
    for name in ("a100-sxm-40gb", "a100-sxm-80gb", "a100-pcie-40gb", "a100-pcie-80gb"):
        assert name in text


def test_bare_rtx_6000_is_ambiguous():
    # Three boards answer to it (RTX 6000 Ada, RTX PRO 6000 Blackwell, the Turing Quadro RTX 6000): no default.
    with pytest.raises(UnknownAccelerator) as error:
        find_accelerator("RTX 6000")
    text = _one_line(error)
    assert "ambiguous" in text and "rtx-6000-ada" in text and "rtx-pro-6000-server" in text


def test_unknown_name_lists_close_names():
    with pytest.raises(UnknownAccelerator) as error:
        find_accelerator("h1000")
    text = _one_line(error)
    assert "h100-sxm" in text and "inferledger gpus" in text


def test_unknown_name_with_nothing_close():
    with pytest.raises(UnknownAccelerator) as error:
        find_accelerator("zzzz-9")
    assert "unknown accelerator" in _one_line(error)


PART = {
    "name": "my-gpu",
    "display_name": "My GPU 32GB",
    "vendor": "Example",
    "aliases": ["mygpu 32gb"],
    "memory_gib": 32,
    "memory_bandwidth_bytes_per_second": 1.0e12,
    "peak_flops_per_second_by_dtype": {"bfloat16": 200e12, "fp8_e4m3": 400e12},
    "interconnect_bandwidth_bytes_per_second": 50e9,
}


def test_user_json_file_as_name(tmp_path):
    path = tmp_path / "my.json"
    path.write_text(json.dumps(PART))
    part = find_accelerator(str(path))
    assert part.name == "my-gpu"
    assert part.memory_bytes == 32 * 2**30
    assert part.peak_flops_per_second("bf16") == 200e12
    assert part.peak_flops_per_second("fp8") == 400e12
    assert part.flops_per_byte("bf16") == pytest.approx(200)  # 200e12 / 1e12
    assert part.origin == str(path)


def test_user_yaml_file_as_name(tmp_path):
    path = tmp_path / "my.yaml"
    path.write_text(
        "name: yaml-gpu\n"
        "memory_bytes: 17179869184\n"  # 16 GiB
        "memory_bandwidth_bytes_per_second: 5.0e+11\n"
        "peak_flops_per_second_by_dtype:\n"
        "  bf16: 1.0e+14\n"
    )
    part = find_accelerator(str(path))
    assert part.name == "yaml-gpu"
    assert part.memory_bytes == 16 * 2**30
    assert part.flops_per_byte("bf16") == pytest.approx(200)  # 1e14 / 5e11
    assert part.interconnect_bandwidth_bytes_per_second is None


def test_env_var_and_extra_files_add_parts(tmp_path, monkeypatch):
    path = tmp_path / "parts.json"
    path.write_text(json.dumps({"accelerators": [PART]}))
    monkeypatch.setenv("INFERLEDGER_ACCELERATORS", str(path))
    assert find_accelerator("mygpu 32GB").name == "my-gpu"
    assert "my-gpu" in {p.name for p in load_catalog()}
    monkeypatch.delenv("INFERLEDGER_ACCELERATORS")
    assert find_accelerator("my-gpu", extra_files=[str(path)]).name == "my-gpu"
    with pytest.raises(UnknownAccelerator):
        find_accelerator("my-gpu")


def test_user_part_replaces_bundled_part_of_same_name(tmp_path):
    path = tmp_path / "fix.json"
    path.write_text(json.dumps(dict(PART, name="h100-sxm", aliases=[])))
    catalog = load_catalog([str(path)])
    assert [p.name for p in catalog].count("h100-sxm") == 1
    assert find_accelerator("h100-sxm", extra_files=[str(path)]).memory_bytes == 32 * 2**30


@pytest.mark.parametrize(
    "content, expected_words",
    [
        ("{not json", ["not valid JSON", "line 1"]),
        (json.dumps({k: v for k, v in PART.items() if k != "memory_bandwidth_bytes_per_second"}),
         ["missing field", "memory_bandwidth_bytes_per_second"]),
        (json.dumps(dict(PART, memory_bandwidth_bytes_per_second=-1)),
         ["memory_bandwidth_bytes_per_second", "positive"]),
        (json.dumps(dict(PART, peak_flops_per_second_by_dtype={"bf16": 0})), ["bf16", "positive"]),
        (json.dumps(dict(PART, peak_flops_per_second_by_dtype={"fp12": 1e12})), ["fp12"]),
        (json.dumps({k: v for k, v in PART.items() if k != "memory_gib"}), ["memory_bytes"]),
        (json.dumps({k: v for k, v in PART.items() if k != "name"}), ["name"]),
        (json.dumps(dict(PART, memory_bandwidth_bytes_per_second=True)), ["memory_bandwidth_bytes_per_second"]),
        ("[]", ["no accelerators"]),
        ("42", ["expected an accelerator"]),
    ],
)
def test_bad_user_files_give_one_line_naming_file_and_field(tmp_path, content, expected_words):
    path = tmp_path / "bad.json"
    path.write_text(content)
    with pytest.raises(InferledgerError) as error:
        find_accelerator(str(path))
    assert isinstance(error.value, UnknownAccelerator)
    text = _one_line(error)
    assert "bad.json" in text
    for word in expected_words:
        assert word in text


def test_bad_yaml_and_missing_file(tmp_path):
    path = tmp_path / "bad.yml"
    path.write_text("name: [unclosed\n")
    with pytest.raises(UnknownAccelerator) as error:
        find_accelerator(str(path))
    assert "not valid YAML" in _one_line(error)
    with pytest.raises(UnknownAccelerator) as error:
        find_accelerator(str(tmp_path / "absent.json"))
    assert "not found" in _one_line(error)


def test_bad_env_file_is_reported(tmp_path, monkeypatch):
    path = tmp_path / "broken.json"
    path.write_text("{")
    monkeypatch.setenv("INFERLEDGER_ACCELERATORS", str(path))
    with pytest.raises(UnknownAccelerator) as error:
        find_accelerator("h100")
    assert "broken.json" in _one_line(error)


@settings(max_examples=300, deadline=None)
@given(st.text(max_size=40))
def test_any_text_either_matches_or_raises_the_typed_error(text):
    # Fuzzed names must never escape as a traceback-worthy exception.
    try:
        part = find_accelerator(text)
    except UnknownAccelerator as error:
        assert "\n" not in str(error)
    else:
        assert part.name in {p.name for p in load_catalog()}


@pytest.mark.parametrize(
    "query, expected",
    [
        ("H20", "h20"),  # must not be taken for the H200, nor the H200 for it
        ("NVIDIA H20", "h20"),
        ("H200", "h200-sxm"),
        ("H800", "h800-sxm"),  # documented default: SXM5 80GB
        ("NVIDIA H800 80GB HBM3", "h800-sxm"),
        ("A800", "a800-sxm-80gb"),  # documented default: SXM 80GB
        ("A800-SXM4-80GB", "a800-sxm-80gb"),
        ("L20", "l20"),
        ("NVIDIA A40", "a40"),
        ("Tesla V100-SXM2-32GB", "v100-sxm2-32gb"),  # what nvidia-smi prints
        ("V100 32GB", "v100-sxm2-32gb"),
        ("V100", "v100-sxm2-32gb"),  # documented default
        ("Tesla V100-PCIE-16GB", "v100-pcie-16gb"),
        ("GeForce RTX 4080", "rtx-4080"),
        ("RTX 4080", "rtx-4080"),
        ("NVIDIA GeForce RTX 4070", "rtx-4070"),
        ("RTX 4060 Ti", "rtx-4060-ti-16gb"),  # documented default: the 16GB board
        ("RTX 3080", "rtx-3080"),
        ("GeForce RTX 3060", "rtx-3060"),
        ("Radeon RX 7900 XTX", "rx-7900-xtx"),
        ("7900 XTX", "rx-7900-xtx"),
        ("AMD Instinct MI250X", "mi250x"),
        ("MI355X", "mi355x"),
        ("HL-225", "gaudi2"),
        ("Gaudi2", "gaudi2"),
        ("Intel Gaudi 3", "gaudi3"),
        ("M3 Max", "m3-max"),
        ("Apple M3 Max", "m3-max"),
        ("Apple M4 Max", "m4-max"),
        ("M4 Pro", "m4-pro"),
        ("M1 Max", "m1-max"),
        ("M2 Max", "m2-max"),
        ("M2 Ultra", "m2-ultra"),
        ("M3 Ultra", "m3-ultra"),
        ("GB10", "dgx-spark"),
        ("DGX Spark", "dgx-spark"),
        ("GB200", "gb200"),  # unchanged by the GB10 alias
    ],
)
def test_added_aliases(query, expected):
    assert find_accelerator(query).name == expected


@pytest.mark.parametrize("query", ["RTX 4060 Ti 8GB", "RTX 4070 Ti", "7900 GRE", "RTX 3080 12GB", "M3 Max 30-core",
                                   "Radeon RX 7900", "RX 6800", "Jetson Orin Nano", "MI50 16GB", "GH200 144GB",
                                   # boards next to the hw17 additions that the catalogue does not hold
                                   "RTX 2070 SUPER", "RTX 2060 SUPER", "RTX 2060 12GB", "RTX 2080 SUPER", "RTX 3050 6GB",
                                   "RTX 5060 Ti 8GB", "RTX 5060", "GTX 1060 3GB", "GTX 1070", "RX 7700 XT", "RX 5700",
                                   "RX 6700", "RX 9060 XT 8GB", "RX 580 2048SP", "Jetson AGX Orin 32GB", "Apple M5 Pro",
                                   "M5 Max 32-core", "Quadro RTX 6000"])
def test_other_boards_of_the_same_number_do_not_resolve(query):
    # A variant word (Ti, SUPER, XT) or a different memory/bin names another board: no silent wrong match. ("RTX 4060",
    # "7900 XT", "RTX 4080 SUPER", "RTX 3080 Ti", "RTX 3060 Ti", "RTX 3070 Ti" and "RTX 5070" were here until those boards
    # joined the catalogue; test_added_cards_resolve_by_printed_name.)
    with pytest.raises(UnknownAccelerator):
        find_accelerator(query)


def test_bare_apple_generation_names_the_base_chip():
    # The base M1-M4 joined the catalogue: a bare "M4" is the base chip (its id), never the Pro or Max.
    assert find_accelerator("M4").name == "m4"
    assert find_accelerator("Apple M4").name == "m4"
    assert find_accelerator("M4 Pro").name == "m4-pro" and find_accelerator("M4 Max").name == "m4-max"
    with pytest.raises(UnknownAccelerator):
        find_accelerator("Apple")  # every Apple part carries the word, and no number says which: none, not the first


@pytest.mark.parametrize("query", ["Ryzen", "AI", "AMD Radeon Graphics", "AMD Radeon AI PRO R9700"])
def test_words_without_the_parts_number_name_no_part(query):
    # Strix Halo's labels hold `Ryzen`, `AI`, `Radeon` and `Graphics`: other parts print them too (the R9700, an
    # RDNA4 iGPU's `AMD Radeon Graphics`), so a name short of a label must carry the number.
    with pytest.raises(UnknownAccelerator):
        find_accelerator(query)


EXISTING_LABELS = {
    # Every label of the 27 parts before the additions, and the part it resolved to then.
    "a100-sxm-40gb": ["A100 SXM 40GB", "A100-sxm4-40gb", "A100 40GB sxm", "A100-SXM4-40GB", "A100 SXM4 40GB",
                      "A100 40GB", "A100-40GB", "NVIDIA A100 SXM 40GB"],
    "a100-sxm-80gb": ["A100 SXM 80GB", "A100-SXM4-80GB", "A100 80GB", "A100-80GB", "NVIDIA A100 SXM 80GB"],
    "a100-pcie-40gb": ["A100 PCIE 40GB", "A100 40GB pcie", "A100-PCIE-40GB"],
    "a100-pcie-80gb": ["A100 PCIE 80GB", "A100 80GB pcie", "A100-PCIE-80GB"],
    "h100-sxm": ["H100", "H100 SXM", "H100 SXM5", "H100-SXM5-80GB", "H100 SXM 80GB", "H100 80GB HBM3",
                 "H100-80GB-HBM3"],
    "h100-pcie": ["H100 PCIe", "H100-PCIE-80GB", "H100 PCIe 80GB", "H100 80GB PCIe"],
    "h100-nvl": ["H100 NVL", "H100-NVL-94GB", "H100 NVL 94GB", "H100 94GB"],
    "h200-sxm": ["H200", "H200 SXM", "H200 SXM5", "H200-SXM-141GB", "H200 141GB"],
    "b200": ["B200", "B200 SXM", "HGX B200", "B200 180GB", "B200-180GB"],
    "gb200": ["GB200", "GB200 NVL72", "GB200 GPU", "GB200 186GB"],
    "b300": ["B300", "B300 SXM", "HGX B300", "B300 268GB"],
    "gb300": ["GB300", "GB300 NVL72", "GB300 GPU", "GB300 288GB"],
    "rtx-pro-6000-server": ["RTX PRO 6000 Blackwell Server Edition", "RTX PRO 6000 Server",
                            "RTX PRO 6000 96GB server", "rtx_pro_6000_server"],
    "l40s": ["L40S", "L40S 48GB", "L40S-48GB"],
    "l4": ["L4", "L4 24GB", "L4-24GB"],
    "a10g": ["A10G", "A10G 24GB", "A10G-24GB"],
    "rtx-4090": ["RTX 4090", "4090", "RTX4090", "RTX 4090 24GB"],
    "rtx-3090": ["RTX 3090", "3090", "RTX3090", "RTX 3090 24GB"],
    "rtx-5090": ["RTX 5090", "5090", "RTX5090", "RTX 5090 32GB"],
    "rtx-6000-ada": ["RTX 6000 Ada", "RTX 6000 Ada Generation", "RTX 6000 Ada 48GB", "6000 Ada"],
    "rtx-a6000": ["RTX A6000", "A6000", "RTXA6000", "RTX A6000 48GB"],
    "l40": ["L40", "L40 48GB", "L40-48GB"],
    "a10": ["A10", "A10 24GB", "A10-24GB", "A10 PCIe"],
    "t4": ["T4", "Tesla T4", "T4 16GB", "T4-16GB"],
    "mi300x": ["MI300X", "MI300", "MI300X 192GB", "MI300X-192GB"],
    "mi325x": ["MI325X", "MI325", "MI325X 256GB", "MI325X-256GB"],
    "xeon-8480": ["Xeon 8480+", "Xeon Platinum 8480+", "8480+", "Xeon 8480", "Sapphire Rapids", "SPR", "CPU",
                  "xeon-spr"],
}


def test_existing_names_still_resolve_as_before():
    for expected, labels in EXISTING_LABELS.items():
        for label in [expected, *labels]:
            assert find_accelerator(label).name == expected, label


@pytest.mark.parametrize(
    "printed, expected",
    [
        # As nvidia-smi -L / CUDA's device query print them (GeForce and Tesla are kept or dropped by the tools).
        ("NVIDIA GeForce RTX 2080 Ti", "rtx-2080-ti"),
        ("Tesla P40", "p40"),
        ("Tesla P100-PCIE-16GB", "p100-pcie-16gb"),
        ("NVIDIA GeForce RTX 3090 Ti", "rtx-3090-ti"),
        ("NVIDIA GeForce RTX 3090", "rtx-3090"),  # the Ti must not capture the plain card, nor it the Ti
        ("NVIDIA GeForce RTX 3070", "rtx-3070"),
        ("NVIDIA GeForce RTX 4060", "rtx-4060"),
        ("NVIDIA GeForce RTX 4060 Ti", "rtx-4060-ti-16gb"),
        ("NVIDIA GeForce RTX 4070 Ti SUPER", "rtx-4070-ti-super"),
        ("NVIDIA GeForce RTX 4070", "rtx-4070"),
        ("NVIDIA GeForce RTX 5080", "rtx-5080"),
        ("NVIDIA GeForce RTX 5070 Ti", "rtx-5070-ti"),
        ("NVIDIA GH200 480GB", "gh200"),
        ("Jetson Orin Nano Super", "jetson-orin-nano-super"),
        # rocminfo's Marketing Name / rocm-smi's product name.
        ("AMD Radeon RX 7900 XT", "rx-7900-xt"),
        ("AMD Radeon RX 7900 XTX", "rx-7900-xtx"),
        ("AMD Radeon RX 6800 XT", "rx-6800-xt"),
        ("AMD Radeon RX 9070 XT", "rx-9070-xt"),
        ("AMD Instinct MI50", "mi50"),
        ("Radeon Instinct MI50", "mi50"),
        ("Radeon Instinct MI50 32GB", "mi50"),
        ("AMD Instinct MI100", "mi100"),
        ("AMD Radeon 8060S Graphics", "strix-halo"),
        ("Ryzen AI Max+ 395", "strix-halo"),
        # SYCL / Level Zero device names.
        ("Intel(R) Arc(TM) A770 Graphics", "arc-a770"),
        ("Intel(R) Arc(TM) B580 Graphics", "arc-b580"),
        # llama.cpp's Metal 'GPU name'.
        ("Apple M1", "m1"),
        ("Apple M2", "m2"),
        ("Apple M2 Max", "m2-max"),  # the base chip must not take the Max, nor the Max the base chip
        ("Apple M2 Pro", "m2-pro"),
        ("Apple M2 Ultra", "m2-ultra"),
        ("Apple M3", "m3"),
        ("Apple M3 Pro", "m3-pro"),
        ("Apple M3 Max", "m3-max"),
        ("Apple M1 Pro", "m1-pro"),
        ("Apple M1 Max", "m1-max"),
        ("Apple M1 Ultra", "m1-ultra"),
        ("Apple M4", "m4"),
        ("Apple M4 Pro", "m4-pro"),
        # hw17 additions, as nvidia-smi / rocminfo / SYCL / Metal print them; each next to the board it must not take.
        ("NVIDIA GeForce RTX 2070", "rtx-2070"),
        ("NVIDIA GeForce RTX 2060", "rtx-2060"),
        ("NVIDIA GeForce RTX 2080", "rtx-2080"),
        ("NVIDIA GeForce RTX 2080 Ti", "rtx-2080-ti"),
        ("NVIDIA GeForce RTX 3050", "rtx-3050"),
        ("NVIDIA GeForce RTX 3060 Ti", "rtx-3060-ti"),
        ("NVIDIA GeForce RTX 3060", "rtx-3060"),
        ("NVIDIA GeForce RTX 3070 Ti", "rtx-3070-ti"),
        ("NVIDIA GeForce RTX 3080 Ti", "rtx-3080-ti"),
        ("NVIDIA GeForce RTX 3080", "rtx-3080"),
        ("NVIDIA GeForce RTX 4070 SUPER", "rtx-4070-super"),
        ("NVIDIA GeForce RTX 4070 Ti SUPER", "rtx-4070-ti-super"),
        ("NVIDIA GeForce RTX 4080 SUPER", "rtx-4080-super"),
        ("NVIDIA GeForce RTX 4080", "rtx-4080"),
        ("NVIDIA GeForce RTX 5060 Ti", "rtx-5060-ti-16gb"),  # documented default: the 16GB board
        ("NVIDIA GeForce RTX 5070", "rtx-5070"),
        ("NVIDIA GeForce RTX 5070 Ti", "rtx-5070-ti"),
        ("NVIDIA GeForce GTX 1080 Ti", "gtx-1080-ti"),
        ("NVIDIA GeForce GTX 1080", "gtx-1080"),
        ("NVIDIA GeForce GTX 1070 Ti", "gtx-1070-ti"),
        ("NVIDIA GeForce GTX 1060 6GB", "gtx-1060-6gb"),
        ("Quadro RTX 8000", "quadro-rtx-8000"),
        ("Tesla A30", "a30"),
        ("NVIDIA A30", "a30"),
        ("Jetson AGX Thor", "jetson-agx-thor"),
        ("Jetson AGX Orin 64GB", "jetson-agx-orin-64gb"),
        ("Jetson AGX Orin", "jetson-agx-orin-64gb"),  # documented default: the 64GB module
        ("Jetson Orin Nano Super", "jetson-orin-nano-super"),
        ("AMD Radeon Instinct MI60", "mi60"),
        ("AMD Instinct MI210", "mi210"),
        ("AMD Radeon RX 7800 XT", "rx-7800-xt"),
        ("AMD Radeon RX 6700 XT", "rx-6700-xt"),
        ("AMD Radeon RX 5700 XT", "rx-5700-xt"),
        ("AMD Radeon RX 9060 XT", "rx-9060-xt"),  # documented default: the 16GB board
        ("AMD Radeon RX 580 Series", "rx-580"),
        ("Intel(R) Arc(TM) Pro B60 Graphics", "arc-pro-b60"),
        ("Intel(R) Arc(TM) B580 Graphics", "arc-b580"),
        ("Apple M5", "m5"),
        ("Apple M5 Max", "m5-max"),
    ],
)
def test_added_cards_resolve_by_printed_name(printed, expected):
    assert find_accelerator(printed).name == expected


def test_gfx_targets_and_generic_words_are_not_aliases():
    # gfx906 is the MI50, MI60 and Radeon VII; gfx1151 every Strix Halo bin; "Hopper" a generation, not the GH200.
    for query in ("gfx906", "gfx1151", "Hopper", "Grace Hopper", "Orin"):
        with pytest.raises(UnknownAccelerator):
            find_accelerator(query)


def test_added_names_leave_earlier_short_names_alone():
    # Short names of earlier parts that share a number or a word with the 27 new ones still resolve as before
    # (test_existing_names_still_resolve_as_before covers the first 27 parts' every label).
    for label, expected in (("7900 XTX", "rx-7900-xtx"), ("RTX 4060 Ti", "rtx-4060-ti-16gb"), ("3090", "rtx-3090"),
                            ("M2 Max", "m2-max"), ("M1 Max", "m1-max"), ("V100", "v100-sxm2-32gb"), ("H200", "h200-sxm"),
                            ("GB200", "gb200"), ("GB10", "dgx-spark")):
        assert find_accelerator(label).name == expected, label


@pytest.mark.parametrize(
    "line, expected",
    [
        ("GPU 0: Tesla P40 (UUID: GPU-abc)", ("p40", "Tesla P40")),
        ("GPU 0: NVIDIA GeForce RTX 2080 Ti (UUID: GPU-abc)", ("rtx-2080-ti", "NVIDIA GeForce RTX 2080 Ti")),
        ("Device 0: NVIDIA GeForce RTX 3090 Ti, compute capability 8.6, VMM: yes",
         ("rtx-3090-ti", "NVIDIA GeForce RTX 3090 Ti")),
        ("  Marketing Name:          AMD Instinct MI100", ("mi100", "AMD Instinct MI100")),
        ("GPU 0: NVIDIA GeForce RTX 4070 SUPER (UUID: GPU-abc)", ("rtx-4070-super", "NVIDIA GeForce RTX 4070 SUPER")),
        ("GPU 1: NVIDIA GeForce GTX 1080 Ti (UUID: GPU-abc)", ("gtx-1080-ti", "NVIDIA GeForce GTX 1080 Ti")),
    ],
)
def test_a_log_printing_an_added_card_names_it(line, expected):
    # diagnose.device reads the card from the driver tools' lines and resolves it through find_accelerator.
    from inferledger.diagnose.device import named_card

    assert named_card([line]) == expected
