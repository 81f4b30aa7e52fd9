//! Accessible names the way the platform derives them.
//!
//! A control's own title or description comes first. A field with no name of its own takes
//! the name of the element that labels it (labelled-by, `AXTitleUIElement`) or, failing
//! that, of the static text just before it — to its left on the same row, or just above —
//! as screen readers do. Real forms (zenity's, many macOS sheets) depend on this.

use std::collections::HashMap;

use super::index::Node;
use crate::recording::ax::{Element, is_text_role};

/// Roles that are commonly labelled by a separate static text.
fn takes_external_label(ax_role: &str) -> bool {
    matches!(
        ax_role,
        "AXTextField"
            | "AXTextArea"
            | "AXSearchField"
            | "AXComboBox"
            | "AXPopUpButton"
            | "AXSlider"
            | "AXSecureTextField"
            | "AXDateField"
            | "AXIncrementor"
    )
}

/// Fills in names for nameless elements of one window. `nodes` and `elements` are parallel.
pub(crate) fn derive_names(nodes: &mut [Node], elements: &[&Element]) {
    let by_id: HashMap<&str, usize> = elements
        .iter()
        .enumerate()
        .map(|(i, e)| (e.id.as_str(), i))
        .collect();
    let texts: Vec<usize> = (0..nodes.len())
        .filter(|&i| is_text_role(&nodes[i].ax_role) && nodes[i].name.is_some())
        .collect();
    for i in 0..nodes.len() {
        if nodes[i].name.is_some() || !takes_external_label(&nodes[i].ax_role) {
            continue;
        }
        let linked = elements[i]
            .labelled_by
            .as_deref()
            .and_then(|l| by_id.get(l));
        if let Some(n) = linked.and_then(|&j| nodes[j].name.clone()) {
            nodes[i].name = Some(n);
            continue;
        }
        let f = nodes[i].frame;
        let (fy0, fy1) = (f.y, f.y + f.height);
        let mut best: Option<(i64, usize)> = None;
        for &t in &texts {
            let l = nodes[t].frame;
            let left_of = l.x + l.width <= f.x + 2 && l.y < fy1 && l.y + l.height > fy0;
            let above = l.y + l.height <= f.y + 2 && l.x < f.x + f.width && l.x + l.width > f.x;
            let dist = if left_of {
                (f.x - (l.x + l.width)) as i64
            } else if above {
                // A label above is a weaker reading than one on the same row.
                (f.y - (l.y + l.height)) as i64 * 2 + 8
            } else {
                continue;
            };
            if dist <= 200 && best.is_none_or(|(d, _)| dist < d) {
                best = Some((dist, t));
            }
        }
        if let Some((_, t)) = best {
            nodes[i].name = nodes[t].name.clone();
        }
    }
}
