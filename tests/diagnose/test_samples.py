"""Every sample of the logs folder (copied to tests/fixtures/logs, same names) parses and gets the verdict that
FORMATS.md §5 gives it.

Label -> verdict mapping (FORMATS.md §5): baseline -> healthy, preemption -> kv-capacity, cold-start ->
measurement-artifact; decode-bound, prefill-bound, queueing, kv-capacity and measurement-artifact are verdicts
already. Labels that describe the file rather than a verdict get this rule:
  * capacity-info (startup lines only, no traffic): insufficient-data, with the capacity facts as evidence;
    when it also carries kv-capacity (only ~1 full-length request fits) the verdict is kv-capacity.
  * format-only / format-quirk with no verdict label: a format sample; insufficient-data or healthy are both
    accepted (an idle or snapshot-only file has nothing to diagnose, a tiny healthy excerpt may read as healthy).
  * throughput-test (all requests issued at once, §1.3): queueing (TTFT is queue wait by construction) or
    insufficient-data.
Where a sample carries two verdict labels either verdict is right, and the evidence must mention both.

The numbers checked per sample are the Numbers column of §5 (and the sample text), with the unit conversion
written out: ms ÷ 1000 -> s, % ÷ 100 -> fraction, vLLM/SGLang "GB"/"MB" are binary (bytes ÷ 2**30 / 2**20 in
their source), ns ÷ 1e9 -> s.
"""

from __future__ import annotations

import math
from pathlib import Path

import pytest

from inferledger.diagnose import diagnose_files
from inferledger.diagnose.read import LogFile, detect_formats, iter_records

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures" / "logs"

HEALTHY = {"healthy"}
FORMAT_ONLY = {"insufficient-data", "healthy"}
CAPACITY = {"insufficient-data"}

# file -> (accepted verdicts, labels that must all appear among the evidence verdicts)
EXPECTED = {
    "aiperf__profile-export-json-excerpt.txt": (HEALTHY, set()),
    "genaiperf__table-ms-reasoning-ttft.txt": ({"healthy", "measurement-artifact"},
                                               {"healthy", "measurement-artifact"}),
    "guidellm__v02-sweep-wrapped-text-table.txt": (FORMAT_ONLY, set()),
    "koboldcpp__ctxlimit-stopped-early-78-of-387.txt": ({"decode-bound"}, set()),
    "llamacpp__2024-server-json-style-timings.txt": (HEALTHY, set()),
    "llamacpp__2026-server-per-line-timings-graphs-reused.txt": (HEALTHY, set()),
    # One streamed request, 18:32:17 to 18:32:24 (7 s), first token within its first second: no count, no rate.
    "lmstudio__server-one-line-entries-streamed-request.txt": ({"insufficient-data"}, set()),
    "llamacpp__batched-bench-table-metal.txt": (HEALTHY, set()),
    "llmperf__individual-responses-json-excerpt.txt": (FORMAT_ONLY, set()),
    "mlxlm__generate-32k-prompt-pre-post.txt": ({"prefill-bound"}, set()),
    "ollama__2024-scheduler-offload-memory-startup.txt": (CAPACITY, set()),
    # load 101 ms of a 175 ms call, the answer's 18 tokens timed apart from it (52.5 ms, 2.9 ms a token): the answer is
    # judged and the load said (thirty-seventh session), or the call read as mostly load
    "ollama__api-usage-json-doc-example.txt": ({"healthy", "measurement-artifact"}, set()),
    "ollama__verbose-mistral-2024-baseline.txt": (HEALTHY, set()),
    "openvino__benchmark-vanilla-genai-readme-tinyllama.txt": (HEALTHY, set()),
    "sglang__2025-decode-batch-drain.txt": (HEALTHY, set()),
    "sglang__2026-decode-cuda-graph-small-batch.txt": (HEALTHY, set()),
    "sglang__bench-one-batch-warmup-and-benchmark-mlx.txt": ({"healthy"}, set()),
    "sglang__bench-serving-2026-cookbook-deepseek-ocr.txt": (HEALTHY, set()),
    "sglang__prometheus-2024-first-version.txt": (FORMAT_ONLY, set()),
    "sglang__prometheus-v051-exposition.txt": (FORMAT_ONLY, set()),
    "sglang__startup-dp-ep-kv-cache-allocated.txt": (CAPACITY, set()),
    "sglang__startup-max-total-num-tokens-line.txt": (CAPACITY, set()),
    "tabbyapi__metrics-id-12k-new-prompt-tokens-wrapped.txt": ({"prefill-bound"}, set()),
    "textgenwebui__exllamav2-hf-command-r-two-outputs.txt": (FORMAT_ONLY, set()),
    "tgi__cpu-backend-generate-success-line.txt": ({"decode-bound"}, set()),
    # Prefill of 100-350 sequences of 40 tokens in 0.37-1.46 s on an A100: a latency sweep, nothing wrong.
    "tgibenchmark__a100-prefill-latency-by-batch-pr-1243.txt": (HEALTHY, set()),
    # A throughput run (issue rate 1.2e17) with no TTFT in the excerpt: its queue is by design and not seen; the
    # numbers it states (7,517 output tok/s at ~1,019 in flight) show nothing wrong.
    "trtllm__bench-deepseek-r1-header-and-overview.txt": ({"healthy", "queueing", "insufficient-data"}, set()),
    "trtllm__pytrtllm-prometheus-excerpt.txt": (FORMAT_ONLY, set()),
    "trtllm__serve-metrics-endpoint-trt-backend-json.txt": (HEALTHY, set()),
    "vllm__bench-serve-goodput-poisson-15rps.txt": (HEALTHY, set()),
    "vllm__prometheus-v0-exposition-excerpt.txt": (FORMAT_ONLY, set()),
    "vllm__prometheus-v1-engine-label-decode-time.txt": (FORMAT_ONLY, set()),
    "vllm__v02-llm-engine-stats-line.txt": (HEALTHY, set()),
    "vllm__v03-startup-weights-gpu-blocks.txt": (CAPACITY, set()),
    "vllm__v05-recompute-preemption-warning.txt": ({"kv-capacity"}, set()),
    "vllm__v06-single-request-decode.txt": (HEALTHY, set()),
    "vllm__v09-startup-kv-tokens-graph-capture.txt": (CAPACITY, set()),
    "vllm__v1-2026-mm-cache-and-specdecode-lines.txt": (FORMAT_ONLY, set()),
    "vllm__v1-single-line-prefill-heavy.txt": ({"prefill-bound", "queueing"}, {"prefill-bound", "queueing"}),
    "vllm__v1-specdecoding-metrics-line.txt": (FORMAT_ONLY, set()),
    "vllm__v1-startup-kv-cache-tokens-qwen3-14b.txt": ({"kv-capacity", "insufficient-data"},
                                                       {"kv-capacity", "insufficient-data"}),
    "vllmoffline__tqdm-1000-prompts-pr-5425.txt": (HEALTHY, set()),
    "vllmoffline__tqdm-riscv-cpu-cut.txt": ({"decode-bound"}, set()),  # 2.3 tok/s for the whole run
}

GiB = 2**30
MiB = 2**20

# file -> [(record kind, metric, value)]: some record of that kind carries the metric at that value (rel 1e-3).
NUMBERS = {
    "vllm__v02-llm-engine-stats-line.txt": [
        ("interval", "prompt_tokens_per_second", 30.5), ("interval", "generation_tokens_per_second", 61.1),
        ("interval", "running_requests", 1), ("interval", "swapped_requests", 0),
        ("interval", "waiting_requests", 0), ("interval", "kv_cache_usage_fraction", 0.6 / 100)],
    "vllm__v06-single-request-decode.txt": [
        ("interval", "generation_tokens_per_second", 41.5), ("interval", "generation_tokens_per_second", 41.8),
        ("interval", "kv_cache_usage_fraction", 2.0 / 100), ("interval", "kv_cache_usage_fraction", 2.3 / 100),
        ("interval", "running_requests", 1), ("interval", "waiting_requests", 0)],
    "vllm__v1-2026-mm-cache-and-specdecode-lines.txt": [
        ("interval", "generation_tokens_per_second", 28.4), ("interval", "generation_tokens_per_second", 0.0),
        ("interval", "running_requests", 0), ("interval", "kv_cache_usage_fraction", 0.0),
        ("interval", "spec_mean_acceptance_length", 2.20), ("interval", "spec_accepted_tokens_per_second", 15.60),
        ("interval", "spec_drafted_tokens_per_second", 38.99), ("interval", "spec_acceptance_fraction", 40.0 / 100)],
    "vllm__v1-single-line-prefill-heavy.txt": [
        ("interval", "prompt_tokens_per_second", 1254.4), ("interval", "generation_tokens_per_second", 29.2),
        ("interval", "running_requests", 10), ("interval", "waiting_requests", 4),
        ("interval", "kv_cache_usage_fraction", 57.9 / 100), ("interval", "prefix_cache_hit_fraction", 40.5 / 100)],
    "vllm__v1-specdecoding-metrics-line.txt": [
        ("interval", "spec_acceptance_fraction", 88.8 / 100), ("interval", "spec_mean_acceptance_length", 5.44),
        ("interval", "spec_accepted_tokens_per_second", 4.37), ("interval", "spec_drafted_tokens_per_second", 4.92),
        ("interval", "spec_accepted_tokens", 262), ("interval", "spec_drafted_tokens", 295)],
    "vllm__v05-recompute-preemption-warning.txt": [
        ("event", "preemptions", 1), ("event", "preemptions_total", 1)],
    "vllm__v03-startup-weights-gpu-blocks.txt": [
        ("capacity", "weights_bytes", 244.61 * MiB), ("capacity", "gpu_blocks", 76240),
        ("capacity", "cpu_blocks", 7281)],
    "vllm__v09-startup-kv-tokens-graph-capture.txt": [
        ("capacity", "kv_cache_tokens", 1_131_008), ("capacity", "max_concurrency_at_length", 8.63),
        ("capacity", "max_model_len_tokens", 131_072), ("capacity", "gpu_blocks", 70688)],
    "vllm__v1-startup-kv-cache-tokens-qwen3-14b.txt": [
        ("capacity", "kv_cache_bytes", 6.51 * GiB), ("capacity", "kv_cache_tokens", 42_656),
        ("capacity", "max_concurrency_at_length", 1.30), ("capacity", "max_model_len_tokens", 32_768)],
    "vllm__prometheus-v0-exposition-excerpt.txt": [
        ("interval", "prompt_tokens_total", 1196), ("interval", "generation_tokens_total", 218_152)],
    "vllm__prometheus-v1-engine-label-decode-time.txt": [("summary", "decode_seconds_count", 1)],
    "sglang__2025-decode-batch-drain.txt": [
        ("interval", "running_requests", 509), ("interval", "running_requests", 182),
        ("interval", "kv_cache_usage_fraction", 0.43), ("interval", "kv_cache_usage_fraction", 0.27),
        ("interval", "generation_tokens_per_second", 7897.87), ("interval", "generation_tokens_per_second", 5287.55),
        ("interval", "waiting_requests", 0)],
    "sglang__2026-decode-cuda-graph-small-batch.txt": [
        ("interval", "running_requests", 5), ("interval", "kv_cache_used_tokens", 20_800),
        ("interval", "kv_cache_usage_fraction", 0.29), ("interval", "generation_tokens_per_second", 136.39),
        ("interval", "generation_tokens_per_second", 157.64), ("interval", "waiting_requests", 0)],
    "sglang__startup-dp-ep-kv-cache-allocated.txt": [
        ("capacity", "kv_cache_tokens", 1_029_389), ("capacity", "kv_cache_bytes", (47.12 + 47.12) * GiB),
        ("capacity", "available_memory_bytes", 27.55 * GiB)],
    "sglang__startup-max-total-num-tokens-line.txt": [
        ("capacity", "kv_cache_tokens", 2_086_558), ("capacity", "chunked_prefill_tokens", 8192),
        ("capacity", "max_prefill_tokens", 16384), ("capacity", "max_running_requests", 33),
        ("capacity", "max_model_len_tokens", 256_000), ("capacity", "available_memory_bytes", 17.22 * GiB)],
    "sglang__prometheus-2024-first-version.txt": [
        ("capacity", "kv_cache_tokens", 570_979), ("capacity", "max_prefill_tokens", 16_384),
        ("capacity", "max_running_requests", 2231), ("capacity", "max_model_len_tokens", 131_072),
        ("interval", "prompt_tokens_total", 230_794)],
    "sglang__prometheus-v051-exposition.txt": [
        ("interval", "running_requests", 1), ("interval", "kv_cache_used_tokens", 1),
        ("interval", "kv_cache_usage_fraction", 0.0), ("interval", "generation_tokens_per_second", 0.837)],
    "tgi__cpu-backend-generate-success-line.txt": [
        ("request", "e2e_seconds", 3.764430077), ("request", "validation_seconds", 466.15e-6),
        ("request", "queue_seconds", 110.388e-6), ("request", "inference_seconds", 3.763853868),
        ("request", "tpot_seconds", 188.192693e-3)],
    "trtllm__serve-metrics-endpoint-trt-backend-json.txt": [
        ("interval", "running_requests", 1), ("interval", "waiting_requests", 0),
        ("interval", "iteration_seconds", 13.021209 / 1000), ("interval", "kv_cache_usage_fraction", 3 / 22955),
        ("interval", "generation_tokens_per_second", 1 / (13.021209 / 1000)),  # ~77 tok/s single stream
        ("capacity", "gpu_blocks", 22955), ("capacity", "block_size_tokens", 32)],
    "trtllm__pytrtllm-prometheus-excerpt.txt": [
        ("interval", "running_requests", 1), ("interval", "waiting_requests", 0),
        ("interval", "prompt_tokens_total", 201_121), ("interval", "generation_tokens_total", 81_896),
        ("interval", "requests_total", 707)],
    # Samples parsed by the other helper's modules: a few §5 figures each (their own tests go further).
    "vllm__bench-serve-goodput-poisson-15rps.txt": [
        ("summary", "completed_requests", 100), ("summary", "duration_seconds", 26.67),
        ("summary", "request_throughput_per_second", 3.75), ("summary", "output_tokens_per_second", 5624.71),
        ("summary", "ttft_seconds_mean", 154.82 / 1000), ("summary", "ttft_seconds_p99", 360.23 / 1000),
        ("summary", "tpot_seconds_mean", 14.60 / 1000)],
    "sglang__bench-serving-2026-cookbook-deepseek-ocr.txt": [
        ("summary", "completed_requests", 10), ("summary", "ttft_seconds_mean", 21.59 / 1000),
        ("summary", "tpot_seconds_mean", 1.47 / 1000), ("summary", "itl_seconds_p99", 1.93 / 1000),
        ("summary", "itl_seconds_max", 8.28 / 1000), ("summary", "output_tokens_per_second", 625.26)],
    "ollama__api-usage-json-doc-example.txt": [
        ("request", "e2e_seconds", 174_560_334 / 1e9), ("request", "load_seconds", 101_397_084 / 1e9),
        ("request", "input_tokens", 11), ("request", "output_tokens", 18)],
    "ollama__verbose-mistral-2024-baseline.txt": [
        ("request", "input_tokens", 11), ("request", "output_tokens", 120),
        ("request", "generation_tokens_per_second", 24.61)],
    "llamacpp__2026-server-per-line-timings-graphs-reused.txt": [
        ("request", "input_tokens", 104), ("request", "prefill_seconds", 210.02 / 1000),
        ("request", "output_tokens", 764), ("request", "generation_tokens_per_second", 63.35)],
}


def test_every_sample_is_listed():
    on_disk = {path.name for path in FIXTURES.glob("*.txt")}
    assert on_disk == set(EXPECTED), sorted(on_disk ^ set(EXPECTED))


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_sample_verdict(name):
    accepted, must_mention = EXPECTED[name]
    diagnosis = diagnose_files([FIXTURES / name])
    assert diagnosis.verdict in accepted, [(item.verdict, item.text) for item in diagnosis.evidence]
    mentioned = {item.verdict for item in diagnosis.evidence}
    assert must_mention <= mentioned, mentioned
    assert 0 < diagnosis.confidence <= 1
    assert diagnosis.evidence, "a verdict always comes with evidence"
    document = diagnosis.to_dict()
    assert isinstance(document["verdict"], str)
    assert isinstance(document["evidence"], list) and isinstance(document["metrics"], dict)


def _records(name):
    log = LogFile.open(FIXTURES / name)
    return list(iter_records(log, detect_formats(log)))


@pytest.mark.parametrize("name", sorted(NUMBERS))
def test_sample_numbers(name):
    records = _records(name)
    for kind, metric, value in NUMBERS[name]:
        found = [record.metrics[metric] for record in records if record.kind == kind and metric in record.metrics]
        assert any(math.isclose(got, value, rel_tol=1e-3, abs_tol=1e-9) for got in found), (metric, value, found)


def test_derived_capacity_in_evidence():
    # §5 #20: 76240 blocks × block_size 16 = 1,219,840 KV tokens (block size 16 assumed, said in §2.3).
    diagnosis = diagnose_files([FIXTURES / "vllm__v03-startup-weights-gpu-blocks.txt"])
    numbers = [item.numbers.get("kv_cache_tokens") for item in diagnosis.evidence]
    assert 76240 * 16 in numbers
    # §5 #23: 1,131,008 tokens ÷ 131,072 per request = 8.63 requests fit.
    diagnosis = diagnose_files([FIXTURES / "vllm__v09-startup-kv-tokens-graph-capture.txt"])
    assert any("8.63" in item.text for item in diagnosis.evidence)


def test_tgi_output_tokens_recovered_from_time_per_token():
    # time_per_token = inference_time / generated tokens (§2.7): 3.763853868 s / 188.192693 ms = 20 tokens,
    # which is the request's max_new_tokens: 20.
    (record,) = _records("tgi__cpu-backend-generate-success-line.txt")
    assert record.metrics["output_tokens"] == 20
    assert record.labels["tpot_includes_prefill"] is True
    assert record.labels["max_new_tokens"] == 20


def test_sglang_rank_tag_and_vllm_process_tag_are_labels():
    records = _records("sglang__startup-dp-ep-kv-cache-allocated.txt")
    assert {record.labels.get("rank") for record in records} >= {"DP2 TP2 EP2"}
    records = _records("vllm__v1-startup-kv-cache-tokens-qwen3-14b.txt")
    assert records[0].labels["process"] == "EngineCore_DP0"


def test_two_samples_read_together():
    # Several files fold into one diagnosis: the preemption wins over the healthy decode windows.
    diagnosis = diagnose_files([FIXTURES / "vllm__v06-single-request-decode.txt",
                                FIXTURES / "vllm__v05-recompute-preemption-warning.txt"])
    assert diagnosis.verdict == "kv-capacity"
    assert len(diagnosis.files) == 2
