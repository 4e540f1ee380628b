"""Every diagnosis rule as one row of data: what it reads in the log, the threshold, why that threshold, the verdict
it supports and how much confidence it carries. The rule families (rules_summary, rules_windows, rules_requests,
rules_state, roofline) test the thresholds and say the numbers; the table is the one place a reader reviews.

Confidence of a rule seen in part of a log: `low` when it holds in one window (or request) among many, rising
linearly to `high` when it holds in all of them, so a persistent reading outranks one outlier window. Rules that
are a single fact (an event, a summary line) use `high` for both.

`inferledger diagnose --rules` prints this table.
"""

from __future__ import annotations

from dataclasses import dataclass

from inferledger.diagnose.findings import Evidence, Finding


@dataclass(frozen=True)
class Rule:
    name: str
    family: str  # summary | windows | requests | state | hardware
    verdict: str  # the verdict it supports ("check" or "note" for rules that only report)
    evidence: str  # what the log must show
    threshold: float | None  # the number the test compares with, in `unit`
    unit: str
    why: str  # why this threshold (the source or the arithmetic)
    low: float  # confidence when seen once among many windows/requests
    high: float  # confidence when seen throughout

    def score(self, share: float = 1.0) -> float:
        share = min(max(share, 0.0), 1.0)
        return self.low + (self.high - self.low) * share


def _rule(name, family, verdict, evidence, threshold, unit, why, low, high=None) -> Rule:
    return Rule(name, family, verdict, evidence, threshold, unit, why, low, low if high is None else high)


# Why a CPU gets its own cutoff: the GPU's ten tokens a second is a fast CPU run.
_CPU_WHY = ("a CPU streams the weights from DRAM: a desktop's two channels (40-90 GB/s) give a 7B model at 4-bit "
            "10-20 tok/s and at 16-bit 3-6, a 70B at 4-bit 1-2; under one token a second nothing a CPU commonly "
            "runs is at its memory's pace")

# How far past the ledger's realistic step a decode may run before it is lost time: the slow side of
# hardware-decode-below-realistic, and the fast side of hardware-throughput-one-stream (its reciprocal).
_REALISTIC_SLACK = 1.5

_TABLE = (
    # -- benchmark summaries (vllm/sglang bench, genai-perf, AIPerf, guidellm, llmperf, trtllm-bench, JetStream,
    #    LMDeploy, TGI benchmark clients) -----------------------------------------------------------------------
    _rule("summary-ttft-zero", "summary", "measurement-artifact", "mean TTFT = 0 with completed requests",
          0.0, "s", "a real SGLang summary printed mean_ttft_ms 0.0; a first token is never free",
          0.9),
    _rule("summary-ttft-under-one-pass", "summary", "measurement-artifact",
          "mean TTFT (or every first token a histogram counts) above 0 and at most this, in a unit the log states",
          0.001, "s",
          "a first token needs one forward pass through every layer: even a 0.5B model on the fastest card takes a few "
          "ms (a kernel launch per operator, a read of the weights); a first token under a millisecond was not timed "
          "from the request's arrival (vLLM 0.5's TTFT histogram, vllm#6337, vllm#8115)", 0.85),
    _rule("summary-server-queue", "summary", "queueing",
          "the server's own queue time at least this share of its request time (Triton perf_analyzer's split)", 0.4,
          "of the server's time", "a request that spends that much of its server time before an instance (or its "
          "dynamic batcher) takes it is waiting for the requests ahead: the instances are full at this concurrency",
          0.7),
    _rule("summary-parts-unaccounted", "summary", "insufficient-data",
          "TTFT + TPOT × (mean output − 1) below this share of the mean E2E", 0.5, "of E2E",
          "the summary's own first-token and per-token figures leave over half of each request unexplained (another "
          "output a multimodal model generates, waits the client timed, a broken timer): no reading of them, healthy "
          "or slow, accounts for the request", 0.65),
    _rule("summary-zero-throughput", "summary", "measurement-artifact",
          "output throughput 0 with requests done or latencies measured",
          0.0, "tok/s", "tgi-gaudi printed Throughput 0.0 tokens/s for a run that generated tokens", 0.9),
    _rule("summary-ttft-equals-e2e", "summary", "measurement-artifact",
          "mean or median TTFT ≥ this share of the same statistic of E2E, or every ITL statistic 0 while requests "
          "generate more than summary-one-token's tokens", 0.999, "ratio",
          "LMDeploy's first-token latency equal to the full latency: the reply was not streamed; a LoRA fork's "
          "sglang bench with median TTFT 606.88 ms against a 606.86 ms median E2E and ITL 0.00 throughout "
          "(SGLang-dLoRA's results file) is the same; the TTFT then holds the decode and is no wait, and the "
          "per-token times are set aside", 0.85),
    _rule("summary-retokenized-short", "summary", "measurement-artifact",
          "the client's received text, tokenized again, holds at most this share of the tokens the server generated",
          0.05, "share", "re-tokenizing what was received gives back the server's count to within a few percent, "
          "and forced-length output (ignore_eos) re-counts lower as its repetitions merge (45 %, sglang#13376); under "
          "a twentieth means the client did not see the generated text as it streamed (tool calls buffered until "
          "complete, sglang#36272: 32 of 6,400), so its first-token and per-token times were taken on something "
          "else", 0.85),
    _rule("summary-first-call-cold", "summary", "measurement-artifact",
          "a script's numbered calls (3 or more): the first took at least this many times the median of the later "
          "ones", 10.0, "×",
          "the same call repeated runs as fast as its later ones once the model is loaded and warm; a first one ten "
          "times slower paid a cold start (a hosted model booting, a load, compilation), which a mean over the "
          "calls folds into the serving time (replicate's vicuna-13b: 195.8 s, then 7.7 and 11.7 s)", 0.7),
    _rule("summary-one-token", "summary", "measurement-artifact",
          "a per-token time stated while requests generate at most this many tokens on average", 1.5, "tokens",
          "a time per output token needs a second token: with about one token generated it is the first token's "
          "time (openvino benchmark_genai printing TPOT = TTFT); the per-token time is then set aside and the run is "
          "not called healthy on it, while a queue read from its TTFT still outranks this; a per-token time of 0 "
          "(the client's placeholder in a prefill test, sglang#12263) is set aside with a note instead", 0.6),
    _rule("summary-prefill-interleaved", "summary", "prefill-bound",
          "prompt tokens per output token ≥ this, more than one request in flight, per-token time ≥ 100 ms and, where "
          "TTFT and lengths are stated, at most twice the others' prefills spread over its tokens ((concurrency - 1) "
          "× TTFT ÷ output tokens)", 100.0,
          "input/output", "with a hundred prompt tokens or more per generated token, the few decode steps of each "
          "request sit between the other requests' prefills: the per-token time measures those prefills, not the "
          "decode step, and no decode rule (nor the hardware comparison) reads it", 0.6),
    _rule("summary-concurrency-not-kept", "summary", "measurement-artifact",
          "requests in flight on average (Little's law: req/s × mean E2E, or the client's own figure) below this share "
          "of what the run allowed (the concurrency cap, the requests sent, or rate × E2E), in a run of 3 or more "
          "latencies that states its cap or its offered rate (unstated, a cap may be what held the rest)", 0.25,
          "in flight/allowed",
          "a client counts a request in flight from sending to the last token, queue included: a server that is slow "
          "or full keeps them in flight longer, never fewer; far fewer than the cap means the client did not send "
          "them (a stall, a slow tokenizer, retries), so the run's throughput and duration measure the client", 0.7),
    _rule("summary-chunked-ttst", "summary", "measurement-artifact",
          "time to second token below this while TTFT > 0.2 s", 0.001, "s",
          "tokens that arrive in one chunk: TTFT then depends on the tool's definition", 0.45),
    _rule("summary-streams-past-cap", "summary", "measurement-artifact",
          "output tok/s × the stated per-token time (Little's law: the streams decoding at once) past this many "
          "times the run's concurrency", 2.0, "× the concurrency",
          "a run cannot decode more streams than it holds: the per-token figure is a gap between multi-token "
          "chunks (MTP or speculative decoding, a buffered stream; Lambda's GLM-5 page, 103 ms ITL at 700 tok/s "
          "over 32 streams) or the two columns are not one run's, and the per-token figure judges no decode", 0.65),
    _rule("summary-rate-not-kept", "summary", "queueing",
          "achieved < 0.8 × offered req/s and the run took > 1.3 × (arrival window + one latency), with a mean TTFT "
          "past 20 decode steps (within them every request was admitted at once: a large batch, not a queue)", 0.8,
          "achieved/offered", "a server that cannot keep up completes fewer requests than arrive; a short "
          "run drains after the arrivals end, so the duration test keeps that apart", 0.8),
    _rule("summary-sweep-rate-not-kept", "summary", "queueing",
          "runs of one file at three offered request rates or more: the lowest kept (achieved ≥ 0.8 × offered), the "
          "highest not (< 0.8 ×), and its request latency (or TTFT) ≥ this many times the lowest rate's", 1.5, "×",
          "a load test's table of target and achieved rates: where the achieved rate stops following the offered "
          "one the server is at capacity, and a latency that grows there is the arrivals waiting (a CPU pool at "
          "4.71 of 5 req/s and 12.28 of 50, latency 1.18 s -> 7.1 s); a latency that stays flat is a client that "
          "could not send, not a queue", 0.7),
    _rule("summary-drain-beyond-arrivals", "summary", "queueing",
          "no request latency; achieved < 0.8 × offered req/s and the run took ≥ this × its arrival window "
          "(completed ÷ offered rate), or past it by drain-over-crawl × a request's output at the starved-stream "
          "rate; no client concurrency cap below the request count (the client's own waves drain so)", 10.0, "×",
          "a short run's drain and an overload look alike only while the drain is about one request's latency; "
          "requests that all arrived in 20 s but finished over hours either waited for each other or crawled "
          "together: either way the server is far below the offered load", 0.65),
    _rule("summary-concurrency-over-cap", "summary", "queueing",
          "the client's concurrency above the engine's running-batch cap (its launch flag or start-up line), TTFT "
          "at least burst-admitted-steps decode steps", None, "",
          "the engine runs at most its cap at once: the client's other requests wait in its queue for a slot, "
          "a request's whole time each, so their first tokens carry that wait; its share is the waiting part of "
          "the concurrency", 0.6, 0.8),
    _rule("summary-all-at-once", "summary", "queueing", "request rate inf / issue rate ≥ this, uncapped", 1e6,
          "req/s", "every request sent at t=0 is a throughput test; TTFT is queue wait by construction",
          0.7, 0.75),
    _rule("summary-burst-prefill", "summary", "prefill-bound",
          "all requests in flight together, at most this many (one running batch), mean input ≥ 256, TTFT ≥ 1 s, "
          "between 2× one prompt's prefill and 2× the whole burst's (100 prompt tokens per decode step)", 256,
          "requests", "admitted together, nobody waits for a slot: the first token waits for the other prompts' "
          "prefills; 256 is vLLM's default running cap (more may wait for a slot: the queue rules); more specific "
          "than the all-at-once reading, so it ranks above it", 0.78),
    _rule("summary-ttft-over-prompt-work", "summary", "queueing",
          "mean TTFT ≥ this × (mean input tokens ÷ the run's input tok/s), TTFT ≥ 0.5 s", 5.0, "×",
          "the run's input rate is a lower bound on the server's prefill rate, so one prompt needs at "
          "most mean input ÷ that rate of prefill; a first token far later waited for something else", 0.7),
    _rule("summary-wait-dominates", "summary", "queueing",
          "queue evidence found, and TTFT less the prompt's own work (mean input ÷ the run's input tok/s) at least "
          "this share of the request's time (E2E, or TTFT + TPOT × the tokens after the first)", 0.5, "of the request",
          "the verdict names where the user's time goes: a slow decode that also built the queue is there, but a "
          "request that spends most of its time waiting is first a queue (add capacity or cap the rate)", 0.9),
    _rule("summary-latency-per-output-token", "summary", "queueing",
          "no TTFT and no per-token time: mean request latency per output token (the client's, or mean E2E ÷ mean "
          "output) ≥ this, with ≥ 8 requests in flight (req/s × mean latency), not on a CPU", 0.25, "s",
          "a GPU's decode step, even over a full batch, is 10-150 ms; when each output token costs a request a "
          "quarter second or more while many are in flight, the latency is spent waiting for a slot or for the "
          "others' prompts (the 2023 benchmark_serving.py sent every request at once)", 0.6),
    _rule("summary-ttft-over-tpot", "summary", "queueing",
          "no input rate in the summary: mean TTFT ≥ this × TPOT and ≥ 2 s (where only tails are stated, a p90, "
          "p95 or p99 TTFT against the same percentile of the step), and past a stated prompt's own work "
          "(limit slowest-prefill-tokens-per-step)", 100.0, "×",
          "a prompt of a few thousand tokens costs tens of decode steps on a GPU, not hundreds (prefill runs "
          "~100× more tokens per step at the same weight reads); weaker than the prompt-work test", 0.55),
    _rule("summary-ttft-over-tpot-few-in-flight", "summary", "prefill-bound",
          "as summary-ttft-over-tpot, with at most this many requests in flight (stated concurrency or Little's law)",
          8.0, "requests", "engines batch far more requests than this by default (vLLM's max-num-seqs 256 or more, "
          "SGLang's and TGI's token budgets), so a handful in flight never wait for a slot: a first token that late "
          "is the prompt's own work", 0.55),
    _rule("summary-ttft-spread", "summary", "queueing",
          "TTFT high percentile (p99 or max) ≥ this × its low one (p1 or min), TTFT (the mean, else that high one) "
          "≥ 1 s or that high one ≥ 2 s, ITL/TPOT spread ≤ 2×",
          5.0, "×", "prompts of one length prefill in about the same time; first tokens that spread from seconds to "
          "tens of seconds while the per-token time stays flat waited in a queue that grew during the run", 0.6,
          0.7),
    _rule("summary-ttft-over-fastest", "summary", "queueing",
          "typical TTFT (median, else mean) ≥ this × the fastest (min or p1), at least 0.3 s more; prompts of one "
          "length (input max ≤ 2 × min, when stated); per-token spread ≤ 2×", 5.0, "×",
          "the fastest first token bounds one prompt's own prefill at this length; a typical request that waits "
          "5× that while its decode runs as fast as anyone's spent the difference in a queue", 0.6, 0.7),
    _rule("summary-ttft-grows-with-concurrency", "summary", "queueing",
          "runs of one file at concurrency levels this many times apart or more, no offered rate: the median TTFT "
          "at the highest level ≥ half the concurrency ratio × the one at the lowest, and ≥ 1 s", 4.0, "×",
          "a first token that grows in step with the requests in flight waits for the requests ahead of it (slots "
          "full, or prompts prefilled one after another on saturated compute: sglang#8750's CPU backend, 0.31 s "
          "alone and 2.6 s at 16); which of the two the runs alone do not say; surer (to the second confidence) as "
          "the growth nears the full ratio or the completed requests a second stay flat: the extra requests added "
          "no work done, only waiting", 0.6, 0.7),
    _rule("summary-e2e-grows-with-concurrency", "summary", "queueing",
          "runs with no TTFT at concurrency levels 4× apart or more, no offered rate: the median request latency at "
          "the highest level ≥ this share of the concurrency ratio × the one at the lowest, and ≥ 1 s (any latency "
          "where the completed requests a second stay flat: limit flat-throughput)", 0.75, "of the ratio",
          "a server that batches decodes its requests together, so their latency grows far slower than their number "
          "(a step costs little more for a few more streams); one that grows almost in step serves them one after "
          "another, each waiting for those ahead (ollama with one parallel slot); surer as for the TTFT's rule",
          0.6, 0.7),
    _rule("summary-ttft-share", "summary", "prefill-bound", "mean TTFT ≥ this share of mean E2E and ≥ 1 s",
          0.25, "of E2E", "the first token takes a quarter of the request: prompt work is a major part of the "
          "latency (queue evidence ruled out first)", 0.5, 0.65),
    _rule("summary-slow-prompt-rate", "summary", "prefill-bound",
          "prompt tokens ÷ TTFT below this × the decode rate (1/TPOT), input ≥ 256 tokens", 2.0, "×",
          "prefill processes a whole prompt per step and should run many times faster per token than decode; long "
          "outputs hide a slow prefill from the TTFT share", 0.55),
    _rule("summary-prompt-crawls", "summary", "prefill-bound",
          "no decode numbers, no E2E: prompt tokens ÷ TTFT below this, input ≥ 128 tokens, TTFT ≥ 5 s", 10.0,
          "tok/s", "a prompt is read many tokens a step, so even a CPU prefills a 7B model at tens to hundreds of "
          "tokens a second; below the decode cutoff's 10 tok/s the first token is slow for any machine, and with "
          "nothing else timed it is the cost shown (queueing would not follow the prompt's length)", 0.65),
    _rule("summary-itl-stalls", "summary", "prefill-bound", "ITL P99 ≥ this × median ITL (alone, or raising "
          "summary-ttft-share)", 10.0, "×", "prefills that stall the decode batch show as a long ITL tail; "
          "the median gap is then the decode step, not the stall-inflated TPOT", 0.65),
    _rule("summary-slow-tpot-no-hardware", "summary", "decode-bound",
          "TPOT (or ITL) ≥ this with no model/GPU to judge against", 0.100, "s",
          "≤ 10 tok/s per stream is slow for any GPU serving a model that fits it; without --model/--gpu this "
          "is the only judgement possible and it is said so", 0.6),
    _rule("summary-tpot-batch-unjudged", "summary", "insufficient-data",
          "no model/GPU, TPOT past the fixed cutoff in a run that held at least this many streams at once (stated, "
          "or by Little's law: output tok/s × TPOT, req/s × E2E or TTFT, at most total tok/s × TPOT)", 128.0,
          "streams", "near the ridge point of datacenter cards (A100 153, H100 295 FLOP per byte) a decode step "
          "stops being one read of the weights and grows with the batch, and every stream's context is read too: "
          "100 ms a token at hundreds of streams is a full batch's price on many cards and slow on others, so the "
          "one-stream cutoff does not judge it; the card does", 0.6),
    _rule("summary-slow-tpot-cpu", "summary", "decode-bound",
          "on a CPU (a CPU backend, a CPU named for the run) or an edge device a table's title names (Jetson, a "
          "phone's SoC) with no model/GPU: TPOT ≥ this", 1.0, "s", _CPU_WHY, 0.6),
    _rule("summary-slower-than-size-allows", "summary", "decode-bound",
          "no GPU named: the run's decode step ≥ this many times what the model's weights take on a 360 GB/s card "
          "at 70 % of its bandwidth", 2.5, "×",
          "as requests-slower-than-size-allows, for a summary: a step that slow is under 40 % of even a slow "
          "card's speed for those weights (an offload, a CPU, or a slow kernel path), fast-looking rates included",
          0.7),
    _rule("summary-same-work-slower", "summary", "decode-bound",
          "an offline run generates the same tokens (same count, same model) as another run of the file at this "
          "many times lower throughput", 5.0, "×",
          "the other run is the same card's own evidence of what the work needs: engines and settings differ by "
          "2-3× on one card, so 5× or more is a broken generation path (eager mode, a fallback kernel, a CPU), not "
          "tuning (nano-vllm at 132 tok/s beside vLLM at 9,530 on one A100, nano-vllm#245)", 0.65),
    _rule("summary-latency-follows-prompt", "summary", "prefill-bound",
          "runs of one sweep at three prompt lengths or more (the longest ≥ limit prompt-sweep-span × the "
          "shortest), one request at a time and outputs alike, latency rising with the prompt: the cost a prompt "
          "token adds × the longest prompt is at least this share of that run's latency", 0.8, "of the latency",
          "the same request with a longer prompt differs only in the prompt's work: latency that grows with it "
          "in proportion is spent processing the prompt (a 1B model's reply to a fixed question with 27 → 21,633 "
          "prompt tokens, 0.21 → 36.6 s: ~1.7 ms a prompt token, 100 % of the longest; openclaw's tool schemas, "
          "NemoClaw#2598)", 0.65),
    _rule("summary-quantised-not-faster", "summary", "decode-bound",
          "a run of weights in fewer than 16 bits (the format its name or the line above it states) decodes at less "
          "than this × the rate of the file's nearest run of the same model and shape in wider weights (16 bits, or "
          "8 beside 4)", 1.0, "× the wider weights' rate",
          "a decode step reads every weight once: fewer bits are fewer bytes a token, so INT4 decodes 2-3× faster "
          "than FP16 at batch 1 (not 4×: dequantising and wider accumulators cost some), never slower; a slower "
          "quantised run spends more in its dequantising kernel than the bytes save (torchao int8wo at 13 tok/s "
          "beside bf16 at 52 on an A30, sglang#2219; AQLM 1x16 at 67 beside fp16 at 98 on an A100, AQLM#133)", 0.7),
    _rule("summary-static-batch-prefill-shrinks", "summary", "measurement-artifact",
          "a static-batch benchmark's sweep (TGI's text-generation-benchmark, SGLang's bench_one_batch): a larger "
          "batch's mean prefill latency at or below this share of a smaller batch's", 1 / 3, "of the smaller's",
          "a larger batch prefills more prompts of the same length, so its pass takes at least as long; one several "
          "times shorter shows the smaller batches' timings hold a graph's compilation or a missed shape bucket, not "
          "prefill (TGI on Gaudi: 267 ms at batch 1, 28 ms at batch 8, tgi-gaudi#184)", 0.75),
    _rule("summary-prompt-only", "summary", "prefill-bound",
          "a run of one or two output tokens a request, its prompts this many tokens or more, with a TTFT (or, the "
          "latencies cut away, its input rate)", 1024,
          "tokens", "a prompt-processing benchmark (llmperf or bench_serving at one output token, a TTFT sweep): the "
          "prompt is all the work timed, so it is the cost, as requests-prompt-only reads a server's such requests; "
          "with no card to compare against, the TTFT is reported, not judged", 0.55),
    _rule("summary-models-one-bandwidth", "summary", "healthy",
          "one stream's decode of two or more models the file names, their sizes at least 1.5× apart: weights per "
          "step × tok/s of the fastest-reading model over the slowest's at most this (and 4 GB/s or more)", 1.35, "×",
          "every decode step reads all the weights once, so a decode that the memory limits reads them at one speed "
          "whatever the model's size: rates falling as the sizes grow are that machine's bandwidth, not a fault of "
          "the runner; the fixed cutoff's slow rows are taken back (an engine limit would not scale with the size). "
          "The same spread judges llama-bench's rows of two models or more with no card named (size × tg rate, "
          "hardware-decode-near-floor)", 0.7),
    _rule("summary-scrape-few-requests", "summary", "insufficient-data",
          "a metrics scrape whose histograms count fewer than this many requests", 5.0, "requests",
          "a /metrics scrape counts every request since the server started: a handful is a demo or an idle server, "
          "and a TTFT read from a histogram's buckets over them is no distribution to call healthy", 0.55),
    _rule("summary-ttft-grows-with-rate", "summary", "queueing",
          "runs of one file at offered request rates: the mean TTFT at the highest rate ≥ this many times the one at "
          "the lowest (and ≥ twice the rate ratio, and ≥ 1 s), while the time per output token grew ≤ limit "
          "sweep-step-growth", 5.0, "×",
          "a prompt costs the same at every rate, and a batch's step grows slowly with its streams, so a first token "
          "many times later at a little more load waited to be admitted: the arrivals outran the server (vLLM on a "
          "Tenstorrent N150: 0.2 s at 1 req/s, 2.96 s at 2, with the per-token time 55 -> 72 ms)", 0.6),
    _rule("summary-same-load-ttft-waits", "summary", "queueing",
          "runs of one file under the same load (stated concurrency ≥ limit same-load-min-in-flight, the same offered "
          "rate or none, the same stated prompt length or none): a run's mean TTFT ≥ this many times the fastest's, "
          "and ≥ 2 s", 5.0, "×",
          "the same requests in flight meet the same prompt work, so a first token many times later on one path is "
          "time spent waiting before the engine took the request (a proxy or router that holds requests back, a "
          "replica's queue): gpustack's proxy, 9.4 s against vLLM's own 0.74 s at 256 in flight", 0.6),
    _rule("summary-same-prompt-ttft-waits", "summary", "queueing",
          "summary-same-prompt-slower-prefill's runs, the slow one's per-token time within this many times the fast "
          "one's and its requests in flight (stated or by Little's law) 1.5× or more", 1.3, "×",
          "the engine's step is unchanged, so it reads the prompt no slower; with more requests at once, the late "
          "first token waited for the ones ahead (inference-benchmarker on a one-slot llama-server: 66 ms one at a "
          "time, 2.04 s at 1 req/s offered, ITL 7.4 ms in both)", 0.6),
    _rule("summary-same-prompt-slower-prefill", "summary", "prefill-bound",
          "runs of one file with the same stated prompt length (128 tokens or more) and few in flight (none stated, "
          "or under limit same-load-min-in-flight), no offered rate: a run's TTFT ≥ this many times the fastest's, "
          "and ≥ 2 s", 5.0, "×",
          "too few requests to wait for a batch slot, so a first token is the prompt's own work: the same prompt read "
          "five times slower on one path (another engine, build, cache setting) is that path's prefill "
          "(club-3090's agent turns: vLLM 254 s against llama.cpp's 10 s for 35k tokens)", 0.6),
    _rule("summary-sweep-scales", "summary", "healthy",
          "runs of one file at concurrency levels this many times apart or more, no offered rate: the completed "
          "requests a second grow by ≥ limit sweep-scales of the concurrency ratio while the median TTFT (or request "
          "latency) stays ≤ limit sweep-flat-latency × its value at the lowest level", 4.0, "×",
          "a server that batches serves more requests in flight at nearly the same latency (a decode step costs "
          "little more for a few more streams), so its completions grow with them; this is the sign of it that a "
          "load tester's request latencies give with no token counts (wrk against vLLM on an A40: 5× the "
          "connections, 4.2× the requests a second, 1.18× the latency)", 0.55),
    _rule("summary-one-at-a-time-steady", "summary", "healthy",
          "a request latency with no tokens, at a stated concurrency of 1, its p99 within limit steady-tail of its "
          "median", None, "",
          "with one request in flight at a time nothing can wait for another, and a tail that close to the median "
          "shows no stall, restart or cold start in the run; the speed itself needs tokens or a card (Triton's "
          "perf_analyzer on a TensorRT model at batch 256: p50 13.8 ms, p99 14.6 ms)", 0.55),
    _rule("summary-slow-tpot-large-model", "summary", "healthy",
          "no --model: a run slower than the fixed cutoff within what the weights its own row's model states (a "
          "table's Model cell: `70B F16`) allow on a slow common card (requests-slow-tpot-large-model's share of 360 "
          "GB/s)",
          None, "", "as for requests: ten tokens a second is slow for a 7B model and the best a 70B one gets on such a "
          "card, so a size the run names turns the fixed cutoff into a floor", 0.6),
    _rule("summary-mlperf-valid", "summary", "healthy",
          "an MLPerf Inference Server or Interactive result that is compliant, with no errors and not inferred",
          None, "", "MLPerf accepts a Server or Interactive run only if its p99 first-token and per-token latencies "
          "met the scenario's bounds at the load it reports (llama2-70b Interactive: 450 ms and 40 ms): a passing "
          "result is a latency judgement made by the benchmark's rules (an Offline result has no such bound)", 0.6),
    _rule("summary-mlperf-over-bounds", "summary", "queueing",
          "an MLPerf Inference Server or Interactive result LoadGen printed INVALID with `Performance constraints "
          "satisfied : NO`", None, "", "LoadGen schedules queries at the target rate whatever the system's pace; "
          "a run that missed its p99 first-token or per-token bound at that rate answered slower than queries "
          "arrived, and the excess waited (an early-stopping or duration failure alone is not this)", 0.7),
    _rule("summary-healthy", "summary", "healthy", "latencies present, none of the rules above fired", None, "",
          "TTFT, per-token time and throughput stated, no queue, no artefact", 0.6),
    _rule("summary-no-latency", "summary", "insufficient-data", "counts only, no latency columns", None, "",
          "nothing to judge speed by", 0.45),
    _rule("summary-warmup-only", "summary", "insufficient-data",
          "a warm-up run's figures alone (the run a benchmark makes before its measured ones), with no time per "
          "token", None, "",
          "a warm-up compiles kernels, captures graphs and fills caches in its timed steps: its first token says "
          "how long that took, not how fast the engine serves; with no measured run after it there is nothing to "
          "judge (SGLang's bench_one_batch cut after its warm-up's `Prefill.` line)", 0.5),
    _rule("summary-throughput-only", "summary", "insufficient-data",
          "throughput (tok/s, req/s) but no TTFT, per-token time or request latency; or a request latency with no "
          "TTFT, per-token time, token rate or output length", None, "",
          "a rate alone depends on the batch, the lengths and the card: the same tok/s is fast for one setup and "
          "slow for another, so it supports no verdict by itself (an offline throughput line, a cut summary); a "
          "latency alone depends on the unknown output length the same way",
          0.5),
    # -- server stats windows (vLLM stats line, SGLang batch lines, TRT-LLM iteration stats, two /metrics scrapes) --
    _rule("windows-kv-full-waiting", "windows", "kv-capacity", "KV usage ≥ this with requests waiting", 0.90,
          "fraction", "KV ≥ ~90 % with waiting > 0 is the KV pool holding requests back", 0.5, 0.95),
    _rule("windows-swapped", "windows", "kv-capacity", "requests swapped to CPU > 0", 0.0, "requests",
          "V0 swaps only when the GPU KV cache runs out", 0.6, 0.9),
    _rule("windows-waiting", "windows", "queueing", "waiting requests > 0 (KV not full)", 0.0, "requests",
          "a queue that does not drain is overload; a draining one lowers the score by 0.15", 0.45, 0.9),
    _rule("windows-short-queue", "windows", "note",
          "the most requests waiting at most this share of the fewest running", 0.1, "of running",
          "a full running batch admits a waiting request each time one finishes: a queue that short is admitted "
          "within a few decode steps, a wait no request's latency notices (a decode node at its batch cap); a longer "
          "one is windows-waiting's", 0.0),
    _rule("windows-prefill-heavy", "windows", "prefill-bound",
          "prompt tok/s ≥ 5 × generation tok/s and < 10 generation tok/s per running request", 5.0, "×",
          "an interval dominated by prompt tokens while decode collapses", 0.5, 0.95),
    _rule("windows-slow-prefill-gap", "windows", "prefill-bound",
          "an SGLang prompt of ≥ 128 tokens read (Prefill line to the next Decode line, ≥ 2 s) at under this × the "
          "per-stream decode rate", 3.0, "× the decode rate", "a prompt is read in batched matrix products, 5-20× "
          "the generation rate on a CPU and far more on a GPU (the requests' slow-prompt rule, measured between two "
          "stamps); a prompt read barely faster than one stream generates costs as much as thousands of output "
          "tokens", 0.6, 0.9),
    _rule("windows-bench-prefill-share", "windows", "prefill-bound",
          "bench rows (llama-batched-bench, llama-sweep-bench) whose prompt phase is ≥ this share of the row's time",
          0.5, "share", "a row times one request shape end to end (T_PP then T_TG): where reading the prompt takes "
          "half of it, prefill is that request's cost, as for a request's own prompt eval and eval times", 0.5, 0.85),
    _rule("windows-slow-streams", "windows", "decode-bound",
          "generation < 10 tok/s per running request at ≤ 8 running (or < 5 at any batch), no prefill load",
          10.0, "tok/s per request", "a small batch is bandwidth-bound and should stream well above 10 tok/s "
          "on any GPU; without --model/--gpu the cutoff is fixed and said so", 0.45, 0.8),
    _rule("windows-spec-drafts-rejected", "windows", "decode-bound",
          "speculative decoding's mean acceptance length (the step's own token counted) at most this, over 100 "
          "drafted tokens or more where the lines count them", 1.1, "tokens a step",
          "a draft accepted one time in ten or less buys nothing: each step still runs the drafter and verifies its "
          "k tokens, and keeps one (gemma-4 31B with MTP: 25 of 3,652 drafted tokens accepted, 15-31 tok/s a "
          "stream, vllm-project/vllm#41789)", 0.7),
    _rule("windows-slow-spec-steps", "windows", "decode-bound",
          "no model/GPU; speculative decoding on: generation per running request ÷ its mean acceptance length "
          "(tokens a step) < windows-slow-streams' 10 a second at ≤ 8 running, the stream under twice that in tok/s",
          10.0, "steps/s per request",
          "the one-stream cutoff is about steps, one read of the weights each; drafts accepted add tokens to a step, "
          "not steps: 17 tok/s at 1.9 tokens a step is 9 steps a second, as slow as 9 tok/s without drafts; a "
          "stream at twice the cutoff or more (35 tok/s of a model repeating itself, all drafts taken) reads fine to "
          "its user and is left to the other rules", 0.6),
    _rule("windows-stalled", "windows", "decode-bound",
          "requests running, no prompt read and no token generated over the window", 0.0, "tok/s",
          "a held request that produces nothing for a whole stats interval is a hung engine or a step longer than "
          "the interval: no token is coming", 0.5, 0.85),
    _rule("windows-decode-slows-with-depth", "windows", "decode-bound",
          "llama-bench tg at up to 16,384 tokens of context slower than with none by this factor", 2.0, "×",
          "a step reads the weights plus the cache; at these depths a GQA model's cache is a fraction of its "
          "weights, so halving the rate is the attention kernel's cost, not the memory's", 0.7),
    _rule("windows-bench-same-test-slower", "windows", "decode-bound",
          "llama-bench: the same test (tg, or pp: prefill-bound) of the same model under the same settings, run by "
          "two builds of a file, one this many times slower than the other", 1.4, "×",
          "the faster run is the same machine's own evidence of what the work needs: with model, test, backend, "
          "threads and offload the same, a build that much slower lost speed in its kernels or its scheduling (a "
          "regression, a missing SIMD path), not to the hardware; llama-bench's run-to-run noise is a few percent. "
          "Set between two readings: a patch lifting pp512 1.25x read as an improvement over a healthy run, a tg "
          "1.48x slower on one CPU read as slow decode", 0.7),
    _rule("windows-slowdown-beyond-context", "windows", "measurement-artifact",
          "a llama-bench test (pp or tg) at depth d2 slower than at depth d1 > 0 by more than this many times d2 / d1",
          1.5, "× d2/d1", "a step's time is the weights' read plus the cache's, the cache's linear in the depth, so "
          "from d1 to d2 it grows at most d2/d1 times (even with attention all of it); a rate falling faster is "
          "something else: memory spilled off the device, another load, a first test run once (-r 1). Half again "
          "for cache effects and noise", 0.75),
    _rule("windows-kv-full-no-queue", "windows", "kv-capacity", "KV usage ≥ 0.90 with no request waiting", 0.90,
          "fraction", "the batch already fills the KV pool: the next burst will queue or preempt", 0.4, 0.65),
    _rule("windows-prompt-in-chunks", "windows", "prefill-bound",
          "nothing running in any window while prefill lines read a prompt in chunks, the prompt (first chunk + "
          "pending; with no pending count, the largest chunk) ÷ the lines' mean input rate ≥ "
          "requests-prompt-in-progress' seconds", None,
          "", "a long prompt read chunk by chunk with nothing else served: every second of it comes before its first "
          "token, as a runner's prompt-progress lines show (requests-prompt-in-progress)", 0.6),
    _rule("windows-prompt-rate-idle", "windows", "measurement-artifact",
          "nothing running in any window while prefill lines state an input rate whose highest × the model's FLOPs "
          "a token is under this share of the card's peak", 0.01, "of the card's peak FLOP/s",
          "tuned prefill computes at 30-60% of the peak and an engine without its fast kernels (eager, no flash "
          "attention) at a few percent; a hundredth is no prompt's speed but tokens over time partly idle (SGLang's "
          "input throughput is the last batch's tokens over the time since the Prefill line before)", 0.65),
    _rule("windows-idle", "windows", "insufficient-data", "Running 0 and Waiting 0 in every window", None, "",
          "an idle server says nothing about its speed", 0.6),
    _rule("windows-batch-below-one-stream", "windows", "decode-bound",
          "llama-batched-bench: a batch's total generation rate below this share of one sequence's, same shape",
          0.8, "of B=1's tok/s",
          "a decode step reads the weights once for the whole batch, so more sequences at once raise the total: a "
          "batch whose total falls below one sequence's runs a slower kernel path for it (small-N matmuls), not the "
          "memory's pace; surer the further below", 0.8, 0.9),
    _rule("windows-prompt-rate-only", "windows", "insufficient-data",
          "prompt-processing rates only (llama-bench pp rows), no generation rate", None, "",
          "a prompt is read many tokens per pass, bound by compute; generation reads every weight per token, so a "
          "prompt rate, however good, says nothing about it", 0.5),
    _rule("windows-prompt-compute-sound", "windows", "healthy",
          "windows-prompt-rate-only's llama-bench rows on a GPU backend of a dense model, parameters stated, or of a "
          "mixture whose active parameters are known: the best row's 2 × (active) parameters × prompt tok/s at least "
          "this (no experts kept on the CPU)", 1e13, "FLOP/s",
          "a workstation CPU's cores compute a few TFLOP/s at most (ik_llama.cpp's 32-core Threadripper: 5) and any "
          "discrete GPU or Apple chip of the last years more than ten: a prompt read at this pace is the "
          "accelerator at its usual work (readers call such pp-only tables healthy), one read slower may be an "
          "offload and stays unjudged", 0.55),
    _rule("windows-no-speed", "windows", "insufficient-data",
          "busy windows, no queue, no generation rate outside the windows where the requests arrived", None, "",
          "running counts and KV usage alone cannot show speed; a window that holds a request's arrival averages "
          "its rates over time before it came", 0.5),
    _rule("windows-streams-unjudged", "windows", "insufficient-data",
          "no model/GPU; busy windows otherwise clean whose streams average under windows-slow-streams' 10 tok/s "
          "where that rule did not judge them (more than 8 running, a prompt load beside), with fewer running than "
          "summary-tpot-batch-unjudged's streams", None, "",
          "under the ridge point a step is mostly one read of the weights, so 100 ms or more is slow for a model that "
          "fits its card and normal for a big model on a slow one (106B on NPUs): without the card the speed is "
          "neither normal nor slow; from the ridge on a full batch's step is long on any card (the windows rules "
          "leave it healthy)", 0.6),
    _rule("windows-healthy", "windows", "healthy", "busy windows, no queue, KV not full, streams not slow", None,
          "", "the rules above found nothing; the per-stream speed is shown", 0.55, 0.8),
    # -- per-request records (TGI, llama.cpp, ollama, llmperf, detailed bench JSON, TGI span fragments) --------
    _rule("requests-ttft-zero", "requests", "measurement-artifact", "TTFT = 0", 0.0, "s", "a first token is never free: the client did not time it", 0.85),
    _rule("requests-ttft-under-one-pass", "requests", "measurement-artifact",
          "TTFT above 0 and at most summary-ttft-under-one-pass's threshold", None, "",
          "as summary-ttft-under-one-pass, for a request: a first token needs one forward pass through every layer, "
          "a few ms at least; 94 µs through a hosted API is a clock started when the first content had already "
          "arrived (LiveKit's Gemini Live metrics, livekit/agents#2426)", 0.85),
    _rule("requests-ttft-ge-e2e", "requests", "measurement-artifact", "TTFT ≥ E2E with more than one token",
          None, "", "not streamed", 0.85),
    _rule("requests-prefill-zero", "requests", "measurement-artifact", "prompt eval 0.00 ms for a prompt of two tokens or more",
          0.0, "s", "llama-cpp-python 0.3.0; a one-token prompt is evaluated in llama.cpp's first decode step, "
          "so its 0.00 ms is accounting", 0.85),
    _rule("requests-impossible-prompt-rate", "requests", "measurement-artifact",
          "prompt tok/s above this on a single-stream runner (llama.cpp, ollama), no model/GPU", 50_000.0,
          "tok/s", "50k tok/s needs 2 × 1e9 × 5e4 = 100 TFLOP/s even for a 1B model; ollama's 139,356 tok/s "
          "was a timing bug (PR #12742)", 0.7),
    _rule("requests-negative-figure", "requests", "measurement-artifact",
          "a token count, a rate or a time below this", 0.0, "",
          "no run writes fewer than no tokens or takes less than no time: a negative figure is a counter that "
          "wrapped or subtracted the prompt twice (text-generation-webui printed `-0.11 tokens/s, -10 tokens`, "
          "oobabooga/textgen#685), and no speed can be read from the line", 0.85),
    _rule("requests-rate-contradicts-time", "requests", "measurement-artifact",
          "a printed tokens/s that differs by more than this share from the line's own tokens ÷ time", 0.10, "share",
          "a timer prints both from one count and one time, so they agree to rounding; a rate that contradicts its "
          "own time was edited or mixed from two runs, and no speed can be read from the line", 0.8),
    _rule("requests-prompt-slower-than-decode", "requests", "measurement-artifact",
          "prompt eval time per token ≥ this × the eval time per generated token, in half the requests or more", 3.0,
          "×",
          "prefill reads the weights once for the whole prompt, so a prompt token never costs more than a generated "
          "one on any hardware; a prompt time that does holds something else (model load, warm-up, graph "
          "building); broken numbers outrank what is read from them when they are half the requests or more (one "
          "warm-up call among several voids that call's prompt figures, not the rest: a note)", 0.9),
    _rule("requests-slow-prompt-rate", "requests", "prefill-bound",
          "prompt of ≥ 128 tokens read at under this × the generation rate, taking ≥ 1/3 of prompt eval + eval",
          3.0, "× the decode rate", "batched prompt processing runs 5-20× the generation rate on a CPU and far more "
          "on a GPU; within 3× the prompt was read a token at a time or paid a warm-up. A ratio of two rates of the "
          "same request on the same machine, so it outranks the hardware-blind per-token cutoff", 0.5, 0.88),
    _rule("requests-phases-unjudged", "requests", "insufficient-data",
          "no model/GPU; every request's prompt of 21-127 tokens took ≥ 10 decode steps, read at under "
          "requests-slow-prompt-rate's 3× the generation rate and ≥ 1/3 of prompt eval + eval", 10.0, "decode steps",
          "a short prompt's fixed overhead is a step or two, not ten: read at the answer's pace, it shows a device "
          "with no compute to spare (a CPU's shape, or a runner that does not batch the prompt), where the GPU's "
          "per-token cutoff says nothing; which phase is at fault needs the machine, so the cutoff's decode-bound "
          "is held back", 0.6),
    _rule("requests-cold-start", "requests", "measurement-artifact",
          "load time ≥ this share of the request, and no longer than the request (else it was outside it), with no "
          "per-token time of the answer stated apart from it (else the cold start is a note)",
          0.5, "of E2E", "the request measured a model load, not serving; a load longer than the total time was "
          "timed before it (PowerInfer#150: 13.8 s of load beside a 12.7 s total); an answer timed apart from the "
          "load (ollama's eval_duration, llama.cpp's eval time) is measured clean of it and is what is judged", 0.8),
    _rule("requests-one-token", "requests", "measurement-artifact",
          "a per-token time or generation rate stated for a request that writes at most this many tokens", 1.0,
          "tokens", "one token is the prompt's first: its eval time (llama.cpp's 0.00 ms and inf tokens per second, "
          "llama-coder#3) times no decode step, so it is set aside and read by no decode rule; its prompt share "
          "counts only for a prompt of requests-prompt-only's size", 0.6),
    _rule("requests-impossible-tpot", "requests", "measurement-artifact",
          "time per output token at or above this", 86400.0, "s",
          "a day a token is beyond any runner that serves a request: even 2 TB of fp16 weights streamed from a "
          "100 MB/s disk each token take 2e12 ÷ 1e8 = 20,000 s (5.6 h); a per-token time that long is a timer bug "
          "(llm_bench printed 1,958,228,200 ms, 23 days, before openvino.genai#1244)", 0.9),
    _rule("requests-impossible-generation-rate", "requests", "measurement-artifact",
          "one request's generation rate above this (a time per output token under 10 µs)", 100_000.0, "tok/s",
          "a decode step runs every layer's kernels in turn, each a few microseconds to launch even when captured in "
          "a graph, so no stream of any transformer writes 100,000 tokens a second; a rate like a million a second "
          "is a division by a zero decode time (lemonade's bench printed `TPS=1000000.0` on every run, "
          "lemonade-sdk/lemonade)", 0.9),
    _rule("requests-sampling-slows-decode", "requests", "decode-bound",
          "llama.cpp's sample time at or above this × its eval time over the same tokens", 1.0, "× eval time",
          "llama.cpp times its samplers apart from the model's steps: a sampler that takes as long as the forward "
          "pass (a grammar's checks over the vocabulary, penalties) doubles each token's time, so generation is slow "
          "on the host, not on the card (llama-cpp-python#1032's grammar: 77.93 ms sampling a token against 34.68 "
          "ms of eval)", 0.8),
    _rule("requests-first-warm-up", "requests", "note",
          "the file's first request's time per output token ≥ this × the mean of the later ones", 5.0, "×",
          "a runner's first request after a model load pays the load's tail, graph building and cold caches; the "
          "same runner then serving the same kind of request several times faster shows the steady state, so the "
          "first is left out of the judgement and said so", 0.0),
    _rule("requests-tiny-prompt", "requests", "note", "prompt ≤ this many tokens", 20.0, "tokens",
          "a prompt-eval rate on a handful of tokens is fixed overhead", 0.0),
    _rule("requests-parts-mismatch", "requests", "check",
          "total time differs from load + prompt eval + eval by more than this share (and 50 ms)", 0.10,
          "of total", "the parts of a request must add up; a gap is time the runner did not account for",
          0.0),
    _rule("requests-parts-exceed-total", "requests", "measurement-artifact",
          "a request's load + prompt eval + eval longer than its total by more than requests-parts-mismatch's share",
          None, "", "a total holds its parts; parts that outlast it come from different runs or an edited block "
                    "(a guide's example whose eval count ÷ rate is three times its total)", 0.7, 0.85),
    _rule("requests-queue-dominant", "requests", "queueing", "queue time > compute time and > 0.05 s", 0.05, "s",
          "TGI queue_time ≫ inference_time", 0.6, 0.9),
    _rule("requests-queue-long", "requests", "queueing",
          "queue time ≥ this where the line gives no compute time (a span fragment)", 10.0, "s",
          "no request of a healthy server waits seconds for a slot; how long it then computed is unknown, so the "
          "wait alone is the evidence", 0.6, 0.85),
    _rule("requests-prefill-share", "requests", "prefill-bound",
          "prompt eval ≥ this share of prompt eval + eval (≥ 2/3 when the prompt is read ≥ 10× faster per token "
          "than the answer is written), prompt > 64 tokens", 0.5, "of compute",
          "per request, the time to read the prompt exceeds the time to write the answer: prefill dominates "
          "(llama.cpp, ollama state both parts); a prompt read at a healthy rate is a long prompt, prefill-bound "
          "only when it takes twice the decode time; a prompt of a few dozen tokens is one step of mostly fixed "
          "cost (a 29-token hello in 0.5 s beside 25 tokens at 13 ms)", 0.45, 0.75),
    _rule("requests-phase-leads", "requests", "note",
          "both phases read as slow (prompt share and per-token cutoff): the one holding at least this share of the "
          "requests' prompt + generation time leads; the other's confidence is held below it", 2 / 3, "of compute",
          "a bottleneck is where the time goes: 193 s reading a prompt beside 9 s writing 30 slow tokens is a "
          "prefill problem first (private-gpt#493), whichever fixed cutoff the per-token time also crosses; a "
          "per-token time the model's size shows to be several times too slow is not capped (it is an anomaly of "
          "its own)", 0.0),
    _rule("requests-slow-tpot-no-hardware", "requests", "decode-bound",
          "time per output token ≥ this with no model/GPU to judge against", 0.100, "s",
          "≤ 10 tok/s per stream; the hardware is unknown, so the cutoff is fixed and said so", 0.55, 0.85),
    _rule("requests-slow-tpot-cpu", "requests", "decode-bound",
          "on a CPU backend with no model/GPU: time per output token ≥ this", 1.0, "s", _CPU_WHY, 0.55, 0.85),
    _rule("requests-served-in-turn", "requests", "queueing",
          "this many requests or more, each over a second, that a server's access log times (finish stamp and "
          "latency) arrived together (finish less latency within max(2 s, the lesser of a quarter of their "
          "finishes' span and the first request's latency)) and finished one after another, the last ≥ limit "
          "in-turn-growth × the first's latency", 5, "requests",
          "a server that batches answers requests sent together at about the same time; latencies that grow by one "
          "request's time with each finish are requests served one at a time, each waiting for those before it "
          "(ollama with one parallel slot: 13 chat requests sent at once, 2.5 s to 21.7 s, one every ~1.6 s)", 0.7),
    _rule("requests-slow-tpot-large-model", "requests", "healthy",
          "the slow per-token time is within what the weights the model's name states allow on a slow common card "
          "(this share of 360 GB/s: Tesla P40 347, RTX 3060 360)", 0.7, "of peak bandwidth",
          "ten tokens a second is slow for a 7B model and the best a 70B one gets on such a card: a size the name "
          "states turns the fixed cutoff into a floor; slower than that floor stays slow (offload, CPU)", 0.6),
    _rule("requests-prompt-only", "requests", "prefill-bound",
          "requests with a prompt of this many tokens or more and its rate, and no token generated", 1024, "tokens",
          "a prompt-processing measurement (mlx_lm's Prompt line alone, llama-bench-like runs): the prompt is all "
          "the work timed, so it is the cost; with no card to compare against, its rate is reported, not judged",
          0.55),
    _rule("requests-prompt-in-progress", "requests", "prefill-bound",
          "a prompt still being read when the excerpt ends, whose progress so far projects this long a prompt", 5.0,
          "s", "the runner's progress lines (LM Studio's percentages) say the prompt alone takes this long before "
          "any token; an interactive first token is expected within a second or two", 0.6),
    _rule("requests-context-full", "requests", "kv-capacity",
          "a local runner's context held ≥ this share of its context window when a request ended", 0.9,
          "of the window", "a runner's KV cache is its context window: near the end the next prompt no longer fits, "
          "so the runner shifts, truncates or reprocesses the context, and replies come out cut or empty "
          "(koboldcpp's own advice: a larger --contextsize); full only before the last request, or beside every request's "
          "measured prompt cost (requests-prefill-share), a forecast: the middle of the range", 0.5, 0.75),
    _rule("requests-slower-than-size-allows", "requests", "decode-bound",
          "per-token time under the fixed cutoff but ≥ this many times what the name's weights take on that slow "
          "common card", 2.5, "×", "a 3B-active MoE at 24 tok/s is as slow as a 70B one: a card of 360 GB/s streams "
          "its 1.7 GB a step in 7 ms; 2.5× that (under 40 % of the card's speed, the hardware rule's line) is an "
          "offload or a CPU", 0.7),
    _rule("requests-decode-slowed", "requests", "decode-bound",
          "a local runner's requests in turn (3+): the last decode rate at most 1/this of the best, prompts ≤ 16k",
          2.0, "×", "a model that streamed at 37 tok/s and now streams at 17 with a 13-token prompt lost part of its "
          "GPU (offload after a larger context allocation) or shares it: the rate, not the context, changed", 0.65),
    _rule("requests-host-bound-steps", "requests", "decode-bound",
          "a runner that times each token's host side (tinygrad's `enqueue in`): that time ≥ this share of the step",
          0.5, "of the step", "a decode step is the device reading the weights once; when scheduling and launching its "
          "kernels takes most of the step, the device idles between them (no graph replay, too many small kernels), "
          "so the token rate is the host's, not the memory's", 0.7),
    _rule("requests-prefill-slowed", "requests", "prefill-bound",
          "a local runner's requests in turn (2+), prompts within 2× of each other in size: the last prompt rate at "
          "most 1/this of the best, decode within 1.5×, the last prompt ≥ 1/3 of its request's compute", 3.0, "×",
          "the same prompt read eight times slower while the answer streams as before: the prompt pass changed "
          "(a cache no longer reused, a grown context), not the machine; two rates of the same runner, so it "
          "outranks the hardware-blind per-token cutoff", 0.88),
    _rule("requests-decode-below-bench", "requests", "decode-bound",
          "served requests' mean decode rate below this share of the slowest one-stream generation rate the same log "
          "benches (llama-bench tg, sweep-bench), prompts ≤ 16k", 0.85, "of the bench",
          "a request decodes as the bench's one stream does, less a few percent for sampling and the HTTP stream; "
          "losing more than 15 % of the speed the same machine measured is the serving path's (settings, offload, "
          "another load, a different build), not the hardware's", 0.8),
    _rule("requests-ttft-unexplained", "requests", "insufficient-data",
          "requests with a mean TTFT ≥ this, no prompt length and no per-token time", 5.0, "s",
          "a first token that late is a prompt of tens of thousands of tokens or a wait in a queue, and nothing in the "
          "log tells which; under it, even a long prompt on a slow card fits, so the TTFT alone can support healthy",
          0.6),
    _rule("summary-ttft-unexplained", "summary", "insufficient-data",
          "a run's mean TTFT ≥ requests-ttft-unexplained's threshold with no prompt length, per-token time or rate",
          None, "", "the same as requests-ttft-unexplained, for a benchmark's run", 0.5),
    _rule("requests-no-speed", "requests", "insufficient-data", "requests with times but no per-token time or TTFT",
          None, "", "a total or queue time alone cannot say where the time went", 0.5),
    _rule("requests-healthy", "requests", "healthy", "per-token time or TTFT present (or, with neither, every "
          "call's time ÷ its 16+ output tokens under the slow cutoff), no rule above fired", None,
          "", "the numbers are shown; a whole call's time per output token includes its prompt, so it bounds the "
          "decode step from above", 0.55, 0.75),
    # -- state: events, start-up capacity, /metrics snapshots ------------------------------------------------------
    _rule("state-preemption", "state", "kv-capacity", "preemption / retraction / OOM events, a KV cache with no "
          "room for the next batch (llama.cpp), a request refused as longer than the cache holds, an engine refusing "
          "to start for want of KV memory", 1.0, "events",
          "the engine evicted requests, or could not place a batch, because the KV cache ran out; more events, more "
          "confidence",
          0.8, 0.9),
    _rule("state-prompt-reprocessed", "state", "prefill-bound",
          "llama-server forcing full prompt re-processing (its cache held no usable prefix: a sliding-window or "
          "hybrid/recurrent model, or context checkpoints past the common prefix)", 1.0, "prompts",
          "a chat or agent turn resends its history; with no prefix to resume from the server prefills all of it "
          "again, so the first token waits on the whole conversation's prompt work, not on the new message "
          "(every blind reading of such a log accepts prefill-bound)", 0.6, 0.75),
    _rule("state-busy-rejections", "state", "queueing",
          "requests the server answered `503 Service Unavailable` or `429 Too Many Requests` (an access log's status), "
          "or refused with a reply saying it is overloaded (Anthropic's 529 `overloaded_error`, TGI's `Model is "
          "overloaded`)",
          1.0, "refusals", "a server refuses at the door when its queue of pending requests is full (ollama's "
          "OLLAMA_MAX_QUEUE, a gateway's limit): more arrived than it holds, the queue's verdict with its overflow "
          "shown", 0.7, 0.85),
    _rule("state-workers-hung", "state", "insufficient-data",
          "the engine's own notice that its workers took no step for a minute (vLLM shm_broadcast), with a stats "
          "window that held requests and produced nothing (without one: a start-up wait, a note)", 1.0, "notices",
          "a stall the engine names as one: the stats windows around it measure a hang or a crash, which no speed "
          "verdict describes; the workers' errors, not the rates, are the evidence to read", 0.85),
    _rule("state-not-warmed-up", "state", "measurement-artifact",
          "batch shapes the engine ran without their warm-up (vLLM on Gaudi: `was not warmed-up`)", 1.0, "shapes",
          "an HPU graph is compiled the first time a shape is met; the step that meets it pays seconds of "
          "compilation, so timings taken while shapes are still being met measure the compiler, not serving; "
          "weak (0.6) where the other timings of a long log may be warm, up to 0.8 as the shapes near the log's "
          "count of timings (shapes ÷ windows, requests and summaries)", 0.6, 0.8),
    _rule("state-table-misaligned", "state", "measurement-artifact",
          "table rows with 2+ cells whose own unit (ms, tokens/s, token(s)) contradicts their column's header", 1.0,
          "rows", "a script that tabulates a tool's output and loses one field shifts every later cell: `18 token(s)` "
          "under load duration, `7.86ms` under eval rate; read by position, a time becomes a rate and the verdict "
          "follows the slip, so the rows are set aside and the table called an artefact of its making", 0.65),
    _rule("state-partial-offload", "state", "decode-bound",
          "a local runner's start-up places fewer than this share of the model's layers on the GPU", 0.9,
          "of the layers", "a layer in system memory is read at the CPU's bandwidth, a tenth of a GPU's or less, and "
          "every token passes through all layers: a fifth of them off the GPU already halves decode; seen at start-up "
          "it decides the speed before any request runs", 0.6),
    _rule("state-partial-offload-unmeasured", "state", "insufficient-data",
          "as state-partial-offload, with no generation timed anywhere in the log (no request's decode, no stats "
          "window's generation rate, no summary's per-token time or output rate)", None, "",
          "the placement says where decode will be slow, not that it was: a start-up or memory excerpt alone shows "
          "what the speed hangs on, and a reader calls it too little to judge (or the memory it was short of)", 0.5),
    _rule("state-kv-pushes-layers-off", "state", "kv-capacity",
          "as state-partial-offload, with the KV cache the runner sized for its context at least this share of the "
          "weights", 1.0, "of the weights",
          "a runner sizes its cache for the context it was given (ollama's num_ctx, llama.cpp's -c) before it places "
          "layers: a cache as large as the model takes the card's room for layers, so the context, not the model, "
          "sends them to system memory (ollama#12305: 20 GiB of KV beside 13 GiB of weights, no layer on a 6 GB "
          "card); a shorter context or a quantised cache brings them back", 0.65),
    _rule("state-reload-pushes-layers-off", "state", "kv-capacity",
          "`ollama ps` shows one model (one ID) twice: later larger and with less of it on the GPU, under "
          "state-partial-offload's share", None, "",
          "the ID is the weights, so what grew is what ollama sizes per load: the KV cache for the context a client "
          "asked for (num_ctx) times the parallel slots; the cache took the card's room and sent layers to system "
          "memory (ollama#7081: 9.6 GB all on the GPU from the CLI, 19 GB at 57% from an editor's API calls)", 0.65),
    _rule("state-few-full-requests", "state", "kv-capacity", "KV cache holds fewer than this many full-length "
          "requests (not where every run is an offline batch of no more prompts than it holds)", 2.0, "requests",
          "long-context traffic will queue on KV capacity; a batch the pool holds whole does not", 0.55),
    _rule("state-kv-memory-small", "state", "kv-capacity", "memory left for the KV cache below this share of the "
          "weights' memory, its size in tokens not printed", 0.01, "of the weights", "a token's KV bytes are 1/26,000 (Llama-2-7B, "
          "full heads: 512 KiB against 13.5 GB) to 1/430,000 (Llama-3-70B, grouped: 320 KiB against 141 GB) of the "
          "weights' bytes, so 1% of the weights holds about 250-4,300 tokens: less than one long request, a handful "
          "of chat turns", 0.6),
    _rule("state-capacity-only", "state", "insufficient-data", "start-up capacity lines only", None, "",
          "no traffic in the log", 0.5),
    _rule("read-unjudged", "state", "insufficient-data", "windows, requests or summaries read, no rule fired on them",
          None, "", "a bench's rate with no card to judge it against, or a decode speed between the named model's "
          "'far below' and 'near' its floor, names no bottleneck and shows no health: what was read is shown", 0.5),
    _rule("read-unknown-layout", "state", "insufficient-data", "a file no reader knows whose lines carry serving "
          "numbers (a rate in tok/s, a TTFT, a latency), nothing else read", None, "",
          "its numbers are listed, not guessed at: a table or summary in a layout no reader knows can be neither "
          "judged nor dismissed as no log", 0.5),
    _rule("read-no-numbers", "state", "insufficient-data", "a file no reader knows, no serving number in it, whose "
          "lines name serving (a model, an engine, a serving measure) on at least this many lines", 2, "lines",
          "a pasted thread or a command's prose answer is about serving but holds nothing to judge: it is read and "
          "said so, not refused as no log; one such line (`engine: vllm` above a timestamp) is too little to tell "
          "it from another program's file", 0.5),
    _rule("state-snapshot-kv-full", "state", "kv-capacity", "one scrape: waiting > 0 with KV ≥ 0.90", 0.90,
          "fraction", "as windows-kv-full-waiting, seen once", 0.7),
    _rule("state-snapshot-waiting", "state", "queueing", "one scrape: waiting > 0", 0.0, "requests",
          "as windows-waiting, seen once", 0.6),
    _rule("state-usage-out-of-range", "state", "measurement-artifact",
          "one scrape's KV cache usage below 0 or above this fraction", 1.01, "fraction",
          "a usage is a share of the cache, 0 to 1 (a hundredth over for rounding): vllm-ascend's decode instance "
          "reported -0.39 (vllm-ascend#10048), a gauge computed from the wrong block count", 0.75),
    _rule("state-snapshot-preemptions", "state", "kv-capacity", "one scrape: preemptions since start > 0", 0.0,
          "events", "a counter, so it may be old", 0.6),
    _rule("state-snapshot-only", "state", "insufficient-data", "one scrape", None, "",
          "counters need two scrapes for rates (--url scrapes twice)", 0.5),
    # -- against the hardware (--model/--gpu, or what the log names) -----------------------------------------------
    _rule("hardware-decode-faster-than-floor", "hardware", "measurement-artifact",
          "observed decode step faster than the ledger floor by this factor", 1.2, "× floor speed",
          "faster than the bandwidth allows is a wrong model/GPU, speculative decoding or a broken "
          "measurement", 0.7),
    _rule("hardware-speculative-faster-than-floor", "hardware", "healthy",
          "observed time per output token under one pass's floor, by at most this factor, with speculative decoding "
          "on in the launch command or counted in the engine's stats", 6.5, "× floor speed",
          "a pass of the target model accepts several drafted tokens, so the time per output token divides one "
          "pass's; EAGLE-3 reports speed-ups up to 6.5× (Li et al., 2025), beyond which the figure is no pass's",
          0.6),
    _rule("hardware-prefill-above-peak", "hardware", "measurement-artifact",
          "prompt tok/s × FLOP per token above this × the dense peak", 1.2, "× peak",
          "the prompt was not all computed (prefix cache) or not all timed; broken numbers outrank what is "
          "read from them", 0.9),
    _rule("hardware-decode-far-below-floor", "hardware", "decode-bound",
          "observed decode speed below this share of the ledger floor's speed", 0.5, "of floor speed",
          "memory-bound GEMMs and decode attention reach 75-92 % of HBM bandwidth in engine measurements; below "
          "half, the engine (not the memory) limits decode; measured against physics, it outranks the "
          "fixed-cutoff readings", 0.85),
    _rule("hardware-decode-below-realistic", "hardware", "decode-bound",
          "observed decode step slower than this × the ledger's realistic estimate", _REALISTIC_SLACK, "× realistic",
          "the realistic estimate already charges launch and efficiency losses; 1.5× beyond it is lost time",
          0.85),
    _rule("hardware-decode-near-floor", "hardware", "healthy",
          "observed decode speed at or above this share of the floor's speed", 0.75, "of floor speed",
          "as fast as the hardware allows: slow tokens are the model's size, not a fault", 0.65),
    _rule("hardware-throughput-one-stream", "hardware", "healthy",
          "a run stating only its output rate (no per-token time; no batch, or a batch of one): every rate at or above "
          "this share of one stream's realistic rate", 1 / _REALISTIC_SLACK, "of one stream's rate",
          "any batch of one or more streams makes at least one stream's tokens a second, so a rate that reaches it "
          "(within the 1.5× the realistic estimate allows) shows no slow decode; a lower rate may be a slow engine "
          "or a prefill-heavy run, and is left unjudged", 0.55),
    _rule("hardware-ttft-above-realistic", "hardware", "prefill-bound",
          "mean TTFT above this × what the ledger's realistic prefill of the mean prompt allows, with the wait a "
          "queue of the run's own load would add (one stream at a time, or Poisson arrivals at the run's req/s)",
          2.0, "× realistic first token",
          "the realistic prefill is fitted within about 1.5× of measured engines and the queue allowance is M/D/1's "
          "mean wait (ρ / 2(1 − ρ) prefills at utilisation ρ); three times that is time no prompt work or queue of "
          "this load accounts for: a slow prefill path (engine, attention backend, KV transfer, encoder)", 0.75),
    _rule("hardware-prefill-below-realistic", "hardware", "prefill-bound",
          "the fastest request's own prompt-processing rate below this share of the ledger's realistic prefill rate "
          "for its prompt length", 1 / 3, "of realistic prefill speed",
          "a request's prompt-eval rate is measured while it prefills (no idle time in it, unlike a stats window's "
          "average); the realistic prefill is fitted within about 1.5× of measured engines, so a third of it is an "
          "engine, backend or offload holding the prompt back", 0.7),
    _rule("hardware-bench-prefill-below-realistic", "hardware", "prefill-bound",
          "llama-bench's best pp<N> row of a dense model on a GPU below this share of the ledger's realistic "
          "prefill of its micro-batch (N tokens, at most n_ubatch)", 1 / 6, "of realistic prefill speed",
          "a local runner's quantised matmuls reach less of a card than the engines the realistic estimate is "
          "fitted to: llama.cpp's published pp512 sits at about half of it (llama 7B F16 8,381 tok/s on an A100 "
          "PCIe, llama.cpp#6017; 8B Q5_0 3,331 tok/s on a V100, llama.cpp#24127), mistral.rs's at a fifth on an A10 "
          "(blind74); a sixth is a build, backend or offload holding the prompt back", 0.7),
    _rule("hardware-prefill-near-realistic", "hardware", "healthy",
          "the fastest request's prompt-processing rate (or llama-bench's best pp<N> row) at or above this share "
          "of the ledger's realistic prefill rate", 1 / _REALISTIC_SLACK, "of realistic prefill speed",
          "prompts are read as fast as the card's compute allows (within the estimate's 1.5×)", 0.55),
    _rule("hardware-low-effective-bandwidth", "hardware", "decode-bound",
          "weights (llama-bench size) × generation tok/s below this", 4e9, "B/s",
          "every decode step reads all weights once, so size × tok/s is the bandwidth reached; "
          "below 4 GB/s is slower than any current memory system, a backend problem (QNN example): a Raspberry Pi "
          "5's LPDDR4X gives llama.cpp ~8-9 GB/s and one thread of a server CPU streams 6-10 GB/s", 0.75),
    _rule("hardware-named-decode-far-below-floor", "hardware", "decode-bound",
          "one stream's decode below this share of the speed the weights allow, the model sized from its name "
          "(no config.json at hand)", 0.4, "of floor speed",
          "the name's size × its format's bits is what a step reads at batch 1-2; engines reach 75-92 % of the "
          "bandwidth; a stricter cutoff than with the config because the size and format are estimates", 0.8),
    _rule("hardware-named-decode-near-floor", "hardware", "healthy",
          "one stream's decode at or above this share of the speed the weights allow, the model sized from its "
          "name", 0.75, "of floor speed", "as fast as the memory allows for a model this size", 0.6),
)

RULES = {rule.name: rule for rule in _TABLE}

@dataclass(frozen=True)
class Limit:
    """A number a rule family tests beside its rule's threshold: a floor under which a figure is noise, a batch
    size, an engine's default. One row each, so a reader reviews them where the rules are."""

    name: str
    value: float
    unit: str
    used_by: str  # the rules or readings it shapes
    why: str


_LIMITS = (
    Limit("close-call", 0.1, "confidence", "the ranking (diagnosis.rank)",
          "a second reading within this of the winner lowers the winner's confidence by this much, never below the "
          "second's: two readings that close are a close call, and the report says so"),
    Limit("kv-room", 0.5, "of the KV pool", "the queueing advice (advice.py)",
          "requests that wait while the KV pool never passed half full are held back by a batch cap (max-num-seqs, "
          "max-running-requests), not by memory: raising the cap comes before adding replicas"),
    Limit("small-batch", 8, "running requests", "windows-slow-streams, windows-bench-same-test-slower",
          "at or below this many running requests a decode step reads the weights once for a handful of streams: "
          "bandwidth-bound and fast, so a slow stream here is the engine's or the card's; a llama-bench prompt of "
          "this many tokens or fewer (pp1-pp8) is such a step too, the kernels of speculative verification and "
          "parallel decoding, so a build slower at it is slower at generation"),
    Limit("drain-over-crawl", 3.0, "× a request's tokens at the starved-stream rate", "summary-drain-beyond-arrivals",
          "with no latency in the excerpt, a run that went on after its last arrival for this many times what one "
          "request's output takes at the starved-stream rate held requests waiting: each served from its arrival, "
          "even at that crawl, would have finished well before (1,920 requests at 32 req/s, 82 tokens each, took "
          "154 s past the 60 s of arrivals, where ~16 s would do)"),
    Limit("starved-stream", 5.0, "tok/s per running request", "windows-slow-streams, summary-drain-beyond-arrivals",
          "even a batch of hundreds writes more than this per stream on a data-centre card; below it at any batch "
          "the streams are starved"),
    Limit("prefill-share-min-prompt", 64, "prompt tokens", "requests-prefill-share",
          "a prompt of a few dozen tokens is read in one step whose time is mostly fixed cost (a graph's setup, the "
          "template): its share of a short answer says nothing about prefill"),
    Limit("unstated-prompt-fast", 0.1, "s", "requests-prefill-share",
          "a prompt of unstated length read faster than this is as short as one under prefill-share-min-prompt"),
    Limit("load-fits-slack", 1.1, "× total", "requests-parts-mismatch",
          "load + prompt + generation may pass the total that holds them by this much: rounding, a missed sample time"),
    Limit("parts-mismatch-min", 0.05, "s", "requests-parts-mismatch",
          "runners print milliseconds; a gap under 50 ms between the parts and the total is rounding and scheduling "
          "noise"),
    Limit("prefill-healthy-ratio", 10.0, "× a generated token's rate", "requests-prefill-share, the healthy reading",
          "prefill reads the weights once for the whole prompt: on GPUs a prompt token costs 1/10 to 1/100 of a "
          "generated one (CPUs ~1/3 to 1/10), so a prompt read 10× faster per token than the answer is a healthy "
          "prefill"),
    Limit("prefill-dominant-share", 2 / 3, "of prompt + decode time", "requests-prefill-share",
          "prefill twice the decode time: the prompt, not the answer, is the request's cost"),
    Limit("prefill-healthy-min-seconds", 0.5, "s", "requests-prefill-share, the healthy reading",
          "a prompt read at a healthy rate in less is no wait anyone notices, whatever its share of a short answer "
          "(an editor's fill-in-the-middle call: 118 new tokens in 55 ms beside 2 generated in 20 ms)"),
    Limit("ceiling-min-output", 16, "output tokens", "a request's latency ÷ its output as a per-token ceiling",
          "with fewer output tokens the call's fixed costs (the prompt, detokenising, HTTP) swamp the per-token time"),
    Limit("slow-prompt-min-tokens", 128, "prompt tokens", "requests-slow-prompt-rate",
          "a shorter prompt's rate is dominated by fixed overhead, unless it took slow-prompt-min-steps decode steps"),
    Limit("slow-prompt-min-steps", 10, "decode steps", "requests-slow-prompt-rate",
          "an overhead is a step or two of decode time, not ten: a short prompt that took this many is slow itself"),
    Limit("slow-prompt-share", 1 / 3, "of prompt eval + eval", "requests-slow-prompt-rate",
          "the slow prompt costs half the decode time or more: enough to be the request's problem"),
    Limit("prefill-gap-min-tokens", 128, "prompt tokens", "windows-slow-prefill-gap",
          "shorter prompts: fixed costs, not the prompt's work, set the time between a Prefill and a Decode line"),
    Limit("prefill-gap-min", 2.0, "s", "windows-slow-prefill-gap",
          "stamps are whole seconds and the gap holds a few decode steps: under 2 s it is noise"),
    Limit("sglang-decode-log-steps", 40, "decode steps", "windows-slow-prefill-gap",
          "SGLang's --decode-log-interval default: a Decode line every 40 steps, so the gap to the next Decode line "
          "holds at most this many steps besides the prefill"),
    Limit("recurring-share", 0.1, "of the windows", "the window rules' episodes",
          "a finding in this share of the windows (and 3 or more) is an episode, not one outlier window"),
    Limit("depth-max", 16384, "tokens of context", "windows-decode-slows-with-depth, requests-decode-below-bench",
          "up to here the cache of a usual GQA model is a fraction of its weights (Llama-3 8B: 128 kB a token, 2 GB "
          "at 16k against 4.9 GB of Q4 weights); deeper, a small model's cache may honestly outweigh its weights"),
    Limit("slow-common-card", 360e9, "B/s", "requests-slow-tpot-large-model, requests-slower-than-size-allows",
          "the slowest card still in common use for local inference (Tesla P40 347 GB/s, RTX 3060 360 GB/s): a "
          "model too large for ten tokens a second there is not slow at ten"),
    Limit("whole-call-min-output", 32, "output tokens", "requests-slower-than-size-allows on whole-call times",
          "a call timed whole (gpt-fast, torchchat, exllamav2's test_inference) that wrote this many tokens after a "
          "prompt no longer than 4× them spent at least half its time decoding: one prompt pass costs about one "
          "decode step for a short prompt, a few for a long one (torchchat on MPS: 50 tokens in 28.73 s, 574 ms a "
          "token, an 8B model at 28 GB/s)"),
    Limit("in-turn-growth", 3.0, "× the first request's latency", "requests-served-in-turn",
          "the last of requests sent together taking three times the first's is more than a batch's slower steps "
          "(a batch of a few grows a step by tens of percent): the later ones waited"),
    Limit("slow-common-cpu", 40e9, "B/s", "requests-slower-than-size-allows on a CPU backend",
          "a desktop's two DDR4 channels (2 × 25.6 GB/s peak, ~40 sustained), the slowest memory a CPU run still "
          "commonly streams weights from: a CPU decode slower than the weights take there is slow for any CPU"),
    Limit("layer-step-seconds", 46e-6, "s per layer a decode step",
          "hardware-decode-far-below-floor, hardware-named-decode-far-below-floor (a model known by its size), the "
          "slow-card floor of requests- and summary-slower-than-size-allows",
          "a batch-1 step launches a dozen small kernels a layer (norms, rope, attention, the matmuls, the "
          "activation) whose fixed cost does not shrink with the weights: llama 8B Q4_0 (4.33 GiB, 32 layers) at "
          "micro-batch 1 on an RTX 3090 runs 155 t/s (llama.cpp#15802), 6.45 ms a step of which the weights at "
          "936 GB/s take 4.97 ms: 1.5 ms over 32 layers. A small model's floor is mostly this"),
    Limit("slow-common-apple", 68.25e9, "B/s", "requests-slower-than-size-allows, summary-slower-than-size-allows "
          "on Apple silicon (a Metal backend)",
          "the slowest Apple chip still running models, the base M1's unified memory (68.25 GB/s; base M2/M3 100, "
          "M4 120): a Metal decode slower than the weights take there is slow for any Mac, where the GPU floor of "
          "a 360 GB/s card would call a base chip slow"),
    Limit("spec-min-drafted", 100, "drafted tokens", "windows-spec-drafts-rejected",
          "with fewer drafted tokens in the log an acceptance rate is a handful of steps' luck"),
    Limit("row-weights-share", 0.75, "of the named floor", "hardware-named-decode-far-below-floor and -near-floor "
          "on a table row's own model cell (rules_summary._row_on_card)",
          "a small model's step is mostly its layers' fixed cost, which differs several-fold between cards and "
          "engines (Gemma 3 1B Q4_K_M at ~134 tok/s on a T4 in llcuda's benchmark page, Llama 3.2 1B 4-bit at "
          "~220 on an M4 Max in vllm-mlx's docs: well under their bandwidth, and neither a fault); a row is judged "
          "only where reading the weights is most of the floor"),
    Limit("named-max-batch", 2, "streams", "hardware-named-decode-far-below-floor, -near-floor",
          "a model sized from its name is judged against one stream's floor only at batch 1-2, where a step reads "
          "the weights for so few streams that the floor holds"),
    Limit("mixture-same-total", 0.01, "of total parameters", "llama-bench mixtures (named_model.mixture_read)",
          "a catalogued mixture is the row's model when their totals agree this closely (llama.cpp counts an MTP "
          "layer or a tied head a little differently)"),
    Limit("mixture-named-total", 0.05, "of total parameters", "llama-bench mixtures (named_model.mixture_read)",
          "a model cell's size is llama.cpp's rounded type name (`gpt-oss 20B` for 20.9B, `30B.A3B` for 30.5B): "
          "with no params column a catalogued mixture is the row's model when its total is this close to the name's"),
    Limit("mixture-dense-part-bits", 8.5, "bits a parameter", "llama-bench mixtures (named_model.mixture_read)",
          "the widest llama.cpp's quant mixes keep the tensors outside the routed experts (Q8_0: 8.5 bits): the "
          "most a mixture's step reads of its non-expert part"),
    Limit("prefill-tokens-per-step", 100, "prompt tokens", "summary-burst-prefill",
          "a prefill pass reads the weights once like a decode step but computes on every prompt token, so one "
          "step's time reads about ridge × bytes per weight prompt tokens: ~300 at bf16 on an H100, ~75 with 4-bit "
          "weights; 100 prices one prompt's prefill in steps"),
    Limit("latency-per-token-min-in-flight", 8, "requests at once", "summary-latency-per-output-token",
          "from this many requests in flight a slow request latency per output token is a wait, not a slow step"),
    Limit("max-default-batch", 2048, "running requests", "summary-all-at-once (a run stating no TTFT)",
          "the largest default running-batch cap among vLLM (256/1024), SGLang and TensorRT-LLM (2048): past it, "
          "requests wait even if the cap was not stated"),
    Limit("ttft-excess", 0.25, "s", "hardware-ttft-above-realistic",
          "a first token slower than the ledger's by less than this is network, tokenisation and one decode step, "
          "not a slow prefill: short prompts' realistic prefill is milliseconds"),
    Limit("prefill-utilisation", 0.8, "of the time", "hardware-ttft-above-realistic",
          "above this share of the run's time spent prefilling (req/s × one prompt's realistic prefill) the queue's "
          "wait grows faster than any allowance, so a slow first token is not judged against the hardware"),
    Limit("offline-max-seqs", 256, "requests", "the hardware comparison's batch for an offline run",
          "vLLM's default max_num_seqs: an offline run of this many prompts or fewer runs them as one batch, so its "
          "output rate is that batch's; more wait their turn and the batch is unknown"),
    Limit("fastest-stream-step", 0.5e-3, "s a token", "summary-ttft-equals-e2e (the time after the first token)",
          "2,000 tokens a second in one stream: no GPU engine's decode reaches it (a small model with speculative "
          "decoding on a B200 makes a few hundred); a request whose tokens after the first came faster than this "
          "arrived whole, its TTFT the time to its only byte"),
    Limit("prompt-only-output", 2.0, "output tokens a request", "the summary rules' per-token readings",
          "a run generating at most this many tokens a request measures prompts only (sglang#6411: 4,096 in, 1 out, "
          "2 counted): its per-token figures are not judged"),
    Limit("step-bound-min-tokens", 64.0, "output tokens in all", "the summary rules' per-token readings",
          "an all-at-once run's output rate bounds its streams' step only where it wrote this many tokens in all: a "
          "cold engine's one short call (vLLM's default 16 tokens, 2.19 s) is its start-up and prefill, not decode"),
    Limit("healthy-min-tokens", 16.0, "output tokens in all", "the summary rules' healthy reading",
          "an all-at-once run's fast rate over fewer tokens than vLLM's default 16-token call (a smoke test, "
          "vllm-ascend#555: one prompt, 8 tokens) times a call's start-up and prompt too: too little to call it "
          "healthy"),
    Limit("burst-arrival-share", 0.05, "of the run's time", "summary-burst-prefill",
          "every request arrived within this share of the run: a burst, whose queue the test built"),
    Limit("over-cap-untimed", 2.0, "× the running cap", "summary-concurrency-over-cap",
          "a client holding this many times the engine's running cap has half its requests or more waiting for a "
          "slot whatever their steps: a queue even where the summary was cut before its latencies"),
    Limit("burst-admitted-steps", 20, "decode steps", "summary-all-at-once, the queue readings",
          "a burst's mean TTFT within this many decode steps: all admitted at once, no queue built"),
    Limit("burst-in-batch-ttft", 1.0, "s", "summary-all-at-once",
          "a burst the engine's stated batch cap holds whole, its mean TTFT under this: the burst's prompts "
          "prefilled a few iterations at a time, no queue for a slot (trtllm-bench's sample: 100 requests of 128 "
          "tokens, cap 3,840, TTFT 163 ms)"),
    Limit("more-in-flight", 1.5, "× the requests in flight", "summary-same-prompt-ttft-waits",
          "the slower run held at least this many times the requests at once (stated, or by Little's law): enough "
          "more to wait behind, where a few percent would be noise"),
    Limit("closed-loop-rounds", 4, "requests per in-flight slot", "a closed loop's per-token ceiling",
          "from this many requests per slot a closed loop's start and drain are a small part of its run, so "
          "concurrency ÷ output tok/s bounds its step from above"),
    Limit("client-rounds-first-token", 1.5, "× one prompt's own work", "summary-rate-not-kept",
          "a client capping its requests in flight runs them in rounds (32 at concurrency 16: two); where the mean "
          "TTFT is within this of a prompt's own work (its tokens ÷ the run's input rate) no request waited at the "
          "server, and where its streams crawl (under 10 tok/s each) they set the pace: the run is expected to take "
          "its rounds × one request's service, not the arrival window + one (normal streams that fall behind the "
          "offered rate are load past capacity, a queue)"),
    Limit("prompt-sweep-span", 8.0, "× the shortest prompt", "summary-latency-follows-prompt",
          "a prompt sweep's longest prompt over its shortest, at least: over a narrower span a fixed cost (load, "
          "the reply's tokens) and the prompt's are too alike to tell apart"),
    Limit("closed-loop-prompt-share", 8.0, "prompt tokens an output token", "a closed loop's per-token ceiling",
          "at most this many prompt tokens a generated one: a prompt token costs a few percent of a generated one's "
          "step, so 2,048 in / 512 out is still mostly generation, but a prefill-heavy run's concurrency ÷ output "
          "tok/s (16k-token shared prefixes and 128 out) is mostly its prompts' time, no bound to judge decode by"),
    Limit("first-token-steps", 1.5, "× the run's TPOT", "hardware-ttft-above-realistic (a served run's first token)",
          "a prompt that arrives while a batch runs waits for its step to end (half a step on average) and is prefilled "
          "inside a step of that batch (a whole one at least): with 100 streams and a 70 ms step, 105 ms of any first "
          "token are the decode's, whatever the prefill costs"),
    Limit("batched-step", 16, "requests a step", "the decode-bound advice",
          "a step this many streams share already reads the weights once for all of them (a sixteenth each or less): "
          "batching more cuts little of a token's time and slows every stream, so a step slower than the card makes "
          "at that batch points at the step's own cost"),
    Limit("bench-decode-far-below", 0.4, "of floor speed", "hardware-decode-far-below-floor on llama-bench rows "
          "(roofline._bench_decode_findings, _slowest_row_far_below)",
          "llama.cpp's quantised decode at batch 1 reaches 45-70 % of a card's bandwidth, not the 75-92 % of the "
          "engines the rule's own cutoff is set by (llama.cpp's CUDA scoreboard: tg128 of a 7B Q4_0, 3.56 GiB, at "
          "~160 t/s on an RTX 4090 is ~61 %; a Jetson Orin Nano's 3B Q4_K_M and a Radeon 8060S's 35B-A3B at 48-49 %, "
          "round 653): below 40 % a row's backend holds it back, between 40 and 50 % is llama.cpp's usual"),
    Limit("bench-mixture-decode-far-below", 0.25, "of floor speed", "hardware-decode-far-below-floor on a "
          "mixture of experts' fastest llama-bench row (roofline._bench_decode_findings)",
          "llama.cpp multiplies a mixture's routed experts a token at a time (mul_mat_id: gathered rows, the router, "
          "more small kernels a layer), so its decode reaches a smaller share of the card than a dense model's: "
          "Qwen3-235B-A22B on an M1 Ultra 27-32 %, DeepSeek-V3 over eight MI300X 16-21 % (AMD's reference run), 30B-A3B "
          "models on Radeon 8060S and Strix Halo iGPUs 48-56 % (rounds 653, 666, 682): below a quarter a row's backend "
          "holds it back, above it is llama.cpp's usual for a mixture"),
    Limit("bench-other-model-params", 1.15, "× params", "the roofline's observed speed in a llama-bench table of "
          "several models (roofline.own_bench_rows)",
          "llama-bench's params column counts a model's weights whatever their quantisation (a Q4_0 and an F16 file of "
          "one 7B both say 6.74 B), and a fine-tune or a vision head moves it a few percent; the sizes people compare "
          "(7B, 8B, 14B, 32B) are ≥ 1.14× apart"),
    Limit("kv-sweep-points", 3, "contexts", "a context sweep's slow step judged at its shortest context "
          "(rules_summary._kv_sweeps)",
          "two points always lie on a line; a third shows whether the step grows with the context as KV reads do"),
    Limit("kv-line-tolerance", 0.35, "off the line", "a context sweep's slow step judged at its shortest context "
          "(rules_summary._kv_sweeps)",
          "each step reads the weights and the KV cache of the tokens before it, so the step is a line in the "
          "context; a step more than this share off the line from the shortest to the longest context (oMLX's 250 "
          "ms at 16K against 185 ms at 32K) is a decode path's trouble, not the cache's size"),
    Limit("kept-up-ttft-share", 0.25, "of a request's time", "Little's law batch from an offered rate "
          "(streams_by_littles_law)",
          "a run whose first token takes at most a quarter of its requests' time is not piling requests up in a queue "
          "(a growing queue's wait soon outweighs the answer), so it completes the rate it is offered and the requests "
          "in flight are that rate × their time"),
    Limit("streams-seen", 2.0, "requests at once", "Little's law batch (streams_by_littles_law)",
          "above this a run held more than one request at once, so it is no batch of one"),
    Limit("one-stream-band", 1.25, "× one stream", "Little's law batch of one (one_stream_by_littles_law)",
          "a run's output tok/s × its TPOT within this factor of 1 (0.8 to 1.25) is one stream writing: the tokens a "
          "second the run made are the ones a single stream makes at that step, so it ran one request at a time "
          "(a rate rounded in the table, or prompt tokens counted in, moves the product by less)"),
    Limit("sizes-apart", 1.5, "× weights per step", "summary-models-one-bandwidth",
          "the largest model's weights a step over the smallest's, at least, for a test of several models to have "
          "the power to show one bandwidth"),
    Limit("slowest-prefill-tokens-per-step", 5, "prompt tokens a decode step's time", "summary-ttft-over-tpot",
          "a prompt is read at least this many tokens in a decode step's time on any machine (a CPU's llama.cpp: "
          "~5; an Apple GPU's 8-bit 27B: 10-14, round 132; a data-centre GPU's: 50-200, limit "
          "prefill-tokens-per-step): a TTFT within a stated prompt ÷ this × the step is the prompt's own work, no "
          "queue evidence"),
    Limit("chunked-gap-share", 0.25, "× the time per output token", "summary-itl-stalls",
          "a median gap between tokens under this share of the time per output token is tokens streamed several to a "
          "chunk (the gaps inside a chunk near zero): a P99 many times that median is the chunking, not a stall"),
    Limit("spread-mean-share", 0.25, "× the slowest TTFT", "summary-ttft-spread",
          "with only the fastest and the slowest first token stated (no p99), a mean below this share "
          "of the slowest is one late request (a closed loop's opening wave), not a queue that grew: a queue growing "
          "through the run puts the mean near half the slowest"),
    Limit("server-prefill-tokens-per-step", 25, "prompt tokens a decode step's time", "summary-ttft-over-tpot",
          "as slowest-prefill-tokens-per-step where the log launches a serving engine (vllm serve, SGLang's "
          "launch_server, trtllm-serve, text-generation-launcher): those run on accelerators, whose prefill reads a "
          "quarter of limit prefill-tokens-per-step's 100 at the least (a slow card, 4-bit weights), not a CPU's ~5"),
    Limit("steady-tail", 1.25, "× the median", "summary-one-at-a-time-steady",
          "a p99 within a quarter of the median is a run with no stall (summary-ttft-spread calls a tail of 2x a "
          "spread worth a look)"),
    Limit("sweep-step-growth", 2.0, "× the per-token time at the lowest rate", "summary-ttft-grows-with-rate",
          "a step twice as long or more is a batch grown with the load (or a card that slowed), which delays first "
          "tokens as much as any wait; under it the first token's growth is waiting"),
    Limit("same-load-min-in-flight", 8.0, "requests in flight", "summary-same-load-ttft-waits",
          "with few requests in flight a first token is the prompt's own work, and a path many times slower at it is "
          "slower at prefill (another card, no cache), not waiting; from this many a first token waits for batch "
          "slots"),
    Limit("sweep-scales", 0.6, "of the concurrency ratio", "summary-sweep-scales",
          "the completed requests a second must grow by at least this share of the concurrency ratio: well past the "
          "flat-throughput limit (a server that does not batch), short of the full ratio (a step does cost more with "
          "more streams)"),
    Limit("sweep-flat-latency", 1.5, "× the latency at the lowest level", "summary-sweep-scales",
          "a latency grown by less than this between the sweep's ends is level: a request does not wait for those "
          "ahead of it (half the e2e-grows share of a 4× sweep would be 1.5×)"),
    Limit("oom-room", 10.0, "× the allocation", "out-of-memory events (failures.py)",
          "a PyTorch out-of-memory error whose card had this many times the memory it tried to allocate free did not "
          "run out of memory: its allocator failed (ms-swift#9613: 20 MiB refused with 66.43 GiB free under vLLM's "
          "cumem allocator); a note, not a KV-capacity verdict"),
    Limit("oom-room-min-free", 1.0, "GiB free", "out-of-memory events (failures.py)",
          "and at least this much free: a few MiB free beside a 100 KiB request is a full card"),
    Limit("flat-apart", 2.0, "× the concurrency", "summary-ttft-grows-with-concurrency",
          "two levels this many times apart (under the rule's own 4×) are still compared where the completed requests "
          "a second stay flat between them (limit flat-throughput): the added requests served nothing more, so by "
          "Little's law their latency is all waiting (locust against ollama: 27.3 req/s at 300 users and 25.8 at "
          "1,000, the median response 9.6 s then 24 s)"),
    Limit("flat-throughput", 1.25, "× completed requests a second", "summary-e2e-grows-with-concurrency",
          "between two concurrency levels a throughput grown by at most this much is flat: the extra requests in "
          "flight added nothing, so the latency's growth is waiting (perf_analyzer's Python-backend Transformers "
          "model: 23.2 infer/sec at 1, 23.8 at 4, triton-inference-server/tutorials#49)"),
    Limit("interleaved-prefill-slack", 2.0, "× the others' prefills over a request's tokens",
          "summary-prefill-interleaved",
          "in a request's life each other stream starts about one prompt, about a TTFT of prefill each: a per-token "
          "time over this multiple of (concurrency - 1) × TTFT ÷ the output tokens is more than they can add, the "
          "decode's own (MetaX-MACA/vLLM-metax#223: 2 in flight, 23.9 s TTFT over 1,023 tokens, 293 ms a token)"),
    Limit("weights-memory-share", 0.9, "of a card's memory", "the named floor's card count (roofline._named_cards) "
          "and the comparison's one card (roofline._layout)",
          "a model is judged on the fewest cards whose memory holds its weights at this share each: the rest is the "
          "cache and the runtime"),
    Limit("split-card-memory", 40e9, "bytes", "the named floor's card count (roofline._named_cards)",
          "from this much memory (datacenter parts) a model too big for one card runs split over several; below it "
          "a model whose bf16 format is only guessed may as well be a quantised file on one card"),
)

LIMITS = {item.name: item for item in _LIMITS}

# What a fixed cutoff's evidence asks for, and what it says instead when a model or card was given (or named by the
# log) but the comparison could not judge the figure (a summary with no batch stated, a model it could not size).
ASK_FOR_HARDWARE = "give --model and --gpu to judge it against the hardware"
COMPARISON_UNJUDGED = "the hardware comparison could not judge it (its lines say why)"
ASK_FOR_CARD = "give --gpu to judge the card"


@dataclass(frozen=True)
class Hardware:
    """What the rules know of the comparison with the hardware (__init__._diagnose). `judged`: the roofline judged
    decode speed, so the fixed-cutoff decode rules stand down. `compared`: a model or card was given or named and
    compared (judged or not). `card`: a card was given or named, so no evidence asks for one; `card_name` and
    `bandwidth_bytes_per_second` are that card's where the catalogue knows it (a row naming its model's size is then
    judged on it, not on a slow common card)."""

    judged: bool = False
    compared: bool = False
    card: bool = False
    card_name: str | None = None
    bandwidth_bytes_per_second: float | None = None
    # The stats windows' highest prompt rate × the model's FLOPs a token ÷ the card's peak (roofline.
    # window_prompt_share); None where no model and card were compared or the windows state no prompt rate.
    window_prompt_peak_fraction: float | None = None

    @property
    def ask(self) -> str:
        """What a fixed cutoff's evidence says of the hardware: ask for it, or say the comparison could not judge."""
        return COMPARISON_UNJUDGED if self.compared and not self.judged else ASK_FOR_HARDWARE

    @property
    def ask_card(self) -> str:
        """The clause that asks for the card (with its separator), empty where one was given or named."""
        return "" if self.card else f"; {ASK_FOR_CARD}"


NO_HARDWARE = Hardware()  # neither model nor card given or named


def limit(name: str) -> float:
    return LIMITS[name].value

FAMILIES = ("summary", "windows", "requests", "state", "hardware")


def threshold(name: str) -> float:
    value = RULES[name].threshold
    assert value is not None, name
    return value


def fire(name: str, text: str, numbers: dict | None = None, share: float = 1.0, lines=(), file: str = "",
         verdict: str | None = None, score: float | None = None) -> Finding:
    """A Finding for rule `name` with one piece of evidence; its score comes from the table (share-weighted)."""
    rule = RULES[name]
    verdict = verdict or rule.verdict
    return Finding(verdict, rule.score(share) if score is None else score,
                   [Evidence(verdict, text, dict(numbers or {}), list(lines), file, rule=name)], rule=name)


def rules_table() -> str:
    """The table as Markdown, one row per rule, grouped by family."""
    rows = ["| rule | verdict | evidence | threshold | confidence | why |", "|---|---|---|---|---|---|"]
    for rule in _TABLE:
        if rule.threshold is None:
            shown = "-"
        else:
            shown = f"{rule.threshold:g} {rule.unit}".strip()
        confidence = f"{rule.low:.2f}" if rule.low == rule.high else f"{rule.low:.2f}→{rule.high:.2f}"
        if rule.verdict in ("check", "note"):
            confidence = "-"
        rows.append(f"| {rule.name} | {rule.verdict} | {rule.evidence} | {shown} | {confidence} | {rule.why} |")
    return "\n".join(rows)


def limits_table() -> str:
    """The secondary limits as Markdown, one row each."""
    rows = ["| limit | value | used by | why |", "|---|---|---|---|"]
    rows += [f"| {item.name} | {item.value:g} {item.unit} | {item.used_by} | {item.why} |" for item in _LIMITS]
    return "\n".join(rows)
