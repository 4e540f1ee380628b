"""Trace files: each accepted shape is read to the lengths written in the file (counted by eye), and each bad
record is an error that names its line — nothing is dropped."""

import json

import numpy as np
import pytest

from inferledger.errors import BadWorkload
from inferledger.workload import read_trace


class WordTokenizer:
    """A fake tokenizer: one token per whitespace-separated word (so expected counts are countable by eye)."""

    def count_batch(self, texts):
        return [len(t.split()) for t in texts]


def write(tmp_path, name, lines):
    path = tmp_path / name
    path.write_text("\n".join(json.dumps(x) if not isinstance(x, str) else x for x in lines) + "\n")
    return str(path)


def test_jsonl_lengths_in_any_spelling_and_arrivals_shifted_to_zero(tmp_path):
    path = write(tmp_path, "t.jsonl", [
        {"input_tokens": 100, "output_tokens": 20, "timestamp": 1000.5},
        {"isl": 7, "osl": 3, "timestamp": 1001.0},
        {"prompt_tokens": 50, "completion_tokens": 5, "timestamp": 1003.5, "cached_tokens": 40},
    ])
    trace = read_trace(path)
    assert trace.input_tokens.tolist() == [100, 7, 50]
    assert trace.output_tokens.tolist() == [20, 3, 5]
    assert trace.arrival_seconds.tolist() == [0.0, 0.5, 3.0]
    assert trace.cached_tokens.tolist() == [0, 0, 40]
    assert not trace.saturating


def test_csv_with_lengths(tmp_path):
    path = tmp_path / "t.csv"
    path.write_text("input_len,output_len,arrival_time\n10,2,0\n20,4,1.5\n")
    trace = read_trace(str(path))
    assert trace.input_tokens.tolist() == [10, 20] and trace.output_tokens.tolist() == [2, 4]
    assert trace.arrival_seconds.tolist() == [0.0, 1.5]


def test_text_chat_and_sharegpt_records_are_counted_with_the_tokenizer(tmp_path):
    path = write(tmp_path, "t.jsonl", [
        {"prompt": "one two three", "output": "four five"},
        {"messages": [{"role": "system", "content": "be brief"}, {"role": "user", "content": "hi there you"},
                      {"role": "assistant", "content": "hello"}]},
        {"conversations": [{"from": "human", "value": "a b c d"}, {"from": "gpt", "value": "e f g"},
                           {"from": "human", "value": "ignored later turn"}]},
        {"messages": [{"role": "user", "content": [{"type": "text", "text": "x y"}]}],
         "response": {"choices": [{"message": {"content": "z"}}]}},
        {"request": "not used", "usage": {"prompt_tokens": 11, "completion_tokens": 12}},
    ])
    trace = read_trace(path, tokenizer=WordTokenizer())
    # 3 words / 2; system 2 + user 3 = 5 words / 1; first human 4 / reply 3; content parts 2 / 1; usage 11 / 12
    assert trace.input_tokens.tolist() == [3, 5, 4, 2, 11]
    assert trace.output_tokens.tolist() == [2, 1, 3, 1, 12]
    assert trace.saturating


def test_a_sharegpt_json_array(tmp_path):
    path = tmp_path / "sharegpt.json"
    path.write_text(json.dumps([{"conversations": [{"from": "human", "value": "p q"}, {"from": "gpt", "value": "r"}]}]))
    trace = read_trace(str(path), tokenizer=WordTokenizer())
    assert trace.input_tokens.tolist() == [2] and trace.output_tokens.tolist() == [1]


def test_real_tokenizer_counts_text(tmp_path):
    from inferledger.tokens import load_tokenizer

    path = write(tmp_path, "t.jsonl", [{"prompt": "hello world", "output": "hello"}])
    trace = read_trace(path, tokenizer=load_tokenizer("cl100k_base"))
    assert trace.input_tokens.tolist() == [2] and trace.output_tokens.tolist() == [1]  # 'hello', ' world'


@pytest.mark.parametrize("records, message", [
    ([{"isl": 5, "osl": 1}, {"isl": 5, "osl": 1}, {"isl": -3, "osl": 2}], "line 3: input length -3 is negative"),
    ([{"isl": 5, "osl": 1}, {"isl": 5}], "line 2: no output length"),
    ([{"isl": 5, "osl": 0}], "line 1: output length 0 is zero"),
    ([{"isl": 5.5, "osl": 1}], "line 1: input length 5.5 is not a whole number"),
    ([{"isl": "many", "osl": 1}], "line 1: isl 'many' is not a number"),
    (["{not json", {"isl": 5, "osl": 1}], "line 1: not JSON"),
    (["5"], "line 1: not a JSON object"),
    ([{"isl": 5, "osl": 1, "arrival_time": 2}, {"isl": 5, "osl": 1, "arrival_time": 1}],
     "line 2: arrives at 1, before line 1 at 2; sort the trace"),
    ([{"isl": 5, "osl": 1, "arrival_time": 0}, {"isl": 5, "osl": 1}], "line 2: no arrival time"),
    ([{"isl": 5, "osl": 1, "cached_tokens": 5}], "at least one input token must be computed"),
])
def test_bad_records_name_their_line(tmp_path, records, message):
    with pytest.raises(BadWorkload, match=message.replace("(", r"\(").replace("?", r"\?")):
        read_trace(write(tmp_path, "t.jsonl", records))


def test_every_bad_record_is_reported_not_only_the_first(tmp_path):
    records = [{"isl": 5, "osl": 1}] + [{"isl": -1, "osl": 1}] * 7
    with pytest.raises(BadWorkload) as error:
        read_trace(write(tmp_path, "t.jsonl", records))
    text = str(error.value)
    assert "7 bad records" in text and "line 2" in text and "line 6" in text and "(and 2 more)" in text


def test_csv_bad_row_names_its_line(tmp_path):
    path = tmp_path / "t.csv"
    path.write_text("isl,osl\n4,2\n4,-2\n")
    with pytest.raises(BadWorkload, match="line 3: output length -2.0 is negative"):
        read_trace(str(path))


def test_text_without_a_tokenizer_says_to_name_one(tmp_path):
    with pytest.raises(BadWorkload, match="line 1 gives text.*--tokenizer"):
        read_trace(write(tmp_path, "t.jsonl", [{"prompt": "a b", "output": "c"}]))


def test_missing_file_and_empty_file(tmp_path):
    with pytest.raises(BadWorkload, match="no such file"):
        read_trace(str(tmp_path / "absent.jsonl"))
    empty = tmp_path / "empty.jsonl"
    empty.write_text("\n\n")
    with pytest.raises(BadWorkload, match="no requests"):
        read_trace(str(empty))


def test_the_file_is_not_modified(tmp_path):
    path = write(tmp_path, "t.jsonl", [{"isl": 5, "osl": 1}])
    before = (tmp_path / "t.jsonl").read_bytes()
    assert np.array_equal(read_trace(path).input_tokens, [5])
    assert (tmp_path / "t.jsonl").read_bytes() == before
