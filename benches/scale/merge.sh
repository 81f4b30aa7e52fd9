#!/usr/bin/env bash
# Merge and gate at scale: the 4 shard reports of a real run of 100 generated scenarios,
# inflated to N scenarios (inflate.py), then timed through `merge` (every report format),
# `baseline accept` and `merge --baseline` (the gate). Prints wall time, peak RSS (GNU time)
# and the size of what each step read.
#   benches/scale/merge.sh [N…]      default: 10000 100000      SCRATCH=dir, BIN=binary as in run.sh
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/../.." && pwd)"
scratch="${SCRATCH:-$(mktemp -d -t stepreplay-merge.XXXXXX)}"
sizes=("$@")
[ ${#sizes[@]} -gt 0 ] || sizes=(10000 100000)
if [ -z "${BIN:-}" ]; then
  (cd "$root" && cargo build --release -q -p stepreplay --bin stepreplay)
fi
bin="${BIN:-${CARGO_TARGET_DIR:-$root/target}/release/stepreplay}"
suite="$scratch/suite-100"
[ -d "$suite/scenarios" ] || python3 "$here/gen.py" "$bin" "$suite" 100
for k in 1 2 3 4; do
  [ -f "$scratch/real/shard-$k/report.json" ] ||
    "$bin" run -q "$suite/scenarios" --shard "$k/4" --jobs 2 --reports json \
      --report-dir "$scratch/real/shard-$k" >/dev/null || true
done
echo "== $(date -u '+%F %T UTC') · $(nproc) cores · load:$(cut -d' ' -f1-3 /proc/loadavg)"
printf '%-9s %-16s %5s %9s %9s %10s\n' scenarios step exit "wall s" "peak MB" "input MB"
timed() { # label, input files (for their size), -- command…
  local label="$1" input="$2"; shift 2
  local code=0
  /usr/bin/time -f '%e %M' -o "$scratch/time" "$@" >/dev/null || code=$?
  read -r wall kb < <(tail -1 "$scratch/time")
  printf '%-9s %-16s %5s %9.2f %9.0f %10.0f\n' "$n" "$label" "$code" "$wall" "$((kb / 1024))" \
    "$(du -cm $input | tail -1 | cut -f1)"
}
for n in "${sizes[@]}"; do
  big="$scratch/big-$n"
  rm -rf "$big" && mkdir -p "$big"
  python3 "$here/inflate.py" "$big" "$n" "$scratch"/real/shard-*/report.json
  shards=("$big"/shard-*/report.json)
  timed merge "${shards[*]}" "$bin" merge -q --out "$big/merged/report.json" "${shards[@]}"
  timed "baseline accept" "$big/merged/report.json" "$bin" baseline accept -q --allow-failing \
    --report "$big/merged/report.json" --out "$big/baseline.json"
  timed "merge --baseline" "${shards[*]} $big/baseline.json" "$bin" merge -q \
    --out "$big/gated/report.json" --baseline "$big/baseline.json" "${shards[@]}"
  cmp -s "$big/merged/report.json" "$big/gated/report.json" ||
    echo "   (the gated merge's report.json differs from the first merge's)"
  rm -rf "$big"
done
