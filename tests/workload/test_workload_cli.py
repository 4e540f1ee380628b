"""`inferledger workload`: the summary's figures are the percentiles of what was read, its JSON keys are stable, and
bad input is one line and exit 1."""

import json

import pytest

from inferledger.cli import main


def run(capsys, *args):
    code = main([*map(str, args)])
    out, err = capsys.readouterr()
    return code, out, err


def test_summary_of_a_trace(capsys, tmp_path):
    path = tmp_path / "t.jsonl"
    # ISL 100, 200, 300, 400 → mean 250, p50 250 (linear interpolation between 200 and 300); OSL 10 each
    path.write_text("".join(json.dumps({"isl": i, "osl": 10, "arrival_time": k}) + "\n"
                            for k, i in enumerate([100, 200, 300, 400])))
    code, out, _ = run(capsys, "workload", "--trace", path, "--json")
    document = json.loads(out)
    assert code == 0
    assert document["isl"]["mean"] == 250 and document["isl"]["p50"] == 250 and document["isl"]["max"] == 400
    assert document["isl_osl_ratio"] == 25
    assert document["arrivals"]["rate_per_s"] == 1.0  # 3 gaps over 3 s
    assert document["shape"] is None


def test_shape_on_a_card_calls_a_long_prompt_prefill_heavy(capsys):
    code, out, _ = run(capsys, "workload", "--isl", 2048, "--osl", 128, "--requests", 50, "--model",
                       "meta-llama/Llama-3.1-8B", "--gpu", "h200-sxm", "--precision", "fp8", "--json")
    shape = json.loads(out)["shape"]
    assert code == 0 and shape["verdict"].startswith("prefill-heavy")
    code, out, _ = run(capsys, "workload", "--isl", 128, "--osl", 2048, "--requests", 50, "--model",
                       "meta-llama/Llama-3.1-8B", "--gpu", "h200-sxm", "--precision", "fp8", "--json")
    assert json.loads(out)["shape"]["verdict"].startswith("decode-heavy")


@pytest.mark.parametrize("args, message", [
    (["--isl", "-5"], "--isl"),
    (["--rate", "0"], "--rate"),
    (["--trace", "absent.jsonl"], "no such file"),
    (["--trace", "x.jsonl", "--isl", "5"], "not both"),
    (["--model", "meta-llama/Llama-3.1-8B"], "needs both --model and --gpu"),
])
def test_bad_input_is_one_line(capsys, args, message):
    code, out, err = run(capsys, "workload", *args)
    assert code == 1 and out == "" and message in err and len(err.strip().splitlines()) == 1


def test_bad_trace_row_names_its_line(capsys, tmp_path):
    path = tmp_path / "t.jsonl"
    path.write_text('{"isl": 5, "osl": 2}\n{"isl": 5, "osl": -2}\n')
    code, _, err = run(capsys, "workload", "--trace", path)
    assert code == 1 and "line 2: output length -2 is negative" in err
