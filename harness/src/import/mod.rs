//! Importing real captures into `stepreplay-recording/1` folders: the `realrec` layout
//! (`realrec`), whose frames' trees come from AT-SPI dumps (`atspi`), macOS AX trees or
//! `macapptree` dumps (`macapptree`), each converted to an AX snapshot.

pub(crate) mod atspi;
#[cfg(test)]
mod atspi_quirks;
pub(crate) mod macapptree;
mod realrec;

pub use realrec::import_realrec;
pub(crate) use realrec::{import_followed, window_kind};
