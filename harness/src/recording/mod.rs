//! Recordings: the `stepreplay-recording/1` format, AX snapshots, safe loading, and importing
//! real recordings.

pub mod atspi;
pub mod ax;
pub mod bind;
pub mod format;
pub mod import;
mod load;
pub mod macapptree;
pub(crate) mod png_decode;
pub(crate) mod unfilter;

pub use ax::{AxSnapshot, Element, Rect};
pub use format::{RecordingFile, Transition};
pub use load::*;
