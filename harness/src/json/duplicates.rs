//! Finds a key repeated inside one JSON object, anywhere in a document.
//!
//! serde_json keeps the last of two repeats without a word, and other readers keep the first:
//! the same file then means two things. Strict typed parsing refuses repeats in typed
//! objects; this scan covers the free-form parts too (`stop_if`, `expect.visible`), so that
//! `fmt` never drops one half of a repeat.

use std::ops::ControlFlow;

use super::locate::{Met, position_of, walk};
use crate::errors::{FieldPath, Position};

/// The first repeated key — its full path and the position of its opening quote — in a
/// document that is valid JSON. `None` when every object's keys are distinct.
pub(crate) fn find_duplicate_key(text: &str) -> Option<(FieldPath, Position)> {
    walk(text, 0, |path, met| match met {
        Met::Key(at, true) => ControlFlow::Break((FieldPath(path.to_vec()), position_of(text, at))),
        _ => ControlFlow::Continue(()),
    })
    .break_value()
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
