//! Recordings: the `stepreplay-recording/1` format, AX snapshots, safe loading, and importing
//! real recordings.

pub(crate) mod atspi;
#[cfg(test)]
mod atspi_quirks;
pub mod ax;
pub(crate) mod bind;
pub mod dom;
pub mod format;
mod frame_cache;
pub mod import;
mod load;
pub(crate) mod macapptree;

pub use atspi::Dropped;
pub use ax::{AxSnapshot, Element, Rect};
pub(crate) use format::Transition;
pub use load::*;
