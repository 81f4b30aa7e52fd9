//! Finds a key repeated inside one JSON object, anywhere in a document.
//!
//! serde_json keeps the last of two repeats without a word, and other readers keep the first:
//! the same file then means two things. Strict typed parsing refuses repeats in typed
//! objects; this scan covers the free-form parts too (`stop_if`, `expect.visible`), so that
//! `fmt` never drops one half of a repeat. It walks the text with an explicit stack, never
//! recursing, so deep input cannot overflow it.

use std::collections::HashSet;

use super::locate::position_of;
use super::locate::skip_string;
use crate::errors::{FieldPath, Position, Seg};

enum Frame {
    Object {
        keys: HashSet<String>,
        want_key: bool,
        has_key: bool,
    },
    Array,
}

/// The first repeated key — its full path and the position of its opening quote — in a
/// document that is valid JSON. `None` when every object's keys are distinct.
pub(crate) fn find_duplicate_key(text: &str) -> Option<(FieldPath, Position)> {
    let b = text.as_bytes();
    let mut stack: Vec<Frame> = Vec::new();
    let mut path: Vec<Seg> = Vec::new();
    let mut i = 0;
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
                }
                None => {}
            },
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
                    if !keys.insert(key) {
                        return Some((FieldPath(path), position_of(text, i)));
                    }
                    *want_key = false;
                    *has_key = true;
                }
                i = end;
                continue;
            }
            _ => {}
        }
        i += 1;
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn finds_a_repeat_in_a_nested_free_form_object() {
        let text = "{\"steps\": [{}, {\"stop_if\": {\"text\": \"a\", \"w\": [1, {\"x\": 1}],\n \"text\": \"b\"}}]}";
        let (path, pos) = find_duplicate_key(text).unwrap();
        assert_eq!(path.to_string(), "steps[1].stop_if.text");
        assert_eq!((pos.line, pos.column), (2, 2));
    }

    #[test]
    fn same_key_in_sibling_objects_is_fine() {
        let text = "[{\"a\": 1, \"b\": \"\\\"a\\\"\"}, {\"a\": 2}, {\"a\": {\"a\": 3}}]";
        assert_eq!(find_duplicate_key(text), None);
    }

    #[test]
    fn deep_nesting_does_not_recurse() {
        let text = "[".repeat(200_000) + &"]".repeat(200_000);
        assert_eq!(find_duplicate_key(&text), None);
    }
}
