//! Finds where field paths point in JSON source text, so that findings computed on parsed
//! values can still name a line and column.
//!
//! [`locate_all`] answers every path of a check in one pass over the text: a plan with
//! thousands of findings must not be scanned once per finding (a 3 MB plan with 20 000
//! misnumbered steps took minutes that way). It walks with an explicit stack, never
//! recursing, so it is safe on the deeply nested files that bad input brings.

use std::collections::{HashMap, HashSet};
use std::ops::ControlFlow;

use crate::errors::{FieldPath, Position, Seg};

/// The position of the value at `path`, or of the deepest part of `path` that exists.
/// `None` only when the text is not a JSON document at all.
pub(crate) fn locate(text: &str, path: &FieldPath) -> Option<Position> {
    locate_all(text, std::slice::from_ref(path)).pop().flatten()
}

/// [`locate`] for many paths at once, in one pass; answers in the order of `paths`.
pub(crate) fn locate_all(text: &str, paths: &[FieldPath]) -> Vec<Option<Position>> {
    let b = text.as_bytes();
    let start = skip_ws(b, 0);
    if start >= b.len() {
        return vec![None; paths.len()];
    }
    // Every prefix of a wanted path, so that a missing field falls back to its parent.
    let mut wanted: HashSet<&[Seg]> = HashSet::new();
    for p in paths {
        for n in 0..=p.0.len() {
            wanted.insert(&p.0[..n]);
        }
    }
    let found = value_offsets(text, start, &wanted);
    let offsets: Vec<usize> = paths
        .iter()
        .map(|p| {
            (0..=p.0.len())
                .rev()
                .find_map(|n| found.get(&p.0[..n]).copied())
                .unwrap_or(start)
        })
        .collect();
    let positions = positions_of(text, &offsets);
    offsets.iter().map(|o| positions.get(o).copied()).collect()
}

/// The byte offset where each wanted path's value starts (its first occurrence).
fn value_offsets(text: &str, start: usize, wanted: &HashSet<&[Seg]>) -> HashMap<Vec<Seg>, usize> {
    let mut found: HashMap<Vec<Seg>, usize> = HashMap::new();
    // Hashing a path costs its depth; deeper than any wanted path, nothing can match, and
    // skipping keeps 100 000 nested `[` linear.
    let max_depth = wanted.iter().map(|p| p.len()).max().unwrap_or(0);
    let _: ControlFlow<()> = walk(text, start, |path, met| {
        if let Met::Value(at) = met
            && path.len() <= max_depth
            && wanted.contains(path)
            && !found.contains_key(path)
        {
            found.insert(path.to_vec(), at);
        }
        ControlFlow::Continue(())
    });
    found
}

enum Frame {
    Object {
        keys: HashSet<String>,
        want_key: bool,
        has_key: bool,
    },
    Array,
}

/// What [`walk`] meets at a path: the offset where a value starts, or an object's key (the
/// offset of its opening quote) and whether that object had the key already.
pub(super) enum Met {
    Value(usize),
    Key(usize, bool),
}

/// Walks JSON text from `start`, telling `met` every value and key with its path, until it
/// breaks. An explicit stack, never recursion, so deep input cannot overflow it; text that
/// is not JSON is walked as far as it goes.
pub(super) fn walk<B>(
    text: &str,
    start: usize,
    mut met: impl FnMut(&[Seg], Met) -> ControlFlow<B>,
) -> ControlFlow<B> {
    let b = text.as_bytes();
    let mut stack: Vec<Frame> = Vec::new();
    let mut path: Vec<Seg> = Vec::new();
    met(&path, Met::Value(start))?;
    let mut i = start;
    while i < b.len() {
        match b[i] {
            b'{' => stack.push(Frame::Object {
                keys: HashSet::new(),
                want_key: true,
                has_key: false,
            }),
            b'[' => {
                stack.push(Frame::Array);
                path.push(Seg::Index(0));
                i = skip_ws(b, i + 1);
                if i < b.len() && b[i] != b']' {
                    met(&path, Met::Value(i))?;
                }
                continue;
            }
            b'}' | b']' => match stack.pop() {
                Some(Frame::Object { has_key: true, .. }) | Some(Frame::Array) => {
                    path.pop();
                }
                _ => {}
            },
            b',' => match stack.last_mut() {
                Some(Frame::Object { want_key, .. }) => *want_key = true,
                Some(Frame::Array) => {
                    if let Some(Seg::Index(n)) = path.last_mut() {
                        *n += 1;
                    }
                    i = skip_ws(b, i + 1);
                    met(&path, Met::Value(i))?;
                    continue;
                }
                None => {}
            },
            b':' => {
                i = skip_ws(b, i + 1);
                met(&path, Met::Value(i))?;
                continue;
            }
            b'"' => {
                let end = skip_string(b, i);
                if let Some(Frame::Object {
                    keys,
                    want_key,
                    has_key,
                }) = stack.last_mut()
                    && *want_key
                {
                    let key: String = serde_json::from_str(&text[i..end]).unwrap_or_default();
                    if *has_key {
                        path.pop();
                    }
                    path.push(Seg::Key(key.clone()));
                    let repeated = !keys.insert(key);
                    (*want_key, *has_key) = (false, true);
                    met(&path, Met::Key(i, repeated))?;
                }
                i = end;
                continue;
            }
            _ => {}
        }
        i += 1;
    }
    ControlFlow::Continue(())
}

/// Line and column of each offset, in one pass over the text.
fn positions_of(text: &str, offsets: &[usize]) -> HashMap<usize, Position> {
    let mut wanted: Vec<usize> = offsets.to_vec();
    wanted.sort_unstable();
    wanted.dedup();
    let mut out = HashMap::new();
    let mut next = wanted.iter().peekable();
    let (mut line, mut column) = (1, 1);
    for (at, c) in text.char_indices().chain([(text.len(), '\0')]) {
        while next.peek().is_some_and(|&&o| o <= at) {
            out.insert(*next.next().unwrap_or(&at), Position { line, column });
        }
        if next.peek().is_none() {
            break;
        }
        if c == '\n' {
            line += 1;
            column = 1;
        } else {
            column += 1;
        }
    }
    out
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
    fn many_paths_at_once_agree_with_one_at_a_time() {
        let paths: Vec<FieldPath> = [
            "",
            "steps",
            "steps[0].a",
            "steps[1].target.point",
            "steps[1].target.point.x",
            "steps[1].target.label",
            "steps[7]",
            "nothing.here",
        ]
        .iter()
        .map(|p| FieldPath::parse(p))
        .collect();
        let all = locate_all(DOC, &paths);
        let one: Vec<_> = paths.iter().map(|p| locate(DOC, p)).collect();
        assert_eq!(all, one);
        let at = |p: Option<Position>| p.map(|p| (p.line, p.column));
        assert_eq!(at(all[2]), Some((3, 12)));
        assert_eq!(
            at(all[6]),
            Some((2, 12)),
            "a missing index falls back to its array"
        );
        assert_eq!(
            at(all[7]),
            Some((1, 1)),
            "a missing key falls back to the root"
        );
    }

    #[test]
    fn columns_count_characters_not_bytes() {
        let text = "{\"t\": \"“Send”\", \"x\": 1}";
        let p = locate(text, &FieldPath::parse("x")).unwrap();
        assert_eq!((p.line, p.column), (1, 22), "26 in bytes");
    }

    #[test]
    fn survives_deep_nesting_and_garbage() {
        assert!(locate("}}]]", &FieldPath::parse("a[0]")).is_some());
        let deep = "[".repeat(100_000);
        assert!(locate(&deep, &FieldPath::parse("[0][0][0]")).is_some());
        assert!(locate("", &FieldPath::root()).is_none());
    }
}
