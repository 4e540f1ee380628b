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
