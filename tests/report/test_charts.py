"""The chart specs place every number where the roofline and the memory account say it goes.

Checks are independent of the drawing code: an operator timed at its floor max(F/peak, B/bandwidth) attains
F/time = min(peak, intensity × bandwidth), so each point must lie on the roof; the ridge is the datasheet's
peak over its bandwidth; the KV segment of the memory bar is the hand-counted bytes per token × tokens × batch.
"""

import pytest

from inferledger.cli._workload import load
from inferledger.cli.request import request_document, request_options
from inferledger.report.charts import card_figures, memory_chart, roofline_chart
from inferledger.report.curves import isl_values, request_charts, sweep

# NVIDIA H100 SXM5 datasheet: 989.4 TFLOP/s dense BF16 (1,979 with sparsity), 3.35 TB/s HBM3.
H100_BF16_FLOPS = 989.4e12
H100_BYTES_PER_SECOND = 3.35e12
GIB = 2**30


@pytest.fixture(scope="module")
def llama():
    options = request_options(model="meta-llama/Llama-3.1-8B", gpu="h100-sxm", isl=2048, osl=128, batch=4)
    spec, accelerator = load(options)
    return options, spec, accelerator, request_document(options, spec, accelerator)[1]


def test_ridge_is_the_datasheet_peak_over_bandwidth(llama):
    _, _, accelerator, document = llama
    chart = roofline_chart(document, card_figures(accelerator, "bf16"))
    (ridge,) = [m["value"] for m in chart["marks"] if m["axis"] == "x"]
    assert ridge == pytest.approx(H100_BF16_FLOPS / H100_BYTES_PER_SECOND)  # ≈ 295 FLOP/byte
    assert chart["x"]["log"] and chart["y"]["log"]


def test_every_operator_sits_on_the_roof(llama):
    _, _, accelerator, document = llama
    chart = roofline_chart(document, card_figures(accelerator, "bf16"))
    placed = 0
    for series in chart["series"]:
        if series["name"].endswith("operators"):
            for intensity, tflops in series["points"]:
                roof = min(H100_BF16_FLOPS, intensity * H100_BYTES_PER_SECOND) / 1e12
                assert tflops == pytest.approx(roof, rel=1e-9)
                placed += 1
    # 1 layer kind × (2 norms + q,k,v,o + attention + gate,up,down) + final norm + lm_head, in each phase
    assert placed >= 2 * 10


def test_prefill_right_of_the_ridge_decode_left(llama):
    _, _, accelerator, document = llama
    chart = roofline_chart(document, card_figures(accelerator, "bf16"))
    steps = {s["name"]: s["points"][0][0] for s in chart["series"] if s.get("size") == "large"}
    ridge = H100_BF16_FLOPS / H100_BYTES_PER_SECOND
    assert steps["prefill step (floor)"] > ridge > steps["decode step (floor)"]


def test_a_realistic_block_is_drawn_when_the_document_has_one(llama):
    _, _, accelerator, document = llama
    realistic = {"prefill": {"seconds": 2 * document["prefill"]["seconds"]},
                 "decode": {"seconds_per_token": 3 * document["decode"]["seconds_per_token"]},
                 "total_seconds": 1.0}
    chart = roofline_chart({**document, "realistic": realistic}, card_figures(accelerator, "bf16"))
    (series,) = [s for s in chart["series"] if s["name"] == "steps (realistic)"]
    prefill_tflops = document["prefill"]["flops"] / (2 * document["prefill"]["seconds"]) / 1e12
    assert series["points"][0] == pytest.approx([document["prefill"]["intensity"], prefill_tflops])


def test_memory_bar_segments(llama):
    _, _, _, document = llama
    chart = memory_chart(document["memory"], batch=4)
    segments = dict(chart["bars"][0]["segments"])
    # Llama 3.1 8B KV per token: 2 (K, V) × 32 layers × 8 KV heads × 128 dims × 2 bytes = 131,072 bytes;
    # 4 requests of 2,048 + 128 tokens.
    assert segments["KV cache"] == pytest.approx(4 * 2176 * 131072 / GIB)
    assert segments["weights"] == pytest.approx(document["memory"]["weight_bytes"] / GIB)
    assert [m["value"] for m in chart["marks"]] == pytest.approx([0.9 * 80, 80])  # H100: 80 GiB
    most = document["memory"]["max_concurrency"]
    assert chart["bars"][1]["name"].startswith(f"{most:,} requests")


def test_isl_values_are_powers_of_two_up_to_the_model_limit():
    # Llama 3.1: 131,072 tokens of context; with OSL 256 the longest power-of-two ISL that fits is 65,536.
    assert isl_values(1000, 131072, 256) == [128, 256, 512, 1000, 1024, 2048, 4096, 8192, 16384, 32768, 65536]
    assert isl_values(1024, None, 256)[-1] == 65536


def test_batch_sweep_grows_as_the_roofline_says(llama):
    options, spec, accelerator, _ = llama
    points = {p["batch"]: p for p in sweep(options, spec, accelerator, "batch")}
    assert sorted(points) == [1, 2, 4, 8, 16, 32, 64, 128, 256, 512]
    # Prefill of 2,048 tokens is compute bound at every batch: twice the sequences, twice the FLOPs and time.
    assert points[512]["ttft_seconds"] / points[256]["ttft_seconds"] == pytest.approx(2.0, rel=0.01)
    # Decode at batch 1 is memory bound: batch 2 reads the same weights, so a token costs about the same.
    assert points[2]["seconds_per_token"] / points[1]["seconds_per_token"] == pytest.approx(1.0, abs=0.02)


def test_request_charts_are_seven(llama):
    options, spec, accelerator, document = llama
    charts = request_charts(options, spec, accelerator, document)
    assert [c["id"] for c in charts] == ["roofline", "memory", "latency_batch", "throughput_batch",
                                         "latency_context", "throughput_context", "cards"]
    latency = charts[2]
    ttft = dict(next(s for s in latency["series"] if s["name"] == "TTFT")["points"])
    assert ttft[4] == pytest.approx(document["ttft_seconds"] * 1e3)


def test_cards_chart_greys_out_the_cards_that_cannot_hold_the_weights():
    from inferledger.report.charts import cards_chart
    from inferledger.report.curves import card_points

    options = request_options(model="meta-llama/Llama-3.1-70B", gpu="h100-sxm", precision="fp8")
    spec, accelerator = load(options)
    document = request_document(options, spec, accelerator)[1]
    chart = cards_chart(card_points(options, spec, accelerator), document)
    members = {s["name"]: set(s["details"]) for s in chart["series"]}
    # 70.55e9 parameters × 1 byte in fp8 = 70.6 GB of weights: more than a 24 GiB L4 holds, less than an H200's
    # 141 GiB × 0.9.
    assert "l4" in members["does not fit"] and "h200-sxm" in members["fits in memory"]
    assert members["h100-sxm (chosen)"] == {"h100-sxm"}
    labels = [label for s in chart["series"] for label in s["labels"] if label]
    assert len(labels) == len(set(labels))  # one label per cluster of nearby cards


def test_load_chart_draws_each_percentile_over_rate(llama):
    from inferledger.report.charts import load_chart

    _, _, _, document = llama
    points = [{"rate": 10.0, "ttft": {"p50": 0.030, "p99": 0.060}, "tpot": {"p50": 0.008, "p99": 0.009}},
              {"rate": 40.0, "ttft": {"p50": 0.150, "p99": 3.800}, "tpot": {"p50": 0.035, "p99": 0.040}}]
    chart = load_chart(points, document)
    curves = {s["name"]: [tuple(p) for p in s["points"]] for s in chart["series"]}
    assert curves["TTFT p99"] == [(10.0, pytest.approx(60.0)), (40.0, pytest.approx(3800.0))]  # milliseconds
    assert curves["time per token p50"] == [(10.0, pytest.approx(8.0)), (40.0, pytest.approx(35.0))]
    assert [s["dash"] for s in chart["series"]] == [False, True, False, True]  # p99 dashed


def test_without_the_simulator_there_is_no_load_chart(llama, monkeypatch):
    import sys

    from inferledger.report.curves import load_points

    options, spec, accelerator, document = llama
    monkeypatch.setitem(sys.modules, "inferledger.simulate", None)  # as if the simulator were not installed
    assert load_points(options, spec, accelerator, document) is None
    charts = request_charts(options, spec, accelerator, document, with_load=True)
    assert "load" not in [c["id"] for c in charts] and len(charts) == 7
