"""The general fixes of blind round 14 (tests/fixtures/blind14_logs): SGLang's prefill timed between two stamps,
bench rows whose prompt phase dominates, KTransformers' one-request line, mlx_lm.benchmark's lengths from its command,
exllamav2's line without its parenthesis, a script's per-item progress times, an odd prompt time that does not void a
slow decode, and advice fitted to one-request runners; expected figures worked out here from the excerpts."""

from __future__ import annotations

from pathlib import Path

import pytest

from inferledger.diagnose import diagnose_files
from inferledger.diagnose.read import read_records

ROUND = Path(__file__).resolve().parent.parent / "fixtures" / "blind14_logs"
SHARED = Path(__file__).resolve().parent.parent / "fixtures" / "logs"  # the shared samples, copied into the repository


def _rules(diagnosis) -> list:
    return [item.rule for item in diagnosis.evidence]


def test_sglang_prefill_timed_between_its_line_and_the_next_decode_line():
    diagnosis = diagnose_files([ROUND / "sglang__mla-8k-prefill-90s-then-decode-52-tok-s.txt"])
    assert diagnosis.verdict == "prefill-bound"
    (finding,) = [item for item in diagnosis.evidence if item.rule == "windows-slow-prefill-gap"]
    # Prefill line at 09:48:06, next Decode line at 09:49:36: 90 s. The stream then decodes at 52.24, 52.23, 52.22,
    # 52.22 tok/s (the 0.44 window holds the prefill); up to 40 decode steps at that rate sit inside the 90 s.
    stream = (52.24 + 52.23 + 52.22 + 52.22) / 4
    assert finding.numbers["prefill_seconds_max"] == 90
    assert finding.numbers["prefill_seconds_min"] == pytest.approx(90 - 40 / stream)
    assert finding.numbers["prompt_tokens_per_second_max"] == pytest.approx(8009 / (90 - 40 / stream))
    assert finding.lines == [6]


def _sglang_log(path, gap_seconds: int, tokens: int = 8000) -> None:
    lines = [f"[2025-04-03 10:00:00 TP0] Prefill batch. #new-seq: 1, #new-token: {tokens}, #cached-token: 0, "
             "token usage: 0.00, #running-req: 0, #queue-req: 0, "]
    for step in range(4):
        second = gap_seconds + step
        lines.append(f"[2025-04-03 10:00:{second:02d} TP0] Decode batch. #running-req: 1, #token: {tokens + 40 * step}, "
                     "token usage: 0.02, gen throughput (token/s): 50.00, #queue-req: 0, ")
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")


def test_a_prefill_read_fast_enough_is_not_flagged(tmp_path):
    # 8,000 tokens in at most 3 s is ≥ 8000 / 3 = 2,667 tok/s, 53× the 50 tok/s stream: a healthy prompt read.
    path = tmp_path / "sglang.log"
    _sglang_log(path, gap_seconds=3)
    assert "windows-slow-prefill-gap" not in _rules(diagnose_files([path]))
    # Under 2 s between the stamps is whole-second noise and decode steps: not timed at all.
    _sglang_log(path, gap_seconds=1, tokens=100_000)
    assert "windows-slow-prefill-gap" not in _rules(diagnose_files([path]))


def test_a_prefill_read_barely_faster_than_one_stream_is_flagged(tmp_path):
    # 8,000 tokens in 59.2-60 s (40 steps at 50 tok/s = 0.8 s inside the gap): at most 8000 / 59.2 = 135 tok/s,
    # 2.7× the stream's 50 tok/s, under the rule's 3×.
    path = tmp_path / "sglang.log"
    _sglang_log(path, gap_seconds=60)
    diagnosis = diagnose_files([path])
    assert diagnosis.verdict == "prefill-bound"
    (finding,) = [item for item in diagnosis.evidence if item.rule == "windows-slow-prefill-gap"]
    assert finding.numbers["prompt_tokens_per_second_max"] == pytest.approx(8000 / 59.2)


def test_sweep_bench_rows_whose_prompt_phase_dominates():
    path = ROUND / "iklamacpp__sweep-bench-r1-pp512-8.8-tg128-2.9-t-s.txt"
    diagnosis = diagnose_files([path])
    assert diagnosis.verdict == "prefill-bound"
    (finding,) = [item for item in diagnosis.evidence if item.rule == "windows-bench-prefill-share"]
    # Every row: T_PP ≥ T_TG (58.226 vs 44.387 at N_KV 0 ... 93.136 vs 59.594 at 5632), so all 12 are ≥ half.
    assert finding.numbers == {"rows": 12, "rows_timed": 12, "prefill_seconds_max": 93.136}


def test_batched_bench_rows_with_long_prompts_read_at_a_healthy_rate():
    # llama.cpp's batched-bench sample. PP 512, B 1: 0.337 of 0.742 s (45 %): no. B 2: 0.639 of 1.108 s (58 %), but
    # S_PP 1603.62 ≥ 10 × S_TG 136.37, a healthy prompt rate, so it needs 2/3: no. B 4: 1.248 of 1.818 s (69 %): yes.
    # PP 4096: 2.684/3.112, 5.354/5.868, 10.694/11.349 (86-94 %): yes. 4 of 6, and the run is healthy throughout.
    diagnosis = diagnose_files([SHARED / "llamacpp__batched-bench-table-metal.txt"])
    (finding,) = [item for item in diagnosis.evidence if item.rule == "windows-bench-prefill-share"]
    assert finding.numbers == {"rows": 4, "rows_timed": 6, "prefill_seconds_max": 10.694}
    assert diagnosis.verdict == "healthy"


def test_ktransformers_request_line():
    (record,) = read_records(ROUND / "ktransformers__balance-serve-r1-prefill-0.07-decode-0.22-tok-s.txt")
    metrics = record.metrics
    assert metrics["prefill_seconds"] == pytest.approx(126.99572706222534)
    assert metrics["decode_seconds"] == pytest.approx(362.44456696510315)
    assert metrics["e2e_seconds"] == pytest.approx(0.5365676879882812 + 126.99572706222534 + 362.44456696510315)
    assert metrics["input_tokens"] == round(0.07086852611655337 * 126.99572706222534) == 9
    assert metrics["output_tokens"] == round(0.2152053227149353 * 362.44456696510315) == 78
    assert metrics["tpot_seconds"] == pytest.approx(1 / 0.2152053227149353)


def test_an_odd_prompt_time_does_not_void_a_slow_decode_that_takes_most_of_the_request():
    # 9 prompt tokens in 127 s (14 s each) against 4.6 s a generated token: the prompt time holds something else,
    # but decode is 362 of 490 s and its 0.2 tok/s is measured on its own.
    diagnosis = diagnose_files([ROUND / "ktransformers__balance-serve-r1-prefill-0.07-decode-0.22-tok-s.txt"])
    assert diagnosis.verdict == "decode-bound"
    assert "requests-prompt-slower-than-decode" not in _rules(diagnosis)
    assert any("prompt time holds something other than prompt work" in note for note in diagnosis.notes)


def test_an_odd_prompt_time_that_is_most_of_the_request_stays_an_artifact(tmp_path):
    # 5 prompt tokens in 50 s (10 s each) against 2 generated tokens in 4 s (2 s each): the prompt is most of it.
    path = tmp_path / "kt.log"
    path.write_text("balance_serve.py[97]: Performance(T/s): prefill 0.1, decode 0.5. Time(s): tokenize 0.1, "
                    "prefill 50.0, decode 4.0\n", encoding="utf-8")
    diagnosis = diagnose_files([path])
    assert diagnosis.verdict == "measurement-artifact"
    assert "requests-prompt-slower-than-decode" in _rules(diagnosis)


def test_mlx_benchmark_lengths_from_its_command_and_an_averages_line():
    records = read_records(ROUND / "mlxlm__benchmark-granite-p2048-g2-pre-post.txt")
    assert len(records) == 2
    pre = records[0].metrics
    assert pre["input_tokens"] == 2048 and pre["output_tokens"] == 2
    assert pre["prefill_seconds"] == pytest.approx(2048 / 439.847)
    assert pre["decode_seconds"] == pytest.approx(2 / 86.450)
    diagnosis = diagnose_files([ROUND / "mlxlm__benchmark-granite-p2048-g2-pre-post.txt"])
    assert diagnosis.verdict == "prefill-bound"
    # A one-request runner: the advice is about the prompt's own work, not a batching server's chunked prefill.
    assert not any("chunked prefill" in tip for tip in diagnosis.advice)


def test_mlx_benchmark_averages_after_trials_are_not_counted_twice(tmp_path):
    path = tmp_path / "bench.txt"
    path.write_text("Timing with prompt_tokens=512 and generation_tokens=128.\n"
                    "Trial 1:  prompt_tps=1000.0, generation_tps=100.0, peak_memory=3.2\n"
                    "Trial 2:  prompt_tps=1000.0, generation_tps=100.0, peak_memory=3.2\n"
                    "Averages: prompt_tps=1000.0, generation_tps=100.0, peak_memory=3.2\n", encoding="utf-8")
    assert len(read_records(path)) == 2


def test_exllamav2_response_line_without_its_parenthesis():
    (record,) = read_records(ROUND / "exllamav2__a100-llama2-7b-4bpw-1024-tokens-119-tok-s.txt")
    assert record.metrics == {"e2e_seconds": 8.56, "output_tokens": 1024}


def test_progress_lines_with_a_time_per_item_are_requests_without_tokens(tmp_path):
    records = read_records(ROUND / "ctranslate2__bench-questions-2.3-to-2.5-s.txt")
    assert [record.metrics["e2e_seconds"] for record in records] == [2.48, 2.27, 2.28]
    assert diagnose_files([ROUND / "ctranslate2__bench-questions-2.3-to-2.5-s.txt"]).verdict == "insufficient-data"
    prose = tmp_path / "notes.txt"
    prose.write_text("We finished question 2 of 9 in 2 seconds, then went home.\nNothing else here.\n",
                     encoding="utf-8")
    from inferledger.errors import LogFormatError

    with pytest.raises(LogFormatError):
        diagnose_files([prose])
