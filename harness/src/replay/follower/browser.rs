//! A browser step's extras: where the page landed (inside the plan's origin) and the
//! browser options the harness does not simulate.

use super::*;

impl<'r> Follower<'_, 'r> {
    /// Where the recorded page went when the step acted: a link (clicked, or followed by a
    /// navigate's selector) can leave the origin though no URL in the plan does.
    pub(super) fn landed(
        &mut self,
        i: usize,
        before: usize,
        desk: &Desktop<'r>,
        element: Option<&str>,
    ) -> Result<(), Stop> {
        let frames = &self.prep.rec.frames;
        if let Some(why) = origin::failed_load(frames[desk.frame_index()].dom.as_deref()) {
            let check = Check::new(CheckKind::Load, false, why);
            return Err(self.failed(i, check, FailReason::ExpectFailed));
        }
        let (before, after) = (&frames[before].dom, &frames[desk.frame_index()].dom);
        let step = &self.plan.steps[i];
        let (why, reason) = match origin::landing(
            self.plan,
            step,
            before.as_deref(),
            after.as_deref(),
            element,
        ) {
            origin::Landing::Stayed => return Ok(()),
            origin::Landing::Left(why) => (why, FailReason::OutsideOrigin),
            origin::Landing::Unknown(why) => (why, FailReason::OriginUnjudged),
        };
        Err(self.failed(i, origin::check(why), reason))
    }

    /// A browser step's options, once it has acted: `pair` names the captures before and
    /// after, `diff` checks the page changed, a reading step reads its target's text (and
    /// checks it when the plan says what it should be). A step with an option that cannot be
    /// replayed offline ends here, not judged.
    pub(super) fn web_options(
        &mut self,
        i: usize,
        before: usize,
        desk: &Desktop<'r>,
        acts_on: Option<&str>,
    ) -> Result<(), Stop> {
        let step: &Step = &self.plan.steps[i];
        let Some(web) = &step.web else {
            return Ok(());
        };
        let frames = &self.prep.rec.frames;
        let after = desk.frame_index();
        if web.pair {
            for (phase, f) in [("before", before), ("after", after)] {
                self.events.push(Event::NamedCapture {
                    step: i,
                    name: crate::replay::web::capture_name(self.plan, step, phase),
                    frame: frames[f].id.clone(),
                });
            }
        }
        if web.diff
            && let Some(d) = self.prep.step_diff(before, after)
            && let Some(p) = &d.pixel
        {
            let check = check_diffshot(p.mismatched, p.pixels);
            let changed = check.passed;
            self.events.push(Event::Checked { step: i, check });
            if !changed {
                return Err((StepStatus::Failed, FailReason::ExpectFailed));
            }
        }
        if web.reads {
            let read = self.prep.read(after, acts_on, web.region.as_ref());
            if let Some((Ok(text), source)) = &read {
                self.events.push(Event::Read {
                    step: i,
                    text: text.clone(),
                    source: *source,
                });
            }
            if let Some(want) = &web.read_expect {
                let source = read.as_ref().map(|(_, s)| crate::text::word(s));
                let read = read
                    .as_ref()
                    .zip(source.as_deref())
                    .map(|((r, _), s)| (r, s));
                let check = check_reads_text(read, want);
                let passed = check.passed;
                self.events.push(Event::Checked { step: i, check });
                if !passed {
                    return Err((StepStatus::Failed, FailReason::ReadMismatch));
                }
            }
        }
        self.exchanges(i)?;
        if let Some(check) = check_simulated(&web.not_simulated) {
            self.events.push(Event::Checked { step: i, check });
            return Err((StepStatus::Failed, FailReason::NotSimulated));
        }
        Ok(())
    }

    /// Serves a step's asks from the recording, its `correlation` filled from what earlier
    /// steps were served: each ask gets the first answer not yet served to the same request.
    fn exchanges(&mut self, i: usize) -> Result<(), Stop> {
        use crate::plan::devthink::exchange::{answer_json, field_of, fill};
        let step: &Step = &self.plan.steps[i];
        let Some(web) = &step.web else {
            return Ok(());
        };
        let options = step.path.key("options");
        let mut values = Vec::new();
        for c in &web.correlation {
            let value = self
                .received
                .get(&c.step)
                .and_then(|answer| field_of(answer, &c.field));
            let Some(value) = value else {
                let at = options.key("correlation").key(&c.name);
                let why = format!(
                    "{at}: `{}.{}` names nothing an earlier step received",
                    c.step, c.field
                );
                let check = Check::new(CheckKind::Correlation, false, why);
                return Err(self.failed(i, check, FailReason::CorrelationUnresolved));
            };
            values.push((c.name.clone(), value));
        }
        let recorded = &self.prep.rec.file.exchanges;
        for ask in &web.asks {
            let at = options.key(ask.family);
            let request = fill(&ask.request, &values);
            let found = (0..recorded.len()).find(|&k| {
                !self.served[k]
                    && recorded[k].family == ask.family
                    && recorded[k].request == request
            });
            let Some(k) = found else {
                let why = format!(
                    "{at}: the recording holds no answer to {request}: record the plan again \
                     to serve it"
                );
                let check = Check::new(CheckKind::Received, false, why);
                return Err(self.failed(i, check, FailReason::NotRecorded));
            };
            self.served[k] = true;
            let response = &recorded[k].response;
            self.received
                .insert(step.id.clone(), answer_json(ask.family, response));
            let check = check_received(ask, response, &at);
            let passed = check.passed;
            self.events.push(Event::Checked { step: i, check });
            if !passed {
                return Err((StepStatus::Failed, FailReason::ExpectFailed));
            }
        }
        Ok(())
    }
}
