//! For a step with no `expect`: the next step's control should be there before acting on it.

use super::check::{Check, CheckKind, ExpectCtx};
use crate::plan::Target;
use crate::resolve::{ResolveContext, resolve};

/// Checks that `next` resolves in the frame now showing, as the follower would find it
/// (`anchors`: the plan's placed targets, which tell how far a window moved).
pub(crate) fn check(next: &Target, ctx: &ExpectCtx, anchors: &[&Target]) -> Check {
    let r = resolve(
        next,
        ctx.index,
        &ResolveContext {
            screen: ctx.screen,
            crop: None,
            anchors,
        },
    );
    let what = next
        .label
        .clone()
        .map_or("the next control".to_string(), |l| format!("“{l}”"));
    let (passed, detail) = match r.element {
        Some(id) => (true, format!("{what} is there ({id})")),
        None => {
            let why = r.note.map_or(String::new(), |n| format!(": {n}"));
            (false, format!("{what} is not there{why}"))
        }
    };
    Check::new(CheckKind::NextControl, passed, detail)
}
