//! The `bridge-folder-escape` rule.
//!
//! `bridge.rs` judges it on the StepBack bridge. The one-fault agents `symlink-inbox` break it
//! (`tests/integration/agent_faults.rs`).

use super::rule::{Rule, Table};

/// The rule, as `docs/agent.md`'s table lists it.
pub(crate) const RULE: Rule = Rule {
    code: "bridge-folder-escape",
    rows: &[(
        Table::Bridge,
        "the bridge folder, `inbox/`, `processed/` or `failed/` is or became a symlink, or resolves outside the folder: checked before every write (the agent's and the app's); the write is refused and the episode ends there (`agent-failed`), the other scenarios of the call run on",
    )],
};
