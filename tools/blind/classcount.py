"""Count the after-fix misses of a dump by (reading's first verdict -> tool's verdict), most common first.

usage: classcount.py DUMP.json [FROM_ROUND]"""

from __future__ import annotations

import collections
import json
import sys

import blind

dump = json.load(open(sys.argv[1]))
since = int(sys.argv[2]) if len(sys.argv) > 2 else 0
counts = collections.Counter()
for folder in blind.folders():
    if blind.rnum(folder) < since:
        continue
    first = blind.readings(folder)
    for name, (accepted, _) in blind.tables(folder)[0].items():
        found = dump[f"{folder}/{name}"]["verdict"]
        if found not in accepted:
            counts[(first[name][0], found)] += 1
for (first, found), count in counts.most_common():
    print(f"{count:4d}  {first} -> {found}")
print(sum(counts.values()), "misses")
