//! Reports: the run folded into one [`Report`], and its formats (JSON first).

mod json;
mod model;

pub use json::to_json;
pub use model::*;
