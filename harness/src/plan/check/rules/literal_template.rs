//! `value-looks-like-template`
//!
//! What: a `value` (text typed exactly as written) that contains `{id}` for a declared input.
//! Why: `value` is never filled in, so the follower types the braces themselves — an email
//! goes to `{client-email}`. The author almost always meant `template` (and `reads`).
//! Example: `"value": "{client-email}"` → warning at `steps[1].value`.

use std::collections::HashSet;

use super::{Ctx, step_path};
use crate::plan::check::{Finding, Severity};

/// The first `{id}` in `value` whose id is in `ids`.
fn braced_input<'a>(value: &str, ids: &HashSet<&'a str>) -> Option<&'a str> {
    value
        .split('{')
        .skip(1)
        .filter_map(|rest| rest.split_once('}').map(|(id, _)| id))
        .find_map(|id| ids.get(id).copied())
}

pub(crate) fn check(ctx: &Ctx, out: &mut Vec<Finding>) {
    let ids: HashSet<&str> = ctx.fox.inputs.iter().map(|i| i.id.as_str()).collect();
    for (i, step) in ctx.fox.steps.iter().enumerate() {
        let Some(id) = step.value.as_deref().and_then(|v| braced_input(v, &ids)) else {
            continue;
        };
        out.push(
            Finding::new(
                Severity::Warning,
                "value-looks-like-template",
                step_path(i).key("value"),
                format!("`value` holds `{{{id}}}`, which is typed as it stands, braces and all"),
            )
            .hint(if step.reads.iter().any(|r| r == id) {
                "rename `value` to `template`".to_string()
            } else {
                format!("rename `value` to `template` and add \"{id}\" to `reads`")
            }),
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn finds_declared_ids_in_braces_only() {
        let ids: HashSet<&str> = ["client-email", "ref"].into_iter().collect();
        assert_eq!(
            braced_input("To {client-email}", &ids),
            Some("client-email")
        );
        assert_eq!(braced_input("{x} then {ref}", &ids), Some("ref"));
        assert_eq!(braced_input("client-email", &ids), None);
        assert_eq!(braced_input("{client-email", &ids), None);
    }
}
