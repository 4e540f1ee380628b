"""The general fixes of blind round 12 (tests/fixtures/blind12_logs): a recognised log with nothing to read is a
diagnosis (insufficient-data), not an error; llama.cpp's JSON server lines, a bench_latency nan line, SGLang's
bench_one_batch_server report table and a front-end's title-cased ollama numbers are recognised or read."""

from __future__ import annotations

from pathlib import Path

import pytest

from inferledger.diagnose import diagnose_files
from inferledger.diagnose.parsers import llamacpp, ollama, sglang_one_batch
from inferledger.diagnose.read import LogFile, detect_formats, read_records
from inferledger.errors import LogFormatError

ROUND = Path(__file__).resolve().parent.parent / "fixtures" / "blind12_logs"


@pytest.mark.parametrize("name,parser", [
    ("llamaserver__llava-json-slots-start-7s-apart-clip-encode.txt", llamacpp),
    ("ollama__slog-model-load-progress-0.95-to-0.97.txt", ollama),
    ("sglang__bench-latency-decode-median-nan.txt", sglang_one_batch),
])
def test_a_recognised_log_with_nothing_to_judge_is_insufficient_data(name, parser):
    path = ROUND / name
    assert detect_formats(LogFile.open(path))[0] is parser
    diagnosis = diagnose_files([path])
    assert diagnosis.verdict == "insufficient-data"
    assert diagnosis.files[0]["records"] == 0


def test_a_nan_latency_is_shown_as_not_read():
    diagnosis = diagnose_files([ROUND / "sglang__bench-latency-decode-median-nan.txt"])
    (example,) = diagnosis.files[0]["unread_examples"]
    assert "nan" in example["text"]


def test_damaged_lines_alone_are_still_an_error(tmp_path):
    path = tmp_path / "bench.txt"
    path.write_text("Decode.  median latency: fast s, median throughput: high token/s\n", encoding="utf-8")
    with pytest.raises(LogFormatError, match="no line could be read"):
        diagnose_files([path])


def test_bench_one_batch_server_report_rows():
    records = read_records(ROUND / "sglang__bench-one-batch-server-report-b200-fa4-batch-1-3.txt")
    assert len(records) == 10
    first = records[0].metrics  # | 1 | 4096 | 7.09 | 16203.5 | 149.72 |
    assert first["max_concurrency"] == 1 and first["mean_input_tokens"] == 4096
    assert first["e2e_seconds_mean"] == pytest.approx(7.09)
    assert first["input_tokens_per_second"] == 16203.5 and first["output_tokens_per_second"] == 149.72
    assert records[5].metrics["max_concurrency"] == 2


def test_title_cased_ollama_numbers_with_spelled_durations():
    (record,) = read_records(ROUND / "ollamagrid__ui-stats-dolphin-mistral-7b-3.75-tok-s-rounded-seconds.txt")
    # Prompt Eval Count 37 in 0h, 0m, 3s; Eval Count 39 in 0h, 0m, 5s; Total Duration 0h, 0m, 10s.
    assert record.metrics["input_tokens"] == 37 and record.metrics["prefill_seconds"] == 3.0
    assert record.metrics["output_tokens"] == 39 and record.metrics["decode_seconds"] == 5.0
    assert record.metrics["e2e_seconds"] == 10.0
    assert record.metrics["generation_tokens_per_second"] == pytest.approx(39 / 5)
