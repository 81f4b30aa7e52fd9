//! `stepreplay serve`: the harness's own job inbox, in the bridge's file style, so an
//! authoring app can ask for checks and runs without a network.
//!
//! The main function is [`serve`]. The jobs folder holds `inbox/`, `processed/`, `failed/`,
//! `reports/` and `journal.log`. A job file is
//! `{ "schemaVersion": 1, "commandID": "<uuid>", "verb": "check", "payload": { "plan": "p.json" } }`
//! or verb `run` with `{ "scenarios": ["scenarios/bridge/a.json"] }` (paths relative to the
//! base folder, never outside it). The answer is `<command-id>.outcome.json` (`JobOutcome`)
//! beside the moved job file, as in the bridge; a `run` job also writes every file `run`
//! writes into `reports/<command-id>/`, through the same report session.
//!
//! # Never lost, never twice
//!
//! The outcome file is the journal entry. Per job file, in this order:
//! 1. if an outcome for its `commandID` exists, the job is not run again: when that outcome
//!    names this very inbox file and its command file is not in place yet, the server crashed
//!    between steps 3 and 4 and only the move is finished (*resumed*); otherwise it is a
//!    *duplicate* and is moved beside the original outcome under a fresh name;
//! 2. the job runs (it reads plans and scenarios and writes only its own report folder, whole
//!    files with the same bytes each time, so running it again is harmless);
//! 3. the outcome is written to a temp file and hard-linked to its final name, which fails
//!    rather than replaces if it already exists — so at most one outcome per id can ever
//!    exist, even with two servers on one folder — and a line is appended to `journal.log`;
//! 4. the job file is renamed (atomically) to `<command-id>.command-<uuid>.json`.
//!
//! A kill at any point leaves the job file in `inbox/` (it is picked up again) or moved, and
//! the outcome absent (the job runs again, no outcome was ever visible) or complete. Files
//! whose id cannot be read get an id derived from their inbox name, so a restart finds them
//! the same way. Memory stays bounded on a flood: the inbox is listed in lexical batches,
//! keeping only the smallest names. A stop request (Ctrl-C) is honoured between files.

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::bridge::fsio::{
    InboxName, create_atomic, move_file, remove_stale_temps, smallest_names,
};
use crate::bridge::ids::{derive_uuid, normalize_uuid};
use crate::bridge::outcome::{Folder, Outcome, Rejection, Status};
use crate::bridge::scenario::SCHEMA as BRIDGE_SCENARIO_SCHEMA;
use crate::errors::{Error, FieldPath, InputError, Reason};
use crate::json::{Source, read_text, to_canonical_value};
use crate::limits::{JOB_BYTES, JOB_SCENARIOS};
use crate::plan::check::check_source;
use crate::plan::read_plan_source;
use crate::safe_path::safe_join;

/// The job schema version.
pub(crate) const JOB_SCHEMA_VERSION: u32 = 1;

/// How the server runs.
#[derive(Clone, Debug)]
pub struct ServeOptions {
    /// Folder that job paths are relative to (and may not leave).
    pub(crate) base: PathBuf,
    /// Process what is there (and whatever arrives meanwhile), then return.
    pub once: bool,
    /// How long to wait between looks at an empty inbox.
    pub poll: Duration,
    /// How many names one listing keeps in memory.
    pub batch: usize,
    /// Test hook: abort the process right after the n-th outcome is written, before its job
    /// file is moved — the worst moment for a crash.
    pub crash_after: Option<usize>,
}

impl ServeOptions {
    /// Defaults for `base`.
    pub fn new(base: impl Into<PathBuf>) -> Self {
        ServeOptions {
            base: base.into(),
            once: false,
            poll: Duration::from_millis(200),
            batch: 256,
            crash_after: None,
        }
    }
}

/// What a serve session did.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct ServeSummary {
    /// Jobs run, with a new outcome.
    pub ran: usize,
    /// Of those, succeeded.
    pub succeeded: usize,
    /// Job files whose id already had an outcome from another file.
    pub duplicates: usize,
    /// Job files a crash had left half-done, finished without running again.
    pub resumed: usize,
    /// Stopped by a stop request rather than by `once` finishing.
    pub stopped: bool,
}

/// `<command-id>.outcome.json` in the jobs folder: the bridge's envelope, with the harness's
/// reason codes and the job's `result`.
pub(crate) type JobOutcome = Outcome<Reason>;

/// Why a job was refused.
type JobRejection = Rejection<Reason>;

/// Creates the jobs folder layout under `root` if needed.
pub(crate) fn layout(root: &Path) -> Result<(), Error> {
    for sub in ["inbox", "processed", "failed"] {
        let dir = crate::output::real_subdir(root, Path::new(sub))?;
        // The inbox's temporary files are an agent's half-written jobs: left to their writer.
        if sub != "inbox" {
            remove_stale_temps(&dir)?;
        }
    }
    Ok(())
}

/// Serves the jobs folder `root` until `stop` is set (or, with `once`, the inbox is empty).
pub fn serve(root: &Path, opts: &ServeOptions, stop: &AtomicBool) -> Result<ServeSummary, Error> {
    layout(root)?;
    let inbox = root.join("inbox");
    let mut summary = ServeSummary::default();
    loop {
        if stop.load(Ordering::SeqCst) {
            summary.stopped = true;
            break;
        }
        let (names, _) = smallest_names(&inbox, opts.batch).map_err(|e| {
            Error::from(InputError::new(
                &inbox,
                Reason::IngestionFailed,
                format!("cannot list the inbox: {e}"),
            ))
        })?;
        if names.is_empty() {
            if opts.once {
                break;
            }
            wait(opts.poll, stop);
            continue;
        }
        let mut progressed = false;
        for name in names {
            if stop.load(Ordering::SeqCst) {
                break;
            }
            let done = process_one(root, opts, &name)?;
            progressed |= !matches!(done, Done::Vanished);
            match done {
                Done::Ran(status) => {
                    summary.ran += 1;
                    summary.succeeded += usize::from(status == Status::Succeeded);
                }
                Done::Duplicate => summary.duplicates += 1,
                Done::Resumed => summary.resumed += 1,
                Done::Vanished => {}
            }
        }
        if !progressed {
            // Only names that vanish or cannot be looked at: wait rather than spin.
            if opts.once {
                break;
            }
            wait(opts.poll, stop);
        }
    }
    Ok(summary)
}

fn wait(total: Duration, stop: &AtomicBool) {
    let step = Duration::from_millis(20);
    let mut waited = Duration::ZERO;
    while waited < total && !stop.load(Ordering::SeqCst) {
        std::thread::sleep(step);
        waited += step;
    }
}

enum Done {
    Ran(Status),
    Duplicate,
    Resumed,
    Vanished,
}

/// Outcomes written by this process, for the crash hook.
static WRITTEN: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);

fn process_one(root: &Path, opts: &ServeOptions, inbox_name: &InboxName) -> Result<Done, Error> {
    let file = root.join("inbox").join(&inbox_name.os);
    let name = inbox_name.text.as_str();
    let Ok(meta) = std::fs::symlink_metadata(&file) else {
        return Ok(Done::Vanished);
    };
    let text = if inbox_name.is_utf8() {
        read_job(&file, name, &meta)
    } else {
        Err(not_utf8())
    };
    if text.is_err() && std::fs::symlink_metadata(&file).is_err() {
        // Another server on the folder answered it and moved it while we read: not ours.
        return Ok(Done::Vanished);
    }
    let value = text
        .as_ref()
        .ok()
        .and_then(|t| serde_json::from_str::<Value>(t).ok());
    let id = value
        .as_ref()
        .and_then(|v| v.get("commandID"))
        .and_then(Value::as_str)
        .and_then(normalize_uuid)
        .unwrap_or_else(|| derive_uuid("job-file", name));

    for folder in [Folder::Processed, Folder::Failed] {
        // Checked before each write: a folder swapped for a link since is refused.
        let dir = crate::output::real_subdir(root, Path::new(folder.name()))?;
        let Ok(t) = std::fs::read_to_string(dir.join(format!("{id}.outcome.json"))) else {
            continue;
        };
        let prior: Option<JobOutcome> = serde_json::from_str(&t).ok();
        if let Some(p) = prior.filter(|p| p.inbox_file == name)
            && !dir.join(&p.command_file).exists()
        {
            // Another server may finish this very move first: then it is no longer ours.
            return Ok(if moved(&file, &dir.join(&p.command_file))? {
                Done::Resumed
            } else {
                Done::Vanished
            });
        }
        let mut n = 0u64;
        let target = loop {
            let t = dir.join(format!(
                "{id}.command-{}.json",
                derive_uuid("job-duplicate", &format!("{n}:{name}"))
            ));
            if !t.exists() {
                break t;
            }
            n += 1;
        };
        return Ok(if moved(&file, &target)? {
            Done::Duplicate
        } else {
            Done::Vanished
        });
    }

    let verb = value
        .as_ref()
        .and_then(|v| v.get("verb"))
        .and_then(Value::as_str)
        .map(str::to_string);
    let result = match (&text, &value) {
        (Err(r), _) => Err(r.clone()),
        (Ok(_), None) => Err(Rejection::whole(Reason::InvalidJson, "not valid JSON")),
        (Ok(_), Some(v)) => run_job(root, &opts.base, &id, v),
    };
    let command_file = format!("{id}.command-{}.json", derive_uuid("job", name));
    let mut outcome = JobOutcome::new(
        JOB_SCHEMA_VERSION,
        id.clone(),
        verb,
        &result,
        name.to_string(),
        command_file.clone(),
    );
    outcome.result = result.ok();
    let folder = match outcome.status {
        Status::Succeeded => Folder::Processed,
        Status::Failed => Folder::Failed,
    };
    let dir = crate::output::real_subdir(root, Path::new(folder.name()))?;
    let created = create_atomic(
        &dir.join(format!("{id}.outcome.json")),
        to_canonical_value(&outcome).as_bytes(),
    )?;
    if !created {
        // Another server wrote this id's outcome meanwhile; it owns the job.
        return process_one(root, opts, inbox_name);
    }
    journal(root, &outcome)?;
    let n = WRITTEN.fetch_add(1, Ordering::SeqCst) + 1;
    if opts.crash_after == Some(n) {
        std::process::abort();
    }
    // A second server that saw the outcome before this move may have moved the file for us
    // (it counts as resumed there); the job was answered once either way.
    moved(&file, &dir.join(&command_file))?;
    Ok(Done::Ran(outcome.status))
}

/// Moves a job file; false when it is gone already (another server on the folder moved it).
fn moved(from: &Path, to: &Path) -> Result<bool, Error> {
    match move_file(from, to) {
        Ok(()) => Ok(true),
        Err(_) if std::fs::symlink_metadata(from).is_err() => Ok(false),
        Err(e) => Err(e),
    }
}

fn journal(root: &Path, o: &JobOutcome) -> Result<(), Error> {
    let status = match o.status {
        Status::Succeeded => "succeeded",
        Status::Failed => "failed",
    };
    // One line per job whatever its name holds: control characters (a newline in a file
    // name would forge a second entry) are written escaped.
    let line = format!(
        "{} {status} {}\n",
        o.command_id.escape_debug(),
        o.inbox_file.escape_debug()
    );
    crate::output::append(&root.join("journal.log"), line.as_bytes())
}

/// A job file whose name is not UTF-8 text: answered (the outcome names it escaped) and moved
/// to `failed/`, never left in the inbox.
fn not_utf8() -> JobRejection {
    Rejection::whole(
        Reason::UnsupportedFileType,
        "the file name is not UTF-8 text; name job files in UTF-8",
    )
}

fn read_job(file: &Path, name: &str, meta: &std::fs::Metadata) -> Result<String, JobRejection> {
    if !meta.is_file() || !name.to_ascii_lowercase().ends_with(".json") {
        return Err(Rejection::whole(
            Reason::UnsupportedFileType,
            "job files are regular `.json` files",
        ));
    }
    read_text(file, JOB_BYTES)
        .map(|s| s.text)
        .map_err(|e| match e.reason {
            Reason::FileTooLarge | Reason::InvalidJson => Rejection::whole(e.reason, e.message),
            _ => Rejection::whole(Reason::IngestionFailed, e.message),
        })
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct CheckJob {
    plan: String,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RunJob {
    scenarios: Vec<String>,
}

/// Validates the envelope and runs the job; the result is what the outcome carries.
fn run_job(root: &Path, base: &Path, id: &str, v: &Value) -> Result<Value, JobRejection> {
    let at = |k: &str| FieldPath::root().key(k);
    if v.get("schemaVersion").and_then(Value::as_u64) != Some(u64::from(JOB_SCHEMA_VERSION)) {
        return Err(Rejection::new(
            Reason::UnsupportedSchema,
            at("schemaVersion"),
            "job schema version must be 1",
        ));
    }
    if v.get("commandID")
        .and_then(Value::as_str)
        .and_then(normalize_uuid)
        .is_none()
    {
        return Err(Rejection::new(
            Reason::InvalidField,
            at("commandID"),
            "`commandID` must be a UUID string",
        ));
    }
    let obj = v.as_object().cloned().unwrap_or_default();
    if let Some(k) = obj
        .keys()
        .find(|k| !["schemaVersion", "commandID", "verb", "payload"].contains(&k.as_str()))
    {
        return Err(Rejection::new(
            Reason::InvalidField,
            at(k),
            format!("unknown field `{k}`"),
        ));
    }
    let payload = obj.get("payload").cloned().unwrap_or(Value::Null);
    match obj.get("verb").and_then(Value::as_str) {
        Some("check") => check_job(base, typed(payload)?),
        Some("run") => run_scenarios(root, base, id, typed(payload)?),
        Some(other) => Err(Rejection::new(
            Reason::UnknownVerb,
            at("verb"),
            format!("unknown verb `{other}`: jobs are `check` and `run`"),
        )),
        None => Err(Rejection::new(
            Reason::InvalidField,
            at("verb"),
            "`verb` must be a string",
        )),
    }
}

fn typed<T: serde::de::DeserializeOwned>(payload: Value) -> Result<T, JobRejection> {
    serde_path_to_error::deserialize(payload).map_err(|e| {
        let path = FieldPath::parse(&format!("payload.{}", e.path()));
        Rejection::new(Reason::InvalidField, path, e.inner().to_string())
    })
}

fn job_file_error(e: InputError, at: FieldPath) -> JobRejection {
    let mut r = Rejection::new(e.reason, at, e.message);
    if let Some(h) = e.hint {
        r.message = format!("{} (hint: {h})", r.message);
    }
    r
}

fn check_job(base: &Path, job: CheckJob) -> Result<Value, JobRejection> {
    let at = FieldPath::root().key("payload").key("plan");
    let path = safe_join(base, &job.plan, Path::new("job"), at.clone())
        .map_err(|e| job_file_error(e, at.clone()))?;
    let src = read_plan_source(&path).map_err(|e| job_file_error(e, at))?;
    // Name the plan as the job did, so the report never shows the server's own folders.
    let report = check_source(&Source::from_text(&job.plan, src.text));
    Ok(serde_json::to_value(report).unwrap_or(Value::Null))
}

fn run_scenarios(root: &Path, base: &Path, id: &str, job: RunJob) -> Result<Value, JobRejection> {
    let at = FieldPath::root().key("payload").key("scenarios");
    if job.scenarios.len() > JOB_SCENARIOS {
        return Err(Rejection::new(
            Reason::LimitExceeded,
            at,
            format!(
                "{} scenarios is over the limit of {JOB_SCENARIOS}",
                job.scenarios.len()
            ),
        ));
    }
    // Each name is checked alone: one outside the base folder or of another kind is that
    // entry's error; the rest run as one suite, as `run` runs them.
    let mut named: Vec<Result<PathBuf, JobRejection>> = Vec::new();
    for (i, rel) in job.scenarios.iter().enumerate() {
        let at = at.index(i);
        named.push(
            safe_join(base, rel, Path::new("job"), at.clone())
                .map_err(|e| job_file_error(e, at.clone()))
                // Named as `run` names it (`scenarios/a.json`, not `./scenarios/a.json`).
                .map(|p| {
                    p.components()
                        .filter(|c| *c != std::path::Component::CurDir)
                        .collect::<PathBuf>()
                })
                .and_then(|p| match crate::scenario::sniff_schema(&p).as_deref() {
                    Some(BRIDGE_SCENARIO_SCHEMA | crate::scenario::SCENARIO_SCHEMA) => Ok(p),
                    _ => Err(Rejection::new(
                        Reason::UnsupportedSchema,
                        at.clone(),
                        format!(
                            "serve runs `{BRIDGE_SCENARIO_SCHEMA}` and `{}` scenarios",
                            crate::scenario::SCENARIO_SCHEMA
                        ),
                    )),
                }),
        );
    }
    let files: Vec<PathBuf> = named
        .iter()
        .filter_map(|n| n.as_ref().ok().cloned())
        .collect();
    let suite =
        crate::suite::load_suite(&files, None).map_err(|e| job_file_error(e, at.clone()))?;
    let mut ids: std::collections::HashMap<PathBuf, String> = suite
        .scenarios
        .iter()
        .map(|s| (s.path.clone(), s.file.id.clone()))
        .chain(suite.bridge.iter().map(|(id, p)| (p.clone(), id.clone())))
        .collect();
    let broken: std::collections::HashMap<PathBuf, InputError> = suite
        .broken
        .iter()
        .map(|(s, e)| (s.path.clone(), e.clone()))
        .collect();
    let dir = root.join("reports").join(id);
    let (code, report) = run_session(suite, &dir)
        .map_err(|e| Rejection::new(Reason::IngestionFailed, at.clone(), e.to_string()))?;
    let mut entries: std::collections::HashMap<String, Value> = report
        .get("scenarios")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .filter_map(|e| Some((e.get("id")?.as_str()?.to_string(), e.clone())))
        .collect();
    let mut results = Vec::with_capacity(named.len());
    let mut passed = 0;
    for (i, (rel, one)) in job.scenarios.iter().zip(named).enumerate() {
        let at = at.index(i);
        let one = one.and_then(|p| match broken.get(&p) {
            Some(e) => {
                let mut e = e.clone();
                e.file = PathBuf::from(rel);
                Err(job_file_error(e, at.clone()))
            }
            None => Ok(ids
                .remove(&p)
                .and_then(|id| entries.remove(&id))
                .unwrap_or(Value::Null)),
        });
        results.push(match one {
            Ok(r) => {
                passed += usize::from(r.get("met") == Some(&Value::Bool(true)));
                serde_json::json!({ "scenario": rel, "result": r })
            }
            Err(r) => serde_json::json!({
                "scenario": rel,
                "error": { "reason": r.reason, "field_path": r.path.to_string(), "message": r.message },
            }),
        });
    }
    Ok(serde_json::json!({
        "passed": passed,
        "total": job.scenarios.len(),
        "scenarios": results,
        "reports": format!("reports/{id}"),
        "exit_code": code,
    }))
}

/// Runs the job's suite in both modes through a report session that writes every file
/// `run` writes into `dir`; the result is the exit code `run` would give and `report.json`,
/// read back.
fn run_session(suite: crate::suite::LoadedSuite, dir: &Path) -> Result<(u8, Value), Error> {
    use crate::replay::Mode;
    use crate::report::{End, Outputs, Say, Session};
    let modes = vec![Mode::Chained, Mode::PerStep];
    let opts = crate::suite::RunOptions {
        jobs: 1,
        modes: modes.clone(),
        perturb: Vec::new(),
        ocr: crate::replay::Ocr::Dom,
    };
    let asked = suite.scenarios.len() + suite.bridge.len() + suite.broken.len();
    let session = Session::open(Some(dir), &modes)?;
    crate::suite::run(suite, &opts, &AtomicBool::new(false), &|r| session.add(&r))?;
    let code = session.finish(End {
        dir: Some(dir),
        outputs: Outputs::every(),
        ..End::new(Say::new(false, true, false), "error:", asked)
    })?;
    let path = dir.join("report.json");
    let text = std::fs::read_to_string(&path)
        .map_err(|e| Error::Internal(format!("cannot read back {}: {e}", path.display())))?;
    let report =
        serde_json::from_str(&text).map_err(|e| Error::Internal(format!("report.json: {e}")))?;
    Ok((code, report))
}
