//! The nesting cap a user sets on `check` (`--max-depth`), below the parser's own limit: a
//! plan, or a devthink step's options, that nests deeper is refused where it does, with the
//! setting named. Each options string counts its levels from its own top, as the option
//! grammar is a document of its own.

use serde_json::Value;

use crate::errors::{FieldPath, InputError, Reason};
use crate::json::{Source, parse_value};
use crate::limits::{JSON_DEPTH, PlanCaps};

/// The path of the first container deeper than `max` levels in `v` (its top is level 1).
fn deeper(v: &Value, level: usize, max: usize, at: &FieldPath) -> Option<FieldPath> {
    match v {
        Value::Array(_) | Value::Object(_) if level > max => Some(at.clone()),
        Value::Array(a) => a
            .iter()
            .enumerate()
            .find_map(|(i, x)| deeper(x, level + 1, max, &at.index(i))),
        Value::Object(m) => m
            .iter()
            .find_map(|(k, x)| deeper(x, level + 1, max, &at.key(k))),
        _ => None,
    }
}

/// Why `src` is refused under `caps`, when it nests deeper than they allow. A file that does
/// not parse is left to the check, which says why.
pub(super) fn too_deep(src: &Source, caps: &PlanCaps) -> Option<InputError> {
    if caps.depth >= JSON_DEPTH {
        return None;
    }
    let value = parse_value(src).ok()?;
    let refuse = |at: FieldPath, what: &str| {
        src.error(
            at,
            Reason::LimitExceeded,
            format!("{what} nest deeper than {} levels, the cap `--max-depth` sets", caps.depth),
        )
        .hint(format!(
            "raise `--max-depth` (at most {JSON_DEPTH}, the default) if the plan is meant to nest this deep"
        ))
    };
    if let Some(at) = deeper(&value, 1, caps.depth, &FieldPath::root()) {
        return Some(refuse(at, "the plan's fields"));
    }
    let steps = value.get("steps").and_then(Value::as_array)?;
    steps.iter().enumerate().find_map(|(i, s)| {
        let text = s.get("options")?.as_str()?;
        let options = parse_value(&Source::from_text(&src.path, text)).ok()?;
        let at = FieldPath::root().key("steps").index(i).key("options");
        deeper(&options, 1, caps.depth, &FieldPath::root()).map(|_| refuse(at, "the options"))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn levels_count_from_the_top_and_options_count_apart() {
        let nested = |n: usize| format!("{}1{}", "[".repeat(n), "]".repeat(n));
        let caps = |depth| PlanCaps {
            depth,
            ..PlanCaps::default()
        };
        let src = |t: String| Source::from_text("p.json", t);
        assert!(too_deep(&src(nested(5)), &caps(5)).is_none());
        let e = too_deep(&src(nested(6)), &caps(5)).unwrap();
        assert_eq!(e.reason, Reason::LimitExceeded);
        assert_eq!(e.path.to_string(), "[0][0][0][0][0]");
        assert!(too_deep(&src(nested(100)), &PlanCaps::default()).is_none());
        // Options nest inside their string: the plan itself is shallow.
        let plan = serde_json::json!({"steps": [{"options": format!("{{\"a\": {}}}", nested(5))}]});
        let e = too_deep(&src(plan.to_string()), &caps(5)).unwrap();
        assert_eq!(e.path.to_string(), "steps[0].options");
        assert!(
            e.message.contains("the options nest deeper than 5 levels"),
            "{}",
            e.message
        );
        assert!(too_deep(&src(plan.to_string()), &caps(6)).is_none());
    }
}
