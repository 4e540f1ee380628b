"""A call to an OpenAI-compatible server timed by the shell (diagnose/parsers/curl_time.py): the reply's usage and
the wall time, in each shell's spelling."""

from __future__ import annotations

from pathlib import Path

import pytest

from inferledger.diagnose import diagnose_files
from inferledger.diagnose.parsers import curl_time, detect
from inferledger.diagnose.read import LogFile

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures"
REPLY = ('{"object":"chat.completion","choices":[{"message":{"role":"assistant","content":"Hello"}}],'
         '"usage":{"prompt_tokens":12,"completion_tokens":%d,"total_tokens":%d}}')


def test_localai_reply_with_zero_counts_keeps_only_the_time():
    path = FIXTURES / "blind8_logs" / "localai__curl-time-8s-usage-zero.txt"
    log = LogFile.open(path)
    assert detect(log.head)[0] is curl_time
    (record,) = curl_time.parse(log.lines())
    # `real	0m7.968s`; the reply says 0 prompt and 0 completion tokens beside a ~60-word answer: not counted.
    assert record.metrics == {"e2e_seconds": pytest.approx(7.968)}
    assert diagnose_files([path]).verdict == "insufficient-data"


@pytest.mark.parametrize(("timing", "seconds"), [
    ("real\t1m2.500s", 62.5),  # bash
    ("real 62.50", 62.5),  # time -p
    ("curl -s localhost:8000/v1/chat/completions  0.01s user 0.01s system 0% cpu 1:02.50 total", 62.5),  # zsh
    ("\tElapsed (wall clock) time (h:mm:ss or m:ss): 1:02.50", 62.5),  # /usr/bin/time -v
])
def test_wall_time_spellings(tmp_path, timing, seconds):
    path = tmp_path / "call.txt"
    path.write_text(REPLY % (250, 262) + "\n" + timing + "\n", encoding="utf-8")
    (record,) = curl_time.parse(LogFile.open(path).lines())
    assert record.metrics == {"e2e_seconds": pytest.approx(seconds), "input_tokens": 12.0, "output_tokens": 250.0}
    # 62.5 s for 250 tokens: at most 250 ms a token with the prompt included (62.5 / 250), over the 100 ms cutoff
    # once the prompt's share is bounded by 62.5 / (12 + 250) = 239 ms a token.
    assert diagnose_files([path]).verdict == "decode-bound"
