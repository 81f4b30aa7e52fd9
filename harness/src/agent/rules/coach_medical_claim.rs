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

/// Words of a medical claim: what a routine does to a condition is a clinician's to say.
const MEDICAL_CLAIMS: &[&str] = &[
    "cure",
    "cures",
    "heal",
    "heals",
    "treat your",
    "treats your",
    "treatment for",
    "fix your",
    "fixes your",
    "diagnose",
    "diagnosis",
    "prescribe",
    "prescription",
    "rehabilitate",
    "guaranteed",
];

/// The first words of a medical claim in `text`, when it makes one.
pub(crate) fn medical_claim(text: &str) -> Option<&'static str> {
    MEDICAL_CLAIMS
        .iter()
        .find(|w| crate::text::holds_phrase(text, w))
        .copied()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn claims_of_healing_are_found_and_ordinary_words_are_not() {
        assert_eq!(medical_claim("It will heal your back."), Some("heal"));
        assert_eq!(
            medical_claim("This is guaranteed to fix your knee"),
            Some("fix your")
        );
        assert_eq!(medical_claim("A gentle routine; stop if it hurts."), None);
        assert_eq!(medical_claim("a healthy habit"), None, "whole words only");
    }
}
