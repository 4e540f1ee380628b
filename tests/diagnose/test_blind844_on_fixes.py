"""Blind rounds 844 on: the general fixes of the thirty-sixth session. Expected figures are worked out here."""

from __future__ import annotations

from blind_helpers import diagnosed, parsed, write


def _said(diagnosis, *words) -> bool:
    """Whether one piece of the diagnosis' evidence says every one of `words`."""
    return any(all(word in evidence.text for word in words) for evidence in diagnosis.evidence)


def _fired(diagnosis, rule: str) -> bool:
    return any(evidence.rule == rule for evidence in diagnosis.evidence)


# vLLM 0.6's stats line and preemption warning as a blog printed them (blind459, ROCm's blog: Llama 3.1 405B FP8 at
# TP8), wrapped at words around 70 columns with a blank line inside the stats line.
_BLOG_WRAPPED = """\
WARNING 01-21 05:05:14 engine.py:205] Sequence group
cmpl-d5a0bb826fd54a568fa9c8ae9382a1cb-0 is preempted by
PreemptionMode.RECOMPUTE mode because there is not enough KV cache
space.

INFO 01-21 05:05:14 metrics.py:467] Avg prompt throughput: 0.0
tokens/s, Avg generation throughput: 1529.6 tokens/s,

Running: 155 reqs, Swapped: 0 reqs, Pending: 101 reqs, GPU KV cache
usage: 99.5%, CPU KV cache usage: 0.0%.
"""


def test_a_stats_line_wrapped_at_words_is_read_whole(tmp_path):
    from inferledger.diagnose.parsers import vllm

    records = parsed(vllm, write(tmp_path, _BLOG_WRAPPED))
    windows = [record for record in records if record.kind == "interval"]
    assert len(windows) == 1  # was none: the line stopped at `0.0` and its pieces were not joined
    assert windows[0].metrics["generation_tokens_per_second"] == 1529.6
    assert windows[0].metrics["running_requests"] == 155
    assert windows[0].metrics["waiting_requests"] == 101
    assert windows[0].metrics["kv_cache_usage_fraction"] == 0.995  # 99.5 %, from the piece after `GPU KV cache`
    # the warning wrapped before `PreemptionMode.RECOMPUTE`: still one preemption
    assert [record.metrics for record in records if record.kind == "event"] == [{"preemptions": 1.0}]
    diagnosis = diagnosed(tmp_path, _BLOG_WRAPPED)
    assert diagnosis.verdict == "kv-capacity"  # 99.5 % full with 101 waiting, one preemption; was not read


# vLLM V1's stats line laid out a field a line, as a Vietnamese guide quotes its server (blind662).
_FIELD_A_LINE = """\
Engine 000: Avg prompt throughput: 2743.7 tokens/s,
Avg generation throughput: 151.9 tokens/s,
Running: 0 reqs, Waiting: 0 reqs,
GPU KV cache usage: 0.0%,
Prefix cache hit rate: 49.8%,
MM cache hit rate: 23.3%
"""


def test_a_stats_line_a_field_a_line_keeps_every_field(tmp_path):
    from inferledger.diagnose.parsers import vllm

    [window] = parsed(vllm, write(tmp_path, _FIELD_A_LINE))
    assert window.metrics["prompt_tokens_per_second"] == 2743.7
    assert window.metrics["generation_tokens_per_second"] == 151.9
    # the pieces after the GPU KV usage (each ending in `,`) still belong to the line
    assert window.metrics["prefix_cache_hit_fraction"] == 0.498
    assert window.metrics["mm_cache_hit_fraction"] == 0.233


def test_a_cut_stats_line_is_not_joined_with_an_unrelated_next_line(tmp_path):
    # guard (passed before): a paste cut after the generation rate, then an access line; the access line's numbers
    # must not become the stats line's
    from inferledger.diagnose.parsers import vllm

    text = ("INFO 05-01 10:00:00 metrics.py:455] Avg prompt throughput: 5.0 tokens/s, Avg generation throughput: "
            "10.0 tokens/s,\nINFO:     127.0.0.1:5000 - \"POST /v1/completions HTTP/1.1\" 200 OK\n")
    [window] = parsed(vllm, write(tmp_path, text))
    assert window.metrics == {"prompt_tokens_per_second": 5.0, "generation_tokens_per_second": 10.0}
    assert window.labels["truncated"] == "cut before the GPU KV cache usage"


# llama-bench -o json with two tests, the first broken inside a value by the page it was pasted from (blind468:
# `"cpu_strict": f` / `alse,`), the second whole.
_LLAMA_BENCH_JSON = """\
[
  {
    "model_type": "qwen35moe 35B.A3B Q4_K - Medium",
    "model_size": 21155768832,
    "backends": "SYCL",
    "cpu_strict": f
\talse,
    "n_prompt": 512,
    "n_gen": 0,
    "avg_ns": 383818280,
    "avg_ts": 1334.103112,
    "stddev_ts": 15.184918
  },
  {
    "model_type": "qwen35moe 35B.A3B Q4_K - Medium",
    "model_size": 21155768832,
    "backends": "SYCL",
    "cpu_strict": false,
    "n_prompt": 0,
    "n_gen": 128,
    "avg_ns": 1264822200,
    "avg_ts": 101.2,
    "stddev_ts": 0.4
  }
]
"""


def test_a_damaged_element_of_a_json_array_drops_only_itself(tmp_path):
    from inferledger.diagnose.parsers import bench_clients
    from inferledger.diagnose.read import LogFile
    from inferledger.diagnose.records import Skipped

    path = write(tmp_path, _LLAMA_BENCH_JSON, "bench.json")
    records = parsed(bench_clients, path)
    assert [record.metrics["generation_tokens_per_second"] for record in records] == [101.2]  # was nothing read
    skipped = [item for item in bench_clients.parse(LogFile.open(path).lines()) if isinstance(item, Skipped)]
    assert len(skipped) == 1 and "damaged" in skipped[0].reason  # the dropped test is reported, not hidden
    diagnosis = diagnosed(tmp_path, _LLAMA_BENCH_JSON, "bench.json")
    assert diagnosis.verdict != "not read"


# sglang.bench_serving cut after its request rate (blind90: kvcached's run of Llama 3.2 3B): 1,920 requests offered
# at 32 req/s, 213.71 s, 157,031 tokens generated, no latency lines.
def _sglang_cut(generated_tokens: int) -> str:
    return f"""\
============ Serving Benchmark Result ============
Backend:                                 sglang-oai
Traffic request rate:                    32.0
Max request concurrency:                not set
Successful requests:                     1920
Benchmark duration (s):                  213.71
Total input tokens:                      1843657
Total generated tokens:                  {generated_tokens}
Request throughput (req/s):              8.98
"""


def test_a_run_going_on_long_past_its_arrivals_for_short_outputs_queued(tmp_path):
    diagnosis = diagnosed(tmp_path, _sglang_cut(157031))
    # arrivals: 1920 / 32 = 60 s; the run went on 213.71 - 60 = 153.71 s past them. A request's 157031 / 1920 = 81.8
    # tokens take 81.8 / 5 = 16.4 s even at a starved 5 tok/s: 153.71 s ≥ 3 × 16.4 = 49 s, so requests waited.
    # (The run is only 213.71 / 60 = 3.56× its arrival window, under the 10× that fires without the tokens.)
    assert diagnosis.verdict == "queueing"  # was insufficient-data
    assert _fired(diagnosis, "summary-drain-beyond-arrivals")
    assert _said(diagnosis, "82 tokens a request take 16.4 s")


def test_long_outputs_may_drain_that_long_without_a_queue(tmp_path):
    # guard (passed before): 1,000 tokens a request take 200 s at 5 tok/s, more than the 153.71 s past the arrivals
    # divided by 3, so the drain may be one batch's slow streams; the rule stays silent
    diagnosis = diagnosed(tmp_path, _sglang_cut(1920 * 1000))
    assert not _fired(diagnosis, "summary-drain-beyond-arrivals")


# optimum-benchmark's benchmark_report.md (blind189: Llama-3.1-8B with GPTQ 2-bit on an A100-SXM4-80GB, batch 1),
# the prefill, decode and per-token sections; the load section and the memory tables left out.
_OPTIMUM_REPORT_MD = """\
# prefill:

## latency:

| metric | value        | unit   |
| :----- | -----------: |------: |
| count  |      10 |      - |
| mean   |     0.183376 | s |
| p50    |      0.183086 | s |
## throughput:

| metric     |     value   |   unit |
| :--------- | --------:   | -----: |
| throughput | 5.45 | samples/s |
# decode:

## latency:

| metric | value        | unit   |
| :----- | -----------: |------: |
| mean   |     2.153275 | s |
## throughput:

| metric     |     value   |   unit |
| :--------- | --------:   | -----: |
| throughput | 29.26 | tokens/s |
# per_token:

## latency:

| metric | value        | unit   |
| :----- | -----------: |------: |
| count  |      3510 |      - |
| mean   |     0.036023 | s |
| p50    |      0.034018 | s |
| p99    |      0.183511 | s |
"""


def test_an_optimum_benchmark_report_is_read_by_its_sections(tmp_path):
    from inferledger.diagnose.parsers import optimum_benchmark

    [summary] = parsed(optimum_benchmark, write(tmp_path, _OPTIMUM_REPORT_MD, "benchmark_report.md"))
    assert summary.metrics["ttft_seconds_mean"] == 0.183376  # the prefill's mean: the batch's first token
    # the per-token median, not its mean: the first per-token sample is the prefill's step (p99 0.1835 s)
    assert summary.metrics["tpot_seconds_median"] == 0.034018
    assert summary.metrics["output_tokens_per_second"] == 29.26
    assert summary.metrics["max_concurrency"] == 1.0  # 29.26 tok/s × 0.034018 s = 0.995 tokens a step: batch 1
    # was not read ("no reader knows the layout"). With the model and card: 8B in bf16 is ~16 GB a step, at 29.4 tok/s
    # ~470 GB/s, under a quarter of the A100's 2,039 GB/s
    diagnosis = diagnosed(tmp_path, _OPTIMUM_REPORT_MD, "benchmark_report.md", model="meta-llama/Llama-3.1-8B",
                          gpu="a100-sxm-80gb")
    assert diagnosis.verdict == "decode-bound"
    assert _said(diagnosis, "34.02 ms/token (median TPOT of optimum-benchmark)")


def test_an_optimum_benchmark_json_report_gives_the_same_reading(tmp_path):
    from inferledger.diagnose.parsers import bench_clients

    report = ('{"prefill": {"latency": {"unit": "s", "count": 10, "mean": 0.0376, "p50": 0.0375, "values": [0.0408]},'
              ' "throughput": {"unit": "samples/s", "value": 26.57}},'
              ' "decode": {"latency": {"unit": "s", "mean": 5.10}, "throughput": {"unit": "tokens/s", "value": 100.0}},'
              ' "per_token": {"latency": {"unit": "s", "mean": 0.0201, "p50": 0.0199}}}\n')
    [summary] = parsed(bench_clients, write(tmp_path, report, "benchmark_report.json"))
    assert summary.metrics["ttft_seconds_mean"] == 0.0376
    assert summary.metrics["tpot_seconds_median"] == 0.0199  # `p50` in the JSON
    assert summary.metrics["max_concurrency"] == 2.0  # 100 tok/s × 0.0199 s = 1.99 tokens a step: a batch of 2


def test_optimum_tables_without_their_sections_are_not_guessed(tmp_path):
    # guard (passed before): the same tables with the `# decode:` lines cut away do not say which phase each measured
    from inferledger.diagnose.parsers import optimum_benchmark

    tables = "\n".join(line for line in _OPTIMUM_REPORT_MD.splitlines() if not line.startswith("#"))
    assert parsed(optimum_benchmark, write(tmp_path, tables, "tables.md")) == []


# A pull request's comment quoting the diff that adds a results table (blind353: llm-d, Qwen3-32B on two static
# replicas at 20 RPS): every line marked `+`, the empty one too, beside the thread's unmarked replies.
_DIFF_TABLE = """\
+**Workload:** 4000 prompt tokens, 1000 output tokens, 20 RPS, 600s duration
+
+| Metric | Run 1 | Run 2 |
+|--------|-------|-------|
+| P99 TTFT (ms) | 534,272 | 546,613 |
+| P99 ITL (ms/token) | 55.96 | 58.10 |
**reviewer**:
Why is the average KV cache different for static replicas?
"""


def test_a_table_quoted_from_a_diff_is_read_without_its_marks(tmp_path):
    from inferledger.diagnose.read import clean_line

    assert clean_line("+| P99 ITL (ms/token) | 55.96 | 58.10 |") == "| P99 ITL (ms/token) | 55.96 | 58.10 |"
    assert clean_line("+") == ""  # the diff's empty line: no title for the table under it
    assert clean_line("+-----+------+") == "+-----+------+"  # guard: a grid table's border keeps its `+`
    diagnosis = diagnosed(tmp_path, _DIFF_TABLE)
    # 534,272 ms / 55.96 ms = 9,547 per-token steps of wait before the first token: queueing (was no reader)
    assert diagnosis.verdict == "queueing"
    assert _said(diagnosis, "table column 'Run 1': p99 TTFT 534 s is 9547×")


# OpenVINO's VLM blog (blind333): the first token's "throughput" is the prompt's phase, the second token's the decode.
_FIRST_SECOND_TOKEN = """\
| Device | First Token Throughput (t/s) (Before/After) | Second Token Throughput (t/s) (Before/After) |
|--------|---------------------------------------------|----------------------------------------------|
| CPU    | 2.69 / 3.94                                 | 83.25 / 146.1                                |
| iGPU   | 5.01 / 5.26                                 | 51.62 / 49.56                                |
"""


def test_a_first_token_throughput_is_no_generation_rate(tmp_path):
    diagnosis = diagnosed(tmp_path, _FIRST_SECOND_TOKEN)
    # was decode-bound: 1 / 5.01 t/s = 200 ms "per output token", the first token's column read as the decode's
    assert not _said(diagnosis, "200 ms") and not _said(diagnosis, "First Token Throughput")
    assert _said(diagnosis, "12.01 ms")  # 1 / 83.25 t/s: the second token's column is the decode's
    assert diagnosis.verdict == "healthy"


# A build comparison by back end (llama.cpp issue, an RX 6700 XT, pp 512 and tg 128): each back end's rates under
# `pp ROCm` / `tg ROCm`, the ratio beside them.
_BACKENDS = """\
|quant|pp ROCm|pp Vulkan|speedup|tg ROCm|tg Vulkan|speedup|
|---|---|---|---|---|---|---|
|Q4_0|1023.16 ± 6.75|309.84 ± 7.49|0.30283|59.07 ± 0.74|23.22 ± 0.49|0.39309|
|Q4_1|975.41 ± 0.90|305.72 ± 8.25|0.31343|55.43 ± 0.05|23.57 ± 0.30|0.42522|
"""


def test_a_variant_is_named_by_the_words_its_columns_share(tmp_path):
    diagnosis = diagnosed(tmp_path, _BACKENDS)
    # 1 / 59.07 tok/s = 16.93 ms: ROCm's generation, once called `pp ROCm` (its first column) as if a prompt's
    assert _said(diagnosis, "column 'ROCm'", "16.93 ms")
    assert _said(diagnosis, "column 'Vulkan'", "43.07 ms")  # 1 / 23.22
    assert not _said(diagnosis, "pp ROCm")


def test_a_prompt_rate_in_another_script_is_no_generation_rate(tmp_path):
    # (IPEX-LLM's ollama on an A770: `Prompt速率(t/s)` beside `Eval速率(t/s)`, no word boundary after `Prompt`)
    text = "| 模型 | Prompt速率(t/s) | Eval速率(t/s) |\n|---|---|---|\n| deepseek-r1:14b | 232.24 | 10.34 |\n"
    diagnosis = diagnosed(tmp_path, text)
    assert not _said(diagnosis, "4.31 ms")  # 1 / 232.24: the prompt's rate, once read as a stream's generation
    assert _said(diagnosis, "96.71 ms")  # 1 / 10.34: the generation's
