"""After blind round 7 (not blind): the readers and rules its misses led to, each tested on the round's real excerpt
or on lines written here, with the expected figures worked out from the numbers in the text."""

from __future__ import annotations

from pathlib import Path

import pytest

from inferledger.diagnose import diagnose_files
from inferledger.diagnose.named_model import from_config
from inferledger.diagnose.parsers import generic_summary, ollama, sglang_one_batch, vllm_offline
from inferledger.diagnose.read import LogFile, detect_formats, read_records
from inferledger.diagnose.records import Record

BLIND7 = Path(__file__).resolve().parent.parent / "fixtures" / "blind7_logs"


def _run(tmp_path, text: str, **options):
    path = tmp_path / "log.txt"
    path.write_text(text)
    return diagnose_files([path], **options)


def test_space_aligned_table_rows_are_runs():
    # lattice#187: the engine under test reads its 1,009-token prompt in 10,207 ms of an 11,720 ms call (87 %).
    path = BLIND7 / "custom__lattice-vs-ollama-vs-mlx-1k-ctx-prefill-99-tok-s.txt"
    records = read_records(path)
    assert [record.labels["benchmark"] for record in records] == ["lattice", "ollama", "mlx"]
    lattice = records[0].metrics
    assert lattice["mean_input_tokens"] == 1009 and lattice["ttft_seconds_mean"] == pytest.approx(10.207)
    assert lattice["e2e_seconds_mean"] == pytest.approx(11.720) and lattice["input_tokens_per_second"] == 99
    diagnosis = diagnose_files([path])
    assert diagnosis.verdict == "prefill-bound"  # the healthy rows are the baseline, not a vote against it


def test_json_exports_read_by_their_keys():
    # Mac-MLX#62: camelCase keys; ttftMs 312.23 ms -> 0.31223 s, 611 tokens at 81.83 tok/s.
    (record,) = read_records(BLIND7 / "macmlx__benchmark-json-gemma4-e4b-m5-max.txt")
    assert record.metrics["ttft_seconds_mean"] == pytest.approx(0.3122318983078003)
    assert record.metrics["mean_output_tokens"] == 611 and record.metrics["mean_input_tokens"] == 1536
    assert record.metrics["output_tokens_per_second"] == pytest.approx(81.82922966036689)
    assert record.metrics["input_tokens_per_second"] == pytest.approx(4919.420495870671)
    # vllm-mlx#531: a statistic nested under its metric ("ttft_ms": {"mean": 74.63}); maxima are not new runs.
    (nested,) = read_records(BLIND7 / "vllmmlx__benchmark-json-qwen3-0.6b-m4-pro.txt")
    assert nested.metrics["ttft_seconds_mean"] == pytest.approx(0.07463276680064155)
    assert nested.metrics["tpot_seconds_mean"] == pytest.approx(0.003518496242349833)
    assert nested.metrics["input_tokens_per_second"] == pytest.approx(147.31074763064856)  # prompt "processing"


def test_llama_cpp_timings_with_decimal_commas():
    # llama.cpp#3422 under a comma-decimal locale: 6213,93 ms for 512 runs = 12.14 ms each.
    (record,) = [item for item in read_records(BLIND7 / "llamacpp__2023-rocm-openchat-q2k-512-runs-decimal-commas.txt")
                 if isinstance(item, Record) and item.kind != "capacity"]
    assert record.metrics["tpot_seconds"] == pytest.approx(0.01214)
    assert record.metrics["decode_seconds"] == pytest.approx(6.21393) and record.metrics["output_tokens"] == 512
    # a one-token prompt in 0,00 ms is llama.cpp's accounting (evaluated in the first decode step), not an artefact
    assert diagnose_files([BLIND7 / "llamacpp__2023-rocm-openchat-q2k-512-runs-decimal-commas.txt"]).verdict == \
        "healthy"


def test_first_bench_latency_unit_decided_by_one_token_a_step():
    # sglang#564: "0.009 ms" at 108.52 token/s is 0.98 tokens a step in seconds and 0.001 in ms: seconds.
    (record,) = read_records(BLIND7 / "sglang__2024-bench-latency-llama3-8b-tp2-ms-label.txt")
    assert record.metrics["tpot_seconds_median"] == pytest.approx(0.009)
    assert record.metrics["ttft_seconds_mean"] == pytest.approx(0.019)  # the measured run's prefill, not the warm-up's
    text = ("Prefill. latency: 120.5 ms, throughput: 8498.76 token/s\n"
            "Decode.  latency: 9.2 ms, throughput: 108.70 token/s\n")
    (real_ms,) = [item for item in sglang_one_batch.parse(enumerate(text.split("\n"), 1))
                  if isinstance(item, Record) and item.kind != "capacity"]
    assert real_ms.metrics["tpot_seconds_median"] == pytest.approx(0.0092)  # 9.2e-3 s × 108.7 ≈ 1 token: real ms


def test_old_throughput_line_and_a_rate_alone(tmp_path):
    # sonar#988 (Aphrodite): "tokens/s" without "total"; a rate with no latency supports no verdict.
    records = read_records(BLIND7 / "aphrodite__benchmark-throughput-sync-vs-async-engine.txt")
    assert [record.metrics["total_tokens_per_second"] for record in records] == [15075.27, 6271.73]
    assert vllm_offline in detect_formats(LogFile.open(BLIND7 / "aphrodite__benchmark-throughput-sync-vs-async-"
                                                                "engine.txt"))
    diagnosis = diagnose_files([BLIND7 / "aphrodite__benchmark-throughput-sync-vs-async-engine.txt"])
    assert diagnosis.verdict == "insufficient-data"
    assert any(item.rule == "summary-throughput-only" for item in diagnosis.evidence)


def test_lone_eval_rate_lines_are_ollama():
    path = BLIND7 / "ollama__cpu-backends-xeon-5420-r1-32b-eval-rates.txt"
    assert detect_formats(LogFile.open(path))[0] is ollama
    assert detect_formats(LogFile.open(path))[0] is not generic_summary


def test_drain_far_beyond_arrivals_is_queueing():
    # vllm-ascend#3112: 200 requests at 10 req/s arrive in 200 / 10 = 20 s; the run took 8,206.37 s, 410× that.
    diagnosis = diagnose_files([BLIND7 / "vllm__bench-serve-ascend-910b4-qwen3-8b-rate-10-0.02-req-s.txt"])
    assert diagnosis.verdict == "queueing"
    item = next(item for item in diagnosis.evidence if item.rule == "summary-drain-beyond-arrivals")
    assert item.numbers["drain_factor"] == pytest.approx(8206.37 / 20)


def test_context_window_nearly_full_is_kv_capacity():
    # koboldcpp#972: CtxLimit 3768/4096 = 92 % of the window.
    diagnosis = diagnose_files([BLIND7 / "koboldcpp__ctx-3768-of-4096-eos-after-one-token.txt"])
    assert diagnosis.verdict == "kv-capacity"
    item = next(item for item in diagnosis.evidence if item.rule == "requests-context-full")
    assert item.numbers == {"context_held_fraction": pytest.approx(3768 / 4096)}


def test_prompt_only_requests_are_prefill_bound():
    # mlx-lm#40: 33,898 prompt tokens at 676.212 and 869.279 tok/s, nothing generated.
    diagnosis = diagnose_files([BLIND7 / "mlx__prompt-only-34k-mistral-7b-4bit-m2-ultra-pre-post.txt"])
    assert diagnosis.verdict == "prefill-bound"
    item = next(item for item in diagnosis.evidence if item.rule == "requests-prompt-only")
    assert item.numbers["prompt_tokens_per_second_mean"] == pytest.approx((676.212 + 869.279) / 2)


def test_config_sizes_a_moe_by_its_active_experts_in_its_own_format(monkeypatch):
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    configured = from_config("openai/gpt-oss-20b")
    # gpt-oss-20b: ~3.6B active parameters, experts in MXFP4 (4.25 bits): a few GB a step, not the 40 GB of bf16
    # that "20b" alone would give.
    assert 2e9 < configured.weights_bytes_per_step < 5e9 and configured.weights_format == "mxfp4"
    assert from_config("no-such-org/no-such-model-7b") is None


def test_summary_decode_slower_than_the_size_allows(monkeypatch):
    # amd/playbooks#882: (8768.2 − 1369.3) ms over 86 tokens after the first = 86.0 ms a token; the config gives
    # ~3.7 GB a step, 3.7e9 / (0.7 × 360e9) = 14.7 ms on the slow card: 5.8× slower.
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    path = BLIND7 / "custom__rocm-playbook-strix-halo-gpt-oss-20b-11.6-tok-s.txt"
    assert diagnose_files([path]).verdict == "healthy"  # 86 ms is under the fixed 100 ms cutoff
    diagnosis = diagnose_files([path], model="openai/gpt-oss-20b")
    assert diagnosis.verdict == "decode-bound"
    item = next(item for item in diagnosis.evidence if item.rule == "summary-slower-than-size-allows")
    assert item.numbers["observed_seconds_per_token"] == pytest.approx((8.7682 - 1.3693) / 86)


def test_whole_call_time_bounds_the_step(monkeypatch):
    # torchchat#588: 1043.69 s at 0.19 tokens/sec = 198 tokens; half of 1043.69 / 198 = 2.64 s a token at least,
    # 50× what Llama-2-7B's 13.2 GB take on the slow card.
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    path = BLIND7 / "torchchat__cpu-ryzen-3700x-llama2-fp32-0.19-tok-s.txt"
    (record,) = read_records(path)
    assert record.metrics["output_tokens"] == 198
    diagnosis = diagnose_files([path], model="meta-llama/Llama-2-7b-hf")
    assert diagnosis.verdict == "decode-bound"
    item = next(item for item in diagnosis.evidence if item.rule == "requests-slower-than-size-allows")
    assert item.numbers["observed_seconds_per_token"] == pytest.approx(1043.69 / 198 / 2)
