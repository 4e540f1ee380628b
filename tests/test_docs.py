"""The README shows real output: the documented `request` block must be exactly what the command prints today
(as sqlite-utils keeps its docs true with cog --check). This guards the docs, not the arithmetic — that is
checked by hand-derived values in tests/ledger."""

import subprocess
import sys
from pathlib import Path

README = (Path(__file__).parent.parent / "README.md").read_text()


def test_request_block_is_current():
    command = ["request", "--model", "meta-llama/Llama-3.1-8B", "--gpu", "h100-sxm", "--isl", "8192", "--osl", "512"]
    result = subprocess.run([sys.executable, "-m", "inferledger", *command], capture_output=True, text=True)
    assert result.returncode == 0
    assert "$ inferledger " + " ".join(command) + "\n" + result.stdout in README


def test_two_command_quick_start():
    quick = README.split("## Quick start", 1)[1].split("```bash", 1)[1].split("```", 1)[0].strip().splitlines()
    assert len(quick) == 2
    assert "inferledger request" in quick[0] and "pytest" in quick[1]
    ci = (Path(__file__).parent.parent / ".ci" / "run").read_text()
    assert "pytest" in ci


def test_tokens_block_is_current():
    """The README's count of the seed chapter under the Qwen and DeepSeek tokenizers (bundled, offline)."""
    import os

    command = ["tokens", "chapter2-prerequisites.zh.txt", "-t", "o200k_base,qwen2.5,qwen3.5,deepseek-v4"]
    fixtures = Path(__file__).parent / "fixtures" / "tokens"
    result = subprocess.run([sys.executable, "-m", "inferledger", *command], capture_output=True, text=True,
                            cwd=fixtures, env={**os.environ, "HF_HUB_OFFLINE": "1"})
    assert result.returncode == 0
    assert "$ inferledger " + " ".join(command) + "\n" + result.stdout in README
