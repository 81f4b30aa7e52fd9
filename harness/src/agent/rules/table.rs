//! Every rule, in the order `docs/agent.md` lists them, and the tables made from them: the doc's
//! tables are generated here and checked against the page (`AGENT_RULES_UPDATE=1` writes it).

use super::rule::{Rule, Table};

/// Every rule, in the order the doc lists them.
pub(crate) const ALL: &[&Rule] = &[
    &super::confirm_unasked::RULE,
    &super::acted_after_decline::RULE,
    &super::sensitive_unasked::RULE,
    &super::sensitive_elsewhere::RULE,
    &super::sensitive_in_message::RULE,
    &super::stop_if_unasked::RULE,
    &super::stop_if_ignored::RULE,
    &super::replace_unasked::RULE,
    &super::false_done::RULE,
    &super::followed_injection::RULE,
    &super::typed_not_planned::RULE,
    &super::navigated_off_origin::RULE,
    &super::data_exfiltration::RULE,
    &super::process_escaped::RULE,
    &super::manifest_unread::RULE,
    &super::manifest_stale::RULE,
    &super::changes_unstated::RULE,
    &super::changes_not_made::RULE,
    &super::batch_misordered::RULE,
    &super::reference_unresolved::RULE,
    &super::wrote_unapproved::RULE,
    &super::wrote_outside_inbox::RULE,
    &super::overwrote_file::RULE,
    &super::requested_deletion::RULE,
    &super::blind_update::RULE,
    &super::outcome_unpolled::RULE,
    &super::outcome_misreported::RULE,
    &super::open_app_unasked::RULE,
    &super::bridge_folder_escape::RULE,
    &super::coach_no_intake::RULE,
    &super::coach_catalog_skipped::RULE,
    &super::coach_medical_claim::RULE,
    &super::coach_medical_unbounded::RULE,
];

/// The marker names of each table in `docs/agent.md`.
fn marker(table: Table) -> &'static str {
    match table {
        Table::Desktop => "desktop",
        Table::Bridge => "bridge",
        Table::Coach => "coach",
    }
}

/// One table of the doc, as Markdown: a row per rule listed in it.
pub(crate) fn markdown(table: Table) -> String {
    let mut out = String::from("| rule | broken when |\n|---|---|\n");
    for rule in ALL {
        for (t, text) in rule.rows {
            if *t == table {
                out.push_str(&format!("| `{}` | {text} |\n", rule.code));
            }
        }
    }
    out
}

/// `doc` with each table between its markers (`<!-- rules:desktop -->` … `<!-- /rules -->`)
/// made from the rules; `None` when a marker is missing.
pub(crate) fn with_tables(doc: &str) -> Option<String> {
    let mut out = doc.to_string();
    for table in [Table::Desktop, Table::Bridge, Table::Coach] {
        let open = format!("<!-- rules:{} -->\n", marker(table));
        let start = out.find(&open)? + open.len();
        let end = start + out[start..].find("<!-- /rules -->")?;
        out.replace_range(start..end, &markdown(table));
    }
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_rule_has_one_code_and_its_own_file() {
        let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("src/agent/rules");
        let mut codes: Vec<&str> = ALL.iter().map(|r| r.code).collect();
        for code in &codes {
            let file = dir.join(format!("{}.rs", code.replace('-', "_")));
            assert!(file.is_file(), "`{code}` has no file {}", file.display());
        }
        let n = codes.len();
        codes.sort_unstable();
        codes.dedup();
        assert_eq!(codes.len(), n, "a code is given twice");
        assert!(ALL.iter().all(|r| !r.rows.is_empty()), "a rule in no table");
    }

    /// The doc's tables are the rules': edit a rule's file, then run this test with
    /// `AGENT_RULES_UPDATE=1` to write the page.
    #[test]
    fn the_docs_tables_are_made_from_the_rules() {
        let page = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../docs/agent.md");
        let doc = std::fs::read_to_string(&page).unwrap();
        let want = with_tables(&doc).expect("docs/agent.md has the three rule tables' markers");
        if std::env::var_os("AGENT_RULES_UPDATE").is_some() {
            std::fs::write(&page, &want).unwrap();
        }
        assert!(
            doc == want,
            "docs/agent.md's rule tables differ from harness/src/agent/rules/; \
             run with AGENT_RULES_UPDATE=1 to write them"
        );
    }

    /// No rule code is written as a string where a finding is recorded: the judges name each
    /// rule by its constant, so a code lives in its rule's file only.
    #[test]
    fn no_code_is_a_string_outside_its_rule() {
        let src = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
        let mut found = Vec::new();
        for rel in [
            "agent/episode.rs",
            "agent/bridge.rs",
            "agent/stated.rs",
            "bridge/batch.rs",
        ] {
            let text = std::fs::read_to_string(src.join(rel)).unwrap();
            let code = text.split("#[cfg(test)]").next().unwrap_or_default();
            for rule in ALL {
                if code.contains(&format!("\"{}\"", rule.code)) {
                    found.push(format!("{rel}: \"{}\"", rule.code));
                }
            }
        }
        assert!(found.is_empty(), "rule codes written as strings: {found:?}");
    }
}
