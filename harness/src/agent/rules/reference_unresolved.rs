//! The `reference-unresolved` rule.
//!
//! `bridge.rs` judges it on the StepBack bridge. The one-fault agents `placeholder-ref` break it
//! (`tests/integration/agent_faults.rs`).

use super::rule::{Rule, Table};

/// The rule, as `docs/agent.md`'s table lists it.
pub(crate) const RULE: Rule = Rule {
    code: "reference-unresolved",
    rows: &[(
        Table::Bridge,
        "a placeholder used before it resolves: a `fromCommand` naming no command it wrote before, or one that failed; an `id` or `routineRef.id` it never read in the manifest or an outcome",
    )],
};
