//! `manifest.json`: where the bridge folders are, whether the bridge is on, the built-in
//! catalog, the app's [`State`], and the app-private ledger of processed command ids.
//!
//! The main type is [`Manifest`]. The app rewrites it (atomically) after every command, so an
//! agent that reads it immediately before proposing changes sees every object's latest
//! `updatedAt`. The ledger maps each lowercase `commandID` to its original outcome: it is how
//! a reused id replays instead of applying twice, and how `fromCommand` finds a routine made
//! earlier in the same sweep. `lastIngestion` is the crash journal: it is saved together with
//! the state a command produced, before the command file is moved, so a restart can finish
//! the move instead of applying the command again.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::catalog::{CatalogWorkout, built_in_catalog};
use super::fsio::write_atomic;
use super::outcome::{COMMAND_SCHEMA_VERSION, Folder, Outcome};
use super::state::State;
use crate::errors::{Error, FieldPath, InputError, Reason};
use crate::json::{Source, parse_typed, parse_value, read_text, to_canonical_value};
use crate::limits;

/// The manifest schema version this simulator writes and reads.
pub(crate) const MANIFEST_SCHEMA_VERSION: u32 = 3;

/// The file name inside the bridge folder.
pub(crate) const MANIFEST_FILE: &str = "manifest.json";

/// The default largest command file the app reads.
pub(crate) const DEFAULT_MAX_COMMAND_BYTES: u64 = 256 * 1024;

/// `manifest.json`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct Manifest {
    /// Always [`MANIFEST_SCHEMA_VERSION`].
    pub(crate) schema_version: u32,
    /// The one command schema version accepted (2).
    pub(crate) command_schema_version: u32,
    /// Off: every command fails with `bridge-disabled` and nothing is applied.
    pub(crate) bridge_enabled: bool,
    /// Where agents write commands (absolute, or relative to the manifest's folder).
    pub(crate) inbox_path: String,
    /// Where succeeded commands and their outcomes go.
    pub(crate) processed_path: String,
    /// Where refused commands and their outcomes go.
    pub(crate) failed_path: String,
    /// Larger command files fail with `file-too-large`, unread.
    pub(crate) max_command_bytes: u64,
    /// The built-in workouts.
    pub catalog: Vec<CatalogWorkout>,
    /// The app's state.
    pub state: State,
    /// Every command id processed, lowercase, with its original outcome.
    #[serde(default)]
    pub(crate) ledger: BTreeMap<String, Outcome>,
    /// The command being moved when the app last saved, if that move may not have happened.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) last_ingestion: Option<Ingestion>,
}

/// A command whose outcome and state are saved but whose file may still sit in `inbox/`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub(crate) struct Ingestion {
    /// The file's name in `inbox/`.
    pub(crate) inbox_file: String,
    /// Where it goes.
    pub(crate) folder: Folder,
    /// Its name there.
    pub(crate) command_file: String,
}

/// The three folders a manifest names, resolved.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Paths {
    /// `inbox/`.
    pub(crate) inbox: PathBuf,
    /// `processed/`.
    pub(crate) processed: PathBuf,
    /// `failed/`.
    pub(crate) failed: PathBuf,
}

impl Paths {
    /// The folder for `folder`.
    pub(crate) fn of(&self, folder: Folder) -> &Path {
        match folder {
            Folder::Processed => &self.processed,
            Folder::Failed => &self.failed,
        }
    }
}

impl Manifest {
    /// A fresh manifest for the bridge folder `root` holding `state`.
    pub(crate) fn new(root: &Path, state: State) -> Self {
        let abs = |name: &str| root.join(name).to_string_lossy().into_owned();
        Manifest {
            schema_version: MANIFEST_SCHEMA_VERSION,
            command_schema_version: COMMAND_SCHEMA_VERSION,
            bridge_enabled: true,
            inbox_path: abs("inbox"),
            processed_path: abs("processed"),
            failed_path: abs("failed"),
            max_command_bytes: DEFAULT_MAX_COMMAND_BYTES,
            catalog: built_in_catalog(),
            state,
            ledger: BTreeMap::new(),
            last_ingestion: None,
        }
    }

    /// The folders, with relative paths taken from `root` (the manifest's folder).
    pub(crate) fn paths(&self, root: &Path) -> Paths {
        let resolve = |p: &str| root.join(p);
        Paths {
            inbox: resolve(&self.inbox_path),
            processed: resolve(&self.processed_path),
            failed: resolve(&self.failed_path),
        }
    }

    /// Reads `root/manifest.json`: `missing-file`, `invalid-json`, `unsupported-schema` or
    /// `invalid-field` (at its field path) when it cannot be used.
    pub(crate) fn load(root: &Path) -> Result<Self, InputError> {
        let path = root.join(MANIFEST_FILE);
        let src = read_text(&path, limits::MANIFEST_BYTES).map_err(|e| {
            if e.reason == Reason::MissingFile {
                e.hint("lay the folder out with `stepreplay bridge init DIR`")
            } else {
                e
            }
        })?;
        let value = parse_value(&src)?;
        check_version(&src, &value)?;
        parse_typed(&src)
    }

    /// Writes `root/manifest.json` atomically, in canonical form.
    pub(crate) fn save(&self, root: &Path) -> Result<(), Error> {
        write_atomic(
            &root.join(MANIFEST_FILE),
            to_canonical_value(self).as_bytes(),
        )
    }
}

fn check_version(src: &Source, value: &Value) -> Result<(), InputError> {
    let path = FieldPath::root().key("schemaVersion");
    match value.get("schemaVersion").and_then(Value::as_u64) {
        Some(v) if v == u64::from(MANIFEST_SCHEMA_VERSION) => Ok(()),
        Some(v) => Err(src.error(
            path,
            Reason::UnsupportedSchema,
            format!("manifest schema version {v} is not supported"),
        )),
        None => Err(src
            .error(
                FieldPath::root(),
                Reason::UnsupportedSchema,
                "the manifest has no numeric `schemaVersion`",
            )
            .hint(format!(
                "this simulator reads manifest schema version {MANIFEST_SCHEMA_VERSION}"
            ))),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn temp(name: &str) -> PathBuf {
        let d =
            std::env::temp_dir().join(format!("stepreplay-manifest-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&d);
        std::fs::create_dir_all(&d).unwrap();
        d
    }

    #[test]
    fn a_manifest_round_trips_and_bad_ones_say_why() {
        let d = temp("rt");
        assert_eq!(Manifest::load(&d).unwrap_err().reason, Reason::MissingFile);
        let m = Manifest::new(&d, State::default());
        m.save(&d).unwrap();
        assert_eq!(Manifest::load(&d).unwrap(), m);
        std::fs::write(d.join(MANIFEST_FILE), "{\"schemaVersion\": 2}").unwrap();
        let e = Manifest::load(&d).unwrap_err();
        assert_eq!(e.reason, Reason::UnsupportedSchema);
        assert_eq!(e.path.to_string(), "schemaVersion");
        std::fs::write(d.join(MANIFEST_FILE), "{\"schemaVersion\": 3,").unwrap();
        assert_eq!(Manifest::load(&d).unwrap_err().reason, Reason::InvalidJson);
        std::fs::remove_dir_all(&d).unwrap();
    }
}
