//! Whether the step's picture of its control agrees with the control found by name
//! ([`judge`] → [`PictureCheck`]). A careful follower who has a picture looks at the control
//! the name led to: when it looks like the picture, that confirms the match; when it clearly
//! does not and the picture is plainly another control on the screen, the guide and the screen
//! disagree, and going on would act on a guess.
//!
//! A picture never overrules a name, so a veto never picks the other control: it makes the
//! match ambiguous, which fails the step and is a finding for the guide's author. Between the
//! two bounds the picture says nothing either way (a re-themed, rescaled or half-covered
//! control), and the match stands as the name made it.

use image::RgbaImage;
use serde::{Deserialize, Serialize};

use super::crop::{CropOptions, CropQuery, GrayScreen, locate, score_near};
use super::index::FrameIndex;
use super::target::{ResolveContext, app_matches, iou, plan_point};
use crate::json::round;
use crate::plan::Target;
use crate::recording::Rect;

/// How far from the control's centre its picture may sit (a crop cut with a little margin).
const REACH: u32 = 6;

/// A named control whose pixels score below this against the step's picture does not look
/// like it. Far below the match floor (0.9) on purpose: a veto needs both a clear miss here and
/// a clear hit elsewhere, so no real recording sits near either bound by chance.
pub(crate) const VETO_BELOW: f64 = 0.5;

/// What the step's picture says of the control found by name.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "verdict", rename_all = "kebab-case")]
pub(crate) enum PictureCheck {
    /// The control looks like the picture (a score at least the match floor).
    Confirms {
        /// The picture's score at the control.
        score: f64,
    },
    /// Neither a match here nor a clear one elsewhere: the picture tells nothing.
    Unconfirmed {
        /// The picture's score at the control, when it fits on the screen there.
        score: Option<f64>,
    },
    /// The control clearly does not look like the picture, and another control does.
    Vetoes {
        /// The picture's score at the control found by name.
        score: f64,
        /// The control the picture shows.
        elsewhere: String,
        /// The picture's score there.
        elsewhere_score: f64,
    },
}

/// Judges the picture `crop` against `winner`, the element index the name chose, on `screen`.
pub(super) fn judge(
    t: &Target,
    ix: &FrameIndex,
    ctx: &ResolveContext,
    screen: &GrayScreen,
    crop: &RgbaImage,
    winner: u32,
) -> PictureCheck {
    let opts = CropOptions::default();
    let frame = ix.nodes[winner as usize].frame;
    let here = score_near(screen, crop, frame.center(), REACH);
    match here {
        Some(s) if s >= opts.floor => return PictureCheck::Confirms { score: round(s) },
        Some(s) if s < VETO_BELOW => {}
        _ => {
            return PictureCheck::Unconfirmed {
                score: here.map(round),
            };
        }
    }
    let here = here.unwrap_or_default();
    let expected = plan_point(t).map(|p| {
        let x = (p.x * ctx.screen.0 as f64 - crop.width() as f64 / 2.0).max(0.0);
        let y = (p.y * ctx.screen.1 as f64 - crop.height() as f64 / 2.0).max(0.0);
        (x as u32, y as u32)
    });
    let found = locate(
        &CropQuery {
            screen,
            crop,
            expected,
        },
        &opts,
    );
    let Some(m) = found else {
        return PictureCheck::Unconfirmed {
            score: Some(round(here)),
        };
    };
    let seen = Rect::new(
        m.x as i32,
        m.y as i32,
        crop.width() as i32,
        crop.height() as i32,
    );
    let (cx, cy) = seen.center();
    // The control of the step's app the picture shows: of those under its centre, the one
    // whose box fits the place it was found best, other than the named one and the controls
    // that hold it (a picture cut wide still shows the named control). One of the same name
    // is not another control by the name: telling same-named controls apart is the
    // tie-break's, which weighs the picture against the plan's position.
    let other = ix
        .at_point(cx, cy)
        .into_iter()
        .filter(|&i| {
            let n = &ix.nodes[i as usize];
            i != winner
                && !n.frame.encloses(&frame)
                && n.frame != frame
                && app_matches(t, ix.window_of(n))
        })
        .max_by(|&a, &b| {
            let fit = |i: u32| iou(&ix.nodes[i as usize].frame, &seen);
            fit(a).total_cmp(&fit(b)).then(b.cmp(&a))
        });
    match other {
        Some(i) if !frame.contains(cx, cy) && ix.norm(i) != ix.norm(winner) => {
            PictureCheck::Vetoes {
                score: round(here),
                elsewhere: ix.nodes[i as usize].id.to_string(),
                elsewhere_score: round(m.score),
            }
        }
        _ => PictureCheck::Unconfirmed {
            score: Some(round(here)),
        },
    }
}

impl PictureCheck {
    /// Why the match was vetoed, for the resolution's note.
    pub(super) fn veto_note(&self, ix: &FrameIndex) -> Option<String> {
        let PictureCheck::Vetoes {
            score,
            elsewhere,
            elsewhere_score,
        } = self
        else {
            return None;
        };
        let said = ix.by_id(elsewhere).map_or(elsewhere.clone(), |n| n.said());
        Some(format!(
            "the step's picture shows {said} (score {elsewhere_score}), not the control the name \
             found (score {score}): the guide's name and picture disagree"
        ))
    }
}

#[cfg(test)]
mod tests {
    use image::RgbaImage;
    use serde_json::json;

    use super::*;
    use crate::plan::Target;
    use crate::recording::AxSnapshot;
    use crate::resolve::testing::{SCREEN, paint};
    use crate::resolve::{Strategy, resolve};

    /// A "Mail" window with "Send", "Save" and "Open" buttons, each its own pattern.
    fn window() -> AxSnapshot {
        let el = |id: &str, title: &str, x: i32| {
            json!({"id": id, "ax_role": "AXButton", "title": title,
                "frame": {"x": x, "y": 40, "width": 60, "height": 24}})
        };
        serde_json::from_value(json!({"schema": "stepreplay-ax/1",
            "apps": [{"name": "Mail", "frontmost": true, "windows": [
                {"id": "w", "title": "Inbox", "focused": true,
                 "frame": {"x": 10, "y": 10, "width": 300, "height": 200},
                 "elements": [el("send", "Send", 30), el("save", "Save", 120),
                              el("open", "Open", 210)]}]}]}))
        .unwrap()
    }

    fn send() -> Target {
        Target {
            app: Some("Mail".into()),
            window: Some("Inbox".into()),
            ax_role: Some("AXButton".into()),
            label: Some("Send".into()),
            ..Target::default()
        }
    }

    /// Resolves "Send" with `crop` as the step's picture.
    fn with_picture(crop: &RgbaImage) -> crate::resolve::Resolution {
        let snap = window();
        let screen = paint(&snap);
        let gray = GrayScreen::new(&screen);
        let ix = FrameIndex::new(&snap);
        let ctx = ResolveContext {
            screen: SCREEN,
            crop: Some((&gray, crop)),
            anchors: &[],
        };
        resolve(&send(), &ix, &ctx)
    }

    /// The picture of the control at `x` (y 40, 60 × 24), its box only: the background a
    /// margin would add is alike around every button, and would make any two look alike.
    fn cut(x: u32) -> RgbaImage {
        let screen = paint(&window());
        image::imageops::crop_imm(&screen, x, 40, 60, 24).to_image()
    }

    #[test]
    fn a_picture_of_the_named_control_confirms_the_match() {
        let r = with_picture(&cut(30));
        assert_eq!(r.element.as_deref(), Some("send"), "{r:?}");
        assert_eq!(r.strategy, Strategy::AxExact);
        assert!(!r.ambiguous, "{r:?}");
        assert!(
            matches!(r.picture, Some(PictureCheck::Confirms { score }) if score > 0.99),
            "{r:?}"
        );
    }

    #[test]
    fn a_picture_of_another_control_vetoes_the_match_by_name() {
        let r = with_picture(&cut(210));
        // The name still leads (a picture never overrules it), but the step is no longer
        // clear: the guide's name and picture point at different controls.
        assert_eq!(r.element.as_deref(), Some("send"), "{r:?}");
        assert!(r.ambiguous, "{r:?}");
        match &r.picture {
            Some(PictureCheck::Vetoes {
                score,
                elsewhere,
                elsewhere_score,
            }) => {
                assert_eq!(elsewhere, "open");
                assert!(*score < VETO_BELOW, "{score}");
                assert!(*elsewhere_score > 0.99, "{elsewhere_score}");
            }
            other => panic!("not a veto: {other:?}"),
        }
        let note = r.note.as_deref().unwrap_or_default();
        assert!(
            note.contains("the button “Open”") && note.contains("disagree"),
            "{note}"
        );
    }

    #[test]
    fn a_picture_found_nowhere_leaves_the_match_to_the_name() {
        // A pattern no control on the screen has.
        let crop = RgbaImage::from_fn(60, 24, |x, y| {
            let v = ((x * 11 + y * 29) % 13 * 19) as u8;
            image::Rgba([v, v, v, 255])
        });
        let r = with_picture(&crop);
        assert_eq!(r.element.as_deref(), Some("send"), "{r:?}");
        assert!(!r.ambiguous, "{r:?}");
        assert!(
            matches!(r.picture, Some(PictureCheck::Unconfirmed { .. })),
            "{r:?}"
        );
        assert_eq!(r.note, None);
    }

    #[test]
    fn a_picture_of_a_control_with_the_same_name_is_left_to_the_tie_break() {
        // The picture is of the third button, now also named "Send" but disabled, so the first
        // leads by name: the picture shows no other control by the name, and says nothing.
        let mut snap = window();
        let open = &mut snap.apps[0].windows[0].elements[2];
        open.title = Some("Send".into());
        open.enabled = false;
        let screen = paint(&window());
        let crop = cut(210);
        let gray = GrayScreen::new(&screen);
        let ix = FrameIndex::new(&snap);
        let ctx = ResolveContext {
            screen: SCREEN,
            crop: Some((&gray, &crop)),
            anchors: &[],
        };
        let r = resolve(&send(), &ix, &ctx);
        assert_eq!(r.element.as_deref(), Some("send"), "{r:?}");
        assert!(!r.ambiguous, "{r:?}");
        assert!(
            matches!(r.picture, Some(PictureCheck::Unconfirmed { .. })),
            "{r:?}"
        );
    }

    #[test]
    fn without_a_picture_nothing_is_judged() {
        let snap = window();
        let r = crate::resolve::testing::run(&send(), &snap, &[]);
        assert_eq!(r.element.as_deref(), Some("send"));
        assert_eq!(r.picture, None);
    }
}
