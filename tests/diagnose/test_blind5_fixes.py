"""After blind round 5 (not blind): koboldcpp's --benchmark CSV row, AI-Hypercomputer inference-benchmark's summary,
mlx_lm.server's prompt progress and `vllm bench throughput`'s summary, read from the round's real excerpts; a whole
call's time ÷ its output tokens as an upper bound on the decode step; and the fixed slow-decode cutoff turned into a
floor when the log's model name states a size. Expected figures are worked out here from the samples' numbers."""

from __future__ import annotations

from pathlib import Path

import pytest

from inferledger.diagnose import diagnose_files
from inferledger.diagnose.named_model import from_name
from inferledger.diagnose.parsers import bench_clients, detect, local_runners, vllm_offline
from inferledger.diagnose.read import LogFile
from inferledger.diagnose.records import Record

BLIND5 = Path(__file__).resolve().parent.parent / "fixtures" / "blind5_logs"
KOBOLD_CSV = BLIND5 / "koboldcpp__benchmark-csv-3xp40-llama3-70b-8k-prompt.txt"  # koboldcpp#913, a real run
HEADER = ("Timestamp,Backend,Layers,Model,MaxCtx,GenAmount,ProcessingTime,ProcessingSpeed,GenerationTime,"
          "GenerationSpeed,TotalTime,Output,Flags\n")


def _run(tmp_path, text: str, **options):
    path = tmp_path / "log.txt"
    path.write_text(text)
    return diagnose_files([path], **options)


def test_koboldcpp_benchmark_csv_row():
    log = LogFile.open(KOBOLD_CSV)
    assert local_runners in detect(log.head)
    records = [item for item in local_runners.parse(log.lines()) if isinstance(item, Record)]
    assert len(records) == 1
    metrics = records[0].metrics
    # 79.72 s at 101.50 T/s is the prompt: 8,091.6 tokens; 100 generated at 6.27 T/s in 15.95 s; 95.67 s in all.
    assert metrics["prefill_seconds"] == 79.72
    assert metrics["input_tokens"] == pytest.approx(79.72 * 101.50)
    assert metrics["output_tokens"] == 100
    assert metrics["tpot_seconds"] == pytest.approx(1 / 6.27)
    assert metrics["e2e_seconds"] == 95.67
    assert records[0].labels["model"] == "Llama-3-70B-Instruct-abliterated-v3_q6"


def test_a_bare_quant_level_in_the_name():
    # `_q6` is Q6_K's 210 bytes per 256 weights = 6.5625 bits; a specific tag still wins (q4_0 = 18 bytes per 32).
    assert from_name("Llama-3-70B-Instruct-abliterated-v3_q6").bits_per_weight == 6.5625
    assert from_name("llama-2-7b.Q4_0").bits_per_weight == 4.5


def test_a_large_model_slow_for_the_fixed_cutoff_is_not_called_slow():
    # 70B × 6.5625 bits ÷ 8 = 57.42 GB a step; at 70 % of 360 GB/s that takes 57.42e9 ÷ 252e9 = 227.9 ms, and the run
    # makes a token every 1 ÷ 6.27 = 159.5 ms: what the size allows. The 8k prompt (83 % of the run) is the finding.
    diagnosis = diagnose_files([KOBOLD_CSV])
    assert diagnosis.verdict == "prefill-bound"
    item = next(item for item in diagnosis.evidence if item.rule == "requests-slow-tpot-large-model")
    # (plus its 80 layers' launches, 80 × 46 µs, as the catalogue's 70B models: since the twenty-ninth session)
    assert item.numbers["large_model_seconds_per_token"] == pytest.approx(70e9 * 6.5625 / 8 / (0.7 * 360e9)
                                                                          + 80 * 46e-6)
    assert not any(item.rule == "requests-slow-tpot-no-hardware" for item in diagnosis.evidence)


def test_a_small_model_as_slow_stays_slow(tmp_path):
    # The same row for a 7B Q4_0: 7e9 × 4.5 ÷ 8 = 3.94 GB, 15.6 ms at 70 % of 360 GB/s; 159.5 ms is ten times that.
    row = "2024-06-19 21:46:13+00:00,koboldcpp_cublas.dll,33,llama-2-7b.Q4_0,8192,100,79.72,101.50,15.95,6.27,95.67\n"
    diagnosis = _run(tmp_path, HEADER + row)
    assert diagnosis.verdict == "decode-bound"
    assert any(item.rule == "requests-slow-tpot-no-hardware" for item in diagnosis.evidence)


def _replies(seconds_and_tokens) -> str:
    return "".join(f"Output generated in {seconds:.2f} seconds ({tokens / seconds:.2f} tokens/s, {tokens} tokens, "
                   f"context 3200, seed 1)\n" for seconds, tokens in seconds_and_tokens)


def test_whole_call_time_per_output_token_bounds_the_step(tmp_path):
    # text-generation-webui's rate is over the whole call; 510 tokens in 15.34 s and 511 in 18.47 s: the step is at
    # most 18.47 ÷ 511 = 36.1 ms, under the 100 ms cutoff, for every call: healthy, with that bound as its number.
    diagnosis = _run(tmp_path, _replies([(15.34, 510), (18.47, 511)]))
    assert diagnosis.verdict == "healthy"
    item = next(item for item in diagnosis.evidence if item.rule == "requests-healthy")
    assert item.numbers["tpot_seconds_upper_bound"] == pytest.approx(18.47 / 511)


def test_short_replies_bound_nothing(tmp_path):
    # 10 tokens in 1.83 s: under 16 output tokens the call's fixed costs swamp the step, so no bound and no verdict.
    diagnosis = _run(tmp_path, _replies([(15.34, 510), (1.83, 10)]))
    assert diagnosis.verdict == "insufficient-data"


def _records(path, parser) -> list:
    log = LogFile.open(path)
    assert parser in detect(log.head), [module.NAME for module in detect(log.head)]
    return [item for item in parser.parse(log.lines()) if isinstance(item, Record)]


def test_inference_benchmark_summary():
    # AI-Hypercomputer/inference-benchmark#4: averages in seconds, rates per minute, the model in the banner.
    (record,) = _records(BLIND5 / "inferencebenchmark__deepseek-r1-120-requests-tpot-80ms.txt", bench_clients)
    metrics = record.metrics
    assert record.labels["model"] == "deepseek-ai/DeepSeek-R1"
    assert metrics["ttft_seconds_mean"] == pytest.approx(0.51)
    assert metrics["tpot_seconds_mean"] == pytest.approx(0.08)
    assert metrics["itl_seconds_mean"] == pytest.approx(0.08)
    assert metrics["request_throughput_per_second"] == pytest.approx(62.30 / 60)
    assert metrics["output_tokens_per_second"] == pytest.approx(13539.97 / 60)
    assert metrics["duration_seconds"] == pytest.approx(115.56)
    assert metrics["completed_requests"] == 120
    assert metrics["mean_input_tokens"] == 90 and metrics["mean_output_tokens"] == pytest.approx(217.32)


def test_mlx_server_prompt_steps_are_windows():
    # Two prompts (15,806 and 47,330 tokens) read 2,048 tokens a step each. 08:46:41.012 opens (no start to measure
    # from); 08:47:04.712 adds 2 × 2,048 in 23.700 s; 08:47:32.218 2 × 2,048 in 27.506 s; 08:48:04.369 only the
    # shorter prompt's 2,048 in 32.151 s (the excerpt ends before the other's line).
    records = _records(BLIND5 / "mlx__2026-server-two-long-prompts-2048-steps-25s.txt", local_runners)
    rates = [record.metrics["prompt_tokens_per_second"] for record in records]
    assert rates == pytest.approx([4096 / 23.700, 4096 / 27.506, 2048 / 32.151])
    assert [record.metrics["running_requests"] for record in records] == [2, 2, 1]
    assert all(record.metrics["generation_tokens_per_second"] == 0 for record in records)
    assert diagnose_files([BLIND5 / "mlx__2026-server-two-long-prompts-2048-steps-25s.txt"]).verdict == \
        "prefill-bound"


def test_vllm_bench_throughput_summaries_one_per_run():
    records = _records(BLIND5 / "vllm__offline-throughput-s390x-two-runs-different-token-counts.txt", vllm_offline)
    assert len(records) == 2
    first, second = (record.metrics for record in records)
    assert (first["request_throughput_per_second"], first["total_tokens_per_second"],
            first["output_tokens_per_second"]) == (0.03, 14.83, 1.65)
    assert (first["total_input_tokens"], first["total_output_tokens"]) == (32768, 4096)
    assert (second["total_input_tokens"], second["total_output_tokens"]) == (16384, 32)
    assert second["output_tokens_per_second"] == 0.03


def test_a_throughput_summary_joins_its_runs_bar(tmp_path):
    # The bar and the summary of one run are one record: 1,000 prompts in 10 s, then the summary's rates.
    text = ("Processed prompts: 100%|██████████| 1000/1000 [00:10<00:00, 97.45it/s, est. speed input: 49992.62 "
            "toks/s, output: 12473.79 toks/s]\n"
            "Throughput: 97.40 requests/s, 62331.21 total tokens/s, 12467.20 output tokens/s\n"
            "Total num prompt tokens:  512000\nTotal num output tokens:  128000\n")
    path = tmp_path / "run.txt"
    path.write_text(text)
    (record,) = _records(path, vllm_offline)
    assert record.metrics["completed_requests"] == 1000
    assert record.metrics["request_throughput_per_second"] == 97.40
    assert record.metrics["total_output_tokens"] == 128000


def test_koboldcpp_2023_counts_printed_after_the_timing_line():
    # koboldcpp#10 (April 2023): `Time Taken - Processing:134.0s, Generation:763.6s, Total:897.6s`, then
    # `Processing Prompt (74 / 74 tokens)` and `Generating (80 / 80 tokens)`: 763.6 s ÷ 80 = 9.545 s a token.
    records = _records(BLIND5 / "koboldcpp__2023-74-prompt-80-gen-763s.txt", local_runners)
    assert len(records) == 1
    assert records[0].metrics["input_tokens"] == 74 and records[0].metrics["output_tokens"] == 80
    assert records[0].metrics["tpot_seconds"] == pytest.approx(763.6 / 80)


def test_llama_server_decode_progress_spelt_n_gen():
    # club-3090#1124: `n_gen = 259, tg = 17.74 t/s, tg_3s = 15.30 t/s`, the later spelling of `n_decoded =`: one
    # slot's window at its last-3-s rate.
    from inferledger.diagnose.parsers import llamacpp

    records = _records(BLIND5 / "llamaserver__2026-2x5090-glm-flash-16-19-tok-s-graphs-0.txt", llamacpp)
    windows = [record for record in records if record.kind == "interval"]
    assert [window.metrics["generation_tokens_per_second"] for window in windows] == [19.23, 18.62, 17.10, 15.30]
    assert windows[-1].metrics["decoded_tokens"] == 259
