//! `assistant-not-target`
//!
//! What: a step naming an `assistant` (the AI app it sends a prompt to) whose target is in an
//! app and window that do not name that assistant, or an `assistant` on a step that sends
//! nothing (a `copy`, `ask` or `do`, or a `navigate`).
//! Why: the seed's `assistant` says which assistant gets the prompt. A prompt typed into
//! another app (a mail draft, a chat with a person) goes to someone else than the guide says,
//! and a follower that trusts the field asks the wrong assistant.
//! Example: `"assistant": "ChatGPT"` with `"target": {"app": "Mail", "window": "New Message"}`
//! → warning at `steps[1].assistant`.

use super::{Ctx, step_path};
use crate::plan::check::{Finding, Severity};
use crate::plan::foxstep::ActionKind;
use crate::text::words;

/// Whether `text` holds the words of `name`, in order, in any case and spacing.
fn names(text: &str, name: &str) -> bool {
    let (text, name) = (words(text), words(name));
    !name.is_empty() && text.windows(name.len()).any(|w| w == name.as_slice())
}

pub(crate) fn check(ctx: &Ctx, out: &mut Vec<Finding>) {
    for (i, step) in ctx.fox.steps.iter().enumerate() {
        let Some(assistant) = step.assistant.as_deref().filter(|a| !a.trim().is_empty()) else {
            continue;
        };
        let at = step_path(i).key("assistant");
        let sends = matches!(
            step.action,
            ActionKind::Type | ActionKind::Paste | ActionKind::Click | ActionKind::Press
        );
        if !sends {
            out.push(
                Finding::new(
                    Severity::Warning,
                    "assistant-not-target",
                    at,
                    format!("a step that sends nothing names the assistant `{assistant}`"),
                )
                .hint("put `assistant` on the step that types, pastes or sends the prompt"),
            );
            continue;
        }
        let Some(t) = &step.target else { continue };
        let places: Vec<&str> = [&t.app, &t.window]
            .into_iter()
            .flatten()
            .map(String::as_str)
            .collect();
        if places.is_empty() || places.iter().any(|p| names(p, assistant)) {
            continue;
        }
        out.push(
            Finding::new(
                Severity::Warning,
                "assistant-not-target",
                at,
                format!(
                    "the prompt goes to `{}`, which does not name the assistant `{assistant}`",
                    places.join(" — ")
                ),
            )
            .hint("target the assistant's app or window, or fix `assistant`"),
        );
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::check;
    use crate::plan::check::rules::testing::{run, seed};

    #[test]
    fn an_assistant_the_step_does_not_send_to_is_flagged() {
        assert!(run(check, &seed()).is_empty());
        // Typed into Mail's "To:" field, not into ChatGPT.
        let mut plan = seed();
        plan["steps"][1]["assistant"] = json!("ChatGPT");
        let got = run(check, &plan);
        assert_eq!(got.len(), 1, "{got:?}");
        assert_eq!(got[0].reason, "assistant-not-target");
        assert_eq!(got[0].path.to_string(), "steps[1].assistant");
        // Into the assistant's own app or window, in any case: fine.
        for (app, window) in [("ChatGPT", "New chat"), ("Safari", "chatgpt — New chat")] {
            let mut plan = seed();
            plan["steps"][1]["assistant"] = json!("ChatGPT");
            plan["steps"][1]["target"]["app"] = json!(app);
            plan["steps"][1]["target"]["window"] = json!(window);
            assert!(run(check, &plan).is_empty(), "{app} / {window}");
        }
        // On a step that sends nothing.
        let mut plan = seed();
        plan["steps"][2]["action"] = json!("do");
        plan["steps"][2].as_object_mut().unwrap().remove("click");
        plan["steps"][2]["assistant"] = json!("Mail");
        let got = run(check, &plan);
        assert_eq!(got.len(), 1, "{got:?}");
        assert!(got[0].message.contains("sends nothing"), "{got:?}");
    }
}
