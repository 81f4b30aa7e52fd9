//! Keeping every path a recording or scenario names inside its own folder.
//!
//! `..`, absolute paths and symlinks that lead out are refused (`path-escape`): a recording
//! is untrusted input and must never make the harness read `/etc/passwd` or write next to it.

use std::path::{Component, Path, PathBuf};

use crate::errors::{FieldPath, InputError, Reason};

/// Joins `rel` onto `dir`, refusing anything that would leave `dir`. `file` and `field` say
/// where the path was written, for the error.
pub(crate) fn safe_join(
    dir: &Path,
    rel: &str,
    file: &Path,
    field: FieldPath,
) -> Result<PathBuf, InputError> {
    let escape = |why: &str| {
        InputError::new(file, Reason::PathEscape, format!("`{rel}` {why}"))
            .at(field.clone())
            .hint("name files relative to the folder, without `..`")
    };
    let p = Path::new(rel);
    if rel.is_empty() {
        return Err(InputError::new(file, Reason::InvalidField, "empty path").at(field));
    }
    for c in p.components() {
        match c {
            Component::Normal(_) | Component::CurDir => {}
            Component::ParentDir => return Err(escape("climbs out with `..`")),
            Component::RootDir | Component::Prefix(_) => return Err(escape("is absolute")),
        }
    }
    let joined = dir.join(p);
    // Resolve symlinks; a missing file is reported by whoever opens it.
    if let (Ok(real), Ok(base)) = (joined.canonicalize(), dir.canonicalize())
        && !real.starts_with(&base)
    {
        return Err(escape("is a link that leads outside the folder"));
    }
    Ok(joined)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn refuses_parent_and_absolute_paths() {
        let d = Path::new(".");
        let f = Path::new("rec.json");
        for bad in ["../x.png", "a/../../x.png", "/etc/passwd"] {
            let e = safe_join(d, bad, f, FieldPath::root()).unwrap_err();
            assert_eq!(e.reason, Reason::PathEscape, "{bad}");
        }
        assert!(safe_join(d, "frames/a.png", f, FieldPath::root()).is_ok());
    }
}
