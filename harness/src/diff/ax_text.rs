//! A canonical text rendering of an AX snapshot, one line per window or element, and the
//! unified diff of two renderings.
//!
//! The structured [`super::ax::AxDiff`] is what programs read; this is what people read in a
//! review or a CI log. Lines come in tree order (apps, windows front to back, elements depth
//! first) and are indented by depth, so a unified diff shows a change where it sits in the UI:
//!
//! ```text
//! Mail/main window "Inbox" @0,0,1440×900 [focused]
//!   Mail/main/send AXButton "Send" @20,40,80×24 [focused]
//! ```
//!
//! Strings are JSON-escaped (one line, whatever they hold); secure field values are redacted.

use std::fmt::Write;

use similar::TextDiff;

use super::ax::{is_secure, shown_value, window_path};
use crate::recording::ax::{AxSnapshot, Element, Rect};
use crate::secret::REDACTED;

/// Lines of context around each hunk of [`unified`].
pub(crate) const CONTEXT_LINES: usize = 3;

fn quoted(s: &str) -> String {
    serde_json::to_string(s).unwrap_or_else(|_| String::from("\"\""))
}

fn rect(r: &Rect) -> String {
    format!("@{},{},{}×{}", r.x, r.y, r.width, r.height)
}

/// Renders a snapshot, one line per window and element, each ending in `\n`.
pub(crate) fn render(s: &AxSnapshot) -> String {
    let mut out = String::new();
    for app in &s.apps {
        for w in &app.windows {
            let wp = window_path(&app.name, w);
            let kind = w.kind.as_deref().unwrap_or("window");
            let _ = write!(out, "{wp} {kind} {} {}", quoted(&w.title), rect(&w.frame));
            if w.focused {
                out.push_str(" [focused]");
            }
            out.push('\n');
            for e in &w.elements {
                render_element(&mut out, &wp, e, 1);
            }
        }
    }
    out
}

fn render_element(out: &mut String, wp: &str, e: &Element, depth: usize) {
    for _ in 0..depth {
        out.push_str("  ");
    }
    let _ = write!(out, "{wp}/{} {}", e.id, e.ax_role);
    if let Some(sub) = &e.subrole {
        let _ = write!(out, "/{sub}");
    }
    // The name slot shows title, else description, so a relabel is visible on the line; both
    // are shown when both exist.
    match (&e.title, &e.description) {
        (Some(t), Some(d)) => {
            let _ = write!(out, " {} desc={}", quoted(t), quoted(d));
        }
        (Some(t), None) | (None, Some(t)) => {
            let _ = write!(out, " {}", quoted(t));
        }
        (None, None) => {}
    }
    if let Some(v) = shown_value(e) {
        let v = if is_secure(e) {
            REDACTED.to_string()
        } else {
            v
        };
        let _ = write!(out, " value={}", quoted(&v));
    }
    let _ = write!(out, " {}", rect(&e.frame));
    for (on, flag) in [
        (e.focused, "focused"),
        (!e.enabled, "disabled"),
        (e.selected, "selected"),
    ] {
        if on {
            let _ = write!(out, " [{flag}]");
        }
    }
    out.push('\n');
    for c in &e.children {
        render_element(out, wp, c, depth + 1);
    }
}

/// The unified diff (`---`/`+++` headers named `before` and `after`) of the renderings of two
/// snapshots; empty when they render the same.
pub(crate) fn unified(before: &AxSnapshot, after: &AxSnapshot, names: (&str, &str)) -> String {
    let (b, a) = (render(before), render(after));
    if a == b {
        return String::new();
    }
    // No deadline: the Myers diff of two renderings is bounded by the element limit, and a
    // deadline would make the output depend on the machine's speed.
    let diff = TextDiff::from_lines(&b, &a);
    diff.unified_diff()
        .context_radius(CONTEXT_LINES)
        .header(names.0, names.1)
        .to_string()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::recording::ax::{App, Window};

    fn snap(title: &str, value: &str) -> AxSnapshot {
        let frame = Rect::new(1, 2, 3, 4);
        let field = Element {
            subrole: Some("AXSecureTextField".into()),
            description: Some("Password".into()),
            value: Some(value.into()),
            focused: true,
            ..Element::new("pw", "AXTextField", frame)
        };
        AxSnapshot {
            schema: "stepreplay-ax/1".into(),
            apps: vec![App {
                name: "Login".into(),
                bundle_id: None,
                frontmost: true,
                windows: vec![Window {
                    id: "main".into(),
                    title: title.into(),
                    kind: None,
                    frame: Rect::default(),
                    focused: true,
                    elements: vec![field],
                }],
            }],
        }
    }

    #[test]
    fn renders_one_line_per_node_and_redacts() {
        let text = render(&snap("Sign \"in\"\nnow", "s3cret"));
        assert_eq!(
            text,
            "Login/main window \"Sign \\\"in\\\"\\nnow\" @0,0,0×0 [focused]\n  \
             Login/main/pw AXTextField/AXSecureTextField \"Password\" value=\"‹redacted›\" \
             @1,2,3×4 [focused]\n"
        );
    }

    #[test]
    fn unified_diff_is_empty_for_equal_renderings() {
        // A changed secret renders the same (redacted), so no line differs.
        assert_eq!(unified(&snap("a", "x"), &snap("a", "y"), ("a", "b")), "");
        let u = unified(&snap("a", "x"), &snap("b", "x"), ("before", "after"));
        assert!(u.starts_with("--- before\n+++ after\n@@"), "{u}");
        assert!(u.contains("-Login/main window \"a\""), "{u}");
        assert!(u.contains("+Login/main window \"b\""), "{u}");
    }
}
