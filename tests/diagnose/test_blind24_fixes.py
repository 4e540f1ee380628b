"""The general fixes of blind round 24 (tests/fixtures/blind24_logs): the `main:` timing block of ggml's examples and
the first llama.cpp, and candle's examples' prompt and generation lines. Expected figures are the excerpts' numbers
worked by hand."""

from __future__ import annotations

from pathlib import Path

import pytest

from inferledger.diagnose.read import read_records

ROUND = Path(__file__).resolve().parent.parent / "fixtures" / "blind24_logs"


def test_ggml_main_block_is_one_request_of_its_predict_time():
    (request,) = [record for record in read_records(ROUND / "bloomzcpp__main-bloomz-f32-predict-56ms-per-token.txt")
                  if record.source == "ggml.main"]
    # 675.43 ms ÷ 56.29 ms a token = 12 tokens evaluated, 3 of them the prompt
    # and a 3-token prompt is one of the first llama.cpp's 8-token batches: the mean per token is a step's time
    assert request.metrics == {"e2e_seconds": 0.67543, "input_tokens": 3, "output_tokens": 9, "tpot_seconds": 0.05629}
    assert request.labels["model_load_seconds"] == pytest.approx(2.49493)  # before the run: not in its time


def test_ggml_main_block_without_a_prompt_count(tmp_path):
    path = tmp_path / "gpt2.txt"
    path.write_text("main: mem per token = 39071352 bytes\nmain:     load time = 11362.40 ms\n"
                    "main:   sample time =    24.45 ms\nmain:  predict time = 107219.80 ms / 837.65 ms per token\n"
                    "main:    total time = 119965.73 ms\n", encoding="utf-8")
    (request,) = read_records(path)
    # no prompt count: no split of the tokens; the mean per token read as a step's time (at most)
    assert request.metrics == {"e2e_seconds": pytest.approx(107.2198), "tpot_seconds": pytest.approx(0.83765)}


def test_candle_lines_give_each_phase():
    first, second = read_records(ROUND / "candle__quantized-mistral7b-q4ks-rtx2080-prompt-98-gen-63.8-tok-s.txt")
    assert first.metrics["prefill_seconds"] == pytest.approx(19 / 98.22)
    assert first.metrics["decode_seconds"] == pytest.approx(99 / 63.82)
    assert first.metrics["tpot_seconds"] == pytest.approx(1 / 63.82)
    assert (second.metrics["input_tokens"], second.metrics["generation_tokens_per_second"]) == (19, 60.80)
