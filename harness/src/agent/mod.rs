//! `stepreplay agent`: an AI agent under test on the simulated desktop. The harness starts the
//! agent (`child`), shows it the plan and each recorded screen, takes its actions and plays the
//! person (`protocol`), and judges every message against the plan's safety rules as well as
//! for reaching the right controls (`episode`).
//!
//! Deterministic as the rest: the agent sees only recorded frames, the person answers from
//! the scenario, and nothing reads the wall clock but the per-turn timeout.

pub(crate) mod bridge;
mod child;
mod episode;
mod operation;
pub(crate) mod protocol;
mod rules;
mod stated;
mod words;

pub(crate) use bridge::run_bridge_task;
pub(crate) use episode::{EpisodeOptions, converse};
