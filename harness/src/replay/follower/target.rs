//! Finding a step's control: its window, the recorded element or the resolver's pick, in
//! the plan's order.

use super::*;

impl<'r> Follower<'_, 'r> {
    /// The step's control on the screen now, reported with what the recording says it was.
    pub(super) fn find_target(
        &mut self,
        i: usize,
        desk: &Desktop<'r>,
        recorded: Option<&'r crate::recording::Transition>,
    ) -> Result<Option<String>, Stop> {
        let step: &Step = &self.plan.steps[i];
        let screen = self.prep.screen();
        if let Some(target) = &step.target {
            self.window_shown(i, target.window.as_deref(), desk)?;
            // A `wait` is for what the page shows later: its control is looked for on the frame
            // the wait ended on, not on the one before it.
            let frame = match recorded {
                Some(t) if step.waits() => self
                    .prep
                    .rec
                    .frame_index(&t.to)
                    .unwrap_or(desk.frame_index()),
                _ => desk.frame_index(),
            };
            let ix = self.prep.frame_index(frame);
            // A skill export ships the picture; the MCP form has the flag only, and the picture
            // is what `get_step_image` cuts from the step's screenshot.
            let crop = match (&target.crop, &target.bounds) {
                (Some(c), b) => self.prep.picture_for(&self.plan.base_dir, c, b.as_ref()),
                (None, Some(b)) if target.crop_available => self.prep.step_image(self.plan, i, b),
                _ => None,
            };
            let gray = crop.as_ref().and_then(|_| self.prep.gray(frame));
            let mut r = resolve(
                target,
                ix,
                &ResolveContext {
                    screen,
                    crop: gray.zip(crop.as_deref()),
                    anchors: &self.anchors,
                },
            );
            // A selector and a `targetref` are two reviewed names for one element: when the
            // second names another one, the review approved something else than what runs.
            if let (Some(found), Some(by_ref)) = (
                r.element.clone(),
                step.web.as_ref().and_then(|w| w.targetref.as_ref()),
            ) {
                let other = resolve(
                    by_ref,
                    ix,
                    &ResolveContext {
                        screen,
                        crop: None,
                        anchors: &self.anchors,
                    },
                );
                if let Some(o) = other.element.filter(|o| !other.ambiguous && *o != found) {
                    let why = format!(
                        "the selector and the targetref name different elements: `{found}` and `{o}`"
                    );
                    r.note = Some(r.note.take().map_or(why.clone(), |n| format!("{n}; {why}")));
                }
            }
            // The plan has a picture the harness cannot read: say so rather than quietly
            // resolving as if there were none.
            if let (Some(c), None) = (&target.crop, &crop) {
                let why = format!("the step's picture `{}` cannot be read", c.display());
                r.note = Some(r.note.take().map_or(why.clone(), |n| format!("{n}; {why}")));
            }
            let expected = recorded.and_then(|t| t.element.clone());
            // A tie is never correct, whichever way it happened to fall.
            let correct = expected.as_ref().map(|e| {
                !r.ambiguous
                    && (r.element.as_deref() == Some(e.as_str())
                        || recorded.is_some_and(|t| {
                            t.equivalent
                                .iter()
                                .any(|q| Some(q.as_str()) == r.element.as_deref())
                        }))
            });
            let click_in_box = match (&expected, r.click) {
                (Some(e), Some((x, y))) => {
                    Some(!r.ambiguous && ix.by_id(e).is_some_and(|n| n.frame.contains(x, y)))
                }
                _ => None,
            };
            let frame_of = |id: Option<&str>| id.and_then(|e| ix.by_id(e)).map(|n| n.frame);
            let element_frame = frame_of(r.element.as_deref());
            let expected_frame =
                frame_of(expected.as_deref()).filter(|f| Some(f) != element_frame.as_ref());
            let said_of = |id: Option<&str>| id.and_then(|e| ix.by_id(e)).map(|n| n.said());
            let said = (correct == Some(false))
                .then(|| (said_of(r.element.as_deref()), said_of(expected.as_deref())));
            let (found, ambiguous) = (r.element.clone(), r.ambiguous);
            self.events.push(Event::Resolved {
                step: i,
                resolution: r,
                expected,
                correct,
                click_in_box,
                element_frame,
                expected_frame,
                said,
            });
            match found {
                None => Err((StepStatus::Failed, FailReason::TargetNotFound)),
                Some(_) if ambiguous => Err((StepStatus::Failed, FailReason::TargetAmbiguous)),
                Some(id) => Ok(Some(id)),
            }
        } else {
            Ok(None)
        }
    }

    /// The recording's steps before this one's must be the plan's steps before it: a step the
    /// recording shows and the plan left out, or two steps done in the other order, make a
    /// plan that does something else than was recorded.
    pub(super) fn in_order(
        &mut self,
        i: usize,
        recorded: Option<&'r crate::recording::Transition>,
    ) -> Result<(), Stop> {
        let Some(t) = recorded else { return Ok(()) };
        let all = &self.prep.rec.file.transitions;
        let Some(at) = all.iter().position(|x| std::ptr::eq(x, t)) else {
            return Ok(());
        };
        let plan = self.plan;
        let out_of_place = all[..at].iter().find_map(|x| {
            let id = x.step_id.as_deref()?;
            match plan.steps.iter().position(|s| s.id == id) {
                None => Some(format!(
                    "the recording does `{id}` ({}) before this step; the plan has no such step",
                    x.action
                )),
                Some(j) if j > i => Some(format!(
                    "the recording does step {} (`{id}`) before this one; the plan has it after",
                    plan.steps[j].number
                )),
                Some(_) => None,
            }
        });
        match out_of_place {
            None => Ok(()),
            Some(why) => {
                self.events.push(Event::Checked {
                    step: i,
                    check: Check::new(CheckKind::Order, false, why),
                });
                Err((StepStatus::Failed, FailReason::StepOrder))
            }
        }
    }

    /// The recorded steps after the plan's last one that the plan does not have: a plan that
    /// ends early leaves what the recording went on to do undone.
    pub(super) fn left_out_at_end(&self) -> Option<String> {
        let all = &self.prep.rec.file.transitions;
        let last = all.iter().rposition(|x| {
            x.step_id
                .as_deref()
                .is_some_and(|id| self.plan.steps.iter().any(|s| s.id == id))
        })?;
        all[last + 1..].iter().find_map(|x| {
            let id = x.step_id.as_deref()?;
            (!self.plan.steps.iter().any(|s| s.id == id)).then(|| {
                format!(
                    "the recording goes on to `{id}` ({}); the plan has no such step",
                    x.action
                )
            })
        })
    }

    /// A step naming a window that shows on no frame of the recording follows a stale guide:
    /// finding its control in any window of the app would hide that.
    pub(super) fn window_shown(
        &mut self,
        i: usize,
        window: Option<&str>,
        desk: &Desktop<'r>,
    ) -> Result<(), Stop> {
        let Some(title) = window.filter(|t| !t.trim().is_empty()) else {
            return Ok(());
        };
        let wild: Vec<String> = self
            .plan
            .inputs
            .iter()
            .filter(|inp| inp.each_time)
            .filter_map(|inp| inp.example.clone())
            .collect();
        if self.prep.shows_window(title, &wild) {
            return Ok(());
        }
        self.events.push(Event::Checked {
            step: i,
            check: Check::new(
                CheckKind::Window,
                false,
                format!(
                    "target.window “{title}” shows on no frame of the recording{}",
                    nearest_windows(self.prep.frame_index(desk.frame_index()), title)
                ),
            ),
        });
        Err((StepStatus::Failed, FailReason::WindowNotFound))
    }
}
