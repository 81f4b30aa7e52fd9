//! Reading a plan file: bounded, UTF-8, schema first, then strict types, then lowering.

use std::path::Path;

use serde_json::Value;

use super::foxstep::{self, FoxPlan};
use super::lower::lower_foxstep;
use super::model::Plan;
use crate::errors::{FieldPath, InputError, Reason, Seg};
use crate::json::{Source, find_duplicate_key, parse_typed, parse_value, read_text};

/// The largest plan file accepted. Real plans are a few kB; this leaves room for huge guides.
pub const MAX_PLAN_BYTES: u64 = 4 * 1024 * 1024;

/// Reads a plan file's text within the size limit.
pub fn read_plan_source(path: &Path) -> Result<Source, InputError> {
    read_text(path, MAX_PLAN_BYTES)
}

/// Parses a Foxstep plan strictly: `invalid-json`, then `unsupported-schema`, then
/// `invalid-field` at the exact field path.
pub fn parse_foxstep(src: &Source) -> Result<FoxPlan, InputError> {
    let value = parse_value(src)?;
    check_schema(src, &value, foxstep::SCHEMA)?;
    let plan = parse_typed(src).map_err(explain)?;
    // Typed parsing refused repeats in typed objects; this finds those in free-form ones.
    if let Some((path, position)) = find_duplicate_key(&src.text) {
        let key = match path.0.last() {
            Some(Seg::Key(k)) => k.clone(),
            _ => String::new(),
        };
        return Err(InputError::new(
            &src.path,
            Reason::InvalidField,
            format!("duplicate key `{key}`"),
        )
        .at(path)
        .at_position(Some(position))
        .hint(format!(
            "keep one `{key}`: readers disagree on which of two repeats wins"
        )));
    }
    Ok(plan)
}

/// Puts serde's wording of a type error in the guide author's terms and adds a fix hint.
fn explain(mut e: InputError) -> InputError {
    if e.reason != Reason::InvalidField || e.hint.is_some() {
        return e;
    }
    for (rust, words) in [
        ("expected u8", "expected a whole number from 0 to 255"),
        ("expected u32", "expected a whole number"),
        ("expected f64", "expected a number"),
        ("expected a boolean", "expected true or false"),
        ("expected a sequence", "expected an array"),
        ("expected a map", "expected an object"),
    ] {
        e.message = e.message.replace(rust, words);
    }
    // `expected struct Click` names a Rust type; authors know it as an object.
    if let Some((head, tail)) = e.message.split_once("expected struct ")
        && !tail.contains(' ')
    {
        e.message = format!("{head}expected an object");
    }
    // A type error quotes the value; an example may be a sensitive input's, so never echo it.
    if matches!(e.path.0.last(), Some(Seg::Key(k)) if k == "example")
        && e.message.starts_with("invalid ")
    {
        e.message = "`example` must be a string".to_string();
        return e.hint("write the example as a string, or remove it");
    }
    let quoted = |prefix: &str| {
        e.message
            .strip_prefix(prefix)
            .and_then(|m| m.split('`').next())
            .map(str::to_string)
    };
    let hint = if let Some(field) = quoted("unknown field `") {
        format!("check the spelling: `{field}` is not a field of this object")
    } else if let Some(field) = quoted("missing field `") {
        format!("add `{field}`")
    } else if let Some(field) = quoted("duplicate field `") {
        format!("keep one `{field}`: readers disagree on which of two repeats wins")
    } else if e.message.starts_with("unknown variant") {
        "use one of the values listed".to_string()
    } else if let Some((_, expected)) = e.message.split_once(", expected ") {
        format!("write {expected} here")
    } else {
        "see the field table of foxstep-step-plan/1".to_string()
    };
    e.hint(hint)
}

fn check_schema(src: &Source, value: &Value, want: &str) -> Result<(), InputError> {
    let path = FieldPath::root().key("schema");
    let Some(obj) = value.as_object() else {
        return Err(src
            .error(
                FieldPath::root(),
                Reason::InvalidField,
                "a plan is a JSON object",
            )
            .hint(format!("start from an object with \"schema\": \"{want}\"")));
    };
    match obj.get("schema") {
        Some(Value::String(s)) if s == want => Ok(()),
        Some(Value::String(s)) => Err(src
            .error(
                path,
                Reason::UnsupportedSchema,
                format!("schema `{s}` is not supported"),
            )
            .hint(format!("this harness reads \"{want}\""))),
        Some(_) => Err(src
            .error(path, Reason::InvalidField, "`schema` must be a string")
            .hint(format!("write \"schema\": \"{want}\""))),
        None => Err(src
            .error(
                FieldPath::root(),
                Reason::UnsupportedSchema,
                "the plan has no `schema`",
            )
            .hint(format!("add \"schema\": \"{want}\""))),
    }
}

/// Loads and lowers a plan for replay. A plan that `check` would reject at error level
/// because it cannot be lowered is an `invalid-field` error here.
pub fn load_plan(path: &Path) -> Result<Plan, InputError> {
    plan_from_source(&read_plan_source(path)?)
}

/// [`load_plan`] on a source already read, for callers that also need its text (to place
/// their own errors at a step's line and column).
pub fn plan_from_source(src: &Source) -> Result<Plan, InputError> {
    let fox = parse_foxstep(src)?;
    let base = src.path.parent().unwrap_or(Path::new("."));
    lower_foxstep(&fox, base).map_err(|problems| {
        let first = &problems[0];
        let mut e = src.error(
            first.path.clone(),
            Reason::InvalidField,
            first.message.clone(),
        );
        e.hint = first.hint.clone();
        e
    })
}
