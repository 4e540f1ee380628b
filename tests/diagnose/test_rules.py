"""The rules table (one reviewable row per rule), the ranking (a verdict's confidence is never below an alternative
it lists), the module graph (no import cycle with roofline.py) and the new verdict rules on logs written out here
with their arithmetic."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from inferledger.diagnose import diagnose_files
from inferledger.diagnose.diagnosis import rank
from inferledger.diagnose.findings import VERDICTS, Finding
from inferledger.diagnose.rules import LIMITS, RULES, limits_table, rules_table

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures" / "logs"
PACKAGE = Path(__file__).resolve().parents[2] / "src" / "inferledger" / "diagnose"


def test_every_rule_is_a_complete_row():
    for rule in RULES.values():
        assert rule.verdict in VERDICTS or rule.verdict in ("check", "note"), rule.name
        assert rule.evidence and rule.why, rule.name
        assert 0.0 <= rule.low <= rule.high <= 1.0, rule.name
    table = rules_table()
    assert table.count("\n") == len(RULES) + 1  # header, rule line, one row each
    assert "| windows-kv-full-waiting | kv-capacity |" in table


def test_every_limit_is_a_complete_row_and_read_by_the_code():
    table = limits_table()
    assert table.count("\n") == len(LIMITS) + 1
    source = "\n".join(path.read_text() for path in PACKAGE.glob("*.py"))
    for item in LIMITS.values():
        assert item.unit and item.used_by and item.why, item.name
        assert f'limit("{item.name}")' in source, f"{item.name}: in the table but read by no rule family"
    assert "| depth-max | 16384 tokens of context |" in table


def _numeric(node) -> bool:
    if isinstance(node, ast.Constant):
        return isinstance(node.value, (int, float)) and not isinstance(node.value, bool)
    return isinstance(node, ast.BinOp) and _numeric(node.left) and _numeric(node.right)


def test_rule_families_keep_no_numeric_limit_of_their_own():
    # A number a rule family tests lives in rules.py (a rule's threshold or a limit), not in a module constant.
    for name in ("rules_summary.py", "rules_windows.py", "rules_requests.py", "rules_state.py", "diagnosis.py",
                 "roofline.py", "named_model.py"):
        for node in ast.parse((PACKAGE / name).read_text()).body:
            assert not (isinstance(node, ast.Assign) and _numeric(node.value)), \
                f"{name}:{node.lineno}: a numeric constant outside rules.py"


def test_diagnosis_code_has_no_inline_confidence():
    # Confidences live in rules.py; the rule families pass a share, never a literal score.
    for name in ("rules_summary.py", "rules_windows.py", "rules_requests.py", "rules_state.py", "diagnosis.py",
                 "roofline.py"):
        tree = ast.parse((PACKAGE / name).read_text())
        for node in ast.walk(tree):
            if isinstance(node, ast.Call) and getattr(node.func, "id", "") == "Finding":
                raise AssertionError(f"{name}: Finding(...) built inline; use rules.fire")


def _top_level_imports(path: Path) -> set:
    tree = ast.parse(path.read_text())
    found = set()
    for node in tree.body:  # module level only: lazy imports inside functions cannot form an import-time cycle
        if isinstance(node, ast.ImportFrom) and node.module and node.module.startswith("inferledger.diagnose"):
            found.add(node.module.split(".")[2] if node.module.count(".") >= 2 else "__init__")
    return found


def test_no_import_cycle_in_the_package():
    graph = {path.stem: _top_level_imports(path) for path in PACKAGE.glob("*.py")}
    graph["roofline"] |= set()  # listed for the message below

    def visit(node, trail):
        assert node not in trail, " -> ".join([*trail, node])
        for child in graph.get(node, ()):
            visit(child, [*trail, node])

    for module in graph:
        visit(module, [])
    assert "roofline" not in graph["diagnosis"] and "diagnosis" not in graph["roofline"]


@pytest.mark.parametrize("scores", [
    [("prefill-bound", 0.95), ("queueing", 0.90)],  # the README example of the first edition
    [("queueing", 0.70), ("kv-capacity", 0.69), ("decode-bound", 0.5)],
    [("kv-capacity", 0.9), ("queueing", 0.5)],
    [("healthy", 0.6), ("measurement-artifact", 0.55)],
])
def test_confidence_never_below_a_listed_alternative(scores):
    findings = [Finding(verdict, score, []) for verdict, score in scores]
    verdict, confidence, alternatives = rank(findings)
    assert verdict == scores[0][0]
    assert all(confidence >= item["confidence"] for item in alternatives)


def test_readme_example_ranks_consistently():
    diagnosis = diagnose_files([FIXTURES / "vllm__v1-single-line-prefill-heavy.txt"])
    assert all(diagnosis.confidence >= item["confidence"] for item in diagnosis.alternatives)


def _vllm_v1_line(second: int, running: int, waiting: int, kv_percent: float, generation: float = 300.0) -> str:
    return (f"INFO 05-12 08:{second // 60:02d}:{second % 60:02d} [loggers.py:116] Engine 000: Avg prompt throughput: "
            f"100.0 tokens/s, Avg generation throughput: {generation:.1f} tokens/s, Running: {running} reqs, "
            f"Waiting: {waiting} reqs, GPU KV cache usage: {kv_percent:.1f}%, Prefix cache hit rate: 0.0%")


def test_persistent_queue_outranks_one_full_kv_window(tmp_path):
    # 30 windows with 6 waiting at 50 % KV, then one window at 95 % KV with 6 waiting: the queue persists in all 31,
    # the full KV is one outlier (1/31 of the windows).
    lines = [_vllm_v1_line(10 * index, 20, 6, 50.0) for index in range(30)] + [_vllm_v1_line(300, 20, 6, 95.0)]
    path = tmp_path / "vllm.log"
    path.write_text("\n".join(lines) + "\n")
    diagnosis = diagnose_files([path])
    assert diagnosis.verdict == "queueing"
    assert {item.verdict for item in diagnosis.evidence} >= {"queueing", "kv-capacity"}


def test_nearly_full_kv_with_no_queue_is_named(tmp_path):
    # 12 windows at 96 % KV, 40 running, nobody waiting: the batch fills the KV pool (not "no numbers").
    lines = [_vllm_v1_line(10 * index, 40, 0, 96.0, generation=1200.0) for index in range(12)]
    path = tmp_path / "vllm.log"
    path.write_text("\n".join(lines) + "\n")
    diagnosis = diagnose_files([path])
    assert diagnosis.verdict == "kv-capacity"
    assert any(item.rule == "windows-kv-full-no-queue" for item in diagnosis.evidence)


def _bench(completed: int, duration: float, input_tokens: int, output_tokens: int, ttft_ms: float,
           tpot_ms: float) -> str:
    """A `vllm bench serve` summary with the rows the rules read (labels as printed, FORMATS.md §2.4)."""
    rows = [("Successful requests", completed), ("Benchmark duration (s)", f"{duration:.2f}"),
            ("Total input tokens", input_tokens), ("Total generated tokens", output_tokens),
            ("Request throughput (req/s)", f"{completed / duration:.2f}"),
            ("Output token throughput (tok/s)", f"{output_tokens / duration:.2f}"),
            ("Mean TTFT (ms)", f"{ttft_ms:.2f}"), ("Mean TPOT (ms)", f"{tpot_ms:.2f}")]
    body = "\n".join(f"{label + ':':<41}{value}" for label, value in rows)
    return "=" * 12 + " Serving Benchmark Result " + "=" * 12 + "\n" + body + "\n" + "=" * 50 + "\n"


BENCH_QUEUED = _bench(200, 100.0, 204800, 51200, 9000.0, 20.0)


def test_ttft_far_beyond_the_prompt_work_is_queueing(tmp_path):
    # Mean input 204800 / 200 = 1024 tokens; the run's input rate 204800 / 100 s = 2048 tok/s, so one prompt needs
    # at most 1024 / 2048 = 0.5 s of prefill. A 9 s mean TTFT is 18x that (>= 5x): the requests waited.
    path = tmp_path / "bench.txt"
    path.write_text(BENCH_QUEUED)
    diagnosis = diagnose_files([path])
    assert diagnosis.verdict == "queueing"
    item = next(item for item in diagnosis.evidence if item.rule == "summary-ttft-over-prompt-work")
    assert item.numbers["prompt_work_seconds"] == pytest.approx(1024 / 2048)
    assert "18×" in item.text


BENCH_SLOW_PROMPT = _bench(200, 2000.0, 400000, 400000, 40000.0, 25.0)


def test_slow_prompt_hidden_by_long_outputs_is_prefill(tmp_path):
    # Mean input 400000 / 200 = 2000 tokens, mean output 2000 tokens. Prompt work 2000 / (400000 / 2000 s) = 10 s;
    # TTFT 40 s is 4x that (< 5x: no queue rule). No E2E row, so no TTFT share; long outputs would hide it anyway
    # (40 / (40 + 0.025 * 1999) = 44 %). The prompt is read at 2000 / 40 = 50 tok/s, below 2 x the decode rate
    # 1 / 0.025 = 40 tok/s -> 80 tok/s: prefill-bound.
    path = tmp_path / "bench.txt"
    path.write_text(BENCH_SLOW_PROMPT)
    diagnosis = diagnose_files([path])
    assert diagnosis.verdict == "prefill-bound"
    item = next(item for item in diagnosis.evidence if item.rule == "summary-slow-prompt-rate")
    assert item.numbers["prompt_tokens_per_second"] == pytest.approx(2000 / 40)
    assert item.numbers["decode_tokens_per_second"] == pytest.approx(40)


def test_advice_does_not_suggest_prefix_caching_when_it_is_on():
    diagnosis = diagnose_files([FIXTURES / "vllm__v1-single-line-prefill-heavy.txt"])
    text = " ".join(diagnosis.advice)
    assert "enable prefix caching" not in text
    assert "prefix caching is already on (hit rate up to 40%)" in text  # 40.5 % in the log


def test_advice_for_a_prefill_bound_v1_log_does_not_say_enable_chunked_prefill(tmp_path):
    # vLLM's V1 engine (`Engine 000:` stats lines) always chunks prefills: only the step budget is left to tune; the
    # same window as a V0 line (`Pending:`) may still be told to enable it.
    v1 = diagnose_files([FIXTURES / "vllm__v1-single-line-prefill-heavy.txt"])
    assert v1.verdict == "prefill-bound"
    assert not any("enable chunked prefill" in tip for tip in v1.advice)
    assert any("always chunks prefills" in tip and "--max-num-batched-tokens" in tip for tip in v1.advice)
    v0 = tmp_path / "v0.log"
    v0.write_text("INFO 06-16 10:03:14 metrics.py:449] Avg prompt throughput: 1254.4 tokens/s, Avg generation "
                  "throughput: 29.2 tokens/s, Running: 10 reqs, Swapped: 0 reqs, Pending: 4 reqs, GPU KV cache usage: "
                  "57.9%, CPU KV cache usage: 0.0%.\n")
    advice = diagnose_files([v0]).advice
    assert any("enable chunked prefill" in tip for tip in advice)


def test_healthy_always_carries_numbers():
    for path in sorted(FIXTURES.glob("*.txt")):
        diagnosis = diagnose_files([path])
        for item in diagnosis.evidence:
            if item.verdict == "healthy":
                assert item.numbers, (path.name, item.text)


def test_decode_advice_for_a_one_user_runner_is_not_to_batch():
    # koboldcpp serves one request at a time: there is no batch to grow, so the advice is about bytes per token; a
    # batching server's decode-bound log (TGI) keeps the batching advice.
    local = diagnose_files([FIXTURES / "koboldcpp__ctxlimit-stopped-early-78-of-387.txt"])
    assert local.verdict == "decode-bound"
    assert not any("batch more requests" in tip for tip in local.advice)
    assert any("smaller quantisation" in tip and "--gpulayers" in tip for tip in local.advice)
    server = diagnose_files([FIXTURES / "tgi__cpu-backend-generate-success-line.txt"])
    assert server.verdict == "decode-bound" and any("batch more requests" in tip for tip in server.advice)


def test_kv_advice_for_a_one_user_runner_is_about_its_context_window():
    # koboldcpp at 3,768 of its 4,096-token context: the window is the limit, not a server's KV pool
    full = diagnose_files([FIXTURES.parent / "blind7_logs" / "koboldcpp__ctx-3768-of-4096-eos-after-one-token.txt"])
    assert full.verdict == "kv-capacity"
    assert not any("gpu_memory_utilization" in tip for tip in full.advice)
    assert any("--contextsize" in tip for tip in full.advice)
