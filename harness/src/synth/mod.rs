//! The synthetic desktop: from a compact desktop script to a whole recording (AX snapshots,
//! rendered screenshots, transitions) plus the Foxstep plan, crops and scenarios for it.
//! The entry point is [`synthesize`]; the screens are drawn by `crate::paint`.

mod build;
pub(crate) mod foxplan;
pub mod script;
pub mod write;

pub use build::build;
pub use script::load_script;
pub use write::synthesize;
pub(crate) use write::synthesize_file;
