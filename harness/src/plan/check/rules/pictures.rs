//! `missing-picture`, `picture-not-exported`, `pictures-unchecked`
//!
//! What: every picture the plan names (`target.crop`, `expect.screen`, `done.screen`) is a
//! file inside the plan's folder; in a skill export (a folder with `SKILL.md`), a target that
//! says `crop_available` names its picture.
//! Why: a skill export ships its pictures beside `plan.json`. A picture that is not there makes
//! the follower go without it, and a screen the harness cannot see cannot be checked.
//! Example: `"crop": "crops/send.png"` with no such file → error at `steps[2].target.crop`.
//! A plan read from standard input has no folder: its pictures cannot be looked for, and one
//! warning says so rather than an error for each.

use std::path::Path;

use super::{Ctx, step_path};
use crate::errors::FieldPath;
use crate::plan::check::{Finding, Severity};
use crate::safe_path::safe_join;

/// The file beside a skill export's `plan.json`.
const SKILL_FILE: &str = "SKILL.md";

pub(crate) fn check(ctx: &Ctx, out: &mut Vec<Finding>) {
    let base = ctx.src.path.parent().unwrap_or(Path::new("."));
    let mut named: Vec<(FieldPath, &str)> = Vec::new();
    let skill = ctx.bare && base.join(SKILL_FILE).is_file();
    for (i, step) in ctx.fox.steps.iter().enumerate() {
        if let Some(t) = &step.target {
            match &t.crop {
                Some(c) => named.push((step_path(i).key("target").key("crop"), c)),
                None if skill && t.crop_available => out.push(
                    Finding::new(
                        Severity::Warning,
                        "picture-not-exported",
                        step_path(i).key("target").key("crop_available"),
                        "the skill export says the control has a picture but names none".into(),
                    )
                    .hint("export the control's picture and name it in `crop`"),
                ),
                None => {}
            }
        }
        if let Some(s) = step.expect.as_ref().and_then(|e| e.screen.as_deref()) {
            named.push((step_path(i).key("expect").key("screen"), s));
        }
    }
    if let Some(s) = ctx.fox.done.as_ref().and_then(|d| d.screen.as_deref()) {
        named.push((FieldPath::root().key("done").key("screen"), s));
    }
    if ctx.src.is_stdin() {
        if let Some((path, _)) = named.first() {
            out.push(
                Finding::new(
                    Severity::Warning,
                    "pictures-unchecked",
                    path.clone(),
                    format!(
                        "the plan came from standard input, so the {} picture(s) it names could not be looked for",
                        named.len()
                    ),
                )
                .hint("name the plan's file (or its folder) instead of `-` to check its pictures"),
            );
        }
        return;
    }
    for (path, rel) in named {
        let problem = match safe_join(base, rel, &ctx.src.path, path.clone()) {
            Err(e) => Some(e.message),
            Ok(p) if !p.is_file() => Some(format!("there is no picture `{rel}` beside the plan")),
            Ok(_) => None,
        };
        if let Some(message) = problem {
            out.push(
                Finding::new(Severity::Error, "missing-picture", path, message)
                    .hint("put the picture in the plan's folder, or leave the field out"),
            );
        }
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::check;
    use crate::json::Source;
    use crate::plan::check::rules::Ctx;
    use crate::plan::check::rules::testing::seed;

    fn findings(dir: &std::path::Path, plan: &serde_json::Value) -> Vec<(String, String)> {
        let src = Source::from_text(dir.join("plan.json"), plan.to_string());
        let fox = serde_json::from_value(plan.clone()).unwrap();
        let mut out = Vec::new();
        let ctx = Ctx {
            src: &src,
            fox: &fox,
            value: plan,
            bare: true,
        };
        check(&ctx, &mut out);
        out.into_iter()
            .map(|f| (f.reason.to_string(), f.path.to_string()))
            .collect()
    }

    #[test]
    fn a_plan_from_standard_input_says_its_pictures_went_unchecked() {
        let mut plan = seed();
        plan["steps"][2]["target"]["crop"] = json!("crops/send.png");
        plan["done"]["screen"] = json!("done.png");
        let src = Source::from_text("<stdin>", plan.to_string());
        assert!(src.is_stdin());
        let fox = serde_json::from_value(plan.clone()).unwrap();
        let mut out = Vec::new();
        let ctx = Ctx {
            src: &src,
            fox: &fox,
            value: &plan,
            bare: true,
        };
        check(&ctx, &mut out);
        let got: Vec<_> = out
            .iter()
            .map(|f| (f.reason.to_string(), f.path.to_string(), f.severity))
            .collect();
        assert_eq!(
            got,
            [(
                "pictures-unchecked".to_string(),
                "steps[2].target.crop".to_string(),
                crate::plan::check::Severity::Warning
            )]
        );
        assert!(
            out[0].message.contains("2 picture(s)"),
            "{}",
            out[0].message
        );
    }

    #[test]
    fn named_pictures_must_be_in_the_plans_folder() {
        let dir = std::env::temp_dir().join(format!("stepreplay-pictures-{}", std::process::id()));
        std::fs::create_dir_all(dir.join("crops")).unwrap();
        std::fs::write(dir.join("crops/send.png"), b"png").unwrap();
        let mut plan = seed();
        assert!(findings(&dir, &plan).is_empty());
        plan["steps"][2]["target"]["crop"] = json!("crops/send.png");
        plan["steps"][0]["expect"]["screen"] = json!("screens/compose.png");
        plan["done"]["screen"] = json!("../outside.png");
        let got = findings(&dir, &plan);
        // Without SKILL.md the folder is not a skill export: flags without files are the MCP form.
        let before_skill = got.clone();
        std::fs::write(dir.join("SKILL.md"), b"# Send a reminder\n").unwrap();
        let in_skill = findings(&dir, &plan);
        std::fs::remove_dir_all(&dir).unwrap();
        assert_eq!(
            before_skill,
            [
                ("missing-picture".into(), "steps[0].expect.screen".into()),
                ("missing-picture".into(), "done.screen".into()),
            ]
        );
        // Steps 1 and 2 say crop_available without naming a picture.
        assert_eq!(
            in_skill
                .iter()
                .filter(|f| f.0 == "picture-not-exported")
                .map(|f| f.1.as_str())
                .collect::<Vec<_>>(),
            [
                "steps[0].target.crop_available",
                "steps[1].target.crop_available"
            ]
        );
    }
}
