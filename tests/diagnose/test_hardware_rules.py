"""Slow decode judged against the hardware (the ledger's floor, and its realistic estimate when
inferledger.ledger.realistic offers one) instead of a fixed tok/s cutoff; the model named by the log itself; and
what the log says about its hardware without --model/--gpu.

Floor arithmetic (as test_roofline.py): Llama-2-13B fp16 reads (13,015,864,320 - 32,000 x 5,120) x 2 bytes of
weights plus ~0.82 MB of KV per context token each step; on an H100 SXM (3.35 TB/s) that is ~7.8 ms a step."""

from __future__ import annotations

from pathlib import Path

import pytest

from inferledger.diagnose import diagnose_files

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures" / "logs"
SINGLE = FIXTURES / "vllm__v06-single-request-decode.txt"
V0_LINE = SINGLE.read_text().split("\n")[1]
MODEL, GPU = "meta-llama/Llama-2-13b-hf", "h100 sxm"


def _floor_seconds() -> float:
    weights = (13_015_864_320 - 32_000 * 5_120) * 2
    kv = (1024 + 255.5 + 1) * 2 * 40 * 40 * 128 * 2  # ISL 1024, OSL 256 assumed: the middle decode step
    return (weights + kv) / 3.35e12


@pytest.fixture
def floor_only(monkeypatch):
    """The ledger without its realistic estimate: the floor alone judges."""
    import inferledger.ledger.request as request  # diagnose imports it when it runs

    real = request.request_account
    monkeypatch.setattr(request, "request_account", lambda *a, **kw: real(*a, **{**kw, "realistic": False}))


def test_far_below_the_floor_is_decode_bound(floor_only):
    # 41.7 tok/s per stream: 1/41.7 = 24 ms a step against the ~7.8 ms floor, 33 % of the speed the card allows.
    diagnosis = diagnose_files([SINGLE], model=MODEL, gpu=GPU, precision="fp16")
    assert diagnosis.verdict == "decode-bound"
    item = next(item for item in diagnosis.evidence if item.rule == "hardware-decode-far-below-floor")
    assert item.numbers["decode_roofline_fraction"] == pytest.approx(_floor_seconds() * 41.7, rel=0.02)
    assert not any(item.rule.endswith("no-hardware") or item.rule == "windows-slow-streams"
                   for item in diagnosis.evidence)  # the fixed cutoff stands down when the hardware judged
    assert "ledger_realistic_decode_seconds_per_token" not in diagnosis.roofline


def test_near_the_floor_is_healthy(tmp_path, floor_only):
    # 110 tok/s: 9.1 ms a step, 7.8 / 9.1 = 86 % of the floor's speed (>= 75 %): as fast as the memory allows.
    path = tmp_path / "vllm.log"
    path.write_text(V0_LINE.replace("41.7 tokens/s", "110.0 tokens/s") + "\n")
    diagnosis = diagnose_files([path], model=MODEL, gpu=GPU, precision="fp16")
    assert diagnosis.verdict == "healthy"
    item = next(item for item in diagnosis.evidence if item.rule == "hardware-decode-near-floor")
    assert item.numbers["decode_roofline_fraction"] == pytest.approx(_floor_seconds() * 110.0, rel=0.02)


def test_the_realistic_estimate_judges_when_the_ledger_has_one(tmp_path):
    # The rule's threshold is 1.5x the realistic step: 1.7x fires it, 1.4x does not. The realistic step itself is
    # the ledger's (tested in tests/ledger); here only the rule that reads it is checked.
    from inferledger.hardware import find_accelerator
    from inferledger.ledger.request import request_account
    from inferledger.model import load_model

    realistic = request_account(load_model(MODEL), find_accelerator(GPU), isl=1024, osl=256,
                                precision="fp16").realistic.decode_seconds_per_token
    assert realistic > _floor_seconds()
    path = tmp_path / "vllm.log"
    path.write_text(V0_LINE.replace("41.7 tokens/s", f"{1 / (1.7 * realistic):.1f} tokens/s") + "\n")
    diagnosis = diagnose_files([path], model=MODEL, gpu=GPU, precision="fp16")
    assert diagnosis.roofline["ledger_realistic_decode_seconds_per_token"] == pytest.approx(realistic)
    assert diagnosis.verdict == "decode-bound"
    assert any(item.rule == "hardware-decode-below-realistic" for item in diagnosis.evidence)
    path.write_text(V0_LINE.replace("41.7 tokens/s", f"{1 / (1.4 * realistic):.1f} tokens/s") + "\n")
    diagnosis = diagnose_files([path], model=MODEL, gpu=GPU, precision="fp16")
    assert not any(item.rule == "hardware-decode-below-realistic" for item in diagnosis.evidence)


def test_model_named_by_the_vllm_start_up_line(tmp_path):
    config = (f"INFO 03-14 01:59:50 llm_engine.py:237] Initializing an LLM engine (v0.6.3) with config: "
              f"model='{MODEL}', speculative_config=None, tokenizer='{MODEL}', dtype=torch.float16, "
              "tensor_parallel_size=1, enable_prefix_caching=False")
    path = tmp_path / "vllm.log"
    path.write_text(config + "\n" + V0_LINE + "\n")
    diagnosis = diagnose_files([path], gpu=GPU, precision="fp16")  # no --model: the log names it
    assert diagnosis.roofline["lines"][0] == f"named by the log: model {MODEL}"
    assert diagnosis.verdict == "decode-bound"
    assert diagnosis.capacity["tensor_parallel_size"] == 1


def test_without_hardware_the_notes_say_which_judgement_needed_it():
    diagnosis = diagnose_files([FIXTURES / "tgi__cpu-backend-generate-success-line.txt"])
    assert diagnosis.verdict == "decode-bound"
    assert "fixed cutoff" in diagnosis.evidence[0].text and "--model" in diagnosis.evidence[0].text
    assert any("no --model/--gpu" in note for note in diagnosis.notes)


def test_llama_bench_size_column_against_a_named_card():
    # tg128 at 0.70 t/s on a 2.30 GiB model: 2.30 x 2**30 x 0.70 = 1.73 GB/s, against an RTX 4090's 1,008 GB/s.
    found = Path(__file__).resolve().parent.parent / "fixtures" / "found_logs"
    diagnosis = diagnose_files([found / "llamacpp__llama-bench-qnn-right-aligned.txt"], gpu="rtx-4090")
    item = next(item for item in diagnosis.evidence if item.rule == "hardware-decode-far-below-floor")
    assert item.numbers["bandwidth_fraction"] == pytest.approx(2.30 * 2**30 * 0.70 / 1008e9)
    assert diagnosis.verdict == "decode-bound"
