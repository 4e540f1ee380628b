"""Where two dumps' verdicts differ, and whether the change gains or loses an accepted reading.

usage: vdiff.py BEFORE.json AFTER.json"""

from __future__ import annotations

import json
import sys

import blind

before, after = (json.load(open(path)) for path in sys.argv[1:3])
accepted = {f"{folder}/{name}": reading[0] for folder in blind.folders()
            for name, reading in blind.tables(folder)[0].items()}
gains = losses = 0
for key in sorted(set(before) | set(after)):
    old, new = before.get(key, {}).get("verdict"), after.get(key, {}).get("verdict")
    if old == new:
        continue
    ok_old, ok_new = old in accepted.get(key, ()), new in accepted.get(key, ())
    mark = "GAIN" if ok_new and not ok_old else "LOSS" if ok_old and not ok_new else "same"
    gains += mark == "GAIN"
    losses += mark == "LOSS"
    print(f"{mark} {key}: {old} -> {new} (accepted {', '.join(sorted(accepted.get(key, ())))})")
print(f"{gains} gained, {losses} lost")
