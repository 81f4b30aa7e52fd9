//! Writing output files: parent folders made on the way, and every failure an
//! [`Error::Write`] naming the path, so each writer (reports, captures, synth, import) reports
//! a full disk or a read-only folder the same way.

use std::path::Path;

use crate::errors::Error;

/// Makes `dir` and its parents.
pub fn create_dir(dir: &Path) -> Result<(), Error> {
    std::fs::create_dir_all(dir).map_err(|source| Error::Write {
        path: dir.to_path_buf(),
        source,
    })
}

fn create_parent(path: &Path) -> Result<(), Error> {
    match path.parent().filter(|p| !p.as_os_str().is_empty()) {
        Some(parent) => create_dir(parent),
        None => Ok(()),
    }
}

/// Writes `bytes` to `path`, making its folder first.
pub fn write_file(path: &Path, bytes: impl AsRef<[u8]>) -> Result<(), Error> {
    create_parent(path)?;
    std::fs::write(path, bytes).map_err(|source| Error::Write {
        path: path.to_path_buf(),
        source,
    })
}

/// Copies `from` to `to`, making `to`'s folder first.
pub fn copy_file(from: &Path, to: &Path) -> Result<(), Error> {
    create_parent(to)?;
    std::fs::copy(from, to).map_err(|source| Error::Write {
        path: to.to_path_buf(),
        source,
    })?;
    Ok(())
}
