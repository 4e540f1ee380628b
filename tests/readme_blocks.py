"""The README's code blocks, read so that tests can run them (as sqlite-utils keeps its docs true with cog).

Three kinds of block are checked by tests/test_docs.py:

- ```text blocks that begin with `$ inferledger …`: the command is run from the repository root and its output must
  equal the rest of the block; a line `...` stands for any number of lines left out.
- ```bash blocks: every `inferledger …` command in them must run from a clean clone and exit 0.
- the ```python block of the API section: it is run, and each `expression  # value` comment is compared with the
  expression's value at the precision shown.

`python tests/readme_blocks.py --update` rewrites the text blocks with what the commands print today (keeping the
`...` elisions), for when the output changes on purpose.
"""

from __future__ import annotations

import re
import shlex
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
README = ROOT / "README.md"
ELISION = "..."
# Commands in bash blocks that are not inferledger invocations the docs promise (installers, the suite itself).
NOT_RUN = ("pip ", "python -m pytest", "ruff ", "python benchmarks/", "python ../shared/", "python tests/")


@dataclass(frozen=True)
class Block:
    language: str
    line: int  # 1-based line of the opening fence
    body: str

    @property
    def command(self) -> list[str] | None:
        """The argv after `$ inferledger` of an output block, or None."""
        first = self.body.split("\n", 1)[0]
        if self.language == "text" and first.startswith("$ inferledger "):
            return shlex.split(first[len("$ inferledger "):])
        return None

    @property
    def expected_output(self) -> str:
        return self.body.split("\n", 1)[1] if "\n" in self.body else ""


def blocks(text: str) -> list[Block]:
    found = []
    for match in re.finditer(r"^```(\w*)\n(.*?)^```$", text, flags=re.M | re.S):
        found.append(Block(match.group(1), text.count("\n", 0, match.start()) + 1, match.group(2)))
    return found


def run_inferledger(argv: list[str]) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "inferledger", *argv], capture_output=True, text=True, cwd=ROOT,
                          timeout=600)


def bash_commands(block: Block) -> list[list[str]]:
    """The inferledger invocations of a bash block (comments dropped; `a && b` split)."""
    commands = []
    for line in block.body.splitlines():
        line = line.split(" #", 1)[0].strip()
        for part in line.split("&&"):
            part = part.strip()
            if part.startswith("inferledger "):
                commands.append(shlex.split(part)[1:])
            elif part and not part.startswith(NOT_RUN):
                raise ValueError(f"README line {block.line}: a command the docs test does not know: {part!r}")
    return commands


def matches(expected: str, actual: str) -> bool:
    """Line by line; `...` in `expected` matches any run of lines (including none)."""
    pattern = "\n".join(".*?" if line == ELISION else re.escape(line) for line in expected.split("\n"))
    return re.fullmatch(pattern, actual, flags=re.S) is not None


def refreshed(block: Block, actual: str) -> str:
    """The block's body with today's output, keeping as many head and tail lines around an elision as before."""
    expected = block.expected_output.rstrip("\n").split("\n")
    lines = actual.rstrip("\n").split("\n")
    if ELISION in expected:
        cut = expected.index(ELISION)
        tail = len(expected) - cut - 1
        lines = lines[:cut] + [ELISION] + (lines[len(lines) - tail:] if tail else [])
    return block.body.split("\n", 1)[0] + "\n" + "\n".join(lines) + "\n"


def commented_values(source: str) -> list[tuple[str, str]]:
    """(expression, shown value) for each `expr  # value` line of the API block; `name = call  # .a v .b w` gives
    one pair per attribute."""
    pairs = []
    for line in source.splitlines():
        if "  # " not in line:
            continue
        code, comment = (part.strip() for part in line.split("  # ", 1))
        if "=" in code and comment.startswith("."):
            name = code.split("=", 1)[0].strip()
            for attribute, value in re.findall(r"\.(\w+)\s+([\d,.]+)", comment):
                pairs.append((f"{name}.{attribute}", value))
        elif re.fullmatch(r"[\d,.]+|\[[\d, ]*\]", comment) and "=" not in code:
            pairs.append((code, comment))
    return pairs


def shown_equal(value, shown: str) -> bool:
    """`value` printed at the precision of `shown` ("0.0672", "178", "30,532,122,624", "[5, 6]")."""
    if shown.startswith("["):
        return repr(value) == shown
    digits = shown.replace(",", "")
    decimals = len(digits.split(".")[1]) if "." in digits else 0
    return f"{value:.{decimals}f}" == digits


def update() -> int:
    text = README.read_text()
    for block in reversed(blocks(text)):
        if block.command is None:
            continue
        result = run_inferledger(block.command)
        if result.returncode != 0:
            print(f"README line {block.line}: `inferledger {shlex.join(block.command)}` failed:\n{result.stderr}")
            return 1
        start = text.index(block.body, sum(len(line) + 1 for line in text.split("\n")[:block.line]))
        text = text[:start] + refreshed(block, result.stdout) + text[start + len(block.body):]
    README.write_text(text)
    return 0


if __name__ == "__main__":
    if sys.argv[1:] != ["--update"]:
        sys.exit("usage: python tests/readme_blocks.py --update")
    sys.exit(update())
