"""`inferledger bench`: this machine's ceilings, and a real NumPy decode loop beside the ledger's floor and
realistic estimate for the same (scaled-down) model."""

from __future__ import annotations

import sys

HELP = "measure this machine (peak FLOP/s, bandwidth, call latency) and check the ledger against a real decode loop"


def add_arguments(parser) -> None:
    from inferledger.cli._output import add_json_flag

    parser.add_argument("--model", default="meta-llama/Llama-3.2-1B", metavar="M",
                        help="a dense llama/qwen2/qwen3 config to scale down and run (default: meta-llama/Llama-3.2-1B)")
    parser.add_argument("--size", default="small", metavar="S",
                        help="small (weights ≈ 4× the last-level cache, 32-token prompt) or medium (8×, 128 tokens)")
    parser.add_argument("--backend", default="numpy", metavar="B",
                        help="numpy (default) or torch (ceilings only; needs PyTorch)")
    parser.add_argument("--device", default="cpu", metavar="D", help="cpu (default) or cuda (torch backend)")
    add_json_flag(parser)


def run(args) -> int:
    from inferledger.cli._output import print_json
    from inferledger.measure.bench import run_bench

    on_terminal = sys.stderr.isatty()

    def progress(message: str) -> None:
        if on_terminal:
            sys.stderr.write(f"\r\033[Kbench: {message}")
            sys.stderr.flush()

    try:
        result = run_bench(args.model, args.size, args.backend, args.device, progress)
    finally:
        if on_terminal:
            sys.stderr.write("\r\033[K")
    if args.json:
        print_json(result)
    else:
        print(render(result))
    return 0


def render(result) -> str:
    from inferledger.report.table import render_table

    c = result.ceilings
    doc = result.to_dict()
    flops = ", ".join(f"{k} {v / 1e9:,.1f}" for k, v in c.flops_per_second_by_dtype.items())
    lines = [
        f"machine: {c.device_name} ({c.backend} on {c.device}), last-level cache {c.last_level_cache_bytes / 2**20:g} MiB, "
        f"arrays of {c.array_bytes / 2**20:g} MiB",
        f"  peak matmul GFLOP/s   {flops}",
        f"  memory GB/s           {c.memory_bandwidth_bytes_per_second / 1e9:,.1f} "
        f"(read {c.read_bandwidth_bytes_per_second / 1e9:,.1f}, copy {c.copy_bandwidth_bytes_per_second / 1e9:,.1f} "
        "counting bytes read + written)",
        f"  call latency µs       {doc['ceilings']['call_latency_seconds'] * 1e6:,.2f} per NumPy call of the decode loop "
        f"(tiny op alone {c.tiny_call_seconds * 1e6:,.2f})",
    ]
    if result.prefill:
        m = result.model
        lines += [
            "",
            f"model: {m['source']} scaled to {m['layers']} layers × {m['hidden_size']} wide ({m['num_attention_heads']} "
            f"heads, {m['num_key_value_heads']} KV heads of {m['head_dim']}, FFN {m['intermediate_size']}, vocab "
            f"{m['vocab_size']}), {m['parameters'] / 1e6:,.1f} M parameters = {m['weight_bytes'] / 2**20:,.0f} MiB "
            f"float32 ({m['weight_bytes_over_last_level_cache']:.1f}× the cache)",
            f"workload: {m['prompt_tokens']}-token prompt, {m['new_tokens']} tokens greedy, median of {m['repeats']} runs "
            "after a burn-in",
            "",
        ]
        table = []
        for label, phase in (("prefill", result.prefill), ("decode / token", result.decode)):
            table.append([label, f"{phase.measured_seconds * 1e3:,.2f}", f"{phase.floor_seconds * 1e3:,.2f}",
                          f"{phase.realistic_seconds * 1e3:,.2f}",
                          f"{phase.measured_seconds / phase.floor_seconds:,.2f}",
                          f"{phase.realistic_seconds / phase.measured_seconds:,.2f}"])
        lines.append(render_table(["phase", "measured ms", "floor ms", "realistic ms", "measured/floor",
                                   "realistic/measured"], table, align="lrrrrr"))
    lines += ["", "notes:"] + [f"  - {note}" for note in result.notes]
    return "\n".join(lines)
