//! Replay: one scenario → a [`Trace`] per mode. Knows the normalized plan, the recording and
//! the scripted person; knows nothing of reports.

mod approval;
mod binding;
mod follower;
pub mod ledger;
mod ocr;
mod prepared;
mod robustness;
#[cfg(test)]
mod tests;
mod trace;
pub(crate) mod web;

pub(crate) use approval::{approval_findings, lenient};
pub(crate) use binding::check_bound;
pub(crate) use binding::wholly_unbound;
pub use follower::{Prepared, replay};
pub(crate) use ocr::Ocr;
pub(crate) use robustness::{DEFAULT_SEED, Robustness};
pub use robustness::{Pair, robustness};
pub use trace::*;
