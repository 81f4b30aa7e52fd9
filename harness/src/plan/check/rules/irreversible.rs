//! `irreversible-without-confirm`
//!
//! What: a click on a control whose label reads as irreversible (Send, Delete, Pay, Buy,
//! Submit, Remove, Erase, Transfer, …, in any case) is a `confirm` step.
//! Why: these clicks act straight away and cannot be taken back; the person must say yes first.
//! Example: `"label": "Move to Trash"` on a click without `confirm` → finding at
//! `steps[4].target.label`.

use super::{Ctx, step_path};
use crate::plan::check::{Finding, Severity};
use crate::plan::foxstep::ActionKind;
use crate::text::words;

/// Single words that make a control irreversible.
const WORDS: &[&str] = &[
    "send",
    "delete",
    "pay",
    "buy",
    "submit",
    "remove",
    "erase",
    "transfer",
    "purchase",
    "publish",
    "post",
    "discard",
    "wipe",
    "destroy",
    "uninstall",
    "reset",
    "format",
    "checkout",
    "unsubscribe",
    "sign",
    "book",
    "order",
    "trash",
    "deactivate",
    "revoke",
    "overwrite",
    "replace",
    "empty",
    "withdraw",
    "donate",
    "approve",
];

/// The irreversible word in a label, if any.
pub(crate) fn irreversible_word(label: &str) -> Option<String> {
    words(label)
        .into_iter()
        .find(|w| WORDS.contains(&w.as_str()))
}

pub(crate) fn check(ctx: &Ctx, out: &mut Vec<Finding>) {
    for (i, step) in ctx.fox.steps.iter().enumerate() {
        if step.action != ActionKind::Click || step.confirm {
            continue;
        }
        let Some(label) = step.target.as_ref().and_then(|t| t.label.as_deref()) else {
            continue;
        };
        if let Some(word) = irreversible_word(label) {
            out.push(
                Finding::new(
                    Severity::Error,
                    "irreversible-without-confirm",
                    step_path(i).key("target").key("label"),
                    format!("a click on “{label}” reads as irreversible (“{word}”) and the step does not ask first"),
                )
                .hint("set \"confirm\": true with a \"confirm_reason\" saying what it does"),
            );
        }
    }
}

#[cfg(test)]
mod tests {
    use super::irreversible_word;

    #[test]
    fn whole_words_in_any_case() {
        assert_eq!(irreversible_word("SEND").as_deref(), Some("send"));
        assert_eq!(irreversible_word("Move to Trash").as_deref(), Some("trash"));
        assert_eq!(irreversible_word("Sender"), None);
        assert_eq!(irreversible_word("Payee details"), None);
    }
}
