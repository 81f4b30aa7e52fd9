//! `reports/baseline.json` (`stepreplay-baseline/1`): the accepted results a run is gated
//! against ([`Baseline`]), and the comparison that names each [`Regression`].
//!
//! A baseline keeps only what the gate compares — per scenario whether it met its expectation,
//! its outcome and each mode's scores, plus the run's scores — so it changes (and its diff in
//! review says something) only when results do. It is written by `stepreplay baseline accept`,
//! never as a side effect of `run`.

use std::collections::BTreeMap;
use std::path::Path;

use serde::{Deserialize, Serialize};

use super::entries::ReportRef;
use super::model::{Report, ScenarioReport};
use crate::errors::{Error, FieldPath, InputError, Reason};
use crate::json::{
    Visit, read_members_of, read_object_hashed, to_canonical_value, typed_from_value,
    write_canonical_spliced,
};
use crate::limits;
use crate::replay::Mode;
use crate::scenario::{FailReason, Outcome};
use crate::score::Scores;
use crate::text::plural;

/// The schema string of a baseline.
pub(crate) const BASELINE_SCHEMA: &str = "stepreplay-baseline/1";

/// Accepted results.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct Baseline {
    /// Always [`BASELINE_SCHEMA`].
    pub(crate) schema: String,
    /// Modes of the accepted run.
    pub(crate) modes: Vec<Mode>,
    /// Per scenario id.
    pub scenarios: BTreeMap<String, BaselineScenario>,
    /// The run's scores per mode.
    pub(crate) scores: ByMode,
}

/// One scenario's accepted result.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct BaselineScenario {
    /// Whether it met its expectation.
    pub met: bool,
    /// The deciding (first) mode's outcome.
    pub(crate) outcome: Outcome,
    /// Why, when not completed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) reason: Option<FailReason>,
    /// Scores per mode.
    pub(crate) scores: ByMode,
}

/// Each mode's scores. A run has a mode or two, so a short list in mode order: the smallest
/// node of a `BTreeMap` has room for 11, and with one per scenario the gate's peak on a
/// 100,000-scenario baseline was 192 MB (67 MB with this list).
#[derive(Clone, Debug, Default, PartialEq)]
pub(crate) struct ByMode(Vec<(Mode, Scores)>);

impl ByMode {
    /// The scores of `mode`.
    pub fn get(&self, mode: &Mode) -> Option<&Scores> {
        self.0.iter().find(|(m, _)| m == mode).map(|(_, s)| s)
    }

    /// Each mode and its scores, in mode order.
    pub fn iter(&self) -> impl Iterator<Item = (&Mode, &Scores)> {
        self.0.iter().map(|(m, s)| (m, s))
    }
}

impl FromIterator<(Mode, Scores)> for ByMode {
    fn from_iter<I: IntoIterator<Item = (Mode, Scores)>>(items: I) -> Self {
        let sorted: BTreeMap<Mode, Scores> = items.into_iter().collect();
        ByMode(sorted.into_iter().collect())
    }
}

impl Serialize for ByMode {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_map(self.iter())
    }
}

impl<'de> Deserialize<'de> for ByMode {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        BTreeMap::<Mode, Scores>::deserialize(d).map(|m| m.into_iter().collect())
    }
}

impl Baseline {
    /// The baseline that accepts `report` as it is.
    pub fn from_report(report: &Report) -> Baseline {
        let mut b = Baseline::accepting(report);
        report.scenarios.iter().for_each(|s| b.accept(s));
        b
    }

    /// The baseline of the run-wide part `head` (its modes and scores), with no scenario
    /// yet: entries are added one at a time ([`Baseline::accept`]), as a report is read.
    pub fn accepting(head: &Report) -> Baseline {
        Baseline {
            schema: BASELINE_SCHEMA.into(),
            modes: head.modes.clone(),
            scenarios: BTreeMap::new(),
            scores: head.summary.scores.iter().map(|(m, s)| (*m, *s)).collect(),
        }
    }

    /// `self` (the old baseline) with the entries of `ran` (a narrowed run's) accepted in
    /// place, every other entry and the run-wide scores left as they were: a run of some
    /// scenarios speaks for those only.
    pub(crate) fn updated_by(&self, ran: Baseline) -> Baseline {
        let mut out = self.clone();
        out.scenarios.extend(ran.scenarios);
        out
    }

    /// Accepts one scenario's entry as it is.
    pub fn accept(&mut self, s: &ScenarioReport) {
        let deciding = self.modes.first().and_then(|m| s.runs.get(m));
        self.scenarios.insert(
            s.id.clone(),
            BaselineScenario {
                met: s.met,
                outcome: deciding.map_or(Outcome::Failed, |r| r.outcome),
                reason: deciding.and_then(|r| r.reason),
                scores: s.runs.iter().map(|(m, r)| (*m, r.scores)).collect(),
            },
        );
    }

    /// The canonical text written to `baseline.json`.
    pub fn to_json(&self) -> String {
        to_canonical_value(self)
    }

    /// Writes [`to_json`](Self::to_json)'s bytes to `path` atomically, a scenario at a time:
    /// at 100,000 scenarios the whole text as one `Value` tree and string took 0.5 GB.
    /// A symlink at `path` is refused: the rename would replace the link with a file and the
    /// baseline it points at (a shared one) would silently stop changing.
    pub fn write(&self, path: &Path) -> Result<(), Error> {
        if std::fs::symlink_metadata(path).is_ok_and(|m| m.file_type().is_symlink()) {
            return Err(Error::Write {
                path: path.to_path_buf(),
                source: std::io::Error::other(
                    "refused: it is a symlink; name the file it points at (`--out`)",
                ),
            });
        }
        let mut out = crate::output::AtomicFile::create(path)?;
        let io = crate::output::write_error(path);
        let head = Baseline {
            schema: self.schema.clone(),
            modes: self.modes.clone(),
            scenarios: BTreeMap::new(),
            scores: self.scores.clone(),
        };
        let each = &mut |f: &mut Visit<Error>| {
            self.scenarios.iter().try_for_each(|(id, s)| {
                let v = serde_json::to_value(s)
                    .map_err(|e| Error::Internal(format!("baseline entry `{id}`: {e}")))?;
                f(Some(id), v)
            })
        };
        write_canonical_spliced(
            &head,
            "scenarios",
            self.scenarios.len(),
            each,
            &mut out,
            &io,
        )?;
        std::io::Write::flush(&mut out).map_err(io)?;
        out.commit()
    }

    /// Reads a baseline file (bounded, strict).
    pub fn load(path: &Path) -> Result<Baseline, InputError> {
        Baseline::load_hashed(path).map(|(b, _)| b)
    }

    /// Reads a baseline file a scenario at a time (each entry at most
    /// [`limits::BASELINE_ENTRY_BYTES`], the file itself unbounded) and hashes the bytes read
    /// (`fnv1a64:<16 hex digits>`), so a report can name the very baseline it was judged
    /// against. The file is read twice (its head, then its scenarios); a file that changed
    /// in between is refused rather than judged half old, half new.
    pub(crate) fn load_hashed(path: &Path) -> Result<(Baseline, String), InputError> {
        let mut scenarios = BTreeMap::new();
        let (mut b, _, hash) = read_each(path, &mut |id, s| {
            scenarios.insert(id, s);
            Ok(())
        })?;
        b.scenarios = scenarios;
        Ok((b, format!("fnv1a64:{hash:016x}")))
    }
}

/// A baseline file read a scenario at a time: its head (no scenarios) is checked, each entry
/// is checked (scores in 0..1, each id once) and handed to `keep` as it is read, so what is
/// held is the caller's choice. Returns the head, how many scenarios it has and the hash of
/// its bytes.
pub(crate) fn read_each(
    path: &Path,
    keep: &mut dyn FnMut(String, BaselineScenario) -> Result<(), InputError>,
) -> Result<(Baseline, usize, u64), InputError> {
    let cap = limits::BASELINE_ENTRY_BYTES;
    let (mut head, hash) = read_object_hashed(path, "scenarios", cap)?;
    if head.get("schema").and_then(|s| s.as_str()) != Some(BASELINE_SCHEMA) {
        return Err(InputError::new(
            path,
            Reason::UnsupportedSchema,
            "not a stepreplay baseline",
        )
        .at(FieldPath::root().key("schema"))
        .hint(format!(
            "baselines have \"schema\": \"{BASELINE_SCHEMA}\"; write one with `stepreplay baseline accept`"
        )));
    }
    // The head read skips the scenarios (an empty list in their place); they come next.
    if let Some(v) = head.get_mut("scenarios") {
        *v = serde_json::Value::Object(serde_json::Map::new());
    }
    let b: Baseline = typed_from_value(path, serde_json::Value::Object(head))?;
    in_range(path, FieldPath::root().key("scores"), &b.scores)?;
    // Each id's hash, 8 bytes a scenario, to find an id given twice without holding the ids.
    let mut hashes: Vec<u64> = Vec::new();
    let again = read_members_of(path, "scenarios", cap, &mut |id, s: BaselineScenario| {
        let at = FieldPath::root().key("scenarios").key(&id);
        in_range(path, at.key("scores"), &s.scores)?;
        hashes.push(crate::fnv::fnv1a64(id.as_bytes()));
        keep(id, s)
    })?;
    if again != hash {
        return Err(InputError::new(
            path,
            Reason::InvalidArgument,
            "the baseline changed while it was read",
        )
        .hint("run again once nothing is writing it"));
    }
    let count = hashes.len();
    hashes.sort_unstable();
    if let Some(twice) = hashes.windows(2).find(|w| w[0] == w[1]).map(|w| w[0]) {
        // Rare: a second read names the id.
        let mut seen = 0;
        let mut name = String::new();
        read_members_of(
            path,
            "scenarios",
            cap,
            &mut |id, _: serde::de::IgnoredAny| {
                if crate::fnv::fnv1a64(id.as_bytes()) == twice {
                    seen += 1;
                    if seen == 2 && name.is_empty() {
                        name = id;
                    }
                }
                Ok::<(), InputError>(())
            },
        )?;
        if !name.is_empty() {
            return Err(InputError::new(
                path,
                Reason::InvalidField,
                "this scenario is in the baseline twice",
            )
            .at(FieldPath::root().key("scenarios").key(&name))
            .hint(
                "keep one entry per scenario id; `stepreplay baseline accept` writes each once",
            ));
        }
    }
    Ok((b, count, hash))
}

/// Refuses a score outside 0..1 (the ambiguity count is a count, not a score).
fn in_range(path: &Path, at: FieldPath, scores: &ByMode) -> Result<(), InputError> {
    for (mode, s) in scores.iter() {
        for (name, v) in s.by_name() {
            let Some(v) = v else { continue };
            if name != "ambiguity_count" && !(0.0..=1.0).contains(&v) {
                return Err(InputError::new(
                    path,
                    Reason::InvalidField,
                    format!("score {v} is outside 0..1"),
                )
                .at(at.key(&crate::text::word(mode)).key(name))
                .hint("scores are fractions from 0 to 1; accept a run's own: stepreplay baseline accept"));
            }
        }
    }
    Ok(())
}

/// What got worse.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum RegressionKind {
    /// A scenario that met its expectation no longer does.
    NowFailing,
    /// A score fell below its baseline by more than the tolerance.
    ScoreDropped,
    /// More (near) ties than accepted.
    AmbiguityAppeared,
    /// A scenario of the baseline that this run should hold (it is not sharded away) and
    /// does not: a deleted or renamed scenario must be accepted, never lost quietly.
    Missing,
}

/// One regression against the baseline.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Regression {
    /// What got worse.
    pub kind: RegressionKind,
    /// The scenario; absent for the run's totals.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub scenario: Option<String>,
    /// The mode, for scores.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mode: Option<Mode>,
    /// The score's name, for scores.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub score: Option<String>,
    /// The accepted value, for scores.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub baseline: Option<f64>,
    /// The value now, for scores.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub current: Option<f64>,
    /// In words, for people.
    pub detail: String,
}

impl Regression {
    /// The regression without its scenario, for a line under the scenario's name:
    /// `score-dropped [chained] step_success dropped from 1 to 0.8 (tolerance 0)`.
    pub fn line(&self) -> String {
        let kind = crate::text::word(&self.kind);
        match self.mode {
            Some(m) => format!("{kind} [{}] {}", crate::text::word(&m), self.detail),
            None => format!("{kind} {}", self.detail),
        }
    }
}

impl std::fmt::Display for Regression {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let what = self.scenario.as_deref().unwrap_or("(all scenarios)");
        let mode = self
            .mode
            .map(|m| format!(" [{}]", crate::text::word(&m)))
            .unwrap_or_default();
        write!(f, "{what}{mode}: {}", self.detail)
    }
}

/// The `regressions.json` document written next to the report when a baseline is given.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct RegressionReport {
    /// Always `stepreplay-regressions/1`.
    pub(crate) schema: String,
    /// The tolerance used for scores.
    pub(crate) tolerance: f64,
    /// The baseline file's hash (`fnv1a64:…`), when it was read from one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub baseline: Option<String>,
    /// Scenarios in the baseline that belong to other shards of this run: the first
    /// [`LISTED`] ids.
    pub not_compared: Vec<String>,
    /// How many scenarios of the baseline belong to other shards.
    #[serde(default)]
    pub not_compared_count: usize,
    /// How many scenarios of the baseline this run should hold and lacks (the first
    /// [`LISTED`] are `missing` regressions each, the rest one line).
    #[serde(default)]
    pub missing: usize,
    /// Scenarios of this run the baseline does not have yet: not regressions, but not
    /// gated either until accepted.
    #[serde(default)]
    pub new: Vec<String>,
    /// How many of the run's scenarios were compared with the baseline.
    #[serde(default)]
    pub compared: usize,
    /// One line per scenario with regressions, failures first: its root cause and how many
    /// follow-on changes came with it.
    #[serde(default)]
    pub groups: Vec<RegressionGroup>,
    /// Every regression, scenario by scenario in the order of `groups`, each root cause first.
    pub regressions: Vec<Regression>,
    /// Where each scenario that regressed went wrong, for its group.
    #[serde(skip)]
    causes: BTreeMap<String, RegressionCause>,
}

impl RegressionReport {
    /// Its canonical text.
    pub fn to_json(&self) -> String {
        to_canonical_value(self)
    }

    /// The regressions grouped by scenario, one group per scenario (the run's totals, `None`,
    /// last); inside a group the root cause first — the scenario no longer met, then new
    /// ambiguity, then the scores that fell with it — and the groups with a real failure before
    /// those where only a score changed, so a review reads one line per scenario.
    pub(crate) fn by_scenario(&self) -> Vec<(Option<&str>, Vec<&Regression>)> {
        let mut groups: Vec<(Option<&str>, Vec<&Regression>)> = Vec::new();
        let mut at: std::collections::HashMap<Option<&str>, usize> = Default::default();
        for g in &self.regressions {
            let key = g.scenario.as_deref();
            let i = *at.entry(key).or_insert_with(|| {
                groups.push((key, Vec::new()));
                groups.len() - 1
            });
            groups[i].1.push(g);
        }
        for (_, v) in &mut groups {
            v.sort_by_key(|g| rank(g.kind));
        }
        // Stable: within a rank, the order found (the report's id order).
        groups.sort_by_key(|(k, v)| (k.is_none(), rank(v[0].kind)));
        groups
    }

    /// [`by_scenario`](Self::by_scenario) as one line each: the root cause, then how many
    /// follow-on changes came with it (their details are in `regressions` and the pages).
    pub(crate) fn grouped(&self) -> Vec<RegressionGroup> {
        self.by_scenario()
            .into_iter()
            .map(|(scenario, gs)| RegressionGroup {
                at: scenario.and_then(|id| self.causes.get(id)).cloned(),
                scenario: scenario.map(str::to_string),
                kind: gs[0].kind,
                cause: gs[0].line(),
                follow_on: gs.len() - 1,
            })
            .collect()
    }
}

/// Groups that come from one place, and that place when known.
pub type Place = (Option<RegressionCause>, Vec<RegressionGroup>);

impl RegressionReport {
    /// Whether a regression is one of the run's scores that fell with the scenarios: once a
    /// scenario regressed, those are counted but are no place of their own.
    fn folds(&self) -> impl Fn(Option<&str>, RegressionKind) -> bool {
        let any_scenario = self.regressions.iter().any(|g| g.scenario.is_some());
        move |scenario, kind| any_scenario && scenario.is_none() && kind != RegressionKind::Missing
    }

    /// The groups by where they come from: scenarios that went wrong at the same step of one
    /// plan are one place; the run's scores fall with its scenarios and are no place of their
    /// own unless nothing else regressed.
    pub fn places(&self) -> Vec<Place> {
        let folds = self.folds();
        let mut out: Vec<Place> = Vec::new();
        for g in self.grouped() {
            if folds(g.scenario.as_deref(), g.kind) {
                continue;
            }
            let same = |o: &Option<RegressionCause>| matches!((o, &g.at), (Some(o), Some(c)) if o.place() == c.place() && o.step_id == c.step_id);
            match out.iter_mut().find(|(o, _)| same(o)) {
                Some((_, gs)) => gs.push(g),
                None => out.push((g.at.clone(), vec![g])),
            }
        }
        out
    }
}

impl RegressionReport {
    /// `37 regressions against the baseline, in 1 place (11 are the suite's scores, which
    /// fell with it)`: the suite's scores are counted but are no place of their own.
    pub(crate) fn headline(&self) -> String {
        let places = self.places().len();
        let folds = self.folds();
        let folded = (self.regressions.iter())
            .filter(|g| folds(g.scenario.as_deref(), g.kind))
            .count();
        let with = match folded {
            0 => String::new(),
            n => format!(
                " ({n} {} the suite's scores, which fell with {})",
                if n == 1 { "is" } else { "are" },
                if places == 1 { "it" } else { "them" }
            ),
        };
        format!(
            "{} against the baseline, in {}{with}",
            plural(self.regressions.len(), "regression", "regressions"),
            plural(places, "place", "places")
        )
    }

    /// Each place as one line, with the scenarios it names, as the terminal, `summary.md` and
    /// the HTML banner say it: a step's place `plan.json:79:18: step 3 … (a now-failing, b
    /// score-dropped; 26 regressions)`; a scenario with no step to blame
    /// `mini-declined: score-dropped …`.
    pub(crate) fn place_lines(&self) -> Vec<(String, Vec<String>)> {
        let mut out = Vec::new();
        for (at, groups) in self.places() {
            let Some(c) = at else {
                for g in groups {
                    let line = format!("{}: {}{}", g.name(), g.cause, g.more());
                    out.push((line, g.scenario.into_iter().collect()));
                }
                continue;
            };
            let who: Vec<String> = groups
                .iter()
                .map(|g| format!("{} {}", g.name(), crate::text::word(&g.kind)))
                .collect();
            let n: usize = groups.iter().map(|g| g.follow_on + 1).sum();
            let line = format!(
                "{}: {} ({}; {})",
                c.place(),
                c.step,
                who.join(", "),
                plural(n, "regression", "regressions")
            );
            out.push((
                line,
                groups.into_iter().filter_map(|g| g.scenario).collect(),
            ));
        }
        out
    }
}

/// The order of a group's regressions and of the groups: a real failure is the root cause,
/// a score that fell with it a follow-on change.
fn rank(k: RegressionKind) -> u8 {
    match k {
        RegressionKind::NowFailing | RegressionKind::Missing => 0,
        RegressionKind::AmbiguityAppeared => 1,
        RegressionKind::ScoreDropped => 2,
    }
}

/// Where a scenario's regressions come from, as fields: the step its run first went wrong at.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct RegressionCause {
    /// The plan file.
    pub file: String,
    /// Line, from 1, when known.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub line: Option<usize>,
    /// Column, from 1, when known.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub column: Option<usize>,
    /// The step's id.
    pub step_id: String,
    /// Its reason code, when it has one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
    /// The step, its reason and what went wrong, in words.
    pub step: String,
}

impl RegressionCause {
    /// The first step scenario `s` went wrong at: in `deciding`'s run when it is not as
    /// expected, else the first failed step of any mode's run (a score that fell with it).
    pub(crate) fn of(s: &ScenarioReport, deciding: Option<Mode>) -> Option<RegressionCause> {
        // A scenario still as expected stopped where it was meant to: only a failed step in
        // some mode's run is where its scores fell.
        let step = if s.met {
            s.runs
                .values()
                .find_map(|r| r.steps.iter().find(|st| st.status == "failed"))
        } else {
            deciding.and_then(|m| s.cause_step(m))
        }?;
        Some(RegressionCause {
            file: s.plan.clone(),
            line: step.line,
            column: step.column,
            step_id: step.step_id.clone(),
            reason: step.reason.map(|r| crate::text::word(&r)),
            step: step.said(),
        })
    }

    /// `plan.json:79:18`: where to fix it.
    pub fn place(&self) -> String {
        super::failure::place(&self.file, self.line, self.column)
    }
}

/// One scenario's regressions as one line: its root cause and the number of follow-on
/// changes.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct RegressionGroup {
    /// The scenario; absent for the run's totals.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub scenario: Option<String>,
    /// The step it went wrong at (`file`, `line`, `column`, `step_id`, `reason`, `step`).
    #[serde(default, flatten, skip_serializing_if = "Option::is_none")]
    pub at: Option<RegressionCause>,
    /// What the root cause is.
    pub kind: RegressionKind,
    /// The root cause, in words (its [`Regression::line`]).
    pub cause: String,
    /// How many more regressions the scenario has.
    pub follow_on: usize,
}

impl RegressionGroup {
    /// The scenario's name, or what stands for the run's totals.
    pub fn name(&self) -> &str {
        self.scenario.as_deref().unwrap_or("(all scenarios)")
    }

    /// `· 6 follow-on changes`, or nothing when the cause is alone.
    pub fn more(&self) -> String {
        match self.follow_on {
            0 => String::new(),
            1 => " · 1 follow-on change".into(),
            n => format!(" · {n} follow-on changes"),
        }
    }
}

/// The name a review gives the run's totals, beside the scenario ids.
pub(crate) const TOTALS: &str = "(all scenarios)";

/// What accepting `new` over `old` changes, as `(id, line)` per scenario that changes and
/// [`TOTALS`] for the run's scores: the items `baseline review` decides one by one.
pub(crate) fn review_items(old: &Baseline, new: &Baseline) -> Vec<(String, String)> {
    baseline_changes(old, new)
        .into_iter()
        .map(|line| {
            let id = line
                .get(2..)
                .and_then(|rest| rest.split_once(": "))
                .map_or_else(String::new, |(id, _)| id.to_string());
            (id, line)
        })
        .collect()
}

/// `old` with the changes of `new` to the scenarios in `accepted` (and, when it is there,
/// [`TOTALS`]) taken, and every other scenario as it was: a review's partial accept.
pub(crate) fn accept_some(old: &Baseline, new: &Baseline, accepted: &[String]) -> Baseline {
    let mut out = old.clone();
    for id in accepted {
        if id == TOTALS {
            out.scores = new.scores.clone();
            continue;
        }
        match new.scenarios.get(id) {
            Some(s) => {
                out.scenarios.insert(id.clone(), s.clone());
            }
            None => {
                out.scenarios.remove(id);
            }
        }
    }
    out.modes = new.modes.clone();
    out
}

/// What accepting `new` over `old` changes, one line per scenario that changes (`+` new, `-`
/// gone, `~` changed, with each changed field as `was → now`), then the run's totals: the
/// review a person reads before accepting, as insta shows a snapshot's change.
pub(crate) fn baseline_changes(old: &Baseline, new: &Baseline) -> Vec<String> {
    let mut out = Vec::new();
    let ids: std::collections::BTreeSet<&String> =
        old.scenarios.keys().chain(new.scenarios.keys()).collect();
    for id in ids {
        match (old.scenarios.get(id), new.scenarios.get(id)) {
            (None, Some(n)) => out.push(format!("+ {id}: new ({})", summary(n))),
            (Some(o), None) => out.push(format!("- {id}: gone (was {})", summary(o))),
            (Some(o), Some(n)) if o != n => {
                let mut what = Vec::new();
                if o.met != n.met {
                    what.push(format!("met {} → {}", o.met, n.met));
                }
                if (o.outcome, o.reason) != (n.outcome, n.reason) {
                    what.push(format!("outcome {} → {}", outcome(o), outcome(n)));
                }
                what.extend(score_changes(&o.scores, &n.scores));
                out.push(format!("~ {id}: {}", what.join("; ")));
            }
            _ => {}
        }
    }
    let totals = score_changes(&old.scores, &new.scores);
    if !totals.is_empty() {
        out.push(format!("~ (all scenarios): {}", totals.join("; ")));
    }
    out
}

fn summary(s: &BaselineScenario) -> String {
    let met = if s.met {
        "as expected"
    } else {
        "NOT as expected"
    };
    format!("{met}, {}", outcome(s))
}

fn outcome(s: &BaselineScenario) -> String {
    let o = crate::text::word(&s.outcome);
    match s.reason {
        Some(r) => format!("{o} ({})", crate::text::word(&r)),
        None => o,
    }
}

/// `mode score was → now` for each score that differs.
fn score_changes(old: &ByMode, new: &ByMode) -> Vec<String> {
    let show = |name: &str, v: Option<f64>| match v {
        None => "—".to_string(),
        Some(v) if name == "ambiguity_count" => format!("{v}"),
        Some(v) => format!("{v:.3}"),
    };
    let mut out = Vec::new();
    for (mode, n) in new.iter() {
        let Some(o) = old.get(mode) else { continue };
        let (ob, nb) = (o.by_name(), n.by_name());
        for (name, nv) in &nb {
            let ov = ob[name];
            // As shown: a change below the third decimal is no change to review.
            if show(name, ov) != show(name, *nv) {
                out.push(format!(
                    "{} {name} {} → {}",
                    crate::text::word(mode),
                    show(name, ov),
                    show(name, *nv)
                ));
            }
        }
    }
    out
}

/// How many ids of the baseline's scenarios the run lacks a comparison names (in id order);
/// past it they are counted, so a baseline far larger than the run gives a short report.
pub(crate) const LISTED: usize = 20;

/// The baseline's entries one at a time: called with a function to hand each to.
pub(crate) type EachEntry<'f> = dyn FnMut(&mut dyn FnMut(String, BaselineScenario) -> Result<(), Error>) -> Result<(), Error>
    + 'f;

/// Compares a run with its baseline: a scenario that met its expectation and no longer does,
/// a score below its baseline by more than `tolerance`, more ambiguities than accepted, or a
/// scenario of the baseline missing from the run (one of another shard is not compared).
/// Scenarios new since the baseline are listed, not regressions; run totals are compared only
/// when the run holds exactly the baseline's scenarios (a shard's totals say nothing of the
/// run's). Whether anything was compared at all is for the caller to judge
/// ([`RegressionReport::compared`]).
pub fn compare<'a>(
    baseline: &Baseline,
    report: impl Into<ReportRef<'a>>,
    tolerance: f64,
) -> Result<RegressionReport, Error> {
    let each = &mut |f: &mut dyn FnMut(String, BaselineScenario) -> Result<(), Error>| {
        baseline
            .scenarios
            .iter()
            .try_for_each(|(id, b)| f(id.clone(), b.clone()))
    };
    compare_each(&baseline.scores, each, report.into(), tolerance)
}

/// What a comparison keeps of one scenario of the run: bounded by the run, not the baseline.
struct Ran {
    met: bool,
    /// Why it is not as expected, the root cause first (when not met).
    detail: String,
    scores: ByMode,
    compared: bool,
    found: Vec<Regression>,
    cause: Option<RegressionCause>,
}

impl Ran {
    fn of(s: &ScenarioReport, deciding: Option<Mode>) -> Ran {
        let detail = if s.met {
            String::new()
        } else {
            // The root cause first: where the deciding run first failed, and why.
            match deciding.and_then(|m| s.failure(m)) {
                Some(f) => match (&f.step, &s.mismatch) {
                    (Some(step), Some(m)) => format!("{step} at {}; {m}", f.place()),
                    (Some(step), None) => format!("{step} at {}", f.place()),
                    (None, _) => format!("{} at {}", f.message, f.place()),
                },
                None => s
                    .mismatch
                    .clone()
                    .unwrap_or_else(|| "not as expected".into()),
            }
        };
        Ran {
            met: s.met,
            detail,
            scores: s.runs.iter().map(|(m, r)| (*m, r.scores)).collect(),
            compared: false,
            found: Vec::new(),
            cause: RegressionCause::of(s, deciding),
        }
    }
}

/// [`compare`] with the baseline's entries handed over one at a time by `each` (read from
/// its file as they come): what is held is the run's scenarios and [`LISTED`] ids.
pub(crate) fn compare_each(
    baseline_scores: &ByMode,
    each: &mut EachEntry,
    ReportRef {
        head: report,
        entries,
    }: ReportRef,
    tolerance: f64,
) -> Result<RegressionReport, Error> {
    let deciding = report.modes.first().copied();
    let mut ran: BTreeMap<String, Ran> = BTreeMap::new();
    entries.each(&mut |s| {
        ran.insert(s.id.clone(), Ran::of(s, deciding));
        Ok(())
    })?;
    let mut in_baseline = 0usize;
    // The first LISTED ids (the smallest) of each kind the run lacks, and how many.
    let mut missing = (std::collections::BTreeSet::new(), 0usize);
    let mut not_compared = (std::collections::BTreeSet::new(), 0usize);
    each(&mut |id, b| {
        in_baseline += 1;
        let Some(r) = ran.get_mut(&id) else {
            let lacking = if report.shard.is_some_and(|sh| !sh.contains(&id)) {
                &mut not_compared
            } else {
                &mut missing
            };
            lacking.1 += 1;
            lacking.0.insert(id);
            if lacking.0.len() > LISTED {
                lacking.0.pop_last();
            }
            return Ok(());
        };
        if std::mem::replace(&mut r.compared, true) {
            return Err(Error::Internal(format!(
                "scenario `{id}` is in the baseline twice"
            )));
        }
        if b.met && !r.met {
            r.found.push(Regression {
                kind: RegressionKind::NowFailing,
                scenario: Some(id.clone()),
                mode: None,
                score: None,
                baseline: None,
                current: None,
                detail: std::mem::take(&mut r.detail),
            });
        }
        for (mode, now) in r.scores.iter() {
            if let Some(was) = b.scores.get(mode) {
                score_regressions(Some(&id), *mode, was, now, tolerance, &mut r.found);
            }
        }
        Ok(())
    })?;
    let compared = ran.values().filter(|r| r.compared).count();
    let new: Vec<String> = ran
        .iter()
        .filter(|(_, r)| !r.compared)
        .map(|(id, _)| id.clone())
        .collect();
    let same_suite = compared == ran.len() && in_baseline == ran.len();
    let mut causes = BTreeMap::new();
    let mut out = Vec::new();
    for (id, r) in ran {
        if let Some(c) = r.cause.filter(|_| !r.found.is_empty()) {
            causes.insert(id, c);
        }
        out.extend(r.found);
    }
    if same_suite {
        for (mode, now) in &report.summary.scores {
            if let Some(was) = baseline_scores.get(mode) {
                score_regressions(None, *mode, was, now, tolerance, &mut out);
            }
        }
    }
    missing_regressions(&missing.0, missing.1, &mut out);
    let mut r = RegressionReport {
        schema: "stepreplay-regressions/1".into(),
        tolerance,
        baseline: None,
        not_compared: not_compared.0.into_iter().collect(),
        not_compared_count: not_compared.1,
        new,
        compared,
        missing: missing.1,
        groups: Vec::new(),
        regressions: Vec::new(),
        causes,
    };
    r.regressions = out;
    r.regressions = r
        .by_scenario()
        .into_iter()
        .flat_map(|(_, gs)| gs)
        .cloned()
        .collect();
    r.groups = r.grouped();
    Ok(r)
}

/// The baseline's scenarios the run lacks, `listed` by id and `count` in all: one regression
/// each for those listed, one line for the rest.
fn missing_regressions(
    listed: &std::collections::BTreeSet<String>,
    count: usize,
    out: &mut Vec<Regression>,
) {
    for id in listed {
        out.push(Regression {
            kind: RegressionKind::Missing,
            scenario: Some(id.clone()),
            mode: None,
            score: None,
            baseline: None,
            current: None,
            detail: "is in the baseline but not in this run (accept a new baseline to drop it)"
                .into(),
        });
    }
    if count > listed.len() {
        out.push(Regression {
            kind: RegressionKind::Missing,
            scenario: None,
            mode: None,
            score: None,
            baseline: None,
            current: None,
            detail: format!(
                "{} more scenarios of the baseline are not in this run (the first {} are named; \
                 accept a new baseline to drop them)",
                count - listed.len(),
                listed.len()
            ),
        });
    }
}

/// A score as the reports print it (`{:.3}`), read back: the same rounding as the tables.
fn as_shown(v: f64) -> f64 {
    format!("{v:.3}").parse().unwrap_or(v)
}

fn score_regressions(
    scenario: Option<&String>,
    mode: Mode,
    was: &Scores,
    now: &Scores,
    tolerance: f64,
    out: &mut Vec<Regression>,
) {
    let (was_by, now_by) = (was.by_name(), now.by_name());
    for (name, w) in &was_by {
        // A score the baseline had and this run cannot give is a drop: judging stopped.
        let Some(w) = *w else { continue };
        let Some(n) = now_by[name] else {
            out.push(Regression {
                kind: RegressionKind::ScoreDropped,
                scenario: scenario.cloned(),
                mode: Some(mode),
                score: Some(name.to_string()),
                baseline: Some(w),
                current: None,
                detail: format!("{name} was {w:.3}; now nothing is judged"),
            });
            continue;
        };
        let (w, n) = (&w, n);
        let (kind, detail) = if *name == "ambiguity_count" {
            if n <= *w {
                continue;
            }
            (
                RegressionKind::AmbiguityAppeared,
                format!("ambiguous resolutions rose from {w} to {n}"),
            )
        } else {
            // Compared as every report shows them, to three decimals: a drop nobody can see
            // in the table (0.980392 to 0.980159, both 0.980) is no regression.
            if crate::json::round(as_shown(*w) - as_shown(n)) <= tolerance {
                continue;
            }
            (
                RegressionKind::ScoreDropped,
                format!("{name} dropped from {w:.3} to {n:.3} (tolerance {tolerance})"),
            )
        };
        out.push(Regression {
            kind,
            scenario: scenario.cloned(),
            mode: Some(mode),
            score: Some(name.to_string()),
            baseline: Some(*w),
            current: Some(n),
            detail,
        });
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::score::Score;

    fn scenario(met: bool, outcome: Outcome, step_success: f64) -> BaselineScenario {
        let scores = Scores {
            step_success: Score(Some(step_success)),
            ..Scores::default()
        };
        BaselineScenario {
            met,
            outcome,
            reason: None,
            scores: [(Mode::Chained, scores)].into_iter().collect(),
        }
    }

    fn baseline(scenarios: &[(&str, BaselineScenario)]) -> Baseline {
        Baseline {
            schema: BASELINE_SCHEMA.into(),
            modes: vec![Mode::Chained],
            scenarios: scenarios
                .iter()
                .map(|(id, s)| (id.to_string(), s.clone()))
                .collect(),
            scores: ByMode::default(),
        }
    }

    #[test]
    fn a_baseline_is_read_a_scenario_at_a_time_with_the_hash_of_its_bytes() {
        let dir = std::env::temp_dir().join(format!("stepreplay-baseline-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let b = baseline(&[
            ("a", scenario(true, Outcome::Completed, 1.0)),
            ("b", scenario(false, Outcome::Failed, 0.5)),
        ]);
        let p = dir.join("baseline.json");
        std::fs::write(&p, b.to_json()).unwrap();
        let (read, hash) = Baseline::load_hashed(&p).unwrap();
        assert_eq!(read, b);
        let want = crate::fnv::fnv1a64(b.to_json().as_bytes());
        assert_eq!(hash, format!("fnv1a64:{want:016x}"));
        // One scenario twice, one entry past its cap, the wrong schema: each refused, named.
        let text = b.to_json();
        let twice = text.replacen("\"b\":", "\"a\":", 1);
        std::fs::write(&p, &twice).unwrap();
        let e = Baseline::load(&p).unwrap_err();
        assert_eq!(e.path.to_string(), "scenarios.a", "{e}");
        let pad = " ".repeat(limits::BASELINE_ENTRY_BYTES as usize);
        std::fs::write(&p, text.replacen("\"met\":", &format!("\"met\":{pad}"), 1)).unwrap();
        let e = Baseline::load(&p).unwrap_err();
        assert_eq!(e.reason, Reason::LimitExceeded, "{e}");
        assert!(e.path.to_string().starts_with("scenarios.a"), "{e}");
        std::fs::write(&p, text.replace(BASELINE_SCHEMA, "other/1")).unwrap();
        assert_eq!(
            Baseline::load(&p).unwrap_err().reason,
            Reason::UnsupportedSchema
        );
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn a_score_outside_0_to_1_is_refused_with_its_field_path() {
        let dir = std::env::temp_dir().join(format!("stepreplay-range-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let p = dir.join("baseline.json");
        for (bad, field) in [(2.0, "step_success"), (-0.5, "step_success")] {
            let b = baseline(&[("a", scenario(true, Outcome::Completed, bad))]);
            std::fs::write(&p, b.to_json()).unwrap();
            let e = Baseline::load(&p).unwrap_err();
            assert_eq!(e.reason, Reason::InvalidField, "{e}");
            assert_eq!(
                e.path.to_string(),
                format!("scenarios.a.scores.chained.{field}"),
                "{e}"
            );
            assert!(e.to_string().contains("outside 0..1"), "{e}");
        }
        let mut b = baseline(&[("a", scenario(true, Outcome::Completed, 1.0))]);
        b.scores = scenario(true, Outcome::Completed, 1.5).scores;
        std::fs::write(&p, b.to_json()).unwrap();
        let e = Baseline::load(&p).unwrap_err();
        assert_eq!(e.path.to_string(), "scores.chained.step_success", "{e}");
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn scenarios_the_run_lacks_are_named_up_to_a_limit_then_counted() {
        let extra: Vec<(String, BaselineScenario)> = (0..LISTED + 5)
            .map(|i| {
                (
                    format!("gone-{i:03}"),
                    scenario(true, Outcome::Completed, 1.0),
                )
            })
            .collect();
        let mut b = baseline(&[]);
        b.scenarios.extend(extra);
        let modes = [Mode::Chained];
        let head = Report::head::<&str>(&[], &modes, super::super::Totals::new(&modes).summary());
        let r = compare(&b, &head, 0.0).unwrap();
        assert_eq!(r.missing, LISTED + 5);
        let named: Vec<_> = r
            .regressions
            .iter()
            .filter_map(|g| g.scenario.as_deref())
            .collect();
        assert_eq!(named.len(), LISTED);
        assert_eq!(named[0], "gone-000");
        let rest: Vec<_> = r
            .regressions
            .iter()
            .filter(|g| g.scenario.is_none())
            .collect();
        assert_eq!(rest.len(), 1, "{:?}", r.regressions);
        assert!(
            rest[0].detail.starts_with("5 more scenarios"),
            "{}",
            rest[0].detail
        );
    }

    #[test]
    fn a_baseline_written_a_scenario_at_a_time_is_its_canonical_text() {
        let dir = std::env::temp_dir().join(format!("stepreplay-bwrite-{}", std::process::id()));
        let p = dir.join("baseline.json");
        for b in [
            baseline(&[]),
            baseline(&[
                ("b \"quoted\" ünï", scenario(false, Outcome::Failed, 0.5)),
                ("a", scenario(true, Outcome::Completed, 1.0)),
            ]),
        ] {
            b.write(&p).unwrap();
            assert_eq!(std::fs::read_to_string(&p).unwrap(), b.to_json());
            assert_eq!(Baseline::load(&p).unwrap(), b);
        }
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn a_drop_is_judged_at_the_precision_the_reports_show() {
        let drops = |was: f64, now: f64, tolerance: f64| {
            let w = *scenario(true, Outcome::Completed, was)
                .scores
                .get(&Mode::Chained)
                .unwrap();
            let n = *scenario(true, Outcome::Completed, now)
                .scores
                .get(&Mode::Chained)
                .unwrap();
            let mut out = Vec::new();
            score_regressions(None, Mode::Chained, &w, &n, tolerance, &mut out);
            out.len()
        };
        assert_eq!(drops(0.980392, 0.980159, 0.0), 0, "both show 0.980");
        assert_eq!(drops(0.980, 0.979, 0.0), 1, "0.980 to 0.979 shows");
        assert_eq!(drops(0.9804, 0.9788, 0.0), 1, "0.980 to 0.979 once rounded");
        assert_eq!(drops(0.980, 0.979, 0.001), 0, "within a stated tolerance");
        assert_eq!(drops(0.980, 0.978, 0.001), 1, "beyond it");
    }

    #[test]
    fn changes_read_one_line_per_scenario() {
        let old = baseline(&[
            ("a", scenario(true, Outcome::Completed, 1.0)),
            ("b", scenario(true, Outcome::Completed, 1.0)),
            ("same", scenario(true, Outcome::Completed, 0.5)),
        ]);
        let new = baseline(&[
            ("a", scenario(false, Outcome::Failed, 0.25)),
            ("c", scenario(true, Outcome::Completed, 1.0)),
            ("same", scenario(true, Outcome::Completed, 0.5)),
        ]);
        assert_eq!(
            baseline_changes(&old, &new),
            [
                "~ a: met true → false; outcome completed → failed; chained step_success 1.000 → 0.250",
                "- b: gone (was as expected, completed)",
                "+ c: new (as expected, completed)",
            ]
        );
        assert!(baseline_changes(&new, &new).is_empty());
        let ids: Vec<String> = review_items(&old, &new)
            .into_iter()
            .map(|(id, _)| id)
            .collect();
        assert_eq!(ids, ["a", "b", "c"]);
        // Accepting one change keeps every other scenario as it was.
        let some = accept_some(&old, &new, &["b".to_string(), "c".to_string()]);
        assert_eq!(some.scenarios["a"], old.scenarios["a"]);
        assert!(!some.scenarios.contains_key("b"));
        assert_eq!(some.scenarios["c"], new.scenarios["c"]);
        assert_eq!(
            review_items(&some, &new).len(),
            1,
            "only `a` is left to review"
        );
    }

    #[test]
    fn regressions_group_by_scenario_failures_first_totals_last_in_the_order_found() {
        let r = |kind, scenario: Option<&str>, detail: &str| Regression {
            kind,
            scenario: scenario.map(str::to_string),
            mode: None,
            score: None,
            baseline: None,
            current: None,
            detail: detail.into(),
        };
        use RegressionKind::*;
        // One scenario's regressions need not be next to each other.
        let report = RegressionReport {
            schema: "stepreplay-regressions/1".into(),
            tolerance: 0.0,
            baseline: None,
            not_compared: Vec::new(),
            not_compared_count: 0,
            new: Vec::new(),
            compared: 3,
            missing: 0,
            groups: Vec::new(),
            regressions: vec![
                r(ScoreDropped, Some("b"), "b score"),
                r(ScoreDropped, None, "total score"),
                r(ScoreDropped, Some("c"), "c score"),
                r(NowFailing, Some("b"), "b fails"),
                r(AmbiguityAppeared, Some("a"), "a tie"),
                r(ScoreDropped, Some("a"), "a score"),
            ],
            causes: BTreeMap::new(),
        };
        let groups: Vec<(Option<&str>, Vec<&str>)> = report
            .by_scenario()
            .into_iter()
            .map(|(k, gs)| (k, gs.iter().map(|g| g.detail.as_str()).collect()))
            .collect();
        assert_eq!(
            groups,
            [
                (Some("b"), vec!["b fails", "b score"]),
                (Some("a"), vec!["a tie", "a score"]),
                (Some("c"), vec!["c score"]),
                (None, vec!["total score"]),
            ]
        );
    }
}
