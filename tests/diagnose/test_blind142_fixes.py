"""Blind round 142 on's general fixes (thirteenth session). Expected figures are worked out here."""

from __future__ import annotations

from inferledger.diagnose import diagnose_files
from inferledger.diagnose.device import device_records

# A poster's table of decode speed on a CPU box named only by its vector instruction set. 6.5 tok/s is 154 ms a
# token: slower than the GPU cutoff (10 tok/s, 100 ms) and well inside a CPU's (1 tok/s).
CPU_TABLE = """\
AVX512 llama.cpp speed report
| Model | Quantization | TPS |
|---|---|---|
| Qwen3-30B-A3B | Q2_K | 6.5 |
| Qwen3-30B-A3B | Q4_K_M | 6.5 |
"""


def test_a_run_named_by_its_vector_instruction_set_is_a_cpu_run(tmp_path):
    path = tmp_path / "cpu.txt"
    path.write_text(CPU_TABLE)
    diagnosis = diagnose_files([path])
    assert diagnosis.verdict == "healthy"
    assert any("names a CPU (AVX512)" in note for note in diagnosis.notes)
    # Without the word the same rates are slow by the GPU's cutoff.
    path.write_text(CPU_TABLE.replace("AVX512 ", ""))
    assert diagnose_files([path]).verdict == "decode-bound"
    for named in ("an AVX2 box, 8 threads", "AVX-512 server"):
        assert device_records(f"{named}\n")[0].labels["backend"] == "cpu"
    # llama.cpp's system_info flags are printed by every build, GPU ones too: not a CPU named.
    assert device_records("system_info: n_threads = 8 | AVX2 = 1 | AVX512 = 0 | AVX512_VNNI = 0 |\n") == []
