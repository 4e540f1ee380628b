"""`plan` and `compare`: the closed form agrees with the simulator at saturation, dollars per million tokens are the
price over the throughput, the two workload shapes of the seed pick different cards, and bad input is one line."""

import json

import pytest

from inferledger.cli import main
from inferledger.errors import BadWorkload
from inferledger.hardware import find_accelerator
from inferledger.model import load_model
from inferledger.plan import load_prices, plan
from inferledger.simulate import SLO, Scheduler, simulate
from inferledger.workload import synthetic_trace

LLAMA = "meta-llama/Llama-3.1-8B"


def run(capsys, *args):
    code = main([*map(str, args)])
    out, err = capsys.readouterr()
    return code, out, err


@pytest.mark.parametrize("source", ["floor", "auto"])
@pytest.mark.parametrize("gpu, precision, isl, osl, seqs", [
    ("h100-sxm", "fp8", 2048, 128, 128), ("a100-sxm-80gb", "bf16", 128, 512, 64), ("l40s", "fp8", 512, 256, 32)])
def test_closed_form_throughput_is_the_simulators_at_saturation(gpu, precision, isl, osl, seqs, source):
    """Two independent paths over the same step costs: the closed-form steady state and the stepped simulation of
    a saturating run; they agree within 10% (the simulation also pays the start and the drain of the run)."""
    spec, card = load_model(LLAMA), find_accelerator(gpu)
    trace = synthetic_trace(2000, isl, osl)
    closed = plan(spec, trace, [card], [precision], load_prices(), SLO(1e9, 1e9), batch_limits=[seqs],
                  cost_options={"source": source})
    simulated = simulate(spec, card, trace, precision=precision, scheduler=Scheduler(max_num_seqs=seqs),
                         source=source)
    want = simulated.metrics["throughput"]["output_tokens_per_s"]
    assert closed.configurations[0]["output_tokens_per_s"] == pytest.approx(want, rel=0.10)


def test_dollars_per_million_tokens_are_the_price_over_the_throughput(tmp_path):
    prices = tmp_path / "prices.yaml"
    prices.write_text("H100: 3.6\n")  # $3.60 an hour = $0.001 a second
    result = plan(load_model(LLAMA), synthetic_trace(10, 1024, 256), [find_accelerator("h100-sxm")], ["fp8"],
                  load_prices(str(prices)), SLO(), batch_limits=[64])
    c = result.configurations[0]
    assert c["usd_per_hour"] == 3.6
    assert c["usd_per_million_output_tokens"] == pytest.approx(0.001 / c["output_tokens_per_s"] * 1e6, rel=1e-12)
    assert c["max_requests_per_s"] == pytest.approx(c["output_tokens_per_s"] / 256, rel=1e-12)


def test_the_two_shapes_pick_different_cards(capsys):
    """The seed's point: a prefill-heavy shape (2048 in, 128 out) wants FLOP/s per dollar, a decode-heavy one
    (128 in, 2048 out) bandwidth per dollar — with the bundled prices, different cards win."""
    picks = {}
    for isl, osl in ((2048, 128), (128, 2048)):
        code, out, _ = run(capsys, "plan", "--model", LLAMA, "--isl", isl, "--osl", osl, "--json")
        assert code == 0
        picks[(isl, osl)] = json.loads(out)["best"]["accelerator"]
    assert picks[(2048, 128)] != picks[(128, 2048)]


def test_an_slo_no_configuration_meets_is_one_line(capsys):
    code, out, err = run(capsys, "plan", "--model", LLAMA, "--isl", 8192, "--osl", 128, "--slo-ttft-ms", 1,
                         "--slo-tpot-ms", 1)
    assert code == 1 and out == "" and "no configuration meets TTFT ≤ 1 ms and TPOT ≤ 1 ms; the closest is" in err
    assert len(err.strip().splitlines()) == 1


def test_a_card_the_model_does_not_fit_is_skipped_and_said():
    result = plan(load_model("meta-llama/Llama-3.1-70B"), synthetic_trace(10, 512, 128),
                  [find_accelerator("l40s"), find_accelerator("h200-sxm")], ["fp8"], load_prices(), SLO(1e9, 1e9))
    assert {c["accelerator"] for c in result.configurations} == {"h200-sxm"}
    assert result.skipped[0][0] == "l40s" and "does not fit" in result.skipped[0][2]


def test_bad_price_files(tmp_path):
    bad = tmp_path / "p.json"
    bad.write_text('{"h100-sxm": -2}')
    with pytest.raises(BadWorkload, match="must be dollars per GPU-hour > 0"):
        load_prices(str(bad))
    bad.write_text("{not json")
    with pytest.raises(BadWorkload, match="not valid JSON/YAML"):
        load_prices(str(bad))


def test_every_bundled_price_has_a_source_and_date():
    for name, price in load_prices().items():
        assert find_accelerator(name).name == name
        assert price.usd_per_hour > 0 and price.source.startswith("https://") and len(price.date) >= 7


def test_compare_puts_cards_side_by_side(capsys):
    code, out, _ = run(capsys, "compare", "--model", LLAMA, "--gpus", "h100-sxm,a100-sxm-80gb", "--precisions", "fp8",
                       "--isl", 1024, "--osl", 256, "--json")
    document = json.loads(out)
    assert code == 0 and [c["accelerator"] for c in document["compared"]] == ["h100-sxm", "a100-sxm-80gb"]
    assert all(c["output_tokens_per_s"] > 0 and c["usd_per_million_output_tokens"] > 0 for c in document["compared"])


@pytest.mark.parametrize("verb, args, message", [
    ("compare", ["--gpus", "h100-sxm"], "two or more cards"),
    ("plan", ["--batch-limits", "0,4"], "--batch-limits"),
    ("plan", ["--gpus", "h100-sxm,no-such-card"], "no-such-card"),
    ("plan", ["--precisions", "fp7"], "fp7"),
    ("plan", ["--top", "0"], "--top"),
])
def test_bad_input_is_one_line(capsys, verb, args, message):
    code, out, err = run(capsys, verb, "--model", LLAMA, *args)
    assert code == 1 and out == "" and message in err and len(err.strip().splitlines()) == 1
