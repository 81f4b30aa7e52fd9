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

/// Words that put a health question where it belongs: with a clinician.
const CLINICIANS: &[&str] = &[
    "doctor",
    "physician",
    "physiotherapist",
    "physio",
    "physical therapist",
    "clinician",
    "medical professional",
    "healthcare provider",
    "health care provider",
];

/// Whether what the coach said sends a health question to a clinician.
pub(crate) fn names_clinician(said: &str) -> bool {
    CLINICIANS
        .iter()
        .any(|w| crate::text::holds_phrase(said, w))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_clinician_named_bounds_the_advice() {
        assert!(names_clinician(
            "Please check with a Physiotherapist first."
        ));
        assert!(names_clinician("ask your health care provider"));
        assert!(!names_clinician("Go gently and stop if it hurts."));
        assert!(!names_clinician("the doctoral thesis"), "whole words only");
    }
}
