//! Reading a plan file: bounded, UTF-8, schema first, then strict types, then lowering.

use std::path::Path;

use serde_json::Value;

use super::foxstep::{self, FoxPlan};
use super::lower::lower_foxstep;
use super::model::Plan;
use crate::errors::{FieldPath, InputError, Reason};
use crate::json::{Source, parse_typed, parse_value, read_text};

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
    parse_typed(src)
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
        Some(_) => Err(src.error(path, Reason::InvalidField, "`schema` must be a string")),
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
    let src = read_plan_source(path)?;
    let fox = parse_foxstep(&src)?;
    let base = path.parent().unwrap_or(Path::new("."));
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
