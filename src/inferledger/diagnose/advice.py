"""What to change for a verdict, fitted to what the log already shows (no "enable prefix caching" when its hit
rate is in the log), with the ledger's expected gain where the roofline section has it."""

from __future__ import annotations

from inferledger.diagnose.accumulate import Accumulator
from inferledger.diagnose.rules import limit, threshold

LOW_BANDWIDTH = threshold("hardware-low-effective-bandwidth")
KV_ROOM_FRACTION = limit("kv-room")
BATCHED_STEP = limit("batched-step")
# Engines that run one request at a time (or a few slots without a shared scheduler): advice for a batching server
# (chunked prefill, disaggregation) does not apply to them.
SINGLE_STREAM_RUNNERS = {"llama.cpp", "ollama", "mlx", "mlx_lm", "mlx_lm.server", "mlc-llm", "koboldcpp",
                         "text-generation-webui", "tabbyapi", "exllamav2", "ktransformers", "gpt-fast", "ipex-llm",
                         "openvino", "lmstudio", "omlx", "onnxruntime-genai", "executorch"}


def _prefix_cache_state(acc: Accumulator | None) -> str | None:
    """'on (hit rate …)' when the log shows a prefix cache at work, else None."""
    if acc is None or acc.labels.get("prefix_caching") == "off":
        return None
    for stats in (acc.interval, acc.snapshot):
        hit = stats.get("prefix_cache_hit_fraction")
        if hit is not None and hit.count and hit.high > 0:  # V1 prints 0.0 % with the cache off too
            return f"on (hit rate up to {hit.high:.0%})"
        cached = stats.get("cached_tokens")
        if cached is not None and cached.count and cached.high > 0:
            return f"on (up to {cached.high:,.0f} cached prompt tokens per batch)"
    cached = acc.requests.get("cached_tokens")
    if cached is not None and cached.count and cached.high > 0:
        return f"on ({cached.high:,.0f} cached prompt tokens in a request)"
    if acc.labels.get("prefix_caching") == "on":
        return "on"
    return None


# Rules whose finding names its own cause: their advice replaces the verdict's general advice.
# A cache sized for a context too long for the card sends layers to system memory: the context is the fix, not more
# of it (the single-stream runners' kv-capacity advice, a window that fills, would say the opposite).
_CONTEXT_TAKES_THE_LAYERS = [
    "ask for the context the work needs, not the largest: a smaller num_ctx (ollama's option, OLLAMA_CONTEXT_LENGTH, a "
    "client's context-length setting) or -c (llama.cpp), fewer parallel slots (OLLAMA_NUM_PARALLEL, -np), or a "
    "quantised KV cache (OLLAMA_KV_CACHE_TYPE=q8_0, -ctk/-ctv q8_0, with flash attention), until every layer fits"]

RULE_ADVICE = {
    "state-kv-pushes-layers-off": _CONTEXT_TAKES_THE_LAYERS,
    "state-reload-pushes-layers-off": _CONTEXT_TAKES_THE_LAYERS,
    "summary-concurrency-over-cap": [
        "raise the engine's running cap (vLLM --max-num-seqs, SGLang --max-running-requests, LMDeploy and trtllm-serve "
        "--max-batch-size) to the client's concurrency where the KV cache holds that many requests (`inferledger fit` "
        "says how many), or send no more at once than the cap"],
    "windows-spec-drafts-rejected": [
        "turn speculative decoding off (its drafts are almost never accepted), or give it a draft that matches the "
        "target: the same model family and tokenizer, an MTP head trained for this checkpoint and quantisation, "
        "fewer speculative tokens a step"],
    "summary-same-load-ttft-waits": [
        "look at what the slow path adds in front of the engine: a proxy's or router's connection pool and worker "
        "count, its own concurrency limit, buffering of streamed responses, a replica that takes more than its share; "
        "the fast path shows what the engine does with this load"],
    "summary-same-work-slower": [
        "compare the slow run with the fast one: eager mode or CUDA graphs, the attention backend, the device each "
        "ran on (a CPU fallback), the library versions; the fast run shows what the card does with this work"],
    "windows-bench-same-test-slower": [
        "compare the two builds (the `build:` line under each table): the flags each was compiled with (SIMD paths "
        "such as AVX-512 / ARM SVE, the GPU backend), then bisect the commits between them "
        "(scripts/compare-llama-bench.py runs both); the faster build shows what this machine does with the work"],
    "requests-host-bound-steps": [
        "capture the decode step once and replay it instead of launching its kernels one by one (tinygrad JIT, "
        "CUDA graphs / torch.compile in PyTorch runners), fuse small kernels (tinygrad BEAM search), and give the "
        "host a fast core: the launches, not the device's memory, set each token's time"],
    "state-workers-hung": [
        "find each worker's first error (the lines tagged with its process name, `Worker_TP…`): a rank that died or "
        "ran out of memory leaves the others waiting in their collectives; NCCL_DEBUG=INFO shows where they wait"],
}


def advice_for(verdict: str, section: dict | None, throughput_test: bool = False,
               acc: Accumulator | None = None, rule: str | None = None) -> list[str]:
    if rule in RULE_ADVICE:
        return list(RULE_ADVICE[rule])
    if throughput_test:
        return ["to measure latency, rerun at finite request rates (a sweep up to the throughput this test found) "
                "with the real ISL/OSL distribution; use this run for capacity only"]
    kv_advice = (section or {}).get("kv_advice")
    if verdict == "kv-capacity" and acc is not None and acc.labels.get("engine") in SINGLE_STREAM_RUNNERS:
        # One request's context window fills, not a pool shared by a batch.
        return ["a larger context window where memory allows (llama.cpp -c, ollama num_ctx, koboldcpp "
                "--contextsize), a quantised KV cache (llama.cpp -ctk/-ctv q8_0, ollama OLLAMA_KV_CACHE_TYPE, "
                "koboldcpp --quantkv), or a shorter prompt and history"]
    if verdict == "kv-capacity":
        tips = ["give the KV cache more memory (raise gpu_memory_utilization / --mem-fraction-static, shorter "
                "max_model_len) or shard the model over more GPUs (tensor parallel frees weight memory for KV)"]
        if kv_advice:
            tips.insert(0, "lower KV precision — " + kv_advice)
        return tips
    if verdict == "queueing":
        tips = ["add replicas (or cap the request rate): the queue grows because arrivals exceed what one server "
                "completes"]
        kv = acc.interval.get("kv_cache_usage_fraction") if acc is not None else None
        if kv is not None and kv.count and kv.high < KV_ROOM_FRACTION:
            # Requests wait while most of the KV pool is free: a cap on the batch, not memory, holds them back.
            tips.insert(0, f"the KV cache never passed {kv.high:.0%} while requests waited: raise the batch cap "
                        "first (vLLM --max-num-seqs, SGLang --max-running-requests, LMDeploy --max-batch-size, TGI "
                        "--max-concurrent-requests / --max-batch-total-tokens), then add replicas if steps slow down")
        if kv_advice:
            tips.append("if the queue forms at high KV usage, fp8 KV admits more requests — " + kv_advice)
        return tips
    if verdict == "prefill-bound":
        chunk = acc.capacity.get("chunked_prefill_tokens") if acc is not None else None
        engine = acc.labels.get("engine") if acc is not None else None
        if engine in SINGLE_STREAM_RUNNERS:
            # One request at a time: no decode to starve, so chunking does not apply; the prompt's own work does.
            return ["the prompt is the cost on a one-request-at-a-time runner: reuse a cached prefix of the prompt "
                    "(llama.cpp --cache-reuse / its prompt cache, a kept-alive ollama session), shorten it, or read "
                    "it in larger batches (llama.cpp -b/-ub, flash attention, mlx_lm's prefill_step_size)",
                    "prompt processing is compute-bound: a GPU (or more of its layers offloaded) reads prompts "
                    "10-100× faster than a CPU"]
        if chunk is not None:
            tips = [f"chunked prefill is on ({chunk[0]:,.0f} tokens per chunk): a smaller chunk (vLLM "
                    "--max-num-batched-tokens, SGLang --chunked-prefill-size) interleaves decode more often"]
        elif engine == "vllm" and acc.labels.get("version") == "v1":
            # "In vLLM V1, chunked prefill is always enabled by default" (docs/configuration/optimization.md): the
            # knob left is the step's token budget.
            tips = ["vLLM's V1 engine always chunks prefills: a smaller per-step token budget "
                    "(--max-num-batched-tokens) lets decode steps in more often"]
        elif engine == "sglang":
            # SGLang's server arguments: --chunked-prefill-size is sized from the GPU's memory unless set; -1 turns
            # chunking off.
            tips = ["SGLang chunks prefills unless --chunked-prefill-size is -1: a smaller chunk interleaves decode "
                    "more often"]
        else:
            tips = ["enable chunked prefill / lower the per-step token budget (vLLM --max-num-batched-tokens, SGLang "
                    "--chunked-prefill-size) so prefills stop starving decode"]
        state = _prefix_cache_state(acc)
        if state is not None:
            tips.append(f"prefix caching is already {state}: share longer common prefixes, or separate prefill and "
                        "decode (disaggregated serving)")
        else:
            tips.append("enable prefix caching for shared prompts, or separate prefill and decode (disaggregated "
                        "serving)")
        return tips
    if verdict == "decode-bound":
        single = acc is not None and acc.labels.get("engine") in SINGLE_STREAM_RUNNERS
        if single:
            # One user's stream: there is no batch to grow; each token reads every weight it runs through.
            tips = ["fewer bytes a token: a smaller quantisation (Q4_K_M, Q3_K) or a smaller model, and every layer on "
                    "the GPU (llama.cpp -ngl, ollama num_gpu, koboldcpp --gpulayers): layers left in system RAM decode at "
                    "its bandwidth",
                    "speculative decoding with a small draft model of the same family (llama.cpp --model-draft) "
                    "writes several tokens a step"]
        else:
            tips = ["batch more requests per step (decode reads the weights once per step for the whole batch)",
                    "lower weight precision (fp8/int4) or use speculative decoding to cut bytes per generated token"]
            batch, step = (section or {}).get("batch"), (section or {}).get("observed_decode_seconds_per_token")
            if batch and batch >= BATCHED_STEP and step:
                # The run already shares each step among many streams: more would slow each one further. The step
                # itself is slower than the card makes it at that batch.
                tips[0] = (f"the step already holds ~{batch:,.0f} requests and is slower than the card makes a step "
                           "of that batch: look at the step, not the batch (eager mode instead of CUDA graphs, the "
                           "attention backend and its KV dtype, the scheduler's and API server's host time, the "
                           "tensor-parallel links)")
        spec = acc.interval.get("spec_mean_acceptance_length") if acc is not None else None
        if spec is not None and spec.count:
            tips[1] = (f"speculative decoding is on (mean acceptance length {spec.mean:.2f}): a better-matched "
                       "draft, or lower weight precision (fp8/int4), cuts bytes per generated token")
        reached = acc.effective_bandwidth if acc is not None else None
        if reached is not None and reached.count and reached.high < LOW_BANDWIDTH:
            # The backend, not the bytes or the batch, sets the pace: its tip goes first, in place of the batching
            # (a server) or of the draft model (one user's runner, whose bytes a token still count).
            backend = (f"the backend reaches {reached.high / 1e9:.2f} GB/s of weight reads: try another backend or "
                       "build (CPU, Vulkan, CUDA, Metal) or driver; any memory system allows far more")
            tips = [backend, tips[0] if single else tips[1]]
        if acc is not None and acc.labels.get("backend") == "cpu":
            tips.insert(0, "the log shows a CPU backend: offload the layers to a GPU (decode speed is DRAM "
                           "bandwidth ÷ weight bytes on a CPU)")
        return tips
    return []
