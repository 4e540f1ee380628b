"""Blind rounds 217 on: the general fixes of the fifteenth session. Expected figures are worked out here."""

from __future__ import annotations

import pytest
from blind_helpers import rules, write

from inferledger.diagnose import diagnose_files
from inferledger.diagnose.parsers import generic_phrases, mlperf_loadgen
from inferledger.diagnose.read import clean_line, read_records
from inferledger.errors import LogFormatError

# vLLM's offline throughput line: a rate over every stream of the run, no per-token time and no batch.
RATE_ONLY = "Throughput: {req:.2f} requests/s, {total:.2f} total tokens/s, {out:.2f} output tokens/s\n"


def _rate_only(tmp_path, output_rate: float) -> str:
    return write(tmp_path, RATE_ONLY.format(req=output_rate / 500, total=output_rate * 3, out=output_rate))


def test_a_rate_above_one_streams_speed_is_healthy_whatever_the_batch(tmp_path):
    # A 32B model known only by its name, bf16: 64 GB a step; on an H200 (4,800 GB/s) one stream's floor is
    # 64e9 / 4.8e12 = 13.3 ms a token plus the layers' fixed cost, so one stream makes at most 75 tok/s. 1,000 tok/s
    # over the run's streams is more than one stream's, whatever the batch was: decode is not slow.
    diagnosis = diagnose_files([_rate_only(tmp_path, 1000.0)], model="acme/Foo-32B-Instruct", gpu="h200-sxm")
    assert diagnosis.verdict == "healthy"
    assert "hardware-throughput-one-stream" in rules(diagnosis)


def test_a_rate_below_one_streams_speed_is_left_unjudged(tmp_path):
    # 20 tok/s is under a third of the 75 tok/s one stream reads at most (above): a slow engine, or a run whose
    # prompts took the time; the rate alone cannot say which.
    diagnosis = diagnose_files([_rate_only(tmp_path, 20.0)], model="acme/Foo-32B-Instruct", gpu="h200-sxm")
    assert diagnosis.verdict == "insufficient-data"


def test_the_ledgers_realistic_step_is_the_reference_when_the_config_is_at_hand(tmp_path):
    # Llama-3.1-8B (../shared/models) in bf16 is 16.06 GB a step: on an H100 SXM (3,350 GB/s) the floor is 4.8 ms,
    # at most 209 tok/s for one stream; 1,000 tok/s is more than any one stream, 20 tok/s (50 ms a token, ten times
    # the floor) is below what the ledger's realistic step allows one stream.
    fast = diagnose_files([_rate_only(tmp_path, 1000.0)], model="meta-llama/Llama-3.1-8B", gpu="h100-sxm")
    assert fast.verdict == "healthy"
    slow = diagnose_files([_rate_only(tmp_path, 20.0)], model="meta-llama/Llama-3.1-8B", gpu="h100-sxm")
    assert slow.verdict == "insufficient-data"


# benchmark_throughput.py before it printed an output rate (vllm#7117): its command line fixes every request's lengths.
FIXED_LENGTHS = """\
python benchmarks/benchmark_throughput.py --input-len 256 --output-len 256 --model meta-llama/Meta-Llama-3-8B
Throughput: 24.32 requests/s, 12453.04 tokens/s
"""


def test_a_throughput_runs_fixed_lengths_give_its_output_rate(tmp_path):
    (record,) = [record for record in read_records(write(tmp_path, FIXED_LENGTHS)) if record.kind == "summary"]
    # 24.32 req/s × (256 + 256) tokens = 12,451.8 tok/s, the printed total to 0.01 %: each request made 256 tokens,
    # so 24.32 × 256 = 6,225.92 of them a second are output.
    assert record.metrics["output_tokens_per_second"] == pytest.approx(24.32 * 256)
    assert record.metrics["mean_output_tokens"] == 256


def test_lengths_that_do_not_give_the_printed_total_are_not_this_runs(tmp_path):
    # 24.32 req/s × (1024 + 256) = 31,130 tok/s, not the 12,453 printed: the flags are another run's.
    other = FIXED_LENGTHS.replace("--input-len 256", "--input-len 1024")
    (record,) = [record for record in read_records(write(tmp_path, other)) if record.kind == "summary"]
    assert "output_tokens_per_second" not in record.metrics


# A PR's before/after table (sglang, a metric a row and a variant a column) that holds only the output rate.
RATE_ROWS = """\
| Metric | Baseline (avg) | Optimized (avg) | Delta |
|--------|---------------|-----------------|-------|
| Output throughput (tok/s) | 131.41 | 134.83 | **+2.6%** |
"""


def test_a_metric_table_with_only_an_output_rate_is_read_as_runs(tmp_path):
    records = [record for record in read_records(write(tmp_path, RATE_ROWS)) if record.kind == "summary"]
    assert [record.metrics["output_tokens_per_second"] for record in records] == [131.41, 134.83]  # Delta: no run


# AutoAWQ's examples/benchmark.py (AutoAWQ#320): a 7B AWQ model on an A100-SXM4-80GB, batch 1, its decode rate a row.
AUTOAWQ = """\
|   Batch Size |   Prefill Length |   Decode Length |   Prefill tokens/s |   Decode tokens/s | Memory (VRAM)     |
|-------------:|-----------------:|----------------:|-------------------:|------------------:|:------------------|
|            1 |               64 |              64 |           1749.38  |           93.7882 | 4.57 GB (5.78%)   |
|            1 |              128 |             128 |           2058.66  |           93.2005 | 4.61 GB (5.82%)   |
"""


def test_a_tables_stream_rate_is_judged_against_the_floor_of_a_model_sized_from_its_name(tmp_path):
    # 7B × 4.25 bits (AWQ) / 8 = 3.72 GB a step over 2,039 GB/s = 1.82 ms, plus 32 layers' fixed cost; the fastest
    # row's 93.79 tok/s is 10.66 ms a token: under a third of the speed the weights allow, below the rule's 0.4.
    diagnosis = diagnose_files([write(tmp_path, AUTOAWQ)], model="acme/vicuna-7b-v1.5-awq", gpu="a100-sxm-80gb")
    assert diagnosis.verdict == "decode-bound"
    assert "hardware-named-decode-far-below-floor" in rules(diagnosis)


# exllamav2's test_inference.py -s on a 13B GPTQ (exllamav2#5): prompt speed by length, token speed by position.
EXLLAMAV2_SPEED = """\
 -- Measuring prompt speed...
 ** Length   128 tokens:    355.7812 t/s
 ** Length   256 tokens:    604.9509 t/s
 -- Measuring token speed...
 ** Position     1 + 127 tokens:   35.9594 t/s
 ** Position   128 + 128 tokens:   35.5533 t/s
"""


def test_exllamav2s_speed_test_lines_are_prompts_and_generations(tmp_path):
    records = read_records(write(tmp_path, EXLLAMAV2_SPEED))
    prompts = [record.metrics for record in records if "prompt_tokens_per_second" in record.metrics]
    decodes = [record.metrics for record in records if "generation_tokens_per_second" in record.metrics]
    assert [(metrics["input_tokens"], metrics["prefill_seconds"]) for metrics in prompts] == [
        (128, pytest.approx(128 / 355.7812)), (256, pytest.approx(256 / 604.9509))]
    assert [metrics["output_tokens"] for metrics in decodes] == [127, 128]
    assert decodes[1]["tpot_seconds"] == pytest.approx(1 / 35.5533)
    assert decodes[1]["input_tokens"] == 128  # the cache the 128 tokens attend to
    assert "input_tokens" not in decodes[0]  # position 1: no prompt but the first token


# A TGI shard's warm-up (tgi#2744) and a request that ran the card out of memory (tgi#1374).
TGI_WARMUP = """\
Warming up model
Setting max batch total tokens to 30816
"""
TGI_OOM = """\
text_generation.errors.GenerationError: Request failed during generation: Server error: CUDA out of memory. Tried to \
allocate 42.00 MiB. GPU 0 has a total capacty of 39.39 GiB of which 31.94 MiB is free.
"""


def test_tgis_warm_up_states_its_kv_pool_in_tokens(tmp_path):
    (record,) = read_records(write(tmp_path, TGI_WARMUP))
    assert (record.kind, record.metrics) == ("capacity", {"kv_cache_tokens": 30816.0})
    assert diagnose_files([write(tmp_path, TGI_WARMUP)]).verdict == "insufficient-data"  # a size, no traffic


def test_a_tgi_request_out_of_memory_is_a_kv_capacity_event(tmp_path):
    diagnosis = diagnose_files([write(tmp_path, TGI_OOM)])
    assert diagnosis.verdict == "kv-capacity"
    assert "state-preemption" in rules(diagnosis)


# llama.cpp's own account of the file it runs (llama.cpp#5877): the command line names a Q8_0 file. Llama 3.1 8B
# stored so is 8.03e9 weights × 8.5 bits (34 bytes a block of 32) = 8.53 GB, not the checkpoint's 16 GB of bf16.
LLAMA_CLI_Q8 = """\
./llama-cli -m llama3.1\\:8b-instruct-q8_0 -p "I believe, in one sentence, that the meaning of life is" -ngl 33
llama_perf_context_print:        load time =    3575.03 ms
llama_perf_context_print: prompt eval time =      56.80 ms /    14 tokens (    4.06 ms per token,   246.46 tokens per second)
llama_perf_context_print:        eval time =   27636.04 ms /   898 runs   (   30.78 ms per token,    32.49 tokens per second)
llama_perf_context_print:       total time =   29298.72 ms /   912 tokens
"""


def test_a_llama_cpp_runs_own_file_format_sets_the_bytes_a_step_reads(tmp_path):
    diagnosis = diagnose_files([write(tmp_path, LLAMA_CLI_Q8)], model="meta-llama/Llama-3.1-8B", gpu="rtx-3060")
    assert diagnosis.roofline["precision"] == "Q8_0"
    # one step reads the weights once: 8.03e9 × 8.5 / 8 bytes over the RTX 3060's 360 GB/s = 23.7 ms
    assert diagnosis.roofline["ledger_decode_seconds_per_token"] == pytest.approx(8.03e9 * 8.5 / 8 / 360e9, rel=0.03)
    # 30.78 ms a token is 77 % of that speed: healthy, where bf16's 16 GB floor (45 ms) called it impossible
    assert diagnosis.verdict == "healthy"


def test_the_loaders_file_type_line_names_the_format(tmp_path):
    line = "llm_load_print_meta: model ftype      = Q4_K - Medium\n"
    (record,) = read_records(write(tmp_path, line + LLAMA_CLI_Q8.split("\n", 1)[1]))[:1]
    assert record.labels["weights_format"] == "Q4_K - Medium"


# kubernetes-sigs/inference-perf's lifecycle report (inference-perf#215), cut before its TTFT: 73 req/s sent.
INFERENCE_PERF = """\
{
  "load_summary": {"count": 8760, "send_duration": 119.93, "requested_rate": 73.0, "achieved_rate": 73.04},
  "successes": {
    "count": 8760,
    "latency": {
      "request_latency": {"mean": 15.593, "median": 12.345, "p90": 33.623},
      "normalized_time_per_output_token": {"mean": 0.11335, "median": 0.07681},
      "time_per_output_token": {"mean": 0.029721, "median": 0.031639}
    }
  }
}
"""


def test_inference_perfs_report_is_read_and_its_wait_worked_out(tmp_path):
    (record,) = [record for record in read_records(write(tmp_path, INFERENCE_PERF)) if record.kind == "summary"]
    assert record.metrics["request_rate_per_second"] == 73.0
    assert record.metrics["completed_requests"] == 8760
    assert record.metrics["e2e_seconds_median"] == 12.345
    assert record.metrics["e2e_per_output_token_seconds_mean"] == 0.11335  # whole latency per token: no step
    diagnosis = diagnose_files([write(tmp_path, INFERENCE_PERF)])
    # tokens ≈ 15.593 / 0.11335 = 137.6; their steps 29.7 ms × 136.6 = 4.06 s; the first token waited the rest,
    # 15.593 − 4.06 = 11.53 s: 388 steps' worth, at 73 requests a second
    assert any("11,53" in note for note in diagnosis.notes)
    assert diagnosis.verdict == "queueing"


# MLPerf LoadGen's text summary of an Offline run whose SUT never reported tokens (mlcommons/inference#1546).
LOADGEN_OFFLINE = """\
================================================
MLPerf Results Summary
================================================
SUT name : PySUT
Scenario : Offline
Mode     : PerformanceOnly
Samples per second: 459.194
Tokens per second: 0
Result is : VALID

2750 ERRORS encountered. See detailed log.
"""


def test_loadgens_summary_is_read_and_zero_tokens_at_459_samples_a_second_is_no_measurement(tmp_path):
    (record,) = read_records(write(tmp_path, LOADGEN_OFFLINE))
    assert record.metrics == {"request_throughput_per_second": 459.194, "output_tokens_per_second": 0.0,
                              "failed_requests": 2750.0}
    assert record.labels["mlperf_scenario"] == "Offline"
    diagnosis = diagnose_files([write(tmp_path, LOADGEN_OFFLINE)])
    assert diagnosis.verdict == "measurement-artifact"
    assert "summary-zero-throughput" in rules(diagnosis)


def test_loadgens_latencies_are_nanoseconds():
    text = LOADGEN_OFFLINE.replace("Tokens per second: 0\n", "Tokens per second: 1200\n") + (
        "Mean First Token latency (ns)               : 250000000\n"
        "99.00 percentile time to output token (ns)  : 31000000\n")
    (record,) = list(mlperf_loadgen.parse(enumerate(text.splitlines(), 1)))
    assert record.metrics["ttft_seconds_mean"] == pytest.approx(0.25)
    assert record.metrics["tpot_seconds_p99"] == pytest.approx(0.031)


# SGLang's tuning guide prints a decode line wrapped after a comma (docs.sglang.ai, hyperparameter tuning).
SGLANG_WRAPPED = """\
Decode batch. #running-req: 233, #token: 370959, token usage: 0.82,
cuda graph: True, gen throughput (token/s): 4594.01, #queue-req: 317
"""


def test_a_wrapped_sglang_batch_line_is_joined(tmp_path):
    (record,) = read_records(write(tmp_path, SGLANG_WRAPPED))
    assert record.metrics["running_requests"] == 233
    assert record.metrics["generation_tokens_per_second"] == 4594.01  # from the line's second half
    assert record.metrics["waiting_requests"] == 317


def test_a_wrapped_line_whose_rest_never_comes_is_read_alone(tmp_path):
    (record,) = read_records(write(tmp_path, SGLANG_WRAPPED.splitlines()[0] + "\n"))
    assert record.metrics["running_requests"] == 233
    assert "waiting_requests" not in record.metrics


def test_colour_codes_in_caret_notation_are_cleaned():
    # ollama#2839's `docker logs` copy: ESC written as the two characters ^[ before each colour code
    line = '[GIN] 2024/03/01 - 01:34:07 |^[[97;42m 200 ^[[0m|  7.799372595s |      172.19.0.3 |^[[97;46m POST    ^[[0m "/api/chat"'
    assert clean_line(line) == '[GIN] 2024/03/01 - 01:34:07 | 200 |  7.799372595s |      172.19.0.3 | POST     "/api/chat"'


def test_gin_lines_with_caret_colours_are_requests(tmp_path):
    text = ('[GIN] 2024/03/01 - 01:34:07 |^[[97;42m 200 ^[[0m|  7.799372595s |      172.19.0.3 |^[[97;46m POST    ^[[0m '
            '"/api/chat"\n[GIN] 2024/03/01 - 01:34:09 |^[[97;42m 200 ^[[0m|  1.921034882s |      172.19.0.3 |^[[97;46m '
            'POST    ^[[0m "/api/generate"\n')
    requests = [record for record in read_records(write(tmp_path, text)) if record.kind == "request"]
    assert [record.metrics["e2e_seconds"] for record in requests] == [7.799372595, 1.921034882]


# awscurl's console summary (djl-serving#2644): no token counted in either reply, so its token latency is Infinity.
AWSCURL_TEXT = """\
Total time: 2511.73 ms.
Non 200 responses: 0, error rate: 0.00
Concurrent clients: 1
Total requests: 2
TPS: 0.86/s
Average Token Latency: Infinity ms.
Average Latency: 1166.49 ms.
P50: 1715.55 ms.
Time to first byte: 867.82 ms.
"""
# Its raw metrics as Python prints the dict (djl-serving#2713): 7 tokens a reply, the first byte 2.2 ms before the last.
AWSCURL_DICT = """\
method1  = {
 'totalTimeMills': 224838.06,
 'totalRequests': 8192,
 'failedRequests': 9,
 'concurrentClients': 64,
 'tps': 51.62,
 'tokenThroughput': 372.39,
 'tokenPerRequest': 7,
 'averageLatency': 1239.84,
 'timeToFirstByte': 1237.62
}
"""


def test_awscurls_console_summary_with_no_tokens_counted(tmp_path):
    (record,) = read_records(write(tmp_path, AWSCURL_TEXT))
    assert record.metrics["request_throughput_per_second"] == 0.86  # TPS: requests a second
    assert record.metrics["e2e_seconds_mean"] == pytest.approx(1.16649)
    assert record.metrics["ttft_seconds_mean"] == pytest.approx(0.86782)
    assert record.metrics["completed_requests"] == 2
    assert record.metrics["output_tokens_per_second"] == 0.0  # Infinity ms a token: none counted
    assert diagnose_files([write(tmp_path, AWSCURL_TEXT)]).verdict == "measurement-artifact"


def test_awscurls_python_dict_is_read_and_its_first_byte_is_the_whole_reply(tmp_path):
    (record,) = read_records(write(tmp_path, AWSCURL_DICT))
    assert record.metrics["duration_seconds"] == pytest.approx(224.83806)
    assert record.metrics["completed_requests"] == 8192 - 9
    # 6 tokens after the first in 1239.84 − 1237.62 = 2.22 ms: 0.37 ms each, past 2,000 tok/s in one stream
    diagnosis = diagnose_files([write(tmp_path, AWSCURL_DICT)])
    assert diagnosis.verdict == "measurement-artifact"
    assert "summary-ttft-equals-e2e" in rules(diagnosis)


def test_tokens_a_second_per_watt_are_no_rate(tmp_path):
    # a power-cap test's efficiency column pasted flat (a blog's table): 0.470 tok/s/W is tokens per joule
    text = "Power captok/sAvg drawEfficiency\n180 W (default)81.2172.7 W0.470 tok/s/W\n162 W81.4159.3 W0.511 tok/s/W\n"
    with pytest.raises(LogFormatError):  # nothing else in it is a serving number either
        read_records(write(tmp_path, text))
    assert generic_phrases._RATE.search("0.470 tok/s/W") is None
    assert generic_phrases._RATE.search("81.2 tok/s, 172.7 W").group(1) == "81.2"


# A blog's narrow column wrapped llama-server's timing line after `ms per` (two MI50s, Qwen3.6-27B Q8_0 with MTP).
WRAPPED_EVAL = """\
24.17.528.975 I slot print_timing: id 0 | task 2484 |
eval time = 28897.12 ms / 808 tokens ( 35.76 ms per
token, 27.96 tokens per second)
"""


def test_an_eval_line_cut_before_its_rate_gives_the_rate_back(tmp_path):
    (record,) = [record for record in read_records(write(tmp_path, WRAPPED_EVAL)) if record.kind == "request"]
    assert record.metrics["tpot_seconds"] == pytest.approx(28.89712 / 808)  # 35.76 ms, as the cut text says
    assert record.metrics["generation_tokens_per_second"] == pytest.approx(808 / 28.89712)  # 27.96


# compare-llama-bench's rows pasted without their header (llama.cpp#10238): device, model, test, two builds, ratio.
COMPARE_ROWS = """\
| M2 Ultra | llama 3B F16      | pp512  |      3237.78 |                      3282.55 |      1.01 |
| M2 Ultra | llama 3B F16      | tg128  |        72.29 |                        73.29 |      1.01 |
| RTX 3090 | deepseek2 16B Q4_0 | 16 | pp512 |  499.68 |  784.29 |  1.57 |
"""


def test_compare_llama_bench_rows_without_their_header_are_a_row_a_build(tmp_path):
    records = read_records(write(tmp_path, COMPARE_ROWS))
    rates = [(record.labels["build"], record.labels["test"], record.metrics.get("generation_tokens_per_second")
              or record.metrics.get("prompt_tokens_per_second")) for record in records]
    assert rates == [("before", "pp512", 3237.78), ("after", "pp512", 3282.55), ("before", "tg128", 72.29),
                     ("after", "tg128", 73.29), ("before", "pp512", 499.68), ("after", "pp512", 784.29)]
    assert records[4].labels["n_ubatch"] == "16"  # the micro-batch column, when the row has one


def test_a_compare_rows_device_cell_names_the_card(tmp_path):
    # no --gpu: the rows' own device cell (M2 Ultra, 800 GB/s) is the card; 3B F16 (6 GB by its name) × 73.29 tok/s
    # is ~440 GB/s, 55 % of it
    diagnosis = diagnose_files([write(tmp_path, COMPARE_ROWS.rsplit("\n", 2)[0] + "\n")])
    assert "m2-ultra" in diagnosis.evidence[0].text
    assert diagnosis.verdict == "healthy"


# llama-cpp-python with a grammar (llama-cpp-agent, llama-cpp-python#1032): sampling a token costs more than its step.
GRAMMAR_TIMINGS = """\
llama_print_timings:        load time =     270.20 ms
llama_print_timings:      sample time =   10988.67 ms /   141 runs   (   77.93 ms per token,    12.83 tokens per second)
llama_print_timings: prompt eval time =     269.49 ms /   248 tokens (    1.09 ms per token,   920.27 tokens per second)
llama_print_timings:        eval time =    4854.89 ms /   140 runs   (   34.68 ms per token,    28.84 tokens per second)
llama_print_timings:       total time =   17567.76 ms /   388 tokens
"""


def test_sampling_slower_than_the_models_steps_is_decode_bound_on_the_host(tmp_path):
    (record,) = read_records(write(tmp_path, GRAMMAR_TIMINGS))
    assert record.metrics["sample_seconds"] == pytest.approx(10.98867)
    assert record.metrics["tpot_seconds"] == pytest.approx(0.03468)  # the eval line's step, not the sampler's
    assert record.metrics["sample_per_decode"] == pytest.approx(10988.67 / 4854.89)  # 2.26×
    diagnosis = diagnose_files([write(tmp_path, GRAMMAR_TIMINGS)])
    assert diagnosis.verdict == "decode-bound"
    assert "requests-sampling-slows-decode" in rules(diagnosis)


def test_sample_lines_alone_are_no_generation_rate(tmp_path):
    # llama.cpp#7554: only `sample time` lines, 0.08 ms a token: a sampler's cost, no step of the model
    text = "llama_print_timings:      sample time =      32.14 ms /   410 runs   (    0.08 ms per token, 12755.10 " \
           "tokens per second)\n"
    (record,) = read_records(write(tmp_path, text))
    assert "tpot_seconds" not in record.metrics and "generation_tokens_per_second" not in record.metrics
    assert diagnose_files([write(tmp_path, text)]).verdict == "insufficient-data"


# vLLM's benchmark_serving against LMDeploy (lmdeploy#1573), its command line above a summary cut before latencies.
OFFERED_ON_THE_COMMAND_LINE = """\
python3 benchmarks/benchmark_serving.py --backend lmdeploy --model /workdir/llama2_13b_chat --dataset-name sharegpt \
--request-rate 128
============ Serving Benchmark Result ============
Successful requests:                     1000
Benchmark duration (s):                  106.18
Request throughput (req/s):              9.42
Output token throughput (tok/s):         1870.79
"""


def test_the_clients_command_line_states_the_offered_rate(tmp_path):
    (record,) = read_records(write(tmp_path, OFFERED_ON_THE_COMMAND_LINE))
    assert record.metrics["request_rate_per_second"] == 128
    # 1,000 requests at 128 a second all arrive in 1000 / 128 = 7.8 s; served at 9.42 a second they take 106 s
    diagnosis = diagnose_files([write(tmp_path, OFFERED_ON_THE_COMMAND_LINE)])
    assert diagnosis.verdict == "queueing"


def test_a_model_path_with_spaces_is_read_to_its_gguf(tmp_path):
    line = ("[DEBUG] <qwen> Executing start command: C:/Software/llama_cpp_cuda13/llama-server.exe --host 0.0.0.0 "
            "-m C:/Software/LM Studio Models/Qwen3.8-27B-UD-Q4_K_XL.gguf -c 32000\n")
    (record,) = read_records(write(tmp_path, line + WRAPPED_EVAL))[:1]
    assert record.labels["model"] == "Qwen3.8-27B-UD-Q4_K_XL"


def test_a_compare_row_with_a_bits_cell_before_its_micro_batch(tmp_path):
    # llama.cpp's MMQ refactor on a P40: `| P40 | llama 8B Q5_0 | 5.21 | 16 | pp2048 | 176.80 | 335.92 | 1.90 |`
    row = "| P40     | llama 8B Q5_0     |                 5.21 |                  16 | pp2048   |         176.80 |  335.92 | 1.90 |\n"
    records = read_records(write(tmp_path, row * 2))
    assert [record.metrics["prompt_tokens_per_second"] for record in records[:2]] == [176.80, 335.92]
    assert records[0].labels["n_ubatch"] == "16"


# The engines' own refusals at start-up when the KV cache does not fit: vLLM V0 (two servers on one A100), TGI's
# warm-up (tgi#1030), and TensorRT-LLM's pool of one full-length sequence (a T5 on a 22 GiB card).
VLLM_NO_CACHE = ("ValueError: No available memory for the cache blocks. Try increasing `gpu_memory_utilization` when "
                 "initializing the engine.\n")
TGI_NOT_ENOUGH = ("Error: Warmup(Generation(\"Not enough memory to handle 16000 total tokens with 2 prefill tokens. "
                  "You need to decrease `--max-batch-total-tokens` or `--max-batch-prefill-tokens`\"))\n")
TRTLLM_POOL = """\
[TensorRT-LLM][INFO] [MemUsageChange] Allocated 0.10 GiB for max tokens in paged KV cache (2112).
[TensorRT-LLM][INFO] Number of blocks in KV cache primary pool: 18
[TensorRT-LLM][INFO] Max KV cache pages per sequence: 16
"""


def test_vllm_and_tgi_start_up_refusals_are_kv_capacity(tmp_path):
    for text in (VLLM_NO_CACHE, TGI_NOT_ENOUGH):
        diagnosis = diagnose_files([write(tmp_path, text)])
        assert diagnosis.verdict == "kv-capacity", text
        assert diagnosis.events.get("kv_start_refusals") == 1


def test_a_trtllm_pool_holding_one_full_sequence(tmp_path):
    records = read_records(write(tmp_path, TRTLLM_POOL))
    metrics = {name: value for record in records for name, value in record.metrics.items()}
    assert metrics["kv_cache_tokens"] == 2112 and metrics["kv_cache_bytes"] == pytest.approx(0.10 * 2**30)
    assert metrics["max_concurrency_at_length"] == pytest.approx(18 / 16)  # blocks ÷ a full sequence's pages
    assert diagnose_files([write(tmp_path, TRTLLM_POOL)]).verdict == "kv-capacity"


# vLLM's offline bar wrapped onto a second line (blind round 245: Llama-3.1-405B FP8 on 8 H100s), 32 prompts at once.
OFFLINE_WRAPPED_BAR = """\
Prompt count: 32 Input Tokens: 128 Output Tokens: 512
Processed prompts: 100%|██████████████████████████████████████████████████████████
32/32 [00:48<00:00,  1.53s/it, est. speed input: 28.13 toks/s, output: 335.00 toks/s]
"""


def test_an_offline_bar_wrapped_onto_its_next_line_is_read(tmp_path):
    (record,) = [record for record in read_records(write(tmp_path, OFFLINE_WRAPPED_BAR)) if record.kind == "summary"]
    assert record.metrics["completed_requests"] == 32
    assert record.metrics["output_tokens_per_second"] == 335.0


def test_an_offline_batch_is_judged_at_its_own_batch(tmp_path):
    # 32 prompts at once, 335 output tok/s over the run: a step of 32 / 335 = 95.5 ms for the batch (prompts
    # included, a small share at 43 tokens in and ~500 out); 405B fp8 over 8 H100s reads 405e9 / 8 = 51 GB a card,
    # 15 ms at 3.35 TB/s: six times that, past the realistic estimate's 1.5×
    diagnosis = diagnose_files([write(tmp_path, OFFLINE_WRAPPED_BAR)], model="meta-llama/Llama-3.1-405B",
                               gpu="h100-sxm", precision="fp8")
    assert diagnosis.roofline["batch"] == 32
    assert diagnosis.roofline["observed_decode_seconds_per_token"] == pytest.approx(32 / 335.0)
    assert diagnosis.verdict == "decode-bound"
    assert "hardware-decode-below-realistic" in rules(diagnosis)


def test_llama_servers_prompt_cache_lines_alone_are_its_log_with_nothing_to_judge(tmp_path):
    # llama-server's slot selection and prompt-cache lines, no timing yet: its own log, insufficient, not refused
    text = ("slot get_availabl: id  3 | task -1 | selected slot by LCP similarity, sim_best = 0.333 (> 0.100 thold), "
            "f_keep = 0.030\nsrv   prompt_save:  - saving prompt with length 99, total state size = 10.830 MiB\n")
    diagnosis = diagnose_files([write(tmp_path, text)])
    assert diagnosis.verdict == "insufficient-data"
    assert diagnosis.files[0]["formats"] == ["llamacpp"]


def test_an_equals_chain_restating_one_figure_keeps_its_phase():
    # a poster's reformatted llama-server line (ik_llama.cpp offload thread): the prompt's time, count, per-token
    # time and rate in one `=` chain; the chain's later pairs are labelled by units, not phases
    line = "    prompt eval time = 582,682 ms / 1,659 tokens  =  351.23 ms per token  =  2.85 tok/s"
    metrics = generic_phrases.line_metrics(line)
    assert metrics["prefill_seconds"] == pytest.approx(582.682)
    assert metrics["prompt_tokens_per_second"] == 2.85  # the prompt's rate, not a generation rate
    assert "generation_tokens_per_second" not in metrics
    # pairs named by their own phases read as before: each its own
    assert generic_phrases.line_metrics("ttft=0.84s tpot=52ms output_len=300") == {
        "ttft_seconds": 0.84, "tpot_seconds": pytest.approx(0.052), "output_tokens": 300}


# A comparison whose rate columns put the build before `t/s` (blind round 256, a Radeon 780M: vulkan vs llamafile).
BUILD_BEFORE_RATE = """\
| model             |       size |     params |          test |    vulkan t/s |   llamafile t/s |
| ----------------- | ---------: | ---------: | ------------: | ------------: | --------------: |
| llama 1B F16      |   2.30 GiB |     1.24 B |          tg16 |         30.95 |           29.10 |
"""


def test_rate_columns_named_build_first_are_a_row_a_build(tmp_path):
    records = [record for record in read_records(write(tmp_path, BUILD_BEFORE_RATE)) if record.kind != "capacity"]
    assert [(record.labels["build"], record.metrics["generation_tokens_per_second"]) for record in records] == [
        ("vulkan", 30.95), ("llamafile", 29.10)]
