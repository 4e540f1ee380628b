"""Reading config.json: where it comes from (file, folder, bundled catalog, hub id) and the field readers.

We parse the JSON ourselves and never run code from a model repo (no trust_remote_code, no pickles). A model's
identity comes from the content of its config (model_type), never from its name or path.
"""

from __future__ import annotations

import json
import math
import os
from functools import lru_cache
from pathlib import Path

from inferledger.errors import ConfigError, UnknownModel

CATALOG_DIR = Path(__file__).parent / "catalog"
_MISSING = object()


class Fields:
    """A config dict with readers that try the known spellings of one quantity and name the file on failure.

    Each call site lists the spellings it accepts, with the family that uses each (as vLLM's convertor does);
    a missing required field is an error naming the field and the file, never a silent 0."""

    def __init__(self, data: dict, source: str):
        self.data = data
        self.source = source

    def has(self, *names: str) -> bool:
        return any(self.data.get(n) is not None for n in names)

    def get(self, *names: str, default=_MISSING):
        for name in names:
            value = self.data.get(name)
            if value is not None:
                return value
        if default is _MISSING:
            raise ConfigError(f"{self.source}: missing field {' / '.join(names)} (model_type "
                              f"{self.data.get('model_type')!r}); add it to the config")
        return default

    def int(self, *names: str, default=_MISSING, minimum: int = 1) -> int:
        value = self.get(*names, default=default)
        if default is not _MISSING and value is default:
            return value
        if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value) \
                or value != int(value):
            raise ConfigError(f"{self.source}: field {names[0]} must be an integer, got {value!r}")
        if value < minimum or value > 10**9:
            raise ConfigError(f"{self.source}: field {names[0]} = {value} is out of range")
        return int(value)

    def sequence(self, *names: str, default=_MISSING) -> list:
        """A list field (layer kinds, layer indexes): anything else is an error naming the field and the file."""
        value = self.get(*names, default=default)
        if default is not _MISSING and value is default:
            return value
        if not isinstance(value, list):
            raise ConfigError(f"{self.source}: field {names[0]} must be a list, got {value!r}")
        return value

    def head_dim(self, hidden: int, heads: int, *names: str) -> int:
        """head_dim as given (it need not be hidden/heads: Qwen3-0.6B has 16 heads of 128 over 1024), else
        hidden/heads, which must then divide exactly."""
        names = names or ("head_dim",)
        if self.has(*names):
            return self.int(*names)
        if hidden % heads:
            raise ConfigError(f"{self.source}: {heads} attention heads do not divide hidden_size {hidden} and no "
                              f"{names[0]} is given; add {names[0]} to the config")
        return hidden // heads

    def flag(self, *names: str, default: bool = False) -> bool:
        return bool(self.get(*names, default=default))


def read_config_file(path: Path) -> dict:
    """The JSON of a config file. Python's json accepts the bare `Infinity` some Nemotron configs carry."""
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise UnknownModel(f"no such file: {path}") from None
    except (UnicodeDecodeError, IsADirectoryError, PermissionError) as error:
        raise ConfigError(f"{path}: cannot read as a UTF-8 JSON config ({error.__class__.__name__})") from None
    try:
        data = json.loads(text)
    except json.JSONDecodeError as error:
        raise ConfigError(f"{path}: malformed JSON at line {error.lineno} column {error.colno}: {error.msg}") from None
    except RecursionError:
        raise ConfigError(f"{path}: JSON nested too deeply to be a config") from None
    if not isinstance(data, dict):
        raise ConfigError(f"{path}: a config.json holds a JSON object, this holds a {type(data).__name__}")
    return data


@lru_cache(maxsize=1)
def catalog_names() -> tuple[str, ...]:
    """Hub-style ids of the bundled configs ("meta-llama/Llama-3.1-8B"), from their file names."""
    return tuple(sorted(p.stem.replace("--", "/", 1) for p in CATALOG_DIR.glob("*.json")))


def _normal(text: str) -> str:
    return "".join(ch for ch in text.lower() if ch.isalnum() or ch == ".")


def catalog_match(name: str) -> str | None:
    names = catalog_names()
    wanted = _normal(name)
    exact = [n for n in names if _normal(n) == wanted or _normal(n.split("/", 1)[1]) == wanted]
    if len(exact) == 1:
        return exact[0]
    if len(exact) > 1:
        raise UnknownModel(f"{name!r} matches several catalog models: {', '.join(exact)}")
    return None


def resolve_config(name: str | os.PathLike) -> tuple[dict, str]:
    """(config dict, a label for where it came from) for a path, a folder, a catalog name or a hub id."""
    path = Path(name)
    if path.is_dir():
        if not (path / "config.json").is_file():
            raise UnknownModel(f"{path}: folder has no config.json")
        return read_config_file(path / "config.json"), str(path / "config.json")
    if path.is_file():
        return read_config_file(path), str(path)
    text = str(name)
    if text.endswith(".json"):
        raise UnknownModel(f"no such file: {text}")
    return resolve_name(text)


def resolve_name(text: str) -> tuple[dict, str]:
    """(config dict, label) for a catalog name or a hub id only: the file system is never looked at, so a name
    from an untrusted client (the web API) can name nothing but the bundled catalog or the hub."""
    match = catalog_match(text)
    if match:
        return read_config_file(CATALOG_DIR / (match.replace("/", "--", 1) + ".json")), match
    if text.count("/") == 1 and " " not in text:
        return _from_hub(text), text
    from difflib import get_close_matches  # only on this error path: it is slow to import

    close = get_close_matches(text, catalog_names(), n=4, cutoff=0.4)
    hint = f"; close: {', '.join(close)}" if close else "; `inferledger models` lists the catalog"
    raise UnknownModel(f"unknown model {text!r}: not a file, a folder, a catalog name or a hub id{hint}")


def _from_hub(repo_id: str) -> dict:
    """config.json only: from the local hub cache, else from the hub when it answers (inferledger.hub)."""
    from inferledger.hub import LOCAL_HINT, HubUnavailable, download

    try:
        path = download(repo_id, "config.json")
    except HubUnavailable as error:
        raise UnknownModel(f"{repo_id!r} is neither in the bundled catalog nor in the local hub cache, and "
                           f"{error}; {LOCAL_HINT}") from None
    except Exception as error:  # missing repo, gated repo, network failure mid-way: all end the same way
        raise UnknownModel(f"could not fetch config.json of {repo_id!r} from the hub "
                           f"({error.__class__.__name__}); {LOCAL_HINT}") from None
    return read_config_file(Path(path))
