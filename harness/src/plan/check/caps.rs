//! The nesting cap a user sets on `check` (`--max-depth`), below or above the default: a
//! plan, or a devthink step's options, that nests deeper is refused where it does, with the
//! setting named. Each options string counts its levels from its own top, as the option
//! grammar is a document of its own.

use serde_json::Value;

use crate::errors::{FieldPath, InputError, Reason, Seg};
use crate::json::{Source, parse_value};
use crate::limits::{JSON_DEPTH, JSON_DEPTH_MAX, PlanCaps};

/// The path of the first container deeper than `max` levels in `v` (its top is level 1).
/// The path is one stack pushed and popped, so a plan nesting thousands of levels (a user may
/// allow that many) costs time in its size, not its size squared.
fn deeper(v: &Value, max: usize) -> Option<FieldPath> {
    fn walk(v: &Value, level: usize, max: usize, at: &mut Vec<Seg>) -> bool {
        let down = |seg: Seg, x: &Value, at: &mut Vec<Seg>| {
            at.push(seg);
            let found = walk(x, level + 1, max, at);
            if !found {
                at.pop();
            }
            found
        };
        match v {
            Value::Array(_) | Value::Object(_) if level > max => true,
            Value::Array(a) => a
                .iter()
                .enumerate()
                .any(|(i, x)| down(Seg::Index(i), x, at)),
            Value::Object(m) => m.iter().any(|(k, x)| down(Seg::Key(k.clone()), x, at)),
            _ => false,
        }
    }
    let mut at = Vec::new();
    walk(v, 1, max, &mut at).then_some(FieldPath(at))
}

/// Why `src` is refused under `caps`, when it nests deeper than they allow. A file that does
/// not parse is left to the check, which says why.
pub(super) fn too_deep(src: &Source, caps: &PlanCaps) -> Option<InputError> {
    let src = &src.clone().with_depth(caps.depth);
    let value = parse_value(src).ok()?;
    let refuse = |at: FieldPath, what: &str| {
        src.error(
            at,
            Reason::LimitExceeded,
            format!("{what} nest deeper than {} levels, the cap `--max-depth` sets", caps.depth),
        )
        .hint(format!(
            "raise `--max-depth` (the default is {JSON_DEPTH}, at most {JSON_DEPTH_MAX}) if the plan is meant to nest this deep"
        ))
    };
    if let Some(at) = deeper(&value, caps.depth) {
        return Some(refuse(at, "the plan's fields"));
    }
    let steps = value.get("steps").and_then(Value::as_array)?;
    steps.iter().enumerate().find_map(|(i, s)| {
        let text = s.get("options")?.as_str()?;
        let options = parse_value(&src.inner(text)).ok()?;
        let at = FieldPath::root().key("steps").index(i).key("options");
        deeper(&options, caps.depth).map(|_| refuse(at, "the options"))
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
