//! Robustness: does the guide still work when the desktop changes? Each step is replayed on
//! its own before-frame (per-step mode) under each perturbation; the score is the share of
//! step × perturbation pairs still resolved to the right control and still meeting their
//! expects, and every broken pair says why.
//!
//! The scripted person approves every confirm and allows every replacement here: this
//! measures whether the follower finds its way, not whether the person says yes.

use serde::{Deserialize, Serialize};

use super::follower::{Prepared, replay};
use super::trace::{Event, Mode, StepStatus};
use crate::errors::InputError;
use crate::json::round;
use crate::perturb::{Perturbation, perturb};
use crate::plan::Plan;
use crate::recording::Recording;
use crate::resolve::Strategy;
use crate::scenario::{Answer, FailReason, ScenarioFile};

/// The seed perturbations use unless told otherwise.
pub(crate) const DEFAULT_SEED: u64 = 20261130;

/// One step under one perturbation.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Pair {
    /// Step id.
    pub(crate) step_id: String,
    /// Step number.
    pub(crate) number: u32,
    /// The perturbation.
    pub perturbation: String,
    /// Still right.
    pub(crate) ok: bool,
    /// Why not.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) reason: Option<FailReason>,
    /// In words.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub why: Option<String>,
}

/// Robustness of one scenario.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Robustness {
    /// Pairs still right / all pairs.
    pub(crate) score: f64,
    /// Pairs still right.
    pub(crate) ok: u64,
    /// All pairs.
    pub(crate) total: u64,
    /// Only the broken pairs (the rest are right).
    pub broken: Vec<Pair>,
}

fn lenient(s: &ScenarioFile, plan: &Plan) -> ScenarioFile {
    let mut s = s.clone();
    for step in &plan.steps {
        s.answers.confirm.insert(step.id.clone(), Answer::Approve);
        s.answers.replace.insert(step.id.clone(), true);
    }
    for input in plan.inputs.iter().filter(|i| i.sensitive) {
        s.answers
            .sensitive
            .entry(input.id.clone())
            .or_insert_with(|| "0000".into());
    }
    s
}

/// Replays every step under every perturbation.
pub fn robustness(
    plan: &Plan,
    rec: &Recording,
    scenario: &ScenarioFile,
    perturbations: &[Perturbation],
    seed: u64,
) -> Result<Robustness, InputError> {
    let scenario = lenient(scenario, plan);
    // Steps that fail even on the unchanged recording are not the perturbation's doing.
    let base = replay(plan, &Prepared::new(rec), &scenario, Mode::PerStep);
    let base_ok: Vec<bool> = (0..plan.steps.len())
        .map(|i| {
            base.step_events(i).any(|e| {
                matches!(
                    e,
                    Event::StepFinished {
                        status: StepStatus::Passed,
                        ..
                    }
                )
            })
        })
        .collect();
    let mut broken = Vec::new();
    let mut ok = 0;
    let mut total = 0;
    for p in perturbations {
        let changed = perturb(rec, p, seed)?;
        let trace = replay(plan, &Prepared::new(&changed), &scenario, Mode::PerStep);
        for (i, step) in plan.steps.iter().enumerate() {
            if !base_ok[i] {
                continue;
            }
            total += 1;
            let mut strategy = None;
            let mut note = None;
            // The resolver's own note, before it is replaced: for a point it says how the
            // point was placed.
            let mut placed = None;
            let mut status = None;
            for e in trace.step_events(i) {
                match e {
                    Event::Resolved {
                        resolution,
                        correct,
                        ..
                    } => {
                        strategy = Some(resolution.strategy);
                        note = resolution.note.clone();
                        placed = resolution.note.clone();
                        if resolution.ambiguous {
                            note = Some(format!(
                                "{} controls tie for it",
                                resolution.candidate_count
                            ));
                        } else if let (Some(false), Some(el)) = (correct, &resolution.element) {
                            note = Some(format!(
                                "it resolves to `{el}` instead of the recorded control"
                            ));
                        }
                    }
                    Event::StepFinished {
                        status: s, reason, ..
                    } => status = Some((*s, *reason)),
                    _ => {}
                }
            }
            match status {
                Some((StepStatus::Passed, _)) => ok += 1,
                Some((_, reason)) => {
                    let how = match strategy {
                        Some(Strategy::Geometry) => " (it is found by point only)".to_string(),
                        Some(Strategy::Crop) => " (it is found by its picture)".to_string(),
                        _ => String::new(),
                    };
                    let why = match (p, strategy) {
                        (
                            Perturbation::MoveWindow(_),
                            Some(Strategy::Geometry) | Some(Strategy::None),
                        ) => format!(
                            "step {} resolves by point only and the window moved{}",
                            step.number,
                            placed.map_or(String::new(), |n| format!(" ({n})"))
                        ),
                        _ => format!(
                            "step {}{how}: {}",
                            step.number,
                            note.clone().unwrap_or_else(
                                || reason.map_or("failed".into(), |r| crate::text::word(&r))
                            )
                        ),
                    };
                    broken.push(Pair {
                        step_id: step.id.clone(),
                        number: step.number,
                        perturbation: p.to_string(),
                        ok: false,
                        reason,
                        why: Some(why),
                    });
                }
                None => {}
            }
        }
    }
    Ok(Robustness {
        score: if total == 0 {
            1.0
        } else {
            round(ok as f64 / total as f64)
        },
        ok,
        total,
        broken,
    })
}
