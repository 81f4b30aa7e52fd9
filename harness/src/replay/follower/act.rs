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

    /// Acts on the desktop, captures the step's diff, and applies what was typed or copied;
    /// returns the control acted on.
    pub(super) fn act(
        &mut self,
        i: usize,
        desk: &mut Desktop<'r>,
        element: Option<&str>,
        recorded: Option<&'r crate::recording::Transition>,
        text: Option<&(String, bool)>,
    ) -> Result<Option<String>, Stop> {
        let step: &Step = &self.plan.steps[i];
        // Act. Steps that only talk (ask) or follow words (do) move the desktop only when the
        // recording shows something happening for them.
        let acts_on = match &step.action {
            Action::Type { .. } | Action::Paste { .. } | Action::Press { .. } => {
                element.map(str::to_string).or_else(|| desk.focused())
            }
            _ => element.map(str::to_string),
        };
        let only_if_recorded = step.talks_only();
        let from = desk.frame_id().to_string();
        let from_index = desk.frame_index();
        let acted = if only_if_recorded && recorded.is_none_or(|t| t.from != from) {
            Acted::Stayed
        } else {
            // Without a target, a keyboard action lands on the focused field; it matches the
            // recording when the recording acted on that same field.
            // A wait touches nothing: it lets the page go on to the frame it ended on, which a
            // recording keeps with the element waited for, or with none when it did not see it
            // before the wait.
            let el = if step.web.as_ref().is_some_and(|w| w.kind == "wait") {
                element.filter(|_| recorded.is_some_and(|t| t.element.is_some()))
            } else if step.target.is_some() {
                element
            } else {
                acts_on
                    .as_deref()
                    .filter(|f| recorded.and_then(|t| t.element.as_deref()) == Some(*f))
            };
            desk.act(&step.id, el)
        };
        match acted {
            Acted::Advanced { from, to } => self.events.push(Event::Acted {
                step: i,
                element: element.map(str::to_string),
                from,
                to,
            }),
            // The recording ends here: what this action does was never recorded, so the step
            // cannot be judged and must not pass as if it had been.
            Acted::Stayed if !step.talks_only() => {
                return Err((StepStatus::Failed, FailReason::NoRecordedTransition));
            }
            Acted::Stayed => {
                let here = desk.frame_id().to_string();
                self.events.push(Event::Acted {
                    step: i,
                    element: element.map(str::to_string),
                    from: here.clone(),
                    to: here,
                });
            }
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
        match &step.action {
            Action::Type { .. } | Action::Paste { .. } => {
                let value = match (&step.action, text) {
                    (_, Some((t, _))) => Some(t.clone()),
                    (Action::Paste { .. }, None) => desk.clipboard().map(str::to_string),
                    _ => None,
                };
                if let (Some(field), Some(v)) = (acts_on.as_deref(), value) {
                    desk.type_text(field, &v);
                }
            }
            Action::Copy => desk.copy_from(element),
            _ => {}
        }
        Ok(acts_on)
    }
}
