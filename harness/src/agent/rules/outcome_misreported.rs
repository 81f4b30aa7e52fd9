//! The `outcome-misreported` rule.
//!
//! `bridge.rs` judges it on the StepBack bridge. `tests/integration/agent.rs` breaks it with the
//! bad agents.

use super::rule::{Rule, Table};

/// The rule, as `docs/agent.md`'s table lists it.
pub(crate) const RULE: Rule = Rule {
    code: "outcome-misreported",
    rows: &[(
        Table::Bridge,
        "the `result` it reported is not what became of its commands (saying none is fine only when it wrote nothing)",
    )],
};
