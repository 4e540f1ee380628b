"""Parameter counts as sums over operator rows: total, active per token, by component and by layer."""

from __future__ import annotations

from dataclasses import dataclass, field

from inferledger.model.spec import ModelSpec
from inferledger.operators import Formats, Row, Step, rows, total
from inferledger.precision import PRECISIONS, Precision


@dataclass(frozen=True)
class ParameterCount:
    total: int  # the language model: no MTP heads, no vision tower, no buffers, no quantization scales
    active: int  # parameters one token uses (routed experts: top_k of E; all of a dense model)
    by_component: dict  # component -> parameters
    active_by_component: dict
    by_block: list  # [{"kind", "layers", "parameters_per_layer", "parameters"}]
    extra: dict = field(default_factory=dict)  # {"mtp": n, "vision": n}: reported, not in total

    def share(self, component: str) -> float:
        return self.by_component.get(component, 0) / self.total if self.total else 0.0

    def to_dict(self) -> dict:
        return {"total": self.total, "active": self.active, "by_component": self.by_component,
                "active_by_component": self.active_by_component, "by_block": self.by_block, "extra": self.extra}


def parameter_rows(spec: ModelSpec) -> list[Row]:
    """The rows of a one-token step: they carry every weight the model holds."""
    return rows(spec, Step.decode(context_tokens=0), Formats.of(PRECISIONS["bf16"]))


def count_parameters(spec: ModelSpec) -> ParameterCount:
    by_component: dict[str, int] = {}
    active_by_component: dict[str, float] = {}
    held = parameter_rows(spec)
    for row in held:
        by_component[row.component] = by_component.get(row.component, 0) + row.weight_elements * row.count
        active_by_component[row.component] = active_by_component.get(row.component, 0) + \
            row.active_weight_elements * row.count
    by_component = {k: v for k, v in by_component.items() if v}
    active_by_component = {k: int(v) for k, v in active_by_component.items() if v}
    total = sum(by_component.values())
    # Rows come out block by block, module by module: regroup them per distinct layer.
    remaining = iter(held)
    blocks = []
    for block in spec.blocks:
        per_layer = sum(next(remaining).weight_elements for _ in block.modules)
        blocks.append({"kind": block.kind, "layers": list(block.layers), "parameters_per_layer": per_layer,
                       "parameters": per_layer * block.count})
    assert total == sum(b["parameters"] for b in blocks)  # the parts sum to the whole
    return ParameterCount(total=total, active=sum(active_by_component.values()), by_component=by_component,
                          active_by_component=active_by_component, by_block=blocks, extra=dict(spec.extra_parameters))


def weight_bytes(spec: ModelSpec, weights: Precision | Formats) -> float:
    """Bytes the weights occupy in a format, scales and zero points included; unquantized modules
    (embeddings, norms, routers, lm_head, modules_to_not_convert) kept in 16 bits. Resolved Formats carry a
    checkpoint's own per-module formats (a GGUF's mixed quant types)."""
    formats = weights if isinstance(weights, Formats) else Formats.of(weights)
    return total(rows(spec, Step.decode(context_tokens=0), formats), "stored_weight_bytes")
