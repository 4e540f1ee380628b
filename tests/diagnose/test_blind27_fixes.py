"""The general fixes of blind round 27 (tests/fixtures/blind27_logs): airllm's finished layer passes, and a load longer
than the request's total not read as a cold start inside it. Expected figures are the excerpts' numbers."""

from __future__ import annotations

from pathlib import Path

from inferledger.diagnose import diagnose_files
from inferledger.diagnose.read import read_records

ROUND = Path(__file__).resolve().parent.parent / "fixtures" / "blind27_logs"


def test_airllm_finished_pass_is_a_time_per_token(tmp_path):
    (record,) = read_records(ROUND / "airllm__70b-4bit-layers-83-in-28min.txt")
    assert record.metrics == {"tpot_seconds": 27 * 60 + 57}
    assert record.labels["layers"] == 83
    path = tmp_path / "bars.txt"  # an unfinished bar is no pass; hours are read
    path.write_text("running layers(cuda:0):  40%|████      | 33/83 [11:02<16:43, 20.07s/it]\n"
                    "running layers(cuda:0): 100%|██████████| 83/83 [1:02:03<00:00, 44.86s/it]\n", encoding="utf-8")
    (record,) = read_records(path)
    assert record.metrics == {"tpot_seconds": 3600 + 2 * 60 + 3}


def test_a_load_longer_than_the_total_is_no_cold_start(tmp_path):
    diagnosis = diagnose_files([ROUND / "powerinfer__falcon40b-vram-22gb-eval-24.6-tok-s.txt"])
    assert not any(item.rule == "requests-cold-start" for item in diagnosis.evidence)  # 13.8 s load, 12.7 s total
    path = tmp_path / "cold.txt"  # a load inside the total, more than half of it: a cold start
    path.write_text("llama_print_timings:        load time =   9000.00 ms\n"
                    "llama_print_timings: prompt eval time =    500.00 ms /    20 tokens (   25.00 ms per token)\n"
                    "llama_print_timings:        eval time =    500.00 ms /    20 runs   (   25.00 ms per token)\n"
                    "llama_print_timings:       total time =  10000.00 ms\n", encoding="utf-8")
    # (thirty-seventh session: with the prompt and the answer timed apart from it, the cold start is said in the
    # notes and their times are judged)
    assert any("model load 9,000 ms is 90% of the request time: a cold start" in note
               for note in diagnose_files([path]).notes)


def test_a_one_token_request_states_no_decode_step(tmp_path):
    # Round 3's ollama line: eval 0.00 ms / 1 run, "inf tokens per second": set aside, not a 0 ms decode.
    path = tmp_path / "one.txt"
    path.write_text("llama_print_timings: prompt eval time =   252.75 ms /   178 tokens (    1.42 ms per token,   704.24 "
                    "tokens per second)\nllama_print_timings:        eval time =       0.00 ms /     1 runs   (    0.00 "
                    "ms per token,      inf tokens per second)\nllama_print_timings:       total time =     280.78 ms\n",
                    encoding="utf-8")
    diagnosis = diagnose_files([path])
    assert diagnosis.verdict == "measurement-artifact"
    assert [item.rule for item in diagnosis.evidence if item.verdict != "insufficient-data"] == ["requests-one-token"]
