//! The `stepreplay-scenario/1` file format: what a scenario names (plan, recording, inputs,
//! the scripted person's answers, perturbations) and what it expects, loading it with its
//! paths resolved, and `check` on it. Below the runner, so the front doors that write
//! scenarios (`synth`, `recorder`) need not import it.

mod check;
mod file;
mod kind;

pub use check::check_scenario;
pub(crate) use check::unknown_names;
pub(crate) use file::{Answer, AnswersFile, Injection, ReviewAnswer, StopAnswer, missing_clock};
pub(crate) use file::{Answers, Expected, SCENARIO_SCHEMA, Scenario, adhoc_scenario, sniff_schema};
pub use file::{FailReason, Outcome, ScenarioFile, load_scenario, scaffold};
pub(crate) use kind::Kind;
