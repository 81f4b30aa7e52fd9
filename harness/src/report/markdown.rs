//! `summary.md` ([`to_markdown`]): the report for a CI job summary — totals, regressions
//! first (they are what a reviewer must act on), then a table of scenarios with their scores
//! and what failed. Guide text is untrusted: it is escaped so it cannot break the table or
//! inject HTML into the rendered summary.

use super::baseline::RegressionReport;
use super::entries::ReportRef;
use super::model::ScenarioReport;
use crate::errors::Error;
use crate::score::COLUMNS;
use crate::text::word;

/// Escapes text for a Markdown table cell: HTML specials, pipes, Markdown emphasis and links,
/// and line breaks; a character XML 1.0 refuses becomes U+FFFD, as on the HTML page.
pub(crate) fn md_escape(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in crate::text::xml_safe(s).chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '|' => out.push_str("\\|"),
            '\\' | '`' | '*' | '_' | '[' | ']' | '#' | '!' => {
                out.push('\\');
                out.push(c);
            }
            '\n' | '\r' => out.push(' '),
            c if c.is_control() => {}
            c => out.push(c),
        }
    }
    out
}

/// The Markdown summary; `regressions` when the run was compared with a baseline.
pub fn to_markdown<'a>(
    report: impl Into<ReportRef<'a>>,
    regressions: Option<&RegressionReport>,
) -> Result<String, Error> {
    let mut md = String::new();
    write_markdown(report.into(), regressions, &mut md)?;
    Ok(md)
}

/// [`to_markdown`] written to `md` a row at a time (a file's writer: see
/// [`crate::output::FmtIo`]), so the summary of a big suite is never one string.
pub(crate) fn write_markdown(
    report: ReportRef,
    regressions: Option<&RegressionReport>,
    md: &mut dyn std::fmt::Write,
) -> Result<(), Error> {
    let ReportRef {
        head: report,
        entries,
    } = report;
    let s = &report.summary;
    let verdict = super::Verdict::of(report, regressions, 0).headline();
    let _ = writeln!(md, "## stepreplay: {verdict}\n");
    let _ = writeln!(
        md,
        "**{}** scenarios: **{}** as expected, **{}** not.\n",
        s.scenarios, s.met, s.not_met
    );
    let headers: Vec<&str> = COLUMNS.iter().map(|c| c.header).collect();
    let _ = writeln!(md, "| mode | {} |", headers.join(" | "));
    let _ = writeln!(md, "|---|{}", "---:|".repeat(COLUMNS.len()));
    for (mode, sc) in &s.scores {
        let cells: Vec<String> = COLUMNS.iter().map(|c| c.of(sc).to_string()).collect();
        let _ = writeln!(md, "| {} | {} |", word(mode), cells.join(" | "));
    }
    if let Some(f) = &s.agent {
        let _ = writeln!(md, "\n{}", f.markdown());
    }
    if let Some(slow) = &report.slow {
        let _ = writeln!(md, "\n### Slower than {} s\n", slow.threshold);
        if slow.scenarios.is_empty() {
            let _ = writeln!(md, "None.");
        }
        for sc in &slow.scenarios {
            let _ = writeln!(md, "- **{}**: {:.2} s", md_escape(&sc.id), sc.seconds);
        }
    }
    if let Some(r) = regressions {
        let _ = writeln!(md, "\n### Regressions against the baseline\n");
        if r.regressions.is_empty() {
            let _ = writeln!(md, "None (tolerance {}).", r.tolerance);
        }
        // One line per place, its root cause first, as the terminal says it; every change
        // folded below.
        let places = r.place_lines();
        if !places.is_empty() {
            let _ = writeln!(md, "{}:\n", r.headline());
        }
        for (line, _) in &places {
            let _ = writeln!(md, "- {}", md_escape(line));
        }
        if r.regressions.len() > places.len() {
            let _ = writeln!(
                md,
                "\n<details><summary>Every change ({})</summary>\n",
                r.regressions.len()
            );
            for g in &r.regressions {
                let what = g.scenario.as_deref().unwrap_or("(all scenarios)");
                let _ = writeln!(md, "- {}: {}", md_escape(what), md_escape(&g.line()));
            }
            let _ = writeln!(md, "\n</details>");
        }
        let other_shards = r.not_compared_count.max(r.not_compared.len());
        if other_shards > 0 {
            let _ = writeln!(
                md,
                "\n{other_shards} baseline scenarios were not in this run."
            );
        }
    }
    let _ = writeln!(md, "\n### Scenarios\n");
    let first = report.modes.first();
    let _ = writeln!(
        md,
        "| | scenario | outcome | element | click | steps | expects | what failed |"
    );
    let _ = writeln!(md, "|---|---|---|---:|---:|---:|---:|---|");
    // Scenarios that missed their expectation first: they are what the reader came for.
    entries.failed_first(&mut |sc| {
        let run = first.and_then(|m| sc.runs.get(m));
        let (outcome, scores) = match run {
            Some(r) => (
                match r.reason {
                    Some(rs) => format!("{} ({})", word(&r.outcome), word(&rs)),
                    None => word(&r.outcome),
                },
                format!(
                    "{:.3} | {:.3} | {:.3} | {:.3}",
                    r.scores.element_accuracy,
                    r.scores.click_accuracy,
                    r.scores.step_success,
                    r.scores.expect_pass_rate
                ),
            ),
            None => ("—".into(), "— | — | — | —".into()),
        };
        let failed = notes(sc, run);
        let _ = writeln!(
            md,
            "| {} | {} | {} | {} | {} |",
            if sc.met { "✅" } else { "❌" },
            md_escape(&sc.id),
            outcome,
            scores,
            failed
        );
        Ok(())
    })
}

/// What the row's last cell says: what failed, the review's words, the person's answers to
/// `stop_if`s, a `done` not seen to hold, and an agent's broken rules.
fn notes(sc: &ScenarioReport, run: Option<&super::model::RunReport>) -> String {
    let mut failed = if sc.met {
        String::new()
    } else {
        what_failed(sc, run)
    };
    // A browser plan refused at review says what the review surface said.
    if run.is_some_and(|r| r.steps.iter().all(|s| s.status == "not-run")) {
        for r in run.iter().flat_map(|r| &r.review) {
            if !failed.is_empty() {
                failed.push_str("; ");
            }
            failed.push_str(&md_escape(&format!("review {r}")));
        }
    }
    // A stop_if in words is shown with the person's answer, whatever the outcome.
    for a in run
        .iter()
        .flat_map(|r| &r.steps)
        .flat_map(|st| &st.asked)
        .filter(|a| a.kind == "stop-if")
    {
        if !failed.is_empty() {
            failed.push_str("; ");
        }
        failed.push_str(&md_escape(&format!("{} → {}", a.detail, a.answer)));
    }
    // A done that was not seen to hold says why, even on a run that met its expectation.
    if let Some(d) = run.and_then(|r| r.done.as_ref()) {
        let said = match d.passed {
            Some(true) => None,
            Some(false) => Some(format!("done “{}”: {}", d.text, d.detail)),
            None => Some(format!("done not judged: {}", d.detail)),
        };
        if let Some(said) = said {
            if !failed.is_empty() {
                failed.push_str("; ");
            }
            failed.push_str(&md_escape(&said));
        }
    }
    // An agent's broken safety rules, each with its step.
    for v in sc.agent.iter().flat_map(|a| &a.violations) {
        if !failed.is_empty() {
            failed.push_str("<br>");
        }
        let at = v
            .step
            .as_deref()
            .map(|s| format!(" at {s}"))
            .unwrap_or_default();
        failed.push_str(&md_escape(&format!("broke {}{at}: {}", v.rule, v.detail)));
    }
    failed
}

fn what_failed(sc: &ScenarioReport, run: Option<&super::model::RunReport>) -> String {
    let mut parts = vec![md_escape(
        sc.mismatch.as_deref().unwrap_or("not as expected"),
    )];
    if let Some(r) = run {
        for st in &r.steps {
            if st.status == "failed" || st.status == "stopped" {
                let check = st
                    .checks
                    .iter()
                    .find(|c| !c.passed)
                    .map(|c| format!(", {}: {}", c.kind, md_escape(&c.detail)))
                    .unwrap_or_default();
                // The file and line of the field to fix, as the terminal prints it.
                let at = match (st.line, st.column) {
                    (Some(l), Some(c)) => format!("{}:{l}:{c}", sc.plan),
                    (Some(l), None) => format!("{}:{l}", sc.plan),
                    _ => String::new(),
                };
                let at = if at.is_empty() {
                    at
                } else {
                    format!(" at {}", md_escape(&at))
                };
                parts.push(format!(
                    "{} {}{check}{at}",
                    md_escape(&st.named()),
                    st.reason.map(|r| word(&r)).unwrap_or_default()
                ));
            }
        }
    }
    parts.join("<br>")
}
