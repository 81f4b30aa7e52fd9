#!/usr/bin/env bash
# Records every script in this folder again into the checked-in suite (needs xvfb, dbus,
# at-spi2-core, openbox and the apps the scripts name; see README.md).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../../.." && pwd)
cd "$root"
cargo build --release -q
for script in "$here"/*.json; do
  name=$(basename "$script" .json)
  ./target/release/stepreplay record --xvfb --script "$script" --out "recordings/$name"
done
