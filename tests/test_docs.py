"""The README shows real output, and every command in it runs from a clean clone as written.

This guards the docs, not the arithmetic (that is checked by hand-derived values in tests/ledger): the output blocks
must be what the commands print today, the API block's shown values what the library returns, and the two tables
what `request` gives for their rows. `python tests/readme_blocks.py --update` refreshes the output blocks.
"""

import re
from pathlib import Path

import pytest

from readme_blocks import (
    README,
    ROOT,
    bash_commands,
    blocks,
    commented_values,
    matches,
    run_inferledger,
    shown_equal,
)

TEXT = README.read_text()
BLOCKS = blocks(TEXT)
OUTPUT_BLOCKS = [b for b in BLOCKS if b.command is not None]
BASH_COMMANDS = [(b, c) for b in BLOCKS if b.language == "bash" for c in bash_commands(b)]
NO_SUCH_PATH = ("--help",)  # arguments that are not paths


def test_the_readme_has_blocks_of_every_kind():
    assert len(OUTPUT_BLOCKS) >= 5 and len(BASH_COMMANDS) >= 8
    assert [b.language for b in BLOCKS].count("python") == 1


@pytest.mark.parametrize("block", OUTPUT_BLOCKS, ids=lambda b: f"line{b.line}")
def test_output_block_is_what_the_command_prints(block):
    result = run_inferledger(block.command)
    assert result.returncode == 0, result.stderr
    assert matches(block.expected_output, result.stdout), (
        f"README line {block.line} is stale; run `python tests/readme_blocks.py --update`")


@pytest.mark.parametrize("block,command", BASH_COMMANDS, ids=lambda x: getattr(x, "line", None) or " ".join(x)[:60])
def test_bash_command_runs_from_a_clean_clone(block, command):
    for argument in command:  # every file the docs name is in the repository
        if re.search(r"\.(txt|log|json|yaml|csv|jsonl)$", argument) and argument not in NO_SUCH_PATH:
            assert (ROOT / argument).exists(), f"README line {block.line}: {argument} is not in the repository"
    result = run_inferledger(command)
    assert result.returncode == 0, f"README line {block.line}: inferledger {' '.join(command)}\n{result.stderr}"
    assert result.stdout.strip()


def test_api_block_runs_and_shows_what_it_returns():
    source = next(b for b in BLOCKS if b.language == "python").body
    namespace: dict = {}
    exec(compile(source, "README.md", "exec"), namespace)
    pairs = commented_values(source)
    assert len(pairs) >= 10
    for expression, shown in pairs:
        value = eval(expression, namespace)
        assert shown_equal(value, shown), f"README API block: {expression} is {value!r}, the README shows {shown}"


def _table(title: str) -> list[list[str]]:
    section = TEXT.split(title, 1)[1]
    lines = [line for line in section.split("\n\n", 3)[2].splitlines() if line.startswith("|")]
    return [[cell.strip() for cell in line.strip("|").split("|")] for line in lines[2:]]


def test_context_table_is_what_request_gives():
    from inferledger.hardware import find_accelerator
    from inferledger.ledger.request import request_account
    from inferledger.model import load_model

    spec, h100 = load_model("meta-llama/Llama-3.1-8B"), find_accelerator("h100-sxm")
    rows = _table("### 8K → 32K context")
    for row, isl in zip(rows, (8192, 32768), strict=True):
        account = request_account(spec, h100, isl=isl, osl=512)
        attention = account.prefill.attention_flops
        assert row[1] == f"{attention / 1e12:.1f}"
        assert row[2] == f"{(account.prefill.flops - attention) / 1e12:.1f}"
        assert row[3] == f"{account.prefill.seconds * 1e3:.0f} ms"
        assert row[4] == f"{account.memory.kv_bytes_per_request / 2**30:.2f} GiB"
        assert row[5] == f"{account.decode.seconds_per_token * 1e3:.2f} ms"
        assert row[6] == str(account.memory.max_concurrency)


def test_precision_table_is_what_request_gives():
    from inferledger.hardware import find_accelerator
    from inferledger.ledger.request import request_account
    from inferledger.model import load_model

    spec, h100 = load_model("meta-llama/Llama-3.1-8B"), find_accelerator("h100-sxm")
    rows = _table("### Precision: why int4")
    for row, precision in zip(rows, ("fp16", "fp8", "int8", "int4"), strict=True):
        account = request_account(spec, h100, isl=4096, osl=1, precision=precision)
        decode = account.decode
        assert row[0].split()[0] == precision
        kv_read = decode.kv_read_bytes_per_step
        assert row[1] == f"{decode.weight_bytes_per_step / 1e9:.2f} GB"
        assert row[2] == f"{kv_read / 1e9:.2f} GB"
        assert row[3] == f"{decode.seconds_per_token * 1e3:.2f} ms"
        assert row[4] == f"{account.realistic.decode_seconds_per_token * 1e3:.2f} ms"


def test_two_command_quick_start():
    quick = TEXT.split("## Quick start", 1)[1].split("```bash", 1)[1].split("```", 1)[0].strip().splitlines()
    assert len(quick) == 2
    assert "inferledger request" in quick[0] and "pytest" in quick[1]
    ci = (ROOT / ".ci" / "run").read_text()
    assert "python -m pytest" in ci


def test_no_document_the_user_lacks_is_cited():
    """Outputs and docstrings must not send a user to files that are not shipped (FORMATS.md, issue items)."""
    offenders = []
    for path in (ROOT / "src").rglob("*.py"):
        text = path.read_text()
        if re.search(r"FORMATS\.md|§\s*\d|issue \d+ item", text):
            offenders.append(str(path.relative_to(ROOT)))
    assert not offenders, offenders


def test_example_inputs_say_where_they_come_from():
    provenance = (ROOT / "examples" / "README.md").read_text()
    for path in (ROOT / "examples").iterdir():
        if path.name != "README.md":
            assert f"`{path.name}`" in provenance
    assert Path(ROOT / "examples" / "vllm.log").read_text().startswith("# source: ")


def test_parallel_table_is_what_request_gives():
    from inferledger.hardware import find_accelerator
    from inferledger.ledger.request import request_account
    from inferledger.model import load_model
    from inferledger.parallelism import Parallelism

    layouts = {"tp 8": Parallelism(tp=8), "tp 8, ep 8, attention-dp 8": Parallelism(tp=8, ep=8, attention_dp=8)}
    section = TEXT.split("ISL 2,048, OSL 256, batch 1 (the floor", 1)[1].split("\n\n", 2)[1]
    rows = [[cell.strip() for cell in line.strip("|").split("|")] for line in section.splitlines()[2:]]
    assert len(rows) == 7
    for row in rows:
        model = {"DeepSeek-V3": "deepseek-ai/DeepSeek-V3", "Llama-3.1-405B": "meta-llama/Llama-3.1-405B"}[row[0]]
        gpu = {"8 × H100": "h100-sxm", "8 × H200": "h200-sxm"}[row[2]]
        account = request_account(load_model(model), find_accelerator(gpu), isl=2048, osl=256, precision=row[1],
                                  parallel=layouts[row[3]])
        assert row[4] == f"{account.memory.per_card['weight_bytes'] / 1e9:.1f} GB"
        if not account.memory.fits:
            assert row[7] == "does not fit"
            continue
        section = account.parallel
        assert row[5] == f"{account.prefill.seconds * 1e3:.1f} ms"
        assert row[6] == f"{account.decode.seconds_per_token * 1e3:.2f} ms"
        assert row[7] == f"{account.memory.max_concurrency:,}"
        assert row[8] == (f"{section['prefill']['communication_share']:.0%} / "
                          f"{section['decode']['communication_share']:.0%}")


def test_the_bundled_counts_the_readme_states_are_the_catalogues():
    from inferledger.hardware.lookup import load_catalog
    from inferledger.model.config import catalog_names

    stated = re.search(r"of (\d+) open models and (\d+) accelerators are bundled", " ".join(TEXT.split()))
    assert stated is not None
    assert (int(stated.group(1)), int(stated.group(2))) == (len(catalog_names()), len(load_catalog()))
