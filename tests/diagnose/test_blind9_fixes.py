"""The general fixes of blind round 9 (tests/fixtures/blind9_logs): ollama's streamed chunks timed by their stamps,
an argparse Namespace line giving a benchmark's offered rate and request count, normalised latencies kept apart from
the request latency, and a latency with no length or rate judged as no evidence of health."""

from __future__ import annotations

from pathlib import Path

import pytest

from inferledger.diagnose import diagnose_files
from inferledger.diagnose.parsers import detect, generic_summary, ollama
from inferledger.diagnose.read import LogFile, read_records

ROUND = Path(__file__).resolve().parent.parent / "fixtures" / "blind9_logs"


def test_ollama_stream_chunks_give_the_time_per_token():
    path = ROUND / "ollama__nvim-client-trace-stream-chunks-one-a-second.txt"
    assert detect(LogFile.open(path).head)[0] is ollama
    (record,) = read_records(path)
    # Seven chunks (one token each) stamped 22:08:26.963062 ... 22:08:32.545476: six gaps.
    assert record.metrics["output_tokens"] == 7
    assert record.metrics["tpot_seconds"] == pytest.approx((32.545476 - 26.963062) / 6)
    assert record.labels["model"] == "codellama:latest"
    assert diagnose_files([path]).verdict == "decode-bound"


def test_a_stream_ended_by_its_final_chunk_keeps_the_final_timings(tmp_path):
    chunk = '{"model":"m","created_at":"2024-09-17T22:08:2%d.000000001Z","response":"a","done":false}'
    final = ('{"model":"m","created_at":"2024-09-17T22:08:29Z","response":"","done":true,"eval_count":4,'
             '"eval_duration":3000000000}')
    path = tmp_path / "stream.jsonl"
    path.write_text("\n".join([chunk % 5, chunk % 6, chunk % 7, chunk % 8, final]) + "\n", encoding="utf-8")
    records = read_records(path)
    # The final chunk's own counts (4 tokens in 3 s) are read; the stamps' estimate is not added beside them.
    assert [record.source for record in records] == ["ollama.api"]
    assert records[0].metrics["tpot_seconds"] == pytest.approx(3 / 4)


def test_benchmark_arguments_give_the_offered_rate_and_the_requests_sent():
    path = ROUND / "vllm__2023-benchmark-serving-rate-200-llama7b-a100-latency-67s.txt"
    log = LogFile.open(path)
    (record,) = list(generic_summary.parse(log.lines()))
    metrics = record.metrics
    assert metrics["request_rate_per_second"] == 200.0 and metrics["requests_sent"] == 1000
    assert metrics["e2e_seconds_mean"] == pytest.approx(67.59)
    # "Average latency per token: 0.21 s" and "per output token: 1.10 s" are latencies divided by tokens, not E2E.
    assert metrics["e2e_per_token_seconds_mean"] == pytest.approx(0.21)
    assert metrics["e2e_per_output_token_seconds_mean"] == pytest.approx(1.10)
    diagnosis = diagnose_files([path])
    assert diagnosis.verdict == "queueing"
    (finding,) = [item for item in diagnosis.evidence if item.rule == "summary-rate-not-kept"]
    # 1000 requests at 200 req/s arrive in 5 s; with one 67.59 s request after them ~72.6 s was expected, 166.88 s
    # was taken; 5.99 req/s × 166.88 s = 999.6 ≈ the 1000 sent, so all completed.
    assert finding.numbers["request_rate_per_second"] == 200.0
    assert finding.numbers["duration_seconds"] == pytest.approx(166.88)


def test_a_latency_with_no_length_or_rate_is_no_sign_of_health(tmp_path):
    path = tmp_path / "summary.txt"
    path.write_text("Total time: 166.88 s\nThroughput: 5.99 requests/s\nAverage latency: 67.59 s\n"
                    "Average latency per token: 0.21 s\n", encoding="utf-8")
    diagnosis = diagnose_files([path])
    assert diagnosis.verdict == "insufficient-data"
    assert [item.rule for item in diagnosis.evidence] == ["summary-throughput-only"]
