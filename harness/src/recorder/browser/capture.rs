//! One browser frame from what Chromium reports: `DOMSnapshot.captureSnapshot` becomes the
//! frame's DOM file, `Accessibility.getFullAXTree` its AX snapshot. Both name an element by
//! its DOM path, so a selector's match and the accessible element it is are one id.
//!
//! Boxes are the layout boxes in CSS pixels relative to the document, made screenshot pixels
//! (scroll offset taken off, times the device scale). Nodes the snapshot lists without layout
//! (`display: none`) keep no box; accessible nodes without a box or a DOM node are left out
//! and their children hoisted, as a person cannot point at them.

use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet};

use serde_json::Value;

use crate::recording::ax::{App, AxSnapshot, Element, Rect, Window};
use crate::recording::dom::{DOM_SCHEMA, DomNode, DomSnapshot, TEXT};

/// The app name browser frames carry.
pub(crate) const APP: &str = "Chromium";

fn strings(snap: &Value) -> Vec<&str> {
    snap["strings"]
        .as_array()
        .map(|a| a.iter().map(|s| s.as_str().unwrap_or("")).collect())
        .unwrap_or_default()
}

fn ints(v: &Value) -> Vec<i64> {
    v.as_array()
        .map(|a| a.iter().map(|x| x.as_i64().unwrap_or(-1)).collect())
        .unwrap_or_default()
}

/// The frame's DOM, and each kept node's backend node id (for the AX tree).
pub(crate) fn dom_of(snap: &Value, scale: u32) -> (DomSnapshot, HashMap<i64, usize>) {
    let strs = strings(snap);
    let s = |i: i64| usize::try_from(i).ok().and_then(|i| strs.get(i)).copied();
    let doc = &snap["documents"][0];
    let nodes = &doc["nodes"];
    let parents = ints(&nodes["parentIndex"]);
    let types = ints(&nodes["nodeType"]);
    let names = ints(&nodes["nodeName"]);
    let values = ints(&nodes["nodeValue"]);
    let backend = ints(&nodes["backendNodeId"]);
    let attrs = nodes["attributes"].as_array().cloned().unwrap_or_default();
    let mut input_values: HashMap<usize, i64> = HashMap::new();
    for (i, v) in ints(&nodes["inputValue"]["index"])
        .into_iter()
        .zip(ints(&nodes["inputValue"]["value"]))
    {
        input_values.insert(i as usize, v);
    }
    let (sx, sy) = (
        doc["scrollOffsetX"].as_f64().unwrap_or(0.0),
        doc["scrollOffsetY"].as_f64().unwrap_or(0.0),
    );
    let mut boxes: HashMap<usize, Rect> = HashMap::new();
    let layout = &doc["layout"];
    let bounds = layout["bounds"].as_array().cloned().unwrap_or_default();
    for (k, n) in ints(&layout["nodeIndex"]).into_iter().enumerate() {
        let b: Vec<f64> = bounds
            .get(k)
            .and_then(Value::as_array)
            .map(|a| a.iter().map(|x| x.as_f64().unwrap_or(0.0)).collect())
            .unwrap_or_default();
        if let [x, y, w, h] = b[..] {
            let f = scale as f64;
            let (x0, y0) = (((x - sx) * f).round(), ((y - sy) * f).round());
            let (x1, y1) = (((x - sx + w) * f).round(), ((y - sy + h) * f).round());
            boxes.entry(n as usize).or_insert(Rect::new(
                x0 as i32,
                y0 as i32,
                (x1 - x0) as i32,
                (y1 - y0) as i32,
            ));
        }
    }
    let mut out: Vec<DomNode> = Vec::new();
    // Snapshot index → kept index (a skipped node maps to its nearest kept ancestor).
    let mut kept: Vec<Option<usize>> = vec![None; types.len()];
    let mut by_backend = HashMap::new();
    // Per kept parent: how many children of each name so far, for the paths.
    let mut counts: HashMap<(Option<usize>, String), usize> = HashMap::new();
    for i in 0..types.len() {
        let parent = usize::try_from(parents.get(i).copied().unwrap_or(-1))
            .ok()
            .and_then(|p| kept.get(p).copied().flatten());
        let tag = match types[i] {
            1 => s(names.get(i).copied().unwrap_or(-1))
                .unwrap_or("")
                .to_ascii_lowercase(),
            3 => TEXT.to_string(),
            _ => {
                kept[i] = parent;
                continue;
            }
        };
        let text = if types[i] == 3 {
            let t = s(values.get(i).copied().unwrap_or(-1)).unwrap_or("");
            if t.trim().is_empty() {
                kept[i] = parent;
                continue;
            }
            Some(t.to_string())
        } else {
            input_values.get(&i).and_then(|&v| s(v)).map(str::to_string)
        };
        let mut map = BTreeMap::new();
        let pairs = ints(attrs.get(i).unwrap_or(&Value::Null));
        for kv in pairs.chunks(2) {
            if let [k, v] = kv
                && let Some(k) = s(*k)
            {
                map.insert(k.to_string(), s(*v).unwrap_or("").to_string());
            }
        }
        // A password field's value is never written, whatever the plan calls sensitive.
        let text = text.filter(|_| map.get("type").is_none_or(|t| t != "password"));
        let step = if tag == TEXT { "text()" } else { tag.as_str() };
        let n = counts.entry((parent, step.to_string())).or_insert(0);
        *n += 1;
        let base = parent.map_or("", |p| out[p].id.as_str());
        let id = if *n == 1 {
            format!("{base}/{step}")
        } else {
            format!("{base}/{step}[{n}]")
        };
        kept[i] = Some(out.len());
        if let Some(&b) = backend.get(i) {
            by_backend.insert(b, out.len());
        }
        out.push(DomNode {
            id,
            parent,
            tag,
            attrs: map,
            text,
            rect: boxes.get(&i).copied(),
        });
    }
    let dom = DomSnapshot {
        schema: DOM_SCHEMA.into(),
        url: s(doc["documentURL"].as_i64().unwrap_or(-1))
            .unwrap_or("")
            .to_string(),
        title: s(doc["title"].as_i64().unwrap_or(-1))
            .unwrap_or("")
            .to_string(),
        nodes: out,
    };
    (dom, by_backend)
}

/// The AX role of a Chromium role on this DOM node: a password field is a secure text field,
/// a `textarea` a text area.
fn ax_role(role: &str, dom: Option<&DomNode>) -> (&'static str, Option<&'static str>) {
    let password = dom.is_some_and(|n| n.attrs.get("type").is_some_and(|t| t == "password"));
    match role {
        "textbox" if password => ("AXTextField", Some("AXSecureTextField")),
        "textbox" if dom.is_some_and(|n| n.tag == "textarea") => ("AXTextArea", None),
        _ => crate::roles::ax_role_of_web(role),
    }
}

fn prop<'a>(node: &'a Value, name: &str) -> Option<&'a Value> {
    node["properties"]
        .as_array()?
        .iter()
        .find(|p| p["name"] == name)
        .map(|p| &p["value"]["value"])
}

fn nonempty(v: &Value) -> Option<String> {
    v.as_str()
        .filter(|s| !s.trim().is_empty())
        .map(str::to_string)
}

/// The frame's AX snapshot: the page as one window of [`APP`], `screen` pixels large. The DOM
/// nodes in `targeted` (those the plan's selectors name) are in it even where the browser's
/// tree ignores or leaves them out (a `<span>` inside an `<li>`): replay then finds and reads
/// the element the plan names, not the nearest one the tree shows.
pub(crate) fn ax_of(
    tree: &Value,
    dom: &DomSnapshot,
    by_backend: &HashMap<i64, usize>,
    screen: (u32, u32),
    targeted: &BTreeSet<usize>,
) -> AxSnapshot {
    let nodes: Vec<&Value> = tree["nodes"]
        .as_array()
        .map(|a| a.iter().collect())
        .unwrap_or_default();
    let by_id: HashMap<&str, &Value> = nodes
        .iter()
        .filter_map(|n| Some((n["nodeId"].as_str()?, *n)))
        .collect();
    let mut used = HashSet::new();
    let root = nodes.first().copied();
    let mut elements = root.map_or_else(Vec::new, |r| {
        let mut b = Build {
            by_id: &by_id,
            dom,
            by_backend,
            targeted,
            used: &mut used,
        };
        b.build(r, 0)
    });
    for &i in targeted {
        let Some(rect) = dom.nodes[i].rect.filter(|r| r.area() > 0) else {
            continue;
        };
        if used.insert(i) {
            let e = Element::new(dom.nodes[i].id.clone(), "AXGroup", rect);
            place(&mut elements, dom, i, e);
        }
    }
    let frame = Rect::new(0, 0, screen.0 as i32, screen.1 as i32);
    AxSnapshot {
        schema: crate::recording::ax::AX_SCHEMA.into(),
        apps: vec![App {
            name: APP.into(),
            bundle_id: None,
            frontmost: true,
            windows: vec![Window {
                id: "page".into(),
                title: dom.title.clone(),
                kind: Some("browser".into()),
                frame,
                focused: true,
                elements,
            }],
        }],
    }
}

/// Walking the browser's tree into elements.
struct Build<'a> {
    by_id: &'a HashMap<&'a str, &'a Value>,
    dom: &'a DomSnapshot,
    by_backend: &'a HashMap<i64, usize>,
    targeted: &'a BTreeSet<usize>,
    used: &'a mut HashSet<usize>,
}

impl Build<'_> {
    /// The elements an AX node stands for: itself with its children, or — when it is ignored,
    /// has no DOM node or box, or names a node already shown — its children in its place.
    fn build(&mut self, node: &Value, depth: usize) -> Vec<Element> {
        let dom = self.dom;
        // The snapshot's depth limit holds for what is written; deeper is not followed.
        if depth > crate::limits::JSON_DEPTH / 2 {
            return Vec::new();
        }
        let role = node["role"]["value"].as_str().unwrap_or("");
        if role == "InlineTextBox" {
            return Vec::new();
        }
        let mut children = Vec::new();
        for c in node["childIds"].as_array().into_iter().flatten() {
            if let Some(child) = c.as_str().and_then(|c| self.by_id.get(c)) {
                children.extend(self.build(child, depth + 1));
            }
        }
        let dom_index = node["backendDOMNodeId"]
            .as_i64()
            .and_then(|b| self.by_backend.get(&b))
            .copied();
        let shown = dom_index.filter(|i| dom.nodes[*i].rect.is_some_and(|r| r.area() > 0));
        // An ignored node the plan targets is written all the same.
        let ignored = node["ignored"].as_bool().unwrap_or(false);
        let Some(i) =
            shown.filter(|i| (!ignored || self.targeted.contains(i)) && self.used.insert(*i))
        else {
            return children;
        };
        let d = &dom.nodes[i];
        let (ax_role, subrole) = ax_role(role, Some(d));
        let name = nonempty(&node["name"]["value"]);
        let text_role = crate::roles::is_text_role(ax_role);
        let value = if text_role {
            name.clone()
        } else if subrole == Some("AXSecureTextField") {
            None
        } else {
            nonempty(&node["value"]["value"])
        };
        let mut e = Element::new(d.id.clone(), ax_role, d.rect.unwrap_or_default());
        e.role = Some(role.to_string());
        e.subrole = subrole.map(str::to_string);
        e.title = name.filter(|_| !text_role);
        e.value = value;
        e.placeholder = d.attrs.get("placeholder").cloned();
        e.enabled = prop(node, "disabled").and_then(Value::as_bool) != Some(true);
        e.focused = prop(node, "focused").and_then(Value::as_bool) == Some(true);
        e.selected = prop(node, "checked").and_then(Value::as_str) == Some("true")
            || prop(node, "selected").and_then(Value::as_bool) == Some(true);
        e.children = children;
        vec![e]
    }
}

/// Puts `e`, for DOM node `i`, under the element of its nearest DOM ancestor written, or at
/// the top when none is.
fn place(elements: &mut Vec<Element>, dom: &DomSnapshot, i: usize, e: Element) {
    fn find<'e>(es: &'e mut [Element], id: &str) -> Option<&'e mut Element> {
        for x in es {
            if x.id == id {
                return Some(x);
            }
            if let Some(f) = find(&mut x.children, id) {
                return Some(f);
            }
        }
        None
    }
    let mut at = dom.nodes[i].parent;
    while let Some(p) = at {
        if let Some(holder) = find(elements, &dom.nodes[p].id) {
            holder.children.push(e);
            return;
        }
        at = dom.nodes[p].parent;
    }
    elements.push(e);
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    /// A login form as Chromium reports it (trimmed to the fields read).
    fn snapshot() -> Value {
        json!({
            "strings": ["http://127.0.0.1:8000/", "Log in", "#document", "HTML", "BODY",
                        "INPUT", "type", "password", "BUTTON", "#text", "Sign in", "\n  ", "id", "pw"],
            "documents": [{
                "documentURL": 0, "title": 1, "scrollOffsetX": 0, "scrollOffsetY": 10,
                "nodes": {
                    "parentIndex": [-1, 0, 1, 2, 2, 4, 2],
                    "nodeType": [9, 1, 1, 1, 1, 3, 3],
                    "nodeName": [2, 3, 4, 5, 8, 9, 9],
                    "nodeValue": [-1, -1, -1, -1, -1, 10, 11],
                    "backendNodeId": [1, 2, 3, 4, 5, 6, 7],
                    "attributes": [[], [], [], [6, 7, 12, 13], [], [], []],
                    "inputValue": {"index": [3], "value": [1]}
                },
                "layout": {
                    "nodeIndex": [1, 2, 3, 4, 5],
                    "bounds": [[0, 0, 400, 300], [0, 0, 400, 300], [10, 20, 100, 20],
                               [10, 50, 60.5, 20], [12, 52, 40, 16]]
                }
            }]
        })
    }

    #[test]
    fn the_dom_keeps_elements_and_words_with_paths_and_pixel_boxes() {
        let (dom, by_backend) = dom_of(&snapshot(), 2);
        let ids: Vec<&str> = dom.nodes.iter().map(|n| n.id.as_str()).collect();
        assert_eq!(
            ids,
            [
                "/html",
                "/html/body",
                "/html/body/input",
                "/html/body/button",
                "/html/body/button/text()"
            ]
        );
        assert_eq!(dom.url, "http://127.0.0.1:8000/");
        assert_eq!(dom.title, "Log in");
        let input = &dom.nodes[2];
        assert_eq!(input.attrs["type"], "password");
        assert_eq!(input.text, None, "a password field's value is never kept");
        // Scrolled 10 CSS px, at 2x: y = (20 - 10) × 2.
        assert_eq!(input.rect, Some(Rect::new(20, 20, 200, 40)));
        assert_eq!(
            dom.nodes[3].rect.unwrap().width,
            121,
            "edges are rounded, not sizes"
        );
        assert_eq!(by_backend[&5], 3);
        assert_eq!(dom.text_of(3), "Sign in");
    }

    #[test]
    fn the_ax_tree_names_elements_by_dom_path_and_hoists_what_has_no_box() {
        let (dom, by_backend) = dom_of(&snapshot(), 1);
        let tree = json!({"nodes": [
            {"nodeId": "1", "role": {"value": "RootWebArea"}, "name": {"value": "Log in"},
             "childIds": ["2"], "backendDOMNodeId": 1},
            {"nodeId": "2", "ignored": true, "role": {"value": "generic"}, "childIds": ["3", "4"],
             "backendDOMNodeId": 3},
            {"nodeId": "3", "role": {"value": "textbox"}, "name": {"value": "Password"},
             "value": {"value": "hunter2"}, "backendDOMNodeId": 4,
             "properties": [{"name": "focused", "value": {"value": true}}]},
            {"nodeId": "4", "role": {"value": "button"}, "name": {"value": "Sign in"},
             "childIds": ["5"], "backendDOMNodeId": 5},
            {"nodeId": "5", "role": {"value": "StaticText"}, "name": {"value": "Sign in"},
             "backendDOMNodeId": 6}
        ]});
        let ax = ax_of(&tree, &dom, &by_backend, (400, 300), &BTreeSet::new());
        let win = &ax.apps[0].windows[0];
        assert_eq!(win.title, "Log in");
        // The document node has no element and the body is ignored: their children remain.
        let ids: Vec<&str> = win.elements.iter().map(|e| e.id.as_str()).collect();
        assert_eq!(ids, ["/html/body/input", "/html/body/button"]);
        let field = &win.elements[0];
        assert_eq!(field.subrole.as_deref(), Some("AXSecureTextField"));
        assert_eq!(field.value, None, "a password's value is never kept");
        assert!(field.focused);
        let button = &win.elements[1];
        assert_eq!(button.own_name(), Some("Sign in"));
        assert_eq!(button.children[0].ax_role, "AXStaticText");
        assert_eq!(button.children[0].own_name(), Some("Sign in"));
    }

    /// A list item holding a word and a `<span>`, as Chromium reports it.
    fn list() -> (DomSnapshot, HashMap<i64, usize>) {
        let snap = json!({
            "strings": ["http://127.0.0.1:8000/", "Cart", "#document", "HTML", "BODY", "UL",
                        "LI", "SPAN", "#text", "Total: ", "$12", "id", "sum"],
            "documents": [{
                "documentURL": 0, "title": 1, "scrollOffsetX": 0, "scrollOffsetY": 0,
                "nodes": {
                    "parentIndex": [-1, 0, 1, 2, 3, 4, 4, 6],
                    "nodeType": [9, 1, 1, 1, 1, 3, 1, 3],
                    "nodeName": [2, 3, 4, 5, 6, 8, 7, 8],
                    "nodeValue": [-1, -1, -1, -1, -1, 9, -1, 10],
                    "backendNodeId": [1, 2, 3, 4, 5, 6, 7, 8],
                    "attributes": [[], [], [], [], [], [], [11, 12], []]
                },
                "layout": {
                    "nodeIndex": [1, 2, 3, 4, 5, 6, 7],
                    "bounds": [[0, 0, 400, 300], [0, 0, 400, 300], [10, 10, 300, 20],
                               [30, 10, 280, 20], [30, 10, 50, 20], [80, 10, 30, 20],
                               [80, 10, 30, 20]]
                }
            }]
        });
        dom_of(&snap, 1)
    }

    #[test]
    fn an_element_the_plan_targets_is_kept_where_the_browser_tree_leaves_it_out() {
        let (dom, by_backend) = list();
        let span = dom.position("/html/body/ul/li/span").unwrap();
        let li = |children: &[&str]| {
            json!({"nodeId": "4", "role": {"value": "listitem"}, "childIds": children,
                   "backendDOMNodeId": 5})
        };
        let ids = |ax: &AxSnapshot| -> Vec<String> {
            fn walk(e: &Element, out: &mut Vec<String>) {
                out.push(e.id.clone());
                e.children.iter().for_each(|c| walk(c, out));
            }
            let mut out = Vec::new();
            ax.apps[0].windows[0]
                .elements
                .iter()
                .for_each(|e| walk(e, &mut out));
            out
        };
        let root = json!({"nodeId": "1", "role": {"value": "RootWebArea"}, "childIds": ["3"],
                          "backendDOMNodeId": 1});
        let ul = json!({"nodeId": "3", "role": {"value": "list"}, "childIds": ["4"],
                        "backendDOMNodeId": 4});
        // The span is in the tree but ignored, as a plain `<span>` is.
        let ignored = json!({"nodes": [root.clone(), ul.clone(), li(&["5"]),
            {"nodeId": "5", "ignored": true, "role": {"value": "generic"}, "backendDOMNodeId": 7}]});
        // Or not in the tree at all.
        let absent = json!({"nodes": [root, ul, li(&[])]});
        let targeted = BTreeSet::from([span]);
        for tree in [&ignored, &absent] {
            let plain = ax_of(tree, &dom, &by_backend, (400, 300), &BTreeSet::new());
            assert_eq!(ids(&plain), ["/html/body/ul", "/html/body/ul/li"], "{tree}");
            let kept = ax_of(tree, &dom, &by_backend, (400, 300), &targeted);
            assert_eq!(
                ids(&kept),
                ["/html/body/ul", "/html/body/ul/li", "/html/body/ul/li/span"],
                "{tree}"
            );
            let li = &kept.apps[0].windows[0].elements[0].children[0];
            assert_eq!(li.children[0].frame.x, 80, "the span's own box");
        }
    }
}
