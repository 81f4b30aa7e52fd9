//! `visible`: a control that should be on screen.
//!
//! Found by the same resolver as step targets (app and window default to the expect's own),
//! and showing: a non-empty frame that overlaps the screen.

use super::check::{Check, CheckKind, ExpectCtx};
use crate::plan::{Expect, Target};
use crate::resolve::{ResolveContext, resolve};

pub(super) fn check(v: &Target, e: &Expect, ctx: &ExpectCtx) -> Check {
    let mut t = v.clone();
    if t.app.is_none() && t.bundle_id.is_none() {
        t.app = e.app.clone();
    }
    if t.window.is_none() {
        t.window = e.window.clone();
    }
    let r = resolve(
        &t,
        ctx.index,
        &ResolveContext {
            screen: ctx.screen,
            crop: None,
            anchors: &[],
        },
    );
    let what = t
        .label
        .clone()
        .map_or("the control".to_string(), |l| format!("“{l}”"));
    let (passed, detail) = match r.element.filter(|_| r.confidence >= 0.7) {
        Some(id) => (true, format!("{what} is showing ({id})")),
        None => (false, format!("{what} is not on screen")),
    };
    Check::new(CheckKind::Visible, passed, detail)
}
