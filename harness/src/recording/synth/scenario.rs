//! The scenario file (`stepreplay-scenario/1`) as the synthetic suite writes it:
//! [`ScenarioFile`] names a plan and a recording, the input values, the scripted person's
//! answers and what should happen.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};
use serde_json::Value;

/// The schema string of a scenario file.
pub const SCENARIO_SCHEMA: &str = "stepreplay-scenario/1";

/// A scenario file.
#[derive(Clone, Debug, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct ScenarioFile {
    /// Always [`SCENARIO_SCHEMA`].
    pub schema: String,
    /// Stable id.
    pub id: String,
    /// One line.
    pub description: String,
    /// The plan, relative to the scenario file's folder.
    pub plan: String,
    /// A folder under `<suite root>/recordings/`.
    pub recording: String,
    /// Input values.
    #[serde(default)]
    pub inputs: BTreeMap<String, String>,
    /// The scripted person's answers.
    #[serde(default)]
    pub answers: Answers,
    /// Perturbations applied before replay.
    #[serde(default)]
    pub perturbations: Vec<Value>,
    /// What should happen.
    pub expect: ScenarioExpect,
}

/// What the scripted person answers.
#[derive(Clone, Debug, Default, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct Answers {
    /// Per confirm step id: approve or decline.
    #[serde(default)]
    pub confirm: BTreeMap<String, ConfirmAnswer>,
    /// Per sensitive input id: the value given when asked (never written elsewhere).
    #[serde(default)]
    pub sensitive: BTreeMap<String, String>,
    /// Per step id: whether typing may replace text already in the field.
    #[serde(default)]
    pub replace: BTreeMap<String, bool>,
}

/// An answer to a confirm step.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize, Serialize)]
#[serde(rename_all = "kebab-case")]
#[allow(missing_docs)]
pub enum ConfirmAnswer {
    Approve,
    Decline,
}

/// The expected outcome.
#[derive(Clone, Debug, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct ScenarioExpect {
    /// `completed`, `failed` or `stopped`.
    pub outcome: Outcome,
    /// Why, when not completed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
    /// The step where it happens, when not completed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub step_id: Option<String>,
}

/// How a replay ends.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize, Serialize)]
#[serde(rename_all = "kebab-case")]
#[allow(missing_docs)]
pub enum Outcome {
    Completed,
    Failed,
    Stopped,
}
