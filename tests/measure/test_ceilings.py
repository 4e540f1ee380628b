"""Two measurements of one machine's ceilings combine into its best: a busy spell only lowers a ceiling."""

from inferledger.measure.ceilings import Ceilings


def _ceilings(fp32: float, copy: float, read: float, tiny: float) -> Ceilings:
    return Ceilings("numpy", "cpu", "test cpu", {"fp32": fp32, "fp64": fp32 / 2}, copy, read, tiny, 32 << 20, 1 << 30)


def test_the_best_of_two_measurements_keeps_each_ceilings_higher_figure():
    busy = _ceilings(fp32=40e9, copy=10e9, read=20e9, tiny=3e-6)  # measured while another job ran
    quiet = _ceilings(fp32=100e9, copy=12e9, read=15e9, tiny=2e-6)
    best = busy.best_of(quiet)
    assert best.flops_per_second_by_dtype == {"fp32": 100e9, "fp64": 50e9}
    assert (best.copy_bandwidth_bytes_per_second, best.read_bandwidth_bytes_per_second) == (12e9, 20e9)
    assert best.memory_bandwidth_bytes_per_second == 20e9  # the larger of copy and read, as for one measurement
    assert best.tiny_call_seconds == 2e-6  # the dispatch floor is the faster call
    assert best.best_of(busy) == best  # no measurement lowers what another reached
