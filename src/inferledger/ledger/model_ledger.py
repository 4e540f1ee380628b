"""The model ledger: parameters by component, weight bytes per precision, KV cache per token and per request,
and which layers cost what — everything `inferledger model` prints, as one dataclass."""

from __future__ import annotations

from dataclasses import dataclass

from inferledger import defaults
from inferledger.errors import BadWorkload, require
from inferledger.ledger.params import ParameterCount, count_parameters, weight_bytes
from inferledger.model.spec import AttentionCore, ModelSpec, StateCore
from inferledger.operators import Formats, Step, kv_bytes_per_sequence, kv_bytes_per_token, rows
from inferledger.precision import COMMON, Precision, get_precision


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


def kv_by_layer_kind(spec: ModelSpec, formats: Formats, context_tokens: int) -> list[dict]:
    """The cache by layer kind, from the rows of one decode step: what it writes per token (the cost of one more
    token of context) and what it reads at `context_tokens` (what one request holds)."""
    writes = rows(spec, Step.decode(context_tokens=0), formats)
    reads = rows(spec, Step.decode(context_tokens=max(0, context_tokens - 1)), formats)
    out: dict = {}
    for (block, module), write, read in zip(spec.modules(), writes, reads, strict=True):
        if not isinstance(module, (AttentionCore, StateCore)):
            continue
        window = module.window_tokens if isinstance(module, AttentionCore) else None
        entry = out.setdefault(module.kind, {"kind": module.kind, "layers": 0, "bytes_per_token": 0.0,
                                             "bytes_per_request": 0.0, "window_tokens": window})
        entry["layers"] += block.count
        if isinstance(module, AttentionCore):  # a recurrent state is rewritten in place: no bytes per token
            entry["bytes_per_token"] += write.kv_write_bytes * write.count
        entry["bytes_per_request"] += read.kv_read_bytes * read.count
    return list(out.values())


def model_ledger(spec: ModelSpec, precision: str | Precision | None = None,
                 kv_precision: str | Precision | None = None,
                 context_tokens: int = defaults.CONTEXT_TOKENS) -> ModelLedger:
    """Everything `inferledger model` prints. Formats default to the checkpoint's (Formats.resolve)."""
    require(spec, ModelSpec, "spec", "build one with inferledger.model.load_model(name)")
    if not isinstance(context_tokens, int) or context_tokens < 1:
        raise BadWorkload(f"context must be a whole number of at least 1 token, got {context_tokens!r}")
    formats = Formats.resolve(spec, precision, kv_precision)
    weights, kv = formats.weights, formats.kv
    params = count_parameters(spec)
    by_format = {name: weight_bytes(spec, get_precision(name)) for name in COMMON}
    by_format[weights.name] = weight_bytes(spec, formats)  # the checkpoint's own per-module formats, if any
    return ModelLedger(
        name=spec.name, model_type=spec.model_type, num_layers=spec.num_layers, hidden_size=spec.hidden_size,
        vocab_size=spec.vocab_size, max_context_tokens=spec.max_context_tokens, params=params,
        precision=weights.name, weight_bytes_selected=by_format[weights.name], weight_bytes=by_format,
        kv_precision=kv.name, kv_bytes_per_token=kv_bytes_per_token(spec, formats), context_tokens=context_tokens,
        kv_bytes_per_request=kv_bytes_per_sequence(spec, formats, context_tokens),
        kv_by_layer_kind=kv_by_layer_kind(spec, formats, context_tokens), notes=spec.notes,
    )
