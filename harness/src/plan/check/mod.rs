//! `stepreplay check`: the guide author's pre-approval lint. One rule per file in `rules/`.

mod across;
mod caps;
mod finding;
mod render;
mod rules;
mod run;

pub(crate) use across::across_plans;
pub(crate) use finding::Finding;
pub use finding::Severity;
pub(crate) use render::{render_human, render_json, render_sarif, render_summary};
pub(crate) use rules::canonical::NON_CANONICAL;
pub(crate) use run::check_source_capped;
pub use run::{CheckReport, check_source};
