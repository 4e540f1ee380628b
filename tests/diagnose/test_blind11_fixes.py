"""The general fixes of blind round 11 (tests/fixtures/blind11_logs): WebLLM's stats line (and MLC's first `encode:`
wording), and a benchmark whose client kept far fewer requests in flight than it allowed; expected figures worked
out here from the numbers in the excerpts."""

from __future__ import annotations

from pathlib import Path

import pytest

from inferledger.diagnose import diagnose_files
from inferledger.diagnose.read import read_records

ROUND = Path(__file__).resolve().parent.parent / "fixtures" / "blind11_logs"


def test_webllm_stats_give_each_phase_its_time():
    path = ROUND / "webllm__stats-pc-680m-vs-pixel8-prefill-5-tok-s.txt"
    records = read_records(path)
    assert len(records) == 6
    phone = records[2].metrics  # `prefill: 5.3816 tok/s, decoding: 5.0826 tok/s (Prompt: 148 / Gen: 47)`
    assert phone["input_tokens"] == 148 and phone["output_tokens"] == 47
    assert phone["prefill_seconds"] == pytest.approx(148 / 5.3816)
    assert phone["decode_seconds"] == pytest.approx(47 / 5.0826)
    # The phone reads its prompt no faster than it generates: 27.5 s of prompt against 9.2 s of generation.
    assert diagnose_files([path]).verdict == "prefill-bound"


def test_mlc_first_stats_wording_is_read(tmp_path):
    path = tmp_path / "mlc.txt"
    path.write_text("USER: hi\nASSISTANT: hello\nencode: 31.9 tok/s, decode: 11.4 tok/s\n", encoding="utf-8")
    (record,) = read_records(path)
    assert record.metrics == {"prompt_tokens_per_second": 31.9, "generation_tokens_per_second": 11.4}


def test_a_client_that_kept_few_requests_in_flight_measured_itself():
    path = ROUND / "sglang__bench-serving-r1-w4afp8-8xh20-256-req-1700s-conc-5.txt"
    diagnosis = diagnose_files([path])
    assert diagnosis.verdict == "measurement-artifact"
    (finding,) = [item for item in diagnosis.evidence if item.rule == "summary-concurrency-not-kept"]
    # The client's own "Concurrency: 5.16" against a cap of 64 (256 requests at 64 req/s: all available in 4 s).
    assert finding.numbers["requests_in_flight"] == 5.16
    assert finding.numbers["requests_allowed"] == 64


_SUMMARY = """============ Serving Benchmark Result ============
Successful requests:                     1000
Maximum request concurrency:             16
Benchmark duration (s):                  {duration:.2f}
Total input tokens:                      512000
Total generated tokens:                  128000
Request throughput (req/s):              {rate:.2f}
Output token throughput (tok/s):         {output:.2f}
---------------Time to First Token----------------
Mean TTFT (ms):                          150.00
-----Time per Output Token (excl. 1st token)------
Mean TPOT (ms):                          10.00
----------------End-to-end Latency----------------
Mean E2EL (ms):                          1420.00
==================================================
"""


@pytest.mark.parametrize("duration,fires", [
    (100.0, False),  # 1000 requests in 100 s: 10 req/s × 1.42 s = 14.2 in flight of 16 allowed, the cap was kept
    (500.0, True),  # the same requests over 500 s: 2 req/s × 1.42 s = 2.8 in flight of 16 (under a quarter)
])
def test_in_flight_is_judged_against_the_cap(tmp_path, duration, fires):
    # Each request: TTFT 150 ms + 127 × 10 ms = 1.42 s for its 128 tokens.
    path = tmp_path / "bench.txt"
    path.write_text(_SUMMARY.format(duration=duration, rate=1000 / duration, output=128000 / duration),
                    encoding="utf-8")
    rules = [item.rule for item in diagnose_files([path]).evidence]
    assert ("summary-concurrency-not-kept" in rules) is fires
