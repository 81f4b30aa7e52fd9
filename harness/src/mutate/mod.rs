//! `stepreplay mutate`: how well the gate guards each guide. One-fault copies of each passing
//! scenario's plan are replayed on its recording as `run` replays them; a copy that still
//! passes is a fault the gate would let through.

mod classes;
mod render;
mod run;

pub use classes::Class;
pub(crate) use classes::PER_CLASS;
pub use render::{to_json, to_markdown};
pub use run::{Verdict, mutate, mutate_sites};
