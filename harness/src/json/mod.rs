//! JSON at the edges: bounded reading, strict typed parsing with positions and field paths,
//! and the canonical bytes every file the harness writes is held to.

mod canonical;
mod collect;
mod duplicates;
mod locate;
mod read;
mod stream;

pub use canonical::{Visit, round, to_canonical, to_canonical_value, write_canonical_spliced};
pub(crate) use collect::{expected, type_errors};
pub(crate) use locate::{locate, locate_all};
pub use read::{
    STDIN, Source, expect_schema, json_files_under, parse_typed, parse_value, read_text,
    refuse_duplicate_keys,
};
pub(crate) use read::{open_regular, read_bounded};
pub use stream::{
    read_array_of, read_members_of, read_object_hashed, read_object_without, typed_from_value,
};
