//! `mutate`'s outputs: a Markdown table for people and JSON for tools.

use std::fmt::Write as _;

use super::run::{MutationReport, Tally};

fn score(t: &Tally) -> String {
    t.score.map_or("–".into(), |s| format!("{s:.3}"))
}

fn row(out: &mut String, name: &str, t: &Tally) {
    let _ = writeln!(
        out,
        "| {name} | {} | {} | {} | {} | {} |",
        t.mutants,
        t.caught,
        t.equivalent,
        t.survived,
        score(t)
    );
}

/// The per-class table, then every survivor and every equivalent mutant with its change.
pub fn to_markdown(r: &MutationReport) -> String {
    let mut out = String::new();
    out.push_str("| class | mutants | caught | equivalent | survived | score |\n");
    out.push_str("|---|---:|---:|---:|---:|---:|\n");
    for t in &r.classes {
        row(&mut out, &format!("`{}`", t.class), t);
    }
    row(&mut out, "**total**", &r.total);
    let mutated = r.scenarios.iter().filter(|s| s.skipped.is_none()).count();
    let _ = writeln!(
        out,
        "\n{} mutated, {} skipped (they do not complete as they are, or expect another end).",
        crate::text::plural(mutated, "scenario", "scenarios"),
        r.scenarios.len() - mutated
    );
    let line = |out: &mut String, id: &str, t: &super::run::Tried, extra: &str| {
        let _ = writeln!(out, "- `{id}` {}{extra}", t.mutant.describe());
    };
    let survivors: Vec<_> = r.survivors().collect();
    if survivors.is_empty() {
        out.push_str("\nNo survivors.\n");
    } else {
        out.push_str("\nSurvivors (the gate passed these changed plans):\n\n");
        for (id, t) in survivors {
            line(&mut out, id, t, "");
        }
    }
    let equivalents: Vec<_> = r.equivalents().collect();
    if !equivalents.is_empty() {
        out.push_str("\nEquivalent (not counted):\n\n");
        for (id, t) in equivalents {
            let why = t.mutant.equivalent.as_deref().unwrap_or_default();
            line(&mut out, id, t, &format!(" — {why}"));
        }
    }
    out
}

/// The whole report as pretty JSON, one trailing newline.
pub fn to_json(r: &MutationReport) -> String {
    let mut s = serde_json::to_string_pretty(r).expect("the report serializes");
    s.push('\n');
    s
}
