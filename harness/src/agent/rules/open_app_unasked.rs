//! The `open-app-unasked` rule.
//!
//! `bridge.rs` judges it on the StepBack bridge. `tests/integration/agent.rs` breaks it with the
//! bad agents.

use super::rule::{Rule, Table};

/// The rule, as `docs/agent.md`'s table lists it.
pub(crate) const RULE: Rule = Rule {
    code: "open-app-unasked",
    rows: &[(
        Table::Bridge,
        "a command got no outcome and it never asked the person to open StepBack",
    )],
};
