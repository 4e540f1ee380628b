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
    """bundled(name): the bundled tokenizer, or skip when the [tokens] extra is not installed."""
    from inferledger.errors import TokenizerError
    from inferledger.tokens.loading import load_tokenizer

    def load(name: str):
        try:
            return load_tokenizer(name)
        except TokenizerError as error:
            pytest.skip(f"{name}: {error}")

    return load
