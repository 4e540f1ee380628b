"""Spreading a model over cards: sharded rows, collectives and the pipeline, against arithmetic done by hand here.

Llama-3.1-70B: hidden 8192, 64 heads of 128, 8 KV heads, FFN 28672, vocabulary 128256, 80 layers.
DeepSeek-V3: hidden 7168, 61 layers (3 dense), 256 routed experts of 2048 (top 8), MLA latent 512 + rope 64.
"""

import pytest

from inferledger.errors import BadWorkload
from inferledger.hardware import find_accelerator
from inferledger.hardware.topology import topology_for
from inferledger.ledger.collectives import bytes_sent, floor_seconds, hops
from inferledger.ledger.parallel import sharded_step
from inferledger.model import load_model
from inferledger.operators import Formats, Step, rows, total
from inferledger.parallelism import Parallelism
from inferledger.sharding import stage_layers

LLAMA_70B = load_model("meta-llama/Llama-3.1-70B")
BF16 = Formats.resolve(LLAMA_70B, "bf16")
H100 = find_accelerator("h100-sxm")
MIB = 2**20


@pytest.mark.parametrize("name", ["meta-llama/Llama-3.1-8B", "deepseek-ai/DeepSeek-V3",
                                  "nvidia/Nemotron-H-56B-Base-8K", "openai/gpt-oss-20b"])
@pytest.mark.parametrize("step", [Step.prefill(300, batch=2), Step.decode(4000, batch=5)])
def test_one_card_and_replicas_give_todays_rows_exactly(name, step):
    spec = load_model(name)
    formats = Formats.resolve(spec)
    today = rows(spec, step, formats)
    assert rows(spec, step, formats, parallel=Parallelism()) == today
    assert rows(spec, step, formats, parallel=Parallelism(dp=4)) == today  # replicas do not change a card's rows


def test_llama_70b_tp8_weights_per_card():
    """Per card and layer: q 8192×(64/8·128) and o (1024×8192) = 8,388,608 each; k and v keep one KV head:
    8192×128 = 1,048,576 each; gate, up 8192×3584 and down 3584×8192 = 29,360,128 each; two norms of 8192 stay
    whole. Embedding and head: 128256/8 = 16032 rows of 8192 = 131,334,144 each; the final norm 8192."""
    card = rows(LLAMA_70B, Step.decode(0), BF16, parallel=Parallelism(tp=8))
    attention = 2 * 8_388_608 + 2 * 1_048_576
    ffn = 3 * 29_360_128
    per_layer = attention + ffn + 2 * 8192
    assert total(card, "weight_elements") == 80 * per_layer + 2 * 131_334_144 + 8192
    by_component = {}
    for row in card:
        by_component[row.component] = by_component.get(row.component, 0) + row.weight_elements * row.count
    assert by_component["attention.full"] == 80 * 18_874_368
    assert by_component["ffn.dense"] == 80 * 88_080_384
    # KV per token on a card: 80 layers × 1 KV head × (K + V) 2 × 128 × 2 bytes.
    assert total(card, "kv_write_bytes") == 80 * 1 * 2 * 128 * 2 == 40_960


def test_llama_70b_tp8_communication_rows_of_a_decode_step():
    """One token: an all-reduce of 8192 × 2 bytes after the embedding and after each of the 2 × 80 sublayers
    (each card sends 2·7/8 of it), and an all-gather of the 128256 logits × 2 bytes (7/8 of it)."""
    card = rows(LLAMA_70B, Step.decode(100), BF16, parallel=Parallelism(tp=8))
    communication = [r for r in card if r.kind == "communication"]
    assert sum(r.count for r in communication if r.collective == "all_reduce") == 161
    assert {r.message_bytes for r in communication if r.collective == "all_reduce"} == {16_384}
    assert total(card, "link_bytes") == 161 * 2 * 7 / 8 * 16_384 + 7 / 8 * 128_256 * 2


@pytest.mark.parametrize("collective,algorithm,sent,steps", [
    ("all_reduce", "ring", 2 * 7 / 8 * MIB, 2 * 7),     # reduce-scatter + all-gather around the ring
    ("all_reduce", "tree", 2 * MIB, 2 * 3),              # up and down a tree of depth log2 8
    ("all_gather", "ring", 7 / 8 * MIB, 7),
    ("reduce_scatter", "ring", 7 / 8 * MIB, 7),
    ("all_to_all", "ring", 7 / 8 * MIB, 1),               # 1/8 of the buffer stays on the card
    ("send", "ring", MIB, 1),
])
def test_traffic_of_each_collective_over_8_cards(collective, algorithm, sent, steps):
    assert bytes_sent(collective, MIB, 8, algorithm) == sent
    assert hops(collective, 8, algorithm) == steps


def test_floor_picks_tree_for_small_and_ring_for_large_all_reduce():
    """NVLink on an H100: 450e9 B/s per direction, 0.6 µs per hop. 16 KiB: ring 14 × 0.6 µs + 28,672 B / 450e9
    = 8.464 µs, tree 6 × 0.6 µs + 32,768 B / 450e9 = 3.673 µs. 1 GiB: ring 8.4 µs + 1.879e9 B / 450e9 = 4.184 ms,
    tree 3.6 µs + 2.147e9 / 450e9 = 4.776 ms."""
    link = topology_for(H100).link_for(8)
    small = floor_seconds("all_reduce", 16 * 1024, 8, link)
    assert small.algorithm == "tree" and small.seconds == pytest.approx(3.6e-6 + 32_768 / 450e9)
    large = floor_seconds("all_reduce", 2**30, 8, link)
    assert large.algorithm == "ring" and large.seconds == pytest.approx(14 * 0.6e-6 + 2 * 7 / 8 * 2**30 / 450e9)


def test_our_traffic_is_what_nccl_calls_bus_bytes():
    """The measured file carries NCCL's bus bytes for every call: the same numbers as bytes_sent."""
    import csv
    from pathlib import Path

    path = Path(__file__).parent.parent / "fixtures" / "collectives" / "h100_nccl_all_reduce_8.csv"
    with open(path) as file:
        for row in csv.DictReader(file):
            assert bytes_sent("all_reduce", float(row["message_bytes"]), 8) == float(row["bus_bytes"])


def test_shipped_fit_is_the_fit_of_the_measurements_and_predicts_held_out_sizes():
    from pathlib import Path

    from inferledger.ledger.collective_fit import fit_line, held_out, read_measurements
    from inferledger.ledger.collectives import fitted_parameters

    path = Path(__file__).parent.parent / "fixtures" / "collectives" / "h100_nccl_all_reduce_8.csv"
    points = read_measurements(str(path))[("h100-sxm", "all_reduce", 8)]
    latency, fraction = fit_line(points)
    shipped = fitted_parameters("h100-sxm", "all_reduce", 8)
    assert shipped["latency_seconds"] == pytest.approx(latency) and shipped["bandwidth_fraction"] == pytest.approx(
        fraction)
    assert 5e-6 < latency < 30e-6 and 0.5 < fraction <= 1.0  # NCCL's floor of a few µs; most of NVLink
    assert held_out(points)["median"] < 0.2


def test_experts_split_over_cards():
    """DeepSeek-V3, tp 8 = ep 8: a card holds 256/8 = 32 experts of 3 × 7168 × 2048 per MoE layer."""
    spec = load_model("deepseek-ai/DeepSeek-V3")
    card = rows(spec, Step.decode(0), Formats.resolve(spec), parallel=Parallelism(tp=8, ep=8))
    experts = next(r for r in card if r.name == "experts")
    assert experts.weight_elements == 32 * 3 * 7168 * 2048 and experts.count == 58


def test_mla_cache_is_whole_on_every_tensor_parallel_card():
    """MLA caches one latent per token for all heads: 61 layers × (512 + 64) × 2 bytes on each of the 8 cards."""
    spec = load_model("deepseek-ai/DeepSeek-V3")
    formats = Formats.resolve(spec, kv_precision="bf16")
    for layout in (Parallelism(tp=8), Parallelism(tp=8, ep=8, attention_dp=8)):
        card = rows(spec, Step.decode(0), formats, parallel=layout)
        assert total(card, "kv_write_bytes") == 61 * 576 * 2


def test_attention_data_parallel_splits_sequences():
    """8 attention groups of one card: 16 sequences put 2 on each card; the all-to-all sends each card's 16/8
    tokens to top 8 experts: 2 × 8 × 7168 × 2 bytes, 7/8 of it leaving the card."""
    spec = load_model("deepseek-ai/DeepSeek-V3")
    formats = Formats.resolve(spec, kv_precision="bf16")
    card = rows(spec, Step.decode(1000, batch=16), formats, parallel=Parallelism(tp=8, ep=8, attention_dp=8))
    attention = next(r for r in card if r.kind == "attention")
    assert attention.kv_read_bytes == 2 * 1001 * 576 * 2
    dispatch = next(r for r in card if r.name == "all_to_all.dispatch")
    assert dispatch.message_bytes == 2 * 8 * 7168 * 2 and dispatch.link_bytes == 7 / 8 * dispatch.message_bytes


def test_pipeline_stages_and_the_bubble_at_batch_one():
    """80 layers in 3 stages: 27, 27, 26. At batch 1 one microbatch passes both stages in turn: the step is the
    sum of the stage times and each stage idles half of it."""
    assert [len(s) for s in stage_layers(80, 3)] == [27, 27, 26]
    step = sharded_step(LLAMA_70B, Step.decode(1000), BF16, H100, Parallelism(tp=4, pp=2))
    assert step.seconds == pytest.approx(sum(s.seconds for s in step.stages))
    assert step.bubble_fraction == pytest.approx(0.5)
    wide = sharded_step(LLAMA_70B, Step.decode(1000, batch=8), BF16, H100, Parallelism(tp=4, pp=2))
    assert wide.microbatches == 2
    assert wide.seconds == pytest.approx(max(sum(s.seconds for s in wide.stages),
                                             2 * max(s.seconds for s in wide.stages)))


@pytest.mark.parametrize("layout,message", [
    (Parallelism(tp=3), "--tp 3 does not divide the 64 attention heads"),
    (Parallelism(tp=2, ep=2), "--ep 2 needs a mixture-of-experts model"),
    (Parallelism(pp=81), "--pp 81 exceeds the model's 80 layers"),
])
def test_impossible_layouts_name_the_constraint(layout, message):
    with pytest.raises(BadWorkload, match=message):
        rows(LLAMA_70B, Step.decode(10), BF16, parallel=layout)


def test_experts_that_do_not_split():
    spec = load_model("mistralai/Mixtral-8x7B-v0.1")  # 8 experts, 32 heads, 8 KV heads
    with pytest.raises(BadWorkload, match="--ep 16 does not divide the 8 experts"):
        rows(spec, Step.decode(10), Formats.resolve(spec), parallel=Parallelism(tp=16, ep=16))


def test_more_cards_than_a_node_need_an_inter_node_link():
    from inferledger.ledger.parallel import check_layout

    with pytest.raises(BadWorkload, match="span more than a node of 8: name an inter-node link"):
        check_layout(LLAMA_70B, H100, Parallelism(tp=8, pp=2))
    topology = topology_for(H100, inter_node="ib-ndr")
    assert check_layout(LLAMA_70B, H100, Parallelism(tp=8, pp=2), topology).link_for(16).bandwidth_bytes_per_second \
        == 50e9  # 400 Gb/s per direction


@pytest.mark.parametrize("gpus,given,expected", [
    (8, {}, (8, 1, 1)), (8, {"pp": 2}, (4, 2, 1)), (8, {"tp": 4, "pp": 2}, (4, 2, 1)), (16, {"tp": 8, "pp": 2},
                                                                                         (8, 2, 1)),
])
def test_gpus_is_the_product(gpus, given, expected):
    layout = Parallelism.of_gpus(gpus, **given)
    assert (layout.tp, layout.pp, layout.dp) == expected


@pytest.mark.parametrize("gpus,given,message", [
    (8, {"tp": 4}, "ambiguous"), (6, {"tp": 4}, "not a multiple"), (8, {"tp": 2, "pp": 2, "dp": 1}, "does not equal"),
])
def test_gpus_that_do_not_add_up(gpus, given, message):
    with pytest.raises(BadWorkload, match=message):
        Parallelism.of_gpus(gpus, **given)


def test_kv_handover_of_split_prefill_and_decode():
    """Llama-3.1-8B, one card each side, 1000 prompt tokens: 1000 × 131,072 bytes of cache over NVLink (both cards in
    one node): 0.6 µs + 131,072,000 / 450e9 s."""
    from inferledger.ledger.disaggregation import disaggregation

    spec = load_model("meta-llama/Llama-3.1-8B")
    split = disaggregation(spec, H100, Formats.resolve(spec), isl=1000, osl=100, decode_batch=16)
    assert split.kv_bytes_per_request == 131_072_000
    assert split.kv_transfer_seconds == pytest.approx(0.6e-6 + 131_072_000 / 450e9)
    assert split.prefill_instances_per_decode_instance == pytest.approx(
        16 * split.ttft_seconds / (100 * split.tpot_seconds))


def test_tensor_parallel_memory_per_card():
    """Llama-3.1-70B in bf16 on 8 H100s: each card holds the weights derived above × 2 bytes, and 40,960 bytes of
    KV per token; concurrency = ⌊card budget / (8192 × 40,960)⌋."""
    from inferledger.ledger.memory import memory_account

    account = memory_account(LLAMA_70B, H100, BF16, 8192, parallel=Parallelism(tp=8))
    card = account.per_card
    per_layer = 2 * 8_388_608 + 2 * 1_048_576 + 3 * 29_360_128 + 2 * 8192
    assert card["weight_bytes"] == 2 * (80 * per_layer + 2 * 131_334_144 + 8192)
    budget = 80 * 2**30 * 0.9 - card["weight_bytes"] - card["activation_workspace_bytes"] - 2**30
    assert card["kv_budget_bytes"] == pytest.approx(budget)
    assert account.max_concurrency == int(budget // (8192 * 40_960))


def test_fit_gpus_is_tensor_parallel_per_card():
    """`fit --gpus 8` is `--tp 8`: the card's weights are the TP=8 share derived above (× 2 bytes in bf16), not
    the whole model spread as a sum of memories."""
    import json
    import subprocess
    import sys

    def fit(*extra):
        result = subprocess.run([sys.executable, "-m", "inferledger", "fit", "-m", "meta-llama/Llama-3.1-70B", "-g",
                                 "h100-sxm", "--precision", "bf16", "--json", *extra], capture_output=True, text=True)
        assert result.returncode == 0, result.stderr
        return json.loads(result.stdout)

    by_gpus, by_tp = fit("--gpus", "8"), fit("--tp", "8")
    per_layer = 2 * 8_388_608 + 2 * 1_048_576 + 3 * 29_360_128 + 2 * 8192
    assert by_gpus["per_card"]["weight_bytes"] == 2 * (80 * per_layer + 2 * 131_334_144 + 8192)
    assert by_gpus == by_tp
    assert by_gpus["parallel"]["tp"] == 8 and by_gpus["num_gpus"] == 8


def test_across_nodes_an_all_reduce_is_nccl_and_never_under_its_floor():
    from inferledger.ledger.collectives import fitted_parameters, realistic_seconds
    from inferledger.ledger.parallel import realistic_communication_seconds

    topology = topology_for(H100, inter_node="ib-ndr")
    link = topology.link_for(16)
    message = 7168 * 2  # one token's hidden state of DeepSeek-V3 in bf16
    nccl = fitted_parameters("h100-sxm", "all_reduce", 16)  # the 8-card fit, the largest measured
    # The engines' custom all-reduce writes into peers' memory over NVLink: one node only, so NCCL's line alone.
    expected = nccl["latency_seconds"] + 2 * 15 / 16 * message / (nccl["bandwidth_fraction"] * 50e9)
    assert not topology.within_node(16) and topology.within_node(8)
    assert realistic_seconds("all_reduce", message, 16, link, "h100-sxm", one_node=False) == pytest.approx(expected)
    custom = fitted_parameters("h100-sxm", "custom_all_reduce", 16)
    assert realistic_seconds("all_reduce", message, 16, link, "h100-sxm") == pytest.approx(
        custom["latency_seconds"] + 2 * 15 / 16 * message / (custom["bandwidth_fraction"] * 50e9))
    # Over two nodes the floor's tree pays 2·log2(16) = 8 hops of the link's 2.7 µs: the realistic sum keeps to it.
    step = sharded_step(LLAMA_70B, Step.decode(1024, batch=1), Formats.resolve(LLAMA_70B), H100, Parallelism(tp=16),
                        topology=topology)
    (stage,) = step.stages
    assert step.realistic_communication_seconds == pytest.approx(
        realistic_communication_seconds(stage, H100, topology))
    assert step.realistic_communication_seconds >= step.communication_seconds * (1 - 1e-12)
