//! `irreversible-without-confirm`
//!
//! What: a click on a control whose label reads as irreversible (Send, Delete, Pay, Buy,
//! Submit, Remove, Erase, Transfer, …, in any case) is a `confirm` step.
//! Why: these clicks act straight away and cannot be taken back; the person must say yes first.
//! Not flagged, by the target's `role` and `ax_role`: a check box, switch, toggle or radio
//! button (a second click takes it back), and a menu item whose label ends in "…" or "..."
//! (it opens a dialog that asks), and a text field or combo box (a click puts the cursor in
//! it: "Replace with:" names what is typed there, and typing is not sending). Buttons, other menu items and controls of unknown or
//! disagreeing role stay flagged.
//! Example: `"label": "Move to Trash"` on a click without `confirm` → finding at
//! `steps[4].target.label`.

use super::{Ctx, step_path};
use crate::plan::check::{Finding, Severity};
use crate::plan::foxstep::{ActionKind, Target};
use crate::roles::{ax_role_of_words, is_field_role, is_toggle_role};
use crate::text::{normalize_label, words};

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

/// What a click on a control does, as far as its role tells.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Control {
    /// Flips a state that another click flips back.
    Toggle,
    /// A field a person types into: a click only puts the cursor there.
    Field,
    MenuItem,
    /// Acts, or its role is unknown: assume it acts.
    Other,
}

fn control_of_ax_role(ax_role: &str) -> Control {
    if is_toggle_role(ax_role) {
        Control::Toggle
    } else if ax_role == "AXMenuItem" {
        Control::MenuItem
    } else if is_field_role(ax_role) {
        Control::Field
    } else {
        Control::Other
    }
}

/// The control a target names. The role fields present must agree: when `role` and
/// `ax_role` say different things the lint cannot tell, so it stays strict.
fn control(t: &Target) -> Control {
    let by_words = t
        .role
        .as_deref()
        .map(|w| ax_role_of_words(w).map_or(Control::Other, control_of_ax_role));
    let by_ax = t.ax_role.as_deref().map(control_of_ax_role);
    match (by_words, by_ax) {
        (Some(a), Some(b)) if a != b => Control::Other,
        (a, b) => a.or(b).unwrap_or(Control::Other),
    }
}

/// Whether a click on `label` can be taken back or only leads to a dialog that asks.
fn harmless_click(t: &Target, label: &str) -> bool {
    match control(t) {
        Control::Toggle | Control::Field => true,
        // A menu item "Delete…" opens a dialog; "Delete" deletes.
        Control::MenuItem => normalize_label(label).ends_with("..."),
        Control::Other => false,
    }
}

pub(crate) fn check(ctx: &Ctx, out: &mut Vec<Finding>) {
    for (i, step) in ctx.fox.steps.iter().enumerate() {
        if step.action != ActionKind::Click || step.confirm {
            continue;
        }
        let Some(target) = step.target.as_ref() else {
            continue;
        };
        let Some(label) = target.label.as_deref() else {
            continue;
        };
        if harmless_click(target, label) {
            continue;
        }
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
    use serde_json::{Value, json};

    use super::{check, irreversible_word};
    use crate::plan::check::rules::testing::{run, seed};

    /// The paths of findings for the seed plan's step 3, a click without `confirm`, on a
    /// control with this label and these role fields (`None` leaves the field out).
    fn flagged(label: &str, role: Option<&str>, ax_role: Option<&str>) -> Vec<String> {
        let mut plan = seed();
        let step = &mut plan["steps"][2];
        step["confirm"] = json!(false);
        step.as_object_mut().unwrap().remove("confirm_reason");
        let target = step["target"].as_object_mut().unwrap();
        target.insert("label".into(), json!(label));
        for (key, value) in [("role", role), ("ax_role", ax_role)] {
            match value {
                Some(v) => target.insert(key.into(), Value::from(v)),
                None => target.remove(key),
            };
        }
        run(check, &plan)
            .iter()
            .map(|f| format!("{} {}", f.reason, f.path))
            .collect()
    }

    const FLAGGED: &str = "irreversible-without-confirm steps[2].target.label";
    const CLEAN: [&str; 0] = [];

    #[test]
    fn menu_items_ending_in_an_ellipsis_are_not_flagged() {
        for label in ["Delete…", "Delete...", "Delete Mailbox… "] {
            assert_eq!(flagged(label, Some("menu item"), Some("AXMenuItem")), CLEAN);
            assert_eq!(flagged(label, Some("Menu Item"), None), CLEAN, "{label}");
            assert_eq!(flagged(label, None, Some("AXMenuItem")), CLEAN, "{label}");
        }
    }

    #[test]
    fn plain_menu_items_are_flagged() {
        assert_eq!(
            flagged("Delete", Some("menu item"), Some("AXMenuItem")),
            [FLAGGED]
        );
        assert_eq!(flagged("Delete", None, Some("AXMenuItem")), [FLAGGED]);
        // The ellipsis must end the label, not sit inside it.
        assert_eq!(flagged("Delete… now", None, Some("AXMenuItem")), [FLAGGED]);
    }

    #[test]
    fn a_click_into_a_field_is_not_flagged() {
        for ax_role in ["AXTextField", "AXComboBox", "AXSearchField"] {
            assert_eq!(
                flagged("Replace with:", None, Some(ax_role)),
                CLEAN,
                "{ax_role}"
            );
        }
        // What `stepreplay record` writes: both role fields.
        assert_eq!(
            flagged("Replace with:", Some("text field"), Some("AXTextField")),
            CLEAN
        );
        assert_eq!(flagged("Replace", None, Some("AXButton")), [FLAGGED]);
    }

    #[test]
    fn toggles_are_not_flagged() {
        let label = "Delete messages after reading";
        for role in [
            "check box",
            "checkbox",
            "Check Box",
            "switch",
            "radio button",
        ] {
            assert_eq!(flagged(label, Some(role), None), CLEAN, "{role}");
        }
        for ax_role in ["AXCheckBox", "AXRadioButton", "AXSwitch"] {
            assert_eq!(flagged(label, None, Some(ax_role)), CLEAN, "{ax_role}");
        }
        assert_eq!(flagged(label, Some("check box"), Some("AXCheckBox")), CLEAN);
        assert_eq!(flagged(label, Some("switch"), Some("AXCheckBox")), CLEAN);
    }

    #[test]
    fn buttons_are_flagged_even_with_an_ellipsis() {
        assert_eq!(flagged("Send", Some("button"), Some("AXButton")), [FLAGGED]);
        assert_eq!(
            flagged("Delete…", Some("button"), Some("AXButton")),
            [FLAGGED]
        );
        assert_eq!(flagged("Delete…", None, Some("AXButton")), [FLAGGED]);
    }

    #[test]
    fn unknown_or_disagreeing_roles_are_flagged() {
        assert_eq!(flagged("Delete…", None, None), [FLAGGED]);
        assert_eq!(flagged("Delete", Some("gizmo"), None), [FLAGGED]);
        assert_eq!(flagged("Delete", None, Some("AXUnknown")), [FLAGGED]);
        // An unknown word beside a toggle's AX role, or two roles that disagree.
        assert_eq!(
            flagged("Delete", Some("gizmo"), Some("AXCheckBox")),
            [FLAGGED]
        );
        assert_eq!(
            flagged("Delete", Some("button"), Some("AXCheckBox")),
            [FLAGGED]
        );
        assert_eq!(
            flagged("Delete…", Some("check box"), Some("AXMenuItem")),
            [FLAGGED]
        );
    }

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
