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

/// `; did you mean `scenarios/mail.json`?` when a file or folder beside the missing `path`
/// has a name close to its own; else nothing. Reads one folder, at most a few thousand names.
pub(crate) fn did_you_mean(path: &Path) -> String {
    let (Some(dir), Some(name)) = (path.parent(), path.file_name()) else {
        return String::new();
    };
    let listed = if dir.as_os_str().is_empty() {
        Path::new(".")
    } else {
        dir
    };
    let name = name.to_string_lossy();
    let names: Vec<String> = std::fs::read_dir(listed)
        .into_iter()
        .flatten()
        .take(4096)
        .filter_map(|e| e.ok()?.file_name().into_string().ok())
        .filter(|n| *n != name)
        .collect();
    let names: Vec<&str> = names.iter().map(String::as_str).collect();
    crate::text::closest(&name, &names)
        .map(|m| format!("; did you mean `{}`?", dir.join(m).display()))
        .unwrap_or_default()
}

/// `dir/sub` when it is, right now, a real folder inside `dir`: neither `dir` nor `sub` a
/// symlink, and `sub` resolving inside `dir`; else why not. Checked again before each write,
/// since whoever else can write the folder can swap a folder for a link at any time.
pub(crate) fn real_subfolder(dir: &Path, sub: &str) -> Result<PathBuf, String> {
    let is_link = |p: &Path| std::fs::symlink_metadata(p).map(|m| m.file_type().is_symlink());
    if is_link(dir).unwrap_or(false) {
        return Err(format!("`{}` is a symlink", dir.display()));
    }
    let joined = dir.join(sub);
    match std::fs::symlink_metadata(&joined) {
        Err(e) => return Err(format!("`{sub}/` cannot be read: {e}")),
        Ok(m) if m.file_type().is_symlink() => return Err(format!("`{sub}/` is a symlink")),
        Ok(m) if !m.is_dir() => return Err(format!("`{sub}/` is not a folder")),
        Ok(_) => {}
    }
    match (joined.canonicalize(), dir.canonicalize()) {
        (Ok(real), Ok(base)) if real.starts_with(&base) && real != base => Ok(joined),
        _ => Err(format!("`{sub}/` resolves outside the folder")),
    }
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

    #[test]
    fn a_subfolder_swapped_for_a_link_is_refused() {
        let root = std::env::temp_dir().join(format!("safe-path-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&root);
        std::fs::create_dir_all(root.join("inbox")).unwrap();
        std::fs::create_dir_all(root.join("elsewhere")).unwrap();
        assert!(real_subfolder(&root, "inbox").is_ok());
        std::fs::remove_dir(root.join("inbox")).unwrap();
        std::os::unix::fs::symlink(root.join("elsewhere"), root.join("inbox")).unwrap();
        let why = real_subfolder(&root, "inbox").unwrap_err();
        assert!(why.contains("symlink"), "{why}");
        std::fs::write(root.join("file"), "x").unwrap();
        assert!(real_subfolder(&root, "file").is_err());
        assert!(real_subfolder(&root, "missing").is_err());
        let _ = std::fs::remove_dir_all(&root);
    }
}
