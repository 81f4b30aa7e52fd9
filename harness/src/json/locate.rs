//! Finds where a field path points in JSON source text, so that findings computed on parsed
//! values can still name a line and column. It scans without recursion, so it is safe on the
//! deeply nested files that bad input brings.

use crate::errors::{FieldPath, Position, Seg};

/// The position of the value at `path`, or of the deepest part of `path` that exists.
/// `None` only when the text is not a JSON document at all.
pub fn locate(text: &str, path: &FieldPath) -> Option<Position> {
    let bytes = text.as_bytes();
    let mut at = skip_ws(bytes, 0);
    if at >= bytes.len() {
        return None;
    }
    for seg in &path.0 {
        match find_child(bytes, at, seg) {
            Some(child) => at = child,
            None => break,
        }
    }
    Some(position_of(text, at))
}

/// Converts a byte offset to a 1-based line and character column.
pub(crate) fn position_of(text: &str, offset: usize) -> Position {
    let offset = offset.min(text.len());
    let before = &text.as_bytes()[..offset];
    let line = before.iter().filter(|&&b| b == b'\n').count() + 1;
    let line_start = before
        .iter()
        .rposition(|&b| b == b'\n')
        .map_or(0, |i| i + 1);
    let column = String::from_utf8_lossy(&before[line_start..])
        .chars()
        .count()
        + 1;
    Position { line, column }
}

fn skip_ws(b: &[u8], mut i: usize) -> usize {
    while i < b.len() && matches!(b[i], b' ' | b'\t' | b'\n' | b'\r') {
        i += 1;
    }
    i
}

/// End of the string starting at `i` (which holds the opening quote).
fn skip_string(b: &[u8], mut i: usize) -> usize {
    i += 1;
    while i < b.len() {
        match b[i] {
            b'\\' => i += 2,
            b'"' => return i + 1,
            _ => i += 1,
        }
    }
    b.len()
}

/// End of the value starting at `i`.
fn skip_value(b: &[u8], i: usize) -> usize {
    match b.get(i) {
        Some(b'"') => skip_string(b, i),
        Some(b'{') | Some(b'[') => {
            let mut depth = 0usize;
            let mut j = i;
            while j < b.len() {
                match b[j] {
                    b'"' => {
                        j = skip_string(b, j);
                        continue;
                    }
                    b'{' | b'[' => depth += 1,
                    b'}' | b']' => {
                        depth -= 1;
                        if depth == 0 {
                            return j + 1;
                        }
                    }
                    _ => {}
                }
                j += 1;
            }
            b.len()
        }
        _ => {
            let mut j = i;
            while j < b.len() && !matches!(b[j], b',' | b'}' | b']' | b' ' | b'\t' | b'\n' | b'\r')
            {
                j += 1;
            }
            j
        }
    }
}

fn find_child(b: &[u8], at: usize, seg: &Seg) -> Option<usize> {
    match (b.get(at)?, seg) {
        (b'{', Seg::Key(want)) => {
            let mut i = skip_ws(b, at + 1);
            while i < b.len() && b[i] == b'"' {
                let key_end = skip_string(b, i);
                let key: Option<String> = std::str::from_utf8(&b[i..key_end])
                    .ok()
                    .and_then(|raw| serde_json::from_str(raw).ok());
                i = skip_ws(b, key_end);
                if b.get(i) != Some(&b':') {
                    return None;
                }
                let value = skip_ws(b, i + 1);
                if key.as_deref() == Some(want.as_str()) {
                    return Some(value);
                }
                i = skip_ws(b, skip_value(b, value));
                if b.get(i) != Some(&b',') {
                    return None;
                }
                i = skip_ws(b, i + 1);
            }
            None
        }
        (b'[', Seg::Index(want)) => {
            let mut i = skip_ws(b, at + 1);
            let mut n = 0;
            while i < b.len() && b[i] != b']' {
                if n == *want {
                    return Some(i);
                }
                i = skip_ws(b, skip_value(b, i));
                if b.get(i) != Some(&b',') {
                    return None;
                }
                i = skip_ws(b, i + 1);
                n += 1;
            }
            None
        }
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const DOC: &str = "{\n  \"steps\": [\n    { \"a\": \"x]}\" },\n    { \"target\": { \"point\": { \"x\": 1.3 } } }\n  ]\n}\n";

    #[test]
    fn finds_a_nested_value() {
        let p = locate(DOC, &FieldPath::parse("steps[1].target.point.x")).unwrap();
        assert_eq!((p.line, p.column), (4, 35));
    }

    #[test]
    fn falls_back_to_the_deepest_existing_prefix() {
        let p = locate(DOC, &FieldPath::parse("steps[1].target.label")).unwrap();
        assert_eq!((p.line, p.column), (4, 17));
    }

    #[test]
    fn survives_deep_nesting_and_garbage() {
        let deep = "[".repeat(100_000);
        assert!(locate(&deep, &FieldPath::parse("[0][0][0]")).is_some());
        assert!(locate("", &FieldPath::root()).is_none());
    }
}
