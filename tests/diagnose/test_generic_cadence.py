"""The last-resort cadence reader (parsers/generic_cadence.py): a stream logged a piece at a time. Expected figures
are the lines' own stamps, the arithmetic written out."""

from __future__ import annotations

from pathlib import Path

import pytest

from inferledger.diagnose import diagnose_files
from inferledger.diagnose.parsers import generic_cadence
from inferledger.diagnose.read import clean_line, read_records
from inferledger.errors import LogFormatError

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures"
WEB_DEMO = FIXTURES / "blind23_logs" / "chatglmcpp__web-demo-first-token-24s-then-112ms.txt"
TORCHSERVE = FIXTURES / "blind33_logs" / "torchserve__inferentia-llama-2-13b-replies-67ms-apart.txt"


def test_a_web_demo_logging_each_token():
    (record,) = read_records(WEB_DEMO)
    # "before while …" at 03:33:27,824, the first of eight generate_next_token lines at 03:33:51,974, the last at
    # 03:33:52,767; gaps 117, 112, 113, 112, 112, 115, 112 ms: median 112 ms
    assert record.metrics == pytest.approx({
        "output_tokens": 8, "ttft_seconds": 51.974 - 27.824, "prefill_seconds": 51.974 - 27.824,
        "e2e_seconds": 52.767 - 27.824, "decode_seconds": 52.767 - 51.974, "tpot_seconds": 0.112}, abs=1e-6)
    assert diagnose_files([WEB_DEMO]).verdict == "prefill-bound"  # 24.2 s of 24.9 s before the first token


def test_a_server_logging_each_reply_with_lines_left_out():
    (record,) = read_records(TORCHSERVE)
    # ten lines 67-68 ms apart, then the paste's "....." and one line 3.478 s later: the median gap, 67.5 ms
    assert record.metrics["output_tokens"] == 11
    assert record.metrics["tpot_seconds"] == pytest.approx(0.0675, abs=1e-6)
    assert "ttft_seconds" not in record.metrics  # no line opens the request in the excerpt
    assert diagnose_files([TORCHSERVE]).verdict == "healthy"


def test_a_periodic_line_that_names_no_token_is_not_a_stream(tmp_path):
    lines = "".join(f"2024-01-01 10:00:0{second},000 INFO GET /health 200\n" for second in range(6))
    assert generic_cadence.sniff(lines) == 0.0
    path = tmp_path / "health.log"
    path.write_text(lines, encoding="utf-8")
    with pytest.raises(LogFormatError):
        diagnose_files([path])


def test_four_pieces_are_too_few():
    lines = "".join(f"2024-01-01 10:00:00,{100 * index:03d} sent token {index}\n" for index in range(4))
    assert generic_cadence.sniff(lines) == 0.0


def test_only_a_container_runtimes_stamp_is_stripped():
    assert clean_line("2024-05-01T10:00:00.123456789Z INFO 05-01 10:00:00 engine.py:1] x") == \
        "INFO 05-01 10:00:00 engine.py:1] x"
    assert clean_line("2024-05-01T10:00:00+00:00 hello") == "hello"
    # an application's own stamp (log4j, Python logging with a T) is part of its line
    line = "2023-12-05T00:01:08,523 [DEBUG] W-9000 org.pytorch.serve.wlm.WorkerThread - sent a reply, jobdone: false"
    assert clean_line(line) == line


def test_stamps_to_the_second_or_in_one_millisecond_time_nothing(tmp_path):
    seconds = "".join(f"2024-01-01 10:00:0{index} sent token {index}\n" for index in range(6))
    assert generic_cadence.sniff(seconds) == 0.0  # no fraction: a stamp to the second
    same = "".join("2024-01-01 10:00:00,000 sent token\n" for _ in range(6))
    path = tmp_path / "same.log"
    path.write_text(same, encoding="utf-8")
    (record,) = read_records(path)
    assert "tpot_seconds" not in record.metrics  # six pieces in one millisecond: no time per piece
