"""Blind rounds 217 on: the general fixes of the fifteenth session. Expected figures are worked out here."""

from __future__ import annotations

import pytest
from blind_helpers import rules, write

from inferledger.diagnose import diagnose_files
from inferledger.diagnose.read import read_records

# vLLM's offline throughput line: a rate over every stream of the run, no per-token time and no batch.
RATE_ONLY = "Throughput: {req:.2f} requests/s, {total:.2f} total tokens/s, {out:.2f} output tokens/s\n"


def _rate_only(tmp_path, output_rate: float) -> str:
    return write(tmp_path, RATE_ONLY.format(req=output_rate / 500, total=output_rate * 3, out=output_rate))


def test_a_rate_above_one_streams_speed_is_healthy_whatever_the_batch(tmp_path):
    # A 32B model known only by its name, bf16: 64 GB a step; on an H200 (4,800 GB/s) one stream's floor is
    # 64e9 / 4.8e12 = 13.3 ms a token plus the layers' fixed cost, so one stream makes at most 75 tok/s. 1,000 tok/s
    # over the run's streams is more than one stream's, whatever the batch was: decode is not slow.
    diagnosis = diagnose_files([_rate_only(tmp_path, 1000.0)], model="acme/Foo-32B-Instruct", gpu="h200-sxm")
    assert diagnosis.verdict == "healthy"
    assert "hardware-throughput-one-stream" in rules(diagnosis)


def test_a_rate_below_one_streams_speed_is_left_unjudged(tmp_path):
    # 20 tok/s is under a third of the 75 tok/s one stream reads at most (above): a slow engine, or a run whose
    # prompts took the time; the rate alone cannot say which.
    diagnosis = diagnose_files([_rate_only(tmp_path, 20.0)], model="acme/Foo-32B-Instruct", gpu="h200-sxm")
    assert diagnosis.verdict == "insufficient-data"


def test_the_ledgers_realistic_step_is_the_reference_when_the_config_is_at_hand(tmp_path):
    # Llama-3.1-8B (../shared/models) in bf16 is 16.06 GB a step: on an H100 SXM (3,350 GB/s) the floor is 4.8 ms,
    # at most 209 tok/s for one stream; 1,000 tok/s is more than any one stream, 20 tok/s (50 ms a token, ten times
    # the floor) is below what the ledger's realistic step allows one stream.
    fast = diagnose_files([_rate_only(tmp_path, 1000.0)], model="meta-llama/Llama-3.1-8B", gpu="h100-sxm")
    assert fast.verdict == "healthy"
    slow = diagnose_files([_rate_only(tmp_path, 20.0)], model="meta-llama/Llama-3.1-8B", gpu="h100-sxm")
    assert slow.verdict == "insufficient-data"


# benchmark_throughput.py before it printed an output rate (vllm#7117): its command line fixes every request's lengths.
FIXED_LENGTHS = """\
python benchmarks/benchmark_throughput.py --input-len 256 --output-len 256 --model meta-llama/Meta-Llama-3-8B
Throughput: 24.32 requests/s, 12453.04 tokens/s
"""


def test_a_throughput_runs_fixed_lengths_give_its_output_rate(tmp_path):
    (record,) = [record for record in read_records(write(tmp_path, FIXED_LENGTHS)) if record.kind == "summary"]
    # 24.32 req/s × (256 + 256) tokens = 12,451.8 tok/s, the printed total to 0.01 %: each request made 256 tokens,
    # so 24.32 × 256 = 6,225.92 of them a second are output.
    assert record.metrics["output_tokens_per_second"] == pytest.approx(24.32 * 256)
    assert record.metrics["mean_output_tokens"] == 256


def test_lengths_that_do_not_give_the_printed_total_are_not_this_runs(tmp_path):
    # 24.32 req/s × (1024 + 256) = 31,130 tok/s, not the 12,453 printed: the flags are another run's.
    other = FIXED_LENGTHS.replace("--input-len 256", "--input-len 1024")
    (record,) = [record for record in read_records(write(tmp_path, other)) if record.kind == "summary"]
    assert "output_tokens_per_second" not in record.metrics


# A PR's before/after table (sglang, a metric a row and a variant a column) that holds only the output rate.
RATE_ROWS = """\
| Metric | Baseline (avg) | Optimized (avg) | Delta |
|--------|---------------|-----------------|-------|
| Output throughput (tok/s) | 131.41 | 134.83 | **+2.6%** |
"""


def test_a_metric_table_with_only_an_output_rate_is_read_as_runs(tmp_path):
    records = [record for record in read_records(write(tmp_path, RATE_ROWS)) if record.kind == "summary"]
    assert [record.metrics["output_tokens_per_second"] for record in records] == [131.41, 134.83]  # Delta: no run
