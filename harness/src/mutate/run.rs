//! Trying the mutants: each scenario that passes as it is has its plan changed one fault at a
//! time, and every copy is replayed on the same recording and judged as `run` judges it.

use std::collections::BTreeMap;
use std::path::PathBuf;

use serde::Serialize;

use super::classes::{Class, Mutant, PER_CLASS, mutants};
use crate::errors::{Error, InputError};
use crate::fnv::fnv1a64;
use crate::json::{Source, parse_value};
use crate::recording::load_recording;
use crate::replay::Mode;
use crate::report::MutationScore;
use crate::scenario::{Outcome, SCENARIO_SCHEMA, Scenario, load_scenario};
use crate::select::Select;
use crate::suite::{discover_schemas, judge_plan_text, select_files};

/// The schema string of `mutate`'s JSON.
pub(crate) const MUTATE_SCHEMA: &str = "stepreplay-mutate/1";

/// What the gate made of one mutant.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Verdict {
    /// The changed plan fails its scenario (or is refused as input).
    Caught,
    /// The changed plan passes: the gate missed it.
    Survived,
    /// The change does not change what the plan does; not counted.
    Equivalent,
}

/// One mutant and what became of it.
#[derive(Clone, Debug, Serialize)]
pub struct Tried {
    /// The mutant.
    #[serde(flatten)]
    pub mutant: Mutant,
    /// Caught, survived or equivalent.
    pub verdict: Verdict,
    /// How the gate told (when caught).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub how: Option<String>,
}

/// One scenario's mutants, or why it has none.
#[derive(Clone, Debug, Serialize)]
pub struct ScenarioMutants {
    /// The scenario's id.
    pub id: String,
    /// Why it was not mutated, when it was not.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub skipped: Option<String>,
    /// Its mutants, in class order.
    pub mutants: Vec<Tried>,
}

impl ScenarioMutants {
    /// The scenario's counts and survivors, as a report entry shows them.
    pub fn score(&self) -> MutationScore {
        let mut t = Tally::default();
        for m in &self.mutants {
            t.add(m.verdict);
        }
        MutationScore {
            mutants: t.mutants,
            caught: t.caught,
            equivalent: t.equivalent,
            survived: t.survived,
            score: t.score,
            skipped: self.skipped.clone(),
            survivors: self
                .mutants
                .iter()
                .filter(|m| m.verdict == Verdict::Survived)
                .map(|m| m.mutant.describe())
                .collect(),
        }
    }
}

/// Counts for one class (or all).
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct Tally {
    /// The class, or `total`.
    pub class: String,
    /// Mutants made.
    pub mutants: usize,
    /// Failed by the gate.
    pub caught: usize,
    /// Not counted: they change nothing the plan does.
    pub equivalent: usize,
    /// Passed the gate.
    pub survived: usize,
    /// caught / (mutants − equivalent); none when nothing counts.
    pub score: Option<f64>,
}

impl Tally {
    fn add(&mut self, v: Verdict) {
        self.mutants += 1;
        match v {
            Verdict::Caught => self.caught += 1,
            Verdict::Survived => self.survived += 1,
            Verdict::Equivalent => self.equivalent += 1,
        }
        let counted = self.caught + self.survived;
        self.score = (counted > 0).then(|| crate::json::round(self.caught as f64 / counted as f64));
    }
}

/// A whole `mutate` run.
#[derive(Clone, Debug, Serialize)]
pub struct MutationReport {
    /// Always [`MUTATE_SCHEMA`].
    pub schema: &'static str,
    /// Per class, in class order (classes with no mutant left out).
    pub classes: Vec<Tally>,
    /// All classes together.
    pub total: Tally,
    /// Per scenario, sorted by id.
    pub scenarios: Vec<ScenarioMutants>,
}

impl MutationReport {
    /// The mutants that passed the gate, with their scenario.
    pub fn survivors(&self) -> impl Iterator<Item = (&str, &Tried)> {
        self.with(Verdict::Survived)
    }

    /// The equivalent mutants, with their scenario.
    pub fn equivalents(&self) -> impl Iterator<Item = (&str, &Tried)> {
        self.with(Verdict::Equivalent)
    }

    /// Each scenario's mutation score, by id, as the report entries show it.
    pub fn scores(&self) -> BTreeMap<String, MutationScore> {
        (self.scenarios.iter())
            .map(|s| (s.id.clone(), s.score()))
            .collect()
    }

    fn with(&self, v: Verdict) -> impl Iterator<Item = (&str, &Tried)> {
        self.scenarios.iter().flat_map(move |s| {
            s.mutants
                .iter()
                .filter(move |t| t.verdict == v)
                .map(|t| (s.id.as_str(), t))
        })
    }
}

/// Makes and tries the mutants of every plan scenario under `paths`, on `jobs` threads: up to
/// [`PER_CLASS`] sites per class and plan.
pub fn mutate(paths: &[PathBuf], jobs: usize) -> Result<MutationReport, Error> {
    mutate_sites(
        paths,
        jobs,
        PER_CLASS,
        &Select::default(),
        crate::limits::JSON_DEPTH,
    )
}

/// [`mutate`] with up to `per_class` sites per class and plan ([`usize::MAX`]: every one), on
/// the scenarios `select` keeps (`--grep`, `--filter`, as `run` narrows its suite), their
/// plans allowed to nest `depth` levels (`--max-depth`).
pub fn mutate_sites(
    paths: &[PathBuf],
    jobs: usize,
    per_class: usize,
    select: &Select,
    depth: usize,
) -> Result<MutationReport, Error> {
    let files = select_files(discover_schemas(paths, &[SCENARIO_SCHEMA])?, select);
    // A scenario whose input cannot be used is not mutated; the run it is judged in fails it.
    let results = crate::par::map(
        &files,
        jobs.max(1),
        |f| {
            one(f, per_class, depth).unwrap_or_else(|e| ScenarioMutants {
                id: Scenario::stand_in(f).file.id,
                skipped: Some(format!(
                    "its input cannot be used: {} ({})",
                    e.message,
                    e.reason.code()
                )),
                mutants: Vec::new(),
            })
        },
        |_| {},
    );
    let mut scenarios = Vec::with_capacity(results.len());
    for (f, r) in files.iter().zip(results) {
        match r {
            Ok(r) => scenarios.push(r),
            Err(p) => {
                return Err(Error::Internal(format!(
                    "mutating `{}` crashed: {}",
                    f.display(),
                    p.0
                )));
            }
        }
    }
    scenarios.sort_by(|a, b| a.id.cmp(&b.id));
    let mut classes: Vec<Tally> = Class::ALL
        .iter()
        .map(|c| Tally {
            class: c.name(),
            ..Tally::default()
        })
        .collect();
    let mut total = Tally {
        class: "total".into(),
        ..Tally::default()
    };
    for t in scenarios.iter().flat_map(|s| &s.mutants) {
        if let Some(k) = Class::ALL.iter().position(|c| *c == t.mutant.class) {
            classes[k].add(t.verdict);
        }
        total.add(t.verdict);
    }
    classes.retain(|c| c.mutants > 0);
    Ok(MutationReport {
        schema: MUTATE_SCHEMA,
        classes,
        total,
        scenarios,
    })
}

/// One scenario file: its mutants tried, or why there are none.
fn one(
    file: &std::path::Path,
    per_class: usize,
    depth: usize,
) -> Result<ScenarioMutants, InputError> {
    let s = Scenario {
        plan_depth: depth,
        ..load_scenario(file)?
    };
    let skipped = |why: String| ScenarioMutants {
        id: s.file.id.clone(),
        skipped: Some(why),
        mutants: Vec::new(),
    };
    if s.file.expect.outcome != Outcome::Completed {
        return Ok(skipped(format!(
            "it expects the run to end {}: mutants are made of plans that complete",
            crate::text::word(&s.file.expect.outcome)
        )));
    }
    let src = s.plan_source()?;
    let rec = load_recording(&s.recording_dir)?;
    match judge(&s, &src, &rec) {
        None => {}
        Some(why) => return Ok(skipped(format!("it does not pass as it is: {why}"))),
    }
    let plan = parse_value(&src)?;
    let mut tried = Vec::new();
    let base = src.path.parent().unwrap_or(std::path::Path::new("."));
    for m in mutants(&plan, base, &rec, fnv1a64(s.file.id.as_bytes()), per_class) {
        // In canonical form, as the plan file is: a layout change is no fault.
        let text = crate::json::to_canonical(&m.plan);
        let changed = Source::from_text(&src.path, text).with_depth(depth);
        let how = judge(&s, &changed, &rec);
        let verdict = match (&m.equivalent, &how) {
            (Some(_), _) => Verdict::Equivalent,
            (None, Some(_)) => Verdict::Caught,
            (None, None) => Verdict::Survived,
        };
        tried.push(Tried {
            mutant: m,
            verdict,
            how: how.filter(|_| verdict == Verdict::Caught),
        });
    }
    Ok(ScenarioMutants {
        id: s.file.id.clone(),
        skipped: None,
        mutants: tried,
    })
}

/// Why `src` fails the scenario as `run` judges it (chained, the mode that decides), or `None`
/// when it passes. A plan refused as input fails too: `run` exits 2 on it.
fn judge(s: &Scenario, src: &Source, rec: &crate::recording::Recording) -> Option<String> {
    match judge_plan_text(s, src, rec, &[Mode::Chained]) {
        Ok(r) if r.met => None,
        Ok(r) => Some(r.mismatch.map_or_else(|| "not met".into(), |m| m.text)),
        Err(e) => Some(format!(
            "refused as input: {} ({})",
            e.message,
            e.reason.code()
        )),
    }
}
