//! Reports: the run folded into one [`Report`], and its formats — canonical JSON, the
//! baseline and its regressions, JUnit XML, a Markdown summary and a static HTML page — each in
//! its own file, each reading only the [`Report`] (the page and the captures also the
//! [`Evidence`](crate::evidence::Evidence) gathered for them: the pictures they draw) — and
//! the console's lines. `outputs` is the one writer every front door calls.

mod agent_figures;
mod baseline;
mod captures;
mod console;
mod entries;
mod failure;
mod html;
mod json;
mod junit;
mod markdown;
mod merge;
mod model;
mod outputs;
mod session;
mod verdict;

pub(crate) use agent_figures::AgentFigures;
pub use baseline::*;
pub use captures::{captures_wanted, write_captures};
pub(crate) use console::print_steps;
pub use console::{Say, line};
pub use entries::{Entries, ReportRef, Spill};
pub use html::{
    PageImage, PageImages, html_escape, html_wanted, page_name, to_html, write_html,
    write_html_paged,
};
pub use json::{load_report, to_json, write_json, write_json_to};
pub(crate) use json::{load_report_head, read_report_entries};
pub use junit::{Timings, to_junit, to_junit_timed};
pub(crate) use markdown::md_escape;
pub use markdown::to_markdown;
pub use merge::{MergeError, merge};
pub(crate) use merge::{check_parts, merged_head};
pub use model::*;
pub use outputs::{Gate, Outputs, write_outputs};
pub use session::End;
pub(crate) use session::Session;
pub use verdict::Verdict;
