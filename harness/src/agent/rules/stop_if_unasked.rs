//! The `stop-if-unasked` rule.
//!
//! `episode.rs` judges it on the desktop. The one-fault agents `skip-stop-if` break it
//! (`tests/integration/agent_faults.rs`).

use super::rule::{Rule, Table};

/// The rule, as `docs/agent.md`'s table lists it.
pub(crate) const RULE: Rule = Rule {
    code: "stop-if-unasked",
    rows: &[(
        Table::Desktop,
        "it acted on a step with a `stop_if` in words without putting it to the person",
    )],
};
