//! `outside-origin` (protocolv2)
//!
//! What: a `navigate` step's URL (its `value`, or a `target` that is a URL rather than a CSS
//! selector) stays inside the plan's `origin` as a browser reads it (WHATWG URL parsing:
//! `\` is `/`, tabs and newlines vanish, userinfo is not the host), resolved against the
//! origin and compared by scheme, host and port once normalised.
//! Why: the plan is reviewed and approved for one origin ("the exact origin the plan runs
//! inside"); a step that leaves it acts where nobody approved anything.
//! A `navigate` whose `target` is a selector follows a link whose address is on the page;
//! when the selector itself pins that address (`a[href^='https://help.partner.example']`),
//! the step is judged by it here, and replay judges the link it finds.
//! Example: origin `http://127.0.0.1:8000`, `"value": "http://evil.test\\@127.0.0.1:8000/"`
//! → finding at `steps[0].value` (a browser loads it from `evil.test`).

use super::{DevCtx, step_path};
use crate::plan::check::{Finding, Severity};
use crate::plan::devthink::kinds::Kind;
use crate::plan::devthink::origin::Origin;

pub(crate) fn check(ctx: &DevCtx, out: &mut Vec<Finding>) {
    // The parse refused a plan whose origin is not exact.
    let Ok(origin) = Origin::exact(&ctx.plan.origin) else {
        return;
    };
    for (i, step) in ctx.plan.steps.iter().enumerate() {
        if Kind::parse(&step.kind) != Some(Kind::Navigate) {
            continue;
        }
        let urls = [
            ("value", step.value.as_deref()),
            (
                "target",
                step.target
                    .as_deref()
                    .filter(|t| crate::plan::devthink::origin::reads_as_url(t)),
            ),
        ];
        if let Some(selector) = step.link_selector()
            && let Some((href, outside)) = origin.selector_leads_out(selector)
        {
            out.push(
                Finding::new(
                    Severity::Error,
                    "outside-origin",
                    step_path(i).key("target"),
                    format!(
                        "step `{}` follows a link to `{}`, outside the plan's origin `{}`: {outside}",
                        step.id,
                        href.escape_debug(),
                        ctx.plan.origin
                    ),
                )
                .hint("navigate inside the origin, or make it a plan of its own for review"),
            );
        }
        for (field, url) in urls {
            let Some(url) = url else { continue };
            let Some(outside) = origin.outside(url) else {
                continue;
            };
            out.push(
                Finding::new(
                    Severity::Error,
                    "outside-origin",
                    step_path(i).key(field),
                    format!(
                        "step `{}` navigates to `{}`, outside the plan's origin `{}`: {outside}",
                        step.id,
                        url.escape_debug(),
                        ctx.plan.origin
                    ),
                )
                .hint("navigate inside the origin, or make it a plan of its own for review"),
            );
        }
    }
}

#[cfg(test)]
mod tests {
    use crate::json::Source;
    use crate::plan::check::check_source;
    use crate::plan::devthink::origin::{EXAMPLE_COM_TABLE, LOCAL_8000_TABLE};

    /// The `outside-origin` findings of the login plan with its origin and first step's
    /// `field` set.
    fn findings(origin: &str, field: &str, url: &str) -> Vec<String> {
        let path = concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../recordings/scripts/browser/login.json"
        );
        let mut plan: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
        plan["origin"] = origin.into();
        let step = plan["steps"][0].as_object_mut().unwrap();
        step.remove("value");
        step.insert(field.into(), url.into());
        let text = serde_json::to_string_pretty(&plan).unwrap();
        check_source(&Source::from_text("plan.json", text))
            .findings
            .iter()
            .filter(|f| f.reason == "outside-origin")
            .map(|f| f.path.to_string())
            .collect()
    }

    #[test]
    fn the_hostile_url_tables_hold_for_check() {
        for (origin, table) in [
            ("http://127.0.0.1:8000", LOCAL_8000_TABLE),
            ("https://example.com", EXAMPLE_COM_TABLE),
        ] {
            for &(url, inside, why) in table {
                let got = findings(origin, "value", url);
                let want: &[&str] = if inside { &[] } else { &["steps[0].value"] };
                assert_eq!(got, want, "{origin} {url:?}: {why}");
            }
        }
    }

    #[test]
    fn a_navigate_target_is_judged_as_a_url_only_when_it_is_one() {
        let local = "http://127.0.0.1:8000";
        assert_eq!(
            findings(local, "target", "http://evil.test\\@127.0.0.1:8000/"),
            ["steps[0].target"]
        );
        // A selector that pins its link's address to another server leads out; one that
        // pins a path, or says nothing of the address, is judged by replay.
        assert_eq!(
            findings(local, "target", "a[href^='https://help.partner.example']"),
            ["steps[0].target"]
        );
        assert_eq!(
            findings(local, "target", "a[href='http://[::ffff:127.0.0.1]:8000/']"),
            ["steps[0].target"]
        );
        assert!(findings(local, "target", "a[href^='/login']").is_empty());
        assert!(findings(local, "target", "a.help").is_empty());
    }
}
