"""Write a round's Results section (blind run on the current commit) into its EXPECTED.md and its SCORES entry.

usage: results.py N SESSION_LABEL   e.g. results.py 569 "twenty-seventh session"
"""

from __future__ import annotations

import datetime
import subprocess
import sys

import blind

number = int(sys.argv[1])
label = sys.argv[2]  # the session that ran it, as the Results section names it
folder = f"blind{number}_logs"
expected = blind.FIXTURES / folder / "EXPECTED.md"
reading, _ = blind.tables(folder)
found = {name: blind.verdict(blind.FIXTURES / folder / name, reading[name][1]) for name in sorted(reading)}
commit = subprocess.run(["git", "-C", str(blind.ROOT), "rev-parse", "--short=8", "HEAD"],
                        capture_output=True, text=True, check=True).stdout.strip()
score = sum(found[name] in reading[name][0] for name in reading)
missed = [f"{name} ({found[name]}; accepted {', '.join(sorted(reading[name][0]))})"
          for name in sorted(reading) if found[name] not in reading[name][0]]
section = [
    "## Results", "",
    f"Blind run: {datetime.date.today()} ({label}), on the committed code of {commit} right after the reading was "
    "merged into main, each file through `inferledger diagnose FILE` with the flags column above and "
    "HF_HUB_OFFLINE=1.", "",
    f"**Blind score: {score} of {len(reading)} ({round(100 * score / len(reading))} %).**", "",
    "Missed blind: " + ("; ".join(missed) if missed else "none") + ".", "",
    "| file | blind verdict | after fixes |", "|---|---|---|",
    *(f"| {name} | {found[name]} | {found[name]} |" for name in sorted(reading)), ""]
text = expected.read_text()
if "\n## Results" in text:
    text = text[:text.index("\n## Results") + 1]
expected.write_text(text.rstrip("\n") + "\n\n" + "\n".join(section))
blind.set_score(folder, score, score, len(reading))
print(f"SCORE {number}: {score} of {len(reading)}")
for name in sorted(reading):
    if found[name] not in reading[name][0]:
        print(f"MISS {name}: {found[name]} (accepted {', '.join(sorted(reading[name][0]))})")
