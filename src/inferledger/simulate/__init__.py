"""Serving under load: one replica with continuous batching, stepped with the ledger's per-step costs.

A model spread over cards (`parallel`: tp, ep, attention-dp; ledger/parallel.py) steps on one card's sharded rows,
collectives included, and holds the KV cache one card of the replica has room for. dp replicas share the requests
round-robin (request i goes to replica i mod dp, as a round-robin balancer sends them): replica 0's share is
simulated — the replicas serve alike — and the rates (throughput, goodput) are multiplied by dp.

    from inferledger.simulate import simulate, Scheduler
    from inferledger.workload import synthetic_trace
    result = simulate(spec, find_accelerator("h200-sxm"), synthetic_trace(1000, 128, 128), precision="fp8",
                      kv_precision="fp8")
    result.metrics["throughput"]["output_tokens_per_s"], result.metrics["ttft"]["p99"]
"""

from __future__ import annotations

from dataclasses import dataclass, field

from inferledger import defaults
from inferledger.errors import BadWorkload, require
from inferledger.simulate.engine import Run, Scheduler, run_trace
from inferledger.simulate.metrics import SLO, summarise
from inferledger.simulate.step_cost import StepCost, step_cost
from inferledger.simulate.step_model import StepModel, build_step_model
from inferledger.workload.trace import Trace

__all__ = ["SLO", "Run", "Scheduler", "SimulationResult", "StepCost", "StepModel", "build_step_model",
           "kv_blocks", "simulate", "step_cost"]


@dataclass(frozen=True, eq=False)
class SimulationResult:
    model: str
    accelerator: str
    weights: str
    kv: str
    workload: str
    scheduler: Scheduler
    step_cost: dict  # the source of step times and the assumptions behind it
    metrics: dict
    run: Run  # per-request and per-step detail (not in the JSON)
    warnings: tuple = field(default=())
    parallel: dict = field(default_factory=dict)  # the layout and the split of requests, when spread over cards

    def to_dict(self) -> dict:
        s = self.scheduler
        return {
            "model": self.model, "accelerator": self.accelerator, "precision": self.weights,
            "kv_precision": self.kv, "workload": self.workload,
            "scheduler": {"max_num_seqs": s.max_num_seqs, "max_batched_tokens": s.max_batched_tokens,
                          "chunked_prefill": s.chunked_prefill, "block_tokens": s.block_tokens,
                          "max_tokens": s.max_tokens, "timeout_seconds": s.timeout_seconds},
            "step_cost": self.step_cost, **({"parallel": self.parallel} if self.parallel else {}),
            **self.metrics, "warnings": list(self.warnings),
        }


def kv_blocks(spec, accelerator, formats, scheduler: Scheduler, context_tokens: int,
              gpu_memory_utilization: float, parallel=None) -> tuple[int, list]:
    """Blocks of scheduler.block_tokens tokens the card's KV budget holds (memory_account), and warnings. With
    `parallel`, one card's budget and per-token cache (memory_account(parallel=…).per_card)."""
    from inferledger.ledger.memory import memory_account

    account = memory_account(spec, accelerator, formats, context_tokens,
                             gpu_memory_utilization=gpu_memory_utilization,
                             max_batched_tokens=scheduler.max_batched_tokens, parallel=parallel)
    if not account.weights_fit:
        raise BadWorkload(account.warnings[0] if account.warnings else
                          f"{spec.name} does not fit on {accelerator.name}")
    notes = []
    budget, per_token = account.limiting_kv
    per_token = per_token or 0.0
    if per_token <= 0:
        notes.append("the model keeps no per-token cache: KV memory does not limit the batch")
        return 1 << 40, notes
    if any(layout.window for layout in build_layouts(spec)):
        notes.append("sliding-window layers are charged a full context of KV blocks (as a paged cache without "
                     "window eviction does); capacity is a lower bound")
    return int(budget // (per_token * scheduler.block_tokens)), notes


def build_layouts(spec):
    from inferledger.simulate.step_model import layouts

    return layouts(spec)


def simulate(spec, accelerator, trace: Trace, *, precision=None, kv_precision=None,
             scheduler: Scheduler | None = None, source: str = "auto", compute_efficiency: float = 1.0,
             bandwidth_efficiency: float = 1.0, overhead_seconds: float = 0.0, calibration_path: str | None = None,
             gpu_memory_utilization: float = defaults.GPU_MEMORY_UTILIZATION, slo: SLO | None = None,
             progress=None, parallel=None, topology=None) -> SimulationResult:
    """Serve `trace` on `accelerator`s running `spec` in the given formats: one card, or the layout `parallel`
    (a Parallelism, pp = 1) on `topology` (default: the card's node). `progress(requests_done)` is called as the
    run advances."""
    from inferledger.hardware.catalog import Accelerator
    from inferledger.model.spec import ModelSpec
    from inferledger.operators import Formats

    require(spec, ModelSpec, "spec", "build one with inferledger.model.load_model(name)")
    require(accelerator, Accelerator, "accelerator", "build one with inferledger.hardware.find_accelerator(name)")
    require(trace, Trace, "trace", "build one with inferledger.workload.synthetic_trace or read_trace")
    if spec.is_bare:
        raise BadWorkload("the simulator needs a model's architecture (--model), not a bare parameter count")
    scheduler = scheduler or Scheduler()
    slo = slo or SLO()
    formats = Formats.resolve(spec, precision, kv_precision)
    layout = {}
    if parallel is not None:
        from inferledger.ledger.parallel import check_layout
        from inferledger.parallelism import Parallelism

        require(parallel, Parallelism, "parallel", "build one with inferledger.parallelism.Parallelism(tp=…)")
        if parallel.pp > 1:
            build_step_model(spec, formats, parallel=parallel)  # says why pipeline stages are not simulated
        topology = check_layout(spec, accelerator, parallel, topology)
        whole = trace
        trace = replica_share(trace, parallel.dp)
        layout = {"layout": parallel.to_dict(), "topology": topology.to_dict(), "replicas": parallel.dp,
                  "requests_per_replica": trace.requests, "requests": whole.requests,
                  "split": "round-robin: request i to replica i mod dp; replica 0 simulated, rates × dp"}
    longest = int((trace.input_tokens + trace.output_tokens).max())
    blocks, notes = kv_blocks(spec, accelerator, formats, scheduler, longest, gpu_memory_utilization, parallel)
    model = build_step_model(spec, formats, max_step_tokens=max(scheduler.max_batched_tokens,
                                                                int(trace.input_tokens.max())) + scheduler.max_num_seqs,
                             parallel=parallel)
    cost = step_cost(model, accelerator, source=source, compute_efficiency=compute_efficiency,
                     bandwidth_efficiency=bandwidth_efficiency, overhead_seconds=overhead_seconds,
                     calibration_path=calibration_path, topology=topology)
    run = run_trace(trace, cost, scheduler, blocks, progress)
    metrics = summarise(run, trace, slo)
    if parallel is not None and parallel.dp > 1:
        metrics = replicas_metrics(metrics, parallel.dp)
    warnings = list(notes)
    if run.preemptions.sum():
        warnings.append(f"{int(run.preemptions.sum()):,} preemptions: the KV cache ran out and sequences were "
                        "recomputed")
    return SimulationResult(spec.name, accelerator.name, formats.weights.name, formats.kv.name, trace.source,
                            scheduler, cost.describe(), metrics, run, tuple(warnings), layout)


def replica_share(trace: Trace, replicas: int) -> Trace:
    """Replica 0's requests when `replicas` share the trace round-robin (request i to replica i mod replicas); a
    closed loop's users are split the same way."""
    import dataclasses

    if replicas == 1:
        return trace
    if trace.requests < replicas:
        raise BadWorkload(f"{trace.requests} requests cannot keep {replicas} data-parallel replicas busy; give at "
                          f"least {replicas} (--requests)")
    users = trace.closed_loop_users
    return dataclasses.replace(trace, input_tokens=trace.input_tokens[::replicas],
                               output_tokens=trace.output_tokens[::replicas],
                               arrival_seconds=trace.arrival_seconds[::replicas],
                               cached_tokens=trace.cached_tokens[::replicas],
                               closed_loop_users=None if users is None else max(1, users // replicas))


def replicas_metrics(metrics: dict, replicas: int) -> dict:
    """One replica's metrics as the deployment's: rates × replicas, counts of the replica kept as they are."""
    out = dict(metrics)
    out["throughput"] = {k: (v * replicas if v is not None else None) for k, v in metrics["throughput"].items()}
    goodput = dict(metrics["goodput"])
    for k in ("requests_per_s", "output_tokens_per_s"):
        goodput[k] = goodput[k] * replicas if goodput[k] is not None else None
    out["goodput"] = goodput
    return out
