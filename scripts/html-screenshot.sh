#!/usr/bin/env bash
# Takes a screenshot of a stepreplay HTML report in headless Chromium, optionally with a section
# opened (`#s-<scenario>`, `#s-<scenario>-<mode>-<step>`) or a step's pictures zoomed
# (`#zoom-s-<scenario>-<mode>-<step>`). The README's
# pictures of the report are made with it; the integration test drives the page itself.
#
#   scripts/html-screenshot.sh reports/index.html shot.png [1400x900] [#s-mail-wrong-label]
#
# Exits 77 when no Chromium is installed (Debian: apt-get install -y chromium).
set -euo pipefail
page=$(realpath "$1")
shot=$(realpath -m "$2")
size=${3:-1400x900}
anchor=${4:-}
browser=$(command -v chromium || command -v chromium-browser || true)
if [ -z "$browser" ]; then
  echo "skip: chromium is not installed"
  exit 77
fi
profile=$(mktemp -d)
trap 'rm -rf "$profile"' EXIT
# Headless Chromium's --screenshot draws a blank page once the page has scrolled (a URL with
# a #fragment scrolls), so a script in a copy of the page beside it (its images are relative)
# opens the fragment and scrolls back up: a section opens in place, a #zoom- view covers the page.
if [ -n "$anchor" ]; then
  copy="$(dirname "$page")/.screenshot-$$.html"
  trap 'rm -rf "$profile" "$copy"' EXIT
  sed "s|</body>|<script>location.hash='$anchor';setTimeout(function(){scrollTo(0,0);},0);</script></body>|" "$page" > "$copy"
  page=$copy
  anchor=
fi
timeout 120 "$browser" --headless --no-sandbox --disable-gpu --disable-background-networking \
  --disable-component-update --disable-sync --no-first-run --hide-scrollbars \
  --user-data-dir="$profile" --window-size="${size/x/,}" --virtual-time-budget=5000 \
  --screenshot="$shot" "file://$page$anchor" >/dev/null 2>&1
echo "screenshot: $shot"
