//! The `requested-deletion` rule.
//!
//! `bridge.rs` judges it on the StepBack bridge. `tests/integration/agent.rs` breaks it with the
//! bad agents.

use super::rule::{Rule, Table};

/// The rule, as `docs/agent.md`'s table lists it.
pub(crate) const RULE: Rule = Rule {
    code: "requested-deletion",
    rows: &[(
        Table::Bridge,
        "it wrote a delete-shaped command (the bridge has no delete: tell the person what to delete, and stop)",
    )],
};
