"""Every reader on damaged copies of real logs: the fixtures cut, thinned, shuffled, repeated, their numbers turned
into nan/inf/0/-1, CRLF and redraws, deployment prefixes, two logs mixed, odd characters inside lines. A diagnosis
or one LogFormatError line, never another exception. A seeded sample of the fixtures keeps it a few seconds; the
same mutations over all of them (and more seeds) found the cases tests/diagnose/test_read_damaged.py keeps."""

from __future__ import annotations

import random
import re
from pathlib import Path

import pytest

from inferledger.diagnose import diagnose_files
from inferledger.errors import LogFormatError

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures"
ALL = sorted(FIXTURES.rglob("*.txt"))
SAMPLE = ALL[::10]
ODD = ["\x1b[32m", "\u00a0", "|", "│", "\t", "é", "\ufffd", "  "]


def _mutations(text: str, rng: random.Random) -> dict:
    lines = text.split("\n")
    shuffled = lines[:]
    rng.shuffle(shuffled)
    at = rng.randrange(len(lines))
    other = rng.choice(ALL).read_text(errors="replace").split("\n")
    return {
        "cut": text[: rng.randrange(1, len(text) + 1)],
        "thinned": "\n".join(line for line in lines if rng.random() > 0.3),
        "shuffled": "\n".join(shuffled),
        "repeated": "\n".join(lines[:at] + lines[at:at + 20] * 3 + lines[at:]),
        "numbers": re.sub(r"\d+(\.\d+)?", lambda match: rng.choice(["0", "nan", "-1", "1e309", "0.0", match.group()]),
                          text),
        "lines cut": "\n".join(line[: rng.randrange(len(line) + 1)] for line in lines),
        "crlf": "\r\n".join(line + ("\r" + line[: len(line) // 2] if rng.random() < 0.1 else "") for line in lines),
        "prefixed": "\n".join((f"2025-05-12T08:01:{number % 60:02d}.331095044Z " if rng.random() < 0.5
                               else "vllm-1  | ") + line for number, line in enumerate(lines)),
        "mixed": "\n".join(lines + other),
        "odd characters": "\n".join(line[:cut] + rng.choice(ODD) + line[cut:]
                                    for line in lines for cut in (rng.randrange(len(line) + 1),)),
    }


@pytest.mark.parametrize("path", SAMPLE, ids=lambda path: f"{path.parent.name}/{path.name[:50]}")
def test_damaged_copies_are_diagnosed_or_refused_in_one_line(path, tmp_path, monkeypatch):
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    rng = random.Random(path.name)
    for name, text in _mutations(path.read_text(errors="replace"), rng).items():
        copy = tmp_path / f"{name.replace(' ', '-')}.txt"
        copy.write_text(text, newline="")
        try:
            diagnosis = diagnose_files([copy])
        except LogFormatError as error:
            assert "\n" not in str(error)
            continue
        assert diagnosis.verdict and not any("internal error" in warning for warning in diagnosis.warnings), name
        diagnosis.to_dict()
