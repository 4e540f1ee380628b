"""Blind rounds 277 on: the general fixes of the seventeenth session. Expected figures are worked out here."""

from __future__ import annotations

from pathlib import Path

import pytest
from blind_helpers import rules

from inferledger.diagnose import diagnose_files
from inferledger.diagnose.parsers import bench_clients, vllm_offline
from inferledger.diagnose.read import LogFile
from inferledger.diagnose.records import Record

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures"


def _records(path, parser) -> list:
    return [item for item in parser.parse(LogFile.open(path).lines()) if isinstance(item, Record)]


def test_inference_benchmark_averages_include_the_wait_and_the_command_states_the_offered_rate():
    # AI-Hypercomputer/inference-benchmark#24: `--request-rate=10` on the command line above the block, averages
    # per request and per output token in milliseconds, "(includes waiting time on server)"; "weighted" names the
    # aggregate over the served models, no model.
    path = FIXTURES / "blind282_logs" / "inferencebenchmark__vllm-llama2-7b-sharegpt-rate-10-ignore-eos-result.txt"
    (record,) = _records(path, bench_clients)
    metrics = record.metrics
    assert metrics["request_rate_per_second"] == 10
    assert metrics["e2e_seconds_mean"] == pytest.approx(39549.75 / 1000)
    assert metrics["e2e_per_output_token_seconds_mean"] == pytest.approx(443.50 / 1000)
    assert metrics["e2e_per_token_seconds_mean"] == pytest.approx(0.08)
    assert metrics["request_throughput_per_second"] == pytest.approx(48.09 / 60)
    assert "model" not in record.labels
    # 48.09 / 60 = 0.80 req/s served of 10 offered: the rest waited.
    diagnosis = diagnose_files([path])
    assert diagnosis.verdict == "queueing"


def _offline(tmp_path, command: str, throughput: str) -> Record:
    path = tmp_path / "throughput.log"
    path.write_text(command + "\n" + throughput + "\n")
    (record,) = _records(path, vllm_offline)
    return record


def test_benchmark_throughputs_prompt_count_from_its_command(tmp_path):
    # 2.00 req/s × (128 + 512) tokens = 1,280 total tok/s and 2.00 × 512 = 1,024 output tok/s, as printed: the
    # command's lengths are this run's, so its 64 prompts are the run's requests.
    command = "python benchmarks/benchmark_throughput.py --input-len 128 --output-len 512 --num-prompts 64 --model m"
    line = "Throughput: 2.00 requests/s, 1280.00 total tokens/s, 1024.00 output tokens/s"
    metrics = _offline(tmp_path, command, line).metrics
    assert metrics["completed_requests"] == 64
    assert (metrics["mean_input_tokens"], metrics["mean_output_tokens"]) == (128, 512)
    # Four sequences a prompt: the engine's batch is not the prompts' count.
    assert "completed_requests" not in _offline(tmp_path, command + " --n 4", line).metrics
    # A printed output rate the lengths do not give (2.00 × 1 ≠ 1,024): the command is another run's.
    other = command.replace("--output-len 512", "--output-len 1").replace("--input-len 128", "--input-len 639")
    metrics = _offline(tmp_path, other, line).metrics
    assert "completed_requests" not in metrics and "mean_output_tokens" not in metrics


def test_a_prefill_row_with_no_prompt_length_is_no_queue():
    # kvcache-ai/ktransformers#1914: one stream per column, the prompt's length only in the column's title. At 8K the
    # 2,759 ms first token is 7,678 tokens ÷ 2,971.2 prefill tok/s = 2.58 s of prefill: its own prompt, no wait. The
    # table's input rate says the prompt was measured, so TTFT ≫ TPOT is no evidence of a queue.
    path = FIXTURES / "blind277_logs" / \
        "ktransformers__kt-kernel-sglang-8x5090-epyc-9355-qwen3-30b-a3b-bf16-prompt-length-table.txt"
    diagnosis = diagnose_files([path])
    assert "summary-ttft-over-tpot" not in rules(diagnosis)
    assert diagnosis.verdict != "queueing"


def test_a_runners_cache_sized_by_its_context_is_no_shortage():
    # ollama/ollama#10810: ollama sized the KV cache for its context (memory.required.kv 752 MiB = 0.73 GiB) beside
    # 132.3 GiB of weights, 0.55 % of them, under the 1 % that reads vLLM's leftover memory as a starved cache. Here
    # the small cache is a short context; what the line shows is 65 of 95 layers on the GPUs, the rest on the CPU.
    path = FIXTURES / "blind281_logs" / "ollama__qwen3-235b-five-24gb-gpus-offload-65-of-95-layers-journal.txt"
    diagnosis = diagnose_files([path])
    assert "state-kv-memory-small" not in rules(diagnosis)
    # the placement is what the line shows; the excerpt times no generation, so it is named, not judged (round 461)
    assert "state-partial-offload-unmeasured" in rules(diagnosis)


BENCH = ("| model | size | params | backend | ngl | test | t/s |\n"
         "| --- | ---: | ---: | --- | --: | ---: | ---: |\n")


def _bench(tmp_path, rows: list) -> Path:
    path = tmp_path / "bench.md"
    path.write_text(BENCH + "".join(f"| {model} | {size} | {params} | CUDA | 99 | {test} | {rate} ± 1.00 |\n"
                                    for model, size, params, test, rate in rows))
    return path


@pytest.mark.parametrize("card, size, rate", [
    # ggml-org/llama.cpp#6017: llama 7B F16 (12.55 GiB, 6.74 B) pp512 8,381.22 t/s on an A100 80GB PCIe.
    ("a100-pcie-80gb", "12.55 GiB", 8381.22),
    # ggml-org/llama.cpp#4766: llama 7B Q4_0 (3.56 GiB) pp512 912.41 t/s on a Tesla P40, a card with no tensor cores.
    ("p40", "3.56 GiB", 912.41)])
def test_published_llama_bench_prefill_rates_are_not_called_slow(tmp_path, card, size, rate):
    diagnosis = diagnose_files([_bench(tmp_path, [("llama 7B", size, "6.74 B", "pp512", rate)])], gpu=card)
    assert "hardware-bench-prefill-below-realistic" not in rules(diagnosis)
    assert diagnosis.verdict != "prefill-bound"


def test_a_llama_bench_prompt_rate_far_below_the_card_is_prefill_bound(tmp_path):
    # 7B F16 on an A100: 2 × 6.74e9 FLOP a token at 300 tok/s is 4 TFLOP/s, about 1 % of the card's 312 TFLOP/s;
    # the published 8,381 tok/s above is 28 times that.
    diagnosis = diagnose_files([_bench(tmp_path, [("llama 7B F16", "12.55 GiB", "6.74 B", "pp512", 300.0)])],
                               gpu="a100-pcie-80gb")
    assert "hardware-bench-prefill-below-realistic" in rules(diagnosis)
    assert diagnosis.verdict == "prefill-bound"


def test_a_recurrent_models_or_a_cpu_rows_prompt_rate_is_not_judged_against_the_card(tmp_path):
    # A mixture whose active size is known is judged (test_blind530_on_fixes): 50 tok/s of Qwen3-30B-A3B on an RTX
    # 4090 is 2 × 3.3e9 × 50 = 0.3 TFLOP/s, and a pass of 512 tokens reads its 17.28 GiB once (18.6 GB ÷ 1,008 GB/s
    # = 18 ms, at most 27,000 tok/s): far below a sixth of anything the card allows.
    rows = [("qwen3moe 30B.A3B Q4_K - Medium", "17.28 GiB", "30.53 B", "pp512", 50.0)]
    mixture = diagnose_files([_bench(tmp_path, rows)], gpu="rtx-4090")
    (below,) = [item for item in mixture.evidence if item.rule == "hardware-bench-prefill-below-realistic"]
    assert below.numbers["ledger_realistic_prompt_tokens_per_second"] > 6 * 50.0
    # A recurrent hybrid (granitehybrid: Mamba layers) reads its prompt with a scan, not the transformer's matmuls.
    rows = [("granitehybrid 1B Q4_K_M", "0.94 GiB", "1.46 B", "pp2048", 300.0)]
    assert "hardware-bench-prefill-below-realistic" not in rules(diagnose_files([_bench(tmp_path, rows)],
                                                                               gpu="rtx-4090"))
    path = tmp_path / "cpu.md"
    path.write_text(BENCH + "| llama 7B F16 | 12.55 GiB | 6.74 B | CPU | 0 | pp512 | "
                    "30.00 ± 1.00 |\n")
    assert "hardware-bench-prefill-below-realistic" not in rules(diagnose_files([path], gpu="rtx-4090"))


def test_a_phase_column_with_one_rate_cell_left_by_the_cut_is_read(tmp_path):
    # defilantech/LLMKube#1423: the excerpt cuts the second row inside its decode cell, so that column keeps one
    # cell; `12.42 tok/s` under "decode" is one stream's rate all the same: 1 / 12.42 = 80.5 ms a token.
    path = tmp_path / "cut.md"
    path.write_text("| | prefill | decode |\n| --- | --- | --- |\n| two Sparks over the cable | 73.4 tok/s | "
                    "**12.42 tok/s** |\n| one Spark, everything else identical | 106.0 tok/s | **12.83 to\n")
    diagnosis = diagnose_files([path])
    (summary,) = diagnosis.metrics["summary"]
    assert summary["output_tokens_per_second_per_user_mean"] == pytest.approx(12.42)
    assert summary["input_tokens_per_second"] == pytest.approx(73.4)


def test_llama_bench_rows_sizes_judge_decode_not_the_size_a_name_guesses():
    # ggml-org/llama.cpp#3586 on an RTX 2070 (448 GB/s, 29.9 TFLOP/s fp16): the F16 file (5.21 GiB) at 42.91 tok/s
    # reads 5.21 × 2**30 × 42.91 = 240 GB/s, 54 % of the card: no slow decode. The name "stablelm-3b" read as a 4.5-bit
    # file (1.7 GB) would call the same rate a quarter of the floor. Prompt processing at 457.85 tok/s is
    # 2 × 2.80e9 × 457.85 = 2.6 TFLOP/s, under a tenth of the card's fp16: prefill is what is slow.
    path = FIXTURES / "blind278_logs" / "llamacpp__bench-stablelm-3b-rtx2070-master-vs-older-commit-pp512-tg128.txt"
    diagnosis = diagnose_files([path], model="stabilityai/stablelm-3b-4e1t")
    assert "hardware-named-decode-far-below-floor" not in rules(diagnosis)
    assert diagnosis.verdict == "prefill-bound"


def test_a_cache_larger_than_the_model_that_keeps_layers_off_the_card_is_kv_capacity():
    # ollama/ollama#12305: memory.required.kv 20 GiB beside 13 GiB of weights (20 / 13 = 1.5× the model), 0 of 41
    # layers on a card with 4.9 GiB free: the context's cache, not the model, takes the card's room.
    path = FIXTURES / "blind290_logs" / "ollama__windows-runner-offload-zero-layers-kv-20gib-quadro-rtx3000.txt"
    diagnosis = diagnose_files([path])
    assert "state-kv-pushes-layers-off" in rules(diagnosis)
    assert diagnosis.verdict == "kv-capacity"
    # The 235B model whose 0.73 GiB cache is a sliver of its 132 GiB stays an offload of weights (decode-bound).
    other = FIXTURES / "blind281_logs" / "ollama__qwen3-235b-five-24gb-gpus-offload-65-of-95-layers-journal.txt"
    assert "state-kv-pushes-layers-off" not in rules(diagnose_files([other]))


def test_a_decode_column_whose_unit_is_written_once_is_read(tmp_path):
    # Tanguille/cluster#3203: `**34 tok/s**` over `15` and `6–8` under "Decode (1-stream)": the poster wrote the unit
    # once. One stream's 6 tok/s (a range reads as its first figure) is 1 / 6 = 167 ms a token.
    path = tmp_path / "engines.md"
    path.write_text("| Engine | Decode (1-stream) |\n|---|---:|\n| llama.cpp | **34 tok/s** |\n| sglang | 15 |\n"
                    "| vLLM | 6–8 |\n")
    rates = [record["output_tokens_per_second_per_user_mean"] for record in diagnose_files([path]).metrics["summary"]]
    assert rates == [34, 15, 6]
    # A column of bare figures with no unit anywhere stays unread: a rate or a time, it does not say.
    path.write_text("| Engine | Decode (1-stream) |\n|---|---:|\n| llama.cpp | 34 |\n| sglang | 15 |\n")
    assert not diagnose_files([path]).metrics["summary"]


def test_a_sentence_is_a_clause_and_a_heading_no_run():
    from inferledger.diagnose.parsers import generic_phrases

    # paiml/aprender#3596: "costs ~2 s." ends its sentence; "cost per token" in the next one names that sentence's
    # phase, not the 2 s of the one before (no per-token time of 2 s or 6 s is stated anywhere).
    line = ("**Doubling 144 → 288 words costs ~2 s. Going from 1 → 24 words costs ~6 s.** The marginal cost per token "
            "at the long end is roughly *an order of magnitude lower* than at the short end.")
    assert generic_phrases.line_metrics(line) == {}
    # A markdown heading names a thread or a section; its figures are no run's.
    records = list(generic_phrases.parse([(1, "# Time-to-first-token is 14-16s vs 1.8-2.9s on the same box")]))
    assert records == []


def test_bold_time_cells_under_a_header_with_no_unit_are_read(tmp_path):
    # confidential-dot-ai/c8s#140: `| path | TTFT p50 | ITL p50 |` over `22.4 ms` and `**5.49 ms**`: the cells carry
    # the unit, the bold is the poster's emphasis.
    path = tmp_path / "proxy.md"
    path.write_text("| path | TTFT p50 | ITL p50 |\n|---|---:|---:|\n| direct | 22.4 ms | **5.49 ms** |\n"
                    "| through tls-lb | 287.2 ms | **1.58 ms** |\n")
    summaries = diagnose_files([path]).metrics["summary"]
    assert [(s["ttft_seconds_median"], s["itl_seconds_median"]) for s in summaries] == \
        [pytest.approx((0.0224, 0.00549)), pytest.approx((0.2872, 0.00158))]


def test_the_same_prompt_read_five_times_slower_on_one_path_is_its_prefill(tmp_path):
    # noonghunna/club-3090 agent turns: 35,274 accumulated tokens, llama.cpp's first token in 10.0 s, vLLM's in
    # 254.2 s, one request at a time: 254.2 / 10.0 = 25× on the same prompt, far past 5×: vLLM's prefill path.
    path = tmp_path / "turns.md"
    path.write_text("| Turn | Accumulated tokens | llama.cpp TTFT | vLLM TTFT |\n|---:|---:|---:|---:|\n"
                    "| 1 | 1,212 | 1.6 s | 5.6 s |\n| 12 | 35,274 | 10.0 s | 254.2 s |\n")
    diagnosis = diagnose_files([path])
    assert "summary-same-prompt-slower-prefill" in rules(diagnosis)
    assert diagnosis.verdict == "prefill-bound"
    # At 64 requests in flight the slower path may be waiting for batch slots: not read as prefill.
    path.write_text("| Concurrency | Accumulated tokens | llama.cpp TTFT | vLLM TTFT |\n|---:|---:|---:|---:|\n"
                    "| 64 | 35,274 | 10.0 s | 254.2 s |\n")
    assert "summary-same-prompt-slower-prefill" not in rules(diagnose_files([path]))
    # A warm run reads its prompt from the prefix cache (blind51's `cold TTFT | warm TTFT`): no second read to compare.
    path.write_text("Measured with a 4838-token prompt:\n\n| build | cold TTFT | warm TTFT |\n|---|---|---|\n"
                    "| 2.5.2 | 9.41s | 3.89s |\n| 2.6.0 | 6.25s | 0.14s |\n")
    assert "summary-same-prompt-slower-prefill" not in rules(diagnose_files([path]))


def test_a_rate_column_named_by_its_statistic_and_unit_is_one_streams(tmp_path):
    # amd/gaia's lemonade runs: `mean ± stdev (tok/s)` over `**55.2 ± 0.3**`, a configuration a row, one stream each.
    path = tmp_path / "runs.md"
    path.write_text("| Configuration | Backend | mean ± stdev (tok/s) | min | max |\n|---|---|---|---|---|\n"
                    "| Strix Halo iGPU | Vulkan | **55.2 ± 0.3** | 54.8 | 55.6 |\n"
                    "| RX 7900 XTX | Vulkan | **136.5 ± 0.1** | 136.3 | 136.8 |\n")
    rates = [s["output_tokens_per_second_per_user_mean"] for s in diagnose_files([path]).metrics["summary"]]
    assert rates == [55.2, 136.5]


def test_rows_that_state_a_quantised_file_are_not_held_to_the_checkpoints_bf16_floor():
    # deseven/strixhalo-homelab#11: Llama 3.1 8B at Q4_K_M (about 4.5 GB a step) at 43.7 tok/s on a Strix Halo's
    # 256 GB/s: 4.5e9 × 43.7 = 197 GB/s, 77 % of the memory. The checkpoint's bf16 (16 GB a step) would allow only
    # 256 / 16 = 16 tok/s, so judged by it the run looked impossibly fast.
    path = FIXTURES / "blind297_logs" / \
        "llamacpp-xdna2__npu-decode-backend-llama31-8b-q4km-ryzen-ai-max-385-pp512-tg64-table.txt"
    diagnosis = diagnose_files([path], model="meta-llama/Llama-3.1-8B-Instruct", gpu="strix-halo")
    assert "hardware-decode-faster-than-floor" not in rules(diagnosis)
    assert diagnosis.verdict == "healthy"


def test_a_prompt_read_in_small_micro_batches_is_judged_by_its_micro_batch(tmp_path):
    # ggml-org/llama.cpp PR table (blind255): llama 1B all F32 on an RTX 3090, pp512 read 8 tokens a pass
    # (n_ubatch 8) at 1,178 tok/s: each pass reads the 1B model's 4.9 GB of F32 weights, so at 936 GB/s the card
    # allows at most 8 / (4.9e9 / 936e9) = 1,500 tok/s; the same rate against a 512-token pass would look a
    # fourteenth of the card.
    path = tmp_path / "ubatch.md"
    path.write_text("| model | size | params | backend | ngl | n_ubatch | test | t/s |\n"
                    "| --- | ---: | ---: | --- | --: | --: | ---: | ---: |\n"
                    "| llama 1B all F32 | 4.60 GiB | 1.24 B | CUDA | 99 | 8 | pp512 | 1178.03 ± 1.00 |\n")
    diagnosis = diagnose_files([path], gpu="rtx-3090")
    assert "hardware-bench-prefill-below-realistic" not in rules(diagnosis)


def test_a_key_value_summarys_spelled_out_seconds_are_seconds(tmp_path):
    # A notebook's client: `Average TTFT: 0.59 seconds` is 0.59 s, not 0.59 of the milliseconds a bare figure is
    # taken in.
    path = tmp_path / "client.txt"
    path.write_text("=== 1000 tokens with 1 concurrent requests ===\nAverage TTFT: 0.59 seconds\n"
                    "Average Tokens/sec: 20.56\n")
    (record,) = _records(path, bench_clients)
    assert record.metrics["ttft_seconds_mean"] == pytest.approx(0.59)


def test_a_latency_runs_command_line_states_its_batch(tmp_path):
    # vllm-project/vllm#10086's review: `benchmark_latency.py … --batch-size 1` then `Avg latency: 7.816 seconds`,
    # no Namespace line and no percentiles: one batch of one prompt, the tool's default 128 output tokens, so
    # 1 × 128 / 7.816 = 16.4 output tok/s.
    path = tmp_path / "latency.txt"
    path.write_text("$ python3 benchmarks/benchmark_latency.py --model meta-llama/Meta-Llama-3-8B --batch-size 1 "
                    "--load-format dummy\ninit engine (profile, create kv cache, warmup model) took 20.63 seconds\n"
                    "Avg latency: 7.81603614680001 seconds\n")
    (record,) = _records(path, vllm_offline)
    assert record.metrics["mean_concurrency"] == 1
    assert record.metrics["output_tokens_per_second"] == pytest.approx(128 / 7.81603614680001)


def test_a_profilers_kernel_table_holds_no_run(tmp_path):
    # mudler/vllm.cpp#1863: `| ms/tok | share | calls/tok | kernel |`, a row per kernel of one decode step; 12.321
    # ms/tok is one kernel's part of the 52.735 ms token, no run's time per token.
    path = tmp_path / "kernels.md"
    path.write_text("| ms/tok | share | calls/tok | kernel |\n|---:|---:|---:|---|\n"
                    "| 12.321 | 23.4% | 129 | `QuantizeQ8KK` |\n| 12.015 | 22.8% | 21 | `KQuantGemmK` |\n")
    assert not diagnose_files([path]).metrics["summary"]
