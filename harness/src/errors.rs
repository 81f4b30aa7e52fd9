//! Errors and their stable reason codes.
//!
//! Every input is untrusted, so every failure to read one says *which file*, *where* in it
//! (line:column and the field path) and *why* (a stable reason code a script can match on).
//! The CLI maps each error kind to one exit code in [`Error::exit_code`].

use std::fmt;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

/// A stable, machine-readable reason code, in the bridge protocol's style (`invalid-field`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
#[allow(missing_docs)]
pub enum Reason {
    InvalidJson,
    UnsupportedSchema,
    InvalidField,
    UnknownId,
    FileTooLarge,
    UnsupportedFileType,
    PathEscape,
    MissingFile,
    LimitExceeded,
    InvalidImage,
    ImageSizeMismatch,
    InvalidArgument,
    DuplicateId,
    UnknownVerb,
    IngestionFailed,
    PlanRecordingMismatch,
    NoScenarios,
    NoPlans,
    TargetNotFound,
    PlanNeedsReview,
    /// A baseline that compares nothing: empty, or sharing no scenario with the run.
    BaselineMismatch,
    /// A report set its manifest does not vouch for: none, incomplete, or its files changed.
    UnvouchedReport,
}

impl Reason {
    /// The code as users see it and scripts match it.
    pub fn code(self) -> &'static str {
        match self {
            Reason::InvalidJson => "invalid-json",
            Reason::UnsupportedSchema => "unsupported-schema",
            Reason::InvalidField => "invalid-field",
            Reason::UnknownId => "unknown-id",
            Reason::FileTooLarge => "file-too-large",
            Reason::UnsupportedFileType => "unsupported-file-type",
            Reason::PathEscape => "path-escape",
            Reason::MissingFile => "missing-file",
            Reason::LimitExceeded => "limit-exceeded",
            Reason::InvalidImage => "invalid-image",
            Reason::ImageSizeMismatch => "image-size-mismatch",
            Reason::InvalidArgument => "invalid-argument",
            Reason::DuplicateId => "duplicate-id",
            Reason::UnknownVerb => "unknown-verb",
            Reason::IngestionFailed => "ingestion-failed",
            Reason::PlanRecordingMismatch => "plan-recording-mismatch",
            Reason::NoScenarios => "no-scenarios",
            Reason::NoPlans => "no-plans",
            Reason::TargetNotFound => "target-not-found",
            Reason::PlanNeedsReview => "plan-needs-review",
            Reason::BaselineMismatch => "baseline-mismatch",
            Reason::UnvouchedReport => "unvouched-report",
        }
    }
}

impl fmt::Display for Reason {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.code())
    }
}

/// One step of a field path: an object key or an array index.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Seg {
    /// An object member.
    Key(String),
    /// An array element, counted from 0 as in JSON Pointer.
    Index(usize),
}

/// A path to a value inside a JSON document, displayed as `steps[2].target.point.x`.
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct FieldPath(pub Vec<Seg>);

impl FieldPath {
    /// The document itself.
    pub(crate) fn root() -> Self {
        FieldPath(Vec::new())
    }

    /// This path with an object key appended.
    pub(crate) fn key(&self, k: &str) -> Self {
        let mut v = self.0.clone();
        v.push(Seg::Key(k.to_string()));
        FieldPath(v)
    }

    /// `other` taken as relative to this path (a plan's findings inside a larger file).
    pub(crate) fn join(&self, other: &FieldPath) -> Self {
        let mut p = self.clone();
        p.0.extend(other.0.iter().cloned());
        p
    }

    /// The path of the object or array holding this one; `None` for the document.
    pub(crate) fn parent(&self) -> Option<Self> {
        let (_, head) = self.0.split_last()?;
        Some(FieldPath(head.to_vec()))
    }

    /// This path with an array index appended.
    pub(crate) fn index(&self, i: usize) -> Self {
        let mut v = self.0.clone();
        v.push(Seg::Index(i));
        FieldPath(v)
    }

    /// Parses the display form back (`steps[2].target` → segments).
    pub(crate) fn parse(s: &str) -> Self {
        let mut segs = Vec::new();
        for part in s.split('.').filter(|p| !p.is_empty()) {
            let (name, rest) = part.split_at(part.find('[').unwrap_or(part.len()));
            if !name.is_empty() {
                segs.push(Seg::Key(name.to_string()));
            }
            for idx in rest.split('[').filter(|p| !p.is_empty()) {
                match idx.trim_end_matches(']').parse() {
                    Ok(i) => segs.push(Seg::Index(i)),
                    Err(_) => segs.push(Seg::Key(idx.trim_end_matches(']').to_string())),
                }
            }
        }
        FieldPath(segs)
    }

    /// True for the document itself.
    pub(crate) fn is_root(&self) -> bool {
        self.0.is_empty()
    }
}

impl fmt::Display for FieldPath {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (i, seg) in self.0.iter().enumerate() {
            match seg {
                Seg::Key(k) if i == 0 => write!(f, "{k}")?,
                Seg::Key(k) => write!(f, ".{k}")?,
                Seg::Index(n) => write!(f, "[{n}]")?,
            }
        }
        Ok(())
    }
}

impl Serialize for FieldPath {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_str(self)
    }
}

/// A 1-based line and column in a text file.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize)]
pub struct Position {
    /// Line, from 1.
    pub(crate) line: usize,
    /// Column in characters, from 1.
    pub(crate) column: usize,
}

/// An input that cannot be used: which file, where, and why.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct InputError {
    /// The file, as the user named it.
    pub file: PathBuf,
    /// Line and column, where the file is text and the place is known.
    pub position: Option<Position>,
    /// The field path inside the file; empty for the file as a whole.
    pub path: FieldPath,
    /// The stable reason code.
    pub reason: Reason,
    /// A short lowercase fragment saying what is wrong.
    pub message: String,
    /// What to do about it, where that helps.
    pub(crate) hint: Option<String>,
}

impl InputError {
    /// A new error about `file` as a whole.
    pub fn new(file: impl AsRef<Path>, reason: Reason, message: impl Into<String>) -> Self {
        InputError {
            file: file.as_ref().to_path_buf(),
            position: None,
            path: FieldPath::root(),
            reason,
            message: message.into(),
            hint: None,
        }
    }

    /// A bad command-line or scenario value, before any file is known (`invalid-argument`);
    /// a caller that knows the file sets it with [`InputError::in_file`].
    pub(crate) fn argument(message: impl Into<String>) -> Self {
        InputError::new("", Reason::InvalidArgument, message)
    }

    /// The same error, about `file`.
    pub(crate) fn in_file(mut self, file: impl AsRef<Path>) -> Self {
        self.file = file.as_ref().to_path_buf();
        self
    }

    /// The same error, at a field path.
    pub(crate) fn at(mut self, path: FieldPath) -> Self {
        self.path = path;
        self
    }

    /// The same error, at a line and column.
    pub(crate) fn at_position(mut self, position: Option<Position>) -> Self {
        self.position = position;
        self
    }

    /// The same error, with a hint.
    pub fn hint(mut self, hint: impl Into<String>) -> Self {
        self.hint = Some(hint.into());
        self
    }
}

impl fmt::Display for InputError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.reason)?;
        // An argument (`--shard 5/4`) has no file. No quotes: `file:line:col` stays one
        // clickable place in terminals and editors.
        if !self.file.as_os_str().is_empty() {
            write!(f, ": {}", self.file.display())?;
        }
        if let Some(p) = self.position {
            write!(f, ":{}:{}", p.line, p.column)?;
        }
        if !self.path.is_root() {
            write!(f, " at `{}`", self.path)?;
        }
        write!(f, ": {}", self.message)?;
        if let Some(h) = &self.hint {
            write!(f, " (hint: {h})")?;
        }
        Ok(())
    }
}

impl std::error::Error for InputError {}

/// Everything the library can fail with.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// A plan, recording, scenario, image or argument that cannot be used (exit 2).
    #[error("{0}")]
    Input(Box<InputError>),
    /// The command line asks for something impossible: a flag's value out of range, flags
    /// that do not go together (exit 64, sysexits' EX_USAGE).
    #[error("{0}")]
    Usage(Box<InputError>),
    /// Writing output failed (exit 3: the input was fine, the machine was not).
    #[error("cannot write `{}`: {source}", path.display())]
    Write {
        /// What was being written.
        path: PathBuf,
        /// Why it failed.
        source: std::io::Error,
    },
    /// A bug or an impossible state; please report it (exit 3).
    #[error("internal error: {0}")]
    Internal(String),
    /// The live desktop a recording needs failed: a program missing or dying, a bus that did
    /// not answer (exit 3: the input was fine, the machine was not).
    #[error("live desktop: {0}")]
    Desktop(String),
    /// The user stopped the command (Ctrl-C, SIGTERM); exit 130 as shells expect.
    #[error("interrupted; everything started was stopped")]
    Interrupted,
}

impl From<InputError> for Error {
    fn from(e: InputError) -> Self {
        Error::Input(Box::new(e))
    }
}

impl Error {
    /// The process exit code for this error, as the design fixes them.
    pub fn exit_code(&self) -> u8 {
        match self {
            Error::Input(_) => 2,
            Error::Usage(_) => USAGE_EXIT,
            Error::Write { .. } | Error::Internal(_) | Error::Desktop(_) => 3,
            Error::Interrupted => 130,
        }
    }
}

/// The exit code of a command line that cannot be run as written (sysexits' EX_USAGE): a
/// script can tell it from bad input (2).
pub(crate) const USAGE_EXIT: u8 = 64;

/// The library's result type.
pub type Result<T, E = Error> = std::result::Result<T, E>;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn field_path_display_and_parse_agree() {
        let p = FieldPath::root()
            .key("steps")
            .index(2)
            .key("target")
            .key("point")
            .key("x");
        assert_eq!(p.to_string(), "steps[2].target.point.x");
        assert_eq!(FieldPath::parse("steps[2].target.point.x"), p);
        assert_eq!(FieldPath::root().index(0).key("a").to_string(), "[0].a");
    }

    #[test]
    fn input_error_names_file_position_and_path() {
        let e = InputError::new(
            "plans/mail.json",
            Reason::InvalidField,
            "1.3 is outside 0..1",
        )
        .at(FieldPath::parse("steps[2].target.point.x"))
        .at_position(Some(Position {
            line: 40,
            column: 9,
        }));
        assert_eq!(
            e.to_string(),
            "invalid-field: plans/mail.json:40:9 at `steps[2].target.point.x`: 1.3 is outside 0..1"
        );
    }
}
