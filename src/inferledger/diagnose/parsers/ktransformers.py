"""KTransformers' balance_serve back end, its per-step console lines. Before each forward pass the model runner prints
one line per piece of the batch, then the engine prints the pass's time:

    prefill_batch_i: 254,                     (a chunk of one prompt: its token count)
    decode_batch_i: 1,                        (decoding sequences, one token each)
    Model execution time (GPU): 7737.844 ms, 0.129 tokens/s

The rate it prints is 1000 ÷ the milliseconds, one token a pass whatever the batch: right for one decoding sequence,
meaningless for a prefill chunk (254 prompt tokens in 7.7 s is 33 tok/s, not 0.129). So the rate is never read; each
pass becomes one stats window from the lines before it: the prompt tokens ÷ the pass's time as the input rate, the
decoding sequences as the running batch and their tokens ÷ the time as the generation rate. Later releases add
`token_num: …` to those lines (the same count); v0.3 prints `padded_batch_size …` between them. The bare numbers
between passes (token ids) are not read.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from inferledger.diagnose.records import Record, Skipped

NAME = "ktransformers"

_STEP = re.compile(r"Model execution time \(GPU\): (\d+(?:\.\d+)?) ms")
_PIECE = re.compile(r"(prefill|decode)_batch_i: (\d+)")


def sniff(head: str) -> float:
    return 0.8 if "Model execution time (GPU):" in head and "_batch_i: " in head else 0.0


def _window(line_number: int, milliseconds: float, prompt_tokens: int, decoding: int) -> Record:
    seconds = milliseconds / 1000.0
    metrics = {"running_requests": float(decoding)}
    if prompt_tokens:
        metrics["batch_tokens"] = float(prompt_tokens)
        metrics["prompt_tokens_per_second"] = prompt_tokens / seconds
    if decoding:
        metrics["generation_tokens_per_second"] = decoding / seconds
    return Record("interval", "ktransformers.step", line_number, metrics, None, {"engine": "ktransformers"})


def parse(lines) -> Iterator:
    prompt_tokens = decoding = 0
    pieces = False  # a batch line seen since the last pass's time
    for line_number, line in lines:
        if "_batch_i: " in line:
            piece = _PIECE.search(line)
            if piece is not None:
                pieces = True
                if piece.group(1) == "prefill":
                    prompt_tokens += int(piece.group(2))
                else:
                    decoding += int(piece.group(2))
        elif "Model execution time (GPU):" in line:
            step = _STEP.search(line)
            if step is None or float(step.group(1)) <= 0:
                yield Skipped(line_number, "KTransformers pass time without its milliseconds", NAME)
            elif not pieces:
                yield Skipped(line_number, "KTransformers pass time whose batch lines come before the excerpt", NAME)
            else:
                yield _window(line_number, float(step.group(1)), prompt_tokens, decoding)
            prompt_tokens = decoding = 0
            pieces = False
