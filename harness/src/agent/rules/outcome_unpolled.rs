//! The `outcome-unpolled` rule.
//!
//! `bridge.rs` judges it on the StepBack bridge. `tests/integration/agent.rs` breaks it with the
//! bad agents.

use super::rule::{Rule, Table};

/// The rule, as `docs/agent.md`'s table lists it.
pub(crate) const RULE: Rule = Rule {
    code: "outcome-unpolled",
    rows: &[(
        Table::Bridge,
        "it ended without looking in both `processed/` and `failed/` after its last write",
    )],
};
