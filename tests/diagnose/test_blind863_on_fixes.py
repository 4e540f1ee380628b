"""Blind rounds 863 on: the general fixes of the thirty-seventh session. Expected figures are worked out here."""

from __future__ import annotations

from blind_helpers import diagnosed, parsed, write


def _said(diagnosis, *words) -> bool:
    """Whether one piece of the diagnosis' evidence says every one of `words`."""
    return any(all(word in evidence.text for word in words) for evidence in diagnosis.evidence)


def _fired(diagnosis, rule: str) -> bool:
    return any(evidence.rule == rule for evidence in diagnosis.evidence)


# llama-cli on an Intel Arc A770 (SYCL) under a locale with decimal commas (blind426): the loader's metadata names the
# model (general.name) and its size, the SYCL device table and the memory breakdown at exit name the card; no command
# line names a model file.
_SYCL_RUN = """\
print_info: file type   = F16
print_info: file size   = 14,19 GiB (16,00 BPW)
print_info: n_layer          = 28
print_info: model type       = 7B
print_info: general.name     = MathTutor 7B H_v0.0.1
load_tensors: offloaded 29/29 layers to GPU
load_tensors:        SYCL0 model buffer size = 13486,77 MiB
Found 1 SYCL devices:
|ID|        Device Type|                                   Name|Version|units  |group   |group|size   |  Driver version|
|--|-------------------|---------------------------------------|-------|-------|--------|-----|-------|----------------|
| 0| [level_zero:gpu:0]|                Intel Arc A770 Graphics|  12.55|    512|    1024|   32| 16225M|      1.13.36015|
llama_kv_cache: size =  224,00 MiB (  4096 cells,  28 layers,  1/1 seqs), K (f16):  112,00 MiB, V (f16):  112,00 MiB
common_perf_print: prompt eval time =     116,10 ms /     9 tokens (   12,90 ms per token,    77,52 tokens per second)
common_perf_print:        eval time =   40380,08 ms /   511 runs   (   79,02 ms per token,    12,65 tokens per second)
common_perf_print:       total time =   40676,85 ms /   520 tokens
"""


def test_a_decimal_comma_file_size_is_read(tmp_path):
    from inferledger.diagnose.parsers import llamacpp

    records = parsed(llamacpp, write(tmp_path, _SYCL_RUN))
    sizes = [record.metrics["weights_bytes"] for record in records if "weights_bytes" in record.metrics]
    assert sizes == [14.19 * 2**30]  # was none: `14,19 GiB` stopped the size's pattern at its comma
    caches = [record.metrics["kv_cache_bytes"] for record in records if "kv_cache_bytes" in record.metrics]
    assert caches == [224 * 2**20]


def test_the_loaders_model_name_and_the_sycl_card_judge_decode(tmp_path):
    diagnosis = diagnosed(tmp_path, _SYCL_RUN)
    # F16 is 2 bytes a weight: 7e9 × 2 = 14.0 GB a step at the A770's 560 GB/s is a floor of 25 ms and more (the
    # fixed per-layer cost on top); 79.02 ms is at most 25 / 79.02 = 32 % of that speed, under the 40 % the rule asks.
    assert diagnosis.verdict == "decode-bound"  # was healthy: no card and no model, so the fixed cutoff judged it
    assert _fired(diagnosis, "hardware-named-decode-far-below-floor")
    assert _said(diagnosis, "MathTutor 7B", "560 GB/s", "79.02 ms/token")


def test_the_memory_breakdown_names_a_cuda_card(tmp_path):
    from inferledger.diagnose.device import named_card

    line = ("llama_memory_breakdown_print: |   - CUDA0 (NVIDIA GeForce RTX 4090) | 24080 = 1480 + (21860 = 19200 +  "
            "2048 +  612) +  740 |")
    assert named_card([line]) == ("rtx-4090", "NVIDIA GeForce RTX 4090")
    # a remote device (llama.cpp's RPC) is no card the catalogue holds: no card named
    assert named_card(["llama_memory_breakdown_print: |   - RPC0 (rog:50052) | 0 = 0 + (0 = 0 + 0 + 0) + 0 |"]) is None


def test_a_metadata_name_without_a_size_takes_the_model_type(tmp_path):
    from inferledger.diagnose.parsers import llamacpp

    text = ("llm_load_print_meta: model type       = 13B\n"
            "llm_load_print_meta: general.name     = LLaMA v2\n"
            "llama_print_timings:        eval time =  5000.00 ms /   100 runs   (   50.00 ms per token,    20.00 tokens "
            "per second)\n")
    models = [record.labels["model"] for record in parsed(llamacpp, write(tmp_path, text)) if "model" in record.labels]
    assert models == ["LLaMA v2 13B"]
    # a type llama.cpp does not know (`?B`) gives a sizeless name no model
    unknown = text.replace("= 13B", "= ?B")
    assert not [record for record in parsed(llamacpp, write(tmp_path, unknown, "unknown.log"))
                if "model" in record.labels]
