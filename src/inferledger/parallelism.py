"""How a model is spread over cards: tensor, pipeline, expert and data parallel degrees, and the checks that say,
by name, which constraint a layout breaks.

Cards of one replica = tp × pp; the whole deployment = tp × pp × dp. Placement is the engines' (vLLM, SGLang): the
tp cards of a stage are neighbours, stages follow one another, replicas come last.

- tp: attention heads and FFN columns split over tp cards (Megatron: column-parallel in, row-parallel out, one
  all-reduce per sublayer). KV heads are split too; when there are fewer KV heads than tp cards each card keeps a
  whole KV head (replicated tp / kv times), and MLA's latent cache, shared by all heads, is whole on every card.
- pp: layers split into pp consecutive stages (the first L mod pp stages hold one layer more); one point-to-point
  send of the hidden state per stage boundary; at small batch the stages wait for one another (bubbles).
- ep: routed experts split over ep of the tp cards (E / ep each); each expert's matrices are split over the other
  tp / ep cards.
- attention_dp: attention runs data-parallel in attention_dp groups of tp / attention_dp cards, each holding its own
  sequences' cache (SGLang's --enable-dp-attention; it pays off for MLA, whose latent cache TP would replicate);
  the FFN/MoE still spans all tp cards, so tokens are gathered before it and scattered after.
- dp: independent replicas: per-request times unchanged, throughput and concurrency × dp.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass

from inferledger.errors import BadWorkload


@dataclass(frozen=True)
class Parallelism:
    tp: int = 1
    pp: int = 1
    ep: int = 1
    dp: int = 1
    attention_dp: int = 1

    def __post_init__(self):
        for name in ("tp", "pp", "ep", "dp", "attention_dp"):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, int) or value < 1:
                flag = name.replace("_", "-")
                raise BadWorkload(f"--{flag} must be a whole number of at least 1, got {value!r}")
        if self.tp % self.ep:
            raise BadWorkload(f"--ep {self.ep} must divide --tp {self.tp}: experts are split over ep of the tp "
                              "cards of a stage (give --tp as a multiple of --ep)")
        if self.tp % self.attention_dp:
            raise BadWorkload(f"--attention-dp {self.attention_dp} must divide --tp {self.tp}: attention runs in "
                              "attention-dp groups of tp / attention-dp cards")

    @property
    def cards_per_replica(self) -> int:
        return self.tp * self.pp

    @property
    def cards(self) -> int:
        return self.tp * self.pp * self.dp

    @property
    def attention_tp(self) -> int:
        """Cards one attention group splits its heads over."""
        return self.tp // self.attention_dp

    @property
    def expert_tp(self) -> int:
        """Cards one routed expert's matrices are split over."""
        return self.tp // self.ep

    @property
    def is_single_card(self) -> bool:
        return self.cards_per_replica == 1

    def to_dict(self) -> dict:
        return {**asdict(self), "cards": self.cards}

    def label(self) -> str:
        parts = [f"{name} {getattr(self, name)}" for name in ("tp", "pp", "ep", "dp") if getattr(self, name) > 1]
        if self.attention_dp > 1:
            parts.append(f"attention-dp {self.attention_dp}")
        return ", ".join(parts) or "one card"

    @staticmethod
    def of_gpus(gpus: int, *, tp: int | None = None, pp: int | None = None, ep: int | None = None,
                dp: int | None = None, attention_dp: int | None = None) -> Parallelism:
        """The layout from --gpus and whichever degrees are given: the one degree left out of tp × pp × dp is
        gpus / (the product of the others); with none given, --gpus N is tensor parallel N (what `fit --gpus` has
        always meant). An inconsistent or ambiguous combination is an error that says which."""
        if isinstance(gpus, bool) or not isinstance(gpus, int) or gpus < 1:
            raise BadWorkload(f"--gpus must be a whole number of at least 1, got {gpus!r}")
        given = {name: value for name, value in (("tp", tp), ("pp", pp), ("dp", dp)) if value is not None}
        product = 1
        for value in given.values():
            product *= value
        missing = [name for name in ("tp", "pp", "dp") if name not in given]
        if gpus % product:
            raise BadWorkload(f"--gpus {gpus} is not a multiple of {_product_text(given)} = {product}")
        if product != gpus:
            # The quotient goes to the one degree not given; with several not given, to tp (the usual split
            # inside a node), and with tp given and both pp and dp not, it could be either: ambiguous.
            if not missing:
                raise BadWorkload(f"--gpus {gpus} does not equal {_product_text(given)} = {product}")
            if len(missing) > 1 and "tp" not in missing:
                raise BadWorkload(f"--gpus {gpus} with {_product_text(given)} is ambiguous: say how the other "
                                  f"{gpus // product} are used with --pp or --dp")
            given["tp" if "tp" in missing else missing[0]] = gpus // product
        return Parallelism(given.get("tp", 1), given.get("pp", 1), ep or 1, given.get("dp", 1), attention_dp or 1)


def _product_text(given: dict) -> str:
    return " × ".join(f"{name} {value}" for name, value in given.items())
