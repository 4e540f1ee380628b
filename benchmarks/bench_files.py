"""Reading what users have: a GGUF header with a real-sized tokenizer, and an unknown hub id with no network.

1. Writes a GGUF (gguf package's writer) whose metadata carries a Llama-3-sized tokenizer (128,256 tokens,
   280,147 merges, scores, types) and a tiny tensor table, then times the stock gguf.GGUFReader against
   inferledger's header reader (which steps over metadata arrays), each in-process, best of 3.
2. Times `inferledger model some-org/not-in-catalog` in a fresh process, with HF_HUB_OFFLINE=1 and with an
   endpoint that refuses connections (loopback port 9), against a 1 s target.

    python benchmarks/bench_files.py
"""

from __future__ import annotations

import importlib.metadata
import os
import platform
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np


def write_gguf(path: Path) -> None:
    import gguf

    writer = gguf.GGUFWriter(str(path), "llama")
    for key, value in {"block_count": 1, "embedding_length": 64, "feed_forward_length": 128,
                       "attention.head_count": 4, "attention.head_count_kv": 4}.items():
        writer.add_uint32(f"llama.{key}", value)
    writer.add_tokenizer_model("gpt2")
    writer.add_token_list([f"token{i}" for i in range(128_256)])
    writer.add_token_merges([f"a{i} b{i}" for i in range(280_147)])
    writer.add_token_scores([0.0] * 128_256)
    writer.add_token_types([1] * 128_256)
    hidden, ffn = 64, 128
    tensors = [("token_embd", (128_256, hidden))]
    tensors += [(name, (hidden,)) for name in ("output_norm", "blk.0.attn_norm", "blk.0.ffn_norm")]
    tensors += [(f"blk.0.attn_{name}", (hidden, hidden)) for name in ("q", "k", "v", "output")]
    tensors += [("blk.0.ffn_gate", (ffn, hidden)), ("blk.0.ffn_up", (ffn, hidden)), ("blk.0.ffn_down", (hidden, ffn))]
    for name, shape in tensors:
        writer.add_tensor(f"{name}.weight", np.zeros(shape, dtype=np.float16))
    writer.write_header_to_file()
    writer.write_kv_data_to_file()
    writer.write_tensors_to_file()
    writer.close()


def best_of(runs: int, function) -> float:
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        function()
        times.append(time.perf_counter() - start)
    return min(times)


def main() -> int:
    import gguf

    from inferledger.model.gguf import _header_reader

    print(f"machine: {platform.machine()}, {os.cpu_count()} cores, Python {platform.python_version()}, "
          f"gguf {importlib.metadata.version('gguf')}, numpy {np.__version__}")
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "tokenizer-sized.gguf"
        write_gguf(path)
        stock = best_of(3, lambda: gguf.GGUFReader(path))
        ours = best_of(3, lambda: _header_reader(gguf)(path))
        print(f"GGUF header with a 128,256-token vocabulary ({path.stat().st_size / 1e6:.1f} MB file): "
              f"gguf.GGUFReader {stock:.3f} s, inferledger's header reader {ours:.3f} s ({stock / ours:.0f}x)")
        environment = {k: v for k, v in os.environ.items() if not k.startswith("HF_")}
        for label, extra in (("HF_HUB_OFFLINE=1", {"HF_HUB_OFFLINE": "1"}),
                             ("endpoint refusing connections", {"HF_ENDPOINT": "http://127.0.0.1:9"})):
            env = {**environment, "HF_HOME": folder, **extra}
            seconds = best_of(3, lambda env=env: subprocess.run(
                [sys.executable, "-m", "inferledger", "model", "some-org/not-in-catalog"], capture_output=True,
                env=env))
            print(f"unknown hub id, {label}: {seconds:.2f} s in a fresh process (target < 1 s)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
