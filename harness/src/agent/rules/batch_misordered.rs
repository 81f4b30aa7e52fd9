//! The `batch-misordered` rule.
//!
//! `bridge.rs` judges it on the StepBack bridge. The one-fault agents `batch-misordered` break it
//! (`tests/integration/agent_faults.rs`).

use super::rule::{Rule, Table};

/// The rule, as `docs/agent.md`'s table lists it.
pub(crate) const RULE: Rule = Rule {
    code: "batch-misordered",
    rows: &[(
        Table::Bridge,
        "a file sorts before one it wrote earlier that the app has not processed yet, so the app runs them the other way round (the seed: name files so lexical order is execution order)",
    )],
};
