//! The Foxstep plan of a recording, as a guide author would write it from the screens: one
//! step per action, each target read off the frame it acts on (app, window, role, the name a
//! person sees, point and box as shares of the screen, a crop of the control), inputs for what
//! was typed, and an `expect` of the window the step leaves in front.
//!
//! Step ids are UUIDs made from the script's title and the step's place, so the same script
//! recorded twice gives the same plan.

use image::RgbImage;

use crate::fnv::fnv1a64;
use crate::import::window_kind;
use crate::paint::canvas::Canvas;
use crate::plan::foxstep::{
    ActionKind, Basis, Bounds, Button, Changes, Click, Done, Expect, FoxPlan, Guide, Input, Point,
    SCHEMA, Shape, Step, Target,
};
use crate::plan::share;
use crate::recording::ax::AxSnapshot;
use crate::resolve::FrameIndex;
use crate::synth::foxplan::crop_name;
use crate::text::words;

use super::find::{Found, work_title};
use super::script::{Script, ScriptInput, ScriptStep};

/// A step as it was carried out.
#[derive(Clone, Debug)]
pub(crate) struct Acted {
    /// The script's step.
    pub(crate) step: ScriptStep,
    /// Frame before it and after it (indices into the recording's frames).
    pub(crate) before: usize,
    /// Frame after it.
    pub(crate) after: usize,
    /// The control acted on: clicked, or focused when keys were typed.
    pub(crate) found: Option<Found>,
}

/// A UUID (RFC 9562 version 8: bits of our own) from `seed`.
pub(crate) fn step_uuid(seed: &str) -> String {
    // FNV spreads a one-character change over few bits; SplitMix64's finalizer spreads it
    // over all of them, so neighbouring steps get ids that look unrelated.
    let mix = |mut z: u64| {
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    };
    let a = mix(fnv1a64(seed.as_bytes()));
    let b = mix(fnv1a64(format!("{seed}\u{1f}stepreplay").as_bytes()));
    let a = (a & !0xf000) | 0x8000; // version 8 in the third group
    let b = (b & 0x3fff_ffff_ffff_ffff) | 0x8000_0000_0000_0000; // variant 10
    format!(
        "{:08X}-{:04X}-{:04X}-{:04X}-{:012X}",
        a >> 32,
        (a >> 16) & 0xffff,
        a & 0xffff,
        b >> 48,
        b & 0xffff_ffff_ffff
    )
}

/// `AXPopUpButton` → `pop up button`.
fn role_words(ax_role: &str) -> String {
    window_kind(ax_role).replace('-', " ")
}

/// The plan's target for a control found in `ax`, and its crop.
fn target_of(
    found: &Found,
    ax: &AxSnapshot,
    shot: &RgbImage,
    screen: (u32, u32),
    label: Option<&str>,
    n: u32,
) -> (Target, Option<RgbImage>) {
    let (sw, sh) = screen;
    let point = Some(Point {
        x: share(found.point.0 as f64, sw),
        y: share(found.point.1 as f64, sh),
    });
    let Some((app, _, el)) = ax.find(&found.id) else {
        let t = Target {
            app: None,
            bundle_id: None,
            window: None,
            role: None,
            ax_role: None,
            label: None,
            point,
            bounds: None,
            crop_available: false,
            crop: None,
        };
        return (t, None);
    };
    let f = el.frame;
    let pad = 4;
    let canvas = Canvas { img: shot.clone() };
    let crop = canvas.crop(f.x - pad, f.y - pad, f.width + 2 * pad, f.height + 2 * pad);
    let ix = FrameIndex::new(ax);
    let name = ix.by_id(&found.id).and_then(|n| n.name).map(str::to_string);
    let t = Target {
        app: Some(app.name.clone()),
        bundle_id: app.bundle_id.clone(),
        window: found.window.clone(),
        role: Some(role_words(&el.ax_role)),
        ax_role: Some(el.ax_role.clone()),
        label: label.map(str::to_string).or(name),
        point,
        bounds: Some(Bounds {
            x: share(f.x as f64, sw),
            y: share(f.y as f64, sh),
            width: share(f.width as f64, sw),
            height: share(f.height as f64, sh),
        }),
        crop_available: true,
        crop: Some(crop_name(n)),
    };
    (t, Some(crop))
}

/// The app and window a person sees in front after a step.
fn expect_of(ax: &AxSnapshot) -> Option<Expect> {
    let ix = FrameIndex::new(ax);
    let w = ix
        .windows
        .iter()
        .filter(|w| w.frontmost_app)
        .min_by_key(|w| (!w.focused, w.z))?;
    Some(Expect {
        app: Some(w.app.clone()).filter(|a| !a.is_empty()),
        window: work_title(&ix, w),
        ..Expect::default()
    })
}

/// Words for a step the script gave none for.
fn words_for(
    step: &ScriptStep,
    label: Option<&str>,
    role: Option<&str>,
    input: Option<&str>,
) -> String {
    let thing = match (label, role) {
        (Some(l), Some(r)) => format!("the {l} {r}"),
        (Some(l), None) => format!("“{l}”"),
        (None, Some(r)) => format!("the {r}"),
        (None, None) => "the marked place".into(),
    };
    match step {
        ScriptStep::Click { count: Some(2), .. } => format!("Double-click {thing}"),
        ScriptStep::Click {
            button: Some(b), ..
        } if b == "right" => format!("Right-click {thing}"),
        ScriptStep::Click { .. } => format!("Click {thing}"),
        ScriptStep::Type { .. } => match input {
            Some(name) => format!("Type the {name}"),
            None => "Type the text".into(),
        },
        ScriptStep::Key { keys, .. } => format!("Press {keys}"),
        ScriptStep::Wait { .. } => String::new(),
    }
}

/// The plan, and per step the crop of its control.
pub(crate) fn make_plan(
    script: &Script,
    name: &str,
    acted: &[Acted],
    frames: &[AxSnapshot],
    shots: &[RgbImage],
    screen: (u32, u32),
) -> (FoxPlan, Vec<Option<RgbImage>>) {
    let mut steps = Vec::new();
    let mut crops = Vec::new();
    let mut used_by: Vec<(String, u32)> = Vec::new();
    for (i, a) in acted.iter().enumerate() {
        let n = i as u32 + 1;
        let (ax, shot) = (&frames[a.before], &shots[a.before]);
        let script_label = match &a.step {
            ScriptStep::Click { target, .. } => target.name.as_deref(),
            _ => None,
        };
        let (target, crop) = match &a.found {
            Some(f) => {
                let (t, c) = target_of(f, ax, shot, screen, script_label, n);
                (Some(t), c)
            }
            None => (None, None),
        };
        let label = target.as_ref().and_then(|t| t.label.clone());
        let role = target.as_ref().and_then(|t| t.role.clone());
        let input = match &a.step {
            ScriptStep::Type {
                input: Some(id), ..
            } => script.inputs.iter().find(|x| &x.id == id),
            _ => None,
        };
        if let Some(inp) = input {
            used_by.push((inp.id.clone(), n));
        }
        let given = match &a.step {
            ScriptStep::Click { text, .. } | ScriptStep::Key { text, .. } => text.clone(),
            ScriptStep::Type { words, .. } => words.clone(),
            ScriptStep::Wait { .. } => None,
        };
        let text = given.unwrap_or_else(|| {
            words_for(
                &a.step,
                label.as_deref(),
                role.as_deref(),
                input.map(|i| i.name.as_str()),
            )
        });
        let (action, click, keys, value, template, confirm) = action_of(&a.step, input);
        steps.push(Step {
            number: n,
            label: n.to_string(),
            step_id: step_uuid(&format!("{name}\u{1f}{}\u{1f}{n}", script.title)),
            action,
            text,
            value,
            template,
            reads: input.map(|i| vec![i.id.clone()]).unwrap_or_default(),
            submit: None,
            keys,
            click,
            assistant: None,
            target,
            expect: expect_of(&frames[a.after]),
            confirm,
            confirm_reason: confirm.then(|| "The script marks this step to be confirmed.".into()),
            stop_if: None,
        });
        crops.push(crop);
    }
    let inputs = inputs_of(script, &used_by);
    let guide_id = format!("guide-{}", words(name).join("-"));
    let last_step = steps.last().map(|s: &Step| s.step_id.clone());
    let plan = FoxPlan {
        schema: SCHEMA.to_string(),
        guide: Guide {
            id: guide_id,
            title: script.title.clone(),
            revision: None,
        },
        inputs,
        steps,
        done: Some(Done {
            text: script
                .done
                .clone()
                .unwrap_or_else(|| "Every recorded step is done.".into()),
            // The finished screen is the one the last step led to.
            step_id: last_step,
            screen: None,
        }),
    };
    (plan, crops)
}

/// What an acted step does, in the plan's terms: its kind, click, keys, typed value and
/// template, and whether it asks to be confirmed.
fn action_of(
    step: &ScriptStep,
    input: Option<&ScriptInput>,
) -> (
    ActionKind,
    Option<Click>,
    Option<String>,
    Option<String>,
    Option<String>,
    bool,
) {
    match step {
        ScriptStep::Click {
            button,
            count,
            confirm,
            ..
        } => {
            let button = match button.as_deref() {
                Some("right") => Button::Right,
                Some("middle") => Button::Middle,
                _ => Button::Left,
            };
            let click = Click {
                button,
                count: count.unwrap_or(1),
                drag: false,
                modifiers: Vec::new(),
            };
            (ActionKind::Click, Some(click), None, None, None, *confirm)
        }
        ScriptStep::Type { text, .. } => {
            let template = input.map(|i| format!("{{{}}}", i.id));
            (ActionKind::Type, None, None, text.clone(), template, false)
        }
        ScriptStep::Key { keys, .. } => (
            ActionKind::Press,
            None,
            Some(keys.clone()),
            None,
            None,
            false,
        ),
        ScriptStep::Wait { .. } => unreachable!("waits are not acted steps"),
    }
}

/// The plan's inputs: the script's inputs a step types, each with the steps (by number) that
/// read it.
fn inputs_of(script: &Script, used_by: &[(String, u32)]) -> Vec<Input> {
    script
        .inputs
        .iter()
        .filter(|i| used_by.iter().any(|(id, _)| id == &i.id))
        .map(|i| Input {
            id: i.id.clone(),
            name: i.name.clone(),
            changes: Changes::EachTime,
            basis: Basis::Typed,
            example: (!i.sensitive).then(|| i.value.clone()),
            sensitive: i.sensitive,
            shape: Shape::Text,
            used_by: used_by
                .iter()
                .filter(|(id, _)| id == &i.id)
                .map(|(_, n)| *n)
                .collect(),
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn step_ids_are_stable_uuids() {
        let a = step_uuid("x\u{1f}1");
        assert_eq!(a, step_uuid("x\u{1f}1"));
        assert_ne!(a, step_uuid("x\u{1f}2"));
        let parts: Vec<&str> = a.split('-').collect();
        assert_eq!(
            parts.iter().map(|p| p.len()).collect::<Vec<_>>(),
            [8, 4, 4, 4, 12]
        );
        assert!(parts[2].starts_with('8'), "{a}");
        assert!(
            matches!(parts[3].as_bytes()[0], b'8' | b'9' | b'A' | b'B'),
            "{a}"
        );
    }

    #[test]
    fn role_words_split_the_ax_role() {
        assert_eq!(role_words("AXPopUpButton"), "pop up button");
        assert_eq!(role_words("AXTextField"), "text field");
        assert_eq!(role_words("AXButton"), "button");
    }
}
