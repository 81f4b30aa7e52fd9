//! The `stepreplay-recording/1` file (`recording.json`): the screen, the frames (a screenshot
//! and an AX snapshot each, paths relative to the recording folder), the transitions between
//! frames, and where the recording came from. `stepreplay-recording/2` adds `exchanges`: what
//! a browser plan's steps asked outside the page (a long poll, a vision prompt, …) and were
//! answered, which replay serves back.

use serde::{Deserialize, Serialize};

/// The schema string of `recording.json`.
pub(crate) const RECORDING_SCHEMA: &str = "stepreplay-recording/1";
/// The schema string of a `recording.json` with `exchanges` (version 1 with that field).
pub(crate) const RECORDING_SCHEMA_2: &str = "stepreplay-recording/2";

/// `recording.json`.
#[derive(Clone, Debug, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct RecordingFile {
    /// Always [`RECORDING_SCHEMA`].
    pub(crate) schema: String,
    /// A short name (the folder name by convention).
    pub name: String,
    /// The screen the frames were taken on.
    pub screen: Screen,
    /// Where the recording came from.
    pub source: SourceInfo,
    /// The frames, in recording order.
    pub frames: Vec<FrameRef>,
    /// What moved the desktop from one frame to the next.
    #[serde(default)]
    pub transitions: Vec<Transition>,
    /// What steps asked outside the page and were answered, in the order asked (version 2).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub exchanges: Vec<Exchange>,
}

/// One answer a step received: a long poll's response (`{"status", "body"}`), a GraphQL
/// subscription's messages (`{"status", "messages"}`), a vision answer (`{"answer"}`), a
/// session snapshot (the snapshot), a pipeline's output (`{"output"}`).
#[derive(Clone, Debug, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct Exchange {
    /// The step that asked.
    pub step_id: String,
    /// `pollrequest`, `graphql`, `vision`, `snapshot` or `pipeline`.
    pub family: String,
    /// What was asked, correlation filled in: the key an answer is served back by.
    pub request: serde_json::Value,
    /// The answer.
    pub response: serde_json::Value,
}

/// The screen.
#[derive(Clone, Copy, Debug, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct Screen {
    /// Width in pixels (of the screenshots).
    pub width: u32,
    /// Height in pixels.
    pub height: u32,
    /// Pixels per point: 1 or 2.
    pub scale: u32,
}

/// How a recording was made.
#[derive(Clone, Debug, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct SourceInfo {
    /// `synthetic`, `live` or `import`.
    pub kind: SourceKind,
    /// The script, app or file it came from.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub detail: Option<String>,
    /// What the import left out or changed of the source, in words: `check` shows each.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub notes: Vec<String>,
}

/// See [`SourceInfo`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize, Serialize)]
#[serde(rename_all = "kebab-case")]
#[allow(missing_docs)]
pub enum SourceKind {
    Synthetic,
    Live,
    Import,
}

/// One frame's files.
#[derive(Clone, Debug, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct FrameRef {
    /// Stable id, unique in the recording.
    pub(crate) id: String,
    /// The screenshot PNG, relative to the recording folder.
    pub(crate) screenshot: String,
    /// The AX snapshot JSON, relative to the recording folder.
    pub(crate) ax: String,
    /// A browser frame's DOM (`stepreplay-dom/1`), relative to the recording folder.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) dom: Option<String>,
    /// The guide capture this frame is, when no transition starts from it: the finished
    /// screen a plan's `done.step_id` names is such a capture.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) step_id: Option<String>,
}

/// One recorded action and the frame it led to.
#[derive(Clone, Debug, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct Transition {
    /// The frame acted on.
    pub from: String,
    /// `click`, `type`, `press`, `paste`, `copy`, `navigate`, …
    pub action: String,
    /// The element acted on (absent for keyboard actions with no target).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub element: Option<String>,
    /// Other elements whose action leads to the same frame (an equivalent menu item).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub equivalent: Vec<String>,
    /// The frame it led to.
    pub to: String,
    /// The plan step it was recorded for.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub step_id: Option<String>,
    /// How it was done, as far as the source recorded it.
    #[serde(default, skip_serializing_if = "Operation::is_empty")]
    pub(crate) operation: Operation,
}

/// How a recorded action was done: which button, how many clicks, which keys, what text. Each
/// part is absent when the source did not record it (and replay then does not judge it); typed
/// text is absent when it may have been a secret.
#[derive(Clone, Debug, Default, PartialEq, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct Operation {
    /// `left`, `right` or `middle`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) button: Option<String>,
    /// Clicks: 1, or 2 for a double click.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) count: Option<u8>,
    /// Keys held during a click.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) modifiers: Option<Vec<String>>,
    /// Whether the click was a drag.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) drag: Option<bool>,
    /// The chord pressed (`ctrl+a`, `Return`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) keys: Option<String>,
    /// The text typed, when it was no secret.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) text: Option<String>,
}

impl Operation {
    /// Whether nothing about the action was recorded.
    pub(crate) fn is_empty(&self) -> bool {
        *self == Operation::default()
    }
}
