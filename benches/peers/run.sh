#!/usr/bin/env bash
# Installs the peers (pixelmatch 7.2.0 + pngjs, odiff-bin) in a scratch folder, builds
# stepreplay in release mode, renders the benchmark desktops and times everything side by
# side in one run (see compare.py for what each line measures).
#   benches/peers/run.sh [ROUNDS]        SCRATCH=dir to reuse an install
#   HOG=N busy loops beside the timings (default one per core, HOG=0 for a quiet machine)
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/../.." && pwd)"
scratch="${SCRATCH:-$(mktemp -d -t stepreplay-peers.XXXXXX)}"
rounds="${1:-10}"

if [ ! -d "$scratch/node_modules/pixelmatch" ] || [ ! -d "$scratch/node_modules/odiff-bin" ]; then
  (cd "$scratch" && npm init -y >/dev/null &&
    npm install --no-audit --no-fund pixelmatch@7.2.0 pngjs odiff-bin >/dev/null)
fi
# odiff-bin's `bin/odiff` is a node wrapper; time the native binary it resolves to.
odiff="$(cd "$scratch" && node -p 'require("odiff-bin/binary.js").findBinary()')"

(cd "$root" && cargo build --release -q -p stepreplay --bin stepreplay &&
  cargo build --release -q -p stepreplay-benches --bin diff-peer)
target="$(cd "$root" && cargo metadata --format-version 1 --no-deps | python3 -c 'import json,sys; print(json.load(sys.stdin)["target_directory"])')"
"$target/release/diff-peer" gen "$scratch/images" >/dev/null

. "$here/hog.sh"
hog_start
echo "machine: $(nproc) cores, $(lscpu | sed -n 's/^Model name: *//p' | head -1)"
echo "peers: pixelmatch $(node -p "require('$scratch/node_modules/pixelmatch/package.json').version"), odiff-bin $(node -p "require('$scratch/node_modules/odiff-bin/package.json').version") ($odiff), node $(node --version)"
python3 "$here/compare.py" "$scratch" "$scratch/images" "$target/release/stepreplay" \
  "$target/release/diff-peer" "$odiff" "$rounds"
