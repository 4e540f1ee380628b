"""The engine-neutral record stream that every log parser yields and the diagnosis reads.

Base units only (seconds, bytes, tokens, fractions 0..1): each parser converts its tool's units at parse time
, so nothing downstream ever multiplies by 1000.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from itertools import compress

KINDS = ("interval", "request", "summary", "capacity", "event")

# The metric vocabulary, per kind. A parser stores only what the log states, under these names.
INTERVAL_METRICS = {
    "prompt_tokens_per_second": "prefill (prompt) throughput over the window",
    "generation_tokens_per_second": "decode (generation) throughput over the window",
    "running_requests": "requests in the running batch",
    "waiting_requests": "requests queued, not yet admitted",
    "swapped_requests": "requests swapped to CPU (vLLM V0)",
    "kv_cache_usage_fraction": "GPU KV cache used, 0..1",
    "prefix_cache_hit_fraction": "prefix cache hit rate, 0..1",
    "batch_tokens": "tokens in the batch (SGLang #new-token / #token)",
    "preemptions_total": "cumulative preemptions reported by the engine",
    "spec_acceptance_fraction": "speculative decoding draft acceptance rate, 0..1",
    "spec_mean_acceptance_length": "mean accepted tokens per speculative step",
    "cpu_kv_cache_usage_fraction": "CPU (swap) KV cache used, 0..1 (vLLM V0)",
    "cached_tokens": "tokens served from the prefix cache in the window (SGLang #cached-token)",
    "cuda_graph": "1 when the decode step ran under a CUDA graph (SGLang)",
    "requests_total": "cumulative finished requests (Prometheus counter)",
    "prompt_tokens_total": "cumulative prompt tokens (Prometheus counter)",
    "generation_tokens_total": "cumulative generation tokens (Prometheus counter)",
    "total_tokens_per_second": "prompt + generated tokens per second (llama-bench pp+tg, batched-bench S)",
    "prefill_seconds": "prompt phase time of a bench row (llama-batched-bench T_PP)",
    "decode_seconds": "generation phase time of a bench row (llama-batched-bench T_TG)",
    "parameters": "model parameter count a bench row states (llama-bench params)",
}
REQUEST_METRICS = {
    "ttft_seconds": "time to first token, queue wait included unless labels say otherwise",
    "tpot_seconds": "time per output token after the first",
    "itl_seconds": "inter-token latency (gap between streamed chunks)",
    "e2e_seconds": "end-to-end request latency",
    "e2e_per_token_seconds": "a request's latency ÷ its prompt + output tokens (normalised latency)",
    "e2e_per_output_token_seconds": "a request's latency ÷ its output tokens (queue and prompt included)",
    "queue_seconds": "time waiting before admission",
    "server_request_seconds": "the server's own time for a request, queue included (Triton's Avg request latency)",
    "input_tokens": "prompt tokens",
    "output_tokens": "generated tokens",
    "prefill_seconds": "prompt processing time",
    "decode_seconds": "generation time",
    "prompt_tokens_per_second": "prompt processing rate for this request",
    "generation_tokens_per_second": "generation rate for this request",
    "load_seconds": "model load time charged to this request (ollama)",
    "inference_seconds": "TGI inference_time (prefill + decode, no queue)",
    "ttst_seconds": "time to second token (genai-perf / AIPerf); ~0 means tokens arrive in chunks",
    "cached_tokens": "prompt tokens served from a cache (ollama prompt_eval_cached_count)",
    "prompt_elapsed_seconds": "time a prompt still being read had taken when the excerpt ends (LM Studio progress, "
                              "timestamped progress lines)",
    "prompt_progress_fraction": "share of that prompt read by then, 0..1",
    "context_tokens": "context held when the request ended (llama-server n_tokens: cached + processed + generated)",
    "context_limit_tokens": "the runner's context window the request ran in (koboldcpp CtxLimit: used/limit)",
    "context_held_fraction": "context_tokens / context_limit_tokens of the same request (the reader computes it)",
    "graphs_reused": "compute graphs reused during the request (llama-server 2026)",
    "output_tokens_per_second_per_request": "llmperf per-request throughput, tool-defined (not recomputable)",
}
SUMMARY_METRICS = {
    "completed_requests": "requests that finished",
    "failed_requests": "requests that failed",
    "duration_seconds": "benchmark wall time",
    "load_seconds": "model load time before the run",
    "request_throughput_per_second": "finished requests per second",
    "input_tokens_per_second": "prompt tokens per second",
    "output_tokens_per_second": "generated tokens per second",
    "max_concurrency": "client concurrency cap (hides overload)",
    "request_rate_per_second": "offered request rate (inf = all at once)",
    "requests_sent": "requests the client sent (its num_prompts argument)",
    "mean_input_tokens": "mean prompt length",
    "mean_output_tokens": "mean output length",
    "goodput_requests_per_second": "requests per second meeting the SLOs",
    "incomplete_requests": "requests cut off when the benchmark ended (guidellm Inc)",
    "total_input_tokens": "prompt tokens over the run",
    "total_output_tokens": "generated tokens over the run",
    "total_tokens_per_second": "prompt + generated tokens per second",
    "peak_output_tokens_per_second": "most generated tokens in any 1-s bucket (vLLM/SGLang bench)",
    "peak_concurrent_requests": "most requests in flight in any 1-s bucket",
    "mean_concurrency": "mean requests in flight (SGLang Concurrency, trtllm-bench concurrent requests)",
    "output_tokens_per_second_per_user": "per-stream generation rate (genai-perf, trtllm-bench), with _<stat>",
    "weight_read_bytes_per_second": "the bandwidth a generate loop says it achieved (model bytes × tokens/s)",
    "output_tokens_per_second_per_gpu": "generated tokens per second per GPU (trtllm-bench)",
    "kv_memory_fraction": "share of free GPU memory given to the KV cache (trtllm-bench), 0..1",
    "max_batch_tokens": "cap on tokens per engine step (trtllm-bench Max Runtime Tokens)",
    "max_running_requests": "cap on the running batch (trtllm-bench Max Runtime Batch Size)",
    "peak_memory_bytes": "peak GPU memory of the run (trtllm benchmark.py, GB = 1e9)",
    "spec_acceptance_fraction": "speculative decoding acceptance rate, 0..1",
    "spec_mean_acceptance_length": "mean accepted tokens per speculative step",
    # plus <metric>_<stat> for metric in REQUEST_METRICS and stat in STATS, e.g. ttft_seconds_p99
}
STATS = ("mean", "median", "p50", "p90", "p95", "p99", "min", "max", "std")
CAPACITY_METRICS = {
    "weights_bytes": "memory taken by the weights",
    "decode_weights_bytes": "weights one decode step reads (a mixture of experts: the active share; llama-bench)",
    "decode_weights_bytes_high": "the most one decode step may read of a mixture named without its active size "
                                 "(llama-bench; decode_weights_bytes is the least)",
    "named_weights_bytes": "weights one decode step reads, sized from the model's name (a llama-bench row with no size)",
    "context_depth_tokens": "tokens already in the context when the generation rate was measured (llama-bench -d)",
    "kv_cache_bytes": "memory given to the KV cache",
    "kv_cache_tokens": "KV cache size in tokens",
    "gpu_blocks": "KV cache blocks on the GPU",
    "cpu_blocks": "KV cache blocks on the CPU (swap)",
    "block_size_tokens": "tokens per KV block",
    "max_concurrency_at_length": "engine-reported max concurrency at max_model_len",
    "max_model_len_tokens": "longest sequence the engine accepts",
    "max_running_requests": "cap on the running batch",
    "chunked_prefill_tokens": "chunked prefill size",
    "available_memory_bytes": "GPU memory free after loading",
    "parallel_slots": "server slots (llama.cpp)",
    "context_tokens": "context size (llama.cpp/ollama)",
    "tensor_parallel_size": "tensor parallel ranks",
    "pipeline_parallel_size": "pipeline parallel stages",
    "attention_data_parallel_size": "attention data-parallel groups inside the tp ranks (SGLang --enable-dp-attention)",
    "launch_command": "1 for a pasted launch command that states no parallelism (diagnose/launch.py)",
    "data_parallel_size": "data parallel ranks",
    "model_layers": "layers in the model (ollama layers.model, llama.cpp offload line)",
    "offloaded_layers": "layers placed on the GPU; fewer than model_layers = partial offload",
    "gpu_share_fraction": "share of a loaded model held on the GPU (ollama ps PROCESSOR 42%/58% CPU/GPU -> 0.58)",
    "reloaded_bytes": "a model's size in `ollama ps` after a reload grew it (the same ID shown smaller before)",
    "reloaded_from_bytes": "the same model's size in the earlier `ollama ps` row",
    "reloaded_gpu_share_fraction": "share on the GPU of the grown reload",
    "reloaded_from_gpu_share_fraction": "share on the GPU in the earlier `ollama ps` row",
    "required_memory_bytes": "memory the runner needs for full offload (ollama memory.required.full)",
    "graph_memory_bytes": "compute-graph scratch memory (ollama memory.graph.full)",
    "weights_download_seconds": "time the engine spent downloading the weights at start-up (vLLM)",
    "weights_load_seconds": "time the engine took to load the weights (vLLM)",
    "engine_start_seconds": "time the engine took from its weights to ready (vLLM V1 init engine: profile, KV cache, "
                            "warm-up)",
    "checkpoint_shards": "checkpoint files the engine loads at start-up (its loading bar's total)",
    "checkpoint_shards_loaded": "of those, loaded by the bar's latest line",
    "checkpoint_load_seconds": "time the loading bar had run by its latest line",
}
# A progress bar's figures: its latest line holds the most (the other capacity facts keep their first line).
PROGRESS_CAPACITY = ("checkpoint_shards_loaded", "checkpoint_load_seconds")
EVENT_METRICS = {
    "preemptions": "requests preempted (count)",
    "retractions": "requests retracted (SGLang)",
    "oom": "1 for an out-of-memory event",
    "client_read_timeouts": "1 for a client that stopped waiting for a reply (requests' `Read timed out`)",
    "client_connect_timeouts": "1 for a client that could not reach the server (`Connection to … timed out`)",
    "oom_with_room": "1 for an out-of-memory error whose message states free memory many times the allocation",
    "busy_rejections": "1 for a request refused as the server was busy (HTTP 503 / 429 in an access log, or a reply "
                       "saying it is overloaded)",
    "errors": "error count",
    "kv_start_refusals": "1 for an engine refusing to start as the KV cache it needs does not fit",
    "kv_context_cuts": "1 for an engine starting with its context cut to the tokens its KV cache holds",
    "prompt_reprocessings": "1 for a prompt llama-server reads again from its start (no usable prefix cached)",
    "engine_start_failures": "1 for an engine dying while it starts (vLLM `EngineCore failed to start`)",
}


@dataclass(frozen=True, slots=True)
class Record:
    """One fact from a log: a stats window, a request, a benchmark summary, startup capacity, or an event."""

    kind: str  # one of KINDS
    source: str  # the parser that made it, e.g. "vllm.stats", "sglang.decode", "bench.vllm"
    line_number: int  # 1-based line (first line of a multi-line record) in its file
    metrics: dict  # name -> float, names from the vocabulary above (base units), only what the log states
    timestamp_seconds: float | None = None  # Unix epoch UTC when the line carries a time (time zone resolved)
    labels: dict = field(default_factory=dict)  # engine, version, model, rank, definition notes

    def to_dict(self) -> dict:
        return {
            "kind": self.kind,
            "source": self.source,
            "line_number": self.line_number,
            "timestamp_seconds": self.timestamp_seconds,
            "metrics": dict(self.metrics),
            "labels": dict(self.labels),
        }


_new = object.__new__
_SETTERS = tuple(Record.__dict__[name].__set__ for name in
                 ("kind", "source", "line_number", "metrics", "timestamp_seconds", "labels"))


def new_record(kind: str, source: str, line_number: int, metrics: dict, timestamp_seconds: float | None,
               labels: dict, _new=_new, _setters=_SETTERS) -> Record:
    """Record(kind, source, line_number, metrics, timestamp_seconds, labels), the same frozen object, made in half
    the time of the dataclass __init__ (it sets the slots directly): parsers call it once per stats line."""
    record = _new(Record)
    set_kind, set_source, set_line, set_metrics, set_timestamp, set_labels = _setters
    set_kind(record, kind)
    set_source(record, source)
    set_line(record, line_number)
    set_metrics(record, metrics)
    set_timestamp(record, timestamp_seconds)
    set_labels(record, labels)
    return record


class Windows:
    """Stats windows in file order as columns: what a block of the usual stats lines (read.py's LINE_SHAPES) makes
    without a Record each, and what the accumulator queues before folding. Row i is the window at lines[i] from
    sources[i], stamped stamps[i], labelled labels[i] (dicts shared between rows, never mutated); metrics maps a
    name to its column, None where a window does not state it. records() gives the Records the rows stand for."""

    __slots__ = ("lines", "stamps", "sources", "labels", "metrics")

    def __init__(self, lines=None, stamps=None, sources=None, labels=None, metrics=None):
        self.lines = [] if lines is None else lines
        self.stamps = [] if stamps is None else stamps
        self.sources = [] if sources is None else sources
        self.labels = [] if labels is None else labels
        self.metrics = {} if metrics is None else metrics

    def __len__(self) -> int:
        return len(self.lines)

    def __repr__(self) -> str:
        return f"Windows({len(self.lines)} rows, metrics {sorted(self.metrics)})"

    def append(self, record) -> None:
        """Record `record` (a stats window) as the next row."""
        count = len(self.lines)
        self.lines.append(record.line_number)
        self.stamps.append(record.timestamp_seconds)
        self.sources.append(record.source)
        self.labels.append(record.labels)
        columns = self.metrics
        for name, value in record.metrics.items():
            column = columns.get(name)
            if column is None:
                column = columns[name] = [None] * count
            column.append(value)
        for column in columns.values():
            if len(column) == count:
                column.append(None)

    def extend(self, other: Windows, keep=None) -> None:
        """Append other's rows (those whose `keep` flag is true, when given) after these."""
        if keep is not None:
            other = other.select(keep)
        count, added = len(self.lines), len(other.lines)
        self.lines += other.lines
        self.stamps += other.stamps
        self.sources += other.sources
        self.labels += other.labels
        columns = self.metrics
        for name, column in other.metrics.items():
            held = columns.get(name)
            if held is None:
                columns[name] = [None] * count + column
            else:
                held += column
        for column in columns.values():
            if len(column) == count:
                column += [None] * added

    def select(self, keep) -> Windows:
        """The rows whose flag in `keep` is true."""
        keep = list(keep)
        return Windows(list(compress(self.lines, keep)), list(compress(self.stamps, keep)),
                       list(compress(self.sources, keep)), list(compress(self.labels, keep)),
                       {name: list(compress(column, keep)) for name, column in self.metrics.items()})

    def records(self) -> list:
        """The rows as Records, as a parser would have made them one line at a time."""
        columns = list(self.metrics.items())
        return [new_record("interval", source, line, {name: column[row] for name, column in columns
                                                         if column[row] is not None}, stamp, labels)
                for row, (line, stamp, source, labels)
                in enumerate(zip(self.lines, self.stamps, self.sources, self.labels, strict=True))]


class Requests:
    """Requests in file order as columns, with the stats windows read among them: what a stretch of a log's usual
    request lines makes without a Record each (llamacpp's 2026 llama-server requests and their decode-progress
    lines). Row i is the request at lines[i] from `source`, unstamped, labelled `labels` (shared by every row, never
    mutated) then row_labels' values at i (name -> column; none a label the accumulator reads: slot, task); metrics maps
    a name to its column, None where a request does not state it. `windows` (a Windows) are the stats windows among
    the requests. records() gives the Records they all stand for, in line order."""

    __slots__ = ("source", "lines", "labels", "row_labels", "metrics", "windows")

    def __init__(self, source: str, lines: list, labels: dict, row_labels: dict, metrics: dict, windows: Windows):
        self.source = source
        self.lines = lines
        self.labels = labels
        self.row_labels = row_labels
        self.metrics = metrics
        self.windows = windows

    def __len__(self) -> int:
        return len(self.lines)

    def __repr__(self) -> str:
        return f"Requests({len(self.lines)} rows, {len(self.windows)} windows, metrics {sorted(self.metrics)})"

    def split(self, line: int) -> tuple:
        """(the requests and windows before line `line`, the rest), two Requests."""
        from bisect import bisect_left

        rows, windows = bisect_left(self.lines, line), self.windows
        cut = bisect_left(windows.lines, line)
        parts = []
        for requests, kept in ((slice(None, rows), slice(None, cut)), (slice(rows, None), slice(cut, None))):
            parts.append(Requests(self.source, self.lines[requests], self.labels,
                                  {name: column[requests] for name, column in self.row_labels.items()},
                                  {name: column[requests] for name, column in self.metrics.items()},
                                  Windows(windows.lines[kept], windows.stamps[kept], windows.sources[kept],
                                          windows.labels[kept],
                                          {name: column[kept] for name, column in windows.metrics.items()})))
        return tuple(parts)

    def metric_rows(self) -> list:
        """Each request's metrics dict, the names in the columns' order, a name left out where its value is None."""
        names = list(self.metrics)
        rows = zip(*self.metrics.values(), strict=True)
        if any(None in column for column in self.metrics.values()):
            return [{name: value for name, value in zip(names, row, strict=True) if value is not None} for row in rows]
        return [dict(zip(names, row, strict=True)) for row in rows]

    def records(self) -> list:
        """The requests and the windows as Records, as a parser would have made them one line at a time."""
        from heapq import merge
        from operator import attrgetter

        shared = self.labels
        row_labels = [dict(zip(self.row_labels, row, strict=True))
                      for row in zip(*self.row_labels.values(), strict=True)] if self.row_labels else [{}] * len(self)
        requests = [new_record("request", self.source, line, metrics, None, {**shared, **own})
                    for line, metrics, own in zip(self.lines, self.metric_rows(), row_labels, strict=True)]
        return list(merge(self.windows.records(), requests, key=attrgetter("line_number")))


@dataclass(frozen=True, slots=True)
class Skipped:
    """A line a parser recognised as its format but could not read. Parsers yield it in place of a Record;
    the reader counts it and reports it line by line (never raises on damaged input)."""

    line_number: int
    reason: str  # one short phrase: what was expected, e.g. "vLLM stats line without a number after 'Running:'"
    source: str = ""

    def to_dict(self) -> dict:
        return {"line_number": self.line_number, "reason": self.reason, "source": self.source}


@dataclass(frozen=True, slots=True)
class Unread:
    """A line in a parser's format that carries numbers the parser has no reader for (a new field, a line kind it
    does not know). Never silently dropped: the reader counts it and shows the first few."""

    line_number: int
    text: str  # the line, cut to UNREAD_TEXT_CHARS
    source: str = ""

    def to_dict(self) -> dict:
        return {"line_number": self.line_number, "text": self.text, "source": self.source}


UNREAD_TEXT_CHARS = 160


def unread(line_number: int, line: str, source: str) -> Unread:
    return Unread(line_number, line.strip()[:UNREAD_TEXT_CHARS], source)


# Words that make a line in a known format look like a measurement: a line with one of them and a digit that no
# reader used is reported as unread.
_METRIC_WORDS = ("tok/s", "tokens/s", "t/s", "token/s", "throughput", "latency", "ttft", "tpot", " ms", "seconds",
                 "duration", "per token", "requests/s", "req/s", "load time",
                 "/秒", "毫秒", "吞吐", "延迟", "时延")  # per second, ms, throughput, latency (tables pasted in Chinese)


def looks_like_metric(line: str) -> bool:
    lowered = line.lower()
    return any(word in lowered for word in _METRIC_WORDS) and any(char.isdigit() for char in line)


# Words that tie a measurement to serving an LLM: a file in no known layout with a line holding one of them, a metric
# word and a digit is serving output no reader knows (its lines are reported unread), not some other program's log.
_SERVING_WORDS = ("tok", "t/s", "throughput", "latency", "ttft", "tpot", "first token", "per token", "req/s",
                  "reqs/s", "requests/s", "qps", "prefill", "decode", "prompt", "generat",
                  "请求", "首字", "推理", "生成", "解码", "预填充")  # request, first token, inference, generate, decode, prefill
# The programs and model families that serve LLMs, and a load test's words: a file naming one of them beside figures
# with their units (`20.8 s` in a table comparing llama.cpp with Web LLM, `mean time per batch: 0.91 s` of
# `Framework.vllm`) is serving output too. Only a file no reader knows is judged by them (names_serving).
# `llm` and `llama` at a word's edge (vLLM, LiteLLM, llama.cpp, ollama; not inside `fullmatch`).
_SERVING_NAMES = re.compile(r"(?<![a-z])ll(?:m|ama)|ll(?:m|ama)(?![a-z])|sglang|openai|gpt-|ctranslate|tensorrt|inferenc|"
                            r"lmdeploy|kobold|mlx|qwen|mistral|gemma|deepseek|request rate|concurrency|并发|"  # concurrency
                            # the hosted models and their routers (`gemini-3-flash` direct against OpenRouter)
                            r"gemini|claude|anthropic|openrouter|"
                            # an LLM server's endpoints (OpenAI's, ollama's), a request that ran out of time,
                            r"/v1/(?:chat/)?completions|/api/(?:generate|chat)\b|request[\w ]{0,20} timed out|"
                            # the cache and the context a server sizes, one more engine
                            r"\bkv[ _-]?cache|\bn_ctx\b|exllama")


# A column's unit as a table's header states it (`Short (ms)`, `E2E (s)`, `Prefill tps`): a measure, whose meaning the
# rest of the file (a serving word somewhere) ties to serving.
_MEASURE_UNIT = re.compile(r"[(\[](?:ms|s|sec|secs|seconds|us|µs|tok/s|tokens/s|t/s)[)\]]|\btps\b|\bper second\b")


# A figure with its unit (`793.57 ms`, `took 449,432µs`, `0.91 s`, `4.73 reqs/s`, `2.5token`, a scheduler's
# `7820 new tokens`): a measurement, whose meaning the rest of the file (a serving word somewhere) ties to serving.
# (`1024 prompt tokens` is a run's setting more often than a measurement: not one.)
_MEASURED = re.compile(r"\d(?:[\d,]*\d)?(?:\.\d+)?\s*(?:ms|µs|us|s|sec|secs|seconds|tok/s|tokens?/s|t/s|reqs?/s|"
                       r"token|(?:new|cached) tokens)(?![A-Za-z])"
                       # a time named by its key, its unit in the key or none (`generate timediff : 0.92`, verl's
                       # `timing_s/gen: 31.27`, `x-litellm-response-duration-ms: 1062.3`, JSON's
                       # `"first_token_time_ns": "76735374300000"`); not a stamp or a timeout
                       r'|(?i:time(?!stamp|zone|out)|timing|duration|latency|elapsed)[\w/.-]*"?\s*[:=]\s*"?\d')


def has_a_measurement(line: str) -> bool:
    return _MEASURED.search(line) is not None


# A figure with a fraction standing alone (`1697.85`, not a version's `0.4.2`, a date's or an address's parts): two on
# a line are a row of measurements whose unit the text around them gives (`real  1697.85  1692.98  mean 1699.49`);
# so are three whole numbers of two digits or more (`| TP4/EP1 | 2435 (70%) / 4209 (69%) |`).
_FIGURE = re.compile(r"(?<![\w.:/-])\d+\.\d+(?![\w.:/-])")
_WHOLE = re.compile(r"(?<![\w.:/-])\d{2,}(?![\w.:/-])")


def has_figures(line: str) -> bool:
    return len(_FIGURE.findall(line)) >= 2 or len(_WHOLE.findall(line)) >= 3


def names_a_measure(line: str) -> bool:
    """A metric word or a unit in parentheses, with or without a figure (a table's header, the title above it)."""
    lowered = line.lower()
    return any(word in lowered for word in _METRIC_WORDS) or _MEASURE_UNIT.search(lowered) is not None


def names_serving(line: str) -> bool:
    lowered = line.lower()
    return any(word in lowered for word in _SERVING_WORDS) or _SERVING_NAMES.search(lowered) is not None


def looks_like_serving_words(line: str) -> bool:
    """A metric word and a serving word, as a table's header names its columns (`tokens/s/user | TTFT`)."""
    lowered = line.lower()
    return any(word in lowered for word in _METRIC_WORDS) and any(word in lowered for word in _SERVING_WORDS)

