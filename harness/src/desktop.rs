//! The simulated desktop: which recorded frame is showing, what has been typed on top of the
//! recorded values, what is focused and on the clipboard, and the recorded transitions that
//! move it on.
//!
//! Acting on an element advances to the recorded next frame only when it is the element the
//! recording acted on (or one it lists as equivalent); acting on anything else is a
//! divergence, because the recording cannot say what that click would have shown.

use std::collections::BTreeMap;

use crate::plan::{Action, Step};
use crate::recording::Recording;
use crate::recording::format::Transition;

/// What acting did.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum Acted {
    /// The recording moved on to this frame.
    Advanced {
        /// The frame before.
        from: String,
        /// The frame now showing.
        to: String,
    },
    /// The recording acted on something else here.
    Diverged {
        /// What the recording acted on (None: a keyboard action).
        recorded: Option<String>,
        /// What we acted on.
        acted: Option<String>,
    },
    /// Nothing was recorded from this frame; the desktop stays.
    Stayed,
}

/// The simulated desktop over one recording.
#[derive(Debug)]
pub(crate) struct Desktop<'r> {
    rec: &'r Recording,
    frame: usize,
    typed: BTreeMap<String, String>,
    focused: Option<String>,
    clipboard: Option<String>,
}

impl<'r> Desktop<'r> {
    /// A desktop showing the recording's frame `frame`.
    pub(crate) fn new(rec: &'r Recording, frame: usize) -> Self {
        Desktop {
            rec,
            frame,
            typed: BTreeMap::new(),
            focused: None,
            clipboard: None,
        }
    }

    /// The recording.
    pub(crate) fn recording(&self) -> &'r Recording {
        self.rec
    }

    /// Index of the frame showing.
    pub(crate) fn frame_index(&self) -> usize {
        self.frame
    }

    /// Id of the frame showing.
    pub(crate) fn frame_id(&self) -> &'r str {
        &self.rec.frames[self.frame].id
    }

    /// The field's text: what we typed, else what the recording shows.
    pub(crate) fn field_value(&self, element: &str) -> Option<String> {
        if let Some(v) = self.typed.get(element) {
            return Some(v.clone());
        }
        let ax = &self.rec.frames[self.frame].ax;
        ax.find(element).and_then(|(_, _, e)| e.value.clone())
    }

    /// Whether we typed into this field ourselves.
    pub(crate) fn typed_into(&self, element: &str) -> bool {
        self.typed.contains_key(element)
    }

    /// The element with keyboard focus: the last one acted on, else the recording's.
    pub(crate) fn focused(&self) -> Option<String> {
        self.focused.clone().or_else(|| {
            let mut found = None;
            for app in &self.rec.frames[self.frame].ax.apps {
                for w in &app.windows {
                    w.walk(&mut |e| {
                        if found.is_none() && e.focused {
                            found = Some(e.id.clone());
                        }
                    });
                }
            }
            found
        })
    }

    /// Types `text` into `element`, replacing what it held.
    fn type_text(&mut self, element: &str, text: &str) {
        self.typed.insert(element.to_string(), text.to_string());
        self.focused = Some(element.to_string());
    }

    /// Copies the element's text to the clipboard.
    fn copy_from(&mut self, element: Option<&str>) {
        let text = element.and_then(|e| {
            self.field_value(e).or_else(|| {
                self.rec.frames[self.frame]
                    .ax
                    .find(e)
                    .and_then(|(_, _, el)| el.own_name().map(str::to_string))
            })
        });
        self.clipboard = text;
    }

    /// The transitions recorded from the frame showing.
    fn outgoing(&self) -> impl Iterator<Item = &'r Transition> + '_ {
        let id = self.frame_id();
        self.rec
            .file
            .transitions
            .iter()
            .filter(move |t| t.from == id)
    }

    /// Acts on `element` (None: a keyboard or whole-screen action) for step `step_id`.
    pub(crate) fn act(&mut self, step_id: &str, element: Option<&str>) -> Acted {
        let out: Vec<&Transition> = self.outgoing().collect();
        if out.is_empty() {
            return Acted::Stayed;
        }
        let pick = match element {
            Some(el) => out
                .iter()
                .find(|t| t.element.as_deref() == Some(el) || t.equivalent.iter().any(|e| e == el)),
            None => out
                .iter()
                .find(|t| t.element.is_none() && t.step_id.as_deref() == Some(step_id))
                .or_else(|| out.iter().find(|t| t.element.is_none())),
        };
        match pick {
            Some(t) => {
                let from = self.frame_id().to_string();
                if let Some(i) = self.rec.frame_index(&t.to) {
                    self.frame = i;
                }
                if let Some(el) = element {
                    self.focused = Some(el.to_string());
                }
                Acted::Advanced {
                    from,
                    to: t.to.clone(),
                }
            }
            None => {
                let recorded = out
                    .iter()
                    .find(|t| t.step_id.as_deref() == Some(step_id))
                    .or(out.first())
                    .and_then(|t| t.element.clone());
                Acted::Diverged {
                    recorded,
                    acted: element.map(str::to_string),
                }
            }
        }
    }

    /// Acts `step` on `element`, the control whoever follows the plan chose, the one way the
    /// follower and an agent move the desktop. Returns the control acted on (a keyboard
    /// action's is the focused field) and what moving did; once the desktop has moved (or a
    /// step that only talks stayed), what was typed, pasted or copied is applied.
    pub(crate) fn act_step(
        &mut self,
        step: &Step,
        element: Option<&str>,
        recorded: Option<&Transition>,
        text: Option<&str>,
    ) -> (Option<String>, Acted) {
        let acts_on = match &step.action {
            Action::Type { .. } | Action::Paste { .. } | Action::Press { .. } => {
                element.map(str::to_string).or_else(|| self.focused())
            }
            _ => element.map(str::to_string),
        };
        // Steps that only talk (ask) or follow words (do) move the desktop only when the
        // recording shows something happening for them.
        let from = self.frame_id();
        let acted = if step.talks_only() && recorded.is_none_or(|t| t.from != from) {
            Acted::Stayed
        } else {
            // Without a target, a keyboard action lands on the focused field; it matches the
            // recording when the recording acted on that same field. A wait touches nothing:
            // it lets the page go on to the frame it ended on, which a recording keeps with
            // the element waited for, or with none when it did not see it before the wait.
            let recorded_el = recorded.and_then(|t| t.element.as_deref());
            let el = if step.waits() {
                element.filter(|_| recorded_el.is_some())
            } else if step.target.is_some() {
                element
            } else {
                acts_on.as_deref().filter(|f| recorded_el == Some(*f))
            };
            self.act(&step.id, el)
        };
        if matches!(acted, Acted::Diverged { .. }) {
            return (acts_on, acted);
        }
        let value = match (&step.action, text) {
            (_, Some(t)) => Some(t.to_string()),
            (Action::Paste { .. }, None) => self.clipboard.clone(),
            _ => None,
        };
        match (&step.action, acts_on.as_deref(), value) {
            (_, Some(field), Some(v)) => self.type_text(field, &v),
            (Action::Copy, ..) => self.copy_from(element),
            _ => {}
        }
        (acts_on, acted)
    }
}
