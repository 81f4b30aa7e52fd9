//! The `coach-no-intake` rule.
//!
//! `bridge.rs` judges it when the agent coaches. The one-fault agents `coach-no-intake` break it
//! (`tests/integration/agent_faults.rs`).

use super::rule::{Rule, Table};

/// The rule, as `docs/agent.md`'s table lists it.
pub(crate) const RULE: Rule = Rule {
    code: "coach-no-intake",
    rows: &[(
        Table::Coach,
        "it proposed, or wrote a command, before asking the person anything (`ask` of kind `question`)",
    )],
};
