"""After blind round 6 (not blind): llama-sweep-bench tables, koboldcpp's Total on its own line, awscurl's JSON
summary and SGLang's misspelt concurrency row, read from the round's real excerpts; and five rules: a per-token time
between other requests' prefills, a rate not kept judged by Little's law, prompt windows that only open a slow
decode, a model decoding far slower than its size allows on a slow card, and a runner's decode halving between
requests. Expected figures are worked out here from the numbers in the text."""

from __future__ import annotations

from pathlib import Path

import pytest
from blind_helpers import server_timing

from inferledger.diagnose import diagnose_files
from inferledger.diagnose.parsers import bench_clients, detect, llamacpp, local_runners
from inferledger.diagnose.read import LogFile
from inferledger.diagnose.records import Record

BLIND6 = Path(__file__).resolve().parent.parent / "fixtures" / "blind6_logs"


def _records(path, parser) -> list:
    log = LogFile.open(path)
    assert parser in detect(log.head), [module.NAME for module in detect(log.head)]
    return [item for item in parser.parse(log.lines()) if isinstance(item, Record)]


def _run(tmp_path, text: str, **options):
    path = tmp_path / "log.txt"
    path.write_text(text)
    return diagnose_files([path], **options)


def test_sweep_bench_rows_are_one_sequence():
    # ik_llama.cpp#1390: no B column; each row one sequence at a growing N_KV, S_TG 147.04 at N_KV 0.
    records = [record for record in _records(BLIND6 / "iklamacpp__sweep-bench-gpt-oss-20b-2048-pp-512-tg.txt", llamacpp)
               if record.kind != "capacity"]  # the command line's model file
    assert len(records) == 6
    assert all(record.metrics["running_requests"] == 1 for record in records)
    assert records[0].metrics["generation_tokens_per_second"] == 147.04
    assert records[-1].labels["n_kv"] == "10240" and records[0].labels["tool"] == "llama-sweep-bench"


def test_koboldcpp_total_on_the_next_line_and_the_counter_that_overshoots():
    # koboldcpp#619: `Generating (1025 / 1024 tokens)` but the context grew 1,329 -> 1,389: 60 tokens, which is what
    # 14.15 s at 239.8 ms/T gives (59.0).
    records = _records(BLIND6 / "koboldcpp__13b-22-gpu-layers-1329-prompt-240ms-per-token.txt", local_runners)
    assert [record.metrics["output_tokens"] for record in records] == [1389 - 1329, 1409 - 1329, 1404 - 1329,
                                                                       1409 - 1329]
    assert records[0].metrics["e2e_seconds"] == 24.92
    assert records[0].metrics["tpot_seconds"] == pytest.approx(14.15 / 60)


def test_awscurl_summary():
    # djl-serving#1664: the second, complete summary; times in ms, tps is requests per second.
    (record,) = _records(BLIND6 / "djl__awscurl-lmi-dist-lora-13b-conc3-json.txt", bench_clients)
    metrics = record.metrics
    assert metrics["duration_seconds"] == pytest.approx(5.97322)
    assert metrics["completed_requests"] == 15 and metrics["max_concurrency"] == 3
    assert metrics["e2e_seconds_mean"] == pytest.approx(1.18295)
    assert metrics["ttft_seconds_mean"] == pytest.approx(0.12206)
    assert metrics["request_throughput_per_second"] == 2.54
    assert record.labels["model"] == "TheBloke/Llama-2-13B-fp16"


BANNER = "============ Serving Benchmark Result ============\n"


def test_a_per_token_time_between_other_requests_prefills(tmp_path):
    # 1,000 prompts of ~4,065 tokens, ~4 output tokens each: 27,670 input vs 26.75 output tok/s is 1,034 prompt tokens
    # per output token, so the 4.2 s "TPOT" is the other prompts' prefills, not a decode step.
    text = (BANNER + "Backend:                                 sglang\n"
            "Traffic request rate:                    inf\nSuccessful requests:                     1000\n"
            "Benchmark duration (s):                  146.91\nTotal input tokens:                      4064944\n"
            "Total generated tokens:                  3930\nInput token throughput (tok/s):          27670.26\n"
            "Output token throughput (tok/s):         26.75\nMean TTFT (ms):                          73186.68\n"
            "Mean TPOT (ms):                          4225.82\n")
    diagnosis = _run(tmp_path, text)
    item = next(item for item in diagnosis.evidence if item.rule == "summary-prefill-interleaved")
    assert item.numbers["input_per_output_tokens"] == pytest.approx(27670.26 / 26.75)
    assert diagnosis.verdict == "queueing"  # all sent at once; no decode rule reads the 4.2 s
    assert not any(item.verdict == "decode-bound" for item in diagnosis.evidence)


def test_one_request_at_a_time_has_no_prefills_between_its_tokens(tmp_path):
    text = (BANNER + "Maximum request concurrency:             1\nSuccessful requests:                     10\n"
            "Benchmark duration (s):                  100.0\nInput token throughput (tok/s):          20000.0\n"
            "Output token throughput (tok/s):         10.0\nMean TTFT (ms):                          500.0\n"
            "Mean TPOT (ms):                          150.0\n")
    assert not any(item.rule == "summary-prefill-interleaved" for item in _run(tmp_path, text).evidence)


def test_a_rate_not_kept_read_through_littles_law(tmp_path):
    # sglang#6681's shape: 1,024 requests offered at 128 req/s arrive in 8 s; 3.57 req/s with 507.99 in flight is a
    # mean latency of 507.99 / 3.57 = 142.3 s, so ~150 s was enough and 287.2 s is 1.9× that. SGLang spells the cap
    # "reqeuest".
    text = (BANNER + "Backend:                                 sglang\n"
            "Traffic request rate:                    128.0\nMax reqeuest concurrency:                512\n"
            "Successful requests:                     1024\nBenchmark duration (s):                  287.20\n"
            "Request throughput (req/s):              3.57\nOutput token throughput (tok/s):         456.37\n"
            "Concurrency:                             507.99\n")
    diagnosis = _run(tmp_path, text)
    assert diagnosis.verdict == "queueing"
    assert any(item.rule == "summary-rate-not-kept" for item in diagnosis.evidence)
    log = LogFile.open(tmp_path / "log.txt")
    (record,) = [item for item in bench_clients.parse(log.lines()) if isinstance(item, Record)]
    assert record.metrics["max_concurrency"] == 512


def _v1(second: int, prompt: float, generation: float, running: int) -> str:
    return (f"INFO 06-05 14:58:{second:02d} [loggers.py:271] Engine 000: Avg prompt throughput: {prompt:.1f} tokens/s, "
            f"Avg generation throughput: {generation:.1f} tokens/s, Running: {running} reqs, Waiting: 0 reqs, GPU KV "
            "cache usage: 20.8%, Prefix cache hit rate: 0.0%\n")


def test_prompt_windows_that_open_a_slow_decode(tmp_path):
    # Ten prompts read in the first windows (2,870 prompt tok/s) before any decode; then 35 tok/s for 10 streams,
    # 3.5 tok/s each, with no prompt load: the decode that follows is the reading.
    text = (_v1(6, 410.1, 0.2, 8) + _v1(16, 2870.5, 0.8, 10) + _v1(26, 820.2, 30.0, 10) + _v1(36, 0.0, 35.0, 10)
            + _v1(46, 0.0, 35.0, 10))
    diagnosis = _run(tmp_path, text)
    assert diagnosis.verdict == "decode-bound"
    assert not any(item.rule == "windows-prefill-heavy" for item in diagnosis.evidence)


def test_prompt_windows_between_decode_windows_still_starve_it(tmp_path):
    # Decode at 3.5 tok/s per stream, then prompts arriving while it runs: prefills starve a decode that had begun.
    text = (_v1(6, 0.0, 35.0, 10) + _v1(16, 2870.5, 0.8, 10) + _v1(26, 0.0, 35.0, 10) + _v1(36, 2870.5, 0.8, 10))
    assert any(item.rule == "windows-prefill-heavy" for item in _run(tmp_path, text).evidence)


def test_a_small_active_size_decoding_like_a_cpu(tmp_path):
    # Qwen3-30B-A3B as a GGUF: 3e9 active × 4.5 bits ÷ 8 = 1.69 GB a step; on 360 GB/s at 70 %: 6.70 ms. 138 tokens
    # in 5,735 ms = 41.6 ms each, 6.2× that: under the 100 ms cutoff, yet slower than a slow GPU would be.
    diagnosis = _run(tmp_path, server_timing(39, 1327.07, 138, 5735.32), model="example/Qwen3-30B-A3B-GGUF")
    assert diagnosis.verdict == "decode-bound"
    item = next(item for item in diagnosis.evidence if item.rule == "requests-slower-than-size-allows")
    # (plus its 48 layers' launches, 48 × 46 µs, as the catalogue's Qwen3-30B-A3B: since the twenty-ninth session)
    assert item.numbers["slow_card_seconds_per_token"] == pytest.approx(3e9 * 4.5 / 8 / (0.7 * 360e9) + 48 * 46e-6)


def test_the_same_small_model_at_gpu_speed_is_not_judged_slow(tmp_path):
    # 138 tokens in 1,000 ms = 7.2 ms each: about what the slow card gives, nowhere near 2.5× it.
    diagnosis = _run(tmp_path, server_timing(39, 100.0, 138, 1000.0), model="example/Qwen3-30B-A3B-GGUF")
    assert diagnosis.verdict == "healthy"


def _ollama(prompt_tokens: int, rate: float) -> str:
    return f"prompt eval count:    {prompt_tokens} token(s)\neval rate:            {rate:.2f} tokens/s\n\n"


def test_a_runner_whose_decode_halves_between_requests(tmp_path):
    # 37.5 tok/s at first, 17.0 at 1,860 prompt tokens and still 18.0 with a 13-token prompt: 37.5 / 18.0 = 2.08×.
    text = "".join(_ollama(tokens, rate) for tokens, rate in ((13, 37.47), (506, 36.64), (1860, 17.04), (13, 18.01)))
    diagnosis = _run(tmp_path, text)
    assert diagnosis.verdict == "decode-bound"
    item = next(item for item in diagnosis.evidence if item.rule == "requests-decode-slowed")
    assert item.numbers["generation_tokens_per_second_last"] == pytest.approx(18.01)


def test_a_runner_that_ends_at_its_usual_speed(tmp_path):
    text = "".join(_ollama(tokens, rate) for tokens, rate in ((13, 37.47), (1860, 17.04), (13, 36.9)))
    assert not any(item.rule == "requests-decode-slowed" for item in _run(tmp_path, text).evidence)
