"""The parser registry: one module per log format, each turning cleaned lines into Records.

A parser module defines
    NAME = "vllm"                         # short format name shown to the user
    def sniff(head: str) -> float         # 0..1: how sure it is that this file (first ~64 KB, cleaned) is its format
    def parse(lines) -> Iterator[Record]  # lines: iterator of (line_number, cleaned_text) for the whole file
A line a parser recognises as its format but cannot read yields `records.Skipped(line_number, reason, source)`
instead of a Record (the reader counts and reports those); a parser never raises on the input text.
Speed: test a cheap substring before any regex.
"""

from __future__ import annotations

import importlib

_BUILTIN = ["vllm", "sglang", "tgi", "prometheus", "trtllm_metrics"]
_OPTIONAL = ["artillery", "awscurl", "bench_clients", "bench_markdown", "bench_text", "checkpoint_load", "evalscope", "curl_time", "flexgen", "guidellm_rich", "ktransformers", "lightllm", "livekit", "llamacpp", "llmperf_console", "lmcache", "lmdeploy", "lmstudio", "local_runners",
             "mlperf_loadgen", "nxdi", "ollama", "optimum_benchmark", "ort_model_benchmark", "pandas_describe", "perf_analyzer", "pipecat", "sglang_accuracy", "sglang_one_batch", "tgi_benchmark", "triton_core_bench", "trtllm_bench", "vegeta", "vllm_offline", "wrk"]
# Tried only when no format above is detected: they read by keywords, so beside a known format they would read lines
# twice; only the one that reads the most is used (a summary's `label: value` lines, a request's phrases, or a
# stream's timestamped pieces).
_FALLBACK = ["generic_summary", "generic_phrases", "generic_cadence", "generic_progress"]


def _load(names: list) -> list:
    modules = []
    for name in names:
        qualified = f"{__name__}.{name}"
        try:
            modules.append(importlib.import_module(qualified))
        except ModuleNotFoundError as error:
            # Only a module that is not written yet is tolerated; a broken import inside it is a bug to see.
            if error.name != qualified:
                raise
    return modules


PARSERS = _load(_BUILTIN + _OPTIONAL)
FALLBACKS = _load(_FALLBACK)

# A sniff score at or above this means "this file contains that format"; several can pass for mixed logs.
DETECT_THRESHOLD = 0.3


def detect(head: str) -> list:
    """The parser modules that recognise `head`, best first; the fallback readers only when no format is recognised;
    empty when none reads it."""
    return pick(head, PARSERS) or pick(head, FALLBACKS)[:1]


def pick(head: str, modules: list) -> list:
    """Those of `modules` that recognise `head`, best first."""
    scored = []
    for module in modules:
        try:
            score = float(module.sniff(head))
        except Exception:  # a sniff must never stop detection of the other formats
            score = 0.0
        if score >= DETECT_THRESHOLD:
            scored.append((score, module))
    scored.sort(key=lambda pair: -pair[0])
    return [module for _, module in scored]


def by_name(name: str):
    """The parser module called `name` (its NAME), or None."""
    for module in PARSERS + FALLBACKS:
        if module.NAME == name:
            return module
    return None
