"""What the blind-round tools share: the rounds' tables, the flags a reading names, the tool's verdict on a file,
and the SCORES dict of tests/diagnose/test_blind_rounds.py (read and rewritten in place).

The project root is this file's grandparent, or $IL_ROOT (a worktree of another commit, to compare verdicts)."""

from __future__ import annotations

import ast
import os
import re
import sys
from pathlib import Path

ROOT = Path(os.environ.get("IL_ROOT") or Path(__file__).resolve().parents[2])
FIXTURES = ROOT / "tests" / "fixtures"
ROUNDS_TEST = ROOT / "tests" / "diagnose" / "test_blind_rounds.py"
sys.path.insert(0, str(ROOT / "src"))
os.environ["HF_HUB_OFFLINE"] = "1"  # as the blind runs: models not bundled are not fetched

_SCORE_ENTRY = re.compile(r'"(blind\d+_logs)": \((\d+), (\d+), (\d+)\)')


def rnum(folder: str) -> int:
    """The round number of a fixtures folder (blind568_logs -> 568)."""
    return int(re.search(r"\d+", folder).group())


_CELL_BORDER = re.compile(r"(?<!\\)\|")  # a cell border, not a pipe a reading escapes (`\\|`)


def tables(folder: str) -> tuple[dict, dict]:
    """{file: (accepted verdicts, flags)} and {file: (blind verdict, after fixes)} of a round's EXPECTED.md."""
    reading, results = {}, {}
    for line in (FIXTURES / folder / "EXPECTED.md").read_text().splitlines():
        cells = [cell.strip() for cell in _CELL_BORDER.split(line)][1:-1]
        if len(cells) == 4 and cells[0].endswith(".txt"):
            reading[cells[0]] = ({verdict.strip() for verdict in cells[1].split(",")}, cells[2].strip("` "))
        elif len(cells) == 3 and cells[0].endswith(".txt"):
            results[cells[0]] = (cells[1], cells[2])
    return reading, results


def readings(folder: str) -> dict:
    """{file: (the reading's first accepted verdict, its why)} of a round (tables() keeps the verdicts as a set)."""
    found = {}
    for line in (FIXTURES / folder / "EXPECTED.md").read_text().splitlines():
        cells = [cell.strip() for cell in _CELL_BORDER.split(line)][1:-1]
        if len(cells) == 4 and cells[0].endswith(".txt"):
            found[cells[0]] = (cells[1].split(",")[0].strip(), cells[3])
    return found


def options(flags: str) -> dict:
    """The --model/--gpu of a reading's flags cell as diagnose_files keywords."""
    return dict(re.findall(r"--(model|gpu)\s+(\S+)", flags))


def diagnosis(path: Path, flags: str):
    """The tool's diagnosis of one file, or None where it refuses the file."""
    from inferledger.diagnose import diagnose_files
    from inferledger.errors import LogFormatError

    try:
        return diagnose_files([path], **options(flags))
    except LogFormatError:
        return None


def verdict(path: Path, flags: str) -> str:
    """The tool's verdict on one file, "not read" where it refuses it."""
    found = diagnosis(path, flags)
    return "not read" if found is None else found.verdict


def scores() -> dict:
    """SCORES of the rounds test: {folder: (blind, after, files)}."""
    text = ROUNDS_TEST.read_text()
    start = text.index("SCORES = ")
    end = text.index("}", start) + 1
    return ast.literal_eval(text[start + len("SCORES = "):end])


def folders() -> list:
    """Every round folder SCORES names, in round order."""
    return sorted(scores(), key=rnum)


def set_score(folder: str, blind: int, after: int, files: int) -> None:
    """Rewrite (or add, after the last entry) one round's SCORES entry."""
    text = ROUNDS_TEST.read_text()
    entry = f'"{folder}": ({blind}, {after}, {files})'
    pattern = re.compile(rf'"{folder}": \(\d+, \d+, \d+\)')
    if pattern.search(text):
        text = pattern.sub(entry, text)
    else:
        last = list(_SCORE_ENTRY.finditer(text[:text.index("}", text.index("SCORES = "))]))[-1]
        text = text[:last.end()] + ",\n          " + entry + text[last.end():]
    ROUNDS_TEST.write_text(text)


def hits(reading: dict, results: dict, column: int) -> int:
    """How many files' verdict in results column 0 (blind) or 1 (after fixes) the reading accepts."""
    return sum(results[name][column] in reading[name][0] for name in reading)
