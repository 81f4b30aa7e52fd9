#!/usr/bin/env python3
"""Writes a suite of N copies of the bundled suite's plan scenarios, for the memory benchmark:
scenario i is a copy of bundled scenario i mod 55 under the id `ID--K` (K = i // 55), all in
one folder, so every copy shares its original's plan folder (copied once) and recording
(`recordings/` is a link to the checked-in one). Thousands of scenarios on a few plans and
recordings: what a run holds then grows only with what it keeps per scenario.

Usage: copies.py REPO OUT_DIR N
"""
import json
import os
import shutil
import sys


def main():
    repo, out, n = sys.argv[1], sys.argv[2], int(sys.argv[3])
    src = os.path.join(repo, "scenarios")
    dst = os.path.join(out, "scenarios")
    shutil.rmtree(out, ignore_errors=True)
    os.makedirs(dst)
    os.symlink(os.path.abspath(os.path.join(repo, "recordings")), os.path.join(out, "recordings"))
    bundled = []
    for name in sorted(os.listdir(src)):
        if name.endswith(".json"):
            with open(os.path.join(src, name)) as f:
                sc = json.load(f)
            if sc.get("schema") == "stepreplay-scenario/1":
                bundled.append(sc)
    for folder in sorted({sc["plan"].split("/")[0] for sc in bundled}):
        shutil.copytree(os.path.join(src, folder), os.path.join(dst, folder))
    for i in range(n):
        sc = dict(bundled[i % len(bundled)])
        sc["id"] = f"{sc['id']}--{i // len(bundled):04}"
        with open(os.path.join(dst, sc["id"] + ".json"), "w") as f:
            json.dump(sc, f, ensure_ascii=False)


if __name__ == "__main__":
    main()
