"""Offline first: files of a hub repo from the local cache, and from the hub only when it answers at once.

huggingface_hub, asked for a file with no network, retries for about 24 s and logs each retry. Here the cache is
tried first; then, unless HF_HUB_OFFLINE says not to, one TCP connection to the endpoint with a short timeout
decides whether to ask the hub at all, so an unknown id offline fails in a fraction of a second with one line.
"""

from __future__ import annotations

import functools
import os
import socket
import threading
from urllib.parse import urlparse

CONNECT_TIMEOUT_SECONDS = 0.5
_TRUE = ("1", "true", "yes", "on")
LOCAL_HINT = ("pass a local path instead: a model folder, its config.json, a .gguf or a .safetensors file "
              "(download once with `hf download ORG/NAME config.json`)")


class HubUnavailable(Exception):
    """The file is not cached and the hub cannot be asked (offline, HF_HUB_OFFLINE, no huggingface_hub)."""


def offline_by_choice() -> bool:
    return os.environ.get("HF_HUB_OFFLINE", "").strip().lower() in _TRUE


def endpoint() -> str:
    return os.environ.get("HF_ENDPOINT", "https://huggingface.co").rstrip("/")


@functools.lru_cache(maxsize=4)
def reachable(timeout_seconds: float = CONNECT_TIMEOUT_SECONDS) -> bool:
    """One TCP connection to the endpoint, name lookup included, within the timeout (a resolver that does not
    answer cannot hold us up: the lookup runs in a daemon thread)."""
    parsed = urlparse(endpoint())
    host = parsed.hostname or "huggingface.co"
    port = parsed.port or (443 if parsed.scheme != "http" else 80)
    result: list[bool] = []

    def attempt() -> None:
        try:
            with socket.create_connection((host, port), timeout=timeout_seconds):
                result.append(True)
        except OSError:
            result.append(False)

    thread = threading.Thread(target=attempt, daemon=True)
    thread.start()
    thread.join(timeout_seconds)
    return bool(result and result[0])


def download(repo_id: str, filename: str) -> str:
    """A local path to one file of a hub repo: the cache first, then the hub if it answers. HubUnavailable
    (not cached, hub not to be asked: its message is the reason) or the hub's own error (missing repo or file, gated) otherwise."""
    import logging

    try:
        from huggingface_hub import hf_hub_download
    except ImportError:
        raise HubUnavailable("huggingface_hub is not installed (pip install 'inferledger[hub]')") from None
    try:
        return hf_hub_download(repo_id, filename, local_files_only=True)
    except Exception:  # not in the cache: ask the hub below
        pass
    if offline_by_choice():
        raise HubUnavailable("HF_HUB_OFFLINE is set")
    if not reachable():
        raise HubUnavailable(f"{endpoint()} is not reachable (offline?)")
    hub_logger = logging.getLogger("huggingface_hub")
    level = hub_logger.level
    hub_logger.setLevel(logging.ERROR)  # no retry chatter on the terminal; the caller reports one line
    try:
        return hf_hub_download(repo_id, filename)
    finally:
        hub_logger.setLevel(level)
