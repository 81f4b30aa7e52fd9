//! Runs every rule over a plan and orders the findings.

use std::path::{Path, PathBuf};

use serde::Serialize;

use super::finding::{Finding, Severity};
use super::rules::canonical::NON_CANONICAL;
use super::rules::{Ctx, DEVTHINK_RULES, DevCtx, RULES};
use crate::errors::{FieldPath, Reason};
use crate::json::Source;
use crate::plan::devthink::{is_protocolv2, parse_protocolv2};
use crate::plan::load::{Handed, parse_handed, with_other_field_errors};
use crate::plan::lower::lower_foxstep;

/// Everything `check` found in one file.
#[derive(Clone, Debug, Serialize)]
pub struct CheckReport {
    /// The file checked.
    pub(crate) file: String,
    /// Findings, in file order.
    pub findings: Vec<Finding>,
    /// How many are errors.
    pub(crate) errors: usize,
    /// How many are warnings.
    pub(crate) warnings: usize,
    /// False when the file could not be read or parsed at all (exit 2).
    pub(crate) parsed: bool,
}

impl CheckReport {
    /// 0 clean, 1 errors, 2 the input could not be read or parsed.
    pub fn exit_code(&self) -> u8 {
        if !self.parsed {
            2
        } else if self.errors > 0 {
            1
        } else {
            0
        }
    }

    /// The same report with more findings (from replaying the plan), re-sorted and re-counted.
    pub fn with(self, more: Vec<Finding>) -> Self {
        let parsed = self.parsed;
        let file = PathBuf::from(&self.file);
        let mut all = self.findings;
        all.extend(more);
        Self::new(&file, all, parsed)
    }

    /// A report of `findings` in a file that was read.
    pub(crate) fn of(file: &Path, findings: Vec<Finding>) -> Self {
        Self::new(file, findings, true)
    }

    /// A report for a file that could not be read at all.
    pub fn unreadable(file: &Path, finding: Finding) -> Self {
        Self::new(file, vec![finding], false)
    }

    fn new(file: &Path, mut findings: Vec<Finding>, parsed: bool) -> Self {
        // File order, but the layout last: `fmt` cannot fix a plan with real findings, and
        // fixing them changes the layout anyway.
        let key = |f: &Finding| {
            (
                f.reason == NON_CANONICAL,
                f.line,
                f.column,
                f.severity,
                f.reason,
                f.path.to_string(),
            )
        };
        findings.sort_by_cached_key(key);
        findings.dedup();
        let errors = findings
            .iter()
            .filter(|f| f.severity == Severity::Error)
            .count();
        CheckReport {
            file: file.display().to_string(),
            warnings: findings.len() - errors,
            errors,
            findings,
            parsed,
        }
    }
}

/// [`check_source`] under the caps a user set: a plan nesting deeper than they allow is
/// refused where it does.
pub(crate) fn check_source_capped(src: &Source, caps: &crate::limits::PlanCaps) -> CheckReport {
    let src = &src.clone().with_depth(caps.depth);
    match super::caps::too_deep(src, caps) {
        Some(e) => CheckReport::unreadable(&src.path, Finding::from_input_error(&e)),
        None => check_source(src),
    }
}

/// Checks a plan's text with every rule: a plan file, or the plan in a `get_guide` response
/// (its findings placed under `plan`).
pub fn check_source(src: &Source) -> CheckReport {
    if let Ok(value) = crate::json::parse_value(src)
        && is_protocolv2(&value)
    {
        return check_devthink(src, &value);
    }
    let Handed { plan: fox, at } = match parse_handed(src) {
        Ok(h) => h,
        // Read and understood, and refused: a finding, not an unreadable file.
        Err(e) if e.reason == Reason::PlanNeedsReview => {
            return CheckReport::new(&src.path, vec![Finding::from_input_error(&e)], true);
        }
        Err(e) => {
            let all = with_other_field_errors(src, e);
            let findings = all.iter().map(Finding::from_input_error).collect();
            return CheckReport::new(&src.path, findings, false);
        }
    };
    let mut findings = match lower_foxstep(&fox, Path::new(".")) {
        Ok(_) => Vec::new(),
        Err(problems) => problems,
    };
    let whole = crate::json::parse_value(src).unwrap_or_default();
    let bare = at.is_root();
    let value = if bare {
        whole
    } else {
        whole.get("plan").cloned().unwrap_or_default()
    };
    let ctx = Ctx {
        src,
        fox: &fox,
        value: &value,
        bare,
    };
    for rule in RULES {
        rule(&ctx, &mut findings);
    }
    place(src, &at, &mut findings);
    CheckReport::new(&src.path, findings, true)
}

/// A protocolv2 plan: parsed strictly (options included), then its rules.
fn check_devthink(src: &Source, value: &serde_json::Value) -> CheckReport {
    let plan = match parse_protocolv2(src) {
        Ok(p) => p,
        Err(e) => {
            let all = crate::plan::devthink::with_other_field_errors(src, e);
            let findings = all.iter().map(Finding::from_input_error).collect();
            return CheckReport::new(&src.path, findings, false);
        }
    };
    let ctx = DevCtx {
        src,
        plan: &plan,
        value,
    };
    let mut findings = Vec::new();
    for rule in DEVTHINK_RULES {
        rule(&ctx, &mut findings);
    }
    place(src, &FieldPath::root(), &mut findings);
    CheckReport::new(&src.path, findings, true)
}

/// Puts the findings that have no position yet under `at` and at their line and column.
fn place(src: &Source, at: &FieldPath, findings: &mut [Finding]) {
    // One pass over the text for every finding: a plan can hold thousands.
    let unplaced: Vec<usize> = (0..findings.len())
        .filter(|&i| findings[i].line.is_none())
        .collect();
    for &i in &unplaced {
        findings[i].path = at.join(&findings[i].path);
    }
    let paths: Vec<_> = unplaced.iter().map(|&i| findings[i].path.clone()).collect();
    for (i, position) in unplaced
        .into_iter()
        .zip(crate::json::locate_all(&src.text, &paths))
    {
        findings[i] = findings[i].clone().at(position);
    }
}
