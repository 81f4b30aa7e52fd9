//! Property tests of the AT-SPI importer on hostile-but-real trees: paths with AT-SPI's -1 and
//! other negative or broken indices, nodes listed twice, two nodes given one path, dangling,
//! self and unreadable relations, nodes without extents or with negative ones, windows of no
//! size, names with control characters, deep and wide trees, and the same tree with its
//! children reordered. Import must never refuse such a tree, and must keep every node it can
//! address: the oracle here is worked out from the generated tree, not from the importer.

use proptest::prelude::*;
use serde_json::{Value, json};

use super::atspi::{AtspiFrame, parse_atspi};
use crate::json::{Source, to_canonical_value};
use crate::recording::ax::AxSnapshot;
use crate::rng::Rng;

const ROLES: &[&str] = &[
    "push button",
    "label",
    "panel",
    "check box",
    "filler",
    "list item",
    "toggle button",
    "entry",
    "table cell",
    "redundant object",
];

/// Top-level roles: a window's, and others a toolkit gives its windows (Qt 6's `filler`).
const TOP_ROLES: &[&str] = &["frame", "dialog", "window", "filler", "panel", "unknown"];

/// Whether import keeps top-level node `n` as a window when anything of it is on screen.
fn is_window(n: &GenNode) -> bool {
    TOP_ROLES[..3].contains(&n.role) || n.extents.is_some()
}

#[derive(Clone, Debug)]
enum Rel {
    None,
    /// To a path no node has.
    Dangling,
    /// To the node itself.
    ToSelf,
    /// In a shape the reader cannot tell.
    Unreadable,
    /// To the sibling at this place.
    Sibling(usize),
}

#[derive(Clone, Debug)]
struct GenNode {
    role: &'static str,
    /// What the import should name it (control characters already spaces).
    name: String,
    /// What the file says (maybe with control characters).
    raw_name: String,
    showing: bool,
    visible: bool,
    /// `None`: null extents; a negative width is written as such.
    extents: Option<(i32, i32, i32, i32)>,
    /// A path segment to write instead of the child index (`-1`, `-7`, `x`, ``).
    bad_segment: Option<&'static str>,
    /// Written at its first sibling's path (an exact repeat when `repeat`, else another node).
    at_sibling_path: bool,
    /// A repeat of the node before it (dropped by import, with its subtree).
    repeat: bool,
    rel: Rel,
    children: Vec<GenNode>,
}

struct Gen {
    rng: Rng,
    next: usize,
    budget: usize,
    quirks: bool,
}

impl Gen {
    fn node(&mut self, depth: usize, width: usize, top: bool) -> GenNode {
        self.next += 1;
        let k = self.next;
        let q = self.quirks;
        let control = q && self.rng.chance(0.1);
        let (raw_name, name) = if control {
            (format!("n{k}\u{7}\nx"), format!("n{k}  x"))
        } else {
            (format!("n{k}"), format!("n{k}"))
        };
        let extents = if top && q && self.rng.chance(0.2) {
            Some((0, 0, 0, 0))
        } else if q && self.rng.chance(0.1) {
            None
        } else if q && self.rng.chance(0.05) {
            Some((10, 10, -5, 20))
        } else {
            let x = self.rng.range(0, 1000) as i32;
            let y = self.rng.range(0, 700) as i32;
            Some((
                x,
                y,
                self.rng.range(0, 200) as i32,
                self.rng.range(0, 60) as i32,
            ))
        };
        let bad_segment = if !top && q && self.rng.chance(0.1) {
            Some(["-1", "-1", "-7", "x", ""][self.rng.below(5) as usize])
        } else {
            None
        };
        let rel = match (q, self.rng.below(12)) {
            (true, 0) => Rel::Dangling,
            (true, 1) => Rel::ToSelf,
            (true, 2) => Rel::Unreadable,
            (_, 3 | 4) => Rel::Sibling(self.rng.below(3) as usize),
            _ => Rel::None,
        };
        let mut children = Vec::new();
        if depth > 0 {
            let n = self.rng.below(width as u64 + 1) as usize;
            for _ in 0..n {
                if self.budget == 0 {
                    break;
                }
                self.budget -= 1;
                let c = self.node(depth - 1, width, false);
                let again = q && c.bad_segment.is_none() && self.rng.chance(0.05);
                let other = q && !children.is_empty() && self.rng.chance(0.05);
                children.push(c.clone());
                if again {
                    children.push(GenNode {
                        at_sibling_path: false,
                        repeat: true,
                        ..c
                    });
                } else if other {
                    let mut o = self.node(0, 0, false);
                    o.at_sibling_path = true;
                    o.bad_segment = None;
                    children.push(o);
                }
            }
        }
        GenNode {
            role: if top {
                TOP_ROLES[self.rng.below(TOP_ROLES.len() as u64) as usize]
            } else {
                ROLES[self.rng.below(ROLES.len() as u64) as usize]
            },
            name,
            raw_name,
            showing: !q || self.rng.chance(0.85),
            visible: !q || self.rng.chance(0.9),
            extents,
            bad_segment,
            at_sibling_path: false,
            repeat: false,
            rel,
            children,
        }
    }
}

/// The file's paths, as the recorder writes them: the parent's path and the child's index
/// (or the broken segment the generator gave it). A repeat takes the path of the node before
/// it; a node "at its sibling's path" the first sibling's.
fn to_json(n: &GenNode, path: &str, siblings: &[String]) -> Value {
    let mut paths: Vec<String> = Vec::new();
    for (j, c) in n.children.iter().enumerate() {
        let p = if c.repeat {
            paths[j - 1].clone()
        } else if c.at_sibling_path {
            paths[0].clone()
        } else {
            match c.bad_segment {
                Some(seg) => format!("{path}/{seg}"),
                None => format!("{path}/{j}"),
            }
        };
        paths.push(p);
    }
    let children: Vec<Value> = n
        .children
        .iter()
        .zip(&paths)
        .map(|(c, p)| to_json(c, p, &paths))
        .collect();
    let mut states = vec!["enabled"];
    if n.showing {
        states.push("showing");
    }
    if n.visible {
        states.push("visible");
    }
    let relations = match &n.rel {
        Rel::None => Value::Null,
        Rel::Dangling => json!([{"type": "labelled-by", "targets": [{"path": "9/9/-1/9"}]}]),
        Rel::ToSelf => json!({"labelled-by": [{"path": path}]}),
        Rel::Unreadable => json!([{"type": "labelled-by", "targets": [7]}, "odd"]),
        // Another sibling: a link to itself is a quirk of its own.
        Rel::Sibling(k) => match siblings.iter().skip(*k).find(|p| *p != path) {
            Some(p) => json!([{"relation": "labelled-by", "target": {"path": p}}]),
            None => Value::Null,
        },
    };
    json!({
        "path": path, "role": n.role, "name": n.raw_name, "states": states,
        "extents": n.extents.map(|(x, y, w, h)| json!({"x": x, "y": y, "width": w, "height": h})),
        "relations": relations, "children": children,
    })
}

fn file(tops: &[GenNode]) -> String {
    let paths: Vec<String> = (0..tops.len()).map(|j| format!("0/{j}")).collect();
    let tops: Vec<Value> = tops
        .iter()
        .zip(&paths)
        .map(|(t, p)| to_json(t, p, &paths))
        .collect();
    json!({
        "schema": "realrec.atspi/1", "coord_type": "screen",
        "screen": {"width": 1280, "height": 800},
        "applications": [{"path": "0", "role": "application", "name": "demo", "children": tops}]
    })
    .to_string()
}

/// The names import must keep: every node on screen and every container of one, except the
/// repeats (and what is under them) and top-level nodes that are no window; and how many of
/// those were left out.
fn expected_names(tops: &[GenNode]) -> (Vec<String>, usize) {
    fn any_showing(n: &GenNode) -> bool {
        n.showing || n.children.iter().any(any_showing)
    }
    let below = tops.iter().any(|t| t.children.iter().any(any_showing));
    fn kept(n: &GenNode, top: bool, below: bool, out: &mut Vec<String>) -> bool {
        if n.repeat {
            return false;
        }
        let mut mine = Vec::new();
        let mut any = false;
        for c in &n.children {
            any |= kept(c, false, below, &mut mine);
        }
        let geometry = n.extents.filter(|e| e.2 >= 0 && e.3 >= 0);
        let showing = if below || top {
            n.showing
        } else {
            geometry.is_some_and(|e| e.2 > 0 && e.3 > 0)
        };
        let on_screen = showing && n.visible && geometry.is_some();
        if on_screen || any {
            out.push(n.name.clone());
            out.extend(mine);
            true
        } else {
            false
        }
    }
    let mut out = Vec::new();
    let mut left_out = 0;
    for t in tops {
        let mut mine = Vec::new();
        if kept(t, true, below, &mut mine) {
            if is_window(t) {
                out.extend(mine);
            } else {
                left_out += 1;
            }
        }
    }
    out.sort();
    (out, left_out)
}

fn count_repeats(n: &GenNode) -> usize {
    fn all(n: &GenNode) -> usize {
        1 + n.children.iter().map(all).sum::<usize>()
    }
    n.children
        .iter()
        .map(|c| if c.repeat { all(c) } else { count_repeats(c) })
        .sum()
}

fn names(ax: &AxSnapshot) -> Vec<String> {
    let mut out: Vec<String> = ax
        .apps
        .iter()
        .flat_map(|a| &a.windows)
        .map(|w| w.title.clone())
        .collect();
    ax.walk(&mut |e| out.push(e.own_name().unwrap_or("").to_string()));
    out.sort();
    out
}

fn generate(seed: u64, width: usize, depth: usize, budget: usize, quirks: bool) -> Vec<GenNode> {
    let mut g = Gen {
        rng: Rng::new(seed),
        next: 0,
        budget,
        quirks,
    };
    (0..1 + seed as usize % 3)
        .map(|_| g.node(depth, width, true))
        .collect()
}

fn import(text: &str) -> AtspiFrame {
    match parse_atspi(&Source::from_text("frame_000.ax.json", text)) {
        Ok(f) => f,
        Err(e) => panic!("refused: {e}"),
    }
}

/// What every import must hold: nothing addressable lost, no repeat kept, ids unique (the
/// snapshot loads back), and labels link only to other kept elements.
fn holds(tops: &[GenNode]) -> AtspiFrame {
    let f = import(&file(tops));
    let (want, left_out) = expected_names(tops);
    assert_eq!(names(&f.ax), want);
    assert_eq!(f.dropped.not_windows, left_out);
    assert_eq!(
        f.dropped.repeated,
        tops.iter().map(count_repeats).sum::<usize>()
    );
    let text = to_canonical_value(&f.ax);
    let back = crate::recording::parse_ax(&Source::from_text("ax.json", &text));
    assert!(back.is_ok(), "{back:?}");
    let mut ids = std::collections::HashSet::new();
    f.ax.walk(&mut |e| {
        ids.insert(e.id.clone());
    });
    f.ax.walk(&mut |e| {
        if let Some(l) = &e.labelled_by {
            assert!(l != &e.id && ids.contains(l), "{} → {l}", e.id);
        }
    });
    f
}

/// Siblings in another order, as a toolkit may list them from one frame to the next.
fn reordered(nodes: &[GenNode], rng: &mut Rng) -> Vec<GenNode> {
    let mut out: Vec<GenNode> = nodes
        .iter()
        .map(|n| GenNode {
            children: reordered(&n.children, rng),
            ..n.clone()
        })
        .collect();
    // Repeats and nodes at a sibling's path keep their place after the node they follow.
    if out.iter().all(|n| !n.repeat && !n.at_sibling_path) {
        for i in (1..out.len()).rev() {
            out.swap(i, rng.below(i as u64 + 1) as usize);
        }
    }
    out
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    #[test]
    fn hostile_trees_import_and_keep_every_addressable_node(
        seed in any::<u64>(),
        width in 1usize..12,
        depth in 1usize..8,
    ) {
        let tops = generate(seed, width, depth, 3_000, true);
        let f = holds(&tops);
        // The same tree with its children reordered keeps the same nodes.
        let again = reordered(&tops, &mut Rng::new(seed ^ 1));
        prop_assert_eq!(names(&import(&file(&again)).ax), names(&f.ax));
    }

    #[test]
    fn deep_trees_import(seed in any::<u64>(), depth in 20usize..45) {
        holds(&generate(seed, 2, depth, 2_000, true));
    }

    #[test]
    fn clean_trees_drop_nothing(seed in any::<u64>(), width in 1usize..8, depth in 1usize..6) {
        let f = holds(&generate(seed, width, depth, 2_000, false));
        prop_assert!(f.dropped.is_empty(), "{:?}", f.dropped);
    }
}

#[test]
fn each_quirk_is_counted_in_the_note() {
    let leaf = |name: &str| GenNode {
        role: "push button",
        name: name.into(),
        raw_name: name.into(),
        showing: true,
        visible: true,
        extents: Some((10, 10, 50, 20)),
        bad_segment: None,
        at_sibling_path: false,
        repeat: false,
        rel: Rel::None,
        children: Vec::new(),
    };
    let win = GenNode {
        role: "frame",
        extents: Some((0, 0, 0, 0)),
        children: vec![
            GenNode {
                bad_segment: Some("-1"),
                rel: Rel::Dangling,
                ..leaf("a")
            },
            GenNode {
                rel: Rel::ToSelf,
                ..leaf("b")
            },
            GenNode {
                repeat: true,
                ..leaf("b")
            },
            GenNode {
                at_sibling_path: true,
                rel: Rel::Unreadable,
                ..leaf("c")
            },
            GenNode {
                raw_name: "d\u{0}".into(),
                name: "d ".into(),
                rel: Rel::Sibling(1),
                ..leaf("d")
            },
        ],
        ..leaf("w")
    };
    let f = holds(std::slice::from_ref(&win));
    let d = f.dropped;
    assert_eq!(
        (d.readdressed, d.repeated, d.links, d.control_names),
        (2, 1, 4, 1),
        "{d:?}"
    );
    assert_eq!(
        d.describe(),
        "2 nodes addressed by their place (a path not one index below the parent's, such as \
         AT-SPI's -1), 1 node dropped as a repeat of one at the same path, 4 labelled-by links \
         dropped (to no node, a shared path or itself, or unreadable), 1 name cleaned of \
         control characters"
    );
    // The node at -1 is addressed by its place, under its window.
    let mut ids = Vec::new();
    f.ax.walk(&mut |e| ids.push(e.id.clone()));
    assert_eq!(ids, ["e0-0-x0", "e0-0-1", "e0-0-x3", "e0-0-4"]);
}

/// 100k nodes and more: slow in a debug build, so run in release (`cargo test --release`).
#[test]
#[cfg_attr(debug_assertions, ignore = "slow in a debug build")]
fn a_tree_of_a_hundred_thousand_nodes_imports() {
    let tops = generate(7, 12, 6, 150_000, true);
    let f = holds(&tops);
    let mut n = 0;
    f.ax.walk(&mut |_| n += 1);
    assert!(n > 50_000, "{n}");
}
