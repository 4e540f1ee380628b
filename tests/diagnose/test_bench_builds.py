"""llama-bench tables of one model run by two builds (a fork against mainline, a bisect): the same test under the same
settings is the same work, so a build far slower than the other is slow in itself (windows-bench-same-test-slower)."""

from __future__ import annotations

import pytest

from inferledger.diagnose import diagnose_files

HEADER = ("| model | size | params | backend | threads | test | t/s |\n"
          "| --- | ---: | ---: | --- | ---: | ---: | ---: |\n")


def _table(threads: int, pp: float, tg: float, build: str) -> str:
    return (HEADER + f"| llama 7B Q4_0 | 3.56 GiB | 6.74 B | CPU | {threads} | pp512 | {pp} ± 0.50 |\n"
            f"| llama 7B Q4_0 | 3.56 GiB | 6.74 B | CPU | {threads} | tg128 | {tg} ± 0.05 |\n\nbuild: {build}\n\n")


def _finding(diagnosis):
    return [item for item in diagnosis.to_dict()["evidence"] if item.get("rule") == "windows-bench-same-test-slower"]


def test_a_build_generating_far_slower_than_another_under_the_same_settings_is_decode_bound(tmp_path):
    path = tmp_path / "two-builds.txt"
    # tg128 12.0 against 6.0 tok/s: 2.0x, past the rule's 1.4x; pp512 within 1.1x
    path.write_text(_table(16, 60.0, 12.0, "aaaa111 (5000)") + _table(16, 55.0, 6.0, "bbbb222 (5100)"),
                    encoding="utf-8")
    diagnosis = diagnose_files([path])
    assert diagnosis.verdict == "decode-bound"
    [evidence] = _finding(diagnosis)
    assert evidence["numbers"]["slowdown"] == pytest.approx(12.0 / 6.0)
    # each table: header, rule, pp, tg, a blank, its build, a blank: the fast tg on line 4, the slow one on 7 + 4
    assert evidence["lines"] == [4, 11]


def test_a_prompt_rate_gap_is_prefill_bound(tmp_path):
    path = tmp_path / "pp.txt"
    path.write_text(_table(16, 90.0, 8.0, "aaaa111 (5000)") + _table(16, 45.0, 8.1, "bbbb222 (5100)"),
                    encoding="utf-8")
    [evidence] = _finding(diagnose_files([path]))
    assert evidence["verdict"] == "prefill-bound"
    assert evidence["numbers"]["slowdown"] == pytest.approx(90.0 / 45.0)


@pytest.mark.parametrize(("first", "second"), [
    ((16, 60.0, 12.0), (16, 60.0, 10.0)),  # 1.2x: within what a patch or a setting moves, not judged
    ((16, 60.0, 12.0), (4, 20.0, 4.0)),  # other thread counts: other work, not compared
])
def test_a_small_gap_or_other_settings_are_not_compared(tmp_path, first, second):
    path = tmp_path / "runs.txt"
    path.write_text(_table(*first, "aaaa111 (5000)") + _table(*second, "bbbb222 (5100)"), encoding="utf-8")
    assert _finding(diagnose_files([path])) == []
