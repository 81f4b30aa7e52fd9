//! [`FrameIndex`]: one AX snapshot, indexed once for every lookup a replay makes on it.
//!
//! Resolution is the hot path: a frame is indexed once (accessible names derived, labels
//! normalized, elements hashed by normalized label and laid on a coarse grid for point
//! lookups), then every target lookup is a hash probe plus a filter over the few elements
//! that share the label.

use std::collections::HashMap;

use crate::recording::ax::{AxSnapshot, Element, Rect};
use crate::text::normalize_label;

use super::name::derive_names;

/// An element as the resolver sees it.
#[derive(Clone, Debug)]
pub struct Node {
    /// Stable element id.
    pub id: String,
    /// Index into [`FrameIndex::windows`].
    pub window: u32,
    /// `AXButton`, …
    pub ax_role: String,
    /// The accessible name (own, labelled-by, or the label beside it).
    pub name: Option<String>,
    /// `name`, normalized.
    pub norm: String,
    /// Where it is, in pixels.
    pub frame: Rect,
    /// Its AX value.
    pub value: Option<String>,
    /// Whether it can be used.
    pub enabled: bool,
    /// Whether it has keyboard focus.
    pub focused: bool,
    /// Whether it is a secure (password) field.
    pub secure: bool,
}

/// A window, with its app.
#[derive(Clone, Debug)]
pub struct WindowInfo {
    /// Stable window id.
    pub id: String,
    /// Its title.
    pub title: String,
    /// Title, normalized.
    pub norm_title: String,
    /// App name.
    pub app: String,
    /// App name, normalized.
    pub norm_app: String,
    /// App bundle id.
    pub bundle_id: Option<String>,
    /// Whether its app is in front.
    pub frontmost_app: bool,
    /// Whether the window has focus.
    pub focused: bool,
    /// Where it is.
    pub frame: Rect,
    /// Front-to-back order across the screen (0 is in front).
    pub z: u32,
}

const CELL: i32 = 64;

/// One frame's AX snapshot, indexed.
#[derive(Debug, Default)]
pub struct FrameIndex {
    /// All elements, in tree order.
    pub nodes: Vec<Node>,
    /// All windows.
    pub windows: Vec<WindowInfo>,
    by_label: HashMap<String, Vec<u32>>,
    by_id: HashMap<String, u32>,
    grid: HashMap<(i32, i32), Vec<u32>>,
}

impl FrameIndex {
    /// Indexes a snapshot.
    pub fn new(ax: &AxSnapshot) -> Self {
        let mut ix = FrameIndex::default();
        // Front app first, then file order: that is the stacking order a person sees.
        let mut apps: Vec<_> = ax.apps.iter().collect();
        apps.sort_by_key(|a| !a.frontmost);
        for app in apps {
            for win in &app.windows {
                let w = ix.windows.len() as u32;
                ix.windows.push(WindowInfo {
                    id: win.id.clone(),
                    title: win.title.clone(),
                    norm_title: normalize_label(&win.title),
                    app: app.name.clone(),
                    norm_app: normalize_label(&app.name),
                    bundle_id: app.bundle_id.clone(),
                    frontmost_app: app.frontmost,
                    focused: win.focused,
                    frame: win.frame,
                    z: w,
                });
                let start = ix.nodes.len();
                let mut flat: Vec<&Element> = Vec::new();
                win.walk(&mut |e| flat.push(e));
                for e in &flat {
                    ix.nodes.push(Node {
                        id: e.id.clone(),
                        window: w,
                        ax_role: e.ax_role.clone(),
                        name: e.own_name().map(str::to_string),
                        norm: String::new(),
                        frame: e.frame,
                        value: e.value.clone(),
                        enabled: e.enabled,
                        focused: e.focused,
                        secure: e.subrole.as_deref() == Some("AXSecureTextField"),
                    });
                }
                derive_names(&mut ix.nodes[start..], &flat);
            }
        }
        for (i, n) in ix.nodes.iter_mut().enumerate() {
            n.norm = n.name.as_deref().map(normalize_label).unwrap_or_default();
            let i = i as u32;
            if !n.norm.is_empty() {
                ix.by_label.entry(n.norm.clone()).or_default().push(i);
            }
            ix.by_id.insert(n.id.clone(), i);
            let f = n.frame;
            if f.width > 0 && f.height > 0 {
                for cy in f.y.div_euclid(CELL)..=(f.y + f.height - 1).div_euclid(CELL) {
                    for cx in f.x.div_euclid(CELL)..=(f.x + f.width - 1).div_euclid(CELL) {
                        ix.grid.entry((cx, cy)).or_default().push(i);
                    }
                }
            }
        }
        ix
    }

    /// Elements whose normalized name is `norm`.
    pub fn with_label(&self, norm: &str) -> &[u32] {
        self.by_label.get(norm).map_or(&[], Vec::as_slice)
    }

    /// The element with this id.
    pub fn by_id(&self, id: &str) -> Option<&Node> {
        self.by_id.get(id).map(|&i| &self.nodes[i as usize])
    }

    /// Index of the element with this id.
    pub fn index_of(&self, id: &str) -> Option<u32> {
        self.by_id.get(id).copied()
    }

    /// Elements whose frame contains the pixel `(x, y)`.
    pub fn at_point(&self, x: f64, y: f64) -> Vec<u32> {
        let cell = ((x as i32).div_euclid(CELL), (y as i32).div_euclid(CELL));
        self.grid
            .get(&cell)
            .map(|v| {
                v.iter()
                    .copied()
                    .filter(|&i| self.nodes[i as usize].frame.contains(x, y))
                    .collect()
            })
            .unwrap_or_default()
    }

    /// The window of an element.
    pub fn window_of(&self, node: &Node) -> &WindowInfo {
        &self.windows[node.window as usize]
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::recording::ax::{App, Window};

    pub(crate) fn el(id: &str, role: &str, title: Option<&str>, frame: Rect) -> Element {
        Element {
            title: title.map(Into::into),
            ..Element::new(id, role, frame)
        }
    }

    #[test]
    fn indexes_labels_ids_and_points() {
        let r = |x, y| Rect {
            x,
            y,
            width: 50,
            height: 20,
        };
        let ax = AxSnapshot {
            schema: "stepreplay-ax/1".into(),
            apps: vec![App {
                name: "Mail".into(),
                bundle_id: None,
                frontmost: true,
                windows: vec![Window {
                    id: "w1".into(),
                    title: "Inbox".into(),
                    kind: None,
                    frame: Rect {
                        x: 0,
                        y: 0,
                        width: 400,
                        height: 300,
                    },
                    focused: true,
                    elements: vec![
                        el("b1", "AXButton", Some("New  Message"), r(10, 10)),
                        el("b2", "AXButton", Some("Send"), r(100, 10)),
                    ],
                }],
            }],
        };
        let ix = FrameIndex::new(&ax);
        assert_eq!(ix.with_label("new message").len(), 1);
        assert_eq!(ix.by_id("b2").unwrap().name.as_deref(), Some("Send"));
        assert_eq!(ix.at_point(120.0, 15.0), vec![1]);
        assert!(ix.at_point(5.0, 5.0).is_empty());
    }
}
