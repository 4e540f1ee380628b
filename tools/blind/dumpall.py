"""Dump every blind file's verdict and rules (with --evidence also the evidence text and numbers) to JSON.

usage: [IL_ROOT=worktree] dumpall.py OUT.json [--evidence]
Compare two dumps with vdiff.py; an --evidence dump before and after a refactor should be identical."""

from __future__ import annotations

import json
import sys
from multiprocessing import Pool

import blind

EVIDENCE = "--evidence" in sys.argv


def one(job):
    folder, name, flags = job
    found = blind.diagnosis(blind.FIXTURES / folder / name, flags)
    if found is None:
        return f"{folder}/{name}", {"verdict": "not read"}
    entry = {"verdict": found.verdict, "rules": sorted({item.rule for item in found.evidence})}
    if EVIDENCE:
        for part in ("confidence", "headline", "evidence", "alternatives", "metrics", "checks", "notes", "advice"):
            entry[part] = repr(getattr(found, part))
    return f"{folder}/{name}", entry


if __name__ == "__main__":
    jobs = [(folder, name, reading[1]) for folder in blind.folders()
            for name, reading in sorted(blind.tables(folder)[0].items())]
    with Pool(2) as pool:
        dump = dict(pool.map(one, jobs, chunksize=16))
    with open(sys.argv[1], "w") as out:
        json.dump(dump, out, indent=0, sort_keys=True)
    print(f"{len(dump)} files")
