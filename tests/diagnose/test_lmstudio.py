"""LM Studio's server log (diagnose/parsers/lmstudio.py): events stamped to the second, in one-line and two-line
entries, turned into per-request times; a prompt cut mid-way is projected from its progress."""

from __future__ import annotations

from pathlib import Path

import pytest

from inferledger.diagnose import diagnose_files
from inferledger.diagnose.parsers import detect, lmstudio
from inferledger.diagnose.read import LogFile

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures"


def _records(path: Path) -> list:
    log = LogFile.open(path)
    assert detect(log.head)[0] is lmstudio
    return list(lmstudio.parse(log.lines()))


def test_one_line_entries_give_the_request_time():
    (record,) = _records(FIXTURES / "logs" / "lmstudio__server-one-line-entries-streamed-request.txt")
    # Running chat completion at 18:32:17, Finished streaming response at 18:32:24; the first token in the same
    # second as the start is below the log's one-second resolution, so no TTFT is stated.
    assert record.metrics == {"e2e_seconds": 7.0}
    assert record.line_number == 13


def test_two_line_entries_and_a_prompt_cut_mid_way():
    (record,) = _records(FIXTURES / "blind8_logs" / "lmstudio__mlx-prompt-processing-progress-percent.txt")
    # Start 20:08:13, the last progress line 20:08:20 at 80.5 %.
    assert record.metrics == {"prompt_elapsed_seconds": 7.0, "prompt_progress_fraction": pytest.approx(0.805)}
    assert record.labels["model"] == "qwen/qwen3-vl-30b"
    diagnosis = diagnose_files([FIXTURES / "blind8_logs" / "lmstudio__mlx-prompt-processing-progress-percent.txt"])
    assert diagnosis.verdict == "prefill-bound"
    (finding,) = [item for item in diagnosis.evidence if item.rule == "requests-prompt-in-progress"]
    assert finding.numbers["projected_prefill_seconds"] == pytest.approx(7 / 0.805)


def test_a_request_with_nothing_measurable_is_still_read():
    path = FIXTURES / "blind8_logs" / "lmstudio__server-no-tokens-to-output-57k-context.txt"
    (record,) = _records(path)
    assert record.metrics == {}
    assert diagnose_files([path]).verdict == "insufficient-data"


def test_prompt_size_and_cache_reuse_lines(tmp_path):
    # lmstudio-ai/lmstudio-bug-tracker#778 (LM Studio 0.3.18): the llama.cpp engine's debug entry after the start.
    path = tmp_path / "lmstudio.log"
    path.write_text(
        "[2025-07-19 20:33:33][INFO][LM STUDIO SERVER] Running chat completion on conversation with 9 messages.\n"
        "[2025-07-19 20:33:33][DEBUG] Looking for non-prefix contiguous prompt sequences of size >= 256 to reuse "
        "from cache\n"
        "Cache reuse summary: 939/939 of prompt (100%), 939 prefix, 0 non-prefix\n"
        "Total prompt tokens: 939\n"
        "Prompt tokens to decode: 1\n", encoding="utf-8")
    (record,) = _records(path)
    assert record.metrics == {"input_tokens": 939.0, "cached_tokens": 938.0}
