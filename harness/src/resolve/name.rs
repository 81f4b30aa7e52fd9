//! Accessible names the way the platform derives them.
//!
//! A control's own title or description comes first. A field with no name of its own takes
//! the name of the element that labels it (labelled-by, `AXTitleUIElement`) or, failing
//! that, of the static text just before it — to its left on the same row, or just above —
//! as screen readers do. Real forms (zenity's, many macOS sheets) depend on this.

use std::collections::HashMap;

use super::hash::FastState;
use super::index::Node;
use crate::recording::ax::{Element, Rect};
use crate::roles::is_text_role;

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

/// A label to the left may be this far from the field's left edge.
const LEFT_REACH: i64 = 200;
/// A label above may be this far above the field's top (it counts double, plus 8:
/// `2 × 96 + 8 = LEFT_REACH`).
const ABOVE_REACH: i64 = 96;

/// How well the static text `l` labels the field `f`: the distance to it (lower is better),
/// or None when it is not beside the field or too far. In i64: frames are recorded i32s,
/// and their sums must not overflow.
fn label_distance(l: &Rect, f: &Rect) -> Option<i64> {
    let [lx, ly, lw, lh] = [l.x, l.y, l.width, l.height].map(i64::from);
    let [fx, fy, fw, fh] = [f.x, f.y, f.width, f.height].map(i64::from);
    let left_of = lx + lw <= fx + 2 && ly < fy + fh && ly + lh > fy;
    let above = ly + lh <= fy + 2 && lx < fx + fw && lx + lw > fx;
    let dist = if left_of {
        fx - (lx + lw)
    } else if above {
        // A label above is a weaker reading than one on the same row.
        (fy - (ly + lh)) * 2 + 8
    } else {
        return None;
    };
    (dist <= LEFT_REACH).then_some(dist)
}

/// Texts taller than this are tried for every field rather than placed in the band.
const TALL: i64 = 1024;

/// A window's static texts ordered by their bottom edge, so that a field looks only at the
/// band of rows its label can be in.
///
/// Whether from the left or from above, a text that labels field `f` has its bottom edge at
/// most [`ABOVE_REACH`] above `f`'s top, and its top edge no lower than `f`'s bottom row (or
/// 2 px under its top). The top is at least `bottom − max_height`, so a scan from the first
/// bottom edge in reach can stop as soon as `bottom − max_height` passes that line. Texts
/// are usually in reading order already, which the sort notices. A negative or huge height
/// would break the bound, so those texts are tried for every field.
#[derive(Debug, Default)]
struct Band {
    /// (bottom edge, position among the texts), ascending.
    by_bottom: Vec<(i64, u32)>,
    /// Texts outside the band: tried for every field.
    always: Vec<u32>,
    max_height: i64,
}

impl Band {
    fn fill(&mut self, texts: &[Rect]) {
        self.by_bottom.clear();
        self.always.clear();
        self.max_height = 0;
        for (t, l) in texts.iter().enumerate() {
            let h = i64::from(l.height);
            if (0..=TALL).contains(&h) {
                self.by_bottom.push((i64::from(l.y) + h, t as u32));
                self.max_height = self.max_height.max(h);
            } else {
                self.always.push(t as u32);
            }
        }
        self.by_bottom.sort_unstable();
    }

    /// Calls `each` once on every text (position among the texts) that may label `f`.
    fn candidates(&self, f: &Rect, mut each: impl FnMut(usize)) {
        self.always.iter().for_each(|&t| each(t as usize));
        let (y, h) = (i64::from(f.y), i64::from(f.height));
        let lowest_top = (y + h - 1).max(y + 2);
        let first = self
            .by_bottom
            .partition_point(|&(b, _)| b < y - ABOVE_REACH);
        for &(bottom, t) in &self.by_bottom[first..] {
            if bottom - self.max_height > lowest_top {
                break;
            }
            each(t as usize);
        }
    }
}

/// Derives names window by window, reusing its buffers from one window to the next.
#[derive(Debug, Default)]
pub(crate) struct Namer {
    /// The window's named static texts: node positions, and their frames.
    texts: Vec<usize>,
    frames: Vec<Rect>,
    band: Band,
}

impl Namer {
    /// Fills in names for nameless elements of one window. `nodes` and `elements` are
    /// parallel; so is `source`, which gets, for each element named here, the position of
    /// the one its name came from (and `u32::MAX` for the rest).
    pub(crate) fn derive<'a>(
        &mut self,
        nodes: &mut [Node<'a>],
        elements: &[&'a Element],
        source: &mut Vec<u32>,
    ) {
        source.clear();
        source.resize(nodes.len(), u32::MAX);
        let needs = |n: &Node| n.name.is_none() && takes_external_label(n.ax_role);
        if !nodes.iter().any(needs) {
            return;
        }
        self.texts.clear();
        self.frames.clear();
        for (i, n) in nodes.iter().enumerate() {
            if n.name.is_some() && is_text_role(n.ax_role) {
                self.texts.push(i);
                self.frames.push(n.frame);
            }
        }
        self.band.fill(&self.frames);
        // Built on the first labelled-by link only: most windows have none.
        let mut by_id: Option<HashMap<&str, usize, FastState>> = None;
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
            let f = nodes[i].frame;
            let from = linked.filter(|&j| nodes[j].name.is_some()).or_else(|| {
                best_label(&self.frames, &f, |each| self.band.candidates(&f, each))
                    .map(|t| self.texts[t])
            });
            if let Some(j) = from {
                nodes[i].name = nodes[j].name;
                source[i] = j as u32;
            }
        }
    }
}

/// The text (position in `texts`) that labels `f`: the nearest, the first of equals, among
/// those `candidates` offers (in any order; it must offer every text that can qualify).
fn best_label(
    texts: &[Rect],
    f: &Rect,
    candidates: impl FnOnce(&mut dyn FnMut(usize)),
) -> Option<usize> {
    let mut best: Option<(i64, usize)> = None;
    candidates(&mut |t| {
        if let Some(d) = label_distance(&texts[t], f)
            && best.is_none_or(|b| (d, t) < b)
        {
            best = Some((d, t));
        }
    });
    best.map(|(_, t)| t)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn scan_all(texts: &[Rect], f: &Rect) -> Option<usize> {
        best_label(texts, f, |each| (0..texts.len()).for_each(each))
    }

    #[test]
    fn label_left_beats_label_above_and_far_ones_do_not_count() {
        let field = Rect::new(200, 100, 150, 20);
        let texts = [
            Rect::new(200, 60, 80, 20),  // above, 20 px: 2 × 20 + 8 = 48
            Rect::new(100, 100, 90, 20), // left, 10 px
            Rect::new(0, 100, 20, 20),   // left, 180 px
            Rect::new(-50, 100, 20, 20), // left, 230 px: too far
        ];
        assert_eq!(scan_all(&texts, &field), Some(1));
        assert_eq!(scan_all(&texts[2..], &field), Some(0));
        assert_eq!(scan_all(&texts[3..], &field), None);
    }

    #[test]
    fn extreme_frames_do_not_overflow() {
        let big = Rect::new(i32::MAX, i32::MAX, i32::MAX, i32::MAX);
        let low = Rect::new(i32::MIN, i32::MIN, i32::MAX, 1);
        assert_eq!(scan_all(&[big, low], &big), None);
        assert_eq!(scan_all(&[big], &low), None);
    }

    /// The band must pick exactly what trying every text picks, on crowded random layouts
    /// with overlapping, empty, negative, tall and huge frames (fixed seed).
    #[test]
    fn the_band_picks_what_the_full_scan_picks() {
        let mut seed = 0x2545_f491_4f6c_dd1d_u64;
        let mut next = |m: i64| {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            (seed % m as u64) as i64
        };
        let mut band = Band::default();
        let mut named = 0;
        for round in 0..40 {
            let texts: Vec<Rect> = (0..150)
                .map(|_| {
                    let (w, h) = match next(25) {
                        0 => (0, 20),
                        1 => (50, -3),
                        2 => (5000, 30),
                        3 => (40, 2000),
                        4 => (40, 0),
                        _ => (next(160) as i32 + 1, next(40) as i32 + 1),
                    };
                    Rect::new(next(1600) as i32 - 100, next(1000) as i32 - 50, w, h)
                })
                .collect();
            band.fill(&texts);
            for _ in 0..150 {
                let f = match next(25) {
                    0 => Rect::new(next(1400) as i32, next(900) as i32, 0, 10),
                    1 => Rect::new(0, 0, 3000, 2000),
                    2 => Rect::new(next(1400) as i32, next(900) as i32, 80, -15),
                    _ => Rect::new(
                        next(1400) as i32,
                        next(900) as i32,
                        next(300) as i32 + 1,
                        next(40) as i32 + 1,
                    ),
                };
                let all = scan_all(&texts, &f);
                named += usize::from(all.is_some());
                let mut offered = vec![0u32; texts.len()];
                let picked = best_label(&texts, &f, |each| {
                    band.candidates(&f, |t| {
                        offered[t] += 1;
                        each(t)
                    })
                });
                assert_eq!(picked, all, "round {round} {f:?}");
                assert!(offered.iter().all(|&n| n <= 1), "each text offered once");
                assert!(
                    offered.iter().filter(|&&n| n == 1).count() < texts.len() / 2
                        || f.height > 1000,
                    "the band narrows the search (round {round} {f:?})"
                );
            }
        }
        assert!(named > 400, "many fields have a label ({named})");
    }
}
