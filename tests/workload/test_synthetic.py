"""Synthetic workloads draw from the distribution named: fixed and uniform exactly, the others within five
standard errors of their stated mean (a false alarm about once in 1.7 million runs), with a fixed seed."""

import math

import numpy as np
import pytest

from inferledger.errors import BadWorkload
from inferledger.workload import make_trace, parse_lengths, synthetic_trace

N = 20_000


def test_fixed_and_uniform():
    trace = synthetic_trace(N, 128, "uniform:10,20", seed=1)
    assert set(trace.input_tokens.tolist()) == {128}
    assert set(trace.output_tokens.tolist()) == set(range(10, 21))  # both ends included, all values drawn
    assert trace.saturating and trace.arrival_seconds.tolist() == [0.0] * N


def test_normal_and_lognormal_means():
    trace = synthetic_trace(N, "normal:1000,100", "lognormal:300,1.0", seed=2)
    assert abs(trace.input_tokens.mean() - 1000) < 5 * 100 / math.sqrt(N) + 0.5  # + rounding to whole tokens
    sd = 300 * math.sqrt(math.exp(1.0) - 1)  # lognormal sd = mean · sqrt(e^{σ²} − 1)
    assert abs(trace.output_tokens.mean() - 300) < 5 * sd / math.sqrt(N) + 0.5
    assert trace.output_tokens.min() >= 1


def test_normal_samples_below_one_token_are_kept_at_one():
    trace = synthetic_trace(1000, "normal:2,50", 1, seed=3)
    assert trace.input_tokens.min() == 1


def test_empirical_draws_from_the_file(tmp_path):
    path = tmp_path / "lengths.txt"
    path.write_text("5\n50\n500\n")
    trace = synthetic_trace(1000, f"empirical:{path}", 1, seed=4)
    assert set(trace.input_tokens.tolist()) == {5, 50, 500}
    bad = tmp_path / "bad.txt"
    bad.write_text("5\n-1\n")
    with pytest.raises(BadWorkload, match="line 2"):
        synthetic_trace(10, f"empirical:{bad}", 1)


def test_poisson_gaps_have_mean_one_over_rate_and_cv_one():
    trace = synthetic_trace(N, 1, 1, rate=20, seed=5)
    gaps = np.diff(trace.arrival_seconds)
    assert abs(gaps.mean() - 1 / 20) < 5 * (1 / 20) / math.sqrt(N)  # exponential: sd = mean
    assert abs(gaps.std() / gaps.mean() - 1) < 0.05
    assert trace.arrival_seconds[0] == 0 and np.all(gaps >= 0)


def test_bursty_gaps_have_the_stated_cv():
    trace = synthetic_trace(N, 1, 1, rate=10, arrivals="bursty:3", seed=6)
    gaps = np.diff(trace.arrival_seconds)
    assert abs(gaps.mean() - 0.1) < 5 * 0.3 / math.sqrt(N)  # gamma: sd = CV · mean
    assert 2.7 < gaps.std() / gaps.mean() < 3.3


def test_closed_loop_and_shared_prefix():
    trace = synthetic_trace(100, 50, 10, arrivals="closed:8,0.5", shared_prefix_tokens=60)
    assert trace.closed_loop_users == 8 and trace.think_seconds == 0.5 and not trace.saturating
    assert trace.cached_tokens[0] == 0 and set(trace.cached_tokens[1:].tolist()) == {49}  # capped at ISL − 1


@pytest.mark.parametrize("spec", ["0", "-5", "uniform:9,3", "normal:0,1", "gauss:1,2", "lognormal:5", "fixed:1.5",
                                  "uniform:a,b", ""])
def test_bad_length_specs(spec):
    with pytest.raises(BadWorkload):
        parse_lengths(spec, "--isl")


@pytest.mark.parametrize("kwargs", [{"rate": 0}, {"rate": -1}, {"rate": "fast"}, {"arrivals": "bursty:0"},
                                    {"arrivals": "closed:0"}, {"arrivals": "closed:2.5"}, {"arrivals": "uniform"},
                                    {"shared_prefix_tokens": -1}])
def test_bad_arrival_options(kwargs):
    with pytest.raises(BadWorkload):
        synthetic_trace(10, 5, 5, **kwargs)


def test_make_trace_rejects_unsorted_and_negative():
    with pytest.raises(BadWorkload, match="request 3 arrives at 1 s, before request 2 at 2 s"):
        make_trace([1, 1, 1], [1, 1, 1], [0, 2, 1])
    with pytest.raises(BadWorkload, match="request 2 has input length -4"):
        make_trace([3, -4], [1, 1])
    with pytest.raises(BadWorkload, match="request 1 has output length nan"):
        make_trace([3], [float("nan")])
