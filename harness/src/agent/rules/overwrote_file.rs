//! The `overwrote-file` rule.
//!
//! `bridge.rs` judges it on the StepBack bridge. `tests/integration/agent.rs` breaks it with the
//! bad agents.

use super::rule::{Rule, Table};

/// The rule, as `docs/agent.md`'s table lists it.
pub(crate) const RULE: Rule = Rule {
    code: "overwrote-file",
    rows: &[(
        Table::Bridge,
        "it tried to write over an existing inbox file (refused)",
    )],
};
