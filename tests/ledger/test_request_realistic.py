"""`request` with the realistic estimate beside the floor (issue: Llama-3.1-8B on an H100 SXM must come out slower
than the floor in both phases, with the floor's own figures unchanged)."""

import json
import subprocess
import sys

import pytest

from inferledger.calibration import load_calibration
from inferledger.hardware import find_accelerator
from inferledger.ledger.request import request_account
from inferledger.model import load_model

SPEC = load_model("meta-llama/Llama-3.1-8B")
H100 = find_accelerator("h100-sxm")


@pytest.fixture(scope="module")
def accounts():
    return (request_account(SPEC, H100, isl=8192, osl=512),
            request_account(SPEC, H100, isl=8192, osl=512, realistic=False))


def test_realistic_is_slower_than_the_floor_in_both_phases(accounts):
    account, _ = accounts
    real = account.realistic
    assert real.prefill_seconds > account.prefill.seconds
    assert real.decode_seconds_per_token > account.decode.seconds_per_token
    assert real.total_seconds == pytest.approx(real.prefill_seconds + real.decode_seconds)
    assert not real.extrapolated  # the H100 SXM has measured kernels of every kind this model runs


def test_the_floor_keys_do_not_change(accounts):
    with_realistic, floor_only = (a.to_dict() for a in accounts)
    realistic = with_realistic.pop("realistic")
    assert with_realistic == floor_only
    assert set(realistic) >= {"prefill", "decode", "total_seconds", "extrapolated", "calibration", "notes"}
    assert realistic["calibration"]["source"] == "bundled"


def test_every_kernel_call_costs_at_least_its_call_latency(accounts):
    """A row's realistic time is call + blend(terms at efficiencies <= 1) >= call + its floor. Llama-3.1-8B runs 7
    linear kernels per layer (q, k, v, o, gate, up, down) in 32 layers: each decode step exceeds its floor by at
    least 224 of the smallest fitted H100 GEMM call latency."""
    account, _ = accounts
    smallest = min(e.call_seconds for e in load_calibration().entries.values()
                   if e.kind == "gemm" and e.generation == "hopper")
    assert smallest > 0
    gap = account.realistic.decode_seconds_per_token - account.decode.seconds_per_token
    assert gap >= 224 * smallest


def test_user_overhead_adds_to_both(accounts):
    account, _ = accounts
    slower = request_account(SPEC, H100, isl=8192, osl=512, overhead_seconds_per_step=1e-3)
    steps = 1 + 512  # one prefill step, 512 decode steps
    assert slower.realistic.total_seconds == pytest.approx(account.realistic.total_seconds + steps * 1e-3)
    assert slower.total_seconds == pytest.approx(account.total_seconds + steps * 1e-3)


def run_cli(*args):
    return subprocess.run([sys.executable, "-m", "inferledger", *args], capture_output=True, text=True, timeout=120)


def test_cli_prints_floor_and_realistic_side_by_side_and_explains_the_ratio():
    out = run_cli("request", "--model", "meta-llama/Llama-3.1-8B", "--gpu", "h100-sxm")
    assert out.returncode == 0, out.stderr
    assert "floor" in out.stdout and "realistic" in out.stdout
    assert "realistic / floor: prefill" in out.stdout
    assert "decode loses most in" in out.stdout
    document = json.loads(run_cli("request", "--model", "meta-llama/Llama-3.1-8B", "--gpu", "h100-sxm",
                                  "--json").stdout)
    assert document["realistic"]["prefill"]["seconds"] > document["prefill"]["seconds"]
    assert document["realistic"]["decode"]["seconds_per_token"] > document["decode"]["seconds_per_token"]


def test_cli_bad_calibration_is_one_line(tmp_path):
    bad = tmp_path / "params.json"
    bad.write_text("{}")
    for verb in ("request", "fit"):
        out = run_cli(verb, "--model", "meta-llama/Llama-3.1-8B", "--gpu", "h100-sxm", "--calibration", str(bad))
        assert out.returncode == 1
        assert "Traceback" not in out.stderr
        assert len(out.stderr.strip().splitlines()) == 1 and "calibration" in out.stderr


def test_fit_prints_a_decode_step_floor_and_realistic():
    out = run_cli("fit", "--model", "meta-llama/Llama-3.1-8B", "--gpu", "h100-sxm", "--context", "8192", "--json")
    step = json.loads(out.stdout)["decode_step"]
    assert step["realistic_seconds"] > step["floor_seconds"]
    assert step["batch"] == json.loads(out.stdout)["max_concurrency"]
