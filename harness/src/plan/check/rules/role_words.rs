//! `role-mismatch`
//!
//! What: a target whose `role` words name one kind of control and whose `ax_role` another
//! (`"role": "check box"` beside `"ax_role": "AXButton"`). Kin roles agree (a text field and a
//! combo box are one kind on different toolkits), and words the role table does not know say
//! nothing.
//! Why: the seed gives the control's type twice, in words and as macOS reports it; a follower
//! that reads one finds a different control than one that reads the other, and the resolver
//! trusts `ax_role`, so the words a person reads in the report are wrong.
//! Example: `"role": "text field", "ax_role": "AXButton"` → warning at `steps[1].target.role`.

use super::{Ctx, step_path};
use crate::plan::check::{Finding, Severity};
use crate::roles::{ax_role_of_words, roles_agree};

pub(crate) fn check(ctx: &Ctx, out: &mut Vec<Finding>) {
    for (i, step) in ctx.fox.steps.iter().enumerate() {
        let Some(t) = &step.target else { continue };
        let (Some(words), Some(ax_role)) = (&t.role, &t.ax_role) else {
            continue;
        };
        let Some(named) = ax_role_of_words(words) else {
            continue;
        };
        if !roles_agree(named, ax_role) {
            out.push(
                Finding::new(
                    Severity::Warning,
                    "role-mismatch",
                    step_path(i).key("target").key("role"),
                    format!("`{words}` is an {named}, but `ax_role` says {ax_role}"),
                )
                .hint("make `role` the words for `ax_role`, or fix `ax_role`"),
            );
        }
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::check;
    use crate::plan::check::rules::testing::{run, seed};

    #[test]
    fn role_words_that_name_another_control_than_ax_role_are_flagged() {
        assert!(run(check, &seed()).is_empty());
        let mut plan = seed();
        plan["steps"][1]["target"]["role"] = json!("check box");
        let got = run(check, &plan);
        assert_eq!(got.len(), 1, "{got:?}");
        assert_eq!(got[0].reason, "role-mismatch");
        assert_eq!(got[0].path.to_string(), "steps[1].target.role");
        // Kin roles, other spellings and words the table does not know are no mismatch.
        for (words, ax_role) in [
            ("Text Field", "AXComboBox"),
            ("text  field", "AXTextField"),
            ("push button", "AXButton"),
            ("gizmo", "AXButton"),
        ] {
            let mut plan = seed();
            plan["steps"][1]["target"]["role"] = json!(words);
            plan["steps"][1]["target"]["ax_role"] = json!(ax_role);
            assert!(run(check, &plan).is_empty(), "{words} / {ax_role}");
        }
    }
}
