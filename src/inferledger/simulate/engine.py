"""One replica serving a trace with continuous batching, stepped with the ledger's per-step costs.

The scheduler follows vLLM's (V1) and SGLang's: each step has a token budget (max_batched_tokens) and at most
max_num_seqs running sequences. Running sequences go first, every decoding sequence adding one token; with chunked
prefill a prompt is split across steps to fill what is left of the budget, and new requests are admitted FCFS
while slots, budget and KV blocks last. Without chunked prefill a step is either whole prompts or decodes, prompts
first (vLLM V0). KV memory is paged in blocks of block_tokens; when a decode needs a block and none is free, the
most recently admitted sequence is preempted: its blocks are freed and it goes back to the head of the queue,
to recompute its prompt and the tokens it has produced (recompute, vLLM's default). Prompt tokens a prefix cache
holds are not prefilled again (their blocks are counted per request: sharing is not credited).

The first output token is sampled from the last prefill chunk's logits, so a request of OSL tokens takes OSL − 1
decode steps after its prefill. max_tokens caps the output; a timeout aborts a request (waiting or running) once
that long has passed since its arrival, keeping the tokens it produced.

Between events (an arrival that can be admitted, a completion, a timeout, a KV block running out) the steps are
decodes of an unchanging set of sequences, so they are costed together in one vectorised call.
"""

from __future__ import annotations

import bisect
import math
from collections import deque
from dataclasses import dataclass

import numpy as np

from inferledger import defaults
from inferledger.errors import BadWorkload
from inferledger.simulate.step_model import decode_keys, sequence_keys
from inferledger.workload.trace import Trace

_MAX_JUMP_CELLS = 1 << 21  # steps × sequences evaluated at once in a decode stretch (memory bound for the arrays)


@dataclass(frozen=True)
class Scheduler:
    """The engine's batching limits and the request gates."""

    max_num_seqs: int = defaults.MAX_NUM_SEQS
    max_batched_tokens: int = defaults.MAX_BATCHED_TOKENS
    chunked_prefill: bool = True
    block_tokens: int = defaults.KV_BLOCK_TOKENS
    max_tokens: int | None = None  # cap on output tokens per request
    timeout_seconds: float | None = None  # abort a request this long after its arrival

    def __post_init__(self):
        for name in ("max_num_seqs", "max_batched_tokens", "block_tokens"):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, int) or value < 1:
                raise BadWorkload(f"{name.replace('_', '-')} must be a whole number ≥ 1, got {value!r}")
        if self.max_tokens is not None and (isinstance(self.max_tokens, bool) or not isinstance(self.max_tokens, int)
                                            or self.max_tokens < 1):
            raise BadWorkload(f"--max-tokens must be a whole number ≥ 1, got {self.max_tokens!r}")
        if self.timeout_seconds is not None and not (isinstance(self.timeout_seconds, (int, float))
                                                     and math.isfinite(self.timeout_seconds)
                                                     and self.timeout_seconds > 0):
            raise BadWorkload(f"--timeout must be a positive number of seconds, got {self.timeout_seconds!r}")
        if self.chunked_prefill and self.max_num_seqs > self.max_batched_tokens:
            raise BadWorkload(f"max-num-seqs {self.max_num_seqs} exceeds the token budget {self.max_batched_tokens}:"
                              " every running sequence needs a token of budget per step")


@dataclass(frozen=True, eq=False)
class Run:
    """What happened: per request, per step, and the timeline (all times in seconds from the start)."""

    arrival: np.ndarray
    admitted: np.ndarray  # first time the request was scheduled (NaN: never, timed out while waiting)
    first_token: np.ndarray  # NaN: no token produced
    finish: np.ndarray
    generated: np.ndarray  # output tokens produced
    target: np.ndarray  # output tokens asked for (OSL capped by max_tokens)
    timed_out: np.ndarray
    preemptions: np.ndarray
    itl_seconds: np.ndarray  # distinct inter-token gaps …
    itl_weights: np.ndarray  # … and how many tokens had each
    timeline: np.ndarray  # (samples, 4): time, waiting, running, KV blocks used — after each step
    steps: int
    kv_blocks: int  # blocks in the card's KV budget


class _Decoders:
    """The decoding sequences as parallel arrays (order does not matter): id, cached context, the context at which
    the request is complete, its deadline, its admission order. Their last tokens' times: `synced` when all came
    out of the same step (always so with chunked prefill), else per sequence in `last`."""

    def __init__(self, capacity: int):
        self.n = 0
        self.ids = np.zeros(capacity, dtype=np.int64)
        self.ctx = np.zeros(capacity, dtype=np.int64)
        self.end = np.zeros(capacity, dtype=np.int64)
        self.deadline = np.zeros(capacity)
        self.order = np.zeros(capacity, dtype=np.int64)
        self.last = np.zeros(capacity)
        self.synced: float | None = None

    def add(self, i: int, ctx: int, end: int, deadline: float, order: int, now: float) -> None:
        k = self.n
        if k == 0:
            self.synced = now
        elif self.synced is not None and self.synced != now:
            self.last[:k] = self.synced
            self.synced = None
        self.ids[k], self.ctx[k], self.end[k], self.deadline[k], self.order[k] = i, ctx, end, deadline, order
        self.last[k] = now
        self.n += 1

    def remove(self, k: int) -> tuple[int, int]:
        """Take out the k-th sequence (the last one moves into its place); its (id, context)."""
        i, ctx = int(self.ids[k]), int(self.ctx[k])
        last = self.n - 1
        for array in (self.ids, self.ctx, self.end, self.deadline, self.order, self.last):
            array[k] = array[last]
        self.n = last
        return i, ctx

    def last_token(self, k: int) -> float:
        return self.synced if self.synced is not None else float(self.last[k])

    def gaps(self, end: float, values: list, weights: list) -> None:
        """Record each decoder's gap since its last token, for a token produced at `end`."""
        if self.synced is not None:
            values.append(end - self.synced)
            weights.append(self.n)
        else:
            distinct, counts = np.unique(end - self.last[:self.n], return_counts=True)
            values.append(distinct)
            weights.append(counts)
        self.synced = end


def run_trace(trace: Trace, cost, scheduler: Scheduler, kv_blocks: int, progress=None) -> Run:
    """Serve `trace` on one replica whose step times come from `cost` (a StepCost) and whose KV cache holds
    `kv_blocks` blocks of scheduler.block_tokens tokens."""
    n = trace.requests
    block = scheduler.block_tokens
    isl = trace.input_tokens
    target = trace.output_tokens if scheduler.max_tokens is None else np.minimum(trace.output_tokens,
                                                                                 scheduler.max_tokens)
    cached = trace.cached_tokens
    longest = int(np.max(isl + target - 1))
    if -(-longest // block) > kv_blocks:
        i = int(np.argmax(isl + target))
        raise BadWorkload(f"request {i + 1} reaches {longest:,} tokens of context but the KV cache holds "
                          f"{kv_blocks * block:,} tokens: it can never run; cap its output (--max-tokens) or use "
                          "a card with more memory, a lower KV precision or a shorter trace")
    model = cost.model
    layouts = model.layouts
    g = len(layouts)
    all_linear = all(layout.linear for layout in layouts)
    timeout = scheduler.timeout_seconds if scheduler.timeout_seconds is not None else math.inf

    arrival = trace.arrival_seconds.astype(np.float64).copy()  # numpy for searching …
    closed = trace.closed_loop_users
    if closed is not None:
        arrival[:] = math.inf
        arrival[:min(closed, n)] = 0.0
    # … and per-request state as Python lists: the loop reads and writes one request at a time.
    arrived = arrival.tolist()
    target_tokens = target
    isl, target, cached = isl.tolist(), target.tolist(), cached.tolist()
    nan = math.nan
    admitted, first_token, finish = [nan] * n, [nan] * n, [nan] * n
    generated, preemptions, order = [0] * n, [0] * n, [0] * n
    timed_out = [False] * n
    computed = [0] * n  # tokens in cache, for sequences not decoding
    held = [0] * n  # blocks, for sequences not decoding
    last_token = [0.0] * n

    waiting: deque = deque()
    prefilling: list = []  # running sequences still computing their prompt (chunked)
    dec = _Decoders(scheduler.max_num_seqs)
    state = {"next": 0, "issued": min(closed, n) if closed is not None else n, "used": 0, "done": 0,
             "admissions": 0}
    itl_values: list = []
    itl_weights: list = []
    segments: list = []  # closed-form decode stretches: (first step seconds, increase per step, steps, sequences)
    timeline: list = []

    def pull_arrivals(now: float) -> None:
        if state["next"] >= state["issued"] or arrived[state["next"]] > now:
            return
        if closed is None:
            stop = int(np.searchsorted(arrival, now, side="right"))
        else:
            stop = state["next"]
            while stop < state["issued"] and arrived[stop] <= now:
                stop += 1
        waiting.extend(range(state["next"], stop))
        state["next"] = stop

    def next_arrival() -> float:
        return arrived[state["next"]] if state["next"] < state["issued"] else math.inf

    def finished(i: int, now: float, aborted: bool = False) -> None:
        finish[i] = now
        timed_out[i] = aborted
        state["done"] += 1
        if closed is not None and state["issued"] < n:  # the user sends its next request
            arrival[state["issued"]] = arrived[state["issued"]] = now + trace.think_seconds
            state["issued"] += 1

    def release_decoders(mask: np.ndarray, now: float, aborted: bool) -> None:
        for k in sorted(np.flatnonzero(~mask).tolist(), reverse=True):
            i, ctx = dec.remove(k)
            generated[i] = ctx - isl[i] + 1
            state["used"] -= -(-ctx // block)
            finished(i, now, aborted)

    def preempt_one(now: float) -> None:
        """Free the most recently admitted running sequence and queue it first, to recompute later."""
        last_dec = int(np.argmax(dec.order[:dec.n])) if dec.n else -1
        last_pre = max(prefilling, key=lambda i: order[i]) if prefilling else -1
        if last_pre >= 0 and (last_dec < 0 or order[last_pre] > dec.order[last_dec]):
            prefilling.remove(last_pre)
            state["used"] -= held[last_pre]
            victim = last_pre
        else:
            victim = int(dec.ids[last_dec])
            ctx = int(dec.ctx[last_dec])
            generated[victim] = ctx - isl[victim] + 1
            state["used"] -= -(-ctx // block)
            last_token[victim] = dec.last_token(last_dec)
            dec.remove(last_dec)
        held[victim] = 0
        computed[victim] = 0
        preemptions[victim] += 1
        waiting.appendleft(victim)

    max_num_seqs, max_batched_tokens = scheduler.max_num_seqs, scheduler.max_batched_tokens
    chunked_prefill = scheduler.chunked_prefill
    now = last_seconds = 0.0
    steps = 0
    while state["done"] < n:
        pull_arrivals(now)
        if not waiting and not prefilling and dec.n == 0:
            timeline.append((now, 0, 0, state["used"]))  # idle until the next arrival
            now = max(now, next_arrival())
            continue
        if timeout < math.inf:
            while waiting and arrived[waiting[0]] + timeout <= now:
                finished(waiting.popleft(), now, aborted=True)
            if dec.n and dec.deadline[:dec.n].min() <= now:
                release_decoders(dec.deadline[:dec.n] > now, now, aborted=True)
            for i in [i for i in prefilling if arrived[i] + timeout <= now]:
                prefilling.remove(i)
                state["used"] -= held[i]
                finished(i, now, aborted=True)
            if state["done"] >= n:
                break
            if not waiting and not prefilling and dec.n == 0:
                continue

        # Decodes first: one token each; a new block when the context reaches a block boundary.
        while dec.n and state["used"] + dec.n > kv_blocks:
            crossing = int(np.count_nonzero(dec.ctx[:dec.n] % block == 0))
            if state["used"] + crossing <= kv_blocks:
                break
            preempt_one(now)
        chunks: list = []  # (id, new tokens)
        budget = max_batched_tokens
        running = dec.n + len(prefilling)
        decode_now = True
        if not chunked_prefill:
            decode_now = not _admit_whole(waiting, running, scheduler, isl, generated, cached, computed, held,
                                          state, kv_blocks, now, admitted, order, prefilling, chunks)
        if decode_now:
            budget -= dec.n
            if chunked_prefill:
                for i in prefilling:
                    if budget <= 0:
                        break
                    chunk = _chunk(i, budget, isl, generated, computed, held, state, kv_blocks, block)
                    if chunk:
                        chunks.append((i, chunk))
                        budget -= chunk
                while waiting and budget > 0 and running < max_num_seqs:
                    i = waiting[0]
                    computed[i] = cached[i]
                    held[i] = 0
                    chunk = _chunk(i, budget, isl, generated, computed, held, state, kv_blocks, block)
                    if not chunk:
                        break
                    waiting.popleft()
                    _admitted(i, now, admitted, order, state, prefilling)
                    chunks.append((i, chunk))
                    budget -= chunk
                    running += 1
        decoders = dec.n if decode_now else 0
        if not chunks and not decoders:
            if len(prefilling) > 1:  # prompts half-computed hold the blocks each other needs: free the latest
                preempt_one(now)
                continue
            raise RuntimeError("the scheduler found nothing to run")  # excluded by the capacity check above
        # The state during the step about to run: admissions happen at its start, departures at its end.
        timeline.append((now, len(waiting), dec.n + len(prefilling), state["used"]))

        # A stretch of pure decodes: cost every step until the next event at once.
        if not chunks and (not waiting or running >= max_num_seqs):
            admit_at = next_arrival() if running < max_num_seqs else math.inf
            deadline = float(dec.deadline[:dec.n].min()) if timeout < math.inf else math.inf
            pieces = cost.decode_pieces(dec.n) if dec.synced == now else None
            fast = pieces and _closed_form_stretch(dec, pieces, block, kv_blocks, state, now, min(admit_at, deadline))
            if fast:
                now, count, last_seconds = fast[:3]
                segments.extend(fast[3])
                steps += count
                if fast[4]:  # it ran to the first completion
                    done = dec.ctx[:dec.n] >= dec.end[:dec.n]
                    release_decoders(~done, now, aborted=False)
                if progress is not None and steps % 512 < count:
                    progress(state["done"])
                continue
            jumped = _decode_stretch(dec, cost, layouts, g, block, kv_blocks, state, now, (admit_at, deadline),
                                     last_seconds)
            if jumped is not None:
                now, step_seconds = jumped
                last_seconds = float(step_seconds[-1])
                dec.gaps(now - float(step_seconds[1:].sum()), itl_values, itl_weights)
                itl_values.append(step_seconds[1:])
                itl_weights.append(dec.n)
                dec.synced = now
                steps += step_seconds.size
                done = dec.ctx[:dec.n] >= dec.end[:dec.n]
                if done.any():
                    release_decoders(~done, now, aborted=False)
                if progress is not None and steps % 512 < step_seconds.size:
                    progress(state["done"])
                continue

        if not chunks and all_linear:
            seconds = float(cost.decode_seconds(decoders, np.array([int(dec.ctx[:dec.n].sum()) + decoders]))[0])
        else:
            seconds = float(cost.seconds(_step_features(model, layouts, chunks, computed, dec, decoders)))
        last_seconds = seconds
        now += seconds

        steps += 1
        if decoders:
            state["used"] += int(np.count_nonzero(dec.ctx[:dec.n] % block == 0))
            dec.ctx[:dec.n] += 1
            dec.gaps(now, itl_values, itl_weights)
        for i, chunk in chunks:
            computed[i] += chunk
            if computed[i] < isl[i] + generated[i]:
                continue
            prefilling.remove(i)  # the prompt (and any recomputed output) is in cache: sample a token
            generated[i] += 1
            if generated[i] == 1:
                first_token[i] = now
            else:
                itl_values.append(now - last_token[i])
                itl_weights.append(1)
            if generated[i] >= target[i]:
                state["used"] -= held[i]
                finished(i, now)
            else:
                dec.add(i, computed[i], isl[i] + target[i] - 1, arrived[i] + timeout, order[i],
                        now)
        if dec.n:
            done = dec.ctx[:dec.n] >= dec.end[:dec.n]
            if done.any():
                release_decoders(~done, now, aborted=False)
        if progress is not None and steps % 512 == 0:
            progress(state["done"])

    timeline.append((now, 0, 0, state["used"]))
    if progress is not None:
        progress(state["done"])
    values, weights = _gaps(itl_values, itl_weights, segments)
    return Run(arrival, np.array(admitted), np.array(first_token), np.array(finish),
               np.array(generated, dtype=np.int64), target_tokens, np.array(timed_out, dtype=bool),
               np.array(preemptions, dtype=np.int64), values, weights,
               np.array(timeline, dtype=np.float64).reshape(-1, 4), steps, kv_blocks)


def _gaps(values: list, weights: list, segments: list) -> tuple[np.ndarray, np.ndarray]:
    """All inter-token gaps and their weights: scalars and arrays as recorded, and the arithmetic runs of the
    closed-form stretches expanded (first + increase × i for i < steps, each for `sequences` tokens)."""
    scalar = [(v, w) for v, w in zip(values, weights, strict=True) if np.ndim(v) == 0]
    arrays = [(v, w) for v, w in zip(values, weights, strict=True) if np.ndim(v) > 0]
    parts_v = [np.array([v for v, _ in scalar], dtype=np.float64)]
    parts_w = [np.array([w for _, w in scalar], dtype=np.int64)]
    for v, w in arrays:
        parts_v.append(np.asarray(v, dtype=np.float64))
        parts_w.append(np.broadcast_to(np.asarray(w, dtype=np.int64), np.shape(v)))
    if segments:
        first, increase, count, sequences = (np.array(c) for c in zip(*segments, strict=True))
        starts = np.repeat(np.cumsum(count) - count, count)
        index = np.arange(int(count.sum())) - starts
        parts_v.append(np.repeat(first, count) + np.repeat(increase, count) * index)
        parts_w.append(np.repeat(sequences, count))
    return np.concatenate(parts_v), np.concatenate(parts_w)


def _closed_form_stretch(dec: _Decoders, pieces, block, kv_blocks, state, now, event):
    """The decode stretch in closed form, when the step time is piecewise linear in the summed context
    (StepCost.decode_pieces): step j of the stretch has keys K + n·j, so on one piece its time is d0 + s·n·j and
    m steps take m·d0 + s·n·m(m−1)/2 — the step at which an event falls is the root of a quadratic. Returns
    (new time, steps, last step seconds, [(d0, s·n, steps, n) per piece crossed], ran to the first completion) or
    None when the KV cache could run out on the way (the vectorised stretch checks block by block)."""
    n = dec.n
    ctx = dec.ctx[:n]
    horizon = int((dec.end[:n] - ctx).min())
    if horizon < 1 or state["used"] + n * (horizon // block + 1) > kv_blocks:
        return None
    breaks, intercepts, slopes = pieces
    keys = float(ctx.sum()) + n  # Σ (context + 1) over the sequences, in the stretch's first step
    t, taken, segments, last = now, 0, [], 0.0
    while taken < horizon:
        p = bisect.bisect_right(breaks, keys)
        d0 = intercepts[p] + slopes[p] * keys
        rise = slopes[p] * n
        steps = horizon - taken
        if p < len(breaks):  # this piece ends where a row changes bound (or a table interval ends)
            steps = min(steps, int((breaks[p] - keys) // n) + 1)
        hit = event < math.inf and _steps_to_reach(event - t, d0, rise) <= steps
        if hit:
            steps = _steps_to_reach(event - t, d0, rise)
        segments.append((d0, rise, steps, n))
        t += steps * d0 + rise * steps * (steps - 1) / 2
        last = d0 + rise * (steps - 1)
        taken += steps
        keys += n * steps
        if hit:
            break
    before = int((-(-ctx // block)).sum())
    ctx += taken
    state["used"] += int((-(-ctx // block)).sum()) - before
    dec.synced = t
    return t, taken, last, segments, taken == horizon


def _steps_to_reach(gap: float, d0: float, rise: float) -> int:
    """The fewest steps m ≥ 1 with m·d0 + rise·m(m−1)/2 ≥ gap (the step during which the event falls)."""
    if gap <= d0:
        return 1
    if rise <= 0:
        m = math.ceil(gap / d0)
    else:
        a, b = rise / 2, d0 - rise / 2
        m = math.ceil((-b + math.sqrt(b * b + 4 * a * gap)) / (2 * a))
    m = max(m, 1)
    while m > 1 and (m - 1) * d0 + rise * (m - 1) * (m - 2) / 2 >= gap:  # float rounding: step back …
        m -= 1
    while m * d0 + rise * m * (m - 1) / 2 < gap:  # … or forward
        m += 1
    return m


def _step_features(model, layouts, chunks, computed, dec, decoders) -> np.ndarray:
    """The feature vector of a step with prefill chunks [(id, tokens)] and `decoders` decoding sequences."""
    g = len(layouts)
    x = np.zeros(model.feature_count)
    x[0] = 1.0
    for i, chunk in chunks:
        x[1] += chunk
        x[2] += 1
        for k, layout in enumerate(layouts):
            attended, read = sequence_keys(layout, chunk, computed[i])
            x[3 + 2 * k] += attended
            x[4 + 2 * k] += read
    if decoders:
        ctx = dec.ctx[:dec.n]
        x[3 + 2 * g] = decoders
        full = None
        for k, layout in enumerate(layouts):
            if layout.linear:  # a decode at context c attends to and reads c + 1 keys (decode_keys)
                full = int(ctx.sum()) + decoders if full is None else full
                x[4 + 2 * g + 2 * k] = x[5 + 2 * g + 2 * k] = full
            else:
                attended, read = decode_keys(layout, ctx)
                x[4 + 2 * g + 2 * k], x[5 + 2 * g + 2 * k] = attended.sum(), read.sum()
    return x


def _admitted(i, now, admitted, order, state, prefilling) -> None:
    if admitted[i] != admitted[i]:  # NaN: first admission
        admitted[i] = now
    state["admissions"] += 1
    order[i] = state["admissions"]
    prefilling.append(i)


def _chunk(i, budget, isl, generated, computed, held, state, kv_blocks, block) -> int:
    """Prefill tokens of sequence i this step: what is left of its prompt, within the budget and the free blocks
    (its blocks are allocated here)."""
    left = isl[i] + generated[i] - computed[i]
    chunk = min(left, budget)
    free_tokens = (kv_blocks - state["used"] + held[i]) * block - computed[i]
    chunk = max(0, min(chunk, free_tokens))
    if chunk:
        need = -(-(computed[i] + chunk) // block)
        state["used"] += need - held[i]
        held[i] = need
    return chunk


def _admit_whole(waiting, running, scheduler, isl, generated, cached, computed, held, state, kv_blocks, now,
                 admitted, order, prefilling, chunks) -> bool:
    """Without chunked prefill: admit whole prompts within the budget (one prompt alone may exceed it); True if
    this step is a prefill step."""
    budget = scheduler.max_batched_tokens
    block = scheduler.block_tokens
    while waiting and running < scheduler.max_num_seqs:
        i = waiting[0]
        left = isl[i] + generated[i] - cached[i]
        need = -(-(isl[i] + generated[i]) // block)
        if (chunks and left > budget) or state["used"] + need > kv_blocks:
            break
        waiting.popleft()
        computed[i] = cached[i]
        held[i] = need
        state["used"] += need
        _admitted(i, now, admitted, order, state, prefilling)
        chunks.append((i, left))
        budget -= left
        running += 1
    return bool(chunks)


def _decode_stretch(dec: _Decoders, cost, layouts, g, block, kv_blocks, state, now, events, last_seconds):
    """Run the decoders alone until the next event; (new time, the step times) or None if not even one step
    can run this way (a block is missing: the regular step preempts). `events`: times at which the stretch must
    stop (an admissible arrival, a deadline); last_seconds: the previous step's time, to size the horizon."""
    n = dec.n
    ctx = dec.ctx[:n]
    horizon = int((dec.end[:n] - ctx).min())  # the first completion ends the stretch
    if horizon < 1:
        return None
    soonest = min(events)
    if soonest < math.inf and last_seconds > 0:
        # Steps only grow as contexts do, so this many steps reach the event unless the batch got lighter; if
        # they do not, the stretch stops early and the next one carries on.
        horizon = min(horizon, max(4, int(1.5 * (soonest - now) / last_seconds) + 2))
    if any(not layout.linear for layout in layouts):
        horizon = max(1, min(horizon, _MAX_JUMP_CELLS // n))
    offsets = np.arange(horizon, dtype=np.int64)
    if state["used"] + n * (horizon // block + 1) <= kv_blocks:
        blocks, fits = None, horizon  # even every sequence crossing every boundary cannot overflow
    else:
        # KV blocks after step j: a sequence at context c = qB + r gains ⌊(s + j) / B⌋, s = r, or B when r = 0.
        residues = ctx % block
        residues[residues == 0] = block
        histogram = np.bincount(residues, minlength=block + 1)
        blocks = ((np.arange(block + 1)[None, :] + offsets[:, None]) // block) @ histogram + state["used"]
        fits = int(np.searchsorted(blocks > kv_blocks, True))  # steps that fit (blocks never decrease)
        if fits == 0:
            return None
        offsets = offsets[:fits]
    total = int(ctx.sum())
    if all(layout.linear for layout in layouts):
        seconds = cost.decode_seconds(n, total + n * (offsets + 1))
    else:
        x = np.zeros((fits, cost.model.feature_count))
        x[:, 0] = 1.0
        x[:, 3 + 2 * g] = n
        grid = ctx[None, :] + offsets[:, None]
        for k, layout in enumerate(layouts):
            attended, read = decode_keys(layout, grid)
            x[:, 4 + 2 * g + 2 * k], x[:, 5 + 2 * g + 2 * k] = attended.sum(axis=1), read.sum(axis=1)
        seconds = cost.seconds(x)
    ends = now + np.cumsum(seconds)
    stop = fits
    for event in events:
        if event < math.inf:
            stop = min(stop, int(ends.searchsorted(event, side="left")) + 1)
    if blocks is None:
        before = int((-(-ctx // block)).sum())
        dec.ctx[:n] += stop
        state["used"] += int((-(-dec.ctx[:n] // block)).sum()) - before
    else:
        dec.ctx[:n] += stop
        state["used"] = int(blocks[stop - 1])
    return float(ends[stop - 1]), seconds[:stop]
