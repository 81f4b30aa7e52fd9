//! Laying out a bridge folder: `manifest.json`, `inbox/`, `processed/`, `failed/`.

use std::path::Path;

use super::manifest::{MANIFEST_FILE, Manifest};
use super::state::State;
use crate::errors::{Error, InputError, Reason};
use crate::json::{parse_typed, read_text};
use crate::limits;

/// Creates the bridge folder `root` holding `state` (the app's state; empty by default, with
/// only the built-in catalog). Refuses a folder that already has a manifest, so an existing
/// bridge's state is never overwritten.
pub fn init(root: &Path, state: State) -> Result<Manifest, Error> {
    if root.join(MANIFEST_FILE).exists() {
        return Err(InputError::new(
            root.join(MANIFEST_FILE),
            Reason::InvalidArgument,
            "this folder already holds a bridge manifest",
        )
        .hint("pick an empty folder, or delete the old one first")
        .into());
    }
    for sub in ["inbox", "processed", "failed"] {
        let dir = root.join(sub);
        std::fs::create_dir_all(&dir).map_err(|source| Error::Write { path: dir, source })?;
    }
    // Absolute paths, as the protocol's manifest has them.
    let abs = std::path::absolute(root).map_err(|source| Error::Write {
        path: root.to_path_buf(),
        source,
    })?;
    let manifest = Manifest::new(&abs, state);
    manifest.save(root)?;
    Ok(manifest)
}

/// Reads a state file (the manifest's `state` object on its own), strictly.
pub(crate) fn read_state(path: &Path) -> Result<State, InputError> {
    let src = read_text(path, limits::STATE_BYTES)?;
    parse_typed(&src)
}
