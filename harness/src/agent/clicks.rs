//! How an agent clicked, against how the step and the recording click: a wrong button, count,
//! held keys or drag ends the run `operation-mismatch` (a skill failure, not a broken rule).

use crate::plan::{Action, Click};
use crate::recording::format::Transition;

/// How the agent says it clicked: the button, the count, the held keys and whether it
/// dragged (a plain left click when it says nothing).
pub(crate) fn agent_click(
    button: Option<&str>,
    count: Option<u8>,
    modifiers: &[String],
    drag: bool,
) -> Click {
    Click {
        button: button.unwrap_or("left").to_string(),
        count: count.unwrap_or(1),
        drag,
        modifiers: modifiers.to_vec(),
    }
}

/// Why a click is not the step's (nor the recording's, where it kept the detail): another
/// button, count, set of held keys or a drag where none was asked.
pub(crate) fn click_mismatch(
    step: &Action,
    recorded: Option<&Transition>,
    did: &Click,
) -> Option<String> {
    let Action::Click(want) = step else {
        return None;
    };
    let keys = |m: &[String]| {
        let mut v: Vec<String> = m
            .iter()
            .map(|w| match crate::plan::keys::parse_modifier(w) {
                Some(k) => format!("{k:?}").to_lowercase(),
                None => w.to_lowercase(),
            })
            .collect();
        v.sort();
        v.dedup();
        v
    };
    let mut wrong = Vec::new();
    if want.button != did.button {
        wrong.push(format!("button {} (the step: {})", did.button, want.button));
    }
    if want.count != did.count {
        wrong.push(format!("{} clicks (the step: {})", did.count, want.count));
    }
    if keys(&want.modifiers) != keys(&did.modifiers) {
        wrong.push(format!(
            "held keys [{}] (the step: [{}])",
            keys(&did.modifiers).join("+"),
            keys(&want.modifiers).join("+")
        ));
    }
    if want.drag != did.drag {
        wrong.push(format!("drag {} (the step: {})", did.drag, want.drag));
    }
    if wrong.is_empty()
        && let Some(t) = recorded
    {
        wrong.extend(
            crate::expect::check_operation(
                &Action::Click(did.clone()),
                t,
                None,
                false,
                crate::expect::Shown::default(),
            )
            .into_iter()
            .filter(|c| !c.passed && !c.unjudged && c.part != "action")
            .map(|c| format!("{} {} (the recording: {})", c.part, c.planned, c.recorded)),
        );
    }
    (!wrong.is_empty()).then(|| wrong.join(", "))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn clicks_are_compared_part_by_part() {
        let step = Action::Click(agent_click(None, None, &[], false));
        assert_eq!(
            click_mismatch(&step, None, &agent_click(None, None, &[], false)),
            None
        );
        let right = click_mismatch(&step, None, &agent_click(Some("right"), None, &[], false));
        assert!(right.unwrap().contains("button right"));
        let double = click_mismatch(&step, None, &agent_click(None, Some(2), &[], false));
        assert!(double.unwrap().contains("2 clicks"));
        let held = Action::Click(agent_click(None, None, &["cmd".into()], false));
        assert_eq!(
            click_mismatch(&held, None, &agent_click(None, None, &["⌘".into()], false)),
            None,
            "one key, two spellings"
        );
        assert!(click_mismatch(&step, None, &agent_click(None, None, &[], true)).is_some());
    }
}
