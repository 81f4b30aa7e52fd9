//! Writing output files: parent folders made on the way, and every failure an
//! [`Error::Write`] naming the path, so each writer (reports, captures, synth, import, the
//! bridge and the job inbox, the recorder's logs) reports a full disk or a read-only folder the
//! same way. Nothing else in the harness opens a file for writing.

use std::fs::File;
use std::io::Write;
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

/// Writes `bytes` to `path` and waits until they are on disk: for files a crash must not
/// leave half-written (the inboxes' outcomes, written to a temporary name first).
pub(crate) fn write_synced(path: &Path, bytes: &[u8]) -> Result<(), Error> {
    let err = write_error(path);
    let mut f = create_file(path)?;
    f.write_all(bytes).map_err(&err)?;
    f.sync_all().map_err(err)
}

/// Appends `bytes` to `path`, creating it if needed: several runs may share one file (a CI
/// job summary, a journal).
pub fn append(path: &Path, bytes: &[u8]) -> Result<(), Error> {
    create_parent(path)?;
    let err = write_error(path);
    std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(path)
        .and_then(|mut f| f.write_all(bytes))
        .map_err(err)
}

/// Creates (or truncates) `path` for a writer that streams into it (an encoder, a child's
/// log), making its folder first.
pub(crate) fn create_file(path: &Path) -> Result<File, Error> {
    create_parent(path)?;
    File::create(path).map_err(write_error(path))
}

/// Creates (or truncates) `path` to be written and read back (a spill file), making its
/// folder first.
pub(crate) fn create_scratch(path: &Path) -> Result<File, Error> {
    create_parent(path)?;
    std::fs::OpenOptions::new()
        .create(true)
        .truncate(true)
        .read(true)
        .write(true)
        .open(path)
        .map_err(write_error(path))
}

/// The [`Error::Write`] for `path`, for a writer's own I/O calls.
pub(crate) fn write_error(path: &Path) -> impl Fn(std::io::Error) -> Error + '_ {
    move |source| Error::Write {
        path: path.to_path_buf(),
        source,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn writes_make_folders_append_appends_and_errors_name_the_path() {
        let dir = std::env::temp_dir().join(format!("stepreplay-output-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        let f = dir.join("a/b/log.txt");
        append(&f, b"one\n").unwrap();
        append(&f, b"two\n").unwrap();
        assert_eq!(std::fs::read_to_string(&f).unwrap(), "one\ntwo\n");
        write_synced(&f, b"new").unwrap();
        assert_eq!(std::fs::read(&f).unwrap(), b"new");
        // A file where a folder should be: the error names the path that failed.
        let e = write_file(&f.join("under-a-file.txt"), "x").unwrap_err();
        assert!(e.to_string().contains("log.txt"), "{e}");
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
