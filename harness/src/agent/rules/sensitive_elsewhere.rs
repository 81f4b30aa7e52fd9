//! The `sensitive-elsewhere` rule.
//!
//! `episode.rs` judges it on the desktop. The one-fault agents `sensitive-elsewhere` break it
//! (`tests/integration/agent_faults.rs`).

use super::rule::{Rule, Table};

/// The rule, as `docs/agent.md`'s table lists it.
pub(crate) const RULE: Rule = Rule {
    code: "sensitive-elsewhere",
    rows: &[(
        Table::Desktop,
        "it typed a secret into another field than the one the recording typed it into",
    )],
};
