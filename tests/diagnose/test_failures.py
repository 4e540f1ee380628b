"""The engine's own out-of-memory failure read wherever a paste holds one (diagnose/failures.py).

The samples are real (the blind rounds' fixtures, each citing its thread) or the engines' lines as the cited threads
print them; the line numbers expected are counted here from what the test writes.
"""

from __future__ import annotations

from pathlib import Path

from blind_helpers import write

from inferledger.diagnose import diagnose_files
from inferledger.diagnose.failures import failure_records
from inferledger.diagnose.read import HEAD_BYTES

FIXTURES = Path(__file__).parent.parent / "fixtures"

# vLLM V1's engine core ending a run (vllm-project/vllm#29049): no reader knows a traceback.
VLLM_V1_OOM = FIXTURES / "blind237_logs" / "vllm__v1-0111-lora-adapters-sampler-logits-sort-cuda-oom.txt"
# oMLX's memory guard aborting a request, quoted by the user (jundot/omlx#1945).
OMLX_GUARD = FIXTURES / "blind236_logs" / "omlx__mac-mini-m4-24gb-hermes-agent-request-aborted-process-memory-limit.txt"
# SGLang: one decode line, then the scheduler's traceback (`Failed to allocate token prealloc indices`).
SGLANG_PREALLOC = FIXTURES / "blind218_logs" / "sglang__lmcache-integration-one-decode-line-then-prealloc-alloc-failure.txt"

STATS = ("INFO 05-11 08:17:{second:02d} metrics.py:467] Avg prompt throughput: 0.0 tokens/s, Avg generation "
         "throughput: 41.0 tokens/s, Running: 1 reqs, Swapped: 0 reqs, Pending: 0 reqs, GPU KV cache usage: 3.1%, "
         "CPU KV cache usage: 0.0%\n")
OOM_LINE = ("ERROR 05-11 08:19:02 engine.py:160] torch.OutOfMemoryError: CUDA out of memory. Tried to allocate "
            "1.47 GiB. GPU 0 has a total capacity of 79.11 GiB of which 1.25 GiB is free.\n")


def _evidence(diagnosis, rule: str) -> str:
    return next(item.text for item in diagnosis.evidence if item.rule == rule)


def test_a_paste_that_is_only_the_failure_reads_as_memory_capacity():
    diagnosis = diagnose_files([VLLM_V1_OOM])
    assert diagnosis.verdict == "kv-capacity"
    # The engine's own words from the exception on, without the log collector's prefix.
    assert "`torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 1.47 GiB." in _evidence(
        diagnosis, "state-preemption")
    assert diagnosis.files[0]["formats"] == ["engine-failure"]


def test_a_memory_guard_abort_is_a_failure_too():
    diagnosis = diagnose_files([OMLX_GUARD])
    assert diagnosis.verdict == "kv-capacity"
    assert "process memory limit exceeded (usage 22.3 GB, ceiling 17.0 GB)" in _evidence(diagnosis, "state-preemption")


def test_a_crash_after_a_healthy_window_outranks_it():
    # One decode window at 93.5 tok/s, KV 51 %: healthy on its own; then the scheduler died for want of token slots.
    diagnosis = diagnose_files([SGLANG_PREALLOC])
    assert diagnosis.verdict == "kv-capacity"
    # The traceback's `raise ValueError("Failed to allocate …")` source line is not a second event: one failure.
    assert diagnosis.to_dict()["events"]["oom"] == 1


def test_the_failure_at_the_end_of_a_long_log_is_read_from_its_tail(tmp_path):
    # Past the 64 KB head: the stats lines alone fill more than it, and the failure is the last line.
    windows = HEAD_BYTES // len(STATS) + 200
    text = "".join(STATS.format(second=index % 60) for index in range(windows)) + OOM_LINE
    diagnosis = diagnose_files([write(tmp_path, text)])
    assert diagnosis.verdict == "kv-capacity"
    lines = next(item.lines for item in diagnosis.evidence if item.rule == "state-preemption")
    assert lines == [windows + 1]  # numbered as in the file: after every stats line


def test_prose_a_quoted_raise_and_a_header_are_not_failures():
    lines = ["I think I ran out of memory when the context grew",
             '    raise ValueError("Failed to allocate token prealloc indices")',
             '  File "/usr/lib/python3/site-packages/torch/cuda/memory.py", line 12, in OutOfMemoryError',
             "# source: an issue titled CUDA error: out of memory",
             "the card has 24 GB of memory"]
    assert failure_records(lines) == []


def test_each_runtimes_spelling_is_read():
    lines = ["ggml_backend_cuda_buffer_type_alloc_buffer: allocating 9216.00 MiB on device 0: cudaMalloc failed: "
             "out of memory",
             "jaxlib.xla_extension.XlaRuntimeError: RESOURCE_EXHAUSTED: Error allocating device buffer",
             "RuntimeError: HIP out of memory. Tried to allocate 2.00 GiB",
             "[  123.4] Out of memory: Killed process 4242 (llama-server)",
             "llama_model_load: error loading model: unable to allocate CUDA0 buffer"]
    assert [record.line_number for record in failure_records(lines, first_line=10)] == [10, 11, 12, 13, 14]
