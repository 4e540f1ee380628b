"""The engine's own out-of-memory failure, wherever a paste holds one.

Users paste the traceback that ended a run as often as its numbers: `torch.OutOfMemoryError: CUDA out of memory.
Tried to allocate 4.00 GiB`, llama.cpp's `cudaMalloc failed: out of memory`, SGLang's `Failed to allocate token
prealloc indices` and `alloc_req_slots runs out of memory`, XLA's `RESOURCE_EXHAUSTED`, oMLX's `process memory limit
exceeded`, xLLM's `no enough memory to schedule a single sequence`, the kernel's `Out of memory: Killed process`,
iOS's `EXC_RESOURCE (RESOURCE_TYPE_MEMORY`, TT-Metal's `Out of Memory: Not enough space to allocate … B DRAM buffer`,
llama.cpp SYCL's `can't allocate N Bytes of memory on device`, OpenVINO's `Exceeded max size of memory object
allocation`. Each says memory, not compute, ended the run: the weights, the KV cache the context and batch need, and
the activations did not fit. The engines' own readers count their OOM lines where their format is known (SGLang, TGI,
ollama); this reads the rest: a paste that is only the failure (no reader knows it) and a log whose failure its
reader does not read (vLLM V1's engine-core traceback). A crash is printed last, so beside the head the file's tail
is read too: a big log's failure costs one tail read, not a marker in every line's scan.

Only the shape an engine or runtime prints counts, never prose (`I ran out of memory`), a quoted `raise` line, a
traceback's `File "…"` frame, or a pasted file's own `# ` header.
"""

from __future__ import annotations

import re

from inferledger.diagnose.records import Record

_FAILURE = re.compile(
    r"OutOfMemoryError"                                        # torch.OutOfMemoryError, torch.cuda.…, JAX's
    r"|\b(?:CUDA|HIP|MPS|XPU|NPU|cuda|hip)\s*(?:error:?\s*)?out of memory"  # CUDA out of memory, CUDA error: out of…
    r"|\b(?:cuda|hip)Malloc(?:Async|Managed)? failed"         # ggml's allocation of a CUDA/ROCm buffer
    r"|\bunable to allocate (?:CUDA|ROCm|Metal|Vulkan|SYCL)\d* buffer"  # llama.cpp loading a model
    r"|\bRESOURCE_EXHAUSTED:"                                  # XLA / TPU: the device buffer did not fit
    r"|\bFailed to allocate token prealloc indices"           # SGLang: no room in the token pool
    r"|\bRuntimeError: alloc_req_slots runs out of memory"     # SGLang: no free slot in the request pool
    r"|\bNot enough space for mamba ping pong idx"             # SGLang: a hybrid model's state pool is full
    r"|\bprocess memory limit exceeded"                        # oMLX's memory guard aborting a request
    r"|\bno enough memory to schedule a single sequence"       # xLLM's scheduler: no KV blocks for one request
    r"|\bOut of memory: Kill(?:ed)? process"                   # the Linux OOM killer
    r"|kIOGPUCommandBufferCallbackErrorOutOfMemory"            # Metal's command buffer out of memory
    # MLX's allocator refusing a buffer past Metal's largest (`Attempting to allocate 96905199616 bytes which is
    # greater than the maximum allowed buffer size of 17179869184 bytes.`)
    r"|\bAttempting to allocate \d+ bytes which is greater than the maximum allowed buffer size\b"
    # SYCL's Unified Runtime / Level Zero (Intel GPUs), as the backend reports it (`backend failed with error: 39
    # (UR_RESULT_…)`), not a script's note quoting the code
    r"|\b(?:failed|error)\b.{0,40}\b(?:UR|ZE)_RESULT_ERROR_OUT_OF_DEVICE_MEMORY"
    # ... and the older Plugin Interface's codes, device or host memory (`Native API returns: -6
    # (PI_ERROR_OUT_OF_HOST_MEMORY)`): a buffer the runtime could not allocate
    r"|\bNative API returns: -?\d+ \(PI_ERROR_OUT_OF_(?:HOST|DEVICE)_MEMORY\)"
    # iOS ending an app over its memory limit (jetsam): `EXC_RESOURCE (RESOURCE_TYPE_MEMORY: high watermark memory
    # limit exceeded) (limit=6144 MB)`
    r"|\bEXC_RESOURCE \(RESOURCE_TYPE_MEMORY\b"
    # TT-Metal's allocator on a Tenstorrent card: `Out of Memory: Not enough space to allocate 146575360 B DRAM buffer`
    r"|\bOut of Memory: Not enough space to allocate \d+ B (?:DRAM|L1)\b"
    r"|\bErrorOutOfDeviceMemory\b"                             # Vulkan's vk::Result (llama.cpp's Vulkan backend)
    r"|\bcan't allocate \d+ Bytes of memory on device"          # llama.cpp's SYCL backend (Intel GPUs)
    r"|\bExceeded max size of memory object allocation"        # OpenVINO's GPU plugin: one buffer past the limit
    # AWS Neuron's runtime on a NeuronCore full (`ERROR TDRV:log_dev_mem Failed to allocate 64.000MB (usage:
    # tensors) on ND 0:NC 0, current utilization:`)
    r"|\bTDRV:\w+ Failed to allocate [\d.]+\s*[KMGT]?i?B\b.{0,60}?\bon ND \d+:NC \d+"
    # a runtime's own allocator naming what it could not place, then the cause (ds4's `ROCm model arena alloc failed
    # for tensor-span:128 (1792.00 MiB chunk): out of memory`)
    r"|\balloc(?:ation)? failed\b.{0,100}?\(\s*[\d.]+\s*[KMGT]i?B\b[^)]*\):\s*out of memory")
# An engine refusing to start because the KV cache it needs does not fit beside the weights, however the paste
# reaches us (a quote in a report, a terminal's wrap cutting the message at `can be`): vLLM's max-length check
# (`max seq len (262144) is larger than the maximum number of tokens that can be stored in KV cache`), V0's `No
# available memory for the cache blocks`, V1's `… is needed, which is larger than the available KV cache memory`,
# SGLang's pool sized negative (`Not enough memory. Please try to increase --mem-fraction-static`).
# (vLLM's two memory checks are its reader's too: parsers/vllm.py counts them with these words)
VLLM_NO_CACHE_MEMORY = ("No available memory for the cache blocks",
                        "is needed, which is larger than the available KV cache memory")
_KV_REFUSAL = re.compile("|".join([r"is larger than the maximum number of tokens that can be\b",
                                   *map(re.escape, VLLM_NO_CACHE_MEMORY),
                                   # vLLM V1 refusing a memory budget other processes hold (`Free memory on device
                                   # cuda:7 (174.24/178.35 GiB) on startup is less than desired GPU memory
                                   # utilization`), as logged or as a note retells it (`… < desired utilization`)
                                   r"\bFree memory on (?:device )?\S*\s*\([\d.]+/[\d.]+ GiB\)(?: on startup)? "
                                   r"(?:is less than|<)",
                                   r"\bNot enough memory\. Please try to increase --mem-fraction-static",
                                   # SGLang's hierarchical cache: its host KV pool larger than the host memory free
                                   r"\bNot enough host memory available\. Requesting [\d.]+ ?GB but only have"]))
# An engine that starts with a shorter context than it was given, cut to the tokens its KV cache holds: LMDeploy
# TurboMind's `` `session_len` truncated to 42880 due to limited KV cache memory `` (engine.cc, after `max cached
# tokens: N`). The memory left beside the weights, not the model, sets the longest request.
# TabbyAPI (ExLlamaV2) cutting the context it was given to its cache's tokens: `The given max_seq_len (24064) is
# larger than the cache size and will be limited to 4096 tokens` (a terminal may wrap it after `larger`).
_CONTEXT_CUT = re.compile(r"\bsession_len`? truncated to \d+ due to limited KV cache memory"
                          r"|\bThe given max_seq_len \(\d+\) is larger\b")
# llama-server refusing a request its slot's context (its share of the KV cache, -c over --parallel) cannot hold, as
# its JSON error reaches the client (`"type": "exceed_context_size_error"`, `the request exceeds the available context
# size`): the server log's own line (`request (N tokens) exceeds …`) its reader counts.
# A request refused as longer than the context the runtime was started with, whose KV cache that context sizes:
# llama-server's message (not also its type), llama-cpp-python's `Requested tokens (2913) exceed context window of 1024`
# and its chat handlers' `Prompt exceeds n_ctx: 2913 > 1024`; and as longer than the model's window as the server
# or API states it: vLLM's `This model's maximum context length is 4096 tokens. However, you requested 6379 tokens`
# and V1's `The decoder prompt (length 163270) is longer than the maximum model length of 128000`, TGI's `inputs`
# tokens + `max_new_tokens` must be <= 65537`, OpenAI's `context_length_exceeded`, Anthropic's `prompt is too long:
# N tokens > M maximum`. A hosted model's window is its provider's KV allocation per request; readers of such
# refusals name the context's capacity (27 blind fixtures, every one accepting kv-capacity).
_TOO_LONG = re.compile(r"\bthe request exceeds the available context size\b"
                       r"|\bRequested tokens \(\d+\) exceed context window of \d+|\bPrompt exceeds n_ctx: \d+ > \d+"
                       # (the sentence goes on to what was asked: a model card stating its window refuses none)
                       r"|\bmaximum context length is \d[\d,]* tokens(?:\. However|,? and your request)"
                       r"|\bcontext_length_exceeded\b"
                       r"|\bis longer than the maximum model length of \d"
                       r"|`?inputs`? must have less than \d+ tokens"
                       r"|`?inputs`? tokens \+ `?max_new_tokens`? must be <= \d+"
                       r"|\bprompt is too long: \d+ tokens > \d+")
# llama-server reading a prompt again from its start because its cache holds no usable prefix (a sliding-window or
# hybrid/recurrent model keeps no past positions to resume from, or every context checkpoint lies past the common
# prefix): `forcing full prompt re-processing due to lack of cache data`. A turn that repeats its history pays its
# whole prefill again.
_FULL_REPROCESS = re.compile(r"\bforcing full prompt re-processing\b")
# PyTorch's out-of-memory message states what it tried to place and what the card had free (`Tried to allocate 20.00
# MiB. GPU 7 has a total capacity of 79.11 GiB of which 66.43 GiB is free`): room many times the request is an
# allocator that failed (a memory pool, sleep mode's cumem allocator, a per-process cap), not a lack of memory.
_TRIED_WITH_FREE = re.compile(r"Tried to allocate ([\d.]+) ?([KMGT]i?B)\b.{0,200}?of which ([\d.]+) ?([KMGT]i?B) is free")
# A Python client (requests / urllib3) giving up on the server: `Read timed out. (read timeout=300)` waited that long
# for the reply, `Connection to 10.0.0.5 timed out. (connect timeout=10)` never reached it.
_CLIENT_TIMEOUT = re.compile(r"\b(?:Read|Connection to \S+) timed out\. \((read|connect) timeout=[\d.]+\)")
# A server refusing a request because it is overloaded, as the reply says it: Anthropic's `529 {"type":"error","error":
# {"type":"overloaded_error",…}}`, TGI's `{"error":"Model is overloaded","error_type":"overloaded"}` (its queue full),
# OpenAI's `The server is overloaded or not ready yet` / `That model is currently overloaded with other requests`. More
# arrived than it serves: a busy rejection, as an access log's 503 / 429 is.
_OVERLOADED = re.compile(r"\boverloaded_error\b|\"error_type\":\s*\"overloaded\"|\bModel is overloaded\b"
                         r"|\b(?:server|engine|model) is (?:currently )?overloaded\b")
# The event a reader counts for a failure this module names more finely: an OOM with room (_oom_kind) is an OOM line
# its reader may have counted as one.
COUNTED_AS = {"oom_with_room": "oom"}
# Read from the file's end too: a crash is the last thing a log prints.
TAIL_BYTES = 64 * 1024


def _quoted(line: str) -> bool:
    """A line that shows the failure without being it: a traceback's source line or frame, a pasted file's header."""
    text = line.lstrip()
    return text.startswith(("raise ", 'File "', "# ")) or line.startswith("#")


def _oom_kind(line: str) -> str:
    """`oom`, or `oom_with_room` where the message says the card had limit oom-room × what it tried to allocate free
    (and at least limit oom-room-min-free)."""
    from inferledger.diagnose.parsers._common import BINARY_MEMORY
    from inferledger.diagnose.rules import limit

    tried = _TRIED_WITH_FREE.search(line)
    if tried is None:
        return "oom"
    wanted = float(tried.group(1)) * BINARY_MEMORY[tried.group(2)]
    free = float(tried.group(3)) * BINARY_MEMORY[tried.group(4)]
    room = free >= limit("oom-room") * wanted and free >= limit("oom-room-min-free") * 2**30
    return "oom_with_room" if room else "oom"


# Words one of the failures above holds (a cheap test before the regexes).
_SIGNS = ("emory", "alloc", "RESOURCE", "OutOfMemory", "MEMORY", "can be", "context size", "context window", "n_ctx",
          "timed out", "verloaded", "context length", "context_length", "model length", "tokens", "too long",
          "re-processing", "max_seq_len")


# The events read alike, in this order (a line's first match is its event): (pattern, a word the line holds first or
# None, source, event, the characters stripped off the quoted message's ends or None to quote none).
_EVENTS = ((_OVERLOADED, "verloaded", "client.failure", "busy_rejections", " `'\")}"),
           (_TOO_LONG, None, "engine.failure", "too_long_rejections", " `\","),
           (_FULL_REPROCESS, "re-processing", "engine.cache", "prompt_reprocessings", None),
           (_CONTEXT_CUT, None, "engine.failure", "kv_context_cuts", " `"),
           (_KV_REFUSAL, None, "engine.failure", "kv_start_refusals", " `>"))


def _event(number: int, line: str) -> Record | None:
    """The event of _EVENTS a line is (not a quoted source line), with the message quoted from its start."""
    for pattern, word, source, name, strip in _EVENTS:
        match = pattern.search(line) if word is None or word in line else None
        if match and not _quoted(line):
            labels = {} if strip is None else {"failure": line[match.start():].strip(strip)[:160]}
            return Record("event", source, number, {name: 1.0}, labels=labels)
    return None


def failure_records(lines, first_line: int = 1) -> list[Record]:
    """An `oom` event for each line of `lines` (numbered from `first_line`) that is an engine's out-of-memory
    failure, a `kv_start_refusals` one for each that is its refusal to start for want of KV cache memory, a
    `too_long_rejections` one for each refusing a request its context cannot hold, a `busy_rejections` one for each
    overloaded server's refusal, a `kv_context_cuts` one for each engine cutting its context to its KV cache at
    start, a `prompt_reprocessings` one for each prompt llama-server reads again from its start, a
    `client_read_timeouts` or `client_connect_timeouts` one for each a Python client's timeout ended."""
    found = []
    for number, line in enumerate(lines, first_line):
        if not any(words in line for words in _SIGNS):
            continue
        timeout = _CLIENT_TIMEOUT.search(line)
        if timeout and not _quoted(line):
            found.append(Record("event", "client.failure", number, {f"client_{timeout.group(1)}_timeouts": 1.0},
                                labels={"failure": line[timeout.start():].strip(" `'\")")[:160]}))
            continue
        event = _event(number, line)
        if event is not None:
            found.append(event)
            continue
        match = _FAILURE.search(line)
        if match and not _quoted(line):
            # The failure from the exception's name on (`torch.OutOfMemoryError: …`), not the log's prefix.
            start = line.rfind(" ", 0, match.start()) + 1
            found.append(Record("event", "engine.failure", number, {_oom_kind(line): 1.0},
                                labels={"failure": line[start:].strip()[:160]}))
    return found


def tail_failure_records(log) -> list[Record]:
    """failure_records over the last TAIL_BYTES of a plain file longer than its head, numbered as in the file."""
    from inferledger.diagnose.read import HEAD_BYTES, _newlines, clean_line

    if log.size_bytes <= HEAD_BYTES or log.path.endswith(".gz") or log.encoding == "utf-16":
        return []
    start = max(HEAD_BYTES, log.size_bytes - TAIL_BYTES)
    with open(log.path, "rb") as handle:
        handle.seek(start)
        data = handle.read()
    cut = data.find(b"\n") + 1  # the first line is likely cut: start after it
    lines = [clean_line(line) for line in data[cut:].decode(log.encoding, errors="replace").split("\n")]
    if not failure_records(lines):
        return []
    # Numbered as in the file: the newlines before the tail are counted only when it holds a failure.
    return failure_records(lines, _newlines(log.path, 0, start + cut) + 1)


def log_failure_records(log) -> list[Record]:
    """failure_records over a LogFile's cleaned head and, past it, its tail."""
    return failure_records(log.head.split("\n")) + tail_failure_records(log)
