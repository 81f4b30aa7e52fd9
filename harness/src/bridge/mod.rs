//! The StepBack agent bridge, simulated over a real folder.
//!
//! The StepBack app reads command files an agent drops into `inbox/`, validates them,
//! applies them to its state and answers with an outcome file; [`sweep`] does exactly that
//! for a folder laid out by [`init`], deterministically (a logical clock in the manifest
//! instead of the wall clock, ids derived from command ids instead of random ones), so an
//! agent's batch can be replayed and scored ([`run_bridge_scenario`]). The harness's own job
//! inbox, in the same file-inbox style, is a front door of its own (`serve.rs`).
//!
//! One concern per file: `ids` (UUIDs, time), `catalog`, `state`, [`manifest`],
//! `command` (envelope and payloads), `apply` (the verbs), `outcome`, `inbox` (the
//! sweep), `scenario`, `changes` and `batch` (what an agent's batch really changed, and
//! whether its order and references hold, for the agent judge), and `fsio` (crash-safe
//! writes, which `serve` uses too).

pub(crate) mod apply;
pub(crate) mod batch;
pub(crate) mod catalog;
pub(crate) mod changes;
pub(crate) mod command;
pub(crate) mod fsio;
pub(crate) mod ids;
pub(crate) mod inbox;
mod init;
pub mod manifest;
pub(crate) mod outcome;
pub(crate) mod scenario;
pub(crate) mod state;

pub use inbox::sweep;
pub(crate) use inbox::{Processed, SweepReport};
pub use init::init;
pub(crate) use init::read_state;
pub use outcome::{Code, Folder, Outcome, Status};
pub use scenario::run_bridge_scenario;
pub use state::State;
