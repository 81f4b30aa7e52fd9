//! `stepreplay serve`: the harness's own job inbox, in the bridge's file style, so an
//! authoring app can ask for checks and runs without a network.
//!
//! The main function is [`serve`]. The jobs folder holds `inbox/`, `processed/`, `failed/`
//! and `journal.log`. A job file is
//! `{ "schemaVersion": 1, "commandID": "<uuid>", "verb": "check", "payload": { "plan": "p.json" } }`
//! or verb `run` with `{ "scenarios": ["scenarios/bridge/a.json"] }` (paths relative to the
//! base folder, never outside it). The answer is `<command-id>.outcome.json` (`JobOutcome`)
//! beside the moved job file, as in the bridge.
//!
//! # Never lost, never twice
//!
//! The outcome file is the journal entry. Per job file, in this order:
//! 1. if an outcome for its `commandID` exists, the job is not run again: when that outcome
//!    names this very inbox file and its command file is not in place yet, the server crashed
//!    between steps 3 and 4 and only the move is finished (*resumed*); otherwise it is a
//!    *duplicate* and is moved beside the original outcome under a fresh name;
//! 2. the job runs (jobs are pure: they read plans and scenarios and write nothing);
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
        (Ok(_), Some(v)) => run_job(&opts.base, v),
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
fn run_job(base: &Path, v: &Value) -> Result<Value, JobRejection> {
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
        Some("run") => run_scenarios(base, typed(payload)?),
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

fn run_scenarios(base: &Path, job: RunJob) -> Result<Value, JobRejection> {
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
    let mut results = Vec::with_capacity(job.scenarios.len());
    let mut passed = 0;
    for (i, rel) in job.scenarios.iter().enumerate() {
        let at = at.index(i);
        let one = safe_join(base, rel, Path::new("job"), at.clone())
            .map_err(|e| job_file_error(e, at.clone()))
            .and_then(|p| {
                let schema = read_text(&p, 4 * 1024 * 1024)
                    .ok()
                    .and_then(|s| serde_json::from_str::<Value>(&s.text).ok())
                    .and_then(|v| v.get("schema").and_then(Value::as_str).map(str::to_string));
                let fail = |mut e: InputError| {
                    e.file = PathBuf::from(rel);
                    job_file_error(e, at.clone())
                };
                match schema.as_deref() {
                    Some(BRIDGE_SCENARIO_SCHEMA) => run_bridge_entry(&p).map_err(fail),
                    Some(crate::scenario::SCENARIO_SCHEMA) => run_plan_scenario(&p).map_err(fail),
                    _ => Err(Rejection::new(
                        Reason::UnsupportedSchema,
                        at.clone(),
                        format!(
                            "serve runs `{BRIDGE_SCENARIO_SCHEMA}` and `{}` scenarios",
                            crate::scenario::SCENARIO_SCHEMA
                        ),
                    )),
                }
            });
        results.push(match one {
            Ok((ok, r)) => {
                passed += usize::from(ok);
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
    }))
}

/// Runs one bridge scenario; the result is its report entry, as `run` folds it.
fn run_bridge_entry(path: &Path) -> Result<(bool, Value), InputError> {
    let id = crate::suite::bridge_id(path)?;
    let modes = [crate::replay::Mode::Chained];
    let results = crate::suite::run_bridge(&[(id, path.to_path_buf())], &modes);
    if let Some(e) = results.iter().find_map(|r| r.broken_input()) {
        return Err(e.clone());
    }
    Ok(entry(crate::report::Report::from_results(&results, &modes)))
}

/// The job's part of a report: its one entry, and whether it met its expectation.
fn entry(report: crate::report::Report) -> (bool, Value) {
    let entry = report.scenarios.into_iter().next();
    (
        entry.as_ref().is_some_and(|e| e.met),
        serde_json::to_value(&entry).unwrap_or_default(),
    )
}

/// Replays one plan scenario in both modes; the result is its report entry.
fn run_plan_scenario(path: &Path) -> Result<(bool, Value), InputError> {
    use crate::replay::Mode;
    let modes = vec![Mode::Chained, Mode::PerStep];
    let opts = crate::suite::RunOptions {
        jobs: 1,
        modes: modes.clone(),
        perturb: Vec::new(),
        ocr: crate::replay::Ocr::Dom,
    };
    let results =
        crate::suite::run_suite(&[path.to_path_buf()], &opts, &|_| {}).map_err(|e| match e {
            Error::Input(e) => *e,
            // The job still gets its outcome; serve goes on with the next.
            other => InputError::new(path, Reason::IngestionFailed, other.to_string()),
        })?;
    Ok(entry(crate::report::Report::from_results(&results, &modes)))
}
