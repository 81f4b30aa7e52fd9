//! The Foxstep plan for a synthetic recording, as a skill export lays it out: [`make_plan`]
//! writes one step per script step, with the target read off the frame the step acts on
//! (app, window title, roles, accessible name, point and bounds as shares of the screenshot)
//! and a crop of the control; [`apply_variant`] derives the hand-edited plans meant to fail.

use std::collections::BTreeMap;
use std::path::Path;

use image::RgbImage;
use serde_json::Value;

use super::build::{Built, accessible_name};
use super::script::{Script, Variant};
use crate::errors::{Error, FieldPath, InputError, Reason};
use crate::paint::canvas::Canvas;
use crate::plan::foxstep::{
    ActionKind, Bounds, Button, Click, FoxPlan, Point, SCHEMA, Step, Target,
};
use crate::plan::share;
use crate::recording::format::Screen;

/// The crop file of step `n`, relative to the plan.
pub(crate) fn crop_name(n: u32) -> String {
    format!("crops/step-{n}.png")
}

/// The plan and, per step, the crop of its control (none for steps without one).
pub(crate) fn make_plan(
    script: &Script,
    built: &Built,
    shots: &[RgbImage],
    screen: &Screen,
) -> (FoxPlan, Vec<Option<RgbImage>>) {
    let mut steps = Vec::new();
    let mut crops = Vec::new();
    for (i, spec) in script.steps.iter().enumerate() {
        let n = i as u32 + 1;
        let frame = built.before[i];
        let ax = &built.frames[frame];
        let mut target = None;
        let mut crop = None;
        if let Some((app, win, el)) = spec.control.as_deref().and_then(|c| ax.find(c)) {
            let f = el.frame;
            let label = if spec.no_label {
                None
            } else {
                spec.label.clone().or_else(|| accessible_name(ax, &el.id))
            };
            let pad = 4 * screen.scale as i32;
            let canvas = Canvas {
                img: shots[frame].clone(),
            };
            crop = Some(canvas.crop(f.x - pad, f.y - pad, f.width + 2 * pad, f.height + 2 * pad));
            let (cx, cy) = f.center();
            target = Some(Target {
                app: Some(app.name.clone()),
                bundle_id: app.bundle_id.clone(),
                window: Some(win.title.clone()).filter(|t| !t.is_empty()),
                role: el.role.clone(),
                ax_role: Some(el.ax_role.clone()),
                label,
                point: Some(Point {
                    x: share(cx, screen.width),
                    y: share(cy, screen.height),
                }),
                bounds: Some(Bounds {
                    x: share(f.x.into(), screen.width),
                    y: share(f.y.into(), screen.height),
                    width: share(f.width.into(), screen.width),
                    height: share(f.height.into(), screen.height),
                }),
                crop_available: true,
                crop: Some(crop_name(n)),
            });
        }
        let click = match (spec.action, &spec.click) {
            (_, Some(c)) => Some(c.clone()),
            (ActionKind::Click, None) => Some(Click {
                button: Button::Left,
                count: 1,
                drag: false,
                modifiers: Vec::new(),
            }),
            _ => None,
        };
        steps.push(Step {
            number: n,
            label: n.to_string(),
            step_id: spec.id.clone(),
            action: spec.action,
            text: spec.text.clone(),
            value: spec.value.clone(),
            template: spec.template.clone(),
            reads: spec.reads.clone(),
            submit: spec.submit.clone(),
            keys: spec.keys.clone(),
            click,
            assistant: spec.assistant.clone(),
            target,
            expect: spec.expect.clone(),
            confirm: spec.confirm,
            confirm_reason: spec.confirm_reason.clone(),
            stop_if: spec.stop_if.clone(),
        });
        crops.push(crop);
    }
    let plan = FoxPlan {
        schema: SCHEMA.to_string(),
        guide: script.guide.clone(),
        inputs: script.inputs.clone(),
        steps,
        done: script.done.clone(),
    };
    (plan, crops)
}

/// A variant of the plan as JSON, and for each of its steps the main plan's step index (to
/// find its crop). Edits name steps by their number in the main plan.
/// `at` is the variant's place in the script at `script`, for errors.
pub(crate) fn apply_variant(
    plan: &FoxPlan,
    variant: &Variant,
    script: &Path,
    at: FieldPath,
) -> Result<(Value, Vec<usize>), Error> {
    let mut value = serde_json::to_value(plan)
        .map_err(|e| Error::Internal(format!("cannot lay out the plan: {e}")))?;
    let Some(steps) = value.get_mut("steps").and_then(Value::as_array_mut) else {
        return Err(Error::Internal("the plan has no steps array".into()));
    };
    let mut delete = Vec::new();
    for (k, edit) in variant.edits.iter().enumerate() {
        let at = at.key("edits").index(k);
        let idx = (edit.step as usize)
            .checked_sub(1)
            .filter(|&i| i < steps.len())
            .ok_or_else(|| {
                let msg = format!("the plan has no step {}", edit.step);
                InputError::new(script, Reason::InvalidField, msg).at(at.key("step"))
            })?;
        for (path, v) in &edit.set {
            if !set_path(&mut steps[idx], path, v.clone()) {
                let msg = format!("`{path}` runs through a value that is not an object");
                let err = InputError::new(script, Reason::InvalidField, msg);
                return Err(err.at(at.key("set").key(path)).into());
            }
        }
        if edit.delete {
            delete.push(idx);
        }
    }
    let mut origin = Vec::new();
    let mut kept = Vec::new();
    let mut renumber = BTreeMap::new();
    for (i, s) in std::mem::take(steps).into_iter().enumerate() {
        if delete.contains(&i) {
            continue;
        }
        renumber.insert(i as u32 + 1, kept.len() as u32 + 1);
        origin.push(i);
        kept.push(s);
    }
    for (new_i, s) in kept.iter_mut().enumerate() {
        let n = new_i as u64 + 1;
        s["number"] = Value::from(n);
        s["label"] = Value::from(n.to_string());
        if let Some(t) = s.get_mut("target").and_then(Value::as_object_mut)
            && t.contains_key("crop")
        {
            t.insert("crop".into(), Value::from(crop_name(n as u32)));
        }
    }
    *steps = kept;
    if let Some(inputs) = value.get_mut("inputs").and_then(Value::as_array_mut) {
        for input in inputs {
            if let Some(used) = input.get_mut("used_by").and_then(Value::as_array_mut) {
                let mapped: Vec<Value> = used
                    .iter()
                    .filter_map(|u| u.as_u64())
                    .filter_map(|u| renumber.get(&(u as u32)).map(|n| Value::from(*n)))
                    .collect();
                *used = mapped;
            }
        }
    }
    Ok((value, origin))
}

/// Sets (or with `null`, removes) the dotted `path` in `v`, making objects on the way; false
/// when the path runs through a value that is not an object.
fn set_path(v: &mut Value, path: &str, new: Value) -> bool {
    let (parents, last) = path.rsplit_once('.').map_or(("", path), |(a, b)| (a, b));
    let mut cur = v;
    for p in parents.split('.').filter(|p| !p.is_empty()) {
        let Some(obj) = cur.as_object_mut() else {
            return false;
        };
        cur = obj
            .entry(p.to_string())
            .or_insert_with(|| Value::Object(Default::default()));
    }
    let Some(obj) = cur.as_object_mut() else {
        return false;
    };
    if new.is_null() {
        obj.remove(last);
    } else {
        obj.insert(last.to_string(), new);
    }
    true
}
