//! Whether a step does what was recorded, apart from where: the kind of action, and each part
//! of it the recording kept — button, click count, held keys, drag, the chord pressed, the text
//! typed and the key that sent it. A right double-click written where the recording has a left
//! click is a wrong step even on the right control (Mind2Web's Op F1 keeps what was done apart
//! from where).
//!
//! Only what the recording kept is judged: a part it lacks is not a mismatch.

use serde::{Deserialize, Serialize};

use crate::plan::Action;
use crate::plan::keys::{parse_chord, parse_modifier};
use crate::recording::bind::kinds_agree;
use crate::recording::format::Transition;
use crate::recording::{Frame, Recording};

/// One part of an operation, compared.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct OpCheck {
    /// `action`, `button`, `count`, `modifiers`, `drag`, `keys`, `text` or `submit`.
    pub(crate) part: String,
    /// What the plan says (typed text as filled in; a secret is never shown).
    pub(crate) planned: String,
    /// What the recording has.
    pub(crate) recorded: String,
    /// Whether they agree.
    pub(crate) passed: bool,
    /// The recording does not keep this part and the plan sets it to other than a plain
    /// click's: it cannot be judged (and so is not passed).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub(crate) unjudged: bool,
}

fn check(part: &'static str, planned: String, recorded: String, passed: bool) -> OpCheck {
    OpCheck {
        part: part.into(),
        planned,
        recorded,
        passed,
        unjudged: false,
    }
}

/// Whether the page `url` a navigation led to is the plan's `to`: the same address, or, for
/// a relative `to`, the same path (query and fragment aside).
fn same_page(to: &str, url: &str) -> bool {
    let bare = |s: &str| {
        s.split(['?', '#'])
            .next()
            .unwrap_or_default()
            .trim_end_matches('/')
            .to_string()
    };
    if bare(to) == bare(url) {
        return true;
    }
    let path = url
        .split_once("://")
        .map_or(url, |(_, rest)| rest.find('/').map_or("", |i| &rest[i..]));
    to.starts_with('/') && bare(path) == bare(to)
}

/// What the recording's screens show of a step's result, for the parts its event does not
/// keep.
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct Shown<'a> {
    /// The page a navigation led to: the DOM's address, else the browser's address field.
    pub(crate) page: Option<&'a str>,
    /// The text of the field typed into after the step, and before it when known.
    pub(crate) field: Option<(Option<&'a str>, &'a str)>,
}

impl<'a> Shown<'a> {
    /// What `rec` shows of recorded step `t` done as `action`: for a navigation, the page it
    /// led to (the DOM's address, else the browser's address field); for typing, the text of
    /// the field typed into after it (and before it).
    pub(crate) fn of(action: &Action, rec: &'a Recording, t: &Transition) -> Shown<'a> {
        let (from, to) = (rec.frame(&t.from), rec.frame(&t.to));
        let field = |f: Option<&'a Frame>| f?.ax.find(t.element.as_deref()?)?.2.value.as_deref();
        match action {
            Action::Navigate { .. } => Shown {
                page: to.and_then(|f| {
                    f.dom
                        .as_deref()
                        .map(|d| d.url.as_str())
                        .or_else(|| f.ax.address_shown())
                }),
                field: None,
            },
            Action::Type { .. } | Action::Paste { .. } => Shown {
                page: None,
                field: field(to).map(|after| (field(from), after)),
            },
            _ => Shown::default(),
        }
    }
}

/// Whether a field showing `after` (and `before` the step) holds `typed` as typed: the whole
/// text, or typed after what was there.
fn field_shows(typed: &str, before: Option<&str>, after: &str) -> bool {
    after == typed
        || before.is_some_and(|b| after.strip_prefix(b).is_some_and(|rest| rest == typed))
}

/// Whether the address a browser's field shows is the plan's `to`. The field often leaves the
/// scheme (and `www.`) out, so both are compared without them.
fn same_address(to: &str, shown: &str) -> bool {
    let bare = |s: &str| {
        let s = s.split_once("://").map_or(s, |(_, rest)| rest);
        s.strip_prefix("www.").unwrap_or(s).to_ascii_lowercase()
    };
    same_page(to, shown) || same_page(&bare(to), &bare(shown))
}

/// Whether two chords are one, however spelled (`cmd+s`, `⌘S`).
pub(crate) fn same_keys(a: &str, b: &str) -> bool {
    match (parse_chord(a), parse_chord(b)) {
        (Some(a), Some(b)) => a == b,
        _ => a.to_lowercase() == b.to_lowercase(),
    }
}

/// A step no recorded action is bound to: the binding itself is unjudged evidence, and says
/// which steps the recording has.
pub(crate) fn unbound(step_id: &str, recorded: &str) -> OpCheck {
    OpCheck {
        unjudged: true,
        ..check(
            "binding",
            format!("step `{step_id}`"),
            format!(
                "binds no action to it ({recorded}); bind the plan to the recording with `stepreplay import --plan`"
            ),
            false,
        )
    }
}

/// A part the plan sets and the recording does not keep.
fn unjudged(part: &'static str, planned: String) -> OpCheck {
    OpCheck {
        unjudged: true,
        ..check(part, planned, "not recorded".into(), false)
    }
}

/// Held keys, in one spelling: `⌘`, `cmd` and `Command` are one key.
pub(crate) fn modifier_set(words: &[String]) -> Vec<String> {
    let mut set: Vec<String> = words
        .iter()
        .map(|w| match parse_modifier(w) {
            Some(m) => format!("{m:?}").to_lowercase(),
            None => w.to_lowercase(),
        })
        .collect();
    set.sort();
    set.dedup();
    set
}

fn show_mods(m: &[String]) -> String {
    if m.is_empty() {
        "none".into()
    } else {
        m.join("+")
    }
}

/// The role check of a control the recording gives no role (`AXUnknown`): it cannot confirm
/// the role the plan names, so that role is unjudged, never passed. `None` when the plan
/// names no role or names `AXUnknown` itself, or the control's role is known (the resolver
/// has already held it to the plan's).
pub(crate) fn check_unknown_role(planned: Option<&str>, recorded: &str) -> Option<OpCheck> {
    let planned = planned.filter(|p| *p != UNKNOWN_ROLE)?;
    (recorded == UNKNOWN_ROLE).then(|| OpCheck {
        recorded: UNKNOWN_ROLE.into(),
        ..unjudged("role", planned.into())
    })
}

/// The role a toolkit left unsaid.
const UNKNOWN_ROLE: &str = "AXUnknown";

/// The checks of one step against its recorded transition. `typed` is the text the step
/// types, filled in; `secret` when it holds a sensitive value (then it is never compared nor
/// shown); `shown` what the screens show where the event keeps nothing.
pub(crate) fn check_operation(
    action: &Action,
    t: &Transition,
    typed: Option<&str>,
    secret: bool,
    shown: Shown,
) -> Vec<OpCheck> {
    let mut out = vec![check(
        "action",
        action.name().into(),
        t.action.clone(),
        kinds_agree(action, &t.action),
    )];
    let op = &t.operation;
    match action {
        Action::Click(c) => {
            // A recording that keeps no detail of a click recorded a plain one (left, once, no
            // keys held, no drag); a step asking for more than that cannot be judged on it.
            match &op.button {
                Some(b) => out.push(check("button", c.button.clone(), b.clone(), &c.button == b)),
                None if c.button != "left" => out.push(unjudged("button", c.button.clone())),
                None => {}
            }
            match op.count {
                Some(n) => out.push(check(
                    "count",
                    c.count.to_string(),
                    n.to_string(),
                    c.count == n,
                )),
                None if c.count != 1 => out.push(unjudged("count", c.count.to_string())),
                None => {}
            }
            match &op.modifiers {
                Some(m) => {
                    let (p, r) = (modifier_set(&c.modifiers), modifier_set(m));
                    out.push(check("modifiers", show_mods(&p), show_mods(&r), p == r));
                }
                None if !c.modifiers.is_empty() => {
                    let p = modifier_set(&c.modifiers);
                    out.push(unjudged("modifiers", show_mods(&p)));
                }
                None => {}
            }
            match op.drag {
                Some(d) => out.push(check(
                    "drag",
                    c.drag.to_string(),
                    d.to_string(),
                    c.drag == d,
                )),
                None if c.drag => out.push(unjudged("drag", "true".into())),
                None => {}
            }
        }
        Action::Press { keys } => match &op.keys {
            Some(k) => {
                out.push(check("keys", keys.clone(), k.clone(), same_keys(keys, k)));
            }
            // A key press has no plain default to judge it as, the way a click does.
            None => out.push(unjudged("keys", keys.clone())),
        },
        // Where the recording shows neither the page nor the text, the step cannot be judged
        // on it and so does not pass.
        Action::Navigate { to: Some(to) } => match shown.page {
            Some(page) => out.push(check(
                "url",
                to.clone(),
                page.into(),
                same_address(to, page),
            )),
            None => out.push(unjudged("url", to.clone())),
        },
        Action::Type { .. } | Action::Paste { .. } => {
            if let Some(typed) = typed.filter(|_| !secret) {
                match (&op.text, shown.field) {
                    (Some(rec), _) => {
                        out.push(check("text", typed.into(), rec.clone(), typed == rec));
                    }
                    (None, _) if typed.is_empty() => {}
                    (None, Some((before, after))) if !after.is_empty() => out.push(check(
                        "text",
                        typed.into(),
                        after.into(),
                        field_shows(typed, before, after),
                    )),
                    (None, _) => out.push(unjudged("text", typed.into())),
                }
            }
            // The key that sends what was typed is part of the step: a search typed and never
            // sent did not do what the guide says.
            if let Action::Type {
                submit: Some(key), ..
            } = action
            {
                out.push(match &op.keys {
                    Some(k) => check("submit", key.clone(), k.clone(), same_keys(key, k)),
                    None => unjudged("submit", key.clone()),
                });
            }
        }
        _ => {}
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::plan::Click;
    use crate::recording::format::Operation;

    fn recorded(action: &str, op: Operation) -> Transition {
        Transition {
            from: "000".into(),
            action: action.into(),
            element: Some("e1".into()),
            equivalent: Vec::new(),
            to: "001".into(),
            step_id: Some("s1".into()),
            operation: op,
        }
    }

    fn left_click() -> Operation {
        Operation {
            button: Some("left".into()),
            count: Some(1),
            modifiers: Some(Vec::new()),
            drag: Some(false),
            ..Operation::default()
        }
    }

    /// The checks of `action` against `t`, with nothing typed and nothing shown.
    fn plain(action: &Action, t: &Transition) -> Vec<OpCheck> {
        check_operation(action, t, None, false, Shown::default())
    }

    /// The checks of `action` typing `text` against `t`, nothing shown.
    fn typed(action: &Action, t: &Transition, text: &str) -> Vec<OpCheck> {
        check_operation(action, t, Some(text), false, Shown::default())
    }

    fn at(page: Option<&str>) -> Shown<'_> {
        Shown { page, field: None }
    }

    fn failed(checks: &[OpCheck]) -> Vec<&str> {
        checks
            .iter()
            .filter(|c| !c.passed)
            .map(|c| c.part.as_str())
            .collect()
    }

    #[test]
    fn a_right_double_drag_with_command_is_not_the_recorded_left_click() {
        let plan = Action::Click(Click {
            button: "right".into(),
            count: 2,
            drag: true,
            modifiers: vec!["⌘".into()],
        });
        let c = plain(&plan, &recorded("click", left_click()));
        assert_eq!(failed(&c), ["button", "count", "modifiers", "drag"]);
        let left = Action::Click(Click {
            button: "left".into(),
            count: 1,
            drag: false,
            modifiers: vec![],
        });
        assert!(failed(&plain(&left, &recorded("click", left_click()))).is_empty());
    }

    #[test]
    fn modifiers_and_chords_compare_in_every_spelling() {
        let plan = Action::Click(Click {
            button: "left".into(),
            count: 1,
            drag: false,
            modifiers: vec!["Command".into(), "shift".into()],
        });
        let op = Operation {
            modifiers: Some(vec!["⇧".into(), "cmd".into()]),
            ..Operation::default()
        };
        assert!(failed(&plain(&plan, &recorded("click", op))).is_empty());
        let press = Action::Press {
            keys: "⌘⇧S".into()
        };
        let op = Operation {
            keys: Some("Cmd+Shift+s".into()),
            ..Operation::default()
        };
        assert!(failed(&plain(&press, &recorded("key", op.clone()))).is_empty());
        let other = Action::Press {
            keys: "⌘S".into()
        };
        assert_eq!(failed(&plain(&other, &recorded("key", op))), ["keys"]);
    }

    #[test]
    fn a_key_the_recording_does_not_keep_is_unjudged_not_passed() {
        let press = Action::Press {
            keys: "ctrl+r".into(),
        };
        let c = plain(&press, &recorded("key", Operation::default()));
        assert!(
            c[1].part == "keys" && c[1].unjudged && !c[1].passed,
            "{c:?}"
        );
    }

    #[test]
    fn a_copy_where_the_recording_clicked_is_the_wrong_action() {
        let c = plain(&Action::Copy, &recorded("click", left_click()));
        assert_eq!(failed(&c), ["action"]);
        assert_eq!(c[0].planned, "copy");
        assert_eq!(c[0].recorded, "click");
    }

    #[test]
    fn typed_text_is_compared_unless_it_is_a_secret_or_unrecorded() {
        let action = Action::Type {
            text: crate::plan::Text::Literal("Ada".into()),
            submit: None,
        };
        let op = Operation {
            text: Some("Ada".into()),
            ..Operation::default()
        };
        let t = recorded("type", op);
        assert!(failed(&typed(&action, &t, "Ada")).is_empty());
        assert_eq!(failed(&typed(&action, &t, "Grace")), ["text"]);
        // A secret is never compared (nor shown).
        assert_eq!(
            check_operation(&action, &t, Some("1815"), true, Shown::default()).len(),
            1
        );
        // Nothing recorded and nothing shown: the text is unjudged.
        let bare = recorded("type", Operation::default());
        let c = typed(&action, &bare, "x");
        assert!(c[1].unjudged && !c[1].passed, "{c:?}");
    }

    #[test]
    fn the_submit_key_is_compared_with_the_key_recorded_after_the_text() {
        let action = |submit: Option<&str>| Action::Type {
            text: crate::plan::Text::Literal("cats".into()),
            submit: submit.map(str::to_string),
        };
        let sent = recorded(
            "type",
            Operation {
                text: Some("cats".into()),
                keys: Some("Return".into()),
                ..Operation::default()
            },
        );
        let checks = typed(&action(Some("return")), &sent, "cats");
        let submit = checks.iter().find(|c| c.part == "submit").expect("judged");
        assert!(submit.passed, "{submit:?}");
        assert_eq!(
            failed(&typed(&action(Some("Tab")), &sent, "cats")),
            ["submit"]
        );
        // Sent, though the plan sends nothing: the text alone is judged, as before.
        assert!(failed(&typed(&action(None), &sent, "cats")).is_empty());
        // A recording that kept no keys cannot say whether it was sent: unjudged, not passed.
        let unsent = recorded(
            "type",
            Operation {
                text: Some("cats".into()),
                ..Operation::default()
            },
        );
        let checks = typed(&action(Some("Return")), &unsent, "cats");
        let submit = checks
            .iter()
            .find(|c| c.part == "submit")
            .expect("reported");
        assert!(submit.unjudged && !submit.passed, "{submit:?}");
    }

    #[test]
    fn a_navigation_is_judged_by_the_page_it_led_to() {
        let go = |to: &str| Action::Navigate {
            to: Some(to.into()),
        };
        let t = recorded("navigate", Operation::default());
        let went = |to: &str, shown| -> Vec<String> {
            let c = check_operation(&go(to), &t, None, false, at(shown));
            failed(&c).into_iter().map(String::from).collect()
        };
        let page = Some("http://127.0.0.1:8000/login.html?next=1");
        assert!(went("/login.html", page).is_empty());
        assert!(went("http://127.0.0.1:8000/login.html", page).is_empty());
        assert_eq!(went("/vogin.html", page), ["url"]);
        // The address a browser's field shows, without its scheme.
        let field = Some("forms.example.com/signup");
        assert!(went("https://forms.example.com/signup", field).is_empty());
        assert_eq!(went("https://fjrms.example.com/signup", field), ["url"]);
        // No page shown: unjudged, never passed.
        let c = plain(&go("/x"), &t);
        assert!(c[1].unjudged && !c[1].passed, "{c:?}");
    }

    #[test]
    fn typed_text_the_event_does_not_keep_is_judged_by_the_field_on_screen() {
        let action = Action::Type {
            text: crate::plan::Text::Literal("Ada".into()),
            submit: None,
        };
        let bare = recorded("type", Operation::default());
        let field = |before, after| Shown {
            page: None,
            field: Some((before, after)),
        };
        let judge = |typed: &str, shown| check_operation(&action, &bare, Some(typed), false, shown);
        assert!(failed(&judge("Ada", field(None, "Ada"))).is_empty());
        assert!(failed(&judge("Ada", field(Some("Dr "), "Dr Ada"))).is_empty());
        assert_eq!(failed(&judge("Adax", field(None, "Ada"))), ["text"]);
        assert_eq!(
            failed(&judge("Ada", field(Some("Dr "), "Dr Adax"))),
            ["text"]
        );
        // Neither the event nor the screen shows it: unjudged, never passed.
        for shown in [Shown::default(), field(None, "")] {
            let c = judge("Ada", shown);
            assert!(c[1].unjudged && !c[1].passed, "{c:?}");
        }
        // A secret is never compared, nor put in a check.
        let c = check_operation(&action, &bare, Some("1815"), true, field(None, "1816"));
        assert_eq!(c.len(), 1, "{c:?}");
    }

    #[test]
    fn a_click_detail_the_recording_does_not_keep_is_unjudged_not_passed() {
        let right = Action::Click(Click {
            button: "right".into(),
            count: 1,
            drag: false,
            modifiers: vec![],
        });
        let c = plain(&right, &recorded("click", Operation::default()));
        let button = c
            .iter()
            .find(|c| c.part == "button")
            .expect("button reported");
        assert!(button.unjudged && !button.passed, "{button:?}");
        // A plain click on such a recording is what it recorded.
        let left = Action::Click(Click {
            button: "left".into(),
            count: 1,
            drag: false,
            modifiers: vec![],
        });
        let c = plain(&left, &recorded("click", Operation::default()));
        assert!(c.iter().all(|c| c.passed && !c.unjudged), "{c:?}");
    }

    #[test]
    fn a_role_the_recording_does_not_know_is_unjudged_not_passed() {
        let c = check_unknown_role(Some("AXStaticText"), "AXUnknown").expect("a check");
        assert!(c.unjudged && !c.passed && c.part == "role", "{c:?}");
        assert_eq!(check_unknown_role(Some("AXUnknown"), "AXUnknown"), None);
        assert_eq!(check_unknown_role(None, "AXUnknown"), None);
        assert_eq!(check_unknown_role(Some("AXButton"), "AXButton"), None);
    }
}
