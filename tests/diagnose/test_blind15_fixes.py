"""The general fixes of blind round 15 (tests/fixtures/blind15_logs): a first request far slower than the rest is a
cold start, LightLLM's router lines, and perf_analyzer's units (usec, infer/sec); expected figures worked out here
from the excerpts."""

from __future__ import annotations

from pathlib import Path

import pytest

from inferledger.diagnose import diagnose_files
from inferledger.diagnose.read import read_records

ROUND = Path(__file__).resolve().parent.parent / "fixtures" / "blind15_logs"

PROMPT = "prompt eval time = {ms:10.2f} ms / {tokens:5d} tokens ({per:8.2f} ms per token, {rate:8.2f} tokens per second)"
EVAL = "       eval time = {ms:10.2f} ms / {tokens:5d} tokens ({per:8.2f} ms per token, {rate:8.2f} tokens per second)"


def _request(prompt_ms: float, prompt_tokens: int, eval_ms: float, eval_tokens: int) -> str:
    return "\n".join((
        PROMPT.format(ms=prompt_ms, tokens=prompt_tokens, per=prompt_ms / prompt_tokens,
                      rate=prompt_tokens / prompt_ms * 1e3),
        EVAL.format(ms=eval_ms, tokens=eval_tokens, per=eval_ms / eval_tokens, rate=eval_tokens / eval_ms * 1e3),
        f"      total time = {prompt_ms + eval_ms:10.2f} ms / {prompt_tokens + eval_tokens:5d} tokens"))


def _rules(diagnosis) -> list:
    return [item.rule for item in diagnosis.evidence]


def test_a_first_request_far_slower_than_the_rest_is_a_cold_start():
    diagnosis = diagnose_files([ROUND / "llamaswap__llamaserver-first-request-15-tok-s-prompt-then-1296.txt"])
    assert diagnosis.verdict == "healthy"
    # 393.54 ms a token against 26.33 ms (342.29 ms / 13 tokens) for the next request: 15× the later ones.
    (finding,) = [item for item in diagnosis.evidence if item.rule == "requests-healthy"]
    assert finding.numbers["tpot_seconds_mean"] == pytest.approx(0.34229 / 13, rel=1e-3)
    (note,) = [note for note in diagnosis.notes if "cold start" in note]
    assert "line 5" in note and "15×" in note


def test_a_first_request_only_somewhat_slower_is_judged_with_the_rest(tmp_path):
    # 300 ms then 150 ms a token: 2× (under the rule's 5×), both slower than the 100 ms cutoff: decode-bound.
    path = tmp_path / "server.log"
    path.write_text(_request(500.0, 100, 3000.0, 10) + "\n" + _request(500.0, 100, 1500.0, 10) + "\n",
                    encoding="utf-8")
    diagnosis = diagnose_files([path])
    assert diagnosis.verdict == "decode-bound"
    assert not any("cold start" in note for note in diagnosis.notes)


def test_a_slow_later_request_is_not_excused_by_a_slow_first_one(tmp_path):
    # 500 ms, then 50 ms, then 400 ms a token: the first is not 5× the later mean (225 ms), so nothing is left out.
    path = tmp_path / "server.log"
    path.write_text("\n".join(_request(500.0, 100, ms, 10) for ms in (5000.0, 500.0, 4000.0)) + "\n",
                    encoding="utf-8")
    diagnosis = diagnose_files([path])
    assert not any("cold start" in note for note in diagnosis.notes)
    assert diagnosis.verdict == "decode-bound"


def test_lightllm_router_lines_are_windows(tmp_path):
    (record,) = read_records(ROUND / "lightllm__router-batch-1-token-ratio-0.32-freed.txt")
    assert record.metrics == {"running_requests": 1.0, "kv_cache_usage_fraction": 0.31983333333333336}
    assert diagnose_files([ROUND / "lightllm__router-batch-1-token-ratio-0.32-freed.txt"]).verdict == \
        "insufficient-data"
    # Later releases: the batch size, the paused requests and the ratio on lines of their own.
    path = tmp_path / "router.log"
    path.write_text("INFO 06-01 10:00:00 [manager.py:300] current batch size: 12 \npaused req num: 3 \n"
                    "token used ratio: 0.97 \n", encoding="utf-8")
    (record,) = read_records(path)
    assert record.metrics == {"running_requests": 12.0, "kv_cache_usage_fraction": 0.97, "swapped_requests": 3.0}


def test_perf_analyzer_units_are_read():
    records = read_records(ROUND / "triton__perf-analyzer-c1-compute-input-3ms-of-4.5ms.txt")
    client = records[0].metrics
    assert client["request_throughput_per_second"] == 219.6  # `Throughput: 219.6 infer/sec`
    assert client["e2e_seconds_mean"] == pytest.approx(4553e-6)  # `Avg latency: 4553 usec`
    assert client["e2e_seconds_p99"] == pytest.approx(11129e-6)
    assert diagnose_files([ROUND / "triton__perf-analyzer-c1-compute-input-3ms-of-4.5ms.txt"]).verdict == \
        "insufficient-data"
