//! The search ([`locate`]): near the expected place first, then the whole screen, each pass
//! coarse-to-fine.
//!
//! A pass scores a downscaled crop (four phases of it, see `Coarse`) against a downscaled
//! screen (`pyramid`) with approximate `f32` scores (`coarse`), and keeps the coarse local
//! maxima above `floor − coarse_slack` that trail the best one by at most `COARSE_MARGIN`.
//! Each of those is then scored exactly at half resolution over the box of places it may
//! stand for (`climb_half`); those within `HALF_MARGIN` of the best half-resolution score
//! climb the full-resolution score to its local maximum. The final scores are always exact
//! full-resolution NCC (`ncc`); the coarser levels only decide where to look.
//!
//! The factor is 8 for crops at least 40 pixels on each side (HiDPI controls), 4 from 20
//! pixels and 2 from 8 pixels; when the coarsest level leaves more than `max_candidates`
//! candidates (a crop with little structure matches almost anywhere when downscaled), the
//! next finer one is used. Smaller crops, and crops that turn flat when downscaled, are
//! scored densely at full resolution, which is cheap at that size.

use image::RgbaImage;

use super::coarse::{CoarseScreen, CoarseTemplate, coarse_map};
use super::exact::exact_copies;
use super::gray::{GrayScreen, Plane};
use super::ncc::{Template, score_map};
use super::peaks::{Choice, Nearest, Peak, Taken, choose, local_maxima};
use super::pyramid::downscale;

/// One lookup: which crop, on which screen, expected where.
#[derive(Debug, Clone, Copy)]
pub struct CropQuery<'a> {
    /// The screen to search, prepared once per frame.
    pub screen: &'a GrayScreen,
    /// The recorded crop of the control (alpha is ignored).
    pub crop: &'a RgbaImage,
    /// Where the crop's top-left corner is expected, in screen pixels (for instance its
    /// recorded place scaled to this screen). `None` searches the whole screen directly.
    pub expected: Option<(u32, u32)>,
}

/// Search settings.
#[derive(Debug, Clone, PartialEq)]
pub struct CropOptions {
    /// Lowest score accepted as a match. A control that changed colour or content falls below
    /// it. Default `0.9`.
    pub(crate) floor: f64,
    /// Scores within this of the best are a tie, settled by distance to the expected place.
    /// Default `0.002`.
    pub(crate) hair: f64,
    /// Half-size of the near window around the expected place, as a fraction of the screen's
    /// width and height. Default `0.1` (±10% each way).
    pub(crate) near: f64,
    /// How far below the floor a coarse (or half-resolution) score may be and still be
    /// refined. Downscaling blurs a match, so it scores a little lower there. Default `0.3`.
    pub(crate) coarse_slack: f64,
    /// Most coarse candidates a level may leave: a level with more moves the pass to the
    /// next finer level, and the finest climbs its best this many. (The pass only runs when
    /// the crop has no exact copy, so a copy cannot be among the rest.) Default `1024`.
    pub(crate) max_candidates: usize,
}

impl Default for CropOptions {
    fn default() -> Self {
        CropOptions {
            floor: 0.9,
            hair: 0.002,
            near: 0.1,
            coarse_slack: 0.3,
            max_candidates: 1024,
        }
    }
}

/// Which pass found the match.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Searched {
    /// The window around the expected place.
    Near,
    /// The whole screen, after the near pass found nothing above the floor (or without an
    /// expected place).
    FullScreen,
}

/// Where the crop was found.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct CropMatch {
    /// Left edge of the match, in screen pixels.
    pub x: u32,
    /// Top edge of the match, in screen pixels.
    pub y: u32,
    /// Normalized cross-correlation at that place, `-1..=1` (`TM_CCOEFF_NORMED`).
    pub score: f64,
    /// Which pass found it.
    pub searched: Searched,
    /// Best score of another distinct peak (one offset by more than half the crop) among the
    /// places this pass climbed at full resolution, or `None` if no other candidate survived
    /// the coarse and half-resolution checks.
    /// Close to `score`, it means the crop is ambiguous (identical copies of a control) and
    /// the expected place decided.
    pub(crate) runner_up: Option<f64>,
}

/// Finds `q.crop` on `q.screen`, or `None` when nothing scores at least `opts.floor`, the crop
/// is empty, or it is larger than the screen.
pub fn locate(q: &CropQuery, opts: &CropOptions) -> Option<CropMatch> {
    let screen = &q.screen.plane;
    let crop = Plane::from_rgba(q.crop);
    let (w, h) = (crop.width, crop.height);
    if w == 0 || h == 0 || w > screen.width || h > screen.height {
        return None;
    }
    let prepared = Prepared::new(crop);
    let all = Region {
        x0: 0,
        y0: 0,
        x1: screen.width - w,
        y1: screen.height - h,
    };
    let expected = q
        .expected
        .map(|(x, y)| ((x as usize).min(all.x1), (y as usize).min(all.y1)));
    let found = |c: Choice, searched| CropMatch {
        x: c.best.x as u32,
        y: c.best.y as u32,
        score: c.best.score,
        searched,
        runner_up: c.runner_up,
    };
    if let Some((ex, ey)) = expected {
        let dx = (screen.width as f64 * opts.near).round() as usize;
        let dy = (screen.height as f64 * opts.near).round() as usize;
        let near = Region {
            x0: ex.saturating_sub(dx),
            y0: ey.saturating_sub(dy),
            x1: (ex + dx).min(all.x1),
            y1: (ey + dy).min(all.y1),
        };
        let choice = search(q.screen, &prepared, near, false, expected, opts);
        if let Some(c) = choice.filter(|c| c.best.score >= opts.floor) {
            return Some(found(c, Searched::Near));
        }
        if near == all {
            return None;
        }
    }
    let choice = search(q.screen, &prepared, all, true, expected, opts)?;
    (choice.best.score >= opts.floor).then(|| found(choice, Searched::FullScreen))
}

/// Inclusive range of top-left positions to search.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct Region {
    pub(super) x0: usize,
    pub(super) y0: usize,
    pub(super) x1: usize,
    pub(super) y1: usize,
}

/// The crop at full resolution and, when it is big enough and first needed, downscaled for
/// the coarse pass and the half-resolution check: most crops have an exact copy on screen,
/// and their search never gets that far.
struct Prepared {
    full: Template,
    levels: std::cell::OnceCell<Levels>,
}

struct Levels {
    /// Usable downscalings for the coarse pass, coarsest first.
    coarse: Vec<Coarse>,
    /// The crop downscaled by 2 at its four phases (exact templates), for checking coarse
    /// candidates at half resolution before climbing at full resolution; `None` when the crop
    /// is too small or turns flat.
    half: Option<Vec<(usize, usize, Template)>>,
}

/// The crop downscaled by `s`, once per phase: a match can start anywhere inside a screen
/// block, and the copy downscaled from the same offset lines up with the screen's blocks, so
/// some phase always sees the match within `s / 4` pixels (exactly for `s = 2`).
struct Coarse {
    s: usize,
    phases: Vec<(usize, usize, CoarseTemplate)>,
}

/// Phase offsets of a factor: `s / 2` apart, four phases per factor.
fn phase_step(s: usize) -> usize {
    (s / 2).max(1)
}

/// The crop downscaled by `s` from each phase offset.
fn phases(full: &Plane, s: usize) -> Vec<(usize, usize, Plane)> {
    let (w, h) = (full.width, full.height);
    let offsets = (0..s).step_by(phase_step(s));
    offsets
        .clone()
        .flat_map(|py| offsets.clone().map(move |px| (px, py)))
        .map(|(px, py)| (px, py, downscale(full, px, py, w - px, h - py, s)))
        .collect()
}

/// A downscaled crop is usable when it keeps some size and some structure.
fn usable(p: &Plane) -> bool {
    p.width >= 3 && p.height >= 3 && p.data.iter().any(|&v| v != p.data[0])
}

impl Prepared {
    fn new(crop: Plane) -> Prepared {
        Prepared {
            full: Template::new(crop),
            levels: std::cell::OnceCell::new(),
        }
    }

    fn coarse(&self) -> &[Coarse] {
        &self.levels().coarse
    }

    fn half(&self) -> Option<&[(usize, usize, Template)]> {
        self.levels().half.as_deref()
    }

    fn levels(&self) -> &Levels {
        self.levels.get_or_init(|| Levels::new(&self.full))
    }
}

impl Levels {
    fn new(full: &Template) -> Levels {
        let (w, h) = (full.width(), full.height());
        let coarse = [(8, 40), (4, 20), (2, 8)]
            .into_iter()
            .filter(|&(_, min_side)| w.min(h) >= min_side)
            .map(|(s, _)| (s, phases(&full.plane, s)))
            .filter(|(_, ph)| ph.iter().all(|(_, _, p)| usable(p)))
            .map(|(s, ph)| Coarse {
                s,
                phases: ph
                    .iter()
                    .map(|(px, py, p)| (*px, *py, CoarseTemplate::new(p)))
                    .collect(),
            })
            .collect();
        let half = (w.min(h) >= 8)
            .then(|| phases(&full.plane, 2))
            .filter(|ph| ph.iter().all(|(_, _, p)| usable(p)))
            .map(|ph| {
                ph.into_iter()
                    .map(|(px, py, p)| (px, py, Template::new(p)))
                    .collect()
            });
        Levels { coarse, half }
    }
}

/// Coarse candidates scoring more than this below the best coarse score are dropped: a place
/// that matches at full resolution matches about as well when both sides are blurred, so it
/// cannot trail the best coarse peak by much.
const COARSE_MARGIN: f64 = 0.2;

/// The same at half resolution, where scores are sharper.
const HALF_MARGIN: f64 = 0.1;

/// One pass over `region`; `whole_screen` lets it use the screen's cached coarse copy.
fn search(
    screen: &GrayScreen,
    crop: &Prepared,
    region: Region,
    whole_screen: bool,
    expected: Option<(usize, usize)>,
    opts: &CropOptions,
) -> Option<Choice> {
    let plane = &screen.plane;
    let t = &crop.full;
    let (w, h) = (t.width(), t.height());
    let (nx, ny) = (region.x1 - region.x0 + 1, region.y1 - region.y0 + 1);
    let cut = opts.floor - opts.coarse_slack;
    let dense = || {
        let map = score_map(plane, t, region.x0, region.y0, nx, ny);
        let peaks = local_maxima(&map, nx, ny, cut, opts.max_candidates);
        let shift = |p: Peak| Peak {
            x: p.x + region.x0,
            y: p.y + region.y0,
            ..p
        };
        peaks.into_iter().map(shift).collect::<Vec<_>>()
    };
    // An exact copy scores 1, the most there is: when the screen still shows one, nothing
    // needs scoring, and the scan's cost does not depend on how many look-alikes there are.
    // A flat crop scores 1 on its copies and 0 elsewhere (see `ncc`), so it is done here too.
    let mut copies = Nearest::new(expected);
    let rarity = screen.rarity();
    exact_copies(plane, rarity, &t.plane, region, |xs, y| {
        copies.add_run(xs, y)
    });
    if let Some(mut c) = copies.choice(w, h) {
        c.best.score = t.copy_score();
        c.runner_up = c.runner_up.map(|_| c.best.score);
        return Some(c);
    }
    if t.is_flat() {
        return None;
    }
    // The coarsest level that leaves few enough candidates: a crop with little structure
    // downscales to a template that matches almost anywhere, and a finer level (more pixels
    // in the template) tells the places apart again.
    let mut picked = None;
    for (i, coarse) in crop.coarse().iter().enumerate() {
        let finer = i + 1 < crop.coarse().len();
        // Counting one past the cap is enough to tell a level has too many.
        let cap = opts.max_candidates;
        let Some(starts) = coarse_starts(screen, crop, coarse, region, whole_screen, cut, cap)
        else {
            return choose(dense(), w, h, expected, opts.hair);
        };
        if starts.len() > opts.max_candidates && finer {
            continue;
        }
        picked = Some((coarse.s, starts));
        break;
    }
    let Some((s, mut starts)) = picked else {
        return choose(dense(), w, h, expected, opts.hair);
    };
    // No copy is on screen (the scan above), so the best look-alike is all there is to find,
    // and the best coarse candidates are where it stands: the rest are not climbed.
    let mut climb = Climb::new(plane, crop, region, s, cut);
    starts.truncate(opts.max_candidates);
    climb.all(starts);
    choose(climb.peaks, w, h, expected, opts.hair)
}

/// Climbing coarse candidates to full-resolution peaks, remembering where climbs went.
struct Climb<'a> {
    plane: &'a Plane,
    crop: &'a Prepared,
    region: Region,
    s: usize,
    cut: f64,
    /// Box half-size of the first full-resolution climb step.
    radius: usize,
    /// Where climbs started and ended: a candidate next to one of them would climb the same.
    taken: Taken,
    peaks: Vec<Peak>,
}

impl<'a> Climb<'a> {
    fn new(plane: &'a Plane, crop: &'a Prepared, region: Region, s: usize, cut: f64) -> Self {
        // After the half-resolution check a candidate is known to the pixel; without it, to
        // within a phase step.
        let radius = if s > 2 && crop.half().is_some() {
            1
        } else {
            phase_step(s)
        };
        Climb {
            plane,
            crop,
            region,
            s,
            cut,
            radius,
            taken: Taken::new(radius),
            peaks: Vec::new(),
        }
    }

    /// Checks `starts` (best first) and climbs those that stay in the running.
    fn all(&mut self, mut starts: Vec<Peak>) {
        // A coarse candidate is only known to within `step` pixels; at half resolution every
        // place of that box is scored exactly aligned (one phase per parity), which is four
        // times cheaper than full resolution and sharp enough to drop most of the candidates.
        if let (true, Some(half)) = (self.s > 2, self.crop.half()) {
            let step = phase_step(self.s);
            starts = starts
                .into_iter()
                .map(|c| climb_half(self.plane, half, self.region, (c.x, c.y), step).unwrap_or(c))
                .collect();
            best_first(&mut starts);
            let best = starts.first().map_or(self.cut, |c| c.score);
            let half_cut = self.cut.max(best - HALF_MARGIN);
            starts.retain(|c| c.score >= half_cut);
        }
        for c in starts {
            if self.taken.near(c.x, c.y) {
                continue;
            }
            let t = &self.crop.full;
            let p = refine(
                self.plane,
                t,
                self.region,
                (c.x, c.y),
                self.radius,
                self.cut,
            );
            self.taken.add(c.x, c.y);
            self.taken.add(p.x, p.y);
            self.peaks.push(p);
        }
    }
}

/// The coarse pass at one level: the local maxima of every phase's map that come within
/// `COARSE_MARGIN` of the best one (and above `cut`), as full-resolution places, best first,
/// near-duplicates merged; at most `cap + 1` of them (one more says "too
/// many"). `None` when the downscaled screen is smaller than the downscaled crop.
fn coarse_starts(
    screen: &GrayScreen,
    crop: &Prepared,
    coarse: &Coarse,
    region: Region,
    whole_screen: bool,
    cut: f64,
    cap: usize,
) -> Option<Vec<Peak>> {
    let plane = &screen.plane;
    let (w, h) = (crop.full.width(), crop.full.height());
    let (nx, ny) = (region.x1 - region.x0 + 1, region.y1 - region.y0 + 1);
    let s = coarse.s;
    let local;
    let (screen_coarse, ox, oy) = if whole_screen {
        (screen.coarse(s), 0, 0)
    } else {
        local = downscale(plane, region.x0, region.y0, nx + w - 1, ny + h - 1, s);
        (&local, region.x0, region.y0)
    };
    let mut candidates = Vec::new();
    if coarse
        .phases
        .iter()
        .any(|(_, _, ct)| screen_coarse.width < ct.width() || screen_coarse.height < ct.height())
    {
        return None;
    }
    let prepared = CoarseScreen::new(screen_coarse);
    for (px, py, ct) in &coarse.phases {
        let cnx = prepared.width() - ct.width() + 1;
        let cny = prepared.height() - ct.height() + 1;
        let map = coarse_map(&prepared, ct);
        for c in local_maxima(&map, cnx, cny, cut, usize::MAX) {
            // Phase (px, py) lines up when the crop starts px, py before a block.
            let x = (ox + s * c.x).saturating_sub(*px);
            let y = (oy + s * c.y).saturating_sub(*py);
            candidates.push(Peak {
                x,
                y,
                score: c.score,
            });
        }
    }
    best_first(&mut candidates);
    let coarse_cut = cut.max(candidates.first().map_or(cut, |c| c.score) - COARSE_MARGIN);
    // Phase offsets are `step` apart, so the candidates one place produces in the different
    // phase maps start within `step` of each other. With a half-resolution check to follow,
    // only candidates within half the step are merged: a misaligned phase may outscore the
    // aligned one a few pixels away, and the aligned one must still get its own box. Without
    // it, the climb's first box covers all the phases of a place.
    let step = phase_step(s);
    let merge = if s > 2 && crop.half().is_some() {
        step / 2
    } else {
        step
    };
    let mut starts: Vec<Peak> = Vec::new();
    let mut taken = Taken::new(merge);
    for c in candidates.into_iter().take_while(|c| c.score >= coarse_cut) {
        if starts.len() > cap {
            break;
        }
        if !taken.near(c.x, c.y) {
            taken.add(c.x, c.y);
            starts.push(c);
        }
    }
    Some(starts)
}

/// Sorts best score first, ties in raster order.
fn best_first(peaks: &mut [Peak]) {
    peaks.sort_by(|a, b| {
        b.score
            .total_cmp(&a.score)
            .then((a.y, a.x).cmp(&(b.y, b.x)))
    });
}

/// Climbs the half-resolution score from a coarse candidate: the best phase of a place is
/// within `step / 2` of it, so the box of ±(`step / 2 + 1`) usually holds the best place;
/// when the best is on the box's edge (the blur moved the coarse peak), boxes of ±2 around
/// it follow until the best is inside one.
fn climb_half(
    plane: &Plane,
    half: &[(usize, usize, Template)],
    region: Region,
    start: (usize, usize),
    step: usize,
) -> Option<Peak> {
    let mut r = step / 2 + 1;
    let mut at = start;
    let mut best = check_half(plane, half, region, at, r)?;
    for _ in 0..8 {
        let on_edge =
            |v: usize, c: usize, lo: usize, hi: usize| v.abs_diff(c) >= r && v > lo && v < hi;
        if !on_edge(best.x, at.0, region.x0, region.x1)
            && !on_edge(best.y, at.1, region.y0, region.y1)
        {
            break;
        }
        (at, r) = ((best.x, best.y), 2);
        match check_half(plane, half, region, at, r) {
            Some(next) if next.score > best.score => best = next,
            _ => break,
        }
    }
    Some(best)
}

/// The best half-resolution score over the places within `r` of `start` (inside `region`),
/// with the full-resolution place it stands for, or `None` when none of them fits.
///
/// Full-resolution place `X` lines up with the phase `X mod 2` copy of the crop at half
/// resolution pixel `(X + X mod 2) / 2`, so each place is scored by exactly one phase. The
/// screen is downscaled around the box only, from an even corner so its blocks are the
/// screen's.
fn check_half(
    plane: &Plane,
    half: &[(usize, usize, Template)],
    region: Region,
    start: (usize, usize),
    r: usize,
) -> Option<Peak> {
    // A coarse candidate may stand just outside the region (a phase's offset, or the coarse
    // grid past the window's edge); its box starts at the nearest place inside.
    let start = (
        start.0.clamp(region.x0, region.x1),
        start.1.clamp(region.y0, region.y1),
    );
    let bx0 = start.0.saturating_sub(r).max(region.x0);
    let by0 = start.1.saturating_sub(r).max(region.y0);
    let bx1 = (start.0 + r).min(region.x1);
    let by1 = (start.1 + r).min(region.y1);
    if bx0 > bx1 || by0 > by1 {
        return None;
    }
    let (ax, ay) = (bx0 & !1, by0 & !1);
    let max_w = half.iter().map(|(_, _, t)| t.width()).max()?;
    let max_h = half.iter().map(|(_, _, t)| t.height()).max()?;
    let pw = (2 * (bx1.div_ceil(2) - ax / 2 + max_w + 1)).min(plane.width - ax);
    let ph = (2 * (by1.div_ceil(2) - ay / 2 + max_h + 1)).min(plane.height - ay);
    let patch = downscale(plane, ax, ay, pw, ph, 2);
    let mut best: Option<Peak> = None;
    for (px, py, t2) in half {
        // First place of the box with this parity, and how many there are.
        let fx = bx0 + (bx0 + px) % 2;
        let fy = by0 + (by0 + py) % 2;
        if fx > bx1 || fy > by1 {
            continue;
        }
        let (cx0, cy0) = ((fx + px) / 2 - ax / 2, (fy + py) / 2 - ay / 2);
        let ncx = ((bx1 - fx) / 2 + 1).min((patch.width + 1).saturating_sub(cx0 + t2.width()));
        let ncy = ((by1 - fy) / 2 + 1).min((patch.height + 1).saturating_sub(cy0 + t2.height()));
        if ncx == 0 || ncy == 0 {
            continue;
        }
        let map = score_map(&patch, t2, cx0, cy0, ncx, ncy);
        for (i, &score) in map.iter().enumerate() {
            let (x, y) = (fx + 2 * (i % ncx), fy + 2 * (i / ncx));
            let better = best.is_none_or(|b| {
                score
                    .total_cmp(&b.score)
                    .then((b.y, b.x).cmp(&(y, x)))
                    .is_gt()
            });
            if better {
                best = Some(Peak { x, y, score });
            }
        }
    }
    best
}

/// Climbs the full-resolution score from `start`: scores the box of ±`first` pixels around
/// it, then 3×3 boxes around the best so far until that best is inside its box (a local
/// maximum). A candidate whose first box stays under `cut` is given up at once.
fn refine(
    plane: &Plane,
    t: &Template,
    region: Region,
    start: (usize, usize),
    first: usize,
    cut: f64,
) -> Peak {
    let (mut x, mut y) = (
        start.0.clamp(region.x0, region.x1),
        start.1.clamp(region.y0, region.y1),
    );
    let mut best = Peak {
        x,
        y,
        score: f64::NEG_INFINITY,
    };
    let mut radius = first;
    for _ in 0..16 {
        let (bx0, by0) = (
            x.saturating_sub(radius).max(region.x0),
            y.saturating_sub(radius).max(region.y0),
        );
        let (bx1, by1) = ((x + radius).min(region.x1), (y + radius).min(region.y1));
        let (nx, ny) = (bx1 - bx0 + 1, by1 - by0 + 1);
        let map = score_map(plane, t, bx0, by0, nx, ny);
        let (i, &score) = map
            .iter()
            .enumerate()
            .max_by(|a, b| a.1.total_cmp(b.1).then(b.0.cmp(&a.0)))
            .expect("a refine box holds at least one position");
        if score <= best.score {
            break;
        }
        best = Peak {
            x: bx0 + i % nx,
            y: by0 + i / nx,
            score,
        };
        let inside = best.x.abs_diff(x) < radius && best.y.abs_diff(y) < radius;
        if score < cut || inside {
            break;
        }
        (x, y, radius) = (best.x, best.y, 1);
    }
    best
}
