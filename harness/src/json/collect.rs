//! Every type error in a document, not only the first: `check` should fix more than one thing
//! per pass.
//!
//! serde stops at the first error. To go on, the offending field is taken out of a copy of the
//! document and the copy read again, until it reads or nothing more can be taken out. A field
//! taken out that was required comes back as "missing field": that is the same problem again
//! (a cascade), so it is not reported twice, and neither is the required field an unknown one
//! was probably meant to be (`labl` for `label`); the object that lacks it is taken out in
//! turn. Array elements are never taken out: their indexes are the paths of the errors after
//! them.

use serde::de::DeserializeOwned;
use serde_json::Value;

use super::Source;
use super::read::serde_message;
use crate::errors::{FieldPath, InputError, Reason, Seg};
use crate::text::closest;

/// At most this many errors per value: past it, more are noise.
const MOST: usize = 32;

/// The type errors in `value` read as `T`, each at `base` joined with its path and placed in
/// `src`. Empty when `value` reads.
pub(crate) fn type_errors<T: DeserializeOwned>(
    src: &Source,
    value: &Value,
    base: &FieldPath,
) -> Vec<InputError> {
    let mut work = value.clone();
    let mut errors = Vec::new();
    // (object, key) taken out, and the key an unknown field was probably meant to be.
    let mut taken: Vec<(FieldPath, String)> = Vec::new();
    while errors.len() < MOST {
        let Err(e) = serde_path_to_error::deserialize::<_, T>(&work) else {
            break;
        };
        let path = FieldPath::parse(&e.path().to_string());
        let message = serde_message(e.inner()).0;
        // A missing field cannot be put back: it is reported unless it is a cascade, and the
        // object that lacks it is taken out to read on. Anything else is taken out itself.
        let cascade = quoted(&message, "missing field `")
            .is_some_and(|field| taken.iter().any(|(at, k)| *at == path && *k == field));
        if !cascade {
            errors.push(placed(src, base.join(&path), message.clone()));
        }
        let (Some(Seg::Key(key)), Some(parent)) = (path.0.last().cloned(), path.parent()) else {
            break;
        };
        if let Some(meant) = quoted(&message, "unknown field `")
            .and_then(|field| closest(&field, &expected(&message)).map(str::to_string))
        {
            taken.push((parent.clone(), meant));
        }
        taken.push((parent.clone(), key.clone()));
        if !remove(&mut work, &parent, &key) {
            break;
        }
    }
    errors
}

fn placed(src: &Source, path: FieldPath, message: String) -> InputError {
    let position = src.position(&path);
    InputError::new(&src.path, Reason::InvalidField, message)
        .at(path)
        .at_position(position)
}

/// The name in `` prefix`name` ``.
fn quoted(message: &str, prefix: &str) -> Option<String> {
    let rest = message.strip_prefix(prefix)?;
    Some(rest.split('`').next()?.to_string())
}

/// The names serde lists after "expected one of" (or "expected").
pub(crate) fn expected(message: &str) -> Vec<&str> {
    let Some((_, list)) = message.split_once(", expected ") else {
        return Vec::new();
    };
    list.split('`').skip(1).step_by(2).collect()
}

/// Takes `key` out of the object at `parent`; false when there is no such object.
fn remove(value: &mut Value, parent: &FieldPath, key: &str) -> bool {
    let mut here = value;
    for seg in &parent.0 {
        here = match (seg, here) {
            (Seg::Key(k), Value::Object(m)) => match m.get_mut(k) {
                Some(v) => v,
                None => return false,
            },
            (Seg::Index(i), Value::Array(a)) => match a.get_mut(*i) {
                Some(v) => v,
                None => return false,
            },
            _ => return false,
        };
    }
    here.as_object_mut()
        .is_some_and(|m| m.remove(key).is_some())
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde::Deserialize;

    #[derive(Debug, Deserialize)]
    #[serde(deny_unknown_fields)]
    #[allow(dead_code)]
    struct Step {
        label: String,
        #[serde(default)]
        count: u32,
        #[serde(default)]
        kind: Option<Kind>,
    }

    #[derive(Debug, Deserialize)]
    #[serde(rename_all = "lowercase")]
    enum Kind {
        Click,
        Type,
    }

    fn errors(text: &str) -> Vec<(String, String)> {
        let src = Source::from_text("s.json", text);
        let value: Value = serde_json::from_str(text).unwrap();
        type_errors::<Step>(&src, &value, &FieldPath::root().key("steps").index(0))
            .into_iter()
            .map(|e| (e.path.to_string(), e.message))
            .collect()
    }

    #[test]
    fn several_errors_in_one_object_are_all_reported() {
        let found = errors(r#"{"label": "OK", "count": "two", "kind": "clik", "extra": 1}"#);
        let mut paths: Vec<&str> = found.iter().map(|(p, _)| p.as_str()).collect();
        paths.sort_unstable();
        assert_eq!(
            paths,
            ["steps[0].count", "steps[0].extra", "steps[0].kind"],
            "{found:?}"
        );
    }

    #[test]
    fn a_misspelt_required_field_is_one_error_not_two() {
        let found = errors(r#"{"labl": "OK"}"#);
        assert_eq!(found.len(), 1, "{found:?}");
        assert!(found[0].1.starts_with("unknown field `labl`"));
    }

    #[test]
    fn a_bad_required_field_is_not_reported_again_as_missing() {
        let found = errors(r#"{"label": 3}"#);
        assert_eq!(found.len(), 1, "{found:?}");
        assert!(found[0].1.starts_with("invalid type"), "{found:?}");
    }

    #[test]
    fn a_required_field_really_missing_is_reported() {
        let found = errors(r#"{"count": 1}"#);
        assert_eq!(
            found,
            [("steps[0]".to_string(), "missing field `label`".to_string())]
        );
    }

    #[test]
    fn a_valid_value_has_no_errors() {
        assert!(errors(r#"{"label": "OK", "kind": "type"}"#).is_empty());
    }
}
