//! stepreplay: a deterministic plan-replay test harness.
//!
//! It replays recorded screenshots and accessibility (AX) snapshots against step plans in a
//! simulated desktop, finds each step's target the way a careful follower would, checks every
//! `expect`, diffs before/after captures, scores it all and gates CI on regressions.
//!
//! Data flows one way through the stages, one module each (layers in `docs/architecture.md`,
//! kept by a test):
//!
//! ```text
//! plan ─┐
//!       ├─> desktop ─> resolve ─> expect ─> replay ──> Trace ─> score ─> suite ─> report
//! recording ─┘          diff ──────────────┘  (events)             (results)  (Report → JSON,
//!                       perturb ───────────────┘                                JUnit, Markdown, HTML)
//! recording ─> evidence (frames, diff images) ───────────────────────────────> HTML, captures
//! ```
//!
//! [`plan`], [`recording`] and [`scenario`] read the inputs ([`import`] makes recordings of
//! real captures, `png` decodes their screenshots); `desktop` simulates the screen a plan acts
//! on; [`resolve`] finds a step's control; `expect` checks what should be true after it;
//! [`replay`] follows a plan and emits a [`replay::Trace`]; [`score`] and [`report`] fold
//! traces; [`suite`] runs scenarios into results; [`evidence`] gathers the pictures the HTML
//! page and the captures draw, so they too read no recording. The front doors — the CLI,
//! [`recorder`] (Linux), [`synth`] and [`serve`] — drive the stages and are imported by none of
//! them; [`paint`] draws the screens `synth` writes; [`bridge`] is the StepBack simulator that
//! `suite` runs bridge batches on.
#![warn(missing_docs)]

pub(crate) mod agent;
pub mod bridge;
pub mod cli;
pub(crate) mod desktop;
pub mod diff;
pub(crate) mod errors;
pub mod evidence;
pub(crate) mod expect;
pub mod fnv;
pub mod import;
pub mod json;
pub mod limits;
pub mod mutate;
pub(crate) mod output;
pub mod paint;
mod par;
pub mod perturb;
pub mod plan;
pub(crate) mod png;
#[cfg(target_os = "linux")]
pub(crate) mod recorder;
pub mod recording;
pub mod replay;
pub mod report;
pub mod resolve;
pub mod result;
pub(crate) mod rng;
pub(crate) mod roles;
mod runs;
pub(crate) mod safe_path;
pub mod scenario;
pub mod score;
pub(crate) mod secret;
pub mod select;
pub mod serve;
pub mod shard;
pub mod suite;
pub mod synth;
pub mod text;
mod time;

pub(crate) use errors::USAGE_EXIT;
pub use errors::{Error, InputError, Reason, Result};
