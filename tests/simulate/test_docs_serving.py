"""The README's workload, simulate and plan blocks are what the commands print today (as test_docs does for request)."""

import subprocess
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent.parent))
from readme_blocks import matches  # noqa: E402

README = (Path(__file__).parent.parent.parent / "README.md").read_text()


BLOCKS = [(verb, block.split("```", 1)[0]) for verb in ("workload", "simulate", "plan")
          for block in README.split(f"$ inferledger {verb} ")[1:]]


@pytest.mark.parametrize("verb, block", BLOCKS)
def test_readme_block_is_current(verb, block):
    command, expected = block.split("\n", 1)
    result = subprocess.run([sys.executable, "-m", "inferledger", verb, *command.split()], capture_output=True,
                            text=True)
    assert result.returncode == 0
    assert matches(expected, result.stdout)  # a line `...` stands for lines left out (tests/readme_blocks.py)
