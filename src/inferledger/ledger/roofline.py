"""The roofline floor over operator rows: the least time a row can take on an accelerator.

A row whose arithmetic intensity (FLOP per byte) is BELOW the accelerator's FLOPs:byte ratio is memory
(bandwidth) bound; above it, compute bound. (The seed chapter states this rule backwards in one sentence; its
conclusions follow the correct rule — see DESIGN.md, errata 1.)

The floor's assumptions, all of them (a real kernel can only be slower than this):
  1. Peaks are the datasheet's dense figures (hardware/accelerators.json); a row runs its math at the peak of its
     compute dtype, or bf16/fp16/fp32 where the part lacks that dtype (`runs_at`).
  2. Memory moves at the datasheet's peak DRAM/HBM bandwidth; each weight, activation and KV byte of the row is
     moved once (operators.py counts them), nothing is served from cache.
  3. Compute, memory traffic and a weight-only format's dequantization (row.dequant_ops on the vector units, at
     the fp32 non-tensor peak) overlap completely, as fused kernels overlap them: a row takes the max of the three,
     never their sum. (Adding the dequantization gave 125 µs for an A100 int4 GEMM that real fused kernels run in
     89-103 µs: not a floor.)
  4. No per-call latency and no per-step overhead, unless the caller passes one (`overhead_seconds`).
  5. Communication rows (a card's collectives and sends when a model spans cards) take their traffic over the
     link they cross at its datasheet bandwidth (collectives.floor_seconds) and are added, not overlapped: serving
     engines run them between the matmuls, not under them.
What real kernels add on top of this is ledger/realistic.py's business, fitted to measurements.
"""

from __future__ import annotations

from dataclasses import dataclass

from inferledger.operators import Row


@dataclass(slots=True)  # not frozen, as operators.Row: built per row per step
class TimedRow:
    row: Row
    peak_flops_per_second: float
    compute_seconds: float
    memory_seconds: float
    dequant_seconds: float
    link_seconds: float = 0.0  # communication rows: the collective's time on its link

    @property
    def seconds(self) -> float:
        # Assumption 3: compute, memory and dequantization overlap; assumption 5: communication is added.
        return max(self.compute_seconds, self.memory_seconds, self.dequant_seconds) + self.link_seconds

    @property
    def bound(self) -> str:
        if self.link_seconds > max(self.compute_seconds, self.memory_seconds, self.dequant_seconds):
            return "link"
        # Dequantization is compute (on the vector units): a row it binds is compute bound.
        return "compute" if max(self.compute_seconds, self.dequant_seconds) > self.memory_seconds else "memory"


def runs_at(accelerator, dtype: str) -> tuple[str, float]:
    """(dtype, dense peak) the part really runs `dtype` math at: a part without it (fp8 on an A100, fp4 before
    Blackwell) runs the math in bf16 after converting the weights, as weight-only kernels do."""
    for candidate in (dtype, "bf16", "fp16", "fp32"):
        peak = accelerator.peak_flops_per_second(candidate)
        if peak:
            return candidate, peak
    from inferledger.errors import UnknownAccelerator

    raise UnknownAccelerator(f"{accelerator.name}: no peak FLOP/s given for {dtype} or bf16/fp16/fp32")


def peak_for(accelerator, dtype: str) -> float:
    return runs_at(accelerator, dtype)[1]


def time_rows(rows: list[Row], accelerator, topology=None) -> list[TimedRow]:
    """Each row on `accelerator`; communication rows on the link of `topology` they cross (default: the
    accelerator's node, hardware.topology.topology_for)."""
    bandwidth = accelerator.memory_bandwidth_bytes_per_second
    vector_peak = peak_for(accelerator, "fp32")
    timed = []
    for row in rows:
        peak = peak_for(accelerator, row.compute_dtype)
        link = 0.0
        if row.collective:
            from inferledger.hardware.topology import topology_for
            from inferledger.ledger.collectives import floor_seconds

            topology = topology or topology_for(accelerator)
            link = floor_seconds(row.collective, row.message_bytes, row.group_cards,
                                 topology.link_for(row.span_cards)).seconds
        timed.append(TimedRow(row, peak, row.flops / peak, row.bytes / bandwidth, row.dequant_ops / vector_peak,
                              link))
    return timed


@dataclass(frozen=True)
class StepTime:
    """One step: totals over its rows, the step time (Σ row times + a fixed per-step overhead) and its bound."""

    flops: float
    bytes: float
    weight_bytes: float
    kv_read_bytes: float
    seconds: float
    overhead_seconds: float
    ridge_flops_per_byte: float  # the accelerator's FLOPs:byte ratio at the step's main compute dtype
    rows: tuple  # TimedRow

    @property
    def communication_seconds(self) -> float:
        """Time in collectives (communication rows × their count)."""
        return sum(t.link_seconds * t.row.count for t in self.rows)

    @property
    def link_bytes(self) -> float:
        """Bytes this card sends over links in the step."""
        return sum(t.row.link_bytes * t.row.count for t in self.rows)

    @property
    def intensity(self) -> float:
        return self.flops / self.bytes if self.bytes else float("inf")

    @property
    def bound(self) -> str:
        return "compute" if self.intensity > self.ridge_flops_per_byte else "memory"

    def operator_table(self) -> list[dict]:
        """One dict per row: per-instance figures, its bound, and its time × count in the step."""
        return [{
            "block": t.row.block, "operator": t.row.name, "component": t.row.component, "count": t.row.count,
            "flops": t.row.flops, "weight_bytes": t.row.weight_bytes, "activation_bytes": t.row.activation_bytes,
            "kv_read_bytes": t.row.kv_read_bytes, "kv_write_bytes": t.row.kv_write_bytes,
            "intensity": t.row.intensity if t.row.bytes else None, "bound": t.bound,
            "seconds": t.seconds * t.row.count,
        } for t in self.rows]

    def seconds_by(self, key: str) -> dict:
        """Time per row attribute ('component' or 'kind'), rows × their count."""
        out: dict = {}
        for t in self.rows:
            name = getattr(t.row, key)
            out[name] = out.get(name, 0.0) + t.seconds * t.row.count
        return out


def time_step(rows: list[Row], accelerator, overhead_seconds: float = 0.0, main_dtype: str = "bf16",
              topology=None) -> StepTime:
    timed = time_rows(rows, accelerator, topology)
    ridge = peak_for(accelerator, main_dtype) / accelerator.memory_bandwidth_bytes_per_second
    return StepTime(
        flops=sum(t.row.flops * t.row.count for t in timed),
        bytes=sum(t.row.bytes * t.row.count for t in timed),
        weight_bytes=sum(t.row.weight_bytes * t.row.count for t in timed),
        kv_read_bytes=sum(t.row.kv_read_bytes * t.row.count for t in timed),
        seconds=sum(t.seconds * t.row.count for t in timed) + overhead_seconds,
        overhead_seconds=overhead_seconds,
        ridge_flops_per_byte=ridge,
        rows=tuple(timed),
    )
