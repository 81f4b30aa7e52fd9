#!/usr/bin/env bash
# The scale benchmark: generated suites of N scenarios (10-20 steps each, 2x) replayed by
# `stepreplay run` (both modes, every report) at --jobs 1 and 2, and in 4 shards run one after
# another. Prints wall time, time per step and peak RSS (GNU time) per run.
#   benches/scale/run.sh [N…]        default: 10 100 1000      SCRATCH=dir to reuse suites
#   BIN=path to time a binary already built; SHARDS=0 to leave out the 4-shard runs;
#   JOBS="2" for the --jobs values to run (default "1 2"); SUITE=copies for N copies of the
#   bundled suite's scenarios on its own plans and recordings (copies.py) instead
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
  if [ "${SUITE:-}" = copies ]; then
    suite="$scratch/copies-$n"
    python3 "$here/copies.py" "$root" "$suite" "$n"
  else
    python3 "$here/gen.py" "$bin" "$suite" "$n"
  fi
  one() { # label, extra args…  (steps: the plan steps of the scenarios this run replayed)
    local label="$1"; shift
    local out; out="$(mktemp -d)"
    /usr/bin/time -f '%e %M' -o "$out/time" "$bin" run -q "$suite/scenarios" --report-dir "$out/r" "$@" >/dev/null
    read -r wall kb < "$out/time"
    # The chained tally's steps, from the summary at the end of report.json (a 10,000-scenario
    # report is about a GB: only its last MiB is read).
    local steps
    steps=$(python3 -c "
import json
f = open('$out/r/report.json', 'rb')
f.seek(0, 2)
f.seek(max(0, f.tell() - (1 << 20)))
t = f.read().decode(errors='replace')
i = t.index('{', t.rindex('\"summary\"'))
print(json.JSONDecoder().raw_decode(t[i:])[0]['tallies']['chained']['steps'])")
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
