"""The machine's ceilings, measured: peak FLOP/s per dtype (a large matmul), memory bandwidth (a large copy and a
large read) and the time of one tiny call (the dispatch floor).

Every timing burns in once (as nanoGPT's bench.py does), then keeps the fastest of `repeats` runs: a ceiling is
the most the machine does, and on a shared machine noise only ever slows a run down (the model's own timings in
bench.py are medians). Arrays are sized well past the last-level cache (≥ 4× by default) so the bandwidth is
DRAM's, not the cache's.

NumPy float16 is not measured: NumPy has no half-precision BLAS, its fp16 matmul is a generic loop that says
nothing about the hardware. The torch backend measures fp16 and bf16 where the device has them.
"""

from __future__ import annotations

import os
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field, replace
from pathlib import Path

from inferledger.errors import BenchError

DEFAULT_LLC_BYTES = 32 * 2**20  # when the cache size cannot be read: a common server L3


def last_level_cache_bytes() -> int:
    """Largest cache of cpu0 from sysfs (Linux); DEFAULT_LLC_BYTES elsewhere."""
    sizes = []
    for index in Path("/sys/devices/system/cpu/cpu0/cache").glob("index*"):
        try:
            text = (index / "size").read_text().strip().upper()
        except OSError:
            continue
        scale = {"K": 2**10, "M": 2**20, "G": 2**30}.get(text[-1:], 1)
        digits = text.rstrip("KMG")
        if digits.isdigit():
            sizes.append(int(digits) * scale)
    return max(sizes) if sizes else DEFAULT_LLC_BYTES


def cpu_model_name() -> str:
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    import platform

    return platform.processor() or platform.machine() or "unknown CPU"


def fastest_seconds(run, repeats: int = 5, sync=lambda: None) -> float:
    """Burn in once (page faults, thread-pool start-up, BLAS dispatch), then the fastest of `repeats` timings."""
    run()
    sync()
    times = []
    for _ in range(repeats):
        begin = time.perf_counter()
        run()
        sync()
        times.append(time.perf_counter() - begin)
    return min(times)


@dataclass(frozen=True)
class Ceilings:
    backend: str  # "numpy" | "torch"
    device: str  # "cpu" | "cuda"
    device_name: str
    flops_per_second_by_dtype: dict  # canonical dtype -> FLOP/s of a large matmul
    copy_bandwidth_bytes_per_second: float  # (bytes read + bytes written) / time of a large copy
    read_bandwidth_bytes_per_second: float  # bytes of a large matrix / time of a matrix-vector product over it
    tiny_call_seconds: float  # one tiny elementwise op: the dispatch floor
    last_level_cache_bytes: int
    array_bytes: int  # size of the arrays streamed
    notes: tuple = field(default_factory=tuple)

    @property
    def memory_bandwidth_bytes_per_second(self) -> float:
        # A copy counts each byte once read and once written, but a write-allocate cache reads the destination
        # line before writing it, so the copy figure understates DRAM. The larger of the two is the ceiling.
        return max(self.copy_bandwidth_bytes_per_second, self.read_bandwidth_bytes_per_second)

    def best_of(self, other: Ceilings) -> Ceilings:
        """Each ceiling the higher of two measurements of one machine: a ceiling is the most the machine does, and
        a busy spell during one measurement only lowers it (the dispatch floor, the lower)."""
        flops = {dtype: max(rate, other.flops_per_second_by_dtype.get(dtype, 0.0))
                 for dtype, rate in self.flops_per_second_by_dtype.items()}
        return replace(self, flops_per_second_by_dtype=flops,
                       copy_bandwidth_bytes_per_second=max(self.copy_bandwidth_bytes_per_second,
                                                           other.copy_bandwidth_bytes_per_second),
                       read_bandwidth_bytes_per_second=max(self.read_bandwidth_bytes_per_second,
                                                           other.read_bandwidth_bytes_per_second),
                       tiny_call_seconds=min(self.tiny_call_seconds, other.tiny_call_seconds))

    def to_dict(self) -> dict:
        return {
            "backend": self.backend, "device": self.device, "device_name": self.device_name,
            "flops_per_second_by_dtype": dict(self.flops_per_second_by_dtype),
            "memory_bandwidth_bytes_per_second": self.memory_bandwidth_bytes_per_second,
            "copy_bandwidth_bytes_per_second": self.copy_bandwidth_bytes_per_second,
            "read_bandwidth_bytes_per_second": self.read_bandwidth_bytes_per_second,
            "tiny_call_seconds": self.tiny_call_seconds,
            "last_level_cache_bytes": self.last_level_cache_bytes, "array_bytes": self.array_bytes,
            "notes": list(self.notes),
        }


MATMUL_SIDE = 2048  # 2·2048³ ≈ 17 GFLOP: a tenth of a second on two cores, far past where BLAS reaches its peak


def measure_numpy(array_bytes: int, repeats: int = 5, llc_bytes: int | None = None) -> Ceilings:
    import numpy as np

    llc = llc_bytes or last_level_cache_bytes()
    flops = {}
    for dtype, key in ((np.float32, "fp32"), (np.float64, "fp64")):
        n = MATMUL_SIDE
        a, b = np.ones((n, n), dtype), np.ones((n, n), dtype)
        flops[key] = 2.0 * n**3 / fastest_seconds(lambda a=a, b=b: a @ b, repeats)

    # Copy on every core: NumPy's copy is single-threaded but releases the GIL, so one thread per core.
    workers = os.cpu_count() or 1
    source = np.ones(array_bytes // 4, np.float32)
    target = np.empty_like(source)
    pairs = list(zip(np.array_split(source, workers), np.array_split(target, workers), strict=True))
    with ThreadPoolExecutor(workers) as pool:
        copy_seconds = fastest_seconds(lambda: list(pool.map(lambda p: np.copyto(p[1], p[0]), pairs)), repeats)
    copy = 2.0 * source.nbytes / copy_seconds

    # Read: a matrix-vector product streams the matrix once (BLAS spreads it over the cores), as decode does.
    matrix = np.ones((array_bytes // 4 // 4096, 4096), np.float32)
    vector = np.ones((1, 4096), np.float32)
    read = matrix.nbytes / fastest_seconds(lambda: vector @ matrix.T, repeats)

    one = np.ones(1, np.float32)
    calls = 2000
    tiny = fastest_seconds(lambda: [one + one for _ in range(calls)], repeats) / calls
    notes = ("fp16 not measured: NumPy has no half-precision BLAS (its fp16 matmul is a generic loop, not a "
             "hardware path); use --backend torch",)
    return Ceilings("numpy", "cpu", cpu_model_name(), flops, copy, read, tiny, llc, array_bytes, notes)


def _import_torch():
    try:
        import torch
    except ImportError:
        raise BenchError("--backend torch needs PyTorch: pip install 'inferledger[torch]' "
                         "(or use --backend numpy)") from None
    return torch


def measure_torch(array_bytes: int, device: str = "cpu", repeats: int = 5, llc_bytes: int | None = None) -> Ceilings:
    torch = _import_torch()
    if device == "cuda" and not torch.cuda.is_available():
        raise BenchError("--device cuda: PyTorch sees no CUDA device; use --device cpu")
    sync = torch.cuda.synchronize if device == "cuda" else (lambda: None)
    name = torch.cuda.get_device_name() if device == "cuda" else cpu_model_name()
    llc = llc_bytes or last_level_cache_bytes()
    if device == "cuda":  # the L2 is the last cache a GPU stream passes through
        llc = torch.cuda.get_device_properties(0).L2_cache_size or llc
        array_bytes = max(array_bytes, 4 * llc)
    dtypes = {"fp32": torch.float32, "fp64": torch.float64}
    if device == "cuda":
        dtypes.update(fp16=torch.float16, bf16=torch.bfloat16)
    flops = {}
    for key, dtype in dtypes.items():
        n = 8192 if device == "cuda" else MATMUL_SIDE
        a = torch.ones((n, n), dtype=dtype, device=device)
        b = torch.ones((n, n), dtype=dtype, device=device)
        flops[key] = 2.0 * n**3 / fastest_seconds(lambda a=a, b=b: a @ b, repeats, sync)
    source = torch.ones(array_bytes // 4, dtype=torch.float32, device=device)
    target = torch.empty_like(source)
    copy = 2.0 * array_bytes / fastest_seconds(lambda: target.copy_(source), repeats, sync)
    matrix = torch.ones((array_bytes // 4 // 4096, 4096), dtype=torch.float32, device=device)
    vector = torch.ones((1, 4096), dtype=torch.float32, device=device)
    read = matrix.numel() * 4 / fastest_seconds(lambda: vector @ matrix.T, repeats, sync)
    one = torch.ones(1, device=device)
    calls = 500
    tiny = fastest_seconds(lambda: [one + one for _ in range(calls)], repeats, sync) / calls
    notes = () if device == "cuda" else ("fp16/bf16 not measured on the torch CPU backend",)
    return Ceilings("torch", device, name, flops, copy, read, tiny, llc, array_bytes, notes)


def measure_ceilings(backend: str = "numpy", device: str = "cpu", array_bytes: int | None = None,
                     repeats: int = 5) -> Ceilings:
    """Ceilings of this machine with arrays of `array_bytes` (default 4× the last-level cache)."""
    if backend not in ("numpy", "torch"):
        raise BenchError(f"unknown backend {backend!r}; use numpy or torch")
    if device not in ("cpu", "cuda"):
        raise BenchError(f"unknown device {device!r}; use cpu or cuda")
    if backend == "numpy" and device != "cpu":
        raise BenchError("the numpy backend runs on the CPU only; use --backend torch --device cuda")
    llc = last_level_cache_bytes()
    array_bytes = array_bytes or 4 * llc
    if backend == "torch":
        return measure_torch(array_bytes, device, repeats, llc)
    return measure_numpy(array_bytes, repeats, llc)
