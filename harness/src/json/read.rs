//! Bounded reading and strict parsing of JSON inputs.
//!
//! Sizes are checked before a byte is read (a 50 MB "plan" is refused, not parsed), text must
//! be UTF-8, syntax errors keep serde_json's line and column, and type errors carry the field
//! path that `serde_path_to_error` tracked — never a hand-kept path.

use std::io::Read;
use std::path::{Path, PathBuf};

use serde::de::DeserializeOwned;
use serde_json::Value;

use super::duplicates::find_duplicate_key;
use super::locate::{locate, position_of};
use crate::errors::{FieldPath, InputError, Position, Reason, Seg};

/// A text file read into memory, kept for locating findings.
#[derive(Clone, Debug)]
pub struct Source {
    /// The file as the user named it.
    pub path: PathBuf,
    /// Its whole text.
    pub text: String,
    /// The nesting it may have: [`crate::limits::JSON_DEPTH`] unless a user raised it
    /// (`--max-depth`), at most [`crate::limits::JSON_DEPTH_MAX`].
    pub depth: usize,
}

impl Source {
    /// Wraps text that did not come from a file (tests, stdin).
    pub fn from_text(path: impl Into<PathBuf>, text: impl Into<String>) -> Self {
        Source {
            path: path.into(),
            text: text.into(),
            depth: crate::limits::JSON_DEPTH,
        }
    }

    /// The same text allowed to nest `depth` levels (capped at the parser's real limit).
    pub(crate) fn with_depth(mut self, depth: usize) -> Self {
        self.depth = depth.min(crate::limits::JSON_DEPTH_MAX);
        self
    }

    /// Other text (a devthink step's options) held to this one's nesting allowance.
    pub(crate) fn inner(&self, text: impl Into<String>) -> Self {
        Source::from_text(&self.path, text).with_depth(self.depth)
    }

    /// Whether the text came from standard input, so that it has no folder of its own.
    pub(crate) fn is_stdin(&self) -> bool {
        self.path == Path::new(STDIN_NAME)
    }

    /// The position of a field path in this file.
    pub fn position(&self, path: &FieldPath) -> Option<Position> {
        locate(&self.text, path)
    }

    /// An error about this file at `path`, with the position filled in.
    pub(crate) fn error(
        &self,
        path: FieldPath,
        reason: Reason,
        message: impl Into<String>,
    ) -> InputError {
        InputError::new(&self.path, reason, message)
            .at_position(self.position(&path))
            .at(path)
    }
}

/// The path that names standard input, as other Unix tools take it.
pub(crate) const STDIN: &str = "-";

/// How standard input is named in messages.
const STDIN_NAME: &str = "<stdin>";

/// Reads a UTF-8 text file of at most `max_bytes` (standard input for [`STDIN`]).
pub fn read_text(path: &Path, max_bytes: u64) -> Result<Source, InputError> {
    let (path, bytes) = if path == Path::new(STDIN) {
        let name = Path::new(STDIN_NAME);
        (
            name,
            read_limited(name, std::io::stdin().lock(), max_bytes, 0)?,
        )
    } else {
        (path, read_bounded(path, max_bytes)?)
    };
    match String::from_utf8(bytes) {
        Ok(text) => Ok(Source::from_text(path, text)),
        Err(e) => {
            let valid = e.utf8_error().valid_up_to();
            let text = String::from_utf8_lossy(&e.as_bytes()[..valid]).into_owned();
            let pos = position_of(&text, valid);
            Err(InputError::new(
                path,
                Reason::InvalidJson,
                format!("not UTF-8 text: invalid byte at offset {valid}"),
            )
            .at_position(Some(pos))
            .hint("save the file as UTF-8"))
        }
    }
}

/// Opens a regular file for reading without ever blocking. A FIFO, device, socket or folder
/// is refused from its metadata before it is opened (opening a FIFO waits for a writer, which
/// hung `check` and wedged `serve`), and the open itself does not wait (`O_NONBLOCK`) in case
/// the path changed kind in between; the open file is checked again.
pub(crate) fn open_regular(path: &Path) -> Result<(std::fs::File, std::fs::Metadata), InputError> {
    let not_regular = || {
        InputError::new(path, Reason::UnsupportedFileType, "not a regular file")
            .hint("name a file, not a folder, a FIFO or a device")
    };
    let meta = std::fs::metadata(path).map_err(|e| open_error(path, e))?;
    if !meta.is_file() {
        return Err(not_regular());
    }
    let mut options = std::fs::OpenOptions::new();
    options.read(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt as _;
        // Regular files ignore O_NONBLOCK for reads; it only keeps a swapped-in FIFO from
        // blocking the open.
        options.custom_flags(libc::O_NONBLOCK | libc::O_NOCTTY);
    }
    let file = options.open(path).map_err(|e| open_error(path, e))?;
    let meta = file.metadata().map_err(|e| open_error(path, e))?;
    if !meta.is_file() {
        return Err(not_regular());
    }
    Ok((file, meta))
}

/// A failed open or stat, with what to check.
fn open_error(path: &Path, e: std::io::Error) -> InputError {
    let (reason, hint) = if e.kind() == std::io::ErrorKind::NotFound {
        (
            Reason::MissingFile,
            "check the path: it is relative to the folder you run in",
        )
    } else {
        (Reason::InvalidArgument, "check the file's permissions")
    };
    let meant = match reason {
        Reason::MissingFile => crate::safe_path::did_you_mean(path),
        _ => String::new(),
    };
    InputError::new(path, reason, format!("cannot read: {e}{meant}")).hint(hint)
}

/// Reads at most `max_bytes` of a file, refusing larger ones before reading them.
pub(crate) fn read_bounded(path: &Path, max_bytes: u64) -> Result<Vec<u8>, InputError> {
    let (file, meta) = open_regular(path)?;
    let too_large = |len: u64| {
        InputError::new(
            path,
            Reason::FileTooLarge,
            format!("{len} bytes is over the limit of {max_bytes} bytes"),
        )
        .hint("is this the right file? The limit keeps bad input from exhausting memory")
    };
    if meta.len() > max_bytes {
        return Err(too_large(meta.len()));
    }
    // The file may grow between the check and the read; never read past the limit.
    read_limited(path, file, max_bytes, meta.len())
}

/// Reads `from` to its end, refusing more than `max_bytes` (`path` names it in errors).
/// `expected` bytes are made room for at once: grown as it is read, the buffer of a screenshot
/// was copied and faulted in several times over.
fn read_limited(
    path: &Path,
    from: impl Read,
    max_bytes: u64,
    expected: u64,
) -> Result<Vec<u8>, InputError> {
    let mut buf = Vec::new();
    let want = expected.min(max_bytes) as usize + 1;
    buf.try_reserve_exact(want).map_err(|_| {
        InputError::new(
            path,
            Reason::LimitExceeded,
            format!("cannot get {want} bytes of memory to read it"),
        )
        .hint("the process's memory limit (ulimit -v, a container's) is lower; raise it")
    })?;
    from.take(max_bytes + 1)
        .read_to_end(&mut buf)
        .map_err(|e| InputError::new(path, Reason::InvalidArgument, format!("cannot read: {e}")))?;
    if buf.len() as u64 > max_bytes {
        return Err(InputError::new(
            path,
            Reason::FileTooLarge,
            format!("more than the limit of {max_bytes} bytes"),
        )
        .hint("is this the right file? The limit keeps bad input from exhausting memory"));
    }
    Ok(buf)
}

/// Every `.json` file under `dir`, searched recursively and sorted; links are not followed,
/// so a walk never leaves the folder it was given.
pub(crate) fn json_files_under(dir: &Path) -> Vec<PathBuf> {
    fn walk(dir: &Path, out: &mut Vec<PathBuf>) {
        let Ok(rd) = std::fs::read_dir(dir) else {
            return;
        };
        let mut entries: Vec<PathBuf> = rd.filter_map(|e| e.ok().map(|e| e.path())).collect();
        entries.sort();
        for p in entries {
            if p.is_symlink() {
                continue;
            }
            if p.is_dir() {
                walk(&p, out);
            } else if p.extension().is_some_and(|e| e == "json") {
                out.push(p);
            }
        }
    }
    let mut out = Vec::new();
    walk(dir, &mut out);
    out
}

/// Parses any JSON document, mapping syntax errors to `invalid-json` at their line and column.
pub(crate) fn parse_value(src: &Source) -> Result<Value, InputError> {
    match serde_json::from_str(&src.text) {
        Err(e) if allowed_deeper(src, &e) => deep(src, || {
            let mut de = serde_json::Deserializer::from_str(&src.text);
            de.disable_recursion_limit();
            let v = serde::Deserialize::deserialize(&mut de)?;
            de.end().map(|()| v)
        })?
        .map_err(|e| syntax_error(src, &e)),
        r => r.map_err(|e| syntax_error(src, &e)),
    }
}

/// Whether serde_json stopped at its own depth limit on a document the user allowed to nest
/// deeper, and that does nest no deeper than allowed.
fn allowed_deeper(src: &Source, e: &serde_json::Error) -> bool {
    src.depth > crate::limits::JSON_DEPTH
        && e.to_string().starts_with("recursion limit exceeded")
        && nesting(&src.text) <= src.depth
}

/// The deepest nesting of containers in JSON `text`, counted without recursing.
fn nesting(text: &str) -> usize {
    let (mut depth, mut deepest, mut in_string, mut escaped) = (0usize, 0, false, false);
    for b in text.bytes() {
        match (in_string, b) {
            (true, _) if escaped => escaped = false,
            (true, b'\\') => escaped = true,
            (true, b'"') | (false, b'"') => in_string = !in_string,
            (false, b'[' | b'{') => {
                depth += 1;
                deepest = deepest.max(depth);
            }
            (false, b']' | b'}') => depth = depth.saturating_sub(1),
            _ => {}
        }
    }
    deepest
}

/// Runs a parse with no recursion limit on a thread whose stack holds
/// [`crate::limits::JSON_DEPTH_MAX`] levels; the depth was checked before.
fn deep<T: Send>(src: &Source, parse: impl FnOnce() -> T + Send) -> Result<T, InputError> {
    std::thread::scope(|s| {
        match std::thread::Builder::new()
            .stack_size(crate::limits::JSON_DEEP_STACK)
            .spawn_scoped(s, parse)
        {
            Ok(h) => Ok(h.join().unwrap_or_else(|p| std::panic::resume_unwind(p))),
            // The caller's own stack may be too small for the depth: refuse, never overflow.
            Err(e) => Err(InputError::new(
                &src.path,
                Reason::LimitExceeded,
                format!(
                    "cannot start a thread to parse its {} levels: {e}",
                    nesting(&src.text)
                ),
            )
            .hint("the process's thread or memory limit is low; raise it or lower `--max-depth`")),
        }
    })
}

fn syntax_error(src: &Source, e: &serde_json::Error) -> InputError {
    let (msg, position) = serde_message(e);
    if src.text.starts_with('\u{feff}') && position.is_some_and(|p| p.line == 1 && p.column == 1) {
        return InputError::new(
            &src.path,
            Reason::InvalidJson,
            "the file starts with a byte-order mark (U+FEFF), which JSON does not allow",
        )
        .at_position(position)
        .hint("save the file as UTF-8 without a BOM");
    }
    if msg == "recursion limit exceeded" {
        // serde_json stops at JSON_DEPTH levels so that deep input cannot overflow the stack.
        return InputError::new(
            &src.path,
            Reason::LimitExceeded,
            format!("the JSON nests deeper than {} levels", src.depth),
        )
        .at_position(position)
        .hint(format!(
            "`--max-depth` (check, fmt, run, agent, mutate) raises a plan's cap, to at most {} levels",
            crate::limits::JSON_DEPTH_MAX
        ));
    }
    if src.text.trim().is_empty() {
        let what = if src.text.is_empty() {
            "the file is empty"
        } else {
            "the file holds only whitespace"
        };
        return InputError::new(&src.path, Reason::InvalidJson, what)
            .at_position(position)
            .hint("a JSON document starts with `{`: is this the file you meant, fully written?");
    }
    let hint = if e.is_eof() {
        "the file ends early: is it truncated?"
    } else {
        "fix the JSON syntax at this position"
    };
    InputError::new(&src.path, Reason::InvalidJson, msg)
        .at_position(position)
        .hint(hint)
}

/// Refuses a document whose `schema` is not `want` (`unsupported-schema`); `what` names the
/// kind of file for the hint ("AX snapshots").
pub(crate) fn expect_schema(
    src: &Source,
    value: &Value,
    want: &str,
    what: &str,
) -> Result<(), InputError> {
    match value.get("schema").and_then(|s| s.as_str()) {
        Some(s) if s == want => Ok(()),
        other => Err(src
            .error(
                FieldPath::root().key("schema"),
                Reason::UnsupportedSchema,
                format!("schema {:?} is not supported", other.unwrap_or("(none)")),
            )
            .hint(format!("{what} are \"{want}\""))),
    }
}

/// Refuses a document that repeats a key in any object (`invalid-field` at the repeat).
/// Typed parsing refuses repeats in typed objects; this covers free-form ones too.
pub(crate) fn refuse_duplicate_keys(src: &Source) -> Result<(), InputError> {
    let Some((path, position)) = find_duplicate_key(&src.text) else {
        return Ok(());
    };
    let key = match path.0.last() {
        Some(Seg::Key(k)) => k.clone(),
        _ => String::new(),
    };
    Err(InputError::new(
        &src.path,
        Reason::InvalidField,
        format!("duplicate key `{key}`"),
    )
    .at(path)
    .at_position(Some(position))
    .hint(format!(
        "keep one `{key}`: readers disagree on which of two repeats wins"
    )))
}

/// Parses strictly into `T`: unknown fields, wrong types and missing fields are
/// `invalid-field` errors at the exact field path.
pub fn parse_typed<T: DeserializeOwned + Send>(src: &Source) -> Result<T, InputError> {
    match typed(src, false) {
        Err(e)
            if e.reason == Reason::LimitExceeded
                && src.depth > crate::limits::JSON_DEPTH
                && nesting(&src.text) <= src.depth =>
        {
            deep(src, || typed(src, true))?
        }
        r => r,
    }
}

fn typed<T: DeserializeOwned>(src: &Source, unbounded: bool) -> Result<T, InputError> {
    let mut de = serde_json::Deserializer::from_str(&src.text);
    if unbounded {
        de.disable_recursion_limit();
    }
    let result: Result<T, _> = serde_path_to_error::deserialize(&mut de);
    let value = match result {
        Ok(v) => v,
        Err(e) => {
            let inner = e.inner();
            if inner.is_syntax() || inner.is_eof() || inner.is_io() {
                return Err(syntax_error(src, inner));
            }
            let mut path = FieldPath::parse(&e.path().to_string());
            let (msg, serde_position) = serde_message(inner);
            // The path of a repeated key stops at its object, and locating the key would find
            // its first, valid occurrence: serde's own position is the repeat.
            let position = match msg
                .strip_prefix("duplicate field `")
                .and_then(|m| m.strip_suffix('`'))
            {
                Some(key) => {
                    path = path.key(key);
                    // serde stops on the key's closing quote; point at its opening one.
                    serde_position.map(|p| Position {
                        column: p.column.saturating_sub(key.chars().count() + 1).max(1),
                        ..p
                    })
                }
                None => src.position(&path).or(serde_position),
            };
            return Err(InputError::new(&src.path, Reason::InvalidField, msg)
                .at(path)
                .at_position(position));
        }
    };
    de.end().map_err(|e| syntax_error(src, &e))?;
    Ok(value)
}

/// serde's message without the position it appends, and that position (the caller places the
/// error itself). serde_json's column 0 before the first character (an empty file) is 1 here.
pub(super) fn serde_message(e: &serde_json::Error) -> (String, Option<Position>) {
    let msg = e.to_string();
    let position = (e.line() > 0).then(|| Position {
        line: e.line(),
        column: e.column().max(1),
    });
    (
        msg.split(" at line ").next().unwrap_or(&msg).to_string(),
        position,
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde::Deserialize;

    #[derive(Debug, Deserialize)]
    #[serde(deny_unknown_fields)]
    #[allow(dead_code)]
    struct Doc {
        steps: Vec<Step>,
    }
    #[derive(Debug, Deserialize)]
    #[serde(deny_unknown_fields)]
    #[allow(dead_code)]
    struct Step {
        number: u32,
    }

    #[test]
    fn a_file_at_its_size_limit_reads_and_one_byte_more_does_not() {
        let dir = std::env::temp_dir().join(format!("stepreplay-bounded-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let f = dir.join("f.json");
        std::fs::write(&f, vec![b' '; 100]).unwrap();
        assert_eq!(read_bounded(&f, 100).unwrap().len(), 100);
        let e = read_bounded(&f, 99).unwrap_err();
        assert_eq!(e.reason, Reason::FileTooLarge);
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn json_nests_to_its_depth_limit_and_no_deeper() {
        let depth = crate::limits::JSON_DEPTH;
        let nested = |n: usize| format!("{}{}", "[".repeat(n), "]".repeat(n));
        assert!(parse_value(&Source::from_text("d.json", nested(depth))).is_ok());
        let e = parse_value(&Source::from_text("d.json", nested(depth + 1))).unwrap_err();
        assert_eq!(e.reason, Reason::LimitExceeded);
        assert!(e.message.contains(&depth.to_string()), "{}", e.message);
    }

    #[test]
    fn an_empty_file_says_it_is_empty() {
        for (text, says) in [("", "the file is empty"), (" \n\t", "only whitespace")] {
            let e = parse_value(&Source::from_text("p.json", text)).unwrap_err();
            assert_eq!(e.reason, Reason::InvalidJson);
            assert!(e.message.contains(says), "{}", e.message);
        }
        let e = parse_value(&Source::from_text("p.json", "{\"a\": ")).unwrap_err();
        assert!(e.hint.unwrap_or_default().contains("truncated"));
    }

    #[test]
    fn type_errors_carry_path_and_position() {
        let src = Source::from_text(
            "p.json",
            "{\"steps\": [{\"number\": 1}, {\"number\": \"two\"}]}",
        );
        let e = parse_typed::<Doc>(&src).unwrap_err();
        assert_eq!(e.reason, Reason::InvalidField);
        assert_eq!(e.path.to_string(), "steps[1].number");
        assert_eq!(
            e.position,
            Some(Position {
                line: 1,
                column: 38
            })
        );
    }

    #[test]
    fn unknown_fields_are_refused() {
        let src = Source::from_text("p.json", "{\"steps\": [{\"number\": 1, \"numbr\": 2}]}");
        let e = parse_typed::<Doc>(&src).unwrap_err();
        assert_eq!(e.reason, Reason::InvalidField);
        assert!(e.message.contains("unknown field `numbr`"), "{}", e.message);
    }

    #[test]
    fn truncated_json_is_invalid_json() {
        let src = Source::from_text("p.json", "{\"steps\": [");
        let e = parse_typed::<Doc>(&src).unwrap_err();
        assert_eq!(e.reason, Reason::InvalidJson);
        assert!(e.hint.unwrap().contains("truncated"));
    }
}
