"""Pipecat's per-service metrics of a voice agent's language-model turns, in either of the two ways it logs them:

    OpenAILLMService#0 TTFB: 1.010322093963623                        (frame_processor_metrics, DEBUG)
    OpenAILLMService#0 prompt tokens: 89, completion tokens: 31
    OpenAILLMService#0 processing time: 1.876310110092163
    📊 [GroqLLMService#0] TTFB (llama-3.3-70b-versatile): 0.268s at 14.590s             (MetricsLogObserver)
    📊 [GroqLLMService#0] LLM TOKEN USAGE (llama-3.3-70b-versatile): prompt: 290, completion: 17, total: 307 at 14.95s

One turn of one service is one request: its TTFB is the language model's first token (Pipecat stops the clock at the
first text frame), its processing time the whole call, its usage the prompt and completion tokens. A turn's lines come
in any order and any may be missing; a service's next TTFB or usage starts its next turn. Speech-to-text and
text-to-speech services (`DeepgramSTTService`, `ElevenLabsTTSService`) are not language models and are left.

An interrupted turn (the user spoke over the agent) reports its processing time and then a TTFB no shorter than it:
Pipecat stops both clocks at the interruption, so the TTFB times the user, not the model (pipecat-ai/pipecat#1682):
read as it is, a first token no sooner than the whole call, which the rules take for a clock that timed no token.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from inferledger.diagnose.records import Record

NAME = "pipecat"

_SERVICE = r"\[?(?P<service>\w*LLMService#\d+)\]?"
_MODEL_NOTE = r"(?:\s*\([^)]*\))?:\s*"  # the observer's `(model)` before the colon
_SECONDS = r"(?P<seconds>\d+(?:\.\d+)?(?:[eE][-+]?\d+)?)s?\b"
_TTFB = re.compile(_SERVICE + r"\s+TTFB" + _MODEL_NOTE + _SECONDS)
_PROCESSING = re.compile(_SERVICE + r"\s+processing time" + _MODEL_NOTE + _SECONDS, re.IGNORECASE)
_USAGE = re.compile(_SERVICE + r"\s+(?:prompt tokens:\s*(?P<prompt>\d+),\s*completion tokens:\s*(?P<completion>\d+)"
                    r"|LLM TOKEN USAGE" + _MODEL_NOTE + r"prompt:\s*(?P<prompt2>\d+),\s*completion:\s*(?P<completion2>\d+))")


def sniff(head: str) -> float:
    return 0.8 if "LLMService#" in head and (_TTFB.search(head) or _PROCESSING.search(head) or _USAGE.search(head)) \
        else 0.0


def _request(turn: dict) -> Record | None:
    """A turn's Record, or None for a turn with no time (its usage alone)."""
    metrics = {name: turn[name] for name in ("ttft_seconds", "e2e_seconds", "input_tokens", "output_tokens")
               if name in turn}
    if "ttft_seconds" not in metrics and "e2e_seconds" not in metrics:
        return None
    return Record("request", "pipecat.llm", turn["line"], metrics,
                  labels={"engine": "Pipecat", "tool": "Pipecat metrics", "service": turn["service"],
                          "ttft_definition": "Pipecat's TTFB: the language model service's first text frame"})


def _figures(line: str) -> tuple[str, dict] | None:
    """(the service, {metric: value}) a language-model service's metrics line states, or None."""
    if (match := _TTFB.search(line)) is not None:
        return match.group("service"), {"ttft_seconds": float(match.group("seconds"))}
    if (match := _USAGE.search(line)) is not None:
        return match.group("service"), {"input_tokens": float(match.group("prompt") or match.group("prompt2")),
                                        "output_tokens": float(match.group("completion") or match.group("completion2"))}
    if (match := _PROCESSING.search(line)) is not None:
        return match.group("service"), {"e2e_seconds": float(match.group("seconds"))}
    return None


def parse(lines) -> Iterator[Record]:
    turns: dict[str, dict] = {}

    def finish(service: str) -> Iterator[Record]:
        turn = turns.pop(service, None)
        if turn is not None and (record := _request(turn)) is not None:
            yield record

    for line_number, line in lines:
        if "LLMService#" not in line or (found := _figures(line)) is None:
            continue
        service, figures = found
        if turns.get(service, {}).keys() & figures.keys():  # a figure its turn has already: the next turn's
            yield from finish(service)
        turns.setdefault(service, {"service": service, "line": line_number}).update(figures)
    for service in list(turns):
        yield from finish(service)
