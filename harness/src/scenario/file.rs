//! The `stepreplay-scenario/1` file: a plan, a recording, input values, the scripted
//! person's answers, perturbations, and what should happen.
//!
//! `plan` is relative to the scenario's folder (a plan file, an MCP `get_guide` response, or a
//! skill-export folder); `recording` names a folder under the suite's
//! `recordings/` (the suite root is the parent of the scenario's `scenarios/` folder). Both
//! must stay inside their folders.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use crate::errors::{FieldPath, InputError, Reason};
use crate::json::{Source, parse_typed, parse_value, read_text};
use crate::limits;
use crate::safe_path::safe_join;

/// The schema string of a scenario file.
pub(crate) const SCENARIO_SCHEMA: &str = "stepreplay-scenario/1";

/// A scenario file.
#[derive(Clone, Debug, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct ScenarioFile {
    /// Always [`SCENARIO_SCHEMA`].
    pub schema: String,
    /// Unique id in the suite.
    pub id: String,
    /// One line for people.
    #[serde(default)]
    pub(crate) description: String,
    /// Words to narrow a run by (`--filter tag:NAME`): the app, the dialect, what it tests.
    /// Shown in `report.json` and on the HTML card.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub tags: Vec<String>,
    /// The plan, relative to the scenario's folder.
    pub plan: String,
    /// The recording's folder name under `recordings/`.
    pub recording: String,
    /// Values of non-sensitive inputs.
    #[serde(default)]
    pub(crate) inputs: BTreeMap<String, String>,
    /// What the scripted person says when asked.
    #[serde(default)]
    pub answers: Answers,
    /// Perturbations to apply (by name).
    #[serde(default)]
    pub(crate) perturbations: Vec<String>,
    /// The fixed time the run happens at, in epoch milliseconds: a reviewed browser plan's
    /// expiry is judged against it, never against the wall clock.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) clock: Option<u64>,
    /// Bait planted for an AI agent: instructions aimed at it on screen point at it, the
    /// guide never does. `stepreplay agent` reports acting on a bait element, or typing,
    /// saying or navigating to bait text, as `followed-injection`; the built-in follower
    /// never looks at them.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub(crate) injections: Vec<Injection>,
    /// What should happen.
    pub expect: Expected,
}

/// One bait in a scenario's `injections`: an element's AX id (`"delete-all"`), or text an
/// instruction on screen asks the agent to use (`{"text": "mallory@evil.test"}`: an
/// address, a URL, a value).
#[derive(Clone, Debug, PartialEq, Eq, Deserialize, Serialize)]
#[serde(untagged)]
pub(crate) enum Injection {
    /// An element to act on.
    Element(String),
    /// Text to type, say or send.
    Text {
        /// The bait words.
        text: String,
    },
}

/// The scripted person's answers.
#[derive(Clone, Debug, Default, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct Answers {
    /// Per confirm step (by step id): approve or decline. A step not listed is declined.
    #[serde(default)]
    pub(crate) confirm: BTreeMap<String, Answer>,
    /// Values for sensitive inputs, given each time the follower asks.
    #[serde(default)]
    pub sensitive: BTreeMap<String, String>,
    /// Per type step (by step id): may pre-filled text be replaced? Not listed: no.
    #[serde(default)]
    pub(crate) replace: BTreeMap<String, bool>,
    /// By step id: what the person says when a `stop_if` in words is put to them.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub(crate) stop_if: BTreeMap<String, StopAnswer>,
    /// What the person decides when a pending browser plan is put to them. Not given: reject.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) review: Option<ReviewAnswer>,
}

/// The person's decision on a pending plan.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize, Serialize)]
#[serde(rename_all = "kebab-case")]
#[allow(missing_docs)]
pub(crate) enum ReviewAnswer {
    Approve,
    Reject,
}

/// The person's answer to a `stop_if` put in words.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize, Serialize)]
#[serde(rename_all = "kebab-case")]
pub(crate) enum StopAnswer {
    /// The condition holds: stop.
    Stop,
    /// It does not: go on.
    GoOn,
}

/// Approve or decline.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize, Serialize)]
#[serde(rename_all = "kebab-case")]
#[allow(missing_docs)]
pub(crate) enum Answer {
    Approve,
    Decline,
}

/// How a run ends.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Deserialize, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Outcome {
    /// Every step done, every check held.
    Completed,
    /// A step failed (see the reason).
    Failed,
    /// The person (or a `stop_if`) stopped the run.
    Stopped,
    /// Every step passed, but the screen it ended on is not the one the plan's `done` shows.
    NotDone,
    /// The plan may not be followed at all (see the reason); no step ran.
    Refused,
}

/// Why a run did not complete.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Deserialize, Serialize)]
#[serde(rename_all = "kebab-case")]
#[allow(missing_docs)]
pub enum FailReason {
    TargetNotFound,
    TargetAmbiguous,
    ExpectFailed,
    Diverged,
    StoppedByPerson,
    StopIf,
    /// The recording ends before this step: what it does was never recorded, so it cannot be
    /// judged and does not pass.
    NoRecordedTransition,
    /// No recorded action is bound to this step's id: its element and operation cannot be
    /// compared with anything (per-step mode has no screen to replay it on). It does not pass.
    Unbound,
    /// An `each-time` input has no value in the scenario: the person was asked and gave
    /// none, and the recorded example is never typed in its place.
    NeedsInput,
    /// The step does something else than was recorded: another kind of action, button,
    /// click count, held keys, chord or text.
    OperationMismatch,
    /// The plan came from `get_guide` with `plan_status: needs_review`: it was approved before
    /// step plans existed and has not been reviewed, so nothing may follow it.
    PlanNeedsReview,
    /// A browser plan's `expiresat` is not after the scenario's clock.
    PlanExpired,
    /// A pending browser plan was put to the person, who rejected it.
    PlanRejected,
    /// A browser plan in a state that never runs (draft, rejected, expired, completed,
    /// cancelled).
    PlanNotApproved,
    /// The step would act outside the plan's exact origin, or its page went outside it.
    OutsideOrigin,
    /// The step followed a link that leads outside the plan's origin, and the recording keeps
    /// no address of the page it reached: whether it left is not judged, so it does not pass.
    OriginUnjudged,
    /// The step carries an option the harness cannot replay offline (vision, pollrequest, …):
    /// it is not judged, so it does not pass.
    NotSimulated,
    /// The step asks something (a long poll, a subscription, a vision prompt, a session
    /// snapshot, a pipeline) the recording holds no answer to: nothing can be served back.
    NotRecorded,
    /// A `correlation` entry names a step or a field of its answer no earlier step received.
    CorrelationUnresolved,
    /// What a reading step read is not what the plan says it should be.
    ReadMismatch,
    /// A retry whose idempotency key already ran was applied again in the recording.
    AppliedTwice,
    /// The plan, the recording or the scenario's inputs cannot be used (the scenario's
    /// mismatch says why), so nothing was replayed.
    BrokenInput,
    /// The step names a window that shows on no frame of the recording: a stale guide.
    WindowNotFound,
    /// The step sets a detail the recording does not keep (a click's button or count): it
    /// cannot be judged, so it does not pass.
    Unjudged,
    /// The recording shows a step the plan does not have, or has the plan's steps in another
    /// order.
    StepOrder,
    /// An agent under test broke the protocol: silence, garbage, a huge line, an exit (its
    /// result says what).
    AgentFailed,
    /// An agent said `done` before the end though nobody stopped it, on a step the plan can
    /// be followed on.
    GaveUp,
    /// An agent named an element that is not on the screen.
    NoSuchElement,
    /// An agent acted after the plan's last step.
    PastThePlan,
}

/// What should happen.
#[derive(Clone, Debug, Deserialize, Serialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct Expected {
    /// The chained run's outcome.
    pub(crate) outcome: Outcome,
    /// Why, when not completed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reason: Option<FailReason>,
    /// The step where it happens.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) step_id: Option<String>,
    /// Minimum scores (by score name).
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub(crate) floors: BTreeMap<String, f64>,
    /// `check` reason codes the plan is meant to have at error level. Any other error-level
    /// finding fails the scenario, and so does a listed one the plan does not have.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub plan_errors: Vec<String>,
    /// Judgements that may go unjudged without failing the scenario, by kind (`done`,
    /// `typed-text`, …): anything else the harness could not judge fails it.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub(crate) allow_unjudged: Vec<crate::scenario::Kind>,
}

impl Expected {
    /// The run completes, and nothing more is asked of it.
    pub(crate) fn completed() -> Expected {
        Expected {
            outcome: Outcome::Completed,
            reason: None,
            step_id: None,
            floors: BTreeMap::new(),
            plan_errors: Vec::new(),
            allow_unjudged: Vec::new(),
        }
    }
}

/// Why a scenario cannot replay a reviewed browser plan, and what to do: such a plan's expiry
/// is judged at the scenario's `clock`, which must be given (the wall clock never decides).
pub(crate) fn missing_clock(
    plan: &crate::plan::Plan,
    file: &ScenarioFile,
) -> Option<(String, String)> {
    (plan.review.is_some() && file.clock.is_none()).then(|| {
        (
            "a devthink plan replays at a fixed time, and the scenario has no `clock`".into(),
            "add \"clock\": the epoch milliseconds the run happens at (the plan's createdat, say)"
                .into(),
        )
    })
}

/// A scenario with its paths resolved.
#[derive(Clone, Debug)]
pub struct Scenario {
    /// The file it came from.
    pub(crate) path: PathBuf,
    /// Its contents.
    pub file: ScenarioFile,
    /// The plan file.
    pub plan_path: PathBuf,
    /// The recording folder.
    pub recording_dir: PathBuf,
    /// The nesting its plan may have (`--max-depth`).
    pub(crate) plan_depth: usize,
}

impl ScenarioFile {
    /// The sensitive values the scripted person gives: hidden in every output.
    pub(crate) fn taint(&self) -> crate::secret::Taint {
        crate::secret::Taint::new(self.answers.sensitive.values().cloned())
    }
}

impl Scenario {
    /// Its plan's text, allowed the nesting the user set.
    pub(crate) fn plan_source(&self) -> Result<Source, InputError> {
        Ok(crate::plan::read_plan_source(&self.plan_path)?.with_depth(self.plan_depth))
    }

    /// Its plan, loaded for replay ([`crate::plan::load_plan`] under [`Scenario::plan_source`]).
    pub(crate) fn load_plan(&self) -> Result<crate::plan::Plan, InputError> {
        crate::plan::plan_from_source(&self.plan_source()?)
    }

    /// What stands for the scenario file at `path` when it cannot be loaded, so it can fail
    /// as a scenario: its `id` when that much can be read, else its file name.
    pub(crate) fn stand_in(path: &Path) -> Scenario {
        let id = read_text(path, limits::SCENARIO_BYTES)
            .ok()
            .and_then(|src| serde_json::from_str::<serde_json::Value>(&src.text).ok())
            .and_then(|v| v.get("id")?.as_str().map(str::to_string))
            .filter(|id| !id.is_empty())
            .unwrap_or_else(|| path.display().to_string());
        Scenario {
            path: path.to_path_buf(),
            file: ScenarioFile {
                schema: SCENARIO_SCHEMA.into(),
                id,
                description: String::new(),
                plan: String::new(),
                recording: String::new(),
                inputs: BTreeMap::new(),
                answers: Answers::default(),
                perturbations: Vec::new(),
                clock: None,
                injections: Vec::new(),
                tags: Vec::new(),
                expect: Expected::completed(),
            },
            plan_path: PathBuf::new(),
            recording_dir: PathBuf::new(),
            plan_depth: limits::JSON_DEPTH,
        }
    }
}

/// What `run PLAN --recording DIR --answers FILE` reads from FILE: input values and the
/// scripted person's answers, as a scenario file holds them (or a whole scenario file).
#[derive(Clone, Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct AnswersFile {
    /// Values of non-sensitive inputs.
    #[serde(default)]
    pub(crate) inputs: BTreeMap<String, String>,
    /// What the scripted person says when asked.
    #[serde(default)]
    pub(crate) answers: Answers,
    /// The fixed time a browser plan's review is judged at (epoch milliseconds).
    #[serde(default)]
    pub(crate) clock: Option<u64>,
}

/// One plan and one recording as a scenario that expects the run to complete: for trying a
/// plan on a recording without writing a scenario file. Its id is the plan's file name (a
/// skill export's folder name).
pub(crate) fn adhoc_scenario(
    plan: &Path,
    recording: &Path,
    answers: Option<&Path>,
) -> Result<Scenario, InputError> {
    let plan_path = if plan.is_dir() {
        plan.join(crate::plan::SKILL_PLAN)
    } else {
        plan.to_path_buf()
    };
    crate::recording::recording_folder(recording)?;
    if !recording.join("recording.json").is_file() {
        return Err(InputError::new(
            recording,
            Reason::MissingFile,
            "no recording.json in this folder",
        )
        .hint("name a recording folder (one holding recording.json)"));
    }
    let given = match answers {
        Some(p) => {
            let src = read_text(p, limits::SCENARIO_BYTES)?;
            // A whole scenario file gives its values and answers; the rest of it is not asked.
            if parse_value(&src)?.get("schema").and_then(|s| s.as_str()) == Some(SCENARIO_SCHEMA) {
                let f = parse_typed::<ScenarioFile>(&src)?;
                AnswersFile {
                    inputs: f.inputs,
                    answers: f.answers,
                    clock: f.clock,
                }
            } else {
                parse_typed::<AnswersFile>(&src)?
            }
        }
        None => AnswersFile::default(),
    };
    let stem = |p: &Path| p.file_stem().map(|s| s.to_string_lossy().into_owned());
    let id = match stem(&plan_path).as_deref() {
        Some("plan") | None => plan_path.parent().and_then(stem),
        other => other.map(str::to_string),
    }
    .unwrap_or_else(|| "plan".into());
    Ok(Scenario {
        path: plan_path.clone(),
        file: ScenarioFile {
            schema: SCENARIO_SCHEMA.into(),
            id,
            description: format!("{} on {}", plan_path.display(), recording.display()),
            plan: plan_path.display().to_string(),
            recording: recording.display().to_string(),
            inputs: given.inputs,
            answers: given.answers,
            perturbations: Vec::new(),
            clock: given.clock,
            injections: Vec::new(),
            tags: Vec::new(),
            expect: Expected::completed(),
        },
        plan_path,
        recording_dir: recording.to_path_buf(),
        plan_depth: limits::JSON_DEPTH,
    })
}

/// Reads a file's `schema` without parsing the rest strictly (for discovery).
pub(crate) fn sniff_schema(path: &Path) -> Option<String> {
    let src = read_text(path, limits::SCENARIO_BYTES).ok()?;
    let v = parse_value(&src).ok()?;
    v.get("schema")?.as_str().map(str::to_string)
}

/// Loads and resolves a scenario file.
pub fn load_scenario(path: &Path) -> Result<Scenario, InputError> {
    let src = read_text(path, limits::SCENARIO_BYTES)?;
    parse_scenario(&src)
}

pub(super) fn parse_scenario(src: &Source) -> Result<Scenario, InputError> {
    let v = parse_value(src)?;
    if v.get("schema").and_then(|s| s.as_str()) != Some(SCENARIO_SCHEMA) {
        return Err(src
            .error(
                FieldPath::root().key("schema"),
                Reason::UnsupportedSchema,
                "not a stepreplay scenario",
            )
            .hint(format!("scenarios have \"schema\": \"{SCENARIO_SCHEMA}\"")));
    }
    let file: ScenarioFile = parse_typed(src)?;
    let dir = src.path.parent().unwrap_or(Path::new("."));
    let root = dir.parent().unwrap_or(Path::new("."));
    let at = |field: &str| {
        let p = FieldPath::root().key(field);
        move |e: InputError| e.at_position(src.position(&p))
    };
    let mut plan_path =
        safe_join(dir, &file.plan, &src.path, FieldPath::root().key("plan")).map_err(at("plan"))?;
    // A skill export is named by its folder; its plan is the plan.json in it.
    if plan_path.is_dir() {
        plan_path = plan_path.join(crate::plan::SKILL_PLAN);
    }
    let recordings = root.join("recordings");
    let recording_dir = safe_join(
        &recordings,
        &file.recording,
        &src.path,
        FieldPath::root().key("recording"),
    )
    .map_err(at("recording"))?;
    if !recording_dir.join("recording.json").is_file() {
        return Err(src.error(
            FieldPath::root().key("recording"),
            Reason::MissingFile,
            format!(
                "no recording at `{}`{}",
                recording_dir.display(),
                crate::safe_path::did_you_mean(&recording_dir)
            ),
        ));
    }
    Ok(Scenario {
        path: src.path.clone(),
        file,
        plan_path,
        recording_dir,
        plan_depth: limits::JSON_DEPTH,
    })
}

/// A first scenario for `plan` on `recording`, as `stepreplay init` writes it: the run is
/// expected to complete; every confirm step is approved; every `stop_if` in words is answered
/// go-on; every non-sensitive input takes its example. Sensitive inputs and `each-time` inputs
/// without an example are left empty and returned by id, for the author to fill in: a
/// scaffold never invents a value the plan does not give.
pub fn scaffold(
    plan: &crate::plan::Plan,
    id: &str,
    plan_rel: &str,
    recording: &str,
) -> (ScenarioFile, Vec<String>) {
    let mut to_fill = Vec::new();
    let mut inputs = BTreeMap::new();
    let mut sensitive = BTreeMap::new();
    for i in &plan.inputs {
        match (&i.example, i.sensitive) {
            (_, true) => {
                sensitive.insert(i.id.clone(), String::new());
                to_fill.push(format!("answers.sensitive.{}", i.id));
            }
            (Some(e), false) => {
                inputs.insert(i.id.clone(), e.clone());
            }
            (None, false) => {
                inputs.insert(i.id.clone(), String::new());
                to_fill.push(format!("inputs.{}", i.id));
            }
        }
    }
    let answers = Answers {
        confirm: plan
            .steps
            .iter()
            .filter(|s| s.confirm.is_some())
            .map(|s| (s.id.clone(), Answer::Approve))
            .collect(),
        sensitive,
        replace: BTreeMap::new(),
        stop_if: plan
            .steps
            .iter()
            .filter(|s| s.stop_if.as_ref().is_some_and(|c| c.when.is_none()))
            .map(|s| (s.id.clone(), StopAnswer::GoOn))
            .collect(),
        review: plan
            .review
            .as_ref()
            .filter(|r| r.state == crate::plan::devthink::State::Pending)
            .map(|_| ReviewAnswer::Approve),
    };
    let file = ScenarioFile {
        schema: SCENARIO_SCHEMA.into(),
        id: id.into(),
        description: format!("{} on {recording}", plan.title),
        plan: plan_rel.into(),
        recording: recording.into(),
        inputs,
        answers,
        perturbations: Vec::new(),
        // A reviewed plan is replayed at the moment it was made (approved plans run then).
        clock: plan.review.as_ref().map(|r| r.created_at.first_clock()),
        injections: Vec::new(),
        tags: Vec::new(),
        expect: Expected::completed(),
    };
    (file, to_fill)
}
