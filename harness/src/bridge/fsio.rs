//! The only file operations the bridge and the job inbox use: whole-file writes that a crash
//! cannot tear, moves, and bounded, sorted directory listings.
//!
//! Every write goes to a dot-prefixed temporary file in the destination folder and is then
//! renamed over the target (rename is atomic within one file system), so a reader sees either
//! the old bytes or the new ones, never half of them. Listings skip dot files, which is how
//! an agent's own half-written temporary files (and ours) stay invisible.

use std::collections::BTreeSet;
use std::path::Path;

use crate::errors::Error;
use crate::output::write_error as write_err;

pub(crate) use crate::output::remove_stale_temps;

/// Writes `bytes` to `path` atomically (temp file, fsync, rename).
pub(crate) fn write_atomic(path: &Path, bytes: &[u8]) -> Result<(), Error> {
    crate::output::write_file(path, bytes)
}

/// Writes `bytes` to `path` only if `path` does not exist yet, atomically; false when it
/// already existed (another run got there first).
pub(crate) fn create_atomic(path: &Path, bytes: &[u8]) -> Result<bool, Error> {
    crate::output::create_new(path, bytes)
}

/// Moves `from` to `to` (same file system; atomic).
pub(crate) fn move_file(from: &Path, to: &Path) -> Result<(), Error> {
    std::fs::rename(from, to).map_err(write_err(to))
}

/// A name found in an inbox. A name that is not UTF-8 cannot be written into an outcome or a
/// journal as it is: `text` then spells its bytes escaped (`\xff`), unique and printable, and
/// the file is refused for it rather than left in the inbox forever.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub(crate) struct InboxName {
    /// The name as the file system has it, to open and move the file.
    pub(crate) os: std::ffi::OsString,
    /// The name as text: itself when UTF-8, else its bytes escaped.
    pub(crate) text: String,
}

impl InboxName {
    fn new(os: std::ffi::OsString) -> Self {
        let text = match os.to_str() {
            Some(t) => t.to_string(),
            None => os.as_encoded_bytes().escape_ascii().to_string(),
        };
        InboxName { os, text }
    }

    /// Whether the name is UTF-8 text.
    pub(crate) fn is_utf8(&self) -> bool {
        self.os.to_str().is_some()
    }
}

/// The `limit` smallest visible names in `dir` (by their bytes), sorted, and whether more
/// remain.
///
/// Memory stays bounded by `limit` however many files a flood drops in: the listing is
/// streamed and only the smallest names seen so far are kept.
pub(crate) fn smallest_names(dir: &Path, limit: usize) -> std::io::Result<(Vec<InboxName>, bool)> {
    let mut kept = BTreeSet::new();
    let mut more = false;
    for entry in std::fs::read_dir(dir)? {
        let name = entry?.file_name();
        if name.as_encoded_bytes().starts_with(b".") {
            continue;
        }
        kept.insert(InboxName::new(name));
        if kept.len() > limit.max(1) {
            kept.pop_last();
            more = true;
        }
    }
    Ok((kept.into_iter().collect(), more))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn listings_are_sorted_bounded_and_skip_dot_files() {
        let dir = std::env::temp_dir().join(format!("stepreplay-fsio-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        for n in ["c.json", "a.json", ".hidden.json", "b.json"] {
            std::fs::write(dir.join(n), "{}").unwrap();
        }
        let (names, more) = smallest_names(&dir, 2).unwrap();
        let names: Vec<&str> = names.iter().map(|n| n.text.as_str()).collect();
        assert_eq!(names, ["a.json", "b.json"]);
        assert!(more);
        let (names, more) = smallest_names(&dir, 10).unwrap();
        let names: Vec<&str> = names.iter().map(|n| n.text.as_str()).collect();
        assert_eq!(names, ["a.json", "b.json", "c.json"]);
        assert!(!more);
        assert!(create_atomic(&dir.join("x"), b"1").unwrap());
        assert!(!create_atomic(&dir.join("x"), b"2").unwrap());
        assert_eq!(std::fs::read(dir.join("x")).unwrap(), b"1");
        write_atomic(&dir.join("x"), b"3").unwrap();
        assert_eq!(std::fs::read(dir.join("x")).unwrap(), b"3");
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
