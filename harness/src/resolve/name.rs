//! Accessible names the way the platform derives them.
//!
//! A control's own title or description comes first. A field with no name of its own takes
//! the name of the element that labels it (labelled-by, `AXTitleUIElement`) or, failing
//! that, of the static text just before it — to its left on the same row, or just above —
//! as screen readers do. Real forms (zenity's, many macOS sheets) depend on this.

use std::collections::HashMap;

use super::grid::PointGrid;
use super::hash::FastState;
use super::index::Node;
use crate::recording::ax::{Element, Rect, is_text_role};

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

/// How well the static text `l` labels the field `f`: the distance to it (lower is better),
/// or None when it is not beside the field or too far.
fn label_distance(l: &Rect, f: &Rect) -> Option<i64> {
    let (fy0, fy1) = (f.y, f.y + f.height);
    let left_of = l.x + l.width <= f.x + 2 && l.y < fy1 && l.y + l.height > fy0;
    let above = l.y + l.height <= f.y + 2 && l.x < f.x + f.width && l.x + l.width > f.x;
    let dist = if left_of {
        (f.x - (l.x + l.width)) as i64
    } else if above {
        // A label above is a weaker reading than one on the same row.
        (f.y - (l.y + l.height)) as i64 * 2 + 8
    } else {
        return None;
    };
    (dist <= 200).then_some(dist)
}

/// Up to this many (field, text) pairs in a window, every text is tried for every field;
/// beyond it, the texts are put on grids first so a field looks only at those nearby.
const SCAN_PAIRS: usize = 4096;

/// Where a window's static texts are, for finding the one beside a field quickly.
///
/// A text labels a field from the left only when its right edge is at most 200 px to the
/// left of the field (and the rows overlap), from above only when its bottom edge is at most
/// 96 px above it (and the columns overlap): so one grid holds each text's right edge, the
/// other its bottom edge, and a field asks each for the edges in that band. Texts with an
/// empty frame have no edges to place and are always asked.
struct TextGrids {
    right_edges: PointGrid,
    bottom_edges: PointGrid,
    always: Vec<u32>,
}

impl TextGrids {
    fn new(texts: &[Rect]) -> Self {
        let empty = |l: &Rect| l.width <= 0 || l.height <= 0;
        let edge = |l: &Rect, right: bool| match (empty(l), right) {
            (true, _) => Rect::default(),
            (false, true) => Rect {
                x: l.x + l.width,
                width: 1,
                ..*l
            },
            (false, false) => Rect {
                y: l.y + l.height,
                height: 1,
                ..*l
            },
        };
        TextGrids {
            right_edges: PointGrid::build(texts.iter().map(|l| edge(l, true))),
            bottom_edges: PointGrid::build(texts.iter().map(|l| edge(l, false))),
            always: (0..texts.len() as u32)
                .filter(|&t| empty(&texts[t as usize]))
                .collect(),
        }
    }

    /// Puts into `out` the texts (positions in `texts`) that may label `f`, in any order,
    /// perhaps repeated. False (and `out` untouched) when the field is too odd to ask about
    /// (empty, or so big that asking would cost more than trying every text).
    fn candidates(&self, f: &Rect, texts: usize, out: &mut Vec<u32>) -> bool {
        let (x, y, w, h) = (
            i64::from(f.x),
            i64::from(f.y),
            i64::from(f.width),
            i64::from(f.height),
        );
        if w <= 0 || h <= 0 || (w / 64 + 2) * (h / 64 + 2) > texts as i64 {
            return false;
        }
        out.clear();
        out.extend_from_slice(&self.always);
        self.right_edges
            .touching(x - 200, x + 2, y, y + h - 1, |t| out.push(t));
        self.bottom_edges
            .touching(x, x + w - 1, y - 96, y + 2, |t| out.push(t));
        true
    }
}

/// Fills in names for nameless elements of one window. `nodes` and `elements` are parallel.
pub(crate) fn derive_names<'a>(nodes: &mut [Node<'a>], elements: &[&'a Element]) {
    // Built on the first labelled-by link only: most windows have none.
    let mut by_id: Option<HashMap<&str, usize, FastState>> = None;
    let texts: Vec<usize> = (0..nodes.len())
        .filter(|&i| is_text_role(nodes[i].ax_role) && nodes[i].name.is_some())
        .collect();
    let needs = |n: &Node| n.name.is_none() && takes_external_label(n.ax_role);
    let fields = nodes.iter().filter(|n| needs(n)).count();
    let text_frames: Vec<Rect> = texts.iter().map(|&t| nodes[t].frame).collect();
    let grids = (fields * texts.len() > SCAN_PAIRS).then(|| TextGrids::new(&text_frames));
    let mut nearby = Vec::new();
    for i in 0..nodes.len() {
        if !needs(&nodes[i]) {
            continue;
        }
        let linked = elements[i].labelled_by.as_deref().and_then(|l| {
            by_id
                .get_or_insert_with(|| {
                    let mut m =
                        HashMap::with_capacity_and_hasher(elements.len(), FastState::default());
                    // A repeated id: the last one wins.
                    m.extend(elements.iter().enumerate().map(|(i, e)| (e.id.as_str(), i)));
                    m
                })
                .get(l)
                .copied()
        });
        if let Some(n) = linked.and_then(|j| nodes[j].name) {
            nodes[i].name = Some(n);
            continue;
        }
        let f = nodes[i].frame;
        let asked = grids
            .as_ref()
            .is_some_and(|g| g.candidates(&f, texts.len(), &mut nearby));
        if let Some(t) = best_label(&text_frames, &f, asked.then_some(&nearby[..])) {
            nodes[i].name = nodes[texts[t]].name;
        }
    }
}

/// The text (position in `texts`) that labels `f`: the nearest, the first of equals. Tries
/// `only` when given (in any order, repeats allowed; it must hold every text that can
/// qualify), else all.
fn best_label(texts: &[Rect], f: &Rect, only: Option<&[u32]>) -> Option<usize> {
    let mut best: Option<(i64, usize)> = None;
    let mut try_one = |t: usize| {
        if let Some(d) = label_distance(&texts[t], f)
            && best.is_none_or(|b| (d, t) < b)
        {
            best = Some((d, t));
        }
    };
    match only {
        Some(only) => only.iter().for_each(|&t| try_one(t as usize)),
        None => (0..texts.len()).for_each(try_one),
    }
    best.map(|(_, t)| t)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rect(x: i32, y: i32, width: i32, height: i32) -> Rect {
        Rect {
            x,
            y,
            width,
            height,
        }
    }

    #[test]
    fn label_left_beats_label_above_and_far_ones_do_not_count() {
        let field = rect(200, 100, 150, 20);
        let texts = [
            rect(200, 60, 80, 20),  // above, 20 px: 2 × 20 + 8 = 48
            rect(100, 100, 90, 20), // left, 10 px
            rect(0, 100, 20, 20),   // left, 180 px
            rect(-50, 100, 20, 20), // left, 230 px: too far
        ];
        assert_eq!(best_label(&texts, &field, None), Some(1));
        assert_eq!(best_label(&texts[2..], &field, None), Some(0));
        assert_eq!(best_label(&texts[3..], &field, None), None);
    }

    /// The grids must pick exactly what trying every text picks, on crowded random layouts
    /// with overlapping, empty, negative and huge frames (fixed seed).
    #[test]
    fn grids_pick_what_the_full_scan_picks() {
        let mut seed = 0x2545_f491_4f6c_dd1d_u64;
        let mut next = |m: i64| {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            (seed % m as u64) as i64
        };
        for round in 0..40 {
            let texts: Vec<Rect> = (0..150)
                .map(|_| {
                    let (w, h) = match next(20) {
                        0 => (0, 20),
                        1 => (50, -3),
                        2 => (5000, 30),
                        _ => (next(160) as i32 + 1, next(40) as i32 + 1),
                    };
                    rect(next(1600) as i32 - 100, next(1000) as i32 - 50, w, h)
                })
                .collect();
            let grids = TextGrids::new(&texts);
            let (mut asked, mut named) = (0, 0);
            for _ in 0..150 {
                let f = match next(25) {
                    0 => rect(next(1400) as i32, next(900) as i32, 0, 10),
                    1 => rect(0, 0, 3000, 2000),
                    _ => rect(
                        next(1400) as i32,
                        next(900) as i32,
                        next(300) as i32 + 1,
                        next(40) as i32 + 1,
                    ),
                };
                let all = best_label(&texts, &f, None);
                let mut nearby = Vec::new();
                let asked_grids = grids.candidates(&f, texts.len(), &mut nearby);
                asked += usize::from(asked_grids);
                named += usize::from(all.is_some());
                let picked = best_label(&texts, &f, asked_grids.then_some(&nearby[..]));
                assert_eq!(picked, all, "round {round} {f:?}");
            }
            assert!(asked > 100, "the grids were asked for most fields");
            assert!(named > 10, "many fields have a label");
        }
    }
}
