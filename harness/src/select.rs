//! Which scenarios of a suite a command keeps ([`Select`]): `--grep` words, any of which a
//! scenario's id holds, and `--filter` expressions on its id, its dialect, its kind and its
//! tags, each of which must hold — as Playwright's `--grep` and nextest's filter expressions
//! narrow a run. `run`, `mutate` and `agent` narrow their suite with this one filter.

use std::path::Path;

use crate::errors::{InputError, Reason};
use crate::scenario::Scenario;

/// One `--filter` expression.
#[derive(Clone, Debug, PartialEq, Eq)]
enum Expr {
    /// `id:GLOB`: the id matches the glob (`*` any run of characters).
    Id(String),
    /// `dialect:foxstep|devthink|bridge`: the plan's dialect (a bridge batch is `bridge`).
    Dialect(String),
    /// `kind:plan|bridge`: a plan scenario or a bridge batch.
    Kind(String),
    /// `tag:NAME`: the scenario file's `tags` hold NAME.
    Tag(String),
}

const DIALECTS: [&str; 3] = ["foxstep", "devthink", "bridge"];

/// The scenarios a run keeps; the default keeps every one.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Select {
    grep: Vec<String>,
    exprs: Vec<Expr>,
}

impl Select {
    /// From the flags' values: `--grep` words and `--filter` expressions (`id:GLOB`,
    /// `dialect:NAME`, `kind:plan|bridge`, `tag:NAME`). A malformed expression is refused.
    pub fn parse(grep: &[String], filter: &[String]) -> Result<Select, InputError> {
        let exprs = filter
            .iter()
            .map(|f| parse_expr(f))
            .collect::<Result<_, _>>()?;
        Ok(Select {
            grep: grep.iter().map(|g| g.to_lowercase()).collect(),
            exprs,
        })
    }

    /// Whether nothing is asked for (every scenario is kept).
    pub fn is_all(&self) -> bool {
        self.grep.is_empty() && self.exprs.is_empty()
    }

    /// Whether the scenario `id`, a bridge batch or not, whose plan is at `plan` (for a plan
    /// scenario) and whose file has `tags`, is kept.
    pub fn keeps(&self, id: &str, bridge: bool, plan: Option<&Path>, tags: &[String]) -> bool {
        let folded = id.to_lowercase();
        if !self.grep.is_empty() && !self.grep.iter().any(|g| folded.contains(g.as_str())) {
            return false;
        }
        self.exprs.iter().all(|e| match e {
            Expr::Id(glob) => glob_matches(glob, id),
            Expr::Kind(k) => (k == "bridge") == bridge,
            Expr::Tag(t) => tags.contains(t),
            Expr::Dialect(d) => {
                let dialect = if bridge {
                    "bridge"
                } else {
                    plan.map_or("foxstep", dialect_of)
                };
                d == dialect
            }
        })
    }
}

impl Select {
    /// Whether the plan scenario `s` is kept.
    pub fn keeps_scenario(&self, s: &Scenario) -> bool {
        self.keeps(&s.file.id, false, Some(&s.plan_path), &s.file.tags)
    }
}

fn parse_expr(f: &str) -> Result<Expr, InputError> {
    let refuse = |why: String| {
        InputError::new("--filter", Reason::InvalidArgument, why)
            .hint("id:GLOB, dialect:foxstep|devthink|bridge, kind:plan|bridge or tag:NAME")
    };
    let Some((key, value)) = f.split_once(':') else {
        return Err(refuse(format!("`{f}` is not KEY:VALUE")));
    };
    match key {
        "id" if !value.is_empty() => Ok(Expr::Id(value.to_string())),
        "dialect" if DIALECTS.contains(&value) => Ok(Expr::Dialect(value.to_string())),
        "kind" if value == "plan" || value == "bridge" => Ok(Expr::Kind(value.to_string())),
        "tag" if !value.is_empty() => Ok(Expr::Tag(value.to_string())),
        "id" | "dialect" | "kind" | "tag" => {
            Err(refuse(format!("`{value}` is not a {key} to filter on")))
        }
        _ => Err(refuse(format!("cannot filter on `{key}`"))),
    }
}

/// A plan file's dialect, read from its content (a skill-export folder is Foxstep); one that
/// cannot be read counts as Foxstep, and fails on its own when it runs.
fn dialect_of(plan: &Path) -> &'static str {
    let devthink = plan.is_file()
        && crate::json::read_text(plan, crate::limits::PLAN_BYTES)
            .ok()
            .and_then(|src| crate::json::parse_value(&src).ok())
            .is_some_and(|v| crate::plan::devthink::is_protocolv2(&v));
    if devthink { "devthink" } else { "foxstep" }
}

/// `*` matches any run of characters, everything else itself.
fn glob_matches(glob: &str, s: &str) -> bool {
    let parts: Vec<&str> = glob.split('*').collect();
    let [first, middle @ .., last] = parts.as_slice() else {
        return glob == s;
    };
    let Some(mut rest) = s.strip_prefix(first) else {
        return false;
    };
    for m in middle {
        match rest.find(m) {
            Some(at) => rest = &rest[at + m.len()..],
            None => return false,
        }
    }
    rest.len() >= last.len() && rest.ends_with(last)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn globs_match_as_a_shell_does_on_one_word() {
        assert!(glob_matches("mail-*", "mail-send"));
        assert!(glob_matches("*send*", "mail-send-declined"));
        assert!(glob_matches("a*b*c", "abc"));
        assert!(!glob_matches("a*b*c", "acb"));
        assert!(!glob_matches("mail-*", "gtk-mail"));
        assert!(glob_matches("exact", "exact"));
        assert!(!glob_matches("ab*ba", "aba"), "the ends may not overlap");
    }

    #[test]
    fn grep_is_any_word_and_filters_are_all() {
        let s = Select::parse(&["SEND".into(), "wifi".into()], &["kind:plan".into()]).unwrap();
        assert!(s.keeps("mail-send", false, None, &[]));
        assert!(s.keeps("settings-wifi-join", false, None, &[]));
        assert!(
            !s.keeps("mail-send", true, None, &[]),
            "a bridge batch is not kind:plan"
        );
        assert!(!s.keeps("calendar", false, None, &[]));
        let d = Select::parse(&[], &["dialect:bridge".into(), "id:bad-*".into()]).unwrap();
        assert!(d.keeps("bad-json", true, None, &[]));
        assert!(!d.keeps("bad-json", false, None, &[]));
        assert!(Select::default().is_all());
    }

    #[test]
    fn a_tag_filter_keeps_the_scenarios_that_carry_every_tag_asked() {
        let tags = ["gtk3".to_string(), "real".to_string()];
        let one = Select::parse(&[], &["tag:gtk3".into()]).unwrap();
        assert!(one.keeps("gtk3-yad", false, None, &tags));
        assert!(!one.keeps("mail-send", false, None, &[]));
        let both = Select::parse(&[], &["tag:gtk3".into(), "tag:real".into()]).unwrap();
        assert!(both.keeps("x", false, None, &tags));
        let other = Select::parse(&[], &["tag:gtk3".into(), "tag:qt5".into()]).unwrap();
        assert!(
            !other.keeps("x", false, None, &tags),
            "every expression must hold"
        );
        let case = Select::parse(&[], &["tag:GTK3".into()]).unwrap();
        assert!(
            !case.keeps("x", false, None, &tags),
            "a tag is matched as written"
        );
    }

    #[test]
    fn a_malformed_filter_is_refused_with_what_is_allowed() {
        for bad in [
            "tag",
            "tag:",
            "size:big",
            "dialect:web",
            "kind:agent",
            "id:",
        ] {
            let e = Select::parse(&[], &[bad.into()]).unwrap_err();
            assert_eq!(e.reason, Reason::InvalidArgument, "{bad}");
        }
    }
}
