"""`inferledger kernels` and `inferledger calibrate` on the measured-kernel fixtures (copies of the shared
calibration tables; tests/fixtures/calibration/PROVENANCE.md)."""

import csv
import json
import subprocess
import sys
from pathlib import Path

import pytest

FIXTURES = Path(__file__).parent.parent / "fixtures" / "calibration"
GEMM = FIXTURES / "gemm_latency.csv"


def run_cli(*args):
    return subprocess.run([sys.executable, "-m", "inferledger", *map(str, args)], capture_output=True, text=True,
                          timeout=300)


@pytest.fixture(scope="module")
def gemm_document():
    out = run_cli("kernels", GEMM, "--json")
    assert out.returncode == 0, out.stderr
    return json.loads(out.stdout)


def test_every_row_in_file_order_with_floor_realistic_and_measured(gemm_document):
    with open(GEMM, newline="") as handle:
        measured = [float(r["latency_us"]) * 1e-6 for r in csv.DictReader(handle)]
    rows = gemm_document["rows"]
    assert [r["line"] for r in rows] == list(range(1, len(measured) + 1))
    assert [r["measured_seconds"] for r in rows] == pytest.approx(measured)
    for r in rows:
        assert r["realistic_seconds"] >= r["floor_seconds"] > 0


def test_first_row_floor_by_hand(gemm_document):
    """Row 1: A100 SXM, TensorRT-LLM weight-only int8, m=8192, n=65536, k=4096.
    compute 2·8192·65536·4096 = 4.398e12 FLOP at the bf16 peak 312e12 -> 14.096 ms;
    memory: 65536·4096 int8 weights + 8192·(4096 + 65536) bf16 activations = 1.409e9 B at 2.039e12 B/s -> 0.691 ms;
    dequantization 4·65536·4096 ops at the fp32 peak 19.5e12 -> 55 us. Overlapped: the floor is the compute time."""
    row = gemm_document["rows"][0]
    assert row["gpu"] == "a100_sxm" and row["accelerator"] == "a100-sxm-80gb"
    assert row["floor_seconds"] == pytest.approx(2 * 8192 * 65536 * 4096 / 312e12, rel=1e-9)
    assert row["measured_seconds"] == pytest.approx(16760e-6)


def test_summary_by_kind_and_gpu(gemm_document):
    summary = gemm_document["summary"]
    assert {(g["kind"], g["gpu"]) for g in summary["by_kind_and_gpu"]} == {
        ("gemm", "a100_sxm"), ("gemm", "h100_sxm"), ("gemm", "l40s")}
    assert summary["floor_violations"] == 0


def test_rows_it_cannot_price_are_listed_with_the_reason():
    out = run_cli("kernels", FIXTURES / "comm_collectives_latency_head.csv", "--json")
    document = json.loads(out.stdout)
    assert len(document["rows"]) == 40
    assert all(r["floor_seconds"] is None and "collectives" in r["reason"] for r in document["rows"])


def test_an_unknown_gpu_row_is_kept_with_its_reason(tmp_path):
    lines = GEMM.read_text().splitlines()
    path = tmp_path / "mixed.csv"
    path.write_text("\n".join([lines[0], lines[1], lines[2].replace("a100_sxm", "tpu_v5e", 1), lines[3]]) + "\n")
    rows = json.loads(run_cli("kernels", path, "--json").stdout)["rows"]
    assert [r["line"] for r in rows] == [1, 2, 3]
    assert rows[1]["floor_seconds"] is None and "tpu_v5e" in rows[1]["reason"]
    assert rows[0]["floor_seconds"] is not None and rows[2]["floor_seconds"] is not None


@pytest.mark.parametrize("text", ["a,b,c\n1,2,3\n", ""])
def test_a_csv_of_no_known_table_is_one_line(tmp_path, text):
    path = tmp_path / "x.csv"
    path.write_text(text)
    out = run_cli("kernels", path)
    assert out.returncode == 1 and "Traceback" not in out.stderr
    assert len(out.stderr.strip().splitlines()) == 1


def test_calibrate_writes_a_file_that_loads_and_reports_held_out_error(tmp_path):
    params = tmp_path / "params.json"
    out = run_cli("calibrate", GEMM, "-o", params, "--json")
    assert out.returncode == 0, out.stderr
    document = json.loads(out.stdout)
    fitted = [e for e in document["entries"] if e["generation"] != "*"]
    assert {e["generation"] for e in fitted} == {"ampere", "hopper", "ada"}
    assert all(e["held_out_rows"] > 0 and e["held_out_median_error"] is not None for e in fitted)
    request = run_cli("request", "--model", "meta-llama/Llama-3.1-8B", "--gpu", "h100-sxm", "--calibration", params,
                      "--json")
    realistic = json.loads(request.stdout)["realistic"]
    assert realistic["calibration"]["source"] == str(params)
    assert realistic["extrapolated"]  # a GEMM-only file has no attention entries: said, not hidden
    refuse = run_cli("calibrate", GEMM, "-o", GEMM)
    assert refuse.returncode == 1 and "input" in refuse.stderr


def test_calibrate_fits_the_step_overhead_to_a_serving_log(tmp_path):
    """vLLM 0.6 stats lines of one running request (tests/fixtures/logs/vllm__v06-single-request-decode.txt, from
    vllm-project/vllm#12314): generation throughput 41.7, 41.7, 41.5, 41.8, 41.8, 41.7 tok/s, mean 41.7 -> 1/41.7 s
    per step. Whatever the kernels take, the fitted overhead must make the realistic decode step exactly that."""
    params = tmp_path / "params.json"
    log = Path(__file__).parent.parent / "fixtures" / "logs" / "vllm__v06-single-request-decode.txt"
    out = run_cli("calibrate", log, "--model", "meta-llama/Llama-3.1-8B", "--gpu", "a100-sxm-80gb", "-o", params,
                  "--json")
    assert out.returncode == 0, out.stderr
    step = json.loads(out.stdout)["step_overhead"]
    assert step["observed_seconds_per_token"] == pytest.approx(1 / 41.7, rel=1e-9)
    assert step["step_overhead_seconds"] > 0
    request = json.loads(run_cli("request", "--model", "meta-llama/Llama-3.1-8B", "--gpu", "a100-sxm-80gb",
                                 "--isl", step["isl"], "--osl", step["osl"], "--batch", step["batch"],
                                 "--calibration", params, "--json").stdout)
    assert request["realistic"]["decode"]["seconds_per_token"] == pytest.approx(1 / 41.7, rel=1e-6)
    assert request["realistic"]["overhead_seconds_per_step"] == pytest.approx(step["step_overhead_seconds"])
    missing = run_cli("calibrate", log, "-o", tmp_path / "x.json")
    assert missing.returncode == 1 and "--model and --gpu" in missing.stderr
