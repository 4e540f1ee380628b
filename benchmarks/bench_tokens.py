"""Throughput of `inferledger tokens` against the tokenizer library's own encode, and memory as input grows.

    python benchmarks/bench_tokens.py [--size-mb 50] [--tokenizers cl100k_base,mistral-v1]

For each tokenizer, on one synthetic input of --size-mb MB (the English and Chinese fixtures repeated, with the
repeat number written in so pieces are not all identical), in one run:
  library single  one library encode call per piece, one after another, text already in memory;
  library batch   the library's batch encode over the same pieces (tiktoken encode_ordinary_batch,
                  sentencepiece encode(list), tokenizers encode_batch), text already in memory;
  inferledger     count_pieces over iter_pieces reading the file: decoding, cutting, text statistics included.
It prints tokens/s, MB/s (1 MB = 1e6 bytes) and the ratio inferledger / library batch (target ≤ 1.5), then the
peak resident memory of `inferledger tokens` in a child process at size/5 and size, which should stay flat.
Ratios are measured in one run on this machine; absolute figures depend on it (CPU count is printed).
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
FIXTURES = ROOT / "tests" / "fixtures" / "tokens"


def make_input(path: Path, size_bytes: int) -> None:
    english = (FIXTURES / "prerequisites.en.txt").read_text(encoding="utf-8")
    chinese = (FIXTURES / "chapter2-prerequisites.zh.txt").read_text(encoding="utf-8")
    written = 0
    with open(path, "w", encoding="utf-8") as handle:
        repeat = 0
        while written < size_bytes:
            block = f"Part {repeat}\n{english}\n第 {repeat} 部分\n{chinese}\n"
            handle.write(block)
            written += len(block.encode("utf-8"))
            repeat += 1


def library_encoders(tokenizer_name: str):
    """(single, batch) callables over a list of texts, straight on the library object, no inferledger code."""
    from inferledger.tokens.loading import load_tokenizer

    library = load_tokenizer(tokenizer_name).library
    kind = type(library).__name__
    if kind == "Encoding":  # tiktoken
        encoding = library
        return (lambda texts: sum(len(encoding.encode_ordinary(t)) for t in texts),
                lambda texts: sum(len(ids) for ids in encoding.encode_ordinary_batch(texts)))
    if kind == "SentencePieceProcessor":
        processor = library
        return (lambda texts: sum(len(processor.encode(t)) for t in texts),
                lambda texts: sum(len(ids) for ids in processor.encode(texts)))
    if kind == "Tokenizer":  # Hugging Face tokenizers
        hf = library
        return (lambda texts: sum(len(hf.encode(t, add_special_tokens=False).ids) for t in texts),
                lambda texts: sum(len(e.ids) for e in hf.encode_batch(texts, add_special_tokens=False)))
    raise SystemExit(f"cannot reach the library object of {tokenizer_name}")


def timed(function, *args):
    start = time.perf_counter()
    result = function(*args)
    return result, time.perf_counter() - start


def peak_rss_of_cli(path: Path, tokenizer: str) -> tuple[float, int]:
    """(seconds, peak RSS bytes) of `inferledger tokens PATH -t TOKENIZER --json` in a fresh child process."""
    code = ("import resource, subprocess, sys, time; t = time.perf_counter(); "
            "subprocess.run([sys.executable, '-m', 'inferledger', 'tokens', sys.argv[1], '-t', sys.argv[2], "
            "'--json'], check=True, stdout=subprocess.DEVNULL); "
            "print(time.perf_counter() - t, resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss * 1024)")
    out = subprocess.run([sys.executable, "-c", code, str(path), tokenizer], check=True, capture_output=True,
                         text=True).stdout.split()
    return float(out[0]), int(out[1])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--size-mb", type=float, default=50.0)
    parser.add_argument("--tokenizers", default="cl100k_base,mistral-v1")
    args = parser.parse_args()

    from inferledger.tokens.counting import count_pieces
    from inferledger.tokens.loading import load_tokenizer
    from inferledger.tokens.reading import iter_pieces

    size = int(args.size_mb * 1e6)
    print(f"machine: {os.cpu_count()} CPUs, Python {sys.version.split()[0]}; input {size / 1e6:.0f} MB "
          "(fixtures repeated)")
    with tempfile.TemporaryDirectory() as folder:
        big, small = Path(folder) / "big.txt", Path(folder) / "small.txt"
        make_input(big, size)
        make_input(small, size // 5)
        actual = big.stat().st_size
        with open(big, "rb") as handle:
            pieces = list(iter_pieces(handle, str(big)))
        texts = [p.context + p.text for p in pieces]

        print(f"\n{'tokenizer':<12} {'path':<16} {'seconds':>8} {'tokens/s':>12} {'MB/s':>7} {'vs batch':>9}")
        for name in args.tokenizers.split(","):
            single, batch = library_encoders(name)
            tokenizer = load_tokenizer(name)
            batch(texts[:2])  # warm up thread pools and caches
            tokens_single, seconds_single = timed(single, texts)
            tokens_batch, seconds_batch = timed(batch, texts)

            def ours(tokenizer=tokenizer):
                with open(big, "rb") as handle:
                    stream = ((p.text, p.byte_count, p.context) for p in iter_pieces(handle, str(big)))
                    return count_pieces(stream, [tokenizer]).results[0].tokens

            tokens_ours, seconds_ours = timed(ours)
            for label, tokens, seconds in (("library single", tokens_single, seconds_single),
                                           ("library batch", tokens_batch, seconds_batch),
                                           ("inferledger", tokens_ours, seconds_ours)):
                print(f"{name:<12} {label:<16} {seconds:8.2f} {tokens / seconds:12,.0f} {actual / 1e6 / seconds:7.1f} "
                      f"{seconds / seconds_batch:8.2f}x")
            # Context tokens are taken away, so the streamed count is the library's count of the whole text.
            context_tokens = sum(tokenizer.count(p.context) for p in pieces if p.context)
            assert tokens_ours == tokens_batch - context_tokens, (tokens_ours, tokens_batch, context_tokens)

        print("\nmemory of `inferledger tokens FILE -t T --json` (peak RSS of the child process):")
        name = args.tokenizers.split(",")[0]
        for path in (small, big):
            seconds, rss = peak_rss_of_cli(path, name)
            print(f"  {path.stat().st_size / 1e6:6.0f} MB input: {rss / 2**20:7.1f} MiB peak RSS, {seconds:6.2f} s")


if __name__ == "__main__":
    main()
