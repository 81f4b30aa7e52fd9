//! The action script `stepreplay record` plays: which app to start and, step by step, what a
//! person does to it. Small on purpose — a target is what a person would say ("the OK button
//! in Add Contact"), never a pixel unless the script says `point`.
//!
//! ```json
//! { "schema": "stepreplay-record-script/1",
//!   "title": "Add a contact", "app": ["zenity", "--forms", "--add-entry=Name"],
//!   "inputs": [{ "id": "name", "name": "name", "value": "Ada" }],
//!   "steps": [
//!     { "action": "click", "target": { "role": "text field", "name": "Name" } },
//!     { "action": "type", "input": "name" },
//!     { "action": "key", "keys": "Return" } ] }
//! ```

use std::path::Path;

use serde::Deserialize;

use crate::errors::{FieldPath, InputError, Reason};
use crate::json::{Source, expect_schema, parse_typed, parse_value, read_text};
use crate::limits;
use crate::plan::keys::parse_chord;

/// The schema of a record script.
pub(crate) const SCRIPT_SCHEMA: &str = "stepreplay-record-script/1";

/// A whole script.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct Script {
    /// `stepreplay-record-script/1`.
    #[allow(dead_code, reason = "checked by the schema; nothing reads it")]
    pub schema: String,
    /// What the recording shows; it becomes the guide's title.
    pub(crate) title: String,
    /// The command to start, program first (the command line's `-- CMD…` replaces it).
    #[serde(default)]
    pub app: Vec<String>,
    /// The screen size of a display the recorder starts itself.
    #[serde(default)]
    pub(crate) screen: Option<ScreenSize>,
    /// Values the steps type, by id; they become the plan's inputs.
    #[serde(default)]
    pub(crate) inputs: Vec<ScriptInput>,
    /// What the person does, in order.
    pub(crate) steps: Vec<ScriptStep>,
    /// The plan's `done` text.
    #[serde(default)]
    pub(crate) done: Option<String>,
}

/// Width and height in pixels.
#[derive(Clone, Copy, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct ScreenSize {
    /// Pixels across.
    pub(crate) width: u32,
    /// Pixels down.
    pub(crate) height: u32,
}

/// A value the script types.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct ScriptInput {
    /// Its id, as steps and the plan name it.
    pub(crate) id: String,
    /// What a person calls it.
    pub(crate) name: String,
    /// What is typed.
    pub(crate) value: String,
    /// A secret: typed, but never written anywhere but the scenario's answers.
    #[serde(default)]
    pub(crate) sensitive: bool,
}

/// One thing the person does.
#[derive(Clone, Debug, Deserialize)]
#[serde(tag = "action", rename_all = "lowercase", deny_unknown_fields)]
pub(crate) enum ScriptStep {
    /// Click a control (or a point).
    Click {
        /// What to click.
        target: ScriptTarget,
        /// `left` (default), `right` or `middle`.
        #[serde(default)]
        button: Option<String>,
        /// 1 (default) or 2 for a double-click.
        #[serde(default)]
        count: Option<u8>,
        /// The plan step's words (default: made from the target).
        #[serde(default)]
        text: Option<String>,
        /// The plan asks the person before this step.
        #[serde(default)]
        confirm: bool,
    },
    /// Type text into the focused control: literal `text`, or an input's value.
    Type {
        /// Literal text.
        #[serde(default)]
        text: Option<String>,
        /// An input id.
        #[serde(default)]
        input: Option<String>,
        /// The plan step's words.
        #[serde(default)]
        words: Option<String>,
    },
    /// Press a key chord (`Return`, `ctrl+a`, `shift+Tab`).
    Key {
        /// The chord.
        keys: String,
        /// The plan step's words.
        #[serde(default)]
        text: Option<String>,
    },
    /// Wait this many milliseconds (no frame, no plan step).
    Wait {
        /// How long.
        ms: u64,
    },
}

impl ScriptStep {
    /// Whether the step is one the plan shows (a wait is not).
    pub(crate) fn acts(&self) -> bool {
        !matches!(self, ScriptStep::Wait { .. })
    }
}

/// A control as a person names it, or a point.
#[derive(Clone, Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct ScriptTarget {
    /// Role words (`push button`, `text field`), an AX role (`AXButton`) or an AT-SPI role.
    #[serde(default)]
    pub(crate) role: Option<String>,
    /// Its accessible name, or the text of the label beside it.
    #[serde(default)]
    pub(crate) name: Option<String>,
    /// The title of its window (a popup's owner's title for a popup).
    #[serde(default)]
    pub(crate) window: Option<String>,
    /// Which of several matches, in reading order: top to bottom, then left to right (0 first).
    #[serde(default)]
    pub(crate) index: Option<usize>,
    /// A point as shares of the screen (`[0.5, 0.5]`) instead of a control.
    #[serde(default)]
    pub(crate) point: Option<[f64; 2]>,
}

/// Reads and checks a script: every step's fields, input ids, key chords.
pub(crate) fn read_script(path: &Path) -> Result<Script, InputError> {
    let src = read_text(path, limits::SCRIPT_BYTES)?;
    parse_script(&src)
}

/// [`read_script`] on text in hand.
pub(crate) fn parse_script(src: &Source) -> Result<Script, InputError> {
    let v = parse_value(src)?;
    expect_schema(src, &v, SCRIPT_SCHEMA, "record scripts")?;
    let script: Script = parse_typed(src)?;
    let err = |at: FieldPath, msg: String| src.error(at, Reason::InvalidField, msg);
    let steps = FieldPath::root().key("steps");
    if !script.steps.iter().any(ScriptStep::acts) {
        return Err(err(
            steps,
            "a script needs at least one step that acts".into(),
        ));
    }
    for (i, inp) in script.inputs.iter().enumerate() {
        if script.inputs[..i].iter().any(|o| o.id == inp.id) {
            let at = FieldPath::root().key("inputs").index(i).key("id");
            return Err(err(at, format!("input id {:?} is used twice", inp.id)));
        }
    }
    for (i, step) in script.steps.iter().enumerate() {
        let at = steps.clone().index(i);
        match step {
            ScriptStep::Click {
                target,
                count,
                button,
                ..
            } => {
                if target.point.is_none() && target.name.is_none() && target.role.is_none() {
                    return Err(err(
                        at.key("target"),
                        "a target needs a role and name, or a point".into(),
                    ));
                }
                if let Some([x, y]) = target.point
                    && !((0.0..=1.0).contains(&x) && (0.0..=1.0).contains(&y))
                {
                    return Err(err(
                        at.key("target").key("point"),
                        "a point is two shares of the screen, each from 0 to 1".into(),
                    ));
                }
                if count.is_some_and(|c| !(1..=3).contains(&c)) {
                    return Err(err(at.key("count"), "count is 1, 2 or 3".into()));
                }
                if let Some(b) = button
                    && !matches!(b.as_str(), "left" | "right" | "middle")
                {
                    return Err(err(at.key("button"), format!("unknown button {b:?}")));
                }
            }
            ScriptStep::Type { text, input, .. } => match (text, input) {
                (Some(_), None) => {}
                (None, Some(id)) if script.inputs.iter().any(|i| &i.id == id) => {}
                (None, Some(id)) => {
                    return Err(err(
                        at.key("input"),
                        format!("no input {id:?} in \"inputs\""),
                    ));
                }
                _ => {
                    return Err(err(
                        at,
                        "a type step has either \"text\" or \"input\"".into(),
                    ));
                }
            },
            ScriptStep::Key { keys, .. } => {
                if parse_chord(keys).is_none() {
                    return Err(err(at.key("keys"), format!("{keys:?} is not a key chord")));
                }
            }
            ScriptStep::Wait { ms } => {
                if *ms > 60_000 {
                    return Err(err(at.key("ms"), "a wait is at most 60000 ms".into()));
                }
            }
        }
    }
    Ok(script)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(text: &str) -> Result<Script, InputError> {
        parse_script(&Source::from_text("script.json", text))
    }

    const HEAD: &str = r#""schema": "stepreplay-record-script/1", "title": "t", "app": ["zenity"]"#;

    #[test]
    fn reads_every_kind_of_step() {
        let s = parse(&format!(
            r#"{{ {HEAD}, "inputs": [{{"id": "pin", "name": "PIN", "value": "12", "sensitive": true}}],
              "steps": [
                {{"action": "click", "target": {{"role": "push button", "name": "OK", "index": 1}}, "count": 2}},
                {{"action": "type", "input": "pin"}},
                {{"action": "key", "keys": "ctrl+a"}},
                {{"action": "wait", "ms": 100}},
                {{"action": "click", "target": {{"point": [0.5, 0.25]}}}}
              ] }}"#
        ))
        .unwrap();
        assert_eq!(s.steps.len(), 5);
        assert_eq!(s.steps.iter().filter(|s| s.acts()).count(), 4);
        assert!(
            matches!(&s.steps[0], ScriptStep::Click { target, count: Some(2), .. }
            if target.index == Some(1) && target.name.as_deref() == Some("OK"))
        );
        assert!(s.inputs[0].sensitive);
    }

    #[test]
    fn bad_steps_are_refused_with_their_place() {
        let cases = [
            (
                r#"{"action": "type", "input": "nope"}"#,
                "steps[0].input",
                "no input",
            ),
            (
                r#"{"action": "key", "keys": ""}"#,
                "steps[0].keys",
                "not a key chord",
            ),
            (
                r#"{"action": "click", "target": {}}"#,
                "steps[0].target",
                "role and name",
            ),
            (
                r#"{"action": "click", "target": {"point": [2, 0]}}"#,
                "steps[0].target.point",
                "shares",
            ),
            (
                r#"{"action": "click", "target": {"name": "OK"}, "button": "side"}"#,
                "steps[0].button",
                "unknown button",
            ),
            (
                r#"{"action": "type", "text": "a", "input": "b"}"#,
                "steps[0]",
                "either",
            ),
            (
                r#"{"action": "wait", "ms": 5}"#,
                "steps",
                "at least one step",
            ),
        ];
        for (step, at, words) in cases {
            let e = parse(&format!(r#"{{ {HEAD}, "steps": [{step}] }}"#)).unwrap_err();
            let shown = e.to_string();
            assert!(
                shown.contains(at) && shown.contains(words),
                "{step}: {shown}"
            );
        }
    }

    #[test]
    fn unknown_fields_and_actions_are_refused() {
        for step in [
            r#"{"action": "drag"}"#,
            r#"{"action": "wait", "ms": 1, "x": 2}"#,
        ] {
            let e = parse(&format!(r#"{{ {HEAD}, "steps": [{step}] }}"#)).unwrap_err();
            assert!(e.to_string().contains("steps[0]"), "{e}");
        }
        let e = parse(r#"{"schema": "other/1", "title": "t", "steps": []}"#).unwrap_err();
        assert_eq!(e.reason, Reason::UnsupportedSchema);
    }
}
