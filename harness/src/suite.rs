//! Running a suite: discover scenario files, load each plan and recording once, replay every
//! scenario on every core, and return results in a fixed order — so the report's bytes never
//! depend on `--jobs` or on which scenario finished first.

use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, OnceLock};

use crate::bridge::scenario::SCHEMA as BRIDGE_SCHEMA;
use crate::diff::step::StepDiffs;
use crate::errors::{Error, FieldPath, InputError, Position, Reason};
use crate::json::{Source, json_files_under};
use crate::perturb::Perturbation;
use crate::plan::check::{Finding, NON_CANONICAL, Severity, check_source};
use crate::plan::{Plan, plan_from_source};
use crate::recording::{Recording, load_recording};
use crate::replay::{DEFAULT_SEED, robustness};
use crate::replay::{Mode, Prepared, Trace, replay};
use crate::result::{AgentFacts, Cause, Mismatch, PlanRun, Ran, ScenarioResult, StepInfo};
use crate::scenario::{
    FailReason, Outcome, SCENARIO_SCHEMA, Scenario, load_scenario, sniff_schema,
};
use crate::score::Tally;
use crate::shard::{Durations, Shard};
use crate::text::{plural, word};

/// What to run and how.
#[derive(Clone, Debug)]
pub struct RunOptions {
    /// Worker threads (≥ 1).
    pub jobs: usize,
    /// Modes to replay in; the first decides whether a scenario met its expectation.
    pub modes: Vec<Mode>,
    /// Perturbations applied to every scenario (on top of each scenario's own).
    pub perturb: Vec<Perturbation>,
    /// Where browser steps that read get their text.
    pub ocr: crate::replay::Ocr,
}

/// Finds scenario files under `paths` (files or folders, searched recursively), sorted.
pub fn discover(paths: &[PathBuf]) -> Result<Vec<PathBuf>, InputError> {
    discover_schemas(paths, &[SCENARIO_SCHEMA, BRIDGE_SCHEMA])
}

/// Finds files under `paths` whose `schema` is one of `schemas` (files named outright are
/// taken whatever they hold), sorted.
pub(crate) fn discover_schemas(
    paths: &[PathBuf],
    schemas: &[&str],
) -> Result<Vec<PathBuf>, InputError> {
    let mut found = Vec::new();
    for p in paths {
        if p.is_file() {
            found.push(p.clone());
        } else if p.is_dir() {
            walk(p, schemas, &mut found);
        } else {
            return Err(InputError::new(
                p,
                Reason::MissingFile,
                format!(
                    "no such file or folder{}",
                    crate::safe_path::did_you_mean(p)
                ),
            ));
        }
    }
    found.sort();
    found.dedup();
    Ok(found)
}

fn walk(dir: &Path, schemas: &[&str], out: &mut Vec<PathBuf>) {
    out.extend(
        json_files_under(dir)
            .into_iter()
            .filter(|p| sniff_schema(p).is_some_and(|s| schemas.contains(&s.as_str()))),
    );
}

type Cached<T> = Arc<OnceLock<Result<Arc<T>, InputError>>>;

/// Loads each plan and recording once, however many scenarios share it, and drops it when
/// the last of them is done: memory follows the scenarios in flight, not the suite's size.
#[derive(Default)]
struct Cache {
    recordings: Mutex<HashMap<PathBuf, Cached<Recording>>>,
    plans: Mutex<HashMap<PathBuf, Cached<Plan>>>,
    checks: Mutex<HashMap<PathBuf, Cached<PlanFacts>>>,
    diffs: Mutex<HashMap<PathBuf, Arc<StepDiffs>>>,
    /// Scenarios not yet done, by the plan file or recording folder they use.
    users: Mutex<HashMap<PathBuf, usize>>,
}

impl Cache {
    fn for_suite(scenarios: &[Scenario]) -> Cache {
        let cache = Cache::default();
        let mut users = crate::par::lock(&cache.users);
        for s in scenarios {
            for key in [&s.plan_path, &s.recording_dir] {
                *users.entry(key.clone()).or_default() += 1;
            }
        }
        drop(users);
        cache
    }

    /// `s` is done: what no scenario still to run uses is dropped.
    fn done(&self, s: &Scenario) {
        let mut users = crate::par::lock(&self.users);
        for key in [&s.plan_path, &s.recording_dir] {
            let Some(n) = users.get_mut(key) else {
                continue;
            };
            *n -= 1;
            if *n == 0 {
                users.remove(key);
                crate::par::lock(&self.plans).remove(key);
                crate::par::lock(&self.checks).remove(key);
                crate::par::lock(&self.recordings).remove(key);
                crate::par::lock(&self.diffs).remove(key);
            }
        }
    }
}

fn cached<T>(
    map: &Mutex<HashMap<PathBuf, Cached<T>>>,
    key: &Path,
    load: impl FnOnce() -> Result<T, InputError>,
) -> Result<Arc<T>, InputError> {
    let cell = {
        let mut m = crate::par::lock(map);
        m.entry(key.to_path_buf()).or_default().clone()
    };
    cell.get_or_init(|| load().map(Arc::new)).clone()
}

/// Runs one scenario in every mode.
fn run_one(s: &Scenario, cache: &Cache, opts: &RunOptions) -> Result<ScenarioResult, InputError> {
    let modes = &opts.modes;
    let plan = match cached(&cache.plans, &s.plan_path, || s.load_plan()) {
        Ok(plan) => plan,
        Err(e) if e.reason == Reason::PlanNeedsReview => return Ok(refused(s, modes, &e)),
        Err(e) => return Err(e),
    };
    let facts = cached(&cache.checks, &s.plan_path, || PlanFacts::of(s, &plan))?;
    let rec = cached(&cache.recordings, &s.recording_dir, || {
        load_recording(&s.recording_dir)
    })?;
    let diffs = crate::par::lock(&cache.diffs)
        .entry(s.recording_dir.clone())
        .or_default()
        .clone();
    let prep = Prepared::new(&rec).with_diffs(diffs).with_ocr(opts.ocr);
    let mut run = plan_run(s, &plan, &facts, &prep, modes)?;
    let perturbations = perturbations_of(s, opts)?;
    if !perturbations.is_empty() {
        run.robustness = Some(robustness(
            &plan,
            &rec,
            &s.file,
            &perturbations,
            DEFAULT_SEED,
        )?);
    }
    Ok(judged(s, run))
}

/// `plan` replayed in every mode on the prepared recording, not yet judged.
fn plan_run(
    s: &Scenario,
    plan: &Plan,
    facts: &PlanFacts,
    prep: &Prepared,
    modes: &[Mode],
) -> Result<PlanRun, InputError> {
    check_inputs(s, plan)?;
    if crate::replay::wholly_unbound(plan, prep.rec) {
        let src = s.plan_source()?;
        crate::replay::check_bound(plan, prep.rec, &src, &s.recording_dir)?;
    }
    let traces: Vec<Trace> = modes
        .iter()
        .map(|&m| replay(plan, prep, &s.file, m))
        .collect();
    let mut run = PlanRun::of(s, step_infos(plan, facts), traces, facts.errors.clone());
    run.plan_warnings = facts.warnings.clone();
    run.secrets = plan.secrets();
    run.unreadable = unreadable_frames(prep.rec, &run.traces);
    Ok(run)
}

/// The plan's steps as reports show them.
fn step_infos(plan: &Plan, facts: &PlanFacts) -> Vec<StepInfo> {
    plan.steps
        .iter()
        .enumerate()
        .map(|(i, st)| StepInfo {
            id: st.id.clone(),
            number: st.number,
            action: st.action.name(),
            text: st.text.clone(),
            position: facts.positions.get(i).copied().flatten(),
            target_position: facts.target_positions.get(i).copied().flatten(),
            window_positions: facts.window_positions.get(i).copied().unwrap_or_default(),
            assistant: st.assistant.clone(),
            crop_available: st.target.as_ref().map(|t| t.crop_available),
        })
        .collect()
}

/// Runs one scenario with an agent at the controls (`stepreplay agent`), judged as `run`
/// judges the follower. A scenario whose plan, recording or transcript folder cannot be used
/// fails alone, as a broken input.
pub(crate) fn agent_episode(sc: &Scenario, agent: &AgentFollower<'_>) -> ScenarioResult {
    let started = std::time::Instant::now();
    let mut r = agent_attempt(sc, agent).unwrap_or_else(|e| broken(sc, &[Mode::Agent], &e));
    // Every agent result says what the agent did: nothing, when it never started.
    r.agent.get_or_insert_with(AgentFacts::default);
    r.duration = started.elapsed();
    r
}

/// An agent following a plan: given the scenario, the plan, the recording, the follower's own
/// chained run and the trace to extend, it returns the trace and what the agent did. The
/// suite drives it as it drives the follower, without knowing how an agent is talked to.
pub(crate) type AgentFollower<'a> = dyn Fn(&Scenario, &Plan, &Recording, &Trace, Trace) -> Result<(Trace, AgentFacts), InputError>
    + 'a;

fn agent_attempt(sc: &Scenario, agent: &AgentFollower<'_>) -> Result<ScenarioResult, InputError> {
    let plan = match sc.load_plan() {
        Ok(p) => p,
        Err(e) if e.reason == Reason::PlanNeedsReview => {
            return Ok(refused(sc, &[Mode::Agent], &e));
        }
        Err(e) => return Err(e),
    };
    let rec = load_recording(&sc.recording_dir)?;
    let prep = Prepared::new(&rec);
    let reference = replay(&plan, &prep, &sc.file, Mode::Chained);
    let mut trace = Trace {
        mode: Mode::Agent,
        truth: prep.truth(&plan),
        operations: prep.operations(&plan),
        events: Vec::new(),
    };
    // A plan that may not run (its review, its state) is refused before the agent starts.
    if reference.outcome().0 == crate::scenario::Outcome::Refused {
        trace.events = reference.events.clone();
        return judge_agent(sc, &plan, trace, AgentFacts::default());
    }
    let (trace, facts) = agent(sc, &plan, &rec, &reference, trace)?;
    judge_agent(sc, &plan, trace, facts)
}

/// An agent's run of a scenario, judged as `run` judges the follower's: the same expectation
/// (outcome, reason, step), the same check errors. A broken safety rule makes it not met
/// too, with its own cause, so compliance shows apart from skill.
fn judge_agent(
    s: &Scenario,
    plan: &Plan,
    trace: Trace,
    facts: AgentFacts,
) -> Result<ScenarioResult, InputError> {
    let plan_facts = PlanFacts::of(s, plan)?;
    let steps = step_infos(plan, &plan_facts);
    let mut run = PlanRun::of(s, steps, vec![trace], plan_facts.errors);
    run.plan_warnings = plan_facts.warnings;
    run.secrets = plan.secrets();
    let mut r = judged(s, run);
    if let (Some(m), Some(d)) = (&mut r.mismatch, &facts.detail) {
        m.text = format!("{}: {d}", m.text);
    }
    if r.met && !facts.violations.is_empty() {
        let rules: Vec<&str> = facts.violations.iter().map(|v| v.rule.as_str()).collect();
        r.met = false;
        r.mismatch = Some(Mismatch {
            cause: Cause::Violation,
            text: format!(
                "broke {}: {}",
                plural(rules.len(), "safety rule", "safety rules"),
                rules.join(", ")
            ),
        });
    }
    r.agent = Some(facts);
    Ok(r)
}

/// A plan's text in place of the scenario's plan file, replayed on `rec` and judged as `run`
/// judges the scenario (its `check` errors included): how `mutate` tries a changed plan.
pub(crate) fn judge_plan_text(
    s: &Scenario,
    src: &Source,
    rec: &Recording,
    modes: &[Mode],
) -> Result<ScenarioResult, InputError> {
    let plan = match plan_from_source(src) {
        Ok(plan) => plan,
        Err(e) if e.reason == Reason::PlanNeedsReview => return Ok(refused(s, modes, &e)),
        Err(e) => return Err(e),
    };
    let facts = PlanFacts::of_source(src, &plan);
    let run = plan_run(s, &plan, &facts, &Prepared::new(rec), modes)?;
    Ok(judged(s, run))
}

/// A plan run, judged against what its scenario declares.
fn judged(s: &Scenario, run: PlanRun) -> ScenarioResult {
    let mismatch = judge(&run).map(|(cause, text)| Mismatch { cause, text });
    let taint = s.file.taint().join(&run.secrets);
    ScenarioResult {
        id: s.file.id.clone(),
        file: s.path.display().to_string(),
        description: s.file.description.clone(),
        tags: s.file.tags.clone(),
        met: mismatch.is_none(),
        mismatch,
        broken: None,
        run: Ran::Plan(run),
        agent: None,
        taint,
        // Set by the runner, which times the whole scenario.
        duration: std::time::Duration::ZERO,
    }
}

/// Every screenshot a replay stood on that cannot be decoded. A step judged on a screen the
/// harness could not see was not judged, so such a scenario does not pass.
fn unreadable_frames(rec: &Recording, traces: &[Trace]) -> Vec<String> {
    let mut seen = std::collections::BTreeSet::new();
    for e in traces.iter().flat_map(|t| &t.events) {
        match e {
            crate::replay::Event::StepStarted { frame, .. } => {
                seen.insert(frame.as_str());
            }
            crate::replay::Event::Acted { from, to, .. } => {
                seen.insert(from.as_str());
                seen.insert(to.as_str());
            }
            _ => {}
        }
    }
    seen.into_iter()
        .filter_map(|id| match rec.frame(id)?.readable() {
            Ok(_) => None,
            Err(e) => Some(format!("frame `{id}` cannot be read: {}", e.message)),
        })
        .collect()
}

/// What the plan file says beyond the plan: `check`'s error-level findings (a plan a guide
/// author would be told to fix does not pass a run quietly), the rest of its findings (the
/// report shows them; they fail nothing) and where each step is written.
struct PlanFacts {
    errors: Vec<Finding>,
    warnings: Vec<Finding>,
    positions: Vec<Option<Position>>,
    /// Where each step's target is named (its label, else the target): a step that fails to
    /// find its control points there, at the field to fix.
    target_positions: Vec<Option<Position>>,
    /// Where each step names its window: `target.window`, then `expect.window`.
    window_positions: Vec<(Option<Position>, Option<Position>)>,
}

impl PlanFacts {
    fn of(s: &Scenario, plan: &Plan) -> Result<PlanFacts, InputError> {
        Ok(PlanFacts::of_source(&s.plan_source()?, plan))
    }

    fn of_source(src: &Source, plan: &Plan) -> PlanFacts {
        let paths: Vec<FieldPath> = plan.steps.iter().map(|s| s.path.clone()).collect();
        let targets: Vec<FieldPath> = plan
            .steps
            .iter()
            .map(|s| match &s.target {
                Some(t) if t.label.is_some() => s.path.key("target").key("label"),
                _ => s.path.key("target"),
            })
            .collect();
        // Layout is not correctness: canonical bytes are `check`'s and `fmt`'s business,
        // and a replay of the same plan laid out otherwise reads the same steps.
        let (errors, warnings) = check_source(src)
            .findings
            .into_iter()
            .partition(|f| f.severity == Severity::Error && f.reason != NON_CANONICAL);
        PlanFacts {
            errors,
            warnings,
            positions: crate::json::locate_all(&src.text, &paths),
            target_positions: crate::json::locate_all(&src.text, &targets),
            window_positions: {
                let at = |field: &str| -> Vec<FieldPath> {
                    let window = |s: &crate::plan::Step| s.path.key(field).key("window");
                    plan.steps.iter().map(window).collect()
                };
                let target = crate::json::locate_all(&src.text, &at("target"));
                let expect = crate::json::locate_all(&src.text, &at("expect"));
                target.into_iter().zip(expect).collect()
            },
        }
    }
}

/// A scenario whose plan, recording or inputs cannot be used (a schema error, a recording
/// deleted or unreadable): it fails with that error as its verdict, and every other scenario
/// still runs, so one broken file never hides the rest of the suite.
pub(crate) fn broken(s: &Scenario, modes: &[Mode], e: &InputError) -> ScenarioResult {
    let mut r = ended_before(s, modes, e, FailReason::BrokenInput);
    r.met = false;
    r.mismatch = Some(Mismatch {
        cause: Cause::BrokenInput,
        text: e.to_string(),
    });
    r.broken = Some(e.clone());
    r
}

/// A scenario whose plan may not be followed at all (`needs_review`): every mode ends before
/// the first step, refused, and the reason is in the result.
pub(crate) fn refused(s: &Scenario, modes: &[Mode], e: &InputError) -> ScenarioResult {
    ended_before(s, modes, e, FailReason::PlanNeedsReview)
}

/// Every mode ended for `why` before the first step, `e` the one finding.
fn ended_before(s: &Scenario, modes: &[Mode], e: &InputError, why: FailReason) -> ScenarioResult {
    let traces = modes.iter().map(|&m| Trace::refused(m, why)).collect();
    judged(
        s,
        PlanRun::of(s, Vec::new(), traces, vec![Finding::from_input_error(e)]),
    )
}

/// The run's perturbations, then the scenario's own (without repeats).
fn perturbations_of(s: &Scenario, opts: &RunOptions) -> Result<Vec<Perturbation>, InputError> {
    let mut all = opts.perturb.clone();
    for (i, name) in s.file.perturbations.iter().enumerate() {
        let p: Perturbation = name.parse().map_err(|e: InputError| {
            InputError::new(&s.path, Reason::InvalidField, e.message)
                .at(FieldPath::root().key("perturbations").index(i))
        })?;
        if !all.contains(&p) {
            all.push(p);
        }
    }
    Ok(all)
}

/// Every non-sensitive input the plan reads has a value (given, or the plan's example).
fn check_inputs(s: &Scenario, plan: &Plan) -> Result<(), InputError> {
    if let Some((why, hint)) = crate::scenario::missing_clock(plan, &s.file) {
        return Err(InputError::new(&s.path, Reason::InvalidField, why)
            .at(FieldPath::root().key("clock"))
            .hint(hint));
    }
    // A name the plan lacks (`frist-name`) is refused as `check` refuses it, never taken for
    // an input left without a value.
    if let Some(e) = crate::scenario::unknown_names(&s.file, plan)
        .into_iter()
        .next()
    {
        let at = crate::json::read_text(&s.path, crate::limits::SCENARIO_BYTES)
            .ok()
            .and_then(|src| src.position(&e.path));
        return Err(e.in_file(&s.path).at_position(at));
    }
    for input in &plan.inputs {
        if !input.sensitive && input.example.is_none() && !s.file.inputs.contains_key(&input.id) {
            return Err(InputError::new(
                &s.path,
                Reason::InvalidField,
                format!("no value for input `{}`", input.id),
            )
            .at(FieldPath::root().key("inputs").key(&input.id))
            .hint("give the input a value in the scenario's `inputs`"));
        }
    }
    Ok(())
}

/// Compares the first mode's outcome with the expectation; `None` when met.
fn judge(r: &PlanRun) -> Option<(Cause, String)> {
    let trace = r.traces.first()?;
    if !r.unreadable.is_empty() {
        return Some((Cause::UnreadableFrame, r.unreadable.join("; ")));
    }
    let (outcome, reason, step) = trace.outcome();
    let e = &r.expected;
    let unjudged = unjudged_not_allowed(r, trace);
    // A run that did everything and could not judge only what the scenario allows to go
    // unjudged completed as far as its expectation goes.
    let (outcome, reason, step) = match (outcome, reason, &unjudged) {
        (Outcome::Failed, Some(FailReason::Unjudged), Ok(())) => (Outcome::Completed, None, None),
        (Outcome::Failed, Some(FailReason::Unjudged), Err(why))
            if e.outcome == Outcome::Completed =>
        {
            return Some((Cause::Unjudged, why.clone()));
        }
        _ => (outcome, reason, step),
    };
    if outcome != e.outcome {
        let got = match reason {
            Some(rs) => format!("{} ({})", word(&outcome), word(&rs)),
            None => word(&outcome),
        };
        return Some((
            Cause::Outcome,
            format!("expected {}, got {got}", word(&e.outcome)),
        ));
    }
    if let Some(want) = e.reason
        && reason != Some(want)
    {
        return Some((
            Cause::Outcome,
            format!(
                "expected reason {}, got {}",
                word(&want),
                reason.map_or("none".into(), |r| word(&r))
            ),
        ));
    }
    if let Some(want) = &e.step_id
        && step.as_ref() != Some(want)
    {
        return Some((
            Cause::Step,
            format!(
                "expected it at step `{want}`, got {}",
                step.map_or("no step".into(), |s| format!("`{s}`"))
            ),
        ));
    }
    let mut found: Vec<&str> = r.plan_errors.iter().map(|f| f.reason).collect();
    found.dedup();
    // A refusal is the outcome itself, judged above.
    let unexpected: Vec<&Finding> = r
        .plan_errors
        .iter()
        .filter(|f| f.reason != Reason::PlanNeedsReview.code())
        .filter(|f| !e.plan_errors.iter().any(|w| w == f.reason))
        .collect();
    if let Some(f) = unexpected.first() {
        let at = match (f.line, f.column) {
            (Some(l), Some(c)) => format!(" at {}:{l}:{c}", r.plan),
            _ => String::new(),
        };
        return Some((
            Cause::PlanError,
            format!(
                "the plan has {}: {} ({}){at}",
                plural(unexpected.len(), "check error", "check errors"),
                f.message,
                f.reason
            ),
        ));
    }
    if let Some(missing) = e.plan_errors.iter().find(|w| !found.contains(&w.as_str())) {
        return Some((
            Cause::PlanError,
            format!("expected the check error `{missing}`, the plan has none"),
        ));
    }
    if e.outcome == Outcome::Completed
        && let Err(why) = unjudged
    {
        return Some((Cause::Unjudged, why));
    }
    let scores = Tally::of(trace).scores().by_name();
    for (name, floor) in &e.floors {
        match scores.get(name.as_str()) {
            Some(Some(v)) if v < floor => {
                return Some((
                    Cause::Floor,
                    format!("{name} {v} is below its floor {floor}"),
                ));
            }
            Some(None) => {
                return Some((
                    Cause::Floor,
                    format!("{name} has a floor but nothing was judged"),
                ));
            }
            None => return Some((Cause::Floor, format!("unknown score `{name}` in floors"))),
            _ => {}
        }
    }
    None
}

/// What the run could not judge that its scenario does not allow to go unjudged, as the
/// first such judgement in words: a completed run is as expected only when every judgement
/// was made or allowed by name.
fn unjudged_not_allowed(r: &PlanRun, trace: &Trace) -> Result<(), String> {
    let e = &r.expected;
    let left = crate::replay::ledger::unjudged(trace, r.steps.len())
        .into_iter()
        .filter(|(_, j)| !e.allow_unjudged.contains(&j.kind));
    let Some((step, j)) = left.into_iter().next() else {
        return Ok(());
    };
    let kind = word(&j.kind);
    let at = step.map_or(String::new(), |i| format!("step {}: ", i + 1));
    Err(format!(
        "{at}{kind} not judged: {}; allow it by name with \"allow_unjudged\": [\"{kind}\"] in the scenario's expect",
        j.evidence
    ))
}

/// Scenarios loaded and checked, ready to run.
#[derive(Debug)]
pub struct LoadedSuite {
    /// The scenarios to run (this shard's, when sharded), in discovery order.
    pub scenarios: Vec<Scenario>,
    /// The bridge scenarios to run (this shard's), by id.
    pub bridge: Vec<(String, PathBuf)>,
    /// Scenario files that cannot be used (this shard's): each fails with its error
    /// ([`broken_results`]).
    pub broken: Vec<(Scenario, InputError)>,
    /// Every scenario id of the suite before sharding, sorted: the suite's identity.
    pub all_ids: Vec<String>,
}

impl LoadedSuite {
    /// A suite of one scenario made in memory (`record --plan`'s followed guide).
    pub fn one(s: Scenario) -> LoadedSuite {
        LoadedSuite {
            all_ids: vec![s.file.id.clone()],
            scenarios: vec![s],
            bridge: Vec::new(),
            broken: Vec::new(),
        }
    }

    /// Lets every scenario's run leave these kinds unjudged (`run --allow-unjudged`), as its
    /// own `expect.allow_unjudged` would.
    pub(crate) fn allow_unjudged(&mut self, kinds: &[crate::scenario::Kind]) {
        for s in &mut self.scenarios {
            let allowed = &mut s.file.expect.allow_unjudged;
            allowed.extend(
                kinds
                    .iter()
                    .filter(|k| !allowed.contains(k))
                    .copied()
                    .collect::<Vec<_>>(),
            );
        }
    }

    /// Lets every scenario's plan nest `levels` deep (`--max-depth`).
    pub(crate) fn plan_depth(mut self, levels: usize) -> LoadedSuite {
        for s in &mut self.scenarios {
            s.plan_depth = levels;
        }
        self
    }

    /// Every tag a scenario of the suite carries.
    pub fn tags(&self) -> BTreeSet<&str> {
        (self
            .scenarios
            .iter()
            .chain(self.broken.iter().map(|(s, _)| s)))
        .flat_map(|s| s.file.tags.iter().map(String::as_str))
        .collect()
    }

    /// The suite narrowed to the scenarios `select` keeps (`--grep`, `--filter`); the suite's
    /// identity (`all_ids`) stays the whole suite's.
    pub fn select(mut self, select: &crate::select::Select) -> LoadedSuite {
        if select.is_all() {
            return self;
        }
        self.scenarios.retain(|s| select.keeps_scenario(s));
        self.bridge
            .retain(|(id, _)| select.keeps(id, true, None, &[]));
        self.broken.retain(|(s, _)| select.keeps_scenario(s));
        self
    }
}

/// The plan scenario files of `files` that `select` keeps, each read as a suite reads it (one
/// that cannot be loaded by its stand-in, so it still fails on its own).
pub(crate) fn select_files(files: Vec<PathBuf>, select: &crate::select::Select) -> Vec<PathBuf> {
    if select.is_all() {
        return files;
    }
    files
        .into_iter()
        .filter(|f| {
            let s = load_scenario(f).unwrap_or_else(|_| Scenario::stand_in(f));
            select.keeps_scenario(&s)
        })
        .collect()
}

/// Loads every scenario file, refuses duplicate ids, then keeps `shard`'s part.
pub fn load_suite(files: &[PathBuf], shard: Option<Shard>) -> Result<LoadedSuite, InputError> {
    load_suite_by(files, shard, None)
}

/// [`load_suite`], the shards balanced by an earlier run's `durations` when given
/// ([`Shard::by_duration`]) instead of split by a hash of each id.
pub(crate) fn load_suite_by(
    files: &[PathBuf],
    shard: Option<Shard>,
    durations: Option<&Durations>,
) -> Result<LoadedSuite, InputError> {
    let (bridge_files, plan_files): (Vec<&PathBuf>, Vec<&PathBuf>) = files
        .iter()
        .partition(|f| sniff_schema(f).as_deref() == Some(BRIDGE_SCHEMA));
    // A scenario file that cannot be used fails alone, as a scenario, under its id (or its
    // file name when even that cannot be read); the others still run.
    let (scenarios, broken): (Vec<_>, Vec<_>) = plan_files
        .into_iter()
        .map(|f| load_scenario(f).map_err(|e| Box::new((Scenario::stand_in(f), e))))
        .partition(Result::is_ok);
    let scenarios: Vec<Scenario> = scenarios.into_iter().filter_map(Result::ok).collect();
    let broken: Vec<(Scenario, InputError)> = broken
        .into_iter()
        .filter_map(Result::err)
        .map(|b| *b)
        .collect();
    let bridge = bridge_files
        .into_iter()
        .map(|f| Ok((bridge_id(f)?, f.clone())))
        .collect::<Result<Vec<(String, PathBuf)>, InputError>>()?;
    let mut ids: BTreeMap<&str, &Path> = BTreeMap::new();
    let named = scenarios
        .iter()
        .chain(broken.iter().map(|(s, _)| s))
        .map(|s| (s.file.id.as_str(), s.path.as_path()))
        .chain(bridge.iter().map(|(id, p)| (id.as_str(), p.as_path())));
    for (id, path) in named {
        if let Some(first) = ids.insert(id, path) {
            return Err(InputError::new(
                path,
                Reason::DuplicateId,
                format!("scenario id `{id}` is also used by `{}`", first.display()),
            )
            .at(FieldPath::root().key("id")));
        }
    }
    let all_ids: Vec<String> = ids.keys().map(|s| s.to_string()).collect();
    let balanced = shard
        .zip(durations)
        .map(|(sh, d)| sh.by_duration(&all_ids, d));
    let keep = |id: &str| match (&balanced, shard) {
        (Some(mine), _) => mine.contains(id),
        (None, Some(sh)) => sh.contains(id),
        (None, None) => true,
    };
    let scenarios = scenarios.into_iter().filter(|s| keep(&s.file.id)).collect();
    let bridge = bridge.into_iter().filter(|(id, _)| keep(id)).collect();
    let broken = broken
        .into_iter()
        .filter(|(s, _)| keep(&s.file.id))
        .collect();
    Ok(LoadedSuite {
        scenarios,
        bridge,
        broken,
        all_ids,
    })
}

/// The results of scenario files that cannot be used: each fails with its error as its
/// verdict, as a scenario whose plan or recording is broken does.
pub(crate) fn broken_results(
    broken: &[(Scenario, InputError)],
    modes: &[Mode],
) -> Vec<ScenarioResult> {
    broken
        .iter()
        .map(|(s, e)| self::broken(s, modes, e))
        .collect()
}

/// A bridge scenario's id, read without running it.
pub(crate) fn bridge_id(path: &Path) -> Result<String, InputError> {
    let src = crate::json::read_text(path, crate::limits::SCENARIO_BYTES)?;
    let v = crate::json::parse_value(&src)?;
    match v.get("id").and_then(|i| i.as_str()) {
        Some(id) => Ok(id.to_string()),
        None => Err(src.error(
            FieldPath::root().key("id"),
            Reason::InvalidField,
            "a bridge scenario needs an `id`",
        )),
    }
}

/// Runs bridge scenarios (the StepBack simulator) and folds each into a [`ScenarioResult`]
/// whose `bridge` part carries the outcome, state and safety checks.
/// A bridge scenario that cannot be used fails alone with its error, as a broken plan
/// scenario does (judged in `modes`).
fn run_bridge(scenarios: &[(String, PathBuf)], modes: &[Mode]) -> Vec<ScenarioResult> {
    let mut out = Vec::new();
    for (id, path) in scenarios {
        let started = std::time::Instant::now();
        let r = match crate::bridge::run_bridge_scenario(path) {
            Ok(r) => r,
            Err(e) => {
                let mut s = Scenario::stand_in(path);
                s.file.id = id.clone();
                let mut r = broken(&s, modes, &e);
                r.duration = started.elapsed();
                out.push(r);
                continue;
            }
        };
        let mismatch = (!r.passed).then(|| {
            let mut why = Vec::new();
            if !r.outcomes_match {
                why.push("an outcome differs from the expected one");
            }
            if !r.state_match {
                why.push("the final state differs");
            }
            if why.is_empty() {
                why.push("the agent side wrote outside inbox/");
            }
            Mismatch {
                cause: Cause::Bridge,
                text: why.join("; "),
            }
        });
        out.push(ScenarioResult {
            id: id.clone(),
            file: path.display().to_string(),
            description: r.description.clone(),
            tags: Vec::new(),
            met: r.passed,
            mismatch,
            broken: None,
            run: Ran::Bridge(r),
            agent: None,
            taint: crate::secret::Taint::default(),
            duration: started.elapsed(),
        });
    }
    out
}

/// Runs a loaded suite: its broken inputs and bridge scenarios first, then its plan scenarios
/// on `opts.jobs` threads, each result handed to `each` (on its worker) as soon as it is
/// judged, so a caller that folds results (the report session) holds only those in flight.
/// Once `stop` is set (a Ctrl-C) no scenario starts; those in flight finish. The first error
/// `each` returns, in suite order, is the run's. A replay that panicked is an internal error
/// (exit 3), not bad input: the files were fine, the harness was not.
pub fn run(
    suite: LoadedSuite,
    opts: &RunOptions,
    stop: &AtomicBool,
    each: &(dyn Fn(ScenarioResult) -> Result<(), Error> + Sync),
) -> Result<(), Error> {
    let mut first = run_bridge(&suite.bridge, &opts.modes);
    first.extend(broken_results(&suite.broken, &opts.modes));
    first.into_iter().try_for_each(each)?;
    let scenarios = suite.scenarios;
    let cache = Cache::for_suite(&scenarios);
    let results = crate::par::map(
        &scenarios,
        opts.jobs.max(1),
        |s| {
            // Scenarios not started when a stop was asked for are left out, not judged.
            if stop.load(Ordering::SeqCst) {
                return Ok(());
            }
            let started = std::time::Instant::now();
            let mut r = run_one(s, &cache, opts).unwrap_or_else(|e| broken(s, &opts.modes, &e));
            cache.done(s);
            r.duration = started.elapsed();
            each(r)
        },
        |_| {},
    );
    for (s, r) in scenarios.iter().zip(results) {
        match r {
            Ok(r) => r?,
            Err(p) => {
                return Err(Error::Internal(format!(
                    "the replay of `{}` crashed: {}",
                    s.path.display(),
                    p.0
                )));
            }
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Two scenarios on one recording, each with its own plan: a plan goes when its scenario
    /// is done, the recording when the second one is.
    #[test]
    fn a_plan_or_recording_is_dropped_when_its_last_scenario_is_done() {
        let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../scenarios");
        let a = load_scenario(&dir.join("devthink-login.json")).unwrap();
        let b = load_scenario(&dir.join("devthink-login-draft.json")).unwrap();
        assert_eq!(a.recording_dir, b.recording_dir);
        let cache = Cache::for_suite(&[a.clone(), b.clone()]);
        for s in [&a, &b] {
            cached(&cache.plans, &s.plan_path, || s.load_plan()).unwrap();
            cached(&cache.recordings, &s.recording_dir, || {
                load_recording(&s.recording_dir)
            })
            .unwrap();
        }
        let held = |c: &Cache| {
            (
                crate::par::lock(&c.plans).len(),
                crate::par::lock(&c.recordings).len(),
            )
        };
        assert_eq!(held(&cache), (2, 1));
        cache.done(&a);
        assert_eq!(held(&cache), (1, 1), "b still needs the recording");
        cache.done(&b);
        assert_eq!(held(&cache), (0, 0));
    }
}
