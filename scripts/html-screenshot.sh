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
# Headless Chromium's --screenshot paints a blank page once the page has scrolled (a URL with
# a #fragment scrolls), so nothing scrolls: a script in a copy of the page beside it (its images
# are relative) opens the section the fragment names and hides what is above it — the header
# and the other scenarios, and for a step the other steps — so the section is at the top; a
# #zoom- fragment opens the step's pictures full size. Images load at once, not lazily.
if [ -n "$anchor" ]; then
  copy="$(dirname "$page")/.screenshot-$$.html"
  trap 'rm -rf "$profile" "$copy"' EXIT
  id=${anchor#\#}
  script="<script>(function(){
var d=document,id=decodeURIComponent('${id//\'/}'),zoom=id.indexOf('zoom-')===0;
var t=d.getElementById(zoom?id.slice(5):id);
if(!t){d.body.insertAdjacentHTML('afterbegin','<p class=bad>no section '+id+' on this page</p>');return;}
[].forEach.call(d.querySelectorAll('img'),function(i){i.loading='eager';});
d.querySelector('header').hidden=true;
[].forEach.call(d.querySelectorAll('details.scenario'),function(s){if(!s.contains(t))s.hidden=true;});
if(t.classList.contains('card'))[].forEach.call(t.parentNode.children,function(c){if(c!==t)c.hidden=true;});
for(var p=t;p;p=p.parentElement){if(p.tagName==='DETAILS')p.open=true;p.hidden=false;}
if(zoom){var s=t.querySelector('.frames .shot');if(s)s.click();}
})();</script>"
  html=$(cat "$page")
  printf '%s\n' "${html/<\/body>/$script</body>}" > "$copy"
  page=$copy
  anchor=
fi
timeout 120 "$browser" --headless --no-sandbox --disable-gpu --disable-background-networking \
  --disable-component-update --disable-sync --no-first-run --hide-scrollbars \
  --user-data-dir="$profile" --window-size="${size/x/,}" --virtual-time-budget=5000 \
  --screenshot="$shot" "file://$page$anchor" >/dev/null 2>&1
echo "screenshot: $shot"
