"""The realistic estimate of many mixed steps at once: inferledger.ledger.realistic's price of each operator row,
evaluated on arrays of steps.

`realistic_step(rows, …)` prices one step's rows one by one (a Python loop of a few dozen rows). The simulator costs
hundreds of thousands of steps, so this module looks each row's calibration entry up once (with the realistic
module's own `character` and `_pricing`) and then applies the formula of its `entry_seconds` — call latency +
blend(compute / efficiency, memory / efficiency, keys × seconds per key), blend the max or a p-norm — to every row
of every step together; each row is kept at or above its own floor, as `estimate_row` does.
An attention row is priced as two kernels, its prefill part and its decode part (StepModel.rows_of). A test keeps
this equal to realistic_step(StepModel.rows_of(x)) step by step.
"""

from __future__ import annotations

import dataclasses

import numpy as np

from inferledger.ledger.roofline import peak_for
from inferledger.simulate.step_model import FIELDS

_FULL, _PREFILL, _DECODE = 0, 1, 2


class RealisticArrays:
    """seconds(x) of the realistic estimate for steps x (steps, features) of `model` on `accelerator`."""

    def __init__(self, model, accelerator, calibration):
        from inferledger.ledger import realistic

        self.model = model
        self.overhead_seconds = float(calibration.step_overhead_seconds)
        self.notes: list = []
        parts = []
        for r, row in enumerate(model.template):
            if row.collective:
                continue  # collectives are priced by StepCost.communication_seconds
            variants = [(_FULL, row)] if row.kind != "attention" else [
                (_PREFILL, dataclasses.replace(row, phase="prefill")),
                (_DECODE, dataclasses.replace(row, phase="decode"))]
            for source, sample in variants:
                shape = realistic.character(sample, accelerator)
                entry, _, note, peak = realistic._pricing(sample, accelerator, calibration, shape)
                if note and note not in self.notes:
                    self.notes.append(note)
                parts.append((source, r, row.count, entry, peak, peak_for(accelerator, row.compute_dtype),
                              source == _DECODE))
        self._source = np.array([p[0] for p in parts])
        self._row = np.array([p[1] for p in parts])
        self._count = np.array([p[2] for p in parts], dtype=np.float64)
        self._entries = [p[3] for p in parts]
        self._has_entry = np.array([e is not None for e in self._entries])
        self._inverse_peak = np.array([1.0 / p[4] if p[4] else 0.0 for p in parts])
        self._inverse_floor_peak = np.array([1.0 / p[5] for p in parts])
        self._decode_attention = np.array([p[6] for p in parts])
        self._inverse_bandwidth = 1.0 / accelerator.memory_bandwidth_bytes_per_second
        self._inverse_vector_peak = 1.0 / peak_for(accelerator, "fp32")
        # Each part's fields as linear maps of the step's features: an attention part sees only its phase's columns.
        g = len(model.layouts)
        mask = np.ones((len(parts), model.feature_count))
        mask[self._source == _PREFILL, 3 + 2 * g:] = 0.0
        mask[self._source == _DECODE, 1:3 + 2 * g] = 0.0
        c = model.coefficients[:, :, self._row] * mask.T[None]  # (fields, features, parts)
        self._maps = {name: c[FIELDS.index(name)] for name in ("flops", "dequant_ops", "kv_read_bytes",
                                                                "kv_write_bytes")}
        self._maps["moved"] = sum(c[FIELDS.index(f)] for f in ("weight_bytes", "activation_bytes", "kv_read_bytes",
                                                                "kv_write_bytes"))
        self._expert_parts = np.flatnonzero(np.isin(self._row, model.expert_rows))
        # The entries' parameters as arrays over the parts (a part without an entry is priced at its floor).
        def parameter(name, missing):
            return np.array([getattr(e, name) if e is not None else missing for e in self._entries], dtype=float)

        self._call = parameter("call_seconds", 0.0)
        self._compute_efficiency = parameter("compute_efficiency", 1.0)
        self._memory_efficiency = parameter("memory_efficiency", 1.0)
        self._seconds_per_key = parameter("seconds_per_key", 0.0)
        powers = [e.blend_power if e is not None else None for e in self._entries]
        self._norm = np.array([p is not None for p in powers])
        self._compute_scale = self._inverse_peak / self._compute_efficiency
        self._memory_scale = 1.0 / self._memory_efficiency
        self._power = np.array([p if p is not None else 1.0 for p in powers], dtype=float)
        self._norm_index = np.flatnonzero(self._norm)
        self._norm_power = self._power[self._norm_index]
        # One matrix for the five maps: x @ it gives every part's fields side by side.
        order = ("flops", "moved", "dequant_ops", "kv_read_bytes", "kv_write_bytes")
        self._stacked = np.concatenate([self._maps[name] for name in order], axis=1)
        self._parts = len(parts)
        self._prefill_parts = self._source == _PREFILL
        self._decode_parts = self._source == _DECODE
        self._prefill_column, self._decode_column = 2, 3 + 2 * g
        # One step at a time (most of a simulation's calls), plain floats beat arrays of a few dozen parts.
        self._scalar = list(zip(self._source.tolist(), self._count.tolist(), self._has_entry.tolist(),
                                self._inverse_floor_peak.tolist(), self._compute_scale.tolist(),
                                self._memory_scale.tolist(), self._seconds_per_key.tolist(), self._call.tolist(),
                                self._decode_attention.tolist(), [p if n else None for p, n in
                                                                  zip(self._power.tolist(), self._norm.tolist(), strict=True)],
                                strict=True))

    def seconds(self, x: np.ndarray) -> np.ndarray:
        if x.ndim == 1 and not self._expert_parts.size:
            return self._one(x)
        one = x.ndim == 1
        x = np.atleast_2d(x)
        p = self._parts
        stacked = x @ self._stacked  # (steps, 5 × parts)
        flops, moved, dequant = stacked[:, :p], stacked[:, p:2 * p], stacked[:, 2 * p:3 * p]
        kv_read, kv_write = stacked[:, 3 * p:4 * p], stacked[:, 4 * p:]
        if self._expert_parts.size:  # routed experts are tabulated over the step's tokens, not linear
            fields = self.model.fields(x)[:, :, self._row[self._expert_parts]]
            flops[:, self._expert_parts] = fields[FIELDS.index("flops")]
            dequant[:, self._expert_parts] = fields[FIELDS.index("dequant_ops")]
            moved[:, self._expert_parts] = sum(fields[FIELDS.index(f)] for f in (
                "weight_bytes", "activation_bytes", "kv_read_bytes", "kv_write_bytes"))
        memory = moved * self._inverse_bandwidth
        floor = np.maximum(np.maximum(flops * self._inverse_floor_peak, memory), dequant * self._inverse_vector_peak)
        walking = self._decode_attention & (kv_write > 0)
        keys = np.where(walking, kv_read, 0.0) / np.where(walking, kv_write, 1.0)  # cached keys per sequence
        compute = flops * self._compute_scale
        memory *= self._memory_scale
        serial = keys * self._seconds_per_key
        blended = np.maximum(np.maximum(compute, memory), serial)
        if self._norm_index.size:
            n, power = self._norm_index, self._norm_power
            blended[:, n] = (compute[:, n] ** power + memory[:, n] ** power + serial[:, n] ** power) ** (1.0 / power)
        seconds = np.where(self._has_entry, np.maximum(self._call + blended, floor), floor) * self._count
        # The prefill (decode) half of an attention row runs only when the step prefills (decodes).
        seconds[:, self._prefill_parts] *= (x[:, self._prefill_column] > 0)[:, None]
        seconds[:, self._decode_parts] *= (x[:, self._decode_column] > 0)[:, None]
        total = seconds.sum(axis=1) + self.overhead_seconds
        return total[0] if one else total

    def _one(self, x: np.ndarray) -> float:
        """seconds() of one step, part by part in floats (the same terms as the array path)."""
        p = self._parts
        v = (x @ self._stacked).tolist()
        prefilling, decoding = x[self._prefill_column] > 0, x[self._decode_column] > 0
        bandwidth, vector = self._inverse_bandwidth, self._inverse_vector_peak
        total = self.overhead_seconds
        for j, (source, count, has_entry, floor_peak, compute_scale, memory_scale, per_key, call, walks,
                power) in enumerate(self._scalar):
            if (source == _PREFILL and not prefilling) or (source == _DECODE and not decoding):
                continue
            flops, memory, dequant = v[j], v[p + j] * bandwidth, v[2 * p + j]
            floor = max(flops * floor_peak, memory, dequant * vector)
            if not has_entry:
                total += floor * count
                continue
            written = v[4 * p + j]
            serial = v[3 * p + j] / written * per_key if walks and written > 0 else 0.0
            compute, memory = flops * compute_scale, memory * memory_scale
            blended = max(compute, memory, serial) if power is None else \
                (compute ** power + memory ** power + serial ** power) ** (1.0 / power)
            total += max(call + blended, floor) * count
        return total
