//! Check output for people (coloured on a terminal) and for scripts (`--format json`).

use serde_json::{Value, json};

use super::finding::{Finding, Severity};
use super::run::CheckReport;
use crate::json::to_canonical_value;
use crate::text::plural;

/// The JSON form: one canonical object with `findings` and counts.
pub(crate) fn render_json(report: &CheckReport) -> String {
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
pub(crate) fn render_human(report: &CheckReport, color: bool) -> String {
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
    out
}

/// The line after a file's findings: `p.json: 2 errors, 1 warning`, or `p.json: clean`.
pub(crate) fn render_summary(report: &CheckReport) -> String {
    if report.findings.is_empty() {
        return format!("{}: clean\n", report.file);
    }
    format!(
        "{}: {}, {}\n",
        report.file,
        plural(report.errors, "error", "errors"),
        plural(report.warnings, "warning", "warnings"),
    )
}

/// SARIF 2.1.0, the format code-scanning viewers (GitHub's among them) read: one run, every
/// file's findings as results, each reason code a rule.
pub(crate) fn render_sarif(reports: &[CheckReport]) -> String {
    let mut rules: Vec<&str> = reports
        .iter()
        .flat_map(|r| r.findings.iter().map(|f| f.reason))
        .collect();
    rules.sort_unstable();
    rules.dedup();
    let results: Vec<Value> = reports
        .iter()
        .flat_map(|r| r.findings.iter().map(move |f| sarif_result(r, f)))
        .collect();
    to_canonical_value(&json!({
        "$schema": "https://json.schemastore.org/sarif-2.1.0.json",
        "version": "2.1.0",
        "runs": [{
            "tool": {"driver": {
                "name": "stepreplay",
                "version": env!("CARGO_PKG_VERSION"),
                "rules": rules.iter().map(|id| json!({"id": id, "name": id})).collect::<Vec<_>>(),
            }},
            "results": results,
        }],
    }))
}

fn sarif_result(report: &CheckReport, f: &Finding) -> Value {
    let mut text = f.message.clone();
    if let Some(h) = &f.hint {
        text.push_str(&format!(" (hint: {h})"));
    }
    let mut result = json!({
        "ruleId": f.reason,
        "level": match f.severity {
            Severity::Error => "error",
            Severity::Warning => "warning",
        },
        "message": {"text": text},
    });
    // Standard input has no file to point at.
    if let Some(uri) = file_uri(&report.file) {
        let mut location = json!({"physicalLocation": {"artifactLocation": {"uri": uri}}});
        if let (Some(line), Some(column)) = (f.line, f.column) {
            location["physicalLocation"]["region"] =
                json!({"startLine": line, "startColumn": column});
        }
        if !f.path.is_root() {
            location["logicalLocations"] = json!([{"fullyQualifiedName": f.path.to_string()}]);
        }
        result["locations"] = json!([location]);
    }
    result
}

/// A file path as a relative URI reference: `/` separators, anything but unreserved
/// characters percent-encoded.
fn file_uri(file: &str) -> Option<String> {
    if file.starts_with('<') {
        return None;
    }
    let mut uri = String::new();
    for b in file.replace('\\', "/").bytes() {
        match b {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'.' | b'_' | b'~' | b'/' => {
                uri.push(b as char)
            }
            _ => uri.push_str(&format!("%{b:02X}")),
        }
    }
    Some(uri)
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

    #[test]
    fn summary_counts_agree_with_their_words() {
        assert_eq!(render_summary(&report()), "p.json: 1 error, 0 warnings\n");
    }

    #[test]
    fn sarif_places_each_finding_at_its_file_line_and_field() {
        let mut r = report();
        r.findings[0].line = Some(12);
        r.findings[0].column = Some(7);
        r.file = "plans/my plan.json".into();
        let v: Value = serde_json::from_str(&render_sarif(&[r])).unwrap();
        assert_eq!(v["version"], "2.1.0");
        let run = &v["runs"][0];
        assert_eq!(
            run["tool"]["driver"]["rules"][0]["id"],
            "irreversible-without-confirm"
        );
        let result = &run["results"][0];
        assert_eq!(result["ruleId"], "irreversible-without-confirm");
        assert_eq!(result["level"], "error");
        assert!(
            result["message"]["text"]
                .as_str()
                .unwrap()
                .ends_with("(hint: ask first)")
        );
        let loc = &result["locations"][0];
        assert_eq!(
            loc["physicalLocation"]["artifactLocation"]["uri"],
            "plans/my%20plan.json"
        );
        assert_eq!(loc["physicalLocation"]["region"]["startLine"], 12);
        assert_eq!(loc["physicalLocation"]["region"]["startColumn"], 7);
        assert_eq!(
            loc["logicalLocations"][0]["fullyQualifiedName"],
            "steps[2].target.label"
        );
    }
}
