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
pub const SCHEMA: &str = "foxstep-step-plan/1";

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
pub struct FoxPlan {
    pub schema: String,
    pub guide: Guide,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub inputs: Vec<Input>,
    pub steps: Vec<Step>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub done: Option<Done>,
}

/// The guide a plan comes from.
#[derive(Clone, Debug, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct Guide {
    pub id: String,
    pub title: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub revision: Option<String>,
}

/// A value that can change each time the guide is followed.
#[derive(Clone, Debug, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct Input {
    pub id: String,
    pub name: String,
    pub changes: Changes,
    pub basis: Basis,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub example: Option<String>,
    #[serde(default)]
    pub sensitive: bool,
    pub shape: Shape,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub used_by: Vec<u32>,
}

/// Whether an input changes between runs.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Changes {
    EachTime,
    Same,
}

/// Who marked an input.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Basis {
    Typed,
    Author,
}

/// What kind of text an input holds.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Shape {
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
pub enum ActionKind {
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
    pub number: u32,
    pub label: String,
    pub step_id: String,
    pub action: ActionKind,
    pub text: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub value: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub template: Option<String>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub reads: Vec<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub submit: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub keys: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub click: Option<Click>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub assistant: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub target: Option<Target>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub expect: Option<Expect>,
    #[serde(default)]
    pub confirm: bool,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub confirm_reason: Option<String>,
    /// Words, or an object with `text` and the conditions of an `expect`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub stop_if: Option<Value>,
}

/// How to click.
#[derive(Clone, Debug, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct Click {
    pub button: Button,
    pub count: u8,
    #[serde(default)]
    pub drag: bool,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub modifiers: Vec<String>,
}

/// Which mouse button.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Button {
    Left,
    Right,
    Middle,
}

/// A point as shares of the step's screenshot.
#[derive(Clone, Copy, Debug, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct Point {
    pub x: f64,
    pub y: f64,
}

/// A frame as shares of the step's screenshot.
#[derive(Clone, Copy, Debug, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct Bounds {
    pub x: f64,
    pub y: f64,
    pub width: f64,
    pub height: f64,
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
pub struct Expect {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub app: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub window: Option<String>,
    /// A control's label, or a target object.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub visible: Option<Value>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub field_contains: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub screen_step_id: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub screen: Option<String>,
}

/// What finished looks like.
#[derive(Clone, Debug, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct Done {
    pub text: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub step_id: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub screen: Option<String>,
}
