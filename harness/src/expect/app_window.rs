//! `app` and `window`: the app and window that should be in front.
//!
//! The front app is the one the snapshot marks frontmost; its front window is its focused
//! window, else its first. A sheet or dialog titled differently counts as in front when the
//! plan names it.

use super::check::{Check, CheckKind, ExpectCtx};
use crate::plan::Expect;
use crate::text::normalize_label;

pub(super) fn check(e: &Expect, ctx: &ExpectCtx, out: &mut Vec<Check>) {
    let front = ctx
        .index
        .windows
        .iter()
        .filter(|w| w.frontmost_app)
        .collect::<Vec<_>>();
    let front_app = front.first().map(|w| w.app.clone());
    if let Some(app) = &e.app {
        let ok = front.first().is_some_and(|w| {
            w.norm_app == normalize_label(app) || w.bundle_id.as_deref() == Some(app)
        });
        out.push(Check::new(
            CheckKind::App,
            ok,
            format!(
                "expected “{app}” in front, found {}",
                front_app.map_or("no app".into(), |a| format!("“{a}”"))
            ),
        ));
    }
    if let Some(title) = &e.window {
        let want = normalize_label(title);
        let focused = front.iter().find(|w| w.focused).or(front.first());
        // A nameless popup in front (an open combo list, a menu) is part of the window it
        // popped up from.
        let ok = focused.is_some_and(|w| w.work_title == want);
        let found = match focused {
            None => "none".into(),
            Some(w) if w.title.is_empty() => "a nameless popup".into(),
            Some(w) => format!("“{}”", w.title),
        };
        out.push(Check::new(
            CheckKind::Window,
            ok,
            format!(
                "expected window “{title}” in front, found {found}{}",
                if ok {
                    String::new()
                } else {
                    crate::resolve::nearest_windows(ctx.index, title)
                }
            ),
        ));
    }
}
