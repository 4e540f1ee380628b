"""The request ledger against published end-to-end throughput: NVIDIA's TensorRT-LLM performance tables for LLaMA 7B
(same shapes as meta-llama/Llama-2-7b-hf in the catalog), static batches of B requests of ISL in / OSL out, output
tokens per second. Prints a markdown table (docs/accuracy.md shows it): published, floor, realistic, and the ratios.

    python benchmarks/published_throughput.py

Sources:
  v0.5.0: https://raw.githubusercontent.com/NVIDIA/TensorRT-LLM/release/0.5.0/docs/source/performance.md
          (H100 FP8, L40S FP8, A100 FP16; "Throughput (out tok/s)")
  v0.9.0: https://nvidia.github.io/TensorRT-LLM/performance/perf-overview.html (release 0.9.0 page, H100 and H200
          FP8, "Throughput (out tok/s/GPU)")
Assumed (the tables do not say): the FP8 runs keep an FP8 KV cache (an FP16 cache would put several H100 and L40S
rows above the floor, which no run can beat); the A100 FP16 runs an FP16 cache.
"""

import sys

from inferledger.hardware import find_accelerator
from inferledger.ledger.request import request_account
from inferledger.model import load_model

PUBLISHED = [  # (release, gpu, precision, batch, isl, osl, output tokens/s)
    ("0.5.0", "h100-sxm", "fp8", 64, 128, 128, 9193), ("0.5.0", "h100-sxm", "fp8", 64, 128, 2048, 5367),
    ("0.5.0", "h100-sxm", "fp8", 64, 2048, 128, 2058), ("0.5.0", "h100-sxm", "fp8", 32, 2048, 2048, 2230),
    ("0.5.0", "l40s", "fp8", 64, 128, 128, 3240), ("0.5.0", "l40s", "fp8", 64, 128, 2048, 1622),
    ("0.5.0", "l40s", "fp8", 32, 2048, 128, 581), ("0.5.0", "l40s", "fp8", 16, 2048, 2048, 531),
    ("0.5.0", "a100-sxm-80gb", "fp16", 64, 128, 128, 3486), ("0.5.0", "a100-sxm-80gb", "fp16", 32, 128, 2048, 1459),
    ("0.5.0", "a100-sxm-80gb", "fp16", 32, 2048, 128, 529), ("0.5.0", "a100-sxm-80gb", "fp16", 16, 2048, 2048, 592),
    ("0.9.0", "h100-sxm", "fp8", 896, 128, 128, 19854), ("0.9.0", "h100-sxm", "fp8", 120, 128, 2048, 6944),
    ("0.9.0", "h100-sxm", "fp8", 84, 2048, 128, 2163),
    ("0.9.0", "h200-sxm", "fp8", 896, 128, 128, 20618), ("0.9.0", "h200-sxm", "fp8", 120, 128, 2048, 8348),
    ("0.9.0", "h200-sxm", "fp8", 64, 2048, 128, 2391), ("0.9.0", "h200-sxm", "fp8", 56, 2048, 2048, 3522),
]


def rows():
    spec = load_model("meta-llama/Llama-2-7b-hf")
    for release, gpu, precision, batch, isl, osl, published in PUBLISHED:
        account = request_account(spec, find_accelerator(gpu), isl=isl, osl=osl, batch=batch, precision=precision,
                                  kv_precision=precision)
        floor = batch * osl / account.total_seconds
        realistic = batch * osl / account.realistic.total_seconds
        yield release, gpu, precision, batch, isl, osl, published, floor, realistic


def main() -> int:
    print("| TRT-LLM | card | weights + KV | batch | ISL / OSL | published tok/s | floor tok/s | realistic tok/s "
          "| published / floor | published / realistic |")
    print("|---|---|---|---|---|---|---|---|---|---|")
    ratios = []
    for release, gpu, precision, batch, isl, osl, published, floor, realistic in rows():
        ratios.append(published / realistic)
        print(f"| {release} | {gpu} | {precision} | {batch} | {isl} / {osl} | {published:,} | {floor:,.0f} | "
              f"{realistic:,.0f} | {published / floor:.2f} | {published / realistic:.2f} |")
    ratios.sort()
    print(f"\nmedian published / realistic: {ratios[len(ratios) // 2]:.2f} over {len(ratios)} published rows")
    return 0


if __name__ == "__main__":
    sys.exit(main())
