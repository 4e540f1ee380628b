"""The device a paste names when no reader's line does.

- A card listed the way the driver tools print it (`nvidia-smi -L` and vLLM's collect_env: `GPU 0: NVIDIA H100 80GB
  HBM3 (UUID: …)`, nvidia-smi's table, CUDA's `Device 0: NVIDIA GeForce RTX 4090, compute capability 8.9`, rocminfo's
  `Marketing Name: AMD Instinct MI300X`, llama.cpp's ROCm, Vulkan and Metal device lines, RKLLM's SoC): when every
  card named is one catalogue part, the log names its GPU, and the speeds are judged against it as if given with --gpu.
- A CPU named (a Xeon, an EPYC, `cpu-only`, vLLM's CPU image, ollama's image run with no GPU handed to it) and no
  accelerator named anywhere in the head is a CPU run. Its speed is then judged by a CPU's cutoff, not a GPU's: seven
  tokens a second is slow for a GPU and usual for a CPU reading the weights from DRAM.

Read from the head of each file, as launch.py reads a launch command. A reader's own statement of the backend
(llama-bench's `backend` column, a CPU-only llama.cpp load) comes first: this is only the fallback.
"""

from __future__ import annotations

import re

from inferledger.diagnose.records import Record

# A CPU by its model name, or a run the paste says is on the CPU. AMD's "Ryzen AI" parts carry a large iGPU (Strix
# Halo): not counted. A run named by its vector instruction set (`AVX512 llama.cpp report`, `an AVX2 box`) is a CPU
# run; llama.cpp's system_info flags (`AVX512 = 1 |`), printed by every build, GPU ones too, are not. ollama and
# llama.cpp load a CPU backend by its feature level (`ggml-cpu-icelake.dll`): with no GPU backend beside it, a CPU run.
_CPU = re.compile(r"\b(?:Xeon|EPYC|Threadripper|Ryzen(?! AI)|Core\s*(?:\(TM\)\s*)?i[3579]-?\d*|Core Ultra"
                  # a board's Arm cores (a Raspberry Pi's Cortex-A76 on one LPDDR4X channel); an Arm server's
                  # (Graviton, Neoverse: 8-12 DDR5 channels) streams like a GPU, not like a desktop CPU
                  r"|Cortex-A\d{2,3}|Raspberry Pi"
                  r"|i[3579]-\d{4,5}[a-z]{0,3}"  # an Intel desktop part by its number alone (`my i5-12400F`)
                  r"|cpu[- _]only|--device[ =]cpu|VLLM_TARGET_DEVICE=cpu|vllm[-/]cpu|cpu (?:image|backend|inference)"
                  r"|AVX-?(?:512|2)(?!\s*[=:])|ggml-cpu-[a-z]+)\b",
                  re.IGNORECASE)
# ollama's image run by `docker run` with no GPU handed to it (no `--gpus`, `--device`, `--runtime`): Docker gives a
# container no GPU unless asked, so ollama runs on the CPU (its `:rocm` image needs /dev/kfd passed, so it is no
# exception). A command's continuation lines (`\` at the end) are its own.
_DOCKER_RUN = re.compile(r"\bdocker run\b[^\n]*?\bollama/ollama(?::(?!rocm)[\w.-]+)?(?![\w/:-])")
_GPU_FLAG = re.compile(r"--gpus\b|--device\b|--runtime\b|nvidia", re.IGNORECASE)
_DOCKER_CPU = "a `docker run` of ollama/ollama with no --gpus (the container sees no GPU)"


def _docker_cpu(lines: list) -> str | None:
    """_DOCKER_CPU when every `docker run` of ollama's image in the lines hands it no GPU; else None."""
    commands, command = [], ""
    for line in lines:
        if command or "docker run" in line:
            command += " " + line.rstrip("\\ ")
            if not line.rstrip().endswith("\\"):
                commands.append(command)
                command = ""
    runs = [command for command in commands if _DOCKER_RUN.search(command)]
    return _DOCKER_CPU if runs and not any(_GPU_FLAG.search(command) for command in runs) else None


# llama.cpp's system_info before late 2024 said `BLAS = 1` for every GPU backend it was built with (cuBLAS, Metal's
# Accelerate, Vulkan, SYCL) and for OpenBLAS: `BLAS = 0` is a build with none, a CPU-only one.
_NO_GPU_BACKEND = re.compile(r"\| BLAS = 0 \|")
_CPU_BUILD = "a CPU-only llama.cpp build, system_info `BLAS = 0`"
# Any accelerator, by API, vendor family, card or runtime flag; "GPU" itself unless in vLLM's `GPU KV cache` (printed
# on CPU builds too) or after "no"/"without".
_ACCELERATOR = re.compile(
    r"\b(?:CUDA|ROCm|HIP|Metal|Vulkan|SYCL|OpenCL|RTX|GTX|GeForce|Quadro|Radeon|Instinct|MI\d{3}X?|A100|H100|H200|H20"
    r"|B200|GB200|L40S?|A10G?|T4|V100|Tesla|Jetson|NPU|TPU|Gaudi|HPU|Ascend|Apple M\d|M\d (?:Pro|Max|Ultra)|Arc|iGPU"
    r"|dGPU|Neuron|Inferentia|Trainium)\b|(?<!no )(?<!without )\bGPUs?\b(?! KV)|n_gpu_layers\s*=\s*[1-9]|-ngl\s+[1-9]",
    re.IGNORECASE)


# Cards as the driver tools list them; group `name` is the card.
_CARD = re.compile(r"\bGPU \d+: (?P<name>(?:NVIDIA|AMD|Tesla)\b[^\n(]*?)\s*\(UUID"
                   r"|\bDevice \d+: (?P<cuda>NVIDIA [^,\n]+), compute capability"
                   r"|^\|\s+\d+\s+(?P<smi>NVIDIA [A-Za-z0-9][\w -]*?)\s{2,}(?:On|Off)\s+\|"
                   r"|\bMarketing Name:\s+(?P<rocm>AMD Instinct MI\w+)"
                   # llama.cpp's backends: ROCm's `Device 0: AMD Radeon RX 7900 XTX, gfx1100`, Vulkan's
                   # `ggml_vulkan: 0 = NVIDIA GeForce RTX 3070 (NVIDIA) | uma: 0`, Metal's `GPU name:   Apple M2 Max`
                   r"|\bDevice \d+: (?P<hip>AMD (?:Radeon|Instinct)[^,\n]+), gfx"
                   r"|\bggml_vulkan: \d+ = (?P<vk>[^(|\n]+?)\s*\("
                   r"|\bggml_metal_init: GPU name:\s+(?P<metal>Apple M\d[\w ]*?)\s*$"
                   # RKLLM's runtime line names its NPU's SoC: `rknpu driver version: 0.9.8, platform: RK3588`
                   r"|\brknpu driver version: [\d.]+, platform: (?P<rk>RK\d{4}\w*)"
                   # llama.cpp's SYCL device table, `| 0| [level_zero:gpu:0]|   Intel Arc A770 Graphics|  12.55|`, and
                   # its memory breakdown at exit, `|   - CUDA0 (NVIDIA GeForce RTX 4090) | 24080 = …`
                   r"|^\|\s*\d+\|\s*\[(?:level_zero|opencl|ext_oneapi_\w+):gpu:\d+\]\|\s*(?P<sycl>[^|]+?)\s*\|"
                   r"|memory_breakdown_print: \|\s+- (?:CUDA|ROCm|SYCL|Vulkan|MTL)\d+ \((?P<breakdown>.+?)\)\s*\|",
                   re.MULTILINE)


def named_card(lines: list) -> tuple[str, str] | None:
    """(catalogue name, the name as printed) when every card the lines list is that one part; else None."""
    from inferledger.errors import InferledgerError
    from inferledger.hardware import find_accelerator

    printed = {next(name for name in match.groups() if name).strip()
               for line in lines for match in _CARD.finditer(line)}
    parts = set()
    for name in printed:
        try:
            parts.add(find_accelerator(name).name)
        except InferledgerError:
            return None  # a card the catalogue does not hold: no part is the log's
    return (parts.pop(), sorted(printed)[0]) if len(parts) == 1 else None


def device_records(head: str, source: str = "device") -> list[Record]:
    """A Record labelled with the GPU `head` lists (every card one catalogue part), or `backend: cpu` when it names a
    CPU and no accelerator; else none."""
    lines = [line for line in head.split("\n") if not line.startswith("# ")]  # a pasted file's own header aside
    card = named_card(lines)
    if card is not None:
        return [Record("capacity", source, 1, {}, labels={"gpu": card[0], "device_named": card[1]})]
    named = next((match.group() for line in lines for match in (_CPU.search(line),) if match), None) \
        or next((_CPU_BUILD for line in lines if _NO_GPU_BACKEND.search(line)), None) or _docker_cpu(lines)
    if named is None or any(_ACCELERATOR.search(line) for line in lines):
        return []
    return [Record("capacity", source, 1, {}, labels={"backend": "cpu", "device_named": named})]
