//! Recognising a protocolv2 plan and parsing it strictly: `invalid-json`, then
//! `unsupported-schema` for a `$schema` naming another contract, then `invalid-field` at the
//! exact field path (plan, steps, the `origin`, and each step's options text).

use serde_json::Value;

use super::model::{DevPlan, DevStep};
use super::options::parse_options;
use super::origin::Origin;
use crate::errors::{FieldPath, InputError, Reason, Seg};
use crate::json::{Source, parse_typed, parse_value};
use crate::plan::load::{beside, each_element, explain_as, without_lists, worth_collecting};

/// The schema's `$id`, which a plan may name in `$schema`.
pub(crate) const SCHEMA_ID: &str = "devthink/protocolv2/plan.schema.json";

/// Required plan fields no Foxstep plan has. Two of them are the plan's shape: one stray field
/// in a Foxstep plan that lost its `schema` must still get Foxstep's `unsupported-schema`.
const OWN_FIELDS: &[&str] = &["objective", "origin", "createdat", "expiresat", "state"];

/// Where the hints send an author.
const DOCS: &str = "see the plan and step fields in docs/devthink.md";

/// Whether a parsed file is a protocolv2 plan: an object without Foxstep's `schema` that names
/// the protocolv2 schema in `$schema` or has at least two of its own required fields.
pub(crate) fn is_protocolv2(value: &Value) -> bool {
    let Some(obj) = value.as_object() else {
        return false;
    };
    if obj.contains_key("schema") {
        return false;
    }
    obj.get("$schema").and_then(Value::as_str) == Some(SCHEMA_ID)
        || OWN_FIELDS.iter().filter(|f| obj.contains_key(**f)).count() >= 2
}

/// Parses a protocolv2 plan strictly, options included.
pub(crate) fn parse_protocolv2(src: &Source) -> Result<DevPlan, InputError> {
    let value = parse_value(src)?;
    let schema_at = FieldPath::root().key("$schema");
    if let Some(Value::String(s)) = value.get("$schema")
        && s != SCHEMA_ID
    {
        return Err(src
            .error(
                schema_at,
                Reason::UnsupportedSchema,
                format!("schema `{s}` is not supported"),
            )
            .hint(format!("this harness reads \"{SCHEMA_ID}\"")));
    }
    refuse_nulls(src, &value)?;
    let mut plan: DevPlan = parse_typed(src).map_err(|e| explain(e, DOCS))?;
    let origin_at = FieldPath::root().key("origin");
    Origin::exact(&plan.origin).map_err(|(message, hint)| {
        src.error(origin_at, Reason::InvalidField, message)
            .hint(hint)
    })?;
    for (i, step) in plan.steps.iter_mut().enumerate() {
        if let Some(text) = &step.options {
            let at = FieldPath::root().key("steps").index(i).key("options");
            step.parsed = parse_options(src, &at, text)?;
        }
    }
    Ok(plan)
}

/// `first`, where [`parse_protocolv2`] stopped, with every other field error of the plan and
/// its steps beside it, for `check`. Other kinds of error stand alone.
pub(crate) fn with_other_field_errors(src: &Source, first: InputError) -> Vec<InputError> {
    let Some(value) = worth_collecting(src, &first) else {
        return vec![first];
    };
    let root = FieldPath::root();
    let mut all = each_element::<DevStep>(src, &value, &root, "steps");
    let rest = without_lists(&value, &["steps"]);
    all.extend(crate::json::type_errors::<DevPlan>(src, &rest, &root));
    beside(all.into_iter().map(|e| explain(e, DOCS)).collect(), first)
}

/// serde reads `null` as a left-out optional field; the schema types no field as null, so a
/// `null` is refused where it stands (plan and step members: nothing else is nested).
fn refuse_nulls(src: &Source, value: &Value) -> Result<(), InputError> {
    let steps = value.get("steps").and_then(Value::as_array);
    let members = value
        .as_object()
        .into_iter()
        .flatten()
        .map(|(k, v)| (FieldPath::root().key(k), v));
    let step_members = steps.into_iter().flatten().enumerate().flat_map(|(i, s)| {
        s.as_object()
            .into_iter()
            .flatten()
            .map(move |(k, v)| (FieldPath::root().key("steps").index(i).key(k), v))
    });
    match members.chain(step_members).find(|(_, v)| v.is_null()) {
        Some((path, _)) => Err(src
            .error(
                path,
                Reason::InvalidField,
                "null is not a value of any protocolv2 field",
            )
            .hint("leave an optional field out instead of writing null")),
        None => Ok(()),
    }
}

/// [`explain_as`], with two things Foxstep's errors do not do: a missing field's path names
/// the field, and a step's `value` (often typed text, maybe a password) is never quoted back.
pub(crate) fn explain(e: InputError, otherwise: &str) -> InputError {
    let mut e = explain_as(e, otherwise);
    if let Some(field) = e
        .message
        .strip_prefix("missing field `")
        .and_then(|m| m.split('`').next())
    {
        e.path = e.path.key(field);
    }
    let last = match e.path.0.last() {
        Some(Seg::Key(k)) if e.message.starts_with("invalid type") => k.as_str(),
        _ => return e,
    };
    match last {
        "value" => e.message = "`value` must be a string".into(),
        "options" => {
            e.message = "`options` must be a string: the options object as JSON text".into();
            e.hint =
                Some(r#"write the object inside a string: "{\"pair\": \"beforeafter\"}""#.into());
        }
        _ => {}
    }
    e
}
