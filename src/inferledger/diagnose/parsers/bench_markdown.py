"""Benchmark results pasted as a table (markdown or box-drawing bars, or a CSV export), in either layout:
- one row per run, the columns named by the metric (`| ISL | OSL | Concurrency | TTFT (ms) | TPOT (ms) | E2EL (ms) |`,
  as report generators and README sweeps print them);
- one row per metric (`| Metric | osl-128 avg | osl-512 avg |`, or a box table `│ TTFT │ total │ 7437.1 ms │ …`
  under `Average │ Min │ Max │ Median │ P99`): the columns are runs, or the statistics of one run when they name
  different statistics.
Markdown pipes and box-drawing bars both separate cells. Each run with a latency becomes one summary Record; the
header (or the row label) says what each number is, so any tool's table reads the same way.

A time needs its unit, in the header or label (`(ms)`, `_ms`) or after the number (`91610.4 ms`): a bare "TTFT 4000"
could be either. A row cut by the excerpt loses its last cell (it may be cut mid-number).
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from functools import lru_cache
from itertools import chain, combinations, islice

from inferledger.diagnose.parsers import html_tables
from inferledger.diagnose.parsers.bench_common import (
    COMPARISON,
    GRID_RULE,
    TIME_UNITS,
    canonical_stat,
    littles_unit,
    to_number,
)
from inferledger.diagnose.records import Record

NAME = "markdown-table"

# A per-stream generation rate is a speed on its own (one request's tokens over its decode time), so a table of runs
# stating only it is read too (ollama's eval rate, a run a row).
_STREAM_RATE = "output_tokens_per_second_per_user_mean"
# A bare rate beside a batch column: the whole batch's generation (a row's own batch divides it into a stream's).
_BATCH_RATE = "batch_tokens_per_second"

# A run's or back end's name beside a llama-bench test (`CPU`, `PR-722`): no comparison of two (`ratio`, `Δ`), no
# one letter (ik_llama.cpp's sweep-bench, `T_PP s`, `S_TG t/s`: a time and a speed)
_RUN_WORD = r"(?!(?:ratio|speed-?up|gain|change|δ|delta|diff|vs)\b)[\w.+-]{2,}"

# (pattern on the lower-case header without its unit, metric, kind): kind "time" needs a unit and takes a stat
# suffix (mean when the header names none), "duration" needs a unit and takes none; "count"/"rate" are per-run
# numbers. Order matters: first match wins.
_COLUMNS = (
    # a run's prefill time (one request's prompt processing) is its TTFT
    # LMDeploy's tables head it FTL, first token latency
    # koboldcpp's benchmark (`ProcessingTime`, `ProcessingSpeed`, `GenerationSpeed`) names the prompt's phase
    # `processing`; an HTTP client's time to the first byte of a streamed reply is its first token's (awscurl, the
    # hosted-API benchmarks' `TTFB`), and so is a streamed reply's first chunk (a speech model's first audio packet)
    # (llmperf tables written by hand: `First Time To Token (ms)`, the words of TTFT out of order)
    (r"\bttft\b|time to first token|first time to token|\bftl\b|first token latency|^prefill$|^prompt (?:processing|eval)$|^1st token"
     r"|^processing time$|\bttfb\b|time to first byte|first (?:audio )?(?:chunk|packet) latency"
     r"|time to first (?:audio|chunk)",
     "ttft_seconds", "time"),
    (r"^1000 ?/ ?tpot$", _STREAM_RATE, "rate"),  # 1000 / TPOT in ms: a stream's tok/s
    # IPEX-LLM's all-in-one CSV names the tokens after the first "2+"
    # (onnxruntime-genai's benchmark_e2e: `Average Token Generation Latency (per token)`)
    (r"\btpot\b|time per (?:output )?token|^time ?/ ?token$|^2\+|^(?:next|2nd) token|token generation latency",
     "tpot_seconds", "time"),
    # TBT: time between tokens; a token after the first is an "incremental" one (Ascend's and Intel's reports);
    # Triton's model analyzer says `Token-to-Token latency`
    (r"\bitl\b|inter[- ]token|\btbt\b|time between tokens|incremental token|token[- ]to[- ]token",
     "itl_seconds", "time"),
    # a load tester's `Average Response Time` (locust, JMeter, stress scripts): a request's whole time
    # (the statistic before or after: `Mean latency`, `Latency p99`, `latency_p50_ms`)
    # (an average over iterations of a percentile, `Avg P95 Latency`, is that percentile's: _column)
    (r"\be2el?\b|e2e latency|end[- ]to[- ]end|request latency|^(?:(?:mean|average|avg|median|p\d+) ){0,2}latency$"
     r"|^latency (?:mean|average|avg|median|p\d+(?:\.\d+)?|max|min)$"
     r"|^(?:(?:average|avg|mean|median) )?wall|^(?:(?:mean|average|avg|median|min|max|p\d+) )?response time$"
     r"|^(?:total )?time$|^total latency$|^(?:(?:mean|average|avg|median) )?time per (?:request|query|call)$",
     "e2e_seconds", "time"),
    # a run's totals (vLLM's `Total input tokens` tabulated a metric a row) before the per-request lengths
    (r"^total (?:input|prompt) tokens$", "total_input_tokens", "count"),
    (r"^total (?:generated|output|completion) tokens$", "total_output_tokens", "count"),
    (r"^(?:(?:benchmark|total|test) )*duration$", "duration_seconds", "duration"),
    # (`Input tokens/sec` is a rate, below)
    (r"\bisl\b|input (?:seq(?:uence)? )?len|input tokens(?! ?/| per sec)|prompt len|^(?:actual )?prompt tokens$|^ctx$"
     r"|^context$|^(?:accumulated|context) (?:tokens|context|length)$|^(?:prompt|input) tokens per req|^depth$|^input$",
     "mean_input_tokens", "count"),
    # a sweep's context (an agent's turns, `Accumulated tokens`): the prompt each row prefills
    # (inference-benchmarker's `Decoded tokens per req (avg)`)
    (r"\bosl\b|output (?:seq(?:uence)? )?len|output tokens(?! ?/| per sec)|^(?:generated tokens|tokens generated)$"
     r"|^decoded tokens per req|^output$|^(?:max )?new tokens$|^(?:response|completion) tokens$",
     "mean_output_tokens", "count"),
    # a static batch runs all its requests at once; SGLang's cookbook tables head the concurrency `c`
    # (Lambda's model pages: `Parallel requests`)
    (r"concurrency|^conc\.?$|^c$|^batch(?: size)?$|^bs$|^(?:concurrent|parallel)(?: requests| users)?$",
     "max_concurrency", "count"),
    (r"^n req|num(?:ber of)? req|^(?:total )?requests$|^# ?req|^successful requests$", "completed_requests", "count"),
    (r"^(?:# ?|num )?preempt(?:s|ed|ions?)?$", "preemptions", "count"),  # requests the engine preempted in the run
    # the rate a sweep offered (`Target QPS`) before the rate it kept (`Actual QPS`)
    (r"^(?:target|offered|set|expected|configured) (?:qps|rps|req(?:uest)?s?/s|request rate)$"
     r"|^request rate(?: (?:target|offered|set|configured))?(?: \(?(?:rps|qps|req/s)\)?)?$",
     "request_rate_per_second", "rate"),
    (r"req(?:uest)?s? t(?:hrough)?put|req(?:uest)?s?/s(?:ec)?\b|\brps\b|\bqps\b|^requests per second$",
     "request_throughput_per_second", "rate"),
    # ollama's `eval rate` is one request's generation rate (obench.sh tabulates it a run a row), llama.cpp's `Eval
    # TPS` too (beside `Prompt Eval TPS`, the prompt's).
    # A runner's sweep (llama-bench's tg, ds4-bench's `gen steady t/s`) is one stream a row, as is its prefill rate.
    # (not a total's or a count's `per request`: `Total per request`, `Avg. OP tokens per request` count tokens)
    (r"tput user|^(?!.*\b(?:total|tokens?)\b(?!\s*/)).*\bper[ -](?:user|request)\b"
     r"|^per-?req tok(?:en)?s?/s$|^per[ -]stream(?: tok(?:en)?s?/s)?$"
     r"|/user|/s/u$|^decode tps$|^eval rate|^eval (?:tok(?:en)?s?|t)/s$"
     # a hosted API's reply timed by its client (llm-speed-benchmark's `Response Tok/s`): one request's stream
     r"|^response tok(?:en)?s?/s$"
     r"|^(?:gen(?:eration)?|decode|tg\d*)(?: steady)?(?: \d+ tokens,?)? (?:t|tok(?:en)?s?)/s$"
     # (a phase's rate or speed by name, its mean's word and its unit around it: `Average Generation Rate tokens/s`)
     r"|^(?:(?:avg|average|mean|median) )?(?:gen(?:eration)?|decod(?:e|ing)) (?:rate|speed)"
     r"(?: \(?(?:t|tok(?:en)?s?)/s(?:ec)?\)?)?$",
     _STREAM_RATE, "rate"),
    (r"total tok(?:en)?s? t(?:hrough)?put|\btotal tok/s$", "total_tokens_per_second", "rate"),
    # a batch's generation summed over its streams (`Agg tok/s` beside `Per-req tok/s`)
    (r"^agg(?:regate)? (?:output |gen(?:eration)? )?tok(?:en)?s?/s$", "output_tokens_per_second", "rate"),
    # llama-bench's test names alone (`pp16384`, `tg512`): its rates are t/s
    # (llama-bench of mid-2023 heads them `t/s pp 512`, `t/s tg 128`)
    # (PocketPal's on-device bench names them without a length, beside the back end or run: `CPU pp | GPU tg`,
    # `pp PR-722`; a bare `tg` may be the test's length beside its rate columns, and is not read)
    (rf"^(?:t/s )?pp ?\d+$|^{_RUN_WORD} pp$|^pp {_RUN_WORD}$", "input_tokens_per_second", "rate"),
    (rf"^(?:t/s )?tg ?\d+$|^{_RUN_WORD} tg$|^tg {_RUN_WORD}$", _STREAM_RATE, "rate"),
    # (`Prompt processing (3200 tokens, t/s)`: the phase, its length, the unit)
    (r"input (?:tok(?:en)?s? )?t(?:hrough)?put|(?:prompt|prefill) t(?:hrough)?put"
     r"|^(?:prefill|pp\d*|prompt|prompt processing)(?: \d+ tokens,?)? (?:tps|(?:t|tok(?:en)?s?)/s)$"
     r"|^input tok(?:en)?s?/s(?:ec)?$|^prompt eval (?:rate|(?:tok(?:en)?s?|t)/s)", "input_tokens_per_second", "rate"),
    (r"output (?:tok(?:en)?s? )?t(?:hrough)?put|(?:output|\bout) (?:tok(?:en)?s?|t)/s|tput decode|gen(?:eration)? t(?:hrough)?put",
     "output_tokens_per_second", "rate"),
)
_COLUMN_PATTERNS = tuple((re.compile(pattern), metric, kind) for pattern, metric, kind in _COLUMNS)
_BARS = re.compile(r"[|│┃]")
# A rule between rows; "\ufffd" is a box character a paste cut in half (decoded with replacement).
_BOX_RULE = re.compile(r"^[╒╞╘├└┌┝╪╤╧┼─═━┿╇┡┢┯┷┤╡┐┘╛╕┏┓┗┛┳┻┣┫╋┩┪\ufffd\s]+$")
# "(ms/token)": a per-token time; `Average latency in seconds`: the unit spelled out at the end
_UNIT = re.compile(r"\s*\((ms|s|sec|secs|seconds|us|µs)(?:/tok(?:en)?)?\)|[_ ](?:in )?(ms|s|sec|secs|seconds|us)$")
_TOOL_COLUMNS = ("source", "tool", "backend", "engine", "framework")
# A header's rule; a page's text extraction may keep one cell of it (`|---|` under five headers).
_SEPARATOR = re.compile(r"^\|?\s*:?-+:?\s*(\|\s*:?-+:?\s*)+\|?\s*$|^\|\s*:?-{3,}:?\s*\|\s*$")


class _CutRow(list):
    """The cells of a row the excerpt cut before its closing bar, less its last (perhaps cut) cell: the cells kept
    still fill the first columns."""


# A cell holding a figure before and after a change, perhaps with its unit and the change (`2.67s → 2.13s`,
# `993.65 → 994.31 tok/s (+0.07%)`, `0.03 -> 0.03 +1%`): a before/after table whose runs are the rows, read as the
# "after" (the change the poster reports; its own `before` column, where there is one, is the baseline's run).
_BEFORE_AFTER = re.compile(r"^[~≈*]*\d[\d,]*(?:\.\d+)?\s*(?:[a-zµ/]+\s*)?(?:->|→|⇒)\s*"
                           r"(?P<after>[~≈*]*\d[\d,]*(?:\.\d+)?(?:\s*[a-zµ/]+)?)[*\s]*"
                           r"(?:\(?\s*[+−-]?\d[\d.]*\s*%\s*\)?|\(?\s*[x×]?\d[\d.]*\s*[x×]\s*\)?)?[*\s]*$", re.IGNORECASE)


# A header naming the before and after runs of its cells (`pp base → PR-722 (Δ)` over `586.7 → 643.4 (+9.7 %)`):
# the cells read as their after figure, the header as the metric of the after run (`pp PR-722`).
_BEFORE_AFTER_NAMES = re.compile(r"\s+[\w.+-]+\s*(?:->|→|⇒)\s*(?P<after>[\w.+-]+)(?:\s*\((?:δ|delta|change|diff)\))?$")


def _after_figure(cell: str) -> str:
    match = _BEFORE_AFTER.match(cell)
    return cell if match is None else match["after"]


# A figure whose thousands are grouped by spaces, as SI style and much of Europe write them (`2 995.6970`, `51 868.07`
# in a trtllm-bench table): one figure, not a 2 before a note.
_SPACED_FIGURE = re.compile(r"^\d{1,3}(?: \d{3})+(?:\.\d+)?$")


def _cells(line: str, open_right: bool = False) -> list:
    """The cells of a table row; a row cut before its closing bar loses its last (perhaps cut) cell, unless the table
    is written with no closing bars (`open_right`: its header rule has none)."""
    stripped = line.strip()
    cells = [cell.strip() for cell in _BARS.split(stripped)]
    if "→" in stripped or "->" in stripped:  # a before → after cell (`8054 -> 8024 +0%`) reads as its after figure
        cells = [_after_figure(cell) for cell in cells]
    if "`" in stripped:  # a figure set as code (`68.93 Tokens/S`) reads as the figure
        cells = [cell.strip("` ") if cell[:1] == "`" and cell[-1:] == "`" else cell for cell in cells]
    if not stripped.isascii():
        cells = list(map(_cjk_cell, cells))
    if ":" in stripped:
        cells = [_unlabelled(cell) for cell in cells]
    if " " in stripped:
        cells = [cell.replace(" ", "") if _SPACED_FIGURE.match(cell) else cell for cell in cells]
    if cells and cells[0] == "":
        cells = cells[1:]
    if open_right:
        return cells  # each bar opens a cell: a last bar opens an empty one (`| Q4_K_M | 14.5 |` with no note)
    if cells and cells[-1] == "":
        cells = cells[:-1]
    elif cells and stripped[:1] in "|│┃":
        return _CutRow(cells[:-1])  # opened with a bar but not closed: the excerpt cut the row
    return cells


# A cell whose figure carries a word that names no metric before it (`Total: 18.80 t/s`, a results page's repeated
# prefix): its own unit says what it is, as a bare `18.80 t/s` would.
_LABELLED_FIGURE = re.compile(r"^([A-Za-z][A-Za-z ]{0,20}):\s*(\d.*)$")


def _unlabelled(cell: str) -> str:
    match = _LABELLED_FIGURE.match(cell)
    if match is None or _cell_kind(match.group(2)) not in ("rate", "time") \
            or _label(match.group(1), [match.group(2)]) is not None:
        return cell  # no figure of its own unit, or a metric's name (`TTFT: 120 ms`, read as the pair it is)
    return match.group(2)


def _is_rule(line: str) -> bool:
    return bool(_SEPARATOR.match(line) or (line and (_BOX_RULE.match(line) or GRID_RULE.match(line))))


# Header words of tables written in Chinese (the seed's readers paste them), Japanese and Korean, as the English the
# patterns know; longer words first where one holds another.
_CJK_WORDS = (("首字延迟", "ttft"), ("首token延迟", "ttft"), ("首字时延", "ttft"), ("首token时延", "ttft"),
            ("首词延迟", "ttft"), ("初始延迟", "ttft"), ("首包延迟", "ttft"),
            ("每token延迟", "tpot"), ("每token时延", "tpot"), ("单token延迟", "tpot"), ("token间延迟", "itl"),
            ("端到端延迟", "e2e latency"), ("总延迟", "e2e latency"), ("请求延迟", "e2e latency"),
            ("生成速度", "gen"), ("解码速度", "decode"), ("输出速度", "gen"), ("输出吞吐", "output throughput"),
            ("输入长度", "input len"), ("输出长度", "output len"), ("并发数", "concurrency"), ("并发", "concurrency"),
            ("吞吐量", "throughput"), ("吞吐", "throughput"), ("请求数", "requests"), ("推理时间", "e2e latency"),
            ("推理耗时", "e2e latency"),
            # a token written 令牌 (translated pages), a rate per 秒 (second)
            ("每秒生成的令牌数", "gen tok/s"), ("每秒生成令牌数", "gen tok/s"), ("令牌", "token"), ("首token", "ttft"),
            ("输出", "output"), ("输入", "input"), ("/秒", "/s"),
            # Japanese
            ("最初のトークン", "ttft"), ("初トークン", "ttft"), ("トークン速度", "gen"), ("出力トークン", "output tokens"),
            ("入力トークン", "input tokens"), ("スループット", "throughput"), ("レイテンシ", "latency"),
            ("同時実行数", "concurrency"), ("並列数", "concurrency"), ("応答時間", "e2e latency"),
            ("総処理時間", "total time"), ("処理時間", "total time"), ("推論時間", "e2e latency"),
            # Korean
            ("첫 토큰", "ttft"), ("생성 속도", "gen"), ("출력 길이", "output len"), ("입력 길이", "input len"),
            ("출력 토큰", "output tokens"), ("입력 토큰", "input tokens"), ("처리량", "throughput"),
            ("동시 요청", "concurrency"), ("동시성", "concurrency"), ("응답 시간", "e2e latency"),
            ("총 처리 시간", "total time"), ("처리 시간", "total time"), ("추론 시간", "e2e latency"),
            ("지연 시간", "latency"), ("토큰", "tokens"))
# Header words of tables written in Russian and the European languages most pasted (German, Spanish, Portuguese,
# French), as the English the patterns know; matched whole, any case, the longest first. `(с)` / `(мс)` are Cyrillic
# seconds and milliseconds.
_OTHER_WORDS = {
    # Russian
    "токены в секунду": "tok/s", "токенов в секунду": "tok/s", "токенов/сек": "tok/s", "токены/сек": "tok/s",
    "токенов/с": "tok/s", "ток/с": "tok/s", "количество параллельных запросов": "concurrency",
    "параллельных запросов": "concurrency", "параллельные запросы": "concurrency",
    "среднее время на запрос": "mean e2e latency", "общее время": "total time",
    "время до первого токена": "ttft", "первого токена": "ttft", "первый токен": "ttft", "задержка": "latency",
    "пропускная способность": "throughput", "сумма токенов": "total tokens", "всего токенов": "total tokens",
    "входных токенов": "input tokens", "выходных токенов": "output tokens", "(с)": "(s)", "(мс)": "(ms)",
    # German
    "token pro sekunde": "tok/s", "tokens pro sekunde": "tok/s", "zeit bis zum ersten token": "ttft",
    "erstes token": "ttft", "latenz": "latency", "durchsatz": "throughput", "antwortzeit": "e2e latency",
    "gleichzeitige anfragen": "concurrency", "gesamtzeit": "total time",
    # Spanish and Portuguese
    "tokens por segundo": "tok/s", "tiempo hasta el primer token": "ttft", "primer token": "ttft",
    "tempo até o primeiro token": "ttft", "primeiro token": "ttft", "latencia": "latency", "latência": "latency",
    "tiempo de respuesta": "e2e latency", "tempo de resposta": "e2e latency", "tiempo total": "total time",
    "tempo total": "total time", "solicitudes concurrentes": "concurrency", "concurrencia": "concurrency",
    "concorrência": "concurrency", "vazão": "throughput",
    # French
    "jetons par seconde": "tok/s", "tokens par seconde": "tok/s", "jetons/s": "tok/s", "premier jeton": "ttft",
    "premier token": "ttft", "latence": "latency", "débit": "throughput", "temps de réponse": "e2e latency",
    "temps total": "total time", "requêtes simultanées": "concurrency",
}
_OTHER = re.compile("|".join(re.escape(word) for word in sorted(_OTHER_WORDS, key=len, reverse=True)), re.IGNORECASE)
# A cell's figure as CJK pages write it: an "about" before it (약 6.7초, 約 20 秒, 约 5 秒) and the unit in the page's
# own script after it (초 / 秒 seconds, 밀리초 / ミリ秒 / 毫秒 milliseconds), as `~6.7 s`.
_CJK_CELL = re.compile(r"^(?:약|約|约|大约)?\s*(\d[\d,]*(?:\.\d+)?)(?:\s*[~〜～-]\s*(\d[\d,]*(?:\.\d+)?))?\s*"
                       r"(밀리초|ミリ秒|毫秒|초|秒)?\s*(?:내외|前後|左右)?$")
_CJK_UNITS = {"밀리초": "ms", "ミリ秒": "ms", "毫秒": "ms", "초": "s", "秒": "s"}


def _cjk_cell(cell: str) -> str:
    """The cell with a CJK time (and its "about") written as the patterns read it; any other cell as it is."""
    if cell.isascii():
        return cell
    match = _CJK_CELL.match(cell)
    if match is None:
        return cell
    low, high, unit = match.groups()
    figure = low if high is None else f"{(float(low.replace(',', '')) + float(high.replace(',', ''))) / 2:g}"
    return f"~{figure} {_CJK_UNITS[unit]}" if unit else f"~{figure}"  # a range (80~85초) as its middle
# `(cpu)`, `CPU型号` (a CPU's model), a phone's `4 Threads`: the run had no GPU
_CPU_WORD = re.compile(r"\bcpu\b|^cpu|\d\s*threads?\b", re.IGNORECASE)
# The CPU named beside a GPU run's other work, not as what ran the model: its load (`CPU %`, `CPU usage`), its
# memory, or a step moved to it (`CPU sampling`: the logits sampled on the host).
_CPU_ASIDE = re.compile(r"\bcpu[\s_-]*(?:usage|util|utili[sz]ation|load|%|time|sampl|overhead|mem|ram|temp)",
                        re.IGNORECASE)


_GPU_WORD = re.compile(r"\bgpu", re.IGNORECASE)


def _names_cpu_run(text: str) -> bool:
    """A header or cell naming the CPU as what ran the model (_CPU_WORD), not beside the run (_CPU_ASIDE)."""
    return bool(_CPU_WORD.search(text)) and not _CPU_ASIDE.search(text)


# An edge device named in a table's title (`NVIDIA Jetson Orin:`, a phone's SoC): its memory streams weights at a
# desktop CPU's pace (50-200 GB/s), so its runs are judged by the CPU's cutoff, not a datacenter GPU's.
_EDGE_WORD = re.compile(r"\b(?:Jetson|Orin|Raspberry\s*Pi|Snapdragon|Adreno|Dimensity|Exynos|Android|iPhone|iPad)\b",
                        re.IGNORECASE)
_SORT_MARKS = re.compile(r"[↓↑▲▼⬇⬆⇣⇡]")  # a web table's sort arrow beside a header
# a header that is a per-token time's unit alone, or after its phase (`decode ms/token`)
# (or a variant's, `4-bit ms/tok` beside `8-bit ms/tok`: not a prompt's, `prompt ms/tok` is its phase's per token)
_PER_TOKEN = re.compile(r"^(?:(?:decode|decoding|generation|gen|tg|output)\s+"
                        r"|(?!.*\b(?:prompt|prefill|pp\d*|input|processing|ttft|first)\b)[\w.+-]+(?:\s+[\w.+-]+)?\s+)?"
                        r"(ms|s)\s*(?:/|per)\s*tok(?:en)?$")
# A header's context before its metric (`30K prompt processing`: at 30K) or after it (`tg TPS @4k`, `pp t/s @ 8192`).
_CONTEXT_PREFIX = re.compile(r"^(\d+(?:\.\d+)?)\s*([kK])\s+(?=[^\W\d])")
_CONTEXT_SUFFIX = re.compile(r"\s*@\s*(\d+(?:\.\d+)?)\s*([kK]?)\s*$")
_CONTEXT_NAME = re.compile(r"^(\d+(?:\.\d+)?)([kK]?) context$")  # a variant named by its context (_context_name)


@lru_cache(maxsize=4096)
def _normal(header: str) -> str:
    """The header as the patterns read it: Chinese, Japanese, Korean, Russian and European words in English, bold and
    sort arrows off, `TPS` as tok/s, lower case. Cached: the table rules read a cell's header several times each, and
    each reading runs a dozen substitutions."""
    if not header.isascii():
        for cjk, english in _CJK_WORDS:
            header = header.replace(cjk, f" {english} ")
        header = header.replace("（", "(").replace("）", ")")  # full-width brackets round a unit: `TTFT（ms）`
        header = " ".join(header.split())  # (`令牌/秒` is ` token  /s `: one space, so that it reads `token/s`)
    header = _OTHER.sub(lambda match: f" {_OTHER_WORDS[match.group(0).lower()]} ", header)
    header = _SORT_MARKS.sub(" ", header).replace("**", " ")  # bold markup: `**TTFT P99**` is TTFT P99
    if "&" in header:  # an HTML space keeping a header on one line: `avg&nbsp;latency&nbsp;ms` is avg latency ms
        header = header.replace("&nbsp;", " ").replace("&#160;", " ")
    header = _CELL_BREAK.sub(" ", header)  # a header broken over lines: `PP t/s<br>(master)` is `PP t/s (master)`
    lowered = re.sub(r"(?<=[a-z])(?=[A-Z])", " ", header).lower().strip()  # a CSV's camelCase: `wallMs` is wall ms
    lowered = lowered.replace("_", " ")  # a script's snake_case: `per_request_output_tps`
    # a rate per second spelled out (`tok/sec`, `tokens per second`, a script's `tok_per_s`) as `tok/s`; not after a
    # figure (`5.31 tokens per second` is a row's cell taken for a header, no column's name)
    lowered = re.sub(r"(?<![\d.]\s)\b(tok(?:en)?s?|t) ?(?:/ ?|per )(?:sec(?:ond)?|s)\b", r"\1/s", lowered)
    # a setup's multiplier before the metric (`1× prefill tok/s` beside `4× prefill tok/s`: one link or four, a card
    # or eight): the metric, each such column a variant of the table's runs
    lowered = re.sub(r"^\d+\s*[x×]\s+(?=[a-z])", "", lowered)
    # a phase named with its llama-bench test in brackets (`Prompt processing (pp2048)`, `Token generation (tg256)`):
    # the test, whose rates are t/s
    lowered = re.sub(r"^(?:prompt processing|prompt eval(?:uation)?|prefill|token generation|text generation"
                     r"|generation|decode|decoding)\s*\(\s*((?:pp|tg)\s?\d+)\s*\)$", r"\1", lowered)
    # a phase's length in brackets with no word (`Prompt (2048) tok/sec`, mlx-lm's benchmark tables): its tokens
    lowered = re.sub(r"^(prompt|prefill|generation|gen|decode|decoding) \((\d+)\)", r"\1 (\2 tokens)", lowered)
    # the Qwen cards' profile (`Speed (2048 tokens)`, `Speed (8192 tokens)`): the rate of generating that many tokens
    lowered = re.sub(r"^speed ?\((\d+) tokens\)$", r"generation (\1 tokens) tok/s", lowered)
    # a snake_case unit's slash lost to the underscore (`output_tok_s`, `req_s`) or its brackets (`duration_s`)
    lowered = re.sub(r"\b(tok|tokens?|req|requests?) s\b", r"\1/s", lowered.strip("` "))
    lowered = re.sub(r"(?<=[a-z]) (s|ms)$", r" (\1)", lowered)
    return " ".join(re.sub(r"\btps\b", "tok/s", lowered).split())


def _context_match(header: str):
    """The match of the context a header names before its metric (`146k token generation`), after it (`tg TPS @1k`)
    or as a variant's name (`4K context`), or None."""
    header = header.strip()
    return _CONTEXT_PREFIX.match(header) or _CONTEXT_SUFFIX.search(header) or _CONTEXT_NAME.match(header)


def _tokens(figure: str, thousands: str | None) -> float:
    """A token count as written: its figure (commas allowed) times a thousand where a `k` follows it."""
    return float(figure.replace(",", "")) * (1000 if thousands else 1)


def _context_of(header: str) -> float | None:
    """The context a header names (_context_match), in tokens, or None."""
    match = _context_match(header)
    return None if match is None else _tokens(match.group(1), match.group(2))


def _without_context(header: str) -> str:
    """The header less the context it names (`tg tok/s @1k` is `tg tok/s`)."""
    return _CONTEXT_SUFFIX.sub("", _CONTEXT_PREFIX.sub("", header))


def _context_name(header: str) -> str:
    """The context as the header writes it, a variant's name (`4K context`)."""
    match = _context_match(header)
    return f"{match.group(1)}{match.group(2)} context"


_RATE_MEAN = re.compile(r"(?<=/s) (?:mean|avg|average)$")


# An average over iterations of a percentile (`Avg P95 TTFB`, `avg_median_ttft_ms`): that percentile's figure.
_AVERAGED_PERCENTILE = re.compile(r"\b(?:avg|average|mean)[\s_]+(p\d{2}(?:\.\d+)?|median)\b")


def _stat_of(words: str) -> str:
    """The statistic a header's words name (mean where none): an averaged percentile's percentile, else the first
    (a comma or brackets may part it from the unit: `ITL P90, ms`, `(ms/token) p50`)."""
    averaged = _AVERAGED_PERCENTILE.search(words)
    if averaged is not None:
        return canonical_stat(averaged.group(1))
    return next((canonical_stat(word) for word in re.split(r"[\s_,;()-]+", words) if canonical_stat(word)), "mean")


@lru_cache(maxsize=4096)
def _column(header: str):
    """(metric name with its stat, seconds per unit or None, kind) for one header cell, or None. Cached: a log's head
    offers the same first words (`INFO`, a logger's name) to the table sniff line after line."""
    lowered = _BEFORE_AFTER_NAMES.sub(r" \g<after>", _without_context(_normal(header)))
    per_token = _PER_TOKEN.match(lowered)
    if per_token:
        return "tpot_seconds_mean", TIME_UNITS[per_token.group(1)], "time"
    unit_match = _UNIT.search(lowered)
    unit = None
    if unit_match:
        unit = TIME_UNITS.get(unit_match.group(1) or unit_match.group(2))
        if "/tok" in unit_match.group() and re.search(r"latency|time|speed|decode|generat",
                                                      lowered[: unit_match.start()]) \
                and not re.search(r"prompt|prefill|first", lowered[: unit_match.start()]):
            # `Latency (ms/token)`, `Speed (ms/token)`: a generated token's time, whatever its name; a statistic
            # beside the unit stays (`Inter Token Latency (ms/token) p50`)
            stat = _stat_of(lowered[: unit_match.start()] + " " + lowered[unit_match.end():])
            return f"tpot_seconds_{stat}", unit, "time"
        # a statistic after the unit stays (`First Token Latency (ms) - P50`)
        lowered = (lowered[: unit_match.start()] + " " + lowered[unit_match.end():].strip(" -")).strip()
    lowered = " ".join(re.sub(r"[()]", " ", lowered).split())  # `prefill(tok/s)` reads as `prefill tok/s`
    if re.search(r"per (?:user|request) total", lowered):
        return None  # one request's prompt and output tokens over its time: neither its decode rate nor the run's
    if re.search(r"/ ?gpu\b|per gpu\b", lowered):
        return None  # a rate divided by the cards (`Out tok/s/GPU`): the run's own rate is its undivided column
    found = next(((metric, kind) for pattern, metric, kind in _COLUMN_PATTERNS if pattern.search(lowered)), None)
    if found is None and (unmeant := _RATE_MEAN.sub("", lowered)) != lowered:
        # a rate's mean named after it (`decode TPS mean`): the rate, whose figure is a mean anyway
        found = next(((metric, kind) for pattern, metric, kind in _COLUMN_PATTERNS
                      if kind == "rate" and pattern.search(unmeant)), None)
    if found is None:
        return None
    metric, kind = found
    if kind == "duration":  # a run's wall time: needs its unit, takes no statistic
        return None if unit is None else (metric, unit, "count")
    if kind != "time":
        # a rate's spread (llama-bench's `pp stddev` beside `pp512`): no run's rate
        return None if kind == "rate" and _stat_of(lowered) == "std" else (metric, 1.0, kind)
    if unit is None:
        return None
    return f"{metric}_{_stat_of(lowered)}", unit, kind


def _speed(column) -> bool:
    return column is not None and (column[2] == "time" or column[0] == _STREAM_RATE)


# A cell that carries its own time unit ("1.3s", "22 s", "870ms", "2 min", "5 m 12 s"): a column whose header names no
# unit takes its cells'. `3.89 / 4.02s` (two runs of one setup, the unit after the last) reads as its first figure, as
# a range does; bold markup around it (`**5.49 ms**`) is the poster's emphasis, a note in brackets after it
# (`~5 m 12 s (130,810 tok)`) the poster's aside.
_TIMED_CELL = re.compile(r"^[\s~≈*]*(?:(\d+)\s*m(?:in)?\s+(?=\d[\d.]*\s*s\b))?(\d[\d,]*(?:\.\d+)?)"
                         r"(?:\s*/\s*\d[\d,]*(?:\.\d+)?)*\s*(ms|s|sec|us|min)[\s*]*(?:\([^()]*\)[\s*]*)?$")
_MINUTE_S = 60.0
_MINUTES = re.compile(r"\d\s*m(?:in)?\b")


def _cell_seconds(cell: str) -> float | None:
    match = _TIMED_CELL.match(cell)
    if match is None:
        return None
    minutes, figure, unit = match.groups()
    seconds = float(figure.replace(",", "")) * (_MINUTE_S if unit == "min" else TIME_UNITS[unit])
    return seconds + (float(minutes) * _MINUTE_S if minutes else 0.0)


# A rate cell: `9.51 t/s` (`33.1 tok/sec`), and as people mark them up in a table, `~9.9–10.0 t/s` or `**8.75 t/s**`
# (a range reads as its first figure; its spread, `227.13 tok/s (±2.26)`, or a note of what it varies with may follow,
# `659-1094 t/s depending on context`).
_RATE_CELL = re.compile(r"^[\s*~≈]*\d[\d,]*(?:\.\d+)?(?:\s*[–-]\s*\d[\d,]*(?:\.\d+)?)?"
                        r"\s*(?:tok(?:en)?s?|t)\s*/\s*s(?:ec)?(?:\s*\(\s*[+−-]?\d[\d.,]*\s*[A-Za-z/%]+\s*\))?"
                        r"(?:\s*\(\s*±\s*\d[\d.,]*\s*\))?(?:\s+(?:depending|varying) on [a-z ]+)?[\s*]*$",
                        re.IGNORECASE)  # `4.88 Tokens/s` too, and a figure after it (`61 tok/s (923 GB/s)`)
_CHANGE_NOTE = re.compile(r"\s*\([^()]*%[^()]*\)[\s*]*$")  # a figure's change after it: `**98** (−28%)`
# a figure in bytes (a bandwidth's too) or watts: no token rate (a rate's bandwidth after it, `61 tok/s (923 GB/s)`,
# is the rate's note)
_QUANTITY_CELL = re.compile(r"^[\s*~≈]*\d[\d,]*(?:\.\d+)?\s*(?:[KMGT]i?B|bytes?|W)\b")
_RATE_OR_NUMBER = re.compile(r"^[\s*~≈]*\d|^\s*$")  # a rate column's cell that starts with its figure
# A cell that is a figure (or a range) and nothing else but its rate unit: `15`, `6–8`, `~1000`, `**34 tok/s**`.
_FIGURE_CELL = re.compile(r"^[\s*~≈]*\d[\d,]*(?:\.\d+)?(?:\s*[–-]\s*\d[\d,]*(?:\.\d+)?)?"
                          r"(?:\s*(?:tok(?:en)?s?|t)\s*/\s*s(?:ec)?)?[\s*]*$", re.IGNORECASE)

# A rate column whose header names only the phase ("prefill", "decode"): each row a run of one stream.
# (not a workload's shape, `2K input / 128 output`, whose rate may be either phase's)
_PHASE_RATES = ((re.compile(r"^(?:prefill|prompt|pp|input|processing|ingestion)\b(?!.*\b(?:output|out|gen|decode)\b)"),
                 "input_tokens_per_second"),
                # a `Speed` column of `4.88 Tokens/s` cells: a runner's generation speed, a run a row
                # or only the column's outcome (`Result`, `Performance`) over cells that are all rates
                (re.compile(r"^(?:token )?(?:decode|decoding|gen|generation|tg|output|speed|results?|performance)\b"),
                 _STREAM_RATE))


def _unit_from_cells(header: str, index: int, rows: list):
    """A column whose header names no unit, when every row's cell in it carries one: a time, (metric, None, "time"),
    the None saying each cell is read with its own unit; or a rate in tok/s under a phase's name; else None."""
    cells = _column_cells(index, rows)
    if not cells:
        return None
    rates = sum(bool(_RATE_CELL.match(cell)) for cell in cells)
    # Every cell a rate, or all but a note in a cell or two; or figures only, the first (or any) with its unit
    # (`**34 tok/s**` over `15` and `6–8`: a poster writes the unit once).
    if rates == len(cells) or rates >= max(2, 2 * len(cells) / 3) \
            or (rates and all(_FIGURE_CELL.match(cell) for cell in cells)):
        words = _without_context(_normal(header))
        return next(((metric, 1.0, "rate") for pattern, metric in _PHASE_RATES if pattern.match(words)), None)
    column = _column(f"{header} (s)")
    if column is None or column[2] != "time" or any(_cell_seconds(cell) is None for cell in cells):
        return None
    if column[0].startswith("e2e_") and any(_MINUTES.search(cell) for cell in cells):
        return "duration_seconds", None, "count"  # a `Time` of minutes: a batch's or a job's, not a request's
    return column[0], None, "time"


# A rate column named by its unit alone, or by a variant and its unit (`tok/s`, `TurboQuant t/s`, `Tokens per second`).
# (`mean ± stdev (tok/s)`: the statistic named before the unit)
_BARE_RATE = re.compile(r"^(?:[\w.:=+±~\- ]+ )?(?:tok(?:en)?s?|t) ?/ ?s(?:ec(?:ond)?)?$|^tok(?:en)?s? per sec(?:ond)?$")
# A variant's note after the unit (`Tokens/s (version 0.15.1)`, `tok/s (this PR)`): the column's run, not its unit.
_VARIANT_NOTE = re.compile(r"\s*\([^()]*\)\s*$")
# The same beside named metrics: the unit alone or after a mean's word (`Avg TPS`, `Mean tok/s`).
# (`Speed (token/s)` beside `Latency (s) | Tokens`: a request's tokens over its time, SGLang's bench tables)
_MEAN_RATE = re.compile(r"^(?:(?:avg|average|mean|median|p50)[ -])?(?:speed )?(?:tok(?:en)?s?|t) ?/ ?s(?:ec(?:ond)?)?$")
# A rate column's words naming the prompt's phase: its rate is no generation's.
# (`Prompt速率(t/s)`: the word may run into another script's, with no word boundary between)
_PROMPT_PHASE = re.compile(r"(?<![a-z])(?:first[ -]token|1st token|prompt|prefill|input|ttft)(?![a-z])")
# A static batch's column (not a client's concurrency, whose tok/s may be each request's).
_STATIC_BATCH = re.compile(r"batch(?: size)?|bs")
# Columns beside which a bare rate may not be one stream's generation: a batch, or a phase named (llama.cpp's benches; a
# hand-made one's `Task` column over `pp` and `tg`).
_NOT_ONE_STREAM = re.compile(r"concurren|batch|^bs$|^c$|request|\brps\b|\bqps\b|users?$|parallel|^test$"
                             r"|^task$|\b(?:pp|tg|n kv|prompt|prefill|input|total)\b")


def _column_cells(index: int, rows: list) -> list:
    """The column's filled cells, row by row."""
    return [cells[index] for _line, cells in rows if index < len(cells) and cells[index].strip()]


def _words_only(index: int, rows: list) -> bool:
    """Every row's cell in the column is words, no figure in any: a label of the row's case."""
    cells = _column_cells(index, rows)
    return bool(cells) and not any(re.search(r"\d", cell) for cell in cells)


def _phase_cells(index: int, rows: list) -> bool:
    """Every row's cell in the column names llama-bench's phase (`pp`, `tg`): each row's rate is that phase's."""
    cells = _column_cells(index, rows)
    return bool(cells) and all(cell.strip().lower() in ("pp", "tg") for cell in cells)


def _times_only(index: int, rows: list) -> bool:
    """Every row's cell in the column is a time with its unit (`14.60s`, `794ms`)."""
    cells = _column_cells(index, rows)
    return bool(cells) and all(_cell_seconds(cell) is not None for cell in cells)


_WHOLE_NUMBER = re.compile(r"^\s*[*~]*\d[\d,]*[*]*\s*$")


def _token_counts(header: str, index: int, rows: list) -> bool:
    """A column of each row's tokens (`Total Tokens` over `56`, `189`): a request's prompt and reply counted, no
    rate of the run's."""
    filled = _column_cells(index, rows)
    return _normal(header) == "total tokens" and bool(filled) and all(map(_WHOLE_NUMBER.match, filled))


def _rates_only(index: int, rows: list) -> bool:
    """Every filled cell of the column a rate with its unit (`~126.9 tok/s`): a variant's rates under its name."""
    filled = _column_cells(index, rows)
    return bool(filled) and all(_RATE_CELL.match(cell) for cell in filled)


_BENCH_TEST_CELL = re.compile(r"^\s*(?:pp|tg|pg)\s*\d+", re.IGNORECASE)


def _plain_test(header: str, index: int, rows: list) -> bool:
    """A `Test` column naming the rows' cases (`Short (100)`, `Code (500)`), not llama-bench's tests (`pp512`)."""
    cells = [row[index] for _, row in rows if index < len(row) and row[index].strip()]
    return _normal(header) == "test" and bool(cells) and not any(_BENCH_TEST_CELL.match(cell) for cell in cells)


def _bare_rates(cells: list, columns: list, rows: list = ()) -> list:
    """A table naming no metric but rates by their unit alone: a runner's comparison, a model or a build a row, each
    rate one stream's generation (llmfit's `Model | tok/s`, an A/B of two builds); beside a batch column alone, the
    batch's (fastllm's `Batch | 最大推理速度(token / s)`: per stream the rate ÷ the batch). With a concurrency or a
    request-rate column (the rate may be each request's or the run's), a `test` column (llama-bench's) or a phase
    named (batched-bench's `S_PP t/s`) the rates are not plainly generation: left to those readers. A column named by
    its variant only (`Before #26496`) whose cells all carry the unit (`~126.9 tok/s`) is such a rate too."""
    batch = [bool(_STATIC_BATCH.fullmatch(_normal(cell))) for cell in cells]
    # the context's length the rows vary (`Context | qwen3:8b tok/s`) names no measure of the run
    named = any(column is not None and not is_batch and column[0] != "mean_input_tokens"
                for column, is_batch in zip(columns, batch, strict=True))
    # beside metrics the table names (a TTFT), only a rate named by its unit and a mean is taken (llmfit's
    # `Avg TPS | Avg TTFT (ms)`); a variant's name (`Throughput tok/s`) may be the run's, not a stream's
    # (beside a batch column, a rate by its unit is the batch's, whatever else the table names)
    pattern = _MEAN_RATE if named and not any(batch) else _BARE_RATE
    # (a variant's name that is the prompt's phase, `First Token Throughput (t/s)` beside `Second Token Throughput
    # (t/s)`, OpenVINO's, names no generation rate)
    bare = [column is None and not _PROMPT_PHASE.search(_normal(cell))
            and (any(pattern.match(" ".join(re.sub(r"[()\[\]]", " ", text).split()))
                     for text in (_normal(cell), _VARIANT_NOTE.sub("", _normal(cell))))
                 or (not named and _rates_only(index, rows)))
            for index, (cell, column) in enumerate(zip(cells, columns, strict=True))]
    # (a time's column says nothing of the rates: `Total time` is a request's, no total rate)
    # (a column of words names each row's case, whatever its header: a `Prompt` column of `Exam Summary`, `Rail Chat`;
    # one of times with their units is a time's, `Total` over `14.60s`)
    # (a prompt's length beside a rate named `Speed` is the context the generation ran at, Qwen's and evalscope's
    # `Input Length | … | Speed(tokens/s)`: a `tok/s` beside it alone may be the prompt's reading, as a prefill
    # sweep's)
    speed = any(is_rate and re.search(r"\bspeed\b", _normal(cell)) for is_rate, cell in zip(bare, cells, strict=True))
    # (beside the output's length too, `prompt_length | new_tokens | tok_per_s`, the rate is the generation's)
    generated = any(column is not None and column[0] == "mean_output_tokens" for column in columns)
    if not any(bare) or any(_NOT_ONE_STREAM.search(_normal(cell)) and not _plain_test(cell, index, rows)
                            and (not _words_only(index, rows) or _phase_cells(index, rows))
                            and not _times_only(index, rows)
                            and not _token_counts(cell, index, rows)
                            and not _RATIO.search(cell)  # (`Scaling vs batch=1` over `1.73x`: no load of its own)
                            and not ((speed or generated) and column is not None and column[0] == "mean_input_tokens")
                            for index, (cell, is_batch, column) in enumerate(zip(cells, batch, columns, strict=True))
                            if not is_batch and not (column is not None and column[2] == "time")):
        return columns
    rate = (_BATCH_RATE, 1.0, "rate") if any(batch) else (_STREAM_RATE, 1.0, "rate")
    return [rate if is_rate else column for is_rate, column in zip(bare, columns, strict=True)]


# A table's bare latencies (`TTFT | TPOT | ITL` with no unit anywhere) are in one unit, which its per-token times
# settle: a time per output token of 2 or more is milliseconds (2 s a token is slower than any served model worth a
# benchmark table), one under 0.5 is seconds (0.5 ms a token is faster than any); between, nothing is read.
UNITLESS_MS_MIN = 2.0
UNITLESS_SECONDS_MAX = 0.5
# A bare figure: no unit of its own in the cell (`23.2ms mean` carries one and is read as written, or not at all).
_BARE_FIGURE = re.compile(r"^\s*[-+]?\d[\d,]*(?:\.\d+)?\s*$")


def _bare_figures(cells) -> list | None:
    """The figures of filled cells when every one is bare; None when any carries a unit or words."""
    filled = [cell for cell in cells if cell.strip() and cell.strip() not in ("-", "—", "N/A", "n/a")]
    return [to_number(cell) for cell in filled] if all(map(_BARE_FIGURE.match, filled)) else None


def _settled_units(cells: list, columns: list, rows: list) -> list:
    """The columns, with the bare latency columns given the unit their per-token times settle (UNITLESS_MS_MIN), or
    with none, the unit the rows' concurrency and completed requests a second agree on for a request latency
    (Little's law, bench_common.littles_unit), each marked so (the record says the unit was inferred); unchanged
    when neither settles it."""
    bare = {index: _column(f"{cell} (s)") for index, (cell, column) in enumerate(zip(cells, columns, strict=True))
            if column is None and _bare_figures(row[index] for _line, row in rows if index < len(row)) is not None}
    bare = {index: column for index, column in bare.items() if column is not None and column[2] == "time"}
    per_token = [number for index, column in bare.items() if column[0].startswith(("tpot_", "itl_"))
                 for number in _bare_figures(row[index] for _line, row in rows if index < len(row))]
    per_token = sorted(value for value in per_token if value is not None and value > 0)
    if per_token:
        middle = per_token[len(per_token) // 2]
        unit = 1e-3 if middle >= UNITLESS_MS_MIN else 1.0 if middle < UNITLESS_SECONDS_MAX else None
    else:
        unit = _unit_by_littles_law(columns, bare, rows) or _unit_by_floor(bare, rows)
    if unit is None:
        return columns
    return [(column[0], unit, "time", "inferred") if index in bare else columns[index]
            for index, column in ((index, bare.get(index)) for index in range(len(columns)))]


def _unit_by_littles_law(columns: list, bare: dict, rows: list) -> float | None:
    """The unit of a bare request-latency column that every row's concurrency ÷ completed requests a second agrees
    on, or None."""
    names = [column[0] if column else None for column in columns]
    latency = next((index for index, column in bare.items() if column[0].startswith("e2e_")), None)
    if latency is None or "max_concurrency" not in names or "request_throughput_per_second" not in names:
        return None
    held, rate = names.index("max_concurrency"), names.index("request_throughput_per_second")
    units = {littles_unit(to_number(row[rate]), to_number(row[held]), to_number(row[latency]))
             for _line, row in rows if len(row) > max(held, rate, latency)}
    return units.pop() if len(units) == 1 else None


def _unit_by_floor(bare: dict, rows: list) -> float | None:
    """Seconds (1.0) for bare first-token or request latencies of which one is under 1: no LLM answers in under a
    millisecond (one forward pass of the smallest takes longer), so those are seconds; else None."""
    values = [number for index, column in bare.items() if column[0].startswith(("ttft_", "e2e_"))
              for number in _bare_figures(row[index] for _line, row in rows if index < len(row)) or ()
              if number is not None]
    return 1.0 if values and 0 < min(values) < 1.0 else None


def _settled_row_unit(rows: list, at: int) -> float | None:
    """For a metric-a-row table: the unit (seconds per unit) its bare per-token rows settle for its bare latency
    rows, as _settled_units does for columns; None when none does."""
    values = []
    for _line, cells in rows:
        if len(cells) > at + 1 and _label(cells[at], cells[at + 1:]) is None:
            column = _column(f"{cells[at]} (s)")
            figures = _bare_figures(cells[at + 1:])
            if column is not None and column[2] == "time" and column[0].startswith(("tpot_", "itl_")) and figures:
                values += [number for number in figures if number is not None and number > 0]
    if not values:
        return None
    middle = sorted(values)[len(values) // 2]
    return 1e-3 if middle >= UNITLESS_MS_MIN else 1.0 if middle < UNITLESS_SECONDS_MAX else None


def _row_label(label: str, cells: list, unit: float | None):
    """_label, or a bare latency row's metric in the unit the table's per-token rows settled (the record says so)."""
    found = _label(label, cells)
    if found is not None or unit is None or _bare_figures(cells) is None:
        return found
    column = _column(f"{label} (s)")
    return None if column is None or column[2] != "time" else (column[0], unit, "time", "inferred")


# A run's throughput: on its own it supports no verdict, but it is a measurement of the run, not a setting.
_THROUGHPUTS = ("output_tokens_per_second", "request_throughput_per_second", "total_tokens_per_second",
                "input_tokens_per_second")


_PART_COLUMNS = {"kernel", "kernels", "kernel name", "op", "ops", "operator", "cuda kernel", "gpu kernel",
                 # a stage profiler's (`Step | llama ms/tok | gemma3 ms/tok` over `pre_norm`, `qkv_proj`, …)
                 "step", "stage", "component", "module", "layer"}


def _header(cells: list, rows: list = ()) -> list | None:
    """The columns of a header row naming at least one latency and one other metric, or a per-stream generation
    rate or time per token, else None. A profiler's table (a `kernel` or `op` column: its rows are a step's parts,
    each its share of a token's time) holds no run."""
    if any(_normal(cell).strip("` ") in _PART_COLUMNS for cell in cells):
        return None
    columns = _bare_rates(cells, [_column(cell) or _unit_from_cells(cell, index, rows)
                                  for index, cell in enumerate(cells)], rows)
    columns = _settled_units(cells, columns, rows)
    columns = _load_tester_times(cells, columns)
    columns = _run_total_time(cells, columns)
    columns = _without_goals(cells, columns)
    columns = _tokens_beside_ttft(cells, columns)
    named = [column for column in columns if column is not None]
    if columns and columns[0] is not None and columns[0][0] == "request_throughput_per_second" \
            and not any(column[2] == "rate" for column in named[1:]):
        # A bare `QPS` heading a sweep's first column, only latencies beside it (`QPS | TTFT-mean (ms)`): the rate
        # each row was run at, the sweep's setting, as a table's first columns are; no throughput was measured.
        columns = [("request_rate_per_second", 1.0, "rate"), *columns[1:]]
        named = [column for column in columns if column is not None]
    if any(column[0] in (_STREAM_RATE, _BATCH_RATE) or column[0].startswith("tpot_") for column in named):
        return columns  # one stream's speed (a generation rate, a time per token) is a run's account on its own
    if not any(column[2] == "time" for column in named) or len(named) < 2:
        # Throughput only (output tok/s, req/s) beside the settings of each run: read, so the diagnosis says it
        # cannot judge a rate alone (summary-throughput-only) instead of refusing the table.
        # Not a metric-a-row table (`Metric | RPS=1 | RPS=2`), whose column names are runs, not measures.
        pivoted = cells and (cells[0].strip().lower() in _METRIC_HEADER or any("=" in cell for cell in cells))
        # a request latency alone beside each run's label (`Model | Inference time (s)`): read, and judged as a
        # latency with no tokens (summary-throughput-only)
        alone = len(named) == 1 and named[0][0].startswith("e2e_") and len(cells) >= 2
        return columns if not pivoted and (alone or any(column[0] in _THROUGHPUTS for column in named)) else None
    return columns


# A load tester's stats table (locust's `Requests | Fails | Median (ms) | 95%ile (ms) | Average (ms)`, JMeter's
# aggregate report): it counts failures beside its times, and a statistic alone over a time is each request's.
_FAILURES_COLUMN = re.compile(r"^(?:#\s*)?(?:fails|failures|errors?|error ?%|error rate|# ?samples)$")
_STAT_ALONE = re.compile(r"^(mean|avg|average|median|min|max|p\d{2}(?:\.\d+)?|(\d{2}(?:\.\d+)?)\s*%\s*(?:ile|line))$")


def _load_tester_times(cells: list, columns: list) -> list:
    """The columns with each statistic alone over a time unit read as the request latency's, in a table that counts
    failures (a load tester's): locust's `95%ile (ms)` is the 95th percentile of its requests' response times."""
    if not any(_FAILURES_COLUMN.match(_normal(cell)) for cell in cells):
        return columns
    read = []
    for cell, column in zip(cells, columns, strict=True):
        words = _normal(cell)
        unit = _UNIT.search(words) if column is None else None
        alone = _STAT_ALONE.match(_UNIT.sub("", words).strip()) if unit else None
        stat = canonical_stat(f"p{alone.group(2)}" if alone.group(2) else alone.group(1)) if alone else None
        seconds = TIME_UNITS.get(unit.group(1) or unit.group(2)) if stat else None
        read.append((f"e2e_seconds_{stat}", seconds, "time") if seconds else column)
    return read


def _total_time(label: str) -> bool:
    """A `Total time` label: beside a request's own time it is the run's wall time (_run_total_time)."""
    return _normal(label).startswith("total time")


def _run_total_time(cells: list, columns: list) -> list:
    """The columns with a `Total time` beside a request's own time (`Mean time per request (s)`) read as the run's
    wall time: N requests' total is their batch's, not one request's latency."""
    times = [index for index, column in enumerate(columns) if column is not None and column[0].startswith("e2e_")]
    totals = [index for index in times if _total_time(cells[index])]
    if len(times) < 2 or len(totals) != 1:
        return columns
    at = totals[0]
    return [*columns[:at], ("duration_seconds", columns[at][1], "count"), *columns[at + 1:]]


# A goal's column beside the measured one (tt-metal's README: `t/s/u | Target<br>t/s/u`): the figure the run was to
# reach, not one it made. Only beside a column of the same name without the word: `Target QPS` alone is the rate a
# sweep offered, and `target TTFT` beside `ref TTFT` the variant under test against a reference (a plug-in's A/B).
_GOAL = re.compile(r"^(?:target|expected|goal|required|sla|slo)\b\s*")


def _without_goals(cells: list, columns: list) -> list:
    """The columns less those naming a goal for what another column measures."""
    names = {_normal(cell) for cell in cells}
    return [None if column is not None and _GOAL.match(_normal(cell)) and _GOAL.sub("", _normal(cell)) in names
            else column for cell, column in zip(cells, columns, strict=True)]


# A bare token count's column (`Tokens | With slowdown (TTFT) | Without slowdown (TTFT)`): beside first-token times
# and nothing else timed, the prompt each row's first token waited on; beside a generation it could be the output's.
_BARE_TOKENS = re.compile(r"^(?:#\s*|num |number of )?tok(?:en)?s(?: count)?$|^token count$")
_TIMED_WORDS = re.compile(r"through|/s\b|speed|rate|duration|time|latency|\be2e|\btpot|\bitl")


def _tokens_beside_ttft(cells: list, columns: list) -> list:
    """The columns with a bare token count read as the prompt's where every timed column is a first token's (and
    no other header names a time or a rate: `Tokens` beside `Throughput (tok/s)` and `Duration` are the output's)."""
    ttft = [column is not None and column[0].startswith("ttft_") for column in columns]
    if not any(ttft) or any(not first and ((column is not None and column[2] != "count")
                                           or _TIMED_WORDS.search(_normal(cell)))
                            for cell, column, first in zip(cells, columns, ttft, strict=True)):
        return columns
    return [("mean_input_tokens", 1.0, "count") if column is None and _BARE_TOKENS.match(_normal(cell)) else column
            for cell, column in zip(cells, columns, strict=True)]


# A row label naming the engine's own field beside its words (`decode throughput (`generation_tps`)`).
_FIELD_NAME = re.compile(r"\s*\(\s*`([^`]+)`\s*\)")
# MindIE's benchmark names its rows by field (`FirstTokenTime | 64.7768 ms | …`): DecodeTime is a generated token's
# time, GenerateTime a request's, each cell with its unit (ms, μs).
_ENGINE_FIELDS = {"FirstTokenTime": ("ttft_seconds_mean", "time"), "DecodeTime": ("tpot_seconds_mean", "time"),
                  "GenerateTime": ("e2e_seconds_mean", "time"), "QueueWaitTime": ("queue_seconds_mean", "time"),
                  "GeneratedTokenSpeed": (_STREAM_RATE, "rate"), "InputTokens": ("mean_input_tokens", "count"),
                  "GeneratedTokens": ("mean_output_tokens", "count")}


# The word right after a cell's figure: the unit of `**68.9 ms**` (bold) and of `~140 s ⚠️` (a mark after it)
_UNIT_AFTER_FIGURE = re.compile(r"\d\s*([^\W\d_]+)")


def _cells_unit(cells: list) -> float | None:
    """Seconds per unit of the time unit a metric row's first figure with a unit after it carries (`64.7 ms`): its
    cell's last word, or the word right after its figure where the poster's markup follows (bold, a warning sign)."""
    for cell in cells:
        if to_number(cell) is None or len(cell.split()) < 2:
            continue
        unit = TIME_UNITS.get(cell.split()[-1].lower())
        if unit is None and (after := _UNIT_AFTER_FIGURE.search(cell)) is not None:
            unit = TIME_UNITS.get(after.group(1).lower())
        return unit
    return None


def _label(label: str, cells: list):
    """(metric, seconds per unit or 1, kind) for a metric row's label; a time's unit may follow its numbers. A field
    name in backticks after the words speaks for the row when the words do not (`wall time (`generation_s`)` is its
    words', `prefill, 30 prompt tokens (`prompt_tps`)` its field's)."""
    engine = _ENGINE_FIELDS.get(label.strip())
    if engine is not None:
        metric, kind = engine
        if kind != "time":
            return metric, 1.0, kind
        unit = _cells_unit(cells)
        return None if unit is None else (metric, unit, kind)
    column = _column(label)
    if column is None and _VARIANT_NOTE.search(label):
        # an aside after a rate's name and unit (`Decode tok/s (avg, long traces)`): the rate. Not a count's or a
        # name's (`Total generated tokens (retokenized)` is another count than the total's, `C (tier)` no `c`)
        unnoted = _column(_VARIANT_NOTE.sub("", label))
        column = unnoted if unnoted is not None and unnoted[2] == "rate" else None
    field = _FIELD_NAME.search(label) if column is None else None
    if field is not None:
        label = _FIELD_NAME.sub("", label)
        column = _column(field.group(1)) or _column(label)
    filled = [cell for cell in cells if cell.strip()]
    rates = sum(bool(_RATE_CELL.match(cell)) for cell in filled)
    if (column is None or column[2] == "time") and rates and (rates == len(filled) or rates >= 2) \
            and not any(_cell_seconds(cell) is not None for cell in filled):
        # rates under a phase's name (`Prefill | 181.7 tok/s`, `Decode | 27.74 tok/s`, a `Δ` column's `−8.8 %`
        # beside them): that phase's rate, not its time
        words = _normal(label)
        phase = next((metric for pattern, metric in _PHASE_RATES if pattern.match(words)), None)
        return (phase, 1.0, "rate") if phase else None
    if column is not None:
        return column
    unit = _cells_unit(cells)
    if unit is None:
        return None
    column = _column(f"{label} ({'ms' if unit == 1e-3 else 's'})")
    return None if column is None or column[2] != "time" else (column[0], unit, column[2])


def _stat(header: str) -> str | None:
    if "slo" in header.lower():
        return None  # MindIE's `SLO_P90`: the percentile its service-level objective reads, beside the plain P90
    if "=" in header:
        return None  # a run named by its setting (`max_num_seqs=8`): its words are the setting's, no statistic
    return next((canonical_stat(word) for word in re.split(r"[\s_-]+", header.lower()) if canonical_stat(word)),
                None)


def _variants(header: list, columns: list) -> list:
    """[(variant name or None, the column indexes it reads)]: one variant, every column, unless the headers name two
    contexts or more (`30K prompt processing`, `146k token generation`: a variant each, its columns plus those naming
    none), or a metric is named by several columns (`TTFT (ms) Before | TTFT (ms) After`, engine A against B): then
    the n-th column of each repeated metric is the n-th variant's, and the columns named once are shared by all."""
    contexts = [_context_of(title) for title in header]
    if len(set(contexts) - {None}) >= 2:  # `30K prompt processing | … | 146k token generation`: a run per context
        groups: dict = {}
        for index, context in enumerate(contexts):
            if context is not None and columns[index] is not None:
                groups.setdefault(context, []).append(index)
        shared = [index for index, context in enumerate(contexts) if context is None]
        # named by its context (`4K`), not by its first column (`4K prefill` would name the run's decode too)
        return [(_context_name(header[own[0]]), sorted(shared + own))
                for own in groups.values()]
    places: dict = {}
    for index, column in enumerate(columns):
        # Only a measure repeated makes variants; a setting named twice (Triton's `Batch` and `Periodic
        # Concurrency`, both a load) is one run's, shared: the cell that is a figure gives it.
        if column is not None and column[2] != "count":
            places.setdefault(column[0], []).append(index)
    repeated = [indexes for indexes in places.values() if len(indexes) > 1]
    if not repeated:
        return [(None, list(range(len(columns))))]
    count = max(len(indexes) for indexes in repeated)
    shared = [index for index in range(len(columns)) if not any(index in indexes for indexes in repeated)]
    variants = []
    for which in range(count):
        own = [indexes[which] for indexes in repeated if which < len(indexes)]
        variants.append((_variant_name([header[index] for index in own]), sorted(shared + own)))
    return variants


def _variant_name(titles: list) -> str:
    """A variant by the words its columns' headers share (`ROCm` of `pp ROCm` and `tg ROCm`: its first column's name
    would call its generation rate a prompt's), or by its first column's header when they share none."""
    words = [word for word in titles[0].split() if not _unit_or_stat(word.lower())
             and all(word.lower() in title.lower().split() for title in titles[1:])]
    return " ".join(words) if len(titles) > 1 and words else titles[0]


_TOKEN_UNIT = re.compile(r"tok(?:en)?s?(?:/s)?|t/s|tps")


def _unit_or_stat(word: str) -> bool:
    """A header's word that names no variant: a unit in brackets (`(ms)`), a time's or a rate's (`s`, `tok/s`), or a
    statistic (`Mean`, `p50`)."""
    return (word[:1] == "(" and word[-1:] == ")") or word in TIME_UNITS or canonical_stat(word) is not None \
        or _TOKEN_UNIT.fullmatch(word) is not None


# A token count's cell in thousands (`4k`, `128K`, `~1.5k` under `Context`), as people write contexts.
_TOKEN_COUNTS = ("mean_input_tokens", "mean_output_tokens")
_THOUSANDS_CELL = re.compile(r"^[\s*~≈]*(\d+(?:\.\d+)?)\s*[kK](?![A-Za-z])")


def _token_count(cell: str) -> float | None:
    match = _THOUSANDS_CELL.match(cell)
    return float(match.group(1)) * 1000 if match else to_number(cell)


def _runs_by_row(header: list, columns: list, rows: list, name: str = "markdown table") -> list:
    """Records for the run-per-row layout: [(line, cells)] under a header naming metrics (`columns`, from _header);
    a row holding several variants of a run (a metric in more than one column) is a record each."""
    records = []
    variants = _variants(header, columns)
    # a CPU column (`CPU model`), or a thread count's: only a CPU run is tuned by its threads. A column naming the
    # GPU too (ollama's `CPU/GPU Split`) is where each row's layers sit: its cells say which rows ran on the CPU.
    on_cpu = any(_names_cpu_run(_normal(title)) and not _GPU_WORD.search(title)
                 or _normal(title) in ("threads", "n threads") for title in header)
    model_columns = [index for index, title in enumerate(header) if _normal(title) in _MODEL_TITLES]
    speed_table = any(_speed(column) for column in columns)
    for line_number, cells in rows:
        if len(cells) != len(columns) and not (isinstance(cells, _CutRow) and len(cells) < len(columns)):
            continue  # a merged row, or one with a cell too many: its cells cannot be matched to the header
        for variant, indexes in variants:
            metrics = {}
            plain_rate = False
            tool = name
            model = next((cells[index] for index in model_columns if index < len(cells) and cells[index]), None)
            for index in indexes:
                if index >= len(cells):
                    break  # a cut row fills the first columns
                title, column, cell = header[index], columns[index], cells[index]
                if (title.lower() in _TOOL_COLUMNS or (index == 0 and not title)) and cell:
                    tool = cell  # an engine's column, or the unnamed first one: the row's setup
                if column is not None and column[1] is None:  # a time with its unit in the cell
                    seconds = _cell_seconds(cell)
                    if seconds is not None:
                        metrics[column[0]] = seconds
                    continue
                if column is not None and column[2] == "rate" and ("%" in _CHANGE_NOTE.sub("", cell)
                                                                   or not _RATE_OR_NUMBER.match(cell)
                                                                   or _TIME_CELL.search(cell)
                                                                   or _QUANTITY_CELL.match(cell)):
                    # a `diff` row's `-39%`, a note, a time (`Avg per Request` over `0.68–2.46s`), a size or a power
                    # (`growth per request` over `0.140 GiB`): not a rate (`**98** (−28%)` is 98 and its change)
                    continue
                number = _token_count(cell) if column is not None and column[0] in _TOKEN_COUNTS \
                    else to_number(cell) if column is not None else None
                if number is not None:
                    metrics[column[0]] = number * column[1]
                    # a throughput read from a cell that is that figure alone (not the first of `1.07 / 0.98`)
                    # (or with its unit alone, `~34 t/s`, in a table of no stream's speed: beside one, a row
                    # without its speed is a cut row)
                    plain_rate = plain_rate or (column[0] in _THROUGHPUTS and bool(
                        _BARE_FIGURE.match(cell) or (_RATE_CELL.match(cell) and not speed_table)))
            batch_rate = metrics.pop(_BATCH_RATE, None)
            if batch_rate is not None and metrics.get("max_concurrency"):
                metrics["output_tokens_per_second"] = batch_rate
                metrics[_STREAM_RATE] = batch_rate / metrics["max_concurrency"]
            context = _context_of(variant) if variant else None
            if context and "mean_input_tokens" not in metrics:
                metrics["mean_input_tokens"] = context  # the context the variant's columns name: its prompt
            if _STREAM_RATE in metrics or any(_speed(column) and column[0] in metrics
                                               for column in columns if column is not None) or plain_rate:
                labels = {"tool": tool} if variant is None else {"tool": tool, "benchmark": f"column {variant!r}"}
                inferred = next((column for column in columns if column is not None and len(column) > 3), None)
                if inferred is not None:  # bare latencies, their unit settled by the per-token times (_settled_units)
                    labels["latency_unit_assumed"] = "ms" if inferred[1] == 1e-3 else "s"
                if model:
                    # this row's model (summary-models-one-bandwidth); as its own cell states it (the table's heading
                    # may name another: rules_summary._row_on_card judges only a row's own)
                    labels["section_model"] = labels["row_model"] = model.strip("*` ")
                # a CPU column, a cell: this run's own (a file's backend label would speak for every row)
                if on_cpu or any(map(_names_cpu_run, (tool, *cells))):
                    labels["device"] = "cpu"
                records.append(Record("summary", "bench.markdown", line_number, metrics, labels=labels))
                if metrics.get("preemptions"):  # the engine's own events, counted as its logs' preemption lines are
                    records.append(Record("event", "bench.markdown", line_number,
                                          {"preemptions": metrics["preemptions"]}, labels=labels))
    return records


# A cell ending in a time's unit right after its figure (`2.47s`, `0.68–2.46s`, `120 ms`), not a rate's (`12 t/s`).
_TIME_CELL = re.compile(r"\d\s*(?:ms|s|sec|secs|seconds)\W*$", re.IGNORECASE)
_METRIC_HEADER = ("metric", "metrics")
# A count's share of its whole after it (`16 (100%)` successful requests)
_SHARE_AFTER = re.compile(r"\s*\(\s*\d+(?:\.\d+)?\s*%\s*\)\s*$")


def _runs_grouped(header: list, rows: list, at: int) -> list:
    """Records for a metric-per-row table grouped by key columns (`| Model | Metric | engine A | engine B |`, the
    key's cell left blank under its first row): a run per key and value column."""
    runs: dict = {}
    key: list = []
    unit = _settled_row_unit(rows, at)
    inferred = False
    for line_number, cells in rows:
        if len(cells) <= at + 1:
            continue
        key = [cell or (key[index] if index < len(key) else "") for index, cell in enumerate(cells[:at])]
        found = _row_label(cells[at], cells[at + 1:], unit)
        if found is None:
            continue
        metric, factor = found[:2]
        inferred = inferred or len(found) > 3
        for index, cell in enumerate(cells[at + 1:], at + 1):
            number = to_number(cell)
            if number is not None and not (found[2] == "rate" and "%" in cell):
                run = runs.setdefault((" ".join(key), index), {"line": line_number, "metrics": {}})
                run["metrics"][metric] = number * factor
    unit_label = {"latency_unit_assumed": "ms" if unit == 1e-3 else "s"} if inferred else {}
    return [Record("summary", "bench.markdown", run["line"], run["metrics"],
                   labels={"tool": header[index] if index < len(header) else f"column {index}", "benchmark": name,
                           **unit_label})
            for (name, index), run in runs.items()
            if any(name.startswith(("ttft_", "tpot_", "itl_", "e2e_")) or name == _STREAM_RATE
                   for name in run["metrics"])]


def _unit_folded(cells: list, at: int) -> list:
    """A metric row of a table with a `Unit` column (`Average Token Generation Latency (per token) | 121.97 | ms`):
    its time unit joined to its label as a header carries one, the unit's cell no run's figure."""
    if at >= len(cells):
        return cells
    unit = cells[at].strip()
    label = f"{cells[0]} ({unit})" if unit.lower() in TIME_UNITS else cells[0]
    return [label, *cells[1:at], *cells[at + 1:]]


def _ratio_of_runs(owner: str, runs: set) -> bool:
    """A column of one run's figures over another's (`WS/HTTP p50`, both runs other columns name)."""
    parts = [part.strip() for part in owner.split("/")]
    return len(parts) == 2 and all(part in runs for part in parts)


# Where a metric row's label goes on to state its run's setting (`Mean generation speed for 10 parallel requests with
# a prompt of 1024 tokens and 128 tokens generated`: happy_vllm's report)
_LABEL_SETTING = re.compile(r"\s+(?:for|with|at)\s+(?=\D*\d)", re.IGNORECASE)


def _label_setting(label: str) -> tuple[str, dict]:
    """(the metric's name, {metric: value} of the setting the rest of a row's label states), or (label, {})."""
    match = _LABEL_SETTING.search(label)
    setting = _stated_setting(label[match.start():]) if match else {}
    return (label[:match.start()], setting) if setting else (label, {})


def _runs_by_column(header: list, rows: list, first_line: int) -> list:
    """Records for the metric-per-row layout: the value columns are runs, or one run's statistics when they name
    two or more different statistics (Average / Min / P99). A `Unit` column states each row's unit."""
    unit_at = next((index for index, name in enumerate(header) if index and _normal(name).strip() in ("unit", "units")),
                   None)
    if unit_at is not None:
        header = [*header[:unit_at], *header[unit_at + 1:]]
        rows = [(line, _unit_folded(cells, unit_at)) for line, cells in rows]
    stats = [_stat(name) for name in header[1:]]
    one_run = len({stat for stat in stats if stat}) >= 2
    # the runs the statistics belong to (`HTTP p50 | HTTP p95 | WS p50 | WS p95`: two runs, not one's stats twice)
    owners = [" ".join(word for word in re.split(r"[\s_-]+", name.strip()) if not canonical_stat(word))
              for name in header[1:]]
    named_runs = {owner for owner, stat in zip(owners, stats, strict=True) if stat and owner}
    by_owner = one_run and len(named_runs) >= 2
    compared = [bool(COMPARISON.search(name)) or _ratio_of_runs(owner, named_runs)  # `Δ (llm-d - k8s)`, `Change`,
                for name, owner in zip(header[1:], owners, strict=True)]         # `WS/HTTP p50`: no run
    runs: dict = {}
    unit = _settled_row_unit(rows, 0)
    inferred = False
    labelled: dict = {}  # (one run) metric -> the row label that gave it
    found_rows = []
    settings = {}  # a row's label -> the setting it states after its metric's name (read once that is cut off)
    for _, cells in rows:
        found = _row_label(cells[0], cells[1:], unit) if cells else None
        if found is None and cells and (split := _label_setting(cells[0]))[1]:
            found, settings[cells[0]] = _row_label(split[0], cells[1:], unit), split[1]
        found_rows.append((cells, found))
    # A `Total time` row beside a request's own latency (`Average latency`), or beside a count of requests above one
    # (`Total Requests | 5,000`), is the run's wall time (_run_total_time), not one request's
    latency_row = any(found and found[0].startswith("e2e_") and not _total_time(cells[0]) for cells, found in found_rows)
    many_requests = any(found and found[0] == "completed_requests" and len(cells) > 1 and (to_number(cells[1]) or 0) > 1
                        for cells, found in found_rows)
    request_time = latency_row or many_requests
    for cells, found in found_rows:
        if found is None:
            continue
        metric, factor, kind = found[:3]
        if request_time and metric.startswith("e2e_") and _total_time(cells[0]):
            metric, kind = "duration_seconds", "duration"
        if one_run and metric in labelled:
            if labelled[metric] == cells[0].strip():
                return []  # a metric a row per run (`TTFT | on | …`, `TTFT | off | …`): runs no column names apart
            continue  # two measures of one metric (a TTFB row above the TTFT row): the first stands
        labelled[metric] = cells[0].strip()
        inferred = inferred or len(found) > 3
        for index, cell in enumerate(cells[1:]):
            if index < len(compared) and compared[index]:
                continue
            # a `Change` column's `-51.2%`, a signed `+8.68` or `-34.79`: differences between runs, no run's figure
            signed = cell.strip()[:1] in "+-−" and cell.strip()[1:2].isdigit()
            cell = _SHARE_AFTER.sub("", cell) if kind == "count" else cell  # `16 (100%)`: 16 requests, all of them
            number = to_number(cell) if "%" not in cell and not signed else None
            stat = stats[index] if index < len(stats) else None
            if number is None or (one_run and stat is None):
                continue
            name = metric
            if kind == "time":  # the metric name carries a stat already (mean unless the label named one)
                name = metric.rsplit("_", 1)[0] + "_" + stat if stat else metric
            elif one_run and stat not in ("mean", None):
                continue  # a count's percentile column is not the run's count
            run = runs.setdefault((owners[index] if by_owner else 0) if one_run else index, {})
            run[name] = number * factor
            for setting, value in settings.get(cells[0], {}).items():
                run.setdefault(setting, value)
    # A run needs a latency, or a benchmark run's own account (requests done with its duration or token totals):
    # a table of other numbers is no run.
    unit_label = {"latency_unit_assumed": "ms" if unit == 1e-3 else "s"} if inferred else {}

    def tool(key) -> str:
        if one_run:
            return f"table column {key!r}" if by_owner else "table"
        return f"table column {header[key + 1].replace('**', '').strip()!r}" if key + 1 < len(header) \
            else f"table column {key + 1}"  # (a bold header is the poster's emphasis, not its name)

    # A corner cell naming the load (`Concurrent Users | 1 | 2 | 4`): each column's name is its run's level
    load = _column(header[0]) if header else None
    if not one_run and load is not None and load[0] in ("max_concurrency", "request_rate_per_second"):
        for key, metrics in runs.items():
            if key + 1 < len(header) and _BARE_FIGURE.match(header[key + 1]):
                metrics.setdefault(load[0], to_number(header[key + 1]))
    return [Record("summary", "bench.markdown", first_line, metrics, labels={"tool": tool(key), **unit_label})
            for key, metrics in (runs.items() if by_owner else sorted(runs.items()))
            if any(name.startswith(("ttft_", "tpot_", "itl_", "e2e_")) for name in metrics)
            or "output_tokens_per_second" in metrics or _STREAM_RATE in metrics
            or ("completed_requests" in metrics and metrics.keys() & {"duration_seconds", "total_input_tokens",
                                                                     "total_output_tokens"})]


# A cell holding its run's figures as `label: value` lines (an HTML table's `<br>`: `Total TPS: 9743.28<br>Mean
# TPOT(ms): 48.57`), a case a row and a setup a column.
_CELL_BREAK = re.compile(r"<br\s*/?>", re.IGNORECASE)
_CELL_PAIR = re.compile(r"^\s*([A-Za-z][^:]{0,40}?)\s*:\s*(\S.*)$")


def _runs_in_cells(header: list, rows: list) -> list:
    """Records for the figures-in-cells layout: each cell after a row's label whose `<br>`-separated `label: value`
    parts name a latency is one run (its column's setup, its row's case)."""
    records = []
    for line_number, cells in rows:
        for index, cell in enumerate(cells[1:], 1):
            metrics = {}
            for part in _CELL_BREAK.split(cell):
                pair = _CELL_PAIR.match(re.sub(r"<[^>]+>", "", part))
                found = _label(pair.group(1), [pair.group(2)]) if pair else None
                number = to_number(pair.group(2)) if found else None
                if number is not None:
                    metrics[found[0]] = number * found[1]
            if any(name.startswith(("ttft_", "tpot_", "itl_", "e2e_")) for name in metrics):
                setup = header[index] if index < len(header) else f"column {index}"
                records.append(Record("summary", "bench.markdown", line_number, metrics,
                                      labels={"tool": setup, "benchmark": cells[0].strip("* ")}))
    return records


# What a header says its cells hold, by its words (rates before times: `tokens/s`, `time per token`), and what a cell
# holds by its own unit: a time (`7.86ms`, `2.3 s`), a rate (`104.06 tokens/s`), a count of tokens (`18 token(s)`,
# ollama --verbose's spelling).
_HEADER_KINDS = (("rate", re.compile(r"/ ?s\b|\brate\b|\bspeed\b|t(?:hrough)?put|\btps\b", re.IGNORECASE)),
                 ("time", re.compile(r"duration|latency|\btime\b|\bttft\b|\btpot\b|\bitl\b|\((?:ms|s)\)",
                                     re.IGNORECASE)),
                 ("count", re.compile(r"\bcount\b|\btokens$", re.IGNORECASE)))  # not `token generation`: a phase
_COUNT_CELL = re.compile(r"^\s*\d[\d,]*\s*tok(?:en)?s?(?:\(s\))?\s*$", re.IGNORECASE)
_FIGURE = re.compile(r"^[\s*~≈+\-−]*\d")  # a cell that is a figure (`E2EL p50` holds digits and is a name)
MISALIGNED_MIN_CELLS = 2  # a row with this many cells whose unit is not their column's has slipped, not one typo


def _names_only(cells: list) -> bool:
    """Whether a row could be a header: no cell is a figure or holds a `label: value` pair."""
    return not any(_FIGURE.match(cell) or ":" in cell or "<br" in cell for cell in cells)


def _cell_kind(cell: str) -> str | None:
    if _TIMED_CELL.match(cell):
        return "time"
    if _RATE_CELL.match(cell):
        return "rate"
    return "count" if _COUNT_CELL.match(cell) else None


def _aligned(header: list, rows: list) -> tuple[list, list]:
    """(rows, line numbers of misaligned rows): a row holding MISALIGNED_MIN_CELLS or more cells whose own unit
    contradicts their column's header (token counts under `load duration`, milliseconds under `eval rate`: a script
    that lost a field and shifted the rest) is set aside, its figures under the wrong names."""
    kinds = [next((kind for kind, words in _HEADER_KINDS if words.search(title)), None) for title in header]
    if not any(kinds):
        return rows, []
    kept, slipped = [], []
    for line_number, cells in rows:
        wrong = sum(1 for kind, cell in zip(kinds, cells, strict=False) if kind and _cell_kind(cell) not in (None, kind))
        (slipped if wrong >= MISALIGNED_MIN_CELLS else kept).append((line_number, cells))
    return (kept if slipped else rows), [line_number for line_number, _cells in slipped]


# A header cell's unit alone, as a table's second header row gives it (`| | 令牌/秒 | 令牌/秒 |` under `| 引擎 | pp | tg |`)
_UNIT_ALONE = re.compile(r"^\(?(?:tok(?:en)?s?/s|t/s|tok/s|ms|s|sec|seconds|req/s|ms/tok(?:en)?)\)?$")


def _unit_row(header: list, rows: list) -> tuple[list, list]:
    """(header, rows) with a first row of units alone (no figure, every filled cell a unit) folded into the header
    cells above it (`tg` over `令牌/秒` is `tg 令牌/秒`, tg's tokens per second)."""
    if not rows or len(rows[0][1]) != len(header):
        return header, rows
    units = rows[0][1]
    if not any(cell.strip() for cell in units) \
            or not all(_UNIT_ALONE.match(_normal(cell)) for cell in units if cell.strip()):
        return header, rows
    return [f"{name} {unit}".strip() for name, unit in zip(header, units, strict=True)], rows[1:]


def _headed(table: list) -> list:
    """[(header line, header cells, rows)] of a table: a row as wide as the header, no figure in it and a metric's word
    in a cell (`| c | E2EL p50 Pega | … | TPOT p99 Pega |`) is a second table's header pasted without its rule: it
    heads the rows after it. A first row of units alone is the header's (_unit_row)."""
    (first_line, header), rows = table[0], table[1:]
    header, rows = _unit_row(header, rows)
    pieces = [(first_line, header, [])]
    for line_number, cells in rows:
        if len(cells) == len(header) and pieces[-1][2] and _names_only(cells) \
                and any(words.search(cell) for cell in cells for _kind, words in _HEADER_KINDS):
            pieces.append((line_number, cells, []))
        else:
            pieces[-1][2].append((line_number, cells))
    return pieces


# Two runs in one cell (`1.07 / 0.98` under `Req/s branch / main`): a header cell ending `A / B`, its rows' cells two
# figures with " / " between them.
_PAIRED_HEADER = re.compile(r"^(?P<metric>.*\S)\s+(?P<open>\()?(?P<first>[A-Za-z][\w.+-]*)\s+/\s+"
                            r"(?P<second>[A-Za-z][\w.+-]*)(?(open)\))\s*$")
_PAIRED_CELL = re.compile(r"^[\s*]*(?P<first>[-+]?\d[\d,.]*\s*[^\s*]*?)\s+/\s+(?P<second>[-+]?\d[\d,.]*\s*[^\s*]*?)"
                          r"[\s*]*$")  # bold as a whole (`**2057 / 1866**`) or not


def _unpaired(header: list, rows: list) -> tuple[list, list]:
    """(header, rows) with each column that pairs two runs (`TTFT p50 ms branch / main`, `1.07 / 0.98`) split into a
    column a run (`TTFT p50 ms branch`, `TTFT p50 ms main`), when every such header names the same two runs and every
    filled cell under them holds two figures: the repeated metric columns _variants reads as a run each. A header
    as a whole (`Req/s`) is no pair: the two names must follow the metric's words."""
    pairs = {index: match for index, match in enumerate(map(_PAIRED_HEADER.match, header)) if match}
    if not pairs or len({(match.group("first"), match.group("second")) for match in pairs.values()}) != 1:
        return header, rows
    split_rows = []
    for line_number, cells in rows:
        split = []
        for index, cell in enumerate(cells):
            if index not in pairs:
                split.append(cell)
                continue
            match = _PAIRED_CELL.match(cell)
            if match is None and cell.strip():
                return header, rows  # a cell that holds one figure: the column is no pair after all
            split += [match.group("first"), match.group("second")] if match else ["", ""]
        split_rows.append((line_number, split))
    split_header = []
    for index, title in enumerate(header):
        match = pairs.get(index)
        # the run's name first, so that the metric's unit (`ms`) still ends the header
        split_header += [f"{match.group(run)} {match.group('metric')}" for run in ("first", "second")] if match \
            else [title]
    return split_header, split_rows


# The setting of a sweep point every measure's column repeats before its name, then ` - ` (FlagOS's release
# reports: `4k-1k 64并发 - mean TTFT（ms）`, the prompt and output lengths, the concurrency, the metric): the runs'
# setting, not a column of its own (its concurrency word would name the column).
_SETTING_PREFIX = re.compile(r"^(?P<setting>[^–]*?\d[^–]*?)\s+[-–]\s+(?=\S)")  # (`Multi-turn Chat 512 / 256 - `)
_SETTING_CONCURRENCY = re.compile(r"(\d+)\s*(?:并发|concurren(?:cy|t)|users\b|conc\b)", re.IGNORECASE)
_SETTING_SHAPE = re.compile(r"(?<![\w.])(\d+(?:\.\d+)?)([kK]?)\s*[-/]\s*(\d+(?:\.\d+)?)([kK]?)(?![\w.])"
                            # or in words: `prefill: 1024 tokens decode: 128 tokens`
                            r"|\b(?:prefill|prompt|input)\W+(\d+)([kK]?) tokens\W+(?:decode|output|generation)\W+(\d+)([kK]?)"
                            r" tokens\b", re.IGNORECASE)


def _by_setting(header: list, rows: list) -> list:
    """[(header, rows, measures a setting needs)]: the table whole, or, where its columns' names state several settings
    before ` - ` (a model card's `Instruction Following 256 / 128 - Latency (s)` beside `RAG 1024 / 128 - Latency (s)`),
    a table a setting, each with the columns that state none (the rows' labels); one measure then makes a setting."""
    settings = [match.group("setting") if (match := _SETTING_PREFIX.match(cell)) else None for cell in header]
    distinct = list(dict.fromkeys(setting for setting in settings if setting))
    if len(distinct) < 2:
        return [(header, rows, 2)]
    split = []
    for setting in distinct:
        keep = [index for index, named in enumerate(settings) if named in (None, setting)]
        split.append(([header[index] for index in keep],
                      [(line, [cells[index] if index < len(cells) else "" for index in keep]) for line, cells in rows],
                      1))
    return split


def _setting_of(header: list, least: int = 2) -> tuple[list, dict]:
    """(header, the runs' stated setting as metrics): columns whose names share one setting before ` - ` (at least
    `least`, each naming a measure once it is taken off) lose it, and its concurrency and in/out lengths become the
    runs'."""
    settings = [_SETTING_PREFIX.match(cell) for cell in header]
    shared = {match.group("setting") for match in settings if match}
    if len(shared) != 1:
        return header, {}
    (setting,) = shared
    named = [cell[match.end():] for cell, match in zip(header, settings, strict=True) if match]
    if len(named) < least or sum(_column(name) is not None for name in named) < least:
        return header, {}
    metrics = {}
    if (concurrency := _SETTING_CONCURRENCY.search(setting)) is not None:
        metrics["max_concurrency"] = float(concurrency.group(1))
    if (shape := _SETTING_SHAPE.search(setting)) is not None:
        groups = shape.groups()
        prompt, prompt_k, output, output_k = groups[:4] if groups[0] is not None else groups[4:]
        metrics["mean_input_tokens"] = _tokens(prompt, prompt_k)
        metrics["mean_output_tokens"] = _tokens(output, output_k)
    return [cell[match.end():] if match else cell for cell, match in zip(header, settings, strict=True)], metrics


_COLD_ROW = re.compile(r"\bcold\b", re.IGNORECASE)
_WARM_ROW = re.compile(r"\bwarm(?:ed)?\b", re.IGNORECASE)


# A row's model column: its title in English or in the languages the tables of this field are also written in
# (Spanish and Portuguese, French, German, Chinese, Japanese).
_MODEL_TITLES = ("model", "model name", "models", "modelo", "modèle", "modell", "模型", "モデル")


def _records(table: list) -> list:
    """Records of one table: [(line_number, cells)], header first, less its misaligned rows (an event counts them).
    A CPU or an edge device the table's title names is the device of its runs that name none of their own."""
    records = []
    for first_line, whole, all_rows in _headed(table):
        whole, all_rows = _unpaired(whole, all_rows)
        for header, rows, least in _by_setting(whole, all_rows):
            header, setting = _setting_of(header, least)
            records += _setting_records(first_line, header, rows, table, setting)
    title = getattr(table, "title", "")
    device = "cpu" if _CPU_WORD.search(title) else "edge" if _EDGE_WORD.search(title) else None
    for record in records if device else ():
        if record.kind == "summary":
            record.labels.setdefault("device", device)
    if title[:2] != "# " and _ONE_BATCH_TITLE.search(title):
        # SGLang's bench_one_batch(_server) under its heading: each row one batch prefilled together, whose first
        # tokens wait for the whole batch's prompts, in no queue
        for record in records:
            if record.kind == "summary":
                record.labels.setdefault("static_batch", "1")
    return records


_ONE_BATCH_TITLE = re.compile(r"bench_one_batch|\bstatic batch|\bone batch at a time\b", re.IGNORECASE)


def _setting_records(first_line: int, header: list, rows: list, table: list, setting: dict) -> list:
    """Records of one table (or one setting's columns of it) under its header, the setting its columns' names state
    given to each run, less a row called cold beside warm ones and a row of the runs' differences (`**Δ**`)."""
    rows, slipped = _aligned(header, [(line, cells) for line, cells in rows
                                      if not (cells and COMPARISON.match(cells[0]))])
    found = _table_records(first_line, header, rows, table) if rows else []
    cold = {line for line, cells in rows if cells and _COLD_ROW.search(cells[0])}
    if cold and any(cells and _WARM_ROW.search(cells[0]) for _line, cells in rows):
        # A row its label calls cold (`GPU alone, cold pipelines`) beside warm ones paid a first run's compiling
        # and loading: left out as a warm-up is where a measured run follows it (bench_one_batch's).
        found = [record for record in found if record.kind != "summary" or record.line_number not in cold]
    for record in found:
        for metric, value in setting.items() if record.kind == "summary" else ():
            record.metrics.setdefault(metric, value)  # the setting every column's name repeats
    if slipped:
        found.append(Record("event", "bench.markdown", slipped[0], {"misaligned_table_rows": float(len(slipped))},
                            labels={"tool": "csv table" if isinstance(table, _CsvTable) else "markdown table"}))
    return found


def _table_records(first_line: int, header: list, rows: list, table: list) -> list:
    """Records of one table's rows under its header. A table ranked by its first column (`Rank`) is a search tool's
    candidates (aiconfigurator's configurations), estimates rather than runs: none read."""
    if header and header[0].strip().lower() == "rank":
        return []
    if header and header[0].strip().lower() in ("percentile", "percentiles") \
            and rows and all(cells and _PERCENTILE_ROW.match(cells[0]) for _line, cells in rows):
        return _run_by_percentile(header, rows, first_line)
    if header and _normal(header[0]) in _METRIC_HEADER:
        return _runs_by_column(header, rows, first_line)  # headed `Metric`: a metric a row, whatever its columns say
    pivot = _pivot(header, rows, getattr(table, "title", "")) or _by_context(header, rows, getattr(table, "title", "")) \
        or _by_load(header, rows, table) or _by_variant(header, rows, table)
    if pivot is not None:
        return pivot
    columns = _header(header, rows)
    if columns is not None:
        return _runs_by_row(header, columns, rows, "csv table" if isinstance(table, _CsvTable) else "markdown table")
    if rows and all(cells and _TEST_ROW.match(cells[0]) for _line, cells in rows):
        return _runs_by_test_row(header, rows)
    if any(_CELL_BREAK.search(cell) for _line, cells in rows for cell in cells):
        return _runs_in_cells(header, rows)
    at = next((index for index, cell in enumerate(header) if cell.strip().lower() in _METRIC_HEADER), 0)
    if at > 0:
        return _runs_grouped(header, rows, at)
    return _runs_by_column(header, rows, first_line)


_TITLE_RATE = r"\bt/s\b|\btok(?:en)?s?/s(?:ec(?:ond)?)?\b|\btokens? per second\b|\btps\b"  # a rate's unit in a title
# The metric a pivoted table's title names (`### p50 recall latency (ms) vs concurrency`, `### throughput (rps)`):
# its words, a statistic among them, and the unit in brackets; the load it is drawn against (` vs concurrency`) aside.
_TITLE_METRICS = ((re.compile(r"\bttft\b|time to first token|first token"), "ttft_seconds", "time"),
                  (re.compile(r"\btpot\b|\bitl\b|per output token|inter[- ]token"), "tpot_seconds", "time"),
                  (re.compile(r"\blatency\b|response time"), "e2e_seconds", "time"),
                  (re.compile(r"\brps\b|\bqps\b|req(?:uest)?s?/s|throughput \(req"), "request_throughput_per_second",
                   "rate"),
                  # llama-bench's test named above a table of its rates (`llama-bench tg64, no speculation:`)
                  (re.compile(r"\btg ?\d+\b"), _STREAM_RATE, "rate"),
                  (re.compile(r"\bpp ?\d+\b"), "input_tokens_per_second", "rate"),
                  # a phase's rate in words (`## Decode T/s`, `Prefill Speed (TPS, or Tokens per Second)`): one
                  # stream's, the table a benchmark's runs by depth or prompt length
                  (re.compile(rf"^(?=.*\b(?:decod\w*|generation)\b)(?=.*(?:{_TITLE_RATE}))"), _STREAM_RATE, "rate"),
                  (re.compile(rf"^(?=.*\b(?:prefill|prompt)\b)(?=.*(?:{_TITLE_RATE}))"), "input_tokens_per_second",
                   "rate"))
_TITLE_STAT = re.compile(r"\b(mean|avg|average|median|p50|p90|p95|p99)\b")


def _title_metric(title: str) -> tuple | None:
    """(metric, seconds per unit or 1.0) a table's title names as what its cells hold, or None."""
    words = re.sub(r"[#*`_]", " ", title).lower().split(" vs ")[0]
    unit = _UNIT.search(words)
    for pattern, metric, kind in _TITLE_METRICS:
        if pattern.search(words):
            if kind == "rate":
                return metric, 1.0
            seconds = TIME_UNITS.get(unit.group(1) or unit.group(2)) if unit else None
            if seconds is None:
                return None  # a time with no unit: not guessed
            stat = _TITLE_STAT.search(words)
            return f"{metric}_{canonical_stat(stat.group(1)) if stat else 'mean'}", seconds
    return None


# A column of one variant over another (`mistral.rs speedup`, `1.465x`, `+12 %`): no run of its own.
_RATIO = re.compile(r"\b(?:speed-?up|ratio|gain|change)\b|\bvs\.?\b", re.IGNORECASE)
_RATIO_CELL = re.compile(r"^[\s*~≈]*[+−-]?\d[\d.,]*\s*[x×%]")  # (a figure with its change after it is a run)


def _pivot(header: list, rows: list, title: str) -> list | None:
    """A table pivoted on the load (`| c | pool=1 | pool=4 |`, the concurrency a row, a variant a column, the metric in
    the title above it): a summary a cell, the column its run's name, its row's load beside the title's metric. None
    for any other table: its first column must be a load, no other header cell a metric, the title a metric."""
    load = _column(header[0]) if header else None
    if load is None and header and _normal(header[0]) in ("length", "prompt", "prompt length", "prompt size"):
        load = ("mean_input_tokens", 1.0, "count")  # a prompt sweep's rows under a phase's title (`Prefill`)
    if load is None or load[0] not in ("max_concurrency", "request_rate_per_second", "mean_input_tokens") \
            or len(header) < 2 \
            or any(_column(cell) is not None for cell in header[1:]) \
            or any(cells and _column(cells[0]) is not None for _line, cells in rows):
        # (rows named by a metric, `First Time To Token (ms) p50`, are the load's columns turned: a metric a row)
        return None
    measure = _title_metric(title)
    if measure is None:
        return None
    records = []
    labels = {"tool": "markdown table"}
    if load[0] == "mean_input_tokens" and measure[0] == "input_tokens_per_second":
        labels["prompt_rate"] = "one prompt's"  # a prompt-length sweep: each cell one prompt read at that rate
    for line_number, cells in rows:
        level = to_number(cells[0]) if cells else None
        if level is None:
            continue
        if load[0] == "mean_input_tokens" and (context := _CONTEXT_COLUMN.match(cells[0])) and context.group(2):
            level = float(context.group(1)) * 1000  # a prompt of `**1K**` tokens
        for name, cell in zip(header[1:], cells[1:], strict=False):
            number = to_number(cell)
            if number is not None and not _RATIO.search(name) and not _RATIO_CELL.search(cell):
                records.append(Record("summary", "bench.markdown", line_number,
                                      {load[0]: level, measure[0]: number * measure[1]},
                                      labels=dict(labels, benchmark=name)))
    return records or None


# A header cell that is a context length alone (`1k`, `**32k**`, `8K tokens`, `@ 4k`): a column of that context.
_CONTEXT_COLUMN = re.compile(r"^[\s*@]*(\d+(?:\.\d+)?)\s*(?:([kK])\s*(?:tokens?|ctx|context)?|\s+(?:tokens?|ctx))"
                             r"[\s*]*$")


def _by_context(header: list, rows: list, title: str) -> list | None:
    """A table of one metric by context length (FastFlowLM's `Decoding Speed (TPS …)` over `Model | HW | 1k | 2k |
    …`): the title names the metric, each row a run (its leading cells its name), each context column that run at that
    context: a summary a cell. None unless two context columns or more follow the name cells, which name no metric."""
    contexts = [_CONTEXT_COLUMN.match(cell) for cell in header]
    first = next((index for index, match in enumerate(contexts) if match), None)
    if first is None or first == 0 or sum(1 for match in contexts if match) < 2 \
            or any(_column(cell) is not None for cell in header[:first]):
        return None
    measure = _title_metric(title)
    if measure is None:
        return None
    keys = [{"mean_input_tokens": _tokens(match.group(1), match.group(2))} if match else None for match in contexts]
    return _cell_summaries(rows, first, keys, measure)


def _cell_summaries(rows: list, first: int, keys: list, measure: tuple, variants: list | None = None) -> list | None:
    """A summary a figure cell from column `first` on, of a table of one measure (`measure`: its metric and seconds per
    unit) by context, by load or by variant: each row's leading cells name its run, `keys[i]` is the {metric: value}
    column i sets (None: a column not read) and `variants[i]`, where given, the variant column i adds to the run's
    name. A row naming runs (`**Winner**`) and a ratio's cell (`1.7x`) give none."""
    records = []
    for line_number, cells in rows:
        name = " ".join(cell.replace("**", "").strip() for cell in cells[:first] if cell.strip())
        if COMPARISON.search(name):
            continue
        for index, (key, cell) in enumerate(zip(keys[first:], cells[first:], strict=False), first):
            number = to_number(cell) if key is not None else None
            if number is not None and not _RATIO_CELL.search(cell):
                run = name or "markdown table"
                records.append(Record("summary", "bench.markdown", line_number, {**key, measure[0]: number * measure[1]},
                                      labels={"tool": "markdown table",
                                              "benchmark": f"{run}, {variants[index]}" if variants else run}))
    return records or None


# A header cell that is a load alone (`b=8`, `bs=16`, `c=32`, `conc 64`): a column of that batch or concurrency.
_LOAD_COLUMN = re.compile(r"^[\s*]*(?:b|bs|batch|c|conc|concurrency)\s*[=:]?\s*(\d+)[\s*]*$", re.IGNORECASE)


def _by_load(header: list, rows: list, table) -> list | None:
    """A table of one metric by load (an analysis script's `Config | b=1 | b=8 | … | Δ(1→64)` under `## T1: Batch TPOT
    (ms)`): the title, or else the section's heading above it, names the metric; each row a run, each load column that
    run at that batch or concurrency: a summary a cell. None unless two load columns or more follow the name cells,
    which name no metric."""
    loads = [_LOAD_COLUMN.match(cell) for cell in header]
    first = next((index for index, match in enumerate(loads) if match), None)
    # (after the loads only a change may stand, `Δ(1→64)`; before them names, no run's figures: `| | count100 | code
    # | C8 | C16 |` is a table of workloads and loads side by side, not a run's name and its loads)
    if first is None or first == 0 or sum(1 for match in loads if match) < 2 \
            or any(_column(cell) is not None for cell in header[:first]) \
            or not all(match or COMPARISON.search(cell) or _RATIO.search(cell)
                       for match, cell in zip(loads[first:], header[first:], strict=True)) \
            or any(_FIGURE_CELL.match(cell) for _line, cells in rows for cell in cells[:first]):
        return None
    measure = _title_metric(getattr(table, "title", "")) or _title_metric(getattr(table, "section", ""))
    if measure is None:
        return None
    return _cell_summaries(rows, first, [{"max_concurrency": float(match.group(1))} if match else None
                                         for match in loads], measure)


# A header cell naming a quantity of its own (`effective GB/s`, `% of peak`, `Code (t/s)`): not a variant's column.
_OWN_UNIT = re.compile(r"/|%|\((?:ms|s|sec|gb|mb|tok|tokens)\)|\bgi?b\b|\bms\b", re.IGNORECASE)
CAPTION_CHARS = 80  # a heading or a caption names what a table holds; a longer line tells a story
_SUMMARY_COLUMN = re.compile(r"^(?:avg|average|mean|median|overall|total|all)$")


def _by_variant(header: list, rows: list, table) -> list | None:
    """A table of one metric by variant (`Model | Short (Haiku) | Medium | Long | Average` under `### Token Generation
    Speed (tokens/second)`): the title names the metric, each row a run named by its first cell, each other column a
    variant of the workload (a prompt): a summary a figure cell. None unless every header cell after the first names
    no metric and every row is a name and figures."""
    if len(header) < 3 or _column(header[0]) is not None \
            or any(_column(cell) is not None or _OWN_UNIT.search(cell) or _LOAD_COLUMN.match(cell)
                   or _CONTEXT_COLUMN.match(cell) for cell in header[1:]):
        return None
    if not rows or any(not cells or _FIGURE_CELL.match(cells[0]) or
                       not all(_FIGURE_CELL.match(cell) for cell in cells[1:] if cell.strip()) for _line, cells in rows):
        return None
    title = getattr(table, "title", "")
    measure = _title_metric(title) if title[:1] == "#" or len(title) <= CAPTION_CHARS else None
    if measure is None:
        return None
    # (an `Average` column restates its row, a `Speedup` column compares runs: no run's figures)
    keys = [None] + [None if _SUMMARY_COLUMN.match(_normal(cell)) or _RATIO.search(cell) else {} for cell in header[1:]]
    return _cell_summaries(rows, 1, keys, measure, [cell.strip() for cell in header])


# A percentile table's row label (evalscope's `| 50% |`, `p99`): the rows are one run's statistics, not runs.
_PERCENTILE_ROW = re.compile(r"^\s*p?(\d+(?:\.\d+)?)\s*%?\s*$", re.IGNORECASE)


def _run_by_percentile(header: list, rows: list, first_line: int) -> list:
    """One run's Record from a table a percentile a row (evalscope's `Percentile results`): each time column's cell at
    p50 / p90 / p95 / p99 as that statistic; the token counts at the median as the run's typical request. Other
    percentiles (p10, p66, …) are not statistics the diagnosis reads; per-request rates are left out (a percentile
    of each request's rate is no run's rate)."""
    metrics = {}
    for _line, cells in rows:
        stat = canonical_stat("p" + _PERCENTILE_ROW.match(cells[0]).group(1))
        for title, cell in zip(header[1:], cells[1:], strict=False):
            column, number = _column(title), to_number(cell)
            if column is None or number is None or stat is None:
                continue
            metric, unit, kind = column
            if kind == "time" and unit is not None:
                metrics[metric.rsplit("_", 1)[0] + "_" + stat] = number * unit
            elif kind == "count" and metric in ("mean_input_tokens", "mean_output_tokens") and stat == "median":
                metrics[metric] = number
    if not any(name.startswith(("ttft_", "tpot_", "itl_", "e2e_")) for name in metrics):
        return []
    return [Record("summary", "bench.markdown", first_line, metrics, labels={"tool": "percentile table"})]


# llama-bench's tests as a table's rows (`| tg128 | 93.6 | 82.6 |`, a model or a build a column): its rates are t/s.
_TEST_ROW = re.compile(r"^\**(pp|tg)(\d+)\**$")


def _runs_by_test_row(header: list, rows: list) -> list:
    """Records for a table whose rows are llama-bench tests and whose columns are setups: each cell one stream's
    generation rate (tg) or a prompt-processing rate (pp) of its column's setup."""
    setups = {index: title for index, title in enumerate(header) if index and not COMPARISON.search(title)}
    records = []
    for line_number, cells in rows:
        test = _TEST_ROW.match(cells[0])
        metric = _STREAM_RATE if test.group(1) == "tg" else "input_tokens_per_second"
        for index, cell in enumerate(cells[1:], 1):
            setup = setups.get(index, f"column {index}" if index >= len(header) else None)
            number = to_number(cell) if setup is not None and "%" not in cell else None
            if number is None:
                continue
            records.append(Record("summary", "bench.markdown", line_number, {metric: number},
                                  labels={"tool": setup, "benchmark": f"{setup}, {test.group(1)}{test.group(2)}",
                                          **({"device": "cpu"} if _CPU_WORD.search(setup) else {})}))
    return records


# A CSV export's header: four or more comma-separated names (`id,runtime,promptTokens,prefillTps,wallMs,…`).
_CSV_HEADER = re.compile(r"^[A-Za-z][\w .()/%-]*(?:,[A-Za-z][\w .()/%-]*){3,}$")


class _Table(list):
    """A table's [(line_number, cells)], the model a line above it names (`model`: None when none does), the runs'
    setting lines above it state (`setting`: {metric: value}, _stated_setting: a `4K-token prompt`, `64 concurrent
    requests`, `10 QPS`) and the line of text right above it (`title`)."""

    def __init__(self, rows=(), model: str | None = None, setting: dict | None = None, title: str = "",
                 section: str = ""):
        super().__init__(rows)
        self.model = model
        self.setting = dict(setting or {})
        self.title = title  # the last line of text above the table (a heading naming what its cells measure)
        self.section = section  # the last heading above it naming a measure (`## T1: Batch TPOT (ms)`), for _by_load
        self.above = None  # (line number, text) of a line no header split reads, for _grouped_header
        self.figures = False  # its rows are figures only (_grouped_header's tables)
        self.metric_rows = False  # a metric a row, one figure a variant (_metric_table's single-space tables)
        self.open_right = False  # written with no closing bars (`| model | tok/s` over `| --- | ---`): rows whole


# A prompt's length as a line above a table states the runs' setting: `4K-token prompt`, `a 2,048 token prompt`,
# `prompt of 8192 tokens`, a benchmark's `ISL=60381` or `--random-input-len 1024`, a shape `random 20k/1k` (in/out).
_PROMPT_LINE = re.compile(r"(?<![\w.])(\d[\d,]*(?:\.\d+)?)\s*([kK])?[- ]tokens? prompts?\b"
                          r"|(?<![\w.])(\d[\d,]*)\s*([kK])?\s*(?i:input tokens)\b"
                          r"|(?<!(?i:max) )\b(?i:input)\s*[:=]\s*(\d[\d,]*)\s*([kK])?\s*(?i:tokens)\b"
                          r"|\bprompts? of (\d[\d,]*(?:\.\d+)?)\s*([kK])?\s*tokens\b"
                          r"|\bISL\s*[:=]\s*(\d[\d,]*)\s*([kK])?(?![\w.])"
                          r"|--(?:random-)?input-len(?:gth)?[ =](\d+)()\b|(?<![A-Za-z])(?:random_)?input_len(?:gth)?=(\d+)()\b"
                          r"|\b(?:random|ISL/OSL|in/out)\s*[:=]?\s*(\d+(?:\.\d+)?)\s*([kK])?\s*/\s*\d"
                          r"|\b(?i:input len(?:gth)?)\s*[:=]\s*(\d[\d,]*)\s*([kK])?\s*tokens\b"
                          r"|(?<![\w-])(?i:input)=(\d[\d,]*)([kK])?(?![\w.]|\s\d)")  # a shape's key=value, `(input=500, output=8K)`


# A run's concurrency a line above its table states: `1500 prompts at 80 concurrency`, `with 64 concurrent requests`,
# `for 10 parallel requests`, `--max-concurrency 32`, `concurrency = 16`.
_CONCURRENCY_LINE = re.compile(r"\b(?:at|with|for)\s+(\d+)\s+(?:concurrency|concurrent(?:\s+(?:requests|users|clients))?"
                               r"|parallel\s+(?:requests|users|clients))\b"
                               r"|--max-concurrency[ =](\d+)\b|(?<![A-Za-z])(?:max_)?concurrency\s*[:=]\s*(\d+)\b"
                               # a heading naming its section's level (`### Concurrency User 16`)
                               r"|^#{1,6}\s*concurrency(?:\s+(?:users?|level|requests?))?\s*[:=]?\s*(\d+)\s*$",
                               re.IGNORECASE)


def _stated_concurrency(line: str) -> float | None:
    """The requests in flight `line` (outside a table) states, or None."""
    match = _CONCURRENCY_LINE.search(line)
    return float(next(group for group in match.groups() if group)) if match else None


# A run's output length and offered rate as a line above its table states them: `150 output tokens`, `OSL=128`,
# `--random-output-len 256`; `10 QPS`, `at 4 req/s`, `--request-rate 8`.
_OUTPUT_LINE = re.compile(r"(?<![\w.])(\d[\d,]*)\s*([kK])?\s*output tokens\b|\bOSL\s*[:=]?\s*(\d[\d,]*)\s*([kK])?(?![\w.])"
                          r"|--(?:random-)?output-len(?:gth)?[ =](\d+)()\b|(?<![A-Za-z])(?:random_)?output_len(?:gth)?=(\d+)()\b"
                          # (`Output: 200 Tokens`, not a cap's `Max output: 4096 tokens`)
                          r"|(?<!max )(?<!maximum )\boutput(?: len(?:gth)?)?\s*[:=]\s*(\d[\d,]*)\s*([kK])?\s*tokens\b"
                          r"|(?<![\w-])output=(\d[\d,]*)([kK])?(?![\w.]|\s\d)"
                          r"|(?<![\w.])(\d[\d,]*)\s*([kK])?\s*tokens generated\b",
                          re.IGNORECASE)
_RATE_LINE = re.compile(r"(?<![\w.])(\d+(?:\.\d+)?)\s*(?:QPS|RPS|req/s|requests? (?:per|a) second)\b"
                        r"|--request-rate[ =](\d+(?:\.\d+)?)\b", re.IGNORECASE)


# A rate the line says was measured (`throughput remains flat at ~133 req/s`), not offered.
_MEASURED_RATE = re.compile(r"\bthroughput\b|\bachieved\b|\bcompleted\b|\bserved\b", re.IGNORECASE)
_SETTING_WORDS = ("prompt", "isl", "osl", "input", "output", "random", "in/out", "oncurren", "qps", "rps", "req")
_LABELLED = re.compile(r"[*_]*[A-Za-z][\w /-]{0,30}:[*_]*\s")  # a line opened by its label: `**Workload:** …`
SETTING_LINE_CHARS = 160  # a bullet, a caption or a command states a setting; a longer paragraph tells a story
SETTING_PAIRS = 3  # key=value pairs that make a line a run's configuration, whatever its length
_KEY_VALUE = re.compile(r"(?<![\w=])[A-Za-z_][\w.-]*=[^\s,;=]+")


def _stated_setting(line: str) -> dict:
    """The runs' setting `line` (outside a table) states: {metric: value} of the prompt and output lengths, the
    requests in flight and the offered rate it names (the last two only on a line no longer than a bullet's: a
    paragraph's `pacing arrival (--request-rate 1) changed nothing` is its story, not the table's setting)."""
    found = {}
    line = line.replace("**", "").replace("__", "")  # a bullet's bold label (`- **Max concurrency:** 16 concurrent`)
    # (a config line of key=value pairs, `Config: model=…, num_prompts=100, max_concurrency=10, output_len=300`, is
    # a setting at any length)
    short = len(line) <= SETTING_LINE_CHARS or len(_KEY_VALUE.findall(line)) >= SETTING_PAIRS
    if (prompt := _stated_prompt(line)) is not None:
        found["mean_input_tokens"] = prompt
    if short and (output := _OUTPUT_LINE.search(line)) is not None:
        at = next(index for index in range(1, len(output.groups()), 2) if output.group(index))
        found["mean_output_tokens"] = _tokens(output.group(at), output.group(at + 1))
    if (concurrency := _stated_concurrency(line)) is not None:
        found["max_concurrency"] = concurrency
    if short and (rate := _RATE_LINE.search(line)) is not None and not _MEASURED_RATE.search(line):
        found["request_rate_per_second"] = float(next(group for group in rate.groups() if group))
    return found


def _stated_prompt(line: str) -> float | None:
    """The prompt length in tokens `line` (outside a table) states, or None."""
    match = _PROMPT_LINE.search(line)
    if match is None:
        return None
    at = next(index for index in range(1, len(match.groups()), 2) if match.group(index))
    return _tokens(match.group(at), match.group(at + 1))


class _CsvTable(_Table):
    """A CSV block's [(line_number, cells)]: read as a table, named as a CSV in the evidence."""


# A line above a table naming the model its runs are of: a benchmark script's `using model: llama3.2:3b`, a
# `Model = qwen2.5:7b` line, or a Markdown section heading that states a size (`## Llama 3.1:8b`, `### Qwen2.5 14B`).
# Only a name whose size can be read counts (named_model): the size is what the name is for. A `# ` line (level 1, a
# shell comment, a pasted file's header) is not a section of a run.
_MODEL_LINE = re.compile(r"\bmodel\b[^:=|]{0,20}[:=]\s*[`'\"]?([\w./:-]+)", re.IGNORECASE)
_HEADING = re.compile(r"^#{2,6}\s+(.+?)\s*#*$")


def _named_model(line: str) -> str | None:
    """The model `line` (outside a table) names, when its name states a size; else None."""
    from inferledger.diagnose.named_model import from_name

    match = _MODEL_LINE.search(line) or _HEADING.match(line)
    if match is None:
        return None
    name = match.group(1).strip("*`'\" ")
    return name if from_name(name) is not None else None


def _csv_step(table: _CsvTable, line_number: int, line: str) -> tuple[_CsvTable, _CsvTable | None]:
    """One line of a text read for CSV blocks: (the block now open, the block this line closed or None). A block is a
    header of names, then the rows with as many fields."""
    stripped = line.strip()
    if table and stripped.count(",") == len(table[0][1]) - 1:
        table.append((line_number, [cell.strip() for cell in stripped.split(",")]))
        return table, None
    closed = table if len(table) > 1 else None
    return _CsvTable([(line_number, stripped.split(","))] if _CSV_HEADER.match(stripped) else []), closed


# A table a page copy left with its cells one space apart (`GPU pp512 (t/s) tg128 (t/s)` over `RTX 3090 ~1138
# ~36.24`): the header's columns are its words, a unit in brackets joined to the word before; a row's last words are
# its numbers, one a value column, and the words before them its label (a card's or a model's name has spaces and
# digits of its own, so the row is read from its end). llama-bench's `± 6.01` spread after a rate is dropped.
_SPACE_COLUMN = re.compile(r"[^\s(\[]\S*(?:\s*[(\[][^)\]]*[)\]])*")
_SPREAD = re.compile(r"\s*±\s*\d[\d.,]*")
_SPACE_NUMBER = re.compile(r"^[~≈]?\d[\d,]*(?:\.\d+)?$")
_SPACE_HEADER_CHARS = 120  # a longer line is prose or a log line, not a header of a few words


# A label's words before the measures: `Model`, and as a page in another script names it, `양자화 포맷` (quantization
# format): up to this many, when two measures or more follow them.
_SPACE_LABEL_WORDS = 3
# Headers that are a measure alone in a bordered table (`| Input | Output |`: token counts) but the first word of one
# where spaces part the cells (`Output tok/s`), which a single space cannot tell apart.
_SPACE_FIRST_WORDS = ("input", "output")


def _space_measure(name: str) -> bool:
    """Whether `name`, cut from a single-space header, names a measure (_column), not only its first word."""
    return name.lower() not in _SPACE_FIRST_WORDS and _column(name) is not None


def _space_header(line: str) -> list | None:
    """The cells of a single-space table header: a label's word (or up to _SPACE_LABEL_WORDS words, before two
    measures or more), then words every one of which names a measure (_column); None for any other line (prose, a
    log line, a header of multi-word names, which spaces cannot split)."""
    cells = _SPACE_COLUMN.findall(line.strip())
    if len(cells) < 2 or _column(cells[0]) is not None:
        return None
    measures = next((at for at in range(1, min(len(cells) - 1, _SPACE_LABEL_WORDS) + 1)
                     if _column(cells[at]) is not None), None)
    if measures is None or (measures > 1 and len(cells) - measures < 2) \
            or not all(map(_space_measure, cells[measures:])):
        return _aligned_header(line)
    return [" ".join(cells[:measures]), *cells[measures:]]


def _aligned_header(line: str) -> list | None:
    """The cells of a header aligned by runs of spaces (a script's padded columns: `Config  Req/s  OutTok/s  TTFT  p90
    TTFT`), whose names may hold one space each: a label, then two names or more each naming a measure; else None."""
    cells = _ALIGNED_GAP.split(line.strip())
    # (a latency named with no unit, `TTFT`, its unit settled by the table's figures as a bar table's is)
    if len(cells) < 3 or _column(cells[0]) is not None \
            or not all(_space_measure(cell) or _column(f"{cell} (s)") is not None for cell in cells[1:]):
        return None
    return cells


_ALIGNED_GAP = re.compile(r"\s{2,}")
# A rule of dashes under an aligned header (`------  --------  ----------`), kept out of the table's rows.
_ALIGNED_RULE = re.compile(r"\s*-{3,}(?:\s+-{3,})+\s*")


def _space_row(line: str, width: int) -> list | None:
    """[label, value cells] of a row under a single-space header of `width` cells, or None when its last width - 1
    words are not all numbers or no label with a letter is left before them."""
    words = _SPREAD.sub("", line).split()
    values = words[len(words) - width + 1:]
    label = " ".join(words[: len(words) - width + 1])
    if len(words) < width or not all(_SPACE_NUMBER.match(word) for word in values) \
            or not any(char.isalpha() for char in label):
        return None
    return [label, *values]


def _grouped_header(line: str, width: int) -> list | None:
    """The header of a single-space table whose rows are `width` figures each (its first column a measure too, a
    sweep's concurrency): the header's words grouped into `width` consecutive names each of which names a measure
    (`Output tok/s`, `ITL p99 (ms)` are two words each), when exactly one grouping does; else None."""
    words = _SPACE_COLUMN.findall(line.strip())
    if not width <= len(words) <= width + 6:
        return None
    # Each run of words (up to 7 a name: 6 more words than names at most) is read once, however many groupings hold it.
    names_a_measure = {(low, high): _space_measure(" ".join(words[low:high]))
                       for low in range(len(words)) for high in range(low + 1, min(low + 8, len(words) + 1))}
    found = []
    for cuts in combinations(range(1, len(words)), width - 1):
        spans = list(zip((0, *cuts), (*cuts, len(words)), strict=True))
        if all(names_a_measure.get(span, False) for span in spans):
            names = [" ".join(words[low:high]) for low, high in spans]
            found.append(names)
            if len(found) > 1:
                return None  # two readings: the spaces cannot say which
    return found[0] if found else None


def _figures_row(line: str) -> list | None:
    """The cells of a row that is figures only (2 or more), or None."""
    words = _SPREAD.sub("", line).split()
    return words if len(words) >= 2 and all(_SPACE_NUMBER.match(word) for word in words) else None


# A table a page copy left with its cells one space apart and a metric a row (a model card's `Metric BF16 baseline
# This checkpoint` over `ITL p50 ms/token, Marlin fallback path 11.1 4.6`): a row is a metric's name, then one figure a
# variant, perhaps with its confidence interval (`91.8 [89.4, 94.2]`); the line above the rows names the variants.
_INTERVAL = re.compile(r"\s*\[\s*\d[\d.,]*\s*,\s*\d[\d.,]*\s*\]")


def _metric_row(line: str, width: int = 0) -> list | None:
    """[label, figures] of a row that ends in `width` figures (2 or more when width is 0) after a label with a
    letter, or None. A share (`13.6%`) is a figure here, so that a row of shares is a row, if not a run's measure."""
    words = _INTERVAL.sub("", _SPREAD.sub("", line)).split()
    count = next((count for count in range(len(words)) if not _SPACE_NUMBER.match(words[-1 - count].rstrip("%"))),
                 len(words))
    label = " ".join(words[: len(words) - count])
    if count < 2 or (width and count != width) or not any(char.isalpha() for char in label):
        return None
    return [label, *words[len(words) - count:]]


def _variant_names(line: str, width: int) -> list:
    """The `width` variants a single-space header names (less a leading `Metric`): its words one a variant when there
    are as many, else the one grouping whose every name starts with a capital or a figure (`This model FP16
    baseline`: `This model`, `FP16 baseline`), else the columns by number."""
    words = line.split()
    words = words[1:] if words and words[0].lower() in _METRIC_HEADER else words
    if len(words) == width:
        return words
    starts = [at for at in range(1, len(words)) if words[at][:1].isupper() or words[at][:1].isdigit()]
    if len(starts) == width - 1:
        return [" ".join(words[low:high]) for low, high in zip((0, *starts), (*starts, len(words)), strict=True)]
    return [f"column {at}" for at in range(1, width + 1)]


def _metric_table(above: tuple, line_number: int, line: str) -> _Table | None:
    """A single-space table of a metric a row, opened by its first row (`line`) under its header (`above`): the header
    a line of words alone, the row's label a measure (_label) unless the header's first word says `Metric`."""
    row = _metric_row(line)
    header = above[1].split()
    if row is None or not header or any(_SPACE_NUMBER.match(word) for word in header) \
            or (header[0].lower() not in _METRIC_HEADER and _label(row[0], row[1:]) is None):
        return None
    table = _Table([(above[0], ["Metric", *_variant_names(above[1], len(row) - 1)]), (line_number, row)])
    table.metric_rows = True
    return table


def _space_step(table: _Table, line_number: int, line: str) -> tuple[_Table, _Table | None]:
    """One line of a text read for single-space tables: (the table now open, the table this line closed or None).
    A table's model is the one a line above it names (_named_model), as for the bar tables. A header no word split
    reads is kept (`table.above`) for a row of figures only under it (_grouped_header) or a row of a metric's figures
    (_metric_table)."""
    if table and table.figures:  # a table of figure rows: its rows are as wide as its header
        row = _figures_row(line)
        row = row if row is not None and len(row) == len(table[0][1]) else None
    elif table and table.metric_rows:
        row = _metric_row(line, len(table[0][1]) - 1)
    else:
        row = _space_row(line, len(table[0][1])) if table else None
    if row is not None:
        table.append((line_number, row))
        return table, None
    if len(table) == 1 and not table.figures and _ALIGNED_RULE.fullmatch(line):
        return table, None  # the header's rule of dashes: its rows follow
    closed = table if len(table) > 1 else None
    model = table.model
    header = _space_header(line) if len(line) < _SPACE_HEADER_CHARS else None
    figures = _figures_row(line) if header is None and not table and table.above else None
    if figures is not None:
        names = _grouped_header(table.above[1], len(figures))
        if names is not None:  # a table with no label column: its first measure leads each row
            opened = _Table([(table.above[0], names), (line_number, figures)], model)
            opened.figures = True
            return opened, closed
    if header is None and not table and table.above and (opened := _metric_table(table.above, line_number, line)):
        opened.model = model
        return opened, closed
    if header is None and ("model" in line.lower() or line[:2] == "##"):
        model = _named_model(line.strip()) or model
    opened = _Table([(line_number, header)] if header else [], model)
    if header is None and len(line) < _SPACE_HEADER_CHARS and any(char.isalpha() for char in line):
        opened.above = (line_number, line)
    return opened, closed


def _plain_tables(lines) -> Iterator:
    """The CSV blocks and single-space tables of a text with no bars, in one pass (constant memory)."""
    csv, spaced = _CsvTable(), _Table()
    for line_number, line in lines:
        csv, closed = _csv_step(csv, line_number, line)
        if closed:
            yield closed
        spaced, closed = _space_step(spaced, line_number, line)
        if closed:
            yield closed
    yield from (table for table in (csv, spaced) if len(table) > 1)


# GitHub's markdown also takes a table with no outer bars (`Model | TP | TTFT` over `-- | -- | --`), as a copied HTML
# table pastes: its header is the line above a rule of dashes.
_BARE_RULE = re.compile(r"^\|?\s*:?-{2,}:?\s*(\|\s*:?-{2,}:?\s*)+\|?\s*$")


def _bare_cells(line: str) -> list:
    cells = [cell.strip() for cell in line.strip().strip("|").split("|")]
    return cells if line.isascii() else list(map(_cjk_cell, cells))


# A whole table on one line, as a page copied as text leaves it: `| Model | Tokens / s | |---|---| | a | 13.72 | | b |
# 5.14 |`, the rows apart by an empty cell (`| |`), the header rule among them.
_INLINE_RULE = re.compile(r"\|\s*\|\s*:?-{3,}:?\s*\|")


def _one_line_rows(line: str) -> list | None:
    """The rows (each as a `| … |` line) of a table flattened onto `line`, or None when it holds none: the cells
    between the empty ones are a row each, and only rows as wide as the header rule count."""
    if not _INLINE_RULE.search(line):
        return None
    groups, row = [], []
    for cell in line.strip().strip("|").split("|"):
        if cell.strip():
            row.append(cell.strip())
        elif row:
            groups.append(row)
            row = []
    if row:
        groups.append(row)
    rule = next((index for index, cells in enumerate(groups) if all(set(cell) <= set("-: ") for cell in cells)), None)
    if not rule:
        return None
    width = len(groups[rule])
    rows = [cells for cells in groups[rule - 1:] if len(cells) == width]
    return ["| " + " | ".join(cells) + " |" for cells in rows] if len(rows) > 2 else None


def _tail_cell(stripped: str) -> bool:
    """A table cell alone on its line as a page copied as text leaves it: its text, then its closing bar."""
    return len(stripped) > 1 and stripped[-1] == "|" and stripped.count("|") == 1


def _rule_width(stripped: str) -> int:
    """The columns of a header rule (`|---|---|`, `---|---|---|`), or 0 for any other line."""
    cells = [cell.strip() for cell in stripped.strip("|").split("|")]
    return len(cells) if len(cells) > 1 and all(cell and set(cell) <= set("-:") and "-" in cell for cell in cells) else 0


def _cells_regrouped(lines) -> Iterator:
    """The lines with tables whose every cell stands alone on its line (`Concurrency |`, `25.05 |`, a documentation
    page copied as text) put back as `| … |` rows: the N cells right above a rule of N columns are the header, the
    cells after it rows of N, up to the next table's header (the N cells above its rule) or the first other line; a
    row the excerpt cut short is left as its lines. Cells with no rule after them stay as they were."""
    cells: list = []  # (line number, cell text) of the cells alone on their lines since the last other line
    width = 0  # the columns of the table those cells belong to, once its rule was seen

    def rows(pending: list) -> Iterator:
        whole = len(pending) - len(pending) % width if width else 0
        for start in range(0, whole, width or 1):
            group = pending[start: start + width]
            yield group[0][0], "| " + " | ".join(text for _, text in group) + " |"
        yield from ((number, text + " |") for number, text in pending[whole:])

    for line_number, line in lines:
        stripped = line.strip()
        if _tail_cell(stripped):
            cells.append((line_number, stripped[:-1].strip()))
            continue
        rule = _rule_width(stripped) if cells else 0
        if rule and len(cells) >= rule:
            yield from rows(cells[:-rule])
            width, header = rule, cells[-rule:]
            yield header[0][0], "| " + " | ".join(text for _, text in header) + " |"
            cells = []
        else:
            yield from rows(cells)
            cells, width = [], 0 if not rule else width
        yield line_number, line
    yield from rows(cells)


def _unflattened(lines) -> Iterator:
    """The lines with each flattened row joined back: a page copied as text puts a table's cells one a line, a row
    opening with its first cell between bars (`| Mean TTFT |`) and each further cell ending with one (`549 ms |`).
    A line with one cell between bars and the lines after it that end with their only bar are one row. Tables with
    every cell alone on its line (no opening bar) are regrouped by their header rule first (_cells_regrouped)."""
    row = None  # (line number, text) of the row being joined
    for line_number, line in _cells_regrouped(lines):
        rows = _one_line_rows(line) if "-" in line else None
        if rows is not None:
            if row is not None:
                yield row
                row = None
            yield from ((line_number, text) for text in rows)
            continue
        stripped = line.strip()
        if row is not None and stripped.endswith("|") and stripped.count("|") == 1:
            row = (row[0], row[1] + " " + stripped)
            continue
        if row is not None:
            yield row
            row = None
        if stripped.startswith("|") and stripped.endswith("|") and stripped.count("|") == 2 and len(stripped) > 2:
            row = (line_number, stripped)
            continue
        yield line_number, line
    if row is not None:
        yield row


def _heading_level(heading: str) -> int:
    """A Markdown heading's level (`## T1` is 2), 0 for no heading."""
    return len(heading) - len(heading.lstrip("#"))


def tables(lines) -> Iterator:
    """Each table in the lines as [(line_number, cells)]: rows of cells between bars, rules skipped; a table with no
    outer bars from the line above its rule of dashes; a text with no bar is read for CSV blocks and single-space tables instead. Rows
    flattened a cell a line are joined back first (_unflattened)."""
    lines = _unflattened(html_tables.unrolled(iter(lines)))
    head = list(islice(lines, 200))  # the opening decides; the rest streams (constant memory on a long file)
    lines = chain(head, lines)
    if not any("|" in line or "│" in line for _, line in head):
        yield from _plain_tables(lines)
        return
    model = None  # the model the last line naming one names (_named_model)
    setting: dict = {}  # the runs' setting the lines so far state, the last statement of each (_stated_setting)
    title = ""  # the last line of text, a table's title when the table follows it
    section = ""  # the last heading naming a measure, a table's section (_by_load)
    unit = None  # the unit a line states for every value below it (`All values are tokens per second.`)
    table: list = _Table()
    bare = False  # inside a table with no outer bars
    previous = None  # (line number, text) of the line before, a bare table's header if a rule follows
    opened = None  # (line number, text) of a row opened by a bar and not closed by one, the last row read
    for line_number, line in lines:
        stripped = line.strip()
        if not table and previous is not None and _BARE_RULE.match(stripped) and not _is_rule(previous[1]):
            table, bare, previous = _Table([(previous[0], _bare_cells(previous[1]))], model, setting, title), True, None
            continue
        if len(table) == 1 and opened is not None and _BARE_RULE.match(stripped) \
                and len(opened[1].split("|")) == len(_bare_cells(stripped)):
            # A bare table whose header opens with a bar for its empty label cell (`  | max_concurrency | E2E`
            # over `-- | -- | --`, a copied HTML table): the bar is that cell's end, and the rows follow bare.
            header = [cell.strip() for cell in opened[1].split("|")]
            table, bare = _Table([(opened[0], header)], model, setting, title), True
            continue
        if bare:
            if "|" in stripped:
                table.append((line_number, _bare_cells(stripped)))
                continue
            if len(table) > 1:
                yield table
            table, bare = _Table(model=model, setting=setting, title=title), False
        previous = (line_number, stripped) if "|" in stripped and stripped[:1] not in "|│┃" else None
        if _is_rule(stripped) and stripped:
            if len(table) == 1 and opened is not None and opened[0] == table[0][0] and stripped[:1] == "|" \
                    and _SEPARATOR.match(stripped) and not stripped.endswith("|"):
                # header and rule both open on the right: the table's style, not an excerpt's cut (a cut row's
                # rule is whole); its header and rows keep their last cells
                table[0] = (opened[0], _cells(opened[1], open_right=True))
                table.open_right = True
            if _SEPARATOR.match(stripped) and _starts_a_table(table):
                # Two tables pasted with no line between them: the row above this second header rule is the second
                # table's header, not the first's last row.
                header = table.pop()
                yield table
                table = _Table([header], model, setting)
            continue
        if stripped[:1] in "|│┃" and len(_BARS.split(stripped)) > 2:
            table.append((line_number, _cells(stripped, table.open_right)))
            opened = (line_number, stripped) if stripped[:1] == "|" and not stripped.endswith("|") else None
            continue
        if len(table) > 1:
            yield table
        if "|" not in stripped and stripped[:2] != "# " and ("model" in stripped.lower() or stripped[:2] == "##"):
            model = _named_model(stripped) or model
        # (a bullet may part its figures by one bar, `550 input tokens | 150 output tokens`, a labelled line by two,
        # `**Workload:** 2000 Prompts | Input: 8,192 Tokens | Output: 200 Tokens`; a row has more)
        if (stripped.count("|") <= 1 or (stripped.count("|") == 2 and _LABELLED.match(stripped))) \
                and stripped[:1] not in "|│┃" and any(char.isdigit() for char in stripped) \
                and any(word in stripped.lower() for word in _SETTING_WORDS):
            setting = {**setting, **_stated_setting(stripped)}
        stated_unit = _VALUES_UNIT.search(stripped) if "|" not in stripped and "alues are" in stripped else None
        if stated_unit is not None:
            unit = stated_unit.group(1)
        if stripped and "|" not in stripped:
            # a heading that names a phase alone (`##### Q4_K_M Decode`) under a stated unit: that unit's measure
            title = f"{stripped} ({unit})" if unit and _title_metric(stripped) is None else stripped
            if stripped[:1] == "#":  # a heading: its measure is its section's, one naming none at its level ends it
                section = stripped if _title_metric(stripped) \
                    else section if _heading_level(stripped) > _heading_level(section) else ""
        table = _Table(model=model, setting=setting, title=title, section=section)
    if len(table) > 1:
        yield table


# A line stating the unit of every value below it: `All appendix values are tokens per second.`
_VALUES_UNIT = re.compile(r"\bvalues are (?:in )?(tokens per second|tok/s|t/s)\b", re.IGNORECASE)


def _starts_a_table(table: list) -> bool:
    """Whether the last row of `table` (a header, at least one row and this one) is another table's header: a header
    rule follows it, none of its cells is a number and it is not the table's own header (a table setting off its last
    rows with a rule has numbers in them)."""
    if len(table) < 3:
        return False
    cells = table[-1][1]
    return _names_only(cells) and cells != table[0][1]


def sniff(head: str) -> float:
    if "┃" in head or "+==" in head:
        from inferledger.diagnose.parsers import bench_clients, evalscope

        # rich console tables with a heavy header bar (genai-perf / AIPerf) and evalscope's grid tables: their own
        # readers' (one table read twice would count its runs twice)
        if bench_clients.sniff(head) > 0 or evalscope.sniff(head) > 0:
            return 0.0
    for table in tables(enumerate(head.split("\n"), 1)):
        if _records(table):
            return 0.6
    return 0.0


# A sweep's setting that keys its runs, the first column of each of the tables a report splits it into.
_SWEEP_KEYS = {"max_concurrency", "request_rate_per_second", "mean_input_tokens"}


def _sweep_key(table: list) -> str | None:
    """The setting a table's first column sweeps (its header's name), when every row is a run of it."""
    header = table[0][1]
    column = _column(header[0]) if header and header[0].strip() else None
    if column is None or column[0] not in _SWEEP_KEYS or len(table) < 3 \
            or any(len(cells) != len(header) or isinstance(cells, _CutRow) for _, cells in table[1:]):
        return None
    return _normal(header[0])


def _joined(found: Iterator) -> Iterator:
    """A report's sweep split into a table a measure (`Concurrency | TPOT p50 | TPOT p95`, then `Concurrency | TTFT
    p50 | TTFT p95`): each run a row of every table, joined on the setting they share (the same values in the same
    order, no measure named twice), so a run's TTFT and TPOT are read together."""
    held = None
    for table in found:
        key = _sweep_key(table)
        if held is not None and key is not None and key == _sweep_key(held) \
                and [cells[0] for _, cells in table[1:]] == [cells[0] for _, cells in held[1:]] \
                and not {_normal(name) for name in table[0][1][1:]} & {_normal(name) for name in held[0][1][1:]}:
            rows = [(line, cells + other[1:]) for (line, cells), (_, other) in zip(held, table, strict=True)]
            held = _Table(rows, held.model, held.setting, held.title)
            continue
        if held is not None:
            yield held
        held = table
    if held is not None:
        yield held


# A run's mean length and the total over its requests that gives it
_TOTALS = {"mean_input_tokens": "total_input_tokens", "mean_output_tokens": "total_output_tokens"}


def parse(lines) -> Iterator:
    for table in _joined(tables(lines)):
        records = _records(table)
        model = table.model
        for record in records:
            if model and "model" not in record.labels:
                # The table's own label, not the file's `model` (a file of several models' tables names none of them
                # for the whole log): read by summary-models-one-bandwidth.
                record.labels["section_model"] = model
            for metric, value in table.setting.items() if record.kind == "summary" else ():
                # the runs' setting, stated above the table, where the run does not state it: a length its own
                # totals over its requests give (4,096 completion tokens of 16 requests) is no line's to set
                total = _TOTALS.get(metric)
                if metric not in record.metrics and not (total in record.metrics and "completed_requests" in record.metrics):
                    record.metrics[metric] = value
                    record.labels[f"{metric}_from"] = "a line above the table"
            yield record
