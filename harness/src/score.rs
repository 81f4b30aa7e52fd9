//! Scores over traces, borrowed from the field so they mean something to its users:
//! element accuracy (top-1 target right), click-point-in-box accuracy, step success, scenario
//! success, ambiguity count and expect pass rate.
//!
//! [`Tally`] keeps numerators and denominators, so scores over a run are true ratios over all
//! steps (not averages of averages) and tallies from shards add up exactly.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use crate::json::round;
use crate::replay::{Event, Outcome, StepStatus, Trace};

/// Counts behind the scores.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Tally {
    /// Steps in the plans.
    pub steps: u64,
    /// Steps whose target could be judged (the recording names the element).
    pub judged: u64,
    /// Of those, resolved to the right element.
    pub correct: u64,
    /// Steps with a click point that could be judged.
    pub clicks: u64,
    /// Of those, inside the right element's box.
    pub clicks_in_box: u64,
    /// Steps that passed.
    pub passed_steps: u64,
    /// Scenarios.
    pub scenarios: u64,
    /// Scenarios that completed.
    pub completed: u64,
    /// Resolutions with a (near) tie.
    pub ambiguous: u64,
    /// Expect checks run.
    pub checks: u64,
    /// Of those, held.
    pub checks_passed: u64,
}

impl Tally {
    /// Counts one trace of a plan with `steps` steps.
    pub fn of(trace: &Trace, steps: usize) -> Tally {
        let mut t = Tally {
            steps: steps as u64,
            scenarios: 1,
            ..Tally::default()
        };
        for e in &trace.events {
            match e {
                Event::Resolved {
                    resolution,
                    correct,
                    click_in_box,
                    ..
                } => {
                    if let Some(c) = correct {
                        t.judged += 1;
                        t.correct += u64::from(*c);
                    }
                    if let Some(c) = click_in_box {
                        t.clicks += 1;
                        t.clicks_in_box += u64::from(*c);
                    }
                    t.ambiguous += u64::from(resolution.ambiguous);
                }
                Event::Checked { check, .. } => {
                    t.checks += 1;
                    t.checks_passed += u64::from(check.passed);
                }
                Event::StepFinished {
                    status: StepStatus::Passed,
                    ..
                } => t.passed_steps += 1,
                Event::Finished {
                    outcome: Outcome::Completed,
                    ..
                } => t.completed += 1,
                _ => {}
            }
        }
        t
    }

    /// Adds another tally.
    pub fn add(&mut self, o: &Tally) {
        self.steps += o.steps;
        self.judged += o.judged;
        self.correct += o.correct;
        self.clicks += o.clicks;
        self.clicks_in_box += o.clicks_in_box;
        self.passed_steps += o.passed_steps;
        self.scenarios += o.scenarios;
        self.completed += o.completed;
        self.ambiguous += o.ambiguous;
        self.checks += o.checks;
        self.checks_passed += o.checks_passed;
    }

    /// The scores, rounded for reports. A ratio with nothing to count is 1 (nothing failed).
    pub fn scores(&self) -> Scores {
        let r = |n: u64, d: u64| {
            if d == 0 {
                1.0
            } else {
                round(n as f64 / d as f64)
            }
        };
        Scores {
            element_accuracy: r(self.correct, self.judged),
            click_accuracy: r(self.clicks_in_box, self.clicks),
            step_success: r(self.passed_steps, self.steps),
            scenario_success: r(self.completed, self.scenarios),
            ambiguity_count: self.ambiguous,
            expect_pass_rate: r(self.checks_passed, self.checks),
        }
    }
}

/// The scores of a scenario or a run.
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Scores {
    /// Top-1 target right.
    pub element_accuracy: f64,
    /// Click point inside the right element's box.
    pub click_accuracy: f64,
    /// Right target, action applied, expect held.
    pub step_success: f64,
    /// Scenarios completed.
    pub scenario_success: f64,
    /// Resolutions with a (near) tie.
    pub ambiguity_count: u64,
    /// Expect checks that held.
    pub expect_pass_rate: f64,
}

impl Scores {
    /// The scores by name, as scenario floors and baselines name them.
    pub fn by_name(&self) -> BTreeMap<&'static str, f64> {
        BTreeMap::from([
            ("element_accuracy", self.element_accuracy),
            ("click_accuracy", self.click_accuracy),
            ("step_success", self.step_success),
            ("scenario_success", self.scenario_success),
            ("ambiguity_count", self.ambiguity_count as f64),
            ("expect_pass_rate", self.expect_pass_rate),
        ])
    }
}
