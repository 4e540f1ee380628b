"""The launch command pasted with a log: `vllm serve M --tensor-parallel-size 4`, `python -m sglang.launch_server
--model-path M --tp 8`, `text-generation-launcher --model-id M --num-shard 2`, SGLang's `server_args=ServerArgs(…)`
start-up line. Users paste the command above the log more often than not, and it answers what the log never prints:
how many cards one copy of the model spans (the hardware comparison judges each card's share), which model ran,
the longest request it must hold, and whether the prefix cache was on (the advice must not suggest what is already on).
vLLM's own start-up statement of that length (`Using max model len 262144`) is read here too: printed once in the
head, it needs no marker in the scan of every line of a long log.

Only a line that starts a known server is read (its `\\` continuations joined), never a `#` comment, so a flag
quoted in prose or a comment is not taken for the deployment's. Read from the head of each file: commands come before the output.
"""

from __future__ import annotations

import re

from inferledger.diagnose.records import Record

# Entry points of the servers whose flags are read below.
_ENTRY = re.compile(r"(?:\bvllm\s+serve\b|vllm\.entrypoints\.|\bsglang\.launch_server\b|\bsglang\s+serve\b"
                    r"|\btext-generation-launcher\b|\btrtllm-serve\b|\blmdeploy\s+serve\b|server_args=ServerArgs\()")
# flag -> what it sets. Both spellings (`--tp-size 8`, `--tp_size=8`), as the servers' argument parsers accept.
_DEGREES = {
    "tensor_parallel_size": ("--tensor-parallel-size", "-tp", "--tp", "--tp-size", "--num-shard", "tp_size"),
    "pipeline_parallel_size": ("--pipeline-parallel-size", "-pp", "--pp", "--pp-size", "pp_size"),
}
# The data-parallel degree: vLLM's --data-parallel-size / -dp, SGLang's --dp / --dp-size (dp_size in its arguments).
_DATA_PARALLEL = re.compile(r"(?<![\w-])(?:--data-parallel-size|--dp-size|--dp|-dp|dp_size)[ =]+(\d+)")
_MODEL_FLAGS = ("--model", "--model-path", "--model-id", "model_path")
# The longest request the engine must hold: vLLM's --max-model-len, SGLang's --context-length, TGI's
# --max-total-tokens; and vLLM's start-up line for the length it settled on (`Using max model len 262144`).
_LENGTH_FLAGS = ("--max-model-len", "--context-length", "--max-total-tokens")
_USING_LENGTH = re.compile(r"\bUsing max model len (\d+)")
# The running batch's cap: vLLM's --max-num-seqs, SGLang's --max-running-requests, LMDeploy's and trtllm-serve's
# --max-batch-size. A client that keeps more requests in flight has the rest wait for a slot.
_CAP_FLAGS = ("--max-num-seqs", "--max-running-requests", "max_running_requests", "--max-batch-size")
# A run's setup written as a list beside its results (`- Tensor parallelism: TP4`, `tp = 1`, `• Tensor parallel
# size: 1`): the degree, read when the head states one only (two runs at tp 1 and tp 4 leave it to each run).
_STATED_TP = re.compile(r"^\s*(?:[-*•]\s*)?\**(?:tensor[ -]parallel(?:ism|[ _]size)?|tp(?:[ _]size)?)\**\s*[:=]\s*"
                        r"(?:tp)?\s*(\d+)\s*$", re.IGNORECASE)
# A run's batch stated in its write-up (`We use the batch size of 1`, `batch_size=1`, `bs=1`, `batch=1`), a flag's aside
# (`--max-batch-size 8`, llama.cpp's `-b`/`--batch-size`: a prompt's chunk, not its streams): read when every
# statement in the head says one sequence, the case where the weights-only floor of one stream holds.
_STATED_BATCH = re.compile(r"(?<![\w-])(?:batch[ _]?size\s*(?:of|=|:|is|为)?\s*|(?:bs|batch)\s*=\s*)(\d+)(?![\d.])",
                           re.IGNORECASE)
_FLAG_VALUE = re.compile(r"(?:^|[\s(,])(-{0,2}[A-Za-z][\w-]*)(?:[ =]+)['\"]?([^\s,'\"()-][^\s,'\"()]*)")
_SERVE_MODEL = re.compile(r"(?:\b(?:vllm|sglang)\s+serve|\btrtllm-serve)\s+([^\s-]\S*)")
# The serving engine a launch command starts (an accelerator's server: its prefill reads many tokens a step).
_SERVERS = (("vllm", re.compile(r"\bvllm\s+serve\b|\bvllm\.entrypoints\b")),
            ("sglang", re.compile(r"\bsglang\.launch_server\b|\bsglang\s+serve\b")),
            ("tensorrt-llm", re.compile(r"\btrtllm-serve\b")), ("tgi", re.compile(r"\btext-generation-launcher\b")))
# Speculative decoding on: vLLM's --speculative-config (or the older --speculative-model), SGLang's
# --speculative-algorithm (ServerArgs' speculative_algorithm='EAGLE'; None is off), --num-speculative-tokens. A
# pass of the target model then writes several tokens, so a time per output token under one pass's floor is no
# artefact (roofline).
_SPECULATIVE = re.compile(r"--speculative[-_](?:config|model|algorithm|draft[-_]model[-_]path)"
                          r"(?!\s*[= ]\s*['\"]?None\b)"
                          r"|--num[-_]speculative[-_]tokens|speculative_algorithm=(?!None\b)['\"]?\w+['\"]?")
# Prefix caching on or off, as each server spells it.
_CACHE_ON = ("--enable-prefix-caching", "enable_prefix_caching=True", "disable_radix_cache=False")
_CACHE_OFF = ("--no-enable-prefix-caching", "--disable-radix-cache", "disable_radix_cache=True",
              "enable_prefix_caching=False")


def _commands(head: str):
    """(line number, text) of each launch command in `head`, continuation lines joined."""
    lines = head.split("\n")
    index = 0
    while index < len(lines):
        text = lines[index]
        if _ENTRY.search(text) and not text.lstrip().startswith("#"):  # a comment quotes a command; it did not run
            start = index
            while text.rstrip().endswith("\\") and index + 1 < len(lines):
                index += 1
                text = text.rstrip()[:-1] + " " + lines[index].strip()
            yield start + 1, text
        index += 1


def _normal(flag: str) -> str:
    return flag.replace("_", "-") if flag.startswith("-") else flag


def launch_records(head: str, source: str = "launch") -> list[Record]:
    """A capacity Record per launch command in `head` that states a degree, a model or the prefix cache."""
    records = []
    for line_number, text in _commands(head):
        metrics, labels = {}, {}
        for flag, value in _FLAG_VALUE.findall(text):
            flag = _normal(flag)
            for metric, names in _DEGREES.items():
                if flag in names and value.isdigit() and int(value) >= 1:
                    metrics[metric] = float(value)
            if flag in _MODEL_FLAGS and "model" not in labels and not value.startswith("-"):
                labels["model"] = value
            if flag in _LENGTH_FLAGS and value.isdigit():
                metrics["max_model_len_tokens"] = float(value)
            if flag in _CAP_FLAGS and value.isdigit() and int(value) >= 1:
                metrics["max_running_requests"] = float(value)
        served = _SERVE_MODEL.search(text)
        if served and "model" not in labels:
            labels["model"] = served.group(1)
        server = next((name for name, command in _SERVERS if command.search(text)), None)
        if server is not None:
            labels["server"] = server
        normal = " ".join(_normal(word) for word in text.split())
        dp = _DATA_PARALLEL.search(normal)
        copies = int(dp.group(1)) if dp else 1
        if copies > 1 and ("--enable-dp-attention" in normal or "enable_dp_attention=True" in normal):
            # SGLang's --dp with --enable-dp-attention splits attention inside the tp cards, not the model's copies.
            metrics["attention_data_parallel_size"] = float(copies)
        elif copies > 1 and "max_running_requests" in metrics:
            # a running cap is each engine copy's: data parallelism's copies hold that many each
            metrics["max_running_requests"] *= copies
        speculative = _SPECULATIVE.search(text)
        if speculative is not None:
            labels["speculative"] = speculative.group().strip("=")
        if any(flag in normal for flag in _CACHE_OFF):
            labels["prefix_caching"] = "off"
        elif any(flag in normal for flag in _CACHE_ON):
            labels["prefix_caching"] = "on"
        if metrics or labels:
            records.append(Record("capacity", source, line_number, metrics or {"launch_command": 1.0}, None,
                                  labels))
    stated = [(line_number, int(match.group(1))) for line_number, text in enumerate(head.split("\n"), 1)
              if ("p" in text or "P" in text) and (match := _STATED_TP.match(text))]
    if stated and len({degree for _line, degree in stated}) == 1 and stated[0][1] >= 1 \
            and not any("tensor_parallel_size" in record.metrics for record in records):
        records.append(Record("capacity", source, stated[0][0], {"tensor_parallel_size": float(stated[0][1])}))
    batches = [(line_number, int(match.group(1))) for line_number, text in enumerate(head.split("\n"), 1)
               if ("atch" in text or "bs" in text) for match in _STATED_BATCH.finditer(text)]
    if batches and {size for _line, size in batches} == {1}:
        records.append(Record("capacity", source, batches[0][0], {"stated_batch_size": 1.0}))
    for line_number, text in enumerate(head.split("\n"), 1):
        if "max model len" in text and (match := _USING_LENGTH.search(text)):
            records.append(Record("capacity", source, line_number, {"max_model_len_tokens": float(match.group(1))}))
            break
    return records + _loaded_gguf(head, source) + _experts_on_cpu(head, source) + _download_time(head, source)


# The GGUF file a runner loaded, as it or its command names it (`Loading model from …/Qwen3.5-2B-Q8_0.gguf`, `-m
# model.gguf`, `model_path="…gguf"`): its format tag is what ran, whatever the runner (llama-cpp-python, LM Studio,
# koboldcpp, a Rust or Swift app). Not a file a download or a list names.
_LOADED_GGUF = re.compile(r"(?:\b[Ll]oading model from|\bmodel_path\s*=|(?:^|\s)(?:-m|--model)[ =])\s*['\"]?"
                          r"\S*?([\w.+-]+\.gguf)\b")


def _loaded_gguf(head: str, source: str) -> list[Record]:
    """A record of the weights' format the loaded GGUF's name states, when every such file in `head` states one."""
    from inferledger.diagnose.named_model import stated_format

    if ".gguf" not in head:
        return []
    found = [(line_number, stated) for line_number, text in enumerate(head.split("\n"), 1) if ".gguf" in text
             for match in _LOADED_GGUF.finditer(text) if (stated := stated_format(match.group(1))) is not None]
    if not found or len({stated[0] for _line, stated in found}) != 1:
        return []  # none, or files of several formats (a comparison): each run's own lines say which
    return [Record("capacity", source, found[0][0], {}, None, {"weights_format": found[0][1][0]})]


# A llama.cpp-family command keeping a mixture's experts in system memory (`-ot exps=CPU`, `--override-tensor
# "…ffn_.*_exps.*=CPU"`, `--cpu-moe`, `--n-cpu-moe 30`): each decode step reads most of its weights at the host's
# bandwidth, not the card's, so the card's roofline bounds none of it.
_EXPERTS_ON_CPU = re.compile(r"(?:(?<!\S)-ot|--override-tensor)[ =]+['\"]?[^\s'\"]*exps[^\s'\"]*=CPU\b|--cpu-moe\b"
                             r"|(?:--n-cpu-moe|-ncmoe)[ =]+[1-9]")


def _experts_on_cpu(head: str, source: str) -> list[Record]:
    if "CPU" not in head and "cpu-moe" not in head and "ncmoe" not in head:
        return []
    for line_number, text in enumerate(head.split("\n"), 1):
        match = _EXPERTS_ON_CPU.search(text)
        if match is not None and not text.lstrip().startswith("#"):
            return [Record("capacity", source, line_number, {}, None, {"experts_on_cpu": match.group().strip()})]
    return []


# vLLM's start-up download of the weights from the hub (`Time spent downloading weights for Qwen/…: 152.91 seconds`):
# read from the head, where start-up is, not by a marker in every line's scan (a `T` there costs the scan ~5 %).
_DOWNLOAD = re.compile(r"Time spent downloading weights for \S+: ([\d.]+) seconds")


def _download_time(head: str, source: str) -> list[Record]:
    match = _DOWNLOAD.search(head) if "downloading weights" in head else None
    if match is None:
        return []
    line_number = head.count("\n", 0, match.start()) + 1
    return [Record("capacity", source, line_number, {"weights_download_seconds": float(match.group(1))})]
