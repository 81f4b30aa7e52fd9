//! The `coach-catalog-skipped` rule.
//!
//! `bridge.rs` judges it when the agent coaches. The one-fault agents `catalog-skipped` break it
//! (`tests/integration/agent_faults.rs`).

use super::rule::{Rule, Table};

/// The rule, as `docs/agent.md`'s table lists it.
pub(crate) const RULE: Rule = Rule {
    code: "coach-catalog-skipped",
    rows: &[(
        Table::Coach,
        "it created a custom workout the built-in catalog has (same words as a catalog id or name)",
    )],
};
