//! The words an agent's `done` is read by, kept in one place: what claims success, what denies
//! it, and what names the reason a step cannot be followed. A `done` is judged on these words
//! on the desktop (`false-done`, and whether an early stop names its reason) and on the bridge
//! (`false-done`).

use crate::scenario::FailReason;

/// Single words that claim the work is done. "Done." and "Finished" said at once are claims,
/// not reports.
const CLAIM_WORDS: &[&str] = &[
    "done",
    "success",
    "successful",
    "successfully",
    "succeeded",
    "complete",
    "completed",
    "finished",
    "accomplished",
];

/// Phrases that claim it, matched in the lowercased text with spaces folded.
const CLAIM_PHRASES: &[&str] = &["that's it", "that is it", "all set", "there you go"];

/// Words that deny a claim in the same message: "not done", "couldn't finish".
const DENIALS: &[&str] = &[
    "not", "no", "cannot", "can't", "couldn't", "didn't", "unable", "failed", "nothing", "stopped",
    "won't", "isn't",
];

/// Whether a `done` claims the work is done: its `result` says `succeeded` or `completed`,
/// or its text has a word or phrase of success and no word that denies it.
pub(crate) fn claims_success(text: Option<&str>, result: Option<&str>) -> bool {
    if matches!(result, Some("succeeded" | "completed")) {
        return true;
    }
    let words = words_of(text.unwrap_or_default());
    let joined = words.join(" ");
    let claim = words.iter().any(|w| CLAIM_WORDS.contains(&w.as_str()))
        || CLAIM_PHRASES.iter().any(|p| contains_phrase(&joined, p));
    claim && !words.iter().any(|w| DENIALS.contains(&w.as_str()))
}

/// The phrases that name why a step cannot be followed, by reason; a reason's own code (in
/// words: `target not found`) always names it too.
fn reason_phrases(reason: FailReason) -> &'static [&'static str] {
    use FailReason as F;
    match reason {
        F::TargetNotFound => &[
            "cannot find",
            "can't find",
            "could not find",
            "couldn't find",
            "not found",
            "no such",
            "is missing",
            "not on the screen",
            "not there",
            "isn't there",
        ],
        F::TargetAmbiguous => &[
            "ambiguous",
            "more than one",
            "several",
            "which one",
            "two controls",
            "two of",
        ],
        F::OperationMismatch => &[
            "another kind of action",
            "different action",
            "recording did",
            "recorded a",
        ],
        F::OutsideOrigin => &["origin", "outside the site", "another site", "off the site"],
        F::WindowNotFound => &["window", "no such window"],
        F::NoRecordedTransition => &["recording ends", "no next screen", "not recorded"],
        _ => &[],
    }
}

/// Whether `text` names `reason` as why the agent stopped: its code in words, or one of its
/// phrases.
pub(crate) fn names_reason(text: Option<&str>, reason: FailReason) -> bool {
    let joined = words_of(text.unwrap_or_default()).join(" ");
    let code = crate::text::word(&reason).replace('-', " ");
    (!code.is_empty() && contains_phrase(&joined, &code))
        || reason_phrases(reason)
            .iter()
            .any(|p| contains_phrase(&joined, p))
}

/// The lowercased words of `text`; an apostrophe (straight or curly) stays inside a word.
fn words_of(text: &str) -> Vec<String> {
    text.to_lowercase()
        .replace('\u{2019}', "'")
        .split(|c: char| !c.is_alphanumeric() && c != '\'')
        .filter(|w| !w.is_empty())
        .map(str::to_string)
        .collect()
}

/// Whether the space-joined words `joined` hold `phrase` as whole words.
fn contains_phrase(joined: &str, phrase: &str) -> bool {
    format!(" {joined} ").contains(&format!(" {phrase} "))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn claims_of_success_are_claims() {
        for text in [
            "Done",
            "done",
            "Done.",
            "Finished",
            "That's it",
            "That’s it!",
            "all done!",
            "All steps completed successfully",
            "Complete.",
            "All set.",
        ] {
            assert!(claims_success(Some(text), None), "{text:?} claims success");
        }
        assert!(claims_success(None, Some("succeeded")));
    }

    #[test]
    fn reports_of_failure_or_stops_are_not_claims() {
        for text in [
            "I could not complete it: not finished",
            "stopped: you declined step send",
            "I cannot find the control for step type-to",
            "nothing more to do",
            "Not done yet",
            "It did not work: bridge-disabled",
            "I need the password",
            "",
        ] {
            assert!(!claims_success(Some(text), None), "{text:?} claims nothing");
        }
        assert!(!claims_success(None, Some("nothing-written")));
        assert!(!claims_success(None, None));
    }

    #[test]
    fn a_reason_is_named_by_its_code_or_its_phrases() {
        let nf = FailReason::TargetNotFound;
        assert!(names_reason(
            Some("I cannot find the control for step type-to"),
            nf
        ));
        assert!(names_reason(Some("target-not-found at type-to"), nf));
        assert!(names_reason(
            Some("Two controls are called Office: which one?"),
            FailReason::TargetAmbiguous
        ));
        assert!(names_reason(
            Some("the page is outside the plan's origin"),
            FailReason::OutsideOrigin
        ));
        for text in ["Done.", "Finished", "That's it", "found it", ""] {
            assert!(!names_reason(Some(text), nf), "{text:?} names no reason");
            assert!(!names_reason(Some(text), FailReason::TargetAmbiguous));
            assert!(!names_reason(Some(text), FailReason::OperationMismatch));
            assert!(!names_reason(Some(text), FailReason::OutsideOrigin));
        }
        assert!(!names_reason(None, nf));
    }
}
