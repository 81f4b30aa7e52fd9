//! JSON at the edges: bounded reading, strict typed parsing with positions and field paths,
//! and the canonical bytes every file the harness writes is held to.

mod canonical;
mod duplicates;
mod locate;
mod read;

pub use canonical::{round, to_canonical, to_canonical_value};
pub(crate) use locate::{locate, locate_all};
pub(crate) use read::read_bounded;
pub use read::{Source, expect_schema, parse_typed, parse_value, read_text, refuse_duplicate_keys};
