//! A lint finding: what a guide author sees for each problem.

use serde::Serialize;

use crate::errors::{FieldPath, InputError, Position};

/// How bad a finding is. Only errors fail `check`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Severity {
    /// The plan must not be approved as it is.
    Error,
    /// Worth a look; does not fail the check.
    Warning,
}

impl Severity {
    #[cfg(test)]
    /// The word, as printed.
    pub(crate) fn as_str(self) -> &'static str {
        match self {
            Severity::Error => "error",
            Severity::Warning => "warning",
        }
    }
}

/// One problem in a plan.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Finding {
    /// Error or warning.
    pub severity: Severity,
    /// The stable reason code.
    pub reason: &'static str,
    /// Where, as `steps[2].target.label`.
    pub path: FieldPath,
    /// What is wrong.
    pub message: String,
    /// What to do about it.
    pub(crate) hint: Option<String>,
    /// Line and column of `path` in the file.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) line: Option<usize>,
    /// See `line`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) column: Option<usize>,
}

impl Finding {
    /// A finding without a hint or position yet.
    pub(crate) fn new(
        severity: Severity,
        reason: &'static str,
        path: FieldPath,
        message: String,
    ) -> Self {
        Finding {
            severity,
            reason,
            path,
            message,
            hint: None,
            line: None,
            column: None,
        }
    }

    /// The same finding with a hint.
    pub(crate) fn hint(mut self, hint: impl Into<String>) -> Self {
        self.hint = Some(hint.into());
        self
    }

    /// The same finding at a position.
    pub fn at(mut self, p: Option<Position>) -> Self {
        self.line = p.map(|p| p.line);
        self.column = p.map(|p| p.column);
        self
    }

    /// A finding for an input that could not be read or parsed at all.
    pub(crate) fn from_input_error(e: &InputError) -> Self {
        Finding {
            severity: Severity::Error,
            reason: e.reason.code(),
            path: e.path.clone(),
            message: e.message.clone(),
            hint: e.hint.clone(),
            line: e.position.map(|p| p.line),
            column: e.position.map(|p| p.column),
        }
    }
}
