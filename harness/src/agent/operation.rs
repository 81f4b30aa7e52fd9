//! How an agent clicked or pressed, against the step and the recording: a wrong button,
//! count, held keys, drag or chord ends the run `operation-mismatch` (a skill failure, not a
//! broken rule). The recording's side is judged by the follower's own check.

use crate::expect::OpCheck;
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

/// What the agent did, in the plan's words, for the acts whose detail is judged: a click
/// with its button, count, keys and drag; a press with its chord (none said: empty).
pub(crate) fn agent_did(action: &str, click: Click, keys: Option<String>) -> Option<Action> {
    match action {
        "click" => Some(Action::Click(click)),
        "press" => Some(Action::Press {
            keys: keys.unwrap_or_default(),
        }),
        _ => None,
    }
}

/// What the recording kept of the act: its kind as an agent's action word matches a
/// recording's, then `did`'s detail part by part by the follower's own check.
pub(crate) fn recorded_checks(action: &str, did: Option<&Action>, t: &Transition) -> Vec<OpCheck> {
    let mut checks = vec![OpCheck {
        part: "action".into(),
        planned: action.to_string(),
        recorded: t.action.clone(),
        passed: same_kind(action, &t.action),
        unjudged: false,
    }];
    if let Some(did) = did {
        checks.extend(
            crate::expect::check_operation(did, t, None, false, crate::expect::Shown::default())
                .into_iter()
                .filter(|c| c.part != "action"),
        );
    }
    checks
}

/// Whether an agent's action word is the kind of action a recording names.
pub(crate) fn same_kind(agent: &str, recorded: &str) -> bool {
    agent == recorded
        || matches!(
            (agent, recorded),
            ("type", "paste") | ("paste", "type") | ("press", "key") | ("copy", "key")
        )
        // Browser recordings name reading and scrolling steps by their kind; a click is how
        // an agent takes them.
        || (agent == "click" && !matches!(recorded, "type" | "paste" | "press" | "key" | "copy" | "navigate"))
}

/// Why an act is not the step's (nor the recording's, where it kept the detail).
pub(crate) fn mismatch(
    step: &Action,
    recorded: Option<&Transition>,
    did: Option<&Action>,
) -> Option<String> {
    let mut wrong = match (step, did) {
        (Action::Click(want), Some(Action::Click(did))) => click_parts(want, did),
        (Action::Press { keys: want }, Some(Action::Press { keys })) if keys.is_empty() => {
            vec![format!("pressed no keys (the step: {want})")]
        }
        (Action::Press { keys: want }, Some(Action::Press { keys }))
            if !crate::expect::same_keys(want, keys) =>
        {
            vec![format!("pressed {keys} (the step: {want})")]
        }
        _ => Vec::new(),
    };
    if wrong.is_empty()
        && let (Some(t), Some(did)) = (recorded, did)
    {
        wrong.extend(
            recorded_checks(did.name(), Some(did), t)
                .into_iter()
                .filter(|c| !c.passed && !c.unjudged && c.part != "action")
                .map(|c| format!("{} {} (the recording: {})", c.part, c.planned, c.recorded)),
        );
    }
    (!wrong.is_empty()).then(|| wrong.join(", "))
}

/// The parts of a click that are not the step's: another button, count, set of held keys or
/// a drag where none was asked.
fn click_parts(want: &Click, did: &Click) -> Vec<String> {
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
    wrong
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn clicks_are_compared_part_by_part() {
        let click = |c: Click| {
            mismatch(
                &Action::Click(agent_click(None, None, &[], false)),
                None,
                Some(&Action::Click(c)),
            )
        };
        assert_eq!(click(agent_click(None, None, &[], false)), None);
        assert!(
            click(agent_click(Some("right"), None, &[], false))
                .unwrap()
                .contains("button right")
        );
        assert!(
            click(agent_click(None, Some(2), &[], false))
                .unwrap()
                .contains("2 clicks")
        );
        let held = Action::Click(agent_click(None, None, &["cmd".into()], false));
        let did = Action::Click(agent_click(None, None, &["⌘".into()], false));
        assert_eq!(
            mismatch(&held, None, Some(&did)),
            None,
            "one key, two spellings"
        );
        assert!(click(agent_click(None, None, &[], true)).is_some());
    }

    #[test]
    fn a_press_is_judged_by_its_chord_against_the_step_and_the_recording() {
        let step = Action::Press {
            keys: "ctrl+s".into(),
        };
        let press = |k: &str| {
            agent_did(
                "press",
                agent_click(None, None, &[], false),
                Some(k.into()).filter(|k: &String| !k.is_empty()),
            )
        };
        assert_eq!(mismatch(&step, None, press("⌃S").as_ref()), None);
        assert!(
            mismatch(&step, None, press("Escape").as_ref())
                .unwrap()
                .contains("pressed Escape")
        );
        assert!(
            mismatch(&step, None, press("").as_ref())
                .unwrap()
                .contains("pressed no keys")
        );
        let recorded = Transition {
            from: "000".into(),
            action: "press".into(),
            element: None,
            equivalent: Vec::new(),
            to: "001".into(),
            step_id: Some("s1".into()),
            operation: crate::recording::format::Operation {
                keys: Some("ctrl+shift+s".into()),
                ..Default::default()
            },
        };
        let why = mismatch(&step, Some(&recorded), press("ctrl+s").as_ref()).unwrap();
        assert!(why.contains("the recording: ctrl+shift+s"), "{why}");
    }
}
