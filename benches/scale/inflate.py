#!/usr/bin/env python3
"""Writes the 4 shard reports of a synthetic suite of N scenarios from the 4 shard reports of
a real run: each synthetic scenario is a copy of a real entry under a new id, placed in the
shard its id hashes to (FNV-1a, as `--shard` does), and each report names the whole suite
(`suite`: N ids, their hash). What `merge` and the gate do with an entry does not depend on
where it came from, so this measures their memory and time at sizes no run here reaches.

Usage: inflate.py OUT_DIR N SHARD_REPORT…   (every k/n of one run, in any order)
"""
import json
import os
import sys


def fnv1a64(data):
    h = 0xCBF29CE484222325
    for b in data:
        h = ((h ^ b) * 0x100000001B3) & 0xFFFFFFFFFFFFFFFF
    return h


def main():
    out, n, paths = sys.argv[1], int(sys.argv[2]), sys.argv[3:]
    parts = [json.load(open(p)) for p in paths]
    count = parts[0]["shard"]["count"]
    entries = [e for p in parts for e in p["scenarios"]]
    ids = [f"x{i:06d}-{entries[i % len(entries)]['id']}" for i in range(n)]
    text = "".join(f"{i}\n" for i in sorted(ids))
    suite = {"scenarios": n, "ids_fnv1a": f"{fnv1a64(text.encode()):016x}"}
    by_shard = {k: [] for k in range(1, count + 1)}
    for i, sid in enumerate(ids):
        by_shard[fnv1a64(sid.encode()) % count + 1].append((sid, i))
    for part in parts:
        k = part["shard"]["index"]
        d = os.path.join(out, f"shard-{k}")
        os.makedirs(d, exist_ok=True)
        head = {key: v for key, v in part.items() if key != "scenarios"}
        head["suite"] = suite
        # Written an entry at a time, in id order, as `run` writes them.
        with open(os.path.join(d, "report.json"), "w") as f:
            body = json.dumps(head)[:-1]
            f.write(body + ', "scenarios": [')
            for j, (sid, i) in enumerate(sorted(by_shard[k])):
                e = dict(entries[i % len(entries)], id=sid)
                f.write(("," if j else "") + json.dumps(e))
            f.write("]}")
        # The manifest `merge` checks the set against, as a run writes it.
        size = os.path.getsize(os.path.join(d, "report.json"))
        with open(os.path.join(d, "manifest.json"), "w") as f:
            json.dump({"schema": "stepreplay-report-set/1", "complete": True,
                       "files": {"report.json": {"bytes": size}}}, f)


if __name__ == "__main__":
    main()
