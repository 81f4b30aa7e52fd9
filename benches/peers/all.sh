#!/usr/bin/env bash
# Every hot-path figure in one run: the pixel diff against pixelmatch and odiff (run.sh),
# crop locate against OpenCV (crop.sh) and on the stress set, and the resolution targets
# (criterion, 10k elements), back to back, with the machine and its load printed before and after.
#   benches/peers/all.sh [ROUNDS]     ROUNDS for run.sh (default 20); crop.sh reads ROUNDS/REPS
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/../.." && pwd)"
rounds="${1:-20}"

echo "== $(date -u '+%F %T UTC') · $(nproc) cores, $(lscpu | sed -n 's/^Model name: *//p' | head -1) · load:$(cut -d' ' -f1-3 /proc/loadavg)"
(cd "$root" && cargo bench -q -p stepreplay-benches --bench resolve --no-run 2>/dev/null)
echo "== pixel diff (run.sh $rounds)"
"$here/run.sh" "$rounds"
echo "== crop locate (crop.sh)"
ROUNDS="${ROUNDS:-3}" "$here/crop.sh"
echo "== crop locate, the stress set (2,880 random crops; each query the fastest of seven passes)"
(cd "$root" && cargo test --release -q -p stepreplay --lib stress -- --ignored --nocapture 2>/dev/null | grep '^|')
echo "== resolution (criterion, 10k elements; targets: index < 2 ms, step < 1 µs)"
(cd "$root" && cargo bench -q -p stepreplay-benches --bench resolve -- \
  --warm-up-time 2 --measurement-time 8 --noplot '/10000$' 2>/dev/null | grep -E '^resolve|time:')
echo "== done $(date -u '+%T UTC') · load:$(cut -d' ' -f1-3 /proc/loadavg)"
