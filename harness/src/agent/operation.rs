//! How an agent clicked, pressed, typed or navigated, against the step and the recording: a
//! wrong button, count, held keys, drag or chord, text the recording did not type, or a page
//! it did not reach ends the run `operation-mismatch` (a skill failure, not a broken rule).
//! The recording's side is judged by the follower's own check.

use crate::expect::{OpCheck, Shown};
use crate::plan::{Action, Click, Text};
use crate::recording::Recording;
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
/// with its button, count, keys and drag; a press with its chord (none said: empty); the
/// text it typed or pasted (a [`Text::Secret`] when it holds one: never compared or shown);
/// the URL it went to.
pub(crate) fn agent_did(
    action: &str,
    click: Click,
    keys: Option<String>,
    text: Option<(String, bool)>,
    url: Option<String>,
) -> Option<Action> {
    let text = text.map(|(t, secret)| {
        if secret {
            Text::Secret(t)
        } else {
            Text::Literal(t)
        }
    });
    match action {
        "click" => Some(Action::Click(click)),
        "press" => Some(Action::Press {
            keys: keys.unwrap_or_default(),
        }),
        "type" => Some(Action::Type {
            text: text?,
            submit: None,
        }),
        "paste" => Some(Action::Paste { text }),
        "navigate" => Some(Action::Navigate { to: url }),
        _ => None,
    }
}

/// What the recording kept of the act: its kind as an agent's action word matches a
/// recording's, then `did`'s detail part by part by the follower's own check, on what `rec`
/// shows of the step (the page it led to, the field it typed into).
pub(crate) fn recorded_checks(
    action: &str,
    did: Option<&Action>,
    t: &Transition,
    rec: &Recording,
) -> Vec<OpCheck> {
    let mut checks = vec![OpCheck {
        part: "action".into(),
        planned: action.to_string(),
        recorded: t.action.clone(),
        passed: same_kind(action, &t.action),
        unjudged: false,
    }];
    if let Some(did) = did {
        let (typed, secret) = match did {
            Action::Type { text, .. } | Action::Paste { text: Some(text) } => match text {
                Text::Secret(s) => (Some(s.as_str()), true),
                Text::Literal(s) => (Some(s.as_str()), false),
                Text::Template(_) => (None, false),
            },
            _ => (None, false),
        };
        checks.extend(
            crate::expect::check_operation(did, t, typed, secret, Shown::of(did, rec, t))
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
    recorded: Option<(&Transition, &Recording)>,
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
        && let (Some((t, rec)), Some(did)) = (recorded, did)
    {
        wrong.extend(
            recorded_checks(did.name(), Some(did), t, rec)
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
    let keys = crate::expect::modifier_set;
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
                None,
                None,
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
        let rec = login();
        let why = mismatch(&step, Some((&recorded, &rec)), press("ctrl+s").as_ref()).unwrap();
        assert!(why.contains("the recording: ctrl+shift+s"), "{why}");
    }

    fn login() -> Recording {
        let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/../recordings/devthink-login");
        crate::recording::load_recording(std::path::Path::new(dir)).unwrap()
    }

    #[test]
    fn typed_text_and_the_page_a_navigation_reached_are_judged_against_the_recording() {
        // The recording typed “robin” at `user` and its navigation reached /login.html.
        let rec = login();
        let at = |id: &str| {
            let mut all = rec.file.transitions.iter();
            all.find(|t| t.step_id.as_deref() == Some(id)).unwrap()
        };
        let typed = |text: &str, secret: bool| {
            let did = agent_did(
                "type",
                agent_click(None, None, &[], false),
                None,
                Some((text.to_string(), secret)),
                None,
            );
            let step = Action::Type {
                text: Text::Literal("robin".into()),
                submit: None,
            };
            mismatch(&step, Some((at("user"), &rec)), did.as_ref())
        };
        assert_eq!(typed("robin", false), None);
        assert_eq!(
            typed("robyn", false).as_deref(),
            Some("text robyn (the recording: robin)")
        );
        // A secret is never compared, so never shown.
        assert_eq!(typed("robyn", true), None);
        let went = |url: &str| {
            let did = agent_did(
                "navigate",
                agent_click(None, None, &[], false),
                None,
                None,
                Some(url.to_string()),
            );
            mismatch(
                &Action::Navigate { to: None },
                Some((at("open"), &rec)),
                did.as_ref(),
            )
        };
        assert_eq!(went("http://127.0.0.1:8000/login.html"), None);
        let why = went("http://127.0.0.1:8000/signup.html").unwrap();
        assert!(why.contains("/login.html"), "{why}");
    }
}
