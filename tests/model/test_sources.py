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

    monkeypatch.setitem(sys.modules, "huggingface_hub", types.SimpleNamespace(hf_hub_download=hf_hub_download))
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
