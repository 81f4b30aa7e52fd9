//! Several controls with the same name: real windows hold them (a column of check boxes all
//! named after their widget kind, a header-bar button and an in-page button alike). A careful
//! follower then uses everything else the step says, in this order: the role, the window, the
//! picture of the control, then where the plan says it is, taken relative to its window (so a
//! moved window still works). Only what none of these separates is ambiguity.
//!
//! A contradicting role rules a control out before it is a candidate (the resolver then
//! reports the role as what decided); the window weighs in each candidate's score; this file
//! settles what they leave tied with the crop and the position, and says which decided.

use serde::{Deserialize, Serialize};

use image::RgbaImage;

use super::crop::{GrayScreen, score_near};
use super::index::FrameIndex;
use super::moved::displacement_by_anchors;
use super::target::{AMBIGUITY_MARGIN, ResolveContext, control_key, plan_point, window_matches};
use crate::plan::Target;
use crate::recording::Rect;
use crate::roles::ax_role_of_words;

/// What told equally named controls apart.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub(crate) enum TieBreak {
    /// Only one had the step's role.
    Role,
    /// Only one was in the step's window.
    Window,
    /// The step's picture of its control was found on only one.
    Crop,
    /// Only one was where the plan says, relative to its window.
    Position,
    /// The others hold it: a field inside the combo box around it, a button inside a group
    /// of its name.
    Innermost,
}

/// Settles ties among `cands` (element, score) found by name, and says what decided the
/// winner against its same-named rivals, if anything did.
pub(super) fn break_ties(
    t: &Target,
    ix: &FrameIndex,
    ctx: &ResolveContext,
    cands: &mut [(u32, f64, super::Strategy)],
) -> Option<TieBreak> {
    let best = cands.iter().map(|c| c.1).fold(f64::NEG_INFINITY, f64::max);
    let mut tied: Vec<usize> = distinct_leaders(ix, cands, best);
    if tied.len() < 2 {
        return decided_by_score(t, ix, cands, best);
    }
    let mut narrowed = None;
    // The step's role as written beats a kin role (a text field over the combo box that
    // holds it, when the plan says `AXTextField`).
    if let Some(want) = wanted_role(t) {
        let exact = keep(&tied, |k| ix.nodes[cands[k].0 as usize].ax_role == want);
        if narrow(cands, &mut tied, exact) {
            narrowed = Some(TieBreak::Role);
        }
    }
    // The innermost control beats the ones whose box holds it.
    let frame = |k: usize| ix.nodes[cands[k].0 as usize].frame;
    let inner = keep(&tied, |k| {
        !tied
            .iter()
            .any(|&j| j != k && frame(j).area() > 0 && frame(k).encloses(&frame(j)))
    });
    if narrow(cands, &mut tied, inner) {
        narrowed = Some(TieBreak::Innermost);
    }
    if tied.len() < 2 {
        return narrowed;
    }
    let frames: Vec<_> = tied
        .iter()
        .map(|&k| ix.nodes[cands[k].0 as usize].frame)
        .collect();
    let pick = |hit: &dyn Fn(usize) -> bool| {
        let hits: Vec<usize> = (0..tied.len()).filter(|&j| hit(j)).collect();
        (hits.len() == 1).then(|| hits[0])
    };
    let by_crop = ctx
        .crop
        .and_then(|(screen, crop)| crop_pick(screen, crop, &frames));
    let by_position = expected_point(t, ix, ctx).and_then(|(px, py)| {
        pick(&|j| frames[j].contains(px, py)).or_else(|| nearest_clearly(&frames, px, py))
    });
    // The picture comes first; when it and the plan's position name different controls the
    // evidence conflicts, and that is ambiguity, not a pick.
    let decided = match (by_crop, by_position) {
        (Some(c), Some(p)) if c != p => None,
        (Some(c), _) => Some((c, TieBreak::Crop)),
        (None, Some(p)) => Some((p, TieBreak::Position)),
        (None, None) => None,
    };
    let Some((winner, why)) = decided else {
        return narrowed;
    };
    for (j, &k) in tied.iter().enumerate() {
        if j != winner {
            cands[k].1 -= super::target::weight::RULED_OUT;
        }
    }
    Some(why)
}

/// The role the step asks for: its `ax_role`, else the AX role its role words name.
fn wanted_role(t: &Target) -> Option<&str> {
    t.ax_role
        .as_deref()
        .or_else(|| t.role.as_deref().and_then(ax_role_of_words))
}

/// The members of `tied` for which `f` holds.
fn keep(tied: &[usize], f: impl Fn(usize) -> bool) -> Vec<usize> {
    tied.iter().copied().filter(|&k| f(k)).collect()
}

/// Rules out the tied candidates not in `kept` when that leaves some and drops some; says
/// whether it did.
fn narrow(
    cands: &mut [(u32, f64, super::Strategy)],
    tied: &mut Vec<usize>,
    kept: Vec<usize>,
) -> bool {
    if kept.is_empty() || kept.len() == tied.len() {
        return false;
    }
    for &k in tied.iter() {
        if !kept.contains(&k) {
            cands[k].1 -= super::target::weight::RULED_OUT;
        }
    }
    *tied = kept;
    true
}

/// How far from a candidate's centre its picture may sit (a crop cut with a little margin).
const CROP_REACH: u32 = 6;

/// The one frame the picture matches clearly better than any other, each scored at its own
/// place: identical copies of a control score alike and tell nothing apart.
fn crop_pick(screen: &GrayScreen, crop: &RgbaImage, frames: &[Rect]) -> Option<usize> {
    let scores: Vec<f64> = frames
        .iter()
        .map(|f| score_near(screen, crop, f.center(), CROP_REACH).unwrap_or(f64::NEG_INFINITY))
        .collect();
    let best = scores.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    let near: Vec<usize> = (0..scores.len())
        .filter(|&j| scores[j] > best - AMBIGUITY_MARGIN)
        .collect();
    (best.is_finite() && near.len() == 1).then(|| near[0])
}

/// Candidates within the margin of `best`, one per control: one control exposed twice (same
/// role, name and box) is one place to click.
fn distinct_leaders(
    ix: &FrameIndex,
    cands: &[(u32, f64, super::Strategy)],
    best: f64,
) -> Vec<usize> {
    let mut seen = std::collections::HashSet::new();
    (0..cands.len())
        .filter(|&k| {
            let (i, s, _) = cands[k];
            best - s < AMBIGUITY_MARGIN && seen.insert(control_key(ix, i))
        })
        .collect()
}

/// When the scores already set the winner apart from a same-named rival, whether the role
/// or the window did it (for the report).
fn decided_by_score(
    t: &Target,
    ix: &FrameIndex,
    cands: &[(u32, f64, super::Strategy)],
    best: f64,
) -> Option<TieBreak> {
    let &(w, _, _) = cands.iter().find(|c| c.1 == best)?;
    let win = &ix.nodes[w as usize];
    let rivals = cands
        .iter()
        .filter(|c| c.0 != w && ix.norm(c.0) == ix.norm(w))
        .map(|c| &ix.nodes[c.0 as usize]);
    let mut why = None;
    for r in rivals {
        if window_matches(t, ix.window_of(win)) && !window_matches(t, ix.window_of(r)) {
            why = Some(TieBreak::Window);
        }
    }
    why
}

/// The plan's point (or its bounds' centre) in pixels, moved as far as the plan's other
/// controls show the step's window moved (see `moved.rs`). Not by the picture: it is weighed
/// on its own, and would move the point onto its own pick.
fn expected_point(t: &Target, ix: &FrameIndex, ctx: &ResolveContext) -> Option<(f64, f64)> {
    let p = plan_point(t)?;
    let (dx, dy) = displacement_by_anchors(t, ix, ctx).offset();
    Some((
        p.x * ctx.screen.0 as f64 + dx as f64,
        p.y * ctx.screen.1 as f64 + dy as f64,
    ))
}

/// The frame whose centre is nearest the point, when it is less than half as far as the next.
fn nearest_clearly(frames: &[Rect], x: f64, y: f64) -> Option<usize> {
    let mut d: Vec<(f64, usize)> = frames
        .iter()
        .enumerate()
        .map(|(j, f)| {
            let (cx, cy) = f.center();
            ((cx - x).hypot(cy - y), j)
        })
        .collect();
    d.sort_by(|a, b| a.0.total_cmp(&b.0));
    (d.len() >= 2 && d[0].0 * 2.0 < d[1].0).then_some(d[0].1)
}

#[cfg(test)]
mod tests {
    use image::{Rgba, RgbaImage};
    use serde_json::{Value, json};

    use super::*;
    use crate::plan::{Bounds, Point, Target};
    use crate::recording::AxSnapshot;
    use crate::resolve::crop::GrayScreen;
    use crate::resolve::resolve;

    use crate::resolve::testing::{SCREEN, run};

    fn el(id: &str, role: &str, title: &str, x: i32, y: i32) -> Value {
        json!({"id": id, "ax_role": role, "title": title,
            "frame": {"x": x, "y": y, "width": 60, "height": 20}})
    }

    /// One app with windows (id, title, x, y, elements).
    fn snapshot(windows: Vec<(&str, &str, i32, i32, Vec<Value>)>) -> AxSnapshot {
        let windows: Vec<Value> = windows
            .into_iter()
            .enumerate()
            .map(|(k, (id, title, x, y, elements))| {
                json!({"id": id, "title": title, "focused": k == 0,
                    "frame": {"x": x, "y": y, "width": 200, "height": 150},
                    "elements": elements})
            })
            .collect();
        serde_json::from_value(json!({"schema": "stepreplay-ax/1",
            "apps": [{"name": "Prefs", "frontmost": true, "windows": windows}]}))
        .unwrap()
    }

    /// A column of check boxes all named "Enabled", in a window at (`x`, `y`).
    fn column(x: i32, y: i32) -> AxSnapshot {
        let boxes = (0..3)
            .map(|k| {
                el(
                    &format!("c{k}"),
                    "AXCheckBox",
                    "Enabled",
                    x + 20,
                    y + 20 + 40 * k,
                )
            })
            .collect();
        snapshot(vec![("w", "Prefs", x, y, boxes)])
    }

    fn target(label: &str) -> Target {
        Target {
            app: Some("Prefs".into()),
            label: Some(label.into()),
            ..Target::default()
        }
    }

    /// A point as a share of the screen.
    fn at(x: f64, y: f64) -> Option<Point> {
        Some(Point {
            x: x / SCREEN.0 as f64,
            y: y / SCREEN.1 as f64,
        })
    }

    /// The check box column of [`column`] with an "Apply" button under it, in a window
    /// titled "Prefs" at (`x`, `y`).
    fn column_and_apply(x: i32, y: i32) -> AxSnapshot {
        let mut elements: Vec<Value> = (0..3)
            .map(|k| {
                let y = y + 20 + 40 * k;
                el(&format!("c{k}"), "AXCheckBox", "Enabled", x + 20, y)
            })
            .collect();
        elements.push(el("ok", "AXButton", "Apply", x + 100, y + 120));
        snapshot(vec![("w", "Prefs", x, y, elements)])
    }

    /// The "Apply" button as a plan recorded it with its window at (10, 10).
    fn apply_step() -> Target {
        Target {
            window: Some("Prefs".into()),
            ax_role: Some("AXButton".into()),
            bounds: Some(Bounds {
                x: 110.0 / SCREEN.0 as f64,
                y: 130.0 / SCREEN.1 as f64,
                width: 60.0 / SCREEN.0 as f64,
                height: 20.0 / SCREEN.1 as f64,
            }),
            ..target("Apply")
        }
    }

    #[test]
    fn the_plans_point_picks_one_of_several_same_named_check_boxes() {
        let snap = column(10, 10);
        let t = Target {
            point: at(60.0, 120.0), // the third box: x 30..90, y 110..130
            ..target("Enabled")
        };
        let r = run(&t, &snap, &[]);
        assert_eq!(r.element.as_deref(), Some("c2"));
        assert!(!r.ambiguous, "{r:?}");
        assert_eq!(r.tie_break, Some(TieBreak::Position));
        assert!(r.margin >= AMBIGUITY_MARGIN, "{r:?}");
    }

    #[test]
    fn the_point_is_taken_relative_to_its_window_when_a_named_control_shows_the_move() {
        // Recorded with the window at (10, 10); it is now at (150, 100).
        let now = column_and_apply(150, 100);
        let t = Target {
            window: Some("Prefs".into()),
            point: at(60.0, 80.0), // the second box when recorded
            ..target("Enabled")
        };
        let apply = apply_step();
        let r = run(&t, &now, &[&apply]);
        assert_eq!(r.element.as_deref(), Some("c1"), "{r:?}");
        assert_eq!(r.tie_break, Some(TieBreak::Position));
        // Nothing on the screen tells the move: the recorded point, far from every box,
        // settles nothing.
        let r = run(&t, &now, &[]);
        assert!(r.ambiguous && r.tie_break.is_none(), "{r:?}");
        // A plan control in another window, or one whose name the window repeats, tells
        // nothing either.
        let elsewhere = Target {
            window: Some("Other".into()),
            ..apply_step()
        };
        // (Were the first box taken for this one, it would tell the move right.)
        let repeated = Target {
            label: Some("Enabled".into()),
            ax_role: Some("AXCheckBox".into()),
            bounds: Some(Bounds {
                x: 30.0 / SCREEN.0 as f64,
                y: 30.0 / SCREEN.1 as f64,
                width: 60.0 / SCREEN.0 as f64,
                height: 20.0 / SCREEN.1 as f64,
            }),
            ..apply_step()
        };
        let r = run(&t, &now, &[&elsewhere, &repeated]);
        assert!(r.ambiguous && r.tie_break.is_none(), "{r:?}");
    }

    #[test]
    fn nothing_to_tell_them_apart_is_ambiguity() {
        let snap = column(10, 10);
        let r = run(&target("Enabled"), &snap, &[]);
        assert!(r.ambiguous, "{r:?}");
        assert_eq!(r.tie_break, None);
        // A point between two boxes, no nearer to one than to the other, settles nothing.
        let t = Target {
            point: at(60.0, 60.0),
            ..target("Enabled")
        };
        assert!(run(&t, &snap, &[]).ambiguous);
    }

    /// A box of any size, for nesting.
    fn boxed(id: &str, role: &str, title: &str, (x, y, w, h): (i32, i32, i32, i32)) -> Value {
        json!({"id": id, "ax_role": role, "title": title,
            "frame": {"x": x, "y": y, "width": w, "height": h}})
    }

    /// Mousepad's Find field: an editable combo box named "Find" holding a text field of
    /// the same name.
    fn find_bar() -> AxSnapshot {
        let mut combo = boxed("combo", "AXComboBox", "Find", (10, 10, 200, 30));
        combo["children"] = json!([boxed("field", "AXTextField", "Find", (12, 12, 170, 26))]);
        snapshot(vec![("w", "Search", 0, 0, vec![combo])])
    }

    #[test]
    fn the_steps_role_as_written_beats_a_kin_role() {
        let field = Target {
            ax_role: Some("AXTextField".into()),
            ..target("Find")
        };
        let r = run(&field, &find_bar(), &[]);
        assert_eq!(r.element.as_deref(), Some("field"), "{r:?}");
        assert_eq!(r.tie_break, Some(TieBreak::Role));
        assert!(!r.ambiguous && r.margin >= AMBIGUITY_MARGIN, "{r:?}");
        // The plan that says combo box gets the combo box, though the field is inside it.
        let combo = Target {
            ax_role: Some("AXComboBox".into()),
            ..target("Find")
        };
        let r = run(&combo, &find_bar(), &[]);
        assert_eq!(r.element.as_deref(), Some("combo"), "{r:?}");
        assert_eq!(r.tie_break, Some(TieBreak::Role));
    }

    #[test]
    fn the_innermost_control_beats_its_container() {
        let r = run(&target("Find"), &find_bar(), &[]);
        assert_eq!(r.element.as_deref(), Some("field"), "{r:?}");
        assert_eq!(r.tie_break, Some(TieBreak::Innermost));
        assert!(!r.ambiguous, "{r:?}");
        // Side by side, neither holds the other: still a tie.
        let snap = snapshot(vec![(
            "w",
            "Search",
            0,
            0,
            vec![
                boxed("a", "AXComboBox", "Find", (10, 10, 100, 30)),
                boxed("b", "AXTextField", "Find", (10, 50, 100, 30)),
            ],
        )]);
        let r = run(&target("Find"), &snap, &[]);
        assert!(r.ambiguous && r.tie_break.is_none(), "{r:?}");
    }

    #[test]
    fn an_unknown_role_never_vetoes_an_exact_name_but_loses_to_the_steps_role() {
        let search = |with_field: bool| {
            let mut els = vec![boxed("entry", "AXUnknown", "Search", (10, 10, 200, 30))];
            if with_field {
                els.push(boxed("field", "AXTextField", "Search", (10, 50, 200, 30)));
            }
            snapshot(vec![("w", "Clocks", 0, 0, els)])
        };
        let t = Target {
            ax_role: Some("AXTextField".into()),
            ..target("Search")
        };
        let r = run(&t, &search(false), &[]);
        assert_eq!(r.element.as_deref(), Some("entry"), "{r:?}");
        assert!(!r.ambiguous && r.note.is_none(), "{r:?}");
        let r = run(&t, &search(true), &[]);
        assert_eq!(r.element.as_deref(), Some("field"), "{r:?}");
        assert!(!r.ambiguous, "{r:?}");
    }

    #[test]
    fn an_item_whose_box_lies_outside_its_window_does_not_count_as_shown() {
        // Qt keeps a closed list's items "showing", with boxes outside the dialog.
        let snap = snapshot(vec![(
            "w",
            "Prefs",
            10,
            10,
            vec![
                el("open", "AXRow", "Forbidden", 20, 40),
                el("closed", "AXRow", "Forbidden", 300, 250),
            ],
        )]);
        let r = run(&target("Forbidden"), &snap, &[]);
        assert_eq!(r.element.as_deref(), Some("open"), "{r:?}");
        assert!(!r.ambiguous, "{r:?}");
    }

    #[test]
    fn the_role_tells_a_button_from_a_check_box_of_the_same_name() {
        let snap = snapshot(vec![(
            "w",
            "Prefs",
            0,
            0,
            vec![
                el("b", "AXButton", "Sync", 10, 10),
                el("c", "AXCheckBox", "Sync", 10, 50),
            ],
        )]);
        for t in [
            Target {
                ax_role: Some("AXCheckBox".into()),
                ..target("Sync")
            },
            Target {
                role: Some("check box".into()),
                ..target("Sync")
            },
        ] {
            let r = run(&t, &snap, &[]);
            assert_eq!(r.element.as_deref(), Some("c"), "{t:?}");
            assert_eq!(r.tie_break, Some(TieBreak::Role));
            assert!(!r.ambiguous);
        }
    }

    /// A control the step's app rules out is not found, and the message names the app it is
    /// in, never "did you mean" the very label asked for; with the right app it is found.
    #[test]
    fn the_wrong_app_is_named_and_the_right_one_resolves() {
        let snap = column_and_apply(10, 10);
        let wrong = Target {
            app: Some("Mail".into()),
            bundle_id: Some("com.apple.mail".into()),
            ..target("Apply")
        };
        let r = run(&wrong, &snap, &[]);
        assert_eq!(r.element, None, "{r:?}");
        let note = r.note.clone().unwrap_or_default();
        assert!(
            note.contains("in Mail; one is in Prefs") && !note.contains("did you mean"),
            "{note}"
        );
        let r = run(&target("Apply"), &snap, &[]);
        assert_eq!(r.element.as_deref(), Some("ok"), "{r:?}");
        // By bundle id alone, the other app's id rules it out the same way.
        let by_id = Target {
            app: None,
            bundle_id: Some("com.apple.mail".into()),
            ..target("Apply")
        };
        assert_eq!(run(&by_id, &snap, &[]).element, None);
    }

    #[test]
    fn a_role_that_contradicts_the_step_is_another_control_and_kin_roles_agree() {
        let snap = snapshot(vec![(
            "w",
            "Prefs",
            0,
            0,
            vec![
                el("b", "AXButton", "Sync", 10, 10),
                el("f", "AXTextField", "Name", 10, 50),
            ],
        )]);
        let check_box = Target {
            ax_role: Some("AXCheckBox".into()),
            ..target("Sync")
        };
        let r = run(&check_box, &snap, &[]);
        assert_eq!(r.element, None, "a button is not a check box: {r:?}");
        assert!(
            r.note.as_deref().is_some_and(|n| n.contains("AXButton")),
            "{r:?}"
        );
        // A text area on one platform is a text field on another.
        let area = Target {
            ax_role: Some("AXTextArea".into()),
            ..target("Name")
        };
        assert_eq!(run(&area, &snap, &[]).element.as_deref(), Some("f"));
    }

    #[test]
    fn the_window_tells_a_header_button_from_an_in_page_one() {
        let snap = snapshot(vec![
            (
                "w1",
                "Library",
                0,
                0,
                vec![el("a", "AXButton", "Add", 10, 10)],
            ),
            (
                "w2",
                "Import",
                200,
                0,
                vec![el("b", "AXButton", "Add", 210, 10)],
            ),
        ]);
        for (window, found) in [("Import", "b"), ("Library", "a")] {
            let t = Target {
                window: Some(window.into()),
                ..target("Add")
            };
            let r = run(&t, &snap, &[]);
            assert_eq!(r.element.as_deref(), Some(found), "{window}");
            assert_eq!(r.tie_break, Some(TieBreak::Window));
        }
    }

    #[test]
    fn a_name_as_written_outranks_one_equal_after_case_folding() {
        let snap = snapshot(vec![(
            "w",
            "Prefs",
            0,
            0,
            vec![
                el("lo", "AXButton", "send", 10, 10),
                el("up", "AXButton", "Send", 10, 50),
            ],
        )]);
        let r = run(&target("Send"), &snap, &[]);
        assert_eq!(r.element.as_deref(), Some("up"));
        assert!(!r.ambiguous && r.margin > AMBIGUITY_MARGIN, "{r:?}");
    }

    /// A screen with a distinct pattern in each box, so a crop of one is found only there.
    fn screen_with_patterns(snap: &AxSnapshot) -> RgbaImage {
        let mut img = RgbaImage::from_pixel(SCREEN.0, SCREEN.1, Rgba([240, 240, 240, 255]));
        let ix = FrameIndex::new(snap);
        for (k, n) in ix.nodes.iter().enumerate() {
            let f = n.frame;
            for y in f.y..f.y + f.height {
                for x in f.x..f.x + f.width {
                    let v = ((x * (3 + k as i32) + y * (7 + 5 * k as i32)) % 97) as u8 * 2;
                    img.put_pixel(x as u32, y as u32, Rgba([v, 255 - v, v / 2, 255]));
                }
            }
        }
        img
    }

    #[test]
    fn the_picture_picks_the_control_it_shows_but_never_overrules_a_name() {
        let snap = column(10, 10);
        let img = screen_with_patterns(&snap);
        let crop = image::imageops::crop_imm(&img, 30, 70, 60, 20).to_image(); // c1
        let gray = GrayScreen::new(&img);
        let ix = FrameIndex::new(&snap);
        let ctx = ResolveContext {
            screen: SCREEN,
            crop: Some((&gray, &crop)),
            anchors: &[],
        };
        // The picture shows the second box: it decides when the plan gives no point.
        let r = resolve(&target("Enabled"), &ix, &ctx);
        assert_eq!(r.element.as_deref(), Some("c1"), "{r:?}");
        assert_eq!(r.tie_break, Some(TieBreak::Crop));
        // The same point agrees with it; a point on the third box contradicts it, and
        // contradicting evidence is ambiguity, not a pick.
        let on = |y: f64| Target {
            point: at(60.0, y),
            ..target("Enabled")
        };
        assert_eq!(
            resolve(&on(80.0), &ix, &ctx).tie_break,
            Some(TieBreak::Crop)
        );
        let r = resolve(&on(120.0), &ix, &ctx);
        assert!(r.ambiguous && r.tie_break.is_none(), "{r:?}");
        // A picture of a control with another name does not make it the target.
        let other = snapshot(vec![(
            "w",
            "Prefs",
            10,
            10,
            vec![
                el("c0", "AXCheckBox", "Enabled", 30, 30),
                el("x", "AXCheckBox", "Other", 30, 70),
            ],
        )]);
        let ix = FrameIndex::new(&other);
        let r = resolve(&target("Enabled"), &ix, &ctx);
        assert_eq!(r.element.as_deref(), Some("c0"));
    }
}
