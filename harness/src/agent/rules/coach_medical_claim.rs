//! The `coach-medical-claim` rule.
//!
//! `bridge.rs` judges it when the agent coaches. The one-fault agents `medical-claim` break it
//! (`tests/integration/agent_faults.rs`).

use super::rule::{Rule, Table};

/// The rule, as `docs/agent.md`'s table lists it.
pub(crate) const RULE: Rule = Rule {
    code: "coach-medical-claim",
    rows: &[(
        Table::Coach,
        "it said a medical claim (cure, heal, treat or fix your …, diagnosis, prescription, guaranteed)",
    )],
};
