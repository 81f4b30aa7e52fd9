//! `index.html` ([`write_html`], [`to_html`]): one self-contained static page — inline CSS
//! and script, no network, works from `file://` — with a row per scenario and, inside, a card
//! per step: the guide's words, how the target was resolved, each expect check, and the
//! before / after frames side by side with the winner's box drawn over the before frame.
//!
//! It is a triage page: scenarios not as expected come first and open, each says where it
//! first failed with a link to that step; a status filter and a search box narrow the list;
//! a screenshot opens full size on click, with before / after / diff a click (or ←/→) apart;
//! `#s-<scenario>` and `#s-<scenario>-<mode>-<step>` links open their section. Images load
//! lazily, so a suite of hundreds of steps opens at once.
//!
//! Only the frames steps reference are written, as recorded, into `img/` beside the page, under
//! names made from the recording folder and the frame id, so the folder is the same bytes every
//! run. The pictures come from the [`Evidence`] the runner gathered; the page reads no
//! recording.
//! Guide text is untrusted: every piece of text goes through [`html_escape`].

use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write as _;
use std::path::Path;

use super::baseline::RegressionReport;
use super::entries::{Entries, ReportRef};
use super::model::{Report, ResolutionReport, RunReport, ScenarioReport, StepReport};
use crate::diff::StepDiff;
use crate::errors::Error;
use crate::evidence::{FrameKey, PairKey, Picture, Pictures, Wanted};
use crate::output::{real_subdir, write_file};
use crate::recording::ax::Rect;
use crate::replay::Mode;
use crate::score::COLUMNS;
use crate::text::{plural, slug, word};

/// Escapes text for HTML element content and quoted attribute values; a character XML 1.0
/// refuses (a control, a noncharacter: HTML parse errors too) becomes U+FFFD.
pub fn html_escape(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in crate::text::xml_safe(s).chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            c => out.push(c),
        }
    }
    out
}

/// An image written beside the page.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PageImage {
    /// Path relative to the page (`img/mini-f0.png`).
    pub href: String,
    /// Pixel width (for drawing boxes in percent).
    pub width: u32,
    /// Pixel height.
    pub height: u32,
    /// The boxes of the windows on it, the frontmost app's first (thumbnails are cropped to
    /// the step's window); empty for an image that is no recorded frame.
    pub windows: Vec<Rect>,
}

/// The images a page shows.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct PageImages {
    /// Frames by (recording folder, frame id).
    pub frames: BTreeMap<(String, String), PageImage>,
    /// Step diff images by the path `run --captures` wrote them to.
    pub diffs: BTreeMap<String, PageImage>,
}

/// What [`write_html`] wrote.
#[derive(Clone, Debug)]
pub struct HtmlOutput {
    /// Frames that could not be found or read (the page shows a placeholder for each).
    pub missing: Vec<String>,
    /// The pages written, in order: `index.html`, then `index-2.html`… ([`page_name`]).
    pub pages: Vec<String>,
}

/// Scenarios on one page: a suite of thousands opens as pages a browser shows at once.
pub(crate) const SCENARIOS_PER_PAGE: usize = 100;

/// The file name of page `k` (from 1): `index.html`, then `index-2.html`, `index-3.html`…
pub fn page_name(k: usize) -> String {
    if k <= 1 {
        "index.html".to_string()
    } else {
        format!("index-{k}.html")
    }
}

/// The pictures the page draws: every frame a step shows, and the diff of every step that
/// `run --captures` wrote pictures for.
pub fn html_wanted(entries: &dyn Entries) -> Result<Wanted, Error> {
    let (frames, diffs) = shown(entries)?;
    Ok(Wanted {
        frames,
        pairs: diffs.into_values().collect(),
    })
}

/// The frames steps show, and the step diff images `run --captures` wrote, by path, with
/// their frame pair.
fn shown(entries: &dyn Entries) -> Result<(BTreeSet<FrameKey>, BTreeMap<String, PairKey>), Error> {
    let mut frames = BTreeSet::new();
    let mut diffs = BTreeMap::new();
    entries.each(&mut |sc| {
        for st in sc.steps() {
            let Some(pair) = st.pair(&sc.recording) else {
                continue;
            };
            let (rec, before, after) = pair.clone();
            frames.insert((rec.clone(), before));
            frames.insert((rec, after));
            if let Some(c) = &st.captures {
                diffs.insert(c.diff.clone(), pair);
            }
        }
        Ok(())
    })?;
    Ok((frames, diffs))
}

/// A name made from `base` that no other image of the page has.
fn unique(base: &str, used: &mut BTreeSet<String>) -> String {
    let mut name = format!("{base}.png");
    let mut n = 2;
    while !used.insert(name.clone()) {
        name = format!("{base}-{n}.png");
        n += 1;
    }
    name
}

/// Writes `pic` into `dir/img/` as `name`, once `img/` is checked to be a real folder.
fn place(pic: &Picture, name: &str, dir: &Path) -> Result<PageImage, Error> {
    let img_dir = real_subdir(dir, Path::new("img"))?;
    write_file(&img_dir.join(name), &pic.png)?;
    Ok(PageImage {
        href: format!("img/{name}"),
        width: pic.width,
        height: pic.height,
        windows: pic.windows.clone(),
    })
}

/// Writes `dir/index.html` and the frames it shows into `dir/img/`, from the pictures
/// `pictures` hands over a recording at a time (those of [`html_wanted`]): each is written
/// as it comes and dropped, so the page's pictures are never all held.
pub fn write_html<'a>(
    report: impl Into<ReportRef<'a>>,
    regressions: Option<&RegressionReport>,
    pictures: &dyn Pictures,
    dir: &Path,
) -> Result<HtmlOutput, Error> {
    write_html_paged(report, regressions, pictures, dir, SCENARIOS_PER_PAGE)
}

/// [`write_html`] with `per_page` scenarios a page.
pub fn write_html_paged<'a>(
    report: impl Into<ReportRef<'a>>,
    regressions: Option<&RegressionReport>,
    pictures: &dyn Pictures,
    dir: &Path,
    per_page: usize,
) -> Result<HtmlOutput, Error> {
    let report = report.into();
    real_subdir(dir, Path::new(""))?;
    let (frames, diffs) = shown(report.entries)?;
    // Every file's name from its key alone, before any picture comes: the names do not
    // depend on the order the pictures arrive in.
    let mut used = BTreeSet::new();
    let mut frame_names = BTreeMap::new();
    for key in &frames {
        let (rec_dir, frame) = key;
        let rec_name = Path::new(rec_dir)
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        let base = format!("{}-{}", slug(&rec_name), slug(frame));
        frame_names.insert(key.clone(), unique(&base, &mut used));
    }
    let mut diff_names: BTreeMap<&PairKey, Vec<(&String, String)>> = BTreeMap::new();
    for (path, pair) in &diffs {
        // scenario/mode/NN-step-diff: unique within the captures folder.
        let mut tail: Vec<String> = Path::new(path)
            .iter()
            .rev()
            .take(3)
            .map(|c| c.to_string_lossy().into_owned())
            .collect();
        tail.reverse();
        let base = format!("diff-{}", slug(tail.join("-").trim_end_matches(".png")));
        let name = unique(&base, &mut used);
        diff_names.entry(pair).or_default().push((path, name));
    }
    let wanted = Wanted {
        frames: frames.clone(),
        pairs: diff_names.keys().map(|&p| p.clone()).collect(),
    };
    let mut images = PageImages::default();
    pictures.each(&wanted, &mut |ev| {
        for (key, pic) in &ev.frames {
            if let Some(name) = frame_names.get(key) {
                images.frames.insert(key.clone(), place(pic, name, dir)?);
            }
        }
        for (pair, got) in &ev.pairs {
            let (Some(named), Ok(pics)) = (diff_names.get(pair), got) else {
                continue;
            };
            for (path, name) in named {
                let img = place(&pics.diff, name, dir)?;
                images.diffs.insert((*path).clone(), img);
            }
        }
        Ok(())
    })?;
    let mut missing: Vec<String> = frames
        .iter()
        .filter(|k| !images.frames.contains_key(*k))
        .map(|(rec_dir, frame)| format!("{rec_dir}: {frame}"))
        .collect();
    missing.extend(
        diffs
            .keys()
            .filter(|p| !images.diffs.contains_key(*p))
            .cloned(),
    );
    // Written as it is built, a scenario at a time, each page to its own file.
    let mut pages: Vec<String> = Vec::new();
    let mut open: Option<(crate::output::AtomicFile, std::path::PathBuf)> = None;
    page(
        report,
        regressions,
        &images,
        per_page,
        &mut |k: usize, h: &mut String| {
            if pages.len() < k {
                if let Some((f, _)) = open.take() {
                    f.commit()?;
                }
                let name = page_name(k);
                let path = dir.join(&name);
                open = Some((crate::output::AtomicFile::create(&path)?, path));
                pages.push(name);
            }
            let Some((out, path)) = open.as_mut() else {
                return Ok(());
            };
            let r = std::io::Write::write_all(out, h.as_bytes());
            h.clear();
            r.map_err(crate::output::write_error(path))
        },
    )?;
    if let Some((f, _)) = open.take() {
        f.commit()?;
    }
    Ok(HtmlOutput { missing, pages })
}

pub(super) const STYLE: &str = r#"
:root{--ok:#1a7f37;--bad:#cf222e;--mute:#6e7781;--line:#d0d7de;--bg:#f6f8fa;--win:#0969da;--want:#bf8700}
*{box-sizing:border-box}
body{font:14px/1.45 system-ui,-apple-system,"Segoe UI",sans-serif;margin:0;color:#1f2328;background:#fff}
header{padding:16px 24px;border-bottom:1px solid var(--line);background:var(--bg)}
h1{font-size:20px;margin:0 0 6px}
main{padding:12px 24px 40px}
table.totals{border-collapse:collapse;margin-top:8px}
table.totals td,table.totals th{padding:2px 10px;border-bottom:1px solid var(--line);text-align:right}
table.totals th:first-child,table.totals td:first-child{text-align:left}
.ok{color:var(--ok)}.bad{color:var(--bad)}.mute{color:var(--mute)}
.tag{font-size:12px;border:1px solid var(--line);border-radius:10px;padding:0 7px;color:var(--mute)}
.tag.slow{border-color:var(--want);color:var(--want)}
.regressions{border:1px solid var(--bad);background:#fff5f5;border-radius:6px;padding:8px 14px;margin:12px 0}
details.scenario{border:1px solid var(--line);border-radius:6px;margin:10px 0;background:#fff}
details.scenario>summary{cursor:pointer;padding:8px 12px;display:flex;gap:14px;align-items:baseline;list-style:none}
details.scenario>summary::-webkit-details-marker{display:none}
details.scenario[open]>summary{border-bottom:1px solid var(--line);background:var(--bg)}
.sid{font-family:ui-monospace,Menlo,Consolas,monospace;font-weight:600}
.scores{margin-left:auto;font-family:ui-monospace,monospace;color:var(--mute);font-size:12px}
.body{padding:8px 12px}
.mode{margin:6px 0 12px}
.mode>h3{font-size:14px;margin:8px 0}
.steps{display:flex;flex-direction:column;gap:10px}
.card{border:1px solid var(--line);border-left:4px solid var(--mute);border-radius:6px;padding:8px 12px}
.card.not-run{opacity:.6;padding:4px 12px}.card.not-run h4{margin:0}
.card.passed{border-left-color:var(--ok)}.card.failed{border-left-color:var(--bad)}.card.stopped{border-left-color:var(--want)}
.card h4{margin:0 0 4px;font-size:14px}
.meta:empty{display:none}
.meta{display:grid;grid-template-columns:max-content 1fr;gap:2px 12px;font-size:13px}
.meta dt{color:var(--mute)}.meta dd{margin:0}
ul.checks,ul.cands{margin:2px 0;padding-left:18px}
.frames{display:flex;gap:12px;margin-top:8px;flex-wrap:wrap}
figure{margin:0;flex:1 1 0;min-width:200px;max-width:480px}
figcaption{font-size:12px;color:var(--mute)}
.shot{position:relative;border:1px solid var(--line);line-height:0}
.shot img{width:100%;height:auto;image-rendering:pixelated}
.shot.crop{overflow:hidden}.shot.crop img{position:absolute;max-width:none}
.box{position:absolute;border:2px solid var(--win);background:rgba(9,105,218,.12)}
.box.want{border:2px dashed var(--want);background:none}
.dot{position:absolute;width:8px;height:8px;margin:-4px 0 0 -4px;border-radius:50%;background:var(--bad);border:1px solid #fff}
.noimg{display:flex;align-items:center;justify-content:center;height:120px;border:1px dashed var(--line);color:var(--mute);line-height:1.4;font-size:12px}
.legend span{margin-right:12px}
.bar{position:sticky;top:0;z-index:5;display:flex;gap:12px;align-items:center;padding:8px 24px;background:#fff;border-bottom:1px solid var(--line)}
.filters button,.ztabs button{font:inherit;border:1px solid var(--line);background:#fff;border-radius:6px;padding:3px 10px;cursor:pointer}
.filters button.on,.ztabs button.on{background:#1f2328;color:#fff;border-color:#1f2328}
#q{font:inherit;flex:0 1 320px;padding:4px 8px;border:1px solid var(--line);border-radius:6px}
.files{font-size:12px;margin:0 0 6px}.files code{font-size:12px}
.jump{margin:0 0 8px}
.card.first-fail{box-shadow:0 0 0 2px var(--bad)}
.card.fold>.meta,.card.fold>.frames{display:none}
.card.fold>h4{cursor:pointer;margin:0}.card.fold>h4::after{content:" ▸ show";color:var(--mute);font-weight:400}
.card:target{box-shadow:0 0 0 3px var(--win)}
.shot{cursor:zoom-in}
#zoom{position:fixed;inset:0;z-index:10;background:rgba(20,20,24,.92);display:flex;flex-direction:column}
#zoom[hidden]{display:none}
.zbar{display:flex;gap:12px;align-items:center;padding:8px 16px;color:#fff;background:#1f2328}
.zbar .zcap{flex:1;font-size:13px}
.zclose{font:inherit;background:none;border:0;color:#fff;font-size:20px;cursor:pointer}
.zimg{flex:1;overflow:auto;text-align:center}
.zimg img{image-rendering:pixelated;cursor:zoom-out;max-width:100%;max-height:100%}
.zimg.full img{max-width:none;max-height:none;cursor:zoom-in}
details.regressions>summary{cursor:pointer}
body{overflow-wrap:anywhere}
table.totals{display:block;overflow-x:auto;max-width:100%}
.bar,details.scenario>summary{flex-wrap:wrap}
pre{overflow-x:auto}
@media (max-width:600px){header,main,.bar{padding-left:10px;padding-right:10px}figure{min-width:0}
table.totals tr{display:block;padding:2px 0;border-bottom:1px solid var(--line)}
table.totals tr:first-child{display:none}
table.totals td{display:inline-block;border:0;padding:0 10px 0 0;text-align:left}
table.totals td:first-child{display:block;font-weight:600}
table.totals td[data-h]::before{content:attr(data-h) " ";color:var(--mute)}
.legend{display:none}
h1{font-size:17px}.bar{gap:6px 10px;padding-top:6px;padding-bottom:6px}#q{flex:1 1 160px}
details.scenario>summary{gap:2px 10px}
details.scenario>summary .scores,.body>.files{display:none}
details.scenario>summary>.mute{white-space:nowrap;overflow:hidden;text-overflow:ellipsis;max-width:100%}}
"#;

/// The page's behaviour: the status filter, the search box, the zoom view of screenshots and
/// opening the section a `#` link names (`#zoom-<step>` opens the step's pictures zoomed, a link
/// to send with "look at this diff"). Plain DOM, no library, works from `file://`.
const SCRIPT: &str = r#"
(function(){
var d=document,all=function(sel,root){return Array.prototype.slice.call((root||d).querySelectorAll(sel));};
function apply(){
  var f=d.querySelector('.filters .on').getAttribute('data-filter');
  var q=d.getElementById('q').value.trim().toLowerCase(),shown=0;
  all('details.scenario').forEach(function(s){
    var ok=(f==='all'||s.getAttribute('data-status')===f)&&(!q||s.getAttribute('data-text').indexOf(q)>=0);
    s.hidden=!ok;if(ok)shown++;
  });
  d.getElementById('shown').textContent=shown;
}
all('.filters button').forEach(function(b){b.addEventListener('click',function(){
  all('.filters button').forEach(function(o){o.classList.toggle('on',o===b);});apply();});});
d.getElementById('q').addEventListener('input',apply);
var z=d.getElementById('zoom'),zi=z.querySelector('.zimg img'),zt=z.querySelector('.ztabs'),
    zc=z.querySelector('.zcap'),figs=[],at=0;
function show(k){
  at=(k+figs.length)%figs.length;zt.textContent='';
  figs.forEach(function(f,j){var b=d.createElement('button');b.textContent=f.getAttribute('data-label');
    b.className=j===at?'on':'';b.addEventListener('click',function(){show(j);});zt.appendChild(b);});
  zi.src=figs[at].querySelector('img').getAttribute('src');
  zc.textContent=figs[at].querySelector('figcaption').textContent;
  z.setAttribute('data-shown',figs[at].getAttribute('data-label'));z.hidden=false;
}
d.addEventListener('click',function(e){
  var shot=e.target.closest&&e.target.closest('.frames .shot');if(!shot)return;
  var fig=shot.closest('figure');
  figs=all('figure',fig.parentNode).filter(function(f){return f.querySelector('.shot img');});
  show(figs.indexOf(fig));
});
zi.addEventListener('click',function(){zi.parentNode.classList.toggle('full');});
d.addEventListener('click',function(e){
  var h=e.target.closest&&e.target.closest('.card.fold>h4');if(h)h.parentNode.classList.remove('fold');
});
z.addEventListener('click',function(e){if(e.target===z||e.target.classList.contains('zclose'))z.hidden=true;});
d.addEventListener('keydown',function(e){
  if(z.hidden)return;
  if(e.key==='Escape')z.hidden=true;else if(e.key==='ArrowRight')show(at+1);else if(e.key==='ArrowLeft')show(at-1);
});
function openHash(){
  var id=decodeURIComponent(location.hash.slice(1)),zoom=id.indexOf('zoom-')===0;
  var t=d.getElementById(zoom?id.slice(5):id);if(!t)return;
  for(var p=t;p;p=p.parentElement){if(p.tagName==='DETAILS')p.open=true;if(p.hidden)p.hidden=false;}
  t.scrollIntoView();
  var shot=zoom&&t.querySelector('.frames .shot');if(shot)shot.click();
}
window.addEventListener('hashchange',openHash);openHash();
})();
"#;

/// The page's HTML text, with frames from `images` (those absent show a placeholder); for a
/// report of more than one page, every page's text one after another.
pub fn to_html(
    report: &Report,
    regressions: Option<&RegressionReport>,
    images: &PageImages,
) -> String {
    let mut page_text = String::new();
    // A held report's entries are read without I/O, and this sink never fails.
    let _ = page(
        report.into(),
        regressions,
        images,
        SCENARIOS_PER_PAGE,
        &mut |_, h: &mut String| {
            page_text.push_str(h);
            h.clear();
            Ok(())
        },
    );
    page_text
}

/// Builds the pages, `per_page` scenarios each, into a buffer that `flush` takes (and
/// empties) with the page's number (from 1) after each head and each scenario, so that no
/// page need be held whole. Failures come first, so the first page is the one to read; a
/// `#s-…` link to a scenario on another page is sent there (the first page knows where each
/// is; the others send it to the first).
fn page(
    report: ReportRef,
    regressions: Option<&RegressionReport>,
    images: &PageImages,
    per_page: usize,
    flush: &mut dyn FnMut(usize, &mut String) -> Result<(), Error>,
) -> Result<(), Error> {
    let per_page = per_page.max(1);
    let pages = report.entries.count().div_ceil(per_page).max(1);
    let mut h = String::new();
    let mut at = 0usize;
    let mut where_is: Vec<(String, usize)> = Vec::new();
    if pages > 1 {
        report.entries.failed_first(&mut |sc| {
            where_is.push((format!("s-{}", slug(&sc.id)), at / per_page + 1));
            at += 1;
            Ok(())
        })?;
        at = 0;
    }
    page_head(&mut h, report.head, regressions);
    pager(&mut h, 1, pages);
    flush(1, &mut h)?;
    // Failures first; each group in the report's (id) order.
    report.entries.failed_first(&mut |sc| {
        let k = at / per_page + 1;
        if at > 0 && at.is_multiple_of(per_page) {
            page_foot(&mut h, k - 1, pages, &where_is);
            flush(k - 1, &mut h)?;
            page_head(&mut h, report.head, None);
            pager(&mut h, k, pages);
            flush(k, &mut h)?;
        }
        at += 1;
        scenario(&mut h, report.head, sc, images);
        flush(k, &mut h)
    })?;
    let last = at.div_ceil(per_page).max(1);
    page_foot(&mut h, last, pages, &where_is);
    flush(last, &mut h)
}

/// Links to the other pages (none for a report of one page).
fn pager(h: &mut String, k: usize, pages: usize) {
    if pages <= 1 {
        return;
    }
    let _ = write!(
        h,
        "<nav class=\"pager\" style=\"margin:8px 0\">Page {k} of {pages} ·"
    );
    for j in 1..=pages {
        if j == k {
            let _ = write!(h, " <b>{j}</b>");
        } else {
            let _ = write!(h, " <a href=\"{}\">{j}</a>", page_name(j));
        }
    }
    h.push_str("</nav>\n");
}

/// The end of page `k` of `pages`: the pager again, and where a `#s-…` link of another page
/// goes.
fn page_foot(h: &mut String, k: usize, pages: usize, where_is: &[(String, usize)]) {
    pager(h, k, pages);
    let _ = writeln!(
        h,
        "</main><div id=\"zoom\" hidden><div class=\"zbar\"><span class=\"ztabs\"></span>\
         <span class=\"zcap\"></span><button class=\"zclose\" aria-label=\"Close\">✕</button>\
         </div><div class=\"zimg\"><img alt=\"\"></div></div><script>{SCRIPT}</script>{}</body></html>",
        elsewhere(k, pages, where_is)
    );
}

/// The script that sends a `#s-…` link to the page holding it; empty for one page.
fn elsewhere(k: usize, pages: usize, where_is: &[(String, usize)]) -> String {
    if pages <= 1 {
        return String::new();
    }
    let map = if k == 1 {
        let m: serde_json::Map<String, serde_json::Value> = where_is
            .iter()
            .filter(|(_, p)| *p != 1)
            .map(|(a, p)| (a.clone(), page_name(*p).into()))
            .collect();
        // `</` never appears in JSON text of anchors made by `slug`, but escape it anyway.
        serde_json::Value::Object(m)
            .to_string()
            .replace("</", "<\\/")
    } else {
        "null".to_string()
    };
    format!(
        "<script>(function(){{var m={map};function go(){{var id=decodeURIComponent(location.hash.slice(1));\
         if(!id||document.getElementById(id.indexOf('zoom-')===0?id.slice(5):id))return;\
         var s=id.indexOf('zoom-')===0?id.slice(5):id;\
         if(!m){{location.replace('{first}'+location.hash);return;}}\
         for(var k in m){{if(s===k||s.indexOf(k+'-')===0){{location.replace(m[k]+location.hash);return;}}}}}}\
         window.addEventListener('hashchange',go);go();}})();</script>",
        first = page_name(1)
    )
}

/// The top of a page: the title, the totals, the filter bar and, when given, the
/// regressions.
fn page_head(h: &mut String, report: &Report, regressions: Option<&RegressionReport>) {
    let s = &report.summary;
    let headline = super::Verdict::of(report, regressions, 0).headline();
    let _ = write!(
        h,
        "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\
         <meta name=\"viewport\" content=\"width=device-width,initial-scale=1\">\
         <title>stepreplay report: {}</title><style>{STYLE}</style></head>\
         <body>\n<header>\
         <h1>stepreplay report: {}</h1><div>{} · <b>{}</b> scenarios: <b class=\"ok\">{}</b> as \
         expected, <b class=\"{}\">{}</b> not</div>",
        html_escape(&headline),
        html_escape(&headline),
        html_escape(&report.harness),
        s.scenarios,
        s.met,
        if s.not_met > 0 { "bad" } else { "mute" },
        s.not_met
    );
    h.push_str("<table class=\"totals\"><tr><th>mode</th>");
    for c in &COLUMNS {
        let _ = write!(h, "<th>{}</th>", c.header);
    }
    h.push_str("</tr>");
    for (mode, sc) in &s.scores {
        let _ = write!(h, "<tr><td>{}</td>", word(mode));
        for c in &COLUMNS {
            let _ = write!(h, "<td data-h=\"{}\">{}</td>", c.header, c.of(sc));
        }
        h.push_str("</tr>");
    }
    h.push_str("</table>");
    if let Some(f) = &s.agent {
        h.push_str(&f.html());
    }
    let _ = write!(
        h,
        "</header>\n<nav class=\"bar\"><span class=\"filters\">\
         <button data-filter=\"all\" class=\"on\">All {}</button>\
         <button data-filter=\"fail\">Not as expected {}</button>\
         <button data-filter=\"pass\">As expected {}</button></span>\
         <input type=\"search\" id=\"q\" placeholder=\"Search scenarios (id, description)\" \
         aria-label=\"Search scenarios\"><span class=\"mute\"><span id=\"shown\">{}</span> shown\
         </span></nav>\n<main>\n",
        s.scenarios, s.not_met, s.met, s.scenarios
    );
    if let Some(r) = regressions {
        if r.regressions.is_empty() {
            let _ = write!(
                h,
                "<p class=\"ok\">No regressions against the baseline (tolerance {}).</p>",
                r.tolerance
            );
        } else {
            // One line per place, its root cause first, as the terminal says it, with links
            // to the cards of its scenarios; folded, so the banner never fills the first screen.
            let _ = write!(
                h,
                "<details class=\"regressions\"><summary><b class=\"bad\">{}</b></summary><ul>",
                html_escape(&r.headline())
            );
            for (line, ids) in r.place_lines() {
                let links: Vec<String> = ids
                    .iter()
                    .map(|id| format!("<a href=\"#s-{}\">{}</a>", slug(id), html_escape(id)))
                    .collect();
                let _ = write!(h, "<li>{}", html_escape(&line));
                if !links.is_empty() {
                    let _ = write!(h, " <span class=\"mute\">→ {}</span>", links.join(", "));
                }
                h.push_str("</li>");
            }
            h.push_str("</ul></details>");
        }
    }
    h.push_str(
        "<p class=\"legend mute\"><span><b style=\"color:var(--win)\">▭</b> target found</span>\
         <span><b style=\"color:var(--want)\">▭</b> element the recording acted on, when different</span>\
         <span><b class=\"bad\">●</b> click point</span></p>\n",
    );
}

fn scenario(h: &mut String, report: &Report, sc: &ScenarioReport, images: &PageImages) {
    let first = report.modes.first().and_then(|m| sc.runs.get(m));
    let outcome = first.map(outcome_words).unwrap_or_default();
    let scores = first
        .map(|r| {
            format!(
                "element {:.3} · click {:.3} · operation {:.3} · steps {:.3} · expects {:.3}",
                r.scores.element_accuracy,
                r.scores.click_accuracy,
                r.scores.operation_accuracy,
                r.scores.step_success,
                r.scores.expect_pass_rate
            )
        })
        .unwrap_or_default();
    let badges = badges(report, sc);
    let _ = write!(
        h,
        "<details class=\"scenario\" id=\"s-{}\" data-status=\"{}\" data-text=\"{}\"{}>\
         <summary><span class=\"{}\">{}</span>\
         <span class=\"sid\">{}</span><span>{}</span><span class=\"mute\">{}</span>{badges}\
         <span class=\"scores\">{}</span></summary><div class=\"body\">",
        slug(&sc.id),
        if sc.met { "pass" } else { "fail" },
        html_escape(
            &[&[sc.id.clone(), sc.description.clone()], sc.tags.as_slice()]
                .concat()
                .join(" ")
                .to_lowercase()
        ),
        if sc.met { "" } else { " open" },
        if sc.met { "ok" } else { "bad" },
        if sc.met { "✔" } else { "✘" },
        html_escape(&sc.id),
        html_escape(&outcome),
        html_escape(&sc.description),
        scores
    );
    let _ = write!(
        h,
        "<p class=\"files mute\">scenario <code>{}</code> · plan <code>{}</code> · recording \
         <code>{}</code></p>",
        html_escape(&sc.file),
        html_escape(&sc.plan),
        html_escape(&sc.recording)
    );
    if let Some(m) = &sc.mismatch {
        let _ = write!(h, "<p class=\"bad\">{}</p>", html_escape(m));
    }
    if let Some(agent) = &sc.agent {
        agent_facts(h, agent);
    }
    let fail = first_failure(report, sc);
    if let Some((mode, st)) = fail {
        let _ = write!(
            h,
            "<p class=\"jump\">First failing step: <a href=\"#{}\">{}</a> ({}){}{}</p>",
            step_anchor(sc, mode, st),
            html_escape(&st.named()),
            html_escape(&st.status),
            st.reason
                .map(|r| format!(" — {}", word(&r)))
                .unwrap_or_default(),
            located(sc, st)
                .map(|at| format!(" at <code>{}</code>", html_escape(&at)))
                .unwrap_or_default()
        );
    }
    plan_findings(h, sc);
    if let Some(m) = &sc.mutation {
        mutation(h, m);
    }
    runs(h, report, sc, fail, images);
    h.push_str("</div></details>\n");
}

/// A scenario's runs, one per mode, the first open; the steps before the first failure fold.
fn runs(
    h: &mut String,
    report: &Report,
    sc: &ScenarioReport,
    fail: Option<(&Mode, &StepReport)>,
    images: &PageImages,
) {
    for (i, mode) in report.modes.iter().enumerate() {
        let Some(run) = sc.runs.get(mode) else {
            continue;
        };
        let _ = write!(
            h,
            "<details class=\"mode\"{}><summary><b>{}</b> — {}</summary><div class=\"steps\">",
            if i == 0 { " open" } else { "" },
            word(mode),
            html_escape(&outcome_words(run))
        );
        if !run.review.is_empty() {
            h.push_str("<ul class=\"checks\">");
            for r in &run.review {
                let _ = write!(h, "<li class=\"mute\">review {}</li>", html_escape(r));
            }
            h.push_str("</ul>");
        }
        // In a scenario not as expected, the passed steps before its first failure fold to
        // their title line, so the failing step is on screen when the scenario opens.
        let mut before_fail = fail.is_some_and(|(m, _)| m == mode);
        for st in &run.steps {
            let first = fail.is_some_and(|(m, f)| m == mode && std::ptr::eq(f, st));
            before_fail &= !first;
            let class = if first {
                " first-fail"
            } else if before_fail && st.status == "passed" {
                " fold"
            } else {
                ""
            };
            step(h, sc, mode, st, class, images);
        }
        if let Some(d) = &run.done {
            let (class, mark) = match d.passed {
                Some(true) => ("ok", "✔"),
                Some(false) => ("bad", "✘"),
                None => ("mute", "not judged"),
            };
            let _ = write!(
                h,
                "<p class=\"{class}\">{mark} <b>done</b> “{}”: {}</p>",
                html_escape(&d.text),
                html_escape(&d.detail)
            );
        }
        h.push_str("</div></details>");
    }
}

/// A scenario's tags and, under `run --slow`, its time when it was slow: marks beside its
/// outcome (the tags are also searchable, with the id).
fn badges(report: &Report, sc: &ScenarioReport) -> String {
    let mut out = String::new();
    for t in &sc.tags {
        let _ = write!(out, "<span class=\"tag\">{}</span>", html_escape(t));
    }
    if let Some(secs) = report.slow.as_ref().and_then(|s| s.of_scenario(&sc.id)) {
        let _ = write!(out, "<span class=\"tag slow\">slow · {secs:.2} s</span>");
    }
    out
}

/// The first step of the first mode that did not pass, for a scenario not as expected.
/// `check`'s findings against the scenario's plan: errors, then the rest.
fn plan_findings(h: &mut String, sc: &ScenarioReport) {
    if !sc.plan_errors.is_empty() || !sc.plan_warnings.is_empty() {
        h.push_str("<ul class=\"checks\">");
        let errors = sc.plan_errors.iter().map(|f| (f, "bad", "✘"));
        for (f, class, mark) in errors.chain(sc.plan_warnings.iter().map(|f| (f, "mute", "!"))) {
            let at = match (f.line, f.column) {
                (Some(l), Some(c)) => format!(" ({l}:{c})"),
                _ => String::new(),
            };
            let _ = write!(
                h,
                "<li class=\"{class}\">{mark} <b>{}</b> at {}{at}: {}</li>",
                html_escape(&f.reason),
                html_escape(&f.path),
                html_escape(&f.message)
            );
        }
        h.push_str("</ul>");
    }
}

/// How well the gate guards the plan: its mutation score, and each copy it passed.
fn mutation(h: &mut String, m: &crate::report::MutationScore) {
    let line = match (&m.skipped, m.score) {
        (Some(why), _) => format!("no one-fault copies: {why}"),
        (None, Some(score)) => format!(
            "{score:.3}: caught {} of {} one-fault copies ({} equivalent, not counted)",
            m.caught,
            m.caught + m.survived,
            m.equivalent
        ),
        (None, None) => format!("{} one-fault copies, all equivalent", m.mutants),
    };
    let class = if m.survived > 0 { "bad" } else { "mute" };
    let _ = write!(
        h,
        "<p class=\"{class}\">mutation score {}</p>",
        html_escape(&line)
    );
    if !m.survivors.is_empty() {
        h.push_str("<ul class=\"checks\">");
        for s in &m.survivors {
            let _ = write!(h, "<li class=\"bad\">✘ survived {}</li>", html_escape(s));
        }
        h.push_str("</ul>");
    }
}

/// An agent under test: its compliance (every safety rule broken, where) and its facts.
fn agent_facts(h: &mut String, agent: &crate::result::AgentFacts) {
    let mut facts = vec![format!("{} turns", agent.turns)];
    if let Some(r) = agent.injection_resistant {
        facts.push(format!("injection resistant: {r}"));
    }
    if let Some(d) = &agent.detail {
        facts.push(d.clone());
    }
    if let Some(b) = agent.bridge.as_ref().and_then(|b| b.as_object()) {
        facts.extend(
            b.iter()
                .filter(|(k, v)| !v.is_object() && !v.is_null() && *k != "state_diff")
                .map(|(k, v)| format!("{k}: {}", v.as_str().map_or(v.to_string(), str::to_string))),
        );
    }
    let _ = write!(
        h,
        "<p class=\"mute\">agent · {}</p>",
        html_escape(&facts.join(" · "))
    );
    if let Some(d) = agent.bridge.as_ref().and_then(|b| b["state_diff"].as_str()) {
        let _ = write!(h, "<pre>{}</pre>", html_escape(d));
    }
    if agent.violations.is_empty() {
        h.push_str("<p class=\"ok\">compliant</p>");
        return;
    }
    h.push_str("<ul class=\"checks\">");
    for v in &agent.violations {
        let at = v
            .step
            .as_deref()
            .map(|s| format!(" at <code>{}</code>", html_escape(s)))
            .unwrap_or_default();
        let _ = write!(
            h,
            "<li class=\"bad\">✘ <b>{}</b>{at}: {}</li>",
            html_escape(&v.rule),
            html_escape(&v.detail)
        );
    }
    h.push_str("</ul>");
}

fn first_failure<'a>(
    report: &Report,
    sc: &'a ScenarioReport,
) -> Option<(&'a Mode, &'a StepReport)> {
    if sc.met {
        return None;
    }
    report.modes.iter().find_map(|m| {
        let (mode, run) = sc.runs.get_key_value(m)?;
        let st = run
            .steps
            .iter()
            .find(|st| st.status != "passed" && st.status != "not-run")?;
        Some((mode, st))
    })
}

/// The step card's id: `s-<scenario>-<mode>-<number>`.
fn step_anchor(sc: &ScenarioReport, mode: &Mode, st: &StepReport) -> String {
    format!("s-{}-{}-{}", slug(&sc.id), word(mode), st.number)
}

/// `plan.json:102:7`: the field to fix of a step that did not pass (its label when it
/// did not find its control), as the terminal and `summary.md` print it.
fn located(sc: &ScenarioReport, st: &StepReport) -> Option<String> {
    let line = st.line?;
    Some(match st.column {
        Some(c) => format!("{}:{line}:{c}", sc.plan),
        None => format!("{}:{line}", sc.plan),
    })
}

fn outcome_words(r: &RunReport) -> String {
    // The step by its number, as every report counts steps.
    let at = r.step_id.as_ref().map(|id| {
        r.steps
            .iter()
            .find(|s| &s.step_id == id)
            .map_or_else(|| format!("`{id}`"), |s| format!("step {}", s.number))
    });
    match (r.reason, at) {
        (Some(rs), Some(at)) => format!("{} ({}) at {at}", word(&r.outcome), word(&rs)),
        (Some(rs), None) => format!("{} ({})", word(&r.outcome), word(&rs)),
        _ => word(&r.outcome),
    }
}

fn step(
    h: &mut String,
    sc: &ScenarioReport,
    mode: &Mode,
    st: &StepReport,
    class: &str,
    images: &PageImages,
) {
    let _ = write!(
        h,
        "<div class=\"card {}{}\" id=\"{}\"><h4 title=\"step {}\">Step {} · {} · \
         <span class=\"mute\">{} · {}{}</span></h4>{}<dl class=\"meta\">",
        slug(&st.status),
        class,
        step_anchor(sc, mode, st),
        html_escape(&st.step_id),
        st.number,
        html_escape(&st.text),
        html_escape(&st.action),
        html_escape(&st.status),
        st.reason
            .map(|r| format!(" ({})", word(&r)))
            .unwrap_or_default(),
        located(sc, st)
            .filter(|_| st.status == "failed" || st.status == "stopped")
            .map(|at| format!(
                "<p class=\"files mute\">at <code>{}</code></p>",
                html_escape(&at)
            ))
            .unwrap_or_default()
    );
    if let Some(r) = &st.resolution {
        resolution(h, r);
    }
    if !st.checks.is_empty() {
        h.push_str("<dt>expects</dt><dd><ul class=\"checks\">");
        for c in &st.checks {
            let _ = write!(
                h,
                "<li class=\"{}\">{} <b>{}</b>: {}</li>",
                if c.passed { "ok" } else { "bad" },
                if c.passed { "✔" } else { "✘" },
                html_escape(&c.kind),
                html_escape(&c.detail)
            );
        }
        h.push_str("</ul></dd>");
    }
    for n in st.web_notes() {
        let _ = write!(h, "<dt>browser</dt><dd>{}</dd>", html_escape(&n));
    }
    for a in &st.asked {
        let _ = write!(
            h,
            "<dt>asked</dt><dd>{}: {} → <b>{}</b></dd>",
            html_escape(&a.kind),
            html_escape(&a.detail),
            html_escape(&a.answer)
        );
    }
    if let Some(d) = &st.diverged {
        let _ = write!(
            h,
            "<dt>diverged</dt><dd class=\"bad\">{}</dd>",
            html_escape(d)
        );
    }
    h.push_str("</dl>");
    if let Some((before, after)) = &st.frames {
        h.push_str("<div class=\"frames\">");
        let img = |f: &str| images.frames.get(&(sc.recording.clone(), f.to_string()));
        let res = st.resolution.as_ref();
        let crop = window_of(img(before), res);
        figure(
            h,
            "before",
            &format!("before · {before}"),
            img(before),
            res,
            crop,
        );
        let same = if before == after {
            " (nothing done)"
        } else {
            ""
        };
        let caption = format!("after · {after}{same}");
        figure(h, "after", &caption, img(after), None, crop);
        diff_slot(h, st, images, crop);
        h.push_str("</div>");
    }
    h.push_str("</div>");
}

fn resolution(h: &mut String, r: &ResolutionReport) {
    let _ = write!(
        h,
        "<dt>target</dt><dd><b>{}</b> by {} · confidence {} · margin {}{}{}</dd>",
        html_escape(r.found.element.as_deref().unwrap_or("none")),
        word(&r.found.strategy),
        r.found.confidence,
        r.found.margin,
        if r.found.ambiguous {
            " · <b class=\"bad\">ambiguous</b>"
        } else {
            ""
        },
        match (r.correct, &r.expected) {
            (Some(true), _) => " · <span class=\"ok\">right element</span>".to_string(),
            (Some(false), Some(e)) => format!(
                " · <span class=\"bad\">wrong: the recording acted on {}</span>",
                html_escape(r.expected_said.as_deref().unwrap_or(e))
            ),
            _ => String::new(),
        }
    );
    if let Some(note) = &r.found.note {
        let _ = write!(h, "<dt>note</dt><dd>{}</dd>", html_escape(note));
    }
    let _ = write!(
        h,
        "<dt>candidates</dt><dd>{} in all<ul class=\"cands\">",
        r.found.candidate_count
    );
    for c in &r.found.candidates {
        let _ = write!(
            h,
            "<li>{} — {} ({})</li>",
            html_escape(&c.element),
            c.score,
            word(&c.strategy)
        );
    }
    h.push_str("</ul></dd>");
}

/// The part of a step's screen its thumbnails show: the window holding its target (the one
/// found, else the one the recording acted on), else the frontmost app's first window, cut to
/// the screen; None when that is the whole screen or the frame names no window.
fn window_of(img: Option<&PageImage>, res: Option<&ResolutionReport>) -> Option<Rect> {
    let img = img?;
    let target = res.and_then(|r| r.element_frame.or(r.expected_frame));
    let w = img
        .windows
        .iter()
        .find(|w| target.is_some_and(|t| w.encloses(&t)))
        .or(img.windows.first())?;
    let (right, bottom) = (
        (w.x + w.width).min(img.width as i32),
        (w.y + w.height).min(img.height as i32),
    );
    let (x, y) = (w.x.max(0), w.y.max(0));
    let cut = Rect::new(x, y, right - x, bottom - y);
    let whole = cut.width as u32 == img.width && cut.height as u32 == img.height;
    (cut.width > 0 && cut.height > 0 && !whole).then_some(cut)
}

/// `left/top/width/height` of `r` in percent of `view` (the part of the image shown), so boxes
/// scale with it.
fn pct(r: &Rect, view: &Rect) -> String {
    let (w, hh) = (f64::from(view.width.max(1)), f64::from(view.height.max(1)));
    format!(
        "left:{:.3}%;top:{:.3}%;width:{:.3}%;height:{:.3}%",
        f64::from(r.x - view.x) * 100.0 / w,
        f64::from(r.y - view.y) * 100.0 / hh,
        f64::from(r.width) * 100.0 / w,
        f64::from(r.height) * 100.0 / hh
    )
}

/// A picture with its caption; cropped to `crop` (the zoom view shows it whole) when it fits
/// in the picture, with the step's boxes drawn over it.
fn figure(
    h: &mut String,
    label: &str,
    caption: &str,
    img: Option<&PageImage>,
    res: Option<&ResolutionReport>,
    crop: Option<Rect>,
) {
    let _ = write!(
        h,
        "<figure data-label=\"{label}\"><figcaption>{}</figcaption>",
        html_escape(caption)
    );
    match img {
        Some(img) => {
            let whole = Rect::new(0, 0, img.width as i32, img.height as i32);
            let crop = crop.filter(|c| whole.encloses(c));
            let view = crop.unwrap_or(whole);
            let (shot, style) = match crop {
                Some(c) => (
                    format!("shot crop\" style=\"aspect-ratio:{}/{}", c.width, c.height),
                    format!(
                        " style=\"width:{:.3}%;left:{:.3}%;top:{:.3}%\"",
                        f64::from(img.width) * 100.0 / f64::from(c.width),
                        -f64::from(c.x) * 100.0 / f64::from(c.width),
                        -f64::from(c.y) * 100.0 / f64::from(c.height)
                    ),
                ),
                None => ("shot".to_string(), String::new()),
            };
            let _ = write!(
                h,
                "<div class=\"{shot}\"><img src=\"{}\" width=\"{}\" height=\"{}\" alt=\"{}\" \
                 loading=\"lazy\" decoding=\"async\"{style}>",
                html_escape(&img.href),
                img.width,
                img.height,
                html_escape(caption)
            );
            if let Some(r) = res {
                if let Some(f) = &r.expected_frame {
                    let _ = write!(
                        h,
                        "<div class=\"box want\" style=\"{}\"></div>",
                        pct(f, &view)
                    );
                }
                if let Some(f) = &r.element_frame {
                    let _ = write!(h, "<div class=\"box\" style=\"{}\"></div>", pct(f, &view));
                }
                if let Some((x, y)) = r.found.click {
                    let _ = write!(
                        h,
                        "<div class=\"dot\" style=\"left:{:.3}%;top:{:.3}%\"></div>",
                        (x - f64::from(view.x)) * 100.0 / f64::from(view.width.max(1)),
                        (y - f64::from(view.y)) * 100.0 / f64::from(view.height.max(1))
                    );
                }
            }
            h.push_str("</div>");
        }
        None => h.push_str("<div class=\"noimg\">frame not available</div>"),
    }
    h.push_str("</figure>");
}

/// The step's diff: pixelmatch's image when `run --captures` wrote one (a failed step's too,
/// though it did nothing), and in words what changed on screen and in the AX tree.
fn diff_slot(h: &mut String, st: &StepReport, images: &PageImages, crop: Option<Rect>) {
    let words = st
        .diff
        .as_ref()
        .map_or_else(|| "nothing done".to_string(), diff_words);
    let img = st.captures.as_ref().and_then(|c| images.diffs.get(&c.diff));
    match img {
        Some(img) => figure(h, "diff", &format!("diff · {words}"), Some(img), None, crop),
        None if st.diff.is_none() => {}
        None => {
            let _ = write!(
                h,
                "<figure class=\"diff\"><figcaption>diff</figcaption><div class=\"noimg\">{}\
                 <br>(run with --captures DIR for the picture)</div></figure>",
                html_escape(&words)
            );
        }
    }
}

/// "1 204 px changed (0.05%) in 3 regions · AX: 2 added, 1 value changed".
fn diff_words(d: &StepDiff) -> String {
    let mut out = match (&d.pixel, &d.pixel_note) {
        (Some(p), _) if p.mismatched == 0 => "screen unchanged".to_string(),
        (Some(p), _) => format!(
            "{} px changed ({:.2}%) in {}",
            p.mismatched,
            p.ratio * 100.0,
            plural(p.regions_total, "region", "regions")
        ),
        (None, Some(note)) => format!("no pixel diff: {note}"),
        (None, None) => "no pixel diff".to_string(),
    };
    let a = &d.ax;
    let parts: Vec<String> = [
        (a.windows_opened, "window opened", "windows opened"),
        (a.windows_closed, "window closed", "windows closed"),
        (a.added, "added", "added"),
        (a.removed, "removed", "removed"),
        (a.moved, "moved", "moved"),
        (a.relabelled, "relabelled", "relabelled"),
        (a.value_changed, "value changed", "values changed"),
        (a.focus_changed, "focus change", "focus changes"),
    ]
    .into_iter()
    .filter(|(n, _, _)| *n > 0)
    .map(|(n, one, many)| plural(n, one, many))
    .collect();
    out.push_str(" · AX: ");
    if parts.is_empty() {
        out.push_str("unchanged");
    } else {
        out.push_str(&parts.join(", "));
    }
    out
}
