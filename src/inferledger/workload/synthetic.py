"""Synthetic workloads: input and output lengths drawn from a named distribution, arrivals from a process.

Lengths (one spec each for ISL and OSL; samples are rounded to whole tokens and kept ≥ 1):
  128 | fixed:128          every request the same
  uniform:64,512         whole numbers, each equally likely, both ends included
  normal:1024,256        mean, standard deviation
  lognormal:300,1.2      mean, sigma (the standard deviation of the log): heavy-tailed, as chat answers are
  empirical:FILE         draws (with replacement) from the lengths in FILE: one number a line, or a JSON list
Arrivals at `rate` requests/s (inf: all at t = 0, a saturating load):
  poisson                exponential gaps, mean 1/rate
  bursty:CV              gamma gaps, mean 1/rate, coefficient of variation CV (> 1 burstier than Poisson; as the
                         `--burstiness` of vLLM's benchmark, whose factor is the gamma shape 1/CV²)
  closed:N[,THINK]       N users, each sending its next request THINK seconds (default 0) after its answer ends
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass

import numpy as np

from inferledger.errors import BadWorkload
from inferledger.workload.trace import Trace, make_trace


@dataclass(frozen=True, eq=False)
class LengthDistribution:
    kind: str  # fixed | uniform | normal | lognormal | empirical
    parameters: tuple
    values: np.ndarray | None = None  # empirical: the lengths drawn from

    def sample(self, n: int, rng: np.random.Generator) -> np.ndarray:
        p = self.parameters
        if self.kind == "fixed":
            drawn = np.full(n, p[0], dtype=np.float64)
        elif self.kind == "uniform":
            drawn = rng.integers(p[0], p[1], size=n, endpoint=True).astype(np.float64)
        elif self.kind == "normal":
            drawn = rng.normal(p[0], p[1], size=n)
        elif self.kind == "lognormal":
            # mean m of a lognormal with log-sd σ: μ = ln m − σ²/2
            drawn = rng.lognormal(math.log(p[0]) - p[1] ** 2 / 2, p[1], size=n)
        else:
            drawn = rng.choice(self.values, size=n).astype(np.float64)
        return np.maximum(np.rint(drawn), 1).astype(np.int64)

    def describe(self) -> str:
        if self.kind == "empirical":
            return f"empirical:{self.parameters[0]} ({self.values.size} lengths)"
        return f"{self.kind}:{','.join(f'{v:g}' for v in self.parameters)}"


def parse_lengths(spec, what: str = "length") -> LengthDistribution:
    """A LengthDistribution from a spec string (see the module docstring) or a whole number."""
    if isinstance(spec, (int, np.integer)) and not isinstance(spec, bool):
        spec = f"fixed:{int(spec)}"
    if not isinstance(spec, str) or not spec.strip():
        raise BadWorkload(f"{what}: give a length such as 128, uniform:64,512 or lognormal:300,1.2; got {spec!r}")
    kind, _, rest = spec.strip().partition(":")
    if not rest:
        kind, rest = "fixed", kind
    kind = kind.lower()
    if kind == "empirical":
        values = _read_lengths(rest, what)
        return LengthDistribution(kind, (rest,), values)
    shapes = {"fixed": 1, "uniform": 2, "normal": 2, "lognormal": 2}
    if kind not in shapes:
        raise BadWorkload(f"{what}: unknown distribution {kind!r}; use fixed, uniform, normal, lognormal or "
                          "empirical")
    try:
        numbers = tuple(float(x) for x in rest.split(","))
    except ValueError:
        raise BadWorkload(f"{what}: {spec!r}: the parameters must be numbers") from None
    if len(numbers) != shapes[kind] or not all(math.isfinite(x) for x in numbers):
        raise BadWorkload(f"{what}: {kind} takes {shapes[kind]} finite number(s), got {rest!r}")
    if kind in ("fixed", "uniform") and (any(x != int(x) or x < 1 for x in numbers)):
        raise BadWorkload(f"{what}: {spec!r}: lengths must be whole numbers ≥ 1")
    if kind == "uniform" and numbers[0] > numbers[1]:
        raise BadWorkload(f"{what}: {spec!r}: the low end is above the high end")
    if kind in ("normal", "lognormal") and (numbers[0] <= 0 or numbers[1] < 0):
        raise BadWorkload(f"{what}: {spec!r}: the mean must be > 0 and the spread ≥ 0")
    return LengthDistribution(kind, numbers)


def _read_lengths(path: str, what: str) -> np.ndarray:
    try:
        with open(path, encoding="utf-8") as stream:
            text = stream.read()
    except OSError as error:
        raise BadWorkload(f"{what}: cannot read {path} ({error.strerror})") from None
    if text.lstrip().startswith("["):
        try:
            items = [(f"item {i + 1}", v) for i, v in enumerate(json.loads(text))]
        except json.JSONDecodeError as error:
            raise BadWorkload(f"{path}: not a JSON list ({error.msg})") from None
    else:
        items = [(f"line {i}", line.strip()) for i, line in enumerate(text.splitlines(), start=1) if line.strip()]
    values = []
    for where, item in items:
        try:
            value = float(item)
        except (TypeError, ValueError):
            raise BadWorkload(f"{path}: {where}: {item!r} is not a length") from None
        if not math.isfinite(value) or value != int(value) or value < 1:
            raise BadWorkload(f"{path}: {where}: {item!r} is not a whole number of tokens ≥ 1")
        values.append(int(value))
    if not values:
        raise BadWorkload(f"{path}: no lengths in the file")
    return np.asarray(values, dtype=np.int64)


@dataclass(frozen=True)
class ArrivalProcess:
    kind: str  # poisson | bursty | closed
    cv: float = 1.0  # bursty: coefficient of variation of the gaps
    users: int | None = None  # closed loop
    think_seconds: float = 0.0

    def describe(self) -> str:
        if self.kind == "closed":
            return f"closed loop, {self.users} users, think {self.think_seconds:g} s"
        return "poisson" if self.kind == "poisson" else f"bursty (gamma gaps, CV {self.cv:g})"


def parse_arrivals(spec: str) -> ArrivalProcess:
    kind, _, rest = str(spec).strip().partition(":")
    kind = kind.lower()
    try:
        numbers = [float(x) for x in rest.split(",")] if rest else []
    except ValueError:
        raise BadWorkload(f"--arrivals {spec!r}: the parameters must be numbers") from None
    if kind == "poisson" and not numbers:
        return ArrivalProcess("poisson")
    if kind == "bursty" and len(numbers) == 1 and math.isfinite(numbers[0]) and numbers[0] > 0:
        return ArrivalProcess("bursty", cv=numbers[0])
    if kind == "closed" and 1 <= len(numbers) <= 2 and numbers[0] == int(numbers[0]) and numbers[0] >= 1 \
            and (len(numbers) == 1 or (math.isfinite(numbers[1]) and numbers[1] >= 0)):
        return ArrivalProcess("closed", users=int(numbers[0]), think_seconds=numbers[1] if len(numbers) > 1 else 0.0)
    raise BadWorkload(f"--arrivals {spec!r}: use poisson, bursty:CV (CV > 0) or closed:USERS[,THINK_SECONDS]")


def parse_rate(value) -> float:
    """Requests per second: a positive number, or inf for a saturating load."""
    try:
        rate = float(value)
    except (TypeError, ValueError):
        raise BadWorkload(f"--rate must be requests per second or inf, got {value!r}") from None
    if math.isnan(rate) or rate <= 0:
        raise BadWorkload(f"--rate must be > 0 requests per second (or inf), got {value!r}")
    return rate


def synthetic_trace(requests: int, isl, osl, *, rate: float = math.inf, arrivals: str | ArrivalProcess = "poisson",
                    seed: int = 0, shared_prefix_tokens: int = 0) -> Trace:
    """`requests` requests with lengths from the `isl` and `osl` specs, arriving at `rate` per second.
    shared_prefix_tokens: every request opens with the same prefix, cached after the first request prefills it."""
    if isinstance(requests, bool) or not isinstance(requests, int) or requests < 1:
        raise BadWorkload(f"--requests must be a whole number ≥ 1, got {requests!r}")
    if isinstance(shared_prefix_tokens, bool) or not isinstance(shared_prefix_tokens, int) or \
            shared_prefix_tokens < 0:
        raise BadWorkload(f"--shared-prefix must be a whole number of tokens ≥ 0, got {shared_prefix_tokens!r}")
    if isinstance(seed, bool) or not isinstance(seed, int) or seed < 0:
        raise BadWorkload(f"--seed must be a whole number ≥ 0, got {seed!r}")
    isl_dist, osl_dist = parse_lengths(isl, "--isl"), parse_lengths(osl, "--osl")
    process = arrivals if isinstance(arrivals, ArrivalProcess) else parse_arrivals(arrivals)
    rate = parse_rate(rate)
    rng = np.random.default_rng(seed)
    isl_tokens, osl_tokens = isl_dist.sample(requests, rng), osl_dist.sample(requests, rng)
    arrival_seconds = None
    if process.kind != "closed" and math.isfinite(rate):
        if process.kind == "poisson":
            gaps = rng.exponential(1.0 / rate, size=requests)
        else:
            shape = 1.0 / process.cv ** 2
            gaps = rng.gamma(shape, 1.0 / (rate * shape), size=requests)
        gaps[0] = 0.0  # the first request opens the run
        arrival_seconds = np.cumsum(gaps)
    cached = np.minimum(shared_prefix_tokens, isl_tokens - 1)
    cached[0] = 0  # the first request fills the prefix cache
    if process.kind == "closed":
        arriving = process.describe()
    elif not math.isfinite(rate):
        arriving = "all at t = 0 (rate inf)"
    else:
        arriving = f"{process.describe()} at {rate:g}/s"
    source = f"synthetic: {requests:,} requests, ISL {isl_dist.describe()}, OSL {osl_dist.describe()}, {arriving}"
    return make_trace(isl_tokens, osl_tokens, arrival_seconds, cached, source=source,
                      closed_loop_users=process.users, think_seconds=process.think_seconds)
