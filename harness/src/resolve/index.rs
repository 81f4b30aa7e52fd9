//! [`FrameIndex`]: one AX snapshot, indexed once for every lookup a replay makes on it.
//!
//! Resolution is the hot path: a frame is indexed once (accessible names derived, labels
//! normalized and grouped, elements laid on a coarse grid for point lookups), then every
//! target lookup is a hash probe plus a filter over the few elements that share the label.
//!
//! Indexing itself must stay cheap at 100k elements, so it borrows every string from the
//! snapshot (`FrameIndex<'a>`) instead of copying it, writes the normalized names into one
//! buffer ([`LabelTable`]), lays the groups and the grid out flat ([`PointGrid`]) and keeps
//! ids in a compact open-addressing table ([`IdTable`]): a handful of allocations per frame
//! rather than several per element.

use crate::recording::ax::{AxSnapshot, Element, Rect};
use crate::text::normalize_label;

use super::grid::PointGrid;
use super::hash::hash_str;
use super::ids::IdTable;
use super::labels::{LabelBuilder, LabelTable};
use super::name::Namer;

/// An element as the resolver sees it, borrowing its strings from the snapshot.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Node<'a> {
    /// Stable element id.
    pub(crate) id: &'a str,
    /// Index into [`FrameIndex::windows`].
    pub(crate) window: u32,
    /// `AXButton`, …
    pub(crate) ax_role: &'a str,
    /// The accessible name (own, labelled-by, or the label beside it).
    pub(crate) name: Option<&'a str>,
    /// Where it is, in pixels.
    pub(crate) frame: Rect,
    /// Whether it can be used.
    pub(crate) enabled: bool,
}

impl Node<'_> {
    /// The control as a person names it: its role in words and its name (`the button
    /// “Replace All”`), never its element id.
    pub(crate) fn said(&self) -> String {
        let mut role = String::new();
        for c in self
            .ax_role
            .strip_prefix("AX")
            .unwrap_or(self.ax_role)
            .chars()
        {
            if c.is_uppercase() && !role.is_empty() {
                role.push(' ');
            }
            role.extend(c.to_lowercase());
        }
        match self.name.filter(|n| !n.trim().is_empty()) {
            Some(name) => format!("the {role} “{name}”"),
            None => format!("a nameless {role}"),
        }
    }
}

/// A window, with its app.
#[derive(Clone, Debug)]
pub(crate) struct WindowInfo {
    /// Its title.
    pub(crate) title: String,
    /// Title, normalized.
    pub(crate) norm_title: String,
    /// App name.
    pub(crate) app: String,
    /// App name, normalized.
    pub(crate) norm_app: String,
    /// App bundle id.
    pub(crate) bundle_id: Option<String>,
    /// Whether its app is in front.
    pub(crate) frontmost_app: bool,
    /// Whether the window has focus.
    pub(crate) focused: bool,
    /// Where it is.
    pub(crate) frame: Rect,
    /// Front-to-back order across the screen (0 is in front).
    pub(crate) z: u32,
    /// The normalized title of the window a person works in when this one shows: its own,
    /// or for a nameless popup its owner's (see `owner.rs`); empty when there is none.
    pub(crate) work_title: String,
}

/// One frame's AX snapshot, indexed.
#[derive(Debug, Default)]
pub struct FrameIndex<'a> {
    /// All elements, in tree order.
    pub(crate) nodes: Vec<Node<'a>>,
    /// All windows.
    pub(crate) windows: Vec<WindowInfo>,
    labels: LabelTable,
    by_id: IdTable,
    grid: PointGrid,
    /// A browser frame's DOM, for CSS selectors.
    pub(crate) dom: Option<&'a crate::recording::dom::DomSnapshot>,
}

impl<'a> FrameIndex<'a> {
    /// The same index, with the frame's DOM for CSS-selector targets.
    pub(crate) fn with_dom(mut self, dom: Option<&'a crate::recording::dom::DomSnapshot>) -> Self {
        self.dom = dom;
        self
    }

    /// Indexes a snapshot.
    pub fn new(ax: &'a AxSnapshot) -> Self {
        let mut ix = FrameIndex::default();
        // Top-level elements only: counting every descendant would walk the whole tree (and
        // miss the cache on it) once more; nested trees just grow the vectors.
        let total: usize = ax
            .apps
            .iter()
            .flat_map(|a| &a.windows)
            .map(|w| w.elements.len())
            .sum();
        ix.nodes.reserve(total);
        let mut labels = LabelBuilder::with_capacity(total);
        let mut id_hashes: Vec<u64> = Vec::with_capacity(total);
        // Front app first, then file order: that is the stacking order a person sees.
        let mut apps: Vec<_> = ax.apps.iter().collect();
        apps.sort_by_key(|a| !a.frontmost);
        // One window's elements, parallel to its nodes (reused from window to window).
        let mut flat: Vec<&'a Element> = Vec::new();
        let mut namer = Namer::default();
        // Where each of the window's derived names came from (parallel to `flat`).
        let mut source: Vec<u32> = Vec::new();
        for app in apps {
            for win in &app.windows {
                let w = ix.windows.len() as u32;
                ix.windows.push(WindowInfo {
                    title: win.title.clone(),
                    norm_title: normalize_label(&win.title),
                    app: app.name.clone(),
                    norm_app: normalize_label(&app.name),
                    bundle_id: app.bundle_id.clone(),
                    frontmost_app: app.frontmost,
                    focused: win.focused,
                    frame: win.frame,
                    z: w,
                    work_title: String::new(),
                });
                let start = ix.nodes.len();
                flat.clear();
                win.walk(&mut |e| flat.push(e));
                ix.nodes.extend(flat.iter().map(|e| Node {
                    id: &e.id,
                    window: w,
                    ax_role: &e.ax_role,
                    name: e.own_name(),
                    frame: e.frame,
                    enabled: e.enabled,
                }));
                namer.derive(&mut ix.nodes[start..], &flat, &mut source);
                // Names and ids now, while this window's strings are still in cache.
                for (k, n) in ix.nodes[start..].iter().enumerate() {
                    match source[k] {
                        j if (j as usize) < k => labels.push_same_as((start + j as usize) as u32),
                        _ => labels.push(n.name),
                    }
                    id_hashes.push(hash_str(n.id));
                }
            }
        }
        for (k, owner) in super::owner::owners(&ix.windows).into_iter().enumerate() {
            ix.windows[k].work_title =
                owner.map_or_else(String::new, |o| ix.windows[o as usize].norm_title.clone());
        }
        ix.labels = labels.finish();
        // A repeated id: the last one wins, as it always has.
        ix.by_id = IdTable::build_hashed(&ix.nodes, &id_hashes);
        ix.grid = PointGrid::build(ix.nodes.iter().map(|n| n.frame));
        ix
    }

    /// Elements whose normalized name is `norm`, in tree order.
    pub(crate) fn with_label<'s>(&'s self, norm: &'s str) -> impl Iterator<Item = u32> + 's {
        self.labels.with(norm)
    }

    /// Element `i`'s normalized name ("" when it has none).
    pub(crate) fn norm(&self, i: u32) -> &str {
        self.labels.norm(i)
    }

    /// The element with this id.
    pub(crate) fn by_id(&self, id: &str) -> Option<&Node<'a>> {
        self.index_of(id).map(|i| &self.nodes[i as usize])
    }

    /// Index of the element with this id.
    pub(crate) fn index_of(&self, id: &str) -> Option<u32> {
        self.by_id.get(&self.nodes, id)
    }

    /// Elements whose frame contains the pixel `(x, y)`, in tree order.
    pub(crate) fn at_point(&self, x: f64, y: f64) -> Vec<u32> {
        let mut hits = self.grid.near(x, y);
        hits.retain(|&i| self.nodes[i as usize].frame.contains(x, y));
        hits
    }

    /// The window of an element.
    pub(crate) fn window_of(&self, node: &Node) -> &WindowInfo {
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
    fn a_control_is_said_by_its_role_and_name_not_its_id() {
        let node = |ax_role, name| Node {
            id: "e0-1-0-3-0-2",
            window: 0,
            ax_role,
            name,
            frame: Rect::new(0, 0, 1, 1),
            enabled: true,
        };
        assert_eq!(
            node("AXButton", Some("Replace All")).said(),
            "the button “Replace All”"
        );
        assert_eq!(
            node("AXTextField", Some("To:")).said(),
            "the text field “To:”"
        );
        assert_eq!(node("AXMenuItem", Some(" ")).said(), "a nameless menu item");
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
                    frame: Rect::new(0, 0, 400, 300),
                    focused: true,
                    elements: vec![
                        el("b1", "AXButton", Some("New  Message"), r(10, 10)),
                        el("b2", "AXButton", Some("Send"), r(100, 10)),
                    ],
                }],
            }],
        };
        let ix = FrameIndex::new(&ax);
        assert_eq!(ix.with_label("new message").collect::<Vec<_>>(), vec![0]);
        assert_eq!(ix.norm(0), "new message");
        assert_eq!(ix.by_id("b2").unwrap().name, Some("Send"));
        assert_eq!(ix.at_point(120.0, 15.0), vec![1]);
        assert!(ix.at_point(5.0, 5.0).is_empty());
    }
}
