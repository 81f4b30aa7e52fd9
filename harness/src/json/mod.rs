//! JSON at the edges: bounded reading, strict typed parsing with positions and field paths,
//! and the canonical bytes every file the harness writes is held to.

mod canonical;
mod collect;
mod duplicates;
mod locate;
mod read;
mod stream;

pub(crate) use canonical::{Visit, to_canonical_value, write_canonical_spliced};
pub use canonical::{round, to_canonical};
pub(crate) use collect::{expected, type_errors};
pub(crate) use locate::{locate, locate_all};
pub(crate) use read::{STDIN, expect_schema, json_files_under, parse_value, refuse_duplicate_keys};
pub use read::{Source, parse_typed, read_text};
pub(crate) use read::{open_regular, read_bounded};
pub(crate) use stream::{
    read_array_of, read_members_of, read_object_hashed, read_object_without, typed_from_value,
};
