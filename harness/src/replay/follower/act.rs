//! Acting a step on the desktop and judging what was done against what was recorded.

use super::*;

impl<'r> Follower<'_, 'r> {
    /// Typing over text the guide does not mention is asked first.
    pub(super) fn guard_prefilled(
        &mut self,
        i: usize,
        desk: &Desktop<'r>,
        element: Option<&str>,
        text: Option<&(String, bool)>,
    ) -> Result<(), Stop> {
        let step: &Step = &self.plan.steps[i];
        if let (Action::Type { .. }, Some((typed, _))) = (&step.action, text) {
            let field = element.map(str::to_string).or_else(|| desk.focused());
            if let Some(field) = &field {
                let current = desk.field_value(field).unwrap_or_default();
                let mentioned = current.trim().is_empty()
                    || desk.typed_into(field)
                    || self.selected_all_before(i)
                    || normalize_label(&current) == normalize_label(typed)
                    || normalize_label(&step.text).contains(&normalize_label(&current));
                if !mentioned {
                    let allow = self
                        .scenario
                        .answers
                        .replace
                        .get(&step.id)
                        .copied()
                        .unwrap_or(false);
                    self.ask(
                        i,
                        AskKind::ReplacePrefilled,
                        "the field already holds text the guide does not mention; replace it?"
                            .into(),
                        if allow { "replace" } else { "keep (declined)" }.into(),
                    );
                    if !allow {
                        return Err((StepStatus::Stopped, FailReason::StoppedByPerson));
                    }
                }
            }
        }
        Ok(())
    }

    /// What is done, apart from where, against what the recording kept of it.
    pub(super) fn judge_operation(
        &mut self,
        i: usize,
        recorded: Option<&'r crate::recording::Transition>,
        text: Option<&(String, bool)>,
        role: Option<OpCheck>,
    ) -> Result<bool, Stop> {
        let step: &Step = &self.plan.steps[i];
        // What is done, apart from where: judged against what the recording kept of it.
        // `true` when a part the step sets went unjudged.
        if let Some(t) = recorded.filter(|_| !step.talks_only()) {
            let typed = text.map(|(s, _)| s.as_str());
            let secret = text.is_some_and(|(_, s)| *s);
            let shown = Shown::of(&step.action, self.prep.rec, t);
            let mut checks = check_operation(&step.action, t, typed, secret, shown);
            checks.extend(role);
            let wrong = checks.iter().any(|c| !c.passed && !c.unjudged);
            let unjudged = checks.iter().any(|c| c.unjudged);
            self.events.push(Event::Operation { step: i, checks });
            if wrong {
                return Err((StepStatus::Failed, FailReason::OperationMismatch));
            }
            return Ok(unjudged);
        }
        let unjudged = role.is_some();
        if let Some(role) = role {
            self.events.push(Event::Operation {
                step: i,
                checks: vec![role],
            });
        }
        Ok(unjudged)
    }

    /// Acts on the desktop (`Desktop::act_step`, the agent's way too) and captures the step's
    /// diff; returns the control acted on.
    pub(super) fn act(
        &mut self,
        i: usize,
        desk: &mut Desktop<'r>,
        element: Option<&str>,
        recorded: Option<&'r crate::recording::Transition>,
        text: Option<&(String, bool)>,
    ) -> Result<Option<String>, Stop> {
        let step: &Step = &self.plan.steps[i];
        let from_index = desk.frame_index();
        let here = desk.frame_id().to_string();
        let text = text.map(|(t, _)| t.as_str());
        let (acts_on, acted) = desk.act_step(step, element, recorded, text);
        let element = element.map(str::to_string);
        match acted {
            Acted::Advanced { from, to } => self.events.push(Event::Acted {
                step: i,
                element,
                from,
                to,
            }),
            // The recording ends here: what this action does was never recorded, so the step
            // cannot be judged and must not pass as if it had been.
            Acted::Stayed if !step.talks_only() => {
                return Err((StepStatus::Failed, FailReason::NoRecordedTransition));
            }
            Acted::Stayed => self.events.push(Event::Acted {
                step: i,
                element,
                from: here.clone(),
                to: here,
            }),
            Acted::Diverged { recorded, acted } => {
                // Named as a person would name it on the screen it was on.
                let recorded = recorded.map(|r| {
                    self.prep
                        .frame_index(from_index)
                        .by_id(&r)
                        .map_or_else(|| format!("`{r}`"), |n| n.said())
                });
                self.events.push(Event::Diverged {
                    step: i,
                    recorded,
                    acted,
                });
                return Err((StepStatus::Failed, FailReason::Diverged));
            }
        }
        if let Some(diff) = self.prep.step_diff(from_index, desk.frame_index()) {
            self.events.push(Event::Captured { step: i, diff });
        }
        Ok(acts_on)
    }
}
