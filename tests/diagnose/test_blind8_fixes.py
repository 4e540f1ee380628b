"""After blind round 8 (not blind): koboldcpp's console benchmark summary, wrapped ollama slog records, `ollama ps`,
a partial offload read at start-up, and a burst whose streams stay fast; expected figures worked out here from the
numbers in the text of the round's real excerpts."""

from __future__ import annotations

from pathlib import Path

import pytest

from inferledger.diagnose import diagnose_files
from inferledger.diagnose.parsers import local_runners, ollama
from inferledger.diagnose.read import LogFile, detect_formats, read_records

BLIND8 = Path(__file__).resolve().parent.parent / "fixtures" / "blind8_logs"


def test_koboldcpp_benchmark_key_value_blocks():
    # koboldcpp#1770: four versions; 1.97.1 read its prompt in 52.206 s at 625.75 T/s = 32,668 tokens.
    path = BLIND8 / "koboldcpp__benchmark-blocks-7900xtx-32k-processing-626-to-75-t-s.txt"
    assert detect_formats(LogFile.open(path))[0] is local_runners
    records = read_records(path)
    assert [record.metrics["prefill_seconds"] for record in records] == [52.206, 383.096, 405.915, 433.128]
    assert records[0].metrics["input_tokens"] == pytest.approx(52.206 * 625.75)
    assert records[0].metrics["tpot_seconds"] == pytest.approx(1 / 19.89)
    assert records[-1].metrics["e2e_seconds"] == 438.978
    assert diagnose_files([path]).verdict == "prefill-bound"  # 433 of 439 s is the prompt


def test_wrapped_slog_record_gives_the_partial_offload():
    # ollama#8961: layers.model=65 layers.offload=24 on a line wrapped under its `source=` line.
    path = BLIND8 / "ollama__slog-offload-24-of-65-layers-ctx-128k-kv-31g.txt"
    records = read_records(path)
    capacity = {name: value for record in records for name, value in record.metrics.items()}
    assert capacity["model_layers"] == 65 and capacity["offloaded_layers"] == 24
    diagnosis = diagnose_files([path])
    # no generation is timed in the excerpt: the placement is named as what decode will hang on (round 461's rule)
    assert diagnosis.verdict == "insufficient-data"
    assert any(item.rule == "state-partial-offload-unmeasured" for item in diagnosis.evidence)


def test_joined_lines_keep_their_line_numbers():
    lines = [(1, 'time=x level=INFO source=memory.go:1'), (2, '  msg="offload" layers.model=10 layers.offload=3'),
             (3, "[GIN] next")]
    assert list(ollama._joined(iter(lines))) == [
        (1, 'time=x level=INFO source=memory.go:1 msg="offload" layers.model=10 layers.offload=3'), (3, "[GIN] next")]


def test_ollama_ps_processor_column():
    # ollama#4531: llama3:70b at 42%/58% CPU/GPU holds 58 % on the GPU; the 8B at 100% GPU holds all of it.
    path = BLIND8 / "ollama__ps-llama3-70b-42-percent-cpu.txt"
    assert detect_formats(LogFile.open(path))[0] is ollama
    shares = [record.metrics["gpu_share_fraction"] for record in read_records(path)]
    assert shares == [pytest.approx(0.58), 1.0]
    diagnosis = diagnose_files([path])  # `ollama ps` times nothing: the 42 % on the CPU is named, not judged
    assert diagnosis.verdict == "insufficient-data"
    assert any(item.rule == "state-partial-offload-unmeasured" for item in diagnosis.evidence)


def test_burst_with_fast_streams_is_not_a_rate_not_kept():
    # sglang#13376: 256 requests at 256 req/s arrive in 1 s of an 83.27 s run; 6,148.70 tok/s over 142.34 in flight
    # is 43.2 tok/s a stream - a throughput test, and with no latency in the excerpt no verdict beyond that.
    diagnosis = diagnose_files([BLIND8 / "sglang__bench-serving-ngram-spec-256-conc-retokenized-half.txt"])
    assert diagnosis.verdict == "insufficient-data"
    assert not any(item.rule == "summary-rate-not-kept" for item in diagnosis.evidence)
    assert any("throughput test" in note for note in diagnosis.notes)
