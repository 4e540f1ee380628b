"""The general fixes of blind round 22 (tests/fixtures/blind22_logs): readers for ExecuTorch's PyTorchObserver line,
onnxruntime-genai's --timings line, oMLX's single-request table and nano-vllm's bench line, and the rule for the same
offline work run far slower than another run of the file. Expected figures are the excerpts' numbers worked by hand."""

from __future__ import annotations

from pathlib import Path

import pytest

from inferledger.diagnose import diagnose_files
from inferledger.diagnose.read import read_records

ROUND = Path(__file__).resolve().parent.parent / "fixtures" / "blind22_logs"


def _one(name: str):
    (record,) = read_records(ROUND / name)
    return record


def test_executorch_observer_line_times_each_phase_from_inference_start():
    record = _one("executorch__pytorchobserver-stories110m-2-prompt-7-generated.txt")
    metrics = record.metrics
    # inference 1711754028327 -> 1711754028493 ms; prompt evaluated by ...340, first token at ...352
    assert metrics["e2e_seconds"] == pytest.approx(0.166)
    assert metrics["prefill_seconds"] == pytest.approx(0.013)
    assert metrics["ttft_seconds"] == pytest.approx(0.025)
    assert metrics["decode_seconds"] == pytest.approx(0.153)
    assert metrics["generation_tokens_per_second"] == pytest.approx(7 / 0.153)
    assert (metrics["input_tokens"], metrics["output_tokens"]) == (2, 7)
    assert "load_seconds" not in metrics  # the load (190 ms) comes before inference, not inside the request
    assert record.labels["model_load_seconds"] == pytest.approx(0.190)


def test_executorch_observer_line_of_another_kind_is_not_a_request(tmp_path):
    path = tmp_path / "observer.log"
    path.write_text('PyTorchObserver {"type": "NET", "metric": "Accuracy", "unit": "None", "value": "91.20"}\n'
                    'PyTorchObserver {"prompt_tokens": 5, "generated_tokens": 3}\n', encoding="utf-8")
    assert [record for record in read_records(path) if record.source == "executorch.stats"] == []


def test_onnxruntime_genai_timings_line():
    record = _one("ortgenai__phi3-timings-21-prompt-2.62s-ttft-new-5.09-tps.txt")
    metrics = record.metrics
    assert metrics["ttft_seconds"] == 2.62 and metrics["input_tokens"] == 21 and metrics["output_tokens"] == 85
    assert metrics["prompt_tokens_per_second"] == pytest.approx(21 / 2.62)  # 8.02 as printed
    assert metrics["decode_seconds"] == pytest.approx(85 / 5.09)  # the time after the first token
    assert metrics["e2e_seconds"] == pytest.approx(2.62 + 85 / 5.09)
    assert diagnose_files([ROUND / "ortgenai__phi3-timings-21-prompt-2.62s-ttft-new-5.09-tps.txt"]).verdict \
        == "decode-bound"  # 16.7 s of 19.3 s generating at 5.09 tok/s


def test_omlx_single_request_rows_and_not_its_batching_table(tmp_path):
    records = read_records(ROUND / "omlx__bench-gemma4-31b-mxfp4-pp-175-200-tg-22-tok-s.txt")
    assert [(record.metrics["input_tokens"], record.metrics["output_tokens"]) for record in records] == \
        [(1024, 128), (4096, 128), (8192, 128), (16384, 128)]
    last = records[-1].metrics
    assert last["ttft_seconds"] == pytest.approx(92.8817) and last["tpot_seconds"] == pytest.approx(0.04656)
    assert last["decode_seconds"] == pytest.approx(128 / 21.6)  # from its own rate
    assert records[-1].labels["peak_memory_gb"] == 21.70
    # The same rows under a batching section are another table: not read as single requests.
    text = (ROUND / "omlx__bench-gemma4-31b-mxfp4-pp-175-200-tg-22-tok-s.txt").read_text(encoding="utf-8")
    path = tmp_path / "batching.txt"
    header, rows = text.split("\npp1024", 1)
    path.write_text(header + "\n\nContinuous Batching — Same Prompt\npp1024" + rows, encoding="utf-8")
    assert [record for record in read_records(path) if record.source == "omlx.benchmark"] == []
    verdict = diagnose_files([ROUND / "omlx__bench-gemma4-31b-mxfp4-pp-175-200-tg-22-tok-s.txt"])
    assert verdict.verdict == "prefill-bound"  # 92.9 s of a 98.8 s request reading a 16k prompt
    assert not any("chunked prefill" in tip for tip in verdict.advice)  # one request at a time


def test_nano_vllm_bench_lines():
    records = read_records(ROUND / "nanovllmtriton__bench-a800-small-models-10k-24k-tok-s.txt")
    first = records[0]
    assert first.metrics == {"total_output_tokens": 133966, "duration_seconds": 5.55,
                             "output_tokens_per_second": 24145.12}
    assert (first.labels["engine"], first.labels["model"]) == ("nanovllmtriton", "Qwen2-0.5B")
    assert [record.labels["engine"] for record in records].count("vllm") == 4


def test_same_work_far_slower_is_a_broken_generation_path():
    diagnosis = diagnose_files([ROUND / "nanovllm__bench-a100-pcie-132-tok-s-vllm-9530.txt"])
    assert diagnosis.verdict == "decode-bound"
    (slow,) = [item for item in diagnosis.evidence if item.rule == "summary-same-work-slower"]
    assert slow.lines == [5] and slow.numbers["same_work_tokens_per_second"] == 9530.43
    assert not any(item.rule == "summary-healthy" and item.lines == [5] for item in diagnosis.evidence)
    # Up to 5× apart (2.8× here: the models and engines of one table) is tuning, not a broken path.
    assert diagnose_files([ROUND / "nanovllmtriton__bench-a800-small-models-10k-24k-tok-s.txt"]).verdict == "healthy"


def test_same_work_needs_the_same_tokens(tmp_path):
    path = tmp_path / "two.txt"
    path.write_text("Total: 133966tok, Time: 1012.83s, Throughput: 132.27tok/s\n"
                    "Total: 133967tok, Time: 14.06s, Throughput: 9528.23tok/s\n", encoding="utf-8")
    assert not any(item.rule == "summary-same-work-slower" for item in diagnose_files([path]).evidence)


@pytest.mark.parametrize(("fast", "fired"), [(400.0, False), (600.0, True)])
def test_same_work_rule_starts_at_five_times(tmp_path, fast, fired):
    path = tmp_path / "two.txt"
    path.write_text(f"Total: 60000tok, Time: {60000 / fast:.2f}s, Throughput: {fast:.2f}tok/s\n"
                    "Total: 60000tok, Time: 600.00s, Throughput: 100.00tok/s\n", encoding="utf-8")
    assert any(item.rule == "summary-same-work-slower" for item in diagnose_files([path]).evidence) == fired
