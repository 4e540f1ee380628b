"""Rules over the engine's state rather than its traffic: preemption / retraction / OOM events, start-up capacity
lines and a single /metrics snapshot. Thresholds and confidences: rules.py."""

from __future__ import annotations

from inferledger.diagnose.accumulate import KV_FULL_FRACTION, Accumulator
from inferledger.diagnose.rules import fire, threshold


def event_findings(acc: Accumulator, findings: list, notes: list) -> None:
    # Events with a verdict of their own: (event, rule, what the count means).
    preemption = "state-preemption"
    for name, rule, text in (
            ("preemptions", preemption, "preemption(s): the KV cache ran out and requests were evicted"),
            ("retractions", preemption, "request(s) retracted: the KV pool was full during decode"),
            ("oom", preemption, "out-of-memory event(s)"),
            ("kv_no_room", preemption,
             "time(s) the KV cache had no room for the next batch (llama.cpp: `failed to find free space in the KV "
             "cache` / `failed to find a memory slot`): the context is full"),
            ("too_long_rejections", preemption,
             "request(s) refused as longer than the engine can hold (SGLang: `exceeds the maximum allowed length`, the "
             "tokens its KV pool holds; llama.cpp: `exceeds the available context size`; llama-cpp-python: `exceed "
             "context window of N`; vLLM, TGI and hosted APIs: the model's `maximum context length`): the context the "
             "cache holds caps prompt and reply; a shorter prompt (fewer retrieved chunks, a trimmed history), a "
             "smaller max_tokens, or a longer context where memory allows"),
            ("kv_start_refusals", preemption,
             "start-up refusal(s): the KV cache the configured context needs does not fit the memory left (vLLM: `KV "
             "cache is needed, which is larger than the available KV cache memory`; llama.cpp: `failed to allocate "
             "buffer for kv cache`; TensorRT-LLM: `maxTokensInPagedKvCache (N) must be large enough to process at "
             "least 1 sequence`; a hybrid model's `max_num_seqs (N) exceeds available Mamba cache blocks (M)`; vLLM's "
             "`Free memory on device … is less than desired GPU memory utilization`, other processes holding the "
             "memory its weights and cache were to take; SGLang's hierarchical cache: `Not enough host memory "
             "available`, its host KV pool larger than the memory free; vLLM V0's "
             "worker dying in `determine_num_available_blocks`, the profile run that measures that memory)"),
            ("kv_context_cuts", preemption,
             "start-up cut(s) of the configured context to the tokens the KV cache holds (LMDeploy TurboMind: "
             "`session_len truncated to N due to limited KV cache memory`; TabbyAPI: `The given max_seq_len (N) is "
             "larger than the cache size and will be limited to M tokens`): the memory left beside the weights, or "
             "the cache size configured, sets the longest request; a longer one is refused"),
            ("prompt_reprocessings", "state-prompt-reprocessed",
             "prompt(s) read again from the start (llama-server: `forcing full prompt re-processing due to lack of "
             "cache data`): the cache kept no prefix to resume from, so each turn prefills its whole history; "
             "`--swa-full` (a sliding-window model's full cache), more context checkpoints (`--ctx-checkpoints`), "
             "or a client that keeps the history's start unchanged lets the cache be reused"),
            ("busy_rejections", "state-busy-rejections",
             "request(s) refused as the server was busy (HTTP 503 / 429, or a reply saying it is overloaded: "
             "Anthropic's 529 `overloaded_error`, TGI's `Model is overloaded`): its queue of pending requests was "
             "full, more arrived than it holds; cap the client's concurrency, raise the queue (ollama "
             "OLLAMA_MAX_QUEUE) or add replicas, or for a hosted API retry with backoff or another region")):
        total = acc.events.get(name)
        if total:
            lines = acc.event_lines[name]
            numbers = {name: total}
            if name == "oom" and "failure" in acc.labels:
                text = f"{text}: `{acc.labels['failure']}`"  # the engine's own words (failures.py)
            if name == "preemptions" and acc.preemptions_total.count:
                numbers["preemptions_total_reported"] = acc.preemptions_total.high
            # One event is already proof; repeated ones raise it to the rule's high.
            findings.append(fire(rule, f"{total:.0f} {text}", numbers, min(1.0, (total - 1) / 4),
                                 lines=list(lines.lines), file=lines.file))
    # vLLM measures the memory left for the KV cache (`Available KV cache memory`), then sizes the cache in it
    # (`GPU KV cache size`, `# GPU blocks`): an engine that died between the two died sizing the cache, the context
    # it was given not fitting what the weights and activations left.
    kv_memory = acc.capacity.get("kv_cache_bytes")
    if acc.events.get("engine_start_failures") and not acc.events.get("kv_start_refusals") and kv_memory \
            and kv_memory[3].startswith("vllm") and not {"kv_cache_tokens", "gpu_blocks"} & acc.capacity.keys():
        lines = acc.event_lines["engine_start_failures"]
        findings.append(fire(preemption, f"the engine failed to start after finding {kv_memory[0] / 2**30:.2f} GiB "
                             "for the KV cache and before sizing the cache: the configured context does not fit "
                             "the memory left (shorten --max-model-len, raise --gpu-memory-utilization, more cards)",
                             {"kv_cache_bytes": kv_memory[0]}, 0.0, lines=[kv_memory[1], *lines.lines],
                             file=lines.file))
    # Events that say how requests were cut or refused: a note each (count, first line), no verdict of their own.
    for name, text in (
            ("truncated_prompts", "request(s) had their prompt cut to fit the slot's context (llama-server's "
                                  "`truncated = 1`, ollama's `truncating input prompt`; line {line}): their timings are "
                                  "of shortened prompts, and the answers saw less than was sent; give each slot the "
                                  "context its prompts need (llama.cpp a larger -c or fewer -np slots sharing it, ollama "
                                  "num_ctx)"),
            ("client_read_timeouts", "request(s) the client stopped waiting for at its read timeout (a Python "
                                     "client's `Read timed out. (read timeout=N)`, line {line}): the server took "
                                     "longer than the client waits, for a reason the line does not give (a long "
                                     "generation, a queue, a stalled engine): time the server itself, or cap "
                                     "max_tokens and raise the client's timeout"),
            ("client_connect_timeouts", "request(s) that never reached the server (`Connection to … timed out. "
                                        "(connect timeout=N)`, line {line}): an address, port or network fault, no "
                                        "serving speed"),
            ("oom_with_room", "out-of-memory error(s) whose own message says the card had many times the "
                              "requested memory free (line {line}): an allocator that failed (a memory pool, vLLM's "
                              "sleep-mode cumem allocator, a per-process cap, another process's reservation), not "
                              "weights or KV cache that did not fit; not judged as a capacity limit"),
            ("prompts_over_limit", "prompt(s) refused as longer than the engine's limit (vLLM's `is too long and "
                                   "exceeds limit of`, line {line}): they finished with no output; the limit is the "
                                   "model length or, with chunked prefill off, max-num-batched-tokens: raise it, or "
                                   "turn chunked prefill on")):
        total = acc.events.get(name)
        if total:
            notes.append(f"{total:.0f} " + text.format(line=min(acc.event_lines[name].lines)))
    waits = acc.events.get("worker_waits")
    if waits and not acc.flags["stalled"].count:
        # No window held requests that made no progress: a wait at start-up (compilation, weight or KV quantisation
        # takes minutes), not a serving stall.
        notes.append(f"the engine waited {waits:.0f} time(s) a minute for its workers (vLLM's `No available shared "
                     "memory broadcast block found`) while no served request stalled: start-up work such as "
                     "compilation or quantisation; a hang if it repeats once requests run")
    elif waits:
        lines = acc.event_lines["worker_waits"]
        findings.append(fire(
            "state-workers-hung", f"the engine waited {waits:.0f} time(s) a minute for its workers (vLLM's `No "
            "available shared memory broadcast block found`): a worker hung, died or is compiling, so the windows "
            "around it show a fault, not a speed; the workers' own errors say which",
            {"worker_waits": waits}, lines=list(lines.lines), file=lines.file))
    # Events that make the timings around them an artefact: (event, rule, what the count means).
    for name, rule, text in (
            ("unwarmed_shapes", "state-not-warmed-up",
             "batch shape(s) ran before their warm-up: the engine compiled a graph for each during the run, so the "
             "timings around them measure the compilation, not serving; warm the shapes up (the server's warm-up, or "
             "a few requests left out) and measure again"),
            ("misaligned_table_rows", "state-table-misaligned",
             "table row(s) hold figures whose own units contradict their columns (token counts under a duration, "
             "milliseconds under a rate): the table's cells slipped against its header, so no figure in those rows "
             "is read under its name; take the numbers from the tool's own output")):
        total = acc.events.get(name)
        if total:
            lines = acc.event_lines[name]
            # The more of the log's timings the events stand beside, the more of them they void: a few shapes in a
            # long log leave most windows warm, in a short one they are most of its timings.
            timed = acc.interval_count + acc.request_count + len(acc.summaries)
            findings.append(fire(rule, f"{total:.0f} {text}", {name: total}, min(1.0, total / max(timed, 1)),
                                 lines=list(lines.lines), file=lines.file))


_DECODE_REQUEST_METRICS = ("tpot_seconds", "decode_seconds", "generation_tokens_per_second", "itl_seconds")
_DECODE_SUMMARY_PREFIXES = ("tpot_", "itl_", "output_tokens_per_second", "e2e_per_output_token")


def _decode_measured(acc: Accumulator) -> bool:
    """Whether the log times any generation: a request's decode, a stats window's generation rate, a summary's
    per-token time or output rate."""
    if any(acc.request_value(name) is not None for name in _DECODE_REQUEST_METRICS) or acc.per_stream.count:
        return True
    return any(any(name.startswith(_DECODE_SUMMARY_PREFIXES) for name in record.metrics)
               for record, _file in acc.summaries)


def capacity_findings(acc: Accumulator, findings: list) -> None:
    capacity = {name: value for name, (value, *_rest) in acc.capacity.items()}
    if not capacity:
        return
    tokens = capacity.get("kv_cache_tokens")
    if tokens is None and capacity.get("gpu_blocks") is not None:
        # vLLM default block size 16 unless the log printed another (hybrid models).
        tokens = capacity["gpu_blocks"] * capacity.get("block_size_tokens", 16)
    concurrency = capacity.get("max_concurrency_at_length")
    length = capacity.get("max_model_len_tokens")
    if concurrency is None and tokens and length:
        concurrency = tokens / length
    facts = []
    if tokens:
        facts.append(f"KV cache {tokens:,.0f} tokens")
    if capacity.get("kv_cache_bytes"):
        facts.append(f"{'' if tokens else 'KV cache '}{capacity['kv_cache_bytes'] / 2**30:.2f} GiB")
    if length:
        facts.append(f"max length {length:,.0f}")
    if concurrency is not None:
        facts.append(f"{concurrency:.2f} full-length requests fit")
    if capacity.get("weights_bytes"):
        facts.append(f"weights {capacity['weights_bytes'] / 2**30:.2f} GiB")
    times = [f"{words} in {capacity[name]:,.1f} s" for name, words in (
        ("weights_download_seconds", "weights downloaded"), ("weights_load_seconds", "weights loaded"),
        ("engine_start_seconds", "engine ready")) if capacity.get(name) is not None]
    if times:  # the start-up's own clock: what a slow start spent its time on
        facts.append(", ".join(times))
    shards = capacity.get("checkpoint_shards")
    if shards:  # the loading bar's latest line: how far and how fast the weights were being read
        loaded, seconds = capacity["checkpoint_shards_loaded"], capacity["checkpoint_load_seconds"]
        # the bar counts whole seconds: one under a second says only that
        facts.append(f"checkpoint {loaded:.0f} of {shards:.0f} shards loaded in "
                     + (f"{seconds:,.0f} s ({seconds / loaded:.1f} s a shard)" if seconds and loaded else "under 1 s")
                     + ("; the log ends before the load does" if loaded < shards else ""))
    line_of = acc.capacity.get("kv_cache_tokens") or next(iter(acc.capacity.values()))
    where = {"lines": [line_of[1]], "file": line_of[2]}
    numbers = {"kv_cache_tokens": tokens, "max_concurrency_at_length": concurrency}
    layers, on_gpu = capacity.get("model_layers"), capacity.get("offloaded_layers")
    kv_bytes, weights = capacity.get("kv_cache_bytes"), capacity.get("weights_bytes")
    share = capacity.get("gpu_share_fraction")
    # The placement decides the speed, but only a measured decode shows it: with none, the offload is named as what
    # the speed will hang on (state-partial-offload-unmeasured, no bottleneck read).
    measured = _decode_measured(acc)
    offload = "state-partial-offload" if measured else "state-partial-offload-unmeasured"
    unmeasured = "" if measured else "; no generation is timed in the log to show it"
    if share is not None and share < threshold("state-partial-offload"):
        findings.append(fire(
            offload, f"the runner holds {share:.0%} of the model on the GPU and {1 - share:.0%} in "
            f"system memory: every token waits on the CPU's share{unmeasured}", {"gpu_share_fraction": share},
            **where))
    elif layers and on_gpu is not None and on_gpu < threshold("state-partial-offload") * layers:
        findings.append(fire(
            offload, f"the runner placed {on_gpu:.0f} of the model's {layers:.0f} layers on the GPU: "
            "the rest run from system memory, so every token waits on the CPU's share"
            + (f" (the KV cache alone asks {kv_bytes / 2**30:.1f} GiB: a smaller context frees room for layers)"
               if kv_bytes else "") + unmeasured,
            {"offloaded_layers": on_gpu, "model_layers": layers}, **where))
        if kv_bytes and weights and kv_bytes >= threshold("state-kv-pushes-layers-off") * weights:
            findings.append(fire(
                "state-kv-pushes-layers-off", f"the KV cache sized for the context ({kv_bytes / 2**30:.1f} GiB) is "
                f"{kv_bytes / weights:.1f}× the weights ({weights / 2**30:.1f} GiB): the context takes the card's room "
                "for layers; a shorter context (num_ctx, -c) or a quantised cache (q8_0) brings them back",
                {"kv_cache_bytes": kv_bytes, "weights_bytes": weights}, **where))
    reloaded = capacity.get("reloaded_bytes")
    if reloaded and capacity["reloaded_gpu_share_fraction"] < threshold("state-partial-offload"):
        before = capacity["reloaded_from_bytes"]
        line_of = acc.capacity["reloaded_bytes"]
        copied = capacity.get("reloaded_context_tokens")
        same = "one ID" if copied is None else \
            f"its weights copied for a longer context, {capacity['reloaded_from_context_tokens']:,.0f} to {copied:,.0f}"
        findings.append(fire(
            "state-reload-pushes-layers-off", f"the same model ({same}) held {before / 1e9:.1f} GB with "
            f"{capacity['reloaded_from_gpu_share_fraction']:.0%} on the GPU, then {reloaded / 1e9:.1f} GB with "
            f"{capacity['reloaded_gpu_share_fraction']:.0%}: the {(reloaded - before) / 1e9:.1f} GB it grew is the KV "
            "cache of a reload for a longer context (num_ctx) or more parallel slots, and it sent layers to system "
            "memory; a shorter num_ctx (or a q8_0 cache) brings them back",
            {"reloaded_bytes": reloaded, "reloaded_from_bytes": before}, lines=[line_of[1]], file=line_of[2]))
    # llama.cpp and ollama size the cache for the context they were asked for (n_ctx, num_ctx), not from the memory
    # the weights leave: a small one there is a short context, no shortage.
    sized_by_context = kv_bytes is not None and acc.capacity["kv_cache_bytes"][3].startswith(("llamacpp", "ollama"))
    if not tokens and kv_bytes is not None and weights and not sized_by_context \
            and kv_bytes < threshold("state-kv-memory-small") * weights:
        # No token count printed (vLLM V0's memory profile, cut before `# GPU blocks`): the bytes against the
        # weights' say it is a few thousand tokens at most, whatever the model.
        findings.append(fire(
            "state-kv-memory-small", f"the memory left for the KV cache is {kv_bytes / 2**30:.2f} GiB, "
            f"{kv_bytes / weights:.1%} of the weights' {weights / 2**30:.2f} GiB: room for a few thousand tokens at "
            "most, so requests wait for KV or fail; give the cache more memory (a higher memory fraction, more or "
            "larger cards, quantised weights)", {"kv_cache_bytes": kv_bytes, "weights_bytes": weights}, **where))
    if concurrency is not None and concurrency < threshold("state-few-full-requests") \
            and not _batch_fits(acc, concurrency):
        findings.append(fire("state-few-full-requests", "startup capacity: " + ", ".join(facts) + ": long-context "
                             "traffic will queue on KV capacity", numbers, **where))
    findings.append(fire("state-capacity-only", "capacity facts only: " + (", ".join(facts) or
                                                                          ", ".join(sorted(capacity))), numbers,
                         **where))


def _batch_fits(acc: Accumulator, full_requests: float) -> bool:
    """Every run of the file an offline batch (its whole workload submitted at once) of no more prompts than the KV
    cache holds at full length: the pool holds them all, so nothing of this workload queues on it."""
    batches = [record.metrics.get("requests_sent", record.metrics.get("completed_requests"))
               for record, _file in acc.summaries]
    return bool(batches) and all(record.labels.get("offline_batch") for record, _file in acc.summaries) \
        and all(sent is not None and sent <= full_requests for sent in batches)


def snapshot_findings(acc: Accumulator, findings: list) -> None:
    if not acc.snapshot:
        return
    waiting = acc.snapshot.get("waiting_requests")
    kv = acc.snapshot.get("kv_cache_usage_fraction")
    running = acc.snapshot.get("running_requests")
    facts = []
    if running:
        facts.append(f"running {running.high:.0f}")
    if waiting:
        facts.append(f"waiting {waiting.high:.0f}")
    if kv:
        facts.append(f"KV {kv.high:.0%}")
    for name in ("prompt_tokens_total", "generation_tokens_total", "requests_total", "preemptions_total"):
        if name in acc.snapshot:
            facts.append(f"{name} {acc.snapshot[name].high:,.0f}")
    queried, hits = acc.snapshot.get("prefix_cache_query_tokens_total"), acc.snapshot.get("prefix_cache_hit_tokens_total")
    if queried and queried.high > 0:  # vLLM's prefix cache since start: the tokens looked up and the share found
        hit = hits.high if hits else 0.0
        facts.append(f"prefix cache {hit:,.0f} of {queried.high:,.0f} looked-up tokens hit ({hit / queried.high:.0%})")
    if waiting and waiting.high > 0:
        if kv and kv.high >= KV_FULL_FRACTION:
            findings.append(fire("state-snapshot-kv-full", f"metrics snapshot: {waiting.high:.0f} waiting with KV "
                                 f"{kv.high:.0%} full", {"waiting_requests": waiting.high,
                                                         "kv_cache_usage_fraction": kv.high}))
        else:
            findings.append(fire("state-snapshot-waiting", f"metrics snapshot: {waiting.high:.0f} requests waiting",
                                 {"waiting_requests": waiting.high}))
    if kv and (kv.low < 0 or kv.high > threshold("state-usage-out-of-range")):
        findings.append(fire("state-usage-out-of-range", f"metrics snapshot: KV cache usage {kv.low:.0%}"
                             + (f" to {kv.high:.0%}" if kv.high != kv.low else "") + ": a share of the cache is "
                             "between 0 and 100 %, so the gauge is broken (a block counter off by the blocks it "
                             "does not own, a sign slip); nothing the metrics show can be taken as the server's state",
                             {"kv_cache_usage_fraction_low": kv.low, "kv_cache_usage_fraction_high": kv.high}))
    preempted = acc.snapshot.get("preemptions_total")
    if preempted and preempted.high > 0:
        findings.append(fire("state-snapshot-preemptions", f"metrics snapshot: {preempted.high:.0f} preemptions "
                             "since start", {"preemptions_total": preempted.high}))
    findings.append(fire("state-snapshot-only", "one metrics snapshot (counters need two scrapes for rates: "
                         "--url scrapes twice): " + ", ".join(facts), {}))
