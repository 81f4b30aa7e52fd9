//! Finding a step's target in a frame, as the reference follower does: by app, window,
//! role and label first; by point and bounds only for a control with no name (translated by
//! how far its window moved, as far as the screen tells: see `moved.rs`).
//!
//! The result is a ranked list, not just a winner: a guide whose target is nearly tied with
//! another control is not ready for approval, and the report must be able to say so.

use serde::{Deserialize, Serialize};

use image::RgbaImage;

use super::crop::{CropOptions, CropQuery, GrayScreen, locate};
use super::index::{FrameIndex, Node, WindowInfo};
use super::moved::{Moved, displacement};
use super::picture::{PictureCheck, judge};
use super::tiebreak::{TieBreak, break_ties};
use crate::json::round;
use crate::plan::Target;
use crate::recording::ax::Rect;
use crate::roles::{ax_role_of_words, is_field_role, roles_agree};
use crate::text::normalize_label;

/// How the winner was found.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Strategy {
    /// Label equal as written.
    AxExact,
    /// Label equal after normalization (case, spaces, quotes, ellipsis), or a shortened label.
    AxNormalized,
    /// Point and bounds (nameless controls only).
    Geometry,
    /// The step's crop picture.
    Crop,
    /// A CSS selector matched against the frame's DOM (browser plans).
    Selector,
    /// Nothing matched.
    None,
    /// An agent under test picked it.
    Agent,
}

/// One ranked candidate.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub(crate) struct Candidate {
    /// Element id.
    pub(crate) element: String,
    /// Score, 0..1.
    pub(crate) score: f64,
    /// Strategy that proposed it.
    pub(crate) strategy: Strategy,
}

/// The outcome of resolving one target in one frame (the report keeps it as it is).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Resolution {
    /// The winner, if any.
    pub element: Option<String>,
    /// How it was found.
    pub(crate) strategy: Strategy,
    /// The winner's score.
    pub(crate) confidence: f64,
    /// Winner's score minus the runner-up's.
    pub(crate) margin: f64,
    /// Top candidates, best first (at most 5).
    pub(crate) candidates: Vec<Candidate>,
    /// How many candidates there were in all.
    pub(crate) candidate_count: usize,
    /// Two candidates are (nearly) tied.
    pub(crate) ambiguous: bool,
    /// Where the follower would click, in pixels.
    pub click: Option<(f64, f64)>,
    /// Why nothing was found, or what was odd.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) note: Option<String>,
    /// What told the winner apart from controls with the same name, when something did.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) tie_break: Option<TieBreak>,
    /// What the step's picture says of a control found by name, when the step has one (the
    /// follower's verdict on it is what reports show).
    #[serde(skip)]
    pub(crate) picture: Option<PictureCheck>,
}

/// Scores closer than this are a tie.
pub(crate) const AMBIGUITY_MARGIN: f64 = 0.05;

/// Every score the resolver gives, in one place. The order they make is the design: a name
/// as written, then folded, then shortened, beats any picture; a picture beats geometry; a
/// wrong window or an off-screen control loses more than any two strategies are apart.
pub(super) mod weight {
    use super::AMBIGUITY_MARGIN;

    /// The label equal as written.
    pub(crate) const NAME_EXACT: f64 = 1.0;
    /// Equal after folding case, spaces, quotes and ellipses: more than the ambiguity margin
    /// below, so "Send" and "send" are not a tie.
    pub(crate) const NAME_FOLDED: f64 = 0.9;
    /// A label shortened with an ellipsis on either side.
    pub(crate) const NAME_SHORTENED: f64 = 0.85;
    /// The crop found on screen: `CROP_BASE + CROP_SPAN × match score`, so an exact picture
    /// (0.9) ties a folded name but never beats it.
    pub(crate) const CROP_BASE: f64 = 0.6;
    /// See [`CROP_BASE`].
    pub(crate) const CROP_SPAN: f64 = 0.3;
    /// A nameless control under the plan's point with bounds: `GEOMETRY_BASE + GEOMETRY_SPAN
    /// × overlap` (intersection over union).
    pub(crate) const GEOMETRY_BASE: f64 = 0.5;
    /// See [`GEOMETRY_BASE`].
    pub(crate) const GEOMETRY_SPAN: f64 = 0.4;
    /// Under a point without bounds: this, less a hundredth of the log of the control's area,
    /// so the innermost control wins.
    pub(crate) const GEOMETRY_POINT: f64 = 0.7;
    /// Taken off a control in another window than the step names (or, for geometry, when only
    /// another window of the app has one there).
    pub(crate) const OTHER_WINDOW: f64 = 0.3;
    /// Taken off a disabled control: still it, but a follower would hesitate.
    pub(crate) const DISABLED: f64 = 0.05;
    /// Taken off a control outside the screen, or outside its own window's box.
    pub(crate) const OFF_SCREEN: f64 = 0.3;
    /// Taken off a control whose role the toolkit left unknown (`AXUnknown`): it is not
    /// ruled out by the step's role, but a control that has that role leads it clearly.
    pub(crate) const UNKNOWN_ROLE: f64 = 2.0 * AMBIGUITY_MARGIN;
    /// Taken off the candidates a tie-break rules out: more than the ambiguity margin, so the
    /// winner leads clearly, and taken from the losers so its confidence stays its own.
    pub(crate) const RULED_OUT: f64 = 2.0 * AMBIGUITY_MARGIN;
}

/// What the resolver needs besides the target and the frame: only what a follower holding
/// the plan has. No frame of the recording: a real follower never sees one.
#[derive(Clone, Copy)]
pub struct ResolveContext<'a> {
    /// Screenshot size in pixels, for points given as shares.
    pub screen: (u32, u32),
    /// The step's crop and the screen to find it on, when the plan has a picture.
    pub crop: Option<(&'a GrayScreen, &'a RgbaImage)>,
    /// The plan's targets: those named and placed in the step's window tell how far it moved
    /// (the step's own target among them is skipped). Empty when there is no plan to hand.
    pub anchors: &'a [&'a Target],
}

pub(super) fn app_matches(t: &Target, w: &WindowInfo) -> bool {
    let by_bundle = t
        .bundle_id
        .as_deref()
        .is_some_and(|b| w.bundle_id.as_deref() == Some(b));
    let by_name = t
        .app
        .as_deref()
        .is_some_and(|a| normalize_label(a) == w.norm_app);
    (t.app.is_none() && t.bundle_id.is_none()) || by_bundle || by_name
}

/// The app (by name) of a control with the step's label and role that the step's
/// `app`/`bundle_id` ruled out: the wrong-app message names it.
fn in_other_app(t: &Target, norm: &str, ix: &FrameIndex) -> Option<String> {
    ix.nodes.iter().find_map(|n| {
        let w = ix.window_of(n);
        (!app_matches(t, w)
            && n.name.is_some_and(|name| normalize_label(name) == norm)
            && role_matches(t, n))
        .then(|| w.app.clone())
    })
}

pub(super) fn window_matches(t: &Target, w: &WindowInfo) -> bool {
    t.window
        .as_deref()
        .is_none_or(|title| normalize_label(title) == w.work_title)
}

/// The step's `ax_role` when it has one, else the AX role its `role` words name (when the
/// words are known); a step that says neither matches any role.
pub(super) fn role_matches(t: &Target, n: &Node) -> bool {
    match (&t.ax_role, t.role.as_deref().and_then(ax_role_of_words)) {
        (Some(r), _) => roles_agree(r, n.ax_role),
        (None, Some(r)) => roles_agree(r, n.ax_role),
        (None, None) => true,
    }
}

/// Resolves a target in an indexed frame.
pub fn resolve(t: &Target, ix: &FrameIndex, ctx: &ResolveContext) -> Resolution {
    if let Some(selector) = &t.selector {
        let (cands, note) = super::selector::candidates(selector, ix);
        return rank(cands, ix, None, note);
    }
    let mut cands: Vec<(u32, f64, Strategy)> = Vec::new();
    let mut note = None;
    let mut clicked = None;
    let mut tie_break = None;
    match t
        .label
        .as_deref()
        .map(normalize_label)
        .filter(|l| !l.is_empty())
    {
        Some(norm) => {
            let other_roles = label_candidates(t, &norm, ix, ctx, &mut cands);
            tie_break = break_ties(t, ix, ctx, &mut cands);
            let label = t.label.as_deref().unwrap_or_default();
            if cands.is_empty() {
                note = Some(match other_roles.first() {
                    Some(r) => {
                        format!("no control labelled “{label}” has the step's role (an {r} does)")
                    }
                    None if let Some(app) = in_other_app(t, &norm, ix) => {
                        // The label is there, in an app the step does not name: say which.
                        let wanted = t.app.as_deref().or(t.bundle_id.as_deref()).unwrap_or("");
                        format!("no control labelled “{label}” in {wanted}; one is in {app}")
                    }
                    None => {
                        // What it was likely meant to be, on the screen the step was on.
                        let near = super::nearest(ix, label, ctx.screen, |n| role_matches(t, n));
                        let hint = match near {
                            (_, Some(meant)) => format!("; did you mean “{meant}”?"),
                            (list, None) if !list.is_empty() => {
                                let list: Vec<&str> =
                                    list.iter().take(3).map(String::as_str).collect();
                                format!("; nearest on screen: {}", list.join(", "))
                            }
                            _ => String::new(),
                        };
                        format!("no control labelled “{label}”{hint}")
                    }
                });
            } else if !other_roles.is_empty() && tie_break.is_none() {
                // Same-named controls of another role were passed over: the role decided.
                tie_break = Some(TieBreak::Role);
            }
        }
        None => match geometry_candidates(t, ix, ctx, &mut cands) {
            Ok((_, moved)) if cands.is_empty() => {
                note = Some(format!(
                    "no control at the plan's point; {}",
                    moved.describe()
                ))
            }
            Ok((p, moved)) => {
                clicked = p;
                note = Some(moved.describe());
            }
            Err(why) => note = Some(why),
        },
    }
    // The picture is the last resort for a control with no name: a name the plan gives is
    // evidence to match, never to replace, so when no control has it the step is not found
    // (with its did-you-mean), whatever the picture would guess.
    let named = t
        .label
        .as_deref()
        .is_some_and(|l| !normalize_label(l).is_empty());
    if cands.is_empty()
        && !named
        && let Some((screen, crop)) = ctx.crop
        && crop_candidates(t, ix, ctx, screen, crop, &mut cands)
    {
        note = None;
    }
    let mut r = rank(cands, ix, clicked, note);
    r.tie_break = tie_break.filter(|_| r.element.is_some());
    // A match made by name is looked at with the step's picture: it confirms it or vetoes it.
    if matches!(r.strategy, Strategy::AxExact | Strategy::AxNormalized)
        && !r.ambiguous
        && let (Some((screen, crop)), Some(winner)) =
            (ctx.crop, r.element.as_deref().and_then(|e| ix.index_of(e)))
    {
        let check = judge(t, ix, ctx, screen, crop, winner);
        if let Some(why) = check.veto_note(ix) {
            r.ambiguous = true;
            r.note = Some(r.note.take().map_or(why.clone(), |n| format!("{n}; {why}")));
        }
        r.picture = Some(check);
    }
    r
}

/// Finds the crop on the screen (near where the plan's point says first) and proposes the
/// innermost element of the target's app under the match's centre — for a nameless control,
/// or one whose name is gone.
fn crop_candidates(
    t: &Target,
    ix: &FrameIndex,
    ctx: &ResolveContext,
    screen: &GrayScreen,
    crop: &RgbaImage,
    out: &mut Vec<(u32, f64, Strategy)>,
) -> bool {
    let expected = t.point.map(|p| {
        let x = (p.x * ctx.screen.0 as f64 - crop.width() as f64 / 2.0).max(0.0);
        let y = (p.y * ctx.screen.1 as f64 - crop.height() as f64 / 2.0).max(0.0);
        (x as u32, y as u32)
    });
    let q = CropQuery {
        screen,
        crop,
        expected,
    };
    let Some(m) = locate(&q, &CropOptions::default()) else {
        return false;
    };
    let (cx, cy) = (
        m.x as f64 + crop.width() as f64 / 2.0,
        m.y as f64 + crop.height() as f64 / 2.0,
    );
    let hit = ix
        .at_point(cx, cy)
        .into_iter()
        .filter(|&i| {
            let n = &ix.nodes[i as usize];
            role_matches(t, n) && app_matches(t, ix.window_of(n))
        })
        .min_by_key(|&i| {
            (
                ix.nodes[i as usize].window,
                ix.nodes[i as usize].frame.area(),
            )
        });
    let Some(i) = hit else { return false };
    // A picture never overrules a name: when the plan names the control and the control under
    // the picture carries another name, the guide is wrong, and guessing would hide it.
    if t.label.is_some() && !ix.norm(i).is_empty() {
        return false;
    }
    let s = weight::CROP_BASE + weight::CROP_SPAN * m.score.clamp(0.0, 1.0);
    out.push((i, s, Strategy::Crop));
    true
}

/// Candidates by name; the role of each control passed over because its role contradicts the
/// step's (a button is not a check box), for the report.
fn label_candidates(
    t: &Target,
    norm: &str,
    ix: &FrameIndex,
    ctx: &ResolveContext,
    out: &mut Vec<(u32, f64, Strategy)>,
) -> Vec<String> {
    let exact = t.label.as_deref().unwrap_or_default();
    let mut other_roles = Vec::new();
    let mut push = |i: u32, base: f64, strategy: Strategy| {
        let n = &ix.nodes[i as usize];
        let w = ix.window_of(n);
        if !app_matches(t, w) {
            return;
        }
        let mut s = base;
        if !window_matches(t, w) {
            s -= weight::OTHER_WINDOW;
        }
        // A role that contradicts the step's is another control, whatever its name; a role
        // the toolkit did not say contradicts nothing.
        if n.ax_role == "AXUnknown" {
            s -= weight::UNKNOWN_ROLE;
        } else if !role_matches(t, n) {
            other_roles.push(n.ax_role.to_string());
            return;
        }
        if !n.enabled {
            s -= weight::DISABLED;
        }
        if !shows(n, w, ctx.screen) {
            s -= weight::OFF_SCREEN;
        }
        out.push((i, s, strategy));
    };
    let mut found = false;
    for i in ix.with_label(norm) {
        let n = &ix.nodes[i as usize];
        found = true;
        // The name as written outranks one equal only after case folding by more than the
        // ambiguity margin: "Send" and "send" are not a tie.
        if n.name == Some(exact) {
            push(i, weight::NAME_EXACT, Strategy::AxExact);
        } else {
            push(i, weight::NAME_FOLDED, Strategy::AxNormalized);
        }
    }
    if found {
        return other_roles;
    }
    // A label shortened with an ellipsis on either side ("Send remi…" for "Send reminder").
    fn stem(s: &str) -> &str {
        s.trim_end_matches("...").trim_end()
    }
    let want = stem(norm);
    if want.chars().count() < 3 {
        return other_roles;
    }
    for i in 0..ix.nodes.len() as u32 {
        let have_norm = ix.norm(i);
        if have_norm.is_empty() {
            continue;
        }
        let have = stem(have_norm);
        let shortened =
            (have_norm.ends_with("...") && have.chars().count() >= 3 && want.starts_with(have))
                || (norm.ends_with("...") && have_norm.starts_with(want));
        if shortened {
            push(i, weight::NAME_SHORTENED, Strategy::AxNormalized);
        }
    }
    other_roles
}

/// Whether any of the control's box is on the screen and inside its window: a toolkit keeps
/// the items of a closed list "showing" with boxes where nothing of them is drawn. A window
/// of no size says nothing about where its controls are.
pub(super) fn shows(n: &Node, w: &WindowInfo, screen: (u32, u32)) -> bool {
    let f = n.frame;
    let wf = w.frame;
    let in_window = wf.width <= 0
        || wf.height <= 0
        || (f.x < wf.x + wf.width
            && f.y < wf.y + wf.height
            && f.x + f.width > wf.x
            && f.y + f.height > wf.y);
    f.shows_on(screen) && in_window
}

/// Where the plan says the control is, as shares of the screen: its point, else its bounds'
/// centre.
pub(super) fn plan_point(t: &Target) -> Option<crate::plan::Point> {
    t.point.or_else(|| {
        t.bounds.map(|b| crate::plan::Point {
            x: b.x + b.width / 2.0,
            y: b.y + b.height / 2.0,
        })
    })
}

/// What makes two elements one place to click: GTK lists an open combo's menu under the combo
/// and again as its own window, with the same role, name and box.
pub(super) fn control_key<'a>(ix: &'a FrameIndex, i: u32) -> (&'a str, &'a str, Rect) {
    let n = &ix.nodes[i as usize];
    (n.ax_role, ix.norm(i), n.frame)
}

/// Candidates at the plan's point and bounds, moved as far as the window moved; the click
/// point, and how the move was told (for the note).
fn geometry_candidates(
    t: &Target,
    ix: &FrameIndex,
    ctx: &ResolveContext,
    out: &mut Vec<(u32, f64, Strategy)>,
) -> Result<(Option<(f64, f64)>, Moved), String> {
    let Some(p) = plan_point(t) else {
        return Err("the control has no label, point or bounds".into());
    };
    let (w, h) = (ctx.screen.0 as f64, ctx.screen.1 as f64);
    let moved = displacement(t, ix, ctx);
    let (dx, dy) = moved.offset();
    let (px, py) = (p.x * w + dx as f64, p.y * h + dy as f64);
    let want = t.bounds.map(|b| Rect {
        x: (b.x * w).round() as i32 + dx,
        y: (b.y * h).round() as i32 + dy,
        width: (b.width * w).round() as i32,
        height: (b.height * h).round() as i32,
    });
    let in_app: Vec<u32> = ix
        .at_point(px, py)
        .into_iter()
        .filter(|&i| {
            let n = &ix.nodes[i as usize];
            role_matches(t, n) && app_matches(t, ix.window_of(n))
        })
        .collect();
    // A renamed window still holds its controls: fall back to any window of the app.
    let titled: Vec<u32> = in_app
        .iter()
        .copied()
        .filter(|&i| window_matches(t, ix.window_of(&ix.nodes[i as usize])))
        .collect();
    let penalty = if titled.is_empty() && !in_app.is_empty() {
        weight::OTHER_WINDOW
    } else {
        0.0
    };
    let mut hits = if titled.is_empty() { in_app } else { titled };
    // The front-most window wins a point; inside it, the innermost element.
    let front = hits.iter().map(|&i| ix.nodes[i as usize].window).min();
    hits.retain(|&i| Some(ix.nodes[i as usize].window) == front);
    let start = out.len();
    for i in hits {
        let f = ix.nodes[i as usize].frame;
        let s = match want {
            Some(b) => weight::GEOMETRY_BASE + weight::GEOMETRY_SPAN * iou(&b, &f),
            None => weight::GEOMETRY_POINT - (f.area() as f64).ln().max(0.0) / 100.0,
        } - penalty;
        out.push((i, s, Strategy::Geometry));
    }
    fields_beat_containers(t, ix, &mut out[start..]);
    // The click lands on the plan's point, not on a bounds centre standing in for it.
    Ok((t.point.map(|_| (px, py)), moved))
}

/// A field under the point beats every candidate whose box holds it (the combo box or pane
/// around it), whatever their scores: each such container is put [`weight::RULED_OUT`] below
/// the field. Not when the step asks for the container's role exactly and not the field's.
fn fields_beat_containers(t: &Target, ix: &FrameIndex, cands: &mut [(u32, f64, Strategy)]) {
    let wanted = t
        .ax_role
        .as_deref()
        .or_else(|| t.role.as_deref().and_then(ax_role_of_words));
    let node = |i: u32| &ix.nodes[i as usize];
    for f in 0..cands.len() {
        let field = node(cands[f].0);
        if !is_field_role(field.ax_role) || field.frame.area() == 0 {
            continue;
        }
        let below = cands[f].1 - weight::RULED_OUT;
        for c in cands.iter_mut() {
            let outer = node(c.0);
            let asked = wanted.is_some_and(|w| w == outer.ax_role && w != field.ax_role);
            if outer.frame.encloses(&field.frame) && !asked {
                c.1 = c.1.min(below);
            }
        }
    }
}

/// Intersection over union of two boxes.
pub(super) fn iou(a: &Rect, b: &Rect) -> f64 {
    let x0 = a.x.max(b.x);
    let y0 = a.y.max(b.y);
    let x1 = (a.x + a.width).min(b.x + b.width);
    let y1 = (a.y + a.height).min(b.y + b.height);
    let inter = ((x1 - x0).max(0) as i64 * (y1 - y0).max(0) as i64) as f64;
    let union = (a.area() + b.area()) as f64 - inter;
    if union <= 0.0 { 0.0 } else { inter / union }
}

/// Ranks candidates; `clicked` is the plan's point, translated, when geometry decided.
pub(super) fn rank(
    mut cands: Vec<(u32, f64, Strategy)>,
    ix: &FrameIndex,
    clicked: Option<(f64, f64)>,
    note: Option<String>,
) -> Resolution {
    // Stable order: score, then tree order, so equal scores never depend on hashing.
    cands.sort_by(|a, b| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0)));
    // One control exposed twice (GTK lists an open combo's menu under the combo and again as
    // its own window) is one place to click, not a tie: among the leaders, a candidate with
    // the role, name and box of an earlier one is dropped.
    if let Some(&(_, best, _)) = cands.first() {
        let mut seen = std::collections::HashSet::new();
        cands.retain(|&(i, s, _)| best - s >= AMBIGUITY_MARGIN || seen.insert(control_key(ix, i)));
        // A control nested in another of the same role and name (GTK 4's menu button holds a
        // button named like it) is one control as a person sees it: the innermost is kept.
        let leaders: Vec<u32> = cands
            .iter()
            .filter(|c| best - c.1 < AMBIGUITY_MARGIN)
            .map(|c| c.0)
            .collect();
        let outer = |i: u32| {
            let (role, name, frame) = control_key(ix, i);
            leaders.iter().any(|&j| {
                let (r, n, f) = control_key(ix, j);
                j != i && r == role && n == name && frame.encloses(&f)
            })
        };
        cands.retain(|&(i, s, _)| best - s >= AMBIGUITY_MARGIN || !outer(i));
    }
    let count = cands.len();
    let top = cands.first().copied();
    let second = cands.get(1).map(|c| c.1);
    let candidates = cands
        .iter()
        .take(5)
        .map(|&(i, s, strategy)| Candidate {
            element: ix.nodes[i as usize].id.to_string(),
            score: round(s),
            strategy,
        })
        .collect();
    match top {
        None => Resolution {
            element: None,
            strategy: Strategy::None,
            confidence: 0.0,
            margin: 0.0,
            candidates,
            candidate_count: 0,
            ambiguous: false,
            click: None,
            note,
            tie_break: None,
            picture: None,
        },
        Some((i, s, strategy)) => {
            let n = &ix.nodes[i as usize];
            let margin = second.map_or(s, |r| s - r);
            // A point click lands where the plan says when that is inside the winner.
            let click = match (strategy, clicked) {
                (Strategy::Geometry, Some((x, y))) if n.frame.contains(x, y) => (x, y),
                _ => n.frame.center(),
            };
            Resolution {
                element: Some(n.id.to_string()),
                strategy,
                confidence: round(s.clamp(0.0, 1.0)),
                margin: round(margin),
                candidates,
                candidate_count: count,
                ambiguous: second.is_some_and(|r| s - r < AMBIGUITY_MARGIN),
                click: Some((round(click.0), round(click.1))),
                note,
                tie_break: None,
                picture: None,
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use serde_json::{Value, json};

    use super::*;
    use crate::plan::{Bounds, Point};
    use crate::recording::AxSnapshot;

    use crate::resolve::testing::{SCREEN, paint, run};

    fn el(id: &str, role: &str, title: Option<&str>, x: i32, y: i32, w: i32) -> Value {
        json!({"id": id, "ax_role": role, "title": title,
            "frame": {"x": x, "y": y, "width": w, "height": 20}})
    }

    /// An "Editor" window at (`x`, `y`): a nameless icon button and "Save" and "Open"
    /// buttons, and a "Close" button at `close_at` inside the window.
    fn editor(x: i32, y: i32, close_at: (i32, i32)) -> AxSnapshot {
        let elements = vec![
            el("icon", "AXButton", None, x + 20, y + 30, 20),
            el("save", "AXButton", Some("Save"), x + 90, y + 30, 60),
            el("open", "AXButton", Some("Open"), x + 90, y + 60, 60),
            el(
                "close",
                "AXButton",
                Some("Close"),
                x + close_at.0,
                y + close_at.1,
                60,
            ),
        ];
        serde_json::from_value(json!({"schema": "stepreplay-ax/1",
            "apps": [{"name": "Edit", "frontmost": true, "windows": [
                {"id": "w", "title": "Editor", "focused": true,
                 "frame": {"x": x, "y": y, "width": 200, "height": 150},
                 "elements": elements}]}]}))
        .unwrap()
    }

    /// Pixels as shares of the screen.
    fn bounds(x: i32, y: i32, w: i32) -> Option<Bounds> {
        let (sw, sh) = (SCREEN.0 as f64, SCREEN.1 as f64);
        Some(Bounds {
            x: x as f64 / sw,
            y: y as f64 / sh,
            width: w as f64 / sw,
            height: 20.0 / sh,
        })
    }

    /// A plan target in the "Editor" window, recorded with the window at (10, 10).
    fn planned(label: Option<&str>, x: i32, y: i32, w: i32) -> Target {
        Target {
            app: Some("Edit".into()),
            window: Some("Editor".into()),
            ax_role: Some("AXButton".into()),
            label: label.map(Into::into),
            bounds: bounds(x, y, w),
            ..Target::default()
        }
    }

    /// The nameless icon, by point and bounds only, as recorded at (10, 10).
    fn icon() -> Target {
        Target {
            point: Some(Point {
                x: 40.0 / SCREEN.0 as f64,
                y: 50.0 / SCREEN.1 as f64,
            }),
            ..planned(None, 30, 40, 20)
        }
    }

    /// A nameless field in the combo box around it: the field wins by geometry even where the
    /// plan's bounds are the combo's, unless the step asks for the combo.
    #[test]
    fn a_field_beats_the_combo_around_it_unless_the_step_asks_for_the_combo() {
        let mut combo = el("combo", "AXComboBox", None, 10, 10, 100);
        combo["children"] = json!([el("field", "AXTextField", None, 12, 10, 86)]);
        let snap: AxSnapshot = serde_json::from_value(json!({"schema": "stepreplay-ax/1",
            "apps": [{"name": "Edit", "frontmost": true, "windows": [
                {"id": "w", "title": "Editor", "focused": true,
                 "frame": {"x": 0, "y": 0, "width": 400, "height": 300},
                 "elements": [combo]}]}]}))
        .unwrap();
        let asking = |role: &str| Target {
            ax_role: Some(role.into()),
            ..planned(None, 10, 10, 100)
        };
        let r = run(&asking("AXTextField"), &snap, &[]);
        assert_eq!(r.element.as_deref(), Some("field"), "{r:?}");
        assert!(!r.ambiguous, "{r:?}");
        let r = run(&asking("AXComboBox"), &snap, &[]);
        assert_eq!(r.element.as_deref(), Some("combo"), "{r:?}");
    }

    #[test]
    fn a_point_only_step_follows_its_window_as_the_plans_named_controls_show_it() {
        let now = editor(130, 90, (90, 90));
        let save = planned(Some("Save"), 100, 40, 60);
        let r = run(&icon(), &now, &[&save]);
        assert_eq!(r.element.as_deref(), Some("icon"), "{r:?}");
        assert_eq!(r.strategy, Strategy::Geometry);
        // The click is the plan's point, moved with the window.
        assert_eq!(r.click, Some((160.0, 130.0)));
        assert_eq!(
            r.note.as_deref(),
            Some("the window moved by (120,80), told by 1 control of the plan in the same window")
        );
    }

    #[test]
    fn without_anything_on_screen_to_tell_the_move_the_point_is_taken_as_recorded() {
        let now = editor(130, 90, (90, 90));
        let r = run(&icon(), &now, &[]);
        assert_eq!(r.element, None, "{r:?}");
        assert!(
            r.note
                .as_deref()
                .is_some_and(|n| n.contains("point taken as recorded")),
            "{r:?}"
        );
        // Where the window has not moved, the point is right and the note still says how it
        // was placed.
        let r = run(&icon(), &editor(10, 10, (90, 90)), &[]);
        assert_eq!(r.element.as_deref(), Some("icon"));
        assert_eq!(
            r.note.as_deref(),
            Some("point taken as recorded: nothing on screen tells where the window was")
        );
        // The step's own target, a control of another app, and a name the plan places
        // nowhere tell nothing.
        let elsewhere = Target {
            app: Some("Other".into()),
            ..planned(Some("Save"), 100, 40, 60)
        };
        let unplaced = Target {
            bounds: None,
            ..planned(Some("Save"), 100, 40, 60)
        };
        let t = icon();
        let r = run(&t, &now, &[&t, &elsewhere, &unplaced]);
        assert_eq!(r.element, None, "{r:?}");
    }

    #[test]
    fn the_median_of_the_plans_controls_outvotes_one_that_moved_inside_the_window() {
        // "Close" was recorded at (100, 100) and now sits 40 px further right in its window.
        let now = editor(130, 90, (130, 90));
        let save = planned(Some("Save"), 100, 40, 60);
        let open = planned(Some("Open"), 100, 70, 60);
        let close = planned(Some("Close"), 100, 100, 60);
        let r = run(&icon(), &now, &[&close, &save, &open]);
        assert_eq!(r.element.as_deref(), Some("icon"), "{r:?}");
        assert!(
            r.note
                .as_deref()
                .is_some_and(|n| n.contains("by (120,80)") && n.contains("3 controls of the plan")),
            "{r:?}"
        );
        // The one that moved alone would put the point 40 px off, beside the icon.
        let r = run(&icon(), &now, &[&close]);
        assert_ne!(r.element.as_deref(), Some("icon"), "{r:?}");
    }

    #[test]
    fn the_steps_picture_tells_how_far_its_window_moved() {
        // The picture is cut from the screen as recorded, with a 2 px margin.
        let then = paint(&editor(10, 10, (90, 90)));
        let crop = image::imageops::crop_imm(&then, 28, 38, 24, 24).to_image();
        let now_ax = editor(60, 50, (90, 90));
        let now = paint(&now_ax);
        let gray = GrayScreen::new(&now);
        let ix = FrameIndex::new(&now_ax);
        let ctx = ResolveContext {
            screen: SCREEN,
            crop: Some((&gray, &crop)),
            anchors: &[],
        };
        let r = resolve(&icon(), &ix, &ctx);
        assert_eq!(r.element.as_deref(), Some("icon"), "{r:?}");
        assert_eq!(r.strategy, Strategy::Geometry);
        assert_eq!(r.click, Some((90.0, 90.0)));
        assert_eq!(
            r.note.as_deref(),
            Some("the window moved by (50,40), told by its picture")
        );
        // Without the picture, the recorded point lands on nothing of the app.
        let r = resolve(&icon(), &ix, &ResolveContext { crop: None, ..ctx });
        assert_eq!(r.element, None, "{r:?}");
    }

    #[test]
    fn a_picture_that_matches_two_places_alike_tells_nothing() {
        let then = paint(&editor(10, 10, (90, 90)));
        let crop = image::imageops::crop_imm(&then, 28, 38, 24, 24).to_image();
        let now_ax = editor(60, 50, (90, 90));
        let mut now = paint(&now_ax);
        // A second copy of the icon's pixels in the window, nearer the plan's place than the
        // icon (both beyond the near search): taken for the window's move, it would send the
        // point astray.
        image::imageops::replace(&mut now, &crop, 70, 40);
        let gray = GrayScreen::new(&now);
        let ix = FrameIndex::new(&now_ax);
        let ctx = ResolveContext {
            screen: SCREEN,
            crop: Some((&gray, &crop)),
            anchors: &[],
        };
        let r = resolve(&icon(), &ix, &ctx);
        assert_eq!(r.element, None, "{r:?}");
        assert!(
            r.note
                .as_deref()
                .is_some_and(|n| n.contains("point taken as recorded")),
            "{r:?}"
        );
    }
}
