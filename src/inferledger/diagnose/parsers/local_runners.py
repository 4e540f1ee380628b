"""One-request timing lines of local runners, and OpenVINO GenAI's benchmark_genai summary.

* text-generation-webui: `Output generated in 9.69 seconds (51.50 tokens/s, 499 tokens, context 3550, seed 909082919)`
  (its rich logger of 2025 prefixes `00:28:06-600105 INFO` and wraps the line at the terminal width);
* mlx_lm generate: `Prompt: 32188 tokens, 430.339 tokens-per-sec` / `Generation: 892 tokens, 32.480 tokens-per-sec` /
  `Peak memory: 11.496 GB` (early releases print the rates without the token counts);
* koboldcpp, one printf per request whose wording changed over releases: `Time Taken - Processing:1.0s,
  Generation:2.0s, Total:3.0s` (2023), `ContextLimit: 614/2048, Processing:0.43s (5.5ms/T), Generation:3.62s
  (55.8ms/T), Total:4.06s (16.02T/s)` (late 2023), `CtxLimit: 1754/8192, Process:25.05s (14.9ms/T = 66.89T/s),
  Generate:59.05s (152.6ms/T = 6.55T/s), Total:84.11s (4.60T/s)` (2024), then `CtxLimit:…, Amt:78/387, Init:0.01s,
  Process:…` (mid-2024 on); the `Processing Prompt [BLAS] (1676 / 1676 tokens)` and `Generating (78 / 387 tokens)`
  progress lines before it give the token counts the older lines lack;
* koboldcpp --benchmark, its console summary (`ProcessingTime: 52.206s`, `ProcessingSpeed: 625.75T/s`, …
  `TotalTime: 57.234s`, one a line) or a CSV row per run under `Timestamp,Backend,Layers,Model,MaxCtx,GenAmount,ProcessingTime,
  ProcessingSpeed,GenerationTime,GenerationSpeed,TotalTime,Output,Flags` (times in s, speeds in T/s);
* TabbyAPI (exllamav2/v3): `Metrics: 167 tokens generated in 21.39 seconds (Queue: 0.0 s, Process: 626.24 T/s,
  Generate: 8.79 T/s, Context: 1494 tokens)` (until mid-2024), then `Metrics (ID: …): N tokens generated in … (Queue: …,
  Process: 3840 cached tokens and 11926 new tokens at 727.64 T/s, Generate: 28.2 T/s, Context: …[, Draft: a / b
  tokens accepted (p%)])`, also wrapped by its console logger;
* benchmark_genai: `Load time: 3405.69 ms`, `Generate time: 1430.77 ± 3.04 ms`, `TTFT: …`, `TPOT: …`, `Throughput
  tokens/s: 13.98 ± 0.53` (`Throughput : 47.89 ± 1.07 tokens/s` in later releases): mean ± std over the iterations.

* MLC LLM's `mlc_llm bench` / chat `/stats` statistics block: `----------- prefill -----------` then `throughput: 36.910
  tok/s`, `total tokens: 7 tok`, `total time: 0.190 s`, and the same under `------------ decode ------------`: one
  request a block.

* OpenVINO's llm_bench (tools/llm_bench), two lines per iteration and prompt: `[1][P0] Input token size: 1024, Output
  size: 128, Infer count: 128, …, Generation Time: 5.32s, Latency: 41.55 ms/token` then `[1][P0] First token latency:
  350.12 ms/token, other tokens latency: 39.01 ms/token, len of tokens: 128 * 1` (`ms/4tokens` at batch 4); one
  request Record per iteration, the warm-up iteration left out as llm_bench's own averages leave it out; its
  `[Average] P[0] Input token size: 128, 1st token latency: 91.54 ms/16tokens, 2nd token latency: 69.81 ms/16tokens,
  2nd tokens throughput: 229.18 tokens/s` line read where no iteration is (markdown `**` around numbers allowed).

* exllamav2's test_inference.py: ` -- Response generated in 3.40 seconds, 128 tokens, 37.66 tokens/second (includes
  prompt eval.)`, the whole call and its output count only (its examples print the same without the parenthesis);
* exllamav2's test_inference.py -s (speed test): ` ** Length   512 tokens:    670.5597 t/s` under `-- Measuring prompt
  speed...` (one prompt of that length, its rate) and ` ** Position   256 + 128 tokens:   34.5516 t/s` under `--
  Measuring token speed...` (128 tokens generated one at a time after 256 in the cache, their rate): a request each;
* exllama's (v1) test_benchmark_inference.py -p: ` -- Inference, first pass.` / ` ** Time, Inference: 0.50 seconds` /
  ` ** Speed: 8.06 tokens/second`, then ` -- Generating 128 tokens[, 1920 token prompt]...` / ` ** Speed: 28.56
  tokens/second`: one request generating a step at a time, its rate the decode rate; the first pass is the script's
  first forward over `sequence length - generated` random tokens, cold (no warm-up pass in the early scripts), kept as
  a label and not judged;
* gpt-fast style generate loops (fish-speech's LM): `Generated 43 tokens in 37.66 seconds, 1.14 tokens/sec` and the
  `Bandwidth achieved: 0.56 GB/s` after it, the bandwidth the loop says it reached (model bytes × tokens/s);
* KTransformers' balance_serve backend: `Performance(T/s): prefill 0.0709, decode 0.2152. Time(s): tokenize 0.5366,
  prefill 126.9957, decode 362.4446`, one request: each phase's rate and time, so its token counts too;
* a script's progress line with the time of each item: `Finished question 2 of 9 in 2.48 seconds` (also Completed /
  Processed / Done, `N/M`): one request's whole time, no token count;
* tinygrad's examples/llama.py --timing: `ran model in 17725.62 ms` (`enqueue in 17.80 ms` in other releases: the
  host's launch time, kept as host_seconds_per_token) and `total 17726.15 ms, 0.06 tok/sec` per token,
  one request whose time per token is the mean total;
* MLC LLM's runtime stats (the chat's `/stats`, its examples' "Runtime stats:"): `prefill: 48.3 tok/s, decode:
  13.2 tok/s` (`encode:` in the first releases), rates only; WebLLM's `[WebLLM Stats] prefill: 5.38 tok/s, decoding:
  5.08 tok/s (Prompt: 148 / Gen: 47)`, with the counts that make each phase's time;
* IPEX-LLM's BenchmarkWrapper: `=========First token cost 0.0300 s and 6.55 GB=========` then `=========Rest tokens
  cost average 0.0145 s (255 tokens in all) and 6.55 GB=========` (the GB part since 2024), and its examples' one-line
  `First token cost 0.3572 s and rest tokens cost average 0.0412 s`.

* onnxruntime-genai's examples with --timings (phi3-qa.py, model-qa.py): `Prompt length: 21, New tokens: 85, Time to
  first: 2.62s, Prompt tokens per second: 8.02 tps, New tokens per second: 5.09 tps`, one request: the time to the
  first token from the start (chat template and encoding included) and the new tokens (the first one counted) over
  the time after it;
* ExecuTorch's LLM runners (extension/llm/runner/stats.h): `PyTorchObserver {"prompt_tokens":2,"generated_tokens":7,
  "model_load_start_ms":…,"model_load_end_ms":…,"inference_start_ms":…,"inference_end_ms":…,"prompt_eval_end_ms":…,
  "first_token_ms":…,…,"SCALING_FACTOR_UNITS_PER_SECOND":1000}`, one request: prefill from inference start to the end
  of prompt evaluation, generation from there to the end, in the units the line states (the model's load comes
  before inference starts: a label, not part of the request);
* oMLX's benchmark (a Mac server on MLX), its "Single Request Results" table: `pp1024/tg128  5123.4  58.96  199.9
  tok/s  22.6 tok/s  5.300  194.0 tok/s  16.68 GB` (test, TTFT ms, TPOT ms, prompt and generation rates, E2E s,
  throughput, peak memory), one request a row, its generation time from its own rate (the E2E column is timed
  apart and may disagree); its batching tables after it are left unread;
* ds4-server (antirez's DwarfStar): a request's `prompt done`, `decoding chunk` (cumulative decode tokens and
  seconds) and `finish=` (the whole request) lines, one request each.

* club-3090's bench script (llama.cpp / vLLM servers on RTX cards): `[bench] narrative run 3/5: 359 tok in 20.2s (18.40
  decode TPS, ttft 733ms)`, one request generating; `[bench] prefill-10k run 1/3: 9647 prompt tok, 596.4 prefill
  tok/s, ttft 16177ms` (also `prompt-processing run`, `PP tok/s`), one request reading a prompt;
* airllm's layer-streaming passes: `running layers(self.running_device): 100%|███| 83/83 [27:57<00:00, 20.22s/it]`,
  one forward pass over every layer, each read from storage as it runs: a generated token needs a whole pass, so a
  finished bar's time is a time per token;
* MLC LLM's benchmark.py (jetson-containers): `…/params:  input=16 output=128 prefill_time 0.081 sec, prefill_rate 197.0
  tokens/sec, decode_time 6.632 sec, decode_rate 19.3 tokens/sec` (the counts may be missing), one request;
* TensorRT-Edge-LLM's `--dumpProfile` summary: `=== LLM Prefill ===` then `Computed Tokens: 512`, `Average Time per
  Run: 61.8572 ms`, and `=== LLM Generation … ===` then `Generated Tokens: 120`, `Tokens/Second: 32.8`, `Average Time
  per Token: 30.4815 ms`, one request (averages per run when several ran);
* candle's examples (quantized, llama, …): `19 prompt tokens processed: 98.22 token/s` then `99 tokens generated:
  63.82 token/s`, one request: each phase's count and rate, so its time.

* mlx_lm.server: `2026-04-19 08:47:04,712 - INFO - Prompt processing progress: 4096/47330`, one line per prompt
  per step of prompts read together; a step's prompt rate is the tokens read since the step before ÷ the time between
  their stamps, a stats window in which nothing is generated.

Times become seconds; memory figures are decimal GB (mlx_lm divides by 1e9).
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator

from inferledger.diagnose.parsers._common import find_timestamp
from inferledger.diagnose.parsers.bench_common import NUMBER, TIME_UNITS, to_number
from inferledger.diagnose.records import Record, Skipped, looks_like_metric, unread

NAME = "local-runners"

# text-generation-webui (modules/text_generation.py); context and seed were added to the line in 2023.
# Early releases could print a negative count and rate (`-0.11 tokens/s, -10 tokens`), read as printed.
_TEXTGEN = re.compile(r"Output generated in ([\d.]+) seconds\s*\((-?[\d.]+) tokens/s,\s*(-?\d+)\s+tokens"
                      r"(?:,\s*context (\d+))?")
# llama2.c's run.c and its ports: `achieved tok/s: 0.376868` (llama2.cu adds `. Tokens: 165, seconds: 4.897`). The
# tokens are the forward passes after the first, prompt tokens included (run.c feeds the prompt a token a pass), over
# the time since that first pass: a single-token step's rate.
_LLAMA2C = re.compile(r"achieved tok/s:\s*(\d+(?:\.\d+)?)(?:\.?\s*Tokens:\s*(\d+),\s*seconds:\s*(\d+(?:\.\d+)?))?")
# gpt-fast / torchchat generate: `Time for inference 1: 0.89 sec total, 200 tokens, 223.93 tokens/sec, 4.47 ms/token`
# (older gpt-fast: `Time for inference 1: 0.89 sec total, 223.93 tokens/sec`; torchtune's generate recipe, built on it,
# numbers no run: `Time for inference: 25.33 sec total, 11.84 tokens/sec`).
_GPTFAST = re.compile(r"Time for inference(?: \d+)?:\s*([\d.]+) sec total,\s*(?:(\d+) tokens,\s*)?([\d.]+) tokens/sec")
# torchchat generate since late 2024, a block a run: `Generated 74 tokens`, `Time for inference 3: 1.9990 sec total`,
# `Time to first token: 0.1759 sec with parallel prefill.`, then throughputs, the last `Next token throughput:
# 40.5893 tokens/sec, 0.0246 s/token` (the tokens after the first).
_TORCH_GENERATED = re.compile(r"^\s*Generated (\d+) tokens\s*$")
_TORCH_TOTAL = re.compile(r"Time for inference(?: \d+)?:\s*([\d.]+) sec total\s*$")
_TORCH_FIRST = re.compile(r"^\s*Time to first token:\s*([\d.]+) sec")
_TORCH_NEXT = re.compile(r"^\s*Next token throughput:\s*[\d.]+ tokens/sec,\s*([\d.]+) s/token")
# mlx_lm.benchmark: `Timing with prompt_tokens=2048 and generation_tokens=128.` then one line per trial.
# (`Timing with prompt_tokens=512 and generation_tokens=128`; 2025 on `prompt_tokens=2048, generation_tokens=2048,
# batch_size=1`)
_MLX_BENCH_SHAPE = re.compile(r"prompt_tokens=(\d+)(?: and|,) generation_tokens=(\d+)")
_MLX_BENCH_TRIAL = re.compile(r"^\s*Trial \d+:\s*prompt_tps=([\d.]+),\s*generation_tps=([\d.]+)")
# Its Averages line repeats the trials above it; an excerpt may keep only it (`Pre: Averages: prompt_tps=…`).
_MLX_BENCH_AVERAGES = re.compile(r"\bAverages:\s*prompt_tps=([\d.]+),\s*generation_tps=([\d.]+)")
# The command names the lengths when the `Timing with` line is not in the excerpt: `-p 2048 -g 128`.
_MLX_BENCH_COMMAND = re.compile(r"mlx_lm[._ ]benchmark\b.*?(?:-p|--prompt-tokens)[ =](\d+).*?"
                                r"(?:-g|--generation-tokens)[ =](\d+)")
# mlx_lm generate --verbose.
# Each phase on its line, or both on one (`… --> Prompt: 140.416 tokens-per-sec / Generation: 24.049 tokens-per-sec`,
# a poster's summary of several builds, a block a line).
_MLX_RATE = re.compile(r"(?:^\s*|\s)(Prompt|Generation):\s*(?:(\d+) tokens,\s*)?([\d.]+) tokens-per-sec")
_MLX_PEAK = re.compile(r"^\s*Peak memory:\s*([\d.]+) GB")
# koboldcpp: `Name:value` fields, a value either `1754/8192` or `25.05s`, then an optional `(14.9ms/T = 66.89T/s)`.
_KOBOLD_FIELD = re.compile(r"\b(CtxLimit|ContextLimit|Amt|Init|Processing|Process|Generation|Generate|Total):\s*"
                           r"([\d.]+)(?:/(\d+))?s?(?:\s*\(([^)]*)\))?")
_KOBOLD_PROGRESS = re.compile(r"^\s*(Processing Prompt|Generating)\b[^(]*\(\s*(\d+)\s*/\s*(\d+) tokens\)")
_MS_PER_TOKEN = re.compile(r"([\d.]+)ms/T")
_PER_SECOND = re.compile(r"([\d.]+)T/s")
# TabbyAPI common/gen_logging.py log_metrics.
# The `Metrics: ` prefix is often left out of a paste: the parenthesised breakdown (Queue, Process, Generate) names it.
_TABBY = re.compile(r"(?:Metrics(?: \(ID: [^)]*\))?: )?(\d+) tokens generated in ([\d.]+) seconds\s*\((.*)\)")
_TABBY_QUEUE = re.compile(r"Queue:\s*([\d.]+) s")
_TABBY_PROCESS = re.compile(r"Process: (?:(\d+) cached tokens and (\d+) new tokens at )?([\d.]+|Indeterminate) T/s")
_TABBY_GENERATE = re.compile(r"Generate: ([\d.]+|Indeterminate) T/s")
_TABBY_CONTEXT = re.compile(r"Context: (\d+) tokens")
_TABBY_DRAFT = re.compile(r"Draft: (\d+) / (\d+) tokens accepted")
# benchmark_genai: label -> metric stem (statistics follow as _mean / _std).
_GENAI = re.compile(r"^\s*(Load time|Generate time|Tokenization time|Detokenization time|TTFT|TPOT|"
                    r"Throughput(?: tokens/s)?)\s*:\s*(.+)$")
_GENAI_METRIC = {"Generate time": "e2e_seconds", "TTFT": "ttft_seconds", "TPOT": "tpot_seconds"}
# A wrapped line joins its next lines until its pattern matches, at most this many.
_LLM_BENCH_SIZES = re.compile(r"\[(warm-up|\d+)\](?:\[P(\d+)\])?\s+Input token size: (\d+), Output size: (\d+)"
                              r".*?Generation Time: ([\d.]+)s")
_LLM_BENCH_AVERAGE = re.compile(r"\[Average\](?:\s*P\[(\d+)\])?\s+Input token size: (\d+), \**1st token latency: "
                                r"\**([\d.]+|NA) ms/(\d*)tokens?\**, \**2nd token latency: \**([\d.]+|NA) ms/\d*tokens?")
_LLM_BENCH_TOKENS = re.compile(r"\[(warm-up|\d+)\](?:\[P(\d+)\])?\s+First token latency: ([\d.]+|NA) ms/(\d*)tokens?, "
                               r"other tokens latency: ([\d.]+|NA) ms/")
_EXLLAMA = re.compile(r"Response generated in ([\d.]+) seconds, (\d+) tokens, [\d.]+ tokens/second")
# ExLlamaV2's streaming examples (and LangChain's ExLlamaV2 wrapper) time the prompt on a line of its own first:
# `Prompt processed in 0.04 seconds, 36 tokens, 807.38 tokens/second`; the response line after it is then the decode.
_EXLLAMA_PROMPT = re.compile(r"Prompt processed in ([\d.]+) seconds, (\d+) tokens, [\d.]+ tokens/second")
_EXLLAMA_LENGTH = re.compile(r"^\s*\*\* Length\s+(\d+) tokens:\s+([\d.]+) t/s\s*$")
_EXLLAMA_POSITION = re.compile(r"^\s*\*\* Position\s+(\d+) \+ (\d+) tokens:\s+([\d.]+) t/s\s*$")
_EXLLAMA_PHASE = re.compile(r"^\s*-- (?:(Inference, first pass)|Generating (\d+) tokens(?:, (\d+) token prompt)?)")
_EXLLAMA_TIME = re.compile(r"^\s*\*\* Time, (Load model|Inference): ([\d.]+) seconds")
_EXLLAMA_SPEED = re.compile(r"^\s*\*\* Speed: ([\d.]+) tokens/second")
# gpt-fast style generate loops (fish-speech's semantic-token LM): `Generated 43 tokens in 37.66 seconds, 1.14
# tokens/sec`, then often `Bandwidth achieved: 0.56 GB/s` (model bytes × tokens/s, its own figure).
_GENERATED = re.compile(r"Generated (\d+) tokens in ([\d.]+) seconds, [\d.]+ tokens/sec")
# Xinference's transformers engine, a request's decode: `Average generation speed: 0.33 tokens/s.` (bold in a paste)
_XINFERENCE = re.compile(r"Average generation speed:\s*\**\s*([\d.]+)\s*tokens/s")
_BANDWIDTH = re.compile(r"Bandwidth achieved: ([\d.]+) ?GB/s")
_KTRANSFORMERS = re.compile(r"Performance\(T/s\): prefill ([\d.]+), decode ([\d.]+)\. Time\(s\): tokenize ([\d.]+), "
                            r"prefill ([\d.]+), decode ([\d.]+)")
_ITEM_DONE = re.compile(r"^\s*(?:Finished|Completed|Processed|Done)\b[^\d\n]{0,40}\b(\d+) ?(?:of|/) ?(\d+) in "
                        r"([\d.]+) ?(?:s|secs?|seconds)\b")
_MLC_STATS = re.compile(r"\b(?:prefill|encode): ([\d.]+) tok/s, decod(?:e|ing): ([\d.]+) tok/s"
                        r"(?: \(Prompt: (\d+) / Gen: (\d+)\))?")
_IPEX_FIRST = re.compile(r"First token cost:? ([\d.]+) ?s\b")
_IPEX_REST = re.compile(r"[Rr]est tokens? cost average:? ([\d.]+) ?s\b(?: \((\d+) tokens in all\))?")
_IPEX_MEMORY = re.compile(r"\band ([\d.]+) GB=")
_CLUB_RUN = re.compile(r"\[bench\] ([\w-]+) run \d+/\d+: (\d+) tok in ([\d.]+)s \(([\d.]+) decode TPS, ttft (\d+)ms\)")
_CLUB_PREFILL = re.compile(r"\[bench\] ([\w-]+) run \d+/\d+: (\d+) prompt tok, ([\d.]+) (?:PP|prefill) tok/s, "
                          r"ttft (\d+)ms")
_AIRLLM_PASS = re.compile(r"running layers\([^)]*\):\s*100%\|[^|]*\|\s*(\d+)/(\d+) \[(?:(\d+):)?(\d+):(\d+)<")
_MLC_BENCH = re.compile(r"(?:input=(\d+) output=(\d+) )?prefill_time ([\d.]+) sec, prefill_rate ([\d.]+) tokens/sec, "
                        r"decode_time ([\d.]+) sec, decode_rate ([\d.]+) tokens/sec")
_EDGE_FIELD = re.compile(r"^(Computed Tokens|Average Tokens per Run|Average Time per Run|Generated Tokens|"
                         r"Tokens/Second|Average Time per Token):\s*([\d.]+)")
_CANDLE_PROMPT = re.compile(r"^\s*(\d+) prompt tokens processed: ([\d.]+) token/s")
_CANDLE_GENERATED = re.compile(r"^\s*(\d+) tokens generated: ([\d.]+) token/s")
_ORT_TIMINGS = re.compile(r"Prompt length: (\d+), New tokens: (\d+), Time to first: ([\d.]+)s, Prompt tokens per "
                          r"second: [\d.]+ tps, New tokens per second: ([\d.]+) tps")
_OMLX_ROW = re.compile(r"^\s*pp(\d+)/tg(\d+)\s+([\d.]+)\s+([\d.]+)\s+([\d.]+) tok/s\s+([\d.]+) tok/s\s+([\d.]+)\s+"
                       r"[\d.]+ tok/s(?:\s+([\d.]+) GB)?\s*$")
# ds4-server (antirez's DwarfStar): per-request progress lines `chat ctx=0..7509:7509 prompt done 48.06s`, `chat
# ctx=8258..8308:50 gen=2044 … decoding chunk=11 t/s avg=13.15 t/s 155.42s` (gen and its seconds cumulative, the
# decode alone) and the end `chat ctx=0..69865:69865 gen=512 … finish=length 542.528s` (the whole request); `completion`
# for the completions endpoint; flags (`TOOLS`, `THINKING`) may follow the context span.
_DS4_DONE = re.compile(r"ds4-server: (?:chat|completion) ctx=\d+\.\.\d+:(\d+)(?: [A-Z_]+)* prompt done ([\d.]+)s")
_DS4_DECODE = re.compile(r"ds4-server: (?:chat|completion) ctx=\S+ gen=(\d+)\b.*?decoding chunk=[\d.]+ t/s "
                         r"avg=([\d.]+) t/s ([\d.]+)s")
_DS4_FINISH = re.compile(r"ds4-server: (?:chat|completion) ctx=\d+\.\.\d+:(\d+) gen=(\d+)\b.*?finish=\S+ ([\d.]+)s")
_MAX_CONTINUATION = 2


def _rate_phase(tokens: float | None, rate: float | None, metrics: dict, seconds: str, count: str, per_second: str):
    """A phase printed as count and rate: the rate, the count, and the phase time they imply (count ÷ rate)."""
    if rate is not None and rate > 0:
        metrics[per_second] = rate
        if tokens is not None:
            metrics[seconds] = tokens / rate
    if tokens is not None:
        metrics[count] = tokens


def _club_bench(line_number: int, line: str) -> Record | None:
    """One run of club-3090's bench script: a generating run (its tokens, time, decode rate and first token) or a
    prompt run (its prompt, rate and first token, the whole of it)."""
    run = _CLUB_RUN.search(line)
    if run is not None:
        kind, tokens, seconds, rate, ttft_ms = run.groups()
        metrics = {"output_tokens": float(tokens), "e2e_seconds": float(seconds), "ttft_seconds": float(ttft_ms) / 1000,
                   "generation_tokens_per_second": float(rate)}
        if float(rate) > 0:
            metrics["decode_seconds"] = float(tokens) / float(rate)
            metrics["tpot_seconds"] = 1 / float(rate)
    else:
        prefill = _CLUB_PREFILL.search(line)
        if prefill is None:
            return None
        kind, tokens, rate, ttft_ms = prefill.groups()
        metrics = {"input_tokens": float(tokens), "prompt_tokens_per_second": float(rate),
                   "ttft_seconds": float(ttft_ms) / 1000, "prefill_seconds": float(ttft_ms) / 1000}
    return Record("request", "club-3090.bench", line_number, metrics, labels={"tool": "club-3090 bench", "run": kind})


def _airllm_pass(line_number: int, match) -> Record | None:
    """One finished airllm forward pass: the time a token costs when every layer is streamed in for it."""
    done, total, hours, minutes, seconds = match.groups()
    if done != total:
        return None
    elapsed = int(hours or 0) * 3600 + int(minutes) * 60 + int(seconds)
    return Record("request", "airllm.pass", line_number, {"tpot_seconds": float(elapsed)},
                  labels={"engine": "airllm", "layers": int(total),
                          "tpot_definition": "one forward pass over every layer, each streamed from storage"})


def _mlc_bench(line_number: int, match) -> Record:
    """One MLC benchmark.py result: each phase's time and rate (and the counts, when printed)."""
    inputs, outputs, prefill, prompt_rate, decode, rate = match.groups()
    metrics = {"prefill_seconds": float(prefill), "prompt_tokens_per_second": float(prompt_rate),
               "decode_seconds": float(decode), "generation_tokens_per_second": float(rate)}
    if float(rate) > 0:
        metrics["tpot_seconds"] = 1 / float(rate)
    if inputs is not None:
        metrics.update(input_tokens=float(inputs), output_tokens=float(outputs))
    return Record("request", "mlc-llm.benchmark", line_number, metrics, labels={"engine": "mlc-llm"})


class _EdgeProfile:
    """TensorRT-Edge-LLM's --dumpProfile summary, read section by section into one request."""

    def __init__(self, line_number: int):
        self.line_number = line_number
        self.section = ""
        self.fields: dict = {}

    def feed(self, line: str) -> None:
        stripped = line.strip()
        if stripped.startswith("=== "):
            self.section = "prefill" if "Prefill" in stripped else "generation" if "Generation" in stripped else ""
            return
        match = _EDGE_FIELD.match(stripped)
        if match is not None and self.section:
            self.fields[(self.section, match.group(1))] = float(match.group(2))

    def record(self) -> Record | None:
        fields = self.fields
        metrics: dict = {}
        tokens = fields.get(("prefill", "Average Tokens per Run"), fields.get(("prefill", "Computed Tokens")))
        if tokens is not None:
            metrics["input_tokens"] = tokens
        if ("prefill", "Average Time per Run") in fields:
            metrics["prefill_seconds"] = fields[("prefill", "Average Time per Run")] / 1000
        generated = fields.get(("generation", "Average Tokens per Run"), fields.get(("generation", "Generated Tokens")))
        if generated is not None:
            metrics["output_tokens"] = generated
        if ("generation", "Tokens/Second") in fields:
            metrics["generation_tokens_per_second"] = fields[("generation", "Tokens/Second")]
        if ("generation", "Average Time per Token") in fields:
            metrics["tpot_seconds"] = fields[("generation", "Average Time per Token")] / 1000
            if generated:
                metrics["decode_seconds"] = metrics["tpot_seconds"] * generated
        if not metrics:
            return None
        return Record("request", "tensorrt-edge-llm.profile", self.line_number, metrics,
                      labels={"engine": "tensorrt-edge-llm"})


class _Ds4:
    """One ds4-server request being read from its progress lines: the prompt's time (`prompt done`), the decode's
    cumulative count and seconds (`decoding chunk`), and its end (`finish=`, the whole request's seconds)."""

    def __init__(self):
        self.prompt: tuple | None = None  # (tokens, seconds)
        self.decode: tuple | None = None  # (line number, tokens, tok/s, seconds)

    def feed(self, line_number: int, line: str) -> Record | None:
        """The request's Record when `line` ends it, else None (the line's numbers kept)."""
        if (done := _DS4_DONE.search(line)) is not None:
            self.prompt = (float(done.group(1)), float(done.group(2)))
        elif (decode := _DS4_DECODE.search(line)) is not None:
            self.decode = (line_number, float(decode.group(1)), float(decode.group(2)), float(decode.group(3)))
        elif (finish := _DS4_FINISH.search(line)) is not None:
            metrics = {"input_tokens": float(finish.group(1)), "output_tokens": float(finish.group(2)),
                       "e2e_seconds": float(finish.group(3))}
            return self._record(line_number, metrics)
        return None

    def close(self) -> Record | None:
        """A request cut before its end: its decode as far as it went."""
        if self.decode is None:
            return None
        return self._record(self.decode[0], {"output_tokens": self.decode[1]}, cut=True)

    def _record(self, line_number: int, metrics: dict, cut: bool = False) -> Record:
        if self.prompt is not None:
            metrics.setdefault("input_tokens", self.prompt[0])
            metrics["prefill_seconds"] = self.prompt[1]
        if self.decode is not None and self.decode[2] > 0:
            metrics["decode_seconds"] = self.decode[3]
            metrics["generation_tokens_per_second"] = self.decode[2]
            metrics["tpot_seconds"] = 1 / self.decode[2]
            if "prefill_seconds" not in metrics and metrics.get("e2e_seconds", 0) > self.decode[3]:
                # One request at a time: its end's seconds less its decode's are its prompt's (`prompt done` cut away).
                metrics["prefill_seconds"] = metrics["e2e_seconds"] - self.decode[3]
        self.prompt = self.decode = None
        labels = {"engine": "ds4-server"}
        if cut:
            labels["truncated"] = "decode progress with no end line"
        return Record("request", "ds4-server", line_number, metrics, labels=labels)


def _both_phases(prompt: float | None, prompt_rate: float | None, output: float | None,
                 rate: float | None) -> dict:
    """A run printed as each phase's count and rate: the rates, the counts, each phase's time, and the per-token time
    the generation rate implies."""
    metrics: dict = {}
    _rate_phase(prompt, prompt_rate, metrics, "prefill_seconds", "input_tokens", "prompt_tokens_per_second")
    _rate_phase(output, rate, metrics, "decode_seconds", "output_tokens", "generation_tokens_per_second")
    if metrics.get("generation_tokens_per_second"):
        metrics["tpot_seconds"] = 1 / metrics["generation_tokens_per_second"]
    return metrics


def _textgen(line_number: int, line: str) -> Record | None:
    match = _TEXTGEN.search(line)
    if match is None:
        return None
    seconds, rate, tokens, context = match.groups()
    # The whole generate() call, prompt processing included; its tokens/s is output ÷ that time, not a decode rate.
    metrics = {"e2e_seconds": float(seconds), "output_tokens": float(tokens),
               "output_tokens_per_second_per_request": float(rate)}
    if context is not None:
        metrics["input_tokens"] = float(context)  # the prompt's length in tokens ("context")
    labels = {"engine": "text-generation-webui",
              "rate_definition": "tokens/s is output tokens over the whole call, prompt processing included"}
    return Record("request", "local.textgen", line_number, metrics, labels=labels)


def _llama2c(line_number: int, line: str) -> Record | None:
    match = _LLAMA2C.search(line)
    if match is None or not float(match.group(1)):
        return None
    rate, tokens, seconds = match.groups()
    metrics = {"generation_tokens_per_second": float(rate), "tpot_seconds": 1 / float(rate)}
    if tokens is not None:
        metrics.update(output_tokens=float(tokens), decode_seconds=float(seconds))
    return Record("request", "local.llama2c", line_number, metrics,
                  labels={"engine": "llama2.c", "rate_definition": "forward passes after the first (prompt tokens "
                                                                    "included, one a pass) over their time"})


def _gptfast(line_number: int, line: str) -> Record | None:
    match = _GPTFAST.search(line)
    if match is None:
        return None
    seconds, tokens, rate = match.groups()
    # The whole generate() call, prefill included: its tokens/sec (and ms/token) is output over that time.
    metrics = {"e2e_seconds": float(seconds), "output_tokens_per_second_per_request": float(rate)}
    if tokens is not None:
        metrics["output_tokens"] = float(tokens)
    elif float(rate) > 0:
        # Releases before mid-2024 print no count: tokens/sec × seconds is it (to the rate's two decimals).
        metrics["output_tokens"] = float(round(float(rate) * float(seconds)))
    labels = {"engine": "gpt-fast", "rate_definition": "tokens/sec is output tokens over the whole call"}
    return Record("request", "local.gpt-fast", line_number, metrics, labels=labels)


def _torchchat(run: dict) -> Record:
    """A torchchat generate block's request: its whole time, first token and time per later token."""
    labels = {"engine": "torchchat", "rate_definition": "next-token throughput: the tokens after the first"}
    return Record("request", "local.torchchat", run.pop("line"), run, labels=labels)


def _mlc_stats(line_number: int, match) -> Record:
    """MLC LLM's or WebLLM's rates of one reply; WebLLM's counts give each phase its time."""
    prompt_rate, decode_rate, prompt_tokens, generated = match.groups()
    metrics = {"prompt_tokens_per_second": float(prompt_rate), "generation_tokens_per_second": float(decode_rate)}
    if prompt_tokens is not None:
        _rate_phase(float(prompt_tokens), float(prompt_rate), metrics, "prefill_seconds", "input_tokens",
                    "prompt_tokens_per_second")
        _rate_phase(float(generated), float(decode_rate), metrics, "decode_seconds", "output_tokens",
                    "generation_tokens_per_second")
    return Record("request", "mlc-llm.stats", line_number, metrics, labels={"engine": "mlc-llm"})


_MLC_SECTION = re.compile(r"^\s*-{3,}\s*(prefill|decode)\s*-{3,}\s*$")
_MLC_FIELD = re.compile(r"^\s*(throughput|total tokens|total time):\s*(\d+(?:\.\d+)?)\s*(tok/s|tok|s)\s*$")
_MLC_PHASE = {"prefill": ("input_tokens", "prefill_seconds", "prompt_tokens_per_second"),
              "decode": ("output_tokens", "decode_seconds", "generation_tokens_per_second")}


class _MlcSections:
    """MLC LLM's statistics block, a phase a section (`----- prefill -----`, `----- decode -----`), each its
    throughput, total tokens and total time: one request Record when the decode section's time is read."""

    def __init__(self):
        self.line_number = None
        self.phase = None
        self.metrics: dict = {}

    def feed(self, line_number: int, line: str) -> Record | None:
        section = _MLC_SECTION.match(line)
        if section is not None:
            if section.group(1) == "prefill":
                self.line_number, self.metrics = line_number, {}
            self.phase = section.group(1)
            return None
        field = _MLC_FIELD.match(line) if self.phase else None
        if field is None:
            return None
        count, seconds, rate = _MLC_PHASE[self.phase]
        name = {"throughput": rate, "total tokens": count, "total time": seconds}[field.group(1)]
        self.metrics[name] = float(field.group(2))
        if self.phase == "decode" and name == seconds:
            self.phase = None
            return Record("request", "mlc-llm.stats", self.line_number or line_number, self.metrics,
                          labels={"engine": "mlc-llm"})
        return None


def _mlx_trial(line_number: int, line: str, shape: tuple | None, pattern=_MLX_BENCH_TRIAL) -> Record | None:
    """One mlx_lm.benchmark trial (or the average of a run's trials): the rates of both phases at the prompt and
    generation lengths stated above."""
    match = pattern.search(line)
    if match is None or shape is None:
        return None
    metrics = _both_phases(shape[0], float(match.group(1)), shape[1], float(match.group(2)))
    return Record("request", "local.mlx-benchmark", line_number, metrics, labels={"engine": "mlx"})


def _generated(line_number: int, match, bandwidth) -> Record:
    """A gpt-fast style loop's one generation: its tokens over the whole call, and the bandwidth it reports."""
    metrics = {"e2e_seconds": float(match.group(2)), "output_tokens": float(match.group(1))}
    if bandwidth is not None:
        metrics["weight_read_bytes_per_second"] = float(bandwidth.group(1)) * 1e9
    return Record("request", "local.generate-loop", line_number, metrics, labels={"engine": "gpt-fast style loop"})


def _ktransformers(line_number: int, match) -> Record:
    """KTransformers' one-request line: each phase's rate and time, so each phase's token count (rate × time)."""
    prompt_rate, decode_rate, tokenize, prefill, decode = (float(value) for value in match.groups())
    metrics = {"prompt_tokens_per_second": prompt_rate, "generation_tokens_per_second": decode_rate,
               "prefill_seconds": prefill, "decode_seconds": decode, "e2e_seconds": tokenize + prefill + decode}
    if prompt_rate > 0:
        metrics["input_tokens"] = float(round(prompt_rate * prefill))
    if decode_rate > 0:
        metrics["output_tokens"] = float(round(decode_rate * decode))
        metrics["tpot_seconds"] = 1 / decode_rate
    return Record("request", "ktransformers", line_number, metrics, labels={"engine": "ktransformers"})


def _candle(line_number: int, prompt, generated) -> Record:
    """candle's example run: each phase's count and rate (the prompt line may be missing)."""
    tokens, rate = (float(prompt.group(1)), float(prompt.group(2))) if prompt is not None else (None, None)
    metrics = _both_phases(tokens, rate, float(generated.group(1)), float(generated.group(2)))
    return Record("request", "candle.example", line_number, metrics, labels={"engine": "candle"})


class _ExllamaBench:
    """exllama's (v1) benchmark script: its phase lines say what the next `** Speed:` line measures."""

    def __init__(self):
        self.phase = None  # "first" or (generated tokens, prompt tokens or None) of the last phase line
        self.labels = {"engine": "exllama", "tool": "test_benchmark_inference"}

    def read(self, line_number: int, line: str) -> list | None:
        """None when the line is not the script's; else the records it completes (a generating phase's rate)."""
        phase = _EXLLAMA_PHASE.match(line)
        if phase is not None:
            self.phase = "first" if phase.group(1) else (float(phase.group(2)), phase.group(3))
            return []
        timed = _EXLLAMA_TIME.match(line)
        if timed is not None:
            key = "load_seconds" if timed.group(1) == "Load model" else "first_pass_seconds"
            self.labels = {**self.labels, key: timed.group(2)}
            return []
        speed = _EXLLAMA_SPEED.match(line)
        if speed is None or self.phase is None:
            return None
        if self.phase == "first":
            self.labels = {**self.labels, "first_pass": f"{speed.group(1)} tok/s, the script's first forward pass "
                           "over its few prompt tokens, cold: not judged"}
            return []
        (generated, prompt), rate = self.phase, float(speed.group(1))
        if rate <= 0:
            return []
        metrics = {"output_tokens": generated, "generation_tokens_per_second": rate, "tpot_seconds": 1 / rate,
                   "decode_seconds": generated / rate}
        if prompt is not None:
            metrics["input_tokens"] = float(prompt)
        return [Record("request", "exllama.benchmark", line_number, metrics, labels=self.labels)]


def _exllamav2_speed(line_number: int, line: str) -> Record | None:
    """A line of exllamav2's speed test: a prompt's length and rate, or generated tokens after a cache position and
    their rate (the position is the context they attend to)."""
    prompt = _EXLLAMA_LENGTH.match(line)
    if prompt is not None and float(prompt.group(2)) > 0:
        metrics = _both_phases(float(prompt.group(1)), float(prompt.group(2)), None, None)
    elif (decode := _EXLLAMA_POSITION.match(line)) is not None and float(decode.group(3)) > 0:
        metrics = _both_phases(None, None, float(decode.group(2)), float(decode.group(3)))
        if int(decode.group(1)) > 1:  # position 1: the first token after BOS, no prompt
            metrics["input_tokens"] = float(decode.group(1))
    else:
        return None
    return Record("request", "exllamav2.speed-test", line_number, metrics,
                  labels={"engine": "exllamav2", "tool": "test_inference -s"})


def _ort_timings(line_number: int, match) -> Record:
    """onnxruntime-genai's --timings line: the first token's time from the start, and the new tokens over the time
    after it (its rate counts the first token too, so the time after it is new ÷ rate)."""
    prompt, new, first, rate = (float(value) for value in match.groups())
    metrics = {"input_tokens": prompt, "output_tokens": new, "ttft_seconds": first, "prefill_seconds": first}
    if first > 0:
        metrics["prompt_tokens_per_second"] = prompt / first
    if rate > 0:
        metrics.update(generation_tokens_per_second=rate, decode_seconds=new / rate, tpot_seconds=1 / rate,
                       e2e_seconds=first + new / rate)
    return Record("request", "onnxruntime-genai.timings", line_number, metrics,
                  labels={"engine": "onnxruntime-genai", "tool": "--timings"})


def _executorch(line_number: int, line: str) -> Record | None:
    """ExecuTorch's PyTorchObserver line of one generate() call, or None when it is not an LLM runner's (the same
    prefix carries other JSON)."""
    try:
        stats = json.loads(line[line.index("{"):line.rindex("}") + 1])
    except ValueError:
        return None
    if not isinstance(stats, dict):
        return None
    prompt, generated = stats.get("prompt_tokens"), stats.get("generated_tokens")
    start, end = stats.get("inference_start_ms"), stats.get("inference_end_ms")
    scale = stats.get("SCALING_FACTOR_UNITS_PER_SECOND", 1000)
    if not all(isinstance(value, (int, float)) for value in (prompt, generated, start, end, scale)) or scale <= 0:
        return None

    def since(key: str, origin) -> float | None:
        value = stats.get(key)
        return (value - origin) / scale if isinstance(value, (int, float)) and isinstance(origin, (int, float)) \
            else None

    metrics = {"input_tokens": float(prompt), "output_tokens": float(generated), "e2e_seconds": (end - start) / scale}
    prefill = since("prompt_eval_end_ms", start)
    if prefill is not None:
        metrics["prefill_seconds"] = prefill
        metrics["decode_seconds"] = metrics["e2e_seconds"] - prefill
        if prefill > 0:
            metrics["prompt_tokens_per_second"] = prompt / prefill
        if metrics["decode_seconds"] > 0 and generated:
            metrics["generation_tokens_per_second"] = generated / metrics["decode_seconds"]
    first = since("first_token_ms", start)
    if first is not None:
        metrics["ttft_seconds"] = first
    labels = {"engine": "executorch", "tool": "PyTorchObserver"}
    load = since("model_load_end_ms", stats.get("model_load_start_ms"))
    if load is not None:  # before inference starts, not part of the request
        labels["model_load_seconds"] = load
    return Record("request", "executorch.stats", line_number, metrics, labels=labels)


def _omlx_row(line_number: int, match) -> Record:
    """One row of oMLX's single-request table: a request of the stated prompt and output lengths."""
    prompt, output, ttft_ms, tpot_ms, prompt_rate, rate, e2e, peak = match.groups()
    metrics = {"input_tokens": float(prompt), "output_tokens": float(output), "ttft_seconds": float(ttft_ms) / 1000,
               "prefill_seconds": float(ttft_ms) / 1000, "tpot_seconds": float(tpot_ms) / 1000,
               "prompt_tokens_per_second": float(prompt_rate), "generation_tokens_per_second": float(rate),
               "e2e_seconds": float(e2e)}
    if metrics["generation_tokens_per_second"] > 0:  # from its own rate: the E2E column is timed apart
        metrics["decode_seconds"] = metrics["output_tokens"] / metrics["generation_tokens_per_second"]
    labels = {"engine": "omlx", "tool": "benchmark"}
    if peak is not None:
        labels["peak_memory_gb"] = float(peak)
    return Record("request", "omlx.benchmark", line_number, metrics, labels=labels)


def _tabby(line_number: int, line: str) -> Record | None:
    match = _TABBY.search(line)
    if match is None:
        return None
    tokens, total, details = float(match.group(1)), float(match.group(2)), match.group(3)
    metrics = {"e2e_seconds": total}  # queue + prompt + generation, as TabbyAPI adds them
    labels = {"engine": "tabbyapi"}
    queue = _TABBY_QUEUE.search(details)
    if queue:
        metrics["queue_seconds"] = float(queue.group(1))
    process = _TABBY_PROCESS.search(details)
    if process:
        cached, new, rate = process.groups()
        prompt_rate = None if rate == "Indeterminate" else float(rate)
        if new is not None:
            # Mid-2024 on: the prompt rate is over the new tokens only; cached ones cost nothing.
            _rate_phase(float(new), prompt_rate, metrics, "prefill_seconds", "input_tokens",
                        "prompt_tokens_per_second")
            metrics["cached_tokens"] = float(cached)
            metrics["input_tokens"] = float(cached) + float(new)
        elif prompt_rate is not None:
            metrics["prompt_tokens_per_second"] = prompt_rate
            labels["prompt_rate_definition"] = "over the whole prompt, cached tokens included (before mid-2024)"
    generate = _TABBY_GENERATE.search(details)
    if generate and generate.group(1) != "Indeterminate" and float(generate.group(1)) > 0:
        rate = float(generate.group(1))
        _rate_phase(tokens, rate, metrics, "decode_seconds", "output_tokens", "generation_tokens_per_second")
        metrics["tpot_seconds"] = 1.0 / rate
    metrics.setdefault("output_tokens", tokens)
    context = _TABBY_CONTEXT.search(details)
    if context:
        metrics.setdefault("input_tokens", float(context.group(1)))  # the prompt's token count
    draft = _TABBY_DRAFT.search(details)
    if draft and int(draft.group(2)) > 0:
        metrics["spec_acceptance_fraction"] = int(draft.group(1)) / int(draft.group(2))
    return Record("request", "local.tabbyapi", line_number, metrics, labels=labels)


def _kobold(line_number: int, line: str, progress: dict) -> Record | Skipped:
    """The per-request koboldcpp line; `progress` holds the prompt and generated counts of the lines before it."""
    line = line.replace("**", "")  # a paste's bold markup around a figure (`Processing:**33.7s (188ms/T)**`)
    fields = {name: (value, limit, detail) for name, value, limit, detail in _KOBOLD_FIELD.findall(line)}
    if "Total" not in fields or not ({"Process", "Processing"} & set(fields)):
        return Skipped(line_number, "koboldcpp timing line without Process and Total times", NAME)
    metrics: dict = {}
    labels = {"engine": "koboldcpp"}
    for name, (value, limit, detail) in fields.items():
        number = float(value)
        if name in ("CtxLimit", "ContextLimit"):
            metrics["context_tokens"] = number  # context held when the request ended
            if limit:
                labels["context_limit"] = limit
                metrics["context_limit_tokens"] = float(limit)  # the runner's context window (its KV cache)
        elif name == "Amt":
            metrics["output_tokens"] = number  # generated / requested
            if limit:
                labels["requested_tokens"] = limit
        elif name == "Init":
            labels["init_seconds"] = value
        elif name == "Total":
            metrics["e2e_seconds"] = number  # prompt + generation; Init is not in it
        else:
            prompt = name in ("Process", "Processing")
            metrics["prefill_seconds" if prompt else "decode_seconds"] = number
            rate = _PER_SECOND.search(detail)
            if rate:
                metrics["prompt_tokens_per_second" if prompt else "generation_tokens_per_second"] = float(rate.group(1))
            per_token = _MS_PER_TOKEN.search(detail)
            if per_token and not prompt:
                metrics["tpot_seconds"] = float(per_token.group(1)) / 1000.0
    if "Processing Prompt" in progress:
        metrics["input_tokens"] = progress["Processing Prompt"]
    if "Generating" in progress:
        counted = progress["Generating"]
        grown = metrics.get("context_tokens", 0) - metrics.get("input_tokens", 0)
        if 0 < grown < counted:
            # The context grew by fewer tokens than the counter says: early-2024 releases print `Generating (1025 /
            # 1024 tokens)` for a 60-token reply (LostRuins/koboldcpp#619); what the context kept was generated.
            counted = grown
        metrics.setdefault("output_tokens", counted)
    generated, decode = metrics.get("output_tokens"), metrics.get("decode_seconds")
    if generated and decode:
        # From the counts: koboldcpp 1.57-1.66 divided the generation time by the requested amount, not the
        # generated one (LostRuins/koboldcpp#852), so its own rate and ms/T overstate a run that stopped early.
        metrics["generation_tokens_per_second"] = generated / decode
        metrics["tpot_seconds"] = decode / generated
    return Record("request", "local.koboldcpp", line_number, metrics, labels=labels)


_KOBOLD_CSV_HEADER = "ProcessingTime,ProcessingSpeed"
# The same benchmark's console summary, one `Key: value` a line (ProcessingTime: 52.206s ... TotalTime: 57.234s).
_KOBOLD_BENCH_LINE = re.compile(r"^\s*(ProcessingTime|ProcessingSpeed|GenerationTime|GenerationSpeed|TotalTime|"
                                r"GenAmount|Backend|Model):\s*([\d.]+)\s*(?:s|T/s)?\s*$|^\s*(Backend|Model):\s*(\S.*)$")


def _kobold_csv(line_number: int, columns: list, line: str) -> Record | Skipped:
    """One koboldcpp --benchmark CSV row: the prompt is ProcessingTime × ProcessingSpeed tokens (the benchmark fills
    the context less GenAmount), GenAmount tokens are generated."""
    row = dict(zip(columns, line.split(","), strict=False))
    try:
        prefill, prompt_rate = float(row["ProcessingTime"]), float(row["ProcessingSpeed"])
        decode, rate = float(row["GenerationTime"]), float(row["GenerationSpeed"])
    except (KeyError, ValueError):
        return Skipped(line_number, "koboldcpp benchmark row without its times and speeds", NAME)
    metrics = {"prefill_seconds": prefill, "prompt_tokens_per_second": prompt_rate, "input_tokens": prefill * prompt_rate,
               "decode_seconds": decode, "generation_tokens_per_second": rate}
    if rate > 0:
        metrics["tpot_seconds"] = 1.0 / rate
    if to_number(row.get("GenAmount", "")):
        metrics["output_tokens"] = float(row["GenAmount"])
    if to_number(row.get("TotalTime", "")):
        metrics["e2e_seconds"] = float(row["TotalTime"])
    labels = {"engine": "koboldcpp", "tool": "koboldcpp --benchmark"}
    if row.get("Model"):
        labels["model"] = row["Model"]
    if row.get("Backend"):
        labels["backend"] = row["Backend"]
    return Record("request", "local.koboldcpp", line_number, metrics, labels=labels)


def _kobold_progress(line: str, progress: dict) -> None:
    """`Processing Prompt [BLAS] (512 / 1676 tokens)` / `Generating (78 / 387 tokens)`: the latest counts."""
    match = _KOBOLD_PROGRESS.match(line)
    if match is None:
        return
    name, done, total = match.groups()
    # The prompt is processed whole (its total counts); generation may stop early (what was done counts).
    progress[name] = float(total if name == "Processing Prompt" else done)


def _mean_std(text: str) -> tuple[float | None, float | None, str]:
    """`1430.77 ± 3.04 ms` or `47.89 ± 1.07 tokens/s` -> (mean, std, unit word)."""
    before, _, after = text.partition("±")
    means, stds = NUMBER.findall(before), NUMBER.findall(after)
    mean = to_number(means[0]) if means else None
    std = to_number(stds[0]) if stds else None
    words = text.replace("±", " ").split()
    unit = words[-1] if words and not any(char.isdigit() for char in words[-1]) else ""
    return mean, std, unit


class _Genai:
    """A benchmark_genai block, emitted at its Throughput line (the last it prints) or when the file ends."""

    def __init__(self, line_number: int):
        self.line_number = line_number
        self.metrics: dict = {}

    def add(self, label: str, text: str) -> bool:
        mean, std, unit = _mean_std(text)
        if mean is None:
            return False
        if label.startswith("Throughput"):
            self.metrics["output_tokens_per_second"] = mean
            if std is not None:
                self.metrics["output_tokens_per_second_std"] = std
            return True
        scale = TIME_UNITS.get(unit)
        if scale is None:
            return False
        if label == "Load time":
            self.metrics["load_seconds"] = mean * scale  # model load, once, before the iterations
        elif label in _GENAI_METRIC:
            stem = _GENAI_METRIC[label]
            self.metrics[f"{stem}_mean"] = mean * scale
            if std is not None:
                self.metrics[f"{stem}_std"] = std * scale
        return True  # tokenization times: read, not used

    def record(self) -> Record | None:
        metrics = self.metrics
        if not metrics:
            return None
        rate, seconds = metrics.get("output_tokens_per_second"), metrics.get("e2e_seconds_mean")
        if rate and seconds:
            # benchmark_genai times one batch-1 generate() per iteration and its throughput is that call's tokens
            # over its time, so tokens per generation = rate × generate time.
            metrics["mean_output_tokens"] = rate * seconds
        return Record("summary", "bench.benchmark_genai", self.line_number, metrics,
                      labels={"tool": "benchmark_genai", "batch_size": "1"})


class _Mlx:
    """An mlx_lm block (Prompt, Generation, Peak memory), emitted when the next one starts or the file ends."""

    def __init__(self, line_number: int):
        self.line_number = line_number
        self.metrics: dict = {}

    def record(self) -> Record | None:
        metrics = self.metrics
        if not metrics:
            return None
        if "prefill_seconds" in metrics and "decode_seconds" in metrics:
            metrics["e2e_seconds"] = metrics["prefill_seconds"] + metrics["decode_seconds"]
        labels = {"engine": "mlx_lm", "phase_times": "derived here: tokens ÷ tokens-per-sec"}
        return Record("request", "local.mlx_lm", self.line_number, metrics, labels=labels)


def _mlx_line(line: str, block: _Mlx) -> bool:
    matches = list(_MLX_RATE.finditer(line))
    for match in matches:
        phase, tokens, rate = match.groups()
        count = float(tokens) if tokens else None
        if phase == "Prompt":
            _rate_phase(count, float(rate), block.metrics, "prefill_seconds", "input_tokens",
                        "prompt_tokens_per_second")
        else:
            _rate_phase(count, float(rate), block.metrics, "decode_seconds", "output_tokens",
                        "generation_tokens_per_second")
            if float(rate) > 0:
                block.metrics["tpot_seconds"] = 1.0 / float(rate)
    if matches:
        return True
    match = _MLX_PEAK.match(line)
    if match:
        block.metrics["peak_memory_bytes"] = float(match.group(1)) * 1e9  # mlx_lm: get_peak_memory() / 1e9
        return True
    return False


_MLX_PROGRESS = re.compile(r"Prompt processing progress:\s*(\d+)\s*/\s*(\d+)")
# MLC LLM's C++ chat runtime, one line per decode step: `llm_chat.cc:689: [i: 166] decoding-time=8.72583ms tok/s:
# 117.286.` (the tok/s is the running average since the first step).
_MLC_STEP = re.compile(r"\[i: (\d+)\] decoding-time=([\d.]+)ms")


# tinygrad's examples/llama.py --timing, per generated token: `ran model in 17725.62 ms` (or, in other releases,
# `enqueue in  17.80 ms`: the host's time to schedule and launch the step's kernels) then `total 17726.15 ms,
# 0.06 tok/sec` (the step with sampling and decoding; later releases: `total 306.70 ms, 3.26 tok/s, 353.75 GB/s,
# param 16.43 GB/s`).
_TINYGRAD_STEP = re.compile(r"^total\s+([\d.]+) ms, [\d.]+ tok/s(?:ec)?\b")
# distributed-llama's line a token: `🔶 G  420 ms I  418 ms T    0 ms S      0 kB R      0 kB Hello` (the step's
# whole time, its inference and its transfer between the nodes, then the bytes sent and received).
_DLLAMA_STEP = re.compile(r"^🔶 G\s+(\d+) ms I\s+\d+ ms T\s+\d+ ms")
_TINYGRAD_ENQUEUE = re.compile(r"^enqueue in\s+([\d.]+) ms")


class _DecodeSteps:
    """A runner's per-token step lines of one generation (MLC's decode-step lines, tinygrad's --timing totals): one
    request record, its time per token the mean step."""

    def __init__(self, source: str, engine: str):
        self.source, self.engine = source, engine
        self.first_line: int | None = None
        self.times: list = []
        self.host_times: list = []  # the host's share of each step, where the runner prints it (tinygrad's enqueue)

    def add(self, line_number: int, seconds: float) -> None:
        if self.first_line is None:
            self.first_line = line_number
        self.times.append(seconds)

    def record(self) -> Record | None:
        decode = sum(self.times)
        if not decode:
            return None  # no step, or steps printed as 0 s: no time to read
        metrics = {"tpot_seconds": decode / len(self.times), "decode_seconds": decode,
                   "output_tokens": float(len(self.times)), "generation_tokens_per_second": len(self.times) / decode}
        if len(self.host_times) == len(self.times):
            metrics["host_seconds_per_token"] = sum(self.host_times) / len(self.host_times)
        return Record("request", self.source, self.first_line, metrics,
                      labels={"engine": self.engine, "output_tokens_definition": "decode steps shown in the excerpt"})


class _PromptSteps:
    """mlx_lm.server's prompt progress: the prompts of one step share the logger's stamp. Prompts are told apart by
    their length (the line names no request)."""

    def __init__(self):
        self.read: dict = {}  # prompt length -> tokens read at the last closed step
        self.last_stamp: float | None = None  # the last closed step's stamp
        self.step: tuple | None = None  # (line number, stamp, {prompt length: tokens read}) of the open step

    def add(self, line_number: int, line: str) -> Record | None:
        match = _MLX_PROGRESS.search(line)
        stamp = find_timestamp(line)[0] if match else None
        if stamp is None:
            return None
        done, total = int(match.group(1)), int(match.group(2))
        if self.step is not None and self.step[1] == stamp:
            self.step[2][total] = done
            return None
        record = self.close()
        self.step = (line_number, stamp, {total: done})
        return record

    def close(self) -> Record | None:
        """The open step as a window from the step before, or None for the first (no start to measure from)."""
        if self.step is None:
            return None
        line_number, stamp, done = self.step
        earlier, seconds = self.read, stamp - self.last_stamp if self.last_stamp is not None else 0.0
        read = sum(tokens - earlier[total] for total, tokens in done.items() if total in earlier)
        self.read = {**earlier, **done}
        self.last_stamp, self.step = stamp, None
        if seconds <= 0 or read <= 0:
            return None
        metrics = {"prompt_tokens_per_second": read / seconds, "generation_tokens_per_second": 0.0,
                   "running_requests": float(len(done))}
        labels = {"engine": "mlx_lm.server", "window": "prompts read together since the step before",
                  "window_seconds": round(seconds, 3),
                  "prompt_tokens_left": str(sum(total - tokens for total, tokens in done.items()))}
        return Record("interval", "local.mlx-server", line_number, metrics, stamp, labels)


# Each format's signature in a file's head: every group must be present, any one text of a group will do.
_SIGNATURES = (
    (("Output generated in",), ("tokens/s",)),  # text-generation-webui
    (("tokens-per-sec",), ("Generation:", "Prompt:")),  # mlx_lm generate
    (("CtxLimit:", "ContextLimit:", "Time Taken - Processing:"), ("Total:",)),  # koboldcpp
    ((_KOBOLD_CSV_HEADER,), ("GenerationSpeed",)),  # koboldcpp --benchmark
    (("tokens generated in",), ("Generate:",), ("T/s",)),  # TabbyAPI
    (("Generate time:",), ("TTFT:",), ("TPOT:",)),  # benchmark_genai
    (("Time for inference",), ("sec total",)),  # gpt-fast / torchchat
    (("prompt_tps=",), ("generation_tps=",)),  # mlx_lm.benchmark
    (("Prompt processing progress:",),),  # mlx_lm.server
    (("Input token size:",), ("First token latency:", "1st token latency:")),  # OpenVINO llm_bench
    (("ProcessingSpeed:",), ("GenerationSpeed:",)),  # koboldcpp --benchmark console summary
    (("tok/s, decode:", "tok/s, decoding:"), ("prefill:", "encode:")),  # MLC LLM / WebLLM runtime stats
    (("- prefill -",), ("- decode -",), ("total time:",)),  # MLC LLM's statistics block
    (("] decoding-time=",), ("tok/s:",)),  # MLC LLM's decode-step lines
    (("ran model in", "enqueue in "), ("tok/s",)),  # tinygrad's llama.py --timing
    (("🔶 G",), (" ms I ",)),  # distributed-llama's token lines
    (("Response generated in",), ("tokens/second",)),  # exllamav2 test_inference and examples
    (("-- Measuring prompt speed", "-- Measuring token speed"), (" t/s",)),  # exllamav2 test_inference -s
    ((" -- Generating ", " -- Inference, first pass"), ("** Speed: ",)),  # exllama's test_benchmark_inference
    (("Average generation speed:",), ("tokens/s",)),  # Xinference's transformers engine
    (("Performance(T/s): prefill",), ("Time(s): tokenize",)),  # KTransformers balance_serve
    (("Generated ",), ("tokens/sec",), (" tokens in ",)),  # gpt-fast style generate loops
    (("First token cost",), ("tokens cost average",)),  # IPEX-LLM BenchmarkWrapper
    (("Time to first:",), ("New tokens per second:",)),  # onnxruntime-genai --timings
    (("PyTorchObserver",), ("generated_tokens",)),  # ExecuTorch's LLM runners
    (("Single Request Results",), ("pp TPS",)),  # oMLX's benchmark
    (("tokens generated: ",), ("token/s",)),  # candle's examples
    (("[bench] ",), ("decode TPS", "prefill tok/s", "PP tok/s")),  # club-3090's bench script
    (("running layers(",), ("s/it]", "it/s]")),  # airllm's layer passes
    (("prefill_rate ",), ("decode_rate ",)),  # MLC's benchmark.py
    (("=== Performance Summary ===",), ("=== LLM Generation",)),  # TensorRT-Edge-LLM's profile
    (("ds4-server: ",), ("decoding chunk=", "prompt done ", " finish=")),  # ds4-server
    (("achieved tok/s:",),),  # llama2.c's run and its ports (llama2.cu, llama2.rs, llama2.mojo, …)
)


def sniff(head: str) -> float:
    for signature in _SIGNATURES:
        if all(any(text in head for text in group) for group in signature):
            return 0.9
    # Progress lines with a time per item: two of them, so one sentence of prose does not make a log of it.
    if len(re.findall(_ITEM_DONE.pattern, head, re.MULTILINE)) >= 2:
        return 0.6
    return 0.0


def _llm_bench(line_number: int, sizes: re.Match, tokens: re.Match) -> Record:
    """One llm_bench iteration: its sizes line and its token-latency line (same iteration and prompt). At batch B
    the latencies are per step of B tokens (`ms/Btokens`): a step gives each of the B streams one token."""
    metrics = {"input_tokens": float(sizes.group(3)), "output_tokens": float(sizes.group(4)),
               "e2e_seconds": float(sizes.group(5))}
    if tokens.group(3) != "NA":
        metrics["ttft_seconds"] = float(tokens.group(3)) / 1000
    if tokens.group(5) != "NA":
        metrics["tpot_seconds"] = float(tokens.group(5)) / 1000
    labels = {"engine": "openvino", "tool": "llm_bench"}
    if tokens.group(4):
        labels["batch"] = int(tokens.group(4))
    return Record("request", "openvino.llm-bench", line_number, metrics, labels=labels)


def _llm_bench_average(line_number: int, average: re.Match) -> Record:
    """llm_bench's average over one prompt's iterations: the prompt's size and both latencies (per step of the
    batch's B tokens, one token a stream)."""
    metrics = {"input_tokens": float(average.group(2))}
    if average.group(3) != "NA":
        metrics["ttft_seconds"] = float(average.group(3)) / 1000
    if average.group(5) != "NA":
        metrics["tpot_seconds"] = float(average.group(5)) / 1000
    labels = {"engine": "openvino", "tool": "llm_bench", "statistic": "average over the iterations"}
    if average.group(4):
        labels["batch"] = int(average.group(4))
    return Record("request", "openvino.llm-bench", line_number, metrics, labels=labels)


def _ipex(line_number: int, first: str, rest: re.Match, memory: re.Match | None) -> Record:
    """One IPEX-LLM generate() call: the first token's time (the prompt's prefill) and the mean of the rest; the
    `N tokens in all` counts the rest, so the call made N + 1."""
    metrics = {"ttft_seconds": float(first), "tpot_seconds": float(rest.group(1))}
    if rest.group(2):
        metrics["output_tokens"] = float(rest.group(2)) + 1
        metrics["e2e_seconds"] = metrics["ttft_seconds"] + float(rest.group(2)) * metrics["tpot_seconds"]
    labels = {"engine": "ipex-llm", "tool": "BenchmarkWrapper"}
    if memory is not None:
        labels["peak_memory_gb"] = float(memory.group(1))
    return Record("request", "ipex-llm", line_number, metrics, labels=labels)


def _line_kind(line: str) -> str:
    """Which one-line format a line starts, by cheap substring tests; '' for none."""
    if "Output generated in" in line:
        return "textgen"
    if "tokens generated in" in line and ("Metrics" in line or ("Queue:" in line and "Generate:" in line)):
        return "tabby"
    if "Time for inference" in line:
        return "gptfast"
    if "Process" in line and ("CtxLimit:" in line or "ContextLimit:" in line or "Time Taken - " in line):
        return "kobold"
    return ""


_WRAPPED = {"textgen": _textgen, "tabby": _tabby, "gptfast": _gptfast}


def parse(lines) -> Iterator:
    mlx: _Mlx | None = None
    genai: _Genai | None = None
    progress: dict = {}
    held: tuple | None = None  # (line_number, kind, text, continuations) of a line wrapped by its logger
    bench_shape: tuple | None = None  # mlx_lm.benchmark's (prompt, generation) tokens for the trials below
    bench_trials = 0  # mlx_lm.benchmark trials read since the last Averages line

    csv_columns: list | None = None  # koboldcpp --benchmark's header, for the rows below it
    steps = _PromptSteps()
    mlc_steps = _DecodeSteps("mlc-llm.steps", "mlc-llm")
    tinygrad_steps = _DecodeSteps("tinygrad.steps", "tinygrad")
    dllama_steps = _DecodeSteps("distributed-llama.steps", "distributed-llama")
    kobold_head: tuple | None = None  # a koboldcpp timing line whose `Total:` comes on the next line (early 2024)
    torch_generated: float | None = None  # torchchat's `Generated N tokens`, for the block after it
    torch_run: dict | None = None  # the torchchat block being read (_torchchat)
    kobold_tail: tuple | None = None  # a 2023 `Time Taken` line, its counts in the progress lines printed after it
    llm_bench: tuple | None = None  # (line number, match) of llm_bench's sizes line, waiting for its latency line
    bench_iterations = 0  # llm_bench iterations read (its Average lines are read only without them)
    generated: tuple | None = None  # (line number, match) of a `Generated N tokens` line, its bandwidth line may follow
    ipex_first: tuple | None = None  # (line number, seconds) of IPEX-LLM's first-token line, waiting for the rest
    kobold_bench: tuple | None = None  # (line number, {key: value}) of a koboldcpp --benchmark console summary
    omlx_single = False  # inside oMLX's "Single Request Results" table
    candle_prompt = None  # candle's prompt line, for the generated line after it
    edge: _EdgeProfile | None = None  # a TensorRT-Edge-LLM profile being read
    ds4 = _Ds4()  # the ds4-server request being read
    exllama = _ExllamaBench()
    exllama_prompt: tuple | None = None  # (line number, seconds, tokens) of ExLlamaV2's prompt line before a response
    mlc_sections = _MlcSections()
    for line_number, line in lines:
        if "- prefill -" in line or "- decode -" in line or (mlc_sections.phase and ":" in line):
            record = mlc_sections.feed(line_number, line)
            if record is not None:
                yield record
            if mlc_sections.phase or record is not None:
                continue
        if "ds4-server: " in line:
            record = ds4.feed(line_number, line)
            if record is not None:
                yield record
            continue
        if "[Context Shifting: Erased" in line:
            # koboldcpp's ContextShift made room at the window's end: a full context it handles, not one that blocks
            yield Record("event", "local.koboldcpp", line_number, {"context_shifts": 1.0},
                         labels={"engine": "koboldcpp"})
            continue
        if "prefill_rate " in line and "decode_rate " in line:
            match = _MLC_BENCH.search(line)
            if match is not None:
                yield _mlc_bench(line_number, match)
                continue
        if "=== Performance Summary ===" in line:
            if edge is not None and (record := edge.record()) is not None:
                yield record
            edge = _EdgeProfile(line_number)
            continue
        if edge is not None and (line.lstrip().startswith("===") or _EDGE_FIELD.match(line.strip())):
            edge.feed(line)
            continue
        if "running layers(" in line:
            match = _AIRLLM_PASS.search(line)
            if match is not None:
                record = _airllm_pass(line_number, match)
                if record is not None:
                    yield record
                continue
        if "[bench] " in line and " run " in line:
            record = _club_bench(line_number, line)
            if record is not None:
                yield record
                continue
        if "token/s" in line and ("prompt tokens processed:" in line or "tokens generated:" in line):
            prompt = _CANDLE_PROMPT.match(line)
            if prompt is not None:
                candle_prompt = prompt
                continue
            candle_generated = _CANDLE_GENERATED.match(line)
            if candle_generated is not None:
                yield _candle(line_number, candle_prompt, candle_generated)
                candle_prompt = None
                continue
        if "Time to first:" in line:
            match = _ORT_TIMINGS.search(line)
            if match is not None:
                yield _ort_timings(line_number, match)
                continue
        if "achieved tok/s:" in line:
            record = _llama2c(line_number, line)
            if record is not None:
                yield record
                continue
        if "PyTorchObserver" in line:
            record = _executorch(line_number, line)
            if record is not None:
                yield record
                continue
        if "Results" in line or "Batching" in line:
            omlx_single = "Single Request Results" in line
        if omlx_single and "tok/s" in line:
            match = _OMLX_ROW.match(line)
            if match is not None:
                yield _omlx_row(line_number, match)
                continue
        if "decoding-time=" in line:
            step = _MLC_STEP.search(line)
            if step is not None:
                mlc_steps.add(line_number, float(step.group(2)) * 1e-3)
                continue
        if line.startswith("enqueue in "):
            step = _TINYGRAD_ENQUEUE.match(line)
            if step is not None:
                tinygrad_steps.host_times.append(float(step.group(1)) * 1e-3)
                continue
        if line.startswith("🔶 G"):
            step = _DLLAMA_STEP.match(line)
            if step is not None:
                dllama_steps.add(line_number, float(step.group(1)) * 1e-3)
                continue
        if "tok/s" in line and line.startswith("total "):
            step = _TINYGRAD_STEP.match(line)
            if step is not None:
                tinygrad_steps.add(line_number, float(step.group(1)) * 1e-3)
                continue
        if "cost" in line and ("First token cost" in line or "tokens cost average" in line):
            first = _IPEX_FIRST.search(line)
            rest = _IPEX_REST.search(line)
            if first is not None:
                ipex_first = (line_number, first.group(1))
            if rest is not None and ipex_first is not None:
                yield _ipex(ipex_first[0], ipex_first[1], rest, _IPEX_MEMORY.search(line))
                ipex_first = None
            continue
        if "Average generation speed:" in line:
            match = _XINFERENCE.search(line)
            if match is not None and float(match.group(1)) > 0:
                yield Record("request", "xinference.transformers", line_number,
                             {"generation_tokens_per_second": float(match.group(1)),
                              "tpot_seconds": 1 / float(match.group(1))}, labels={"engine": "xinference"})
                continue
        if "** Length" in line or "** Position" in line:
            record = _exllamav2_speed(line_number, line)
            if record is not None:
                yield record
                continue
        if ("-- " in line or "** " in line) and (read := exllama.read(line_number, line)) is not None:
            yield from read
            continue
        if "Prompt processed in" in line and (match := _EXLLAMA_PROMPT.search(line)) is not None:
            exllama_prompt = (line_number, float(match.group(1)), float(match.group(2)))
            continue
        if "Response generated in" in line:
            match = _EXLLAMA.search(line)
            if match is not None and exllama_prompt is not None and "includes prompt" not in line:
                # the prompt timed on the line before: this is the decode alone
                seconds, tokens = float(match.group(1)), float(match.group(2))
                metrics = {"prefill_seconds": exllama_prompt[1], "input_tokens": exllama_prompt[2],
                           "decode_seconds": seconds, "output_tokens": tokens,
                           "e2e_seconds": exllama_prompt[1] + seconds}
                if seconds > 0 and tokens > 0:
                    metrics.update(generation_tokens_per_second=tokens / seconds, tpot_seconds=seconds / tokens)
                yield Record("request", "exllamav2.streaming", exllama_prompt[0], metrics,
                             labels={"engine": "exllamav2"})
                exllama_prompt = None
                continue
            if match is not None:  # its rate is tokens over the whole call: the output count and the time say it all
                yield Record("request", "exllamav2.test-inference", line_number,
                             {"e2e_seconds": float(match.group(1)), "output_tokens": float(match.group(2))},
                             labels={"engine": "exllamav2"})
                continue
        if generated is not None:  # the line after a `Generated` line may give its bandwidth
            bandwidth = _BANDWIDTH.search(line) if "Bandwidth achieved" in line else None
            yield _generated(generated[0], generated[1], bandwidth)
            generated = None
            if bandwidth is not None:
                continue
        if "tokens/sec" in line and "Generated " in line:
            match = _GENERATED.search(line)
            if match is not None:
                generated = (line_number, match)
                continue
        if "Performance(T/s)" in line:
            match = _KTRANSFORMERS.search(line)
            if match is not None:
                yield _ktransformers(line_number, match)
                continue
        if " in " in line and line.lstrip()[:1] in "FCPD":
            match = _ITEM_DONE.match(line)
            if match is not None:
                yield Record("request", "local.progress", line_number, {"e2e_seconds": float(match.group(3))},
                             labels={"tool": "script progress line", "item": f"{match.group(1)} of {match.group(2)}"})
                continue
        if "tok/s, decod" in line:
            match = _MLC_STATS.search(line)
            if match is not None:
                yield _mlc_stats(line_number, match)
                continue
        if "Input token size:" in line or "First token latency:" in line:
            sizes = _LLM_BENCH_SIZES.search(line)
            if sizes is not None:
                llm_bench = (line_number, sizes) if sizes.group(1) != "warm-up" else None
                continue
            tokens = _LLM_BENCH_TOKENS.search(line)
            if tokens is not None:
                if llm_bench is not None and llm_bench[1].group(1, 2) == tokens.group(1, 2):
                    yield _llm_bench(llm_bench[0], llm_bench[1], tokens)
                    bench_iterations += 1
                llm_bench = None
                continue
            average = _LLM_BENCH_AVERAGE.search(line)
            if average is not None:
                if not bench_iterations:  # the averages repeat the iterations above them
                    yield _llm_bench_average(line_number, average)
                continue
        if kobold_tail is not None:
            if "Processing Prompt" in line or "Generating (" in line:
                _kobold_progress(line, kobold_tail[2])
                continue
            yield _kobold(*kobold_tail)
            kobold_tail = None
        if kobold_head is not None:
            start, text = kobold_head
            kobold_head = None
            if line.lstrip().startswith("Total:"):
                yield _kobold(start, f"{text}, {line.strip()}", progress)
                progress = {}
                continue
            yield _kobold(start, text, progress)
        if "Prompt processing progress:" in line:
            record = steps.add(line_number, line)
            if record is not None:
                yield record
            continue
        if ("Time:" in line or "Speed:" in line or "GenAmount:" in line) and _KOBOLD_BENCH_LINE.match(line):
            match = _KOBOLD_BENCH_LINE.match(line)
            key, value = (match.group(1), match.group(2)) if match.group(1) else (match.group(3), match.group(4))
            if kobold_bench is None or key in kobold_bench[1]:  # a key seen again: the next benchmark's block
                if kobold_bench is not None:
                    yield _kobold_csv(kobold_bench[0], list(kobold_bench[1]), ",".join(kobold_bench[1].values()))
                kobold_bench = (line_number, {})
            kobold_bench[1][key] = value.strip().replace(",", ";")  # read back through the CSV row's reader
            if key == "TotalTime":
                yield _kobold_csv(kobold_bench[0], list(kobold_bench[1]), ",".join(kobold_bench[1].values()))
                kobold_bench = None
            continue
        if csv_columns is not None and line[:1].isdigit() and line.count(",") >= 10:
            yield _kobold_csv(line_number, csv_columns, line)
            continue
        if _KOBOLD_CSV_HEADER in line:
            csv_columns = [column.strip() for column in line.split(",")]
            continue
        if held is not None:
            start, kind, text, joined = held
            text = f"{text} {line.strip()}"
            record = _WRAPPED[kind](start, text)
            if record is not None:
                held = None
                yield record
                continue
            if joined + 1 < _MAX_CONTINUATION:
                held = (start, kind, text, joined + 1)
                continue
            held = None
            yield Skipped(start, f"{kind} timing line that could not be read", NAME)
        kind = _line_kind(line)
        if kind == "kobold":
            if "Total:" not in line:
                kobold_head = (line_number, line.rstrip())
                continue
            if "Time Taken - " in line and not progress:
                # April 2023 releases printed the request's progress lines after its timing line (koboldcpp#10).
                kobold_tail = (line_number, line, {})
                continue
            yield _kobold(line_number, line, progress)
            progress = {}
            continue
        if kind == "gptfast" and (torch_total := _TORCH_TOTAL.search(line)) is not None:
            torch_run = {"line": line_number, "e2e_seconds": float(torch_total.group(1))}
            if torch_generated is not None:
                torch_run["output_tokens"] = torch_generated
            continue
        if kind:
            record = _WRAPPED[kind](line_number, line)
            if record is None:
                held = (line_number, kind, line.rstrip(), 0)
            else:
                yield record
            continue
        if "Generated " in line and (torch_count := _TORCH_GENERATED.match(line)) is not None:
            torch_generated = float(torch_count.group(1))
            continue
        if torch_run is not None and "token" in line:
            first, following = _TORCH_FIRST.match(line), _TORCH_NEXT.match(line)
            if first is not None:
                torch_run["ttft_seconds"] = float(first.group(1))
            elif following is not None:
                torch_run["tpot_seconds"] = float(following.group(1))
                yield _torchchat(torch_run)
                torch_run = torch_generated = None
            if first is not None or following is not None or "throughput:" in line:
                continue
        if "prompt_tokens=" in line and "generation_tokens=" in line:
            match = _MLX_BENCH_SHAPE.search(line)
            bench_shape = (float(match.group(1)), float(match.group(2))) if match else None
            continue
        if "benchmark" in line and _MLX_BENCH_COMMAND.search(line):
            match = _MLX_BENCH_COMMAND.search(line)
            bench_shape = (float(match.group(1)), float(match.group(2)))
            continue
        if "prompt_tps=" in line:
            if line.lstrip().startswith("Trial"):
                record = _mlx_trial(line_number, line, bench_shape)
                bench_trials += 1
                yield record if record is not None else Skipped(
                    line_number, "mlx_lm.benchmark trial without its prompt/generation lengths or rates", NAME)
            elif "Averages:" in line and not bench_trials:  # the run's only line in the excerpt
                record = _mlx_trial(line_number, line, bench_shape, _MLX_BENCH_AVERAGES)
                yield record if record is not None else Skipped(
                    line_number, "mlx_lm.benchmark averages without the run's prompt/generation lengths", NAME)
            else:  # the Averages line repeats the trials above it
                bench_trials = 0
            continue
        if "Processing Prompt" in line or "Generating (" in line:
            _kobold_progress(line, progress)
            continue
        if "tokens-per-sec" in line or "Peak memory:" in line:
            if "Prompt:" in line and mlx is not None:  # the next generation's block
                record = mlx.record()
                mlx = None
                if record is not None:
                    yield record
            if mlx is None:
                mlx = _Mlx(line_number)
            if not _mlx_line(line, mlx):
                yield Skipped(line_number, "mlx_lm line without 'N tokens, R tokens-per-sec' or 'X GB'", NAME)
            continue
        if ":" in line and ("time" in line or "TTFT" in line or "TPOT" in line or "Throughput" in line):
            match = _GENAI.match(line)
            if match:
                if genai is None:
                    genai = _Genai(line_number)
                if not genai.add(match.group(1), match.group(2)):
                    yield Skipped(line_number, f"benchmark_genai {match.group(1)!r} without 'mean ± std unit'", NAME)
                if match.group(1).startswith("Throughput"):
                    record = genai.record()
                    genai = None
                    if record is not None:
                        yield record
                continue
        if (mlx is not None or genai is not None) and looks_like_metric(line):
            yield unread(line_number, line, NAME)
    if generated is not None:
        yield _generated(generated[0], generated[1], None)
    if held is not None:
        yield Skipped(held[0], f"{held[1]} timing line that could not be read", NAME)
    if kobold_head is not None:
        yield _kobold(*kobold_head, progress)
    if kobold_tail is not None:
        yield _kobold(*kobold_tail)
    for record in (steps.close(), mlc_steps.record(), tinygrad_steps.record(), dllama_steps.record(),
                   edge.record() if edge is not None else None, ds4.close()):
        if record is not None:
            yield record
    for block in (mlx, genai):
        record = block.record() if block is not None else None
        if record is not None:
            yield record
