"""Blind rounds 796 on: the general fixes of the thirty-fifth session. Expected figures are worked out here."""

from __future__ import annotations

from blind_helpers import FIXTURES, diagnosed


def _said(diagnosis, *words) -> bool:
    """Whether one piece of the diagnosis' evidence says every one of `words`."""
    return any(all(word in evidence.text for word in words) for evidence in diagnosis.evidence)


def _fired(diagnosis, rule: str) -> bool:
    return any(evidence.rule == rule for evidence in diagnosis.evidence)


# candle-vllm's scheduler (Rust, tracing's layout: the stamp, the level right-aligned in five, the target) logging a
# 178,460-token prompt chunk by chunk, with no compose prefix before it (blind779's lines as `docker logs` prints them).
_TRACING_PROGRESS = """\
2025-09-15T02:30:04.602320Z  INFO candle_vllm::scheduler: Seq 3 chunk prefilled 8192/178460 tokens
2025-09-15T02:30:15.688730Z  INFO candle_vllm::scheduler: Seq 3 chunk prefilled 16384/178460 tokens
2025-09-15T02:30:26.770282Z  INFO candle_vllm::scheduler: Seq 3 chunk prefilled 24576/178460 tokens
2025-09-15T02:30:37.889952Z  INFO candle_vllm::scheduler: Seq 3 chunk prefilled 32768/178460 tokens
"""


def test_a_rust_tracing_stamp_is_the_lines_own_time(tmp_path):
    diagnosis = diagnosed(tmp_path, _TRACING_PROGRESS, "candle.log")
    # 32768 - 8192 = 24576 tokens in 37.889952 - 4.602320 = 33.288 s: 738 tok/s; 32768 / 178460 = 18% read
    assert diagnosis.verdict == "prefill-bound"  # was insufficient-data: the stamps were cleaned off as docker's
    assert _said(diagnosis, "18% of it read")
    assert _said(diagnosis, "178,460 tokens at 738 tok/s")


def test_docker_stamps_before_an_engine_line_are_still_cleaned_off(tmp_path):
    # guard (the first pair; the second failed before): docker --timestamps before vLLM's own `ERROR 05-12 …` / `INFO 05-12 …` lines is the deployment's prefix
    from inferledger.diagnose.read import clean_line

    vllm_line = "ERROR 05-12 08:01:39 [engine.py:160] RuntimeError: CUDA error: out of memory"
    assert clean_line("2026-05-12T08:01:39.331095044Z " + vllm_line) == vllm_line
    tracing_line = "2025-09-15T02:30:04.602320Z ERROR candle_vllm::scheduler: step failed"
    assert clean_line("2026-05-12T08:01:39.331095044Z " + tracing_line) == tracing_line


# `ollama ps` from the terminal, then again after an editor's API calls, pasted as Markdown tables (ollama#7081, round
# 796): the same model ID, 9.6 GB all on the GPU, then 19 GB at 43%/57% CPU/GPU.
_PS_TWICE = """\
| NAME                     | ID            | SIZE    | PROCESSOR  | UNTIL               |
|--------------------------|---------------|---------|------------|---------------------|
| codestral:22b-v0.1-q2_K   | 0e1127d332ef  | 9.6 GB  | 100% GPU   | 4 minutes from now  |

| NAME                     | ID            | SIZE    | PROCESSOR          | UNTIL        |
|--------------------------|---------------|---------|--------------------|--------------|
| codestral:22b-v0.1-q2_K   | 0e1127d332ef  | 19 GB   | 43%/57% CPU/GPU    | Stopping...  |
"""


def test_a_model_reloaded_larger_and_off_the_gpu_grew_its_cache(tmp_path):
    diagnosis = diagnosed(tmp_path, _PS_TWICE, "ps.md")
    # one ID is one set of weights: 19 - 9.6 = 9.4 GB grew with the reload, and the share on the GPU fell to 57%
    assert diagnosis.verdict == "kv-capacity"  # was insufficient-data: the Markdown rows were not read
    assert _said(diagnosis, "held 9.6 GB with 100% on the GPU, then 19.0 GB with 57%", "the 9.4 GB it grew")
    # the fix is a shorter context, not the longer one the single-stream runners' kv-capacity advice asks for
    assert any("smaller num_ctx" in tip for tip in diagnosis.advice)
    assert not any("larger context window" in tip for tip in diagnosis.advice)


def test_another_model_or_a_smaller_reload_is_no_growth(tmp_path):
    # guard: two models side by side (blind8's llama3:70b split and llama3:latest on the GPU) are two IDs, and the same
    # ID reloaded smaller is no cache growth
    two_models = _PS_TWICE.replace("0e1127d332ef  | 19 GB", "a6990ed6be41  | 19 GB")
    assert not _fired(diagnosed(tmp_path, two_models, "two.md"), "state-reload-pushes-layers-off")
    smaller = _PS_TWICE.replace("19 GB ", "8.1 GB")
    assert not _fired(diagnosed(tmp_path, smaller, "smaller.md"), "state-reload-pushes-layers-off")


def test_a_cache_that_pushes_layers_off_is_answered_with_a_shorter_context():
    # ollama#12305 (blind290): 20 GiB of KV beside 13 GiB of weights, no layer on the card; was advised a larger
    # context window, the single-stream runners' advice for a window that fills
    from inferledger.diagnose import diagnose_files

    path = FIXTURES / "blind290_logs" / "ollama__windows-runner-offload-zero-layers-kv-20gib-quadro-rtx3000.txt"
    advice = diagnose_files([path]).advice
    assert any("smaller num_ctx" in tip for tip in advice)
    assert not any("larger context window" in tip for tip in advice)


def test_a_context_cut_to_the_kv_cache_at_start_is_kv_capacity(tmp_path):
    # LMDeploy TurboMind asked for a 202,752-token context on one 32 GB V100 (round 802): the cache held 4,928
    log = ("[TM][WARNING] [TM] `max_context_token_num` is not set, default to 202752.\n"
           "[TM][WARNING] [SegMgr] prefix caching is enabled\n"
           "[TM][WARNING] `session_len` truncated to 4928 due to limited KV cache memory\n")
    diagnosis = diagnosed(tmp_path, log, "turbomind.log")
    assert diagnosis.verdict == "kv-capacity"  # was insufficient-data: an unknown layout with no numbers read
    assert any(evidence.lines == [3] for evidence in diagnosis.evidence if evidence.verdict == "kv-capacity")
