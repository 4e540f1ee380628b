"""The README's workload and simulate blocks are what the commands print today (as test_docs does for request)."""

import subprocess
import sys
from pathlib import Path

import pytest

README = (Path(__file__).parent.parent.parent / "README.md").read_text()


@pytest.mark.parametrize("marker", ["$ inferledger workload ", "$ inferledger simulate "])
def test_readme_block_is_current(marker):
    block = README.split(marker, 1)[1].split("```", 1)[0]
    command, expected = block.split("\n", 1)
    verb = marker.split()[-1]
    result = subprocess.run([sys.executable, "-m", "inferledger", verb, *command.split()], capture_output=True,
                            text=True)
    assert result.returncode == 0
    assert result.stdout == expected
