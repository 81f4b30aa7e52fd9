//! The AX tree diff: what changed between two AX snapshots, element by element.
//!
//! Elements and windows are matched by their stable ids (unique within a snapshot, stable
//! across the frames of a recording), never by position in the tree, so a control that moved or
//! was renamed is reported as *changed*, not as one removal plus one addition. The main type is
//! [`AxDiff`]: plain data, in a deterministic order (windows and elements sorted by path), with
//! [`AxSummary`] counts for reports. Whether a change is acceptable is not decided here.
//!
//! Values of secure text fields (`AXSecureTextField`) are never copied into the diff: a changed
//! password shows as `value-changed` with both sides redacted.

use std::collections::BTreeMap;

use serde::Serialize;

use crate::recording::ax::{AxSnapshot, Element, Rect, Window};
use crate::secret::REDACTED;

/// The structural difference between two AX snapshots (`before` → `after`).
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct AxDiff {
    /// Windows opened, closed or changed, sorted by path.
    pub(crate) windows: Vec<WindowDiff>,
    /// Elements added, removed or changed, sorted by path.
    pub(crate) elements: Vec<ElementDiff>,
    /// Counts, for reports.
    pub summary: AxSummary,
}

impl AxDiff {
    /// True when nothing the diff looks at changed.
    pub fn is_empty(&self) -> bool {
        self.windows.is_empty() && self.elements.is_empty()
    }
}

/// How a window or element differs.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Status {
    /// Only in `after`.
    Added,
    /// Only in `before`.
    Removed,
    /// In both, with at least one `Change`.
    Changed,
}

/// One window that differs. Opened windows are `added`, closed ones `removed`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub(crate) struct WindowDiff {
    /// `app/window-id`.
    pub(crate) path: String,
    /// Added, removed or changed.
    pub(crate) status: Status,
    /// Its title (in `after`, or in `before` when removed).
    pub(crate) title: String,
    /// What changed, for `changed` windows; in a fixed order.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub(crate) changes: Vec<Change>,
}

/// One element that differs.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub(crate) struct ElementDiff {
    /// `app/window-id/element-id` (the window it is in `after`, or in `before` when removed).
    pub(crate) path: String,
    /// Its `ax_role`.
    pub(crate) role: String,
    /// Its own name (see [`Element::own_name`]), when it has one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) name: Option<String>,
    /// Added, removed or changed.
    pub(crate) status: Status,
    /// What changed, for `changed` elements; in a fixed order.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub(crate) changes: Vec<Change>,
}

/// One property that changed, with its value before and after.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(tag = "kind", rename_all = "kebab-case")]
pub(crate) enum Change {
    /// The frame changed (position or size).
    Moved {
        /// Frame before.
        before: Rect,
        /// Frame after.
        after: Rect,
    },
    /// The element now sits in another window (or the window in another app).
    Reparented {
        /// Parent path before.
        before: String,
        /// Parent path after.
        after: String,
    },
    /// The role changed (the id was reused for another kind of control).
    RoleChanged {
        /// Role before.
        before: String,
        /// Role after.
        after: String,
    },
    /// Title or description changed (for windows: the title).
    Relabelled {
        /// `title` or `description`.
        field: &'static str,
        /// Value before, if any.
        before: Option<String>,
        /// Value after, if any.
        after: Option<String>,
    },
    /// The value changed (redacted for secure fields).
    ValueChanged {
        /// Value before, if any.
        before: Option<String>,
        /// Value after, if any.
        after: Option<String>,
    },
    /// Keyboard focus moved to or away from it.
    FocusChanged {
        /// Focus before.
        before: bool,
        /// Focus after.
        after: bool,
    },
    /// It was enabled or disabled.
    EnabledChanged {
        /// Enabled before.
        before: bool,
        /// Enabled after.
        after: bool,
    },
    /// It was selected or deselected (checked, unchecked).
    SelectedChanged {
        /// Selected before.
        before: bool,
        /// Selected after.
        after: bool,
    },
}

impl Change {
    /// The stable kebab-case name of the change, as in the JSON `kind`.
    pub(crate) fn kind(&self) -> &'static str {
        match self {
            Change::Moved { .. } => "moved",
            Change::Reparented { .. } => "reparented",
            Change::RoleChanged { .. } => "role-changed",
            Change::Relabelled { .. } => "relabelled",
            Change::ValueChanged { .. } => "value-changed",
            Change::FocusChanged { .. } => "focus-changed",
            Change::EnabledChanged { .. } => "enabled-changed",
            Change::SelectedChanged { .. } => "selected-changed",
        }
    }
}

/// Counts of what changed. Element counts are of elements, so an element that moved and was
/// relabelled counts once in `moved` and once in `relabelled`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, serde::Deserialize)]
pub struct AxSummary {
    /// Elements in `before`.
    pub elements_before: u64,
    /// Elements in `after`.
    pub elements_after: u64,
    /// Elements only in `after`.
    pub added: u64,
    /// Elements only in `before`.
    pub removed: u64,
    /// Elements whose frame changed.
    pub moved: u64,
    /// Elements now in another window.
    pub reparented: u64,
    /// Elements whose role changed.
    pub role_changed: u64,
    /// Elements whose title or description changed.
    pub relabelled: u64,
    /// Elements whose value changed.
    pub value_changed: u64,
    /// Elements that gained or lost focus.
    pub focus_changed: u64,
    /// Elements enabled or disabled.
    pub enabled_changed: u64,
    /// Elements selected or deselected.
    pub selected_changed: u64,
    /// Windows opened.
    pub windows_opened: u64,
    /// Windows closed.
    pub windows_closed: u64,
    /// Windows moved, resized, retitled or focused differently.
    pub windows_changed: u64,
}

/// An element with where it lives, flattened out of the tree.
struct Located<'a> {
    window_path: String,
    element: &'a Element,
}

/// `app/window-id`: the path of a window in diffs and renderings.
pub(crate) fn window_path(app: &str, window: &Window) -> String {
    format!("{app}/{}", window.id)
}

/// Whether an element's value must never be shown.
pub(crate) fn is_secure(e: &Element) -> bool {
    e.subrole.as_deref() == Some("AXSecureTextField") || e.ax_role == "AXSecureTextField"
}

/// The element's value as it may be shown: redacted for secure fields.
pub(crate) fn shown_value(e: &Element) -> Option<String> {
    e.value.as_ref().map(|v| {
        if is_secure(e) {
            REDACTED.to_string()
        } else {
            v.clone()
        }
    })
}

fn windows_of(s: &AxSnapshot) -> BTreeMap<String, &Window> {
    let mut out = BTreeMap::new();
    for app in &s.apps {
        for w in &app.windows {
            // Ids are unique per snapshot when loaded through `load_ax`; on a duplicate the
            // first (frontmost) one wins, deterministically.
            out.entry(w.id.clone()).or_insert(w);
        }
    }
    out
}

fn elements_of(s: &AxSnapshot) -> BTreeMap<&str, Located<'_>> {
    let mut out = BTreeMap::new();
    for app in &s.apps {
        for w in &app.windows {
            let wp = window_path(&app.name, w);
            w.walk(&mut |e| {
                out.entry(e.id.as_str()).or_insert_with(|| Located {
                    window_path: wp.clone(),
                    element: e,
                });
            });
        }
    }
    out
}

fn app_of<'a>(s: &'a AxSnapshot, window_id: &str) -> &'a str {
    s.apps
        .iter()
        .find(|a| a.windows.iter().any(|w| w.id == window_id))
        .map_or("", |a| a.name.as_str())
}

/// Diffs two snapshots by window and element id.
pub fn diff(before: &AxSnapshot, after: &AxSnapshot) -> AxDiff {
    let mut out = AxDiff::default();
    diff_windows(before, after, &mut out);
    diff_elements(before, after, &mut out);
    out.windows.sort_by(|a, b| a.path.cmp(&b.path));
    out.elements.sort_by(|a, b| a.path.cmp(&b.path));
    out
}

fn diff_windows(before: &AxSnapshot, after: &AxSnapshot, out: &mut AxDiff) {
    let (wb, wa) = (windows_of(before), windows_of(after));
    for (id, b) in &wb {
        let path = window_path(app_of(before, id), b);
        let Some(a) = wa.get(id) else {
            out.summary.windows_closed += 1;
            out.windows.push(WindowDiff {
                path,
                status: Status::Removed,
                title: b.title.clone(),
                changes: Vec::new(),
            });
            continue;
        };
        let mut changes = Vec::new();
        let after_path = window_path(app_of(after, id), a);
        if after_path != path {
            changes.push(Change::Reparented {
                before: app_of(before, id).to_string(),
                after: app_of(after, id).to_string(),
            });
        }
        if a.frame != b.frame {
            changes.push(Change::Moved {
                before: b.frame,
                after: a.frame,
            });
        }
        if a.title != b.title {
            changes.push(Change::Relabelled {
                field: "title",
                before: Some(b.title.clone()),
                after: Some(a.title.clone()),
            });
        }
        if a.focused != b.focused {
            changes.push(Change::FocusChanged {
                before: b.focused,
                after: a.focused,
            });
        }
        if !changes.is_empty() {
            out.summary.windows_changed += 1;
            out.windows.push(WindowDiff {
                path: after_path,
                status: Status::Changed,
                title: a.title.clone(),
                changes,
            });
        }
    }
    for (id, a) in &wa {
        if !wb.contains_key(id) {
            out.summary.windows_opened += 1;
            out.windows.push(WindowDiff {
                path: window_path(app_of(after, id), a),
                status: Status::Added,
                title: a.title.clone(),
                changes: Vec::new(),
            });
        }
    }
}

fn entry(loc: &Located<'_>, status: Status, changes: Vec<Change>) -> ElementDiff {
    let e = loc.element;
    ElementDiff {
        path: format!("{}/{}", loc.window_path, e.id),
        role: e.ax_role.clone(),
        name: e.own_name().map(|n| {
            // A static text's name is its value; a secure field never names itself by it.
            if is_secure(e) && e.title.is_none() && e.description.is_none() {
                REDACTED.to_string()
            } else {
                n.to_string()
            }
        }),
        status,
        changes,
    }
}

fn diff_elements(before: &AxSnapshot, after: &AxSnapshot, out: &mut AxDiff) {
    let (eb, ea) = (elements_of(before), elements_of(after));
    out.summary.elements_before = eb.len() as u64;
    out.summary.elements_after = ea.len() as u64;
    let s = &mut out.summary;
    for (id, lb) in &eb {
        let Some(la) = ea.get(id) else {
            s.removed += 1;
            out.elements.push(entry(lb, Status::Removed, Vec::new()));
            continue;
        };
        let changes = element_changes(lb, la);
        // Counted per element: title and description both changing is one relabelled
        // element (same-kind changes are adjacent).
        for (i, c) in changes.iter().enumerate() {
            if i > 0 && changes[i - 1].kind() == c.kind() {
                continue;
            }
            let counter = match c {
                Change::Moved { .. } => &mut s.moved,
                Change::Reparented { .. } => &mut s.reparented,
                Change::RoleChanged { .. } => &mut s.role_changed,
                Change::Relabelled { .. } => &mut s.relabelled,
                Change::ValueChanged { .. } => &mut s.value_changed,
                Change::FocusChanged { .. } => &mut s.focus_changed,
                Change::EnabledChanged { .. } => &mut s.enabled_changed,
                Change::SelectedChanged { .. } => &mut s.selected_changed,
            };
            *counter += 1;
        }
        if !changes.is_empty() {
            out.elements.push(entry(la, Status::Changed, changes));
        }
    }
    for (id, la) in &ea {
        if !eb.contains_key(id) {
            s.added += 1;
            out.elements.push(entry(la, Status::Added, Vec::new()));
        }
    }
}

fn element_changes(lb: &Located<'_>, la: &Located<'_>) -> Vec<Change> {
    let (b, a) = (lb.element, la.element);
    let mut changes = Vec::new();
    if lb.window_path != la.window_path {
        changes.push(Change::Reparented {
            before: lb.window_path.clone(),
            after: la.window_path.clone(),
        });
    }
    if a.ax_role != b.ax_role {
        changes.push(Change::RoleChanged {
            before: b.ax_role.clone(),
            after: a.ax_role.clone(),
        });
    }
    if a.frame != b.frame {
        changes.push(Change::Moved {
            before: b.frame,
            after: a.frame,
        });
    }
    for (field, vb, va) in [
        ("title", &b.title, &a.title),
        ("description", &b.description, &a.description),
    ] {
        if vb != va {
            changes.push(Change::Relabelled {
                field,
                before: vb.clone(),
                after: va.clone(),
            });
        }
    }
    if a.value != b.value {
        changes.push(Change::ValueChanged {
            before: shown_value(b),
            after: shown_value(a),
        });
    }
    if a.focused != b.focused {
        changes.push(Change::FocusChanged {
            before: b.focused,
            after: a.focused,
        });
    }
    if a.enabled != b.enabled {
        changes.push(Change::EnabledChanged {
            before: b.enabled,
            after: a.enabled,
        });
    }
    if a.selected != b.selected {
        changes.push(Change::SelectedChanged {
            before: b.selected,
            after: a.selected,
        });
    }
    changes
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::recording::ax::App;

    fn el(id: &str, role: &str, title: &str, x: i32) -> Element {
        let frame = Rect::new(x, 10, 80, 24);
        Element {
            title: Some(title.into()),
            ..Element::new(id, role, frame)
        }
    }

    fn snap(windows: Vec<(&str, Vec<Element>)>) -> AxSnapshot {
        AxSnapshot {
            schema: crate::recording::ax::AX_SCHEMA.into(),
            apps: vec![App {
                name: "Mail".into(),
                bundle_id: None,
                frontmost: true,
                windows: windows
                    .into_iter()
                    .map(|(id, elements)| Window {
                        id: id.into(),
                        title: id.to_uppercase(),
                        kind: None,
                        frame: Rect::new(0, 0, 800, 600),
                        focused: false,
                        elements,
                    })
                    .collect(),
            }],
        }
    }

    #[test]
    fn identical_snapshots_have_an_empty_diff() {
        let s = snap(vec![("w1", vec![el("e1", "AXButton", "Send", 0)])]);
        let d = diff(&s, &s);
        assert!(d.is_empty());
        assert_eq!(d.summary.elements_before, 1);
        assert_eq!(d.summary.added + d.summary.removed + d.summary.moved, 0);
    }

    #[test]
    fn matches_by_id_not_by_position() {
        // Swapping two siblings and renaming one is a rename plus two moves, not add/remove.
        let b = snap(vec![(
            "w1",
            vec![
                el("e1", "AXButton", "Send", 0),
                el("e2", "AXButton", "Cancel", 100),
            ],
        )]);
        let a = snap(vec![(
            "w1",
            vec![
                el("e2", "AXButton", "Cancel", 0),
                el("e1", "AXButton", "Send now", 100),
            ],
        )]);
        let d = diff(&b, &a);
        assert_eq!((d.summary.added, d.summary.removed), (0, 0));
        assert_eq!((d.summary.moved, d.summary.relabelled), (2, 1));
        let paths: Vec<_> = d.elements.iter().map(|e| e.path.as_str()).collect();
        assert_eq!(paths, ["Mail/w1/e1", "Mail/w1/e2"]);
        assert_eq!(d.elements[0].changes[1].kind(), "relabelled");
    }

    #[test]
    fn windows_open_close_and_elements_follow() {
        let b = snap(vec![("w1", vec![el("e1", "AXButton", "Send", 0)])]);
        let mut moved = el("e1", "AXButton", "Send", 0);
        moved.focused = true;
        moved.enabled = false;
        let a = snap(vec![("w2", vec![moved])]);
        let d = diff(&b, &a);
        assert_eq!((d.summary.windows_opened, d.summary.windows_closed), (1, 1));
        assert_eq!(d.windows[0].status, Status::Removed);
        assert_eq!(d.windows[1].status, Status::Added);
        let kinds: Vec<_> = d.elements[0].changes.iter().map(Change::kind).collect();
        assert_eq!(kinds, ["reparented", "focus-changed", "enabled-changed"]);
    }

    #[test]
    fn secure_values_are_redacted() {
        let mut pb = el("pw", "AXTextField", "Password", 0);
        pb.subrole = Some("AXSecureTextField".into());
        pb.value = Some("hunter2".into());
        let mut pa = pb.clone();
        pa.value = Some("hunter22".into());
        let d = diff(&snap(vec![("w", vec![pb])]), &snap(vec![("w", vec![pa])]));
        let json = serde_json::to_string(&d).unwrap();
        assert!(!json.contains("hunter"), "{json}");
        assert_eq!(d.summary.value_changed, 1);
    }
}
