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


def server_timing(prompt_tokens: int, prompt_ms: float, tokens: int, eval_ms: float) -> str:
    """llama-server's print_timing block for one request: the prompt's and the answer's times, rates and total."""
    return (f"prompt eval time = {prompt_ms:10.2f} ms / {prompt_tokens:5d} tokens ({prompt_ms / prompt_tokens:8.2f} ms "
            f"per token, {prompt_tokens / prompt_ms * 1e3:8.2f} tokens per second)\n"
            f"       eval time = {eval_ms:10.2f} ms / {tokens:5d} tokens ({eval_ms / tokens:8.2f} ms per token, "
            f"{tokens / eval_ms * 1e3:8.2f} tokens per second)\n"
            f"      total time = {prompt_ms + eval_ms:10.2f} ms / {prompt_tokens + tokens:5d} tokens\n")


def diagnosed(tmp_path, text: str, name: str = "log.txt", **options):
    """The Diagnosis of `text` written to tmp_path/name (`options`: diagnose_files' model, gpu, …)."""
    from inferledger.diagnose import diagnose_files

    return diagnose_files([write(tmp_path, text, name)], **options)
