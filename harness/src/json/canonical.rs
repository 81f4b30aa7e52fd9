//! The canonical JSON layout (the layout of the Foxstep seed plan).
//!
//! Keys sorted by code point; two-space indent; `": "` after keys; a container whose members
//! are all scalars (or that is empty) goes on one line when that whole line — indentation, key
//! and trailing comma included — is at most 80 characters; every other container puts one
//! member per line. Strings keep non-ASCII text as is; numbers use the shortest form that
//! round-trips. The output ends with a newline. One writer serves plans, reports and every
//! other file we write, so "canonical" means one thing in this project.

use serde::Serialize;
use serde_json::Value;

const MAX_LINE: usize = 80;

/// Renders a JSON value in canonical form.
pub fn to_canonical(v: &Value) -> String {
    let mut out = String::new();
    write_value(&mut out, v, 0, 0, false);
    out.push('\n');
    out
}

/// Serializes any value and renders it in canonical form.
pub(crate) fn to_canonical_value<T: Serialize>(v: &T) -> String {
    // Serializing plain data into a `Value` only fails for maps with non-string keys,
    // which none of our types have.
    let value = serde_json::to_value(v).unwrap_or(Value::Null);
    to_canonical(&value)
}

/// Takes the items [`write_canonical_spliced`] writes, one at a time: each with its name when
/// the spliced member is an object, without when it is an array.
pub(crate) type Visit<'a, E> = dyn FnMut(Option<&str>, Value) -> Result<(), E> + 'a;

/// Writes `head` in canonical form to `out`, its member `key` (an array or an object, empty
/// in `head`) filled with the `count` items `each` hands over, in order (an object's by
/// name, as canonical order sorts them): the same bytes as [`to_canonical_value`] of the
/// whole, but only one item is ever held as a `Value`. A report of a thousand scenarios is a
/// few hundred MB of JSON and several times that as one `Value` tree; written this way its
/// size costs nothing.
pub(crate) fn write_canonical_spliced<T: Serialize, E>(
    head: &T,
    key: &str,
    count: usize,
    each: &mut dyn FnMut(&mut Visit<E>) -> Result<(), E>,
    out: &mut impl std::io::Write,
    io: impl Fn(std::io::Error) -> E,
) -> Result<(), E> {
    let value = serde_json::to_value(head).unwrap_or(Value::Null);
    // The brackets of `key`'s member when it is an empty list to fill.
    let brackets = match value.as_object().and_then(|map| map.get(key)) {
        Some(Value::Array(a)) if a.is_empty() => Some(('[', ']')),
        Some(Value::Object(o)) if o.is_empty() => Some(('{', '}')),
        _ => None,
    };
    let (spliced, (open, close)) = match (&value, brackets) {
        (Value::Object(map), Some(brackets)) if count > 0 => (map, brackets),
        // No items, or `head` not of the expected shape: the whole, the items under `key`.
        _ => {
            let whole = match &value {
                Value::Object(map) => {
                    let mut map = map.clone();
                    let (mut list, mut named) = (Vec::new(), serde_json::Map::new());
                    each(&mut |name, v| {
                        match name {
                            Some(name) => named.insert(name.to_string(), v),
                            None => {
                                list.push(v);
                                None
                            }
                        };
                        Ok(())
                    })?;
                    let items = match map.get(key) {
                        Some(Value::Object(_)) => Value::Object(named),
                        _ => Value::Array(list),
                    };
                    map.insert(key.to_string(), items);
                    Value::Object(map)
                }
                _ => value.clone(),
            };
            return out.write_all(to_canonical(&whole).as_bytes()).map_err(io);
        }
    };
    // An object holding a non-empty list of containers is never one line, nor is the list.
    let mut buf = String::from("{\n");
    let members = sorted(spliced);
    let n = members.len();
    for (i, (k, member)) in members.into_iter().enumerate() {
        let last = i + 1 == n;
        indent(&mut buf, 1);
        let name = scalar(&Value::String(k.clone()));
        buf.push_str(&name);
        buf.push_str(": ");
        if k == key {
            buf.push(open);
            buf.push('\n');
            let mut j = 0;
            each(&mut |item, v| {
                j += 1;
                let more = j < count;
                indent(&mut buf, 2);
                let mut prefix = 4;
                if let Some(item) = item {
                    let item = scalar(&Value::String(item.to_string()));
                    prefix += item.chars().count() + 2;
                    buf.push_str(&item);
                    buf.push_str(": ");
                }
                write_value(&mut buf, &v, 2, prefix, more);
                buf.push_str(if more { ",\n" } else { "\n" });
                out.write_all(buf.as_bytes()).map_err(&io)?;
                buf.clear();
                Ok(())
            })?;
            indent(&mut buf, 1);
            buf.push(close);
        } else {
            let prefix = 2 + name.chars().count() + 2;
            write_value(&mut buf, member, 1, prefix, !last);
        }
        buf.push_str(if last { "\n" } else { ",\n" });
    }
    buf.push_str("}\n");
    out.write_all(buf.as_bytes()).map_err(io)
}

/// Rounds a score or ratio to the fixed number of decimals reports carry (6), so that
/// float noise never changes report bytes.
pub fn round(x: f64) -> f64 {
    if !x.is_finite() {
        return 0.0;
    }
    let r = (x * 1e6).round() / 1e6;
    if r == 0.0 { 0.0 } else { r }
}

fn is_scalar(v: &Value) -> bool {
    !matches!(v, Value::Array(_) | Value::Object(_))
}

fn scalar(v: &Value) -> String {
    // Scalars never fail to serialize.
    serde_json::to_string(v).unwrap_or_default()
}

fn sorted(map: &serde_json::Map<String, Value>) -> Vec<(&String, &Value)> {
    let mut members: Vec<_> = map.iter().collect();
    members.sort_by(|a, b| a.0.cmp(b.0));
    members
}

/// The one-line form of a container of scalars, or `None` when it holds a container.
fn one_line(v: &Value) -> Option<String> {
    match v {
        Value::Array(items) if items.iter().all(is_scalar) => {
            let inner: Vec<String> = items.iter().map(scalar).collect();
            Some(format!("[{}]", inner.join(", ")))
        }
        Value::Object(map) if map.values().all(is_scalar) => {
            if map.is_empty() {
                return Some("{}".to_string());
            }
            let inner: Vec<String> = sorted(map)
                .into_iter()
                .map(|(k, v)| format!("{}: {}", scalar(&Value::String(k.clone())), scalar(v)))
                .collect();
            Some(format!("{{ {} }}", inner.join(", ")))
        }
        _ => None,
    }
}

fn indent(out: &mut String, level: usize) {
    for _ in 0..level {
        out.push_str("  ");
    }
}

/// Writes `v` whose line already holds `prefix_chars` characters (indent and key).
fn write_value(out: &mut String, v: &Value, level: usize, prefix_chars: usize, comma: bool) {
    if is_scalar(v) {
        out.push_str(&scalar(v));
        return;
    }
    if let Some(line) = one_line(v) {
        let width = prefix_chars + line.chars().count() + usize::from(comma);
        if width <= MAX_LINE {
            out.push_str(&line);
            return;
        }
    }
    match v {
        Value::Array(items) => {
            out.push_str("[\n");
            for (i, item) in items.iter().enumerate() {
                let last = i + 1 == items.len();
                indent(out, level + 1);
                write_value(out, item, level + 1, (level + 1) * 2, !last);
                if !last {
                    out.push(',');
                }
                out.push('\n');
            }
            indent(out, level);
            out.push(']');
        }
        Value::Object(map) => {
            out.push_str("{\n");
            let members = sorted(map);
            let n = members.len();
            for (i, (k, item)) in members.into_iter().enumerate() {
                let last = i + 1 == n;
                indent(out, level + 1);
                let key = scalar(&Value::String(k.clone()));
                out.push_str(&key);
                out.push_str(": ");
                let prefix = (level + 1) * 2 + key.chars().count() + 2;
                write_value(out, item, level + 1, prefix, !last);
                if !last {
                    out.push(',');
                }
                out.push('\n');
            }
            indent(out, level);
            out.push('}');
        }
        _ => unreachable!("scalars returned above"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn spliced_writing_gives_the_same_bytes() {
        #[derive(Serialize, Clone)]
        struct Doc {
            name: String,
            rows: Vec<Value>,
            zeta: Vec<u8>,
        }
        let rows = [
            json!({"id": "a", "score": 0.5, "steps": [{"n": 1, "ok": true}, {"n": 2}]}),
            json!({"id": "b", "long": "x".repeat(90), "tags": ["p", "q"]}),
            json!(3),
            json!([]),
        ];
        for n in 0..=rows.len() {
            let whole = Doc {
                name: "ü".into(),
                rows: rows[..n].to_vec(),
                zeta: vec![1, 2],
            };
            let head = Doc {
                rows: Vec::new(),
                ..whole.clone()
            };
            let mut out = Vec::new();
            spliced(&head, &rows[..n], &mut out);
            assert_eq!(
                String::from_utf8(out).unwrap(),
                to_canonical_value(&whole),
                "{n} rows"
            );
        }
        // A key the head lacks: the items are not lost.
        let mut out = Vec::new();
        spliced(&json!({"a": 1}), &rows[2..3], &mut out);
        let want = to_canonical(&json!({"a": 1, "rows": [3]}));
        assert_eq!(String::from_utf8(out).unwrap(), want);
    }

    fn spliced(head: &impl Serialize, rows: &[Value], out: &mut Vec<u8>) {
        let each =
            &mut |f: &mut Visit<std::io::Error>| rows.iter().try_for_each(|r| f(None, r.clone()));
        write_canonical_spliced(head, "rows", rows.len(), each, out, |e| e).unwrap();
    }

    #[test]
    fn scalar_containers_fit_on_one_line() {
        let v =
            json!({"point": {"y": 0.057, "x": 0.325}, "reads": ["client-email"], "e": [], "o": {}});
        assert_eq!(
            to_canonical(&v),
            "{\n  \"e\": [],\n  \"o\": {},\n  \"point\": { \"x\": 0.325, \"y\": 0.057 },\n  \"reads\": [\"client-email\"]\n}\n"
        );
    }

    #[test]
    fn a_line_over_80_columns_breaks() {
        let long = "x".repeat(70);
        let v = json!({"a": {"k": long}});
        let out = to_canonical(&v);
        assert!(out.contains("\"a\": {\n    \"k\": \""), "{out}");
    }

    #[test]
    fn the_trailing_comma_counts_toward_the_limit() {
        // `  "a": ["…"]` is exactly 80 characters without a comma and 81 with one.
        let s = "y".repeat(80 - 2 - 5 - 4);
        let v = json!({"a": [s], "b": 1});
        assert!(to_canonical(&v).contains("\"a\": [\n"));
        let v = json!({"a": [s]});
        assert!(to_canonical(&v).contains(&format!("\"a\": [\"{s}\"]\n")));
    }

    #[test]
    fn containers_of_containers_never_share_a_line() {
        let v = json!([[1]]);
        assert_eq!(to_canonical(&v), "[\n  [1]\n]\n");
    }

    #[test]
    fn non_ascii_is_kept_and_counted_as_characters() {
        let v = json!({"text": "Click “Send”"});
        assert_eq!(to_canonical(&v), "{ \"text\": \"Click “Send”\" }\n");
        // 60 curly quotes are 60 characters but 180 bytes: still one line.
        let v = json!({"t": "”".repeat(60)});
        assert_eq!(to_canonical(&v).lines().count(), 1);
    }

    #[test]
    fn rounding_is_fixed_and_has_no_negative_zero() {
        assert_eq!(round(0.1234567), 0.123457);
        assert_eq!(round(-0.0000001).to_string(), "0");
        assert_eq!(round(f64::NAN), 0.0);
    }
}
