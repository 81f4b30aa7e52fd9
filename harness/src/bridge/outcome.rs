//! The outcome file written beside every processed or failed inbox file — by the StepBack
//! app for a command, and by `serve` (the harness's job inbox, built on the same protocol) for
//! a job. One envelope for both, so the two inboxes cannot drift apart.
//!
//! The main type is [`Outcome`]. A command's success carries `resultingIDs` and the new
//! `updatedAt`, a job's its `result`; a failure carries a machine `reason` and, when one
//! applies, the exact `fieldPath`. A replayed duplicate command is the original outcome with
//! `duplicateCommand: true`.

use std::fmt;

use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::errors::{FieldPath, Reason};
use crate::limits;

/// The StepBack protocol's reason codes, exactly the ones it names. The harness's own codes
/// (`crate::errors::Reason`) are a different list: a bridge outcome never carries one.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Code {
    /// `schemaVersion` is not one the app reads.
    UnsupportedSchema,
    /// The file is not JSON.
    InvalidJson,
    /// The verb is not one of the protocol's.
    UnknownVerb,
    /// A field is missing, of the wrong type or out of range; `fieldPath` says which.
    InvalidField,
    /// A referenced object does not exist.
    UnknownId,
    /// `expectedUpdatedAt` no longer matches: someone changed the object first.
    StaleObject,
    /// Agent access is off in the app's settings.
    BridgeDisabled,
    /// The file is over the size limit.
    FileTooLarge,
    /// Not a `.json` regular file.
    UnsupportedFileType,
    /// The app could not take the file in at all.
    IngestionFailed,
}

impl Code {
    /// The code as the protocol spells it.
    pub(crate) fn code(self) -> &'static str {
        match self {
            Code::UnsupportedSchema => "unsupported-schema",
            Code::InvalidJson => "invalid-json",
            Code::UnknownVerb => "unknown-verb",
            Code::InvalidField => "invalid-field",
            Code::UnknownId => "unknown-id",
            Code::StaleObject => "stale-object",
            Code::BridgeDisabled => "bridge-disabled",
            Code::FileTooLarge => "file-too-large",
            Code::UnsupportedFileType => "unsupported-file-type",
            Code::IngestionFailed => "ingestion-failed",
        }
    }
}

impl Code {
    /// The harness's code for a scenario file whose embedded command or human edit is refused
    /// with this one: the protocol's own words where the harness has them, else the
    /// scenario's field is simply invalid.
    pub(crate) fn as_reason(self) -> Reason {
        match self {
            Code::UnsupportedSchema => Reason::UnsupportedSchema,
            Code::InvalidJson => Reason::InvalidJson,
            Code::UnknownVerb => Reason::UnknownVerb,
            Code::UnknownId => Reason::UnknownId,
            Code::FileTooLarge => Reason::FileTooLarge,
            Code::UnsupportedFileType => Reason::UnsupportedFileType,
            Code::IngestionFailed => Reason::IngestionFailed,
            Code::InvalidField | Code::StaleObject | Code::BridgeDisabled => Reason::InvalidField,
        }
    }
}

impl fmt::Display for Code {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.code())
    }
}

/// The command schema version the outcome answers.
pub(crate) const COMMAND_SCHEMA_VERSION: u32 = 2;

/// Which folder a command and its outcome end up in.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Folder {
    /// `processed/`: the command succeeded.
    Processed,
    /// `failed/`: the command was refused.
    Failed,
}

impl Folder {
    /// The folder's name.
    pub fn name(self) -> &'static str {
        match self {
            Folder::Processed => "processed",
            Folder::Failed => "failed",
        }
    }
}

/// Whether the command took effect.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Status {
    /// The command was applied.
    Succeeded,
    /// Refused; nothing changed.
    Failed,
}

/// `<command-id>.outcome.json`: `R` is the reason list ([`Code`] for the bridge, the
/// harness's `Reason` for jobs).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(
    deny_unknown_fields,
    rename_all = "camelCase",
    bound(deserialize = "R: Deserialize<'de>")
)]
pub struct Outcome<R = Code> {
    /// The schema version of the file it answers.
    pub(crate) schema_version: u32,
    /// The lowercase command (or job) id; for a file whose id could not be read, an id
    /// derived from its inbox file name.
    #[serde(rename = "commandID")]
    pub command_id: String,
    /// The verb, when the envelope named one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub verb: Option<String>,
    /// Succeeded or failed.
    pub status: Status,
    /// Why it failed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reason: Option<R>,
    /// Where in the file it failed (`payload.days[3].slots[0].routineRef`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub field_path: Option<String>,
    /// A short explanation.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub message: Option<String>,
    /// A job's answer: the check report or the scenario results.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) result: Option<Value>,
    /// A command's: ids of the objects created, changed or selected.
    #[serde(
        rename = "resultingIDs",
        default,
        skip_serializing_if = "Option::is_none"
    )]
    pub resulting_ids: Option<Vec<String>>,
    /// A command's: the changed objects' new `updatedAt`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) updated_at: Option<String>,
    /// A command's: true when this replays an earlier command with the same id.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) duplicate_command: Option<bool>,
    /// The file the agent wrote into `inbox/`.
    pub(crate) inbox_file: String,
    /// The name the file was moved to, beside this outcome.
    pub(crate) command_file: String,
    /// A command's: the logical time it was processed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) processed_at: Option<String>,
}

impl<R> Outcome<R> {
    /// The outcome of `rejected` (or of success when `Ok`), with every kind-specific field
    /// empty for the caller to fill.
    pub(crate) fn new<T>(
        schema_version: u32,
        command_id: String,
        verb: Option<String>,
        rejected: &Result<T, Rejection<R>>,
        inbox_file: String,
        command_file: String,
    ) -> Self
    where
        R: Copy,
    {
        let err = rejected.as_ref().err();
        // What the file said is echoed clipped: a 250 KB verb or key must not be copied into
        // every outcome and the ledger (which once grew past its own read limit).
        let clip = |s: &str| clip_echo(s);
        Outcome {
            schema_version,
            command_id,
            verb: verb.as_deref().map(clip),
            status: if err.is_none() {
                Status::Succeeded
            } else {
                Status::Failed
            },
            reason: err.map(|r| r.reason),
            field_path: err
                .filter(|r| !r.path.is_root())
                .map(|r| clip(&r.path.to_string())),
            message: err.map(|r| clip(&r.message)),
            result: None,
            resulting_ids: None,
            updated_at: None,
            duplicate_command: None,
            inbox_file,
            command_file,
            processed_at: None,
        }
    }

    /// True for a replayed duplicate command.
    pub(crate) fn is_duplicate(&self) -> bool {
        self.duplicate_command == Some(true)
    }

    /// The folder this outcome belongs in.
    pub(crate) fn folder(&self) -> Folder {
        match self.status {
            Status::Succeeded => Folder::Processed,
            Status::Failed => Folder::Failed,
        }
    }
}

/// Why a command (or job) was refused: the reason code, where, and a message.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Rejection<R = Code> {
    /// The reason code.
    pub(crate) reason: R,
    /// The field path inside the command (root for the file as a whole).
    pub(crate) path: FieldPath,
    /// A short lowercase explanation.
    pub(crate) message: String,
}

impl<R> Rejection<R> {
    /// A rejection at `path`.
    pub(crate) fn new(reason: R, path: FieldPath, message: impl Into<String>) -> Self {
        Rejection {
            reason,
            path,
            message: message.into(),
        }
    }

    /// A rejection of the file as a whole.
    pub(crate) fn whole(reason: R, message: impl Into<String>) -> Self {
        Self::new(reason, FieldPath::root(), message)
    }
}

/// `s` cut to [`limits::ECHO_CHARS`] characters, marked with `…` when cut.
pub(crate) fn clip_echo(s: &str) -> String {
    match s.char_indices().nth(limits::ECHO_CHARS) {
        None => s.to_string(),
        Some((end, _)) => format!("{}…", &s[..end]),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn echoes_are_kept_to_the_limit_and_cut_past_it() {
        let at = "é".repeat(limits::ECHO_CHARS);
        assert_eq!(clip_echo(&at), at);
        let past = clip_echo(&"é".repeat(limits::ECHO_CHARS + 1));
        assert_eq!(past, format!("{at}…"));
    }

    #[test]
    fn echoed_text_is_clipped() {
        let long = "x".repeat(250_000);
        let o: Outcome = Outcome::new(
            3,
            "id".into(),
            Some(long.clone()),
            &Err::<(), _>(Rejection::whole(Code::UnknownVerb, long)),
            "a.json".into(),
            "b.json".into(),
        );
        let json = serde_json::to_string(&o).unwrap();
        assert!(json.len() < 1_000, "{}", json.len());
        assert_eq!(o.verb.unwrap().chars().count(), limits::ECHO_CHARS + 1);
    }

    #[test]
    fn codes_are_spelled_as_the_protocol_spells_them() {
        for c in [
            Code::UnsupportedSchema,
            Code::InvalidJson,
            Code::UnknownVerb,
            Code::InvalidField,
            Code::UnknownId,
            Code::StaleObject,
            Code::BridgeDisabled,
            Code::FileTooLarge,
            Code::UnsupportedFileType,
            Code::IngestionFailed,
        ] {
            let json = serde_json::to_value(c).unwrap();
            assert_eq!(json, c.code());
            assert_eq!(serde_json::from_value::<Code>(json).unwrap(), c);
        }
    }

    #[test]
    fn a_job_outcome_carries_no_command_fields_and_a_command_outcome_all() {
        let refused: Result<(), Rejection<Reason>> = Err(Rejection::new(
            Reason::InvalidField,
            FieldPath::root().key("verb"),
            "no",
        ));
        let job = Outcome::new(
            1,
            "j".into(),
            None,
            &refused,
            "a.json".into(),
            "b.json".into(),
        );
        let v = serde_json::to_value(&job).unwrap();
        assert_eq!(v["reason"], "invalid-field");
        assert_eq!(v["fieldPath"], "verb");
        for key in ["resultingIDs", "duplicateCommand", "processedAt", "result"] {
            assert!(v.get(key).is_none(), "{key}");
        }
        let back: Outcome<Reason> = serde_json::from_value(v).unwrap();
        assert_eq!(back, job);
        let ok: Result<(), Rejection> = Ok(());
        let mut cmd = Outcome::new(2, "c".into(), None, &ok, "a.json".into(), "b.json".into());
        cmd.resulting_ids = Some(Vec::new());
        cmd.duplicate_command = Some(false);
        let v = serde_json::to_value(&cmd).unwrap();
        assert_eq!(v["resultingIDs"], serde_json::json!([]));
        assert_eq!(v["status"], "succeeded");
        assert!(!cmd.is_duplicate());
    }
}
