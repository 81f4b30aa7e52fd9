//! The synthetic desktop: from a compact desktop script to a whole recording (AX snapshots,
//! rendered screenshots, transitions) plus the Foxstep plan, crops and scenarios for it.
//! The entry point is [`synthesize`]; [`render`] draws any AX snapshot.

mod build;
pub(crate) mod canvas;
pub(crate) mod font;
pub(crate) mod foxplan;
mod render;
pub mod script;
mod widgets;
pub mod write;

pub use build::{Built, accessible_name, build, frame_id};
pub use render::render;
pub use script::{SCRIPT_SCHEMA, Script, load_script, parse_script};
pub use write::{SynthOutput, synthesize, synthesize_file};
