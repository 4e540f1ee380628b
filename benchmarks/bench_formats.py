"""MB/s of `inferledger diagnose` per log format, on real samples repeated into a big file.

bench_diagnose.py times the usual stats lines (vLLM, SGLang) and llama-server's requests on logs built from their
line shapes; this one takes the real samples of the other formats (tests/fixtures, ../shared/logs), each log body
(its `# ` header lines dropped) repeated until the file is --size-mb, and times the whole diagnose path on it in a
fresh process. A sample repeated is every line a reader's line: the worst case of each format, as a log that is
nothing but its request lines. The file is under PARALLEL_MIN_BYTES unless --size-mb says otherwise, so one process
reads it. MB here is 1e6 bytes.

    python benchmarks/bench_formats.py                 # the samples below, 32 MB each
    python benchmarks/bench_formats.py --size-mb 8 tests/fixtures/logs/tgi__some.txt
"""

from __future__ import annotations

import argparse
import os
import platform
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SAMPLES = (
    "../shared/logs/tgi__cpu-backend-generate-success-line.txt",
    "../shared/logs/llamacpp__2024-server-json-style-timings.txt",
    "../shared/logs/ollama__verbose-mistral-2024-baseline.txt",
    "../shared/logs/vllm__v06-single-request-decode.txt",
    "../shared/logs/sglang__2025-decode-batch-drain.txt",
    "tests/fixtures/blind59_logs/llamacpp__m2-max-96gb-70b-print-timings-three-runs.txt",
    "tests/fixtures/blind56_logs/vllm__v0-runpod-openchat-ten-concurrent-hang-5-running.txt",
    "tests/fixtures/blind73_logs/ollama__2025-gin-api-show-burst-cpu-only.txt",
)
WORKER = ("import os, sys, time\nfrom inferledger.diagnose import diagnose_files\npath = sys.argv[1]\n"
          "began = time.perf_counter()\ndiagnosis = diagnose_files([path])\nseconds = time.perf_counter() - began\n"
          "print(os.path.getsize(path) / seconds / 1e6, diagnosis.files[0]['formats'][0], diagnosis.verdict)\n")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("samples", nargs="*", help="log files (default: a sample of each per-request format)")
    parser.add_argument("--size-mb", type=float, default=32.0, help="size of each repeated log (default 32)")
    args = parser.parse_args()
    print(f"machine: {platform.processor() or platform.machine()}, nproc {os.cpu_count()}; Python "
          f"{platform.python_version()}; {args.size_mb:g} MB a log")
    with tempfile.TemporaryDirectory() as folder:
        for sample in args.samples or SAMPLES:
            path = Path(sample) if Path(sample).is_absolute() else ROOT / sample
            if not path.exists():
                print(f"{path.name[:64]:64s} missing")
                continue
            body = "".join(line for line in path.read_text(encoding="utf-8", errors="replace").splitlines(True)
                           if not line.startswith("# "))
            body += "" if body.endswith("\n") else "\n"
            log = Path(folder) / "repeated.log"
            log.write_text(body * max(1, int(args.size_mb * 1e6 / len(body.encode()))), encoding="utf-8")
            result = subprocess.run([sys.executable, "-c", WORKER, str(log)], capture_output=True, text=True)
            if result.returncode:
                print(f"{path.name[:64]:64s} failed: {result.stderr.strip().splitlines()[-1:]}")
                continue
            rate, reader, verdict = result.stdout.split()
            print(f"{path.name[:64]:64s} {float(rate):7.1f} MB/s  reader {reader:16s} verdict {verdict}")


if __name__ == "__main__":
    main()
