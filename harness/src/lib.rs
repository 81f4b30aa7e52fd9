//! stepreplay: a deterministic plan-replay test harness.
//!
//! It replays recorded screenshots and accessibility (AX) snapshots against step plans in a
//! simulated desktop, finds each step's target the way a careful follower would, checks every
//! `expect`, diffs before/after captures, scores it all and gates CI on regressions.
//!
//! Data flows one way through the stages, one module each:
//! [`plan`] → [`recording`] → `desktop` → `resolve` → `expect` → `replay` → `score` → `report`.
#![warn(missing_docs)]

pub mod bridge;
pub mod desktop;
pub mod diff;
pub mod errors;
pub mod expect;
pub mod fnv;
pub mod json;
pub mod output;
mod par;
pub mod perturb;
pub mod plan;
#[cfg(target_os = "linux")]
pub mod record;
pub mod recording;
pub mod replay;
pub mod report;
pub mod resolve;
pub mod score;
pub mod shard;
pub mod suite;
pub mod text;

pub use errors::{Error, FieldPath, InputError, Reason, Result};
pub use plan::Plan;
