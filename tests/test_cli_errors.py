"""Bad input gets one clear line on stderr, exit status 1 and no traceback; nothing the user gave is changed.
Each case names what is wrong; the expected fragments are the facts of the input (the file, the field)."""

import json
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from inferledger.errors import InferledgerError
from inferledger.model import spec_from_config


def cli(*args):
    result = subprocess.run([sys.executable, "-m", "inferledger", *map(str, args)], capture_output=True, text=True)
    return result.returncode, result.stdout, result.stderr


def one_line_error(code, stderr, *fragments):
    assert code == 1
    assert "Traceback" not in stderr
    lines = stderr.strip().splitlines()
    assert len(lines) == 1, stderr
    for fragment in fragments:
        assert fragment in lines[0]


def test_missing_file(tmp_path):
    code, _, err = cli("model", tmp_path / "nope.json")
    one_line_error(code, err, "no such file")


def test_malformed_json(tmp_path):
    path = tmp_path / "config.json"
    path.write_text('{"model_type": "llama", ')
    before = path.read_bytes()
    code, _, err = cli("model", path)
    one_line_error(code, err, "malformed JSON", "line 1")
    assert path.read_bytes() == before


def test_unknown_model_type_lists_supported(tmp_path):
    path = tmp_path / "config.json"
    path.write_text(json.dumps({"model_type": "t5"}))
    code, _, err = cli("model", tmp_path)
    one_line_error(code, err, "unsupported model_type 't5'", "llama")


def test_missing_field_is_named(tmp_path):
    path = tmp_path / "c.json"
    path.write_text(json.dumps({"model_type": "llama", "hidden_size": 64, "num_attention_heads": 4}))
    code, _, err = cli("model", path)
    one_line_error(code, err, "num_hidden_layers", str(path))


def test_absurd_value(tmp_path):
    path = tmp_path / "c.json"
    path.write_text(json.dumps({"model_type": "llama", "hidden_size": -64, "num_attention_heads": 4,
                                "num_hidden_layers": 2, "vocab_size": 10, "intermediate_size": 8}))
    code, _, err = cli("model", path)
    one_line_error(code, err, "hidden_size", "out of range")


@pytest.mark.parametrize("args, fragment", [
    (("--isl", "0"), "--isl"), (("--osl", "-5"), "--osl"), (("--batch", "0"), "--batch"),
])
def test_bad_workload(args, fragment):
    code, _, err = cli("request", "--model", "meta-llama/Llama-3.1-8B", "--gpu", "h100", *args)
    one_line_error(code, err, fragment)


def test_unknown_accelerator_lists_close_names():
    code, _, err = cli("request", "--model", "meta-llama/Llama-3.1-8B", "--gpu", "h1000")
    one_line_error(code, err, "h1")


def test_context_beyond_the_models_maximum_warns_not_crashes():
    code, out, err = cli("request", "--model", "meta-llama/Llama-2-7b-hf", "--gpu", "a100-sxm-80gb",
                         "--isl", "8192", "--osl", "128", "--json")
    assert code == 0
    assert "exceeds the model's maximum 4,096" in json.loads(out)["warnings"][0]


def test_unknown_precision():
    code, _, err = cli("model", "meta-llama/Llama-3.1-8B", "--precision", "int3")
    one_line_error(code, err, "unknown precision 'int3'")


VALUES = st.one_of(st.none(), st.booleans(), st.integers(-10, 10**12), st.floats(allow_nan=True),
                   st.text(max_size=5), st.lists(st.integers(-2, 5), max_size=4))
KEYS = ["hidden_size", "num_hidden_layers", "num_attention_heads", "num_key_value_heads", "head_dim",
        "intermediate_size", "vocab_size", "num_local_experts", "num_experts_per_tok", "sliding_window",
        "layer_types", "tie_word_embeddings", "max_position_embeddings", "kv_lora_rank", "q_lora_rank"]


@settings(max_examples=300, deadline=None)
@given(st.sampled_from(["llama", "mixtral", "qwen3_moe", "gpt2", "falcon", "deepseek_v3", "gemma2", "gpt_oss",
                        "phi3"]), st.dictionaries(st.sampled_from(KEYS), VALUES))
def test_fuzzed_configs_raise_only_typed_errors(model_type, fields):
    try:
        spec_from_config({"model_type": model_type, **fields})
    except InferledgerError:
        pass


@pytest.mark.parametrize("args,fragment", [
    (("request", "-m", "meta-llama/Llama-3.1-70B", "-g", "h100", "--tp", "3"),
     "--tp 3 does not divide the 64 attention heads"),
    (("fit", "-m", "meta-llama/Llama-3.1-70B", "-g", "h100", "--tp", "16"),
     "16 cards that talk to one another span more than a node of 8: name an inter-node link"),
    (("request", "-m", "meta-llama/Llama-3.1-70B", "-g", "h100", "--gpus", "8", "--tp", "4"), "ambiguous"),
    (("fit", "-m", "meta-llama/Llama-3.1-70B", "-g", "h100", "--tp", "4", "--ep", "3"), "--ep 3 must divide --tp 4"),
    (("request", "-m", "meta-llama/Llama-3.1-8B", "-g", "h100", "--disaggregate", "--tp", "8"),
     "do not fit in one node of 8: name the link between them"),
])
def test_impossible_layouts_get_one_line(args, fragment):
    code, _, err = cli(*args)
    one_line_error(code, err, fragment)


CATALOG_CONFIGS = sorted((Path(__file__).resolve().parent.parent / "src/inferledger/model/catalog").glob("*.json"))
WRONG = ["x", [1, 2], {"a": 1}, -1, 1.5, None]


@pytest.mark.parametrize("path", CATALOG_CONFIGS, ids=lambda path: path.stem)
def test_real_configs_with_a_field_of_the_wrong_kind_raise_only_typed_errors(path):
    # Every field of a real config.json (and of its nested text/vision configs) in turn given a value of the wrong
    # kind: a ConfigError naming it, or a model read without it, never a TypeError from deep in an adapter.
    config = json.loads(path.read_text())
    places = [(config, key) for key in config] + [
        (config[outer], key) for outer in ("text_config", "vision_config", "quantization_config")
        if isinstance(config.get(outer), dict) for key in config[outer]]
    for holder, key in places:
        kept = holder[key]
        for value in WRONG:
            holder[key] = value
            try:
                spec_from_config(json.loads(json.dumps(config)), source=path.name)
            except InferledgerError:
                pass
        holder[key] = kept


def test_a_negative_seed_is_named():
    code, _, err = cli("workload", "--requests", "3", "--seed", "-1")
    one_line_error(code, err, "--seed", "-1")
