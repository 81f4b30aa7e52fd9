#!/usr/bin/env bash
# Renders a stepreplay HTML report in headless Chromium: takes a screenshot and reads the
# page's own verdict on its images (it titles itself "ok N images" once every <img> decoded).
#
#   scripts/html-smoke.sh reports/index.html [/tmp/stepreplay-html.png]
#
# Prints "title: …" and "screenshot: …"; exits 0 when every image loaded, 1 when not,
# 77 when no Chromium is installed (Debian: apt-get install -y chromium).
set -euo pipefail
page=$(realpath "$1")
shot=$(realpath -m "${2:-/tmp/stepreplay-html.png}")
browser=$(command -v chromium || command -v chromium-browser || true)
if [ -z "$browser" ]; then
  echo "skip: chromium is not installed"
  exit 77
fi
profile=$(mktemp -d)
trap 'rm -rf "$profile"' EXIT
flags=(--headless --no-sandbox --disable-gpu --disable-background-networking
  --disable-component-update --disable-sync --no-first-run --user-data-dir="$profile"
  --window-size=1400,2000 --virtual-time-budget=5000)
timeout 120 "$browser" "${flags[@]}" --screenshot="$shot" "file://$page" >/dev/null 2>&1
dom=$(timeout 120 "$browser" "${flags[@]}" --dump-dom "file://$page" 2>/dev/null)
title=$(printf '%s' "$dom" | sed -n 's:.*<title>\([^<]*\)</title>.*:\1:p' | head -n 1)
echo "title: $title"
echo "screenshot: $shot"
[[ $title =~ ^ok\ [1-9][0-9]*\ images$ ]]
