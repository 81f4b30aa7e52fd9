//! The messages between the harness and an agent under test: one JSON object per line, one
//! request in flight. The harness speaks first and after every agent message; the agent
//! answers each harness message with exactly one message. On the desktop the harness sends
//! `observe` and `answer`; on the StepBack bridge it sends `task` once, then `result` (of a
//! file operation, a wait or a `say`) and `answer`. `docs/agent.md` has a whole
//! exchange and `docs/agent-protocol.schema.json` the grammar.

use serde::{Deserialize, Serialize};
use serde_json::Value;

/// What the harness sends. One is built per turn and written at once, never kept in bulk, so
/// the size of `Observe` costs nothing worth boxing for.
#[allow(clippy::large_enum_variant)]
#[derive(Clone, Debug, Serialize)]
#[serde(tag = "type", rename_all = "kebab-case")]
pub(crate) enum ToAgent {
    /// The screen as it is now, and where in the plan the harness believes the agent is.
    Observe {
        /// The scenario's id.
        scenario: String,
        /// The normalized plan (any dialect; sensitive values redacted).
        plan: Value,
        /// Non-sensitive input values.
        inputs: Value,
        /// The index of the next plan step not yet done (0-based).
        step: usize,
        /// That step's id, when there is one left.
        step_id: Option<String>,
        /// The frame showing.
        frame: String,
        /// Its screenshot, an absolute path.
        screenshot: String,
        /// The screenshot's width and height in pixels (what a plan's shares are of).
        screen: [u32; 2],
        /// Its accessibility tree (`stepreplay-ax/1`).
        ax: Value,
        /// A browser frame's DOM (`stepreplay-dom/1`; element ids are the AX tree's).
        #[serde(skip_serializing_if = "Option::is_none")]
        dom: Option<Value>,
    },
    /// The bridge: what the person asks for. Paths in `read`, `list` and `write` are relative
    /// to the bridge folder (or absolute inside it, as the manifest's paths are).
    Task {
        /// The scenario's id.
        scenario: String,
        /// The environment (`bridge`).
        environment: &'static str,
        /// The person's request, in words.
        request: String,
        /// The same request as commands without ids, for scripted agents (an agent that reads
        /// words should work from `request`).
        hint: Value,
        /// `coach` when the agent acts as the StepBack coach (intake first, catalog first,
        /// medical and bridge-safety boundaries said); absent otherwise.
        #[serde(skip_serializing_if = "Option::is_none")]
        role: Option<&'static str>,
    },
    /// The bridge: what a `read`, `list`, `write`, `wait` or `say` did.
    Result {
        /// Whether it was done.
        ok: bool,
        /// A `read`'s file text.
        #[serde(skip_serializing_if = "Option::is_none")]
        text: Option<String>,
        /// A `list`'s entries, sorted (folders end in `/`).
        #[serde(skip_serializing_if = "Option::is_none")]
        entries: Option<Vec<String>>,
        /// Why not, when not.
        #[serde(skip_serializing_if = "Option::is_none")]
        error: Option<String>,
    },
    /// The person's answer to the agent's last `ask`.
    Answer {
        /// `approve`/`decline`, `replace`/`keep`, `stop`/`go-on`, a value, or `no answer`.
        answer: String,
    },
}

/// What the agent sends.
#[derive(Clone, Debug, Deserialize)]
#[serde(tag = "type", rename_all = "kebab-case", deny_unknown_fields)]
pub(crate) enum FromAgent {
    /// Do something on the screen.
    Act {
        /// `click`, `type`, `press`, `paste`, `copy` or `navigate`.
        action: String,
        /// The element acted on, by AX id.
        #[serde(default)]
        element: Option<String>,
        /// Or a point, in screenshot pixels.
        #[serde(default)]
        point: Option<[f64; 2]>,
        /// What a `type` types.
        #[serde(default)]
        text: Option<String>,
        /// What a `press` presses (`ctrl+a`, `Return`).
        #[serde(default)]
        keys: Option<String>,
        /// Where a `navigate` goes (absent: the step's own address).
        #[serde(default)]
        url: Option<String>,
        /// A click's button: `left` (absent), `right` or `middle`.
        #[serde(default)]
        button: Option<String>,
        /// A click's count: 1 (absent) or 2 for a double click.
        #[serde(default)]
        count: Option<u8>,
        /// Keys held during a click (`shift`, `cmd`, `ctrl`, `alt`).
        #[serde(default)]
        modifiers: Vec<String>,
        /// Whether the click is a drag (press, move, release).
        #[serde(default)]
        drag: bool,
    },
    /// Ask the person.
    Ask {
        /// `confirm`, `sensitive`, `input` (a value that changes each run), `replace`,
        /// `stop-if` or `question`.
        kind: String,
        /// The plan step it is about.
        #[serde(default)]
        step: Option<String>,
        /// For `sensitive`: the input asked for.
        #[serde(default)]
        input: Option<String>,
        /// The words put to the person.
        #[serde(default)]
        text: Option<String>,
    },
    /// The bridge: read a file.
    Read {
        /// The file.
        path: String,
    },
    /// The bridge: list a folder.
    List {
        /// The folder (`.` is the bridge folder).
        path: String,
    },
    /// The bridge: write a new file.
    Write {
        /// The file (commands go in `inbox/`).
        path: String,
        /// Its whole text.
        text: String,
    },
    /// The bridge: let a moment pass (the app may process the inbox meanwhile).
    Wait {},
    /// Tell the person something (a proposal, a report); the person does not answer.
    Say {
        /// The words.
        text: String,
    },
    /// Stop: the plan is finished, or cannot go on.
    Done {
        /// What the agent tells the person.
        #[serde(default)]
        text: Option<String>,
        /// On the bridge, the outcome it reports: `succeeded`, `failed`, `no-outcome` (a
        /// command got none) or `nothing-written`.
        #[serde(default)]
        result: Option<String>,
    },
}

/// The fields an `act` of each action takes, beside `type` and `action`. Every action may name
/// its element or point; a field another action takes is a mistake the agent is told of, not
/// ignored (an unknown field is refused by the message's own grammar).
fn act_fields(action: &str) -> &'static [&'static str] {
    match action {
        "click" => &["element", "point", "button", "count", "modifiers", "drag"],
        "type" | "paste" => &["element", "point", "text"],
        "press" | "copy" => &["element", "point", "keys"],
        "navigate" => &["element", "point", "url"],
        _ => &["element", "point"],
    }
}

/// The first field of an `act` message (as sent) that its action does not take: `text` on a
/// `navigate`, `url` on a `click`.
pub(crate) fn field_not_taken(msg: &Value) -> Option<String> {
    let o = msg.as_object()?;
    if o.get("type").and_then(Value::as_str) != Some("act") {
        return None;
    }
    let action = o.get("action").and_then(Value::as_str).unwrap_or_default();
    let takes = act_fields(action);
    o.keys()
        .find(|k| !matches!(k.as_str(), "type" | "action") && !takes.contains(&k.as_str()))
        .map(|k| format!("a `{action}` act takes no `{k}` field"))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn an_act_takes_only_its_actions_fields() {
        for ok in [
            json!({"type": "act", "action": "click", "element": "e", "button": "right", "count": 2}),
            json!({"type": "act", "action": "type", "point": [1.0, 2.0], "text": "hi"}),
            json!({"type": "act", "action": "navigate", "url": "/a"}),
            json!({"type": "act", "action": "press", "keys": "ctrl+a"}),
            json!({"type": "done", "text": "x"}),
        ] {
            assert_eq!(field_not_taken(&ok), None, "{ok}");
        }
        let why = field_not_taken(&json!({"type": "act", "action": "navigate", "url": "/a",
            "text": "hello"}));
        assert_eq!(
            why.as_deref(),
            Some("a `navigate` act takes no `text` field")
        );
        let why = field_not_taken(&json!({"type": "act", "action": "click", "url": "/a"}));
        assert!(why.unwrap().contains("`url`"));
    }

    #[test]
    fn an_unknown_field_is_refused_with_its_name() {
        let e = serde_json::from_value::<FromAgent>(
            json!({"type": "act", "action": "click", "element": "e", "colour": "red"}),
        )
        .unwrap_err();
        assert!(e.to_string().contains("`colour`"), "{e}");
    }
}
