"""The model ledger: parameters by component, weight bytes per precision, KV cache per token and per request,
and which layers cost what — everything `inferledger model` prints, as one dataclass."""

from __future__ import annotations

from dataclasses import dataclass

from inferledger.ledger.params import ParameterCount, count_parameters, weight_bytes
from inferledger.model.spec import AttentionCore, ModelSpec, StateCore
from inferledger.operators import (
    Formats,
    cached_keys,
    kv_bytes_per_sequence,
    kv_bytes_per_token,
    state_bytes_per_sequence,
)
from inferledger.precision import COMMON, Precision, get_precision, precision_from_quantization_config


@dataclass(frozen=True)
class ModelLedger:
    name: str
    model_type: str
    num_layers: int
    hidden_size: int
    vocab_size: int
    max_context_tokens: int | None
    params: ParameterCount
    precision: str  # the weight format used for `weight_bytes_selected`
    weight_bytes_selected: float
    weight_bytes: dict  # precision -> bytes
    kv_precision: str
    kv_bytes_per_token: float
    context_tokens: int
    kv_bytes_per_request: float  # at context_tokens
    kv_by_layer_kind: list  # [{"kind", "layers", "bytes_per_token", "bytes_per_request"}]
    notes: tuple

    def to_dict(self) -> dict:
        return {
            "name": self.name, "model_type": self.model_type, "num_layers": self.num_layers,
            "hidden_size": self.hidden_size, "vocab_size": self.vocab_size,
            "max_context_tokens": self.max_context_tokens, "params": self.params.to_dict(),
            "precision": self.precision, "weight_bytes_selected": self.weight_bytes_selected,
            "weight_bytes": self.weight_bytes, "kv_precision": self.kv_precision,
            "kv_bytes_per_token": self.kv_bytes_per_token, "context_tokens": self.context_tokens,
            "kv_bytes_per_request": self.kv_bytes_per_request, "kv_by_layer_kind": self.kv_by_layer_kind,
            "notes": list(self.notes),
        }


def default_precision(spec: ModelSpec) -> Precision:
    """What the checkpoint ships in: its quantization_config, else its dtype (bf16 when unstated)."""
    dtype = spec.config_dtype if spec.config_dtype in ("float16", "bfloat16", "float32") else "bfloat16"
    return precision_from_quantization_config(spec.quantization, dtype)


def kv_by_layer_kind(spec: ModelSpec, kv: Precision, context_tokens: int) -> list[dict]:
    out: dict = {}
    for block, m in spec.modules():
        if isinstance(m, AttentionCore):
            entry = out.setdefault(m.kind, {"kind": m.kind, "layers": 0, "bytes_per_token": 0.0,
                                            "bytes_per_request": 0.0, "window_tokens": m.window_tokens})
            per_token = m.cache_elements_per_token * kv.bytes_per_element * block.count
            entry["bytes_per_token"] += per_token
            entry["bytes_per_request"] += per_token * cached_keys(m, context_tokens)
        elif isinstance(m, StateCore):
            entry = out.setdefault(m.kind, {"kind": m.kind, "layers": 0, "bytes_per_token": 0.0,
                                            "bytes_per_request": 0.0, "window_tokens": None})
            entry["bytes_per_request"] += state_bytes_per_sequence(m, kv) * block.count
        else:
            continue
        entry["layers"] += block.count
    return list(out.values())


def model_ledger(spec: ModelSpec, precision: str | None = None, kv_precision: str | None = None,
                 context_tokens: int = 8192) -> ModelLedger:
    weights = get_precision(precision) if precision else default_precision(spec)
    kv = Formats.of(weights, get_precision(kv_precision) if kv_precision else None).kv
    params = count_parameters(spec)
    formats = {name: weight_bytes(spec, get_precision(name)) for name in COMMON}
    formats.setdefault(weights.name, weight_bytes(spec, weights))
    return ModelLedger(
        name=spec.name, model_type=spec.model_type, num_layers=spec.num_layers, hidden_size=spec.hidden_size,
        vocab_size=spec.vocab_size, max_context_tokens=spec.max_context_tokens, params=params,
        precision=weights.name, weight_bytes_selected=formats[weights.name], weight_bytes=formats,
        kv_precision=kv.name, kv_bytes_per_token=kv_bytes_per_token(spec, kv), context_tokens=context_tokens,
        kv_bytes_per_request=kv_bytes_per_sequence(spec, kv, context_tokens),
        kv_by_layer_kind=kv_by_layer_kind(spec, kv, context_tokens), notes=spec.notes,
    )
