"""llama.cpp output: timings of llama-server (mid-2024 key=value, 2025 `slot print_timing`,
2026 per-line elapsed prefix) and of the CLI / library (`llama_print_timings:`, `llama_perf_context_print:`),
llama-bench and llama-batched-bench markdown tables, and a few startup capacity lines.

Also the timing block of ggml's examples and of the first llama.cpp (March 2023) and its forks (bloomz.cpp, …):
`main: number of tokens in prompt = 3`, `main:     load time =  2494.93 ms`, `main:  predict time =   675.43 ms / 56.29
ms per token`, `main:    total time =  3903.00 ms`. The predict time is every evaluation of the run, prompt included,
and its per-token figure divides it by all the tokens evaluated: one request whose generated tokens are those past
the prompt; the load comes before it (a label, not part of the request).

llama.cpp prints times in ms and rates in tokens/s; they become seconds here. "prompt eval" is prefill and "eval"
is decode. Its prompt token count is the tokens actually processed: prompt-cache hits are not counted, so
a 104-token prompt eval can belong to a 19,740-token context.
"""

from __future__ import annotations

import math
import re
import sys
from collections.abc import Iterator
from itertools import accumulate, compress, repeat
from operator import add, is_not, mul, truediv

from inferledger.diagnose.parsers.bench_common import COMPARISON, GRID_RULE
from inferledger.diagnose.records import Record, Requests, Skipped, Windows, unread

NAME = "llamacpp"

# "prompt eval time =     210.02 ms /   104 tokens (    2.02 ms per token,   495.19 tokens per second)"
_TIMING = re.compile(
    r"\b(prompt eval|generation eval|eval|load|sample|total) time\s*=\s*(\d+(?:\.\d+)?)\s*ms"
    r"(?:\s*/\s*(\d+)\s*(?:tokens|runs))?"
    r"(?:\s*\(\s*(\d+(?:\.\d+)?)\s*ms per token(?:,\s*([\d.]+|inf|nan)\s*tokens per second\)?)?)?")
# Under a locale with decimal commas (de_DE, ro_RO, ...) the same line reads "602,64 ms" and "10343,02 tokens per
# second": llama.cpp prints with %.2f, never with a thousands separator, so a comma between digits there is a decimal.
_DECIMAL_COMMA_FIGURE = re.compile(r"\d,\d\d (?:ms|MiB|GiB)")  # (and the start-up's sizes, `14,19 GiB`)
_DECIMAL_COMMA = re.compile(r"(\d),(\d\d)\b")
# A pasted line is often cut after "ms per token, 0.38": the ms per token is whole, the rate may not be, so the rate is
# read only when "tokens per second" follows it.
_PHASES = re.compile(r'"?(t_prompt_processing|t_token_generation|n_prompt_tokens_processed|n_decoded)"?[=:]\s*([\d.]+)')
_PHASE_METRIC = {"t_prompt_processing": ("prefill_seconds", 1e-3), "t_token_generation": ("decode_seconds", 1e-3),
                 "n_prompt_tokens_processed": ("input_tokens", 1.0), "n_decoded": ("output_tokens", 1.0)}
_SLOT_TASK = re.compile(r"\bid\s+(\d+)\s*\|\s*task\s+(\d+)")
_KEY_VALUE = re.compile(r"\b(timestamp|id_slot|id_task)=(\d+)")
_GRAPHS = re.compile(r"graphs reused\s*=\s*(\d+)")
_DRAFT = re.compile(r"draft acceptance\s*=\s*([\d.]+)")
_RELEASE_TOKENS = re.compile(r"n_tokens\s*=\s*(\d+)")
# Startup capacity lines (llama.cpp prints MiB / GiB, binary units).
_OFFLOADED = re.compile(r"offloaded (\d+)/(\d+) layers to GPU")
_N_CTX = re.compile(r"\bn_ctx\s*=\s*(\d+)")
_N_SLOTS = re.compile(r"\bn_slots\s*=\s*(\d+)")
# (2023 builds print `llama_new_context_with_model: kv self size  = 5500.00 MB`: MB of 2**20 bytes, as llama.cpp
# divided by 1024 twice)
_KV_SIZE = re.compile(r"(?:KV self size|kv self size|KV buffer size|llama_kv_cache(?:_unified)?: size)\s*=\s*"
                      r"([\d.]+)\s*(MiB|GiB|MB)")
# `llm_load_print_meta: model size = 4.58 GiB (4.89 BPW)`; 2025 builds `print_info: file size = 2.64 GiB (16.01 BPW)`
_MODEL_SIZE = re.compile(r"(?:model|file) size\s*=\s*([\d.]+)\s*(MiB|GiB)")
# `llm_load_tensors:   CPU_Mapped model buffer size =  2699.45 MiB`, `llama_kv_cache_init: CUDA0 KV buffer size = …`
_BUFFER_DEVICE = re.compile(r"\s(\w+) (?:model |KV |compute |output )?buffer size\s*=")
_N_KV_MAX = re.compile(r"\bn_kv_max\s*=\s*(\d+)")
# llama-bench's header, padded and right-aligned as printed (`|          test |`), or trimmed by a paste (its first
# pipe lost with the code fence it followed: `model      |       size | …`). llamafile-bench names the model's column
# model_filename, which a Markdown source writes `model\_filename` (as it does a quantisation's `Q6\_K`).
_BENCH_HEADER = re.compile(r"(?:^|\|)[ \t]*model(?:\\?_filename)?[ \t]*\|(?:.*\|)?[ \t]*test[ \t]*\|",
                           re.IGNORECASE | re.MULTILINE)
# The same tests as columns, one model a row (`| model | size | params | pp512 | tg128 |`): llama-bench-style matrices
# other runners print (GPULlama3.java's --bench) and people compose from several llama-bench runs.
_MATRIX_HEADER = re.compile(r"^[ \t]*\|?[ \t]*model[ \t]*\|(?:.*\|)?[ \t]*(?:pp|tg)\d+\b", re.IGNORECASE | re.MULTILINE)
_MATRIX_TEST = re.compile(r"((?:pp|tg)\d+(?:\+tg\d+)?(?:\s*@\s*d\d+)?)(?:\s*\(?\[?t/s\]?\)?)?$")
_BINARY = {"KiB": 2**10, "MiB": 2**20, "GiB": 2**30, "TiB": 2**40, "MB": 2**20}
# A llama-bench row with no header above it: `| deepseek2 671B Q8_0 | 307.20 GiB | 672.05 B | CUDA | … | tg128 |
# 17.24 ± 0.01 |`.
# llama-bench's table as a page copied as text, its bars gone and its cells one space apart: the header's columns are
# one word each (`model size params backend ngl test t/s`), and a row is read from both ends: the model's name up to
# its size and params, the test and its rate (`pp512 2104.92 ± 23.25`) at the end, one word a column between.
_FLAT_BENCH_HEADER = re.compile(r"^\s*model size params backend(?: \S+)* test t/s\s*$", re.MULTILINE)
# llama-bench's cells: its size (`9.78 GiB`), its params (`14.77 B`), a rate with its spread (`36.78 ± 0.06`)
_SIZE = r"[\d.]+ [KMGT]iB"
_PARAMS = r"[\d.]+ [KMBT]"
_RATE = r"[\d.]+(?:\s*±\s*[\d.]+)?"
_FLAT_BENCH_ROW = re.compile(rf"^\s*(?P<model>.+?) (?P<size>{_SIZE}) (?P<params>{_PARAMS}) (?P<rest>.+?) "
                             r"(?P<test>(?:pp|tg)\d+(?:\+tg\d+)?(?: @ d\d+)?) (?P<rate>[\d.]+(?: ± [\d.]+)?)\s*$")
_HEADLESS_BENCH = re.compile(rf"^\|[^|]+\|\s*{_SIZE}\s*\|\s*{_PARAMS}\s*\|[^|]+\|(?:[^|]*\|)*?"
                             rf"\s*(?:pp|tg)\d+[^|]*\|\s*{_RATE}\s*\|$")
# llama-benchy's rows (llama-bench's tests against an OpenAI-style endpoint) with no header above them: `| model |
# pp2048 @ d192512 | 1522.61 ± 0.00 | | 116000.03 ± 0.00 | …`, the test second and its rate third, then its own
# columns (peak t/s, time to first response, …), not read.
_HEADLESS_BENCHY = re.compile(r"^\|[^|]+\|\s*(?:pp|tg)\d+(?:\s*@\s*d\d+)?\s*\|\s*[\d.]+\s*±\s*[\d.]+\s*\|")
# compare-llama-bench's rows with no header above them (a PR's table cut at its top): `| M2 Ultra | llama 3B F16 |
# tg128 | 72.29 | 73.29 | 1.01 |`, `| llama 8B IQ2_XXS - 2.0625 bpw | RX 6800 | 256 | pp2048 | 526.43 | 579.28 |
# 1.10 |`, `| qwen2 14B Q5_K | 9.78 GiB | Metal,BLAS | 1 | pp5 | 36.78 ± 0.06 | 86.95 ± 0.09 | 2.36 |`: the cells
# before the test name the model (its size and format), at times its file size and params, the backend or the device,
# and settings (a micro-batch size last); after it, the rate under each of the two builds and their ratio.
_COMPARE_TEST = re.compile(r"(?:pp|tg)\d+(?:\+tg\d+)?(?:\s*@\s*d\d+)?")
_COMPARE_RATE = re.compile(_RATE)
_NAMED_SIZE = re.compile(r"\d[BM]\b")  # `llama 8B IQ2_XXS`, `qwen2 14B Q5_K`
_PLAIN_NUMBER = re.compile(r"[\d.]+")
_SIZE_CELL = re.compile(_SIZE)
_PARAMS_CELL = re.compile(_PARAMS)
_BUILD_RATE = re.compile(r"\s*\((?:t|tok)/s\)$")  # a build's rate named after it: `w/ SVE (t/s)`, `F16 (tok/s)`
_BACKENDS = {"cuda", "metal", "blas", "vulkan", "rocm", "hip", "sycl", "cpu", "opencl", "cann", "musa", "rpc", "blis"}

# Which timing field fills which request metric; times are ms (llama.cpp's unit) and become seconds.
_FIELD = {"prompt eval": ("prefill_seconds", "input_tokens", "prompt_tokens_per_second"),
          "generation eval": ("decode_seconds", "output_tokens", "generation_tokens_per_second"),
          "eval": ("decode_seconds", "output_tokens", "generation_tokens_per_second"),
          "load": ("load_seconds", None, None),
          "sample": ("sample_seconds", None, None),  # the samplers (a grammar, penalties), timed apart from eval
          "total": ("e2e_seconds", None, None)}
_INPUT_NOTE = "processed prompt tokens only; prompt-cache hits are not counted"
# The prompt's share of a ggml run's evaluations under which its mean time per token is read as a decode step's.
GGML_PROMPT_SHARE = 0.1
GGML_PROMPT_BATCH = 8  # the first llama.cpp's n_batch: a prompt this short is one evaluation, about a step's time
_GGML_PREDICT = re.compile(r"\bpredict time\s*=\s*([\d.]+) ms / ([\d.]+) ms per token")
_GGML_PROMPT = re.compile(r"\bnumber of tokens in prompt = (\d+)")
_GGML_LOAD = re.compile(r"^\s*main:\s+load time\s*=\s*([\d.]+) ms")


def _ggml_main(line_number: int, match, prompt: int | None, load: float | None) -> Record:
    """A ggml example's (or the first llama.cpp's) run: the predict time over every token it evaluated."""
    predict_ms, per_token_ms = float(match.group(1)), float(match.group(2))
    metrics = {"e2e_seconds": predict_ms / 1000.0}
    evaluated = round(predict_ms / per_token_ms) if per_token_ms > 0 else None
    if prompt is not None:
        metrics["input_tokens"] = float(prompt)
        if evaluated is not None and evaluated > prompt:
            metrics["output_tokens"] = float(evaluated - prompt)
    if per_token_ms > 0 and (prompt is None or evaluated is None or prompt <= GGML_PROMPT_SHARE * evaluated
                             or prompt <= GGML_PROMPT_BATCH):
        # The evaluations are mostly generated tokens, or the prompt fits one of the batches the first llama.cpp read
        # it in (or its length is not printed): the mean per token is a decode step's time, at most (a prompt's
        # tokens, read in batches, cost less each than a step).
        metrics["tpot_seconds"] = per_token_ms / 1000.0
    labels = {"engine": "ggml example", "tool": "main",
              "e2e_definition": "predict time: every evaluation of the run, prompt included, model load excluded"}
    if load is not None:
        labels["model_load_seconds"] = load
    return Record("request", "ggml.main", line_number, metrics, labels=labels)


def _timing(line: str):
    """_TIMING's match. Its first group's words are at most 15 characters before the first " time": the search
    starts there (a pattern opening with a word boundary is tried at every character before it, 4 µs a line)."""
    return _TIMING.search(line, max(0, line.find(" time") - 15))


def _slot_task(line: str):
    """_SLOT_TASK's match, searched from the first "id" (no match starts before it)."""
    return _SLOT_TASK.search(line, max(0, line.find("id")))


def _variant(line: str) -> str:
    if "llama_perf_" in line:
        return "cli-perf"
    if "llama_print_timings" in line:
        return "cli-legacy"
    if "print_timings]" in line:
        return "server-2024"
    if "print_timing" in line:
        return "server"
    return ""


class _Request:
    """Timing lines of one request, gathered until the next request starts or its slot is released."""

    def __init__(self, line_number: int):
        self.line_number = line_number
        self.metrics: dict = {}
        self.labels: dict = {"engine": "llama.cpp", "input_tokens_definition": _INPUT_NOTE}
        self.timestamp: float | None = None
        self.fields: set = set()
        self.total_seen = False

    def record(self) -> Record | None:
        if not self.metrics:
            return None
        metrics = self.metrics
        if metrics.get("decode_seconds") and metrics.get("output_tokens") and "tpot_seconds" not in metrics \
                and "generation_tokens_per_second" not in metrics:
            # the line's rate cut off (a narrow page wrapped it after `ms per`): llama.cpp's own rate is the eval
            # time over its tokens, so the same figures give it back
            metrics["tpot_seconds"] = metrics["decode_seconds"] / metrics["output_tokens"]
            metrics["generation_tokens_per_second"] = metrics["output_tokens"] / metrics["decode_seconds"]
        if metrics.get("sample_seconds") and metrics.get("decode_seconds") and metrics.get("output_tokens", 0) > 1:
            # the samplers' time against the model's steps over the same tokens (rules_requests: sampling slows decode)
            metrics["sample_per_decode"] = metrics["sample_seconds"] / metrics["decode_seconds"]
        variant = self.labels.get("variant", "")
        source = "llamacpp.server" if variant.startswith("server") else "llamacpp.cli"
        return Record("request", source, self.line_number, self.metrics, self.timestamp, self.labels)


def _table_cells(line: str, tabs: bool = False) -> list:
    """A table row's cells, between bars or (`tabs`, a table copied from a terminal or a sheet) a tab apart; a Markdown
    source's escaped underscores (`Q6\\_K`) as written."""
    line = line.replace("\\_", "_")
    if tabs:
        return [cell.strip() for cell in line.strip().split("\t")]
    return [cell.strip() for cell in line.strip().strip("|").split("|")]


_MEASURED_COLUMNS = ("model", "size", "modelsize", "params", "test")


def bench_row(line_number: int, columns: list, cells: list) -> Record | Skipped | None:
    """One llama-bench row: `model | size | params | backend | ngl | … | test | t/s` (t/s = mean ± stddev)."""
    row = dict(zip(columns, cells, strict=False))
    if "*" in row.get("model", ""):
        row["model"] = row["model"].replace("**", "").strip()  # a row set in bold (`**gemma-4-E2B** QAT Q4_0`)
    test = row.get("test", "")
    if not test and row.get("task", "").lower() in ("pp", "tg") and row.get("tokens", "").isdigit():
        test = row["task"].lower() + row["tokens"]  # `pp | 512`: the test split over two columns
    rate = re.match(r"\s*([\d.]+)(?:\s*±\s*([\d.]+))?", row.get("t/s", "").replace("*", ""))  # **26.75**: markup
    if not test or rate is None:
        return Skipped(line_number, "llama-bench row without a 'test' and a 't/s' value", "llamacpp")
    shape = test.split("@")[0].strip()
    if "+" in shape:
        metric = "total_tokens_per_second"  # pp<N>+tg<M>: one rate over both phases
    elif shape == "pp1":
        # A one-token prompt is one forward step for one token at an empty context: a decode step's work (llama-bench
        # -p 1 -n 0, compare-llama-bench's pp1 rows of small-batch kernels), its rate one stream's generation.
        metric = "generation_tokens_per_second"
    elif shape.startswith("pp"):
        metric = "prompt_tokens_per_second"
    elif shape.startswith("tg"):
        metric = "generation_tokens_per_second"
    else:
        return Skipped(line_number, f"llama-bench test {test!r} is neither pp<N> nor tg<N>", "llamacpp")
    metrics = {metric: float(rate.group(1))}
    if metric == "generation_tokens_per_second":
        metrics["running_requests"] = 1.0  # a tg test generates one sequence: its rate is one stream's
    if rate.group(2):
        metrics[f"{metric}_std"] = float(rate.group(2))
    depth = re.search(r"@\s*d(\d+)", test)
    if metric != "total_tokens_per_second":
        metrics["context_depth_tokens"] = float(depth.group(1)) if depth else 0.0
    params = re.match(r"([\d.]+)\s*([KMBT])", row.get("params", ""))
    if params:
        metrics["parameters"] = float(params.group(1)) * {"K": 1e3, "M": 1e6, "B": 1e9, "T": 1e12}[params.group(2)]
    size = re.match(r"([\d.]+)\s*(KiB|MiB|GiB|TiB)", row.get("size") or row.get("modelsize", ""))  # MNN: modelSize
    unsplit = False
    if size:
        metrics["weights_bytes"] = float(size.group(1)) * _BINARY[size.group(2)]
        # A mixture of experts names its active size ("30B.A3B"): a decode step reads that share of the weights.
        moe = re.search(r"(\d+(?:\.\d+)?)B\.A(\d+(?:\.\d+)?)B", row.get("model", ""))
        if moe and float(moe.group(1)) > 0:
            metrics["decode_weights_bytes"] = metrics["weights_bytes"] * min(1.0, float(moe.group(2)) /
                                                                             float(moe.group(1)))
            metrics["prompt_parameters"] = float(moe.group(2)) * 1e9
        else:  # a mixture named without it (`deepseek2 671B Q8_0`): its active share from the catalog's config
            mixture = _mixture(row.get("model", ""), metrics.get("parameters"), metrics["weights_bytes"])
            if mixture is not None:
                metrics["decode_weights_bytes"] = mixture.low_bytes
                metrics["decode_weights_bytes_high"] = mixture.high_bytes
                metrics["prompt_parameters"] = mixture.active_params
            else:  # `deepseek2 16B`: a mixture no catalogued config splits reads an unknown share a step
                from inferledger.diagnose.named_model import names_mixture

                unsplit = names_mixture(row.get("model", ""))
    if size is None and row.get("model"):
        # No size column (compare-llama-bench's tables drop it): llama-bench's model cell names the size and format
        # (`llama 1B Q8_0`, `qwen3moe 30B.A3B Q4_K - Medium`), an estimate of what a step reads.
        from inferledger.diagnose.named_model import from_name, names_mixture

        named = from_name(row["model"], "llama.cpp")
        mixture = None if named is None or named.mixture_of_experts else _mixture(
            row["model"], metrics.get("parameters"), named.weights_bytes_per_step)
        # `deepseek2 16B IQ1_S_R4`: a mixture the catalogue cannot split reads an unknown share of its weights a step
        unsplit = named is not None and not named.mixture_of_experts and mixture is None \
            and names_mixture(row["model"])
        if named is not None and not unsplit:
            metrics["named_weights_bytes"] = named.weights_bytes_per_step
            metrics["named_parameters"] = named.total_params
            if named.mixture_of_experts:
                metrics["prompt_parameters"] = named.active_params
            # `deepseek2 671B Q8_0`: the whole file's size from the name, of which a step reads the active share.
            if mixture is not None:
                metrics["named_weights_bytes"] = mixture.low_bytes
                metrics["decode_weights_bytes_high"] = mixture.high_bytes
                metrics["prompt_parameters"] = mixture.active_params
    labels = {"engine": "llama.cpp", "tool": "llama-bench", "test": test}
    if unsplit:
        labels["mixture_unsplit"] = True
    for key in ("model", "backend", "ngl", "threads", "n_batch", "n_ubatch", "fa", "n_cpu_moe", "ot"):
        if row.get(key):
            labels[key] = row[key]
    if row.get("microbatch size"):  # compare-llama-bench's name for n_ubatch
        labels["n_ubatch"] = row["microbatch size"]
    # Every other cell but the measured ones, in order (named or not: rows pasted without their header): two rows of
    # one model and test with the same settings ran the same work, whatever build ran each (`build:` under each).
    labels["settings"] = " | ".join(cell for column, cell in zip(columns, cells, strict=False)
                                    if column not in _MEASURED_COLUMNS and not column.startswith(("t/s", "speedup")))
    # No layer on a GPU (ngl 0, a CPU backend, or `-dev none`: no device given the model): this row ran on the CPU,
    # whatever the build.
    # (llamafile-bench's table names the CPU it ran on, `cpu_info`, and a GPU's `gpu_info` only when one ran it)
    if row.get("ngl", "").strip() == "0" or row.get("backend", "").strip().lower() in ("cpu", "blas") \
            or row.get("dev", "").strip().lower() == "none" or (row.get("cpu_info") and not row.get("gpu_info")):
        labels["device"] = "cpu"
    return Record("interval", "llamacpp.bench", line_number, metrics, labels=labels)


def _mixture(model: str, total_params: float | None, file_bytes: float):
    """named_model.mixture_read of a row's model cell and its total parameters: the params column (`672.05 B`), or
    else the size the cell names (rounded: matched more loosely)."""
    from inferledger.diagnose.named_model import from_name, mixture_read

    named = total_params is None
    if named and model:
        sized = from_name(model)
        total_params = sized.total_params if sized is not None else None
    return mixture_read(model, total_params, file_bytes, named) if total_params else None


def _matrix_rows(line_number: int, columns: list, cells: list) -> Iterator:
    """One model's row of a tests-as-columns table: each `pp<N>` / `tg<N>` cell read as that llama-bench test."""
    row = dict(zip(columns, cells, strict=False))
    for column, cell in row.items():
        test = _MATRIX_TEST.match(column)
        if test is not None and cell:
            yield bench_row(line_number, ["test", "t/s", *columns], [test.group(1), cell, *cells])


def _compare_rows(line_number: int, columns: list, cells: list) -> Iterator:
    """compare-llama-bench.py's rows (`| Model | Test | t/s master | t/s pr | Speedup |`): a test a row, its rate under
    each build compared; a llama-bench row each, the build in its labels."""
    for index, column in enumerate(columns):
        build = _compared_build(column)
        if build is not None:
            renamed = ["t/s" if other == index else name for other, name in enumerate(columns)]
            row = bench_row(line_number, renamed, cells)
            if isinstance(row, Record):
                row.labels["build"] = build
                yield row


def _headless_compare(cells: list) -> list | None:
    """The columns of a compare-llama-bench row pasted without its header (see _COMPARE_TEST), or None for any other
    row: one test cell, then two rates and a ratio, and before it a cell naming a model's size."""
    tests = [index for index, cell in enumerate(cells) if _COMPARE_TEST.fullmatch(cell)]
    if len(tests) != 1 or len(cells) - tests[0] != 4:
        return None
    test = tests[0]
    after = cells[test + 1:]
    if not (_COMPARE_RATE.fullmatch(after[0]) and _COMPARE_RATE.fullmatch(after[1])
            and _PLAIN_NUMBER.fullmatch(after[2])):
        return None
    columns = []
    for cell in cells[:test]:
        if _SIZE_CELL.fullmatch(cell):
            columns.append("size")
        elif _PARAMS_CELL.fullmatch(cell):
            columns.append("params")
        elif "model" not in columns and _NAMED_SIZE.search(cell):
            columns.append("model")
        elif cell and set(re.split(r"[,+ ]+", cell.lower())) <= _BACKENDS:
            columns.append("backend")
        elif _PLAIN_NUMBER.fullmatch(cell):
            columns.append("")
        else:
            columns.append("device")
    if "model" not in columns:
        return None
    if columns[-1] == "" and len(cells) > 6:
        columns[-1] = "n_ubatch"  # a setting swept just before the test: compare-llama-bench's micro-batch size
    return [*columns, "test", "t/s before", "t/s after", "speedup"]


def _compare_header(line: str) -> bool:
    """A table's header naming a test column and two builds' rates or more as compare-llama-bench.py names them
    (`t/s master`, `t/s (pr)`) or a hand-made table after it (`w/o SVE (t/s)`, its outer bars dropped as GitHub
    allows); a rate named after its runner (`jllm t/s`) may be another runner's table."""
    if "|" not in line or ("t/s " not in line and "/s)" not in line):
        return False
    cells = [cell.lower() for cell in _table_cells(line)]
    return _names_test(cells) and sum(1 for cell in cells if (cell.startswith("t/s ") or _BUILD_RATE.search(cell))
                                      and _compared_build(cell) is not None) >= 2


def _bare_builds(columns: list) -> list | None:
    """A llama-bench table's header whose rate columns are named by their builds alone, a ratio after them (`| model |
    size | params | test | HIP | lhl-tune-tile | Δ% |`, a hand-made comparison): the columns, each build's renamed as
    compare-llama-bench names a build's rate (`t/s hip`); None for any other header."""
    if "test" not in columns or not {"size", "params"} & set(columns):
        return None
    after = columns[columns.index("test") + 1:]
    builds = [column for column in after if column and not COMPARISON.match(column)]
    if len(builds) < 2 or len(builds) == len(after) or any("/" in column for column in builds):
        return None
    return [f"t/s {column}" if column in builds else column for column in columns]


def _names_test(columns: list) -> bool:
    """A header naming llama-bench's test: `test`, or split in two as hand-made tables do (`Task | Tokens` over
    `pp | 512`)."""
    return "test" in columns or ("task" in columns and "tokens" in columns)


def _compared_build(column: str) -> str | None:
    """The build or backend a compared rate column names (`t/s master`, or after it: `vulkan t/s`, `0.8.17 t/s`, as
    llamafile's bench and hand-made comparisons write it), None for any other column."""
    if column.startswith("t/s "):
        # (`t/s speedup`: llamafile's ratio of the two builds' rates, no build of its own)
        return None if COMPARISON.match(column[4:]) else column[4:].strip()
    if column.endswith(" t/s") and column[:-4].strip():
        return column[:-4].strip()
    unit = _BUILD_RATE.search(column)
    if unit and column[:unit.start()].strip():
        return column[:unit.start()].strip()
    return None


def _batched_row(line_number: int, columns: list, cells: list) -> Record | Skipped:
    """One llama-batched-bench row: PP, TG, B, N_KV in tokens, T_* in seconds, S_* in tokens/s."""
    values = {}
    for column, cell in zip(columns, cells, strict=False):
        try:
            values[column.split()[0].lower()] = float(cell)
        except (ValueError, IndexError):
            continue
    if "s_tg" not in values and "s_pp" not in values:
        return Skipped(line_number, "llama-batched-bench row without S_PP / S_TG numbers", "llamacpp")
    metrics = {}
    for column, metric in (("s_pp", "prompt_tokens_per_second"), ("s_tg", "generation_tokens_per_second"),
                           ("s", "total_tokens_per_second"), ("b", "running_requests"),
                           ("t_pp", "prefill_seconds"), ("t_tg", "decode_seconds")):
        if column in values:
            metrics[metric] = values[column]
    labels = {"engine": "llama.cpp", "tool": "llama-batched-bench"}
    if "b" not in values and "n_kv" in values:
        # llama-sweep-bench (ik_llama.cpp): the same columns without B, one sequence whose cache grows by N_KV.
        metrics["running_requests"] = 1.0
        labels["tool"] = "llama-sweep-bench"
    for column in ("pp", "tg", "b", "n_kv"):
        if column in values and math.isfinite(values[column]):
            labels[column] = str(int(values[column]))
    return Record("interval", "llamacpp.batched-bench", line_number, metrics, labels=labels)


# 2026 llama-server prompt progress: `prompt processing, n_tokens =  17653, progress = 0.69, t = 327.87 s / 53.84
# tokens per second`, printed every few seconds while one slot reads a long prompt.
_PROMPT_PROGRESS = re.compile(r"prompt processing,\s*n_tokens\s*=\s*(\d+),\s*progress\s*=\s*([\d.]+),\s*"
                              r"t\s*=\s*([\d.]+)\s*s\s*/\s*([\d.]+)\s*tokens per second")
_PROGRESS = re.compile(r"n_(?:decoded|gen)\s*=\s*(\d+),\s*tg\s*=\s*([\d.]+)\s*t/s(?:,\s*tg_3s\s*=\s*([\d.]+)\s*t/s)?")
# The 2026 per-line prefix, minutes.seconds.milliseconds.microseconds since the server started (`16.42.988.854`).
_STAMP = r"(\d+)\.(\d\d)\.(\d{3})\.(\d{3})"
_ELAPSED = re.compile(r"^\s*" + _STAMP + " ")
_DEVICE = re.compile(r"Device \d+: ([^,]+), compute capability")
_AMD_CARD = re.compile(r"\b(?:AMD|Radeon|Instinct)\b")


def _elapsed_seconds(line: str, labels: dict) -> float | None:
    """The 2026 per-line prefix, minutes.seconds.milliseconds.microseconds since the server started, in seconds."""
    elapsed = _ELAPSED.match(line)
    return _since_start(elapsed.groups(), labels) if elapsed is not None else None


def _since_start(parts, labels: dict) -> float:
    """Seconds since the server started of the elapsed prefix's (minutes, seconds, ms, µs), as printed."""
    labels["timestamp_origin"] = "server start"
    return _seconds_since_start(parts)


def _seconds_since_start(parts) -> float:
    """_since_start's seconds, the labels left alone."""
    minutes, seconds, millis, micros = (int(part) for part in parts)
    return minutes * 60 + seconds + millis / 1e3 + micros / 1e6


def _progress(line_number: int, line: str) -> Record | None:
    """A 2026 llama-server decode-progress line, `n_decoded = 1081, tg = 12.93 t/s, tg_3s = 12.57 t/s` (`n_gen =`
    in later builds): one slot decoding, its rate over the last ~3 s (tg_3s) and since the request began (tg), as a
    stats window."""
    match = _PROGRESS.search(line)
    if match is None:
        return None
    slot = _slot_task(line)
    elapsed = _ELAPSED.match(line)
    return _progress_record(line_number, *match.groups(), *(slot.groups() if slot else (None, None)),
                            elapsed.groups() if elapsed else None)


def _progress_record(line_number: int, decoded: str, rate: str, recent: str | None, slot: str | None,
                     task: str | None, elapsed) -> Record:
    """_progress's window from its numbers as printed (`elapsed`: the prefix's four parts, or None)."""
    metrics = {"generation_tokens_per_second": float(recent or rate), "running_requests": 1.0,
               "decoded_tokens": float(decoded), "request_generation_tokens_per_second": float(rate)}
    labels = {"engine": "llama.cpp", "variant": "server-2026"}
    if slot is not None:
        labels["slot"], labels["task"] = slot, task
    stamp = _since_start(elapsed, labels) if elapsed is not None else None
    return Record("interval", "llamacpp.progress", line_number, metrics, stamp, labels)


def _progress_windows(lines: list, fields) -> Windows:
    """_progress_record's windows of decode-progress lines that name their slot and their elapsed time, from their
    numbers as printed as columns (`fields`: minutes, seconds, ms, µs, slot, task, decoded, rate, recent), each
    number made as _progress_record makes it, by maps (no Record a line)."""
    minutes, seconds, millis, micros, slots, tasks, decoded, rates, recents = fields
    metrics = {"generation_tokens_per_second": [float(recent or rate) for recent, rate in zip(recents, rates,
                                                                                               strict=True)],
               "running_requests": [1.0] * len(lines), "decoded_tokens": list(map(float, decoded)),
               "request_generation_tokens_per_second": list(map(float, rates))}
    labels = [{"engine": "llama.cpp", "variant": "server-2026", "slot": slot, "task": task,
               "timestamp_origin": "server start"} for slot, task in zip(slots, tasks, strict=True)]
    # _seconds_since_start's operations in its order, by maps: ((minutes × 60 + seconds) + ms / 1e3) + µs / 1e6.
    whole = map(add, map(mul, map(int, minutes), repeat(60)), map(int, seconds))
    stamps = list(map(add, map(add, whole, map(truediv, map(int, millis), repeat(1e3))),
                      map(truediv, map(int, micros), repeat(1e6))))
    return Windows(lines, stamps, ["llamacpp.progress"] * len(lines), labels, metrics)


def _prompt_progress(line_number: int, line: str) -> Record | None:
    """A prompt-progress line as a stats window of one slot that reads its prompt: it generates nothing meanwhile
    (its decode starts when the prompt is done), so the window's generation is 0 for that slot."""
    match = _PROMPT_PROGRESS.search(line)
    if match is None:
        return None
    metrics = {"prompt_tokens_per_second": float(match.group(4)), "generation_tokens_per_second": 0.0,
               "running_requests": 1.0}
    labels = {"engine": "llama.cpp", "variant": "server-2026", "prompt_tokens_so_far": match.group(1),
              "prompt_progress": match.group(2), "prompt_seconds_so_far": match.group(3),
              "window": "one slot reading its prompt (no other slot is in the line)"}
    slot = _slot_task(line)
    if slot:
        labels["slot"], labels["task"] = slot.group(1), slot.group(2)
    return Record("interval", "llamacpp.progress", line_number, metrics, _elapsed_seconds(line, labels), labels)


# The model a run loads: its file type as the loader prints it (`llm_load_print_meta: model ftype = Q4_K - Medium`,
# 2025 builds `print_info: file type = Q8_0`), and the file a command line names (`./llama-cli -m
# models/llama-2-7b.Q4_0.gguf`, `llama-server --model …`): the format the weights are stored in, which the GPU
# servers' bf16 default would misjudge.
_FILE_TYPE = re.compile(r"(?:model ftype|file type)\s*=\s*(\S.*?)\s*$")
# The loader's metadata: `print_info: model type = 7B` (`30B.A3B` a mixture), `print_info: general.name = MathTutor
# 7B` (2023 builds: `llm_load_print_meta: general.name = LLaMA v2`)
_METADATA = re.compile(r"(?:print_info|llm_load_print_meta):\s+(model type|general\.name)\s*=\s*(\S.*?)\s*$")
_COMMAND_MODEL = re.compile(r"(?:^|[\s/`$])(?:llama-[a-z-]+|main|server)(?:\.exe)?\s(?:.*\s)?(?:-m|--model)[\s=]+"
                            r"['\"]?([^'\"`\n]*?\.gguf\b|[^\s'\"`]+)")  # a .gguf path may hold spaces


def _loaded_model(line_number: int, line: str) -> Record | None:
    """The file type or the command line's model file, as the run's labels (weights_format, model), or None."""
    match = _FILE_TYPE.search(line) if "type" in line else None
    if match is not None and not match.group(1).endswith("(guessed)"):
        # (`all F32 (guessed)`: a file with no type of its own, whose bytes say otherwise (2.64 GiB for 1.4B weights is
        # 16 bits a weight), is no stated format)
        return Record("capacity", "llamacpp.startup", line_number, {},
                      labels={"engine": "llama.cpp", "weights_format": match.group(1)})
    match = _COMMAND_MODEL.search(line) if "-m" in line else None
    if match is not None:
        path = match.group(1).replace("\\", "").rsplit("/", 1)[-1]
        return Record("capacity", "llamacpp.startup", line_number, {},
                      labels={"engine": "llama.cpp", "model": path.removesuffix(".gguf")})
    return None


def _capacity(line_number: int, line: str) -> Record | None:
    # Each search behind its own word: a server prints `n_ctx_slot` on every request, which reaches here.
    match = _DEVICE.search(line) if "Device " in line or "CUDA devices" in line else None
    if match:  # `Device 0: NVIDIA GeForce RTX 3090, compute capability 8.6`: the GPU the log names
        # (a HIP build prints the same line for an AMD card: `Device 0: AMD Radeon RX 7900 XT, compute capability 11.0`)
        card = match.group(1).strip()
        backend = "ROCm" if _AMD_CARD.search(card) else "CUDA"
        return Record("capacity", "llamacpp.startup", line_number, {},
                      labels={"engine": "llama.cpp", "gpu": card, "backend": backend})
    if "using device Metal" in line or "ggml_metal_init: found device" in line:
        # `llama_model_load_from_file_impl: using device Metal (Apple M4)`: the model runs on an Apple chip's GPU
        return Record("capacity", "llamacpp.startup", line_number, {},
                      labels={"engine": "llama.cpp", "backend": "Metal"})
    metrics = {}
    labels = {"engine": "llama.cpp"}
    if "," in line and _DECIMAL_COMMA_FIGURE.search(line):
        line = _DECIMAL_COMMA.sub(r"\1.\2", line)
    match = _OFFLOADED.search(line) if "offloaded" in line else None
    if match:
        metrics["offloaded_layers"] = float(match.group(1))
        metrics["model_layers"] = float(match.group(2))
        if match.group(1) == "0":
            labels["backend"] = "cpu"  # no layer on the GPU: decode reads the weights from system memory
    match = _KV_SIZE.search(line) if "size" in line else None
    if match:
        metrics["kv_cache_bytes"] = float(match.group(1)) * _BINARY[match.group(2)]
    match = _MODEL_SIZE.search(line) if "model size" in line or "file size" in line else None
    if match:
        metrics["weights_bytes"] = float(match.group(1)) * _BINARY[match.group(2)]
    if "n_ctx" in line and "n_ctx_train" not in line and "n_ctx_per_seq" not in line:
        match = _N_CTX.search(line, line.find("n_ctx"))
        if match:
            metrics["context_tokens"] = float(match.group(1))
    match = _N_SLOTS.search(line) if "n_slots" in line else None
    if match:
        metrics["parallel_slots"] = float(match.group(1))
    match = _N_KV_MAX.search(line) if "n_kv_max" in line else None
    if match:
        metrics["kv_cache_tokens"] = float(match.group(1))  # batched-bench: KV cache size in tokens
    if not metrics:
        return None
    return Record("capacity", "llamacpp.startup", line_number, metrics, labels=labels)


# The server's reply (`/completion`, `/v1/chat/completions`) carries `"timings": {"prompt_n": 1, "prompt_ms": 15.079,
# …, "predicted_n": 5, "predicted_ms": 48.984, …}`: one request's phases in ms.
_REPLY_TIMING = re.compile(r'"(prompt|predicted)_(n|ms|per_token_ms|per_second)"\s*:\s*([\d.]+(?:[eE][-+]?\d+)?)')


# The CLI's 2023-24 YAML log (`--logdir`): its timings as keys, `t_p_eval_us: 73317136  # total microseconds spent
# prompt processing`, read as the reply's fields of the same meaning (n_eval counts the tokens after the first).
_YAML_TIMING = re.compile(r"^(n_p_eval|t_p_eval_us|ts_p_eval|n_eval|t_eval_us|ts_eval):\s*([\d.]+)\s*(?:#.*)?$")
_YAML_KEYS = {"n_p_eval": ("prompt_n", 1.0), "t_p_eval_us": ("prompt_ms", 1e-3), "ts_p_eval": ("prompt_per_second", 1.0),
              "n_eval": ("predicted_n", 1.0), "t_eval_us": ("predicted_ms", 1e-3),
              "ts_eval": ("predicted_per_second", 1.0)}


def _reply_timings(line_number: int, timings: dict, variant: str = "server-reply") -> Record | None:
    """One request from a reply's timings: the prompt and generated counts, their times (ms) and rates."""
    metrics = {}
    for phase, count, seconds, rate in (("prompt", "input_tokens", "prefill_seconds", "prompt_tokens_per_second"),
                                        ("predicted", "output_tokens", "decode_seconds",
                                         "generation_tokens_per_second")):
        if f"{phase}_n" in timings:
            metrics[count] = timings[f"{phase}_n"]
        if f"{phase}_ms" in timings:
            metrics[seconds] = timings[f"{phase}_ms"] / 1000.0
        if timings.get(f"{phase}_per_second"):
            metrics[rate] = timings[f"{phase}_per_second"]
    if metrics.get("decode_seconds") and metrics.get("output_tokens"):
        metrics["tpot_seconds"] = metrics["decode_seconds"] / metrics["output_tokens"]
    if not metrics:
        return None
    return Record("request", "llamacpp.server", line_number, metrics,
                  labels={"engine": "llama.cpp", "variant": variant, "input_tokens_definition": _INPUT_NOTE})


# llama-box (GPUStack's server on llama.cpp) closes each request with one `reconcile` line: `reconcile: rid 37… |
# prefill_t = 11, prefill_cached_t = 0, prefill_tps = 5.72 tps, ttft = 1924.62ms, decode_t = 400, decode_tps = 22.57
# tps, tpot = 44.31ms, …`. Its prefill rate is prefill_t ÷ ttft (11 ÷ 1.925 s = 5.72), so the first token's time is the
# prompt's phase, as llama.cpp's prompt eval time; decode_t tokens at tpot each are the answer's.
_RECONCILE = re.compile(r"\breconcile: rid \d+ \|(.*)$", re.MULTILINE)
_RECONCILE_FIELD = re.compile(r"\b(prefill_t|prefill_cached_t|ttft|decode_t|tpot)\s*=\s*([\d.]+)")


def _reconcile(line_number: int, line: str) -> Record | None:
    """One llama-box request from its reconcile line (the prompt's tokens and phase, the answer's tokens and steps)."""
    match = _RECONCILE.search(line)
    fields = {name: float(value) for name, value in _RECONCILE_FIELD.findall(match.group(1))} if match else {}
    if "decode_t" not in fields or "ttft" not in fields:
        return None
    metrics = {"input_tokens": fields.get("prefill_t", 0.0), "ttft_seconds": fields["ttft"] / 1000.0,
               "prefill_seconds": fields["ttft"] / 1000.0, "output_tokens": fields["decode_t"]}
    if fields.get("prefill_cached_t"):
        metrics["cached_tokens"] = fields["prefill_cached_t"]
    if fields.get("tpot") and fields["decode_t"]:
        metrics["tpot_seconds"] = fields["tpot"] / 1000.0
        metrics["decode_seconds"] = fields["decode_t"] * fields["tpot"] / 1000.0
    return Record("request", "llamacpp.server", line_number, metrics,
                  labels={**_SERVER_LABELS, "variant": "llama-box"})


# A batch the KV cache has no room for, as the server builds have said it (2023-24 `update_slots`, 2024 `llama_decode`
# ubatch slots, 2025-26 memory slots).
_KV_NO_ROOM = re.compile(r"failed to find (?:free space in the KV cache|KV cache slot for ubatch|a memory slot for batch)")
_TOO_LONG = re.compile(r"request \((\d+) tokens\) exceeds the available context size \((\d+) tokens\)")


def sniff(head: str) -> float:
    if "print_timing" in head or "llama_print_timings" in head or "llama_perf_context_print" in head:
        return 0.95
    if '"predicted_ms"' in head or '"predicted_per_second"' in head:
        return 0.9  # the server's reply with its `timings` object
    if "reconcile: rid" in head and _RECONCILE.search(head) and "decode_t" in head:
        return 0.9  # llama-box's request lines
    if "\nt_p_eval_us:" in head and "\nt_eval_us:" in head:
        return 0.9  # the CLI's YAML log
    if "predict time =" in head and "ms per token" in head and _GGML_PREDICT.search(head):
        return 0.9
    if "S_PP t/s" in head or ("t/s" in head and (_BENCH_HEADER.search(head) or _FLAT_BENCH_HEADER.search(head))):
        return 0.95
    if " ± " in head and any(_HEADLESS_BENCH.match(line.strip()) or _HEADLESS_BENCHY.match(line.strip())
                             for line in head.splitlines()):
        return 0.9
    if "|" in head and ("pp" in head or "tg" in head) and sum(
            1 for line in head.splitlines() if line.lstrip().startswith("|") and line.rstrip().endswith("|")
            and _headless_compare(_table_cells(line))) >= 2:
        return 0.9
    if ("pp" in head or "tg" in head) and _MATRIX_HEADER.search(head):
        return 0.9
    if "| test |" in head and any(_bare_builds([cell.lower() for cell in _table_cells(line)]) is not None
                                  for line in head.splitlines() if "| test |" in line):
        return 0.9  # builds compared by name alone, llama-bench's own columns before them
    if ("t/s" in head or "tok/s)" in head) and ("test" in head.lower() or "task" in head.lower()) \
            and any(map(_compare_header, head.splitlines())):
        return 0.9  # builds compared test by test, no model column (`| type_k | … | test | t/s (main) | t/s (pr) |`)
    if "prompt eval time" in head and " ms" in head:
        return 0.8
    if "llm_load_tensors" in head or "load_tensors:" in head or "llama_model_loader" in head \
            or "llama_kv_cache_init:" in head or "llama_new_context_with_model:" in head \
            or "llama_init_from_model:" in head:
        return 0.6  # the runner's start-up: the model's load, its KV cache and compute buffers
    if '"function":"update_slots"' in head or '"function":"launch_slot_with_task"' in head \
            or "encode_image_with_clip:" in head:
        return 0.6  # the server's 2024 JSON log lines (slots, kv cache) or its image encoder's lines
    if "slot update_slots:" in head or "slot launch_slot_:" in head or "selected slot by" in head \
            or "srv   prompt_save:" in head:
        return 0.6  # llama-server's slot or prompt-cache lines with no timing yet (a request cut before its end)
    if _KV_NO_ROOM.search(head) or _TOO_LONG.search(head) or "failed to allocate buffer for kv cache" in head:
        return 0.6  # the server's notice that the KV cache has no room for a batch, or a request longer than a slot
    return 0.0


_MACHINE_LINE = re.compile(r"^[\s*>-]*(?:CPU|GPU|Machine|Hardware|Host)\s*:\s*(\S.*)$", re.IGNORECASE)


class _Reader:
    """parse()'s state between lines: feed() takes one line and returns what it completes, in order."""

    def __init__(self):
        self.request: _Request | None = None
        self.table_kind = ""  # "bench" or "batched" while inside a markdown table
        self.table_columns: list = []
        self.table_tabs = False  # the table's cells are a tab apart, not between bars
        self.table_bare = False  # the table has no outer bars (GitHub's rendered table copied: `-- | --` its rule)
        self.header_labels: dict = {}  # a bare `slot print_timing: id N | task N |` line names the request next
        self.timings: dict = {}  # a reply's `timings` object, gathered a field a line
        self.timings_line: int | None = None
        self.timings_variant = "server-reply"  # or the CLI's "yaml-log", whose keys fill the same fields
        self.ggml_prompt: int | None = None  # a ggml example's prompt length and load time, for its predict line
        self.ggml_load: float | None = None
        # The devices the loader put buffers on (`CPU_Mapped model buffer size`, `CUDA0 KV buffer size`), and the
        # first such line: buffers on the CPU alone are a CPU run, whatever -ngl asked (finish).
        self.buffer_devices: set = set()
        self.buffer_line: int | None = None
        # The machine the text between tables names (`CPU: Intel(R) Core(TM) i7-8700`, `* GPU: …`): a table after
        # another machine's line is that machine's run, no build of the one before (bench-same-test-slower).
        self.machine: str | None = None
        self.model_type: str | None = None  # the loader's `model type = 7B`, for a general.name with no size

    def idle(self) -> bool:
        """No request open, none named by a header, no table: a request's timing lines start one afresh."""
        return self.request is None and not self.header_labels and not self.table_kind

    def fresh(self) -> bool:
        """The state of a new reader: what it reads next reads as from the start of a file (the table's columns
        and tabs are read only inside a table)."""
        return self.idle() and not self.timings and self.ggml_prompt is None and self.ggml_load is None

    def closed_by_timings(self) -> bool:
        """What is open (a request, a header) would close before a request's bare timings that follow quiet lines
        (_BARE_CYCLE), nothing read in between: the next `prompt eval` line closes a request that has one or its
        total, and a header names the request after it. Several slots, no idle notice: the request read line by line
        stays open until the next one's timings."""
        request = self.request
        return not self.table_kind and (request is None or "prompt eval" in request.fields or request.total_seen)

    def close(self) -> list:
        """closed_by_timings' closing, done now: the open request's record (none when none is open)."""
        out: list = []
        self._flush(out)
        self.header_labels = {}
        return out

    def _flush(self, out: list) -> None:
        finished, self.request = self.request, None
        record = finished.record() if finished is not None else None
        if record is not None:
            out.append(record)

    def feed(self, line_number: int, line: str) -> list:
        if "reconcile: rid" in line:
            record = _reconcile(line_number, line)
            return [record] if record is not None else []
        if line.count("print_timings:") > 1:
            # Two timing lines a paste ran together (`… tokens per second) llama_print_timings: eval time = …`): each
            # read as the line it was.
            start = line.index("print_timings:") + 1
            cut = line.rfind(" ", 0, line.index("print_timings:", start)) + 1
            return self.feed(line_number, line[:cut].rstrip()) + self.feed(line_number, line[cut:])
        out: list = []
        if "truncated = 1" in line and "stop processing" in line:
            # The slot's context held less than the prompt (llama-server `-c` shared by `-np` slots): the prompt was
            # cut. Quiet otherwise (_QUIET_SLOT reads `truncated = 0` only), so the release is read on below too.
            out.append(Record("event", "llamacpp.server", line_number, {"truncated_prompts": 1.0},
                              labels=dict(_SERVER_LABELS)))
        if _TOO_LONG.search(line):
            # `request (68885 tokens) exceeds the available context size (65536 tokens)`: the slot's context (its KV
            # cache) cannot hold the request, and the server refuses it.
            out.append(Record("event", "llamacpp.server", line_number, {"too_long_rejections": 1.0},
                              labels=dict(_SERVER_LABELS)))
        elif "failed to allocate buffer for kv cache" in line:
            # The context's KV cache did not fit the device at load (`llama_init_from_model: failed to initialize the
            # context: failed to allocate buffer for kv cache`): the context asked is too large for the memory.
            out.append(Record("event", "llamacpp.server", line_number, {"kv_start_refusals": 1.0},
                              labels=dict(_SERVER_LABELS)))
        elif _KV_NO_ROOM.search(line):
            # The slot's batch found no free cells in the KV cache (2023-24 servers retry with half the batch down to
            # one, then fail the decode; later builds `failed to find a memory slot for batch`): the context is full.
            out.append(Record("event", "llamacpp.server", line_number, {"kv_no_room": 1.0},
                              labels=dict(_SERVER_LABELS)))
        yaml = _YAML_TIMING.match(line) if "eval" in line and line[:1] in "nt" else None
        if yaml is not None:  # the CLI's YAML log: a field a line, as a reply's
            key, factor = _YAML_KEYS[yaml.group(1)]
            if key in self.timings:
                record = _reply_timings(self.timings_line, self.timings, self.timings_variant)
                self.timings, self.timings_line = {}, None
                if record is not None:
                    out.append(record)
            self.timings[key] = float(yaml.group(2)) * factor
            if self.timings_line is None:
                self.timings_line, self.timings_variant = line_number, "yaml-log"
            return out
        if '"predicted_' in line or '"prompt_' in line:  # a reply's `timings` object, a field a line
            match = _REPLY_TIMING.search(line)
            if match is not None:
                key = f"{match.group(1)}_{match.group(2)}"
                if key in self.timings:  # the next reply's field: the one gathered so far is complete
                    record = _reply_timings(self.timings_line, self.timings, self.timings_variant)
                    self.timings, self.timings_line = {}, None
                    if record is not None:
                        out.append(record)
                self.timings[key] = float(match.group(3))
                if self.timings_line is None:
                    self.timings_line, self.timings_variant = line_number, "server-reply"
                return out
        if "main:" in line and ("time =" in line or "tokens in prompt" in line):
            match = _GGML_PREDICT.search(line)
            if match is not None:
                out.append(_ggml_main(line_number, match, self.ggml_prompt, self.ggml_load))
                self.ggml_prompt = self.ggml_load = None
                return out
            prompt = _GGML_PROMPT.search(line)
            if prompt is not None:
                self.ggml_prompt = int(prompt.group(1))
                return out
            load = _GGML_LOAD.match(line)
            if load is not None:
                self.ggml_load = float(load.group(1)) / 1000.0
                return out
            if line.lstrip().startswith("main:") and ("sample time" in line or "total time" in line):
                return out  # sampling, and the run's whole time (the load included)
        if self.table_kind == "flat":
            match = _FLAT_BENCH_ROW.match(line)
            middle = match.group("rest").split() if match else []
            if match is not None and len(middle) == len(self.table_columns) - 5:
                cells = [match.group("model"), match.group("size"), match.group("params"), *middle,
                         match.group("test"), match.group("rate")]
                out.append(bench_row(line_number, self.table_columns, cells))
                return out
            self.table_kind = ""
        if "model size params" in line and _FLAT_BENCH_HEADER.match(line):
            self.table_kind, self.table_columns = "flat", line.split()
            return out
        if not self.table_kind and ":" in line[:16] and (machine := _MACHINE_LINE.match(line)) is not None:
            self.machine = machine.group(1).strip()
        if self.table_kind:
            if line.lstrip().startswith("+") and GRID_RULE.match(line.strip()):
                return out  # a grid table's rule (mistralrs-bench prints its table so): the table goes on
            if line.lstrip().startswith("|") or (self.table_tabs and "\t" in line) \
                    or (self.table_bare and "|" in line):
                cells = _table_cells(line, self.table_tabs)
                if cells and all(set(cell) <= set("-: ") for cell in cells) and any("-" in cell for cell in cells):
                    return out  # |---|---| rule (a row whose first cell is empty, `|       | mpt 7B F16 |`, is none)
                if self.table_kind in ("matrix", "compare"):
                    rows = _matrix_rows if self.table_kind == "matrix" else _compare_rows
                    out.extend(rows(line_number, self.table_columns, cells))
                    return out
                row = (bench_row if self.table_kind == "bench" else _batched_row)(line_number, self.table_columns,
                                                                                   cells)
                if row is not None:
                    if self.machine is not None and type(row) is Record:
                        row.labels["machine"] = self.machine
                    out.append(row)
                return out
            self.table_kind = ""
        if "time" in line and " ms" in line and "=" in line:
            match = _timing(line)
            if match is None and "," in line and _DECIMAL_COMMA_FIGURE.search(line):
                line = _DECIMAL_COMMA.sub(r"\1.\2", line)
                match = _timing(line)
            if match is not None:
                self._timing_line(line_number, line, match, out)
                return out
        if "prompt processing," in line and "tokens per second" in line:
            record = _prompt_progress(line_number, line)
            if record is not None:
                out.append(record)
                return out
        if "tg =" in line and ("n_decoded" in line or "n_gen" in line):
            record = _progress(line_number, line)
            if record is not None:
                out.append(record)
                return out
        if "print_timing" in line and line.rstrip().endswith("|"):
            slot = _slot_task(line)
            if slot:  # the timing lines that follow come unprefixed (late 2024-2025 server)
                self.header_labels = {"variant": "server", "slot": slot.group(1), "task": slot.group(2)}
            return out
        request = self.request
        if request is not None:
            if "all slots are idle" in line:  # no slot holds a request: the one read is complete
                self._flush(out)
                return out
            if "graphs reused" in line:
                match = _GRAPHS.search(line)
                if match:
                    request.metrics["graphs_reused"] = float(match.group(1))
                return out
            if "draft acceptance" in line:
                match = _DRAFT.search(line)
                if match:
                    request.metrics["spec_acceptance_fraction"] = float(match.group(1))
                return out
            if "release" in line and "n_tokens" in line:
                slot = _slot_task(line)
                if slot is None or request.labels.get("task") in (None, slot.group(2)):
                    match = _RELEASE_TOKENS.search(line)
                    if match:
                        # Context held by the slot when it finished (cached + processed + generated).
                        request.metrics["context_tokens"] = float(match.group(1))
                    self._flush(out)
                return out
        tabs = "|" not in line and line.count("\t") >= 2  # a table pasted with its columns a tab apart
        if line.lstrip().startswith("|") or (line.lstrip()[:5].lower() == "model" and "|" in line) or tabs \
                or ("/s)" in line and _compare_header(line)):
            cells = _table_cells(line, tabs)
            lowered = ["model" if cell.lower() == "model_filename" else cell.lower() for cell in cells]
            self.table_tabs = tabs
            self.table_bare = not tabs and not line.lstrip().startswith("|")
            if "test" in lowered and "t/s" in lowered:
                self.table_kind, self.table_columns = "bench", lowered
            elif "s_tg t/s" in lowered or "s_pp t/s" in lowered:
                self.table_kind, self.table_columns = "batched", lowered
            elif _names_test(lowered) and sum(1 for cell in lowered if _compared_build(cell) is not None) >= 2:
                self.table_kind, self.table_columns = "compare", lowered
            elif (renamed := _bare_builds(lowered)) is not None:
                self.table_kind, self.table_columns = "compare", renamed
            elif lowered[0] == "model" and any(_MATRIX_TEST.match(cell) for cell in lowered):
                self.table_kind, self.table_columns = "matrix", lowered
            elif not tabs and _HEADLESS_BENCH.match(line.strip()):
                # llama-bench rows pasted without their header: the size, params and backend cells open them, the
                # test and the rate close them; the cells between (ngl, threads, …) are not named.
                columns = ["model", "size", "params", "backend", *[""] * (len(cells) - 6), "test", "t/s"]
                row = bench_row(line_number, columns, cells)
                if type(row) is Record:
                    row.labels["truncated"] = "rows without their header"
                out.append(row)
            elif not tabs and line.rstrip().endswith("|") and (columns := _headless_compare(cells)) is not None:
                for row in _compare_rows(line_number, columns, cells):
                    row.labels["truncated"] = "compare-llama-bench rows without their header"
                    if "device" in columns:
                        row.labels["gpu"] = cells[columns.index("device")]
                    out.append(row)
            elif not tabs and _HEADLESS_BENCHY.match(line.strip()):
                row = bench_row(line_number, ["model", "test", "t/s"], cells)
                if type(row) is Record:
                    row.labels.update(truncated="rows without their header", tool="llama-benchy")
                out.append(row)
            return out
        if "model type" in line or "general.name" in line:
            record = self._metadata_model(line_number, line)
            if record is not None:
                out.append(record)
            return out
        if ("ftype" in line or "file type" in line or " -m" in line or "--model" in line) \
                and (record := _loaded_model(line_number, line)) is not None:
            out.append(record)
            return out
        if "buffer size" in line and (device := _BUFFER_DEVICE.search(line)) is not None:
            self.buffer_devices.add(device.group(1))
            self.buffer_line = self.buffer_line or line_number
        # (`model size       = 2.64 GiB`: llm_load_print_meta pads its names)
        if ("offloaded" in line or "n_ctx" in line or "n_slots" in line or "size =" in line or "file size" in line
                or "model size " in line or "self size" in line
                or "Metal" in line
                or "n_kv_max" in line or "CUDA devices" in line or "Device " in line):
            record = _capacity(line_number, line)
            if record is not None:
                out.append(record)
                return out
        if ("t/s" in line or "tokens per second" in line or "ms per token" in line) and any(
                char.isdigit() for char in line):
            out.append(unread(line_number, line, "llamacpp"))
        return out

    def _metadata_model(self, line_number: int, line: str) -> Record | None:
        """The model the loader's metadata names (`print_info: general.name = Qwen2.5 7B Instruct`), with the size
        its `model type = 7B` line states when the name states none (`LLaMA v2`): the model a run loads where no
        command line names its file. A name that, with its type, states no size is no model to judge."""
        from inferledger.diagnose.named_model import from_name

        match = _METADATA.search(line)
        if match is None:
            return None
        key, value = match.groups()
        if key == "model type":
            self.model_type = value if from_name(value) is not None else None  # (`?B`: a size llama.cpp lacks)
            return None
        name = value if from_name(value) is not None or self.model_type is None else f"{value} {self.model_type}"
        if from_name(name) is None:
            return None
        return Record("capacity", "llamacpp.startup", line_number, {}, labels={"engine": "llama.cpp", "model": name})

    def _timing_line(self, line_number: int, line: str, match, out: list) -> None:
        """A timing line (_TIMING's match): its field into the open request, or into a new one."""
        name = match.group(1)
        request = self.request
        if request is not None and (name in request.fields or request.total_seen):
            self._flush(out)
            request = None
        if request is None:
            request = self.request = _Request(line_number)
            request.labels.update(self.header_labels)
            self.header_labels = {}
        rate = match.group(5)
        _add_timing(request, name, match.group(2), match.group(3), match.group(4),
                    rate if rate not in ("inf", "nan") else None)
        variant = _variant(line)
        if variant:
            request.labels.setdefault("variant", variant)
        slot = _slot_task(line)
        if slot:
            request.labels["slot"], request.labels["task"] = slot.group(1), slot.group(2)
        metrics = request.metrics
        if "t_prompt_processing" in line or "t_token_generation" in line:
            # The 2024 server's key=value or JSON tail states the phases in ms and the token counts.
            for key, value in _PHASES.findall(line):
                metric, scale = _PHASE_METRIC[key]
                metrics.setdefault(metric, float(value) * scale)
        if "timestamp=" in line:
            for key, value in _KEY_VALUE.findall(line):
                if key == "timestamp":
                    request.timestamp = float(value)  # Unix seconds in the mid-2024 server tail
                else:
                    request.labels[key.replace("id_", "")] = value

    def finish(self) -> list:
        out: list = []
        self._flush(out)
        if self.buffer_devices and all(device.startswith("CPU") for device in self.buffer_devices):
            out.append(Record("capacity", "llamacpp.startup", self.buffer_line, {},
                              labels={"engine": "llama.cpp", "backend": "cpu"}))
        if self.timings:
            record = _reply_timings(self.timings_line, self.timings, self.timings_variant)
            if record is not None:
                out.append(record)
        return out


def _add_timing(request: _Request, name: str, ms: str, count: str | None, per_token_ms: str | None,
                rate: str | None) -> None:
    """One timing field (`name` a _FIELD key, its numbers as printed, llama.cpp's ms) into the request."""
    seconds_metric, count_metric, rate_metric = _FIELD[name]
    request.fields.add(name)
    metrics = request.metrics
    metrics[seconds_metric] = float(ms) / 1000.0  # llama.cpp prints ms
    if count_metric and count:
        metrics[count_metric] = float(count)
    if rate_metric and rate:
        metrics[rate_metric] = float(rate)
    if name in ("eval", "generation eval") and per_token_ms:
        metrics["tpot_seconds"] = float(per_token_ms) / 1000.0  # decode ms per token
    if name == "total":
        request.total_seen = True


def parse(lines) -> Iterator:
    reader = _Reader()
    feed = reader.feed
    for line_number, line in lines:
        yield from feed(line_number, line)
    yield from reader.finish()


# A big llama-server log is read a block at a time (parse_log), its usual lines (2026 builds', with or without their
# elapsed prefix, and 2025 builds') by patterns over the block rather than a Python step each: a decode-progress line
# and a request's run of lines (prompt eval time to its slot's release or the idle notice) as feed() reads them, and
# runs of lines that feed() passes over while no request is open. Each pattern holds one line shape exactly (numbers
# where the line has numbers, nothing free that could hold a word feed() tests); any other line is fed.
_LINE_STAMP = _STAMP.replace("(", "").replace(")", "")  # the same, no groups
_NUMBER = r"\d+\.\d+"
_SLOT_PREFIX = _LINE_STAMP + r" I slot +print_timing: id +\d+ \| task \d+ \| +"
_PROGRESS_LINE = (_STAMP + r" I slot +print_timing: id +(\d+) \| task (\d+) \| n_(?:decoded|gen) = *(\d+), "
                  rf"tg = *({_NUMBER}) t/s(?:, tg_3s = *({_NUMBER}) t/s)?$")
# Lines of a request that carry nothing feed() reads in any state (a line that is no table's only ends a table): the
# request's arrival and its prompt's progress, the idle notice, the HTTP access line of a known endpoint, and the chat
# format, its name in plain words (none of those feed() tests: no `=`, `/`, `_`, `:` or `,`, no unread phrase).
_QUIET_SLOT = (r"launch_slot_: id +\d+ \| task \d+ \| processing task",
               r"update_slots: id +\d+ \| task \d+ \| (?:new prompt, n_ctx_slot = \d+, n_keep = \d+, "
               r"n_prompt_tokens = \d+|kv cache rm \[\d+, end\)|prompt done, n_past = \d+, n_tokens = \d+"
               r"|prompt processing progress, n_past = \d+, n_tokens = \d+, progress = \d+\.\d+)",
               # 2025: a slot chosen for the prompt, and its release before its timings (n_past, not n_tokens)
               r"get_availabl: id +\d+ \| task -?\d+ \| selected slot by (?:lcs similarity, lcs_len = \d+, "
               r"similarity = \d+\.\d+ \(> \d+\.\d+ thold\)|LRU, t_last = -?\d+)",
               r"release: id +\d+ \| task \d+ \| stop processing: n_past = \d+, truncated = 0")
_QUIET_SERVER = (r"update_slots: all slots are idle",
                 r"log_server_r: request: (?:GET|POST) (?:/v1/chat/completions|/v1/completions|/completions?|/health|"
                 r"/v1/models|/models|/metrics|/props|/slots) [\d.]+ \d+",
                 r"params_from_: Chat format: (?![^\n]*(?:tokens per second|ms per token))[A-Za-z0-9 .()-]*")
_QUIET_LINE = (r"(?:slot +(?:" + "|".join(_QUIET_SLOT) + ")|srv +(?:" + "|".join(_QUIET_SERVER) + r"))")
_QUIET_RUN = rf"(?:{_LINE_STAMP} I {_QUIET_LINE}\n)+"
# The same lines printed without the prefix (2025 builds, 2026 ones logging without it), and the access line of late
# 2024 builds (`request: POST /v1/chat/completions 127.0.0.1 200`).
_BARE_QUIET_RUN = (rf"(?:(?:{_QUIET_LINE}|request: (?:GET|POST) (?:/v1/chat/completions|/v1/completions|/completions?|"
                   r"/health|/v1/models|/models|/metrics|/props|/slots) [\d.]+ \d+)\n)+")
_PHASE = rf" time = *(?P<{{0}}_ms>{_NUMBER}) ms / *(?P<{{0}}_n>\d+) tokens \( *(?P<{{0}}_per>{_NUMBER}) ms per token, " \
         rf"*(?P<{{0}}_rate>{_NUMBER}) tokens per second\)\n"
_REQUEST_RUN = (
    _SLOT_PREFIX + "prompt eval" + _PHASE.format("prompt")
    + _SLOT_PREFIX + "eval" + _PHASE.format("eval")
    + _LINE_STAMP + r" I slot +print_timing: id +(?P<slot>\d+) \| task (?P<task>\d+) \| +total time = "
    rf"*(?P<total_ms>{_NUMBER}) ms / *\d+ tokens\n"
    + rf"(?:{_SLOT_PREFIX}graphs reused = *(?P<graphs>\d+)\n)?"
    + _LINE_STAMP + r" I slot +release: id +\d+ \| task (?P=task) \| stop processing: "
    r"n_tokens = (?P<context>\d+), truncated = 0$")


# A request's timings without the prefix: a header line naming the slot, then the three lines bare. 2026 builds
# release the slot right after them (its context in n_tokens); 2025 builds released it before them, and the server's
# idle notice, or the next request's timings after quiet lines (several slots), close the request.
_BARE_SLOT = r"slot print_timing: id +(?P<slot>\d+) \| task (?P<task>\d+) \| *\n"
_BARE_RUN = (
    _BARE_SLOT + "prompt eval" + _PHASE.format("prompt") + " *eval" + _PHASE.format("eval")
    + rf" *total time = *(?P<total_ms>{_NUMBER}) ms / *\d+ tokens\n"
    + r"(?:(?:slot print_timing: id +\d+ \| task \d+ \| +graphs reused = *(?P<graphs>\d+)\n)?"
    r"slot +release: id +\d+ \| task (?P=task) \| stop processing: n_tokens = (?P<context>\d+), truncated = 0\n"
    r"|srv +update_slots: all slots are idle\n"
    rf"|(?:{_BARE_QUIET_RUN})?(?=slot print_timing: id +\d+ \| task \d+ \| *\nprompt eval time = ))")


def _held(pattern: str) -> str:
    r"""`pattern` with its repeats of digits and of spaces possessive (`\d++`, ` ++`, ` *+`) where Python reads them
    (3.11 on). In the patterns here each is followed by what it cannot match (a digit's by no digit, a space's by no
    space), so none ever gives back what it took; possessive, the engine keeps no state to try it again: _CYCLE reads a
    2026 llama-server log ~20 % faster."""
    if sys.version_info < (3, 11):
        return pattern
    return pattern.replace(r"\d+", r"\d++").replace(" +", " ++").replace(" *", " *+")


# One match a step of _block_items where no request is read by _CYCLE: which of them matched is its lastgroup (each
# closes after its inner groups).
_USUAL = re.compile(_held(rf"(?P<quiet>{_QUIET_RUN}|{_BARE_QUIET_RUN})|(?P<progress>{_PROGRESS_LINE})"),
                    re.MULTILINE)
_PROGRESS_GROUPS = tuple(range(_USUAL.groupindex["progress"] + 1, _USUAL.groups + 1))  # _PROGRESS_LINE's
# One usual request a match, while the reader is idle: its quiet lines, the decode-progress line right before its
# timing lines, and the run of them, as _USUAL's steps read them one after another (a run of quiet lines is all of
# them, being none of the others), the run leaving the reader idle. A request's run matches here whenever it would in
# _USUAL: its quiet lines and its progress line may be absent.
_CYCLE = re.compile(_held(rf"(?:{_QUIET_RUN})?(?:{_PROGRESS_LINE}\n)?{_REQUEST_RUN}\n"), re.MULTILINE)
_CYCLE_RUN = {name: index - 1 for name, index in _CYCLE.groupindex.items()}  # a name's column in _stretch's fields
# The same without the prefix: no decode-progress line (those carry it), the run's quiet lines before it.
_BARE_CYCLE = re.compile(_held(rf"(?:{_BARE_QUIET_RUN})?{_BARE_RUN}"), re.MULTILINE)
_BARE_CYCLE_RUN = {name: index - 1 for name, index in _BARE_CYCLE.groupindex.items()}
# _PROGRESS_LINE's groups come first, up to the run's first: minutes, seconds, ms, µs (None when a request has no
# progress line), slot, task, decoded, rate, recent.
_CYCLE_PROGRESS = _CYCLE.groupindex["prompt_ms"] - 1
_SERVER_LABELS = {"engine": "llama.cpp", "input_tokens_definition": _INPUT_NOTE, "variant": "server"}


def _progress_of(line_number: int, match) -> Record:
    """_progress's window of a _PROGRESS_LINE matched in _USUAL."""
    minutes, seconds, millis, micros, slot, task, decoded, rate, recent = match.group(*_PROGRESS_GROUPS)
    return _progress_record(line_number, decoded, rate, recent, slot, task, (minutes, seconds, millis, micros))


def _cycles(text: str, position: int, patterns: tuple = (_CYCLE, _BARE_CYCLE)) -> list:
    """The first of `patterns` that matches at `position` (a line start): its matches one after another, as long as
    they follow on."""
    cycles = []
    for pattern in patterns:
        match = pattern.match
        found = match(text, position)
        while found is not None:
            cycles.append(found)
            found = match(text, found.end())
        if cycles:
            break
    return cycles


def _ms_to_seconds(column) -> list:
    return list(map(truediv, map(float, column), repeat(1000.0)))  # llama.cpp prints ms


def _stretch(cycles: list, text: str, position: int, number: int) -> Requests:
    """The items of _cycles' requests from `position`, line `number`: each decode-progress line's window and each
    request, as _progress_of and feed() make them (the fields and the labels in the same order, each number made as
    _add_timing makes it), as columns by maps (records.Requests: no Record, no Python step a request)."""
    runs = list(map(re.Match.start, cycles, repeat("prompt_ms")))  # on the run's first line
    lines = list(accumulate(map(text.count, repeat("\n"), [position, *runs[:-1]], runs), initial=number))[1:]
    fields = list(zip(*map(re.Match.groups, cycles), strict=True))
    if cycles[0].re is _BARE_CYCLE:  # no decode-progress line
        windows, names = _progress_windows([], [()] * 9), _BARE_CYCLE_RUN
    else:
        progress = list(map(is_not, fields[0], repeat(None)))
        windows = _progress_windows([line - 1 for line in compress(lines, progress)],  # the line before its request's
                                    [list(compress(column, progress)) for column in fields[:_CYCLE_PROGRESS]])
        names = _CYCLE_RUN

    def column(name: str) -> tuple:
        return fields[names[name]]

    metrics = {"prefill_seconds": _ms_to_seconds(column("prompt_ms")),
               "input_tokens": list(map(float, column("prompt_n"))),
               "prompt_tokens_per_second": list(map(float, column("prompt_rate"))),
               "decode_seconds": _ms_to_seconds(column("eval_ms")),
               "output_tokens": list(map(float, column("eval_n"))),
               "generation_tokens_per_second": list(map(float, column("eval_rate"))),
               "tpot_seconds": _ms_to_seconds(column("eval_per")), "e2e_seconds": _ms_to_seconds(column("total_ms"))}
    for name, metric in (("graphs", "graphs_reused"), ("context", "context_tokens")):  # a 2025 run has neither
        values = column(name)
        if values.count(None) != len(values):
            metrics[metric] = [None if value is None else float(value) for value in values]
    return Requests("llamacpp.server", lines, _SERVER_LABELS,
                    {"slot": list(column("slot")), "task": list(column("task"))}, metrics, windows)


def _block_items(reader: _Reader, text: str, number: int) -> Iterator:
    """parse()'s items of a block of whole lines (`text`, no line of it needing cleaning) whose first line is line
    `number`: the usual llama-server lines read by their patterns (a stretch of requests at a time, else one match a
    step), any other line fed."""
    position = 0  # a line start
    size = len(text)
    usual = _USUAL.match
    while position < size:
        cycles = _cycles(text, position) if reader.idle() else \
            _cycles(text, position, (_BARE_CYCLE,)) if reader.closed_by_timings() else None
        if cycles:
            yield from reader.close()
            end = cycles[-1].end()
            stretch = _stretch(cycles, text, position, number)
            yield stretch
            number = stretch.lines[-1] + text.count("\n", cycles[-1].start("prompt_ms"), end)
            position = end
            continue
        # While a request is open, every line is fed: the idle notice closes it, and the lines after its timings
        # (graphs reused, its slot's release) are its own.
        found = usual(text, position) if reader.request is None else None
        if found is None:  # a request's run while one is open (feed() reads its lines), or another line
            end = text.find("\n", position)
            yield from reader.feed(number, text[position:end])
            number += 1
            position = end + 1
            continue
        reader.table_kind = ""  # any line but a table's ends a table
        kind = found.lastgroup
        if kind == "progress":
            yield _progress_of(number, found)
        end = found.end() + (kind != "quiet")  # a quiet run ends after its newline, a progress line before its own
        number += text.count("\n", position, end)
        position = end


def new_reader() -> _Reader:
    """A reader's state at a file's start (read.py reads a big file's chunks on from one, in two processes)."""
    return _Reader()


def read_blocks(reader: _Reader, blocks) -> Iterator:
    """parse()'s items of read.LogFile.blocks(), read on from `reader`'s state (left at the last line's): a block
    that needs no cleaning by _block_items, the lines of any other fed."""
    feed = reader.feed
    for first, text, lines in blocks:
        if text is not None:
            yield from _block_items(reader, text, first)
        else:
            for number, line in enumerate(lines, first):
                yield from feed(number, line)


def parse_log(log, progress=None) -> Iterator:
    """parse(log.lines(progress)): the same items in the same order, a block of lines at a time."""
    reader = _Reader()
    yield from read_blocks(reader, log.blocks(progress))
    yield from reader.finish()


def split_after(line: str) -> bool:
    """Where a big log may be cut for two processes (read.py): after a slot's release or the server's idle notice,
    where the reader's state is fresh most of the time (read.py checks it is)."""
    return "all slots are idle" in line or ("release:" in line and "stop processing" in line)
