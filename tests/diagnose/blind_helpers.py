"""What the blind-fix test files share: the fixtures folder, a diagnosis's rules, a log written out in a test."""

from __future__ import annotations

from pathlib import Path

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures"


def rules(diagnosis) -> set:
    """The rules behind a diagnosis's evidence."""
    return {item.rule for item in diagnosis.evidence}


def write(tmp_path, text: str, name: str = "log.txt") -> Path:
    """`text` written to tmp_path/name, its path."""
    path = tmp_path / name
    path.write_text(text)
    return path


def parsed(parser, path) -> list:
    """The Records one parser module reads from the file at `path`."""
    from inferledger.diagnose.read import LogFile
    from inferledger.diagnose.records import Record

    return [item for item in parser.parse(LogFile.open(path).lines()) if isinstance(item, Record)]


def markdown_summaries(tmp_path, text: str) -> list:
    """The summary Records the markdown reader takes from `text` pasted into a file."""
    from inferledger.diagnose.parsers import bench_markdown

    return [item for item in parsed(bench_markdown, write(tmp_path, text, "pasted.txt")) if item.kind == "summary"]
