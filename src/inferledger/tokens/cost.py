"""From token counts to the request account: what the spread between tokenizers costs in seconds and bytes.

Each tokenizer's count becomes the input length (ISL) of one request on the given model and accelerator, through
the request ledger (inferledger.ledger.request.request_account); nothing here recomputes FLOPs or bytes. For
JSONL/CSV input, the ISL is the mean record length (rounded), since each record is one request.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from inferledger import defaults
from inferledger.errors import BadWorkload
from inferledger.tokens.counting import TokenCountReport


@dataclass
class TokenizerCost:
    """One tokenizer's count as one request's input, through the request ledger."""

    tokenizer: str
    input_tokens: int
    prefill_seconds: float
    prefill_flops: float
    kv_bytes_per_request: float
    decode_seconds_per_token: float
    total_seconds: float
    account: dict = field(repr=False, default_factory=dict)

    @property
    def prefill_tokens_per_second(self) -> float:
        return self.input_tokens / self.prefill_seconds if self.prefill_seconds else float("nan")

    def to_dict(self) -> dict:
        return {"tokenizer": self.tokenizer, "input_tokens": self.input_tokens,
                "prefill_seconds": self.prefill_seconds, "prefill_flops": self.prefill_flops,
                "prefill_tokens_per_second": self.prefill_tokens_per_second,
                "kv_bytes_per_request": self.kv_bytes_per_request,
                "decode_seconds_per_token": self.decode_seconds_per_token,
                "decode_tokens_per_second": (1 / self.decode_seconds_per_token
                                             if self.decode_seconds_per_token else None),
                "total_seconds": self.total_seconds, "account": self.account}


@dataclass
class TokenCost:
    """The same input as a request under each tokenizer, and the gap between the cheapest and dearest."""

    model: str
    accelerator: str
    precision: str
    output_tokens: int
    batch: int
    input_is_mean_record: bool
    rows: list[TokenizerCost]

    def _gap(self, attribute: str) -> float:
        values = [getattr(r, attribute) for r in self.rows]
        return max(values) - min(values) if values else 0.0

    def to_dict(self) -> dict:
        return {"model": self.model, "accelerator": self.accelerator, "precision": self.precision,
                "output_tokens": self.output_tokens, "batch": self.batch,
                "input_is_mean_record": self.input_is_mean_record,
                "rows": [r.to_dict() for r in self.rows],
                "prefill_seconds_gap": self._gap("prefill_seconds"),
                "kv_bytes_per_request_gap": self._gap("kv_bytes_per_request"),
                "total_seconds_gap": self._gap("total_seconds")}


def token_cost(report: TokenCountReport, model: str, gpu: str, output_tokens: int = defaults.OSL_TOKENS,
               precision: str | None = None, kv_precision: str | None = None, batch: int = defaults.BATCH) -> TokenCost:
    """Run each tokenizer's count through the request ledger for model on gpu."""
    from inferledger.hardware import find_accelerator
    from inferledger.ledger.request import request_account
    from inferledger.model import load_model
    from inferledger.operators import Formats

    if output_tokens < 1:
        raise BadWorkload(f"--osl must be at least 1, got {output_tokens}")
    spec = load_model(model)
    accelerator = find_accelerator(gpu)
    rows = []
    for result in report.results:
        stats = result.record_stats()
        isl = round(stats["mean_tokens"]) if stats and stats.get("records") else result.tokens
        if isl < 1:
            raise BadWorkload(f"{result.tokenizer} counted no tokens in the input; nothing to cost")
        account = request_account(spec, accelerator, isl=isl, osl=output_tokens, batch=batch,
                                  precision=precision, kv_precision=kv_precision)
        rows.append(TokenizerCost(
            result.tokenizer, isl, account.prefill.seconds, account.prefill.flops, account.memory.kv_bytes_per_request,
            account.decode.seconds_per_token, account.total_seconds,
            # The per-operator rows are the request verb's business; here they would repeat per tokenizer.
            {k: v for k, v in account.to_dict().items() if k != "operators"}))
    weights = Formats.resolve(spec, precision, kv_precision).weights.name
    return TokenCost(spec.name, accelerator.name, weights, output_tokens,
                     batch, report.records is not None, rows)
