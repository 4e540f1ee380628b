"""Local-runner one-request lines (text-generation-webui, mlx_lm, koboldcpp, TabbyAPI) and OpenVINO benchmark_genai,
against the samples in tests/fixtures/logs, plus variant and damaged lines.

Expected figures are worked out from the sample text: seconds as printed, ms ÷ 1000, phase times from count ÷ rate
where the runner prints only those, mlx_lm's "GB" is 1e9 bytes.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from inferledger.diagnose import diagnose_files
from inferledger.diagnose.parsers import detect, local_runners
from inferledger.diagnose.read import LogFile
from inferledger.diagnose.records import Record, Skipped

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures" / "logs"
BLIND2 = Path(__file__).resolve().parent.parent / "fixtures" / "blind2_logs"


def read(path) -> tuple[list, list]:
    log = LogFile.open(path)
    assert local_runners in detect(log.head), [m.NAME for m in detect(log.head)]
    items = list(local_runners.parse(log.lines()))
    return [i for i in items if isinstance(i, Record)], [i for i in items if isinstance(i, Skipped)]


def parse_text(text: str) -> tuple[list, list]:
    items = list(local_runners.parse(enumerate(text.split("\n"), 1)))
    return [i for i in items if isinstance(i, Record)], [i for i in items if isinstance(i, Skipped)]


def test_textgen_output_generated_lines():
    # 414 tokens in 39.87 s (10.38 tok/s over the whole call), 309 in 27.27 s; both prompts 1494 tokens.
    records, skipped = read(FIXTURES / "textgenwebui__exllamav2-hf-command-r-two-outputs.txt")
    assert not skipped
    first, second = records
    assert first.metrics["e2e_seconds"] == 39.87 and first.metrics["output_tokens"] == 414
    assert first.metrics["input_tokens"] == 1494
    assert first.metrics["output_tokens_per_second_per_request"] == pytest.approx(414 / 39.87, rel=1e-3)
    assert "generation_tokens_per_second" not in first.metrics  # the call's rate includes the prompt
    assert second.metrics["e2e_seconds"] == 27.27 and second.metrics["output_tokens"] == 309
    assert first.labels["engine"] == "text-generation-webui"


def test_textgen_line_wrapped_by_the_rich_logger():
    # 2025 consoles wrap at the terminal width (oobabooga/textgen#7037): 24 tokens in 9.62 s, context 11.
    text = ("00:28:06-600105 INFO     Output generated in 9.62 seconds (2.49 tokens/s, 24    \n"
            "                         tokens, context 11, seed 1777440417) ")
    [record], skipped = parse_text(text)
    assert not skipped
    assert record.metrics["output_tokens"] == 24 and record.metrics["input_tokens"] == 11
    assert record.metrics["e2e_seconds"] == 9.62


def test_mlx_generate_blocks():
    # Pre: 32188 prompt tokens at 430.339 tok/s = 74.797 s of prefill; 892 generated at 32.480 tok/s = 27.463 s of
    # decode, 1 / 32.480 = 30.79 ms per token; peak 11.496 GB = 11.496e9 bytes. Post: 424.646 and 32.211 tok/s.
    records, skipped = read(FIXTURES / "mlxlm__generate-32k-prompt-pre-post.txt")
    assert not skipped
    pre, post = records
    m = pre.metrics
    assert m["input_tokens"] == 32188 and m["prompt_tokens_per_second"] == 430.339
    assert m["prefill_seconds"] == pytest.approx(74.797, rel=1e-4)
    assert m["output_tokens"] == 892 and m["decode_seconds"] == pytest.approx(27.463, rel=1e-4)
    assert m["tpot_seconds"] == pytest.approx(0.030788, rel=1e-4)
    assert m["e2e_seconds"] == pytest.approx(74.797 + 27.463, rel=1e-4)
    assert m["peak_memory_bytes"] == pytest.approx(11.496e9)
    assert post.metrics["prompt_tokens_per_second"] == 424.646
    assert post.metrics["decode_seconds"] == pytest.approx(892 / 32.211)


def test_mlx_early_lines_without_counts():
    # Early mlx_lm printed only the rates: 35.218 tok/s is 28.39 ms per token, no phase time without a count.
    [record], _ = parse_text("Prompt: 27.541 tokens-per-sec\nGeneration: 35.218 tokens-per-sec")
    assert record.metrics["generation_tokens_per_second"] == 35.218
    assert record.metrics["tpot_seconds"] == pytest.approx(0.028395, rel=1e-4)
    assert "decode_seconds" not in record.metrics


def test_koboldcpp_stopped_early_uses_the_generated_count():
    # 1676 prompt tokens in 25.05 s (66.89 tok/s); 78 of 387 requested tokens in 59.05 s: 78 / 59.05 = 1.321 tok/s,
    # 59.05 / 78 = 757 ms per token (koboldcpp printed 6.55 T/s and 152.6 ms/T, over 387: LostRuins/koboldcpp#852).
    records, skipped = read(FIXTURES / "koboldcpp__ctxlimit-stopped-early-78-of-387.txt")
    assert not skipped
    [request] = records
    m = request.metrics
    assert m["input_tokens"] == 1676 and m["prefill_seconds"] == 25.05
    assert m["prompt_tokens_per_second"] == 66.89
    assert m["output_tokens"] == 78 and m["decode_seconds"] == 59.05
    assert m["generation_tokens_per_second"] == pytest.approx(1.3209, rel=1e-3)
    assert m["tpot_seconds"] == pytest.approx(0.75705, rel=1e-3)
    assert m["e2e_seconds"] == 84.11 and m["context_tokens"] == 1754
    assert request.labels["context_limit"] == "8192"


def test_koboldcpp_line_versions():
    # Mid-2024 on: Amt gives generated/requested (100 of 100); late 2023: ContextLimit/Processing/Generation.
    amt = ("CtxLimit:350/2048, Amt:100/100, Init:0.01s, Process:0.52s (25.3ms/T = 39.5T/s), "
           "Generate:2.10s (42.0ms/T = 23.8T/s), Total:2.62s (38.1T/s)")
    [record], _ = parse_text(amt)
    assert record.metrics["output_tokens"] == 100 and record.metrics["decode_seconds"] == 2.10
    assert record.metrics["tpot_seconds"] == pytest.approx(2.10 / 100)
    assert record.labels["init_seconds"] == "0.01"
    old = ("ContextLimit: 614/2048, Processing:0.43s (5.5ms/T), Generation:3.62s (55.8ms/T), "
           "Total:4.06s (16.02T/s)")
    [record], _ = parse_text(old)
    assert record.metrics["prefill_seconds"] == 0.43 and record.metrics["decode_seconds"] == 3.62
    assert record.metrics["tpot_seconds"] == pytest.approx(0.0558)
    assert record.metrics["e2e_seconds"] == 4.06 and record.metrics["context_tokens"] == 614


def test_tabbyapi_metrics_line_wrapped():
    # 3840 cached + 11926 new prompt tokens, the new ones at 727.64 tok/s: 11926 / 727.64 = 16.390 s of prefill;
    # 1 token at 28.2 tok/s; 16.44 s in all, 0.02 s queued; draft 0 of 4 accepted.
    records, skipped = read(FIXTURES / "tabbyapi__metrics-id-12k-new-prompt-tokens-wrapped.txt")
    assert not skipped
    [request] = records
    m = request.metrics
    assert m["input_tokens"] == 3840 + 11926 and m["cached_tokens"] == 3840
    assert m["prefill_seconds"] == pytest.approx(16.390, rel=1e-4)
    assert m["prompt_tokens_per_second"] == 727.64
    assert m["output_tokens"] == 1 and m["generation_tokens_per_second"] == 28.2
    assert m["e2e_seconds"] == 16.44 and m["queue_seconds"] == 0.02
    assert m["spec_acceptance_fraction"] == 0.0


def test_tabbyapi_early_metrics_line():
    # exllamav2#469 (2024): 167 tokens in 21.39 s at 8.79 tok/s = 19.00 s of decode; prompt 1494 tokens.
    line = ("INFO:     Metrics: 167 tokens generated in 21.39 seconds (Queue: 0.0 s, Process: 626.24 T/s, "
            "Generate: 8.79 T/s, Context: 1494 tokens) ")
    [record], _ = parse_text(line)
    assert record.metrics["decode_seconds"] == pytest.approx(167 / 8.79)
    assert record.metrics["input_tokens"] == 1494 and record.metrics["prompt_tokens_per_second"] == 626.24
    assert "cache" in record.labels["prompt_rate_definition"]


def test_benchmark_genai_summary():
    # TTFT 81.60 ms, TPOT 71.52 ms, generate 1430.77 ms, 13.98 tok/s: 13.98 × 1.43077 = 20.0 tokens per generation
    # (max_new_tokens 20); load 3405.69 ms.
    records, skipped = read(FIXTURES / "openvino__benchmark-vanilla-genai-readme-tinyllama.txt")
    assert not skipped
    [summary] = records
    m = summary.metrics
    assert summary.kind == "summary" and summary.source == "bench.benchmark_genai"
    assert summary.labels["tool"] == "benchmark_genai"
    assert m["ttft_seconds_mean"] == pytest.approx(0.08160) and m["ttft_seconds_std"] == pytest.approx(0.00054)
    assert m["tpot_seconds_mean"] == pytest.approx(0.07152)
    assert m["e2e_seconds_mean"] == pytest.approx(1.43077)
    assert m["output_tokens_per_second"] == 13.98
    assert m["mean_output_tokens"] == pytest.approx(20.0, rel=1e-2)
    assert m["load_seconds"] == pytest.approx(3.40569)


def test_benchmark_genai_later_throughput_wording():
    # openvino.genai#875 (the blind-2 file): `Throughput : 47.89 ± 1.07 tokens/s` over 21.88 ms: 1.05 tokens.
    records, _ = read(BLIND2 / "openvino__benchmark-genai-one-token.txt")
    [summary] = records
    assert summary.metrics["output_tokens_per_second"] == 47.89
    assert summary.metrics["mean_output_tokens"] == pytest.approx(47.89 * 0.02188)


@pytest.mark.parametrize("name, verdict", [
    ("koboldcpp__ctxlimit-stopped-early-78-of-387.txt", "decode-bound"),  # 757 ms per token
    ("tabbyapi__metrics-id-12k-new-prompt-tokens-wrapped.txt", "prefill-bound"),  # 16.4 s of prompt, 1 token
    ("mlxlm__generate-32k-prompt-pre-post.txt", "prefill-bound"),  # 74.8 s of prompt against 27.5 s of decode
    ("openvino__benchmark-vanilla-genai-readme-tinyllama.txt", "healthy"),
])
def test_verdicts(name, verdict):
    assert diagnose_files([FIXTURES / name]).verdict == verdict


@pytest.mark.parametrize("text", [
    "CtxLimit: 1754/8192, Process:25.0",  # cut before Total
    "Output generated in 39.87 seconds (10.3",  # cut, nothing follows
    "Metrics: 167 tokens generated in",  # cut
    "Generation: 892 tokens, oops tokens-per-sec",
    "TTFT: n/a ms",
])
def test_cut_lines_never_raise(text):
    records, skipped = parse_text(text)
    assert not records
    assert skipped


# OpenVINO llm_bench as its print_metrics() logs it (tools/llm_bench/llm_bench_utils/metrics_print.py): a warm-up
# iteration, two timed ones, the Average line. Written here; numbers chosen for the arithmetic.
LLM_BENCH = """[ INFO ] ==SUCCESS FOUND==: use_case: text_gen, model_type: llama
[ INFO ] [warm-up][P0] Input token size: 1024, Output size: 128, Infer count: 128, Tokenization Time: 2.31ms, Detokenization Time: 0.41ms, Generation Time: 9.85s, Latency: 76.95 ms/token
[ INFO ] [warm-up][P0] First token latency: 4210.55 ms/token, other tokens latency: 44.41 ms/token, len of tokens: 128 * 1
[ INFO ] [1][P0] Input token size: 1024, Output size: 128, Infer count: 128, Tokenization Time: 2.00ms, Detokenization Time: 0.50ms, Generation Time: 5.32s, Latency: 41.55 ms/token
[ INFO ] [1][P0] First token latency: 350.12 ms/token, other tokens latency: 39.01 ms/token, len of tokens: 128 * 1
[ INFO ] [1][P0] First infer latency: 348.91 ms/infer, other infers latency: 38.20 ms/infer, inference count: 128
[ INFO ] [2][P0] Input token size: 1024, Output size: 128, Infer count: 128, Tokenization Time: 2.10ms, Detokenization Time: 0.52ms, Generation Time: 5.30s, Latency: 41.40 ms/token
[ INFO ] [2][P0] First token latency: 349.80 ms/token, other tokens latency: 38.90 ms/token, len of tokens: 128 * 1
[ INFO ] <<< Warm-up iteration is excluded. >>>
[ INFO ] [Total] Iterations: 2
[ INFO ] [Average] P[0] Input token size: 1024, 1st token latency: 349.96 ms/token, 2nd token latency: 38.96 ms/token, 2nd tokens throughput: 25.67 tokens/s
"""


def test_openvino_llm_bench_iterations_are_requests_without_the_warm_up():
    assert detect(LLM_BENCH)[0] is local_runners
    records, skipped = parse_text(LLM_BENCH)
    assert skipped == []
    assert [r.source for r in records] == ["openvino.llm-bench"] * 2  # warm-up and Average left out
    first = records[0].metrics
    assert first["input_tokens"] == 1024 and first["output_tokens"] == 128
    assert first["e2e_seconds"] == 5.32
    assert first["ttft_seconds"] == pytest.approx(0.35012) and first["tpot_seconds"] == pytest.approx(0.03901)
    # 350 ms + 127 × 39.01 ms = 5.30 s: the two lines of one iteration agree with its Generation Time.
    assert first["ttft_seconds"] + 127 * first["tpot_seconds"] == pytest.approx(first["e2e_seconds"], rel=0.01)
    assert records[1].metrics["tpot_seconds"] == pytest.approx(0.0389)


def test_openvino_llm_bench_batch_latency_unit():
    text = ("[ INFO ] [1][P0] Input token size: 64, Output size: 32, Infer count: 32, Generation Time: 2.10s, "
            "Latency: 16.41 ms/4tokens\n"
            "[ INFO ] [1][P0] First token latency: 120.00 ms/4tokens, other tokens latency: 63.87 ms/4tokens, "
            "len of tokens: 32 * 4\n")
    [record], _ = parse_text(text)
    assert record.labels["batch"] == 4 and record.metrics["tpot_seconds"] == pytest.approx(0.06387)


def test_mlc_llm_runtime_stats_line():
    # MLC LLM's chat `/stats` output as its AMD blog post quotes it (13.2 tok/s for Llama 2 7B over Vulkan).
    text = "[INST]: /stats\nprefill: 48.3 tok/s, decode: 13.2 tok/s\n"
    assert detect(text)[0] is local_runners
    [record], _ = parse_text(text)
    assert record.metrics == {"prompt_tokens_per_second": 48.3, "generation_tokens_per_second": 13.2}
    assert record.labels["engine"] == "mlc-llm"


def test_ipex_llm_benchmark_wrapper_lines():
    # BenchmarkWrapper's two lines per generate() (with the memory part of 2024 releases), then the examples'
    # one-line form; written here.
    text = ("=========First token cost 0.0300 s and 6.556640625 GB=========\n"
            "=========Rest tokens cost average 0.0145 s (255 tokens in all) and 6.556640625 GB=========\n"
            'INFO:     127.0.0.1:57678 - "POST /v1/completions HTTP/1.1" 200 OK\n'
            "First token cost 0.3572 s and rest tokens cost average 0.0412 s\n")
    assert detect(text)[0] is local_runners
    records, skipped = parse_text(text)
    assert skipped == [] and len(records) == 2
    first = records[0].metrics
    assert first["ttft_seconds"] == 0.03 and first["tpot_seconds"] == 0.0145
    # 255 more tokens after the first: 256 in all, 0.03 s + 255 × 14.5 ms = 3.7275 s.
    assert first["output_tokens"] == 256 and first["e2e_seconds"] == pytest.approx(0.03 + 255 * 0.0145)
    assert records[0].labels["peak_memory_gb"] == pytest.approx(6.556640625)
    assert records[1].metrics == {"ttft_seconds": 0.3572, "tpot_seconds": 0.0412}


def test_exllamav2_test_inference_line():
    # exllamav2's test_inference.py: tokens over the whole call, prompt included (its README's example figures).
    text = " -- Response generated in 3.40 seconds, 128 tokens, 37.66 tokens/second (includes prompt eval.)\n"
    assert detect(text)[0] is local_runners
    [record], _ = parse_text(text)
    assert record.metrics == {"e2e_seconds": 3.40, "output_tokens": 128}


EXLLAMA_V1 = """\
 -- Sequence length: 132
 ** Time, Load model: 1.55 seconds
 -- Inference, first pass.
 ** Time, Inference: 0.50 seconds
 ** Speed: 8.06 tokens/second
 -- Generating 128 tokens...
 ** Speed: 28.56 tokens/second
 -- Generating 128 tokens, 1920 token prompt...
 ** Speed: 25.00 tokens/second
"""


def test_exllama_v1_benchmark_script_generating_phases():
    # exllama's (v1) test_benchmark_inference.py -p (blind round 134's sample, shortened; the second phase with its
    # prompt as the later script prints it): each generating phase is one stream's decode, 128 tokens at its rate.
    assert detect(EXLLAMA_V1)[0] is local_runners
    records, skipped = parse_text(EXLLAMA_V1)
    assert not skipped
    first, second = records
    assert first.line_number == 7
    assert first.metrics == pytest.approx({"output_tokens": 128, "generation_tokens_per_second": 28.56,
                                           "tpot_seconds": 1 / 28.56, "decode_seconds": 128 / 28.56})
    assert second.metrics["input_tokens"] == 1920
    assert second.metrics["decode_seconds"] == pytest.approx(128 / 25.0)
    # the first pass (a few random tokens, cold) and the load are labels, never a prompt rate judged
    assert "8.06 tok/s" in first.labels["first_pass"]
    assert first.labels["load_seconds"] == "1.55"
    assert "prompt_tokens_per_second" not in first.metrics
