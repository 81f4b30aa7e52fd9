//! `recase-label`, `ellipsize-label`, `remove-label`: the names of the controls the
//! recording acts on change. These touch the AX snapshot only: glyphs cannot be redrawn
//! honestly from a screenshot, and what a resolver reads is the AX name.

use super::apply::{Ctx, each_element};
use crate::recording::AxSnapshot;

fn relabel(ax: &mut AxSnapshot, ctx: &Ctx, f: impl Fn(&str) -> Option<String>) {
    each_element(ax, &mut |e| {
        if !ctx.targets.contains(&e.id) {
            return;
        }
        for name in [&mut e.title, &mut e.description] {
            if let Some(n) = name.as_deref().filter(|n| !n.trim().is_empty()) {
                *name = f(n);
            }
        }
    });
}

/// "Send" → "SEND"; an all-capitals label goes to lower case.
pub(super) fn recase(ax: &mut AxSnapshot, ctx: &Ctx) {
    relabel(ax, ctx, |n| {
        Some(if n.to_uppercase() == n {
            n.to_lowercase()
        } else {
            n.to_uppercase()
        })
    });
}

/// "Send reminder" → "Send re…" (labels of five characters or fewer stay).
pub(super) fn ellipsize(ax: &mut AxSnapshot, ctx: &Ctx) {
    relabel(ax, ctx, |n| {
        let chars: Vec<char> = n.chars().collect();
        if chars.len() <= 5 {
            return Some(n.to_string());
        }
        let keep = (chars.len() / 2).max(4);
        Some(chars[..keep].iter().collect::<String>() + "…")
    });
}

/// The control becomes nameless (its labelled-by link goes too).
pub(super) fn remove(ax: &mut AxSnapshot, ctx: &Ctx) {
    relabel(ax, ctx, |_| None);
    each_element(ax, &mut |e| {
        if ctx.targets.contains(&e.id) {
            e.labelled_by = None;
        }
    });
}
