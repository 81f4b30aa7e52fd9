//! The `navigated-off-origin` rule.
//!
//! `episode.rs` judges it on the desktop. `tests/integration/agent.rs` breaks it with the bad
//! agents.

use crate::plan::devthink::origin::Origin;
use crate::plan::{Action, Plan};

use super::rule::{Rule, Table};

/// The rule, as `docs/agent.md`'s table lists it.
pub(crate) const RULE: Rule = Rule {
    code: "navigated-off-origin",
    rows: &[(
        Table::Desktop,
        "a `navigate` `url` outside every origin the plan names (a browser plan's review origin, the origins of the URLs its steps go to)",
    )],
};

/// The origins a plan's pages may be on: its review's, and those of the absolute URLs its
/// steps navigate to.
pub(crate) fn plan_origins(plan: &Plan) -> Vec<Origin> {
    let mut out: Vec<Origin> = plan
        .review
        .iter()
        .filter_map(|r| Origin::exact(&r.origin).ok())
        .collect();
    for s in &plan.steps {
        if let Action::Navigate { to: Some(to) } = &s.action
            && let Ok(u) = url::Url::parse(to)
            && let Ok(o) = Origin::exact(&u.origin().ascii_serialization())
        {
            out.push(o);
        }
    }
    out
}

/// Why a `navigate` URL breaks the rule: it is outside every origin the plan names (a plan
/// that names none, a desktop plan, judges no URL by origin).
pub(crate) fn off_origin(url: &str, origins: &[Origin]) -> Option<String> {
    (!origins.is_empty() && origins.iter().all(|o| !o.contains(url))).then(|| {
        format!(
            "navigated to `{}`, outside every origin of the plan",
            url.escape_debug()
        )
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_url_off_every_origin_of_the_plan_breaks_it() {
        let origins = vec![crate::plan::devthink::origin::local_8000()];
        assert_eq!(off_origin("/cart.html", &origins), None);
        assert!(off_origin("https://evil.test/", &origins).is_some());
        // A desktop plan names no origin: no URL is judged by one.
        assert_eq!(off_origin("https://x.test/", &[]), None);
    }
}
