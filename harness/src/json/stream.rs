//! Reading a JSON document too large to hold: an object whose one big array (a report's
//! `scenarios`) is handed over an element at a time, in two passes over the file — first
//! everything else (the array skipped without being kept), then the array's elements. Each
//! top-level value and each element is bounded on its own ([`Capped`]), so the file's size
//! is not; what is held is one element and the rest of the object.

use std::cell::Cell;
use std::io::{BufReader, Read};
use std::path::Path;
use std::rc::Rc;

use serde::de::{self, DeserializeOwned, DeserializeSeed, IgnoredAny, MapAccess, SeqAccess};
use serde_json::{Map, Value};

use super::read::{open_regular, serde_message};
use crate::errors::{FieldPath, InputError, Reason};

/// How many bytes the value being read has taken, and its cap; `None` while nothing is kept
/// (a value being skipped).
#[derive(Clone, Default)]
struct Budget(Rc<Cell<(u64, Option<u64>)>>);

impl Budget {
    fn start(&self, cap: Option<u64>) {
        self.0.set((0, cap));
    }
}

/// A reader that fails once the value being read passes its cap: the cap holds while the
/// value is read, not after it is in memory. It hashes the bytes it passes on (FNV-1a), so
/// a reader can name the very bytes it read.
struct Capped<R> {
    inner: R,
    budget: Budget,
    hash: u64,
}

/// The error [`Capped`] stops with (its kind, `FileTooLarge`, is how it is found again).
#[derive(Debug)]
struct OverCap(u64);

impl std::fmt::Display for OverCap {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "over the limit of {} bytes", self.0)
    }
}

impl std::error::Error for OverCap {}

impl<R: Read> Read for Capped<R> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        let n = self.inner.read(buf)?;
        self.hash = crate::fnv::fnv1a64_from(self.hash, &buf[..n]);
        let (used, cap) = self.budget.0.get();
        let used = used + n as u64;
        self.budget.0.set((used, cap));
        match cap {
            Some(cap) if used > cap => Err(std::io::Error::new(
                std::io::ErrorKind::FileTooLarge,
                OverCap(cap),
            )),
            _ => Ok(n),
        }
    }
}

/// Reads everything in the object at `path` but its `key` array (skipped, not kept), each
/// top-level value at most `cap` bytes. A key given twice is refused.
pub(crate) fn read_object_without(
    path: &Path,
    key: &str,
    cap: u64,
) -> Result<Map<String, Value>, InputError> {
    read_object_hashed(path, key, cap).map(|(head, _)| head)
}

/// [`read_object_without`] and the FNV-1a hash of the bytes read (the whole file).
pub(crate) fn read_object_hashed(
    path: &Path,
    key: &str,
    cap: u64,
) -> Result<(Map<String, Value>, u64), InputError> {
    let mut out = Map::new();
    let mut none = |_: Option<String>, _: IgnoredAny| Ok::<(), InputError>(());
    let hash = pass(path, key, cap, false, Some(&mut out), &mut none)?;
    Ok((out, hash))
}

/// Hands each element of the `key` array of the object at `path` to `f`, in file order, as
/// a `T`; each at most `cap` bytes. `f`'s own error stops the read and is returned as it is.
pub(crate) fn read_array_of<T: DeserializeOwned, E: From<InputError>>(
    path: &Path,
    key: &str,
    cap: u64,
    f: &mut dyn FnMut(T) -> Result<(), E>,
) -> Result<(), E> {
    pass(path, key, cap, false, None, &mut |_, v| f(v)).map(|_| ())
}

/// Hands each member of the `key` object of the object at `path` to `f` (its name and its
/// value as a `T`), in file order, each value at most `cap` bytes; returns the FNV-1a hash
/// of the bytes read (the whole file). A name given twice is `f`'s to refuse.
pub(crate) fn read_members_of<T: DeserializeOwned, E: From<InputError>>(
    path: &Path,
    key: &str,
    cap: u64,
    f: &mut dyn FnMut(String, T) -> Result<(), E>,
) -> Result<u64, E> {
    pass(path, key, cap, true, None, &mut |k, v| {
        f(k.unwrap_or_default(), v)
    })
}

/// One pass: the rest of the object into `head` when given, else the big value's elements
/// (an array's, with no name) or members (an object's, with their names) to `f`. Returns the
/// hash of the bytes read.
fn pass<T: DeserializeOwned, E: From<InputError>>(
    path: &Path,
    key: &str,
    cap: u64,
    members: bool,
    head: Option<&mut Map<String, Value>>,
    f: &mut dyn FnMut(Option<String>, T) -> Result<(), E>,
) -> Result<u64, E> {
    let (file, _) = open_regular(path)?;
    let budget = Budget::default();
    let mut reader = Capped {
        inner: BufReader::with_capacity(1 << 16, file),
        budget: budget.clone(),
        hash: crate::fnv::fnv1a64(&[]),
    };
    let mut de = serde_json::Deserializer::from_reader(&mut reader);
    let mut st = State {
        key,
        cap,
        budget,
        at: FieldPath::root(),
        members: head.is_none() && members,
        head,
        f,
        caller: None,
    };
    let r = (&mut st).deserialize(&mut de).and_then(|()| de.end());
    match (r, st.caller.take()) {
        (Ok(()), _) => {}
        (Err(_), Some(e)) => return Err(e),
        (Err(e), None) => return Err(json_error(path, &e, &st.at).into()),
    }
    drop(de);
    Ok(reader.hash)
}

/// serde_json's error as an input error at its line and column and the field path read.
fn json_error(path: &Path, e: &serde_json::Error, at: &FieldPath) -> InputError {
    let (msg, position) = serde_message(e);
    let (reason, message, hint) = if e.io_error_kind() == Some(std::io::ErrorKind::FileTooLarge) {
        (
            Reason::LimitExceeded,
            format!("this value is {msg}"),
            "is this the right file? The limit keeps one entry from exhausting memory",
        )
    } else if e.is_io() {
        (
            Reason::InvalidArgument,
            format!("cannot read: {msg}"),
            "check the file's permissions",
        )
    } else if msg == "recursion limit exceeded" {
        (
            Reason::LimitExceeded,
            format!(
                "the JSON nests deeper than {} levels",
                crate::limits::JSON_DEPTH
            ),
            "no valid file nests this deep: is it generated by mistake?",
        )
    } else if e.is_eof() {
        (
            Reason::InvalidJson,
            msg,
            "the file ends early: is it truncated?",
        )
    } else if e.is_syntax() {
        (
            Reason::InvalidJson,
            msg,
            "fix the JSON syntax at this position",
        )
    } else {
        (Reason::InvalidField, msg, "")
    };
    let err = InputError::new(path, reason, message)
        .at_position(position)
        .at(at.clone());
    if hint.is_empty() { err } else { err.hint(hint) }
}

/// A pass's state, shared by the object's and the array's visitors.
struct State<'p, T, E> {
    key: &'p str,
    cap: u64,
    budget: Budget,
    /// The field being read, for an error.
    at: FieldPath,
    head: Option<&'p mut Map<String, Value>>,
    f: &'p mut dyn FnMut(Option<String>, T) -> Result<(), E>,
    /// The error `f` stopped with.
    caller: Option<E>,
    /// The big value is an object (its members are read), not an array.
    members: bool,
}

impl<'de, T: DeserializeOwned, E> DeserializeSeed<'de> for &mut State<'_, T, E> {
    type Value = ();

    fn deserialize<D: de::Deserializer<'de>>(self, d: D) -> Result<(), D::Error> {
        d.deserialize_map(self)
    }
}

impl<'de, T: DeserializeOwned, E> de::Visitor<'de> for &mut State<'_, T, E> {
    type Value = ();

    fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        f.write_str("a JSON object")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<(), A::Error> {
        let mut seen = std::collections::BTreeSet::new();
        loop {
            self.budget.start(Some(self.cap));
            self.at = FieldPath::root();
            let Some(k) = map.next_key::<String>()? else {
                return Ok(());
            };
            self.at = FieldPath::root().key(&k);
            if !seen.insert(k.clone()) {
                return Err(de::Error::custom(format!("duplicate key `{k}`")));
            }
            let big = k == self.key;
            match self.head.as_deref_mut() {
                Some(out) if big => {
                    self.budget.start(None);
                    map.next_value::<IgnoredAny>()?;
                    out.insert(k, Value::Array(Vec::new()));
                }
                Some(out) => {
                    let v: Value = map.next_value()?;
                    out.insert(k, v);
                }
                None if big => map.next_value_seed(Elements(&mut *self))?,
                None => {
                    self.budget.start(None);
                    map.next_value::<IgnoredAny>()?;
                }
            }
        }
    }
}

/// The big array, an element at a time.
struct Elements<'s, 'p, T, E>(&'s mut State<'p, T, E>);

impl<'de, T: DeserializeOwned, E> DeserializeSeed<'de> for Elements<'_, '_, T, E> {
    type Value = ();

    fn deserialize<D: de::Deserializer<'de>>(self, d: D) -> Result<(), D::Error> {
        if self.0.members {
            d.deserialize_map(self)
        } else {
            d.deserialize_seq(self)
        }
    }
}

impl<'de, T: DeserializeOwned, E> de::Visitor<'de> for Elements<'_, '_, T, E> {
    type Value = ();

    fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        f.write_str(if self.0.members {
            "an object"
        } else {
            "an array"
        })
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<(), A::Error> {
        let st = self.0;
        let base = st.at.clone();
        loop {
            st.budget.start(Some(st.cap));
            st.at = base.clone();
            let Some(k) = map.next_key::<String>()? else {
                break;
            };
            st.at = base.key(&k);
            let v = map.next_value_seed(Tracked(&mut st.at, std::marker::PhantomData))?;
            if let Err(e) = (st.f)(Some(k), v) {
                st.caller = Some(e);
                return Err(de::Error::custom("stopped by the reader"));
            }
        }
        st.at = base;
        Ok(())
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<(), A::Error> {
        let st = self.0;
        let base = st.at.clone();
        for i in 0.. {
            st.budget.start(Some(st.cap));
            st.at = base.index(i);
            let Some(v) = seq.next_element_seed(Tracked(&mut st.at, std::marker::PhantomData))?
            else {
                break;
            };
            if let Err(e) = (st.f)(None, v) {
                st.caller = Some(e);
                return Err(de::Error::custom("stopped by the reader"));
            }
        }
        st.at = base;
        Ok(())
    }
}

/// An element read with its inner field path tracked, so a type error names the field.
struct Tracked<'a, T>(&'a mut FieldPath, std::marker::PhantomData<T>);

impl<'de, T: DeserializeOwned> DeserializeSeed<'de> for Tracked<'_, T> {
    type Value = T;

    fn deserialize<D: de::Deserializer<'de>>(self, d: D) -> Result<T, D::Error> {
        serde_path_to_error::deserialize(d).map_err(|e| {
            *self.0 = self.0.join(&FieldPath::parse(&e.path().to_string()));
            e.into_inner()
        })
    }
}

/// `value` as a `T`; a type error names the field (no position: the value is not text).
pub(crate) fn typed_from_value<T: DeserializeOwned>(
    path: &Path,
    value: Value,
) -> Result<T, InputError> {
    serde_path_to_error::deserialize(value).map_err(|e| {
        InputError::new(path, Reason::InvalidField, serde_message(e.inner()).0)
            .at(FieldPath::parse(&e.path().to_string()))
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde::Deserialize;

    #[derive(Debug, Deserialize, PartialEq)]
    #[serde(deny_unknown_fields)]
    struct Entry {
        id: String,
        n: u32,
    }

    fn file(name: &str, text: &str) -> std::path::PathBuf {
        let dir = std::env::temp_dir().join(format!("stepreplay-stream-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let p = dir.join(name);
        std::fs::write(&p, text).unwrap();
        p
    }

    fn entries(path: &Path, cap: u64) -> Result<Vec<Entry>, InputError> {
        let mut v = Vec::new();
        read_array_of(path, "items", cap, &mut |e: Entry| {
            v.push(e);
            Ok::<(), InputError>(())
        })?;
        Ok(v)
    }

    #[test]
    fn the_head_and_the_entries_are_read_in_two_passes() {
        let p = file(
            "ok.json",
            r#"{"a": 1, "items": [{"id": "x", "n": 1}, {"id": "y", "n": 2}], "z": {"k": [1, 2]}}"#,
        );
        let head = read_object_without(&p, "items", 1 << 10).unwrap();
        assert_eq!(
            Value::Object(head),
            serde_json::json!({"a": 1, "items": [], "z": {"k": [1, 2]}})
        );
        let got = entries(&p, 1 << 10).unwrap();
        assert_eq!(got.iter().map(|e| e.n).collect::<Vec<_>>(), [1, 2]);
    }

    #[test]
    fn an_entry_over_its_cap_is_refused_while_it_is_read_but_the_file_is_not_capped() {
        // Ten entries of ~40 bytes each under a cap of 64: the file (~400 bytes) is over it,
        // no entry is.
        let items: Vec<String> = (0..10)
            .map(|i| format!(r#"{{"id": "{:0>20}", "n": {i}}}"#, i))
            .collect();
        let p = file(
            "many.json",
            &format!(r#"{{"items": [{}]}}"#, items.join(", ")),
        );
        assert_eq!(entries(&p, 64).unwrap().len(), 10);
        assert!(read_object_without(&p, "items", 64).is_ok());
        let big = format!(r#"{{"id": "{}", "n": 1}}"#, "x".repeat(100));
        let p = file(
            "big.json",
            &format!(r#"{{"items": [{}, {big}]}}"#, items[0]),
        );
        let e = entries(&p, 64).unwrap_err();
        assert_eq!(e.reason, Reason::LimitExceeded, "{e}");
        assert!(e.path.to_string().starts_with("items[1]"), "{e}");
        // Another top-level value is capped too.
        let p = file(
            "bighead.json",
            &format!(r#"{{"note": "{}", "items": []}}"#, "x".repeat(100)),
        );
        let e = read_object_without(&p, "items", 64).unwrap_err();
        assert_eq!(
            (e.reason, e.path.to_string()),
            (Reason::LimitExceeded, "note".into())
        );
    }

    #[test]
    fn bad_input_names_its_line_column_and_field() {
        let p = file(
            "type.json",
            "{\"items\": [\n{\"id\": \"x\", \"n\": 1},\n{\"id\": \"y\", \"n\": \"two\"}]}",
        );
        let e = entries(&p, 1 << 10).unwrap_err();
        assert_eq!(e.reason, Reason::InvalidField, "{e}");
        assert_eq!(e.path.to_string(), "items[1].n", "{e}");
        assert_eq!(e.position.map(|p| p.line), Some(3), "{e}");
        let p = file(
            "cut.json",
            "{\"items\": [{\"id\": \"x\", \"n\": 1}, {\"id\"",
        );
        let e = entries(&p, 1 << 10).unwrap_err();
        assert_eq!(e.reason, Reason::InvalidJson, "{e}");
        assert!(
            e.hint.as_deref().is_some_and(|h| h.contains("truncated")),
            "{e}"
        );
        let p = file("dup.json", r#"{"a": 1, "items": [], "a": 2}"#);
        let e = read_object_without(&p, "items", 1 << 10).unwrap_err();
        assert!(e.message.contains("duplicate key `a`"), "{e}");
        let p = file("array.json", "[1, 2]");
        assert_eq!(
            read_object_without(&p, "items", 1 << 10)
                .unwrap_err()
                .reason,
            Reason::InvalidField
        );
    }

    #[test]
    fn an_objects_members_come_with_their_names_and_the_hash_is_the_files() {
        let text = r#"{"a": 1, "items": {"x": {"id": "x", "n": 1}, "y": {"id": "y", "n": 2}}}"#;
        let p = file("members.json", text);
        let mut got = Vec::new();
        let hash = read_members_of(&p, "items", 1 << 10, &mut |k, e: Entry| {
            got.push((k, e.n));
            Ok::<(), InputError>(())
        })
        .unwrap();
        assert_eq!(got, [("x".to_string(), 1), ("y".to_string(), 2)]);
        assert_eq!(hash, crate::fnv::fnv1a64(text.as_bytes()));
        let (head, head_hash) = read_object_hashed(&p, "items", 1 << 10).unwrap();
        assert_eq!((head["a"].as_u64(), head_hash), (Some(1), hash));
        // Each member is capped and named by its path; an array where members are read is
        // refused, as an object is where elements are.
        let big = format!(
            r#"{{"items": {{"x": {{"id": "{}", "n": 1}}}}}}"#,
            "x".repeat(100)
        );
        let e = read_members_of(&file("bigm.json", &big), "items", 64, &mut |_, _: Entry| {
            Ok::<(), InputError>(())
        })
        .unwrap_err();
        assert_eq!(e.reason, Reason::LimitExceeded, "{e}");
        assert!(e.path.to_string().starts_with("items.x"), "{e}");
        let bad = file("typem.json", r#"{"items": {"x": {"id": "x", "n": "one"}}}"#);
        let e = read_members_of(&bad, "items", 1 << 10, &mut |_, _: Entry| {
            Ok::<(), InputError>(())
        })
        .unwrap_err();
        assert_eq!(e.path.to_string(), "items.x.n", "{e}");
        let arr = file("arrm.json", r#"{"items": [{"id": "x", "n": 1}]}"#);
        assert!(
            read_members_of(&arr, "items", 1 << 10, &mut |_, _: Entry| {
                Ok::<(), InputError>(())
            })
            .is_err()
        );
        assert!(entries(&p, 1 << 10).is_err());
    }

    #[test]
    fn the_callers_error_stops_the_read_and_comes_back_as_it_is() {
        let p = file(
            "stop.json",
            r#"{"items": [{"id": "x", "n": 1}, {"id": "y", "n": 2}, {"id": "z", "n": 3}]}"#,
        );
        let mut seen = 0;
        let e = read_array_of(&p, "items", 1 << 10, &mut |e: Entry| {
            seen += 1;
            if e.id == "y" {
                return Err(InputError::new(
                    "mine",
                    Reason::InvalidArgument,
                    "stop here",
                ));
            }
            Ok(())
        })
        .unwrap_err();
        assert_eq!((seen, e.message.as_str()), (2, "stop here"));
    }
}
