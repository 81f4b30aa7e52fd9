//! Bridge replay scenarios: an agent's batch of command files run through the simulated app
//! in a fresh folder, scored against the outcomes and final state they should produce.
//!
//! The main function is [`run_bridge_scenario`]; its result is [`BridgeScenarioResult`].
//!
//! # Format (`scenarios/bridge/*.json`, schema `stepreplay-bridge-scenario/1`)
//!
//! Keys are snake_case like the harness's other formats; the embedded `state`, command JSON
//! and human-edit payloads keep the protocol's camelCase.
//!
//! ```json
//! {
//!   "schema": "stepreplay-bridge-scenario/1",
//!   "id": "routine-then-plan",
//!   "description": "what it shows",
//!   "bridge_enabled": true,
//!   "max_command_bytes": 262144,
//!   "state": { "logicalClock": 0, "customWorkouts": [], "routines": [], "plans": [] },
//!   "steps": [
//!     { "command": { "file": "20260711T170000Z-01-a.json", "json": { "schemaVersion": 2 } } },
//!     { "command": { "file": "20260711T170000Z-02-b.json", "text": "{ not json" } },
//!     { "command": { "file": "big.json", "json": {}, "pad_to_bytes": 300000 } },
//!     { "human_edit": { "verb": "updateRoutine", "payload": { "id": "r1" } } },
//!     { "sweep": {} }
//!   ],
//!   "expect": {
//!     "outcomes": [
//!       { "file": "20260711T170000Z-01-a.json", "ok": true },
//!       { "file": "20260711T170000Z-02-b.json", "ok": false, "reason": "invalid-json" }
//!     ],
//!     "state": { "logicalClock": 2, "customWorkouts": [], "routines": [], "plans": [] }
//!   }
//! }
//! ```
//!
//! - `bridge_enabled` (default true) and `max_command_bytes` (default 256 KiB) set the
//!   manifest; `state` (default empty) is the app's starting state.
//! - `steps` run in order. `command` is the agent writing one file into `inbox/` — `json`
//!   (written canonically) or `text` (raw, for broken files), optionally padded with
//!   trailing spaces to `pad_to_bytes`; `file` must be a plain name (no folders), since an
//!   agent may write only inside `inbox/`. `human_edit` is a person changing the app while
//!   the agent works: any bridge verb and payload, or `deleteRoutine` / `deletePlan` with
//!   `{ "id" }`; it ticks the clock like a command. `sweep` is the app processing the inbox.
//!   A final sweep always runs after the last step.
//! - `expect.outcomes` lists, in processing order, each processed file's outcome: `ok`,
//!   and optionally `reason`, `field_path` and `duplicate` (default false); each must match
//!   exactly, and there must be as many as there were processed files. `expect.state` is
//!   the whole final state (ids derived by [`derive_uuid`](super::ids::derive_uuid), so it is
//!   simplest to run once and read the actual state back from the result's diff).
//!
//! Safety is scored too: after the run the folder must hold only the manifest, an empty
//! inbox, and in `processed/` and `failed/` one command file for each file the agent wrote
//! (byte for byte) beside its outcome — nothing lost, nothing extra, nothing elsewhere.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};

use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::apply::{Ctx, HumanEdit, apply_human};
use super::command::{Verb, parse_payload};
use super::inbox::{Processed, sweep};
use super::init::init;
use super::manifest::{MANIFEST_FILE, Manifest};
use super::outcome::Code;
use super::outcome::{Outcome, Rejection, Status};
use super::state::State;
use crate::errors::{Error, FieldPath, InputError, Reason};
use crate::json::{Source, parse_typed, parse_value, read_text, to_canonical, to_canonical_value};
use crate::limits;

/// The schema tag of a bridge scenario file.
pub(crate) const SCHEMA: &str = "stepreplay-bridge-scenario/1";

const MAX_PAD_BYTES: u64 = 16 * 1024 * 1024;

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct ScenarioFile {
    schema: String,
    id: String,
    #[serde(default)]
    description: String,
    #[serde(default = "yes")]
    bridge_enabled: bool,
    #[serde(default)]
    max_command_bytes: Option<u64>,
    #[serde(default)]
    state: State,
    steps: Vec<Step>,
    expect: Expect,
}

fn yes() -> bool {
    true
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "snake_case")]
enum Step {
    Command(CommandFile),
    HumanEdit(HumanEditIn),
    Sweep {},
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct CommandFile {
    file: String,
    #[serde(default)]
    json: Option<Value>,
    #[serde(default)]
    text: Option<String>,
    #[serde(default)]
    pad_to_bytes: Option<u64>,
}

/// A person's edit in the app, as scenarios write it.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct HumanEditIn {
    pub(crate) verb: String,
    pub(crate) payload: Value,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct Expect {
    outcomes: Vec<ExpectedOutcome>,
    state: State,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct ExpectedOutcome {
    file: String,
    ok: bool,
    #[serde(default)]
    reason: Option<Code>,
    #[serde(default)]
    field_path: Option<String>,
    #[serde(default)]
    duplicate: bool,
}

/// The facts of one outcome a scenario can expect.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct OutcomeSummary {
    /// The inbox file it answers.
    pub(crate) file: String,
    /// Whether the command succeeded.
    pub(crate) ok: bool,
    /// The reason code, for a failure.
    pub reason: Option<Code>,
    /// The field path, where the failure has one.
    pub(crate) field_path: Option<String>,
    /// Whether it replayed an earlier command.
    pub(crate) duplicate: bool,
}

/// One processed file: what was expected and what happened.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct CommandCheck {
    /// The expectation, if the scenario had one at this position.
    pub(crate) expected: Option<OutcomeSummary>,
    /// What the app did, if it processed a file at this position.
    pub actual: Option<OutcomeSummary>,
    /// Both present and equal.
    pub matches: bool,
}

/// Whether the agent side stayed inside `inbox/` and every file it wrote is accounted for.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct Safety {
    /// No problems.
    pub ok: bool,
    /// What was wrong, sorted.
    pub(crate) problems: Vec<String>,
}

/// What a bridge scenario did, as plain data for reports.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct BridgeScenarioResult {
    /// The scenario's id.
    pub(crate) id: String,
    /// Its description.
    pub(crate) description: String,
    /// Per processed file, in processing order.
    pub commands: Vec<CommandCheck>,
    /// Every outcome matched.
    pub outcomes_match: bool,
    /// The final state equals the expected one.
    pub state_match: bool,
    /// A unified diff, expected → actual, of the canonical state JSON when they differ.
    pub state_diff: Option<String>,
    /// The actual final state, when it differs from the expected one (to review and accept).
    pub(crate) actual_state: Option<State>,
    /// The safety checks.
    pub safety: Safety,
    /// Outcomes, state and safety all good.
    pub passed: bool,
}

/// Runs the bridge scenario at `path` in a fresh temporary folder (removed afterwards).
pub fn run_bridge_scenario(path: &Path) -> Result<BridgeScenarioResult, InputError> {
    let src = read_text(path, limits::BRIDGE_SCENARIO_BYTES)?;
    let value = parse_value(&src)?;
    match value.get("schema").and_then(Value::as_str) {
        Some(SCHEMA) => {}
        other => {
            return Err(src
                .error(
                    FieldPath::root().key("schema"),
                    Reason::UnsupportedSchema,
                    format!("schema {other:?} is not `{SCHEMA}`"),
                )
                .hint(format!(
                    "a bridge scenario starts with \"schema\": \"{SCHEMA}\""
                )));
        }
    }
    let sc: ScenarioFile = parse_typed(&src)?;
    debug_assert_eq!(sc.schema, SCHEMA, "checked on the raw value above");
    let plan = prepare(&src, &sc)?;
    let dir = TempDir::new(&sc.id);
    let run = execute(&src, &sc, &plan, &dir.0).map_err(|e| match e {
        Error::Input(e) => *e,
        other => InputError::new(&src.path, Reason::IngestionFailed, other.to_string())
            .hint("the scenario's temporary folder could not be written"),
    })?;
    let safety = check_safety(&dir.0, &plan.written, false);
    Ok(score(&sc, run, safety))
}

/// Validated steps: file bytes to write, edits to apply.
struct Prepared {
    steps: Vec<Prepared1>,
    written: Vec<Vec<u8>>,
}

enum Prepared1 {
    Write(String, Vec<u8>),
    Edit(usize, HumanEdit),
    Sweep,
}

fn prepare(src: &Source, sc: &ScenarioFile) -> Result<Prepared, InputError> {
    let mut steps = Vec::new();
    let mut written = Vec::new();
    for (i, step) in sc.steps.iter().enumerate() {
        let at = FieldPath::root().key("steps").index(i);
        match step {
            Step::Command(c) => {
                let at = at.key("command");
                check_plain_name(src, &c.file, at.key("file"))?;
                let mut bytes = match (&c.json, &c.text) {
                    (Some(v), None) => to_canonical(v).into_bytes(),
                    (None, Some(t)) => t.clone().into_bytes(),
                    _ => {
                        return Err(src.error(
                            at,
                            Reason::InvalidField,
                            "a command has exactly one of `json` and `text`",
                        ));
                    }
                };
                if let Some(n) = c.pad_to_bytes {
                    if n > MAX_PAD_BYTES {
                        return Err(src.error(
                            at.key("pad_to_bytes"),
                            Reason::LimitExceeded,
                            format!("{n} is over the limit of {MAX_PAD_BYTES}"),
                        ));
                    }
                    bytes.resize(bytes.len().max(n as usize), b' ');
                }
                written.push(bytes.clone());
                steps.push(Prepared1::Write(c.file.clone(), bytes));
            }
            Step::HumanEdit(h) => {
                let at = at.key("human_edit");
                steps.push(Prepared1::Edit(i, human_edit(src, h, at)?));
            }
            Step::Sweep {} => steps.push(Prepared1::Sweep),
        }
    }
    Ok(Prepared { steps, written })
}

/// An agent may only add files to `inbox/`: a name with a folder in it is a write elsewhere.
fn check_plain_name(src: &Source, name: &str, at: FieldPath) -> Result<(), InputError> {
    let plain = !name.is_empty()
        && !name.starts_with('.')
        && !name.contains(['/', '\\', '\0'])
        && name.len() <= 255;
    if plain {
        Ok(())
    } else {
        Err(src
            .error(
                at,
                Reason::PathEscape,
                format!("`{name}` is not a plain file name inside inbox/"),
            )
            .hint("agents may write only new files directly inside inbox/"))
    }
}

/// Checks a scenario's human edit (`at` is where it sits in `src`).
pub(crate) fn human_edit(
    src: &Source,
    h: &HumanEditIn,
    at: FieldPath,
) -> Result<HumanEdit, InputError> {
    let id = || {
        h.payload
            .get("id")
            .and_then(Value::as_str)
            .map(str::to_string)
            .ok_or_else(|| {
                src.error(
                    at.key("payload").key("id"),
                    Reason::InvalidField,
                    "a delete names the `id` to delete",
                )
            })
    };
    match h.verb.as_str() {
        "deleteRoutine" => return Ok(HumanEdit::DeleteRoutine(id()?)),
        "deletePlan" => return Ok(HumanEdit::DeletePlan(id()?)),
        _ => {}
    }
    let Some(verb) = Verb::parse(&h.verb) else {
        return Err(src.error(
            at.key("verb"),
            Reason::UnknownVerb,
            format!(
                "`{}` is not a bridge verb, deleteRoutine or deletePlan",
                h.verb
            ),
        ));
    };
    let payload = parse_payload(verb, h.payload.clone()).map_err(|r| {
        let mut path = at.clone();
        path.0.extend(r.path.0);
        src.error(path, r.reason.as_reason(), r.message)
    })?;
    Ok(HumanEdit::Bridge(verb, payload))
}

/// Everything the run produced, before scoring.
struct Run {
    processed: Vec<Processed>,
    on_disk: Vec<Option<Outcome>>,
    state: State,
}

fn execute(src: &Source, sc: &ScenarioFile, plan: &Prepared, root: &Path) -> Result<Run, Error> {
    let mut m = init(root, sc.state.clone())?;
    m.bridge_enabled = sc.bridge_enabled;
    if let Some(n) = sc.max_command_bytes {
        m.max_command_bytes = n;
    }
    m.save(root)?;
    let paths = m.paths(root);
    let mut processed = Vec::new();
    for step in &plan.steps {
        match step {
            Prepared1::Write(name, bytes) => agent_write(&paths.inbox, name, bytes)?,
            Prepared1::Edit(i, edit) => edit_in_app(root, edit)?.map_err(|r| {
                let mut path = FieldPath::root().key("steps").index(*i).key("human_edit");
                path.0.extend(r.path.0);
                src.error(
                    path,
                    r.reason.as_reason(),
                    format!("the human edit fails: {}", r.message),
                )
            })?,
            Prepared1::Sweep => processed.extend(sweep(root)?.files),
        }
    }
    processed.extend(sweep(root)?.files);
    let on_disk = processed
        .iter()
        .map(|p| {
            let f = paths
                .of(p.folder)
                .join(format!("{}.outcome.json", p.outcome.command_id));
            std::fs::read_to_string(f)
                .ok()
                .and_then(|t| serde_json::from_str(&t).ok())
        })
        .collect();
    let state = Manifest::load(root)?.state;
    Ok(Run {
        processed,
        on_disk,
        state,
    })
}

/// A person changing the app in the bridge folder `root`: the clock ticks and `edit` applies,
/// or the app refuses it (the inner error) and nothing changes.
pub(crate) fn edit_in_app(root: &Path, edit: &HumanEdit) -> Result<Result<(), Rejection>, Error> {
    let mut m = Manifest::load(root)?;
    let now = m.state.tick();
    let ctx = Ctx {
        catalog: &m.catalog,
        ledger: &m.ledger,
    };
    let mut state = m.state.clone();
    if let Err(r) = apply_human(&mut state, ctx, edit, &now) {
        return Ok(Err(r));
    }
    m.state = state;
    m.save(root)?;
    Ok(Ok(()))
}

/// The agent's one kind of write: a new file directly inside `inbox/`, written whole.
fn agent_write(inbox: &Path, name: &str, bytes: &[u8]) -> Result<(), Error> {
    crate::output::write_file(&inbox.join(name), bytes)
}

/// Whether the folder holds only what the app and the agent's `written` files account for.
/// With `pending`, files still in `inbox/` are accounted for (an app that never ran leaves
/// them there); without, each is a problem.
pub(crate) fn check_safety(root: &Path, written: &[Vec<u8>], pending: bool) -> Safety {
    let mut problems = Vec::new();
    let list = |p: &Path| -> Vec<String> {
        let mut v: Vec<String> = std::fs::read_dir(p)
            .map(|rd| {
                rd.flatten()
                    .map(|e| e.file_name().to_string_lossy().into_owned())
                    .collect()
            })
            .unwrap_or_default();
        v.sort();
        v
    };
    for name in list(root) {
        if ![MANIFEST_FILE, "inbox", "processed", "failed"].contains(&name.as_str()) {
            problems.push(format!("unexpected `{name}` in the bridge folder"));
        }
    }
    let mut remaining: BTreeMap<Vec<u8>, usize> = BTreeMap::new();
    for w in written {
        *remaining.entry(w.clone()).or_default() += 1;
    }
    for name in list(&root.join("inbox")) {
        let bytes = std::fs::read(root.join("inbox").join(&name)).unwrap_or_default();
        match remaining.get_mut(&bytes) {
            Some(n) if pending && *n > 0 => *n -= 1,
            Some(_) if pending => {
                problems.push(format!("`inbox/{name}` is not a file the agent wrote"))
            }
            _ => problems.push(format!("`inbox/{name}` was never processed")),
        }
    }
    for folder in ["processed", "failed"] {
        for name in list(&root.join(folder)) {
            if name.ends_with(".outcome.json") {
                continue;
            }
            if !name.contains(".command-") {
                problems.push(format!("unexpected `{folder}/{name}`"));
                continue;
            }
            let bytes = std::fs::read(root.join(folder).join(&name)).unwrap_or_default();
            match remaining.get_mut(&bytes) {
                Some(n) if *n > 0 => *n -= 1,
                _ => problems.push(format!("`{folder}/{name}` is not a file the agent wrote")),
            }
        }
    }
    let lost: usize = remaining.values().sum();
    if lost > 0 {
        problems.push(format!("{lost} file(s) the agent wrote are missing"));
    }
    problems.sort();
    Safety {
        ok: problems.is_empty(),
        problems,
    }
}

fn summary(p: &Processed) -> OutcomeSummary {
    OutcomeSummary {
        file: p.inbox_file.clone(),
        ok: p.outcome.status == Status::Succeeded,
        reason: p.outcome.reason,
        field_path: p.outcome.field_path.clone(),
        duplicate: p.outcome.is_duplicate(),
    }
}

fn score(sc: &ScenarioFile, run: Run, safety: Safety) -> BridgeScenarioResult {
    let n = sc.expect.outcomes.len().max(run.processed.len());
    let mut commands = Vec::with_capacity(n);
    for i in 0..n {
        let expected = sc.expect.outcomes.get(i).map(|e| OutcomeSummary {
            file: e.file.clone(),
            ok: e.ok,
            reason: e.reason,
            field_path: e.field_path.clone(),
            duplicate: e.duplicate,
        });
        let actual = run.processed.get(i).map(summary);
        // The outcome file on disk must say what the sweep last reported for that id (a
        // duplicate rewrites it with `duplicateCommand: true`).
        let on_disk_ok = run.processed.get(i).is_some_and(|p| {
            let last = run
                .processed
                .iter()
                .rev()
                .find(|q| q.outcome.command_id == p.outcome.command_id);
            run.on_disk[i].as_ref() == last.map(|q| &q.outcome)
        });
        let matches = expected.is_some() && expected == actual && on_disk_ok;
        commands.push(CommandCheck {
            expected,
            actual,
            matches,
        });
    }
    let outcomes_match = commands.iter().all(|c| c.matches);
    let state_match = run.state == sc.expect.state;
    let state_diff = (!state_match).then(|| {
        let want = to_canonical_value(&sc.expect.state);
        let got = to_canonical_value(&run.state);
        similar::TextDiff::from_lines(&want, &got)
            .unified_diff()
            .header("expected", "actual")
            .to_string()
    });
    BridgeScenarioResult {
        id: sc.id.clone(),
        description: sc.description.clone(),
        passed: outcomes_match && state_match && safety.ok,
        commands,
        outcomes_match,
        state_match,
        state_diff,
        actual_state: (!state_match).then_some(run.state),
        safety,
    }
}

/// A fresh folder under the system temp dir, removed when dropped.
pub(crate) struct TempDir(pub(crate) PathBuf);

impl TempDir {
    pub(crate) fn new(id: &str) -> Self {
        static NEXT: AtomicUsize = AtomicUsize::new(0);
        let tag: String = id
            .chars()
            .map(|c| if c.is_ascii_alphanumeric() { c } else { '-' })
            .take(40)
            .collect();
        let n = NEXT.fetch_add(1, Ordering::Relaxed);
        let dir = std::env::temp_dir().join(format!(
            "stepreplay-bridge-{}-{n}-{tag}",
            std::process::id()
        ));
        let _ = std::fs::remove_dir_all(&dir);
        TempDir(dir)
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn safety_catches_strays_foreign_files_and_lost_files() {
        let dir = TempDir::new("safety");
        let root = &dir.0;
        for sub in ["inbox", "processed", "failed"] {
            std::fs::create_dir_all(root.join(sub)).unwrap();
        }
        std::fs::write(root.join(MANIFEST_FILE), "{}").unwrap();
        std::fs::write(root.join("processed/x.command-1.json"), "a").unwrap();
        std::fs::write(root.join("processed/x.outcome.json"), "{}").unwrap();
        let written = vec![b"a".to_vec()];
        assert_eq!(
            check_safety(root, &written, false),
            Safety {
                ok: true,
                problems: vec![]
            }
        );

        std::fs::write(root.join("notes.txt"), "agent wrote outside inbox").unwrap();
        std::fs::write(root.join("failed/y.command-2.json"), "not from the agent").unwrap();
        std::fs::write(root.join("inbox/late.json"), "{}").unwrap();
        let s = check_safety(root, &[b"a".to_vec(), b"b".to_vec()], false);
        assert!(!s.ok);
        assert_eq!(
            s.problems,
            [
                "1 file(s) the agent wrote are missing",
                "`failed/y.command-2.json` is not a file the agent wrote",
                "`inbox/late.json` was never processed",
                "unexpected `notes.txt` in the bridge folder",
            ]
        );
    }
}
