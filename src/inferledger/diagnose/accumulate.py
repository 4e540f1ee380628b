"""Folding a stream of Records into constant memory: running statistics per metric, a timeline of at most
TIMELINE_BUCKETS buckets, and the flags the verdict rules read (queue, KV full, slow streams), whatever the log
length. The thresholds the flags use live here, each with its reason."""

from __future__ import annotations

import math
import re
from dataclasses import replace
from itertools import compress, repeat
from operator import add, contains, eq, is_not
from typing import NamedTuple

from inferledger.diagnose.named_model import names_mixture, names_recurrent
from inferledger.diagnose.records import PROGRESS_CAPACITY, Requests, Windows
from inferledger.diagnose.rules import limit, threshold

TIMELINE_BUCKETS = 48
MAX_SUMMARIES = 200
MAX_LINES = 8  # line numbers kept per piece of evidence
# What effective_bandwidth was read from when a llama-bench row's size came from its model's name (roofline judges it
# by the named rules' cutoffs).
NAMED_BANDWIDTH_SOURCE = "llama-bench: the model's size from its name × generation rate"
MIXTURE_BANDWIDTH_SOURCE = ("llama-bench: the share of the model size a mixture's step reads (its catalog config's "
                            "active experts) × generation rate")
FOLD_WINDOWS = 2048  # stats windows queued before they are folded a list at a time (_fold_windows)

# Thresholds and limits: the numbers live in rules.RULES and rules.LIMITS with their reasons; read once at import.
KV_FULL_FRACTION = threshold("windows-kv-full-waiting")
SLOW_STREAM_TOKENS_PER_SECOND = threshold("windows-slow-streams")
SMALL_BATCH = limit("small-batch")
# llama.cpp reads a prompt in micro-batches of n_ubatch tokens (default 512, llama-bench's too), one pass of the
# weights each: a pp<N> row is N / n_ubatch such passes.
LLAMA_CPP_UBATCH = 512
MAX_BENCH_STEPS = 10_000  # llama-bench rows kept for the roofline (a table is tens of rows): memory stays bounded
STARVED_TOKENS_PER_SECOND = limit("starved-stream")
PREFILL_HEAVY_RATIO = threshold("windows-prefill-heavy")
SLOW_TPOT_SECONDS = threshold("requests-slow-tpot-no-hardware")
SLOW_CPU_TPOT_SECONDS = threshold("requests-slow-tpot-cpu")
MAX_FINISHES = 10_000  # requests whose finish and latency are kept (bounded memory on any log length)
IMPOSSIBLE_TPOT_SECONDS = threshold("requests-impossible-tpot")
TTFT_ONE_PASS_SECONDS = threshold("summary-ttft-under-one-pass")
IMPOSSIBLE_FAST_TPOT_SECONDS = 1 / threshold("requests-impossible-generation-rate")
TINY_PROMPT_TOKENS = threshold("requests-tiny-prompt")
PROMPT_ONLY_TOKENS = threshold("requests-prompt-only")
PREFILL_SHARE_MIN_TOKENS = limit("prefill-share-min-prompt")
UNSTATED_PROMPT_SECONDS = limit("unstated-prompt-fast")
COLD_START_FRACTION = threshold("requests-cold-start")
NEGATIVE_FIGURE = threshold("requests-negative-figure")
LOAD_FITS_SLACK = limit("load-fits-slack")
ALL_AT_ONCE_RATE = threshold("summary-all-at-once")
QUEUE_MIN_SECONDS = threshold("requests-queue-dominant")
QUEUE_LONG_SECONDS = threshold("requests-queue-long")
PREFILL_SHARE = threshold("requests-prefill-share")
BENCH_PREFILL_SHARE = threshold("windows-bench-prefill-share")
PREFILL_HEALTHY_RATIO = limit("prefill-healthy-ratio")
PREFILL_DOMINANT_SHARE = limit("prefill-dominant-share")
PREFILL_HEALTHY_MIN_SECONDS = limit("prefill-healthy-min-seconds")
IMPOSSIBLE_PROMPT_RATE = threshold("requests-impossible-prompt-rate")
PARTS_MISMATCH = threshold("requests-parts-mismatch")
PROMPT_SLOWER_THAN_DECODE = threshold("requests-prompt-slower-than-decode")
RATE_CONTRADICTS = threshold("requests-rate-contradicts-time")
SLOW_PROMPT_RATIO = threshold("requests-slow-prompt-rate")
CEILING_MIN_OUTPUT = limit("ceiling-min-output")
SLOW_PROMPT_MIN_TOKENS = limit("slow-prompt-min-tokens")
SLOW_PROMPT_MIN_STEPS = limit("slow-prompt-min-steps")
SLOW_PROMPT_SHARE = limit("slow-prompt-share")
BENCH_TESTS_MAX = 4096  # llama-bench tests kept for comparison (Accumulator.bench_tests): constant memory
BENCH_SOURCES = ("llamacpp.bench", "llamacpp.batched-bench")  # a runner's bench rows (llama-bench, sweep-bench)
_INTERVAL_AVERAGED = ("vllm.", "sglang.")  # sources whose window rates average over the time since the last line
PREFILL_GAP_MIN_TOKENS = limit("prefill-gap-min-tokens")
PREFILL_GAP_MIN_SECONDS = limit("prefill-gap-min")
PARTS_MISMATCH_MIN_SECONDS = limit("parts-mismatch-min")


def _prefill_dominates(prefill: float, decode: float, prompt_rate, generation_rate) -> bool:
    """A bench row timing both phases of one request shape (T_PP, T_TG): its prompt phase takes BENCH_PREFILL_SHARE of
    the row or more, PREFILL_DOMINANT_SHARE where the prompt is read at a healthy rate (PREFILL_HEALTHY_RATIO × the
    generation rate or more: then it is a long prompt, as for a request's own prompt eval and eval times). A rate
    the row does not state is None."""
    healthy = (prompt_rate or 0.0) >= PREFILL_HEALTHY_RATIO * (math.inf if generation_rate is None else generation_rate)
    return prefill >= (PREFILL_DOMINANT_SHARE if healthy else BENCH_PREFILL_SHARE) * (prefill + decode) > 0


class BenchPrompt(NamedTuple):
    """A llama-bench pp<N> row kept for the prefill judgements (Accumulator._note_bench_prompt)."""

    rate: float  # prompt tok/s
    tokens: int  # the test's prompt tokens (N)
    ubatch: int  # the micro-batch the runner reads the prompt in
    parameters: float  # the parameters a token computes with (a mixture's active ones)
    weights_bytes: float  # their weights' bytes
    line: int
    mixture_total: float | None  # a mixture's total parameters, None for a dense model


class Running:
    """count, mean, min, max, first, last of a stream of numbers, plus where the max was."""

    __slots__ = ("count", "total", "low", "high", "first", "last", "high_line")

    def __init__(self):
        self.count = 0
        self.total = 0.0
        self.low = math.inf
        self.high = -math.inf
        self.first = None
        self.last = None
        self.high_line = None

    def add(self, value: float, line: int | None = None) -> None:
        if value != value:  # NaN carries no information
            return
        if not self.count:
            self.first = value
        self.count += 1
        self.total += value
        if value < self.low:
            self.low = value
        if value > self.high:
            self.high = value
            self.high_line = line
        self.last = value

    def extend(self, values, lines) -> None:
        """add() for each value (a float64 array) at the line of the same index (an int array) in turn, at C speed:
        the same numbers. np.add.accumulate adds in order, as add() does (np.sum adds pairwise: other roundings);
        min/max take the first of equal values (-0.0 and 0.0), as the strict comparisons do. Values whose sum is NaN
        (a NaN among them, or inf and -inf) go value by value, which skips NaN as add() does."""
        import numpy as np

        if not len(values):
            return
        with np.errstate(invalid="ignore", over="ignore"):  # inf - inf is NaN, handled below; overflow is inf
            total = np.add.accumulate(np.concatenate(([self.total], values)))[-1].item()
        if total != total:
            for value, line in zip(values.tolist(), lines.tolist(), strict=True):
                self.add(value, line)
            return
        if not self.count:
            self.first = values[0].item()
        self.count += len(values)
        self.total = total
        low = values.min()
        if low < self.low:
            self.low = values[np.argmax(values == low)].item()
        high = values.max()
        if high > self.high:
            index = np.argmax(values == high)
            self.high = values[index].item()
            self.high_line = lines[index].item()
        self.last = values[-1].item()

    @property
    def mean(self) -> float | None:
        return self.total / self.count if self.count else None

    def to_dict(self) -> dict:
        if not self.count:
            return {"count": 0}
        return {"count": self.count, "mean": self.mean, "min": self.low, "max": self.high, "first": self.first,
                "last": self.last}


_TIMELINE_METRICS = ("prompt_tokens_per_second", "generation_tokens_per_second", "running_requests",
                     "waiting_requests", "kv_cache_usage_fraction")
_TIMELINE_SLOTS = tuple(enumerate(_TIMELINE_METRICS))


class Timeline:
    """Interval records folded into at most TIMELINE_BUCKETS buckets; when full, neighbours merge pairwise.

    A bucket is a list [records, first_line, last_line, start_seconds, end_seconds, sums, counts, maxes] with one
    slot per _TIMELINE_METRICS entry (lists, not dicts: this runs once per stats line of a multi-GB log)."""

    def __init__(self):
        self.width = 1  # records per bucket
        self.buckets: list[list] = []

    def extend(self, windows, columns: dict) -> None:
        """Fold these windows (records.Windows, their metrics as _column arrays in `columns`) in, in order: what one
        add per window would give, a bucket's worth at a time (the sums by np.add.accumulate, adding in the same
        order; the max the first of the bucket's own largest, so a NaN is never kept)."""
        import numpy as np

        lines, stamps = windows.lines, windows.stamps
        slots = [(index, columns[name]) for index, name in _TIMELINE_SLOTS if name in columns]
        done = 0
        total = len(lines)
        while done < total:
            buckets = self.buckets
            if not buckets or buckets[-1][0] >= self.width:
                if len(buckets) >= TIMELINE_BUCKETS:
                    self._halve()
                    buckets = self.buckets
                if not buckets or buckets[-1][0] >= self.width:
                    buckets.append([0, lines[done], lines[done], stamps[done], stamps[done], [0.0] * 5, [0] * 5,
                                    [-math.inf] * 5])
            bucket = buckets[-1]
            end = min(total, done + self.width - bucket[0])
            bucket[0] += end - done
            bucket[2] = lines[end - 1]
            first = next((stamp for stamp in stamps[done:end] if stamp is not None), None)
            if first is not None:
                if bucket[3] is None:
                    bucket[3] = first
                bucket[4] = next(stamp for stamp in reversed(stamps[done:end]) if stamp is not None)
            sums, counts, maxes = bucket[5], bucket[6], bucket[7]
            for index, (values, stated) in slots:
                values = values[done:end] if stated is None else values[done:end][stated[done:end]]
                if len(values):
                    with np.errstate(invalid="ignore", over="ignore"):
                        sums[index] = np.add.accumulate(np.concatenate(([sums[index]], values)))[-1].item()
                    counts[index] += len(values)
                    values = values[~np.isnan(values)]
                    if len(values):
                        high = values.max()
                        if high > maxes[index]:
                            maxes[index] = values[np.argmax(values == high)].item()
            done = end

    def _halve(self) -> None:
        merged = []
        for index in range(0, len(self.buckets), 2):
            pair = self.buckets[index:index + 2]
            first = [pair[0][0], pair[0][1], pair[0][2], pair[0][3], pair[0][4], list(pair[0][5]), list(pair[0][6]),
                     list(pair[0][7])]
            for other in pair[1:]:
                first[0] += other[0]
                first[2] = other[2]
                if other[4] is not None:
                    first[4] = other[4]
                    if first[3] is None:
                        first[3] = other[3]
                for slot in range(5):
                    first[5][slot] += other[5][slot]
                    first[6][slot] += other[6][slot]
                    first[7][slot] = max(first[7][slot], other[7][slot])
            merged.append(first)
        self.buckets = merged
        self.width *= 2

    def to_list(self) -> list[dict]:
        rows = []
        for records, first_line, last_line, start, end, sums, counts, maxes in self.buckets:
            row = {"records": records, "first_line": first_line, "last_line": last_line, "start_seconds": start,
                   "end_seconds": end}
            for index, name in enumerate(_TIMELINE_METRICS):
                if counts[index]:
                    row[f"{name}_mean"] = sums[index] / counts[index]
                    row[f"{name}_max"] = maxes[index]
            rows.append(row)
        return rows


class _Lines:
    """A count with the first few line numbers (and files) where something was seen."""

    __slots__ = ("count", "lines", "file")

    def __init__(self):
        self.count = 0
        self.lines: list[int] = []
        self.file = ""

    def add(self, line: int, file: str) -> None:
        self.count += 1
        if len(self.lines) < MAX_LINES:
            self.lines.append(line)
            self.file = self.file or file

    def extend(self, lines: list, file: str, count: int | None = None) -> None:
        """add(line, file) for each line in turn; `count` lines when only the first of them are given."""
        self.count += len(lines) if count is None else count
        room = MAX_LINES - len(self.lines)
        if lines and room > 0:
            self.lines.extend(lines[:room])
            self.file = self.file or file


def _column(values: list, count: int) -> tuple:
    """(floats, stated) of a metric's column: a float64 array, NaN where a window does not state the metric (None),
    and a bool array of where it does (None when every window does: no None, and no NaN read as one)."""
    import numpy as np

    array = np.fromiter(values, float, count)
    nan = np.isnan(array)
    if not nan.any():
        return array, None
    # Every None is a NaN: as many None as NaN (counted at C speed) means the NaNs are exactly the Nones.
    if values.count(None) == np.count_nonzero(nan):
        return array, ~nan
    return array, np.fromiter(map(is_not, values, repeat(None)), bool, count)


# The metrics every row states for Accumulator._request_columns (graphs_reused may be stated or not, the context by
# every row or by none: a 2025 llama-server states none), and those a one-token request sets aside.
_ROW_METRICS = {"prefill_seconds", "input_tokens", "prompt_tokens_per_second", "decode_seconds", "output_tokens",
                "generation_tokens_per_second", "tpot_seconds", "e2e_seconds"}
_ONE_TOKEN_DROPS = ("tpot_seconds", "generation_tokens_per_second")


def _sum_in_order(total: float, values) -> float:
    """total + values[0] + values[1] + …, added in order (np.add.accumulate) as a Python loop adds them."""
    import numpy as np

    if not len(values):
        return total
    return np.add.accumulate(np.concatenate(([total], values)))[-1].item()


def _folded_view(name: str, doc: str) -> property:
    """A read-only Accumulator attribute read with every window read so far folded in (Accumulator._folded)."""
    return property(lambda accumulator: getattr(accumulator._folded(), name), doc=doc)


def _finite(record):
    """The record with its non-finite figures (a `nan` median, an `inf` a table printed) left out: each rule reads a
    figure as a measurement, and no measurement is infinite or not a number."""
    metrics = record.metrics
    if all(map(math.isfinite, metrics.values())):
        return record
    return replace(record, metrics={name: value for name, value in metrics.items() if math.isfinite(value)})


class Accumulator:
    """Folds Records from one or more files into the statistics the verdict rules read."""

    def __init__(self):
        self._interval_stats = {}  # metric -> Running, over server-stats windows (live, not snapshots); `interval`
        self._unfolded = Windows()  # stats windows not yet in _interval_stats, the timeline, the flags (_fold_windows)
        self._unfolded_file = ""  # the file they come from
        self.snapshot = {}  # metric -> Running, over Prometheus gauge snapshots
        self._per_stream = Running()  # `per_stream`: generation tok/s per running request, windows with running > 0
        self._bench_stream = Running()  # `bench_stream`: the same, of llama.cpp's bench rows (BENCH_SOURCES) only
        self._timeline = Timeline()  # `timeline`: the windows waiting in _unfolded are folded in when read
        self.requests = {}  # metric -> Running
        self.summaries: list = []  # (record, file)
        self.capacity = {}  # metric -> (value, line, file, source)
        self.events = {}  # metric -> total (deduplicated)
        self.event_lines = {}  # metric -> _Lines
        self._event_keys = set()
        self._event_second = None
        self.preemptions_total = Running()
        self._flags = {name: _Lines() for name in (  # `flags`: windows waiting in _unfolded folded in when read
            "waiting", "kv_full", "kv_full_waiting", "swapped", "prefill_heavy", "slow_small_batch", "starved",
            "busy", "prompt_slower_than_decode", "ttft_zero", "ttft_under_one_pass", "ttft_ge_e2e", "prefill_zero", "cold_start",
            "tiny_prompt", "queue_dominant", "queue_long", "slow_tpot", "slow_tpot_cpu", "kv_full_no_queue", "prefill_share",
            "impossible_prompt_rate", "parts_mismatch", "parts_exceed_total", "troubled", "arrival", "stalled", "clean", "clean_but_queued", "slow_tpot_bound",
            "slow_prompt", "slow_prompt_short", "rate_contradicts_time", "prompt_artifact_minor", "prefill_gap",
            "bench_rows_timed", "bench_prefill_share", "impossible_tpot", "one_token", "negative_figure", "impossible_fast")}
        self.tpot_bound = Running()  # e2e ÷ (prompt + output) of requests stating no step time, where ≥ the cutoff
        self.tpot_ceiling = Running()  # e2e ÷ output of requests stating no step time: the step is at most this
        # prompt eval + eval of the requests stating both, and of those flagged prefill_share: the time-weighted share
        self.compute_seconds = 0.0
        self.prefill_share_compute_seconds = 0.0
        self._last_window = None  # (running, waiting) of the last stats window folded, for _arrivals
        self._last_prefill = None  # (tokens, stamp, line, file) of a last SGLang prefill awaiting its next line
        self.prefill_gap_rate = Running()  # SGLang prompt tokens ÷ time to the next decode line (_prefill_gaps)
        self.prefill_gap_slowest = None  # (tokens, seconds) of the slowest of them
        self._last_window_file = None
        self.parts_gap = Running()  # total − (load + prefill + decode), per request that states all four
        self.effective_bandwidth = Running()  # llama-bench: weights bytes × tg tok/s (each step reads all weights)
        self.bandwidth_source = "llama-bench: model size × generation rate"  # what effective_bandwidth was read from
        # The same with the most a step may read, where that is a range (a mixture named without its active size);
        # empty when every step's read is known.
        self.effective_bandwidth_high = Running()
        # llama-bench: line -> (tg tok/s, total parameters, a mixture?) of the rows effective_bandwidth read, so the
        # roofline can charge the fastest row's step its layers' fixed cost (named_model.step_fixed_seconds)
        self.bench_steps = {}
        # llama-bench pp rows on a GPU (BenchPrompt), for the prefill judgements (roofline._bench_prefill_findings,
        # windows-prompt-compute-sound)
        self.bench_prompts = []
        self.batched_generation = {}  # (file, pp, tg) -> {batch: (total generation tok/s, line)} (llama-batched-bench)
        self.bench_unsplit_lines = set()  # llama-bench rows of a mixture no catalogued config splits
        self.bench_slowest = None  # (bandwidth reached, line, tok/s) of the slowest GPU row (_note_slowest)
        self.bench_cpu_rows = 0  # llama-bench generation rows that ran on the CPU (effective_bandwidth's among them)
        self.bench_settings = {}  # model -> the settings of its rows _note_slowest kept
        self.depth_generation = {}  # llama-bench -d: context tokens -> Running of tg tok/s at that depth
        self.depth_prompt = {}  # and of pp tok/s
        # llama-bench: (file, model, test, settings, machine) -> [(rate, line)], the same test of one model under the
        # same settings on one machine, run by each build a file shows (bench-same-test-slower); at most BENCH_TESTS_MAX
        # keys
        self.bench_tests = {}
        self.rank = {}  # source -> the rank kept (one rank's view per source)
        self.sources = {}  # source -> record count
        self.labels = {}  # label notes worth showing (definitions, engines)
        self.files = []
        self.records = 0
        self.names_only = 0  # records that only name the model file or its format (a command line): nothing to judge
        self.weight_formats = {}  # file -> {line: (bits a weight, model)} its head states, where it has runs to compare
        self.interval_count = 0
        self.request_count = 0
        self.finishes: list = []  # (finish epoch, E2E seconds, line, file) of requests a server's access log times
        self.request_models = set()  # the models requests name (a file of several is no one model's requests in turn)
        self.last_interval_timestamp = {}

    def stated_degree(self, metric: str) -> int | None:
        """A parallel degree the log states (tensor_parallel_size, pipeline_parallel_size, …) when it is a whole number
        of one or more, else None."""
        held = self.capacity.get(metric)
        return int(held[0]) if held is not None and held[0] >= 1 and float(held[0]).is_integer() else None

    # -- folding -------------------------------------------------------------------------------------------------
    def _folded(self) -> Accumulator:
        """This accumulator with every window read so far folded in: what the readers' properties below read."""
        if self._unfolded:
            self._fold_windows()
        return self

    interval = _folded_view("_interval_stats", "metric -> Running over the server-stats windows.")
    timeline = _folded_view("_timeline", "The timeline of the server-stats windows.")
    flags = _folded_view("_flags", "name -> _Lines: where each finding was seen.")
    per_stream = _folded_view("_per_stream", "Generation tok/s per running request, windows with running > 0.")
    bench_stream = _folded_view("_bench_stream", "per_stream of the bench rows (BENCH_SOURCES) alone.")

    def _fold_windows(self) -> None:
        """Fold the waiting windows (all from the file _unfolded_file) into the timeline, the flags and their
        metrics' Running, a metric at a time over numpy columns: the same numbers as Running.add window by window."""
        import numpy as np

        windows = self._unfolded
        self._unfolded = Windows()
        count = len(windows)
        at = np.array(windows.lines)
        columns = {name: _column(values, count) for name, values in windows.metrics.items()}
        self._timeline.extend(windows, columns)
        self._flag_windows(windows, columns, at, self._unfolded_file)
        stats = self._interval_stats
        for name, (values, stated) in columns.items():
            held = stats.get(name)
            if held is None:
                held = stats[name] = Running()
            if stated is None:
                held.extend(values, at)
            else:  # a metric some windows lack (a V0-only field in a mixed log): those holding it
                held.extend(values[stated], at[stated])

    def _flag_windows(self, windows: Windows, columns: dict, at, file: str) -> None:
        """What each window says (queue, KV full, slow streams), a flag at a time over the columns (_column arrays,
        `at` the windows' lines); each flag gets the windows' lines in order, as one add per window would give.
        Comparisons read a NaN as Python does (false)."""
        import numpy as np

        flags = self._flags
        lines, sources = windows.lines, windows.sources
        count = len(lines)

        def column(name: str, absent: float | None):
            """(values, stated): the metric's values, `absent` (NaN when None) where a window does not state it, and
            where it does."""
            values, stated = columns.get(name, (None, None))
            if values is None:
                return np.full(count, np.nan if absent is None else absent), np.zeros(count, bool)
            if stated is None:
                return values, np.ones(count, bool)
            if absent is not None:
                values = values.copy()
                values[~stated] = absent
            return values, stated

        def flag(name: str, mask) -> None:
            found = np.flatnonzero(mask)
            flags[name].extend(at[found[:MAX_LINES]].tolist(), file, len(found))

        running, _ = column("running_requests", 0.0)
        waiting, _ = column("waiting_requests", 0.0)
        kv, _ = column("kv_cache_usage_fraction", None)
        generation, generation_stated = column("generation_tokens_per_second", None)
        prompt, _ = column("prompt_tokens_per_second", 0.0)
        swapped, _ = column("swapped_requests", 0.0)
        with np.errstate(invalid="ignore", divide="ignore", over="ignore"):  # (a rate past a float's range is inf)
            busy = (running > 0) | (waiting > 0)
            # One request waiting while nothing runs and no prompt is read is in transit (arrived at the snapshot, its
            # KV still on the way from a prefill node), not waiting for a slot; more than one is a stall.
            queued = (waiting > 0) & ((running > 0) | (prompt > 0) | (waiting > 1))
            full = kv >= KV_FULL_FRACTION  # NaN (not stated) is never full
            flag("busy", busy)
            flag("waiting", queued)
            flag("kv_full", full)
            flag("kv_full_waiting", full & queued)
            flag("kv_full_no_queue", full & ~queued & (running > 0))
            flag("swapped", swapped > 0)
            self._prefill_gaps(windows, file)
            # Bench rows that time both phases of one request (llama-batched-bench, llama-sweep-bench: T_PP, T_TG).
            prefill, decode = windows.metrics.get("prefill_seconds"), windows.metrics.get("decode_seconds")
            if prefill is not None and decode is not None:
                timed = [i for i in range(count) if prefill[i] is not None and decode[i] is not None]
                flags["bench_rows_timed"].extend([lines[i] for i in timed], file)
                rates = windows.metrics.get("prompt_tokens_per_second") or [None] * count
                stated_generation = windows.metrics.get("generation_tokens_per_second") or [None] * count
                flags["bench_prefill_share"].extend([lines[i] for i in timed if _prefill_dominates(
                    prefill[i], decode[i], rates[i], stated_generation[i])], file)
            arrival = self._arrivals(sources, running, waiting, prompt, generation, generation_stated, file)
            flag("arrival", arrival)
            streams = (running > 0) & generation_stated & ~arrival
            if "llamacpp.batched-bench" in sources:  # B sequences at once: a batch's rate, not a stream's speed
                streams &= ~(np.array([source == "llamacpp.batched-bench" for source in sources]) & (running > 1))
            # A bench row that times its phases apart (T_PP, T_TG) states its generation rate undiluted by its prompt.
            phases_apart = column("prefill_seconds", None)[1] & column("decode_seconds", None)[1]
            no_prompt_load = (prompt < generation) | phases_apart
            # Requests held and nothing produced: a hang, or one step longer than the window.
            stalled = streams & (generation == 0) & (prompt == 0)
            flag("stalled", stalled)
            rate = np.divide(generation, running, where=streams, out=np.full(count, np.nan))
            self._per_stream.extend(rate[streams], at[streams])
            if any(source.startswith(BENCH_SOURCES) for source in set(sources)):
                benched = streams & np.array([source.startswith(BENCH_SOURCES) for source in sources])
                self._bench_stream.extend(rate[benched], at[benched])
            # Every finding below needs a slow stream (a NaN rate is none); the first that holds is the window's.
            judged = streams
            llama_bench = np.zeros(count, bool)
            if "llamacpp.bench" in sources:  # a bench row run on the CPU (no layer offloaded): a CPU's cutoff
                llama_bench = np.array([source == "llamacpp.bench" for source in sources])
                on_cpu = np.array([labels.get("device") == "cpu" for labels in windows.labels])
                judged = streams & (~on_cpu | (rate < 1 / SLOW_CPU_TPOT_SECONDS))
            slow = judged & (rate < SLOW_STREAM_TOKENS_PER_SECOND)
            prefill_heavy = slow & ~phases_apart & (prompt >= PREFILL_HEAVY_RATIO * np.maximum(generation, 1.0))
            small_batch = slow & ~prefill_heavy & no_prompt_load & (running <= SMALL_BATCH)
            starved = judged & (rate < STARVED_TOKENS_PER_SECOND) & ~prefill_heavy & ~small_batch & no_prompt_load
            flag("prefill_heavy", prefill_heavy)
            flag("slow_small_batch", small_batch)
            flag("starved", starved)
            # Windows with any finding: the rest can support "healthy".
            troubled_apart_from_queue = full | (swapped > 0) | stalled | prefill_heavy | small_batch | starved
            troubled = queued | troubled_apart_from_queue
            flags["troubled"].count += int(troubled.sum())
            # Busy windows that are neither an arrival nor troubled: what "healthy" rests on. A llama-bench test is a
            # measurement, not a served window: judged slow or not, its health is read from its bandwidth instead.
            # A request in transit while nothing runs and nothing is read or generated (a start-up's first request)
            # shows no serving at all: no window of health either.
            unserved = (running == 0) & (prompt == 0) & ~(generation > 0)
            flag("clean", busy & ~arrival & ~troubled & ~llama_bench & ~unserved)
            # Clean but for a queue: what "healthy" may rest on when the log's queue is a full batch's short one.
            flag("clean_but_queued", busy & ~arrival & queued & ~troubled_apart_from_queue & ~llama_bench & ~unserved)

    def _prefill_gaps(self, windows: Windows, file: str) -> None:
        """SGLang prints a Prefill batch line when a prefill is scheduled and its next Decode line after the prefill
        and a few decode steps: the time between the two stamps bounds the prefill from above. Prompts of
        PREFILL_GAP_MIN_TOKENS or more whose next line comes PREFILL_GAP_MIN_SECONDS or more later are kept, as
        prompt tok/s (tokens ÷ gap, a lower bound of the prompt rate); the last prefill carries to the next batch."""
        previous = self._last_prefill if self._last_prefill is not None and self._last_prefill[3] == file else None
        sources, stamps, lines = windows.sources, windows.stamps, windows.lines
        if previous is None and "sglang.prefill" not in sources:
            return
        batch_tokens = windows.metrics.get("batch_tokens") or [None] * len(lines)
        count = len(sources)
        # Only a prefill row, and the row right after it, matter: those rows are visited, not every window; and of
        # those only a decode row stamped PREFILL_GAP_MIN_SECONDS or more after its prefill (the others change
        # nothing: `previous` is set anew from each prefill row), picked by a comprehension (few in a busy log).
        after = [i for i in map(add, compress(range(count), map(eq, sources, repeat("sglang.prefill"))), repeat(1))
                 if i < count and sources[i] == "sglang.decode" and stamps[i] is not None
                 and stamps[i - 1] is not None and stamps[i] - stamps[i - 1] >= PREFILL_GAP_MIN_SECONDS]
        for i in ([0] if previous is not None else []) + after:
            if i > 0:
                tokens, stamp = batch_tokens[i - 1], stamps[i - 1]
                previous = (tokens, stamp, lines[i - 1], file) if tokens and tokens >= PREFILL_GAP_MIN_TOKENS \
                    and stamp is not None else None
            if i == count or previous is None or sources[i] != "sglang.decode":
                continue
            tokens, stamp, line, _file = previous
            now = stamps[i]
            if now is not None and now - stamp >= PREFILL_GAP_MIN_SECONDS:
                rate = tokens / (now - stamp)
                if not rate >= self.prefill_gap_rate.low:
                    self.prefill_gap_slowest = (tokens, now - stamp)
                self.prefill_gap_rate.add(rate, line)
                self._flags["prefill_gap"].add(line, file)
        # What carries to the next batch: the last row, when it is a prefill that counts.
        if count:
            tokens, stamp = batch_tokens[-1], stamps[-1]
            self._last_prefill = (tokens, stamp, lines[-1], file) if sources[-1] == "sglang.prefill" and tokens \
                and tokens >= PREFILL_GAP_MIN_TOKENS and stamp is not None else None

    def _arrivals(self, sources: list, running, waiting, prompt, generation, generation_stated, file: str):
        """Windows in which the running requests arrived (a numpy mask): vLLM and SGLang average a window's rates over
        its whole interval (since their last stats or decode line), so a window that follows an idle one, or opens
        the file with one or two requests mostly reading their prompt, holds time before they came: its generation
        rate is not a stream's speed. The last window's state carries over to the next batch of the same file."""
        import numpy as np

        count = len(sources)
        if not count:
            return np.zeros(0, bool)
        kinds = {source: source.startswith(_INTERVAL_AVERAGED) for source in set(sources)}
        averaged = np.fromiter(map(kinds.__getitem__, sources), bool, count)
        idle_before = np.empty(count, bool)  # the window before held no request, running or waiting
        idle_before[1:] = (running[:-1] == 0) & (waiting[:-1] == 0)
        previous = self._last_window if self._last_window_file == file else None
        if previous is not None:
            idle_before[0] = previous[0] == 0 and previous[1] == 0
        else:  # the excerpt's first window: one or two requests reading their prompt, or not begun
            held, read, made = running[0], prompt[0], generation[0]
            idle_before[0] = held <= 2 and (0 < read and (not generation_stated[0] or made < read)
                                            or made == 0 == read)
        self._last_window, self._last_window_file = (running[-1].item(), waiting[-1].item()), file
        return (running > 0) & averaged & idle_before

    def add(self, record, file: str = "") -> None:
        self.records += 1
        if not record.metrics and ("model" in record.labels or "weights_format" in record.labels):
            self.names_only += 1
        source = record.source
        seen = self.sources.get(source)
        self.sources[source] = 1 if seen is None else seen + 1
        if seen is None or record.kind != "interval":
            self._note_labels(record.labels)
        kind = record.kind
        if kind == "interval":
            self._interval(record, file)
        elif kind == "request":
            self._request(record, file)
        elif kind == "summary":
            if len(self.summaries) < MAX_SUMMARIES:
                self.summaries.append((_finite(record), file))
        elif kind == "capacity":
            for name, value in _finite(record).metrics.items():
                if name not in self.capacity or (name in PROGRESS_CAPACITY and value > self.capacity[name][0]):
                    self.capacity[name] = (value, record.line_number, file, record.source)
        elif kind == "event":
            self._event(record, file)

    def _note_slowest(self, reached: float, record, rate: float) -> None:
        """Keep the row that reached the least bandwidth, a CPU row aside (its memory is not the card's) and a
        mixture's (its read is a range); and each model's settings (llama-bench's columns): one model run with
        several makes the table a comparison of settings (an offload against none), not of models."""
        if record.labels.get("device") == "cpu" or str(record.labels.get("backend", "")).lower() in ("cpu", "blas") \
                or "decode_weights_bytes_high" in record.metrics \
                or record.metrics.get("decode_weights_bytes", math.inf) < record.metrics.get("weights_bytes", 0.0):
            return
        self.bench_settings.setdefault(record.labels.get("model"), set()).add(record.labels.get("settings"))
        if self.bench_slowest is None or reached < self.bench_slowest[0]:
            self.bench_slowest = (reached, record.line_number, rate)

    def _note_bench_prompt(self, record) -> None:
        """Keep a llama-bench `pp<N>` row of a transformer that ran on a GPU (a recurrent model's prompt is a scan; a
        CPU row's compute is not the card's). A mixture of experts' row is kept when its active parameters are known
        (`30B.A3B`, or the catalogued mixture of its total): a prompt token computes with those, its bits a weight
        from their share of the file."""
        metrics, labels = record.metrics, record.labels
        rate, test = metrics.get("prompt_tokens_per_second"), labels.get("test", "")
        tokens = re.match(r"pp\s*([1-9]\d*)$", test.split("@")[0].strip())  # (a `pp0` test reads no prompt)
        mixture = "decode_weights_bytes" in metrics or "decode_weights_bytes_high" in metrics \
            or names_mixture(labels.get("model", ""))
        # The size and parameter columns, else what the model cell names (compare-llama-bench drops the columns)
        parameters = metrics.get("prompt_parameters") if mixture else \
            metrics.get("parameters") or metrics.get("named_parameters")
        weights = metrics.get("decode_weights_bytes") or metrics.get("named_weights_bytes") if mixture else \
            metrics.get("weights_bytes") or metrics.get("named_weights_bytes")
        # (experts kept on the CPU, `n_cpu_moe` or an `-ot` override, run there: not the card's compute)
        offloaded = labels.get("n_cpu_moe", "0").strip() not in ("", "0") or labels.get("ot", "").strip()
        if rate is None or tokens is None or labels.get("device") == "cpu" or not weights or not parameters or offloaded \
                or len(self.bench_prompts) >= MAX_BENCH_STEPS or names_recurrent(labels.get("model", "")):
            return
        ubatch = labels.get("n_ubatch", "")
        total = metrics.get("parameters") or metrics.get("named_parameters") if mixture else None
        self.bench_prompts.append(BenchPrompt(rate, int(tokens.group(1)), int(ubatch) if ubatch.strip().isdigit()
                                              and int(ubatch) > 0 else LLAMA_CPP_UBATCH, parameters, weights,
                                              record.line_number, total))

    def _note_labels(self, labels: dict) -> None:
        """The label notes worth showing (definitions, engines) a record's labels hold that none before held."""
        for key in ("engine", "tool", "ttft_definition", "ttft_includes_reasoning", "tpot_includes_prefill",
                    "throughput_definition", "input_tokens_definition", "model", "gpu", "backend", "prefix_caching",
                    "device_named", "version", "failure", "server", "weights_format", "experts_on_cpu",
                    "speculative"):
            if key in labels and key not in self.labels:
                value = labels[key]
                if key == "backend":
                    # What the log calls its backend (llama-bench column, runner library): CPU is evidence.
                    self.labels["backend_name"] = str(value)
                    named = str(value).strip().lower()
                    # Metal (llama-bench's `Metal,BLAS`, `MTL`, ollama's library=metal): an Apple chip's unified memory
                    value = "cpu" if named in ("cpu", "blas", "cpu_aarch64") else "apple" \
                        if named.startswith(("metal", "mtl")) else "gpu"
                self.labels[key] = value

    def add_all(self, records, file: str = "") -> None:
        """add(record, file) for each record in turn. The usual record, a stats window of a source already seen in
        this file, takes a short path: no labels to note, no snapshot, no weights, only its rank checked and the
        window queued for _fold_windows (a method call and a dozen tests per window cost as much as parsing it).
        A records.Windows block (the reader's usual stats lines, as columns) is queued whole (add_windows)."""
        sources = self.sources
        ranks = self.rank
        for record in records:
            if type(record) is Windows:
                self.add_windows(record, file)
                continue
            if type(record) is Requests:
                self.add_requests(record, file)
                continue
            source = record.source
            seen = sources.get(source)
            if seen is not None and record.kind == "interval" and file == self._unfolded_file \
                    and source != "llamacpp.batched-bench":  # (its rows by batch: _interval keeps them apart)
                labels = record.labels
                metrics = record.metrics
                if "snapshot" not in labels and "weights_bytes" not in metrics \
                        and "context_depth_tokens" not in metrics \
                        and ("running_requests" in metrics or "generation_tokens_per_second" in metrics):
                    self.records += 1
                    sources[source] = seen + 1
                    rank = labels.get("rank")
                    if rank is not None and ranks.setdefault(source, rank) != rank:
                        continue  # another rank's view of the same window (_keep_rank)
                    self.interval_count += 1
                    unfolded = self._unfolded
                    unfolded.append(record)
                    if len(unfolded) >= FOLD_WINDOWS:
                        self._fold_windows()
                    continue
            self.add(record, file)

    def add_requests(self, requests: Requests, file: str = "") -> None:
        """add_all(requests.records(), file) without a Record each: its windows queued whole (add_windows), then its
        requests folded a column at a time (_request_columns; a row at a time where it cannot). Windows and requests
        touch apart statistics, so only the order their sources are first seen in, and the labels first noted, tell
        the two orders apart: the rows up to the first of each source not seen yet take the record path."""
        sources = self.sources
        windows = requests.windows
        firsts = [windows.lines[windows.sources.index(source)] for source in set(windows.sources) - sources.keys()]
        if requests.source not in sources and requests.lines:
            firsts.append(requests.lines[0])
        if firsts:
            head, requests = requests.split(max(firsts) + 1)
            self.add_all(head.records(), file)
            if not requests and not requests.windows:
                return
        if requests.windows:
            self.add_windows(requests.windows, file)
        count = len(requests)
        self.records += count
        sources[requests.source] += count
        labels = requests.labels  # the labels of every row that the statistics read (Requests.row_labels: none)
        self._note_labels(labels)
        if not self._request_columns(requests, file):
            fold = self._request_of
            for line, metrics in zip(requests.lines, requests.metric_rows(), strict=True):
                fold(metrics, labels, line, file)

    def add_windows(self, windows: Windows, file: str = "") -> None:
        """add_all(windows.records(), file) without a Record each: every row a stats window (running requests or a
        generation rate stated, no snapshot, weights or depth), as the reader's LINE_SHAPES make them. Rows of a
        source first seen here, or of another file, take the record path (labels noted, file switched): the rows up
        to the last source's first row, the rest as columns."""
        sources = self.sources
        while True:
            if file != self._unfolded_file:
                head = 1  # the file switches on the first row's record
            else:
                new = [windows.sources.index(source) for source in set(windows.sources) if source not in sources]
                head = max(new) + 1 if new else 0
            if not head:
                break
            keep = [True] * head + [False] * (len(windows) - head)
            self.add_all(windows.select(keep).records(), file)
            windows = windows.select([not flag for flag in keep])
            if not windows:
                return
            if file != self._unfolded_file:  # the head's rows were not kept (another rank's view): records too
                self.add_all(windows.records(), file)
                return
        count = len(windows)
        self.records += count
        for source in set(windows.sources):
            sources[source] += windows.sources.count(source)
        keep = None
        # Rows share their labels dicts: the rank is read once per (source, labels) pair, in the order the pairs first
        # come (the first rank seen of a source is the one kept), and rows are picked only when some are dropped. Rows
        # none of whose labels name a rank (a labels dict a row: llama-server's slot and task) keep them all. A pair's
        # labels are found at its first row (a search of the ids at C speed, a few pairs), not by a dict of every row's.
        if any(map(contains, windows.labels, repeat("rank"))):
            ids = list(map(id, windows.labels))
            ranks = self.rank
            dropped = set()
            for source, key in dict.fromkeys(zip(windows.sources, ids, strict=True)):
                rank = windows.labels[ids.index(key)].get("rank")
                if rank is not None and ranks.setdefault(source, rank) != rank:
                    dropped.add((source, key))
            if dropped:
                keep = [pair not in dropped for pair in zip(windows.sources, ids, strict=True)]
                count = sum(keep)
        self.interval_count += count
        self._unfolded.extend(windows, keep)
        if len(self._unfolded) >= FOLD_WINDOWS:
            self._fold_windows()

    def _keep_rank(self, record) -> bool:
        rank = record.labels.get("rank")
        if rank is None:
            return True
        return self.rank.setdefault(record.source, rank) == rank

    def _interval(self, record, file: str) -> None:
        labels = record.labels
        if "rank" in labels and not self._keep_rank(record):
            return
        metrics = record.metrics
        if "snapshot" in labels and labels["snapshot"]:
            for name, value in metrics.items():
                if name not in self.snapshot:
                    self.snapshot[name] = Running()
                self.snapshot[name].add(value, record.line_number)
            return
        if "settings" in labels and record.source == "llamacpp.bench":
            rate = metrics.get("generation_tokens_per_second") or metrics.get("prompt_tokens_per_second")
            key = (file, labels.get("model"), labels["test"], labels["settings"], labels.get("machine"))
            if rate and (key in self.bench_tests or len(self.bench_tests) < BENCH_TESTS_MAX):
                self.bench_tests.setdefault(key, []).append((rate, record.line_number))
        depth = metrics.get("context_depth_tokens")
        if depth is not None:  # llama-bench -d: each test's rate by the context it ran over
            for name, by_depth in (("generation_tokens_per_second", self.depth_generation),
                                   ("prompt_tokens_per_second", self.depth_prompt)):
                if name in metrics:
                    by_depth.setdefault(depth, Running()).add(metrics[name], record.line_number)
        if "prompt_tokens_per_second" in metrics and record.source == "llamacpp.bench":
            self._note_bench_prompt(record)
        if record.source == "llamacpp.batched-bench" and "b" in labels and "generation_tokens_per_second" in metrics:
            # llama-batched-bench's generation by its batch, per shape: a batch's total against one sequence's
            shape = (file, labels.get("pp"), labels.get("tg"))
            if shape in self.batched_generation or len(self.batched_generation) < BENCH_TESTS_MAX:
                self.batched_generation.setdefault(shape, {}).setdefault(
                    int(labels["b"]), (metrics["generation_tokens_per_second"], record.line_number))
        if "running_requests" not in metrics and "generation_tokens_per_second" not in metrics:
            # Spec-decoding lines and the like: statistics only, not a stats window. The windows waiting are folded
            # first only when they hold one of its metrics (every Running sees its values in order), or when both
            # name a metric not seen yet (the metrics keep the order they first came in): a spec line after each
            # stats line would otherwise fold the windows one at a time (~0.3 ms each).
            stats = self._interval_stats
            waiting = self._unfolded.metrics.keys()
            if waiting and (not waiting.isdisjoint(metrics)
                            or (not stats.keys() >= metrics.keys() and not stats.keys() >= waiting)):
                self._fold_windows()
            for name, value in metrics.items():
                if name not in stats:
                    stats[name] = Running()
                stats[name].add(value, record.line_number)
            return
        self.interval_count += 1
        rate = metrics.get("generation_tokens_per_second")
        if rate is not None and record.labels.get("device") == "cpu" \
                and ("weights_bytes" in metrics or "named_weights_bytes" in metrics):
            self.bench_cpu_rows += 1
        if rate is not None and record.labels.get("mixture_unsplit") and len(self.bench_unsplit_lines) < MAX_BENCH_STEPS:
            self.bench_unsplit_lines.add(record.line_number)  # its file × rate is the most a step can have read
        if rate is not None and "weights_bytes" in metrics:
            self.effective_bandwidth.add(metrics.get("decode_weights_bytes", metrics["weights_bytes"]) * rate,
                                         record.line_number)
            self._note_slowest(metrics.get("decode_weights_bytes", metrics["weights_bytes"]) * rate, record, rate)
            if "parameters" in metrics and len(self.bench_steps) < MAX_BENCH_STEPS:
                mixture = metrics.get("decode_weights_bytes", metrics["weights_bytes"]) < metrics["weights_bytes"]
                self.bench_steps[record.line_number] = (rate, metrics["parameters"], mixture)
        elif rate is not None and "named_weights_bytes" in metrics:
            self.effective_bandwidth.add(metrics["named_weights_bytes"] * rate, record.line_number)
            self._note_slowest(metrics["named_weights_bytes"] * rate, record, rate)
            self.bandwidth_source = NAMED_BANDWIDTH_SOURCE
            if "named_parameters" in metrics and len(self.bench_steps) < MAX_BENCH_STEPS:
                # the size its name states: the layers' fixed cost of its step counts as a sized row's does (a
                # mixture the name splits states the active share it prefills)
                self.bench_steps[record.line_number] = (rate, metrics["named_parameters"],
                                                        "prompt_parameters" in metrics)
        if rate is not None and "decode_weights_bytes_high" in metrics:  # a mixture's read, a range
            self.effective_bandwidth_high.add(metrics["decode_weights_bytes_high"] * rate, record.line_number)
            if "weights_bytes" in metrics:
                self.bandwidth_source = MIXTURE_BANDWIDTH_SOURCE
        # The window waits in a short list and is folded with the others, a metric or a flag at a time, into
        # `interval`, the timeline and the flags (_fold_windows): a per-window Python loop here was the largest
        # cost of reading a log with many stats lines. Constant memory: FOLD_WINDOWS at most, all from one file.
        if file != self._unfolded_file:
            if self._unfolded:
                self._fold_windows()
            self._unfolded_file = file
        unfolded = self._unfolded
        unfolded.append(record)
        if len(unfolded) >= FOLD_WINDOWS:
            self._fold_windows()

    def _request_columns(self, requests: Requests, file: str) -> bool:
        """_request_of for every row of `requests`, a metric or a test at a time over numpy columns, when every row
        states the phases, their token counts and rates, the step time and the total (as a llama-server request
        does; the context too or none), each a finite number, and no metric would be seen for the first time (the
        statistics keep the order metrics first come in); False, nothing folded, otherwise. The same tests in the
        same order, each comparison and sum as _request_of makes it (the sums added in order by
        np.add.accumulate)."""
        import numpy as np

        metrics = requests.metrics
        if metrics.keys() - {"graphs_reused", "context_tokens"} != _ROW_METRICS \
                or not self.requests.keys() >= metrics.keys():
            return False
        columns = {name: np.array(column, float) for name, column in metrics.items() if name != "graphs_reused"}
        if not all(np.isfinite(column).all() for column in columns.values()):
            return False
        at = np.array(requests.lines)
        self.request_count += len(at)
        output, tpot, tokens = columns["output_tokens"], columns["tpot_seconds"], columns["input_tokens"]
        one_token = output <= 1  # every row states its step time: the one-token test holds on the output alone
        self._flag_rows("one_token", one_token, at, file)
        for name, values in columns.items():  # the rows' metrics, the one-token rows' step time and rate set aside
            kept = ~one_token if name in _ONE_TOKEN_DROPS else slice(None)
            self.requests[name].extend(values[kept], at[kept])
        if "graphs_reused" in metrics:
            graphs = metrics["graphs_reused"]
            stated = np.fromiter(map(is_not, graphs, repeat(None)), bool, len(graphs))
            self.requests["graphs_reused"].extend(np.array([value for value in graphs if value is not None], float),
                                                  at[stated])
        self._flag_rows("prefill_zero", (columns["prefill_seconds"] == 0) & (tokens > 1), at, file)
        self._flag_rows("tiny_prompt", tokens <= TINY_PROMPT_TOKENS, at, file)
        timed = ~one_token  # the rows whose step time is kept
        impossible = timed & (tpot >= IMPOSSIBLE_TPOT_SECONDS)
        slow = timed & ~impossible & (tpot >= SLOW_TPOT_SECONDS)
        self._flag_rows("impossible_tpot", impossible, at, file)
        self._flag_rows("impossible_fast", timed & (tpot > 0) & (tpot < IMPOSSIBLE_FAST_TPOT_SECONDS), at, file)
        self._flag_rows("slow_tpot", slow, at, file)
        self._flag_rows("slow_tpot_cpu", slow & (tpot >= SLOW_CPU_TPOT_SECONDS), at, file)
        self._phase_columns(columns, timed, at, file)
        engine = requests.labels.get("engine")
        if engine in ("llama.cpp", "ollama"):
            self._flag_rows("impossible_prompt_rate", columns["prompt_tokens_per_second"] > IMPOSSIBLE_PROMPT_RATE,
                            at, file)
        if engine == "ollama" or str(requests.labels.get("variant", "")).startswith("server"):
            e2e = columns["e2e_seconds"]
            gap = e2e - (columns["prefill_seconds"] + columns["decode_seconds"] + 0.0)  # no load: alike for both
            self.parts_gap.extend(gap, at)
            mismatch = (abs(gap) > PARTS_MISMATCH * e2e) & (abs(gap) > PARTS_MISMATCH_MIN_SECONDS)
            self._flag_rows("parts_mismatch", mismatch, at, file)
            self._flag_rows("parts_exceed_total", mismatch & (gap < 0), at, file)
        return True

    def _phase_columns(self, columns: dict, timed, at, file: str) -> None:
        """_request_of's tests of the prompt phase against the decode phase, and the compute time, over the columns
        of _request_columns (`timed`: the rows whose rate and step time are kept)."""
        import numpy as np

        prefill, tokens, decode, output = (columns[name] for name in (
            "prefill_seconds", "input_tokens", "decode_seconds", "output_tokens"))
        with np.errstate(divide="ignore", invalid="ignore", over="ignore"):  # rows a test's guards rule out
            both = (prefill != 0) & (decode != 0) & (tokens != 0) & (output != 0)
            phases = both & (output > 1)
            slower = phases & (tokens > 1) & (prefill / tokens >= PROMPT_SLOWER_THAN_DECODE * decode / output)
            if slower.any():
                self._folded()  # _request_of reads this flag through self.flags: the windows waiting folded first
            self._flag_rows("prompt_slower_than_decode", slower, at, file)
            self._flag_rows("prompt_artifact_minor", slower & (decode >= prefill), at, file)
            slow_prompt = phases & ~slower & ((tokens >= SLOW_PROMPT_MIN_TOKENS) | (
                (tokens > TINY_PROMPT_TOKENS) & (prefill >= SLOW_PROMPT_MIN_STEPS * decode / output))) \
                & (tokens / prefill < SLOW_PROMPT_RATIO * output / decode) \
                & (prefill >= SLOW_PROMPT_SHARE * (prefill + decode))
            self._flag_rows("slow_prompt", slow_prompt & (tokens >= SLOW_PROMPT_MIN_TOKENS), at, file)
            self._flag_rows("slow_prompt_short", slow_prompt & (tokens < SLOW_PROMPT_MIN_TOKENS), at, file)
            healthy_rate = both & (tokens / prefill >= PREFILL_HEALTHY_RATIO * output / decode)
            share = np.where(healthy_rate, PREFILL_DOMINANT_SHARE, PREFILL_SHARE)
            enough = np.where(output > 1, PREFILL_SHARE_MIN_TOKENS, PROMPT_ONLY_TOKENS)  # every row states its prompt
            compute = prefill + decode
            self.compute_seconds = _sum_in_order(self.compute_seconds, compute)
            prefill_share = (compute > 0) & (tokens > enough) & (prefill >= share * compute) \
                & ~(healthy_rate & (prefill < PREFILL_HEALTHY_MIN_SECONDS))
            self._flag_rows("prefill_share", prefill_share, at, file)
            self.prefill_share_compute_seconds = _sum_in_order(self.prefill_share_compute_seconds,
                                                               compute[prefill_share])
            generation = columns["generation_tokens_per_second"]
            self._flag_rows("rate_contradicts_time", timed & (generation != 0) & (output != 0) & (decode != 0)
                            & (abs(generation * decode / output - 1) > RATE_CONTRADICTS), at, file)

    def _flag_rows(self, name: str, mask, at, file: str) -> None:
        """The rows of `mask` (a numpy bool column) into flag `name`, at their lines `at`, in order."""
        import numpy as np

        found = np.flatnonzero(mask)
        self._flags[name].extend(at[found[:MAX_LINES]].tolist(), file, len(found))

    def _request(self, record, file: str) -> None:
        self._request_of(record.metrics, record.labels, record.line_number, file)
        e2e = record.metrics.get("e2e_seconds")
        if record.timestamp_seconds is not None and e2e and len(self.finishes) < MAX_FINISHES:
            # When it finished and how long it took: when it arrived (requests-served-in-turn)
            self.finishes.append((record.timestamp_seconds, e2e, record.line_number, file))

    def _request_of(self, metrics: dict, labels: dict, line: int, file: str) -> None:
        """A request's metrics and labels (a Record's, or a records.Requests row's) at `line` into the statistics."""
        self.request_count += 1
        if labels.get("model") and len(self.request_models) < 32:  # a few named are enough to tell one from several
            self.request_models.add(labels["model"])
        if labels.get("models_named") and len(self.request_models) < 32:  # one of these (ollama: several named first)
            self.request_models.update(labels["models_named"].split(", "))
        if metrics.get("output_tokens") is not None and metrics["output_tokens"] <= 1 \
                and ("tpot_seconds" in metrics or "generation_tokens_per_second" in metrics):
            # One token written: its "per-token" time (llama.cpp's 0.00 ms, inf tokens per second) times no decode
            # step, so it is set aside (requests-one-token), as summary-one-token does for a run's mean.
            self._flags["one_token"].add(line, file)
            metrics = {name: value for name, value in metrics.items()
                       if name not in ("tpot_seconds", "generation_tokens_per_second")}
        negative = [name for name, value in metrics.items() if value < NEGATIVE_FIGURE
                    and name.endswith(("_tokens", "_seconds", "_per_second", "_per_request"))]
        if negative:
            # A count, rate or time below zero is a broken counter (requests-negative-figure): set aside.
            self._flags["negative_figure"].add(line, file)
            metrics = {name: value for name, value in metrics.items() if name not in negative}
        if metrics.get("context_tokens") and metrics.get("context_limit_tokens"):
            # How full each request left its own window (requests may ask for different windows).
            metrics = dict(metrics, context_held_fraction=metrics["context_tokens"] / metrics["context_limit_tokens"])
        for name, value in metrics.items():
            if name not in self.requests:
                self.requests[name] = Running()
            self.requests[name].add(value, line)
        ttft = metrics.get("ttft_seconds")
        e2e = metrics.get("e2e_seconds")
        output = metrics.get("output_tokens")
        if ttft is not None and ttft <= 0:
            self._flags["ttft_zero"].add(line, file)
        elif ttft is not None and ttft <= TTFT_ONE_PASS_SECONDS:
            self._flags["ttft_under_one_pass"].add(line, file)
        if ttft is not None and e2e is not None and ttft >= e2e > 0 and (output or 2) > 1:
            self._flags["ttft_ge_e2e"].add(line, file)
        # One prompt token (llama.cpp's BOS with an empty prompt) is evaluated inside the first decode step, so its
        # 0.00 ms prompt time is llama.cpp's accounting, not a broken timer.
        if metrics.get("prefill_seconds") == 0 and metrics.get("input_tokens", 0) > 1:
            self._flags["prefill_zero"].add(line, file)
        load = metrics.get("load_seconds")
        # A load longer than the whole total cannot be inside it (llama.cpp builds whose total starts after the
        # load), nor one the total has no room for beside the prompt and the generation (llama_print_timings: the
        # total is prompt eval + eval, the load came before): only a load that fits in the total is a cold start.
        parts = (metrics.get("prefill_seconds") or 0.0) + (metrics.get("decode_seconds") or 0.0)
        if load is not None and e2e and COLD_START_FRACTION * e2e <= load <= e2e \
                and load + parts <= LOAD_FITS_SLACK * e2e:
            self._flags["cold_start"].add(line, file)
        tokens = metrics.get("input_tokens")
        if tokens is not None and tokens <= TINY_PROMPT_TOKENS:
            self._flags["tiny_prompt"].add(line, file)
        queue = metrics.get("queue_seconds")
        busy = metrics.get("inference_seconds") or (e2e - queue if (e2e and queue is not None) else None)
        if queue is not None and busy is not None and queue > busy and queue > QUEUE_MIN_SECONDS:
            self._flags["queue_dominant"].add(line, file)
        elif queue is not None and busy is None and queue >= QUEUE_LONG_SECONDS:
            self._flags["queue_long"].add(line, file)
        reached = metrics.get("weight_read_bytes_per_second")
        if reached is not None:  # the runner's own figure (gpt-fast style loops print `Bandwidth achieved`)
            self.effective_bandwidth.add(reached, line)
            self.bandwidth_source = "the runner's bandwidth achieved (model size × generation rate)"
        tpot = metrics.get("tpot_seconds")
        if tpot is not None and 0 < tpot < IMPOSSIBLE_FAST_TPOT_SECONDS:
            self._flags["impossible_fast"].add(line, file)
        if tpot is not None and tpot >= IMPOSSIBLE_TPOT_SECONDS:
            self._flags["impossible_tpot"].add(line, file)
        elif tpot is not None and tpot >= SLOW_TPOT_SECONDS:
            self._flags["slow_tpot"].add(line, file)
            if tpot >= SLOW_CPU_TPOT_SECONDS:
                self._flags["slow_tpot_cpu"].add(line, file)
        elif tpot is None and e2e and output and tokens and "decode_seconds" not in metrics:
            # Only the whole call's time: as no prompt token costs more than a generated one, the call needs at
            # least (prompt + output) × the decode step, so e2e ÷ (prompt + output) bounds the step from below.
            bound = e2e / (tokens + output)
            if bound >= SLOW_TPOT_SECONDS:
                self.tpot_bound.add(bound, line)
                self._flags["slow_tpot_bound"].add(line, file)
        if tpot is None and e2e and output and output >= CEILING_MIN_OUTPUT and "decode_seconds" not in metrics:
            # ... and the whole call ÷ its output tokens bounds the step from above (the prompt's time included).
            self.tpot_ceiling.add(e2e / output, line)
        prefill = metrics.get("prefill_seconds")
        decode = metrics.get("decode_seconds")
        output = metrics.get("output_tokens")
        if prefill and decode and tokens and output and output > 1 and tokens > 1 \
                and prefill / tokens >= PROMPT_SLOWER_THAN_DECODE * decode / output:
            self.flags["prompt_slower_than_decode"].add(line, file)
            if decode >= prefill:  # the odd prompt time is the smaller part: the decode time stands on its own
                self._flags["prompt_artifact_minor"].add(line, file)
        elif prefill and decode and tokens and output and output > 1 \
                and (tokens >= SLOW_PROMPT_MIN_TOKENS
                     or (tokens > TINY_PROMPT_TOKENS and prefill >= SLOW_PROMPT_MIN_STEPS * decode / output)) \
                and tokens / prefill < SLOW_PROMPT_RATIO * output / decode \
                and prefill >= SLOW_PROMPT_SHARE * (prefill + decode):
            # Read barely faster than the answer is written: the prompt was not processed in batches (or paid a
            # warm-up), and it costs a good part of the request. A short prompt (past any overhead: ten decode steps
            # or more) read so is the shape of a device with no compute to spare, a CPU's: both phases slow together.
            self._flags["slow_prompt" if tokens >= SLOW_PROMPT_MIN_TOKENS else "slow_prompt_short"].add(line, file)
        # A prompt read at a healthy rate (PREFILL_HEALTHY_RATIO × the decode rate per token or more) is a long
        # prompt: it makes the request prefill-bound only when it takes twice the decode time or more, and long
        # enough to be noticed (PREFILL_HEALTHY_MIN_SECONDS).
        healthy_rate = bool(prefill and decode and tokens and output) \
            and tokens / prefill >= PREFILL_HEALTHY_RATIO * output / decode
        share = PREFILL_DOMINANT_SHARE if healthy_rate else PREFILL_SHARE
        # A request that writes one token has no decode to weigh its prompt against: like a prompt-only
        # measurement, only a long prompt (requests-prompt-only's size) makes it prefill-bound.
        enough = PREFILL_SHARE_MIN_TOKENS if output is None or output > 1 else PROMPT_ONLY_TOKENS
        if prefill is not None and decode is not None:
            self.compute_seconds += prefill + decode
        if prefill is not None and decode is not None and prefill + decode > 0 \
                and (tokens > enough if tokens is not None else prefill >= UNSTATED_PROMPT_SECONDS) \
                and prefill >= share * (prefill + decode) \
                and not (healthy_rate and prefill < PREFILL_HEALTHY_MIN_SECONDS):
            self._flags["prefill_share"].add(line, file)
            self.prefill_share_compute_seconds += prefill + decode
        # The generation side only: a prompt's count may include cached tokens its rate leaves out (TabbyAPI).
        stated = metrics.get("generation_tokens_per_second")
        if stated and output and decode and abs(stated * decode / output - 1) > RATE_CONTRADICTS:
            self._flags["rate_contradicts_time"].add(line, file)
        engine = labels.get("engine")
        rate = metrics.get("prompt_tokens_per_second")
        if rate is not None and rate > IMPOSSIBLE_PROMPT_RATE and engine in ("llama.cpp", "ollama"):
            self._flags["impossible_prompt_rate"].add(line, file)
        server = engine == "ollama" or str(labels.get("variant", "")).startswith("server")
        if server and e2e is not None and prefill is not None and decode is not None:
            # llama-server's total is prompt eval + eval; ollama's total also holds the load. The llama.cpp
            # CLI's total runs from context creation (load, sampling and the prompt wait are in it): not tested.
            parts = prefill + decode + ((load or 0.0) if engine == "ollama" else 0.0)
            gap = e2e - parts
            self.parts_gap.add(gap, line)
            if abs(gap) > PARTS_MISMATCH * e2e and abs(gap) > PARTS_MISMATCH_MIN_SECONDS:
                self._flags["parts_mismatch"].add(line, file)
                if gap < 0:  # the parts outlast the whole: the figures cannot all be right
                    self._flags["parts_exceed_total"].add(line, file)

    def _event(self, record, file: str) -> None:
        # The same event printed by every TP rank (e.g. 11 "Decode out of memory" lines ≈ 2 events):
        # count it once per (source, second, metric).
        for name, value in record.metrics.items():
            if name == "preemptions_total":
                self.preemptions_total.add(value, record.line_number)
                continue
            if record.labels.get("rank") is not None and record.timestamp_seconds is not None:
                second = int(record.timestamp_seconds)
                if second != self._event_second:  # ranks print the same event within a second: keep one second
                    self._event_keys.clear()
                    self._event_second = second
                key = (record.source, name)
                if key in self._event_keys:
                    continue
                self._event_keys.add(key)
            self.events[name] = self.events.get(name, 0.0) + value
            self.event_lines.setdefault(name, _Lines()).add(record.line_number, file)

    # -- reading back --------------------------------------------------------------------------------------------
    def interval_value(self, name: str) -> Running | None:
        running = self.interval.get(name)
        return running if running and running.count else None

    def request_value(self, name: str) -> Running | None:
        running = self.requests.get(name)
        return running if running and running.count else None
