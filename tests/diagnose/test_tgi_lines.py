"""The TGI reader on big logs: the router's usual span fields read by one match give what finding each field gives,
and two processes (read._parallel_pull, a reader with no state between lines) give what one gives."""

from __future__ import annotations

import random
import re
from pathlib import Path

import pytest

from inferledger.diagnose import read
from inferledger.diagnose.parsers import tgi
from inferledger.diagnose.read import LogFile, detect_formats, iter_records

SAMPLE = Path(__file__).resolve().parent.parent / "fixtures" / "logs" / "tgi__cpu-backend-generate-success-line.txt"
LINE = SAMPLE.read_text(encoding="utf-8").split("\n")[1]  # line 1 is the sample's `# source:` note
FIELDS = ('total_time="3.764430077s"', 'validation_time="466.15µs"', 'queue_time="110.388µs"',
          'inference_time="3.763853868s"', 'time_per_token="188.192693ms"')


def _line(rng: random.Random) -> str:
    """The sample's line with other durations; now and then its fields in another order, one missing, or a JSON
    line's quoting (the per-field path)."""
    total, queue = rng.uniform(0.1, 30), rng.choice([rng.uniform(1e-5, 1e-3), rng.uniform(1, 20)])
    values = (f"{total:.9f}s", f"{rng.uniform(1, 900):.2f}µs", f"{queue:.6f}s", f"{total * 0.9:.9f}s",
              f"{rng.uniform(5, 400):.6f}ms")
    fields = [f'{field.split("=")[0]}="{value}"' for field, value in zip(FIELDS, values, strict=True)]
    odd = rng.random()
    if odd < 0.1:
        rng.shuffle(fields)
    elif odd < 0.2:
        fields.pop(rng.randrange(len(fields)))
    elif odd < 0.25:
        fields = [field.replace('="', '":"').join('""') for field in fields]
    return LINE.replace(" ".join(FIELDS), " ".join(fields))


def _items(lines: list) -> list:
    return [item.to_dict() if hasattr(item, "to_dict") else item for item in tgi.parse(enumerate(lines, 1))]


def test_the_usual_fields_read_by_one_match_as_by_each_field(monkeypatch):
    assert " ".join(FIELDS) in LINE
    [record] = _items([LINE])
    # The sample's five durations in seconds (Rust Duration strings: s, µs, ms), the tokens as inference ÷ per token.
    assert record["metrics"] == pytest.approx({
        "e2e_seconds": 3.764430077, "validation_seconds": 466.15e-6, "queue_seconds": 110.388e-6,
        "inference_seconds": 3.763853868, "tpot_seconds": 0.188192693, "output_tokens": round(3.763853868 / 0.188192693)})
    rng = random.Random(3)
    lines = [_line(rng) for _ in range(300)]
    matched = _items(lines)
    monkeypatch.setattr(tgi, "_ROUTER_SPANS", re.compile("(?!)"))  # matches nothing: every field found on its own
    assert matched == _items(lines)


def _read(path):
    log = LogFile.open(path)
    records = [item.to_dict() for item in iter_records(log, detect_formats(log))]
    return records, log.skipped, log.lines_read, log.bytes_read


@pytest.mark.parametrize("seed", range(3))
def test_two_processes_read_what_one_reads(tmp_path, monkeypatch, seed):
    rng = random.Random(seed)
    lines = [_line(rng) if rng.random() < 0.9 else rng.choice(["", "INFO shard-manager: ready", "time_per_token"])
             for _ in range(3000)]
    path = tmp_path / "tgi.log"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    monkeypatch.setenv("INFERLEDGER_DIAGNOSE_PROCESSES", "1")
    one = _read(path)
    monkeypatch.setenv("INFERLEDGER_DIAGNOSE_PROCESSES", "2")
    monkeypatch.setattr(read, "PARALLEL_MIN_BYTES", 0)
    monkeypatch.setattr(read, "PARALLEL_PAIR_BYTES", 200_000)
    assert read._parallel_pull(LogFile.open(path), tgi) is not None, "the two-process path was not taken"
    assert _read(path) == one
    assert len(one[0]) > 2500
