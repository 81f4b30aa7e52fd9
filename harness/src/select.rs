//! Which scenarios of a suite a command keeps ([`Select`]): `--grep` words, any of which a
//! scenario's id holds; `--filter` expressions over its id, dialect, kind, tags and status in
//! the last run, joined by `and`, `or`, `not` and parentheses (nextest's filter expressions,
//! Playwright's `--grep-invert`), each of which must hold; and a last run's failures
//! (`--last-failed`, the same as `status:failed`). `run`, `mutate` and `agent` narrow their suite with this one filter.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

use crate::errors::{InputError, Reason};
use crate::scenario::Scenario;

/// One `--filter` expression.
#[derive(Clone, Debug, PartialEq, Eq)]
enum Expr {
    Pred(Pred),
    Not(Box<Expr>),
    And(Vec<Expr>),
    Or(Vec<Expr>),
}

/// What one `KEY:VALUE` asks of a scenario.
#[derive(Clone, Debug, PartialEq, Eq)]
enum Pred {
    /// `id:GLOB`: the id matches the glob (`*` any run of characters).
    Id(String),
    /// `dialect:foxstep|devthink|bridge`: the plan's dialect (a bridge batch is `bridge`).
    Dialect(String),
    /// `kind:plan|bridge`: a plan scenario or a bridge batch.
    Kind(String),
    /// `tag:NAME`: the scenario file's `tags` hold NAME.
    Tag(String),
    /// `status:failed|passed|new`: missed or met its expectation in the last run, or was not
    /// in it.
    Status(String),
}

const DIALECTS: [&str; 3] = ["foxstep", "devthink", "bridge"];

const STATUSES: [&str; 3] = ["failed", "passed", "new"];

const FILTER_HINT: &str = "KEY:VALUE with id:GLOB, dialect:foxstep|devthink|bridge, \
kind:plan|bridge, tag:NAME or status:failed|passed|new, joined by and, or, not (or &, |, !) \
and parentheses";

/// The scenarios a run keeps; the default keeps every one.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Select {
    grep: Vec<String>,
    exprs: Vec<Expr>,
    /// `--last-failed`.
    last_failed: bool,
    /// The last run: whether each scenario in it met its expectation, by id.
    last: BTreeMap<String, bool>,
}

/// A scenario as a filter sees it.
struct Seen<'a> {
    id: &'a str,
    bridge: bool,
    plan: Option<&'a Path>,
    tags: &'a [String],
    /// Whether it met its expectation in the last run; None when it was not in it.
    met: Option<bool>,
}

impl Select {
    /// From the flags' values: `--grep` words and `--filter` expressions. A malformed
    /// expression is refused, with where it went wrong.
    pub(crate) fn parse(grep: &[String], filter: &[String]) -> Result<Select, InputError> {
        let exprs = filter
            .iter()
            .map(|f| parse_filter(f))
            .collect::<Result<_, _>>()?;
        Ok(Select {
            grep: grep.iter().map(|g| g.to_lowercase()).collect(),
            exprs,
            last_failed: false,
            last: BTreeMap::new(),
        })
    }

    /// Whether it reads the last run (`--last-failed` or a `status:` filter).
    pub(crate) fn reads_last_run(&self) -> bool {
        let mut asked = Vec::new();
        self.exprs.iter().for_each(|e| e.statuses(&mut asked));
        self.last_failed || !asked.is_empty()
    }

    /// With the last run's outcomes (whether each scenario met its expectation, by id), and
    /// keeping only its failures when `failed_only` (`--last-failed`).
    pub(crate) fn last_run(mut self, met: BTreeMap<String, bool>, failed_only: bool) -> Select {
        self.last = met;
        self.last_failed = failed_only;
        self
    }

    /// Whether nothing is asked for (every scenario is kept).
    pub(crate) fn is_all(&self) -> bool {
        self.grep.is_empty() && self.exprs.is_empty() && !self.last_failed
    }

    /// The flags that narrowed, for a message (`--grep`, `--filter`, `--last-failed`).
    pub(crate) fn flags(&self) -> String {
        let given = [
            (!self.grep.is_empty(), "--grep"),
            (!self.exprs.is_empty(), "--filter"),
            (self.last_failed, "--last-failed"),
        ];
        let names: Vec<&str> = given.iter().filter(|g| g.0).map(|g| g.1).collect();
        names.join(" and ")
    }

    /// The first `tag:NAME` that no scenario of `known` carries, refused with the tags there
    /// are (a typo in a tag would otherwise read as "no scenario matches").
    pub(crate) fn unknown_tag(&self, known: &BTreeSet<&str>) -> Result<(), InputError> {
        let mut asked = Vec::new();
        self.exprs.iter().for_each(|e| e.tags(&mut asked));
        let Some(t) = asked.into_iter().find(|t| !known.contains(t)) else {
            return Ok(());
        };
        let names: Vec<&str> = known.iter().copied().collect();
        let mut e = InputError::new(
            "--filter",
            Reason::InvalidArgument,
            format!("no scenario has the tag `{t}`"),
        );
        e = match crate::text::closest(t, &names) {
            Some(near) => e.hint(format!(
                "did you mean `tag:{near}`? the tags: {}",
                names.join(", ")
            )),
            None if names.is_empty() => e.hint("no scenario of the suite has tags"),
            None => e.hint(format!("the tags: {}", names.join(", "))),
        };
        Err(e)
    }

    /// Whether the scenario `id`, a bridge batch or not, whose plan is at `plan` (for a plan
    /// scenario) and whose file has `tags`, is kept.
    pub(crate) fn keeps(
        &self,
        id: &str,
        bridge: bool,
        plan: Option<&Path>,
        tags: &[String],
    ) -> bool {
        let folded = id.to_lowercase();
        if !self.grep.is_empty() && !self.grep.iter().any(|g| folded.contains(g.as_str())) {
            return false;
        }
        let met = self.last.get(id).copied();
        if self.last_failed && met != Some(false) {
            return false;
        }
        let seen = Seen {
            id,
            bridge,
            plan,
            tags,
            met,
        };
        self.exprs.iter().all(|e| e.holds(&seen))
    }
}

impl Select {
    /// Whether the plan scenario `s` is kept.
    pub(crate) fn keeps_scenario(&self, s: &Scenario) -> bool {
        self.keeps(&s.file.id, false, Some(&s.plan_path), &s.file.tags)
    }
}

impl Expr {
    fn holds(&self, s: &Seen<'_>) -> bool {
        match self {
            Expr::Not(e) => !e.holds(s),
            Expr::And(es) => es.iter().all(|e| e.holds(s)),
            Expr::Or(es) => es.iter().any(|e| e.holds(s)),
            Expr::Pred(Pred::Id(glob)) => glob_matches(glob, s.id),
            Expr::Pred(Pred::Kind(k)) => (k == "bridge") == s.bridge,
            Expr::Pred(Pred::Tag(t)) => s.tags.contains(t),
            Expr::Pred(Pred::Status(w)) => match s.met {
                Some(met) => w == if met { "passed" } else { "failed" },
                None => w == "new",
            },
            Expr::Pred(Pred::Dialect(d)) => {
                let dialect = if s.bridge {
                    "bridge"
                } else {
                    s.plan.map_or("foxstep", dialect_of)
                };
                d == dialect
            }
        }
    }

    fn tags<'a>(&'a self, out: &mut Vec<&'a str>) {
        self.each(&mut |p| {
            if let Pred::Tag(t) = p {
                out.push(t);
            }
        });
    }

    fn statuses<'a>(&'a self, out: &mut Vec<&'a str>) {
        self.each(&mut |p| {
            if let Pred::Status(w) = p {
                out.push(w);
            }
        });
    }

    /// Calls `f` with each `KEY:VALUE` of the expression.
    fn each<'a>(&'a self, f: &mut dyn FnMut(&'a Pred)) {
        match self {
            Expr::Pred(p) => f(p),
            Expr::Not(e) => e.each(f),
            Expr::And(es) | Expr::Or(es) => es.iter().for_each(|e| e.each(f)),
        }
    }
}

/// A `--filter` value: `or` binds loosest, then `and`, then `not`.
fn parse_filter(f: &str) -> Result<Expr, InputError> {
    let mut p = Parser {
        tokens: tokens(f),
        at: 0,
        src: f,
    };
    let e = p.or()?;
    match p.tokens.get(p.at) {
        None => Ok(e),
        Some(t) => Err(p.refuse(format!("`{t}` where the expression should end"))),
    }
}

/// Words and the one-character operators `(`, `)`, `!`, `&`, `|`.
fn tokens(s: &str) -> Vec<&str> {
    let mut out = Vec::new();
    let mut start = None;
    for (i, c) in s.char_indices() {
        let op = "()!&|".contains(c);
        if c.is_whitespace() || op {
            if let Some(b) = start.take() {
                out.push(&s[b..i]);
            }
            if op {
                out.push(&s[i..i + 1]);
            }
        } else if start.is_none() {
            start = Some(i);
        }
    }
    if let Some(b) = start {
        out.push(&s[b..]);
    }
    out
}

struct Parser<'a> {
    tokens: Vec<&'a str>,
    at: usize,
    src: &'a str,
}

impl Parser<'_> {
    fn eat(&mut self, words: &[&str]) -> bool {
        let hit = self.tokens.get(self.at).is_some_and(|t| words.contains(t));
        self.at += usize::from(hit);
        hit
    }

    fn refuse(&self, why: String) -> InputError {
        InputError::new(
            "--filter",
            Reason::InvalidArgument,
            format!("`{}`: {why}", self.src),
        )
        .hint(FILTER_HINT)
    }

    fn or(&mut self) -> Result<Expr, InputError> {
        let mut es = vec![self.and()?];
        while self.eat(&["or", "|"]) {
            es.push(self.and()?);
        }
        Ok(if es.len() == 1 {
            es.remove(0)
        } else {
            Expr::Or(es)
        })
    }

    fn and(&mut self) -> Result<Expr, InputError> {
        let mut es = vec![self.unary()?];
        while self.eat(&["and", "&"]) {
            es.push(self.unary()?);
        }
        Ok(if es.len() == 1 {
            es.remove(0)
        } else {
            Expr::And(es)
        })
    }

    fn unary(&mut self) -> Result<Expr, InputError> {
        if self.eat(&["not", "!"]) {
            return Ok(Expr::Not(Box::new(self.unary()?)));
        }
        if self.eat(&["("]) {
            let e = self.or()?;
            if !self.eat(&[")"]) {
                return Err(self.refuse("a `(` is not closed".into()));
            }
            return Ok(e);
        }
        let Some(word) = self.tokens.get(self.at).copied() else {
            return Err(self.refuse("it ends where a KEY:VALUE should be".into()));
        };
        self.at += 1;
        pred(word).map(Expr::Pred).map_err(|why| self.refuse(why))
    }
}

fn pred(word: &str) -> Result<Pred, String> {
    let Some((key, value)) = word.split_once(':') else {
        return Err(format!("`{word}` is not KEY:VALUE"));
    };
    match key {
        "id" if !value.is_empty() => Ok(Pred::Id(value.to_string())),
        "dialect" if DIALECTS.contains(&value) => Ok(Pred::Dialect(value.to_string())),
        "kind" if value == "plan" || value == "bridge" => Ok(Pred::Kind(value.to_string())),
        "tag" if !value.is_empty() => Ok(Pred::Tag(value.to_string())),
        "status" if STATUSES.contains(&value) => Ok(Pred::Status(value.to_string())),
        "id" | "dialect" | "kind" | "tag" | "status" => {
            Err(format!("`{value}` is not a {key} to filter on"))
        }
        _ => Err(format!("cannot filter on `{key}`")),
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
    fn filters_join_with_or_and_not_and_parentheses() {
        let keeps = |f: &str, id: &str, tags: &[&str]| {
            let tags: Vec<String> = tags.iter().map(|t| t.to_string()).collect();
            Select::parse(&[], &[f.into()])
                .unwrap()
                .keeps(id, false, None, &tags)
        };
        assert!(keeps("tag:gtk3 or tag:qt5", "a", &["qt5"]));
        assert!(!keeps("tag:gtk3 | tag:qt5", "a", &["gtk4"]));
        assert!(!keeps("!tag:gtk3", "a", &["gtk3"]));
        assert!(keeps("not tag:gtk3", "a", &["qt5"]));
        assert!(keeps("tag:real and not id:gtk3-*", "qt5-x", &["real"]));
        assert!(!keeps("tag:real & !id:gtk3-*", "gtk3-x", &["real"]));
        // `and` binds closer than `or`; parentheses say otherwise.
        assert!(keeps("id:a or id:b and tag:t", "a", &[]));
        assert!(!keeps("(id:a or id:b) and tag:t", "a", &[]));
        assert!(keeps("(id:a|id:b)&tag:t", "b", &["t"]));
    }

    #[test]
    fn an_unknown_tag_is_refused_with_the_tags_and_a_near_one() {
        let known: BTreeSet<&str> = ["gtk3", "qt5", "real"].into();
        let s = Select::parse(&[], &["tag:gtk33 or tag:qt5".into()]).unwrap();
        let e = s.unknown_tag(&known).unwrap_err();
        assert!(e.message.contains("`gtk33`"), "{}", e.message);
        let hint = e.hint.unwrap_or_default();
        assert!(
            hint.contains("did you mean `tag:gtk3`") && hint.contains("real"),
            "{hint}"
        );
        let fine = Select::parse(&[], &["not tag:qt5".into()]).unwrap();
        assert!(fine.unknown_tag(&known).is_ok());
    }

    fn last() -> BTreeMap<String, bool> {
        [("a".to_string(), true), ("b".to_string(), false)].into()
    }

    #[test]
    fn only_the_last_failures_are_kept_and_the_flags_are_named() {
        let s = Select::parse(&[], &["kind:plan".into()])
            .unwrap()
            .last_run(last(), true);
        assert!(s.keeps("b", false, None, &[]) && !s.keeps("a", false, None, &[]));
        assert!(!s.keeps("c", false, None, &[]), "not in the last run");
        assert_eq!(s.flags(), "--filter and --last-failed");
        assert!(!s.is_all() && s.reads_last_run());
    }

    #[test]
    fn status_filters_read_the_last_run() {
        let kept = |f: &str| {
            let s = Select::parse(&[], &[f.into()]).unwrap();
            assert!(s.reads_last_run(), "{f}");
            let s = s.last_run(last(), false);
            ["a", "b", "c"]
                .into_iter()
                .filter(|id| s.keeps(id, false, None, &[]))
                .collect::<Vec<_>>()
        };
        assert_eq!(kept("status:failed"), ["b"]);
        assert_eq!(kept("status:passed"), ["a"]);
        assert_eq!(kept("status:new"), ["c"]);
        assert_eq!(kept("not status:passed"), ["b", "c"]);
        assert_eq!(kept("status:failed or id:c"), ["b", "c"]);
        let plain = Select::parse(&[], &["tag:x".into()]).unwrap();
        assert!(!plain.reads_last_run());
        assert!(Select::parse(&[], &["status:flaky".into()]).is_err());
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
            "tag:a or",
            "(tag:a",
            "tag:a)",
            "not",
            "tag:a tag:b",
            "status:",
            "status:broken",
        ] {
            let e = Select::parse(&[], &[bad.into()]).unwrap_err();
            assert_eq!(e.reason, Reason::InvalidArgument, "{bad}");
        }
    }
}
