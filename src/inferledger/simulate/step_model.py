"""The operator rows of a mixed continuous-batching step, as exact linear functions of the step's features.

A serving step mixes sequences: some prefill a chunk of `n` new tokens on top of `c` cached ones, the rest decode
one token each at their own context. `operators.rows` describes a uniform step (every sequence alike). Every row
field is a sum over the step's sequences of a per-sequence term plus, for weights, a once-per-step term:

    field = w0 + wT·T + wS·S + Σ_g (wA_g·A_g + wR_g·R_g)

with T the new tokens, S the sequences (one logits row each), and for each distinct attention layout g (full,
or a sliding/chunked window) A_g = Σ keys attended (operators.attended_keys) and R_g = Σ keys read from cache
(operators.cached_keys). So the coefficients are *fitted exactly* on uniform steps of `rows()` (least squares on
steps of several batches, lengths and contexts, then checked on other steps to 1e-9) — the rows remain the one
source of truth — and a mixed step adds its prefill and decode parts, counting the per-step term (weights read
once) once. Prefill and decode get separate coefficients because some rows differ by phase (MLA decodes in the
absorbed form). Routed-expert rows are not linear in tokens (a batch touches E·(1 − (1 − k/E)^T) experts): they
are tabulated over the step's tokens from `rows()` and interpolated.

With a layout (`parallel`, ledger/parallel.py) the rows are one card's of one replica (`rows(..., parallel=...)`):
the sharded compute rows and the communication rows, whose message bytes are linear in the same features (tokens
for the activations reduced or dispatched, sequences for the gathered logits), so they are fitted the same way and
the exactness check covers them. Pipeline stages are not modelled here (a step of pp > 1 is a schedule of stages).
"""

from __future__ import annotations

import dataclasses

import numpy as np

from inferledger.errors import BadWorkload
from inferledger.model.spec import AttentionCore, ModelSpec
from inferledger.operators import Formats, Step, attended_keys, cached_keys, rows

FIELDS = ("flops", "weight_bytes", "activation_bytes", "kv_read_bytes", "kv_write_bytes", "dequant_ops",
          "output_elements", "message_bytes")
_PREFILL_SAMPLES = [(b, n, c) for b in (1, 3) for n in (1, 5, 64, 700) for c in (0, 9, 300, 5000)]
_DECODE_SAMPLES = [(b, c) for b in (1, 2, 7) for c in (0, 1, 17, 600, 4000, 70000)]
_CHECK_PREFILL = [(2, 33, 1234), (5, 2048, 0), (1, 4097, 8191)]
_CHECK_DECODE = [(3, 123), (11, 9000), (64, 131071)]


class NotLinear(Exception):
    """A row whose cost is not linear in the step's features (an internal limit, reported as such)."""


@dataclasses.dataclass(frozen=True)
class Layout:
    """One distinct attention layout: its kind and window, and one module of it (cached_keys needs one)."""

    kind: str
    window: int | None
    module: AttentionCore

    @property
    def linear(self) -> bool:
        """Full attention (no window): a decode at context c attends to and reads c + 1 keys."""
        return not self.window or self.kind not in ("sliding", "chunked")


def layouts(spec: ModelSpec) -> list[Layout]:
    seen: dict = {}
    for _, module in spec.modules():
        if isinstance(module, AttentionCore):
            window = module.window_tokens if module.kind in ("sliding", "chunked") else None
            seen.setdefault((module.kind if window else "full", window), module)
    return [Layout(kind, window, module) for (kind, window), module in seen.items()]


def sequence_keys(layout: Layout, new_tokens: int, context_tokens: int) -> tuple[int, int]:
    """(keys attended, keys read from cache) of one sequence adding new_tokens to context_tokens."""
    return (attended_keys(layout.kind, layout.window, context_tokens, new_tokens),
            cached_keys(layout.module, context_tokens + new_tokens))


def decode_keys(layout: Layout, contexts: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """sequence_keys(layout, 1, c) for an array of contexts (the same rules, vectorised; tests compare them)."""
    if layout.linear:
        return contexts + 1, contexts + 1
    read = np.minimum(contexts + 1, layout.window)
    if layout.kind == "sliding":
        return read, read
    return contexts % layout.window + 1, read  # chunked: the key count restarts at each chunk


@dataclasses.dataclass(frozen=True, eq=False)
class StepModel:
    """Row fields of any mixed step from its features. Feature vector (see `features`):
    [1, prefill tokens, prefill sequences, (prefill A_g, R_g)…, decode sequences, (decode A_g, R_g)…]."""

    template: tuple  # the Rows of a one-token decode: names, kinds, counts, dtypes
    layouts: tuple
    coefficients: np.ndarray  # (fields, features, rows); expert rows zero here
    expert_rows: np.ndarray  # indices of rows taken from the table instead
    table_tokens: np.ndarray  # tokens the expert table is computed at
    table: np.ndarray  # (fields, len(table_tokens), len(expert_rows))
    parallel: object = None  # the Parallelism the rows are one card of (None: one card)

    @property
    def communication_rows(self) -> np.ndarray:
        return np.array([i for i, r in enumerate(self.template) if r.collective], dtype=np.int64)

    @property
    def feature_count(self) -> int:
        return self.coefficients.shape[1]

    def features(self, prefill: list[tuple[int, int]] = (), decode_contexts=()) -> np.ndarray:
        """The feature vector of one step: `prefill` as (new tokens, cached context) per prefilling sequence,
        `decode_contexts` the cached context of each decoding sequence."""
        g = len(self.layouts)
        x = np.zeros(self.feature_count)
        x[0] = 1.0
        for new, context in prefill:
            x[1] += new
            x[2] += 1
            for i, layout in enumerate(self.layouts):
                attended, read = sequence_keys(layout, new, context)
                x[3 + 2 * i] += attended
                x[4 + 2 * i] += read
        contexts = np.asarray(decode_contexts, dtype=np.int64)
        x[3 + 2 * g] = contexts.size
        for i, layout in enumerate(self.layouts):
            attended, read = decode_keys(layout, contexts)
            x[4 + 2 * g + 2 * i] = attended.sum()
            x[5 + 2 * g + 2 * i] = read.sum()
        return x

    def tokens(self, x: np.ndarray) -> np.ndarray:
        """New tokens of each step (prefill tokens + one per decoding sequence)."""
        g = len(self.layouts)
        return x[..., 1] + x[..., 3 + 2 * g]

    def fields(self, x: np.ndarray) -> np.ndarray:
        """(fields, steps, rows): every row field of each step in x (steps, features)."""
        x = np.atleast_2d(x)
        values = np.einsum("sf,kfr->ksr", x, self.coefficients)
        if self.expert_rows.size:
            tokens = self.tokens(x)
            for k in range(len(FIELDS)):
                for j, r in enumerate(self.expert_rows):
                    values[k, :, r] = np.interp(tokens, self.table_tokens, self.table[k, :, j])
        return values

    def rows_of(self, x: np.ndarray) -> list:
        """The Rows of one mixed step (per-instance figures, as operators.rows gives them). An attention row is
        split into its prefill part and its decode part, each with its phase: kernels run the two differently
        (the realistic estimate prices them apart); every other row is one row, its weights read once."""
        g = len(self.layouts)
        prefill_only, decode_only = x.copy(), x.copy()
        prefill_only[3 + 2 * g:] = 0.0
        decode_only[1:3 + 2 * g] = 0.0
        values, prefill, decode = (self.fields(v)[:, 0, :] for v in (x, prefill_only, decode_only))
        out = []
        for r, row in enumerate(self.template):
            if row.kind != "attention":
                out.append(dataclasses.replace(row, **{f: float(values[k, r]) for k, f in enumerate(FIELDS)}))
                continue
            for phase, part, present in (("prefill", prefill, x[2] > 0), ("decode", decode, x[3 + 2 * g] > 0)):
                if present:
                    out.append(dataclasses.replace(row, phase=phase,
                                                   **{f: float(part[k, r]) for k, f in enumerate(FIELDS)}))
        return out


def _uniform_features(model_layouts, phase: str, batch: int, new: int, context: int) -> list[float]:
    out = [1.0]
    if phase == "prefill":
        out += [batch * new, batch]
    else:
        out += [batch]
    for layout in model_layouts:
        attended, read = sequence_keys(layout, new, context)
        out += [batch * attended, batch * read]
    return out


def _fit(spec, formats, model_layouts, phase, samples, checks, expert_rows, parallel):
    def steps(items):
        return [Step.prefill(n, b, c) if phase == "prefill" else Step.decode(c, b)
                for b, n, c in ((s if phase == "prefill" else (s[0], 1, s[1])) for s in items)]

    def matrix(items):
        shaped = [(s if phase == "prefill" else (s[0], 1, s[1])) for s in items]
        return np.array([_uniform_features(model_layouts, phase, b, n, c) for b, n, c in shaped])

    def values(items):
        step_rows = [rows(spec, step, formats, parallel=parallel) for step in steps(items)]  # each step once
        return np.array([[[getattr(r, f) for r in one] for one in step_rows]
                         for f in FIELDS])  # (fields, samples, rows)

    x, y = matrix(samples), values(samples)
    scale = np.abs(x).max(axis=0)
    scale[scale == 0] = 1.0
    coefficients = np.stack([np.linalg.lstsq(x / scale, y[k], rcond=None)[0] / scale[:, None]
                             for k in range(len(FIELDS))])  # (fields, features, rows)
    xc, yc = matrix(checks), values(checks)
    predicted = np.einsum("sf,kfr->ksr", xc, coefficients)
    linear_rows = np.setdiff1d(np.arange(y.shape[2]), expert_rows)
    error = np.abs(predicted - yc)[:, :, linear_rows]
    tolerance = 1e-9 * np.maximum(np.abs(yc[:, :, linear_rows]).max(axis=1, keepdims=True), 1.0)
    if np.any(error > tolerance):
        k, _, r = np.argwhere(error > tolerance)[0]
        raise NotLinear(f"{spec.name}: the {phase} {FIELDS[k]} of row {linear_rows[r]} is not linear in the "
                        "step's tokens, sequences and attended keys")
    coefficients[:, :, expert_rows] = 0.0
    return coefficients, np.abs(y).max(axis=1)  # the scale of each field of each row, for comparisons


def build_step_model(spec: ModelSpec, formats: Formats, max_step_tokens: int = 1 << 20,
                     parallel=None) -> StepModel:
    """Fit the mixed-step model of `spec` in `formats` on uniform steps of `rows()` — one card's rows of a replica
    spread as `parallel` says (a Parallelism with pp = 1; None: one card)."""
    if parallel is not None and parallel.pp > 1:
        raise BadWorkload("the simulator does not model pipeline parallel (--pp) yet: a step of pp stages is a "
                          "schedule of microbatches; `inferledger request --pp` gives its per-step time")
    if parallel is not None and parallel.attention_dp > 1:
        raise BadWorkload("the simulator does not model attention data parallel (--attention-dp) yet: its groups take "
                          "whole sequences, so a step's rows are not linear in them; `inferledger request` prices it")
    parallel = None if parallel is None or parallel.is_single_card else parallel
    template = tuple(rows(spec, Step.decode(0), formats, parallel=parallel))
    model_layouts = layouts(spec)
    expert_rows = np.array([i for i, r in enumerate(template) if r.kind == "experts"], dtype=np.int64)
    prefill, scale = _fit(spec, formats, model_layouts, "prefill", _PREFILL_SAMPLES, _CHECK_PREFILL, expert_rows,
                         parallel)
    decode, _ = _fit(spec, formats, model_layouts, "decode", _DECODE_SAMPLES, _CHECK_DECODE, expert_rows,
                        parallel)
    # The per-step term (weights read once) is counted once: from the decode fit, which must agree with prefill.
    if np.any(np.abs(prefill[:, 0, :] - decode[:, 0, :]) > 1e-9 * np.maximum(scale, 1.0)):
        raise NotLinear(f"{spec.name}: the once-per-step part of the rows differs between prefill and decode")
    g = len(model_layouts)
    coefficients = np.concatenate([decode[:, :1, :], prefill[:, 1:, :], decode[:, 1:, :]], axis=1)
    assert coefficients.shape[1] == 4 + 4 * g
    table_tokens = np.zeros(0)
    table = np.zeros((len(FIELDS), 0, expert_rows.size))
    if expert_rows.size:
        dense = np.arange(0, 257)
        geometric = np.unique(np.rint(256 * 1.02 ** np.arange(1, 1 + int(np.log(max_step_tokens / 256)
                                                                            / np.log(1.02)) + 2)))
        table_tokens = np.concatenate([dense, geometric]).astype(np.float64)
        table = np.zeros((len(FIELDS), table_tokens.size, expert_rows.size))
        for t, tokens in enumerate(table_tokens):
            if tokens == 0:
                continue
            step_rows = rows(spec, Step.prefill(int(tokens)), formats, parallel=parallel)
            for j, r in enumerate(expert_rows):
                for k, f in enumerate(FIELDS):
                    table[k, t, j] = getattr(step_rows[r], f)
    return StepModel(template, tuple(model_layouts), coefficients, expert_rows, table_tokens, table, parallel)
