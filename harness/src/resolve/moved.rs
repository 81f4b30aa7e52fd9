//! How far the step's window moved since the plan was made, told only by what a follower
//! holding the plan can see: the step's picture on the screen now, else the plan's other named
//! controls in the same window. The recording's own frames are truth no follower has, so they
//! play no part; when neither tells, the plan's place is taken as recorded, and the note says
//! so.

use super::crop::{CropOptions, CropQuery, locate};
use super::index::FrameIndex;
use super::target::{AMBIGUITY_MARGIN, ResolveContext, app_matches, role_matches, window_matches};
use crate::plan::Target;
use crate::text::normalize_label;

/// How far the step's window moved, in pixels, and what told it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Moved {
    /// The step's picture, found on the screen.
    Picture(i32, i32),
    /// The median over this many of the plan's named controls found in the step's window.
    Anchors(i32, i32, usize),
    /// Nothing on the screen tells.
    Unknown,
}

impl Moved {
    /// The move, (0, 0) when unknown.
    pub(super) fn offset(self) -> (i32, i32) {
        match self {
            Moved::Picture(dx, dy) | Moved::Anchors(dx, dy, _) => (dx, dy),
            Moved::Unknown => (0, 0),
        }
    }

    /// How the plan's point was placed, for the resolution's note: a report must not pass a
    /// guess off as a finding.
    pub(super) fn describe(self) -> String {
        let by = match self {
            Moved::Unknown => {
                return "point taken as recorded: nothing on screen tells where the window was"
                    .into();
            }
            Moved::Picture(..) => "its picture".to_string(),
            Moved::Anchors(_, _, 1) => "1 control of the plan in the same window".to_string(),
            Moved::Anchors(_, _, n) => format!("{n} controls of the plan in the same window"),
        };
        match self.offset() {
            (0, 0) => format!("the window has not moved, told by {by}"),
            (dx, dy) => format!("the window moved by ({dx},{dy}), told by {by}"),
        }
    }
}

/// How far `t`'s window moved: by its picture first (it shows the control itself), else by
/// the plan's anchors.
pub(super) fn displacement(t: &Target, ix: &FrameIndex, ctx: &ResolveContext) -> Moved {
    match by_picture(t, ix, ctx) {
        Some((dx, dy)) => Moved::Picture(dx, dy),
        None => displacement_by_anchors(t, ix, ctx),
    }
}

/// How far `t`'s window moved by the plan's anchors alone: for a position that must stay
/// evidence apart from the picture (a tie-break weighs both, and a move told by the picture
/// would always put the point on the picture's control).
pub(super) fn displacement_by_anchors(t: &Target, ix: &FrameIndex, ctx: &ResolveContext) -> Moved {
    by_anchors(t, ix, ctx).map_or(Moved::Unknown, |(dx, dy, n)| Moved::Anchors(dx, dy, n))
}

/// Where the plan says the control is, in pixels: its bounds' centre (what a picture of it
/// is cut around), else its point.
fn plan_centre(t: &Target, screen: (u32, u32)) -> Option<(f64, f64)> {
    let (x, y) = match (t.bounds, t.point) {
        (Some(b), _) => (b.x + b.width / 2.0, b.y + b.height / 2.0),
        (None, Some(p)) => (p.x, p.y),
        (None, None) => return None,
    };
    Some((x * screen.0 as f64, y * screen.1 as f64))
}

/// The picture's centre on the screen now minus the plan's place. Not when the picture
/// matches several places about equally (identical icons: the nearest copy says nothing about
/// where the window went), nor when the match is outside every window of the step's app.
fn by_picture(t: &Target, ix: &FrameIndex, ctx: &ResolveContext) -> Option<(i32, i32)> {
    let (screen, crop) = ctx.crop?;
    let (px, py) = plan_centre(t, ctx.screen)?;
    let (cw, ch) = (crop.width() as f64, crop.height() as f64);
    let q = CropQuery {
        screen,
        crop,
        expected: Some((
            (px - cw / 2.0).max(0.0) as u32,
            (py - ch / 2.0).max(0.0) as u32,
        )),
    };
    let m = locate(&q, &CropOptions::default())?;
    if m.runner_up.is_some_and(|r| m.score - r < AMBIGUITY_MARGIN) {
        return None;
    }
    let (mx, my) = (m.x as f64 + cw / 2.0, m.y as f64 + ch / 2.0);
    let in_app = ix
        .windows
        .iter()
        .any(|w| app_matches(t, w) && w.frame.contains(mx, my));
    in_app.then(|| ((mx - px).round() as i32, (my - py).round() as i32))
}

/// Whether the plan puts `a` in `t`'s app and window, so that it moves with it. Both must
/// name the window: two targets without a title may be in different windows.
fn same_window(a: &Target, t: &Target) -> bool {
    let norm = |s: &Option<String>| s.as_deref().map(normalize_label);
    let same_app = match (&a.bundle_id, &t.bundle_id) {
        (Some(x), Some(y)) => x == y,
        _ => norm(&a.app) == norm(&t.app),
    };
    same_app && t.window.is_some() && norm(&a.window) == norm(&t.window)
}

/// The median move of the plan's other named controls in `t`'s window: each found now by its
/// label and role among the controls showing (a follower sees nothing else; GTK parks hidden
/// ones far off screen), only when exactly one fits (a repeated name tells nothing), then its
/// centre now minus its plan place. The median, taken per axis, so one control that moved
/// inside the window does not carry the others; with an even count the lower middle.
fn by_anchors(t: &Target, ix: &FrameIndex, ctx: &ResolveContext) -> Option<(i32, i32, usize)> {
    let windows: Vec<u32> = (0..ix.windows.len() as u32)
        .filter(|&k| {
            let w = &ix.windows[k as usize];
            app_matches(t, w) && window_matches(t, w)
        })
        .collect();
    if windows.is_empty() {
        return None;
    }
    let (mut dxs, mut dys) = (Vec::new(), Vec::new());
    for &a in ctx.anchors {
        if std::ptr::eq(a, t) || !same_window(a, t) {
            continue;
        }
        let Some(norm) = a
            .label
            .as_deref()
            .map(normalize_label)
            .filter(|l| !l.is_empty())
        else {
            continue;
        };
        let Some((px, py)) = plan_centre(a, ctx.screen) else {
            continue;
        };
        // One control listed twice (GTK's open combo menu) is still one control.
        let mut frames: Vec<_> = ix
            .with_label(&norm)
            .map(|i| &ix.nodes[i as usize])
            .filter(|n| {
                windows.contains(&n.window) && role_matches(a, n) && n.frame.shows_on(ctx.screen)
            })
            .map(|n| n.frame)
            .collect();
        frames.sort_by_key(|f| (f.x, f.y, f.width, f.height));
        frames.dedup();
        let [f] = frames[..] else { continue };
        let (cx, cy) = f.center();
        dxs.push((cx - px).round() as i32);
        dys.push((cy - py).round() as i32);
    }
    if dxs.is_empty() {
        return None;
    }
    dxs.sort_unstable();
    dys.sort_unstable();
    let mid = (dxs.len() - 1) / 2;
    Some((dxs[mid], dys[mid], dxs.len()))
}
