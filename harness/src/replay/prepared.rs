//! A recording prepared for replays: frame indexes, grey screens, step pictures and diffs
//! built once, on first use, and what the recording says of a plan (its truth per step).

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, OnceLock};

use image::RgbaImage;

use super::trace::Truth;
use crate::diff::StepDiff;
use crate::diff::step::StepDiffs;
use crate::errors::FieldPath;
use crate::plan::{Bounds, Plan};
use crate::png::decode_png;
use crate::recording::Recording;
use crate::resolve::FrameIndex;
use crate::resolve::crop::GrayScreen;
use crate::safe_path::safe_join;
use crate::text::normalize_label;

/// A box cut from a recorded frame: (frame, left, top, right, bottom) in pixels.
type Cut = (usize, u32, u32, u32, u32);

/// A recording prepared for replays: frame indexes, grey screens and crops built once, on
/// first use.
pub struct Prepared<'r> {
    /// The recording.
    pub(crate) rec: &'r Recording,
    indexes: Vec<OnceLock<FrameIndex<'r>>>,
    grays: Vec<OnceLock<Option<GrayScreen>>>,
    crops: Mutex<BTreeMap<PathBuf, Option<Arc<RgbaImage>>>>,
    /// Pictures cut from recorded frames (frame, left, top, right, bottom), as
    /// `get_step_image` gives them.
    cuts: Mutex<BTreeMap<Cut, Option<Arc<RgbaImage>>>>,
    /// Step diffs of this recording; `None` when diffs are off.
    diffs: Option<Arc<StepDiffs>>,
    /// Where reading steps get their text.
    ocr: super::Ocr,
    reads: super::ocr::Reads,
    /// Every window title on any frame, folded: a step naming none of them is a stale guide.
    titles: OnceLock<BTreeSet<String>>,
}

impl<'r> Prepared<'r> {
    /// Wraps a recording.
    pub fn new(rec: &'r Recording) -> Self {
        Prepared {
            rec,
            indexes: (0..rec.frames.len()).map(|_| OnceLock::new()).collect(),
            grays: (0..rec.frames.len()).map(|_| OnceLock::new()).collect(),
            crops: Mutex::new(BTreeMap::new()),
            cuts: Mutex::new(BTreeMap::new()),
            diffs: None,
            ocr: super::Ocr::Dom,
            reads: Default::default(),
            titles: OnceLock::new(),
        }
    }

    /// Turns on the before/after diff of every step that acts, computed through `diffs` (one
    /// per recording, shared by every scenario on it). `run` reports carry them; the
    /// perturbation and approval replays leave them off, as they only judge resolutions.
    pub(crate) fn with_diffs(mut self, diffs: Arc<StepDiffs>) -> Self {
        self.diffs = Some(diffs);
        self
    }

    /// Reads text with `ocr` (the recorded DOM unless Tesseract is asked for).
    pub(crate) fn with_ocr(mut self, ocr: super::Ocr) -> Self {
        self.ocr = ocr;
        self
    }

    /// What a reading step reads on frame `i`, and from where: the text in `region` when the
    /// step gives one, else that of `element`.
    pub(super) fn read(
        &self,
        i: usize,
        element: Option<&str>,
        region: Option<&crate::plan::ReadRegion>,
    ) -> Option<(Result<String, String>, super::ReadSource)> {
        let dom = self.rec.frames[i].dom.as_deref();
        let rect = region.map(|r| super::web::region_box(dom, r));
        match self.ocr {
            super::Ocr::Dom => {
                let dom = dom?;
                let text = match rect {
                    Some(rect) => rect.map(|r| super::web::text_in(dom, r)),
                    None => super::web::read_text(dom, element?)
                        .ok_or_else(|| "not in the DOM".to_string()),
                };
                Some((text, super::ReadSource::DomText))
            }
            super::Ocr::Tesseract => {
                let rect = match rect {
                    Some(rect) => rect,
                    None => Ok(self.frame_index(i).by_id(element?)?.frame),
                };
                let pixels = || self.rec.frames[i].pixels().map_err(|e| e.message);
                Some((
                    rect.and_then(|r| self.reads.read(i, r, pixels)),
                    super::ReadSource::Tesseract,
                ))
            }
        }
    }

    pub(super) fn step_diff(&self, before: usize, after: usize) -> Option<StepDiff> {
        Some(self.diffs.as_ref()?.get(&self.rec.frames, before, after))
    }

    /// Frame `i` in grey, for crop matching (None when its screenshot cannot be read).
    pub(crate) fn gray(&self, i: usize) -> Option<&GrayScreen> {
        self.grays[i]
            .get_or_init(|| {
                self.rec.frames[i]
                    .pixels()
                    .ok()
                    .map(|p| GrayScreen::new(&p))
            })
            .as_ref()
    }

    /// A plan's picture (a control's crop, a skill export's screen), decoded once; None when
    /// it is missing, unsafe or unreadable (the resolver then does without it, as a follower
    /// without the picture would; a screen check says it cannot compare).
    pub(crate) fn picture(&self, base: &Path, rel: &Path) -> Option<Arc<RgbaImage>> {
        let mut crops = crate::par::lock(&self.crops);
        crops
            .entry(base.join(rel))
            .or_insert_with(|| {
                let path = safe_join(base, &rel.to_string_lossy(), base, FieldPath::root()).ok()?;
                decode_png(&path).ok().map(Arc::new)
            })
            .clone()
    }

    /// A step's picture of its control, as [`Prepared::picture`], at twice or half its size
    /// when the screen switched between 1x and 2x since it was cut (its control's box on this
    /// screen is about twice or half the picture): a follower looks for the control at the
    /// size the screen shows it. Real pictures are cut with a margin, down to about 0.6 of
    /// their box's scale, so only a factor past 1.6 or under 0.55 counts as a switch.
    pub(crate) fn picture_for(
        &self,
        base: &Path,
        rel: &Path,
        bounds: Option<&Bounds>,
    ) -> Option<Arc<RgbaImage>> {
        let pic = self.picture(base, rel)?;
        let Some(b) = bounds else { return Some(pic) };
        let (w, h) = self.screen();
        let k = (b.width * f64::from(w) / f64::from(pic.width().max(1))
            + b.height * f64::from(h) / f64::from(pic.height().max(1)))
            / 2.0;
        let (pw, ph, filter) = if k > 1.6 && k.is_finite() {
            let twice = |v: u32| v.saturating_mul(2);
            (
                twice(pic.width()),
                twice(pic.height()),
                image::imageops::FilterType::Nearest,
            )
        } else if k < 0.55 && pic.width() > 1 && pic.height() > 1 {
            (
                pic.width() / 2,
                pic.height() / 2,
                image::imageops::FilterType::Triangle,
            )
        } else {
            return Some(pic);
        };
        Some(Arc::new(image::imageops::resize(&*pic, pw, ph, filter)))
    }

    /// The picture of step `i`'s control an MCP-form plan gets from `get_step_image` with
    /// `region: "target"`: the step's recorded screenshot cut at its `bounds`. None when the
    /// step has no recorded screenshot or the box is empty.
    pub(crate) fn step_image(&self, plan: &Plan, i: usize, b: &Bounds) -> Option<Arc<RgbaImage>> {
        let f = self.step_frame(plan, i)?;
        let (w, h) = self.screen();
        let px = |share: f64, size: u32| {
            let v = (share * f64::from(size))
                .round()
                .clamp(0.0, f64::from(size));
            // Clamped to 0..=size just above, so it fits.
            #[allow(clippy::cast_possible_truncation, clippy::cast_sign_loss)]
            let v = v as u32;
            v
        };
        let (x0, y0) = (px(b.x, w), px(b.y, h));
        let (x1, y1) = (px(b.x + b.width, w), px(b.y + b.height, h));
        if x1 <= x0 || y1 <= y0 {
            return None;
        }
        let mut cuts = crate::par::lock(&self.cuts);
        cuts.entry((f, x0, y0, x1, y1))
            .or_insert_with(|| {
                let pixels = self.rec.frames[f].pixels().ok()?;
                let (pw, ph) = pixels.dimensions();
                let (x1, y1) = (x1.min(pw), y1.min(ph));
                (x1 > x0 && y1 > y0).then(|| {
                    Arc::new(
                        image::imageops::crop_imm(&*pixels, x0, y0, x1 - x0, y1 - y0).to_image(),
                    )
                })
            })
            .clone()
    }

    /// Whether the window `title` shows on some frame of the recording: as written, with a
    /// suffix after a break (a retitled document, "Report — Edited"), or with other values where
    /// `wild` (each-time inputs' examples) stand in it.
    pub(super) fn shows_window(&self, title: &str, wild: &[String]) -> bool {
        let titles = self.titles.get_or_init(|| {
            self.rec
                .frames
                .iter()
                .flat_map(|f| f.ax.apps.iter())
                .flat_map(|a| a.windows.iter())
                .map(|w| normalize_label(&w.title))
                .collect()
        });
        let want = normalize_label(title);
        titles.iter().any(|t| title_fits(&want, t, wild))
    }

    /// The index of frame `i`.
    pub(crate) fn frame_index(&self, i: usize) -> &FrameIndex<'r> {
        self.indexes[i].get_or_init(|| {
            let f = &self.rec.frames[i];
            FrameIndex::new(&f.ax).with_dom(f.dom.as_deref())
        })
    }

    pub(super) fn screen(&self) -> (u32, u32) {
        (self.rec.file.screen.width, self.rec.file.screen.height)
    }

    /// The recorded transition for a step.
    pub(super) fn transition(&self, step_id: &str) -> Option<&'r crate::recording::Transition> {
        self.rec
            .file
            .transitions
            .iter()
            .find(|t| t.step_id.as_deref() == Some(step_id))
    }

    /// The frame a step was recorded on (its screenshot); `None` when the recording has no
    /// transition for a step that acts. A step that only talks (an `ask`, a `do` without a
    /// target) acts on nothing, so it sits on the screen the step before it led to (the first
    /// screen, before step 1). Nothing else falls back to another frame: a step replayed on a
    /// screen it was not recorded on would be judged against the wrong truth.
    pub(super) fn step_frame(&self, plan: &Plan, i: usize) -> Option<usize> {
        if let Some(t) = self.transition(&plan.steps[i].id) {
            return self.rec.frame_index(&t.from);
        }
        if !plan.steps[i].talks_only() {
            return None;
        }
        let Some(j) = i.checked_sub(1) else {
            return Some(0);
        };
        match self.transition(&plan.steps[j].id) {
            Some(t) => self.rec.frame_index(&t.to),
            None => self.step_frame(plan, j),
        }
    }

    /// The recorded frame of the finished screen `done.step_id` names: what that plan step
    /// led to, or a capture bound to the id (`frames[].step_id`).
    pub(super) fn done_frame(&self, id: &str) -> Option<&'r str> {
        if let Some(t) = self.transition(id) {
            return Some(&t.to);
        }
        let f = self
            .rec
            .file
            .frames
            .iter()
            .find(|f| f.step_id.as_deref() == Some(id))?;
        Some(&f.id)
    }

    /// What the recording says about each plan step's target.
    pub(crate) fn truth(&self, plan: &Plan) -> Vec<Truth> {
        plan.steps
            .iter()
            .enumerate()
            .map(|(i, st)| match (&st.target, self.transition(&st.id)) {
                // A retry is rightly not acted: there is nothing to find.
                _ if plan.retry_key(i).is_some() => Truth::NoTarget,
                (None, _) => Truth::NoTarget,
                (Some(_), Some(t)) if t.element.is_some() => Truth::Recorded,
                // A wait acts on nothing, so a recording names no element for it: finding its
                // control on screen is the step's own verdict, not an element to compare.
                (Some(_), _) if st.waits() => Truth::NoTarget,
                (Some(_), _) => Truth::Unrecorded,
            })
            .collect()
    }

    /// For each step, whether what it does can be judged: it acts and was recorded.
    pub(crate) fn operations(&self, plan: &Plan) -> Vec<bool> {
        plan.steps
            .iter()
            .map(|st| !st.talks_only() && self.transition(&st.id).is_some())
            .enumerate()
            .map(|(i, judged)| judged && plan.retry_key(i).is_none())
            .collect()
    }
}

/// Whether the recorded title `have` is the plan's `want`: equal, retitled (`want` then a
/// break and more), or equal but for other text where each-time values `wild` stand.
fn title_fits(want: &str, have: &str, wild: &[String]) -> bool {
    let retitled = have
        .strip_prefix(want)
        .is_some_and(|rest| rest.is_empty() || rest.starts_with(|c: char| !c.is_alphanumeric()));
    if retitled {
        return true;
    }
    let mut pieces = vec![want.to_string()];
    for v in wild
        .iter()
        .map(|v| normalize_label(v))
        .filter(|v| !v.is_empty())
    {
        pieces = pieces
            .iter()
            .flat_map(|p| p.split(v.as_str()).map(str::to_string).collect::<Vec<_>>())
            .collect();
    }
    let pieces: Vec<&str> = pieces.iter().map(String::as_str).collect();
    pieces.len() > 1 && fits_around(&pieces, have)
}

/// Whether `have` is `pieces` in order with some text (at least a character) between each two.
fn fits_around(pieces: &[&str], have: &str) -> bool {
    match pieces {
        [] => have.is_empty(),
        [only] => have == *only,
        [first, rest @ ..] => have.strip_prefix(first).is_some_and(|left| {
            left.char_indices()
                .skip(1)
                .map(|(k, _)| k)
                .chain([left.len()].into_iter().filter(|_| !left.is_empty()))
                .any(|k| fits_around(rest, &left[k..]))
        }),
    }
}

#[cfg(test)]
mod title_tests {
    use super::title_fits;

    #[test]
    fn a_window_fits_as_written_retitled_or_with_another_each_time_value() {
        let wild = ["Ada".to_string()];
        assert!(title_fits("add contact", "add contact", &[]));
        assert!(title_fits("add contact", "add contact — edited", &[]));
        assert!(!title_fits("add contact", "add contacts", &[]));
        assert!(!title_fits("add contcat", "add contact", &[]));
        assert!(title_fits("chat with ada", "chat with grace", &wild));
        assert!(title_fits("ada's notes", "grace's notes", &wild));
        assert!(!title_fits("chat with ada", "chat with ", &wild));
        assert!(!title_fits("chat with ada", "talk with grace", &wild));
        assert!(!title_fits("chat with ada", "chat with grace", &[]));
    }
}
