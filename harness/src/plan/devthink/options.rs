//! A step's `options`: a JSON *string* whose text is an object of the frozen option families.
//!
//! The text is parsed as its own document with the same strict readers as a plan file, so its
//! errors carry reason codes and field paths (`steps[2].options.pair`); their positions are
//! carried back to the file: the line and column of the offending character inside the
//! string as the file spells it, escapes counted.

// Family meanings are the schema's own descriptions (docs/dialects/).
#![allow(missing_docs)]

use serde::{Deserialize, Deserializer, Serialize};
use serde_json::{Map, Value};

use crate::errors::{FieldPath, InputError, Position, Reason};
use crate::json::{Source, parse_typed, parse_value, refuse_duplicate_keys};

/// The option families, each with the type the schema freezes. Object families are free-form
/// inside: the schema gives them no properties.
#[derive(Clone, Debug, Default, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct Options {
    pub targetref: Option<Map<String, Value>>,
    pub modifiers: Option<Vec<String>>,
    pub pipeline: Option<String>,
    pub pollrequest: Option<Map<String, Value>>,
    pub graphql: Option<Map<String, Value>>,
    pub correlation: Option<Map<String, Value>>,
    pub ocr: Option<bool>,
    pub vision: Option<Map<String, Value>>,
    pub ocrregion: Option<Map<String, Value>>,
    pub naming: Option<Naming>,
    pub pair: Option<Pair>,
    pub diff: Option<bool>,
    pub snapshot: Option<Map<String, Value>>,
    /// The families the text names, sorted (for the kind rule).
    #[serde(skip)]
    pub families: Vec<String>,
}

words! {
    /// The capture modes of `pair`: the seed names one.
    Pair {
        BeforeAfter = "beforeafter",
    }
}

/// A capture filename pattern: "lowercase", and a file name, never a path. Allowed: `a-z`,
/// `0-9`, `-`, `_`, `.` and `{placeholder}` with a lowercase word inside; not empty, not
/// starting with `.` (a hidden file). No `/` or `\`, so a name cannot leave its folder.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(transparent)]
pub struct Naming(pub String);

impl Naming {
    /// Why `s` is not a naming pattern, if it is not one.
    fn problem(s: &str) -> Option<String> {
        if s.is_empty() {
            return Some("the naming pattern is empty".into());
        }
        if s.starts_with('.') {
            return Some("the naming pattern starts with `.` (a hidden file)".into());
        }
        let mut in_braces = false;
        for c in s.chars() {
            let ok = match c {
                '{' => !std::mem::replace(&mut in_braces, true),
                '}' => std::mem::replace(&mut in_braces, false),
                'a'..='z' => true,
                '0'..='9' | '-' | '_' | '.' => !in_braces,
                _ => false,
            };
            if !ok {
                return Some(format!(
                    "`{}` is not allowed in a naming pattern",
                    c.escape_default()
                ));
            }
        }
        in_braces.then(|| "a `{` in the naming pattern is never closed".into())
    }
}

impl<'de> Deserialize<'de> for Naming {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let s = String::deserialize(d)?;
        match Naming::problem(&s) {
            Some(p) => Err(serde::de::Error::custom(p)),
            None => Ok(Naming(s)),
        }
    }
}

/// Parses the options string of the step at `at` (the path of its `options` field).
pub(crate) fn parse_options(
    src: &Source,
    at: &FieldPath,
    text: &str,
) -> Result<Options, InputError> {
    let inner = src.inner(text);
    let moved = |e: InputError| carry_back(src, at, e);
    let value = parse_value(&inner).map_err(moved)?;
    let Value::Object(map) = value else {
        return Err(src
            .error(
                at.clone(),
                Reason::InvalidField,
                "the options string must hold a JSON object",
            )
            .hint("write the text of an object, such as {\"pair\": \"beforeafter\"}, escaped"));
    };
    refuse_duplicate_keys(&inner).map_err(moved)?;
    let mut options: Options = parse_typed(&inner)
        .map_err(|e| {
            crate::plan::load::explain_as(e, "the option families are listed in docs/devthink.md")
        })
        .map_err(moved)?;
    options.families = map.keys().cloned().collect();
    Ok(options)
}

/// The file position of `inner` (a path inside the options text of the step at `at`).
pub(crate) fn locate_in_options(
    src: &Source,
    at: &FieldPath,
    text: &str,
    inner: &FieldPath,
) -> Option<Position> {
    let quote = src.position(at)?;
    Some(match crate::json::locate(text, inner) {
        Some(p) => in_file(&src.text, quote, p),
        None => quote,
    })
}

/// An error found inside the options text, moved to the file: its path under `at`, its
/// position to the character inside the string, and the position in the text in the message.
fn carry_back(src: &Source, at: &FieldPath, mut e: InputError) -> InputError {
    let quote = src.position(at);
    if let Some(inner) = e.position {
        e.message = format!(
            "{} (line {}, column {} of the options text)",
            e.message, inner.line, inner.column
        );
    }
    e.position = match (quote, e.position) {
        (Some(q), Some(inner)) => Some(in_file(&src.text, q, inner)),
        (q, _) => q,
    };
    e.path = at.join(&e.path);
    if e.reason == Reason::InvalidJson {
        e.hint = Some("the options string must hold JSON text: fix it inside the quotes".into());
    }
    e
}

/// The file position of `inner` (a line and column of the decoded string whose opening quote
/// is at `quote`). A JSON string holds no raw line breaks, so it stays on the quote's line.
fn in_file(text: &str, quote: Position, inner: Position) -> Position {
    let Some(start) = offset_of(text, quote) else {
        return quote;
    };
    let mut raw = text[start + 1..].chars();
    let (mut line, mut column, mut used) = (1, 1, 0);
    while (line, column) < (inner.line, inner.column) {
        let (len, newline) = match raw.next() {
            None | Some('"') => break,
            Some('\\') => match raw.next() {
                Some('u') => {
                    let hex: String = raw.by_ref().take(4).collect();
                    let code = u32::from_str_radix(&hex, 16).unwrap_or(0);
                    // A surrogate pair is two escapes for one character.
                    if (0xD800..0xDC00).contains(&code) {
                        raw.by_ref().take(6).for_each(drop);
                        (12, false)
                    } else {
                        (6, code == 0x0A)
                    }
                }
                Some(c) => (2, c == 'n'),
                None => break,
            },
            Some(_) => (1, false),
        };
        used += len;
        if newline {
            line += 1;
            column = 1;
        } else {
            column += 1;
        }
    }
    Position {
        line: quote.line,
        column: quote.column + 1 + used,
    }
}

/// The byte offset of a line and character column.
fn offset_of(text: &str, p: Position) -> Option<usize> {
    let line_start = match p.line {
        0 => return None,
        1 => 0,
        n => text.match_indices('\n').nth(n - 2)?.0 + 1,
    };
    text[line_start..]
        .char_indices()
        .nth(p.column.checked_sub(1)?)
        .map(|(i, _)| line_start + i)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(options: &str) -> Result<Options, InputError> {
        let text = serde_json::json!({ "options": options }).to_string();
        let src = Source::from_text("p.json", text);
        parse_options(&src, &FieldPath::root().key("options"), options)
    }

    #[test]
    fn positions_inside_the_string_count_escapes() {
        // `{"pair": 1}` spelled with escaped quotes: the `1` is at column 24 of the file.
        let e = parse("{\"pair\": 1}").unwrap_err();
        assert_eq!(e.path.to_string(), "options.pair");
        let file = r#"{"options":"{\"pair\": 1}"}"#;
        assert_eq!(file.find('1').unwrap() + 1, 24);
        assert_eq!(e.position.map(|p| p.column), Some(24));
        assert!(
            e.message
                .ends_with("(line 1, column 10 of the options text)"),
            "{}",
            e.message
        );
    }

    #[test]
    fn naming_patterns() {
        for ok in ["before-{step}.png", "run_{n}_shot", "a.b"] {
            assert_eq!(Naming::problem(ok), None, "{ok}");
        }
        for bad in [
            "", ".hidden", "Shot", "a/b", "{step", "{st-ep}", "a}", "{{a}}",
        ] {
            assert!(Naming::problem(bad).is_some(), "{bad}");
        }
    }
}
