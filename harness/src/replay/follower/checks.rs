//! A step's checks: its `stop_if` before it acts, its `expect`s after.

use super::*;

impl<'r> Follower<'_, 'r> {
    /// `stop_if` on the screen as it is, before acting.
    pub(super) fn stop_if(&mut self, i: usize, desk: &Desktop<'r>) -> Result<(), Stop> {
        let step: &Step = &self.plan.steps[i];
        let screen = self.prep.screen();
        // stop_if is checked on the screen as it is, before acting: by its conditions when it
        // has them, else its words go to the person, who says stop or go on (no answer: stop).
        if let Some(stop_if) = &step.stop_if {
            match &stop_if.when {
                Some(when) => {
                    let ix = self.prep.frame_index(desk.frame_index());
                    let no_frame = |_: &str| None;
                    let picture = |rel: &Path| self.prep.picture(&self.plan.base_dir, rel);
                    let ctx = ExpectCtx {
                        index: ix,
                        desktop: desk,
                        acted: None,
                        screen,
                        field_text: None,
                        step_frame: &no_frame,
                        picture: &picture,
                    };
                    let checks = check_expect(when, &ctx);
                    if !checks.is_empty() && checks.iter().all(|c| c.passed) {
                        return Err((StepStatus::Stopped, FailReason::StopIf));
                    }
                }
                None => {
                    let answer = self.scenario.answers.stop_if.get(&step.id).copied();
                    let word = match answer {
                        Some(StopAnswer::GoOn) => "go on",
                        Some(StopAnswer::Stop) => "stop",
                        None => "no answer (stop)",
                    };
                    self.ask(
                        i,
                        AskKind::StopIf,
                        format!("step {}: stop if {}?", step.number, stop_if.text),
                        word.into(),
                    );
                    if answer != Some(StopAnswer::GoOn) {
                        return Err((StepStatus::Stopped, FailReason::StopIf));
                    }
                }
            }
        }
        Ok(())
    }

    /// What should be true now: the step's `expect`, else the next step's control is there.
    pub(super) fn expects(
        &mut self,
        i: usize,
        desk: &Desktop<'r>,
        acts_on: Option<&str>,
        asked: &BTreeMap<String, String>,
    ) -> Result<(), Stop> {
        let step: &Step = &self.plan.steps[i];
        let screen = self.prep.screen();
        // Check what should be true now.
        let ix = self.prep.frame_index(desk.frame_index());
        let step_frame = |id: &str| {
            let j = self.plan.steps.iter().position(|s| s.id == id)?;
            Some(
                self.prep.rec.frames[self.prep.step_frame(self.plan, j)?]
                    .id
                    .clone(),
            )
        };
        let field_text = step
            .expect
            .as_ref()
            .and_then(|e| e.field_contains.as_ref())
            .map(|t| {
                let sensitive = t.inputs().iter().any(|id| {
                    self.plan
                        .inputs
                        .iter()
                        .any(|inp| inp.id == *id && inp.sensitive)
                });
                (self.fill_known(t, asked), sensitive)
            });
        let ctx = ExpectCtx {
            index: ix,
            desktop: desk,
            acted: acts_on,
            screen,
            field_text,
            step_frame: &step_frame,
            picture: &|rel: &Path| self.prep.picture(&self.plan.base_dir, rel),
        };
        // A `wait`'s control shows later, so it is not looked for now.
        let next = self
            .plan
            .steps
            .get(i + 1)
            .filter(|s| s.web.as_ref().is_none_or(|w| w.kind != "wait"));
        let checks: Vec<Check> = match (&step.expect, next.and_then(|s| s.target.as_ref())) {
            (Some(e), _) if !e.is_empty() => check_expect(e, &ctx),
            (_, Some(next)) => vec![check_next_control(next, &ctx, &self.anchors)],
            _ => Vec::new(),
        };
        // A failing next-control check fails the step, standing in for its `expect`; per step,
        // the next step is judged on its own screen, so the check only reports.
        let failed = checks.iter().any(|c| !c.passed)
            && (step.expect.is_some() || self.mode != Mode::PerStep);
        for c in checks {
            self.events.push(Event::Checked { step: i, check: c });
        }
        if failed {
            return Err((StepStatus::Failed, FailReason::ExpectFailed));
        }
        Ok(())
    }
}
