//! The outcome file the app writes beside every processed or failed command.
//!
//! The main type is [`Outcome`]. Success carries `resultingIDs` and the new `updatedAt`;
//! failure carries a machine `reason` and, when one applies, the exact `fieldPath`. A replayed
//! duplicate is the original outcome with `duplicateCommand: true`.

use serde::{Deserialize, Serialize};

use crate::errors::{FieldPath, Reason};

/// The command schema version the outcome answers.
pub const COMMAND_SCHEMA_VERSION: u32 = 2;

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
    /// Applied.
    Succeeded,
    /// Refused; nothing changed.
    Failed,
}

/// `<command-id>.outcome.json`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct Outcome {
    /// Always [`COMMAND_SCHEMA_VERSION`].
    pub schema_version: u32,
    /// The lowercase command id; for a file whose id could not be read, an id derived from
    /// its inbox file name.
    #[serde(rename = "commandID")]
    pub command_id: String,
    /// The verb, when the envelope named one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub verb: Option<String>,
    /// Succeeded or failed.
    pub status: Status,
    /// Why it failed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reason: Option<Reason>,
    /// Where in the command it failed (`payload.days[3].slots[0].routineRef`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub field_path: Option<String>,
    /// A short lowercase explanation.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub message: Option<String>,
    /// Ids of the objects created, changed or selected.
    #[serde(rename = "resultingIDs")]
    pub resulting_ids: Vec<String>,
    /// The changed objects' new `updatedAt`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub updated_at: Option<String>,
    /// True when this replays an earlier command with the same id.
    pub duplicate_command: bool,
    /// The file the agent wrote into `inbox/`.
    pub inbox_file: String,
    /// The name the command file was moved to, beside this outcome.
    pub command_file: String,
    /// The logical time the command was processed.
    pub processed_at: String,
}

impl Outcome {
    /// The folder this outcome belongs in.
    pub fn folder(&self) -> Folder {
        match self.status {
            Status::Succeeded => Folder::Processed,
            Status::Failed => Folder::Failed,
        }
    }
}

/// Why a command was refused: the reason code, where, and a message.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Rejection {
    /// The reason code.
    pub reason: Reason,
    /// The field path inside the command (root for the file as a whole).
    pub path: FieldPath,
    /// A short lowercase explanation.
    pub message: String,
}

impl Rejection {
    /// A rejection at `path`.
    pub fn new(reason: Reason, path: FieldPath, message: impl Into<String>) -> Self {
        Rejection {
            reason,
            path,
            message: message.into(),
        }
    }

    /// A rejection of the file as a whole.
    pub fn whole(reason: Reason, message: impl Into<String>) -> Self {
        Self::new(reason, FieldPath::root(), message)
    }
}
