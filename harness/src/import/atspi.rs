//! AT-SPI trees in macOS AX vocabulary: a `realrec` frame's `frame_NNN.ax.json`
//! (`realrec.atspi/1`, the full tree a Linux recorder dumped) becomes an [`AxSnapshot`].
//!
//! **Roles.** [`ax_role`] (in `crate::roles`) is the one AT-SPI → AX table, row for row the
//! corpus's `ROLE-MAP.md` (the rule its `.mac.json` files were made with), and a row for every
//! other role AT-SPI, Qt and LibreOffice name (GTK 4's `entry` is an `AXTextField`). Some rows depend on where a
//! node is: a `menu` under a menu bar is an `AXMenuBarItem`, under a menu an `AXMenuItem`,
//! elsewhere an `AXMenu`; a `separator` in a menu is an untitled `AXMenuItem`, elsewhere an
//! `AXSplitter`; a `combo box` with an editable `text` child is an `AXComboBox`, else an
//! `AXPopUpButton`; a `text` is an `AXTextArea` when multi-line, an `AXTextField` when
//! editable, else an `AXStaticText`; a file, color or font chooser is a dialog window at the
//! top level and a nested file chooser an `AXGroup`. A `toggle button` is `AXCheckBox` /
//! `AXToggle`, or `AXSwitch` for a GtkSwitch, which GTK 3 and 4 expose as a toggle button
//! whose action is `toggle` (other buttons `click`) and newer AT-SPI as the role `switch`.
//! Only `invalid`, `unknown` and names no toolkit uses are `AXUnknown`.
//!
//! **Attributes.** `name` is the title, except that a static text's name is its value (its
//! `text` when that is not empty) and a menu separator has none. A field's value
//! ([`is_field_role`]) is its `text` (an editable combo's, else its entry child's), a spin
//! button's without text its `value`. A check box, toggle button, switch or radio button
//! ([`is_toggle_role`], not a tab) has the value `1` checked, `2` indeterminate, `0` otherwise
//! — the table says so for check boxes, and macOS and the synthetic desktop do it for all of
//! them — and counts as selected when checked ([`Element::selected`] is "selected or
//! checked"). Any other node with a `value` (`{current, …}` or a number) has `current` as its
//! value. States: `enabled`, `focused` and `selected` as they are; `active` or `focused` on a
//! top-level window is its focus. A node's first `labelled-by` target becomes
//! [`Element::labelled_by`] when that target is in the imported tree. `description` is
//! AXHelp, which the snapshot has no field for, and is dropped (as `actions`, `expanded` and
//! `modal` are).
//!
//! **What is kept.** A node is on screen when its states have `showing` and `visible` and it
//! has `extents` (not null, no negative side). GTK 4.8 says `showing` of its windows only: in
//! an app that says it of nothing inside a window, a node inside one is on screen when it is
//! `visible` with a box of some area (GTK 4 gives unmapped widgets none, and a closed popover
//! is not `visible`). Each node on screen is kept with its extents
//! as its frame. A node not on screen is kept only as the container of kept descendants —
//! a GTK 4 popover or stack page has no geometry of its own, its controls do — and gets an
//! empty frame at 0,0, which no point lookup ever hits (the resolver's grid skips empty
//! frames and treats them as off screen; the synthetic desktop draws nothing there). A
//! subtree with nothing on screen is dropped: a closed menu's items are `visible` but not
//! `showing`, and a menu that is not open must not offer clickable items (macOS does not
//! expose closed menus either); nor is anything inside a combo box that says it is
//! `collapsed` (or `expandable` and not `expanded`), whatever its items say. Top-level children of the application that map to `AXWindow`
//! (frame, dialog, alert, window, a top-level chooser) become windows, their `kind` from the
//! subrole (`AXDialog` → `dialog`), and so does any other top-level node with extents (Qt 6's
//! main window is a `filler`), without a kind; a top-level tool tip (GTK 3's) or a top-level
//! node of another role without extents is left out and counted in [`Dropped`].
//!
//! **Ids.** `e` + the node's `path` with `/` → `-` (`0/0/0/0/0/8` → `e0-0-0-0-0-8`), `w` + path
//! for windows: the same ids the `.mac.json` import gives the same nodes.
//!
//! **Real trees as they come.** Import keeps every node it can address and drops what it
//! cannot, counting each in [`Dropped`] (the import's note), never refusing a tree for a quirk
//! of the toolkit. A path that is not one child index below its parent's (AT-SPI answers −1
//! from `getIndexInParent` for some nodes) is replaced by the node's place among its siblings,
//! `x` + its position (`0/0/x3`), and its children are addressed under it. A path met twice is
//! the same node listed twice when its role, name and box repeat too (dropped with its
//! subtree), else a different node (addressed by its place). A `labelled-by` link to no node
//! of the file, to a path two nodes share, or to itself is dropped, as is a relation entry of
//! a shape this reader cannot tell. Control characters in names become spaces. A node with
//! null or negative extents, or a window of no size, is kept as a container as above.
//!
//! **Relations.** The recorder's README does not fix their shape, so this reads the shapes it
//! can tell apart: a list of `{"type" (or "relation"): "labelled-by", "targets": [{"path",
//! "role", "name"}]}` (or one `target`, or the target's members inline), or an object
//! `{"labelled-by": [targets]}`.

use std::collections::{HashMap, HashSet};
use std::path::Path;

use serde::Deserialize;
use serde_json::Value;

use super::realrec::{Size, SourceRect, element_id, nonempty, window_kind};
use crate::errors::{FieldPath, InputError, Reason};
use crate::json::{Source, expect_schema, parse_typed, parse_value, read_text};
use crate::recording::ax::{AX_SCHEMA, App, AxSnapshot, Element, Rect, Window};
pub(crate) use crate::roles::{AxRole, RoleContext, ax_role};
use crate::roles::{is_field_role, is_toggle_role};
use crate::text::plural;

/// The schema of the full per-frame AT-SPI trees.
pub(crate) const REALREC_ATSPI_SCHEMA: &str = "realrec.atspi/1";

/// One `frame_NNN.ax.json`, converted.
#[derive(Clone, Debug)]
pub(crate) struct AtspiFrame {
    /// The screen size the dump states, `(width, height)`.
    pub(crate) screen: (u32, u32),
    /// The tree, in AX vocabulary.
    pub(crate) ax: AxSnapshot,
    /// Whether the recorder stopped at its node limit (the tree is incomplete).
    pub(crate) truncated: bool,
    /// What import left out or changed, and why.
    pub(crate) dropped: Dropped,
}

#[derive(Deserialize)]
struct AtspiFile {
    screen: Size,
    #[serde(default)]
    coord_type: Option<String>,
    #[serde(default)]
    truncated: bool,
    applications: Vec<Node>,
}

#[derive(Deserialize)]
struct Node {
    path: String,
    role: String,
    #[serde(default)]
    name: Option<String>,
    #[serde(default)]
    states: Vec<String>,
    #[serde(default)]
    extents: Option<SourceRect>,
    #[serde(default)]
    text: Option<String>,
    #[serde(default)]
    value: Option<Value>,
    #[serde(default)]
    actions: Vec<String>,
    #[serde(default)]
    relations: Option<Value>,
    #[serde(default)]
    children: Vec<Node>,
}

impl Node {
    fn has(&self, state: &str) -> bool {
        self.states.iter().any(|s| s == state)
    }

    fn any_showing(&self) -> bool {
        self.has("showing") || self.children.iter().any(Node::any_showing)
    }

    fn is_editable_text(&self) -> bool {
        self.role == "text" && self.has("editable")
    }
}

/// Reads and converts one `frame_NNN.ax.json` of at most `max_bytes`.
pub(crate) fn read_atspi(path: &Path, max_bytes: u64) -> Result<AtspiFrame, InputError> {
    parse_atspi(&read_text(path, max_bytes)?)
}

/// Converts the text of a `realrec.atspi/1` file; every error names the file, the field path
/// and a reason code.
pub(crate) fn parse_atspi(src: &Source) -> Result<AtspiFrame, InputError> {
    let value = parse_value(src)?;
    expect_schema(src, &value, REALREC_ATSPI_SCHEMA, "realrec AT-SPI trees")?;
    let file: AtspiFile = parse_typed(src)?;
    if let Some(c) = file.coord_type.as_deref()
        && c != "screen"
    {
        return Err(src
            .error(
                FieldPath::root().key("coord_type"),
                Reason::InvalidField,
                format!("extents in {c:?} coordinates do not line up with the screenshot"),
            )
            .hint("record with screen coordinates (\"coord_type\": \"screen\")"));
    }
    let mut cv = Converter {
        src,
        paths: HashMap::new(),
        raw: HashMap::new(),
        showing_below_windows: true,
        closed: 0,
        dropped: Dropped::default(),
    };
    let mut apps = Vec::with_capacity(file.applications.len());
    let root = FieldPath::root().key("applications");
    for (i, app) in file.applications.iter().enumerate() {
        let at = root.index(i);
        let Some(app_path) = cv.address(app, None, i) else {
            continue;
        };
        cv.showing_below_windows = app
            .children
            .iter()
            .any(|top| top.children.iter().any(Node::any_showing));
        let mut windows = Vec::new();
        for (j, top) in app.children.iter().enumerate() {
            let Some(path) = cv.address(top, Some((app, &app_path)), j) else {
                continue;
            };
            let Some(e) = cv.node(top, &path, Some(app), true, &at.key("children").index(j))?
            else {
                continue;
            };
            if !is_window(top, &e) {
                cv.dropped.not_windows += 1;
                continue;
            }
            windows.push(Window {
                id: element_id('w', &path),
                title: top.name.as_deref().map(clean_name).unwrap_or_default(),
                kind: e.subrole.as_deref().map(window_kind),
                frame: e.frame,
                focused: top.has("active") || top.has("focused"),
                elements: e.children,
            });
        }
        apps.push(App {
            name: nonempty(&app.name)
                .map(|n| clean_name(&n))
                .unwrap_or_else(|| format!("app {}", i + 1)),
            bundle_id: None,
            // The recorder lists the recorded app first.
            frontmost: i == 0 && !windows.is_empty(),
            windows,
        });
    }
    let mut ax = AxSnapshot {
        schema: AX_SCHEMA.to_string(),
        apps,
    };
    cv.link_labels(&mut ax);
    Ok(AtspiFrame {
        screen: (file.screen.width, file.screen.height),
        ax,
        truncated: file.truncated,
        dropped: cv.dropped,
    })
}

/// Whether a top-level child of the application, kept as `e`, is a window: one whose role
/// maps to `AXWindow`, or any other with extents but a tool tip (Qt 6 gives its main window
/// the role `filler`).
fn is_window(top: &Node, e: &Element) -> bool {
    e.ax_role == "AXWindow" || (top.extents.is_some() && top.role != "tool tip")
}

/// What import left out or changed of one tree, because a real toolkit wrote it so (see the
/// module doc): each count is a node or link, never a reason to refuse the tree.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Dropped {
    /// Nodes whose path was not one child index below their parent's, addressed by their
    /// place among their siblings instead.
    pub readdressed: usize,
    /// Nodes dropped, subtree and all, as a repeat of a node already read at the same path.
    pub repeated: usize,
    /// `labelled-by` links dropped: to no node of the file, to a path two nodes share, to the
    /// node itself, or in a shape this reader cannot tell.
    pub links: usize,
    /// Names with control characters, which became spaces.
    pub control_names: usize,
    /// Top-level nodes with something on screen left out as not windows: tool tips, and
    /// nodes of a role other than a window's without extents.
    pub not_windows: usize,
}

impl Dropped {
    /// Whether nothing was left out or changed.
    pub fn is_empty(&self) -> bool {
        *self == Dropped::default()
    }

    /// Adds another tree's counts.
    pub fn add(&mut self, o: &Dropped) {
        self.readdressed += o.readdressed;
        self.repeated += o.repeated;
        self.links += o.links;
        self.control_names += o.control_names;
        self.not_windows += o.not_windows;
    }

    /// The counts in words, the non-zero ones only: `2 nodes re-addressed (…), 1 link dropped`.
    pub(crate) fn describe(&self) -> String {
        [
            (
                self.readdressed,
                "node addressed",
                "nodes addressed",
                "by their place (a path not one index below the parent's, such as AT-SPI's -1)",
            ),
            (
                self.repeated,
                "node dropped",
                "nodes dropped",
                "as a repeat of one at the same path",
            ),
            (
                self.links,
                "labelled-by link dropped",
                "labelled-by links dropped",
                "(to no node, a shared path or itself, or unreadable)",
            ),
            (
                self.control_names,
                "name",
                "names",
                "cleaned of control characters",
            ),
            (
                self.not_windows,
                "top-level node left out as no window",
                "top-level nodes left out as no window",
                "(a tool tip, or no extents)",
            ),
        ]
        .into_iter()
        .filter(|r| r.0 > 0)
        .map(|(n, one, many, why)| format!("{} {why}", plural(n, one, many)))
        .collect::<Vec<_>>()
        .join(", ")
    }
}

/// A name with each control character (a newline, a NUL) turned into a space.
fn clean_name(s: &str) -> String {
    s.chars()
        .map(|c| if c.is_control() { ' ' } else { c })
        .collect()
}

struct Converter<'s> {
    src: &'s Source,
    /// The addresses given so far, each with what its node looked like (role, name, box), to
    /// tell a node listed twice from two nodes given one path.
    paths: HashMap<String, u64>,
    /// The file's own path of each node read → its address; None when two nodes share it.
    raw: HashMap<String, Option<String>>,
    /// Whether the app says `showing` of anything inside its windows. GTK 4.8 does not (only
    /// of the windows), so for it `visible` and a box with area stand in for `showing`.
    showing_below_windows: bool,
    /// How many closed combo boxes the node being read is inside.
    closed: usize,
    dropped: Dropped,
}

impl Converter<'_> {
    fn invalid(&self, at: FieldPath, message: impl Into<String>) -> InputError {
        self.src.error(at, Reason::InvalidField, message)
    }

    /// The node's address: its own path when that is one child index below its parent's
    /// (`parent` is the parent node and its address), else its place among its siblings. None
    /// when the node repeats one already read (the same role, name and box at the same path).
    fn address(&mut self, n: &Node, parent: Option<(&Node, &str)>, place: usize) -> Option<String> {
        let own = match parent {
            None => is_index_path(&n.path).then(|| n.path.clone()),
            Some((p, at)) => n
                .path
                .strip_prefix(p.path.as_str())
                .and_then(|rest| rest.strip_prefix('/'))
                .filter(|seg| is_index_path(seg) && !seg.contains('/'))
                .map(|seg| format!("{at}/{seg}")),
        };
        let by_place = || match parent {
            None => format!("x{place}"),
            Some((_, at)) => format!("{at}/x{place}"),
        };
        let look = looks(n);
        let path = match own {
            Some(p) => match self.paths.get(&p) {
                None => p,
                Some(&seen) if seen == look => {
                    self.dropped.repeated += count_nodes(n);
                    return None;
                }
                Some(_) => {
                    self.dropped.readdressed += 1;
                    by_place()
                }
            },
            None => {
                self.dropped.readdressed += 1;
                by_place()
            }
        };
        if self.paths.contains_key(&path) {
            // Its place is taken too (only a file that writes `x` paths itself gets here).
            self.dropped.repeated += count_nodes(n);
            return None;
        }
        self.paths.insert(path.clone(), look);
        self.raw
            .entry(n.path.clone())
            .and_modify(|v| *v = None)
            .or_insert_with(|| Some(path.clone()));
        Some(path)
    }

    /// The node at address `path` as an element, or None when nothing in its subtree is on
    /// screen.
    fn node(
        &mut self,
        n: &Node,
        path: &str,
        parent: Option<&Node>,
        top_level: bool,
        at: &FieldPath,
    ) -> Result<Option<Element>, InputError> {
        let entry = n.children.iter().find(|c| c.is_editable_text());
        let cx = RoleContext {
            states: &n.states,
            actions: &n.actions,
            parent_role: parent.map(|p| p.role.as_str()),
            top_level,
            editable_text_child: entry.is_some(),
        };
        let AxRole { role, subrole } = ax_role(&n.role, &cx);
        // Checked and validated whether or not the node is kept: a malformed file is refused
        // the same way whatever is on screen.
        let number = self.number(n.value.as_ref(), &at.key("value"))?;
        let label = match &n.relations {
            Some(r) => self.labelled_by(r),
            None => None,
        };
        // A closed combo's list is not on screen, whatever its items say (Qt keeps them
        // `showing`, with boxes where nothing of them is drawn).
        let closed = n.role == "combo box"
            && (n.has("collapsed") || (n.has("expandable") && !n.has("expanded")));
        self.closed += usize::from(closed);
        let mut children = Vec::new();
        for (j, c) in n.children.iter().enumerate() {
            let Some(cpath) = self.address(c, Some((n, path)), j) else {
                continue;
            };
            let kept = self.node(c, &cpath, Some(n), false, &at.key("children").index(j));
            match kept {
                Ok(Some(e)) => children.push(e),
                Ok(None) => {}
                Err(e) => {
                    self.closed -= usize::from(closed);
                    return Err(e);
                }
            }
        }
        self.closed -= usize::from(closed);
        let geometry = n
            .extents
            .filter(|r| r.width >= 0.0 && r.height >= 0.0)
            .map(Into::into);
        let showing = if self.showing_below_windows || top_level {
            n.has("showing")
        } else {
            geometry.is_some_and(|g: Rect| g.width > 0 && g.height > 0)
        };
        let on_screen = showing && n.has("visible") && geometry.is_some() && self.closed == 0;
        if !on_screen && children.is_empty() {
            return Ok(None);
        }
        let frame = if on_screen { geometry } else { None };
        let mut e = Element::new(element_id('e', path), role, frame.unwrap_or_default());
        e.subrole = subrole.map(str::to_string);
        let checkable = is_toggle_role(role) && subrole != Some("AXTabButton");
        let separator = n.role == "separator";
        let name = nonempty(&n.name).map(|s| {
            if s.chars().any(char::is_control) {
                self.dropped.control_names += 1;
                clean_name(&s)
            } else {
                s
            }
        });
        e.title = if role == "AXStaticText" || separator {
            None
        } else {
            name.clone()
        };
        e.value = if role == "AXStaticText" {
            nonempty(&n.text).or(name)
        } else if is_field_role(role) {
            n.text
                .clone()
                .or_else(|| entry.and_then(|c| c.text.clone()))
                .or(number)
        } else if checkable {
            let state = if n.has("checked") {
                "1"
            } else if n.has("indeterminate") {
                "2"
            } else {
                "0"
            };
            Some(state.to_string())
        } else {
            number
        };
        // The file's own path of the label: linked to an address once every node is read.
        e.labelled_by = label;
        // GTK 4.8 says `sensitive` without `enabled`; the two go together everywhere else.
        e.enabled = n.has("enabled") || n.has("sensitive");
        e.focused = n.has("focused");
        e.selected = n.has("selected") || (checkable && n.has("checked"));
        e.children = children;
        Ok(Some(e))
    }

    /// `value`: a number, or `{current, …}` (AT-SPI's Value interface); its current value as
    /// text.
    fn number(&self, v: Option<&Value>, at: &FieldPath) -> Result<Option<String>, InputError> {
        let current = match v {
            None | Some(Value::Null) => return Ok(None),
            Some(Value::Object(m)) => match m.get("current") {
                None | Some(Value::Null) => return Ok(None),
                Some(c) => (c, at.key("current")),
            },
            Some(other) => (other, at.clone()),
        };
        match current.0 {
            Value::Number(n) => Ok(Some(number_text(n))),
            Value::String(s) => Ok(Some(s.clone())),
            _ => Err(self
                .invalid(current.1, "a value is a number or {\"current\": number, …}")
                .hint("AT-SPI's Value interface gives current, minimum and maximum numbers")),
        }
    }

    /// The file's path of the first `labelled-by` target of a node's `relations`. An entry
    /// or target of a shape this reader cannot tell is dropped and counted.
    fn labelled_by(&mut self, rel: &Value) -> Option<String> {
        let mut found: Option<String> = None;
        let mut unreadable = 0;
        // Each target read; how many could not be.
        let mut take = |kind: &str, targets: &Value| -> usize {
            let mut bad = 0;
            let list: Vec<&Value> = match targets {
                Value::Array(a) => a.iter().collect(),
                one => vec![one],
            };
            for t in list {
                let path = match t {
                    Value::String(s) => Some(s),
                    Value::Object(m) => match m.get("path") {
                        Some(Value::String(s)) => Some(s),
                        Some(Value::Null) | None => None,
                        Some(_) => {
                            bad += 1;
                            None
                        }
                    },
                    Value::Null => None,
                    _ => {
                        bad += 1;
                        None
                    }
                };
                if let Some(p) = path
                    && found.is_none()
                    && is_labelled_by(kind)
                {
                    found = Some(p.clone());
                }
            }
            bad
        };
        match rel {
            Value::Null => {}
            Value::Object(m) => {
                for (kind, targets) in m {
                    unreadable += take(kind, targets);
                }
            }
            Value::Array(entries) => {
                for entry in entries {
                    let Value::Object(m) = entry else {
                        unreadable += 1;
                        continue;
                    };
                    let kind = ["type", "relation"]
                        .iter()
                        .find_map(|key| m.get(*key).and_then(Value::as_str));
                    let targets = m
                        .get("targets")
                        .or_else(|| m.get("target"))
                        .or_else(|| m.contains_key("path").then_some(entry));
                    match (kind, targets) {
                        (Some(kind), Some(targets)) => unreadable += take(kind, targets),
                        _ => unreadable += 1,
                    }
                }
            }
            _ => unreadable += 1,
        }
        self.dropped.links += unreadable;
        found
    }

    /// Turns each element's `labelled_by`, the file's path of its label, into the label's id
    /// when that label was kept; links to nothing in the file are counted as dropped.
    fn link_labels(&mut self, ax: &mut AxSnapshot) {
        fn ids(e: &Element, out: &mut HashSet<String>) {
            out.insert(e.id.clone());
            for c in &e.children {
                ids(c, out);
            }
        }
        fn fix(
            e: &mut Element,
            raw: &HashMap<String, Option<String>>,
            kept: &HashSet<String>,
            dropped: &mut usize,
        ) {
            if let Some(p) = e.labelled_by.take() {
                match raw.get(&p) {
                    Some(Some(path)) => {
                        let id = element_id('e', path);
                        if id == e.id {
                            *dropped += 1;
                        } else if kept.contains(&id) {
                            e.labelled_by = Some(id);
                        }
                        // A label not on screen is simply not there: nothing to count.
                    }
                    _ => *dropped += 1,
                }
            }
            for c in &mut e.children {
                fix(c, raw, kept, dropped);
            }
        }
        let mut kept = HashSet::new();
        for w in ax.apps.iter().flat_map(|a| &a.windows) {
            for e in &w.elements {
                ids(e, &mut kept);
            }
        }
        for w in ax.apps.iter_mut().flat_map(|a| &mut a.windows) {
            for e in &mut w.elements {
                fix(e, &self.raw, &kept, &mut self.dropped.links);
            }
        }
    }
}

/// What tells a node listed twice from another node given the same path.
fn looks(n: &Node) -> u64 {
    let ext = n
        .extents
        .map(|r| format!("{},{},{},{}", r.x, r.y, r.width, r.height))
        .unwrap_or_default();
    let text = format!(
        "{}\u{0}{}\u{0}{ext}",
        n.role,
        n.name.as_deref().unwrap_or("")
    );
    crate::fnv::fnv1a64(text.as_bytes())
}

/// The nodes in `n`'s subtree, itself included.
fn count_nodes(n: &Node) -> usize {
    1 + n.children.iter().map(count_nodes).sum::<usize>()
}

/// `labelled-by`, however the recorder spelled it (`labelled by`, `LABELLED_BY`, `labeled-by`).
fn is_labelled_by(kind: &str) -> bool {
    let k: String = kind
        .chars()
        .map(|c| match c {
            ' ' | '_' => '-',
            c => c.to_ascii_lowercase(),
        })
        .collect();
    matches!(k.as_str(), "labelled-by" | "labeled-by")
}

/// `0`, `0/1/12`: child indices separated by `/`.
fn is_index_path(p: &str) -> bool {
    !p.is_empty()
        && p.split('/')
            .all(|s| !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit()))
}

/// A number as a value: integers without a fraction (`50`, not `50.0`).
fn number_text(n: &serde_json::Number) -> String {
    if let Some(i) = n.as_i64() {
        return i.to_string();
    }
    if let Some(u) = n.as_u64() {
        return u.to_string();
    }
    let f = n.as_f64().unwrap_or(0.0);
    if f.fract() == 0.0 && f.abs() < 9.0e15 {
        format!("{}", f as i64)
    } else {
        format!("{f}")
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;
    use crate::recording::ax::Rect;

    /// One AT-SPI node as the recorder writes it (`interfaces`, `attributes` and
    /// `child_count` included, though the importer reads none of them).
    fn n(path: &str, role: &str, name: &str, states: &[&str], extents: Value) -> Value {
        json!({
            "path": path, "role": role, "name": name, "description": "",
            "states": states, "extents": extents, "interfaces": ["Component"],
            "attributes": {"toolkit": "gtk"}, "child_count": 0, "children": []
        })
    }

    fn with(mut node: Value, children: Vec<Value>) -> Value {
        node["child_count"] = children.len().into();
        node["children"] = children.into();
        node
    }

    fn set(mut node: Value, key: &str, v: Value) -> Value {
        node[key] = v;
        node
    }

    fn ext(x: i32, y: i32, width: i32, height: i32) -> Value {
        json!({"x": x, "y": y, "width": width, "height": height})
    }

    const SHOWN: &[&str] = &["enabled", "sensitive", "showing", "visible"];

    /// A `realrec.atspi/1` file with one app whose top-level nodes are `tops`.
    fn file(tops: Vec<Value>) -> Value {
        json!({
            "schema": "realrec.atspi/1", "coord_type": "screen",
            "screen": {"width": 1440, "height": 900}, "truncated": false,
            "applications": [with(
                json!({"path": "0", "role": "application", "name": "demo", "description": "",
                       "states": [], "interfaces": [], "child_count": 0, "children": []}),
                tops,
            )]
        })
    }

    fn convert(v: &Value) -> Result<AtspiFrame, InputError> {
        parse_atspi(&Source::from_text("frame_000.ax.json", v.to_string()))
    }

    /// A dialog `0/0` holding `children`.
    fn dialog(children: Vec<Value>) -> Value {
        with(
            n(
                "0/0",
                "dialog",
                "Demo",
                &["active", "enabled", "showing", "visible"],
                ext(100, 100, 400, 300),
            ),
            children,
        )
    }

    fn find<'a>(f: &'a AtspiFrame, id: &str) -> Option<&'a Element> {
        f.ax.find(id).map(|(_, _, e)| e)
    }

    /// GTK 4: a popover and its stack have no extents (no Component of their own), the open
    /// page's controls do. The controls stay, with their boxes; the containers stay as empty
    /// frames no point lookup hits; the hidden page, nothing of it showing, is dropped.
    #[test]
    fn a_popover_page_without_extents_keeps_its_controls() {
        let open_page = with(
            n("0/0/1/0/0", "panel", "", SHOWN, Value::Null),
            vec![
                set(
                    n(
                        "0/0/1/0/0/0",
                        "push button",
                        "Rename",
                        &["enabled", "focusable", "showing", "visible"],
                        ext(220, 160, 120, 30),
                    ),
                    "actions",
                    json!(["click"]),
                ),
                n(
                    "0/0/1/0/0/1",
                    "check box",
                    "Pinned",
                    &["checked", "enabled", "showing", "visible"],
                    ext(220, 196, 120, 24),
                ),
            ],
        );
        let hidden_page = with(
            n(
                "0/0/1/0/1",
                "panel",
                "",
                &["enabled", "sensitive", "visible"],
                Value::Null,
            ),
            vec![n(
                "0/0/1/0/1/0",
                "push button",
                "Delete",
                &["enabled", "visible"],
                Value::Null,
            )],
        );
        let popover = with(
            n("0/0/1", "panel", "", SHOWN, Value::Null),
            vec![with(
                n("0/0/1/0", "panel", "", SHOWN, Value::Null),
                vec![open_page, hidden_page],
            )],
        );
        let f = convert(&file(vec![dialog(vec![
            n(
                "0/0/0",
                "toggle button",
                "Options",
                SHOWN,
                ext(200, 120, 40, 30),
            ),
            popover,
        ])]))
        .unwrap();
        let rename = find(&f, "e0-0-1-0-0-0").expect("the popover's button is kept");
        assert_eq!(
            (rename.ax_role.as_str(), rename.title.as_deref()),
            ("AXButton", Some("Rename"))
        );
        assert_eq!(rename.frame, Rect::new(220, 160, 120, 30));
        let pinned = find(&f, "e0-0-1-0-0-1").unwrap();
        assert_eq!(
            (pinned.value.as_deref(), pinned.selected),
            (Some("1"), true)
        );
        for container in ["e0-0-1", "e0-0-1-0", "e0-0-1-0-0"] {
            let e = find(&f, container).expect(container);
            assert_eq!((e.ax_role.as_str(), e.frame), ("AXGroup", Rect::default()));
        }
        assert!(
            find(&f, "e0-0-1-0-1").is_none(),
            "the hidden page is dropped"
        );
        assert!(find(&f, "e0-0-1-0-1-0").is_none(), "its button with it");
        // A click on the button finds the button and nothing without geometry.
        let ix = crate::resolve::FrameIndex::new(&f.ax);
        let (x, y) = rename.frame.center();
        let hits: Vec<&str> = ix
            .at_point(x, y)
            .iter()
            .map(|&i| ix.nodes[i as usize].id)
            .collect();
        assert_eq!(hits, ["e0-0-1-0-0-0"]);
        assert!(
            ix.at_point(0.5, 0.5).is_empty(),
            "an empty frame at 0,0 is hit by nothing"
        );
        // And the synthetic desktop draws nothing for the containers.
        let screen = crate::recording::format::Screen {
            width: 640,
            height: 480,
            scale: 1,
        };
        let mut bare = f.ax.clone();
        let dialog = &mut bare.apps[0].windows[0];
        let pop = dialog.elements.remove(1);
        assert_eq!(pop.children[0].children.len(), 1, "one page kept");
        dialog
            .elements
            .extend(pop.children[0].children[0].children.clone());
        assert!(
            crate::paint::render(&f.ax, &screen) == crate::paint::render(&bare, &screen),
            "the containers without geometry changed the picture"
        );
    }

    /// GTK 3: a closed combo's menu has no extents and its items are `visible` but not
    /// `showing`. None of them may become something to click; the combo stays. A closed menu
    /// whose items still report their last boxes is dropped as well: `showing` decides.
    #[test]
    fn a_closed_menu_is_dropped() {
        let item = |i: usize, name: &str| {
            set(
                n(
                    &format!("0/0/0/0/{i}"),
                    "menu item",
                    name,
                    &["enabled", "selectable", "sensitive", "visible"],
                    Value::Null,
                ),
                "actions",
                json!(["click"]),
            )
        };
        let combo = with(
            set(
                n("0/0/0", "combo box", "", SHOWN, ext(161, 125, 204, 34)),
                "actions",
                json!(["press"]),
            ),
            vec![with(
                n(
                    "0/0/0/0",
                    "menu",
                    "",
                    &["enabled", "sensitive"],
                    Value::Null,
                ),
                vec![item(0, "Family"), item(1, "Work")],
            )],
        );
        let stale = n(
            "0/0/1/0/0/0",
            "menu item",
            "Open",
            &["enabled", "sensitive", "visible"],
            ext(110, 130, 120, 24),
        );
        let menu_bar = with(
            n("0/0/1", "menu bar", "", SHOWN, ext(100, 100, 400, 24)),
            vec![with(
                n("0/0/1/0", "menu", "File", SHOWN, ext(100, 100, 40, 24)),
                vec![with(
                    n(
                        "0/0/1/0/0",
                        "menu",
                        "Recent",
                        &["enabled", "visible"],
                        ext(110, 110, 120, 24),
                    ),
                    vec![stale],
                )],
            )],
        );
        let f = convert(&file(vec![dialog(vec![combo, menu_bar])])).unwrap();
        let combo = find(&f, "e0-0-0").expect("the combo stays");
        assert_eq!(combo.ax_role, "AXPopUpButton");
        assert!(combo.children.is_empty(), "{:?}", combo.children);
        let file_menu = find(&f, "e0-0-1-0").expect("the menu bar's item stays");
        assert_eq!(file_menu.ax_role, "AXMenuBarItem");
        assert!(file_menu.children.is_empty(), "{:?}", file_menu.children);
        assert_eq!(f.ax.element_count(), 3);
    }

    /// Rows of ROLE-MAP.md, with the context each depends on.
    #[test]
    fn roles_follow_the_role_map() {
        let s = |v: &[&str]| v.iter().map(|s| s.to_string()).collect::<Vec<_>>();
        let role = |r: &str, cx: RoleContext| {
            let m = ax_role(r, &cx);
            (m.role, m.subrole)
        };
        let plain = RoleContext::default();
        assert_eq!(
            role("toggle button", plain),
            ("AXCheckBox", Some("AXToggle"))
        );
        let toggle = s(&["toggle"]);
        let switch = RoleContext {
            actions: &toggle,
            ..plain
        };
        assert_eq!(
            role("toggle button", switch),
            ("AXCheckBox", Some("AXSwitch"))
        );
        assert_eq!(
            role("password text", plain),
            ("AXTextField", Some("AXSecureTextField"))
        );
        assert_eq!(role("combo box", plain), ("AXPopUpButton", None));
        let editable = RoleContext {
            editable_text_child: true,
            ..plain
        };
        assert_eq!(role("combo box", editable), ("AXComboBox", None));
        assert_eq!(
            role("page tab", plain),
            ("AXRadioButton", Some("AXTabButton"))
        );
        assert_eq!(role("page tab list", plain), ("AXTabGroup", None));
        assert_eq!(role("label", plain), ("AXStaticText", None));
        let field = s(&["editable", "single-line"]);
        let multi = s(&["editable", "multi-line"]);
        let read_only = s(&["single-line"]);
        assert_eq!(
            role(
                "text",
                RoleContext {
                    states: &field,
                    ..plain
                }
            ),
            ("AXTextField", None)
        );
        assert_eq!(
            role(
                "text",
                RoleContext {
                    states: &multi,
                    ..plain
                }
            ),
            ("AXTextArea", None)
        );
        assert_eq!(
            role(
                "text",
                RoleContext {
                    states: &read_only,
                    ..plain
                }
            ),
            ("AXStaticText", None)
        );
        let under = |p| RoleContext {
            parent_role: Some(p),
            ..plain
        };
        assert_eq!(role("menu", under("menu bar")), ("AXMenuBarItem", None));
        assert_eq!(role("menu", under("menu")), ("AXMenuItem", None));
        assert_eq!(role("menu", under("combo box")), ("AXMenu", None));
        assert_eq!(role("separator", under("menu")), ("AXMenuItem", None));
        assert_eq!(role("separator", under("panel")), ("AXSplitter", None));
        assert_eq!(role("tree item", plain), ("AXRow", Some("AXOutlineRow")));
        assert_eq!(
            role("table column header", plain),
            ("AXButton", Some("AXSortButton"))
        );
        assert_eq!(role("frame", plain), ("AXWindow", Some("AXStandardWindow")));
        assert_eq!(
            role("window", plain),
            ("AXWindow", Some("AXFloatingWindow"))
        );
        let top = RoleContext {
            top_level: true,
            ..plain
        };
        assert_eq!(role("file chooser", top), ("AXWindow", Some("AXDialog")));
        assert_eq!(role("file chooser", plain), ("AXGroup", None));
        assert_eq!(role("calendar", plain), ("AXGroup", None));
        assert_eq!(role("redundant object", plain), ("AXGroup", None));
        assert_eq!(role("entry", plain), ("AXTextField", None));
        assert_eq!(role("invalid", plain), ("AXUnknown", None));
    }

    /// A dialog with one control of each kind the attribute rules treat apart.
    fn one_of_each() -> Value {
        file(vec![dialog(vec![
            set(
                n("0/0/0", "label", "Birthday", SHOWN, ext(10, 10, 50, 20)),
                "text",
                json!("Birthday"),
            ),
            set(
                n(
                    "0/0/1",
                    "text",
                    "",
                    &[
                        "editable",
                        "enabled",
                        "focused",
                        "showing",
                        "single-line",
                        "visible",
                    ],
                    ext(70, 10, 200, 30),
                ),
                "text",
                json!(""),
            ),
            set(
                n("0/0/2", "password text", "", SHOWN, ext(70, 50, 200, 30)),
                "text",
                json!("●●●●"),
            ),
            n(
                "0/0/3",
                "check box",
                "Remember",
                &["enabled", "indeterminate", "showing", "visible"],
                ext(70, 90, 100, 20),
            ),
            n(
                "0/0/4",
                "radio button",
                "Work",
                SHOWN,
                ext(70, 120, 100, 20),
            ),
            n(
                "0/0/5",
                "page tab",
                "General",
                &["enabled", "selected", "showing", "visible"],
                ext(10, 150, 80, 24),
            ),
            set(
                n("0/0/6", "slider", "Volume", SHOWN, ext(10, 180, 200, 20)),
                "value",
                json!({"current": 40.0, "minimum": 0, "maximum": 100}),
            ),
            with(
                n("0/0/7", "combo box", "", SHOWN, ext(10, 210, 200, 30)),
                vec![set(
                    n(
                        "0/0/7/0",
                        "text",
                        "",
                        &["editable", "enabled", "showing", "single-line", "visible"],
                        ext(12, 212, 170, 26),
                    ),
                    "text",
                    json!("Friends"),
                )],
            ),
            n(
                "0/0/8",
                "push button",
                "Later",
                &["showing", "visible"],
                ext(10, 250, 80, 30),
            ),
        ])])
    }

    /// Names, values and states as the attribute rules say, on one converted tree.
    #[test]
    fn names_values_and_states_follow_the_role_map() {
        let f = convert(&one_of_each()).unwrap();
        let e = |id| find(&f, id).unwrap();
        let label = e("e0-0-0");
        assert_eq!(
            (
                label.ax_role.as_str(),
                label.title.as_deref(),
                label.value.as_deref()
            ),
            ("AXStaticText", None, Some("Birthday"))
        );
        assert_eq!(label.own_name(), Some("Birthday"));
        let entry = e("e0-0-1");
        assert_eq!(
            (
                entry.value.as_deref(),
                entry.focused,
                entry.title.as_deref()
            ),
            (Some(""), true, None)
        );
        let pin = e("e0-0-2");
        assert_eq!(
            (pin.subrole.as_deref(), pin.value.as_deref()),
            (Some("AXSecureTextField"), Some("●●●●"))
        );
        assert!(pin.enabled);
        assert!(!e("e0-0-8").enabled, "no `enabled` state, not enabled");
        let check = e("e0-0-3");
        assert_eq!((check.value.as_deref(), check.selected), (Some("2"), false));
        assert_eq!(e("e0-0-4").value.as_deref(), Some("0"));
        let tab = e("e0-0-5");
        assert_eq!(
            (tab.value.as_deref(), tab.selected, tab.title.as_deref()),
            (None, true, Some("General"))
        );
        assert_eq!(e("e0-0-6").value.as_deref(), Some("40"));
        let combo = e("e0-0-7");
        assert_eq!(
            (combo.ax_role.as_str(), combo.value.as_deref()),
            ("AXComboBox", Some("Friends"))
        );
        let w = &f.ax.apps[0].windows[0];
        assert_eq!(
            (
                w.id.as_str(),
                w.title.as_str(),
                w.kind.as_deref(),
                w.focused
            ),
            ("w0-0", "Demo", Some("dialog"), true)
        );
    }

    /// Top-level frames, dialogs and windows are windows, and so is a top-level node of any
    /// other role with extents (Qt 6's `filler`); a top-level tool tip is not, nor a `panel`
    /// without extents, both counted; a window with nothing showing is left out.
    #[test]
    fn top_level_windows_keep_their_kind() {
        let f = convert(&file(vec![
            n(
                "0/0",
                "frame",
                "Editor",
                &["enabled", "showing", "visible"],
                ext(0, 0, 800, 600),
            ),
            n(
                "0/1",
                "window",
                "",
                &["active", "enabled", "showing", "visible"],
                ext(10, 40, 200, 100),
            ),
            n("0/2", "tool tip", "Save", SHOWN, ext(30, 30, 40, 20)),
            n(
                "0/3",
                "dialog",
                "Hidden",
                &["enabled", "visible"],
                ext(100, 100, 300, 200),
            ),
            with(
                n("0/4", "filler", "Qt 6", SHOWN, ext(0, 0, 640, 480)),
                vec![n("0/4/0", "push button", "OK", SHOWN, ext(10, 10, 40, 20))],
            ),
            with(
                n("0/5", "panel", "", SHOWN, Value::Null),
                vec![n("0/5/0", "label", "Hi", SHOWN, ext(10, 10, 40, 20))],
            ),
        ]))
        .unwrap();
        assert_eq!(f.dropped.not_windows, 2);
        let app = &f.ax.apps[0];
        let got: Vec<_> = app
            .windows
            .iter()
            .map(|w| (w.id.as_str(), w.kind.as_deref(), w.focused))
            .collect();
        assert_eq!(
            got,
            [
                ("w0-0", Some("standard-window"), false),
                ("w0-1", Some("floating-window"), true),
                ("w0-4", None, false)
            ]
        );
        assert_eq!(app.windows[2].title, "Qt 6");
        assert_eq!(app.windows[2].elements[0].own_name(), Some("OK"));
        assert!(app.frontmost);
    }

    /// Qt keeps the items of a closed combo's list `showing`, with boxes: they are not on
    /// screen until the combo says it is expanded.
    #[test]
    fn a_closed_combos_items_are_not_on_screen() {
        let combo = |states: &[&str]| {
            let mut st = SHOWN.to_vec();
            st.extend_from_slice(states);
            with(
                n("0/0/0", "combo box", "Policy", &st, ext(10, 10, 200, 30)),
                vec![with(
                    n("0/0/0/0", "list", "", SHOWN, ext(0, 75, 756, 25)),
                    vec![n(
                        "0/0/0/0/0",
                        "list item",
                        "Forbidden",
                        SHOWN,
                        ext(0, 75, 756, 25),
                    )],
                )],
            )
        };
        for (states, shown) in [
            (&["expandable"][..], false),
            (&["collapsed"][..], false),
            (&["expandable", "expanded"][..], true),
            (&[][..], true),
        ] {
            let f = convert(&file(vec![dialog(vec![combo(states)])])).unwrap();
            assert_eq!(find(&f, "e0-0-0-0-0").is_some(), shown, "{states:?}");
            assert!(find(&f, "e0-0-0").is_some());
        }
    }

    /// A labelled-by relation links to its label when the label was kept, and to nothing when
    /// it was not.
    #[test]
    fn labelled_by_links_to_a_kept_label() {
        let rel = |path: &str| json!([{"type": "labelled-by", "targets": [{"role": "label", "name": "First name", "path": path}]}]);
        let f = convert(&file(vec![dialog(vec![
            n("0/0/0", "label", "First name", SHOWN, ext(10, 10, 60, 20)),
            set(
                n(
                    "0/0/1",
                    "text",
                    "",
                    &["editable", "showing", "visible"],
                    ext(80, 10, 200, 20),
                ),
                "relations",
                rel("0/0/0"),
            ),
            n("0/0/2", "label", "Gone", &["visible"], Value::Null),
            set(
                n(
                    "0/0/3",
                    "text",
                    "",
                    &["editable", "showing", "visible"],
                    ext(80, 40, 200, 20),
                ),
                "relations",
                json!({"labelled-by": [{"path": "0/0/2"}], "label-for": []}),
            ),
        ])]))
        .unwrap();
        assert_eq!(
            find(&f, "e0-0-1").unwrap().labelled_by.as_deref(),
            Some("e0-0-0")
        );
        assert_eq!(find(&f, "e0-0-3").unwrap().labelled_by, None);
    }

    /// Malformed files are refused with the file, the field path and a reason code.
    #[test]
    fn malformed_trees_are_refused_with_file_path_and_reason() {
        let good = || {
            file(vec![dialog(vec![n(
                "0/0/0",
                "push button",
                "OK",
                SHOWN,
                ext(10, 10, 80, 30),
            )])])
        };
        let cases: Vec<(Value, Reason, &str, &str)> = vec![
            (
                {
                    let mut v = good();
                    v["schema"] = "realrec.macax/1".into();
                    v
                },
                Reason::UnsupportedSchema,
                "schema",
                "not supported",
            ),
            (
                {
                    let mut v = good();
                    v["applications"][0]["children"][0]["children"][0]["extents"]["width"] =
                        "wide".into();
                    v
                },
                Reason::InvalidField,
                "applications[0].children[0].children[0].extents.width",
                "invalid type",
            ),
            (
                {
                    let mut v = good();
                    v["applications"][0]["children"][0]["children"][0]["states"] = json!("showing");
                    v
                },
                Reason::InvalidField,
                "applications[0].children[0].children[0].states",
                "invalid type",
            ),
            (
                {
                    let mut v = good();
                    v["applications"][0]["children"][0]["children"][0]["value"] =
                        json!({"current": true});
                    v
                },
                Reason::InvalidField,
                "applications[0].children[0].children[0].value.current",
                "a value is",
            ),
            (
                {
                    let mut v = good();
                    v["coord_type"] = "window".into();
                    v
                },
                Reason::InvalidField,
                "coord_type",
                "do not line up",
            ),
            (
                {
                    let mut v = good();
                    v.as_object_mut().unwrap().remove("screen");
                    v
                },
                Reason::InvalidField,
                "",
                "missing field `screen`",
            ),
        ];
        for (v, reason, path, message) in cases {
            let e = convert(&v).unwrap_err();
            assert_eq!(e.file, Path::new("frame_000.ax.json"));
            assert_eq!(
                (e.reason, e.path.to_string().as_str()),
                (reason, path),
                "{e}"
            );
            assert!(e.message.contains(message), "{e}");
            if !e.path.is_root() {
                assert!(e.position.is_some(), "located: {e}");
            }
        }
        let cut = good().to_string();
        let e = parse_atspi(&Source::from_text("f.ax.json", &cut[..cut.len() / 2])).unwrap_err();
        assert_eq!(e.reason, Reason::InvalidJson);
        assert!(convert(&good()).is_ok());
    }
}
