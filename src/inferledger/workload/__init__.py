"""Workloads: request traces read from files or drawn from named distributions, and their summary.

    from inferledger.workload import read_trace, synthetic_trace, summarise_trace
    trace = synthetic_trace(10_000, "lognormal:1024,1.0", "lognormal:256,1.2", rate=20)
"""

from inferledger.workload.read import read_trace
from inferledger.workload.synthetic import parse_arrivals, parse_lengths, parse_rate, synthetic_trace
from inferledger.workload.trace import Trace, make_trace

__all__ = ["Trace", "make_trace", "parse_arrivals", "parse_lengths", "parse_rate", "read_trace", "synthetic_trace"]
