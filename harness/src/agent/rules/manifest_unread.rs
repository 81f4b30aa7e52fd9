//! The `manifest-unread` rule.
//!
//! `bridge.rs` judges it on the StepBack bridge. `tests/integration/agent.rs` breaks it with the
//! bad agents.

use super::rule::{Rule, Table};

/// The rule, as `docs/agent.md`'s table lists it.
pub(crate) const RULE: Rule = Rule {
    code: "manifest-unread",
    rows: &[(
        Table::Bridge,
        "it proposed changes without reading `manifest.json`",
    )],
};
