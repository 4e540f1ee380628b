"""How many cards the log is judged against: the layout given (--tp/--pp/--gpus), the one the pasted launch command
or the engine's start-up line states (diagnose/launch.py), else the fewest cards that hold the weights."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from inferledger.diagnose import diagnose_files
from inferledger.diagnose.launch import launch_records
from inferledger.parallelism import Parallelism

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures"


def _launch(text: str) -> list:
    return [(record.metrics, record.labels) for record in launch_records(text)]


def test_sglang_command_and_server_args_line():
    records = launch_records((FIXTURES / "launch" / "sglang__server-args-glm5-fp8-tp8-mi355x.txt").read_text())
    # Line 4: `... --model-path zai-org/GLM-5-FP8 --tp-size 8 ...`; line 8: `server_args=ServerArgs(model_path=
    # 'zai-org/GLM-5-FP8', ..., tp_size=8, pp_size=1, ..., disable_radix_cache=False, ...)`.
    assert [record.line_number for record in records] == [4, 8]
    assert records[0].metrics == {"tensor_parallel_size": 8.0}
    assert records[0].labels == {"model": "zai-org/GLM-5-FP8", "server": "sglang"}
    assert records[1].metrics == {"tensor_parallel_size": 8.0, "pipeline_parallel_size": 1.0}
    assert records[1].labels == {"model": "zai-org/GLM-5-FP8", "prefix_caching": "on"}


def test_real_commands_from_pasted_benchmarks():
    # blind3: `python -m vllm.entrypoints.openai.api_server --model Qwen/Qwen2.5-7B-Instruct -tp 4 ...`
    text = (FIXTURES / "blind3_logs" / "vllm__bench-serve-tpu-v4-structured-tpot-171.txt").read_text()
    # and its `--max-model-len 8192`, the longest request the engine must hold, and `--max-num-seqs 256`, its cap
    assert _launch(text) == [({"tensor_parallel_size": 4.0, "max_model_len_tokens": 8192.0,
                               "max_running_requests": 256.0},
                              {"model": "Qwen/Qwen2.5-7B-Instruct", "server": "vllm"})]
    # blind6: `vllm serve gpt-oss-120b --max-model-len 32768 -tp 8` (the model positional)
    text = (FIXTURES / "blind6_logs" / "vllm__bench-serve-b200-gpt-oss-120b-tp8-sharegpt-1000.txt").read_text()
    assert _launch(text) == [({"max_model_len_tokens": 32768.0, "tensor_parallel_size": 8.0}, {"model": "gpt-oss-120b",
                                                                                          "server": "vllm"})]


def test_continuations_flag_spellings_and_attention_dp():
    # (each command names the serving engine it starts: an accelerator's server)
    assert _launch("vllm serve meta-llama/Llama-3.1-70B \\\n  --tensor-parallel-size=4 \\\n  --enable-prefix-caching") \
        == [({"tensor_parallel_size": 4.0}, {"model": "meta-llama/Llama-3.1-70B", "prefix_caching": "on", "server": "vllm"})]
    assert _launch("trtllm-serve deepseek-ai/DeepSeek-R1 --tp_size 8 --ep_size 8") \
        == [({"tensor_parallel_size": 8.0}, {"model": "deepseek-ai/DeepSeek-R1", "server": "tensorrt-llm"})]
    assert _launch("text-generation-launcher --model-id bigscience/bloom --num-shard 2") \
        == [({"tensor_parallel_size": 2.0}, {"model": "bigscience/bloom", "server": "tgi"})]
    # SGLang's --dp with --enable-dp-attention splits attention inside the tp cards; it is no extra copy.
    assert _launch("python3 -m sglang.launch_server --model deepseek-ai/DeepSeek-V3 --tp 8 --enable-dp-attention "
                   "--dp 8 --disable-radix-cache") == [
        ({"tensor_parallel_size": 8.0, "attention_data_parallel_size": 8.0},
         {"model": "deepseek-ai/DeepSeek-V3", "prefix_caching": "off", "server": "sglang"})]


def test_commands_quoted_in_comments_or_prose_are_not_read():
    assert _launch("# run with: vllm serve Qwen/Qwen3-8B --tensor-parallel-size 4") == []
    assert _launch("we used --tp 4 and --model Qwen/Qwen3-8B") == []


def test_a_model_too_big_for_one_card_is_judged_on_the_fewest_that_hold_it():
    # DeepSeek-R1 in its fp8 checkpoint: 671e9 parameters at ~1 byte, more than 8 H100s hold (8 × 80 GB = 640 GB),
    # so 16 cards: tp 8 in a node of 8, two pipeline stages.
    path = FIXTURES / "blind8_logs" / "ttserver__gpu-baseline-r1-16xh100-conc1-sweep.txt"
    roofline = diagnose_files([path], model="deepseek-ai/DeepSeek-R1", gpu="h100-sxm").roofline
    assert roofline["parallel"]["tp"] == 8 and roofline["parallel"]["pp"] == 2
    assert any("fewest cards that hold them" in note for note in roofline["assumptions"])
    alone = 37.55e9 / 3.35e12  # the active parameters in fp8 at one H100's 3.35 TB/s: 11.2 ms a token
    assert roofline["ledger_decode_seconds_per_token"] < alone / 4


def test_the_layout_the_log_states_and_the_one_given():
    path = FIXTURES / "blind6_logs" / "sglang__bench-serving-deepseek-v3-tp8-5000-prompts-e2e-196s.txt"
    roofline = diagnose_files([path], gpu="h200").roofline  # `--model deepseek-ai/DeepSeek-V3 --tp 8` in the log
    assert roofline["parallel"]["tp"] == 8 and roofline["parallel"]["cards"] == 8
    assert any("as the log states" in note for note in roofline["assumptions"])
    given = diagnose_files([path], gpu="h200", parallel=Parallelism(tp=4, pp=2)).roofline
    assert (given["parallel"]["tp"], given["parallel"]["pp"]) == (4, 2)


def test_cli_takes_tp_and_gpus():
    path = FIXTURES / "logs" / "vllm__v1-single-line-prefill-heavy.txt"
    out = subprocess.run([sys.executable, "-m", "inferledger", "diagnose", str(path), "--model", "Qwen/Qwen3-32B",
                          "--gpu", "h100", "--gpus", "2", "--json"], capture_output=True, text=True, check=True)
    parallel = json.loads(out.stdout)["roofline"]["parallel"]
    assert (parallel["tp"], parallel["cards"]) == (2, 2)
