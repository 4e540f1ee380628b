"""llama.cpp and ollama parsers against the samples in tests/fixtures/logs, plus damaged and variant lines.

Expected figures are read from the sample text / FORMATS.md §5 with the conversion written out: llama.cpp prints ms
(÷ 1000), ollama `--verbose` prints Go durations (`204.563ms`, `4.876787s`, `2m7.682s`), the ollama API gives
integer nanoseconds (÷ 1e9), ollama memory figures are GiB (× 2**30).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from inferledger.diagnose.parsers import detect, llamacpp, ollama
from inferledger.diagnose.read import LogFile
from inferledger.diagnose.records import Record, Skipped

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures" / "logs"
GiB = 2**30


def read(path, module) -> tuple[list, list]:
    log = LogFile.open(path)
    assert module in detect(log.head), [m.NAME for m in detect(log.head)]
    items = list(module.parse(log.lines()))
    return [i for i in items if isinstance(i, Record)], [i for i in items if isinstance(i, Skipped)]


def parse_text(module, text: str) -> list:
    items = list(module.parse(enumerate(text.split("\n"), 1)))
    assert all(isinstance(item, (Record, Skipped)) for item in items)
    return [item for item in items if isinstance(item, Record)]


# ------------------------------------------------------------------------------------------------ llama.cpp


def test_llamacpp_server_2024_key_value_timings():
    # §5 #64: prompt 15.62 ms / 12 tokens (768.49 tok/s), generation 3194.22 ms / 783 runs (4.08 ms/token,
    # 245.13 tok/s), total 3209.84 ms; timestamp=1723569622 is Unix seconds.
    records, skipped = read(FIXTURES / "llamacpp__2024-server-json-style-timings.txt", llamacpp)
    assert not skipped
    [request] = records
    m = request.metrics
    assert request.kind == "request" and request.source == "llamacpp.server"
    assert m["prefill_seconds"] == pytest.approx(15.62 / 1000)
    assert m["input_tokens"] == 12
    assert m["prompt_tokens_per_second"] == 768.49
    assert m["decode_seconds"] == pytest.approx(3194.22 / 1000)
    assert m["output_tokens"] == 783
    assert m["tpot_seconds"] == pytest.approx(4.08 / 1000)
    assert m["generation_tokens_per_second"] == 245.13
    assert m["e2e_seconds"] == pytest.approx(3209.84 / 1000)
    assert request.timestamp_seconds == 1723569622
    assert "cache" in request.labels["input_tokens_definition"]


def test_llamacpp_server_2026_per_line_prefix_graphs_reused():
    # §5 #68: prompt eval 210.02 ms / 104 tokens (495.19 tok/s), eval 12,060.66 ms / 764 tokens (15.79 ms/token,
    # 63.35 tok/s), graphs reused 2590, n_tokens 19,740 (context held; only 104 needed prefill).
    records, _ = read(FIXTURES / "llamacpp__2026-server-per-line-timings-graphs-reused.txt", llamacpp)
    [request] = [record for record in records if record.kind == "request"]
    # The progress line before the timings: `n_decoded = 697, tg = 63.36 t/s` (no tg_3s on this one).
    [progress] = [record for record in records if record.kind == "interval"]
    assert progress.metrics["generation_tokens_per_second"] == 63.36 and progress.metrics["decoded_tokens"] == 697
    m = request.metrics
    assert m["prefill_seconds"] == pytest.approx(210.02 / 1000) and m["input_tokens"] == 104
    assert m["prompt_tokens_per_second"] == 495.19
    assert m["decode_seconds"] == pytest.approx(12060.66 / 1000) and m["output_tokens"] == 764
    assert m["tpot_seconds"] == pytest.approx(15.79 / 1000) and m["generation_tokens_per_second"] == 63.35
    assert m["e2e_seconds"] == pytest.approx(12270.68 / 1000)
    assert m["graphs_reused"] == 2590
    assert m["context_tokens"] == 19740
    assert request.labels["slot"] == "3" and request.labels["task"] == "1941"
    assert request.timestamp_seconds is None  # '16.44.049.633' is time since start, not a date


def test_llamacpp_batched_bench_table():
    # §5 #69: S_PP 1518.90-1640.90 t/s; S_TG 79.04 (B=1) -> 136.37 (B=2) -> 224.52 (B=4) at PP 512;
    # 74.77 -> 195.49 at PP 4096. n_kv_max = 20480 tokens on the `main:` line.
    records, _ = read(FIXTURES / "llamacpp__batched-bench-table-metal.txt", llamacpp)
    [capacity] = [r for r in records if r.kind == "capacity"]
    assert capacity.metrics["kv_cache_tokens"] == 20480
    rows = [r for r in records if r.kind == "interval"]
    assert len(rows) == 6
    tg = {(r.labels["pp"], r.labels["b"]): r.metrics["generation_tokens_per_second"] for r in rows}
    assert tg[("512", "1")] == 79.04 and tg[("512", "2")] == 136.37 and tg[("512", "4")] == 224.52
    assert tg[("4096", "1")] == 74.77 and tg[("4096", "4")] == 195.49
    prefill = [r.metrics["prompt_tokens_per_second"] for r in rows]
    assert min(prefill) == 1518.90 and max(prefill) == 1640.90
    assert rows[0].metrics["running_requests"] == 1 and rows[0].metrics["prefill_seconds"] == 0.337


def test_llamacpp_legacy_cli_and_perf_api():
    # Legacy llama_print_timings (§2.8): load, sample (ignored), prompt eval, eval (N runs), total; then the
    # late-2024 perf API spelling for a second request.
    text = """llama_print_timings:        load time =    1234.50 ms
llama_print_timings:      sample time =      10.00 ms /   128 runs   (    0.08 ms per token, 12800.00 tokens per second)
llama_print_timings: prompt eval time =    3680.00 ms /    12 tokens (  306.67 ms per token,     3.26 tokens per second)
llama_print_timings:        eval time =   28900.00 ms /   127 runs   (  227.56 ms per token,     4.39 tokens per second)
llama_print_timings:       total time =   32700.00 ms /   139 tokens
llama_perf_context_print:        load time =     500.00 ms
llama_perf_context_print: prompt eval time =     100.00 ms /   512 tokens (    0.20 ms per token,  5120.00 tokens per second)
llama_perf_context_print:        eval time =    2000.00 ms /   100 runs   (   20.00 ms per token,    50.00 tokens per second)
llama_perf_context_print:       total time =    2600.00 ms /   612 tokens"""
    first, second = parse_text(llamacpp, text)
    assert first.source == "llamacpp.cli" and first.labels["variant"] == "cli-legacy"
    assert first.metrics["load_seconds"] == pytest.approx(1.2345)
    assert first.metrics["prefill_seconds"] == pytest.approx(3.68) and first.metrics["input_tokens"] == 12
    assert first.metrics["output_tokens"] == 127 and first.metrics["tpot_seconds"] == pytest.approx(0.22756)
    assert first.metrics["e2e_seconds"] == pytest.approx(32.7)
    assert second.labels["variant"] == "cli-perf" and second.metrics["prompt_tokens_per_second"] == 5120.0


def test_llamacpp_server_2025_unprefixed_continuation_lines():
    # Late-2024/2025 server: the slot prefix on the first line only, continuations unprefixed; a supervisor
    # prefix `[42027]` in front.
    text = """[42027] slot print_timing: id  0 | task 7 |
[42027] prompt eval time =     500.00 ms /  2000 tokens (    0.25 ms per token,  4000.00 tokens per second)
[42027]        eval time =    1000.00 ms /    50 tokens (   20.00 ms per token,    50.00 tokens per second)
[42027]       total time =    1500.00 ms /  2050 tokens"""
    [request] = parse_text(llamacpp, text)
    assert request.metrics["input_tokens"] == 2000 and request.metrics["output_tokens"] == 50
    assert request.metrics["e2e_seconds"] == pytest.approx(1.5)
    assert request.source == "llamacpp.server" and request.labels["task"] == "7"


def test_llama_bench_markdown_table_and_capacity_lines():
    text = """load_tensors: offloaded 29/33 layers to GPU
llama_context: n_ctx         = 4096
| model                          |       size |     params | backend    | ngl | test  |                  t/s |
| ------------------------------ | ---------: | ---------: | ---------- | --: | ----: | -------------------: |
| qwen2 7B Q8_0                  |   7.54 GiB |     7.62 B | Metal,BLAS |  99 | pp512 |       1234.56 ± 5.67 |
| qwen2 7B Q8_0                  |   7.54 GiB |     7.62 B | Metal,BLAS |  99 | tg128 |         45.10 ± 0.20 |
| qwen2 7B Q8_0                  |   7.54 GiB |     7.62 B | Metal,BLAS |  99 | tg128 |             broken |"""
    items = list(llamacpp.parse(enumerate(text.split("\n"), 1)))
    records = [i for i in items if isinstance(i, Record)]
    skipped = [i for i in items if isinstance(i, Skipped)]
    offload, ctx = [r for r in records if r.kind == "capacity"]
    assert offload.metrics["offloaded_layers"] == 29 and offload.metrics["model_layers"] == 33
    assert ctx.metrics["context_tokens"] == 4096
    pp, tg = [r for r in records if r.kind == "interval"]
    assert pp.metrics["prompt_tokens_per_second"] == 1234.56 and pp.metrics["prompt_tokens_per_second_std"] == 5.67
    assert tg.metrics["generation_tokens_per_second"] == 45.10
    assert pp.metrics["weights_bytes"] == pytest.approx(7.54 * GiB)
    assert pp.metrics["parameters"] == pytest.approx(7.62e9)
    assert [s.line_number for s in skipped] == [7]


def test_llamacpp_ansi_coloured_lines_are_read(tmp_path):
    text = (FIXTURES / "llamacpp__2024-server-json-style-timings.txt").read_text().splitlines()
    path = tmp_path / "ansi.log"
    path.write_text("\n".join(f"\x1b[0;32m{line}\x1b[0m" for line in text) + "\n")
    records, _ = read(path, llamacpp)
    assert records[0].metrics["output_tokens"] == 783


# ------------------------------------------------------------------------------------------------ ollama


def test_go_durations():
    assert ollama.go_duration_seconds("891.933µs") == pytest.approx(891.933e-6)
    assert ollama.go_duration_seconds("847ms") == pytest.approx(0.847)
    assert ollama.go_duration_seconds("4.876787s") == pytest.approx(4.876787)
    assert ollama.go_duration_seconds("2m7.682s") == pytest.approx(2 * 60 + 7.682)
    assert ollama.go_duration_seconds("1m16s") == 76
    assert ollama.go_duration_seconds("1h2m") == 3720
    assert ollama.go_duration_seconds("12 ms") is None
    assert ollama.go_duration_seconds("abc") is None


def test_ollama_verbose_block():
    # §5 #77: prompt eval 11 tokens in 204.563ms (53.77 tok/s), eval 120 tokens in 4.876787s (24.61 tok/s),
    # load 1.365523ms, total 5.088275983s.
    records, _ = read(FIXTURES / "ollama__verbose-mistral-2024-baseline.txt", ollama)
    [request] = records
    m = request.metrics
    assert m["input_tokens"] == 11 and m["prefill_seconds"] == pytest.approx(204.563e-3)
    assert m["prompt_tokens_per_second"] == 53.77
    assert m["output_tokens"] == 120 and m["decode_seconds"] == pytest.approx(4.876787)
    assert m["generation_tokens_per_second"] == 24.61
    assert m["load_seconds"] == pytest.approx(1.365523e-3)
    assert m["e2e_seconds"] == pytest.approx(5.088275983)


def test_ollama_api_json_nanoseconds():
    # §5 #80: total_duration 174,560,334 ns (174.6 ms), load_duration 101,397,084 ns, prompt 11 tokens in
    # 13,074,791 ns, eval 18 tokens in 52,479,709 ns (~343 tok/s = 18 / 0.052479709 s).
    records, _ = read(FIXTURES / "ollama__api-usage-json-doc-example.txt", ollama)
    [request] = records
    m = request.metrics
    assert m["e2e_seconds"] == pytest.approx(174_560_334 / 1e9)
    assert m["load_seconds"] == pytest.approx(101_397_084 / 1e9)
    assert m["input_tokens"] == 11 and m["prefill_seconds"] == pytest.approx(13_074_791 / 1e9)
    assert m["output_tokens"] == 18 and m["decode_seconds"] == pytest.approx(52_479_709 / 1e9)
    assert m["generation_tokens_per_second"] == pytest.approx(343, abs=0.5)
    assert m["load_seconds"] / m["e2e_seconds"] == pytest.approx(0.58, abs=0.01)  # cold start: load is 58 %
    assert request.labels["model"] == "gemma3"


def test_ollama_scheduler_offload_memory():
    # §5 #72: layers 81/81 offloaded, memory.required.full 42.2 GiB, weights 39.3 GiB, kv 2.5 GiB, graph 1.0 GiB,
    # parallel 4, ctx-size 8192; available=84100120576 bytes on the scheduler line.
    records, _ = read(FIXTURES / "ollama__2024-scheduler-offload-memory-startup.txt", ollama)
    merged: dict = {}
    for record in records:
        assert record.kind == "capacity"
        merged.update(record.metrics)
    assert merged["offloaded_layers"] == 81 and merged["model_layers"] == 81
    assert records[1].metrics["required_memory_bytes"] == pytest.approx(42.2 * GiB)
    assert merged["weights_bytes"] == pytest.approx(39.3 * GiB)
    assert merged["kv_cache_bytes"] == pytest.approx(2.5 * GiB)
    assert merged["graph_memory_bytes"] == pytest.approx(1.0 * GiB)
    assert merged["parallel_slots"] == 4 and merged["context_tokens"] == 8192
    assert records[0].metrics["available_memory_bytes"] == 84100120576
    assert records[0].timestamp_seconds == pytest.approx(1725344208.144)  # 2024-09-03T06:16:48.144Z


def test_ollama_2025_engine_memory_lines():
    text = "\n".join([
        'time=2025-05-01T10:00:00.000Z level=INFO source=server.go:405 msg=load request="{Operation:commit '
        'Parallel:2 BatchSize:512 FlashAttention:false KvSize:8192 KvCacheType: NumThreads:8}"',
        'time=2025-05-01T10:00:01.000Z level=INFO source=ggml.go:483 msg="model weights" device=CUDA0 size="7.6 GiB"',
        'time=2025-05-01T10:00:01.000Z level=INFO source=ggml.go:483 msg="model weights" device=CPU size="417.7 MiB"',
        'time=2025-05-01T10:00:01.000Z level=INFO source=ggml.go:494 msg="kv cache" device=CUDA0 size="1.1 GiB"',
    ])
    load, gpu_weights, cpu_weights, kv = parse_text(ollama, text)
    assert load.metrics == {"context_tokens": 8192, "parallel_slots": 2}
    assert gpu_weights.metrics["weights_bytes"] == pytest.approx(7.6 * GiB) and gpu_weights.labels["device"] == "CUDA0"
    assert cpu_weights.metrics["weights_bytes"] == pytest.approx(417.7 * 2**20) and cpu_weights.labels["device"] == "CPU"
    assert kv.metrics["kv_cache_bytes"] == pytest.approx(1.1 * GiB)


def test_ollama_streamed_ndjson_and_gin_lines():
    text = "\n".join([
        '{"model":"llama3","created_at":"2024-05-01T10:00:00Z","response":"Hi","done":false}',
        '{"model":"llama3","created_at":"2024-05-01T10:00:01Z","response":"","done":true,"total_duration":2000000000,'
        '"load_duration":1000000,"prompt_eval_count":26,"prompt_eval_duration":130000000,"eval_count":50,'
        '"eval_duration":1000000000}',
        '[GIN] 2024/09/03 - 06:17:01 | 200 |         1m16s |      172.17.0.1 | POST     "/api/chat"',
        '[GIN] 2024/09/03 - 06:17:02 | 200 |    3.251209ms |      172.17.0.1 | GET      "/api/tags"',
        '[GIN] garbled',
    ])
    items = list(ollama.parse(enumerate(text.split("\n"), 1)))
    records = [i for i in items if isinstance(i, Record)]
    api, chat = records  # `GET /api/tags` lists models: management, no request served
    assert api.metrics["output_tokens"] == 50 and api.metrics["decode_seconds"] == 1.0
    assert api.metrics["generation_tokens_per_second"] == 50.0
    assert chat.metrics["e2e_seconds"] == 76 and "whole seconds" in chat.labels["e2e_resolution"]
    assert chat.timestamp_seconds == 1725344221  # 2024-09-03 06:17:01 read as UTC (no zone printed)
    assert [i.line_number for i in items if isinstance(i, Skipped)] == [5]


def test_ollama_verbose_with_docker_prefix_and_minutes(tmp_path):
    text = """2025-01-01T00:00:00.000000000Z total duration:       2m10.5s
2025-01-01T00:00:00.000000000Z load duration:        2.5s
2025-01-01T00:00:00.000000000Z prompt eval count:    4000 token(s)
2025-01-01T00:00:00.000000000Z prompt eval duration: 1m0.25s
2025-01-01T00:00:00.000000000Z prompt eval rate:     66.39 tokens/s
2025-01-01T00:00:00.000000000Z eval count:           300 token(s)
2025-01-01T00:00:00.000000000Z eval duration:        1m7.75s
2025-01-01T00:00:00.000000000Z eval rate:            4.43 tokens/s
"""
    path = tmp_path / "docker.log"
    path.write_text(text)
    [request], _ = read(path, ollama)
    assert request.metrics["e2e_seconds"] == pytest.approx(130.5)
    assert request.metrics["prefill_seconds"] == pytest.approx(60.25)
    assert request.metrics["decode_seconds"] == pytest.approx(67.75)


def test_ollama_truncated_api_json(tmp_path):
    lines = (FIXTURES / "ollama__api-usage-json-doc-example.txt").read_text().splitlines()
    path = tmp_path / "cut.json"
    path.write_text("\n".join(lines[: lines.index('  "eval_count": 18,')]) + "\n")
    [request], _ = read(path, ollama)
    assert request.labels["truncated"] == "true"
    assert request.metrics["input_tokens"] == 11 and "output_tokens" not in request.metrics


@pytest.mark.parametrize("module", [llamacpp, ollama])
@pytest.mark.parametrize("text", [
    "", "prompt eval time = ms", "eval rate: fast", "total duration: 5 parsecs", "| model | test | t/s |\n| x |",
    "|    PP |     TG |    B | S_TG t/s |\n| a | b | c | d |", "{\"eval_count\": ", "level=INFO msg=x memory.required.kv=\"?\"",
    "\x00\x00", "graphs reused = 5", "slot release: n_tokens = 12",
])
def test_parsers_never_raise_on_odd_text(module, text):
    parse_text(module, text)
