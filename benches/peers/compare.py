#!/usr/bin/env python3
"""Side-by-side timing of stepreplay's pixel diff against its peers, in one run, A B B A.

Usage: compare.py SCRATCH IMAGES_DIR STEPREPLAY DIFF_PEER ODIFF [ROUNDS]

For each size it prints our median, the peer's median and the ratio: the median over the
interleaved pairs of ours / peer (each pair taken back to back, so a slow phase of the machine
slows both sides of a pair alike), and the upper quartile of those ratios (q3), for:
  e2e vs odiff --antialiasing   process per comparison: `stepreplay diff A B --format json`
                                vs `odiff --antialiasing A B` (no diff image either side)
  e2e+png vs odiff              the same, both writing a diff PNG
  identical files vs odiff      e2e on the before screenshot against itself (same bytes)
  identical pixels vs odiff     e2e on the before screenshot against a re-encoding of it (same
                                pixels, other bytes: no byte comparison can short-cut it)
  e2e vs pixelmatch             in process: read + decode both PNGs + diff + count
                                (`diff-peer time e2e` vs node pngjs + pixelmatch 7.2.0)
  compare vs pixelmatch         in process: only the diff call on decoded pixels
The in-process runs also check that both sides return the same mismatched count.

Every timed process starts after SETTLE seconds idle (default 0.25; environment SETTLE), and
the two sides take turns going first. On the 2-core virtual machines this was built on, a
process that starts within ~0.1 s of a burst of work runs slower: a 2880x1800 diff of ours
took a median 34 ms straight after odiff's 73 ms on both cores and 20 ms after 0.2 s idle,
while odiff's median was 73-76 ms either way. Without the pause, each side is timed in the
shadow of the other's last run.
"""
import json
import os
import statistics
import subprocess
import sys
import time

SIZES = ["1440x900", "2880x1800", "3840x2160"]


def run_json(cmd, cwd=None):
    out = subprocess.run(cmd, cwd=cwd, check=True, capture_output=True, text=True).stdout
    return json.loads(out.strip().splitlines()[-1])


SETTLE = float(os.environ.get("SETTLE", "0.25"))


def time_process(cmd, ok_codes):
    time.sleep(SETTLE)
    t = time.perf_counter()
    p = subprocess.run(cmd, capture_output=True)
    dt = (time.perf_counter() - t) * 1e3
    if p.returncode not in ok_codes:
        sys.exit(f"{cmd} exited {p.returncode}: {p.stderr.decode()[:500]}")
    return dt


def main():
    scratch, images, stepreplay, diff_peer, odiff = sys.argv[1:6]
    rounds = int(sys.argv[6]) if len(sys.argv) > 6 else 10
    out_ours = os.path.join(scratch, "ours-diff.png")
    out_odiff = os.path.join(scratch, "odiff-diff.png")
    rows = []
    for size in SIZES:
        a = os.path.join(images, f"desktop-{size}-a.png")
        b = os.path.join(images, f"desktop-{size}-b.png")
        a2 = os.path.join(images, f"desktop-{size}-a-reencoded.png")

        # Process per comparison, ours and odiff taking turns first, after one warm-up each.
        cases = {
            "e2e vs odiff --antialiasing": (
                [stepreplay, "diff", a, b, "--format", "json"],
                [odiff, "--antialiasing", a, b],
            ),
            "e2e+png vs odiff --antialiasing": (
                [stepreplay, "diff", a, b, "--format", "json", "--out", out_ours],
                [odiff, "--antialiasing", a, b, out_odiff],
            ),
            "identical files vs odiff": (
                [stepreplay, "diff", a, a, "--format", "json"],
                [odiff, "--antialiasing", a, a],
            ),
            "identical files+png vs odiff": (
                [stepreplay, "diff", a, a, "--format", "json", "--out", out_ours],
                [odiff, "--antialiasing", a, a, out_odiff],
            ),
            "identical pixels vs odiff": (
                [stepreplay, "diff", a, a2, "--format", "json"],
                [odiff, "--antialiasing", a, a2],
            ),
        }
        for name, (ours_cmd, peer_cmd) in cases.items():
            ours, peer = [], []
            time_process(ours_cmd, (0, 1))
            time_process(peer_cmd, (0, 22))
            for i in range(rounds):
                turns = [(ours, ours_cmd, (0, 1)), (peer, peer_cmd, (0, 22))]
                for times, cmd, ok in turns if i % 2 == 0 else turns[::-1]:
                    times.append(time_process(cmd, ok))
            rows.append((size, name, ours, peer, ""))

        # In process, alternating batches; iterations per batch kept small for end to end at
        # the big sizes. A compare is short, so its batches are longer: more samples for the
        # median, taken alternately all the same.
        for mode, name, per_batch in (("e2e", "e2e vs pixelmatch 7.2.0", 3),
                                      ("compare", "compare vs pixelmatch 7.2.0", 8)):
            ours, peer = [], []
            counts = set()
            for _ in range(max(2, rounds // 3)):
                r = run_json([diff_peer, "time", mode, a, b, str(per_batch)])
                ours.append(statistics.median(r["ms"][1:] if mode == "compare" else r["ms"]))
                counts.add(("ours", r["mismatched"]))
                r = run_json(["node", os.path.join(os.path.dirname(__file__), "pixelmatch-time.mjs"),
                              mode, a, b, str(per_batch)], cwd=scratch)
                # The first compare call in a fresh node process runs unoptimised (JIT warm-up).
                peer.append(statistics.median(r["ms"][1:] if mode == "compare" else r["ms"]))
                counts.add(("pixelmatch", r["mismatched"]))
            values = {v for _, v in counts}
            note = f"count {values.pop()} both" if len(values) == 1 else f"COUNTS DIFFER {sorted(counts)}"
            rows.append((size, name, ours, peer, note))

    print(f"{'size':<10} {'measure':<34} {'ours ms':>9} {'peer ms':>9} {'ratio':>6} {'q3':>6}  note")
    for size, name, ours, peer, note in rows:
        o, p = statistics.median(ours), statistics.median(peer)
        ratios = [a / b for a, b in zip(ours, peer)]
        # The upper quartile of the pairs' ratios: how far the slower pairs sit from the median.
        q3 = statistics.quantiles(ratios, n=4)[2]
        print(f"{size:<10} {name:<34} {o:9.1f} {p:9.1f} {statistics.median(ratios):6.3f} {q3:6.3f}  {note}")


if __name__ == "__main__":
    main()
