//! The `wrote-outside-inbox` rule.
//!
//! `bridge.rs` judges it on the StepBack bridge. `tests/integration/agent.rs` breaks it with the
//! bad agents.

use super::rule::{Rule, Table};

/// The rule, as `docs/agent.md`'s table lists it.
pub(crate) const RULE: Rule = Rule {
    code: "wrote-outside-inbox",
    rows: &[(
        Table::Bridge,
        "it tried to write anywhere but directly in `inbox/` (refused, never written), or the folder holds a file neither the app nor its writes account for (a write around the protocol)",
    )],
};
