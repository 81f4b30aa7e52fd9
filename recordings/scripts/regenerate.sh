#!/bin/sh
# Regenerates every synthetic recording, plan, crop and scenario file from the scripts here.
# Usage (from the repository root): sh recordings/scripts/regenerate.sh
set -eu
cargo build --quiet --bin stepreplay
for script in recordings/scripts/*.json; do
    name=$(basename "$script" .json)
    ./target/debug/stepreplay synth "$script" --out "recordings/$name" --plan-out "scenarios/$name"
done
