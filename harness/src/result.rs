//! What running one scenario yields, before any report is folded from it: a plan replayed
//! against a recording, or a bridge batch played through the StepBack simulator. The two share
//! only an id, a verdict and why; everything else is their own, so neither carries the other's
//! fields empty.

use serde::Serialize;

use crate::bridge::scenario::BridgeScenarioResult;
use crate::errors::Position;
use crate::plan::check::Finding;
use crate::replay::{Expected, Robustness, Scenario, Trace};

/// One scenario's result.
#[derive(Clone, Debug)]
pub struct ScenarioResult {
    /// Scenario id.
    pub id: String,
    /// The scenario file, as found.
    pub file: String,
    /// One line for people.
    pub description: String,
    /// Whether it went as declared (for a plan, the first mode decides).
    pub met: bool,
    /// Why not, in words.
    pub mismatch: Option<String>,
    /// What ran.
    pub run: Ran,
}

/// What a scenario ran.
#[derive(Clone, Debug)]
pub enum Ran {
    /// A plan replayed on a recording, in every mode asked.
    Plan(PlanRun),
    /// A bridge batch: each command's outcome, the final state, safety.
    Bridge(BridgeScenarioResult),
}

/// A plan replayed on a recording.
#[derive(Clone, Debug)]
pub struct PlanRun {
    /// The plan file.
    pub plan: String,
    /// The recording folder.
    pub recording: String,
    /// What should have happened.
    pub expected: Expected,
    /// The plan's steps.
    pub steps: Vec<StepInfo>,
    /// One trace per mode, in the order asked.
    pub traces: Vec<Trace>,
    /// How the steps fare under perturbations, when any were asked for.
    pub robustness: Option<Robustness>,
    /// What `check` finds against the plan at error level (or why it was refused).
    pub plan_errors: Vec<Finding>,
    /// Screenshots the replay was on that cannot be decoded, with why.
    pub unreadable: Vec<String>,
}

impl PlanRun {
    /// A plan scenario's run, before robustness and before it is judged.
    pub(crate) fn of(
        s: &Scenario,
        steps: Vec<StepInfo>,
        traces: Vec<Trace>,
        plan_errors: Vec<Finding>,
    ) -> Self {
        PlanRun {
            plan: s.plan_path.display().to_string(),
            recording: s.recording_dir.display().to_string(),
            expected: s.file.expect.clone(),
            steps,
            traces,
            robustness: None,
            plan_errors,
            unreadable: Vec::new(),
        }
    }
}

impl ScenarioResult {
    /// The traces of a plan run (none for a bridge batch).
    pub fn traces(&self) -> &[Trace] {
        match &self.run {
            Ran::Plan(p) => &p.traces,
            Ran::Bridge(_) => &[],
        }
    }
}

/// A step as reports show it.
#[derive(Clone, Debug, Serialize)]
pub struct StepInfo {
    /// Step id.
    pub id: String,
    /// The step's number in the plan, from 1.
    pub number: u32,
    /// Action name.
    pub action: &'static str,
    /// The guide's words for it.
    pub text: String,
    /// Where the step is written in the plan file.
    pub position: Option<Position>,
    /// For a step that sends a prompt to an AI app, which assistant.
    pub assistant: Option<String>,
    /// Whether the guide has a picture of the step's control (steps with a target).
    pub crop_available: Option<bool>,
}
