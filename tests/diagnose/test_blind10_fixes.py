"""The general fixes of blind round 10 (tests/fixtures/blind10_logs): a llama-bench table whose header lost its first
pipe, a table of prompt-processing rows only (no generation measured), and a Prometheus histogram cut before its
+Inf bucket; expected figures worked out here from the numbers in the excerpts."""

from __future__ import annotations

from pathlib import Path

import pytest

from inferledger.diagnose import diagnose_files
from inferledger.diagnose.parsers import llamacpp, prometheus
from inferledger.diagnose.read import LogFile, detect_formats, read_records

ROUND = Path(__file__).resolve().parent.parent / "fixtures" / "blind10_logs"


def test_a_llama_bench_header_without_its_first_pipe_is_read():
    path = ROUND / "llamabench__rocm-gpt-oss-20b-pp-sweep-1k-to-32k.txt"
    assert detect_formats(LogFile.open(path))[0] is llamacpp
    records = read_records(path)
    assert [record.labels["test"] for record in records] == ["pp1024", "pp2048", "pp4096", "pp8192", "pp16384",
                                                             "pp32768"]
    assert [record.metrics["prompt_tokens_per_second"] for record in records] == [1235.14, 2097.51, 3174.59,
                                                                                  4163.83, 4606.63, 4345.74]
    # 11.27 GiB in the size column
    assert records[0].metrics["weights_bytes"] == pytest.approx(11.27 * 2**30)


def test_prompt_rows_alone_do_not_measure_generation():
    diagnosis = diagnose_files([ROUND / "llamabench__rocm-gpt-oss-20b-pp-sweep-1k-to-32k.txt"])
    (finding,) = [item for item in diagnosis.evidence if item.rule == "windows-prompt-rate-only"]
    assert finding.numbers == {"prompt_tokens_per_second_min": 1235.14, "prompt_tokens_per_second_max": 4606.63,
                               "measurements": 6}
    # What the prompt rows do say: gpt-oss-20b computes with 3.6B parameters a token (OpenAI's model card), so
    # 4,607 tok/s is 2 × 3.6e9 × 4606.63 = 33 TFLOP/s, a GPU's compute at work (the reading's healthy).
    assert diagnosis.verdict == "healthy"
    (sound,) = [item for item in diagnosis.evidence if item.rule == "windows-prompt-compute-sound"]
    assert sound.numbers["prompt_flops_per_second"] == pytest.approx(2 * 3.6e9 * 4606.63, rel=0.03)


def test_a_histogram_cut_before_its_inf_bucket_counts_what_it_shows(tmp_path):
    path = ROUND / "sglang__metrics-e2e-latency-histogram-one-request.txt"
    assert detect_formats(LogFile.open(path))[0] is prometheus
    (record,) = read_records(path)
    # Eleven buckets, le=5.0 to le=300.0, each holding 1: one request, already in the lowest (at or below 5 s), is all
    # the excerpt shows.
    assert record.metrics == {"e2e_seconds_count": 1.0, "e2e_seconds_max": 5.0}
    assert record.labels["cut_histograms"] == "e2e_seconds: 1 at or below 300"
    assert diagnose_files([path]).verdict == "insufficient-data"
    # A whole histogram still gives its quantiles and no cut label.
    whole = tmp_path / "metrics.txt"
    whole.write_text('vllm:e2e_request_latency_seconds_bucket{le="1.0"} 2\n'
                     'vllm:e2e_request_latency_seconds_bucket{le="+Inf"} 4\n'
                     "vllm:e2e_request_latency_seconds_sum 6.0\nvllm:e2e_request_latency_seconds_count 4\n",
                     encoding="utf-8")
    (record,) = read_records(whole)
    assert record.metrics["e2e_seconds_mean"] == 1.5 and record.metrics["e2e_seconds_median"] == 1.0
    assert "cut_histograms" not in record.labels
