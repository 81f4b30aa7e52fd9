//! Playing a [`Script`] forward: the desktop's state step by step, turned into one AX snapshot
//! per frame and the transitions between them ([`Built`]).
//!
//! A step whose changes are empty leaves the desktop as it was: it gets a transition from the
//! frame back to itself (the follower stays put), and `ask`/`do` steps with nothing to act on
//! get no transition at all, since they never touch the desktop.

use std::collections::BTreeMap;
use std::path::Path;

use super::script::{Change, ControlSpec, Kind, NameIn, Script, StepSpec, WindowKind};
use crate::errors::{FieldPath, InputError, Reason};
use crate::plan::foxstep::{ActionKind, Button, Click};
use crate::recording::ax::{AX_SCHEMA, App, AxSnapshot, Element, Rect, Window};
use crate::recording::format::{Operation, Transition};

/// The frames and transitions a script plays out to.
#[derive(Debug)]
pub struct Built {
    /// One AX snapshot per frame, in order.
    pub(crate) frames: Vec<AxSnapshot>,
    /// The transitions.
    pub(crate) transitions: Vec<Transition>,
    /// For each step, the index of the frame it acts on.
    pub(crate) before: Vec<usize>,
}

/// The frame id of frame `i`.
pub(crate) fn frame_id(i: usize) -> String {
    format!("{i:03}")
}

/// The action's wire word (`click`, `type`, …).
pub(crate) fn action_word(a: ActionKind) -> String {
    serde_json::to_value(a)
        .ok()
        .and_then(|v| v.as_str().map(str::to_string))
        .unwrap_or_default()
}

/// How the scripted person did a step: the click the plan says (a plain left click when it
/// says none), the keys, a literal value typed. A template's text is left out: the recording
/// typed the inputs' examples, and a scenario may give other values.
fn operation_of(step: &StepSpec) -> Operation {
    match step.action {
        ActionKind::Click => {
            let c = step.click.clone().unwrap_or(Click {
                button: Button::Left,
                count: 1,
                drag: false,
                modifiers: Vec::new(),
            });
            Operation {
                button: serde_json::to_value(c.button)
                    .ok()
                    .and_then(|v| v.as_str().map(str::to_string)),
                count: Some(c.count),
                modifiers: Some(c.modifiers),
                drag: Some(c.drag),
                ..Operation::default()
            }
        }
        ActionKind::Press => Operation {
            keys: step.keys.clone(),
            ..Operation::default()
        },
        ActionKind::Type => Operation {
            text: step.value.clone().filter(|_| step.template.is_none()),
            keys: step.submit.clone(),
            ..Operation::default()
        },
        _ => Operation::default(),
    }
}

#[derive(Clone, Debug, Default)]
struct CtlState {
    value: Option<String>,
    selected: bool,
    hidden: bool,
    enabled: bool,
    dx: i32,
    dy: i32,
}

#[derive(Clone, Debug)]
struct WinState {
    open: bool,
    title: String,
    dx: i32,
    dy: i32,
}

#[derive(Clone, Debug)]
struct State {
    ctl: BTreeMap<String, CtlState>,
    win: BTreeMap<String, WinState>,
    /// Per app, window ids front to back.
    order: Vec<Vec<String>>,
    front: usize,
    focus: Option<String>,
}

/// The desktop before the first step, and each window's app. Ids must be unique across
/// windows and controls, and the focus a control's.
fn initial_state(
    script: &Script,
    path: &Path,
) -> Result<(State, BTreeMap<String, usize>), InputError> {
    let err = |p: FieldPath, reason: Reason, msg: String| InputError::new(path, reason, msg).at(p);
    // Ids are unique across windows and controls: they name elements across frames.
    let mut ids: BTreeMap<String, FieldPath> = BTreeMap::new();
    let mut win_app: BTreeMap<String, usize> = BTreeMap::new();
    let mut ctl = BTreeMap::new();
    let mut win = BTreeMap::new();
    let mut order = Vec::new();
    for (a, app) in script.apps.iter().enumerate() {
        let mut ord = Vec::new();
        for (w, ws) in app.windows.iter().enumerate() {
            let wp = FieldPath::root()
                .key("apps")
                .index(a)
                .key("windows")
                .index(w);
            if let Some(first) = ids.insert(ws.id.clone(), wp.clone()) {
                return Err(err(
                    wp.key("id"),
                    Reason::DuplicateId,
                    format!("id `{}` repeats (first at `{first}`)", ws.id),
                ));
            }
            win_app.insert(ws.id.clone(), a);
            win.insert(
                ws.id.clone(),
                WinState {
                    open: ws.open,
                    title: ws.title.clone(),
                    dx: 0,
                    dy: 0,
                },
            );
            ord.push(ws.id.clone());
            let mut stack: Vec<(&ControlSpec, FieldPath)> = ws
                .controls
                .iter()
                .enumerate()
                .map(|(i, c)| (c, wp.key("controls").index(i)))
                .collect();
            while let Some((c, p)) = stack.pop() {
                if let Some(first) = ids.insert(c.id.clone(), p.clone()) {
                    return Err(err(
                        p.key("id"),
                        Reason::DuplicateId,
                        format!("id `{}` repeats (first at `{first}`)", c.id),
                    ));
                }
                ctl.insert(
                    c.id.clone(),
                    CtlState {
                        // Static texts show their label: a change can rewrite it like a value.
                        value: match c.kind {
                            Kind::Label | Kind::Heading | Kind::Event => {
                                c.label.clone().or_else(|| c.value.clone())
                            }
                            _ => c.value.clone(),
                        },
                        selected: c.selected,
                        hidden: c.hidden,
                        enabled: c.enabled,
                        dx: 0,
                        dy: 0,
                    },
                );
                for (i, ch) in c.children.iter().enumerate() {
                    stack.push((ch, p.key("children").index(i)));
                }
            }
        }
        order.push(ord);
    }
    let front = script.apps.iter().position(|a| a.frontmost).unwrap_or(0);
    if script.apps.is_empty() {
        return Err(err(
            FieldPath::root().key("apps"),
            Reason::InvalidField,
            "a desktop needs at least one app".into(),
        ));
    }
    if let Some(f) = &script.focus
        && !ctl.contains_key(f)
    {
        return Err(err(
            FieldPath::root().key("focus"),
            Reason::UnknownId,
            format!("no control has the id `{f}`"),
        ));
    }
    let state = State {
        ctl,
        win,
        order,
        front,
        focus: script.focus.clone(),
    };
    Ok((state, win_app))
}

/// Plays the script out. `path` names the script in errors.
pub fn build(script: &Script, path: &Path) -> Result<Built, InputError> {
    let err = |p: FieldPath, reason: Reason, msg: String| InputError::new(path, reason, msg).at(p);
    let (mut state, win_app) = initial_state(script, path)?;
    let mut frames = vec![snapshot(script, &state)];
    let mut transitions = Vec::new();
    let mut before = Vec::new();
    for (i, step) in script.steps.iter().enumerate() {
        let sp = FieldPath::root().key("steps").index(i);
        let cur = frames.len() - 1;
        before.push(cur);
        if let Some(c) = &step.control
            && frames[cur].find(c).is_none()
        {
            return Err(err(
                sp.key("control"),
                Reason::UnknownId,
                format!("control `{c}` is not on screen in frame {}", frame_id(cur)),
            ));
        }
        for (j, ch) in step.changes.iter().enumerate() {
            apply(&mut state, ch, &win_app, script)
                .map_err(|(reason, msg)| err(sp.key("changes").index(j), reason, msg))?;
        }
        let to = if step.changes.is_empty() {
            if step.control.is_none() && matches!(step.action, ActionKind::Ask | ActionKind::Do) {
                continue;
            }
            cur
        } else {
            frames.push(snapshot(script, &state));
            frames.len() - 1
        };
        transitions.push(Transition {
            from: frame_id(cur),
            action: action_word(step.action),
            element: step.control.clone(),
            equivalent: Vec::new(),
            to: frame_id(to),
            step_id: Some(step.id.clone()),
            operation: operation_of(step),
        });
    }
    Ok(Built {
        frames,
        transitions,
        before,
    })
}

fn apply(
    st: &mut State,
    ch: &Change,
    win_app: &BTreeMap<String, usize>,
    script: &Script,
) -> Result<(), (Reason, String)> {
    let ops = [
        &ch.set,
        &ch.open,
        &ch.close,
        &ch.focus,
        &ch.select,
        &ch.deselect,
        &ch.show,
        &ch.hide,
        &ch.enable,
        &ch.disable,
        &ch.front,
        &ch.retitle,
        &ch.move_,
    ];
    if ops.iter().filter(|o| o.is_some()).count() != 1 {
        return Err((
            Reason::InvalidField,
            "a change names exactly one operation (set, open, close, focus, …)".into(),
        ));
    }
    let unknown = |id: &str| {
        (
            Reason::UnknownId,
            format!("no control or window has the id `{id}`"),
        )
    };
    fn c<'a>(st: &'a mut State, id: &str) -> Result<&'a mut CtlState, (Reason, String)> {
        st.ctl.get_mut(id).ok_or_else(|| {
            (
                Reason::UnknownId,
                format!("no control or window has the id `{id}`"),
            )
        })
    }
    if let Some(id) = &ch.set {
        let v = ch
            .value
            .clone()
            .ok_or((Reason::InvalidField, "`set` needs a `value`".to_string()))?;
        c(st, id)?.value = Some(v);
    } else if let Some(id) = &ch.select {
        c(st, id)?.selected = true;
    } else if let Some(id) = &ch.deselect {
        c(st, id)?.selected = false;
    } else if let Some(id) = &ch.show {
        c(st, id)?.hidden = false;
    } else if let Some(id) = &ch.hide {
        c(st, id)?.hidden = true;
    } else if let Some(id) = &ch.enable {
        c(st, id)?.enabled = true;
    } else if let Some(id) = &ch.disable {
        c(st, id)?.enabled = false;
    } else if let Some(id) = &ch.focus {
        c(st, id)?;
        st.focus = Some(id.clone());
    } else if let Some(id) = &ch.open {
        let a = *win_app.get(id).ok_or_else(|| unknown(id))?;
        st.win.get_mut(id).ok_or_else(|| unknown(id))?.open = true;
        let ord = &mut st.order[a];
        ord.retain(|w| w != id);
        ord.insert(0, id.clone());
        st.front = a;
    } else if let Some(id) = &ch.close {
        st.win.get_mut(id).ok_or_else(|| unknown(id))?.open = false;
    } else if let Some(name) = &ch.front {
        st.front = script
            .apps
            .iter()
            .position(|a| &a.name == name)
            .ok_or((Reason::UnknownId, format!("no app is named `{name}`")))?;
    } else if let Some(id) = &ch.retitle {
        let v = ch.value.clone().ok_or((
            Reason::InvalidField,
            "`retitle` needs a `value`".to_string(),
        ))?;
        st.win.get_mut(id).ok_or_else(|| unknown(id))?.title = v;
    } else if let Some(id) = &ch.move_ {
        if let Some(w) = st.win.get_mut(id) {
            w.dx += ch.dx;
            w.dy += ch.dy;
        } else {
            let s = c(st, id)?;
            s.dx += ch.dx;
            s.dy += ch.dy;
        }
    }
    Ok(())
}

fn snapshot(script: &Script, st: &State) -> AxSnapshot {
    let k = script.scale as i32;
    let mut app_order: Vec<usize> = vec![st.front];
    app_order.extend((0..script.apps.len()).filter(|&a| a != st.front));
    let mut apps = Vec::new();
    for a in app_order {
        let spec = &script.apps[a];
        let mut windows = Vec::new();
        let mut first = true;
        for wid in &st.order[a] {
            let ws = st.win.get(wid);
            let Some(ws) = ws.filter(|w| w.open) else {
                continue;
            };
            let Some(wspec) = spec.windows.iter().find(|w| &w.id == wid) else {
                continue;
            };
            let [x, y, w, h] = wspec.frame;
            let (x, y) = (x + ws.dx, y + ws.dy);
            let origin = (x, y + wspec.kind.title_bar());
            // Menus and the menu bar float over windows; the window under them keeps focus.
            let overlay = matches!(wspec.kind, WindowKind::Menubar | WindowKind::Menu);
            let focused = a == st.front && first && !overlay;
            if !overlay {
                first = false;
            }
            windows.push(Window {
                id: wid.clone(),
                title: ws.title.clone(),
                kind: Some(wspec.kind.word().to_string()),
                frame: Rect::new(x * k, y * k, w * k, h * k),
                focused,
                elements: wspec
                    .controls
                    .iter()
                    .filter_map(|c| element(c, st, origin, k))
                    .collect(),
            });
        }
        // The menu bar belongs on top of the list only for reading; it is not a window in front.
        apps.push(App {
            name: spec.name.clone(),
            bundle_id: spec.bundle_id.clone(),
            frontmost: a == st.front,
            windows,
        });
    }
    AxSnapshot {
        schema: AX_SCHEMA.to_string(),
        apps,
    }
}

fn element(c: &ControlSpec, st: &State, origin: (i32, i32), k: i32) -> Option<Element> {
    let s = st.ctl.get(&c.id)?;
    if s.hidden {
        return None;
    }
    let (ax_role, role, subrole) = c.kind.roles();
    let [x, y, w, h] = c.frame;
    let mut e = Element {
        id: c.id.clone(),
        ax_role: ax_role.to_string(),
        role: Some(role.to_string()),
        subrole: subrole.map(str::to_string),
        title: None,
        description: None,
        value: None,
        role_description: Some(role.to_string()),
        placeholder: c.placeholder.clone(),
        labelled_by: c.labelled_by.clone(),
        frame: Rect::new(
            (origin.0 + x + s.dx) * k,
            (origin.1 + y + s.dy) * k,
            w * k,
            h * k,
        ),
        enabled: s.enabled,
        focused: st.focus.as_deref() == Some(c.id.as_str()),
        selected: s.selected,
        children: c
            .children
            .iter()
            .filter_map(|ch| element(ch, st, origin, k))
            .collect(),
    };
    match c.kind {
        Kind::Label | Kind::Heading | Kind::Event => {
            e.value = s.value.clone();
        }
        _ => {
            match c.name_in {
                NameIn::Title => e.title = c.label.clone(),
                NameIn::Description => e.description = c.label.clone(),
            }
            e.value = s.value.clone();
        }
    }
    match c.kind {
        // A secure field shows bullets and the AX value is bullets too: never the secret.
        Kind::SecureField => {
            e.value = s
                .value
                .as_ref()
                .filter(|v| !v.is_empty())
                .map(|v| "•".repeat(v.chars().count()));
        }
        Kind::Checkbox | Kind::Switch | Kind::Radio => {
            e.value = Some(if s.selected { "1" } else { "0" }.to_string());
        }
        _ => {}
    }
    Some(e)
}

/// The name a person would read for an element: its own name, its labelled-by element's, or
/// the static text just left of it (or just above it) in the same window.
pub(crate) fn accessible_name(ax: &AxSnapshot, id: &str) -> Option<String> {
    let (_, win, e) = ax.find(id)?;
    if let Some(n) = e.own_name() {
        return Some(n.to_string());
    }
    if let Some(l) = &e.labelled_by
        && let Some((_, _, le)) = ax.find(l)
        && let Some(n) = le.own_name()
    {
        return Some(n.to_string());
    }
    let mut texts = Vec::new();
    win.walk(&mut |t| {
        if t.ax_role == "AXStaticText" && t.value.as_deref().is_some_and(|v| !v.trim().is_empty()) {
            texts.push(t);
        }
    });
    let f = e.frame;
    let cy = f.y + f.height / 2;
    let left = texts
        .iter()
        .filter(|t| {
            t.frame.x + t.frame.width <= f.x + 2
                && t.frame.y <= cy
                && t.frame.y + t.frame.height >= cy
        })
        .min_by_key(|t| f.x - (t.frame.x + t.frame.width));
    let above = || {
        texts
            .iter()
            .filter(|t| {
                t.frame.y + t.frame.height <= f.y + 2
                    && f.y - (t.frame.y + t.frame.height) <= f.height.max(8) * 2
                    && t.frame.x < f.x + f.width
                    && t.frame.x + t.frame.width > f.x
            })
            .min_by_key(|t| f.y - (t.frame.y + t.frame.height))
    };
    left.or_else(above)
        .and_then(|t| t.value.clone())
        .filter(|_| {
            matches!(
                e.ax_role.as_str(),
                "AXTextField" | "AXTextArea" | "AXPopUpButton" | "AXComboBox" | "AXCheckBox"
            )
        })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::json::Source;
    use crate::synth::script::parse_script;

    fn script(apps: &str, steps: &str) -> Script {
        let text = format!(
            r#"{{"schema": "stepreplay-synth/1", "name": "t", "guide": {{"id": "g", "title": "T"}},
               "apps": {apps}, "steps": {steps}}}"#
        );
        parse_script(&Source::from_text("t.json", text)).expect("test script parses")
    }

    const FORM: &str = r#"[{"name": "App", "windows": [{"id": "w", "title": "Form",
        "frame": [0, 0, 400, 300], "controls": [
        {"id": "l1", "kind": "label", "label": "First name", "frame": [10, 10, 80, 20]},
        {"id": "f1", "kind": "text-field", "frame": [100, 8, 200, 24]},
        {"id": "l2", "kind": "label", "label": "PIN", "frame": [10, 60, 80, 20]},
        {"id": "f2", "kind": "secure-field", "labelled_by": "l2", "frame": [100, 200, 200, 24]},
        {"id": "b", "kind": "icon-button", "frame": [10, 250, 30, 24]}]}]}]"#;

    #[test]
    fn nameless_fields_take_the_label_beside_them_or_their_labelled_by() {
        let s = script(FORM, "[]");
        let built = build(&s, Path::new("t.json")).expect("builds");
        let ax = &built.frames[0];
        assert_eq!(accessible_name(ax, "f1").as_deref(), Some("First name"));
        assert_eq!(accessible_name(ax, "f2").as_deref(), Some("PIN"));
        assert_eq!(accessible_name(ax, "b"), None);
    }

    #[test]
    fn secure_values_become_bullets_and_changes_make_frames() {
        let s = script(
            FORM,
            r#"[{"id": "s1", "text": "Type", "action": "type", "control": "f2",
                 "changes": [{"set": "f2", "value": "hunter2"}]},
                {"id": "s2", "text": "Copy", "action": "copy", "control": "f1"},
                {"id": "s3", "text": "Ask", "action": "ask"}]"#,
        );
        let built = build(&s, Path::new("t.json")).expect("builds");
        assert_eq!(built.frames.len(), 2);
        let (_, _, e) = built.frames[1].find("f2").expect("field");
        assert_eq!(e.value.as_deref(), Some("•••••••"));
        // The copy stays on its frame; the ask touches nothing and has no transition.
        assert_eq!(built.transitions.len(), 2);
        assert_eq!(built.transitions[1].from, built.transitions[1].to);
        assert_eq!(built.before, vec![0, 1, 1]);
    }

    #[test]
    fn unknown_ids_in_changes_are_errors_at_their_path() {
        let s = script(
            FORM,
            r#"[{"id": "s1", "text": "x", "action": "click", "control": "b",
                 "changes": [{"open": "nope"}]}]"#,
        );
        let e = build(&s, Path::new("t.json")).unwrap_err();
        assert_eq!(e.reason, Reason::UnknownId);
        assert_eq!(e.path.to_string(), "steps[0].changes[0]");
        let s = script(
            FORM,
            r#"[{"id": "s1", "text": "x", "action": "click", "control": "gone"}]"#,
        );
        let e = build(&s, Path::new("t.json")).unwrap_err();
        assert_eq!(e.path.to_string(), "steps[0].control");
    }

    #[test]
    fn scripts_are_strict() {
        let text = r#"{"schema": "stepreplay-synth/1", "name": "t", "guide": {"id": "g", "title": "T"},
            "apps": [{"name": "A", "windows": [{"id": "w", "frame": [0,0,1,1], "controls": [
              {"id": "c", "kind": "buton", "frame": [0,0,1,1]}]}]}], "steps": []}"#;
        let e = parse_script(&Source::from_text("t.json", text)).unwrap_err();
        assert_eq!(e.reason, Reason::InvalidField);
        assert_eq!(e.path.to_string(), "apps[0].windows[0].controls[0].kind");
    }
}
