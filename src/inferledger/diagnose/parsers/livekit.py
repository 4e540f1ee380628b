"""LiveKit Agents' metrics of a voice agent's language-model turns, as its `metrics_collected` handler logs them:

    type='llm_metrics' label='livekit.plugins.openai.llm.LLM' request_id='…' timestamp=… duration=1.42 ttft=0.38
        cancelled=False completion_tokens=42 prompt_tokens=839 prompt_cached_tokens=0 total_tokens=881
        tokens_per_second=29.6
    type='realtime_model_metrics' … duration=13.88 ttft=9.39e-05 … input_tokens=3047 output_tokens=49 …
    Pipeline LLM metrics: sequence_id=fea6e2011213, ttft=2.10, input_tokens=839, output_tokens=11,
        tokens_per_second=4.99                                                  (the 0.x pipeline agent's line)

Each is one request: ttft and duration in seconds (the Python SDK's fields; the Node SDK's are `ttftMs` and
`durationMs`), its prompt and completion tokens. LiveKit computes tokens_per_second as completion tokens over the whole
call's duration (the first token's wait included), so it is no generation rate: it gives the duration where the line
states none (the 0.x pipeline line), nothing else. A cancelled turn (the user spoke over the agent) stopped early and
is not read. The speech-to-text, text-to-speech and end-of-utterance metrics are no language model's and are left.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from inferledger.diagnose.records import Record

NAME = "livekit"

_MARKERS = ("type='llm_metrics'", "type='realtime_model_metrics'", "Pipeline LLM metrics:")
_FIELD = re.compile(r"\b(ttft|duration|ttftMs|durationMs|completion_tokens|prompt_tokens|prompt_cached_tokens|"
                    r"input_tokens|output_tokens|tokens_per_second)\s*=\s*(\d[\d.]*(?:[eE][-+]?\d+)?)")
_CANCELLED = re.compile(r"\bcancelled\s*=\s*True\b")
_NAMES = {"completion_tokens": "output_tokens", "output_tokens": "output_tokens", "prompt_tokens": "input_tokens",
          "input_tokens": "input_tokens", "prompt_cached_tokens": "cached_tokens"}


def sniff(head: str) -> float:
    return 0.8 if any(marker in head for marker in _MARKERS) and _FIELD.search(head) else 0.0


def parse(lines) -> Iterator[Record]:
    for line_number, line in lines:
        if not any(marker in line for marker in _MARKERS) or _CANCELLED.search(line):
            continue
        # a realtime model's line nests its input and output token details (`input_token_details=…(audio_tokens=0,
        # text_tokens=3047, …)`): their counts are parts, not the request's
        fields = {}
        for name, value in _FIELD.findall(line.split("_token_details=", 1)[0]):
            fields.setdefault(name, float(value))
        metrics = {_NAMES[name]: value for name, value in fields.items() if name in _NAMES}
        ttft = fields["ttft"] if "ttft" in fields else fields["ttftMs"] / 1e3 if "ttftMs" in fields else None
        duration = fields["duration"] if "duration" in fields else \
            fields["durationMs"] / 1e3 if "durationMs" in fields else None
        if duration is None and fields.get("tokens_per_second") and metrics.get("output_tokens"):
            duration = metrics["output_tokens"] / fields["tokens_per_second"]
        if ttft is not None:
            metrics["ttft_seconds"] = ttft
        if duration is not None:
            metrics["e2e_seconds"] = duration
        if ttft is None and duration is None:
            continue
        yield Record("request", "livekit.llm", line_number, metrics,
                     labels={"engine": "LiveKit Agents", "tool": "LiveKit metrics",
                             "ttft_definition": "LiveKit's ttft: the language model call's first token"})
