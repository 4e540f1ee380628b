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
