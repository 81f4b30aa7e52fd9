//! `invalid-selector` (protocolv2)
//!
//! What: a step's `target` (on every kind but `navigate`, whose target may be a URL) parses as
//! a CSS selector, by the grammar a browser engine uses (Servo's, through `scraper`).
//! Why: a selector the browser refuses finds nothing on any page; the reviewer approved a step
//! that can never run.
//! Example: `"target": "button["` → finding at `steps[2].target`.

use super::{DevCtx, step_path};
use crate::plan::check::{Finding, Severity};
use crate::plan::devthink::kinds::Kind;

pub(crate) fn check(ctx: &DevCtx, out: &mut Vec<Finding>) {
    for (i, step) in ctx.plan.steps.iter().enumerate() {
        if Kind::parse(&step.kind) == Some(Kind::Navigate) {
            continue;
        }
        let Some(target) = step.target.as_deref() else {
            continue;
        };
        if let Err(why) = crate::plan::devthink::parse_selector(target) {
            out.push(
                Finding::new(
                    Severity::Error,
                    "invalid-selector",
                    step_path(i).key("target"),
                    format!(
                        "step `{}`: `{target}` is not a CSS selector: {why}",
                        step.id
                    ),
                )
                .hint(
                    "write a selector a browser accepts, e.g. `#pay` or `form button[type=submit]`",
                ),
            );
        }
    }
}

#[cfg(test)]
mod tests {
    use crate::json::Source;
    use crate::plan::check::check_source;

    #[test]
    fn a_selector_the_browser_refuses_is_found_at_its_target() {
        let path = concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../recordings/scripts/browser/login.json"
        );
        let mut plan: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
        plan["steps"][1]["target"] = "input[name=".into();
        let text = serde_json::to_string_pretty(&plan).unwrap();
        let report = check_source(&Source::from_text("plan.json", text));
        let f = report
            .findings
            .iter()
            .find(|f| f.reason == "invalid-selector")
            .expect("a finding");
        assert_eq!(f.path.to_string(), "steps[1].target");
        assert!(f.line.is_some());
    }
}
