"""List the misses of one class (reading's first verdict -> tool's verdict) with the reading's first words.

usage: why.py DUMP.json FIRST FOUND [FROM_ROUND] [WIDTH]"""

from __future__ import annotations

import json
import sys

import blind

dump = json.load(open(sys.argv[1]))
first_wanted, found_wanted = sys.argv[2], sys.argv[3]
since = int(sys.argv[4]) if len(sys.argv) > 4 else 0
width = int(sys.argv[5]) if len(sys.argv) > 5 else 300
for folder in blind.folders():
    if blind.rnum(folder) < since:
        continue
    for name, (first, why) in blind.readings(folder).items():
        entry = dump[f"{folder}/{name}"]
        if entry["verdict"] == found_wanted and first == first_wanted:
            print(f"{folder}/{name} rules={entry.get('rules')}\n    {why[:width]}\n")
