#!/usr/bin/env bash
# How long a report page takes to open in headless Chromium: a wrapper page loads it in a frame
# and takes the time from its own start to the frame's load event (HTML parsed, laid out, every
# image loaded), ROUNDS times (default 3).
#   benches/scale/html_open.sh REPORT_DIR [PAGE] [ROUNDS]      PAGE default: index.html
set -euo pipefail
dir="$(cd "$1" && pwd)"
page="${2:-index.html}"
wrap="$(mktemp -d)"
trap 'rm -rf "$wrap"' EXIT
cat > "$wrap/open.html" <<HTML
<!doctype html><title>-</title><script>const t0 = performance.now();</script>
<iframe src="file://$dir/$page"
  onload="document.title = 'load ' + (performance.now() - t0).toFixed(0) + ' ms'"></iframe>
HTML
echo "$page: $(du -k "$dir/$page" | cut -f1) KB, $(ls "$dir"/index*.html | wc -l) pages"
for _ in $(seq "${3:-3}"); do
  chromium --headless=new --no-sandbox --disable-gpu --dump-dom "file://$wrap/open.html" 2>/dev/null |
    grep -o 'load [0-9]* ms' || echo "did not load"
done
