"""Typed errors for bad input. Each carries one line that says what is wrong and how to mend it;
the CLI prints that line and exits 1, never a traceback. Errors about a value subclass ValueError, errors about a
name that matches nothing also subclass LookupError, and a wrong argument type is a TypeError — so callers of the
library can catch them the way they catch the standard library's."""


class InferledgerError(Exception):
    """Base class: bad input the user can fix. str(error) is the one line the CLI prints."""


class ConfigError(InferledgerError, ValueError):
    """A model config could not be read or normalised (missing file, bad JSON, missing or impossible field)."""


class UnsupportedModelType(ConfigError):
    """The config's model_type has no adapter."""


class UnknownModel(ConfigError, LookupError):
    """A model name is neither a file, a folder, a catalog entry nor a reachable hub id."""


class UnknownAccelerator(InferledgerError, LookupError):
    """An accelerator name matches nothing (or several things) in the catalog."""


class UnknownPrecision(InferledgerError, ValueError):
    """A precision name is not one the tool knows."""


class BadWorkload(InferledgerError, ValueError):
    """A workload value is out of range (zero or negative lengths, batch 0, a non-finite number, ...)."""


class BadArgument(InferledgerError, TypeError):
    """A library function got an argument of the wrong type (a string where a ModelSpec is expected, ...)."""


class TokenizerError(InferledgerError, ValueError):
    """A tokenizer could not be loaded, or a text could not be read for counting."""


class LogFormatError(InferledgerError, ValueError):
    """A log file could not be read as any known format."""


class CalibrationError(InferledgerError, ValueError):
    """A calibration file (fitted parameters) or a kernel-latency CSV cannot be read or used."""


class BenchError(InferledgerError, ValueError):
    """A benchmark cannot run as asked (a missing optional backend, no CUDA device, an unknown size)."""


def require(value, kind, argument: str, how: str = ""):
    """`value` if it is a `kind`, else BadArgument naming the argument and how to build a right one."""
    if isinstance(value, kind):
        return value
    names = " or ".join(k.__name__ for k in (kind if isinstance(kind, tuple) else (kind,)))
    raise BadArgument(f"{argument} must be a {names}, got {type(value).__name__} {value!r:.60}"
                      + (f"; {how}" if how else ""))


def positive_number(value, argument: str, *, allow_zero: bool = False) -> float:
    """A finite number > 0 (or ≥ 0): NaN, infinities, booleans and strings are BadWorkload naming the argument."""
    import math

    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise BadWorkload(f"{argument} must be a number, got {value!r}")
    if not math.isfinite(value) or value < 0 or (value == 0 and not allow_zero):
        bound = "at least 0" if allow_zero else "greater than 0"
        raise BadWorkload(f"{argument} must be a finite number {bound}, got {value!r}")
    return float(value)
