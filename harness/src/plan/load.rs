//! Reading a plan file: bounded, UTF-8, schema first, then strict types, then lowering.

use std::path::Path;

use serde_json::Value;

use super::foxstep::{self, FoxPlan};
use super::lower::lower_foxstep;
use super::model::Plan;
use crate::errors::{FieldPath, InputError, Reason, Seg};
use crate::json::{Source, parse_typed, parse_value, read_text, refuse_duplicate_keys};
use crate::limits;

/// A skill export's plan file, beside its `SKILL.md`.
pub(crate) const SKILL_PLAN: &str = "plan.json";

/// Reads a plan file's text within the size limit. A folder is a skill export: its plan is
/// the `plan.json` in it, and the pictures it names are beside it.
pub fn read_plan_source(path: &Path) -> Result<Source, InputError> {
    read_plan_source_capped(path, limits::PLAN_BYTES)
}

/// [`read_plan_source`] with a size cap of the user's (`check --max-plan-bytes`).
pub(crate) fn read_plan_source_capped(path: &Path, max_bytes: u64) -> Result<Source, InputError> {
    if path.is_dir() {
        let file = path.join(SKILL_PLAN);
        if !file.is_file() {
            return Err(InputError::new(
                path,
                Reason::MissingFile,
                format!("the folder has no `{SKILL_PLAN}`"),
            )
            .hint("a skill export holds plan.json beside SKILL.md; or name the plan file"));
        }
        return read_text(&file, max_bytes);
    }
    read_text(path, max_bytes)
}

/// A plan as it was handed over: a plan file, or the `plan` of an MCP `get_guide` response.
#[derive(Debug)]
pub(crate) struct Handed {
    /// The plan.
    pub plan: FoxPlan,
    /// Where it sits in the file: the root, or `plan` in a `get_guide` response. Findings
    /// about the plan are placed under it.
    pub at: FieldPath,
}

/// The MCP `get_guide` response, as far as the harness reads it: the plan and its status.
/// Its other fields describe the guide and are left alone.
#[derive(serde::Deserialize)]
struct GetGuide {
    plan: FoxPlan,
}

/// Whether a parsed file is a `get_guide` response rather than a plan.
/// Whether a parsed file is a plan any dialect reads: a Foxstep plan (or a file naming
/// another Foxstep schema version), a `get_guide` response, or a protocolv2 plan. A folder
/// walk checks these and passes over other JSON (recordings, bridge commands).
pub(crate) fn is_plan(value: &Value) -> bool {
    let foxstep = value
        .get("schema")
        .and_then(Value::as_str)
        .is_some_and(|s| s.starts_with("foxstep-step-plan/"));
    foxstep || is_get_guide(value) || super::devthink::is_protocolv2(value)
}

/// The files under `dir` that `check` and `fmt` take up when given a folder, sorted: those
/// `keep` accepts, and every `.json` that does not parse (a broken plan is still a plan to
/// report). Other JSON is passed over.
pub(crate) fn plan_files_under(
    dir: &Path,
    keep: impl Fn(&Value) -> bool,
) -> Vec<std::path::PathBuf> {
    crate::json::json_files_under(dir)
        .into_iter()
        .filter(|f| {
            let value = read_text(f, limits::PLAN_BYTES).and_then(|src| parse_value(&src));
            value.is_err() || value.is_ok_and(|v| keep(&v))
        })
        .collect()
}

/// Whether a parsed file is a plan file as saved (a Foxstep or protocolv2 plan): what `fmt`
/// lays out. A `get_guide` response is transport, not a saved plan.
pub(crate) fn is_plan_file(value: &Value) -> bool {
    is_plan(value) && !is_get_guide(value)
}

/// The error for a folder holding nothing `check` or `fmt` would take up.
pub(crate) fn no_plans_under(dir: &Path, what: &str) -> InputError {
    InputError::new(dir, Reason::NoPlans, format!("no {what} under this folder")).hint(
        "plans are JSON files with \"schema\": \"foxstep-step-plan/1\" (or a devthink plan); name the files or another folder",
    )
}

fn is_get_guide(value: &Value) -> bool {
    value.get("schema").is_none()
        && (value.get("plan_status").is_some() || value.get("plan").is_some())
}

/// Parses a plan file or a `get_guide` response. A response whose `plan_status` is
/// `needs_review` (a guide approved before plans existed) is refused with `plan-needs-review`:
/// its plan has not been through the privacy review, so nothing may follow it.
pub(crate) fn parse_handed(src: &Source) -> Result<Handed, InputError> {
    let value = parse_value(src)?;
    if super::devthink::is_protocolv2(&value) {
        return Err(src
            .error(
                FieldPath::root(),
                Reason::UnsupportedSchema,
                "a devthink protocolv2 plan is not a Foxstep guide",
            )
            .hint("see docs/devthink.md"));
    }
    if !is_get_guide(&value) {
        return Ok(Handed {
            plan: parse_foxstep(src)?,
            at: FieldPath::root(),
        });
    }
    let status_at = FieldPath::root().key("plan_status");
    match value.get("plan_status").and_then(Value::as_str) {
        Some("included") => {}
        Some("needs_review") => {
            return Err(src
                .error(
                    status_at,
                    Reason::PlanNeedsReview,
                    "the guide's plan needs review: it was approved before step plans existed",
                )
                .hint("approve the guide again in Foxstep's privacy review, then fetch it again"));
        }
        Some(other) => {
            return Err(src
                .error(
                    status_at,
                    Reason::InvalidField,
                    format!("unknown plan_status `{other}`"),
                )
                .hint("a get_guide response says `included` or `needs_review`"));
        }
        None => {
            return Err(src
                .error(
                    FieldPath::root(),
                    Reason::InvalidField,
                    "a get_guide response needs a `plan_status` string",
                )
                .hint("add \"plan_status\": \"included\" beside `plan`"));
        }
    }
    let at = FieldPath::root().key("plan");
    let Some(plan) = value.get("plan") else {
        return Err(src
            .error(
                FieldPath::root(),
                Reason::InvalidField,
                "plan_status is `included` but there is no `plan`",
            )
            .hint("add the plan under `plan`"));
    };
    check_schema_at(src, plan, foxstep::SCHEMA, &at)?;
    let GetGuide { plan } = parse_typed(src).map_err(explain)?;
    Ok(Handed { plan, at })
}

/// Parses a Foxstep plan strictly: `invalid-json`, then `unsupported-schema`, then
/// `invalid-field` at the exact field path.
pub(crate) fn parse_foxstep(src: &Source) -> Result<FoxPlan, InputError> {
    let value = parse_value(src)?;
    check_schema(src, &value, foxstep::SCHEMA)?;
    let plan = parse_typed(src).map_err(explain)?;
    // Typed parsing refused repeats in typed objects; this finds those in free-form ones.
    refuse_duplicate_keys(src)?;
    Ok(plan)
}

/// `first`, the error [`parse_handed`] stopped at, with every other field error of the plan
/// beside it (`check` reports them all). Other kinds of error stand alone.
pub(crate) fn with_other_field_errors(src: &Source, first: InputError) -> Vec<InputError> {
    let Some(value) = worth_collecting(src, &first) else {
        return vec![first];
    };
    let (plan, at) = if is_get_guide(&value) {
        (
            value.get("plan").cloned().unwrap_or_default(),
            FieldPath::root().key("plan"),
        )
    } else {
        (value, FieldPath::root())
    };
    // Not an object: nothing more to find than the error already in hand.
    if !plan.is_object() {
        return vec![first];
    }
    beside(foxstep_field_errors(src, &plan, &at), first)
}

/// The parsed document when `first` is a field error, so that others are worth looking for.
pub(crate) fn worth_collecting(src: &Source, first: &InputError) -> Option<Value> {
    (first.reason == Reason::InvalidField)
        .then(|| parse_value(src).ok())
        .flatten()
}

/// `found`, with `first` beside it unless `found` already names its field.
pub(crate) fn beside(mut found: Vec<InputError>, first: InputError) -> Vec<InputError> {
    if !found.iter().any(|e| e.path == first.path) {
        found.push(first);
    }
    found
}

/// `value` with the arrays `lists` emptied: its own fields, read apart from the elements.
pub(crate) fn without_lists(value: &Value, lists: &[&str]) -> Value {
    let mut rest = value.clone();
    for list in lists {
        if let Some(Value::Array(items)) = rest.get_mut(*list) {
            items.clear();
        }
    }
    rest
}

/// Every field error in a Foxstep plan (at `at` in the file), each explained, for `check`:
/// the plan's own fields, then each input and each step read on its own, so that one bad step
/// does not hide the next.
pub(crate) fn foxstep_field_errors(src: &Source, plan: &Value, at: &FieldPath) -> Vec<InputError> {
    let mut errors = each_element::<foxstep::Step>(src, plan, at, "steps");
    errors.extend(each_element::<foxstep::Input>(src, plan, at, "inputs"));
    let rest = without_lists(plan, &["steps", "inputs"]);
    errors.extend(crate::json::type_errors::<FoxPlan>(src, &rest, at));
    errors.into_iter().map(explain).collect()
}

/// The type errors of each element of the array `list` in `parent`, read as `T`.
pub(crate) fn each_element<T: serde::de::DeserializeOwned>(
    src: &Source,
    parent: &Value,
    at: &FieldPath,
    list: &str,
) -> Vec<InputError> {
    let items = parent.get(list).and_then(Value::as_array);
    items
        .into_iter()
        .flatten()
        .enumerate()
        .flat_map(|(i, item)| crate::json::type_errors::<T>(src, item, &at.key(list).index(i)))
        .collect()
}

fn explain(e: InputError) -> InputError {
    explain_as(e, "see the field table of foxstep-step-plan/1")
}

/// Puts serde's wording of a type error in the plan author's terms and adds a fix hint;
/// `otherwise` is the hint when no better one applies.
pub(crate) fn explain_as(mut e: InputError, otherwise: &str) -> InputError {
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
    let meant = quoted("unknown field `")
        .or_else(|| quoted("unknown variant `"))
        .and_then(|w| crate::text::closest(&w, &crate::json::expected(&e.message)));
    let hint = if let Some(meant) = meant {
        format!("did you mean `{meant}`?")
    } else if let Some(field) = quoted("unknown field `") {
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
        otherwise.to_string()
    };
    e.hint(hint)
}

fn check_schema(src: &Source, value: &Value, want: &str) -> Result<(), InputError> {
    check_schema_at(src, value, want, &FieldPath::root())
}

/// [`check_schema`] for a plan that sits at `at` in its file.
fn check_schema_at(
    src: &Source,
    value: &Value,
    want: &str,
    at: &FieldPath,
) -> Result<(), InputError> {
    let path = at.key("schema");
    let Some(obj) = value.as_object() else {
        return Err(src
            .error(at.clone(), Reason::InvalidField, "a plan is a JSON object")
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
                at.clone(),
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
    let base = src.path.parent().unwrap_or(Path::new("."));
    if super::devthink::is_protocolv2(&parse_value(src)?) {
        let dev = super::devthink::parse_protocolv2(src)?;
        return Ok(super::devthink::lower_devthink(&dev, base));
    }
    let Handed { plan: fox, at } = parse_handed(src)?;
    let mut plan = lower_foxstep(&fox, base).map_err(|problems| {
        let first = &problems[0];
        let mut e = src.error(
            at.join(&first.path),
            Reason::InvalidField,
            first.message.clone(),
        );
        e.hint = first.hint.clone();
        e
    })?;
    // Steps remember where they are in this file, get_guide envelope included.
    for step in &mut plan.steps {
        step.path = at.join(&step.path);
    }
    Ok(plan)
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;
    use crate::plan::check::check_source;

    fn seed() -> Value {
        serde_json::from_str(include_str!("../../tests/fixtures/plans/seed-mail.json")).unwrap()
    }

    fn get_guide(status: &str, plan: Option<Value>) -> Source {
        let mut v = json!({"guide_id": "3C2A9E44", "plan_status": status});
        if let Some(p) = plan {
            v["plan"] = p;
        }
        Source::from_text("get_guide.json", serde_json::to_string_pretty(&v).unwrap())
    }

    /// The guide's id, title and revision are read into the plan; each is text, and only the
    /// revision may be left out.
    #[test]
    fn the_guides_id_title_and_revision_are_read_and_each_is_text() {
        let load = |v: &Value| {
            plan_from_source(&Source::from_text(
                "plan.json",
                serde_json::to_string_pretty(v).unwrap(),
            ))
        };
        let plan = load(&seed()).unwrap();
        assert_eq!(
            (plan.id.as_str(), plan.title.as_str()),
            (
                "3C2A9E44-1B7D-4F3A-8E55-0A6D2C9F7B10",
                "Send an invoice reminder in Mail"
            )
        );
        assert_eq!(
            plan.revision.as_deref(),
            Some("9f2c4d1e8a7b6c5d4e3f2a1b0c9d8e7f6a5b4c3d2e1f0a9b8c7d6e5f4a3b2c1d")
        );
        for field in ["id", "title", "revision"] {
            let mut v = seed();
            v["guide"][field] = json!(7);
            let e = load(&v).unwrap_err();
            assert_eq!(
                (e.reason, e.path.to_string()),
                (Reason::InvalidField, format!("guide.{field}")),
                "{e:?}"
            );
            assert!(e.position.is_some(), "{e:?}");
            v["guide"].as_object_mut().unwrap().remove(field);
            assert_eq!(load(&v).is_ok(), field == "revision", "without {field}");
        }
    }

    #[test]
    fn a_get_guide_response_hands_over_its_plan() {
        let h = parse_handed(&get_guide("included", Some(seed()))).unwrap();
        assert_eq!(h.at.to_string(), "plan");
        assert_eq!(h.plan.steps.len(), 3);
        // The bare plan file is the plan itself.
        let bare = Source::from_text("plan.json", seed().to_string());
        assert!(parse_handed(&bare).unwrap().at.is_root());
    }

    #[test]
    fn needs_review_and_unknown_statuses_are_refused_at_plan_status() {
        let e = parse_handed(&get_guide("needs_review", None)).unwrap_err();
        assert_eq!(e.reason, Reason::PlanNeedsReview);
        assert_eq!(e.path.to_string(), "plan_status");
        assert_eq!(e.position.map(|p| p.line), Some(3));
        let e = parse_handed(&get_guide("approved", Some(seed()))).unwrap_err();
        assert_eq!(e.reason, Reason::InvalidField);
        assert_eq!(e.path.to_string(), "plan_status");
        let e = parse_handed(&get_guide("included", None)).unwrap_err();
        assert_eq!(e.reason, Reason::InvalidField);
        // check reads a refusal as a finding (exit 1), not as an unreadable file (exit 2).
        let report = check_source(&get_guide("needs_review", None));
        assert_eq!(report.exit_code(), 1);
        assert_eq!(report.findings[0].reason, "plan-needs-review");
    }

    #[test]
    fn errors_inside_a_handed_plan_point_into_the_response() {
        let mut plan = seed();
        plan["steps"][1]["number"] = json!("two");
        let src = get_guide("included", Some(plan));
        let e = parse_handed(&src).unwrap_err();
        assert_eq!(e.path.to_string(), "plan.steps[1].number");
        let line = src
            .text
            .lines()
            .position(|l| l.contains("\"two\""))
            .unwrap()
            + 1;
        assert_eq!(e.position.map(|p| p.line), Some(line));
        // A lint finding is placed under `plan` too; the response's bytes are not linted.
        let mut plan = seed();
        plan["done"]["step_id"] = plan["steps"][0]["step_id"].clone();
        let report = check_source(&get_guide("included", Some(plan)));
        let got: Vec<_> = report
            .findings
            .iter()
            .map(|f| (f.reason, f.path.to_string(), f.line.is_some()))
            .collect();
        assert_eq!(got, [("done-not-last", "plan.done.step_id".into(), true)]);
    }

    #[test]
    fn a_folder_is_read_as_a_skill_export() {
        let dir = std::env::temp_dir().join(format!("stepreplay-skill-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let missing = read_plan_source(&dir).unwrap_err();
        std::fs::write(dir.join(SKILL_PLAN), seed().to_string()).unwrap();
        let plan = load_plan(&dir);
        std::fs::remove_dir_all(&dir).unwrap();
        assert_eq!(missing.reason, Reason::MissingFile);
        let plan = plan.unwrap();
        assert_eq!(plan.base_dir, dir);
    }
}
