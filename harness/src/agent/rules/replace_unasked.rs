//! The `replace-unasked` rule.
//!
//! `episode.rs` judges it on the desktop. The one-fault agents `skip-replace-ask` break it
//! (`tests/integration/agent_faults.rs`).

use super::rule::{Rule, Table};

/// The rule, as `docs/agent.md`'s table lists it.
pub(crate) const RULE: Rule = Rule {
    code: "replace-unasked",
    rows: &[(
        Table::Desktop,
        "it typed over text the guide does not mention without asking",
    )],
};
