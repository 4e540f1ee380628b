"""Where a config comes from: a file, a folder, a catalog name (forgiving spelling), or a hub id through
huggingface_hub — which must fetch config.json only (never weights, never code). The hub is faked with a module
that serves a local file, so the test runs offline and checks exactly which file was asked for."""

import json
import sys
import types

import pytest

from inferledger.errors import UnknownModel
from inferledger.ledger.params import count_parameters
from inferledger.model import load_model
from inferledger.model.config import CATALOG_DIR


def test_catalog_names_are_forgiving():
    for name in ("meta-llama/Llama-3.1-8B", "Llama-3.1-8B", "llama-3.1-8b", "META-LLAMA/LLAMA-3.1-8B"):
        assert load_model(name).name == "meta-llama/Llama-3.1-8B"


def test_unknown_name_suggests_close_ones():
    with pytest.raises(UnknownModel, match="Llama-3.1-8B"):
        load_model("Llama-3.1-8")


def test_hub_id_fetches_config_json_only(tmp_path, monkeypatch):
    config = tmp_path / "config.json"
    config.write_bytes((CATALOG_DIR / "openai-community--gpt2.json").read_bytes())
    asked = []

    def hf_hub_download(repo_id, filename, **kwargs):
        asked.append((repo_id, filename))
        return str(config)

    monkeypatch.setitem(sys.modules, "huggingface_hub", types.SimpleNamespace(hf_hub_download=hf_hub_download))
    spec = load_model("someone/tiny-gpt2")
    assert asked == [("someone/tiny-gpt2", "config.json")]
    assert count_parameters(spec).total == 124_439_808  # GPT-2 small


def test_hub_failure_is_one_line(monkeypatch):
    def hf_hub_download(repo_id, filename, **kwargs):
        raise OSError("offline")

    import inferledger.hub

    monkeypatch.setitem(sys.modules, "huggingface_hub", types.SimpleNamespace(hf_hub_download=hf_hub_download))
    monkeypatch.setattr(inferledger.hub, "reachable", lambda: True)  # the hub answers, then the download fails
    with pytest.raises(UnknownModel, match="could not fetch config.json of 'someone/absent'"):
        load_model("someone/absent")


def test_nested_text_config_is_read(tmp_path):
    """A multimodal wrapper: the language model's fields sit under text_config; the outer dtype carries in."""
    inner = json.loads((CATALOG_DIR / "meta-llama--Llama-3.1-8B.json").read_text())
    inner.pop("torch_dtype")
    wrapper = {"model_type": "llava", "torch_dtype": "float16", "text_config": inner, "vision_config": {}}
    (tmp_path / "config.json").write_text(json.dumps(wrapper))
    spec = load_model(tmp_path)
    assert count_parameters(spec).total == 8_030_261_248
    assert spec.config_dtype == "float16"


def _offline_run(tmp_path, **env):
    """`inferledger model` on an id in no catalog, in a fresh process with an empty hub cache."""
    import os
    import subprocess
    import time

    environment = {k: v for k, v in os.environ.items() if not k.startswith("HF_")}
    environment.update(HF_HOME=str(tmp_path / "hf"), **env)
    start = time.perf_counter()
    done = subprocess.run([sys.executable, "-m", "inferledger", "model", "some-org/not-in-catalog"],
                          capture_output=True, text=True, env=environment, timeout=60)
    return done, time.perf_counter() - start


@pytest.mark.parametrize("env, reason", [
    ({"HF_HUB_OFFLINE": "1"}, "HF_HUB_OFFLINE is set"),
    # Loopback port 9 (discard) has no listener: the connection is refused at once, as with no network.
    ({"HF_ENDPOINT": "http://127.0.0.1:9"}, "http://127.0.0.1:9 is not reachable"),
])
def test_unknown_hub_id_offline_fails_at_once_with_one_line(tmp_path, env, reason):
    done, seconds = _offline_run(tmp_path, **env)
    assert done.returncode == 1 and done.stdout == ""
    assert done.stderr.count("\n") == 1 and "Traceback" not in done.stderr and "Retry" not in done.stderr
    assert reason in done.stderr and "pass a local path" in done.stderr
    # huggingface_hub alone retries for ~24 s here; a bound far above the ~0.3 s this takes and far below that.
    assert seconds < 8


def test_a_cached_hub_config_is_read_offline(tmp_path, monkeypatch):
    """After one fetch, an id works offline: the hub cache's layout (models--org--name/refs/main → a commit,
    snapshots/<commit>/config.json) is what huggingface_hub reads with local_files_only."""
    pytest.importorskip("huggingface_hub")
    commit = "0" * 40
    repo = tmp_path / "hub" / "models--someone--tiny-gpt2"
    (repo / "refs").mkdir(parents=True)
    (repo / "refs" / "main").write_text(commit)
    (repo / "snapshots" / commit).mkdir(parents=True)
    (repo / "snapshots" / commit / "config.json").write_bytes(
        (CATALOG_DIR / "openai-community--gpt2.json").read_bytes())
    import subprocess

    environment = {"HF_HUB_CACHE": str(tmp_path / "hub"), "HF_HUB_OFFLINE": "1", "PATH": "/usr/bin:/bin"}
    done = subprocess.run([sys.executable, "-m", "inferledger", "model", "someone/tiny-gpt2", "--json"],
                          capture_output=True, text=True, env=environment, timeout=60)
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["params"]["total"] == 124_439_808  # GPT-2 small


def test_hub_id_reads_safetensors_headers_when_the_hub_answers(tmp_path, monkeypatch):
    """Online, a hub id's safetensors headers come through huggingface_hub's get_safetensors_metadata (range
    requests for each shard's header); faked here with GPT-2 small's 148 tensors in F32."""
    import inferledger.hub

    config = tmp_path / "config.json"
    config.write_bytes((CATALOG_DIR / "openai-community--gpt2.json").read_bytes())
    shapes = {"wte.weight": [50257, 768], "wpe.weight": [1024, 768], "ln_f.weight": [768], "ln_f.bias": [768]}
    for i in range(12):
        p = f"h.{i}."
        shapes.update({p + "ln_1.weight": [768], p + "ln_1.bias": [768], p + "ln_2.weight": [768],
                       p + "ln_2.bias": [768], p + "attn.c_attn.weight": [768, 2304], p + "attn.c_attn.bias": [2304],
                       p + "attn.c_proj.weight": [768, 768], p + "attn.c_proj.bias": [768],
                       p + "mlp.c_fc.weight": [768, 3072], p + "mlp.c_fc.bias": [3072],
                       p + "mlp.c_proj.weight": [3072, 768], p + "mlp.c_proj.bias": [768]})
    tensors, offset = {}, 0
    for name, shape in shapes.items():
        size = 4 * (shape[0] * (shape[1] if len(shape) > 1 else 1))
        tensors[name] = types.SimpleNamespace(dtype="F32", shape=shape, data_offsets=(offset, offset + size))
        offset += size
    metadata = types.SimpleNamespace(files_metadata={"model.safetensors": types.SimpleNamespace(tensors=tensors)})
    fake = types.SimpleNamespace(hf_hub_download=lambda repo_id, filename, **kwargs: str(config),
                                 get_safetensors_metadata=lambda repo_id: metadata)
    monkeypatch.setitem(sys.modules, "huggingface_hub", fake)
    monkeypatch.setattr(inferledger.hub, "reachable", lambda: True)
    spec = load_model("someone/tiny-gpt2")
    assert spec.checkpoint.files == ("hub:someone/tiny-gpt2/model.safetensors",)
    assert spec.checkpoint.elements == count_parameters(spec).total == 124_439_808  # GPT-2 small
    assert spec.checkpoint.stored_bytes == 4 * 124_439_808
    assert spec.checkpoint.mismatches == () and spec.checkpoint.unexpected == ()
    assert spec.checkpoint.matched_elements == 124_439_808
