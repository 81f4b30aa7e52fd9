#!/usr/bin/env bash
# The scale benchmark: generated suites of N scenarios (10-20 steps each, 2x) replayed by
# `stepreplay run` (both modes, every report) at --jobs 1 and 2, and in 4 shards run one after
# another. Prints wall time, time per step and peak RSS (GNU time) per run.
#   benches/scale/run.sh [N…]        default: 10 100 1000      SCRATCH=dir to reuse suites
#   BIN=path to time a binary already built; SHARDS=0 to leave out the 4-shard runs;
#   JOBS="2" for the --jobs values to run (default "1 2")
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/../.." && pwd)"
scratch="${SCRATCH:-$(mktemp -d -t stepreplay-scale.XXXXXX)}"
sizes=("$@")
[ ${#sizes[@]} -gt 0 ] || sizes=(10 100 1000)
if [ -z "${BIN:-}" ]; then
  (cd "$root" && cargo build --release -q -p stepreplay --bin stepreplay)
fi
bin="${BIN:-${CARGO_TARGET_DIR:-$root/target}/release/stepreplay}"
echo "== $(date -u '+%F %T UTC') · $(nproc) cores, $(lscpu | sed -n 's/^Model name: *//p' | head -1) · load:$(cut -d' ' -f1-3 /proc/loadavg)"
printf '%-6s %-10s %6s %9s %10s %11s\n' scenarios run steps "wall s" "ms/step" "peak MB"
for n in "${sizes[@]}"; do
  suite="$scratch/suite-$n"
  python3 "$here/gen.py" "$bin" "$suite" "$n"
  one() { # label, extra args…  (steps: the plan steps of the scenarios this run replayed)
    local label="$1"; shift
    local out; out="$(mktemp -d)"
    /usr/bin/time -f '%e %M' -o "$out/time" "$bin" run -q "$suite/scenarios" --report-dir "$out/r" "$@" >/dev/null
    read -r wall kb < "$out/time"
    local steps
    steps=$(python3 -c "
import json
r = json.load(open('$out/r/report.json'))
print(sum(s['runs']['chained']['tally']['steps'] for s in r['scenarios']))")
    printf '%-6s %-10s %6s %9.2f %10.2f %11.0f\n' "$n" "$label" "$steps" "$wall" \
      "$(python3 -c "print($wall * 1000 / $steps)")" "$(python3 -c "print($kb / 1024)")"
    rm -rf "$out"
  }
  for j in ${JOBS:-1 2}; do one "jobs $j" --jobs "$j"; done
  if [ "${SHARDS:-4}" != 0 ]; then
    for k in 1 2 3 4; do one "shard $k/4" --jobs 2 --shard "$k/4"; done
  fi
done
echo "== done $(date -u '+%T UTC') · load:$(cut -d' ' -f1-3 /proc/loadavg)"
