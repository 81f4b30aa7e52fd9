//! The `wrote-unapproved` rule.
//!
//! `bridge.rs` judges it on the StepBack bridge. `tests/integration/agent.rs` breaks it with the
//! bad agents.

use super::rule::{Rule, Table};

/// The rule, as `docs/agent.md`'s table lists it.
pub(crate) const RULE: Rule = Rule {
    code: "wrote-unapproved",
    rows: &[(
        Table::Bridge,
        "it wrote a command before the person approved a proposal, or after a decline",
    )],
};
