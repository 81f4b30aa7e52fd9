//! One sweep of the inbox, exactly as the app does it: [`sweep`].
//!
//! Files are taken in lexical order of their names (listed in bounded batches). For each:
//! the logical clock ticks; the file is checked (`unsupported-file-type` for anything but a
//! regular `.json` file, `file-too-large` before a byte is read, `ingestion-failed` when it
//! cannot be read); its `commandID` is read if it can be; an id already in the ledger
//! replays the original outcome with `duplicateCommand: true` and applies nothing; a
//! disabled bridge refuses with `bridge-disabled`; otherwise the command is validated and
//! applied. Every file gets exactly one outcome and is moved: to `processed/` or `failed/`
//! as `<command-id>.command-<uuid>.json` beside `<command-id>.outcome.json`.
//!
//! Every command with a readable id is recorded in the ledger, refused or not, a
//! `bridge-disabled` refusal included: the seed says reusing an id "in any case replays the
//! original outcome", with no exception, so to retry any refused command an agent writes a
//! new id. A duplicate replays its original outcome (even while the bridge is off: replaying
//! applies nothing), but names its own `inboxFile` and `commandFile`, so every outcome file
//! names the command file beside it. Files whose id cannot be read are named by an id
//! derived from the inbox file name and the clock.
//!
//! Crash safety: per file, the outcome is written (atomically), then the manifest with the new
//! state, ledger and a `lastIngestion` marker (atomically), then the file is moved. A crash
//! before the manifest save redoes the file with the same clock, so the same bytes; a crash
//! after it finds the marker on the next sweep and only finishes the move.

use std::path::Path;

use serde::Serialize;
use serde_json::Value;

use super::apply::{Ctx, apply};
use super::command::{identify, parse_command};
use super::fsio::{InboxName, move_file, remove_stale_temps, smallest_names, write_atomic};
use super::ids::derive_uuid;
use super::manifest::{Ingestion, Manifest};
use super::outcome::{COMMAND_SCHEMA_VERSION, Code, Folder, Outcome, Rejection, Status};
use crate::errors::{Error, InputError, Reason};
use crate::json::to_canonical_value;
use crate::limits;

/// How many names one listing keeps in memory.
const BATCH: usize = 256;

/// What one sweep did, in processing order.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct SweepReport {
    /// One entry per inbox file.
    pub files: Vec<Processed>,
}

/// One inbox file and what became of it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Processed {
    /// Its name in `inbox/`.
    pub inbox_file: String,
    /// Where it went.
    pub folder: Folder,
    /// Its name there.
    pub(crate) command_file: String,
    /// The outcome written beside it (for a duplicate, the replayed original).
    pub outcome: Outcome,
}

impl SweepReport {
    /// How many succeeded, failed, and were replayed as duplicates.
    pub fn counts(&self) -> (usize, usize, usize) {
        let dup = self
            .files
            .iter()
            .filter(|p| p.outcome.is_duplicate())
            .count();
        let ok = self
            .files
            .iter()
            .filter(|p| !p.outcome.is_duplicate() && p.outcome.status == Status::Succeeded)
            .count();
        (ok, self.files.len() - ok - dup, dup)
    }
}

/// Processes every file in the bridge folder `root`'s inbox once. A missing or unusable
/// manifest is an error before anything in the folder is touched.
pub fn sweep(root: &Path) -> Result<SweepReport, Error> {
    let mut manifest = Manifest::load(root)?;
    let paths = manifest.paths(root);
    if !paths.inbox.is_dir() {
        return Err(InputError::new(
            &paths.inbox,
            Reason::MissingFile,
            "the manifest's inbox folder does not exist",
        )
        .into());
    }
    // The app owns only its own folder: a manifest pointing elsewhere (`/etc`) must not make
    // the simulator move or write files there.
    let base = root.canonicalize().map_err(|e| {
        InputError::new(
            root,
            Reason::MissingFile,
            format!("cannot resolve the folder: {e}"),
        )
    })?;
    for (key, dir) in [
        ("inboxPath", &paths.inbox),
        ("processedPath", &paths.processed),
        ("failedPath", &paths.failed),
    ] {
        let inside = match dir.canonicalize() {
            Ok(real) => real.starts_with(&base) && real != base,
            // Not there yet (processed/failed): judge the parent that is.
            Err(_) => dir
                .parent()
                .and_then(|p| p.canonicalize().ok())
                .is_some_and(|p| p.starts_with(&base)),
        };
        if !inside {
            return Err(InputError::new(
                root.join(super::manifest::MANIFEST_FILE),
                Reason::PathEscape,
                format!(
                    "`{}` is not a folder inside the bridge folder",
                    dir.display()
                ),
            )
            .at(crate::errors::FieldPath::root().key(key))
            .into());
        }
    }
    for dir in [&paths.processed, &paths.failed] {
        std::fs::create_dir_all(dir).map_err(|source| Error::Write {
            path: dir.clone(),
            source,
        })?;
        remove_stale_temps(dir)?;
    }
    if let Some(ing) = manifest.last_ingestion.take() {
        let from = paths.inbox.join(&ing.inbox_file);
        let to = paths.of(ing.folder).join(&ing.command_file);
        if from.exists() && !to.exists() {
            move_file(&from, &to)?;
        }
    }
    let mut report = SweepReport::default();
    loop {
        let (names, _) = smallest_names(&paths.inbox, BATCH).map_err(|e| {
            Error::from(InputError::new(
                &paths.inbox,
                Reason::IngestionFailed,
                format!("cannot list the inbox: {e}"),
            ))
        })?;
        if names.is_empty() {
            break;
        }
        let before = report.files.len();
        for name in names {
            let Some(done) = process_one(root, &mut manifest, &name)? else {
                continue;
            };
            report.files.push(done);
        }
        if report.files.len() == before {
            // Every listed name vanished or cannot be looked at: nothing left to do now.
            break;
        }
    }
    manifest.last_ingestion = None;
    manifest.save(root)?;
    Ok(report)
}

/// Drops the oldest refused entries past [`limits::LEDGER_REFUSED`].
fn bound_ledger(ledger: &mut std::collections::BTreeMap<String, Outcome>) {
    let refused = |o: &Outcome| o.status == Status::Failed;
    let mut count = ledger.values().filter(|o| refused(o)).count();
    while count > limits::LEDGER_REFUSED {
        let oldest = ledger
            .iter()
            .filter(|(_, o)| refused(o))
            .min_by(|a, b| (&a.1.processed_at, a.0).cmp(&(&b.1.processed_at, b.0)))
            .map(|(id, _)| id.clone());
        let Some(id) = oldest else { break };
        ledger.remove(&id);
        count -= 1;
    }
}

/// Processes `inbox/name`; `None` when it vanished before it could be looked at.
fn process_one(
    root: &Path,
    manifest: &mut Manifest,
    inbox_name: &InboxName,
) -> Result<Option<Processed>, Error> {
    let paths = manifest.paths(root);
    let file = paths.inbox.join(&inbox_name.os);
    let name = inbox_name.text.as_str();
    let Ok(meta) = std::fs::symlink_metadata(&file) else {
        return Ok(None);
    };
    let tick_seed = format!("{}:{name}", manifest.state.logical_clock);
    let now = manifest.state.tick();
    let ingestion = derive_uuid("ingestion", &tick_seed);

    let text = if inbox_name.is_utf8() {
        read_checked(&file, name, &meta, manifest.max_command_bytes)
    } else {
        // Answered with its own reason and moved to failed/, never left in the inbox.
        Err(Rejection::whole(
            Code::UnsupportedFileType,
            "the file name is not UTF-8 text; name command files in UTF-8",
        ))
    };
    let identified = text.as_ref().ok().map(|t| identify(t));
    let value = text
        .as_ref()
        .ok()
        .and_then(|t| serde_json::from_str::<Value>(t).ok());
    let verb = value
        .as_ref()
        .and_then(|v| v.get("verb"))
        .and_then(Value::as_str)
        .map(str::to_string);
    let id = match &identified {
        Some(Ok(i)) => Some(i.command_id.clone()),
        Some(Err((id, _))) => id.clone(),
        None => None,
    };

    let outcome = if let Some(orig) = id.as_ref().and_then(|id| manifest.ledger.get(id)) {
        Outcome {
            duplicate_command: Some(true),
            inbox_file: name.to_string(),
            command_file: format!("{}.command-{ingestion}.json", orig.command_id),
            ..orig.clone()
        }
    } else {
        let command_id = id.clone().unwrap_or_else(|| ingestion.clone());
        let result = if !manifest.bridge_enabled {
            Err(Rejection::whole(
                Code::BridgeDisabled,
                "agent access is turned off in StepBack's settings",
            ))
        } else {
            match (text, identified) {
                (Err(r), _) => Err(r),
                (Ok(_), Some(Err((_, r)))) => Err(r),
                (Ok(_), Some(Ok(ident))) => parse_command(&ident).and_then(|cmd| {
                    let ctx = Ctx {
                        catalog: &manifest.catalog,
                        ledger: &manifest.ledger,
                    };
                    apply(
                        &mut manifest.state,
                        ctx,
                        cmd.verb,
                        &cmd.payload,
                        &cmd.command_id,
                        &now,
                    )
                }),
                (Ok(_), None) => Err(Rejection::whole(Code::IngestionFailed, "not read")),
            }
        };
        let command_file = format!("{command_id}.command-{ingestion}.json");
        let mut outcome = Outcome::new(
            COMMAND_SCHEMA_VERSION,
            command_id.clone(),
            verb,
            &result,
            name.to_string(),
            command_file,
        );
        outcome.duplicate_command = Some(false);
        outcome.processed_at = Some(now.clone());
        let applied = result.ok();
        outcome.updated_at = applied.as_ref().map(|a| a.updated_at.clone());
        outcome.resulting_ids = Some(applied.map(|a| a.resulting_ids).unwrap_or_default());
        if id.is_some() {
            manifest.ledger.insert(command_id, outcome.clone());
            bound_ledger(&mut manifest.ledger);
        }
        outcome
    };

    let folder = outcome.folder();
    let command_file = format!("{}.command-{ingestion}.json", outcome.command_id);
    let dir = paths.of(folder);
    write_atomic(
        &dir.join(format!("{}.outcome.json", outcome.command_id)),
        to_canonical_value(&outcome).as_bytes(),
    )?;
    manifest.last_ingestion = Some(Ingestion {
        inbox_file: name.to_string(),
        folder,
        command_file: command_file.clone(),
    });
    manifest.save(root)?;
    move_file(&file, &dir.join(&command_file))?;
    Ok(Some(Processed {
        inbox_file: name.to_string(),
        folder,
        command_file,
        outcome,
    }))
}

/// The file's text, or why it cannot be a command: not a regular `.json` file, too large,
/// unreadable, or not UTF-8.
fn read_checked(
    file: &Path,
    name: &str,
    meta: &std::fs::Metadata,
    max: u64,
) -> Result<String, Rejection> {
    if !meta.is_file() {
        return Err(Rejection::whole(
            Code::UnsupportedFileType,
            "not a regular file (folders and links are not commands)",
        ));
    }
    if !name.to_ascii_lowercase().ends_with(".json") {
        return Err(Rejection::whole(
            Code::UnsupportedFileType,
            "command files end in `.json`",
        ));
    }
    if meta.len() > max {
        return Err(Rejection::whole(
            Code::FileTooLarge,
            format!("{} bytes is over the limit of {max} bytes", meta.len()),
        ));
    }
    match crate::json::read_bounded(file, max) {
        Ok(bytes) => String::from_utf8(bytes)
            .map_err(|_| Rejection::whole(Code::InvalidJson, "not UTF-8 text")),
        Err(e) if e.reason == Reason::FileTooLarge => {
            Err(Rejection::whole(Code::FileTooLarge, e.message))
        }
        Err(e) => Err(Rejection::whole(Code::IngestionFailed, e.message)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_ledger_keeps_its_refused_limit_and_forgets_the_oldest_past_it() {
        let refused = |i: usize| {
            let mut o: Outcome = Outcome::new(
                COMMAND_SCHEMA_VERSION,
                format!("{i:08x}-0000-4000-8000-000000000000"),
                None,
                &Err::<(), _>(Rejection::whole(Code::UnknownVerb, "no")),
                "a.json".into(),
                "b.json".into(),
            );
            o.processed_at = Some(format!("{i:012}"));
            o
        };
        let mut ledger = std::collections::BTreeMap::new();
        for i in 0..limits::LEDGER_REFUSED {
            let o = refused(i);
            ledger.insert(o.command_id.clone(), o);
        }
        bound_ledger(&mut ledger);
        assert_eq!(ledger.len(), limits::LEDGER_REFUSED);
        let o = refused(limits::LEDGER_REFUSED);
        ledger.insert(o.command_id.clone(), o);
        bound_ledger(&mut ledger);
        assert_eq!(ledger.len(), limits::LEDGER_REFUSED);
        assert!(!ledger.contains_key("00000000-0000-4000-8000-000000000000"));
    }

    #[test]
    fn a_file_that_cannot_be_read_is_ingestion_failed() {
        let dir = std::env::temp_dir().join(format!("stepreplay-inbox-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let file = dir.join("01.json");
        std::fs::write(&file, "{}").unwrap();
        let meta = std::fs::symlink_metadata(&file).unwrap();
        assert_eq!(read_checked(&file, "01.json", &meta, 1024).unwrap(), "{}");
        assert_eq!(
            read_checked(&file, "01.json", &meta, 1).unwrap_err().reason,
            Code::FileTooLarge
        );
        // Gone between the listing and the read (or unreadable): the app cannot ingest it.
        std::fs::remove_file(&file).unwrap();
        let r = read_checked(&file, "01.json", &meta, 1024).unwrap_err();
        assert_eq!(r.reason, Code::IngestionFailed);
        std::fs::write(&file, [0xff, 0xfe]).unwrap();
        let meta = std::fs::symlink_metadata(&file).unwrap();
        let r = read_checked(&file, "01.json", &meta, 1024).unwrap_err();
        assert_eq!(r.reason, Code::InvalidJson);
        let sub_meta = std::fs::symlink_metadata(&dir).unwrap();
        let r = read_checked(&dir, "x.json", &sub_meta, 1024).unwrap_err();
        assert_eq!(r.reason, Code::UnsupportedFileType);
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
