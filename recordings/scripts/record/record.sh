#!/usr/bin/env bash
# Records every script in this folder again into the checked-in suite (needs xvfb, dbus,
# at-spi2-core, openbox and the apps the scripts name, installed here when missing; see
# README.md). The tests replay the recordings and need none of the apps.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../../.." && pwd)
cd "$root"
apps=(zenity galculator yad gtk-3-examples gnome-text-editor mousepad gnome-calculator
  featherpad chromium libreoffice-writer openjdk-17-jre libatk-wrapper-java
  libatk-wrapper-java-jni linguist-qt6 firefox-esr xvfb dbus at-spi2-core openbox)
missing=()
for p in "${apps[@]}"; do dpkg -s "$p" >/dev/null 2>&1 || missing+=("$p"); done
if [ ${#missing[@]} -gt 0 ]; then
  sudo=(); [ "$(id -u)" -eq 0 ] || sudo=(sudo)
  "${sudo[@]}" apt-get install -y --no-install-recommends "${missing[@]}"
fi
cargo build --release -q
for script in "$here"/*.json; do
  name=$(basename "$script" .json)
  ./target/release/stepreplay record --xvfb --script "$script" --out "recordings/$name"
done
