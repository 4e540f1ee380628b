"""Blind rounds 505 on: the general fixes of the twenty-fourth session. Expected figures are worked out here."""

from __future__ import annotations

from blind_helpers import rules, write

from inferledger.diagnose import diagnose_files


def _prefill_lines(rates: tuple, new_tokens: int = 8192) -> str:
    """SGLang Prefill lines with nothing running or queued, one a minute, stating `rates` as input throughput."""
    return "".join(
        f"[2026-04-16 20:{10 + minute:02d}:00] Prefill batch, #new-seq: 1, #new-token: {new_tokens}, "
        f"#cached-token: 0, token usage: 0.02, #running-req: 0, #queue-req: 0, input throughput (token/s): {rate}, "
        "cuda graph: False\n" for minute, rate in enumerate(rates))


def test_a_prompt_rate_no_card_computes_that_slowly_is_no_prefill_speed(tmp_path):
    # Llama-3.1-8B (8.03 B parameters) on an H100 SXM (989 TFLOP/s bf16, dense): a prompt token is ~2 × 8.03e9 =
    # 16 GFLOP, so 63 tok/s is 63 × 16.06e9 / 989e12 = 0.10% of the peak, where tuned prefill reaches 30-60% and an
    # engine without its fast kernels a few percent: SGLang's input rate is the last batch's tokens over the time
    # since the line before, idle time included. Without the card the same lines are a prompt read slowly.
    log = write(tmp_path, _prefill_lines((14.39, 63.15)))
    share = 63.15 * 2 * 8.03e9 / 989e12
    assert share < 0.01
    carded = diagnose_files([log], model="meta-llama/Llama-3.1-8B", gpu="h100-sxm")
    assert carded.verdict == "measurement-artifact"
    assert "windows-prompt-rate-idle" in rules(carded) and "windows-prompt-in-chunks" not in rules(carded)
    bare = diagnose_files([log])
    assert bare.verdict == "prefill-bound" and "windows-prompt-in-chunks" in rules(bare)


def test_a_model_known_by_name_only_is_sized_from_it(tmp_path):
    # `acme/Foo-4B` is in no catalogue: 4e9 parameters from its name, a prompt token 2 × 4e9 = 8 GFLOP; on an H20
    # (148 TFLOP/s bf16) 63 tok/s is 63 × 8e9 / 148e12 = 0.34% of the peak.
    log = write(tmp_path, _prefill_lines((14.39, 63.15)))
    diagnosis = diagnose_files([log], model="acme/Foo-4B", gpu="h20")
    assert diagnosis.verdict == "measurement-artifact"
    (text,) = [item.text for item in diagnosis.evidence if item.rule == "windows-prompt-rate-idle"]
    assert f"{63.15 * 8e9 / 148e12:.2%}" in text


def test_a_slow_prompt_the_card_could_compute_that_slowly_stays_prefill(tmp_path):
    # 2,000 tok/s of Llama-3.1-8B on an H100 SXM is 2000 × 16.06e9 / 989e12 = 3.2% of the peak: slow, but an engine's
    # speed (eager, no fast attention), so 8,192-token chunks read at it are still the prompt's cost.
    log = write(tmp_path, _prefill_lines((1900.0, 2000.0), new_tokens=65536))
    assert 2000 * 2 * 8.03e9 / 989e12 > 0.01
    diagnosis = diagnose_files([log], model="meta-llama/Llama-3.1-8B", gpu="h100-sxm")
    assert "windows-prompt-rate-idle" not in rules(diagnosis)
    assert diagnosis.verdict == "prefill-bound" and "windows-prompt-in-chunks" in rules(diagnosis)
