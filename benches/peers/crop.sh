#!/usr/bin/env bash
# Crop locate against OpenCV's matchTemplate(TM_CCOEFF_NORMED) + minMaxLoc, on the same
# grayscale PNGs, in one run, alternating ours / OpenCV 1 thread / OpenCV default threads for
# ROUNDS rounds of REPS repetitions each. Prints a markdown table (see benches/README-crop.md).
#
# Peers go into a scratch venv (CROP_PEERS_VENV, default /tmp/stepreplay-crop-peers) with
# opencv-python-headless and numpy from PyPI; nothing is installed elsewhere. HOG=N busy loops
# run beside the timings (default one per core; HOG=0 for none), as in run.sh.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
venv=${CROP_PEERS_VENV:-/tmp/stepreplay-crop-peers}
rounds=${ROUNDS:-3}
reps=${REPS:-9}

if [ ! -x "$venv/bin/python" ] || ! "$venv/bin/python" -c 'import cv2, numpy' 2>/dev/null; then
    python3 -m venv "$venv"
    "$venv/bin/pip" install -q opencv-python-headless numpy
fi
"$venv/bin/python" -c 'import cv2, numpy; print("opencv", cv2.__version__, "numpy", numpy.__version__, "default threads", cv2.getNumThreads())'

cargo build --release -q --manifest-path "$root/Cargo.toml" -p stepreplay-benches --example crop_peer
bin=$root/target/release/examples/crop_peer
out=$(mktemp -d /tmp/stepreplay-crop.XXXXXX)
"$bin" fixtures "$out"

. "$here/hog.sh"
hog_start
for round in $(seq "$rounds"); do
    echo "round $round/$rounds" >&2
    "$bin" time "$out" "$reps" >>"$out/ours.txt"
    "$venv/bin/python" "$here/crop_opencv.py" time "$out" "$reps" 1 >>"$out/cv1.txt"
    "$venv/bin/python" "$here/crop_opencv.py" time "$out" "$reps" 0 >>"$out/cvN.txt"
done

echo "machine: $(lscpu | sed -n 's/^Model name: *//p'), $(nproc) cores; fixtures in $out"
"$venv/bin/python" "$here/crop_opencv.py" report "$out"
