//! Scores over traces, borrowed from the field so they mean something to its users:
//! element accuracy (top-1 target right), click-point-in-box accuracy, step success, scenario
//! success, ambiguity count and expect pass rate.
//!
//! Every score counts every plan step, reached or not, as Mind2Web scores over all steps: a
//! step the run never reached is not right, and a tie is never right. A score with nothing to
//! count is `None` (shown as "—"), never 1: a run that judged nothing says so.
//!
//! `Tally` keeps numerators and denominators, so scores over a run are true ratios over all
//! steps (not averages of averages) and tallies from shards add up exactly.

use std::collections::BTreeMap;
use std::fmt;

use serde::{Deserialize, Serialize};

use crate::json::round;
use crate::replay::{Event, StepStatus, Trace, Truth};
use crate::scenario::Outcome;

/// Counts behind the scores.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) struct Tally {
    /// Steps in the plans.
    pub(crate) steps: u64,
    /// Of those, steps the run reached.
    pub(crate) reached: u64,
    /// Steps whose target the recording names, reached or not: element and click accuracy
    /// count over these.
    pub(crate) targets: u64,
    /// Steps with a target the recording names no element for: they cannot be judged.
    pub(crate) unjudged: u64,
    /// Targets reached and resolved, so their element could be compared.
    pub(crate) judged: u64,
    /// Of the targets, resolved to the right element without a tie.
    pub(crate) correct: u64,
    /// Targets reached with a click point.
    pub(crate) clicks: u64,
    /// Of the targets, clicked inside the right element's box without a tie.
    pub(crate) clicks_in_box: u64,
    /// Steps that passed.
    pub(crate) passed_steps: u64,
    pub(crate) scenarios: u64,
    /// Scenarios that completed.
    pub(crate) completed: u64,
    /// Resolutions with a (near) tie.
    pub(crate) ambiguous: u64,
    /// Steps that act and were recorded: operation accuracy counts over these.
    pub(crate) operations: u64,
    /// Of those, reached and done as recorded.
    pub(crate) operations_right: u64,
    /// Expect checks run.
    pub(crate) checks: u64,
    /// Of those, held.
    pub(crate) checks_passed: u64,
}

impl Tally {
    /// Counts one trace, over every step of its plan.
    pub(crate) fn of(trace: &Trace) -> Tally {
        let count = |want: Truth| trace.truth.iter().filter(|t| **t == want).count() as u64;
        let mut t = Tally {
            steps: trace.truth.len() as u64,
            targets: count(Truth::Recorded),
            unjudged: count(Truth::Unrecorded),
            operations: trace.operations.iter().filter(|o| **o).count() as u64,
            scenarios: 1,
            ..Tally::default()
        };
        for e in &trace.events {
            match e {
                Event::StepStarted { .. } => t.reached += 1,
                // The follower resolves a target, an agent picks one: scored alike.
                Event::Resolved {
                    correct,
                    click_in_box,
                    ..
                }
                | Event::Picked {
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
                    if let Event::Resolved { resolution, .. } = e {
                        t.ambiguous += u64::from(resolution.ambiguous);
                    }
                }
                Event::Operation { checks, .. } => {
                    t.operations_right += u64::from(checks.iter().all(|c| c.passed));
                }
                Event::Checked { check, .. } => {
                    t.checks += 1;
                    t.checks_passed += u64::from(check.passed);
                }
                // A retry rightly not applied again is a step done right.
                Event::StepFinished {
                    status: StepStatus::Passed | StepStatus::Deduplicated,
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
    pub(crate) fn add(&mut self, o: &Tally) {
        self.steps += o.steps;
        self.reached += o.reached;
        self.targets += o.targets;
        self.unjudged += o.unjudged;
        self.judged += o.judged;
        self.correct += o.correct;
        self.clicks += o.clicks;
        self.clicks_in_box += o.clicks_in_box;
        self.passed_steps += o.passed_steps;
        self.scenarios += o.scenarios;
        self.completed += o.completed;
        self.ambiguous += o.ambiguous;
        self.operations += o.operations;
        self.operations_right += o.operations_right;
        self.checks += o.checks;
        self.checks_passed += o.checks_passed;
    }

    /// The scores, rounded for reports; a ratio with nothing to count is `None`.
    pub(crate) fn scores(&self) -> Scores {
        let r = |n: u64, d: u64| Score((d > 0).then(|| round(n as f64 / d as f64)));
        Scores {
            // Steps with a target the recording names nothing for count as not right.
            element_accuracy: r(self.correct, self.targets + self.unjudged),
            // An agent that named its elements and gave no click point at all was judged on
            // no click: that is "—", not 0.
            click_accuracy: if self.clicks == 0 && self.judged > 0 {
                Score(None)
            } else {
                r(self.clicks_in_box, self.targets + self.unjudged)
            },
            operation_accuracy: r(self.operations_right, self.operations),
            step_success: r(self.passed_steps, self.steps),
            reached: r(self.reached, self.steps),
            scenario_success: r(self.completed, self.scenarios),
            ambiguity_count: self.ambiguous,
            expect_pass_rate: r(self.checks_passed, self.checks),
        }
    }
}

/// One score: a ratio in 0..=1, or `None` when there was nothing to count. It prints as the
/// number (honouring width and precision) or "—", and serializes as a number or `null`.
#[derive(Clone, Copy, Debug, Default, PartialEq, PartialOrd, Serialize, Deserialize)]
#[serde(transparent)]
pub struct Score(pub Option<f64>);

impl fmt::Display for Score {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.0 {
            Some(v) => fmt::Display::fmt(&v, f),
            None => f.pad("—"),
        }
    }
}

/// The scores of a scenario or a run.
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Scores {
    /// Top-1 target right, over every step whose target the recording names.
    pub element_accuracy: Score,
    /// Click point inside the right element's box, over the same steps.
    pub(crate) click_accuracy: Score,
    /// Done as recorded (action, button, count, keys, text), over every step that acts and was
    /// recorded.
    #[serde(default)]
    pub(crate) operation_accuracy: Score,
    /// Right target, action applied, expect held, over every plan step.
    pub step_success: Score,
    /// Steps the run reached, over every plan step.
    #[serde(default)]
    pub(crate) reached: Score,
    /// Scenarios completed.
    pub(crate) scenario_success: Score,
    /// Resolutions with a (near) tie.
    pub ambiguity_count: u64,
    /// Expect checks that held.
    pub(crate) expect_pass_rate: Score,
}

impl Scores {
    /// The scores by name, as scenario floors and baselines name them; `None` where nothing
    /// was counted.
    pub(crate) fn by_name(&self) -> BTreeMap<&'static str, Option<f64>> {
        BTreeMap::from([
            ("element_accuracy", self.element_accuracy.0),
            ("click_accuracy", self.click_accuracy.0),
            ("operation_accuracy", self.operation_accuracy.0),
            ("step_success", self.step_success.0),
            ("reached", self.reached.0),
            ("scenario_success", self.scenario_success.0),
            ("ambiguity_count", Some(self.ambiguity_count as f64)),
            ("expect_pass_rate", self.expect_pass_rate.0),
        ])
    }
}

/// One column of the score tables, listed once for every renderer (terminal, Markdown, HTML).
pub(crate) struct Column {
    /// The header Markdown and HTML print.
    pub(crate) header: &'static str,
    /// The terminal's shorter header.
    pub short: &'static str,
    /// Whether the per-scenario table shows it (a scenario's own success and ambiguity count
    /// are the totals' business).
    pub per_scenario: bool,
    value: fn(&Scores) -> Cell,
}

impl Column {
    /// This column's value in `s`.
    pub fn of(&self, s: &Scores) -> Cell {
        (self.value)(s)
    }
}

/// A cell: a rate printed to three places (`—` when nothing was counted), or a count.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) enum Cell {
    /// A share of 1.
    Rate(Score),
    /// A whole number.
    Count(u64),
}

impl fmt::Display for Cell {
    /// Rates take three places unless asked otherwise; width and alignment pass through.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Cell::Rate(Score(Some(v))) => {
                let s = format!("{v:.*}", f.precision().unwrap_or(3));
                f.pad_integral(true, "", &s)
            }
            Cell::Rate(none) => fmt::Display::fmt(none, f),
            Cell::Count(n) => f.pad_integral(true, "", &n.to_string()),
        }
    }
}

impl Column {
    const fn new(
        header: &'static str,
        short: &'static str,
        per_scenario: bool,
        value: fn(&Scores) -> Cell,
    ) -> Self {
        Column {
            header,
            short,
            per_scenario,
            value,
        }
    }
}

/// The score columns, in the order every table shows them.
pub(crate) const COLUMNS: [Column; 8] = [
    Column::new("element", "element", true, |s| {
        Cell::Rate(s.element_accuracy)
    }),
    Column::new("click", "click", true, |s| Cell::Rate(s.click_accuracy)),
    Column::new("operation", "op", true, |s| {
        Cell::Rate(s.operation_accuracy)
    }),
    Column::new("steps", "steps", true, |s| Cell::Rate(s.step_success)),
    Column::new("reached", "reached", true, |s| Cell::Rate(s.reached)),
    Column::new("scenarios", "scenarios", false, |s| {
        Cell::Rate(s.scenario_success)
    }),
    Column::new("expects", "expects", true, |s| {
        Cell::Rate(s.expect_pass_rate)
    }),
    Column::new("ambiguous", "ambiguous", false, |s| {
        Cell::Count(s.ambiguity_count)
    }),
];

#[cfg(test)]
mod tests {
    use super::*;
    use crate::replay::{Mode, Trace};
    use crate::resolve::{Resolution, Strategy};

    fn trace(truth: Vec<Truth>, events: Vec<Event>) -> Trace {
        Trace {
            mode: Mode::Chained,
            operations: vec![false; truth.len()],
            truth,
            events,
        }
    }

    fn started(step: usize) -> Event {
        Event::StepStarted {
            step,
            frame: "000".into(),
        }
    }

    #[test]
    fn unjudged_targets_count_as_not_right_and_a_score_with_nothing_to_count_is_none() {
        let sc = Tally::of(&trace(vec![Truth::Unrecorded; 3], vec![started(0)])).scores();
        assert_eq!(sc.element_accuracy, Score(Some(0.0)));
        assert_eq!(format!("{:.3}", sc.click_accuracy), "0.000");
        let none = Tally::of(&trace(vec![Truth::NoTarget; 3], vec![started(0)])).scores();
        assert_eq!(none.element_accuracy.to_string(), "—");
        assert_eq!(format!("{:>5.3}", sc.expect_pass_rate), "    —");
        assert_eq!(sc.step_success, Score(Some(0.0)));
        assert_eq!(format!("{:.3}", sc.reached), "0.333");
    }

    #[test]
    fn steps_never_reached_count_against_the_run() {
        // Four recorded targets; the run stopped after the first, resolved right.
        let resolution = Resolution {
            element: Some("a".into()),
            strategy: Strategy::AxExact,
            confidence: 1.0,
            margin: 1.0,
            candidates: Vec::new(),
            candidate_count: 1,
            ambiguous: false,
            click: Some((1.0, 1.0)),
            note: None,
            tie_break: None,
            picture: None,
        };
        let t = Tally::of(&trace(
            vec![Truth::Recorded; 4],
            vec![
                started(0),
                Event::Resolved {
                    step: 0,
                    resolution,
                    expected: Some("a".into()),
                    correct: Some(true),
                    click_in_box: Some(true),
                    element_frame: None,
                    expected_frame: None,
                    said: None,
                },
            ],
        ));
        assert_eq!(t.scores().element_accuracy, Score(Some(0.25)));
        assert_eq!(t.scores().click_accuracy, Score(Some(0.25)));
    }

    #[test]
    fn an_agents_picks_count_as_resolutions() {
        let picked = |step: usize, correct: Option<bool>| Event::Picked {
            step,
            element: Some("a".into()),
            expected: correct.map(|_| "a".into()),
            correct,
            click: None,
            click_in_box: None,
        };
        let t = Tally::of(&trace(
            vec![
                Truth::Recorded,
                Truth::Recorded,
                Truth::NoTarget,
                Truth::Recorded,
            ],
            vec![
                picked(0, Some(true)),
                picked(1, Some(false)),
                picked(2, None),
            ],
        ));
        assert_eq!(
            (t.judged, t.correct),
            (2, 1),
            "a step without a target is not judged"
        );
        // The step never reached counts against it, as for the follower.
        assert_eq!(t.scores().element_accuracy, Score(Some(0.333333)));
        assert_eq!(t.clicks, 0, "a named element is no click");
        assert_eq!(
            t.scores().click_accuracy,
            Score(None),
            "no click judged prints —, not 0"
        );
        let clicked = Event::Picked {
            step: 0,
            element: Some("a".into()),
            expected: Some("a".into()),
            correct: Some(true),
            click: Some((3.0, 4.0)),
            click_in_box: Some(true),
        };
        let c = Tally::of(&trace(vec![Truth::Recorded; 2], vec![clicked]));
        assert_eq!((c.clicks, c.clicks_in_box), (1, 1));
        assert_eq!(c.scores().click_accuracy, Score(Some(0.5)));
    }

    #[test]
    fn columns_print_rates_to_three_places_and_counts_whole() {
        let s = Scores {
            element_accuracy: Score(Some(0.5)),
            ambiguity_count: 2,
            ..Default::default()
        };
        let cells: Vec<String> = COLUMNS.iter().map(|c| format!("{:>6}", c.of(&s))).collect();
        assert_eq!(cells[0], " 0.500");
        assert_eq!(cells[1], "     —");
        assert_eq!(cells[7], "     2");
        let per: Vec<&str> = COLUMNS
            .iter()
            .filter(|c| c.per_scenario)
            .map(|c| c.short)
            .collect();
        assert_eq!(
            per,
            ["element", "click", "op", "steps", "reached", "expects"]
        );
    }
}
