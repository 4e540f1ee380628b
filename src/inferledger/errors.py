"""Typed errors for bad input. Each carries one line that says what is wrong and how to mend it;
the CLI prints that line and exits 1, never a traceback."""


class InferledgerError(Exception):
    """Base class: bad input the user can fix. str(error) is the one line the CLI prints."""


class ConfigError(InferledgerError):
    """A model config could not be read or normalised (missing file, bad JSON, missing field)."""


class UnsupportedModelType(ConfigError):
    """The config's model_type has no adapter."""


class UnknownModel(ConfigError):
    """A model name is neither a file, a folder, a catalog entry nor a reachable hub id."""


class UnknownAccelerator(InferledgerError):
    """An accelerator name matches nothing (or several things) in the catalog."""


class UnknownPrecision(InferledgerError):
    """A precision name is not one the tool knows."""


class BadWorkload(InferledgerError):
    """A workload value is out of range (zero or negative lengths, batch 0, ...)."""


class TokenizerError(InferledgerError):
    """A tokenizer could not be loaded, or a text could not be read for counting."""


class LogFormatError(InferledgerError):
    """A log file could not be read as any known format."""


class BenchError(InferledgerError):
    """A benchmark cannot run as asked (a missing optional backend, no CUDA device, an unknown size)."""
