//! The `stepreplay-dom/1` file: one browser frame's DOM as Chromium's `DOMSnapshot` gave it —
//! elements and text in document order, each with its parent, attributes and layout box in
//! screenshot pixels. CSS selectors in browser plans resolve against it (`resolve::selector`).
//!
//! Node ids are paths (`/html/body/form/input[2]`): the same element keeps its id from frame
//! to frame while the page keeps its shape, and the frame's AX snapshot names the element the
//! browser's accessibility tree shows for it by the same id.

use std::collections::{BTreeMap, HashSet};
use std::path::Path;

use serde::{Deserialize, Serialize};

use super::ax::Rect;
use crate::errors::{FieldPath, InputError, Reason};
use crate::json::{Source, expect_schema, parse_typed, parse_value, read_text};
use crate::limits::AX_BYTES;

/// The schema string of a DOM file.
pub(crate) const DOM_SCHEMA: &str = "stepreplay-dom/1";

/// The tag of a text node.
pub(crate) const TEXT: &str = "#text";

/// One DOM file.
#[derive(Clone, Debug, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct DomSnapshot {
    /// Always [`DOM_SCHEMA`].
    pub schema: String,
    /// The page's URL when the frame was taken.
    pub url: String,
    /// The document's title.
    #[serde(default)]
    pub title: String,
    /// Elements and text nodes in document order; a parent comes before its children.
    pub nodes: Vec<DomNode>,
}

/// An element or a text node.
#[derive(Clone, Debug, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct DomNode {
    /// The node's path, unique in the file.
    pub id: String,
    /// The index of its parent in `nodes` (none for the root).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub parent: Option<usize>,
    /// Lower-case element name, or [`TEXT`].
    pub tag: String,
    /// Attributes, by name.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub attrs: BTreeMap<String, String>,
    /// A text node's words; for a field, the value it holds.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub text: Option<String>,
    /// Its layout box in screenshot pixels; none when it is not rendered.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rect: Option<Rect>,
}

impl DomSnapshot {
    /// The text a node shows: its own text, or that of every text node under it, in order,
    /// with runs of white space made one space.
    pub(crate) fn text_of(&self, index: usize) -> String {
        let mut under = vec![false; self.nodes.len()];
        let mut words = Vec::new();
        for (i, n) in self.nodes.iter().enumerate() {
            under[i] = i == index || n.parent.is_some_and(|p| p < i && under[p]);
            if under[i] && n.tag == TEXT {
                words.extend(n.text.as_deref().unwrap_or("").split_whitespace());
            }
        }
        words.join(" ")
    }

    /// The node with this id.
    pub fn position(&self, id: &str) -> Option<usize> {
        self.nodes.iter().position(|n| n.id == id)
    }
}

/// Loads a DOM file: schema, strict types, the element limit, unique ids, parents first.
pub fn load_dom(path: &Path) -> Result<DomSnapshot, InputError> {
    parse_dom(&read_text(path, AX_BYTES)?)
}

/// Parses a DOM file from text (see [`load_dom`]).
pub(crate) fn parse_dom(src: &Source) -> Result<DomSnapshot, InputError> {
    let value = parse_value(src)?;
    expect_schema(src, &value, DOM_SCHEMA, "DOM snapshots")?;
    let dom: DomSnapshot = parse_typed(src)?;
    super::load::within_elements(src, dom.nodes.len())?;
    let mut ids = HashSet::new();
    for (i, n) in dom.nodes.iter().enumerate() {
        let p = FieldPath::root().key("nodes").index(i);
        if !ids.insert(n.id.as_str()) {
            return Err(src.error(
                p.key("id"),
                Reason::DuplicateId,
                format!("node id `{}` repeats", n.id),
            ));
        }
        if n.parent.is_some_and(|q| q >= i) {
            return Err(src
                .error(
                    p.key("parent"),
                    Reason::InvalidField,
                    "a node's parent must come before it",
                )
                .hint("nodes are listed in document order"));
        }
        if n.parent.is_some_and(|q| dom.nodes[q].tag == TEXT) {
            return Err(src.error(
                p.key("parent"),
                Reason::InvalidField,
                "a text node has no children",
            ));
        }
    }
    Ok(dom)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn src(v: serde_json::Value) -> Source {
        Source::from_text("dom.json", serde_json::to_string_pretty(&v).unwrap())
    }

    fn page() -> serde_json::Value {
        serde_json::json!({
            "schema": DOM_SCHEMA, "url": "http://127.0.0.1:8000/", "title": "t",
            "nodes": [
                {"id": "/html", "tag": "html"},
                {"id": "/html/body", "parent": 0, "tag": "body"},
                {"id": "/html/body/p", "parent": 1, "tag": "p"},
                {"id": "/html/body/p/text()", "parent": 2, "tag": "#text", "text": " Hello\n  world "},
                {"id": "/html/body/p/b", "parent": 2, "tag": "b"},
                {"id": "/html/body/p/b/text()", "parent": 4, "tag": "#text", "text": "again"}
            ]
        })
    }

    #[test]
    fn text_is_gathered_under_a_node_in_document_order() {
        let dom = parse_dom(&src(page())).unwrap();
        assert_eq!(dom.text_of(2), "Hello world again");
        assert_eq!(dom.text_of(4), "again");
        assert_eq!(dom.text_of(0), "Hello world again");
    }

    #[test]
    fn a_parent_after_its_child_or_a_repeated_id_is_refused_at_its_field() {
        let mut v = page();
        v["nodes"][1]["parent"] = 3.into();
        let e = parse_dom(&src(v)).unwrap_err();
        assert_eq!(e.path.to_string(), "nodes[1].parent");
        let mut v = page();
        v["nodes"][4]["parent"] = 3.into();
        let e = parse_dom(&src(v)).unwrap_err();
        assert!(e.message.contains("text node"), "{}", e.message);
        let mut v = page();
        v["nodes"][2]["id"] = "/html".into();
        let e = parse_dom(&src(v)).unwrap_err();
        assert_eq!(e.reason, Reason::DuplicateId);
    }
}
