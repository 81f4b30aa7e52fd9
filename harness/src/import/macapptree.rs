//! macapptree dumps: a `realrec` frame's `frame_NNN.macapptree.json` — a macOS window's
//! accessibility tree as the public `macapptree` tool (MacPaw) writes it — becomes an
//! [`AxSnapshot`].
//!
//! **Shape.** A tree of nodes `{name, role, description, role_description, value, position,
//! size, children}`: `role` is an AX role already (`AXButton`, `AXWindow`, …) and is kept as
//! it is; `name` is AXTitle, `description` AXDescription, `role_description`
//! AXRoleDescription, `value` AXValue (a string, a number, null, or other JSON, kept as its
//! JSON text). `position` is `"x;y"` and `size` `"w;h"`, both maybe fractional (`"14.00;54.50"`,
//! `"1728;988"`); null, an empty string (what macapptree writes when the attribute is missing)
//! or no field at all means no geometry. Newer macapptree versions add `id`, `enabled`,
//! `absolute_position`, `bbox`, `visible_bbox`, `visible` and, on the window, `app_name`:
//! `enabled` and `app_name` are read, the rest ignored (as any other field is). The file is
//! one root node, or a list holding one (what macapptree's command line writes).
//!
//! **Coordinates.** macapptree gives every position relative to the dumped window's top left,
//! in points, and crops its screenshot to that window; so the frame's screen is the root's
//! size, the window's frame is that size at 0,0 (whatever its own `position` says — older
//! versions wrote its place on the desktop there), and each node's frame is its position and
//! size, rounded to whole pixels. A screenshot at 2x (Retina) is not scaled down: the import
//! refuses it as a size mismatch. A list of several roots (one per window, the menu bar, the
//! Dock) has no one coordinate space, and is refused.
//!
//! **What is kept.** Every node. A node without geometry gets an empty frame at 0,0, which no
//! point lookup hits, and keeps its children with their own frames — the subtree under it is
//! never dropped. `enabled` is taken as written (macapptree writes `false` where a node has
//! no AXEnabled, which groups and windows often lack) and is true when absent; nothing is
//! focused or selected, since macapptree does not record it. macapptree writes titles with
//! spaces as `_` in some versions; names are kept as written.
//!
//! **Windows.** A root `AXWindow` is the one window, focused and titled by its `name`. Under
//! a root `AXApplication`, each `AXWindow` child is a window at its own frame (the first one
//! focused), the screen then its size or, without one, the extent of its windows; other
//! children are left out, as the `.mac.json` import leaves them. Any other root (an
//! `AXMenuBar`, …) is one window whose kind comes from its role (`menu-bar`).
//!
//! **Ids.** From the child-index path, the root being `0`, as for the other sources: `w0` for
//! a root window, `e0-3-1` for the second child of its fourth child; under an application
//! root, `w0-2` and `e0-2-…`. macapptree lists children bottom-right first (sorted by
//! position), so paths are stable across frames while the layout is.

use std::path::Path;

use serde::de::Error as _;
use serde::{Deserialize, Deserializer};
use serde_json::Value;

use super::realrec::{SourceRect, element_id, nonempty, value_text, window_kind};
use crate::errors::{FieldPath, InputError, Reason};
use crate::json::{Source, parse_typed, read_text};
use crate::recording::ax::{AX_SCHEMA, App, AxSnapshot, Element, Rect, Window};

/// One `frame_NNN.macapptree.json`, converted.
#[derive(Clone, Debug)]
pub(crate) struct MacapptreeFrame {
    /// The screen, `(width, height)`: the dumped window's size, in which every position is.
    pub(crate) screen: (u32, u32),
    /// The tree.
    pub(crate) ax: AxSnapshot,
}

#[derive(Deserialize)]
struct Node {
    role: String,
    #[serde(default)]
    name: Option<String>,
    #[serde(default)]
    description: Option<String>,
    #[serde(default)]
    role_description: Option<String>,
    #[serde(default)]
    value: Option<Value>,
    #[serde(default, deserialize_with = "position")]
    position: Option<(f64, f64)>,
    #[serde(default, deserialize_with = "size")]
    size: Option<(f64, f64)>,
    #[serde(default)]
    enabled: Option<bool>,
    #[serde(default)]
    app_name: Option<String>,
    #[serde(default)]
    children: Vec<Node>,
}

/// `"x;y"` or `"w;h"`: two finite numbers, maybe fractional, separated by `;`.
fn pair(s: &str) -> Option<(f64, f64)> {
    let (a, b) = s.split_once(';')?;
    let num = |t: &str| t.parse::<f64>().ok().filter(|v| v.is_finite());
    Some((num(a)?, num(b)?))
}

/// A geometry field: `None` for null or `""`, an error naming the text for anything else
/// that is not [`pair`].
fn geometry<'de, D: Deserializer<'de>>(d: D, form: &str) -> Result<Option<(f64, f64)>, D::Error> {
    match Option::<String>::deserialize(d)?.as_deref() {
        None | Some("") => Ok(None),
        Some(s) => pair(s).map(Some).ok_or_else(|| {
            D::Error::custom(format!(
                "{s:?} is not {form:?}: two numbers separated by `;`"
            ))
        }),
    }
}

fn position<'de, D: Deserializer<'de>>(d: D) -> Result<Option<(f64, f64)>, D::Error> {
    geometry(d, "x;y")
}

fn size<'de, D: Deserializer<'de>>(d: D) -> Result<Option<(f64, f64)>, D::Error> {
    match geometry(d, "w;h")? {
        Some((w, h)) if w < 0.0 || h < 0.0 => Err(D::Error::custom(format!(
            "the size {w}×{h} has a negative side"
        ))),
        other => Ok(other),
    }
}

impl Node {
    /// Its frame: position and size, or an empty frame at 0,0 without both.
    fn frame(&self) -> Rect {
        match (self.position, self.size) {
            (Some((x, y)), Some((width, height))) => Rect::from(SourceRect {
                x,
                y,
                width,
                height,
            }),
            _ => Rect::default(),
        }
    }

    /// Its children as elements, their paths below `path`.
    fn elements(&self, path: &str) -> Vec<Element> {
        let children = self.children.iter().enumerate();
        children
            .map(|(i, c)| c.element(&format!("{path}/{i}")))
            .collect()
    }

    fn element(&self, path: &str) -> Element {
        let mut e = Element::new(element_id('e', path), self.role.clone(), self.frame());
        e.title = nonempty(&self.name);
        e.description = nonempty(&self.description);
        e.role_description = nonempty(&self.role_description);
        e.value = value_text(&self.value);
        e.enabled = self.enabled.unwrap_or(true);
        e.children = self.elements(path);
        e
    }
}

/// Reads and converts one macapptree dump of at most `max_bytes`.
pub(crate) fn read_macapptree(path: &Path, max_bytes: u64) -> Result<MacapptreeFrame, InputError> {
    parse_macapptree(&read_text(path, max_bytes)?)
}

/// Converts the text of a macapptree dump; every error names the file, the field path and a
/// reason code.
pub(crate) fn parse_macapptree(src: &Source) -> Result<MacapptreeFrame, InputError> {
    // macapptree's command line writes a list of roots, its Python API one root.
    let (root, at) = if src.text.trim_start().starts_with('[') {
        let mut roots: Vec<Node> = parse_typed(src)?;
        if roots.len() != 1 {
            let (at, what) = match roots.len() {
                0 => (FieldPath::root(), "the list of roots is empty".to_string()),
                n => (
                    FieldPath::root().index(1),
                    format!(
                        "{n} roots: each one's positions are relative to its own window, so \
                         one frame holds one"
                    ),
                ),
            };
            return Err(src
                .error(at, Reason::InvalidField, what)
                .hint("dump one window per frame"));
        }
        (roots.remove(0), FieldPath::root().index(0))
    } else {
        (parse_typed::<Node>(src)?, FieldPath::root())
    };
    let mut windows = Vec::new();
    let app_name;
    let size = if root.role == "AXApplication" {
        app_name = nonempty(&root.app_name).or_else(|| nonempty(&root.name));
        for (i, w) in root.children.iter().enumerate() {
            if w.role != "AXWindow" {
                continue;
            }
            let path = format!("0/{i}");
            windows.push(Window {
                id: element_id('w', &path),
                title: nonempty(&w.name).unwrap_or_default(),
                kind: None,
                frame: w.frame(),
                focused: windows.is_empty(),
                elements: w.elements(&path),
            });
        }
        root.size.or_else(|| {
            let right = windows.iter().map(|w| w.frame.x + w.frame.width).max()?;
            let bottom = windows.iter().map(|w| w.frame.y + w.frame.height).max()?;
            Some((right as f64, bottom as f64))
        })
    } else {
        app_name = nonempty(&root.app_name);
        let (width, height) = root.size.unwrap_or_default();
        windows.push(Window {
            id: element_id('w', "0"),
            title: nonempty(&root.name).unwrap_or_default(),
            kind: (root.role != "AXWindow").then(|| window_kind(&root.role)),
            frame: Rect::from(SourceRect {
                x: 0.0,
                y: 0.0,
                width,
                height,
            }),
            focused: true,
            elements: root.elements("0"),
        });
        root.size
    };
    let screen = size
        .map(|(w, h)| (w.round() as u32, h.round() as u32))
        .filter(|&(w, h)| w > 0 && h > 0)
        .ok_or_else(|| {
            src.error(
                at.key("size"),
                Reason::InvalidField,
                format!(
                    "the root {} has no size, and its size is the screen's",
                    root.role
                ),
            )
            .hint("dump a window: macapptree gives positions relative to it")
        })?;
    let app = App {
        name: app_name.unwrap_or_else(|| "app 1".to_string()),
        bundle_id: None,
        frontmost: !windows.is_empty(),
        windows,
    };
    Ok(MacapptreeFrame {
        screen,
        ax: AxSnapshot {
            schema: AX_SCHEMA.to_string(),
            apps: vec![app],
        },
    })
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    /// A node as macapptree writes it.
    fn n(role: &str, position: &str, size: &str, children: Vec<Value>) -> Value {
        json!({"name": null, "role": role, "description": null, "role_description": null,
               "value": null, "position": position, "size": size, "children": children})
    }

    fn set(mut node: Value, key: &str, v: impl Into<Value>) -> Value {
        node[key] = v.into();
        node
    }

    fn parse(v: &Value) -> Result<MacapptreeFrame, InputError> {
        parse_macapptree(&Source::from_text("f.macapptree.json", v.to_string()))
    }

    /// A 200×100 window: a toolbar holding a button, and a group without geometry holding a
    /// text field.
    fn window() -> Value {
        let button = set(
            n("AXButton", "10.50;4.25", "30;20", vec![]),
            "description",
            "Send",
        );
        let field = set(
            n("AXTextField", "10.00;40.00", "120.4;22.6", vec![]),
            "value",
            "hi",
        );
        let toolbar = set(
            n("AXToolbar", "0.00;0.00", "200;30", vec![button]),
            "role_description",
            "toolbar",
        );
        let group = set(n("AXGroup", "", "", vec![field]), "position", Value::Null);
        set(
            n("AXWindow", "0.00;38.00", "200;100", vec![toolbar, group]),
            "name",
            "Chats",
        )
    }

    #[test]
    fn a_window_root_is_the_one_window_and_positions_are_its_own() {
        let f = parse(&window()).unwrap();
        assert_eq!(f.screen, (200, 100));
        let app = &f.ax.apps[0];
        assert!(app.frontmost);
        assert_eq!(app.name, "app 1");
        let w = &app.windows[0];
        assert_eq!((w.id.as_str(), w.title.as_str()), ("w0", "Chats"));
        assert_eq!((w.kind.as_deref(), w.focused), (None, true));
        // At 0,0 whatever its own position says: its children are relative to it.
        assert_eq!(w.frame, Rect::new(0, 0, 200, 100));
        let (_, _, b) = f.ax.find("e0-0-0").unwrap();
        assert_eq!(b.ax_role, "AXButton");
        assert_eq!(b.own_name(), Some("Send"));
        assert_eq!(b.frame, Rect::new(11, 4, 30, 20));
        assert!(b.enabled && !b.focused && b.title.is_none());
        let (_, _, t) = f.ax.find("e0-0").unwrap();
        assert_eq!(t.role_description.as_deref(), Some("toolbar"));
        assert_eq!(f.ax.element_count(), 4);
    }

    #[test]
    fn a_node_without_geometry_keeps_its_subtree() {
        let f = parse(&window()).unwrap();
        let (_, _, g) = f.ax.find("e0-1").unwrap();
        assert_eq!(g.frame, Rect::default());
        let (_, _, field) = f.ax.find("e0-1-0").unwrap();
        assert_eq!(field.value.as_deref(), Some("hi"));
        assert_eq!(field.frame, Rect::new(10, 40, 120, 23));
    }

    /// The command line's list of one root; its extra fields are ignored, `enabled` and
    /// `app_name` read, and a number value kept as its JSON text.
    #[test]
    fn a_list_of_one_root_with_newer_fields() {
        let mut w = window();
        w["id"] = "9d72c04ce9df11c8ab938ead88723de1".into();
        w["app_name"] = "Chat".into();
        w["absolute_position"] = "214.00;119.00".into();
        w["bbox"] = json!([0, 0, 200, 100]);
        w["children"][0]["children"][0]["enabled"] = false.into();
        w["children"][0]["value"] = json!(140.0);
        let f = parse(&json!([w])).unwrap();
        assert_eq!(f.ax.apps[0].name, "Chat");
        assert!(!f.ax.find("e0-0-0").unwrap().2.enabled);
        assert_eq!(f.ax.find("e0-0").unwrap().2.value.as_deref(), Some("140.0"));
    }

    #[test]
    fn an_application_root_has_its_window_children_as_windows() {
        let win = |x: &str| set(n("AXWindow", x, "300;200", vec![window()]), "name", "Doc");
        let menu = n("AXMenuBar", "0.00;0.00", "1000;24", vec![]);
        let app = set(
            n(
                "AXApplication",
                "",
                "",
                vec![menu, win("0.00;24.00"), win("100;300")],
            ),
            "name",
            "TextEdit",
        );
        let f = parse(&app).unwrap();
        assert_eq!(f.screen, (400, 500));
        let a = &f.ax.apps[0];
        assert_eq!(a.name, "TextEdit");
        let ids: Vec<_> = a
            .windows
            .iter()
            .map(|w| (w.id.as_str(), w.focused))
            .collect();
        assert_eq!(ids, [("w0-1", true), ("w0-2", false)]);
        assert_eq!(a.windows[1].frame, Rect::new(100, 300, 300, 200));
        assert!(f.ax.find("e0-2-0-0-0").is_some());
    }

    #[test]
    fn another_root_is_a_window_of_its_role() {
        let f = parse(&n("AXMenuBar", "0;0", "1000;24", vec![])).unwrap();
        assert_eq!(f.ax.apps[0].windows[0].kind.as_deref(), Some("menu-bar"));
    }

    fn refused(v: &Value) -> InputError {
        let Err(e) = parse(v) else {
            panic!("accepted {v}")
        };
        assert_eq!(e.file, Path::new("f.macapptree.json"));
        assert!(e.position.is_some(), "{e}");
        e
    }

    #[test]
    fn malformed_geometry_is_refused_at_its_field() {
        for (key, bad, says) in [
            ("position", "12,5", "\"12,5\" is not \"x;y\""),
            ("position", "1;2;3", "is not \"x;y\""),
            ("position", "NaN;2", "is not \"x;y\""),
            ("size", "w;h", "is not \"w;h\""),
            ("size", "-3;4", "negative side"),
        ] {
            let mut w = window();
            w["children"][0]["children"][0][key] = bad.into();
            let e = refused(&w);
            assert_eq!(e.reason, Reason::InvalidField);
            assert_eq!(e.path.to_string(), format!("children[0].children[0].{key}"));
            assert!(e.message.contains(says), "{key} {bad}: {}", e.message);
        }
        let mut w = window();
        w["children"][1]["position"] = json!([1, 2]);
        assert_eq!(refused(&w).path.to_string(), "children[1].position");
    }

    #[test]
    fn a_dump_without_one_sized_root_is_refused() {
        let e = refused(&json!([window(), window()]));
        assert_eq!(
            (e.reason, e.path.to_string()),
            (Reason::InvalidField, "[1]".into())
        );
        assert!(e.message.contains("2 roots"), "{}", e.message);
        assert_eq!(refused(&json!([])).reason, Reason::InvalidField);
        let e = refused(&json!([set(window(), "size", "")]));
        assert_eq!(e.path.to_string(), "[0].size");
        let e = refused(&set(window(), "size", "0;10"));
        assert_eq!(e.path.to_string(), "size");
        let e = refused(&json!({"name": "x", "children": []}));
        assert!(e.message.contains("missing field `role`"), "{}", e.message);
        let e = refused(&json!({"role": "AXWindow", "size": "10;10", "children": [{"role": 3}]}));
        assert_eq!(e.path.to_string(), "children[0].role");
    }
}
