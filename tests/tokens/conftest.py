"""Shared fixtures for the token tests: the fixture texts (copied into the repo) and the bundled tokenizers."""

from pathlib import Path

import pytest

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures" / "tokens"
CHINESE = FIXTURES / "chapter2-prerequisites.zh.txt"
ENGLISH = FIXTURES / "prerequisites.en.txt"


@pytest.fixture(scope="session")
def chinese_text() -> str:
    return CHINESE.read_text(encoding="utf-8")


@pytest.fixture(scope="session")
def english_text() -> str:
    return ENGLISH.read_text(encoding="utf-8")


@pytest.fixture(scope="session")
def bundled():
    """bundled(name): a bundled tokenizer. No skip when the [tokens] extra is missing: the test extra installs it,
    and offline bundled tokenizers are a promise of the README's install, so their absence must fail."""
    from inferledger.tokens.loading import load_tokenizer

    return load_tokenizer
