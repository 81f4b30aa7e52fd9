//! The `manifest-stale` rule.
//!
//! `bridge.rs` judges it on the StepBack bridge. `tests/integration/agent.rs` breaks it with the
//! bad agents.

use super::rule::{Rule, Table};

/// The rule, as `docs/agent.md`'s table lists it.
pub(crate) const RULE: Rule = Rule {
    code: "manifest-stale",
    rows: &[(
        Table::Bridge,
        "the manifest changed after its last read, before it proposed",
    )],
};
