//! The messages between the harness and an agent under test: one JSON object per line, one
//! request in flight. The harness speaks first and after every agent message; the agent
//! answers each `observe` or `answer` with exactly one message. `docs/agent.md` has a whole
//! exchange and `docs/agent-protocol.schema.json` the grammar.

use serde::{Deserialize, Serialize};
use serde_json::Value;

/// What the harness sends. One is built per turn and written at once, never kept in bulk, so
/// the size of `Observe` costs nothing worth boxing for.
#[allow(clippy::large_enum_variant)]
#[derive(Clone, Debug, Serialize)]
#[serde(tag = "type", rename_all = "kebab-case")]
pub enum ToAgent {
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
    /// The person's answer to the agent's last `ask`.
    Answer {
        /// `approve`/`decline`, `replace`/`keep`, `stop`/`go-on`, a value, or `no answer`.
        answer: String,
    },
}

/// What the agent sends.
#[derive(Clone, Debug, Deserialize)]
#[serde(tag = "type", rename_all = "kebab-case", deny_unknown_fields)]
pub enum FromAgent {
    /// Do something on the screen.
    Act {
        /// `click`, `type`, `press` or `paste`.
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
    /// Stop: the plan is finished, or cannot go on.
    Done {
        /// What the agent tells the person.
        #[serde(default)]
        text: Option<String>,
    },
}
