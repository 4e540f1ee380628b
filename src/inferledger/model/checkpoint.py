"""What a model's weight files hold, read from their headers only: every tensor's name, shape and stored type,
matched against the ModelSpec built from the model's config.

A tensor belongs to one module of the spec (a layer's q_proj, the embedding, ...), or it is unexpected: a vision
tower, an MTP layer, a quantization scale, a layer past the config's count. Matched tensors give each module the
bytes its checkpoint really stores (`module_formats`, which the operator rows then use), and a module whose
tensors do not add up to the spec's shape is reported, never silently trusted.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace

from inferledger.model.spec import AttentionCore, ModelSpec, StateCore


@dataclass(frozen=True)
class Tensor:
    """One tensor of a weight file, as its header states it."""

    name: str
    dtype: str  # "BF16", "F8_E4M3", "Q4_K", ...
    shape: tuple
    stored_bytes: int

    @property
    def elements(self) -> int:
        count = 1
        for size in self.shape:
            count *= size
        return count


@dataclass(frozen=True)
class Checkpoint:
    """The weight files of one model, from their headers: totals, totals per stored type, what the spec did not
    expect, and the modules whose tensors disagree with the spec's shapes."""

    format: str  # "gguf" | "safetensors"
    files: tuple
    tensors: int
    elements: int
    stored_bytes: int
    by_type: dict  # dtype -> {"tensors", "elements", "stored_bytes"}
    matched_elements: int  # elements of the tensors that belong to a module of the spec
    matched_bytes: int
    unexpected: tuple = ()  # ({"what", "tensors", "elements", "stored_bytes", "example"}, ...)
    mismatches: tuple = ()  # one line per module whose tensors do not add up to the spec's shape
    header_bytes: int = 0  # bytes read to learn all this (headers only)

    def to_dict(self) -> dict:
        return {"format": self.format, "files": list(self.files), "tensors": self.tensors,
                "elements": self.elements, "stored_bytes": self.stored_bytes, "by_type": self.by_type,
                "matched_elements": self.matched_elements, "matched_bytes": self.matched_bytes,
                "unexpected": list(self.unexpected), "mismatches": list(self.mismatches),
                "header_bytes": self.header_bytes}


# Tensors no decoder layer holds, by what their names say (checked in this order).
_UNEXPECTED = (
    ("quantization scales", re.compile(r"(weight_scale|weight_scale_inv|input_scale|_scale_2|\.scales?$|qzeros|"
                                       r"g_idx|\.absmax|quant_map|quant_state|weight_packed|weight_shape)")),
    ("vision tower", re.compile(r"(vision|visual|image|patch_embed|mm_projector|multi_modal_projector|vpm\.|"
                                r"^v\.|^mm\.)")),
    ("audio tower", re.compile(r"(audio|whisper|^a\.)")),
    ("MTP layers", re.compile(r"(^|\.)mtp|nextn")),
    ("rotary buffers", re.compile(r"rotary_emb|rope_freqs|inv_freq")),
)


def unexpected_kind(name: str) -> str:
    for label, pattern in _UNEXPECTED:
        if pattern.search(name):
            return label
    return "tensors the spec does not model"


class Matcher:
    """Sorts a model's tensors into the spec's modules: `add(tensor, layer, candidates)` with the layer index (None
    for the embedding and head) and the module names it may be, most specific first."""

    def __init__(self, spec: ModelSpec):
        self.spec = spec
        self.block_of_layer = {layer: i for i, b in enumerate(spec.blocks) for layer in b.layers}
        self.outer = {b.kind: i for i, b in enumerate(spec.blocks) if not b.layers}  # embedding, head
        self.names = [{m.name for m in b.modules} for b in spec.blocks]
        self.found: dict = {}  # (block index, module) -> [elements, bytes, set of dtypes, set of layers]
        self.unexpected: dict = {}
        self.tensors: list[Tensor] = []

    def locate(self, layer: int | None, candidates, outer: tuple = ("embedding", "head")) -> tuple | None:
        blocks = [self.block_of_layer.get(layer)] if layer is not None else [self.outer.get(k) for k in outer]
        for name in candidates:
            for index in blocks:
                if index is not None and name in self.names[index]:
                    return index, name
        return None

    def add(self, tensor: Tensor, where: tuple | None, layer: int | None = None) -> None:
        self.tensors.append(tensor)
        if where is None:
            label = unexpected_kind(tensor.name)
            if layer is not None and layer >= self.spec.num_layers and label.startswith("tensors"):
                label = "layers past the config's count (MTP?)"
            entry = self.unexpected.setdefault(label, {"what": label, "tensors": 0, "elements": 0,
                                                       "stored_bytes": 0, "example": tensor.name})
            entry["tensors"] += 1
            entry["elements"] += tensor.elements
            entry["stored_bytes"] += tensor.stored_bytes
            return
        entry = self.found.setdefault(where, [0, 0, set(), set()])
        entry[0] += tensor.elements
        entry[1] += tensor.stored_bytes
        entry[2].add(tensor.dtype)
        entry[3].add(layer)

    def finish(self, file_format: str, files: tuple, make_format, header_bytes: int = 0,
               tied_head_reads_embedding: bool = True) -> ModelSpec:
        """The spec with its checkpoint report and, through make_format(dtype names, bits), each module's own
        stored format. A module whose tensors do not add up to its shape keeps the spec's format and is listed."""
        spec, mismatches, formats = self.spec, [], []
        for index, block in enumerate(spec.blocks):
            for module in block.modules:
                if isinstance(module, (AttentionCore, StateCore)) or module.weight_elements == 0:
                    continue
                if module.component == "lm_head" and spec.tied_embeddings:
                    continue
                expected = module.weight_elements * block.count
                elements, stored, dtypes, _ = self.found.get((index, module.name), (0, 0, set(), set()))
                if elements != expected:
                    where = f"layers {block.layers[0]}-{block.layers[-1]}" if block.layers else block.kind
                    mismatches.append(f"{module.name} ({where}): the files hold {elements:,} elements, the config's "
                                      f"shape {expected:,}")
                    continue
                formats.append(((index, module.name), make_format("+".join(sorted(dtypes)), 8 * stored / elements)))
        if tied_head_reads_embedding and spec.tied_embeddings:
            embedding = dict(formats).get((self.outer.get("embedding"), "embed_tokens"))
            if embedding is not None and "head" in self.outer:
                formats.append(((self.outer["head"], "lm_head"), embedding))
        by_type: dict = {}
        for tensor in self.tensors:
            entry = by_type.setdefault(tensor.dtype, {"tensors": 0, "elements": 0, "stored_bytes": 0})
            entry["tensors"] += 1
            entry["elements"] += tensor.elements
            entry["stored_bytes"] += tensor.stored_bytes
        checkpoint = Checkpoint(
            format=file_format, files=files, tensors=len(self.tensors),
            elements=sum(t.elements for t in self.tensors), stored_bytes=sum(t.stored_bytes for t in self.tensors),
            by_type=by_type, matched_elements=sum(v[0] for v in self.found.values()),
            matched_bytes=sum(v[1] for v in self.found.values()),
            unexpected=tuple(self.unexpected.values()), mismatches=tuple(mismatches), header_bytes=header_bytes)
        notes = list(spec.notes)
        if mismatches:
            notes.append(f"{len(mismatches)} module(s) of the {file_format} files disagree with the config's shapes "
                         "(see checkpoint.mismatches); their bytes are the format's estimate")
        for entry in checkpoint.unexpected:
            notes.append(f"{file_format} files also hold {entry['what']}: {entry['tensors']} tensors, "
                         f"{entry['elements']:,} elements, {entry['stored_bytes']:,} bytes (e.g. {entry['example']}); "
                         "not in the parameter total")
        return replace(spec, module_formats=tuple(formats), checkpoint=checkpoint, notes=tuple(notes))
