"""A file no reader knows: serving numbers in it are listed as not read and the verdict is insufficient-data (the
tool cannot judge what it did not read, and says which lines those are); a file with no serving numbers at all is
no serving output and stays a one-line error."""

from __future__ import annotations

import io
import json

import pytest

from inferledger.cli import main
from inferledger.diagnose import diagnose_files
from inferledger.errors import LogFormatError

# A comparison table in a layout no reader takes (the configuration search tool's ranking, shortened): the header
# names serving measures (tokens/s, TTFT), the rows under it hold the numbers.
RANKING = """\
+------+--------------+---------------+--------+
| Rank | tokens/s/gpu | tokens/s/user |  TTFT  |
+------+--------------+---------------+--------+
|  1   |   1022.63    |     53.45     | 839.35 |
|  2   |   1005.02    |     51.65     | 738.94 |
+------+--------------+---------------+--------+
done.
"""


def test_a_table_of_serving_numbers_in_no_known_layout_is_listed_not_refused(tmp_path, capsys):
    path = tmp_path / "ranking.txt"
    path.write_text(RANKING, encoding="utf-8")
    diagnosis = diagnose_files([path])
    assert diagnosis.verdict == "insufficient-data"
    info = diagnosis.files[0]
    assert info["formats"] == ["unrecognised"] and info["records"] == 0
    # lines 4 and 5 are the rows of numbers under the header (line 2); borders and "done." carry none
    assert [item["line_number"] for item in info["unread_examples"]] == [4, 5]
    assert diagnosis.evidence[0].rule == "read-unknown-layout"
    code = main(["diagnose", str(path)])
    out = capsys.readouterr().out
    assert code == 0
    assert "unrecognised" in out and "line 4 not read: |  1   |   1022.63" in out


def test_the_same_from_stdin(tmp_path, capsys, monkeypatch):
    monkeypatch.setattr("sys.stdin", io.TextIOWrapper(io.BytesIO(RANKING.encode())))
    code = main(["diagnose", "-", "--json"])
    document = json.loads(capsys.readouterr().out)
    assert code == 0 and document["verdict"] == "insufficient-data"
    assert document["files"][0]["path"] == "-"
    assert "/tmp" not in document["evidence"][0]["text"]  # the spool file's name never shows


# Two tables from one post (blind round 68's quantisation comparison, first rows): the first names the prompts in
# tokens, the second gives times in ms but says of what only by the first. The second's rows are serving numbers.
TWO_TABLES = """| Category | Input Tokens | Max Output Tokens |
| -------- | ------------ | ----------------- |
| Short    | ~64          | 128               |
| Model     | Short (ms) | Long (ms) |
| --------- | ---------- | --------- |
| Full model(24B)  | 1079.06    | 46.37     |
| AWQ  w4a16     | 17.37      | 67.34     |
"""


def test_a_table_of_times_in_a_file_that_names_its_tokens_is_listed_not_refused(tmp_path):
    path = tmp_path / "tables.txt"
    path.write_text(TWO_TABLES, encoding="utf-8")
    diagnosis = diagnose_files([path])
    assert diagnosis.verdict == "insufficient-data"
    # each header names serving (`Input Tokens`) or a measure (`Short (ms)`): the rows under them, lines 3, 6 and 7,
    # are unread; headers and rules carry no figure of a run
    assert [item["line_number"] for item in diagnosis.files[0]["unread_examples"]] == [3, 6, 7]
    # With no serving word anywhere (no tokens, prompts, requests), the same times are some other program's.
    other = tmp_path / "other.txt"
    other.write_text(TWO_TABLES.split("\n", 3)[3].replace("Full model(24B)", "build a"), encoding="utf-8")
    with pytest.raises(LogFormatError, match="no known log format"):
        diagnose_files([other])


def test_a_table_under_a_title_naming_a_serving_measure_is_listed(tmp_path):
    # A title line, then a table of figures with no unit of their own (a blog's `吞吐量(tokens/秒)`, throughput).
    path = tmp_path / "blog.txt"
    path.write_text("吞吐量(tokens/秒)\n| 并发用户数 | C++ API | Python API |\n|---|---|---|\n| 1 | 2340 | 320 |\n",
                    encoding="utf-8")
    assert [item["line_number"] for item in diagnose_files([path]).files[0]["unread_examples"]] == [4]


def test_figures_with_their_units_in_a_file_that_names_serving_are_listed(tmp_path):
    # A poster's own lines (blind round 80's TP comparison): response times in ms, the prompt's tokens named above.
    path = tmp_path / "rt.txt"
    path.write_text("Test the RT of 1024 prompt tokens and 64 outputs\nconcurrency is 1:\nTP2:  793.57 ms\n"
                    "TP4:  853.66 ms\n", encoding="utf-8")
    diagnosis = diagnose_files([path])
    assert diagnosis.verdict == "insufficient-data"
    assert [item["line_number"] for item in diagnosis.files[0]["unread_examples"]] == [3, 4]


@pytest.mark.parametrize(("text", "unread_lines"), [
    # a script's own timer, the figure named by its key with no unit, under the hosted model it called
    ("model: gpt-3.5-turbo\ngenerate timediff : 0.9258\nagenerate timediff : 0.9537\n", [2, 3]),
    # a training framework's rollout timers next to the engine that served the rollout
    ("rollout engine: vllm\ntiming_s/step:  43.64\ntiming_s/gen:   31.27   (72%)\n", [2, 3]),
    # a gateway's response headers: the duration's unit is in its name
    ("proxy: litellm\nx-litellm-response-duration-ms: 1062.274\n", [2]),
    # a table whose header gives its unit in brackets, a load test's `Request rate` naming what it measured
    ("| --parallel | Request rate | Runtime [s] |\n|---|---|---|\n| 8 | inf | 349.66 |\n| 16 | inf | 254.05 |\n",
     [3, 4]),
    # an engine's per-request metrics as JSON, each time quoted, under the request that asked the tensorrt_llm model
    ('curl localhost:8000/v2/models/tensorrt_llm/generate\n{\n  "arrival_time_ns": "76735247746000",\n'
     '  "first_token_time_ns": "76735374300000",\n  "acceptance_rate": "0.0"\n}\n', [3, 4]),
    # figures with their units in a table comparing llama.cpp with another runner
    ("| LLaMA | 6.7B | 13.0B |\n| --- | --- | --- |\n| llama.cpp | 20.8 s | 38.6 s |\n", [3]),
])
def test_a_time_named_by_its_key_or_unit_beside_a_serving_program_is_listed(tmp_path, text, unread_lines):
    path = tmp_path / "timings.txt"
    path.write_text(text, encoding="utf-8")
    diagnosis = diagnose_files([path])
    assert diagnosis.verdict == "insufficient-data"
    assert [item["line_number"] for item in diagnosis.files[0]["unread_examples"]] == unread_lines


@pytest.mark.parametrize("text", [
    # a stamp and a timeout are no timings, whatever program wrote them
    "engine: vllm\ntimestamp: 1733400000\ntimeout = 30\n",
    # a time with its key, but nothing ties it to serving a model
    "job: nightly backup\nelapsed: 12.5\n",
    # `llm` inside a word is no serving program's name
    "re.fullmatch over the corpus took 12.5 s\n",
])
def test_a_stamp_a_timeout_or_a_time_of_nothing_served_is_still_no_log(tmp_path, text):
    path = tmp_path / "other.txt"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(LogFormatError, match="no known log format"):
        diagnose_files([path])


@pytest.mark.parametrize("text", [
    "We finished question 2 of 9 in 2 seconds, then went home.\nNothing else here.\n",  # a time, no serving word
    "2024-01-01 10:00:00 GET /health 200\n2024-01-01 10:00:05 GET /health 200\n",
    "| name | size |\n|---|---|\n| a | 12 |\n",  # a table, but of nothing served
])
def test_no_serving_numbers_is_still_no_log(tmp_path, text):
    path = tmp_path / "other.txt"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(LogFormatError, match="no known log format"):
        diagnose_files([path])


def test_a_log_whose_opening_is_all_start_up_is_sniffed_where_its_numbers_are(tmp_path):
    # 1,000 start-up lines (~89 KB, past the 64 KB head detection reads) before six vLLM stats lines: the format is
    # found from the lines that carry the numbers, and the file is read as vLLM, not listed as unread.
    noise = "".join(f"DEBUG 05-12 08:00:{i % 60:02d} loader.py:12] loading shard {i} of the model weights from disk\n"
                    for i in range(1000))
    stats = "".join(f"INFO 05-12 08:{10 + i:02d}:00 metrics.py:449] Avg prompt throughput: 0.0 tokens/s, Avg generation "
                    f"throughput: 41.{i} tokens/s, Running: 1 reqs, Swapped: 0 reqs, Pending: 0 reqs, GPU KV cache "
                    "usage: 0.4%, CPU KV cache usage: 0.0%.\n" for i in range(6))
    assert len(noise.encode()) > 64 * 1024
    path = tmp_path / "late.log"
    path.write_text(noise + stats, encoding="utf-8")
    diagnosis = diagnose_files([path])
    assert diagnosis.files[0]["formats"] == ["vllm"]
    assert diagnosis.metrics["interval_windows"] == 6
    assert diagnosis.files[0]["unread_lines"] == 0


def test_comment_lines_are_no_serving_output(tmp_path):
    # a `# ` line (a header, a shell comment) naming rates is not the run's output: nothing else here is either
    path = tmp_path / "notes.txt"
    path.write_text("# measured 41.2 tok/s and a TTFT of 120 ms yesterday\nhello\n", encoding="utf-8")
    with pytest.raises(LogFormatError, match="no known log format"):
        diagnose_files([path])


def test_another_programs_big_log_is_scanned_only_so_far(tmp_path, monkeypatch):
    # The scan for serving lines stops after UNRECOGNISED_SCAN_BYTES (here 200 bytes, read 64 bytes a block): a
    # serving line far past it is not looked for, and the file stays no known format.
    from inferledger.diagnose import read

    monkeypatch.setattr(read, "READ_BLOCK_BYTES", 64)
    monkeypatch.setattr(read, "UNRECOGNISED_SCAN_BYTES", 200)
    path = tmp_path / "app.log"
    path.write_text("worker handled job\n" * 100 + "engine A: 4.32 token/s\n", encoding="utf-8")
    with pytest.raises(LogFormatError, match="no known log format"):
        diagnose_files([path])
    monkeypatch.setattr(read, "UNRECOGNISED_SCAN_BYTES", 10_000)  # far enough: the line is found
    assert diagnose_files([path]).verdict == "insufficient-data"
