//! `stepreplay check`: the guide author's pre-approval lint. One rule per file in `rules/`.

mod across;
mod caps;
mod finding;
mod render;
mod rules;
mod run;

pub use across::across_plans;
pub use finding::{Finding, Severity};
pub use render::{render_human, render_json, render_sarif, render_summary};
pub(crate) use rules::canonical::NON_CANONICAL;
pub use run::{CheckReport, check_source, check_source_capped};
