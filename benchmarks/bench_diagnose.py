"""Throughput and memory of `inferledger diagnose` on a big synthetic serving log.

Builds a log in a temporary folder from the real line shapes of the samples (vLLM V0 and V1 stats lines, SGLang
prefill/decode batch lines, each with its own timestamp advancing, plus noise lines no parser reads: access logs,
'Added request', SGLang request dumps, Python warnings), then times the whole read + parse + diagnose path
(`inferledger.diagnose.diagnose_files`) in a fresh process per size and reports lines/s, MB/s and peak RSS. The
process's one-off startup (imports and pattern compilation, timed on the log's first lines) is reported beside the
MB/s and apart from it, with the end-to-end figure that includes it: it does not grow with the log. Peak RSS at a quarter of the size and at the full size shows whether memory stays flat. Target: >= 100 MB/s.

    python benchmarks/bench_diagnose.py                 # 1 GiB and 256 MiB, then 1 % and 60 % stats lines, then SGLang
    python benchmarks/bench_diagnose.py --size-mb 64    # a quick run
    python benchmarks/bench_diagnose.py --size-mb 64 --profile-mb 50   # plus cProfile of the full path
    python benchmarks/bench_diagnose.py --shares 0.1 --processes 1     # one share, one process
    python benchmarks/bench_diagnose.py --llama-server --size-mb 64    # a llama-server log instead
    python benchmarks/bench_diagnose.py --llama-server 2025 --size-mb 64    # as a 2025 build logs it

The first of --shares gets the full report (two sizes, memory ratio, stages); each further share one run at
--size-mb, so one run shows the spread from a quiet vLLM log to a log that is mostly stats lines; then an SGLang
server log (one engine's, as a real log is: batch lines and its own noise, --sglang-share of them). Big plain
files are read by two processes (inferledger.diagnose.read, INFERLEDGER_DIAGNOSE_PROCESSES); --processes sets that.
The log is deleted when the run ends. MB here is 1e6 bytes; sizes asked for in MiB.
"""

from __future__ import annotations

import argparse
import itertools
import json
import os
import platform
import random
import resource
import shutil
import subprocess
import sys
import tempfile
import time

MiB = 2**20

# Line shapes copied from the samples (FORMATS.md §2.2, §2.5); numbers and times are filled in per line.
VLLM_V0 = ("INFO {md} {hms} metrics.py:449] Avg prompt throughput: {prompt:.1f} tokens/s, Avg generation "
           "throughput: {gen:.1f} tokens/s, Running: {running} reqs, Swapped: 0 reqs, Pending: {waiting} reqs, "
           "GPU KV cache usage: {kv:.1f}%, CPU KV cache usage: 0.0%.")
VLLM_V1 = ("(APIServer pid=92107) INFO {md} {hms} [loggers.py:271] Engine 000: Avg prompt throughput: {prompt:.1f} "
           "tokens/s, Avg generation throughput: {gen:.1f} tokens/s, Running: {running} reqs, Waiting: {waiting} "
           "reqs, GPU KV cache usage: {kv:.1f}%, Prefix cache hit rate: {hit:.1f}%")
SGLANG_DECODE = ("[{ymd} {hms} TP0] Decode batch, #running-req: {running}, #token: {tokens}, token usage: "
                 "{usage:.2f}, cuda graph: True, gen throughput (token/s): {gen:.2f}, #queue-req: {waiting}")
SGLANG_PREFILL = ("[{ymd} {hms} TP0] Prefill batch, #new-seq: 1, #new-token: {new}, #cached-token: {cached}, "
                  "token usage: {usage:.2f}, #running-req: {running}, #queue-req: {waiting}")
NOISE = (
    'INFO:     10.0.0.{a}:{port} - "POST /v1/chat/completions HTTP/1.1" 200 OK',
    "INFO {md} {hms} engine.py:267] Added request chatcmpl-{hexid}.",
    "[{ymd} {hms} TP0] Receive: obj=GenerateReqInput(rid='{hexid}', text=None, input_ids=[1, 2, 3], stream=True)",
    "DEBUG {md} {hms} [core.py:431] EngineCore loop iteration {a} took {port} us",
    "/usr/lib/python3/site-packages/torch/cuda/__init__.py:{a}: UserWarning: something about TF32 ({hexid})",
)


# A 2026 llama-server request as it logs one (../shared/logs/llamacpp__2026-server-per-line-timings-graphs-reused.txt,
# tests/fixtures/blind15_logs): every line a request's, half of them carrying its numbers. {t} is the elapsed prefix.
LLAMA_SERVER = (
    "{t} I srv  params_from_: Chat format: Gemma 4",
    "{t} I slot launch_slot_: id  {slot} | task {task} | processing task",
    "{t} I slot update_slots: id  {slot} | task {task} | new prompt, n_ctx_slot = 32768, n_keep = 0, n_prompt_tokens = "
    "{context}",
    "{t} I slot update_slots: id  {slot} | task {task} | kv cache rm [{cached}, end)",
    "{t} I slot update_slots: id  {slot} | task {task} | prompt done, n_past = {context}, n_tokens = {new}",
    "{t} I slot print_timing: id  {slot} | task {task} | n_decoded = {half}, tg = {rate:.2f} t/s",
    "{t} I slot print_timing: id  {slot} | task {task} | prompt eval time = {prompt_ms:10.2f} ms / {new:5d} tokens "
    "({prompt_per:8.2f} ms per token, {prompt_rate:8.2f} tokens per second)",
    "{t} I slot print_timing: id  {slot} | task {task} |        eval time = {eval_ms:10.2f} ms / {out:5d} tokens "
    "({per_token:8.2f} ms per token, {rate:8.2f} tokens per second)",
    "{t} I slot print_timing: id  {slot} | task {task} |       total time = {total_ms:10.2f} ms / {tokens:5d} tokens",
    "{t} I slot print_timing: id  {slot} | task {task} |    graphs reused = {graphs}",
    "{t} I slot      release: id  {slot} | task {task} | stop processing: n_tokens = {end}, truncated = 0",
    "{t} I srv  update_slots: all slots are idle",
    "{t} I srv  log_server_r: request: POST /v1/chat/completions 127.0.0.1 200",
)


# The same request as a 2025 build logs it (tests/fixtures/blind15_logs, blind67_logs): no prefix, the slot released
# before its timings, which come bare under a header line.
LLAMA_SERVER_2025 = (
    "srv  params_from_: Chat format: Content-only",
    "slot get_availabl: id  {slot} | task -1 | selected slot by lcs similarity, lcs_len = {cached}, similarity = "
    "0.438 (> 0.100 thold)",
    "slot launch_slot_: id  {slot} | task {task} | processing task",
    "slot update_slots: id  {slot} | task {task} | new prompt, n_ctx_slot = 32768, n_keep = 0, n_prompt_tokens = "
    "{context}",
    "slot update_slots: id  {slot} | task {task} | kv cache rm [{cached}, end)",
    "slot update_slots: id  {slot} | task {task} | prompt processing progress, n_past = {context}, n_tokens = {new}, "
    "progress = 0.961538",
    "slot update_slots: id  {slot} | task {task} | prompt done, n_past = {context}, n_tokens = {new}",
    "slot      release: id  {slot} | task {task} | stop processing: n_past = {end}, truncated = 0",
    "slot print_timing: id  {slot} | task {task} | ",
    "prompt eval time = {prompt_ms:10.2f} ms / {new:5d} tokens ({prompt_per:8.2f} ms per token, {prompt_rate:8.2f} "
    "tokens per second)",
    "       eval time = {eval_ms:10.2f} ms / {out:5d} tokens ({per_token:8.2f} ms per token, {rate:8.2f} tokens per "
    "second)",
    "      total time = {total_ms:10.2f} ms / {tokens:5d} tokens",
    "srv  update_slots: all slots are idle",
    "srv  log_server_r: request: POST /v1/chat/completions 127.0.0.1 200",
)
LLAMA_SERVER_SHAPES = {"2026": LLAMA_SERVER, "2025": LLAMA_SERVER_2025}


def build_llama_server_log(path: str, size_bytes: int, seed: int = 0, shapes: tuple = LLAMA_SERVER) -> int:
    """Write about `size_bytes` of a llama-server log (`shapes`, one request after another, numbers drawn per
    request); return the line count."""
    rng = random.Random(seed)
    written = lines = task = 0
    elapsed = 0.0
    with open(path, "w", encoding="utf-8") as handle:
        chunk: list = []
        while written < size_bytes:
            task += 1
            new, out = rng.randint(16, 4096), rng.randint(16, 1024)
            cached = rng.randint(0, 16384)
            rate, prompt_rate = rng.uniform(20, 120), rng.uniform(300, 3000)
            numbers = dict(slot=rng.randint(0, 3), task=task, new=new, out=out, cached=cached, context=cached + new,
                           half=out // 2, rate=rate, prompt_rate=prompt_rate, prompt_ms=new / prompt_rate * 1e3,
                           prompt_per=1e3 / prompt_rate, eval_ms=out / rate * 1e3, per_token=1e3 / rate,
                           total_ms=(new / prompt_rate + out / rate) * 1e3, tokens=new + out, graphs=out - 1,
                           end=cached + new + out)
            for shape in shapes:
                elapsed += 0.05
                minutes, seconds = divmod(elapsed, 60)
                stamp = f"{int(minutes):02d}.{int(seconds):02d}.{int(seconds % 1 * 1e3):03d}.000"
                chunk.append(shape.format(t=stamp, **numbers))
            if len(chunk) >= 20_000:
                text = "\n".join(chunk) + "\n"
                handle.write(text)
                written += len(text)
                lines += len(chunk)
                chunk = []
        if chunk:
            handle.write("\n".join(chunk) + "\n")
            lines += len(chunk)
    return lines


def _vllm_numbers(rng: random.Random, running: int) -> dict:
    return dict(prompt=rng.uniform(0, 5000), gen=rng.uniform(0, 9000), kv=rng.uniform(0, 99))


def _vllm_v1_numbers(rng: random.Random, running: int) -> dict:
    return dict(_vllm_numbers(rng, running), hit=rng.uniform(0, 90))


def _decode_numbers(rng: random.Random, running: int) -> dict:
    return dict(tokens=running * 400, usage=rng.random(), gen=rng.uniform(100, 9000))


def _prefill_numbers(rng: random.Random, running: int) -> dict:
    return dict(new=rng.randint(1, 8192), cached=rng.randint(0, 8192), usage=rng.random())


# A log's stats lines: (upper end of the roll, shape, its numbers drawn), in order; a roll (uniform 0..1 ÷ the stats
# share) past the last is a noise line. MIXED: a third each vLLM V0, vLLM V1, SGLang decode/prefill. SGLANG: one
# engine's server log, as a real log is (decode lines three for each prefill line).
MIXED = ((1 / 3, VLLM_V0, _vllm_numbers), (2 / 3, VLLM_V1, _vllm_v1_numbers), (0.92, SGLANG_DECODE, _decode_numbers),
         (1, SGLANG_PREFILL, _prefill_numbers))
SGLANG = ((0.76, SGLANG_DECODE, _decode_numbers), (1, SGLANG_PREFILL, _prefill_numbers))
# An SGLang server's own lines around its batch lines: uvicorn's access log, with and without SGLang's stamp, and the
# request dumps of --log-requests.
SGLANG_NOISE = (
    'INFO:     10.0.0.{a}:{port} - "POST /v1/chat/completions HTTP/1.1" 200 OK',
    '[{ymd} {hms}] INFO:     127.0.0.1:{port} - "POST /generate HTTP/1.1" 200 OK',
    "[{ymd} {hms} TP0] Receive: obj=GenerateReqInput(rid='{hexid}', text=None, input_ids=[1, 2, 3], stream=True)",
    "[{ymd} {hms}] Finish: obj=GenerateReqInput(rid='{hexid}'), out={{'meta_info': {{'completion_tokens': {a}}}}}",
)


def build_log(path: str, size_bytes: int, seed: int = 0, stats_share: float = 0.1, engines=MIXED,
              noise=NOISE) -> int:
    """Write about `size_bytes` of log to `path` (in 4 MiB chunks, constant memory); return the line count.

    `stats_share` of the lines are engine stats lines (`engines`: by default a third each vLLM V0, vLLM V1, SGLang
    decode/prefill), the rest `noise`. Real logs range from ~0.1 % (a vLLM server behind a busy access log: one stats
    line per 5-10 s) to over half (SGLang logs a Prefill line per prefill batch and a Decode line per 40 steps)."""
    rng = random.Random(seed)
    start = time.mktime((2025, 3, 14, 2, 0, 0, 0, 0, -1))
    written = lines = 0
    second = 0.0
    with open(path, "w", encoding="utf-8") as handle:
        chunk: list = []
        chunk_bytes = 0
        while written < size_bytes:
            second += 0.5
            moment = time.localtime(start + second)
            hms = time.strftime("%H:%M:%S", moment)
            md = time.strftime("%m-%d", moment)
            ymd = time.strftime("%Y-%m-%d", moment)
            running = rng.randint(1, 512)
            waiting = rng.choice((0, 0, 0, rng.randint(1, 100)))
            roll = rng.random() / stats_share  # < 1 for a stats line
            for upper, shape, numbers in engines:
                if roll < upper:
                    line = shape.format(md=md, hms=hms, ymd=ymd, running=running, waiting=waiting,
                                        **numbers(rng, running))
                    break
            else:
                line = rng.choice(noise).format(a=rng.randint(1, 254), port=rng.randint(1024, 65535), md=md,
                                                hms=hms, ymd=ymd, hexid=f"{rng.getrandbits(64):016x}")
            chunk.append(line)
            chunk_bytes += len(line) + 1
            if chunk_bytes >= 4 * MiB:
                handle.write("\n".join(chunk) + "\n")
                written += chunk_bytes
                lines += len(chunk)
                chunk, chunk_bytes = [], 0
        if chunk:
            handle.write("\n".join(chunk) + "\n")
            lines += len(chunk)
    return lines


def worker(path: str, profile: bool) -> dict:
    """Run the full diagnose path once on `path` in this (fresh) process; report time and peak RSS. First the same
    path on the log's first 200 lines, timed apart as the one-off startup (the parsers' imports and patterns, which a
    fresh process without bytecode caches compiles): the MB/s is the large log's own; the startup is reported beside
    it, and is what separates it from an end-to-end figure."""
    from inferledger.diagnose import diagnose_files

    head = path + ".head"
    with open(path, "rb") as source, open(head, "wb") as target:
        target.writelines(itertools.islice(source, 200))
    began = time.perf_counter()
    diagnose_files([head])
    startup = time.perf_counter() - began
    os.remove(head)
    size = os.path.getsize(path)
    profiler = None
    if profile:
        import cProfile

        profiler = cProfile.Profile()
        profiler.enable()
    began = time.perf_counter()
    diagnosis = diagnose_files([path])
    seconds = time.perf_counter() - began
    if profiler is not None:
        import io
        import pstats

        profiler.disable()
        text = io.StringIO()
        pstats.Stats(profiler, stream=text).sort_stats("tottime").print_stats(18)
        sys.stderr.write(text.getvalue())
    # ru_maxrss is KiB on Linux, bytes on macOS.
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * (1 if sys.platform == "darwin" else 1024)
    document = diagnosis.to_dict() if hasattr(diagnosis, "to_dict") else {}
    return {"bytes": size, "seconds": seconds, "startup_seconds": startup, "peak_rss_bytes": peak,
            "verdict": document.get("verdict")}


def stages(path: str) -> list:
    """Seconds for the reader alone and for reader + each detected parser: where the full path spends its time."""
    from inferledger.diagnose.parsers import detect
    from inferledger.diagnose.read import LogFile

    rows = []
    began = time.perf_counter()
    count = sum(1 for _ in LogFile.open(path).lines())
    rows.append(("read and clean lines", time.perf_counter() - began, count))
    for module in detect(LogFile.open(path).head):
        began = time.perf_counter()
        count = sum(1 for _ in module.parse(LogFile.open(path).lines()))
        rows.append((f"read + parser {module.NAME}", time.perf_counter() - began, count))
    return rows


def run_worker(path: str, profile: bool = False, processes: int = 0) -> dict:
    command = [sys.executable, __file__, "--worker", path] + (["--profile"] if profile else [])
    env = dict(os.environ)
    if processes:
        env["INFERLEDGER_DIAGNOSE_PROCESSES"] = str(processes)
    result = subprocess.run(command, capture_output=True, text=True, check=False, env=env)
    if result.returncode != 0:
        raise SystemExit(f"worker failed on {path}:\n{result.stderr[-2000:]}")
    if profile:
        sys.stdout.write(result.stderr)
    return json.loads(result.stdout.strip().splitlines()[-1])


def machine() -> str:
    """nproc, CPU model and load: the numbers below mean nothing without them."""
    model = platform.processor() or platform.machine()
    try:
        with open("/proc/cpuinfo", encoding="utf-8") as handle:
            for line in handle:
                if line.startswith("model name"):
                    model = line.split(":", 1)[1].strip()
                    break
    except OSError:
        pass
    usable = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
    load = ""
    if hasattr(os, "getloadavg"):
        one, five, fifteen = os.getloadavg()
        load = f" load average {one:.2f} {five:.2f} {fifteen:.2f};"
    return (f"machine: {model}, nproc {usable} (cpu_count {os.cpu_count()});{load} "
            f"Python {platform.python_version()} {platform.machine()}")


def _row(result: dict, lines: int, built: float) -> str:
    return (f"{result['bytes'] / 1e6:9.1f} MB  {lines:>11,} lines  built in {built:5.1f} s  "
            f"diagnosed in {result['seconds']:6.2f} s (+{result['startup_seconds']:.2f} s startup)  "
            f"{result['bytes'] / 1e6 / result['seconds']:7.1f} MB/s  "
            f"{lines / result['seconds']:>10,.0f} lines/s  peak RSS {result['peak_rss_bytes'] / 1e6:7.1f} MB  "
            f"verdict {result['verdict']}")


TARGET_MB_PER_S = 100


def _against_target(result: dict) -> float:
    """Print a run's MB/s as a ratio to the issue's target; return the MB/s."""
    speed = result["bytes"] / 1e6 / result["seconds"]
    whole = result["bytes"] / 1e6 / (result["seconds"] + result["startup_seconds"])
    print(f"throughput {speed:.1f} MB/s vs target {TARGET_MB_PER_S} MB/s: ratio {speed / TARGET_MB_PER_S:.2f} "
          f"(end to end with the {result['startup_seconds']:.2f} s startup: {whole:.1f} MB/s)")
    return speed


def llama_server_run(size_mb: int, small_mb: int = 0, build: str = "2026") -> int:
    """The --llama-server report: a log of a quarter of size_mb MiB (or small_mb) and one of size_mb, for the peak RSS
    ratio (memory flat), then the speed of the larger against the target. Big plain files are read by two processes
    as the other logs are (INFERLEDGER_DIAGNOSE_PROCESSES)."""
    folder = tempfile.mkdtemp(prefix="inferledger-bench-")
    try:
        print(machine())
        shapes = LLAMA_SERVER_SHAPES[build]
        print(f"\nllama-server log of a {build} build, one request after another ({len(shapes)} lines a request)")
        rows = []
        for size in (small_mb or max(size_mb // 4, 1), size_mb):
            path = os.path.join(folder, f"llama-server-{size}MiB.log")
            began = time.perf_counter()
            lines = build_llama_server_log(path, size * MiB, shapes=shapes)
            built = time.perf_counter() - began
            rows.append(run_worker(path))
            print(_row(rows[-1], lines, built))
            os.remove(path)
        small, big = rows
        print(f"size ratio {big['bytes'] / small['bytes']:.2f}x -> peak RSS ratio "
              f"{big['peak_rss_bytes'] / small['peak_rss_bytes']:.2f}x (1.00 = flat memory)")
        _against_target(big)
    finally:
        shutil.rmtree(folder, ignore_errors=True)
    return 0


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--size-mb", type=int, default=1024, help="log size in MiB (default 1024 = 1 GiB)")
    parser.add_argument("--small-mb", type=int, default=0,
                        help="second, smaller size for the memory comparison (default: a quarter of --size-mb)")
    parser.add_argument("--profile-mb", type=int, default=0, help="also cProfile the full path on a log this big")
    parser.add_argument("--stats-share", type=float, default=None,
                        help="only this fraction of stats lines (same as --shares with one value)")
    parser.add_argument("--shares", default="0.1,0.01,0.6",
                        help="comma-separated fractions of lines that are engine stats lines, the rest noise; the "
                             "first gets the full report (default 0.1,0.01,0.6)")
    parser.add_argument("--sglang-share", type=float, default=0.6,
                        help="then an SGLang server log (one engine: batch lines and its own noise) with this share "
                             "of batch lines, at --size-mb (default 0.6; 0: none)")
    parser.add_argument("--processes", type=int, default=0,
                        help="processes for one big file (INFERLEDGER_DIAGNOSE_PROCESSES; default: the library's)")
    parser.add_argument("--llama-server", nargs="?", const="2026", choices=sorted(LLAMA_SERVER_SHAPES),
                        help="instead: a llama-server log of one request after another (per-request timing lines), "
                             "as a 2026 build (the default) or a 2025 build logs it")
    parser.add_argument("--worker", help=argparse.SUPPRESS)
    parser.add_argument("--profile", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.worker:
        print(json.dumps(worker(args.worker, args.profile)))
        return 0

    if args.llama_server:
        return llama_server_run(args.size_mb, args.small_mb, args.llama_server)
    shares = [args.stats_share] if args.stats_share is not None else [float(x) for x in args.shares.split(",")]
    small_mb = args.small_mb or max(args.size_mb // 4, 1)
    folder = tempfile.mkdtemp(prefix="inferledger-bench-")
    try:
        print(machine())
        print(f"processes per file: {args.processes or os.environ.get('INFERLEDGER_DIAGNOSE_PROCESSES') or 'default'}")
        share = shares[0]
        print(f"\nstats lines {share:.0%} of all lines")
        rows = []
        for size_mb in (small_mb, args.size_mb):
            path = os.path.join(folder, f"synthetic-{size_mb}MiB.log")
            began = time.perf_counter()
            lines = build_log(path, size_mb * MiB, stats_share=share)
            built = time.perf_counter() - began
            result = run_worker(path, processes=args.processes)
            result["lines"] = lines
            rows.append(result)
            print(_row(result, lines, built))
            if size_mb == small_mb:  # where the time goes, on the smaller log
                size = os.path.getsize(path) / 1e6
                for name, seconds, count in stages(path):
                    print(f"    {name:28s} {seconds:6.2f} s  {size / seconds:7.1f} MB/s  ({count:,} items)")
            os.remove(path)
        small, big = rows
        print(f"size ratio {big['bytes'] / small['bytes']:.2f}x -> peak RSS ratio "
              f"{big['peak_rss_bytes'] / small['peak_rss_bytes']:.2f}x (1.00 = flat memory)")
        spread = [(share, _against_target(big))]
        for other in shares[1:]:
            path = os.path.join(folder, f"synthetic-{args.size_mb}MiB-{other}.log")
            began = time.perf_counter()
            lines = build_log(path, args.size_mb * MiB, stats_share=other)
            built = time.perf_counter() - began
            result = run_worker(path, processes=args.processes)
            print(f"\nstats lines {other:.0%} of all lines")
            print(_row(result, lines, built))
            spread.append((other, result["bytes"] / 1e6 / result["seconds"]))
            os.remove(path)
        if args.sglang_share:
            path = os.path.join(folder, f"sglang-{args.size_mb}MiB-{args.sglang_share}.log")
            began = time.perf_counter()
            lines = build_log(path, args.size_mb * MiB, stats_share=args.sglang_share, engines=SGLANG,
                              noise=SGLANG_NOISE)
            built = time.perf_counter() - began
            result = run_worker(path, processes=args.processes)
            print(f"\nSGLang server log (one engine), stats lines {args.sglang_share:.0%} of all lines")
            print(_row(result, lines, built))
            spread.append((f"SGLang only {args.sglang_share:.0%}", _against_target(result)))
            os.remove(path)
        if len(spread) > 1:
            print("\nMB/s by stats-line share at {} MiB: {}".format(
                args.size_mb, ", ".join(f"{share if isinstance(share, str) else f'{share:.0%}'}: {speed:.1f}"
                                        for share, speed in spread)))
        if args.profile_mb:
            path = os.path.join(folder, f"profile-{args.profile_mb}MiB.log")
            build_log(path, args.profile_mb * MiB, seed=1, stats_share=share)
            print(f"\ncProfile of the full path on {args.profile_mb} MiB (top functions by own time):")
            run_worker(path, profile=True, processes=args.processes)
            os.remove(path)
    finally:
        shutil.rmtree(folder, ignore_errors=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
