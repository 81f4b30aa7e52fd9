//! The `foxstep-step-plan/1` format exactly as Foxstep writes it, parsed strictly.
//!
//! Every field the format names is here and nothing else is accepted: an unknown field is far
//! more often a typo (`confrim`) than an extension, and a typo in a safety field must not pass
//! silently. Semantics live in the normalized [`super::Plan`]; this module only mirrors the
//! wire format.

// Field meanings are the seed document's table; repeating them here would only drift.
#![allow(missing_docs)]

use serde::{Deserialize, Serialize};
use serde_json::Value;

/// The schema string of this format.
pub(crate) const SCHEMA: &str = "foxstep-step-plan/1";

/// Optional lists a plan leaves out when they are empty ("optional fields are left out when
/// they have nothing to say").
const OPTIONAL_LISTS: &[&str] = &["inputs", "used_by", "reads", "modifiers"];

/// A plan's canonical bytes: sorted keys, the fixed layout, and no empty optional list.
pub fn canonical_plan_text(v: &serde_json::Value) -> String {
    fn prune(v: &mut serde_json::Value) {
        match v {
            serde_json::Value::Object(m) => {
                m.retain(|k, x| {
                    !(OPTIONAL_LISTS.contains(&k.as_str())
                        && x.as_array().is_some_and(Vec::is_empty))
                });
                m.values_mut().for_each(prune);
            }
            serde_json::Value::Array(a) => a.iter_mut().for_each(prune),
            _ => {}
        }
    }
    let mut v = v.clone();
    prune(&mut v);
    crate::json::to_canonical(&v)
}

/// A whole plan.
#[derive(Clone, Debug, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct FoxPlan {
    pub(crate) schema: String,
    pub(crate) guide: Guide,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub(crate) inputs: Vec<Input>,
    pub(crate) steps: Vec<Step>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) done: Option<Done>,
}

/// The guide a plan comes from.
#[derive(Clone, Debug, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct Guide {
    pub(crate) id: String,
    pub(crate) title: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) revision: Option<String>,
}

/// A value that can change each time the guide is followed.
#[derive(Clone, Debug, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct Input {
    pub(crate) id: String,
    pub(crate) name: String,
    pub(crate) changes: Changes,
    pub(crate) basis: Basis,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) example: Option<String>,
    #[serde(default)]
    pub(crate) sensitive: bool,
    pub(crate) shape: Shape,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub(crate) used_by: Vec<u32>,
}

/// Whether an input changes between runs.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize, Serialize)]
#[serde(rename_all = "kebab-case")]
pub(crate) enum Changes {
    EachTime,
    Same,
}

/// Who marked an input.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize, Serialize)]
#[serde(rename_all = "kebab-case")]
pub(crate) enum Basis {
    Typed,
    Author,
}

/// What kind of text an input holds.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize, Serialize)]
#[serde(rename_all = "kebab-case")]
pub(crate) enum Shape {
    Email,
    Link,
    Phone,
    Amount,
    Date,
    Postcode,
    Reference,
    Number,
    Text,
}

/// What a step does.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize, Serialize)]
#[serde(rename_all = "kebab-case")]
pub(crate) enum ActionKind {
    Navigate,
    Click,
    Type,
    Paste,
    Copy,
    Press,
    Ask,
    Do,
}

/// One step.
#[derive(Clone, Debug, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct Step {
    pub(crate) number: u32,
    pub(crate) label: String,
    pub(crate) step_id: String,
    pub(crate) action: ActionKind,
    pub(crate) text: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) value: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) template: Option<String>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub(crate) reads: Vec<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) submit: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) keys: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) click: Option<Click>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) assistant: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) target: Option<Target>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) expect: Option<Expect>,
    #[serde(default)]
    pub(crate) confirm: bool,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) confirm_reason: Option<String>,
    /// Words, or an object with `text` and the conditions of an `expect`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) stop_if: Option<Value>,
}

/// How to click.
#[derive(Clone, Debug, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct Click {
    pub(crate) button: Button,
    pub(crate) count: u8,
    #[serde(default)]
    pub(crate) drag: bool,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub(crate) modifiers: Vec<String>,
}

/// Which mouse button.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize, Serialize)]
#[serde(rename_all = "kebab-case")]
pub(crate) enum Button {
    Left,
    Right,
    Middle,
}

/// A point as shares of the step's screenshot.
#[derive(Clone, Copy, Debug, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct Point {
    pub(crate) x: f64,
    pub(crate) y: f64,
}

/// A frame as shares of the step's screenshot.
#[derive(Clone, Copy, Debug, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct Bounds {
    pub(crate) x: f64,
    pub(crate) y: f64,
    pub(crate) width: f64,
    pub(crate) height: f64,
}

/// Where a step acts.
#[derive(Clone, Debug, Default, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct Target {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub app: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub bundle_id: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub window: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub role: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ax_role: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub label: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub point: Option<Point>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub bounds: Option<Bounds>,
    #[serde(default)]
    pub crop_available: bool,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub crop: Option<String>,
}

/// What should be true after a step.
#[derive(Clone, Debug, Default, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct Expect {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) app: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) window: Option<String>,
    /// A control's label, or a target object.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) visible: Option<Value>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) field_contains: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) screen_step_id: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) screen: Option<String>,
}

/// What finished looks like.
#[derive(Clone, Debug, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct Done {
    pub(crate) text: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) step_id: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) screen: Option<String>,
}
