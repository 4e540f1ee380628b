"""The simulator is correct by construction, checked three ways (issue 10, item 3):
- one request alone gives the request ledger's TTFT and per-token time;
- every token is produced exactly once, whatever the load, the limits, chunking and preemption;
- Little's law holds on the simulated queue: ∫ running dt equals Σ (finish − admission) exactly (sequences join at
  a step's start and leave at its end, where the timeline is sampled), and ∫ in-system dt equals Σ (finish −
  arrival) up to the time arrivals wait for the next sample (each arrival is seen at the next step boundary).
"""

from functools import cache

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from inferledger.hardware import find_accelerator
from inferledger.ledger.request import request_account
from inferledger.model import load_model
from inferledger.operators import Formats, Step
from inferledger.simulate import Scheduler, build_step_model, simulate, step_cost
from inferledger.simulate.engine import run_trace
from inferledger.simulate.step_cost import floor_reference_seconds
from inferledger.workload import make_trace, synthetic_trace

MODELS = ["meta-llama/Llama-3.1-8B", "openai/gpt-oss-20b", "Qwen/Qwen3-30B-A3B"]


@cache
def spec(name):
    return load_model(name)


@cache
def cost(name, gpu="h200-sxm", precision="fp8"):
    s = spec(name)
    return step_cost(build_step_model(s, Formats.resolve(s, precision, precision)), find_accelerator(gpu),
                     source="floor")


@settings(max_examples=25, deadline=None)
@given(st.sampled_from(MODELS), st.sampled_from(["h200-sxm", "l40s", "a100-sxm-80gb"]), st.integers(1, 8000),
       st.integers(2, 400), st.booleans(), st.sampled_from(["floor", "realistic"]))
def test_one_request_alone_is_the_request_ledger(name, gpu, isl, osl, chunked, source):
    """The first token comes from the prefill (TTFT = the ledger's prefill); the other OSL − 1 come from decode
    steps at contexts ISL … ISL + OSL − 2, which is request_account(osl = OSL − 1)'s decode — on the floor, and on
    the realistic estimate beside it. MoE prefills go through the interpolated expert table, and the realistic
    decode through its table 2% apart: floor to 1e-6; realistic to 1e-5 (hypothesis found 1.2e-6 on the realistic
    TPOT of Llama-3.1-8B on an L40S at ISL 1, OSL 5, where the four decode steps sit between grid points)."""
    card = find_accelerator(gpu)
    scheduler = Scheduler(max_batched_tokens=8192, chunked_prefill=chunked)
    result = simulate(spec(name), card, make_trace([isl], [osl]), precision="fp8", kv_precision="fp8",
                      scheduler=scheduler, source=source)
    account = request_account(spec(name), card, isl=isl, osl=osl - 1, precision="fp8", kv_precision="fp8")
    if source == "floor":
        ttft, tpot, decode = account.prefill.seconds, account.decode.seconds_per_token, account.decode.seconds
    else:
        r = account.realistic
        ttft, tpot, decode = r.prefill_seconds, r.decode_seconds_per_token, r.decode_seconds
    assert result.step_cost["source"] == source
    tolerance = 1e-6 if source == "floor" else 1e-5
    assert result.metrics["ttft"]["p50"] == pytest.approx(ttft, rel=tolerance)
    assert result.metrics["tpot"]["p50"] == pytest.approx(tpot, rel=tolerance)
    assert result.metrics["e2e"]["p50"] == pytest.approx(ttft + decode, rel=tolerance)


def test_two_identical_requests_share_each_step():
    """Two requests at t = 0: one prefill step of batch 2, then decode steps of batch 2 (ledger: time_step of the
    uniform steps)."""
    s = spec("meta-llama/Llama-3.1-8B")
    card = find_accelerator("h200-sxm")
    formats = Formats.resolve(s, "fp8", "fp8")
    result = simulate(s, card, make_trace([300, 300], [3, 3]), precision="fp8", kv_precision="fp8", source="floor")
    prefill = floor_reference_seconds(s, card, formats, Step.prefill(300, 2))
    decodes = [floor_reference_seconds(s, card, formats, Step.decode(c, 2)) for c in (300, 301)]
    assert result.run.first_token.tolist() == pytest.approx([prefill, prefill], rel=1e-12)
    assert result.run.finish.tolist() == pytest.approx([prefill + sum(decodes)] * 2, rel=1e-12)


traces = st.tuples(st.integers(1, 120), st.integers(1, 3000), st.integers(1, 500), st.sampled_from(
    [float("inf"), 5.0, 50.0, 500.0]), st.integers(0, 10_000))


@settings(max_examples=40, deadline=None)
@given(st.sampled_from(MODELS), traces, st.integers(1, 64), st.sampled_from([256, 512, 2048, 8192]), st.booleans(),
       st.integers(40, 3000), st.sampled_from([None, 1, 17, 100]))
def test_every_token_is_produced_exactly_once(name, trace_args, max_seqs, budget, chunked, kv_blocks, max_tokens):
    """Small KV caches force preemption (recompute); whatever happens, each request produces min(OSL, max_tokens)
    tokens, each token once: the first from a prefill, each later one with exactly one inter-token gap."""
    requests, isl_high, osl_high, rate, seed = trace_args
    trace = synthetic_trace(requests, f"uniform:1,{isl_high}", f"uniform:1,{osl_high}", rate=rate, seed=seed)
    scheduler = Scheduler(max_num_seqs=min(max_seqs, budget), max_batched_tokens=budget, chunked_prefill=chunked,
                          max_tokens=max_tokens)
    longest = int((trace.input_tokens + np.minimum(trace.output_tokens, max_tokens or 10**9)).max())
    blocks = max(kv_blocks, -(-longest // scheduler.block_tokens))
    run = run_trace(trace, cost(name), scheduler, blocks)
    want = trace.output_tokens if max_tokens is None else np.minimum(trace.output_tokens, max_tokens)
    assert run.generated.tolist() == want.tolist()
    assert int(run.itl_weights.sum()) == int((run.generated - 1).sum())
    assert np.all(run.first_token >= run.arrival) and np.all(run.finish >= run.first_token)
    assert np.all(np.diff(run.timeline[:, 0]) >= 0)
    assert run.timeline[:, 3].max() <= blocks and run.timeline[-1, 3] == 0  # every block given back
    assert np.all(run.itl_seconds > 0)


@settings(max_examples=25, deadline=None)
@given(st.sampled_from(MODELS), st.integers(20, 400), st.sampled_from([2.0, 20.0, 200.0]), st.integers(0, 1000),
       st.sampled_from(["poisson", "bursty:3", "closed:8"]))
def test_littles_law_on_the_simulated_queue(name, requests, rate, seed, arrivals):
    trace = synthetic_trace(requests, "uniform:1,2000", "uniform:1,300", rate=rate, arrivals=arrivals, seed=seed)
    run = run_trace(trace, cost(name), Scheduler(max_num_seqs=32), 10**7)
    assert run.preemptions.sum() == 0
    t = run.timeline
    dt = np.diff(t[:, 0])
    # Running: exact. L = λW with λ = n / T and W = mean time running.
    assert (t[:-1, 2] * dt).sum() == pytest.approx((run.finish - run.admitted).sum(), rel=1e-9)
    # In system (waiting + running): each arrival is counted from the first sample after it.
    in_system = ((t[:-1, 1] + t[:-1, 2]) * dt).sum()
    sojourn = (run.finish - run.arrival).sum()
    index = np.searchsorted(t[:, 0], run.arrival, side="left")
    late = (t[np.minimum(index, len(t) - 1), 0] - run.arrival).sum()
    assert sojourn - late - 1e-9 * sojourn <= in_system <= sojourn + 1e-9 * sojourn
