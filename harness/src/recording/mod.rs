//! Recordings: the `stepreplay-recording/1` format, AX snapshots, safe loading, and binding a
//! recording's actions to a plan's steps. Importers of real captures are in `import/`.

pub mod ax;
pub(crate) mod bind;
pub mod dom;
pub mod format;
mod frame_cache;
mod load;

pub use ax::{AxSnapshot, Element, Rect};
pub(crate) use format::Transition;
pub use load::*;
