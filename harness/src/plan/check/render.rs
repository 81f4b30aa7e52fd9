//! Check output for people (coloured on a terminal) and for scripts (`--format json`).

use super::finding::Severity;
use super::run::CheckReport;
use crate::json::to_canonical_value;

/// The JSON form: one canonical object with `findings` and counts.
pub fn render_json(report: &CheckReport) -> String {
    to_canonical_value(report)
}

/// `s` with control characters escaped. Messages quote the plan's own text (labels, ids),
/// and a label holding an escape sequence must not be able to drive the reader's terminal.
fn printable(s: &str) -> String {
    s.chars()
        .map(|c| {
            if c.is_control() {
                c.escape_default().to_string()
            } else {
                c.to_string()
            }
        })
        .collect()
}

/// The human form, compiler style. `color` adds ANSI colours.
pub fn render_human(report: &CheckReport, color: bool) -> String {
    let paint = |code: &str, s: &str| {
        if color {
            format!("\x1b[{code}m{s}\x1b[0m")
        } else {
            s.to_string()
        }
    };
    let mut out = String::new();
    for f in &report.findings {
        let sev = match f.severity {
            Severity::Error => paint("1;31", "error"),
            Severity::Warning => paint("1;33", "warning"),
        };
        out.push_str(&format!(
            "{sev}[{}]: {}\n",
            f.reason,
            paint("1", &printable(&f.message))
        ));
        let place = match (f.line, f.column) {
            (Some(l), Some(c)) => format!("{}:{l}:{c}", report.file),
            _ => report.file.clone(),
        };
        let path = if f.path.is_root() {
            String::new()
        } else {
            format!(" at `{}`", f.path)
        };
        out.push_str(&format!("  {} {place}{path}\n", paint("34", "-->")));
        if let Some(h) = &f.hint {
            out.push_str(&format!("  {} {}\n", paint("36", "= hint:"), printable(h)));
        }
    }
    let summary = if report.findings.is_empty() {
        format!("{}: clean", report.file)
    } else {
        format!(
            "{}: {} error{}, {} warning{}",
            report.file,
            report.errors,
            if report.errors == 1 { "" } else { "s" },
            report.warnings,
            if report.warnings == 1 { "" } else { "s" },
        )
    };
    out.push_str(&summary);
    out.push('\n');
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::errors::FieldPath;
    use crate::plan::check::Finding;

    fn report() -> CheckReport {
        let f = Finding::new(
            Severity::Error,
            "irreversible-without-confirm",
            FieldPath::parse("steps[2].target.label"),
            "a click on “Send\u{1b}[2J”".into(),
        )
        .hint("ask first");
        CheckReport::unreadable(std::path::Path::new("p.json"), f)
    }

    #[test]
    fn colour_only_when_asked() {
        let plain = render_human(&report(), false);
        assert!(!plain.contains("\x1b["), "{plain:?}");
        let coloured = render_human(&report(), true);
        assert!(coloured.contains("\x1b[1;31merror\x1b[0m"), "{coloured:?}");
    }

    #[test]
    fn control_characters_in_plan_text_are_escaped() {
        let plain = render_human(&report(), false);
        assert!(plain.contains("“Send\\u{1b}[2J”"), "{plain}");
        assert_eq!(plain.matches('\x1b').count(), 0);
    }
}
