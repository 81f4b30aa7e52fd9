//! CSS-selector targets (browser plans) against a frame's recorded DOM, matched by `scraper`
//! (html5ever and Servo's `selectors`, a browser engine's grammar and matching), then mapped
//! to the element's box through the AX snapshot, which names elements by the same DOM paths.
//!
//! The recorded nodes are written back out as HTML, each element stamped with its index, and
//! parsed: the DOM came from a browser's parser, so the parse gives the same tree back.
//! One match is the target; two or more are ambiguous (every match is a candidate of equal
//! score); none is not found. A match the accessibility tree does not show (a `div` without a
//! role) stands for the nearest ancestor it does show, as a click on it lands there too.

use std::fmt::Write;

use scraper::{Html, Selector};

use super::index::FrameIndex;
use super::target::Strategy;
use crate::recording::dom::{DomSnapshot, TEXT};

/// The attribute that carries a node's index through the parse.
const MARK: &str = "data-stepreplay-node";

/// Elements HTML writes without an end tag.
const VOID: &[&str] = &[
    "area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "source", "track",
    "wbr",
];

pub(crate) use crate::plan::devthink::parse_selector as parse;

fn escape(s: &str, quote: bool) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' if !quote => out.push_str("&lt;"),
            '>' if !quote => out.push_str("&gt;"),
            '"' if quote => out.push_str("&quot;"),
            c => out.push(c),
        }
    }
    out
}

/// A name HTML can spell: not a pseudo-element the snapshot lists (`::marker`).
fn plain_name(s: &str) -> bool {
    s.starts_with(|c: char| c.is_ascii_alphabetic())
        && s.chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | ':' | '.'))
}

/// The DOM as an HTML document whose elements carry their node index.
fn to_html(dom: &DomSnapshot) -> String {
    let mut children: Vec<Vec<usize>> = vec![Vec::new(); dom.nodes.len()];
    let mut roots = Vec::new();
    for (i, n) in dom.nodes.iter().enumerate() {
        match n.parent {
            Some(p) => children[p].push(i),
            None => roots.push(i),
        }
    }
    let mut out = String::from("<!DOCTYPE html>");
    // (node, entering): an explicit stack, as a page may nest deeper than a thread's stack.
    let mut stack: Vec<(usize, bool)> = roots.iter().rev().map(|&r| (r, true)).collect();
    while let Some((i, entering)) = stack.pop() {
        let n = &dom.nodes[i];
        if n.tag == TEXT {
            out.push_str(&escape(n.text.as_deref().unwrap_or(""), false));
            continue;
        }
        if !plain_name(&n.tag) {
            continue;
        }
        if !entering {
            let _ = write!(out, "</{}>", n.tag);
            continue;
        }
        let _ = write!(out, "<{} {MARK}=\"{i}\"", n.tag);
        for (k, v) in n.attrs.iter().filter(|(k, _)| plain_name(k) && *k != MARK) {
            let _ = write!(out, " {k}=\"{}\"", escape(v, true));
        }
        out.push('>');
        if VOID.contains(&n.tag.as_str()) {
            continue;
        }
        stack.push((i, false));
        stack.extend(children[i].iter().rev().map(|&c| (c, true)));
    }
    out
}

/// The indices of the nodes `selector` matches, in document order.
pub(crate) fn matches(dom: &DomSnapshot, selector: &Selector) -> Vec<usize> {
    let html = Html::parse_document(&to_html(dom));
    let mut found: Vec<usize> = html
        .select(selector)
        .filter_map(|e| e.value().attr(MARK)?.parse().ok())
        .filter(|&i: &usize| i < dom.nodes.len())
        .collect();
    found.sort_unstable();
    found.dedup();
    found
}

/// The candidates a selector gives on a frame: every match, at equal score, as the element
/// the accessibility tree shows for it.
pub(super) fn candidates(
    selector: &str,
    ix: &FrameIndex,
) -> (Vec<(u32, f64, Strategy)>, Option<String>) {
    let Some(dom) = ix.dom else {
        return (
            Vec::new(),
            Some("the frame has no recorded DOM to match a CSS selector against".into()),
        );
    };
    let sel = match parse(selector) {
        Ok(s) => s,
        Err(e) => {
            return (
                Vec::new(),
                Some(format!("the selector does not parse: {e}")),
            );
        }
    };
    let found = matches(dom, &sel);
    let mut cands: Vec<(u32, f64, Strategy)> = Vec::new();
    let mut unshown = 0;
    for i in &found {
        let mut at = Some(*i);
        let shown = loop {
            let Some(k) = at else { break None };
            if let Some(x) = ix.index_of(&dom.nodes[k].id) {
                break Some(x);
            }
            at = dom.nodes[k].parent;
        };
        match shown {
            Some(x) if !cands.iter().any(|c| c.0 == x) => cands.push((x, 1.0, Strategy::Selector)),
            Some(_) => {}
            None => unshown += 1,
        }
    }
    let note = match (found.len(), cands.len()) {
        (0, _) => Some(format!("no element matches `{selector}`")),
        (n, 0) => Some(format!(
            "`{selector}` matches {}, none of them shown to assistive technology",
            crate::text::plural(n, "element", "elements")
        )),
        (n, c) if n > 1 && c > 1 => Some(format!("`{selector}` matches {} elements", n)),
        _ if unshown > 0 => Some(format!(
            "{} not shown to assistive technology",
            crate::text::plural(unshown, "match", "matches")
        )),
        _ => None,
    };
    (cands, note)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::recording::dom::DomNode;

    fn node(id: &str, parent: Option<usize>, tag: &str, attrs: &[(&str, &str)]) -> DomNode {
        DomNode {
            id: id.into(),
            parent,
            tag: tag.into(),
            attrs: attrs
                .iter()
                .map(|(k, v)| (k.to_string(), v.to_string()))
                .collect(),
            text: None,
            rect: None,
        }
    }

    fn shop() -> DomSnapshot {
        let mut text = node("/html/body/h1/text()", Some(2), TEXT, &[]);
        text.text = Some("Cart <3 & \"more\"".into());
        DomSnapshot {
            schema: crate::recording::dom::DOM_SCHEMA.into(),
            url: "http://127.0.0.1:8000/".into(),
            title: "Shop".into(),
            nodes: vec![
                node("/html", None, "html", &[]),
                node("/html/body", Some(0), "body", &[]),
                node(
                    "/html/body/h1",
                    Some(1),
                    "h1",
                    &[("title", "a \"quoted\" <b>")],
                ),
                text,
                node("/html/body/input", Some(1), "input", &[("name", "q")]),
                node(
                    "/html/body/button",
                    Some(1),
                    "button",
                    &[("class", "add primary")],
                ),
                node(
                    "/html/body/button[2]",
                    Some(1),
                    "button",
                    &[("class", "add")],
                ),
            ],
        }
    }

    fn find(sel: &str) -> Vec<usize> {
        matches(&shop(), &parse(sel).unwrap())
    }

    #[test]
    fn selectors_match_as_a_browser_matches_them() {
        assert_eq!(find("button.add"), vec![5, 6]);
        assert_eq!(find("button.add.primary"), vec![5]);
        assert_eq!(find("body > button:nth-of-type(2)"), vec![6]);
        assert_eq!(find("input + button"), vec![5]);
        assert_eq!(find("input[name=q]"), vec![4]);
        assert_eq!(find("h1[title='a \"quoted\" <b>']"), vec![2]);
        assert_eq!(find("button.missing"), Vec::<usize>::new());
    }

    #[test]
    fn a_void_element_does_not_swallow_its_siblings() {
        // Were `input` written with children, the buttons would be inside it.
        assert_eq!(find("input > button"), Vec::<usize>::new());
        assert_eq!(find("body > button"), vec![5, 6]);
    }

    #[test]
    fn a_selector_that_does_not_parse_says_why() {
        assert!(parse("button[").is_err());
        assert!(parse("div >> p").is_err());
    }
}
