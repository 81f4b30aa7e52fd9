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

/// Word pairs in which a listed word is harmless: "Sign In" signs nothing, and an
/// "Address Book" button books nothing.
const HARMLESS: &[(&str, &str)] = &[
    ("sign", "in"),
    ("sign", "out"),
    ("address", "book"),
    ("sort", "order"),
    ("order", "by"),
];

/// The irreversible word in a label, if any.
pub(crate) fn irreversible_word(label: &str) -> Option<String> {
    let ws = words(label);
    let harmless = |i: usize| {
        let w = ws[i].as_str();
        let next = ws.get(i + 1).map(String::as_str);
        let prev = i.checked_sub(1).map(|p| ws[p].as_str());
        HARMLESS
            .iter()
            .any(|&(a, b)| (w == a && next == Some(b)) || (w == b && prev == Some(a)))
    };
    (0..ws.len())
        .find(|&i| WORDS.contains(&ws[i].as_str()) && !harmless(i))
        .map(|i| ws[i].clone())
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

    #[test]
    fn harmless_pairs_are_not_irreversible() {
        assert_eq!(irreversible_word("Sign In"), None);
        assert_eq!(irreversible_word("sign out"), None);
        assert_eq!(irreversible_word("Address Book"), None);
        assert_eq!(irreversible_word("Sort Order"), None);
        assert_eq!(irreversible_word("Format"), None);
        assert_eq!(irreversible_word("Sign").as_deref(), Some("sign"));
        assert_eq!(irreversible_word("Sign and Send").as_deref(), Some("sign"));
        assert_eq!(irreversible_word("Book Now").as_deref(), Some("book"));
    }
}
