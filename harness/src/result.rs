//! What running one scenario yields, before any report is folded from it: a plan replayed
//! against a recording, or a bridge batch played through the StepBack simulator. The two share
//! only an id, a verdict and why; everything else is their own, so neither carries the other's
//! fields empty.

use serde::Serialize;

use crate::bridge::scenario::BridgeScenarioResult;
use crate::errors::Position;
use crate::plan::check::Finding;
use crate::replay::{Robustness, Trace};
use crate::scenario::{Expected, Scenario};

/// One scenario's result.
#[derive(Clone, Debug)]
pub struct ScenarioResult {
    /// Scenario id.
    pub id: String,
    /// The scenario file, as found.
    pub(crate) file: String,
    /// One line for people.
    pub(crate) description: String,
    /// The scenario file's tags.
    pub(crate) tags: Vec<String>,
    /// Whether it went as declared (for a plan, the first mode decides).
    pub met: bool,
    /// Why not.
    pub mismatch: Option<Mismatch>,
    /// The error that kept the scenario from being replayed at all (its plan, recording or
    /// scenario file cannot be used); the mismatch then says it in words.
    pub(crate) broken: Option<crate::errors::InputError>,
    /// What ran.
    pub(crate) run: Ran,
    /// What an agent under test did beyond its trace, when one was at the controls.
    pub(crate) agent: Option<AgentFacts>,
    /// The values its run learned from sensitive inputs: hidden in every output.
    pub(crate) taint: crate::secret::Taint,
    /// Wall-clock time it took. Never in `report.json` (which must be the same bytes every
    /// run); the terminal and `junit.xml` show it.
    pub duration: std::time::Duration,
}

/// What an agent under test did that its trace does not say: how long it talked, why it
/// failed, whether it left planted instructions alone, and every safety rule it broke.
#[derive(Clone, Debug, Default, PartialEq, Serialize, serde::Deserialize)]
pub struct AgentFacts {
    /// Messages the agent sent.
    pub turns: usize,
    /// Why the agent's run ended early, in words (a protocol failure, a wrong act).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub detail: Option<String>,
    /// On a scenario with planted instructions: whether the agent left them alone.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub injection_resistant: Option<bool>,
    /// On a scenario with planted instructions: whether an attack succeeded (it followed one,
    /// or carried data off), as agent benchmarks count attack success.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub attack_succeeded: Option<bool>,
    /// Safety rules broken, in order (a desktop run's are its trace's `violated` events).
    pub violations: Vec<Violation>,
    /// On the bridge: what became of the agent's commands.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub bridge: Option<serde_json::Value>,
}

/// A safety rule an agent broke.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, serde::Deserialize)]
pub struct Violation {
    /// The rule's reason code.
    pub rule: String,
    /// The plan step it happened on.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub step: Option<String>,
    /// What happened (never a sensitive value).
    pub detail: String,
}

/// Why a scenario was not as declared.
#[derive(Clone, Debug)]
pub struct Mismatch {
    /// What kind of thing differed: it tells a reporter where to point.
    pub cause: Cause,
    /// What differed, in words.
    pub text: String,
}

/// What kind of thing made a scenario miss its expectation. Reporters point at a different
/// place for each: a plan error at its field, a wrong outcome at the step the run stopped on.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Cause {
    /// A frame the replay stood on could not be decoded.
    UnreadableFrame,
    /// The run ended otherwise (or for another reason) than declared.
    Outcome,
    /// The run ended at another step than declared.
    Step,
    /// The plan has check errors the scenario did not declare, or lacks one it did.
    PlanError,
    /// A score is below its floor.
    Floor,
    /// A bridge batch's outcomes, state or safety differ.
    Bridge,
    /// The plan, the recording or the scenario's inputs cannot be used: broken input, not a
    /// replay that went wrong.
    BrokenInput,
    /// An agent under test broke a safety rule: compliance, apart from skill.
    Violation,
    /// Something the expectation needs could not be judged (the plan's `done`), and the
    /// scenario does not allow that kind by name.
    Unjudged,
}

/// What a scenario ran.
#[derive(Clone, Debug)]
pub(crate) enum Ran {
    /// A plan replayed on a recording, in every mode asked.
    Plan(PlanRun),
    /// A bridge batch: each command's outcome, the final state, safety.
    Bridge(BridgeScenarioResult),
    /// An agent on the StepBack bridge: what it did is in the result's `agent`.
    Agent,
}

/// A plan replayed on a recording.
#[derive(Clone, Debug)]
pub(crate) struct PlanRun {
    /// The plan file.
    pub(crate) plan: String,
    /// The recording folder.
    pub(crate) recording: String,
    /// What should have happened.
    pub(crate) expected: Expected,
    /// The plan's steps.
    pub(crate) steps: Vec<StepInfo>,
    /// One trace per mode, in the order asked.
    pub(crate) traces: Vec<Trace>,
    /// How the steps fare under perturbations, when any were asked for.
    pub(crate) robustness: Option<Robustness>,
    /// What `check` finds against the plan at error level (or why it was refused).
    pub(crate) plan_errors: Vec<Finding>,
    /// `check`'s other findings against the plan: shown, never failing the run.
    pub(crate) plan_warnings: Vec<Finding>,
    /// Screenshots the replay was on that cannot be decoded, with why.
    pub(crate) unreadable: Vec<String>,
    /// The plan's own secret texts (a browser step's `secret` text, a sensitive input's
    /// example): tainted like the person's answers.
    pub(crate) secrets: crate::secret::Taint,
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
            plan_warnings: Vec::new(),
            unreadable: Vec::new(),
            secrets: crate::secret::Taint::default(),
        }
    }
}

impl ScenarioResult {
    /// The error that kept the scenario from being replayed, if one did.
    pub(crate) fn broken_input(&self) -> Option<&crate::errors::InputError> {
        self.broken.as_ref()
    }

    /// The traces of a plan run (none for a bridge batch).
    pub(crate) fn traces(&self) -> &[Trace] {
        match &self.run {
            Ran::Plan(p) => &p.traces,
            Ran::Bridge(_) | Ran::Agent => &[],
        }
    }
}

/// A step as reports show it.
#[derive(Clone, Debug, Serialize)]
pub(crate) struct StepInfo {
    /// Step id.
    pub(crate) id: String,
    /// The step's number in the plan, from 1.
    pub(crate) number: u32,
    /// Action name.
    pub(crate) action: &'static str,
    /// The guide's words for it.
    pub(crate) text: String,
    /// Where the step is written in the plan file.
    pub(crate) position: Option<Position>,
    /// Where its target is named (the label, else the target).
    pub(crate) target_position: Option<Position>,
    /// Where it names its window: in `target`, then in `expect`.
    pub(crate) window_positions: (Option<Position>, Option<Position>),
    /// For a step that sends a prompt to an AI app, which assistant.
    pub(crate) assistant: Option<String>,
    /// Whether the guide has a picture of the step's control (steps with a target).
    pub(crate) crop_available: Option<bool>,
}
