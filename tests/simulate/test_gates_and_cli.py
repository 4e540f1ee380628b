"""The output-length gates (max_tokens, timeout), the JSON contract of `inferledger simulate`, and bad input as one
line with exit 1."""

import json

import numpy as np
import pytest

from inferledger.cli import main
from inferledger.hardware import find_accelerator
from inferledger.model import load_model
from inferledger.simulate import Scheduler, simulate
from inferledger.workload import make_trace, synthetic_trace

LLAMA = "meta-llama/Llama-3.1-8B"


def run(capsys, *args):
    code = main([*map(str, args)])
    out, err = capsys.readouterr()
    return code, out, err


def test_max_tokens_caps_every_answer():
    trace = synthetic_trace(300, 100, "lognormal:200,1.5", rate=50, seed=3)
    result = simulate(load_model(LLAMA), find_accelerator("h200-sxm"), trace, precision="fp8",
                      scheduler=Scheduler(max_tokens=64), source="floor")
    assert result.run.generated.tolist() == np.minimum(trace.output_tokens, 64).tolist()
    assert result.metrics["requests"]["capped_by_max_tokens"] == int((trace.output_tokens > 64).sum())


def test_a_timeout_ends_requests_and_keeps_their_tokens():
    """One request of 5,000 output tokens at ~2 ms a token cannot finish in 1 s: it stops within one step of the
    deadline with the tokens it made; a short one beside it finishes."""
    trace = make_trace([100, 100], [5000, 10])
    result = simulate(load_model(LLAMA), find_accelerator("h200-sxm"), trace, precision="fp8",
                      scheduler=Scheduler(timeout_seconds=1.0), source="floor")
    run = result.run
    assert run.timed_out.tolist() == [True, False]
    assert 1.0 <= run.finish[0] < 1.0 + 0.01 and 0 < run.generated[0] < 5000
    assert run.generated[1] == 10
    assert result.metrics["requests"]["timed_out"] == 1


def test_simulate_json_carries_the_contract_keys(capsys):
    code, out, _ = run(capsys, "simulate", "--model", LLAMA, "--gpu", "h200-sxm", "--precision", "fp8",
                       "--kv-precision", "fp8", "--isl", 128, "--osl", 128, "--rate", "inf", "--requests", 200, "--json")
    document = json.loads(out)
    assert code == 0
    for block in ("ttft", "tpot", "itl", "e2e"):
        assert all(isinstance(document[block][q], float) for q in ("p50", "p95", "p99"))
    assert document["throughput"]["output_tokens_per_s"] > 0 and document["throughput"]["requests_per_s"] > 0
    assert document["step_cost"]["source"] in ("floor", "realistic")
    assert len(document["timeline"]["kv_usage"]) == len(document["timeline"]["waiting"]) > 0
    assert 0 <= document["goodput"]["fraction"] <= 1
    # 200 requests × 128 tokens, all produced
    assert document["output_tokens"]["total"] == 200 * 128


def test_text_output_names_the_step_time_source(capsys):
    code, out, _ = run(capsys, "simulate", "--model", LLAMA, "--gpu", "h200-sxm", "--requests", 20, "--step-cost",
                       "floor", "--compute-efficiency", "0.5", "--overhead-ms", "1")
    assert code == 0 and "roofline floor at 50% of peak FLOP/s and 100% of bandwidth, 1 ms overhead" in out


@pytest.mark.parametrize("args, message", [
    (["--isl", "0"], "--isl"),
    (["--max-tokens", "0"], "--max-tokens"),
    (["--timeout", "-1"], "--timeout"),
    (["--max-num-seqs", "9000"], "exceeds the token budget"),
    (["--compute-efficiency", "1.5"], "--compute-efficiency"),
    (["--isl", "200000", "--gpu", "rtx-4090", "--precision", "fp8"], "can never run"),
    (["--slo-ttft-ms", "0"], "--slo-ttft-ms"),
])
def test_bad_input_is_one_line(capsys, args, message):
    card = [] if "--gpu" in args else ["--gpu", "h200-sxm"]
    code, out, err = run(capsys, "simulate", "--model", LLAMA, *card, "--requests", 5, *args)
    assert code == 1 and out == "" and message in err and len(err.strip().splitlines()) == 1


def test_a_model_that_does_not_fit(capsys):
    code, _, err = run(capsys, "simulate", "--model", "meta-llama/Llama-3.1-70B", "--gpu", "rtx-4090", "--requests", 5)
    assert code == 1 and "does not fit" in err
