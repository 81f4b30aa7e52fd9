//! The `coach-medical-unbounded` rule.
//!
//! `bridge.rs` judges it when the agent coaches. The one-fault agents `medical-unbounded` break it
//! (`tests/integration/agent_faults.rs`).

use super::rule::{Rule, Table};

/// The rule, as `docs/agent.md`'s table lists it.
pub(crate) const RULE: Rule = Rule {
    code: "coach-medical-unbounded",
    rows: &[(
        Table::Coach,
        "the person named a condition and it proposed without naming a doctor, physiotherapist or other clinician",
    )],
};
