"""Cut excerpts keep every complete record (rows pasted without their banner, a JSON array cut inside its second
object, on several lines or one), and lines in a known format that no reader uses are counted and shown. The cut
inputs are the real fixtures with lines removed or the text truncated here, so the expected numbers are the
fixtures' own (FORMATS.md §5)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from inferledger.diagnose import diagnose_files

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures" / "logs"
GOODPUT = FIXTURES / "vllm__bench-serve-goodput-poisson-15rps.txt"
LLMPERF = FIXTURES / "llmperf__individual-responses-json-excerpt.txt"


def test_rows_before_the_first_banner_are_kept(tmp_path):
    # The paste starts at "Benchmark duration": no banner, no pre-amble, and the closing rule removed as well.
    lines = GOODPUT.read_text().splitlines()
    start = next(index for index, line in enumerate(lines) if line.startswith("Benchmark duration"))
    path = tmp_path / "cut.txt"
    path.write_text("\n".join(line for line in lines[start:] if not line.startswith("=")) + "\n")
    diagnosis = diagnose_files([path])
    (summary,) = diagnosis.metrics["summary"]
    assert summary["labels"]["truncated"] == "rows before the first banner"
    assert summary["duration_seconds"] == 26.67
    assert summary["ttft_seconds_mean"] == pytest.approx(154.82 / 1000)
    assert summary["tpot_seconds_mean"] == pytest.approx(14.60 / 1000)
    assert diagnosis.verdict == "healthy"


def test_json_array_cut_inside_its_second_object_keeps_the_first(tmp_path):
    text = "\n".join(LLMPERF.read_text().splitlines()[1:])  # without the source line
    second = text.index("{", text.index("}"))
    cut = text.index('"ttft_s"', second) + len('"ttft_s": 0.40')  # inside the second record's TTFT
    path = tmp_path / "cut.json"
    path.write_text(text[:cut])
    diagnosis = diagnose_files([path])
    assert diagnosis.metrics["requests"] == 1
    assert diagnosis.metrics["request"]["ttft_seconds"]["max"] == pytest.approx(0.3148573649999662)


def test_one_line_json_array_cut_inside_its_third_object(tmp_path):
    records = json.loads("\n".join(LLMPERF.read_text().splitlines()[1:]))
    text = json.dumps(records)
    cut = text.index('"ttft_s"', text.index("}, {", text.index("}, {") + 1)) + 12
    path = tmp_path / "cut.json"
    path.write_text(text[:cut] + "\n")
    diagnosis = diagnose_files([path])
    assert diagnosis.metrics["requests"] == 2  # the two whole records; the third was cut
    ttft = diagnosis.metrics["request"]["ttft_seconds"]
    assert (ttft["min"], ttft["max"]) == pytest.approx((0.3148573649999662, 0.4011755259999745))


V0_STATS = ("INFO 03-14 02:00:01 metrics.py:351] Avg prompt throughput: 0.0 tokens/s, Avg generation throughput: "
            "41.7 tokens/s, Running: 1 reqs, Swapped: 0 reqs, Pending: 0 reqs, GPU KV cache usage: 2.0%, CPU KV cache "
            "usage: 0.0%.")


def test_v0_prefix_cache_line_is_read_and_unknown_lines_are_counted(tmp_path):
    # The V0 prefix-cache line has the shape of FORMATS.md §2.2; the "KV cache (…)" line below is a made-up line
    # with a marker word and numbers no reader knows: it must be counted, not dropped silently.
    lines = [V0_STATS, "INFO 03-14 02:00:01 metrics.py:367] Prefix cache hit rate: GPU: 37.50%, CPU: 0.00%",
             "INFO 03-14 02:00:02 worker.py:10] KV cache (offload tier) throughput 12.5 GB/s over 3 seconds"]
    path = tmp_path / "vllm.log"
    path.write_text("\n".join(lines) + "\n")
    diagnosis = diagnose_files([path])
    assert diagnosis.metrics["interval"]["prefix_cache_hit_fraction"]["max"] == pytest.approx(0.375)
    info = diagnosis.files[0]
    assert info["unread_lines"] == 1 and info["unread_examples"][0]["line_number"] == 3


def test_ollama_runner_start_and_per_token_time(tmp_path):
    # The --verbose block of the real mistral sample, after a runner start-up line in ollama's slog shape (§2.9).
    verbose = "\n".join((FIXTURES / "ollama__verbose-mistral-2024-baseline.txt").read_text().splitlines()[1:])
    start = ('time=2024-09-03T06:16:52.001Z level=INFO source=server.go:626 msg="llama runner started in 3.84 '
             'seconds"')
    path = tmp_path / "ollama.log"
    path.write_text(start + "\n" + verbose + "\n")
    diagnosis = diagnose_files([path])
    assert diagnosis.capacity["runner_start_seconds"] == 3.84
    # eval 4.876787 s for 120 tokens (§5 #77): 40.64 ms per generated token.
    assert diagnosis.metrics["request"]["tpot_seconds"]["mean"] == pytest.approx(4.876787 / 120)
    check = next(check for check in diagnosis.checks if check["check"] == "request parts")
    # total 5.088275983 s vs load 1.365523 ms + prompt eval 204.563 ms + eval 4.876787 s: 5.63 ms unaccounted.
    assert check["largest_gap_seconds"] == pytest.approx(5.088275983 - (0.001365523 + 0.204563 + 4.876787))
    assert check["ok"]
