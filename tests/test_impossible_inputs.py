"""Impossible models and inputs are errors, not numbers: one line naming the problem on stderr, exit 1, no
traceback. Absurd but possible inputs are warnings that name the problem (stderr, and `warnings` in the JSON).

Each config below is a real shape (Llama-3.1-8B's) with one field made impossible, so the only thing wrong with it
is the thing the test names. The CLI runs in process (inferledger.cli.main), so a traceback would fail the test."""

import json
import math

import pytest

from inferledger.cli import main

LLAMA_8B = {"model_type": "llama", "hidden_size": 4096, "intermediate_size": 14336, "num_hidden_layers": 32,
            "num_attention_heads": 32, "num_key_value_heads": 8, "vocab_size": 128256,
            "max_position_embeddings": 131072, "torch_dtype": "bfloat16"}


def run(capsys, *args):
    code = main([str(a) for a in args])
    out, err = capsys.readouterr()
    return code, out, err


def one_line_error(code, err, *fragments):
    assert code == 1
    lines = err.strip().splitlines()
    assert len(lines) == 1, err
    assert lines[0].startswith("inferledger ") and ": error: " in lines[0]
    for fragment in fragments:
        assert fragment in lines[0], lines[0]


def config(tmp_path, **changes):
    data = {**LLAMA_8B, **changes}
    data = {k: v for k, v in data.items() if v is not None}
    path = tmp_path / "config.json"
    path.write_text(json.dumps(data))
    return path


@pytest.mark.parametrize("changes, fragments", [
    # 4096 / 30 is not whole and the config gives no head_dim
    ({"num_attention_heads": 30, "num_key_value_heads": 10}, ("30 attention heads do not divide hidden_size 4096",)),
    ({"num_key_value_heads": 5}, ("5 key/value heads must divide the 32 attention heads",)),
    ({"num_key_value_heads": 64}, ("64 key/value heads must divide the 32 attention heads",)),
    ({"num_local_experts": 8, "num_experts_per_tok": 9}, ("9 experts per token out of 8 experts",)),
    ({"quantization_config": "fp8"}, ("quantization_config must be a JSON object", "str")),
    ({"quantization_config": [1, 2]}, ("quantization_config must be a JSON object", "list")),
    ({"torch_dtype": "float99"}, ("torch_dtype 'float99' is not a dtype",)),
    ({"quantization_config": {"quant_method": "mystery", "bits": 3}}, ("'mystery'", "--precision")),
])
def test_impossible_config(tmp_path, capsys, changes, fragments):
    path = config(tmp_path, **changes)
    before = path.read_bytes()
    code, out, err = run(capsys, "model", path)
    one_line_error(code, err, *fragments)
    assert out == ""
    assert path.read_bytes() == before  # nothing the user gave is changed


def test_head_dim_given_need_not_divide(tmp_path, capsys):
    """Qwen3-0.6B's shape: 16 heads of 128 over hidden 1024 is legal because head_dim says so."""
    path = config(tmp_path, num_attention_heads=30, num_key_value_heads=10, head_dim=128)
    code, out, _ = run(capsys, "model", path, "--json")
    assert code == 0 and json.loads(out)["kv_bytes_per_token"] == 32 * 2 * 10 * 128 * 2


def test_an_unknown_quant_method_is_fine_when_the_format_is_stated(tmp_path, capsys):
    path = config(tmp_path, quantization_config={"quant_method": "mystery"})
    code, out, _ = run(capsys, "model", path, "--precision", "int4", "--json")
    assert code == 0 and json.loads(out)["precision"] == "int4"


def test_json_nested_too_deep(tmp_path, capsys):
    path = tmp_path / "config.json"
    path.write_text("[" * 100_000 + "]" * 100_000)
    code, _, err = run(capsys, "model", path)
    one_line_error(code, err, "nested too deeply")


@pytest.mark.parametrize("value", ["nan", "inf", "-inf", "0", "-7e9"])
def test_bare_parameter_counts_must_be_finite_and_positive(capsys, value):
    for verb in ("request", "fit"):
        code, _, err = run(capsys, verb, f"--params={value}", "--gpu", "h100")
        one_line_error(code, err, "--params must be a finite number greater than 0")


@pytest.mark.parametrize("value", ["-1", "nan", "inf"])
def test_overhead_must_be_finite_and_not_negative(capsys, value):
    code, _, err = run(capsys, "request", "--model", "meta-llama/Llama-3.1-8B", "--gpu", "h100",
                       f"--overhead-ms={value}")
    one_line_error(code, err, "--overhead-ms must be a finite number at least 0")


def test_weights_that_do_not_fit(capsys):
    """Llama-3.1-70B in bf16 (141 GB) on a 24 GiB card: fit says so and exits 1; request warns and goes on."""
    code, out, err = run(capsys, "fit", "--model", "meta-llama/Llama-3.1-70B", "--gpu", "rtx-4090", "--json")
    one_line_error(code, err, "the model does not fit")
    assert json.loads(out)["fits"] is False  # the account is still printed: it says by how much
    code, out, err = run(capsys, "request", "--model", "meta-llama/Llama-3.1-70B", "--gpu", "rtx-4090", "--json")
    assert code == 0
    assert "the model does not fit" in err and "warning" in err
    assert any("does not fit" in w for w in json.loads(out)["warnings"])


def test_a_batch_larger_than_fits(capsys):
    """Llama-2-7B on an RTX 4090 has 8.31 GB of KV budget (test_fit derives it); a request of 4,096 tokens holds
    4096 x 512 KiB = 2 GiB, so 3 fit and a batch of 4 is a warning."""
    code, out, err = run(capsys, "request", "--model", "meta-llama/Llama-2-7b-hf", "--gpu", "rtx-4090",
                         "--isl", "4000", "--osl", "96", "--batch", "4", "--json")
    assert code == 0
    assert "batch 4 exceeds the 3 requests of 4,096 tokens that fit" in err
    assert len(json.loads(out)["warnings"]) == 1


def test_fp8_on_a_card_without_fp8_units(capsys):
    """The A100 has no fp8 tensor cores (its datasheet lists none): fp8 math runs in bf16 there."""
    code, out, err = run(capsys, "request", "--model", "meta-llama/Llama-3.1-8B", "--gpu", "a100-sxm-80gb",
                         "--precision", "fp8", "--kv-precision", "fp8", "--json")
    assert code == 0
    warnings = json.loads(out)["warnings"]
    assert any("no fp8 tensor cores: fp8 weights" in w for w in warnings)
    assert any("no fp8 tensor cores: fp8 KV cache" in w for w in warnings)
    code, out, err = run(capsys, "request", "--model", "meta-llama/Llama-3.1-8B", "--gpu", "h100-sxm",
                         "--precision", "fp8", "--json")
    assert json.loads(out)["warnings"] == [] and err == ""


def test_a_context_above_the_models_maximum(capsys):
    code, out, err = run(capsys, "fit", "--model", "meta-llama/Llama-2-7b-hf", "--gpu", "h100", "--context", "8192",
                         "--json")
    assert code == 0
    assert "context 8,192 exceeds the model's maximum 4,096" in err
    assert json.loads(out)["warnings"] == ["context 8,192 exceeds the model's maximum 4,096"]


def test_python_api_names_the_argument_not_the_flag():
    from inferledger.errors import BadArgument, BadWorkload, InferledgerError
    from inferledger.hardware import find_accelerator
    from inferledger.ledger.memory import memory_account
    from inferledger.ledger.request import request_account
    from inferledger.model import load_model
    from inferledger.operators import Formats

    h100, spec = find_accelerator("h100"), load_model("meta-llama/Llama-3.1-8B")
    with pytest.raises(BadArgument, match="spec must be a ModelSpec, got str 'meta-llama/Llama-3.1-8B'.*load_model"):
        request_account("meta-llama/Llama-3.1-8B", h100)
    with pytest.raises(BadArgument, match="accelerator must be a Accelerator, got str 'h100'.*find_accelerator"):
        request_account(spec, "h100")
    with pytest.raises(BadArgument, match="formats must be a Formats"):
        memory_account(spec, h100, "bf16")
    with pytest.raises(BadWorkload, match="isl"):
        request_account(spec, h100, isl=0)
    # The typed errors are also the standard library's kinds: a caller may catch ValueError/TypeError.
    assert issubclass(BadWorkload, ValueError) and issubclass(BadArgument, TypeError)
    with pytest.raises(ValueError):
        request_account(spec, h100, overhead_seconds_per_step=math.nan)
    with pytest.raises(InferledgerError):
        memory_account(spec, h100, Formats.resolve(spec), 0)


def test_every_public_entry_point_checks_its_argument_types():
    from inferledger.errors import BadArgument
    from inferledger.hardware import find_accelerator
    from inferledger.ledger.model_ledger import model_ledger
    from inferledger.ledger.params import count_parameters
    from inferledger.model import load_model
    from inferledger.operators import Formats, Step, rows
    from inferledger.precision import get_precision

    spec = load_model("meta-llama/Llama-3.1-8B")
    for call, argument in [
        (lambda: rows("llama", Step.decode(0), Formats.resolve(spec)), "spec must be a ModelSpec"),
        (lambda: rows(spec, 8192, Formats.resolve(spec)), "step must be a Step"),
        (lambda: rows(spec, Step.decode(0), "bf16"), "formats must be a Formats"),
        (lambda: count_parameters("llama"), "spec must be a ModelSpec"),
        (lambda: model_ledger({"model_type": "llama"}), "spec must be a ModelSpec"),
        (lambda: load_model(8), "name must be a str or PathLike"),
        (lambda: find_accelerator(3.35e12), "name must be a str or PathLike"),
    ]:
        with pytest.raises(BadArgument, match=argument):
            call()
    from inferledger.errors import UnknownPrecision

    with pytest.raises(UnknownPrecision, match="a precision is a name"):
        get_precision(16)
