"""OpenCV's side of the crop-locate comparison (see crop.sh).

`crop_opencv.py time DIR REPS THREADS` runs cv2.matchTemplate(TM_CCOEFF_NORMED) + cv2.minMaxLoc
on every case of DIR/cases.txt, in the near mode (on the +-10% window around the expected
place, a view into the screen, as our near pass searches; when nothing there reaches the
0.9 floor, then on the whole screen too, as `locate` does) and the full mode (whole screen),
and prints `name mode median_ns x y score` like `crop_peer time`. THREADS 0 keeps OpenCV's
default thread count; 1 calls cv2.setNumThreads(1).

`crop_opencv.py report DIR` reads the ours.txt / cv1.txt / cvN.txt lines the rounds wrote and
prints, per case and mode, the median over rounds of each side's medians and the ratios.
"""
import statistics
import sys
import time

NEAR = 0.1
FLOOR = 0.9
HAIR = 0.002  # scores within this of the best are a tie (`CropOptions::hair`)


def load_cases(d):
    with open(f"{d}/cases.txt") as f:
        for line in f:
            name, screen, crop, x, y, w, h, ex, ey = line.split()
            yield name, screen, crop, int(x), int(y), int(w), int(h), int(ex), int(ey)


def near_window(W, H, w, h, ex, ey):
    # Same arithmetic as `locate`: the expected place clamped into the screen, +-round(10%).
    x1max, y1max = W - w, H - h
    ex, ey = min(ex, x1max), min(ey, y1max)
    dx, dy = round(W * NEAR), round(H * NEAR)
    return max(ex - dx, 0), max(ey - dy, 0), min(ex + dx, x1max), min(ey + dy, y1max)


def time_cases(d, reps, threads):
    import cv2

    cv2.setNumThreads(1 if threads == 1 else -1)
    for name, screen, crop, x, y, w, h, ex, ey in load_cases(d):
        img = cv2.imread(f"{d}/{screen}", cv2.IMREAD_GRAYSCALE)
        tpl = cv2.imread(f"{d}/{crop}", cv2.IMREAD_GRAYSCALE)
        H, W = img.shape
        x0, y0, x1, y1 = near_window(W, H, w, h, ex, ey)
        for mode in ("near", "full"):
            times = []
            for _ in range(reps):
                t = time.perf_counter_ns()
                ox, oy = 0, 0
                if mode == "near":
                    res = cv2.matchTemplate(img[y0 : y1 + h, x0 : x1 + w], tpl, cv2.TM_CCOEFF_NORMED)
                    _, best, _, loc = cv2.minMaxLoc(res)
                    ox, oy = x0, y0
                if mode == "full" or best < FLOOR:
                    res = cv2.matchTemplate(img, tpl, cv2.TM_CCOEFF_NORMED)
                    _, best, _, loc = cv2.minMaxLoc(res)
                    ox, oy = 0, 0
                times.append(time.perf_counter_ns() - t)
            print(f"{name} {mode} {int(statistics.median(times))} {loc[0] + ox} {loc[1] + oy} {best:.6f}")
    sys.stdout.flush()


def read(path):
    rows = {}
    with open(path) as f:
        for line in f:
            name, mode, ns, x, y, score = line.split()
            r = rows.setdefault((name, mode), {"ns": [], "pos": set(), "score": float(score)})
            r["ns"].append(int(ns))
            r["pos"].add((int(x), int(y)))
    return rows


def report(d):
    import cv2

    ours, cv1, cvn = read(f"{d}/ours.txt"), read(f"{d}/cv1.txt"), read(f"{d}/cvN.txt")
    cases = {c[0]: c for c in load_cases(d)}
    images = {}

    def copy_at(name, pos):
        # Whether the screen shows the crop pixel for pixel at `pos`.
        _, screen, crop, *_ = cases[name]
        img = images.setdefault(screen, cv2.imread(f"{d}/{screen}", cv2.IMREAD_GRAYSCALE))
        tpl = images.setdefault(crop, cv2.imread(f"{d}/{crop}", cv2.IMREAD_GRAYSCALE))
        h, w = tpl.shape
        x, y = pos
        return x >= 0 and y >= 0 and (img[y : y + h, x : x + w] == tpl).all()

    print("| case | mode | ours ms | OpenCV 1 thread ms | ratio | OpenCV default threads ms | ratio | ours at | OpenCV at | agree |")
    print("|---|---|---:|---:|---:|---:|---:|---|---|---|")
    for key in ours:
        name, mode = key
        o = statistics.median(ours[key]["ns"]) / 1e6
        c1 = statistics.median(cv1[key]["ns"]) / 1e6
        cn = statistics.median(cvn[key]["ns"]) / 1e6
        (opos,) = ours[key]["pos"] if len(ours[key]["pos"]) == 1 else (("varies",),)
        cpos = sorted(cv1[key]["pos"] | cvn[key]["pos"])
        cut = cases[name][3:5]
        if cut == (-1, -1):
            # A recoloured control: no copy on screen, so no place is right; ours must find
            # nothing above the floor, and OpenCV's best must be under it too.
            agree = "no copy" if opos == (-1, -1) and cv1[key]["score"] < FLOOR else "NO"
        elif len(cpos) == 1 and cpos == [opos] and opos == cut:
            agree = "yes"
        elif copy_at(name, opos) and all(copy_at(name, p) for p in cpos):
            # Identical copies (a button on every row, a gradient that repeats along a row):
            # any is an argmax for OpenCV; ours is the one nearest the expected place (near)
            # or the first in raster order (full).
            agree = "copies: both exact"
        elif copy_at(name, opos) and min(cv1[key]["score"], cvn[key]["score"]) >= 1 - HAIR:
            # OpenCV's argmax is a place scoring within the hair of 1 that is not a copy (the
            # same button on a row tinted a shade differently; a gradient a shade brighter):
            # ours is an exact copy, which no place can outscore.
            agree = "ours exact, OpenCV a near-tie"
        else:
            agree = "NO"
        print(
            f"| {name} | {mode} | {o:.2f} | {c1:.2f} | {o / c1:.3f} | {cn:.2f} | {o / cn:.3f} "
            f"| {opos[0]},{opos[1]} ({ours[key]['score']:.4f}) "
            f"| {' '.join(f'{p[0]},{p[1]}' for p in cpos)} ({cv1[key]['score']:.4f}) | {agree} |"
        )


if __name__ == "__main__":
    if sys.argv[1] == "time":
        time_cases(sys.argv[2], int(sys.argv[3]), int(sys.argv[4]))
    elif sys.argv[1] == "report":
        report(sys.argv[2])
    else:
        sys.exit("usage: crop_opencv.py time DIR REPS THREADS | report DIR")
